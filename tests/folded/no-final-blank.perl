prog;main 1
