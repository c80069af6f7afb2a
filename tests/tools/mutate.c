/* SPDX-License-Identifier: MIT */
/*
 * mutate.c - damaged captures through perfsift's commands, cheaply
 * (tests/diff/mutate.sh). For each capture named: every prefix cut at a
 * record boundary (at most MAX_CUTS of them, evenly spread), prefixes cut
 * at 64 random offsets, and 200 copies with seeded random byte and bit
 * flips. Each case runs one command's entry function on a memfd (dump,
 * script, folded and json in turn; most cuts at record boundaries, where
 * the reader's framing is what is tested, run `info --stats`, every 16th
 * one of the four), stdout to /dev/null, in a forked child (no exec) with
 * an address-space bound (setrlimit, as ulimit -v; skipped under ASan,
 * which reserves terabytes of shadow) and a 10 s alarm. One child runs a
 * batch of 32 cases in turn; a case that ends it is judged by how it
 * ended, and the rest go on in a new child. The command must end with 0,
 * or 1 with a message on stderr: a signal, a timeout, another status or a
 * silent failure is reported with the case, and the input kept in
 * KEEP_DIR.
 *
 * A capture over -b BYTES (default 64 KiB) gets its counts scaled down by
 * BYTES/size (at least 8 of each): every case decodes the whole capture,
 * so big ones would take the time budget.
 *
 * -t SECONDS: start no case after that long (the captures left are
 * named); give the smallest captures first.
 *
 * usage: mutate [-s SEED] [-n FLIPS] [-r RANDOM_CUTS] [-c MAX_CUTS]
 *               [-b BYTES] [-t SECONDS] [-k KEEP_DIR] [-m MEM_MB] CAPTURE...
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "perfsift.h"
#include "../../cmd/common.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

static struct {
    unsigned seed, flips, rcuts, max_cuts, mem_mb;
    size_t bytes;
    double deadline;            /* CLOCK_MONOTONIC seconds; 0: none */
    const char *keep;
    char empty_dir[64], empty_file[80];
    unsigned long cases, bad, turn;
} g = { 1, 200, 64, 64, 1024, 65536, 0, NULL, "", "", 0, 0, 0 };

static uint64_t rng_state;

static double now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int out_of_time(void)
{
    return g.deadline > 0 && now() > g.deadline;
}

static uint64_t rng(void)       /* xorshift64*: reproducible from the seed */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1DULL;
}

static uint8_t *slurp(const char *path, size_t *size)
{
    struct stat st;
    uint8_t *buf;
    int fd = open(path, O_RDONLY);

    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
        (buf = malloc((size_t)st.st_size + 1)) == NULL) {
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    *size = (size_t)st.st_size;
    if (read(fd, buf, *size) != (ssize_t)*size) {
        free(buf);
        buf = NULL;
    }
    close(fd);
    return buf;
}

/* Top-level record boundaries of the intact capture (the end of each
 * record), found with the library itself. */
static size_t boundaries(const char *path, uint64_t *out, size_t max)
{
    ps_open_opts o = PS_OPEN_OPTS_INIT;
    ps_session *s;
    ps_event ev;
    ps_error err;
    size_t n = 0;

    if (ps_session_open(&s, path, &o, &err) < 0)
        return 0;
    while (n < max && ps_session_next(&ev, s, &err) == PS_OK)
        if (!(ev.flags & PS_EVENT_IN_COMPRESSED) && ev.file_index < 0)
            out[n++] = ev.offset + ev.size;
    ps_session_close(s);
    return n;
}

/* The commands a case runs: the four that decode everything in turn, and
 * `info --stats` (every record read and counted, nothing resolved or
 * printed) for most cuts at record boundaries, the bulk of the cases. */
enum { NR_FULL = 4, STATS = 4, BATCH = 32 };
static const char *const cmds[] = { "dump", "script", "folded", "json", "info" };

/* A case waiting for its batch: its bytes and its stderr in memfds. */
typedef struct mcase {
    const char *name;
    char what[64];
    size_t n;
    int memfd, errfd, which;
} mcase;

static mcase queue[BATCH];
static int nqueue;

/* Commands fclose() stdout when they finish; the batch child keeps it
 * (/dev/null) for the next case (linked with --wrap=fclose). */
int __real_fclose(FILE *fp);
int __wrap_fclose(FILE *fp)
{
    if (fp == stdout)
        return fflush(fp);
    return __real_fclose(fp);
}

/* One case in the batch child: its command on its memfd, stderr to its
 * own memfd, 10 s at most; the command's status. */
static int run_case(const mcase *c)
{
    int (*const run[])(int, char **) = { cmd_dump, cmd_script, cmd_folded, cmd_json, cmd_info };
    char path[64], *argv[12];
    int argc = 0, rc;

    fflush(stderr);
    dup2(c->errfd, STDERR_FILENO);
    snprintf(path, sizeof(path), "/proc/self/fd/%d", c->memfd);
    argv[argc++] = (char *)cmds[c->which];
    argv[argc++] = path;
    if (c->which == STATS) {
        argv[argc++] = "--stats";
    } else if (c->which != 0) {
        argv[argc++] = "--symfs";
        argv[argc++] = g.empty_dir;
        argv[argc++] = "--kallsyms";
        argv[argc++] = g.empty_file;
    }
    argv[argc] = NULL;
    optind = 0;
    alarm(10);
    rc = run[c->which](argc, argv);
    alarm(0);
    fflush(stdout);
    fflush(stderr);
    return rc;
}

/* The batch child: cases from..nqueue-1 in turn, each status written to
 * wfd as it ends (a case that kills the child is the one after the last
 * status). A fork per batch, not per case: in this VM the fork, its page
 * faults and its exit cost more than decoding a small capture. */
static void batch_child(int from, int wfd)
{
    int devnull = open("/dev/null", O_WRONLY), i;

    if (!UNDER_ASAN) {
        struct rlimit rl = { (rlim_t)g.mem_mb << 20, (rlim_t)g.mem_mb << 20 };

        setrlimit(RLIMIT_AS, &rl);
    }
    dup2(devnull, STDOUT_FILENO);
    /* stdout is line-buffered here (the parent's progress lines), and
     * dump would write each line to /dev/null with a syscall of its own;
     * damaged captures also warn a lot: both fully buffered */
    setvbuf(stdout, NULL, _IOFBF, 1 << 16);
    setvbuf(stderr, NULL, _IOFBF, 1 << 16);
    for (i = from; i < nqueue; i++) {
        int rc = run_case(&queue[i]);

        if (write(wfd, &rc, sizeof(rc)) != (ssize_t)sizeof(rc))
            _exit(3);
    }
    _exit(0);
}

static void keep(const mcase *c)
{
    const char *base = strrchr(c->name, '/') ? strrchr(c->name, '/') + 1 : c->name;
    char path[4096], buf[65536];
    off_t at = 0;
    ssize_t k;
    FILE *f;

    if (g.keep == NULL)
        return;
    snprintf(path, sizeof(path), "%s/%s.%s", g.keep, base, c->what);
    if ((f = fopen(path, "wb")) == NULL)
        return;
    while ((k = pread(c->memfd, buf, sizeof(buf), at)) > 0) {
        fwrite(buf, 1, (size_t)k, f);
        at += k;
    }
    fclose(f);
}

/* A case's verdict from how its command ended (signalled: sig > 0). */
static void judge(const mcase *c, int sig, int status)
{
    off_t errlen = lseek(c->errfd, 0, SEEK_END);
    const char *why = NULL;

    if (sig > 0)
        why = sig == SIGALRM ? "took more than 10 s" : strsignal(sig);
    else if (status > 1 || status < 0)
        why = "exit status other than 0 or 1";
    else if (status == 1 && errlen <= 0)
        why = "exit 1 without a message";
    if (why == NULL)
        return;
    printf("FAIL mutate %s %s (%s, %zu bytes): %s\n", c->name, c->what, cmds[c->which], c->n,
           why);
    keep(c);
    g.bad++;
}

/* Run the queued cases, a forked child per batch; a case that ends its
 * child is judged by how the child ended, and the cases after it go on in
 * a new child. */
static void run_queue(void)
{
    int from = 0, i;

    while (from < nqueue) {
        int pfd[2], rc, st;
        pid_t pid;

        fflush(stdout);
        if (pipe(pfd) < 0 || (pid = fork()) < 0) {
            perror("mutate: fork");
            exit(2);
        }
        if (pid == 0) {
            close(pfd[0]);
            batch_child(from, pfd[1]);
        }
        close(pfd[1]);
        while (from < nqueue && read(pfd[0], &rc, sizeof(rc)) == (ssize_t)sizeof(rc))
            judge(&queue[from++], 0, rc);
        close(pfd[0]);
        if (waitpid(pid, &st, 0) != pid) {
            perror("mutate: waitpid");
            exit(2);
        }
        if (from < nqueue)      /* the child ended during this case */
            judge(&queue[from++], WIFSIGNALED(st) ? WTERMSIG(st) : 0,
                  WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    }
    for (i = 0; i < nqueue; i++) {
        close(queue[i].memfd);
        close(queue[i].errfd);
    }
    nqueue = 0;
}

/* Queue one case with command which (-1: the next of the four in turn);
 * the queue runs when full (and at the end of each capture). */
static void one(const char *name, const char *what, const uint8_t *buf, size_t n, int which)
{
    mcase *c = &queue[nqueue];

    if (out_of_time())
        return;
    c->name = name;
    snprintf(c->what, sizeof(c->what), "%s", what);
    c->n = n;
    c->which = which < 0 ? (int)(g.turn++ % NR_FULL) : which;
    c->memfd = memfd_create("case", 0);
    c->errfd = memfd_create("err", 0);
    if (c->memfd < 0 || c->errfd < 0 || write(c->memfd, buf, n) != (ssize_t)n) {
        perror("mutate: memfd");
        exit(2);
    }
    g.cases++;
    if (++nqueue == BATCH)
        run_queue();
}

/* n scaled down for a capture of size bytes (see -b) */
static size_t scaled(unsigned n, size_t size)
{
    size_t k = size <= g.bytes ? n : (size_t)((double)n * (double)g.bytes / (double)size);

    if (k < 8 && n >= 8)
        return 8;
    return k < 1 && n >= 1 ? 1 : k < n ? k : n;     /* 1: a step for the cuts */
}

static void capture(const char *path, unsigned idx)
{
    uint64_t *cuts = malloc(100000 * sizeof(*cuts));
    size_t size, nb, i, step, max;
    uint8_t *buf = slurp(path, &size), *copy;
    unsigned long before = g.bad, cases = g.cases;
    char what[64];

    if (buf == NULL || cuts == NULL || size == 0) {
        free(buf);
        free(cuts);
        return;
    }
    copy = malloc(size);
    rng_state = 0x9E3779B97F4A7C15ULL * (g.seed + idx + 1);
    nb = boundaries(path, cuts, 100000);
    max = scaled(g.max_cuts, size);
    step = nb > max ? (nb + max - 1) / max : 1;
    for (i = 0; i < nb; i += step)
        if (cuts[i] < size) {
            snprintf(what, sizeof(what), "cut-record-%zu", (size_t)cuts[i]);
            one(path, what, buf, (size_t)cuts[i], i % 16 == 0 ? -1 : STATS);
        }
    for (i = 0; i < scaled(g.rcuts, size); i++) {
        size_t at = (size_t)(rng() % size);

        snprintf(what, sizeof(what), "cut-%zu", at);
        one(path, what, buf, at, -1);
    }
    for (i = 0; i < scaled(g.flips, size); i++) {
        unsigned k, nflips = 1 + (unsigned)(rng() % 4);
        /* half the cases hit the first 4 KiB: header, attrs, features */
        size_t span = (i & 1) && size > 4096 ? 4096 : size;

        memcpy(copy, buf, size);
        for (k = 0; k < nflips; k++) {
            size_t at = (size_t)(rng() % span);
            uint64_t r = rng();

            if (r & 1)
                copy[at] ^= (uint8_t)(1u << (r >> 1) % 8);
            else
                copy[at] = (uint8_t)(r >> 8);
        }
        snprintf(what, sizeof(what), "flip-%u-%zu", g.seed + idx, i);
        one(path, what, copy, size, -1);
    }
    run_queue();
    printf("%s %s: %lu cases\n", g.bad == before ? "PASS mutate" : "FAIL mutate", path,
           g.cases - cases);
    free(copy);
    free(cuts);
    free(buf);
}

int main(int argc, char **argv)
{
    int c, fd;
    int i;

    while ((c = getopt(argc, argv, "s:n:r:c:b:t:k:m:")) != -1)
        switch (c) {
        case 's': g.seed = (unsigned)strtoul(optarg, NULL, 0); break;
        case 'n': g.flips = (unsigned)strtoul(optarg, NULL, 0); break;
        case 'r': g.rcuts = (unsigned)strtoul(optarg, NULL, 0); break;
        case 'c': g.max_cuts = (unsigned)strtoul(optarg, NULL, 0); break;
        case 't': g.deadline = now() + strtod(optarg, NULL); break;
        case 'b': g.bytes = (size_t)strtoull(optarg, NULL, 0); break;
        case 'k': g.keep = optarg; break;
        case 'm': g.mem_mb = (unsigned)strtoul(optarg, NULL, 0); break;
        default: return 2;
        }
    snprintf(g.empty_dir, sizeof(g.empty_dir), "/tmp/perfsift-mutate.XXXXXX");
    if (mkdtemp(g.empty_dir) == NULL)
        return 2;
    snprintf(g.empty_file, sizeof(g.empty_file), "%s/kallsyms", g.empty_dir);
    if ((fd = open(g.empty_file, O_CREAT | O_WRONLY, 0600)) < 0)
        return 2;
    close(fd);
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (i = optind; i < argc && !out_of_time(); i++)
        capture(argv[i], (unsigned)(i - optind));
    if (i < argc)
        printf("mutate: time budget spent; %d captures not tried, from %s\n", argc - i, argv[i]);
    unlink(g.empty_file);
    rmdir(g.empty_dir);
    printf("mutate: %lu cases, %lu bad\n", g.cases, g.bad);
    return g.bad != 0;
}
