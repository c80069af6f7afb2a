prog;main 2
