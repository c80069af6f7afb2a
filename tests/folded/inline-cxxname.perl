nopie;filler:nopie.c:27;scaled(int):??:? 2000000
