ren-thr;__libc_start_call_main;spin 10000000
