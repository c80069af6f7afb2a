nopie;filler:nopie.c:27;[nopie];work:nopie.c:19 2000000
