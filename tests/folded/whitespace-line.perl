bb;fb;fa 1
