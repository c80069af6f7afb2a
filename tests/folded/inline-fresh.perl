lambda;main:lambda.cpp:26;apply_n<main(int, char**)::<lambda(int)> >:lambda.cpp:10;long apply_n<main::{lambda(int)#1}>(main::{lambda(int)#1}, int) [clone .constprop.0]:lambda.cpp:22 4000000
