prog;mid:3333 main+0x10 (/bin/prog);leaf:prog.c:10 1
