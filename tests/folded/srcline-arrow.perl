jit;weird:semi:tid 1421;arrow_[i]:2724a __libc_start_call_main+0x7a (/usr/lib/x86_64-linux-gnu/libc.so.6) 1001001
