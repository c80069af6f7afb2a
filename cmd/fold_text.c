/* SPDX-License-Identifier: MIT */
/*
 * fold_text.c - `perf script` text to folded stacks (--script-input), so
 * captures from elsewhere, or other tools' perf-script text, fold too.
 *
 * Two readers of the same text:
 *  - --compat=perl is stackcollapse-perf.pl's line machine, its regular
 *    expressions emulated exactly (peers.md 4.1): a header needs a comm of
 *    two characters or more and a numeric pid/tid, a sample ends only at an
 *    empty line, the last one without a blank line after it is lost.
 *  - the default reads what perf prints: any comm, -1/-1 threads, the
 *    one-line form without call chains (the frame after the event), a new
 *    header or the end of input closing a sample, CRLF, whitespace-only
 *    lines, and srclines only where perf printed one. On perf's own text it
 *    folds exactly what the capture folds to directly (fold_capture.c).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fold_int.h"

typedef struct reader {
    FILE   *fp;
    char   *line;               /* the current line, '\n' removed */
    size_t  cap;
    ssize_t len;
    char   *ahead;              /* a line read ahead (default reader) */
    size_t  ahead_cap;
    ssize_t ahead_len;
    int     have_ahead;
    uint64_t lineno;
} reader;

static int read_line(reader *r)
{
    if (r->have_ahead) {
        char *t = r->line;
        size_t c = r->cap;

        r->line = r->ahead;
        r->cap = r->ahead_cap;
        r->len = r->ahead_len;
        r->ahead = t;
        r->ahead_cap = c;
        r->have_ahead = 0;
        r->lineno++;
        return 1;
    }
    if ((r->len = getline(&r->line, &r->cap, r->fp)) < 0)
        return 0;
    if (r->len > 0 && r->line[r->len - 1] == '\n')     /* perl's chomp */
        r->line[--r->len] = '\0';
    r->lineno++;
    return 1;
}

/* the line after the current one, not consumed */
static const char *peek_line(reader *r, size_t *len)
{
    if (!r->have_ahead) {
        if ((r->ahead_len = getline(&r->ahead, &r->ahead_cap, r->fp)) < 0)
            return NULL;
        if (r->ahead_len > 0 && r->ahead[r->ahead_len - 1] == '\n')
            r->ahead[--r->ahead_len] = '\0';
        r->have_ahead = 1;
    }
    *len = (size_t)r->ahead_len;
    return r->ahead;
}

/* perl --srcline reads the next line whatever it is: into the look-ahead
 * buffer, consumed at once, since the frame's fields (a "a->b" name has a
 * piece still to fold) point into the current line */
static const char *next_line(void *ctx, size_t *len)
{
    reader *r = ctx;
    const char *l = peek_line(r, len);

    if (l != NULL) {
        r->have_ahead = 0;
        r->lineno++;
    }
    return l;
}

static int is_ws(int c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' || c == '\n';
}

static int is_word(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
}

static int is_digit(int c)
{
    return c >= '0' && c <= '9';
}

/* --- the frame line: ^\s*(\w+)\s*(.+) \((.*)\) ------------------------------ */

static int match_frame(const char *s, size_t n, fold_frame *fr)
{
    size_t i = 0, w, ws, q, last = 0, best = 0, fs;
    int found = 0;

    while (i < n && is_ws((unsigned char)s[i]))
        i++;
    for (w = i; w < n && is_word((unsigned char)s[w]); w++)
        ;
    if (w == i)
        return 0;
    for (q = n; q-- > 0;)
        if (s[q] == ')') {
            last = q;
            break;
        }
    for (q = last >= 2 ? last - 2 + 1 : 0; q-- > 0;)      /* greedy (.+): the last " (" */
        if (s[q] == ' ' && s[q + 1] == '(' && q + 2 <= last) {
            best = q;
            found = 1;
            break;
        }
    if (!found || last == 0)
        return 0;
    for (ws = w; ws < n && is_ws((unsigned char)s[ws]); ws++)
        ;
    /* (.+) needs a byte: give back whitespace, then word characters */
    fs = ws;
    if (best < fs + 1) {
        if (best < i + 2)
            return 0;
        fs = best - 1;
        if (fs < w)
            w = fs;
    }
    fr->pc = (fold_str){ s + i, w - i };
    fr->func = (fold_str){ s + fs, best - fs };
    fr->mod = (fold_str){ s + best + 2, last - best - 2 };
    fr->src = (fold_str){ NULL, 0 };
    fr->from_capture = 0;
    return 1;
}

/* --- perl's header: ^(\S.+?)\s+(\d+)\/ *(\d+)*\s+ (no space after /) ----- */

typedef struct header {
    fold_str comm, pid, tid, event;
    int      has_event;
    uint64_t period;
    int      has_period;
    int      has_time;          /* the default reader: a "secs.frac:" was read */
    const char *rest;           /* the default reader: after "event:" */
    size_t   rest_n;
} header;

static int perl_header(const char *s, size_t n, header *h)
{
    size_t e, j, d1, d2;

    if (n < 2 || is_ws((unsigned char)s[0]))
        return 0;
    for (e = 2; e < n; e++) {
        if (!is_ws((unsigned char)s[e]))
            continue;
        for (j = e; j < n && is_ws((unsigned char)s[j]); j++)
            ;
        for (d1 = j; d1 < n && is_digit((unsigned char)s[d1]); d1++)
            ;
        if (d1 == j)
            continue;
        h->comm = (fold_str){ s, e };
        h->tid = (fold_str){ s + j, d1 - j };
        h->pid = (fold_str){ "?", 1 };
        j = d1;
        while (j < n && s[j] == '/')
            j++;
        for (d2 = j; d2 < n && is_digit((unsigned char)s[d2]); d2++)
            ;
        if (d2 < n && is_ws((unsigned char)s[d2])) {
            if (d2 > j && !(d2 - j == 1 && s[j] == '0')) {      /* perl: if ($3) */
                h->pid = h->tid;
                h->tid = (fold_str){ s + j, d2 - j };
            }
            return 1;
        }
        if (d1 < n && is_ws((unsigned char)s[d1]) && j == d1)
            return 1;
    }
    return 0;
}

/* /:\s*(\d+)*\s+(\S+):\s*$/ */
static void perl_event(const char *s, size_t n, header *h)
{
    size_t end = n, t, p;

    h->has_event = h->has_period = 0;
    while (end > 0 && is_ws((unsigned char)s[end - 1]))
        end--;
    if (end < 2 || s[end - 1] != ':')
        return;
    for (t = end - 1; t > 0 && !is_ws((unsigned char)s[t - 1]); t--)
        ;
    if (end - 1 - t < 1 || t == 0)
        return;
    for (p = 0; p < t; p++) {
        size_t j = p + 1, d;

        if (s[p] != ':')
            continue;
        while (j < t && is_ws((unsigned char)s[j]))
            j++;
        for (d = j; d < t && is_digit((unsigned char)s[d]); d++)
            ;
        if (d == j) {           /* no digits: the run of spaces up to t */
            if (j == t && j > p + 1)
                break;
            continue;
        }
        if (d < t) {
            size_t k = d;

            while (k < t && is_ws((unsigned char)s[k]))
                k++;
            if (k == t) {
                h->has_period = 1;
                h->period = strtoull(s + j, NULL, 10);
                break;
            }
        }
    }
    if (p == t)
        return;
    h->has_event = 1;
    h->event = (fold_str){ s + t, end - 1 - t };
}

/* --- the default header: comm pid[/tid] [cpu] [time:] [period] event: ---- */

static size_t skip_ws(const char *s, size_t n, size_t i)
{
    while (i < n && is_ws((unsigned char)s[i]))
        i++;
    return i;
}

/* -?\d+ at i; returns the end, or i when none */
static size_t number(const char *s, size_t n, size_t i)
{
    size_t j = i + (i < n && s[i] == '-');
    size_t d = j;

    while (d < n && is_digit((unsigned char)s[d]))
        d++;
    return d > j ? d : i;
}

/* after the comm: parse the rest of a header from i */
static int header_rest(const char *s, size_t n, size_t i, header *h)
{
    size_t j, k;

    j = number(s, n, i);
    if (j == i)
        return 0;
    h->tid = (fold_str){ s + i, j - i };
    h->pid = (fold_str){ "?", 1 };
    h->has_time = 0;
    if (j < n && s[j] == '/') {
        k = number(s, n, j + 1);
        if (k == j + 1)
            return 0;
        h->pid = h->tid;
        h->tid = (fold_str){ s + j + 1, k - j - 1 };
        j = k;
    }
    if (j < n && !is_ws((unsigned char)s[j]))
        return 0;
    j = skip_ws(s, n, j);
    if (j < n && s[j] == '[') {                         /* [cpu] */
        for (k = j + 1; k < n && is_digit((unsigned char)s[k]); k++)
            ;
        if (k == j + 1 || k >= n || s[k] != ']')
            return 0;
        j = skip_ws(s, n, k + 1);
    }
    k = j;                                              /* time: */
    while (k < n && is_digit((unsigned char)s[k]))
        k++;
    if (k > j && k + 1 < n && s[k] == '.') {
        size_t m = k + 1;

        while (m < n && is_digit((unsigned char)s[m]))
            m++;
        if (m > k + 1 && m < n && s[m] == ':') {
            h->has_time = 1;
            j = skip_ws(s, n, m + 1);
            k = j;
            while (k < n && is_digit((unsigned char)s[k]))
                k++;
        }
    }
    h->has_period = 0;
    if (k > j && k < n && is_ws((unsigned char)s[k])) { /* period */
        h->has_period = 1;
        h->period = strtoull(s + j, NULL, 10);
        j = skip_ws(s, n, k);
    }
    for (k = j; k < n && !is_ws((unsigned char)s[k]); k++)
        ;
    h->has_event = 0;
    if (k > j + 1 && s[k - 1] == ':') {
        h->has_event = 1;
        h->event = (fold_str){ s + j, k - 1 - j };
    } else if (k > j) {
        return 0;
    }
    h->rest = s + k;
    h->rest_n = n - k;
    return 1;
}

/* The end of the shortest comm from i the header parses after (with a
 * time if timed), 0 for none; h holds that parse. */
static size_t comm_end(const char *s, size_t n, size_t i, int timed, header *h)
{
    size_t e;

    for (e = i + 1; e < n; e++) {
        if (!is_ws((unsigned char)s[e]) || is_ws((unsigned char)s[e - 1]))
            continue;
        if (header_rest(s, n, skip_ws(s, n, e), h) && (!timed || h->has_time))
            return e;
    }
    return 0;
}

static int default_header(const char *s, size_t n, header *h)
{
    size_t i = skip_ws(s, n, 0), e;

    if (i >= n || s[0] == '\t')
        return 0;
    /* the comm is the shortest prefix the rest parses after with a time
     * (perf prints one unless -F leaves it out), else the shortest at all:
     * a comm such as "worker 0" would otherwise end before its digits,
     * which then read as the tid, the tid as a period and the time as the
     * event */
    if ((e = comm_end(s, n, i, 1, h)) == 0 && (e = comm_end(s, n, i, 0, h)) == 0)
        return 0;
    h->comm = (fold_str){ s + i, e - i };
    return 1;
}

/*
 * The one-line form: "ip sym+off (dso)" ends the line after the event (and
 * after addr, data_src, weight... where perf prints them). The ip is the
 * last hexadecimal word that leaves a name before the final " (".
 */
static int single_frame(const char *s, size_t n, fold_frame *fr)
{
    fold_frame all;
    size_t end, i;

    if (!match_frame(s, n, &all))
        return 0;
    end = (size_t)(all.mod.p - s) - 2;              /* the final " (" */
    for (i = end; i-- > 0;) {
        size_t j = i;

        if (i > 0 && s[i - 1] != ' ' && s[i - 1] != '\t')
            continue;
        while (j < end && isxdigit((unsigned char)s[j]))
            j++;
        if (j == i || s[j] != ' ' || j + 1 >= end)
            continue;
        fr->pc = (fold_str){ s + i, j - i };
        fr->func = (fold_str){ s + j + 1, end - j - 1 };
        fr->mod = all.mod;
        fr->src = (fold_str){ NULL, 0 };
        fr->from_capture = 0;
        return 1;
    }
    return 0;
}

/* --- the two readers ------------------------------------------------------- */

static void perl_line(reader *r, folder *f, uint64_t *period)
{
    const char *s = r->line;
    size_t n = (size_t)r->len;
    header h;
    fold_frame fr;

    if (n > 0 && s[0] == '#')
        return;
    if (n == 0) {
        folder_end(f, *period);
        return;
    }
    if (perl_header(s, n, &h)) {
        perl_event(s, n, &h);
        if (h.has_event && !folder_event_ok(f, h.event))
            return;
        *period = f->o->weight != FOLD_WEIGHT_SAMPLES && h.has_period && h.period ? h.period : 1;
        folder_begin(f, h.comm, h.pid, h.tid);
    } else if (match_frame(s, n, &fr)) {
        folder_frame(f, &fr, next_line, r);
    } else if (!f->o->quiet) {
        fprintf(stderr, "Unrecognized line: %.*s\n", (int)n, s);
    }
}

static int blank(const char *s, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (!is_ws((unsigned char)s[i]))
            return 0;
    return 1;
}

/* a srcline perf printed under a frame: an indented line that is nothing else */
static void take_srcline(reader *r, fold_frame *fr)
{
    const char *l;
    size_t n;
    header h;
    fold_frame other;
    int inlined;

    if ((l = peek_line(r, &n)) == NULL || blank(l, n) || l[0] == '\t' || l[0] == '#' ||
        default_header(l, n, &h))
        return;
    inlined = n >= 10 && memcmp(l + n - 10, " (inlined)", 10) == 0;
    if (!inlined && match_frame(l, n, &other))
        return;                 /* a frame indented with spaces */
    read_line(r);
    l = r->line;
    n = (size_t)r->len;
    if (inlined) {
        fr->mod = (fold_str){ "inlined", 7 };
        n -= 10;
    }
    fr->src = (fold_str){ l, n };
}

static void default_frame(reader *r, folder *f, fold_frame *fr)
{
    char *copy = NULL;

    if (f->o->srcline) {
        /* the srcline line replaces the line buffer: keep the frame's text */
        size_t n = (size_t)r->len;

        if ((copy = malloc(n + 1)) == NULL) {
            f->oom = 1;
            return;
        }
        memcpy(copy, r->line, n + 1);
        fr->pc.p = copy + (fr->pc.p - r->line);
        fr->func.p = copy + (fr->func.p - r->line);
        if (fr->mod.p != NULL)
            fr->mod.p = copy + (fr->mod.p - r->line);
        take_srcline(r, fr);
    }
    if (fr->mod.p != NULL)
        folder_frame(f, fr, NULL, NULL);
    free(copy);
}

/* "\tip func" with no "(dso)": an inlined frame whose srcline follows */
static int bare_frame(const char *s, size_t n, fold_frame *fr)
{
    size_t i = skip_ws(s, n, 0), j = i;

    if (s[0] != '\t')
        return 0;
    while (j < n && isxdigit((unsigned char)s[j]))
        j++;
    if (j == i || j >= n || s[j] != ' ')
        return 0;
    fr->pc = (fold_str){ s + i, j - i };
    fr->func = (fold_str){ s + j + 1, n - j - 1 };
    fr->mod = (fold_str){ NULL, 0 };
    fr->src = (fold_str){ NULL, 0 };
    fr->from_capture = 0;
    return 1;
}

static void default_line(reader *r, folder *f, uint64_t *period)
{
    char *s = r->line;
    size_t n = (size_t)r->len;
    header h;
    fold_frame fr;

    if (n > 0 && s[n - 1] == '\r')
        s[--n] = '\0';
    if (n > 0 && s[0] == '#')
        return;
    if (blank(s, n)) {
        folder_end(f, *period);
        return;
    }
    if (default_header(s, n, &h)) {
        folder_end(f, *period);
        if (h.has_event && !folder_event_ok(f, h.event))
            return;
        *period = f->o->weight != FOLD_WEIGHT_SAMPLES && h.has_period ? h.period : 1;
        folder_begin(f, h.comm, h.pid, h.tid);
        if (single_frame(h.rest, h.rest_n, &fr))
            default_frame(r, f, &fr);
    } else if (match_frame(s, n, &fr) || (f->o->srcline && bare_frame(s, n, &fr))) {
        default_frame(r, f, &fr);
    } else if (!f->o->quiet) {
        fprintf(stderr, "perfsift: unrecognized line %llu: %.*s\n",
                (unsigned long long)r->lineno, (int)n, s);
    }
}

int fold_text_fp(const char *cmd, FILE *fp, const char *name, folder *f)
{
    reader r;
    uint64_t period = 1;
    int perl = f->o->compat == FOLD_COMPAT_PERL, rc = EXIT_OK;

    memset(&r, 0, sizeof(r));
    r.fp = fp;
    while (read_line(&r)) {
        if (perl)
            perl_line(&r, f, &period);
        else
            default_line(&r, f, &period);
    }
    if (perl)
        folder_drop(f);         /* perl never flushes at the end */
    else
        folder_end(f, period);
    if (ferror(fp)) {
        fprintf(stderr, "perfsift %s: %s: read error: %s\n", cmd, name, strerror(errno));
        rc = EXIT_BADINPUT;
    }
    free(r.line);
    free(r.ahead);
    return rc;
}

int fold_text(const char *cmd, const char *path, folder *f)
{
    FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    int rc;

    if (fp == NULL) {
        fprintf(stderr, "perfsift %s: %s: %s\n", cmd, path, strerror(errno));
        return EXIT_BADINPUT;
    }
    rc = fold_text_fp(cmd, fp, path, f);
    if (fp != stdin)
        fclose(fp);
    return rc;
}
