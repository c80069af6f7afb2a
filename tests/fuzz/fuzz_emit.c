/* SPDX-License-Identifier: MIT */
/*
 * fuzz_emit - one emitter end to end: the command's entry function on the
 * input (a memfd named /proc/self/fd/N), output to /dev/null. Built once
 * per command with -DFUZZ_CMD=script|folded|json|sqlite. The option set
 * is picked by the input's size, so one corpus covers several modes.
 * Symbols come from an empty --symfs and no kallsyms: fast (reading
 * /proc/kallsyms each run would cost more than decoding), and the input
 * opens nothing outside them (tests/diff/hostile.sh covers real paths).
 */
#include <getopt.h>
#include "fuzz.h"
#include "../../cmd/common.h"

#define STR2(x) #x
#define STR(x) STR2(x)
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)

/* Nothing under a symfs that does not exist, no kernel symbols (/dev/null
 * is not a regular file): no files to make or leave behind. */
static char symfs[] = "/nonexistent/perfsift-fuzz-symfs", kallsyms[] = "/dev/null";
static char dbpath[96];

/* stdout is /dev/null for good: commands fclose() it when they finish,
 * so the link wraps fclose to keep it open for the next input. */
int __real_fclose(FILE *fp);
int __wrap_fclose(FILE *fp)
{
    if (fp == stdout)
        return fflush(fp);
    return __real_fclose(fp);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (freopen("/dev/null", "w", stdout) == NULL)
        abort();
    snprintf(dbpath, sizeof(dbpath), "%s/psfuzz-%d.db",
             access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", (int)getpid());
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *argv[16];
    int argc = 0, mode = (int)(size % 4);
    fuzz_file f;

    fuzz_file_open(&f, data, size);
    argv[argc++] = "perfsift " STR(FUZZ_CMD);
    argv[argc++] = "-q";
    argv[argc++] = f.path;
    argv[argc++] = "--symfs";
    argv[argc++] = symfs;
    argv[argc++] = "--kallsyms";
    argv[argc++] = kallsyms;
    if (mode == 2)
        argv[argc++] = "--ordered";
    if (mode == 3)
        argv[argc++] = "--keep-going";
#if defined(FUZZ_SCRIPT)
    if (mode == 1) {
        argv[argc++] = "-F";
        argv[argc++] = "+symoff,+srcline";  /* fields every sampled capture has */
        argv[argc++] = "--reltime";
    }
    if (mode == 2)
        argv[argc++] = "--show-task-events";
#elif defined(FUZZ_FOLDED)
    if (mode == 1)
        argv[argc++] = "--all";
    if (mode == 2)
        argv[argc++] = "--addrs";
#elif defined(FUZZ_JSON)
    if (mode == 1)
        argv[argc++] = "--lines";
    if (mode == 2)
        argv[argc++] = "--perf-compat";
    if (mode == 3) {
        argv[argc++] = "--format";
        argv[argc++] = "speedscope";
    }
#elif defined(FUZZ_SQLITE)
    argv[argc++] = "-f";
    argv[argc++] = "-o";
    argv[argc++] = dbpath;
#endif
    argv[argc] = NULL;
    optind = 0;         /* glibc: start getopt afresh */
    (void)CAT(cmd_, FUZZ_CMD)(argc, argv);
    fflush(stdout);
#if defined(FUZZ_SQLITE)
    unlink(dbpath);
#endif
    fuzz_file_close(&f);
    return 0;
}
