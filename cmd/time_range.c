/* SPDX-License-Identifier: MIT */
/*
 * time_range.c - perf's --time argument (see time_range.h). perf's quirks
 * are kept where they change which samples print: number parsing is
 * strtoul's (leading blanks and signs pass), text after a '%' and before
 * a '/' is ignored, a range that ends before the next begins may be open
 * at its end, and --reltime moves open bounds too.
 */
#include "time_range.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NSEC_PER_SEC 1000000000ull

/* "SEC[.FRACTION]" (at most 9 fraction digits) into ns; -1 if not that. */
static int seconds(const char *s, uint64_t *ns)
{
    char frac[10], *end;
    unsigned long long sec = strtoull(s, &end, 10), n = 0;
    size_t len;

    if (*end != '.' && *end != '\0')
        return -1;
    if (*end == '.') {
        if ((len = strlen(end + 1)) > 9)
            return -1;
        memcpy(frac, end + 1, len);
        memset(frac + len, '0', 9 - len);
        frac[9] = '\0';
        n = strtoull(frac, &end, 10);
        if (*end != '\0')
            return -1;
    }
    *ns = sec * NSEC_PER_SEC + n;
    return 0;
}

/* One "START,END" (s is modified); either side may be empty. */
static int one_range(char *s, time_range *r)
{
    char *comma = strchr(s, ',');

    r->start = r->end = 0;
    if (comma != NULL)
        *comma = '\0';
    if ((*s != '\0' && seconds(s, &r->start) < 0) ||
        (comma != NULL && comma[1] != '\0' && seconds(comma + 1, &r->end) < 0))
        return -1;
    return r->end != 0 && r->end < r->start ? -1 : 0;
}

/* Ranges of seconds, "A,B C,D": as many as commas, each ended by a blank
 * after its comma's value; the last takes the rest. */
static int seconds_ranges(char *s, time_range *r, size_t cap)
{
    size_t n = 0, i;
    char *p = s;

    for (const char *c = s; *c; c++)
        n += *c == ',';
    if (n == 0 || n > cap)
        return TIME_RANGE_INVALID;
    for (i = 0; i + 1 < n; i++) {
        char *arg = p;

        p = strchr(p, ',') + 1;
        while (isspace((unsigned char)*p))
            p++;
        while (*p && !isspace((unsigned char)*p))
            if (*p++ == ',')
                return TIME_RANGE_INVALID;
        if (*p)
            *p++ = '\0';
        if (one_range(arg, &r[i]) < 0)
            return TIME_RANGE_INVALID;
    }
    if (one_range(p, &r[i]) < 0)
        return TIME_RANGE_INVALID;
    for (i = 0; i + 1 < n; i++)
        if (r[i].end >= r[i + 1].start)
            return TIME_RANGE_INVALID;
    return (int)n;
}

/* "12.5%..." (s is cut at the '%') into 0.125. */
static int percent(char *s, double *v)
{
    char *pc = s != NULL ? strchr(s, '%') : NULL, *end;

    if (pc == NULL)
        return -1;
    *pc = '\0';
    *v = strtod(s, &end) / 100.0;
    return end == s + strlen(s) ? 0 : -1;
}

/* The slice [a, b] of the span, as fractions of it; perf ends a slice a
 * nanosecond early unless it ends the span. */
static int slice(time_range *r, double a, double b, uint64_t first, uint64_t last)
{
    uint64_t total = last - first;

    if (a < 0.0 || a > 1.0 || b < 0.0 || b > 1.0)
        return -1;
    r->start = first + (uint64_t)round(a * (double)total);
    r->end = first + (uint64_t)round(b * (double)total);
    if (r->end > r->start && r->end != last)
        r->end--;
    return 0;
}

/* "P%/N": the Nth slice of P percent. */
static int slash_piece(char *s, time_range *r, uint64_t first, uint64_t last)
{
    char *slash = strchr(s, '/'), *end;
    double p;
    long i;

    if (slash == NULL)
        return -1;
    *slash = '\0';
    if (percent(s, &p) < 0)
        return -1;
    i = strtol(slash + 1, &end, 10);
    if (*end != '\0' || p <= 0.0)
        return -1;
    return slice(r, p * (double)(i - 1), p * (double)i, first, last);
}

/* "A%-B%". */
static int dash_piece(char *s, time_range *r, uint64_t first, uint64_t last)
{
    char *dash = strchr(s, '-');
    double a, b;

    if (dash == NULL)
        return -1;
    *dash = '\0';
    if (percent(s, &a) < 0 || percent(dash + 1, &b) < 0)
        return -1;
    return slice(r, a, b, first, last);
}

typedef int (*piece_fn)(char *s, time_range *r, uint64_t first, uint64_t last);

/* Comma-separated percentage pieces of one form. */
static int percent_ranges(char *s, time_range *r, size_t cap, uint64_t first, uint64_t last)
{
    piece_fn fn = strchr(s, '/') ? slash_piece : strchr(s, '-') ? dash_piece : NULL;
    size_t n = 0, len = strlen(s);
    char *p = s;

    if (fn == NULL) {   /* "P%": the first P percent; '%' ends it */
        double v;

        if (s[len - 1] != '%' || percent(s, &v) < 0 || v <= 0.0 ||
            slice(&r[0], 0.0, v, first, last) < 0)
            return TIME_RANGE_INVALID;
        return 1;
    }
    while (p < s + len) {
        char *comma = strchr(p, ',');

        if (n >= cap)
            return TIME_RANGE_INVALID;
        if (comma != NULL)
            *comma = '\0';
        if (fn(p, &r[n++], first, last) < 0)
            return TIME_RANGE_INVALID;
        if (comma == NULL)
            break;
        p = comma + 1;
    }
    return (int)n;
}

int time_range_needs_span(const char *s, int reltime)
{
    return reltime || strchr(s, '%') != NULL;
}

int time_range_parse(const char *s, uint64_t first, uint64_t last, int reltime,
                     time_range **out)
{
    size_t cap = 1;
    time_range *r;
    char *copy;
    int n, i;

    *out = NULL;
    if (time_range_needs_span(s, reltime) && first == 0 && last == 0)
        return TIME_RANGE_NO_SPAN;
    for (const char *c = s; *c; c++)
        cap += *c == ',';
    if ((r = calloc(cap, sizeof(*r))) == NULL || (copy = strdup(s)) == NULL) {
        free(r);
        return TIME_RANGE_NOMEM;
    }
    if (*copy == '\0')
        n = TIME_RANGE_INVALID;
    else if (strchr(copy, '%') != NULL)
        n = percent_ranges(copy, r, cap, first, last);
    else
        n = seconds_ranges(copy, r, cap);
    free(copy);
    if (n < 0) {
        free(r);
        return n;
    }
    for (i = 0; reltime && i < n; i++) {
        r[i].start += first;
        r[i].end += first;
    }
    *out = r;
    return n;
}

int time_range_skip(const time_range *r, size_t n, uint64_t t)
{
    size_t i;

    if (n == 0 || t == 0)
        return 0;
    if (n == 1)
        return (r[0].start && t < r[0].start) || (r[0].end && t > r[0].end);
    for (i = 0; i < n; i++)
        if (t >= r[i].start && (t <= r[i].end || r[i].end == 0))
            return 0;
    return 1;
}
