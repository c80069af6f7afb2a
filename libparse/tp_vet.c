/* SPDX-License-Identifier: MIT */
/*
 * tp_vet.c - guards around libtraceevent for untrusted format texts.
 *
 * libtraceevent 1.7 trusts the event format texts it parses: fuzzing finds
 * a new way to crash its parser in most runs (a NULL token read at the end
 * of a cut print fmt, an operator applied to a missing operand, SIGFPE while
 * it folds constants). tracepoint.c's text checks name the classes found so
 * far, and keep as much of such a format as can be kept; this file catches
 * the ones not yet named, without knowing them:
 *
 *  - parse: a helper process, forked on first use and kept for the life of
 *    the process, parses the texts in the order the parent will, in a
 *    handle set up like the parent's, and before each one sends its index.
 *    If it dies, the last index it sent is the text that killed it; a new
 *    helper goes on after that text. The parent parses only texts a helper
 *    survived. One helper serves every handle, so a capture costs one
 *    round trip, and a fork only on first use or after a crash. A helper
 *    that stalls (fork() in a threaded process can leave an allocator lock
 *    held in the child) is killed and the texts left unjudged, to be
 *    parsed as before.
 *  - print: a parsed print fmt that divides by something that is not a
 *    constant other than 0 and -1 traps (SIGFPE) on some payload; the
 *    caller marks such an event failed, and libtraceevent prints it as
 *    perf does a format it could not parse.
 *
 * Invariants: the child never returns and never flushes stdio (_exit);
 * its stdout and stderr go to /dev/null, so a sanitizer's report in it is
 * not the parent's; the parent never waits on a child forever.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <traceevent/event-parse.h>
#include "tp_vet.h"

#define VET_DONE     UINT32_MAX     /* the helper's last reply to a request */
#define VET_STALL_MS 3000           /* no progress for this long: a stalled helper */
#define VET_DEPTH    64             /* print args nested deeper are not looked at */
#define VET_FD       3              /* the helper's end of the socket */

/* A sanitizer's death callback (libFuzzer's writes a crash file): the
 * helper's crashes are expected, so it clears it. Weak: absent otherwise. */
extern void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));

/* The request header: how the parent's handle is set up, and the count. */
typedef struct vet_req {
    uint32_t n;
    uint32_t page_size;
    uint8_t  big, long_size, pad[2];
} vet_req;

/* ------------------------------------------------------------------------ */
/* The helper                                                               */

static int full_read(int fd, void *buf, size_t n)
{
    uint8_t *p = buf;

    while (n > 0) {
        ssize_t r = read(fd, p, n);

        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

static void say(int fd, uint32_t msg)
{
    ssize_t w;

    do
        w = write(fd, &msg, sizeof(msg));
    while (w < 0 && errno == EINTR);
    if (w != (ssize_t)sizeof(msg))
        _exit(0);               /* the parent is gone */
}

/* Read one length-prefixed string (NUL added); NULL when the parent left. */
static char *read_str(int fd, uint32_t *len)
{
    char *s;

    if (full_read(fd, len, sizeof(*len)) < 0 || (s = malloc((size_t)*len + 1)) == NULL)
        return NULL;
    if (full_read(fd, s, *len) < 0) {
        free(s);
        return NULL;
    }
    s[*len] = 0;
    return s;
}

/* One request: set a handle up as the parent's is, parse each text. */
static int serve_one(int fd)
{
    struct tep_handle *tep;
    vet_req q;
    uint32_t i;

    if (full_read(fd, &q, sizeof(q)) < 0 || (tep = tep_alloc()) == NULL)
        return -1;
    tep_set_flag(tep, TEP_NSEC_OUTPUT);
    tep_set_file_bigendian(tep, q.big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
    tep_set_long_size(tep, q.long_size);
    tep_set_page_size(tep, (int)q.page_size);
    for (i = 0; i < q.n; i++) {
        struct tep_event *ev = NULL;
        uint32_t slen, tlen;
        char *sys = read_str(fd, &slen), *text = sys ? read_str(fd, &tlen) : NULL;

        if (text == NULL)
            return -1;
        say(fd, i);
        (void)tep_parse_format(tep, &ev, text, tlen, sys);
        free(sys);
        free(text);
    }
    say(fd, VET_DONE);
    tep_free(tep);
    return 0;
}

/* The helper's life: requests until the parent closes its end. Only its
 * socket stays open (a pipe's read end kept here would keep a writer
 * waiting), and nothing it prints reaches the parent's outputs. */
static void helper_main(int fd)
{
    int null = open("/dev/null", O_RDWR);

    if (__sanitizer_set_death_callback != NULL)
        __sanitizer_set_death_callback(NULL);
    if (null >= 0) {
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
    }
    if (fd != VET_FD && (dup2(fd, VET_FD) < 0))
        _exit(0);
    close_range(VET_FD + 1, ~0U, 0);
    while (serve_one(VET_FD) == 0)
        ;
    _exit(0);
}

/* ------------------------------------------------------------------------ */
/* The parent's side: one helper per process, used under a lock            */

static pthread_mutex_t vet_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t helper_pid = -1;
static int helper_fd = -1;

static void helper_stop(int kill_it)
{
    if (helper_pid < 0)
        return;
    if (kill_it)
        kill(helper_pid, SIGKILL);
    close(helper_fd);
    while (waitpid(helper_pid, NULL, 0) < 0 && errno == EINTR)
        ;
    helper_pid = -1;
    helper_fd = -1;
}

static int helper_start(void)
{
    int sv[2];
    pid_t pid;

    if (helper_pid >= 0)
        return 0;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
        return -1;
    if ((pid = fork()) < 0) {
        close(sv[0]);
        close(sv[1]);
        return -1;
    }
    if (pid == 0) {
        close(sv[0]);
        helper_main(sv[1]);
    }
    close(sv[1]);
    if (fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK) < 0) {
        helper_pid = pid;
        helper_fd = sv[0];
        helper_stop(1);
        return -1;
    }
    helper_pid = pid;
    helper_fd = sv[0];
    return 0;
}

/* Wait until fd is ready for ev; 0 when ready, -1 on a stall or error. */
static int wait_fd(int fd, short ev)
{
    for (;;) {
        struct pollfd p = { .fd = fd, .events = ev };
        int rc = poll(&p, 1, VET_STALL_MS);

        if (rc < 0 && errno == EINTR)
            continue;
        return rc > 0 ? 0 : -1;
    }
}

/* Send n bytes, never raising SIGPIPE; -1 if the helper died, -2 if it
 * stalled. */
static int send_all(const void *buf, size_t n)
{
    const uint8_t *p = buf;

    while (n > 0) {
        ssize_t w = send(helper_fd, p, n, MSG_NOSIGNAL);

        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EAGAIN) {
            if (wait_fd(helper_fd, POLLOUT) < 0)
                return -2;
            continue;
        }
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int send_text(const ps_tp_text *t)
{
    uint32_t slen = (uint32_t)strlen(t->sys), tlen = (uint32_t)t->len;
    int rc;

    if ((rc = send_all(&slen, 4)) < 0 || (rc = send_all(t->sys, slen)) < 0 ||
        (rc = send_all(&tlen, 4)) < 0)
        return rc;
    return send_all(t->text, tlen);
}

/* Read replies until VET_DONE (1), the helper's death (0) or a stall (-1);
 * *last is the last index it named, UINT32_MAX if none. */
static int read_replies(uint32_t *last)
{
    uint8_t buf[4096];
    size_t have = 0;

    *last = UINT32_MAX;
    for (;;) {
        ssize_t r = read(helper_fd, buf + have, sizeof(buf) - have);
        size_t i;

        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && errno == EAGAIN) {
            if (wait_fd(helper_fd, POLLIN) < 0)
                return -1;
            continue;
        }
        if (r <= 0)
            return 0;
        have += (size_t)r;
        for (i = 0; i + 4 <= have; i += 4) {
            uint32_t msg;

            memcpy(&msg, buf + i, 4);
            if (msg == VET_DONE)
                return 1;
            *last = msg;
        }
        memmove(buf, buf + i, have - i);
        have -= i;
    }
}

/* One request for texts[from..n). Returns where the next one starts (n
 * when all are judged), having set the verdicts of those before. */
static size_t vet_from(const vet_req *setup, const ps_tp_text *texts, size_t from, size_t n,
                       unsigned char *verdict)
{
    vet_req q = *setup;
    uint32_t last = UINT32_MAX;
    size_t i = from;
    int rc = -1, sent = -1;

    q.n = (uint32_t)(n - from);
    if (helper_start() == 0 && (sent = send_all(&q, sizeof(q))) == 0)
        for (; i < n && (sent = send_text(&texts[i])) == 0; i++)
            ;
    /* a send fails when the helper died on an earlier text: its replies
     * say which; a stalled send or a missing helper judges nothing */
    if (sent != -2 && helper_pid >= 0)
        rc = read_replies(&last);
    if (rc == 1 && i < n)
        rc = -1;
    if (rc == 1) {
        for (i = from; i < n; i++)
            verdict[i] = PS_TP_VET_OK;
        return n;
    }
    helper_stop(rc < 0);
    if (rc < 0 || last == UINT32_MAX || (size_t)last >= n - from) {
        for (i = from; i < n; i++)     /* no helper, or it stalled: not judged */
            verdict[i] = PS_TP_VET_UNKNOWN;
        return n;
    }
    for (i = from; i < from + last; i++)
        verdict[i] = PS_TP_VET_OK;
    verdict[from + last] = PS_TP_VET_CRASHED;
    return from + last + 1;
}

void ps_tp_vet_parse(struct tep_handle *tep, const ps_tp_text *texts, size_t n,
                     unsigned char *verdict)
{
    vet_req q;
    size_t from = 0;

    memset(&q, 0, sizeof(q));
    q.big = tep_is_file_bigendian(tep) ? 1 : 0;
    q.long_size = (uint8_t)tep_get_long_size(tep);
    q.page_size = (uint32_t)tep_get_page_size(tep);
    pthread_mutex_lock(&vet_lock);
    while (from < n)
        from = vet_from(&q, texts, from, n, verdict);
    pthread_mutex_unlock(&vet_lock);
}

/* ------------------------------------------------------------------------ */
/* Print traps                                                              */

/* Whether a is a constant libtraceevent's printer reads as neither 0 nor
 * -1 (x / -1 traps when x is INT64_MIN). Casts of such constants below 128
 * keep them so in every integer type. */
static int safe_divisor(const struct tep_print_arg *a)
{
    unsigned long long v;

    if (a != NULL && a->type == TEP_PRINT_TYPE && a->typecast.item != NULL &&
        a->typecast.item->type == TEP_PRINT_ATOM && a->typecast.item->atom.atom != NULL) {
        v = strtoull(a->typecast.item->atom.atom, NULL, 0);
        return v != 0 && v < 128;
    }
    if (a == NULL || a->type != TEP_PRINT_ATOM || a->atom.atom == NULL)
        return 0;
    v = strtoull(a->atom.atom, NULL, 0);
    return v != 0 && v != ~0ULL;
}

static const char *arg_trap(const struct tep_print_arg *a, int depth);

static const char *list_trap(const struct tep_print_arg *a, int depth)
{
    const char *why = NULL;

    for (; a != NULL && why == NULL; a = a->next)
        why = arg_trap(a, depth);
    return why;
}

/* Why printing a (one argument, not its list) would trap, or NULL. */
static const char *arg_trap(const struct tep_print_arg *a, int depth)
{
    const char *why = NULL;

    if (a == NULL)
        return NULL;
    if (depth > VET_DEPTH)
        return "nests its arguments too deep to check";
    switch (a->type) {
    case TEP_PRINT_OP:
        if (a->op.op != NULL && (strcmp(a->op.op, "/") == 0 || strcmp(a->op.op, "%") == 0) &&
            !safe_divisor(a->op.right))
            return "divides by a value that may be 0 or -1";
        if ((why = arg_trap(a->op.left, depth + 1)) == NULL)
            why = arg_trap(a->op.right, depth + 1);
        return why;
    case TEP_PRINT_TYPE:
        return arg_trap(a->typecast.item, depth + 1);
    case TEP_PRINT_FLAGS:
        return arg_trap(a->flags.field, depth + 1);
    case TEP_PRINT_SYMBOL:
        return arg_trap(a->symbol.field, depth + 1);
    case TEP_PRINT_HEX:
    case TEP_PRINT_HEX_STR:
        if ((why = arg_trap(a->hex.field, depth + 1)) == NULL)
            why = arg_trap(a->hex.size, depth + 1);
        return why;
    case TEP_PRINT_INT_ARRAY:
        if ((why = arg_trap(a->int_array.field, depth + 1)) == NULL &&
            (why = arg_trap(a->int_array.count, depth + 1)) == NULL)
            why = arg_trap(a->int_array.el_size, depth + 1);
        return why;
    case TEP_PRINT_DYNAMIC_ARRAY:
        return arg_trap(a->dynarray.index, depth + 1);
    case TEP_PRINT_FUNC:
        return list_trap(a->func.args, depth + 1);
    default:
        return NULL;
    }
}

const char *ps_tp_vet_print(const struct tep_event *ev)
{
    if (ev == NULL || (ev->flags & TEP_EVENT_FL_FAILED))
        return NULL;
    return list_trap(ev->print_fmt.args, 0);
}
