/* SPDX-License-Identifier: MIT */
/*
 * common.c - shared subcommand plumbing (see common.h). Never decodes.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <stdarg.h>
#include <string.h>
#include "common.h"

/* diff reads its two inputs in two threads: both set it, both read it */
static atomic_int quiet_warnings;

int cmd_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "perfsift %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'perfsift %s --help'.\n", cmd);
    return EXIT_USAGE;
}

int cmd_bad_option(const char *cmd)
{
    fprintf(stderr, "Try 'perfsift %s --help'.\n", cmd);
    return EXIT_USAGE;
}

static void print_warning(void *ctx, const ps_error *w)
{
    if (!quiet_warnings)
        fprintf(stderr, "perfsift %s: warning: %s\n", (const char *)ctx, w->msg);
}

ps_session *cmd_open(const char *cmd, const input_opts *in)
{
    ps_open_opts o = PS_OPEN_OPTS_INIT;
    ps_session *s;
    ps_error err;

    quiet_warnings = in->quiet;
    o.attr_path = in->attr_path;
    o.ring_form = in->ring_form;
    o.keep_going = in->keep_going;
    o.ordered = in->ordered;
    o.warn = print_warning;
    o.warn_ctx = (void *)cmd;
    if (ps_session_open(&s, in->path ? in->path : "perf.data", &o, &err) < 0) {
        fprintf(stderr, "perfsift %s: %s\n", cmd, err.msg);
        return NULL;
    }
    return s;
}

int cmd_input_option(const char *cmd, input_opts *in, int c, const char *arg)
{
    switch (c) {
    case 'i': in->path = arg; return 1;
    case 'q': in->quiet = 1; return 1;
    case OPT_ATTR: in->attr_path = arg; return 1;
    case OPT_KEEP_GOING: in->keep_going = 1; return 1;
    case OPT_ORDERED: in->ordered = 1; return 1;
    case OPT_RING_FORM:
        if (strcmp(arg, "auto") == 0) in->ring_form = PS_RING_AUTO;
        else if (strcmp(arg, "stream") == 0) in->ring_form = PS_RING_STREAM;
        else if (strcmp(arg, "snapshot") == 0) in->ring_form = PS_RING_SNAPSHOT;
        else {
            cmd_usage_error(cmd, "--ring-form must be auto, stream or snapshot, not '%s'", arg);
            return -1;
        }
        return 1;
    default:
        return 0;
    }
}

int cmd_input_error(const char *cmd, const ps_error *err)
{
    fprintf(stderr, "perfsift %s: %s\n", cmd, err->msg);
    return EXIT_BADINPUT;
}

int cmd_finish_stdout(const char *cmd, int rc)
{
    if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0) {
        if (errno != EPIPE)
            fprintf(stderr, "perfsift %s: error writing output: %s\n", cmd, strerror(errno));
        return EXIT_BADINPUT;
    }
    return rc;
}

/* the progress line's state, shared by diff's two reading threads */
static pthread_mutex_t progress_lock = PTHREAD_MUTEX_INITIALIZER;
static int progress_shown;

static double now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void progress_line(ps_session *s, uint64_t nr)
{
    static double start, last;
    static int tty = -1;
    const ps_header *h;
    double t;

    if (tty < 0)
        tty = isatty(STDERR_FILENO) && !quiet_warnings;
    if (!tty)
        return;
    t = now();
    if (start == 0)
        start = last = t;
    if (t - last < 0.25)
        return;
    last = t;
    h = ps_session_header(s);
    if (h->file_size)
        fprintf(stderr, "\r%.0f%% (%llu of %llu MB), %.0f records/s   ",
                100.0 * (double)ps_session_bytes_read(s) / (double)h->file_size,
                (unsigned long long)(ps_session_bytes_read(s) >> 20),
                (unsigned long long)(h->file_size >> 20), (double)nr / (t - start));
    else
        fprintf(stderr, "\r%llu MB read, %.0f records/s   ",
                (unsigned long long)(ps_session_bytes_read(s) >> 20), (double)nr / (t - start));
    progress_shown = 1;
}

void cmd_progress(ps_session *s, uint64_t nr)
{
    if ((nr & 4095) != 0)
        return;
    pthread_mutex_lock(&progress_lock);
    progress_line(s, nr);
    pthread_mutex_unlock(&progress_lock);
}

void cmd_progress_done(void)
{
    pthread_mutex_lock(&progress_lock);
    if (progress_shown)
        fprintf(stderr, "\r%60s\r", "");
    progress_shown = 0;
    pthread_mutex_unlock(&progress_lock);
}

/* --- atomic output ------------------------------------------------------------ */

static char *atomic_tmp;        /* removed if a signal ends us mid-write */

/* mkstemp makes 0600 files; outputs get what a plain open would give */
static int fchmod_default(const char *path)
{
    mode_t um = umask(0);

    umask(um);
    return chmod(path, 0666 & ~um);
}

static void atomic_signal(int sig)
{
    if (atomic_tmp != NULL)
        unlink(atomic_tmp);
    signal(sig, SIG_DFL);
    raise(sig);
}

int cmd_check_kallsyms(const char *cmd, const char *path)
{
    if (path == NULL || access(path, R_OK) == 0)
        return 0;
    fprintf(stderr, "perfsift %s: --kallsyms %s: %s\n", cmd, path, strerror(errno));
    return -1;
}

/* the failed write's message, unless the writer has given the reason */
static void write_failed(const char *cmd, const char *path, int err)
{
    if (err != ECANCELED)
        fprintf(stderr, "perfsift %s: cannot write %s: %s\n", cmd, path, strerror(err));
}

/*
 * An existing target that is no regular file (/dev/null, a FIFO, /dev/stdout
 * into a pipe, a terminal) is written into: renaming a temp file over it
 * would put a file where the device was, which as root replaces /dev/null.
 */
static int write_into(const char *cmd, const char *path, cmd_writer write, void *ctx)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC), rc = -1, err;
    FILE *fp = NULL;

    if (fd >= 0 && (fp = fdopen(fd, "w")) == NULL)
        close(fd);
    else if (fp != NULL && write(fp, ctx) == 0 && fflush(fp) == 0 && !ferror(fp))
        rc = 0;
    err = errno;
    if (fp != NULL && fclose(fp) != 0 && rc == 0) {
        rc = -1;
        err = errno;
    }
    if (rc == 0)
        return EXIT_OK;
    write_failed(cmd, path, err);
    return EXIT_BADINPUT;
}

/* the temp file beside PATH, renamed over it once whole */
static int write_atomic_at(const char *cmd, const char *path, cmd_writer write, void *ctx)
{
    size_t n = strlen(path);
    char *tmp = malloc(n + 16);
    FILE *fp = NULL;
    int fd, rc = -1, err;

    if (tmp == NULL) {
        fprintf(stderr, "perfsift %s: out of memory\n", cmd);
        return EXIT_BADINPUT;
    }
    snprintf(tmp, n + 16, "%s.tmp.XXXXXX", path);
    if ((fd = mkstemp(tmp)) < 0) {
        fprintf(stderr, "perfsift %s: cannot create %s: %s\n", cmd, tmp, strerror(errno));
        free(tmp);
        return EXIT_BADINPUT;
    }
    atomic_tmp = tmp;
    signal(SIGINT, atomic_signal);
    signal(SIGTERM, atomic_signal);
    signal(SIGHUP, atomic_signal);
    if ((fp = fdopen(fd, "w")) == NULL)
        close(fd);
    else if (write(fp, ctx) == 0 && fflush(fp) == 0 && !ferror(fp) && fsync(fd) == 0)
        rc = 0;
    err = errno;
    if (fp != NULL && fclose(fp) != 0 && rc == 0) {
        rc = -1;
        err = errno;
    }
    if (rc == 0 && fchmod_default(tmp) == 0 && rename(tmp, path) == 0) {
        atomic_tmp = NULL;
        free(tmp);
        return EXIT_OK;
    }
    write_failed(cmd, path, rc == 0 ? errno : err);
    unlink(tmp);
    atomic_tmp = NULL;
    free(tmp);
    return EXIT_BADINPUT;
}

int cmd_write_atomic(const char *cmd, const char *path, cmd_writer write, void *ctx)
{
    struct stat st;
    char *real = NULL;
    int rc;

    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        return write_into(cmd, path, write, ctx);
    /* -o LINK replaces the link's target, not the link */
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
        real = realpath(path, NULL);
    rc = write_atomic_at(cmd, real != NULL ? real : path, write, ctx);
    free(real);
    return rc;
}

void cmd_host_cpu(char *desc, size_t dsz, char *id, size_t isz)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512], vendor[64] = "", *v;
    int family = 0, model = 0, stepping = 0;

    snprintf(desc, dsz, "unknown");
    if (f == NULL)
        return;
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, "processor", 9) == 0 && vendor[0] != 0)
            break;                      /* the first CPU says it all */
        line[strcspn(line, "\n")] = 0;
        if ((v = strchr(line, ':')) == NULL)
            continue;
        v += v[1] == ' ' ? 2 : 1;
        if (strncmp(line, "model name", 10) == 0)
            snprintf(desc, dsz, "%s", v);
        else if (strncmp(line, "vendor_id", 9) == 0)
            snprintf(vendor, sizeof(vendor), "%s", v);
        else if (strncmp(line, "cpu family", 10) == 0)
            family = atoi(v);
        else if (strncmp(line, "model\t", 6) == 0)
            model = atoi(v);
        else if (strncmp(line, "stepping", 8) == 0)
            stepping = atoi(v);
    }
    fclose(f);
    snprintf(id, isz, "%s,%d,%d,%d", vendor, family, model, stepping);
}
