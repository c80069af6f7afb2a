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
 *  - parse: a helper process, forked on first use and kept for the life
 *    of the process, parses the texts in the order the parent will, in a
 *    handle set up like the parent's, and before each one sends its index.
 *    A text is safe once the helper names the next, so the parent parses
 *    it while the helper goes on. If the helper dies, the last index it
 *    sent is the text that killed it; a new helper goes on after that
 *    text. One helper serves every handle: a capture costs one request,
 *    and a fork only the first use or a crash. The session starts the
 *    helper when it meets tracing data (ps_tp_vet_prestart()), early, while
 *    the process is small: a fork write-protects the parent's memory, and
 *    each page it writes afterwards faults once. A helper that stalls (a
 *    fork in a threaded process can leave an allocator lock held in the
 *    child) is killed and the texts left unjudged, to be parsed as before.
 *  - print: a parsed print fmt that divides by something that is not a
 *    constant other than 0 and -1 traps (SIGFPE) on some payload; the
 *    caller marks such an event failed, and libtraceevent prints it as
 *    perf does a format it could not parse.
 *
 * Invariants: a forked helper never returns and never flushes stdio
 * (_exit); the helper's stdio is /dev/null, so a sanitizer's report in it
 * is not the parent's; the parent never waits on a helper forever, and a
 * helper's death never raises SIGPIPE in the parent (MSG_NOSIGNAL).
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

/* Nothing the helper prints reaches the parent's outputs, and a sanitizer
 * report in it is not a finding (libFuzzer's death callback writes one). */
static void helper_quiet(void)
{
    int null = open("/dev/null", O_RDWR);

    if (__sanitizer_set_death_callback != NULL)
        __sanitizer_set_death_callback(NULL);
    if (null >= 0) {
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
        if (null > STDERR_FILENO)
            close(null);
    }
}

/* The helper's loop, on the socket at VET_FD. */
static int serve(void)
{
    helper_quiet();
    /* only its socket stays open: a pipe's read end kept here would keep
     * the writer at its other end waiting */
    close_range(VET_FD + 1, ~0U, 0);
    while (serve_one(VET_FD) == 0)
        ;
    return 0;
}

/* A forked helper's life: requests until the parent closes its end. */
static void helper_main(int fd)
{
    if (fd != VET_FD && dup2(fd, VET_FD) < 0)
        _exit(0);
    _exit(serve());
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
    if ((pid = fork()) == 0) {
        close(sv[0]);
        helper_main(sv[1]);
    }
    close(sv[1]);
    if (pid < 0) {
        close(sv[0]);
        return -1;
    }
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

/* The request for texts[from..n) as one buffer: the header, then each
 * text as [u32 length][system][u32 length][text]. NULL when out of memory. */
static uint8_t *build_request(const vet_req *setup, const ps_tp_text *texts, size_t from,
                              size_t n, size_t *len)
{
    vet_req q = *setup;
    size_t i, size = sizeof(q), at;
    uint8_t *b;

    for (i = from; i < n; i++)
        size += 8 + strlen(texts[i].sys) + texts[i].len;
    if ((b = malloc(size)) == NULL)
        return NULL;
    q.n = (uint32_t)(n - from);
    memcpy(b, &q, sizeof(q));
    for (at = sizeof(q), i = from; i < n; i++) {
        uint32_t slen = (uint32_t)strlen(texts[i].sys), tlen = (uint32_t)texts[i].len;

        memcpy(b + at, &slen, 4);
        memcpy(b + at + 4, texts[i].sys, slen);
        at += 4 + slen;
        memcpy(b + at, &tlen, 4);
        memcpy(b + at + 4, texts[i].text, tlen);
        at += 4 + tlen;
    }
    *len = size;
    return b;
}

void ps_tp_vet_prestart(void)
{
    pthread_mutex_lock(&vet_lock);
    (void)helper_start();
    pthread_mutex_unlock(&vet_lock);
}

/* A request in flight: texts[from..n) and whose verdicts were told. */
typedef struct vet_run {
    ps_tp_vet_fn fn;
    void        *ctx;
    size_t       from, n, told;     /* told: the next index without a verdict */
    uint32_t     last;              /* the last index the helper named, relative */
} vet_run;

static void tell_until(vet_run *v, size_t end, int verdict)
{
    for (; v->told < end; v->told++)
        v->fn(v->ctx, v->told, verdict);
}

/* Take the whole 4-byte replies in buf[0..*have): each names the text the
 * helper starts, so every text before it parsed. 1 on VET_DONE, else 0. */
static int take_replies(vet_run *v, uint8_t *buf, size_t *have)
{
    size_t i;

    for (i = 0; i + 4 <= *have; i += 4) {
        uint32_t msg;

        memcpy(&msg, buf + i, 4);
        if (msg == VET_DONE)
            return 1;
        if (msg < v->n - v->from) {
            v->last = msg;
            tell_until(v, v->from + msg, PS_TP_VET_OK);
        }
    }
    memmove(buf, buf + i, *have - i);
    *have -= i;
    return 0;
}

/* Send the request while reading the replies: the helper answers as it
 * reads, and a side that only wrote would wait on a full socket forever.
 * Returns 1 when the helper said it was done, 0 when it died (the socket
 * closed), -1 when it stalled. */
static int exchange(vet_run *v, const uint8_t *req, size_t len)
{
    uint8_t buf[4096];
    size_t sent = 0, have = 0;

    for (;;) {
        struct pollfd p = { .fd = helper_fd, .events = POLLIN };
        ssize_t k;
        int rc;

        if (sent < len)
            p.events |= POLLOUT;
        if ((rc = poll(&p, 1, VET_STALL_MS)) < 0 && errno == EINTR)
            continue;
        if (rc <= 0)
            return -1;
        if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
            k = read(helper_fd, buf + have, sizeof(buf) - have);
            if (k == 0 || (k < 0 && errno != EINTR && errno != EAGAIN))
                return 0;
            if (k > 0) {
                have += (size_t)k;
                if (take_replies(v, buf, &have))
                    return sent == len ? 1 : -1;
            }
        }
        if (sent < len && (p.revents & POLLOUT)) {
            k = send(helper_fd, req + sent, len - sent, MSG_NOSIGNAL);
            if (k > 0)
                sent += (size_t)k;
            else if (k < 0 && errno != EINTR && errno != EAGAIN)
                sent = len;     /* it died: its replies say on which text */
        }
    }
}

/* One request for texts[from..n). Returns where the next one starts (n
 * when all are told). */
static size_t vet_from(const vet_req *setup, const ps_tp_text *texts, size_t from, size_t n,
                       ps_tp_vet_fn fn, void *ctx)
{
    vet_run v = { fn, ctx, from, n, from, UINT32_MAX };
    size_t len;
    uint8_t *req = build_request(setup, texts, from, n, &len);
    int rc = -1;

    if (req != NULL && helper_start() == 0)
        rc = exchange(&v, req, len);
    free(req);
    if (rc == 1) {
        tell_until(&v, n, PS_TP_VET_OK);
        return n;
    }
    helper_stop(rc < 0);
    if (rc < 0 || v.last == UINT32_MAX) {
        tell_until(&v, n, PS_TP_VET_UNKNOWN);  /* no helper, or it stalled */
        return n;
    }
    tell_until(&v, from + v.last + 1, PS_TP_VET_CRASHED);
    return from + v.last + 1;
}

void ps_tp_vet_parse(struct tep_handle *tep, const ps_tp_text *texts, size_t n,
                     ps_tp_vet_fn fn, void *ctx)
{
    vet_req q;
    size_t from = 0;

    memset(&q, 0, sizeof(q));
    q.big = tep_is_file_bigendian(tep) ? 1 : 0;
    q.long_size = (uint8_t)tep_get_long_size(tep);
    q.page_size = (uint32_t)tep_get_page_size(tep);
    pthread_mutex_lock(&vet_lock);
    while (from < n)
        from = vet_from(&q, texts, from, n, fn, ctx);
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

/* ------------------------------------------------------------------------ */
/* Print lengths a payload chooses                                          */

/* What a sized print may read: the payload's size and its padding. */
typedef struct span {
    struct tep_event *ev;
    const void       *data;
    unsigned long long size, limit;
} span;

static unsigned long long sat_add(unsigned long long a, unsigned long long b)
{
    return a > ~0ULL - b ? ~0ULL : a + b;
}

static unsigned long long sat_mul(unsigned long long a, unsigned long long b)
{
    return b != 0 && a > ~0ULL / b ? ~0ULL : a * b;
}

/* An upper bound of the value libtraceevent's printer computes for a, as a
 * size or count (unsigned); ~0 when a is not a form known here. */
static unsigned long long bound(const span *sp, const struct tep_print_arg *a, int depth)
{
    struct tep_format_field *f;
    unsigned long long v;

    if (a == NULL || depth > VET_DEPTH)
        return ~0ULL;
    switch (a->type) {
    case TEP_PRINT_ATOM:
        return a->atom.atom ? strtoull(a->atom.atom, NULL, 0) : ~0ULL;
    case TEP_PRINT_FIELD:
        f = a->field.field ? a->field.field : tep_find_any_field(sp->ev, a->field.name);
        return f != NULL && tep_read_number_field(f, sp->data, &v) == 0 ? v : ~0ULL;
    case TEP_PRINT_TYPE:
        return bound(sp, a->typecast.item, depth + 1);
    case TEP_PRINT_DYNAMIC_ARRAY_LEN:
        return sp->size;        /* a length inside the payload (field_extent) */
    case TEP_PRINT_OP:
        if (a->op.op == NULL)
            return ~0ULL;
        if (!strcmp(a->op.op, "/") || !strcmp(a->op.op, ">>") || !strcmp(a->op.op, "-"))
            return bound(sp, a->op.left, depth + 1);
        if (!strcmp(a->op.op, "+"))
            return sat_add(bound(sp, a->op.left, depth + 1), bound(sp, a->op.right, depth + 1));
        if (!strcmp(a->op.op, "*"))
            return sat_mul(bound(sp, a->op.left, depth + 1), bound(sp, a->op.right, depth + 1));
        return ~0ULL;
    default:
        return ~0ULL;
    }
}

static int sized_ok(const span *sp, const struct tep_print_arg *a, int depth);

static int list_ok(const span *sp, const struct tep_print_arg *a, int depth)
{
    for (; a != NULL; a = a->next)
        if (!sized_ok(sp, a, depth))
            return 0;
    return 1;
}

/* Whether the __print_hex(), __print_hex_str() and __print_array() in a
 * read at most sp->limit bytes. */
static int sized_ok(const span *sp, const struct tep_print_arg *a, int depth)
{
    if (a == NULL)
        return 1;
    if (depth > VET_DEPTH)
        return 0;
    switch (a->type) {
    case TEP_PRINT_HEX:
    case TEP_PRINT_HEX_STR:
        return bound(sp, a->hex.size, depth + 1) <= sp->limit;
    case TEP_PRINT_INT_ARRAY:
        return sat_mul(bound(sp, a->int_array.count, depth + 1),
                       bound(sp, a->int_array.el_size, depth + 1)) <= sp->limit;
    case TEP_PRINT_OP:
        return sized_ok(sp, a->op.left, depth + 1) && sized_ok(sp, a->op.right, depth + 1);
    case TEP_PRINT_TYPE:
        return sized_ok(sp, a->typecast.item, depth + 1);
    case TEP_PRINT_FUNC:
        return list_ok(sp, a->func.args, depth + 1);
    default:
        return 1;
    }
}

/* Whether a (and what it holds) has a sized print. */
static int has_sized(const struct tep_print_arg *a, int depth)
{
    for (; a != NULL && depth <= VET_DEPTH; a = a->next) {
        switch (a->type) {
        case TEP_PRINT_HEX: case TEP_PRINT_HEX_STR: case TEP_PRINT_INT_ARRAY:
            return 1;
        case TEP_PRINT_OP:
            if (has_sized(a->op.left, depth + 1) || has_sized(a->op.right, depth + 1))
                return 1;
            break;
        case TEP_PRINT_TYPE:
            if (has_sized(a->typecast.item, depth + 1))
                return 1;
            break;
        case TEP_PRINT_FUNC:
            if (has_sized(a->func.args, depth + 1))
                return 1;
            break;
        default:
            break;
        }
    }
    return 0;
}

/* The positions in the argument list of the '*' widths and precisions of
 * a printf format (up to max of them); returns how many there are. Each
 * conversion takes one argument, each '*' one more before it. */
static size_t star_args(const char *fmt, size_t *pos, size_t max)
{
    size_t arg = 0, n = 0;
    const char *p;

    for (p = fmt; p != NULL && *p; p++) {
        int k;

        if (*p != '%' || *++p == '%')
            continue;
        while (*p && strchr("-+ #0", *p))
            p++;
        for (k = 0; k < 2; k++) {           /* width, then precision */
            if (k == 1 && *p != '.')
                break;
            p += k;
            if (*p == '*') {
                if (n < max)
                    pos[n] = arg;
                n++;
                arg++;
                p++;
            }
            while (*p >= '0' && *p <= '9')
                p++;
        }
        while (*p && strchr("hlLzjtq", *p))
            p++;
        if (*p == '\0')
            break;
        arg++;
    }
    return n;
}

#define VET_STARS 16                /* '*' arguments looked at per format */

int ps_tp_vet_sized(const struct tep_event *ev)
{
    size_t pos[VET_STARS];

    return ev != NULL && !(ev->flags & TEP_EVENT_FL_FAILED) &&
           (has_sized(ev->print_fmt.args, 0) || star_args(ev->print_fmt.format, pos, 0) > 0);
}

/* Whether each '*' width or precision is one libtraceevent prints in at
 * most sp->limit characters: it takes the value as an int, and pads to it
 * (a u32 field of 4e9 made it print forever). */
static int stars_ok(const span *sp, const struct tep_event *ev)
{
    size_t pos[VET_STARS], n = star_args(ev->print_fmt.format, pos, VET_STARS), i;

    if (n > VET_STARS)
        return 0;
    for (i = 0; i < n; i++) {
        const struct tep_print_arg *a = ev->print_fmt.args;
        unsigned long long v;
        size_t k;

        for (k = 0; a != NULL && k < pos[i]; k++)
            a = a->next;
        if (a == NULL)
            continue;               /* libtraceevent has no argument: none read */
        v = bound(sp, a, 0);
        if (v == ~0ULL || (int)v > (long long)sp->limit || (int)v < -(long long)sp->limit)
            return 0;
    }
    return 1;
}

int ps_tp_vet_sizes_ok(const struct tep_event *ev, const void *data, size_t size, size_t pad)
{
    span sp = { (struct tep_event *)ev, data, size, pad };

    return list_ok(&sp, ev->print_fmt.args, 0) && stars_ok(&sp, ev);
}
