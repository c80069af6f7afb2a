/* SPDX-License-Identifier: MIT */
/*
 * record.c - `perfsift record`: perf_event_open(2) directly, one ring per
 * CPU, captures that perf 6.1 reads as its own (spec 15). Options, the
 * target (a command started with the events enabled on exec, -p PIDs, or
 * -a), the drain loop (a FINISHED_ROUND after every pass that moved data,
 * spec 12.2), the summary line, and --repair for a capture whose recorder
 * was killed.
 *
 * The file is always finished: Ctrl-C, SIGTERM and the command's exit all
 * end the loop the same way (a last drain, then the features and the
 * header). Only SIGKILL leaves an unterminated file; --repair ends it.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common.h"
#include "record.h"

#define POLL_MS       100
#define DEFAULT_PAGES 128                  /* 512 KiB with 4 KiB pages, perf's */
#define DEFAULT_STACK 8192

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig) { stop_signal = sig; }
static void on_child(int sig) { (void)sig; }

static void usage(FILE *out)
{
    fprintf(out,
"usage: perfsift record [options] [-- COMMAND [ARGS...]]\n"
"\n"
"Record a profile with perf_event_open(2) into a perf.data file that perf\n"
"itself reads (perf report, perf script), or a pipe stream (-o -).\n"
"Stops when COMMAND exits or on Ctrl-C, and always finishes the file.\n"
"\n"
"  -e, --event LIST      events, comma-separated: cpu-clock, task-clock,\n"
"                        page-faults, context-switches, cpu-migrations,\n"
"                        minor-faults, major-faults (add :u or :k), hardware\n"
"                        events where there is a PMU (cycles, instructions...),\n"
"                        tracepoints as system:name. Default cycles, or\n"
"                        cpu-clock without a PMU\n"
"  -F, --freq HZ         samples per second (default 4000)\n"
"  -c, --count PERIOD    a sample every PERIOD events instead\n"
"  -g                    callchains by frame pointers\n"
"      --call-graph MODE fp, or dwarf[,SIZE] (user registers + SIZE bytes of\n"
"                        stack per sample, default 8192)\n"
"  -o, --output FILE     default perf.data (an old one is kept as\n"
"                        perf.data.old); '-' writes a pipe stream to stdout\n"
"  -z, --compression-level[=N]  zstd COMPRESSED records (level N, default 1); with -o -\n"
"                               too, though perf 6.1's report --stats fails on any\n"
"                               compressed pipe stream, its own as well\n"
"  -m, --mmap-pages N    data pages per ring, a power of two (default 128)\n"
"  -p, --pid PID,...     attach to running processes (all their threads)\n"
"  -a, --all-cpus        every CPU, every process\n"
"      --raw-ring DIR    no perf.data: DIR/ring-CPU.stream holds each ring's\n"
"                        drained records (the synthesized ones at the start of\n"
"                        each), DIR/all.stream all of them in the order\n"
"                        drained, DIR/attr.json the events; read back with\n"
"                        'perfsift script --ordered --attr DIR/attr.json\n"
"                        DIR/all.stream'\n"
"      --repair FILE     terminate FILE left by a killed recorder (header data\n"
"                        size 0): keep its complete records, cut a torn last\n"
"                        one, write the header and the features it needs\n"
"  -q, --quiet           no summary\n"
"  -h, --help            this text\n"
"\n"
"Examples:\n"
"  perfsift record -g -- ./myprog args\n"
"  perfsift record -e cpu-clock,sched:sched_switch -a -- sleep 2\n"
"  perfsift record --call-graph dwarf -o - -- ./myprog | perfsift script -\n"
"  perfsift record --repair perf.data\n");
}

enum { OPT_CALL_GRAPH = 2000, OPT_RAW_RING, OPT_REPAIR };

static const struct option long_opts[] = {
    { "event", required_argument, NULL, 'e' },
    { "freq", required_argument, NULL, 'F' },
    { "count", required_argument, NULL, 'c' },
    { "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
    { "output", required_argument, NULL, 'o' },
    { "compression-level", optional_argument, NULL, 'z' },
    { "mmap-pages", required_argument, NULL, 'm' },
    { "pid", required_argument, NULL, 'p' },
    { "all-cpus", no_argument, NULL, 'a' },
    { "raw-ring", required_argument, NULL, OPT_RAW_RING },
    { "repair", required_argument, NULL, OPT_REPAIR },
    { "quiet", no_argument, NULL, 'q' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

static int parse_call_graph(record *r, const char *mode)
{
    char *end;

    if (strcmp(mode, "fp") == 0) {
        r->callgraph = CG_FP;
        return 0;
    }
    if (strncmp(mode, "dwarf", 5) != 0 || (mode[5] != 0 && mode[5] != ','))
        return -1;
    r->callgraph = CG_DWARF;
    if (mode[5] == ',') {
        unsigned long v = strtoul(mode + 6, &end, 0);

        if (*end || v == 0 || v > 65528)
            return -1;
        r->stack_size = (unsigned)((v + 7) & ~7ul);
    }
    return 0;
}

static int positive(const char *s, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);

    if (*s == 0 || *end || v <= 0 || v > 1000000000)
        return -1;
    *out = (int)v;
    return 0;
}

static int parse_args(record *r, int argc, char **argv, const char **repair, int *events)
{
    int c, v;

    while ((c = getopt_long(argc, argv, "+e:F:c:go:z::m:p:aqh", long_opts, NULL)) != -1) {
        switch (c) {
        case 'e':
            if (rec_events_parse(r, optarg) < 0)
                return EXIT_USAGE;
            *events = 1;
            break;
        case 'F':
            if (positive(optarg, &r->freq) < 0)
                return cmd_usage_error("record", "-F wants a positive frequency, not '%s'", optarg);
            break;
        case 'c':
            if (positive(optarg, &r->period) < 0)
                return cmd_usage_error("record", "-c wants a positive period, not '%s'", optarg);
            break;
        case 'g': r->callgraph = CG_FP; break;
        case OPT_CALL_GRAPH:
            if (parse_call_graph(r, optarg) < 0)
                return cmd_usage_error("record", "--call-graph: fp or dwarf[,SIZE], not '%s'",
                                       optarg);
            break;
        case 'o': r->output = optarg; break;
        case 'z':
            r->compress = 1;
            if (optarg && (positive(optarg, &r->level) < 0 || r->level > 22))
                return cmd_usage_error("record", "-z: a zstd level 1..22, not '%s'", optarg);
            break;
        case 'm':
            if (positive(optarg, &v) < 0 || (v & (v - 1)) != 0)
                return cmd_usage_error("record", "-m wants a power of two, not '%s'", optarg);
            r->pages = (unsigned)v;
            break;
        case 'p': r->pids = optarg; break;
        case 'a': r->all_cpus = 1; break;
        case OPT_RAW_RING: r->raw_dir = optarg; break;
        case OPT_REPAIR: *repair = optarg; break;
        case 'q': r->quiet = 1; break;
        case 'h': usage(stdout); exit(EXIT_OK);
        default: return cmd_bad_option("record");
        }
    }
    r->argv = optind < argc ? argv + optind : NULL;
    r->argc = argc - optind;
    return EXIT_OK;
}

/* ------------------------------------------------------------------------ */
/* Targets                                                                   */

static int online_cpus(record *r)
{
    FILE *f = fopen("/sys/devices/system/cpu/online", "r");
    char buf[4096], *tok, *save = NULL;
    int a, b;

    if (f == NULL || fgets(buf, sizeof(buf), f) == NULL) {
        if (f)
            fclose(f);
        return -1;
    }
    fclose(f);
    for (tok = strtok_r(buf, ",\n", &save); tok; tok = strtok_r(NULL, ",\n", &save)) {
        int n = sscanf(tok, "%d-%d", &a, &b);

        if (n < 1)
            continue;
        if (n == 1)
            b = a;
        for (; a <= b; a++) {
            int *nc = realloc(r->cpus, (r->ncpus + 1) * sizeof(*nc));

            if (nc == NULL)
                return -1;
            r->cpus = nc;
            r->cpus[r->ncpus++] = a;
        }
    }
    return r->ncpus > 0 ? 0 : -1;
}

static int add_tid(record *r, pid_t tid)
{
    pid_t *n = realloc(r->tids, (r->ntids + 1) * sizeof(*n));

    if (n == NULL)
        return -1;
    r->tids = n;
    r->tids[r->ntids++] = tid;
    return 0;
}

/* -p: every thread of every PID listed. */
static int pid_threads(record *r)
{
    char *copy = strdup(r->pids), *tok, *save = NULL, path[64];
    struct dirent *d;
    DIR *dir;
    int rc = copy ? 0 : -1;

    for (tok = strtok_r(copy, ",", &save); tok && rc == 0; tok = strtok_r(NULL, ",", &save)) {
        int pid = atoi(tok);
        size_t before = r->ntids;

        snprintf(path, sizeof(path), "/proc/%d/task", pid);
        if (pid <= 0 || (dir = opendir(path)) == NULL) {
            rec_error("no such process '%s'", tok);
            rc = -1;
            break;
        }
        while (rc == 0 && (d = readdir(dir)) != NULL)
            if (atoi(d->d_name) > 0)
                rc = add_tid(r, atoi(d->d_name));
        closedir(dir);
        if (rc == 0 && r->ntids == before) {
            rec_error("process %d has no threads left", pid);
            rc = -1;
        }
    }
    free(copy);
    return rc;
}

/* The command, forked and held until the events are ready. */
static int start_command(record *r, int go[2])
{
    if (pipe(go) < 0)
        return -1;
    r->child = fork();
    if (r->child < 0)
        return -1;
    if (r->child == 0) {
        char c;

        close(go[1]);
        if (read(go[0], &c, 1) != 1)
            _exit(127);                 /* the recorder gave up */
        if (strcmp(r->output, "-") == 0 && r->raw_dir == NULL)
            dup2(STDERR_FILENO, STDOUT_FILENO);     /* stdout is the capture */
        execvp(r->argv[0], r->argv);
        fprintf(stderr, "perfsift record: cannot run '%s': %s\n", r->argv[0], strerror(errno));
        _exit(127);
    }
    close(go[0]);
    return 0;
}

static int setup_targets(record *r)
{
    if (online_cpus(r) < 0) {
        rec_error("cannot read /sys/devices/system/cpu/online");
        return -1;
    }
    if (r->all_cpus)
        return add_tid(r, -1);
    if (r->pids != NULL)
        return pid_threads(r);
    if (r->argv == NULL) {
        rec_error("nothing to record: give a command (-- CMD), -p PID or -a");
        return -1;
    }
    return add_tid(r, r->child);
}

static int synthesize(record *r)
{
    char *copy, *tok, *save = NULL;
    int rc = 0;

    if (rec_synth_kernel(r) < 0)
        return -1;
    if (r->all_cpus)
        return rec_synth_all(r);
    if (r->pids == NULL)
        return rec_synth_pid(r, r->child, 0);
    if ((copy = strdup(r->pids)) == NULL)
        return -1;
    for (tok = strtok_r(copy, ",", &save); tok && rc == 0; tok = strtok_r(NULL, ",", &save))
        rc = rec_synth_pid(r, atoi(tok), SYNTH_FORK | SYNTH_MAPS);
    free(copy);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* The loop                                                                  */

static int child_exited(record *r, int *status)
{
    if (r->child <= 0)
        return 0;
    if (waitpid(r->child, status, WNOHANG) == r->child) {
        r->child = 0;
        return 1;
    }
    return 0;
}

static int pass(record *r)
{
    uint64_t bytes;

    if (rec_rings_drain(r, &bytes) < 0)
        return -1;
    if (bytes == 0)
        return 0;
    r->wakeups++;                       /* passes that moved data */
    return rec_out_round(r);
}

static int loop(record *r, int *status)
{
    int done = 0;

    while (!done) {
        if (stop_signal || child_exited(r, status))
            done = 1;
        else if (rec_rings_poll(r, POLL_MS) == 1) {
            /* every monitored task is gone; the command is exiting */
            if (r->child > 0 && r->tids[0] == r->child && waitpid(r->child, status, 0) == r->child)
                r->child = 0;
            done = r->child <= 0 || r->tids[0] != r->child;
        }
        if (pass(r) < 0)
            return -1;
    }
    rec_events_enable(r, 0);
    return pass(r);
}

static void summary(const record *r)
{
    double mb;
    const char *name = r->raw_dir ? r->raw_dir : r->output;

    if (r->quiet)
        return;
    mb = (double)(r->w ? ps_writer_bytes_out(r->w) : r->raw_bytes) / (1024.0 * 1024.0);
    fprintf(stderr, "[ perfsift record: Woken up %llu times to write data ]\n",
            (unsigned long long)r->wakeups);
    fprintf(stderr, "[ perfsift record: Captured and wrote %.3f MB %s (%llu samples",
            mb, strcmp(name, "-") == 0 ? "<stdout>" : name, (unsigned long long)r->samples);
    if (r->lost)
        fprintf(stderr, ", %llu lost", (unsigned long long)r->lost);
    fprintf(stderr, ") ]\n");
    if (r->lost)
        fprintf(stderr, "perfsift record: %llu records were lost: the rings filled up; "
                "use a bigger -m or a lower -F\n", (unsigned long long)r->lost);
}

static void signals(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sa.sa_handler = on_child;
    sigaction(SIGCHLD, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

static int run(record *r)
{
    int go[2] = { -1, -1 }, status = 0, rc = -1;
    int cmd_target = r->argv != NULL;

    if (cmd_target && start_command(r, go) < 0) {
        rec_error("cannot start '%s': %s", r->argv[0], strerror(errno));
        return EXIT_BADINPUT;
    }
    rec_events_finalize(r);
    rec_kernel_text(r);
    if (setup_targets(r) < 0 || rec_events_open(r) < 0 || rec_rings_mmap(r) < 0 ||
        rec_out_open(r) < 0 || rec_out_begin(r) < 0)
        goto out;
    /* running tasks (-a, -p): the events go on before /proc is read, so a
     * task forked or exec'd during the read has its records in the rings
     * (perf's tracking event, on from the start, does the same) */
    if ((r->all_cpus || r->pids) && rec_events_enable(r, 1) < 0) {
        rec_error("cannot enable the events: %s", strerror(errno));
        goto out;
    }
    if (synthesize(r) < 0 || rec_out_round(r) < 0)  /* the initial state on disk now */
        goto out;
    if (cmd_target) {
        if (write(go[1], "g", 1) != 1)
            goto out;
        close(go[1]);
        go[1] = -1;
    }
    if (loop(r, &status) < 0 || rec_out_finish(r) < 0)
        goto out;
    rc = 0;
    summary(r);
    if (cmd_target && WIFEXITED(status) && WEXITSTATUS(status) == 127) {
        rec_error("the command did not start (exit 127): the capture holds no samples of it");
        rc = -1;
    }
out:
    if (go[1] >= 0)
        close(go[1]);
    if (r->child > 0) {
        kill(r->child, SIGTERM);
        waitpid(r->child, NULL, 0);
    }
    rec_rings_unmap(r);
    rec_events_close(r);
    rec_out_free(r);
    return rc == 0 ? EXIT_OK : EXIT_BADINPUT;
}

/* ------------------------------------------------------------------------ */
/* --repair                                                                  */

static int repair(const char *path, int quiet)
{
    ps_repair_info info;
    ps_repair_feat extra[1];
    size_t n = 0, len = 0;
    uint8_t *tp = NULL;
    ps_error err;

    if (ps_writer_repair_scan(path, &info, &err) < 0) {
        rec_error("%s", err.msg);
        return EXIT_BADINPUT;
    }
    if (info.tracepoints) {
        tp = rec_tracing_data_ids(info.tp_config, info.tracepoints < 64 ? (size_t)info.tracepoints
                                  : 64, &len);
        if (tp != NULL)
            extra[n++] = (ps_repair_feat){ PS_HEADER_TRACING_DATA, tp, len };
        else
            rec_error("warning: the tracepoints of '%s' are not in this machine's tracefs; "
                      "perf will not decode them", path);
    }
    if (ps_writer_repair(path, extra, n, &info, &err) < 0) {
        free(tp);
        rec_error("%s", err.msg);
        return EXIT_BADINPUT;
    }
    free(tp);
    if (!quiet)
        fprintf(stderr, "[ perfsift record: repaired %s: %llu records (%llu bytes) kept, "
                "%llu bytes of a torn record dropped ]\n", path,
                (unsigned long long)info.records, (unsigned long long)info.data_size,
                (unsigned long long)info.dropped);
    return EXIT_OK;
}

int cmd_record(int argc, char **argv)
{
    record r;
    const char *repair_path = NULL;
    int rc, events = 0;

    memset(&r, 0, sizeof(r));
    r.output = "perf.data";
    r.pages = DEFAULT_PAGES;
    r.stack_size = DEFAULT_STACK;
    r.out_fd = -1;
    r.all_fd = -1;
    r.cmd_argc = argc;
    r.cmd_argv = argv;
    if ((rc = parse_args(&r, argc, argv, &repair_path, &events)) != EXIT_OK)
        goto out;
    if (repair_path != NULL) {
        rc = repair(repair_path, r.quiet);
        goto out;
    }
    if (!events && rec_events_default(&r) < 0) {
        rc = EXIT_BADINPUT;
        goto out;
    }
    if (r.argv == NULL && r.pids == NULL && !r.all_cpus) {
        rc = cmd_usage_error("record", "nothing to record: give a command (-- CMD), -p PID "
                             "or -a");
        goto out;
    }
    if (r.freq > 0 && r.period > 0) {
        rc = cmd_usage_error("record", "-F and -c exclude each other");
        goto out;
    }
    signals();
    rc = run(&r);
out:
    for (size_t i = 0; i < r.nev; i++)
        free(r.ev[i].ids);
    free(r.ev);
    free(r.cpus);
    free(r.tids);
    return rc;
}
