/* SPDX-License-Identifier: MIT */
/*
 * diff_folded.c - difffolded.pl's rules on two sets of folded stacks (see
 * diff_folded.h): sides are collected as lists, then sorted and summed, then
 * merged, so no hash order shows in the output.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "diff_folded.h"
#include "../libparse/util.h"

static int is_hex(int c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* s/0x[0-9a-fA-F]+/0x.../g into a new string */
static char *strip_hex(const char *s, size_t len, size_t *out_len)
{
    char *o = malloc(len * 2 + 1), *p = o;
    size_t i = 0;

    if (o == NULL)
        return NULL;
    while (i < len) {
        if (i + 2 < len && s[i] == '0' && s[i + 1] == 'x' && is_hex((unsigned char)s[i + 2])) {
            memcpy(p, "0x...", 5);
            p += 5;
            for (i += 2; i < len && is_hex((unsigned char)s[i]); i++)
                ;
            continue;
        }
        *p++ = s[i++];
    }
    *p = '\0';
    *out_len = (size_t)(p - o);
    return o;
}

int dfold_add(dfold_side *s, const char *stack, size_t len, double count, int strip)
{
    dfold_ent *e;
    char *copy;

    if (s->n == s->cap && ps_grow((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v)) < 0)
        return -1;
    if (strip) {
        copy = strip_hex(stack, len, &len);
    } else if ((copy = malloc(len + 1)) != NULL) {
        memcpy(copy, stack, len);
        copy[len] = '\0';
    }
    if (copy == NULL)
        return -1;
    e = &s->v[s->n++];
    e->stack = copy;
    e->len = len;
    e->count = count;
    s->total += count;
    return 0;
}

static int is_ws(int c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' || c == '\n';
}

int dfold_add_line(dfold_side *s, const char *line, size_t len, int strip)
{
    size_t end = len, start, dot;

    /* (\d+(?:\.\d*)?)$ : digits, then optionally "." and digits */
    while (end > 0 && line[end - 1] >= '0' && line[end - 1] <= '9')
        end--;
    dot = end;
    if (end > 0 && line[end - 1] == '.') {
        start = end - 1;
        while (start > 0 && line[start - 1] >= '0' && line[start - 1] <= '9')
            start--;
        if (start < end - 1)
            dot = start;
    }
    start = dot;
    if (start == len || start == 0 || !is_ws((unsigned char)line[start - 1]) ||
        !(line[start] >= '0' && line[start] <= '9')) {
        s->nr_bad++;
        return 0;
    }
    /* (.*)\s+? : the stack keeps all but one whitespace before the count */
    return dfold_add(s, line, start - 1, strtod(line + start, NULL), strip);
}

int dfold_read(dfold_side *s, FILE *fp, int strip)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int rc = 0;

    while (rc == 0 && (n = getline(&line, &cap, fp)) >= 0) {
        if (n > 0 && line[n - 1] == '\n')
            n--;
        rc = dfold_add_line(s, line, (size_t)n, strip);
    }
    free(line);
    return rc < 0 || ferror(fp) ? -1 : 0;
}

void dfold_side_free(dfold_side *s)
{
    size_t i;

    for (i = 0; i < s->n; i++)
        free(s->v[i].stack);
    free(s->v);
    memset(s, 0, sizeof(*s));
}

static int ent_cmp(const void *a, const void *b)
{
    const dfold_ent *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->stack, y->stack, n);

    return c != 0 ? c : (x->len > y->len) - (x->len < y->len);
}

/* sort and sum equal stacks in place */
static void collapse(dfold_side *s)
{
    size_t i, k = 0;

    qsort(s->v, s->n, sizeof(*s->v), ent_cmp);
    for (i = 0; i < s->n; i++) {
        if (k > 0 && ent_cmp(&s->v[k - 1], &s->v[i]) == 0) {
            s->v[k - 1].count += s->v[i].count;
            free(s->v[i].stack);
            continue;
        }
        s->v[k++] = s->v[i];
    }
    s->n = k;
}

int dfold_merge(dfold_side *base, dfold_side *new_, int normalize, dfold_row **rows, size_t *n)
{
    size_t i = 0, j = 0, k = 0;
    dfold_row *r;

    collapse(base);
    collapse(new_);
    if ((r = malloc((base->n + new_->n + 1) * sizeof(*r))) == NULL)
        return -1;
    while (i < base->n || j < new_->n) {
        int c = i >= base->n ? 1 : j >= new_->n ? -1 : ent_cmp(&base->v[i], &new_->v[j]);
        const dfold_ent *e = c <= 0 ? &base->v[i] : &new_->v[j];

        r[k].stack = e->stack;
        r[k].len = e->len;
        r[k].base = c <= 0 ? base->v[i++].count : 0;
        r[k].new_ = c >= 0 ? new_->v[j++].count : 0;
        if (normalize && base->total != new_->total && base->total != 0) {
            double v = r[k].base * new_->total / base->total;

            r[k].base = v < 0 ? -(double)(long long)-v : (double)(long long)v;    /* int() */
        }
        k++;
    }
    *rows = r;
    *n = k;
    return 0;
}

void dfold_number(char *buf, size_t size, double v)
{
    if (v == (double)(long long)v && v > -9.2e18 && v < 9.2e18)
        snprintf(buf, size, "%lld", (long long)v);
    else
        snprintf(buf, size, "%.15g", v);
}
