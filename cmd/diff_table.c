/* SPDX-License-Identifier: MIT */
/*
 * diff_table.c - the perf diff table (diff_table.h). perf diff's rules, as
 * perf 6.1 prints them: the rows are BASE's plus NEW's rows BASE lacks
 * ("dummies", no baseline); the computed column is blank for rows NEW
 * lacks, N/A for a dummy's ratio or wdiff; rows with a NEW side come first,
 * ordered by the computed value (largest first; |delta| for delta-abs;
 * dummies last for ratio and wdiff), then by baseline period, then by the
 * keys. Percentages are of each capture's total period for the event.
 *
 * Significance: for a row with k1 of N1 samples in BASE and k2 of N2 in
 * NEW, z = (k2/N2 - k1/N1) / sqrt(p (1 - p) (1/N1 + 1/N2)), p = (k1 + k2) /
 * (N1 + N2), and the column shows 1 - erfc(|z| / sqrt 2), the confidence
 * that the share changed beyond sampling noise (samples taken as
 * independent draws; periods are not counts, so samples are used).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "diff_table.h"

#define FOLDED_TYPE UINT32_MAX  /* a hist made from folded text */
#define FORMULA_WIDTH 70        /* perf diff's Formula column */

typedef struct drow {
    const hist_entry *b, *n;    /* BASE's and NEW's side; either may be NULL */
    double            value;    /* the computed column, for ordering */
} drow;

typedef struct dtab {
    const dtab_opts *o;
    const hist      *h0, *h1;   /* h1 NULL: NEW has no such event */
    drow            *rows;
    size_t           n;
    uint64_t         total0;    /* BASE's total as the Baseline column and -F
                                 * show it (print_total()) */
} dtab;

int dtab_compute_parse(dtab_opts *o, const char *arg)
{
    char *end;

    if (strcmp(arg, "delta") == 0)
        o->compute = DT_DELTA;
    else if (strcmp(arg, "delta-abs") == 0)
        o->compute = DT_DELTA_ABS;
    else if (strcmp(arg, "ratio") == 0)
        o->compute = DT_RATIO;
    else if (strncmp(arg, "wdiff:", 6) == 0) {
        o->compute = DT_WDIFF;
        o->w1 = strtoll(arg + 6, &end, 10);
        if (end == arg + 6 || *end != ',')
            return -1;
        arg = end + 1;
        o->w2 = strtoll(arg, &end, 10);
        if (end == arg || *end || o->w1 == 0 || o->w2 == 0)
            return -1;
    } else {
        return -1;
    }
    return 0;
}

double dtab_confidence(uint64_t k1, uint64_t n1, uint64_t k2, uint64_t n2)
{
    double p, se, z;

    if (n1 == 0 || n2 == 0)
        return 0;
    p = (double)(k1 + k2) / (double)(n1 + n2);
    se = sqrt(p * (1 - p) * (1.0 / (double)n1 + 1.0 / (double)n2));
    if (!(se > 0))
        return 0;
    z = ((double)k2 / (double)n2 - (double)k1 / (double)n1) / se;
    return 1 - erfc(fabs(z) / sqrt(2.0));
}

/* --- folded text ------------------------------------------------------------- */

/* One frame of a folded stack: its name, the level of a "_[k]" suffix. */
static const char *folded_frame(char *buf, size_t size, const char *f, size_t len, char *level)
{
    *level = '.';
    if (len >= 4 && f[len - 4] == '_' && f[len - 3] == '[' && f[len - 1] == ']') {
        if (f[len - 2] == 'k')
            *level = 'k';
        len -= 4;
    }
    if (len >= size)
        len = size - 1;
    memcpy(buf, f, len);
    buf[len] = '\0';
    return buf;
}

static int folded_line(hist *h, const char *stack, size_t len, double count)
{
    uint64_t c = count > 0 ? (uint64_t)llround(count) : 0;
    size_t i = strcspn(stack, ";"), first = i < len ? i : len;
    char comm[256], sym[4096];
    hist_entry *e;
    hist_item it;

    memset(&it, 0, sizeof(it));
    hist_sample_begin(h);
    h->total_period += c;
    h->shown_period += c;
    h->nr_samples += c;
    it.comm = folded_frame(comm, sizeof(comm), stack, first, &it.level);
    /* the first frame is the comm (perf's and perfsift's folding), unless
     * it is the only one; the last is the leaf, its own sample */
    for (i = first < len ? first + 1 : 0;;) {
        size_t flen = strcspn(stack + i, ";");
        int leaf;

        if (flen > len - i)
            flen = len - i;
        leaf = i + flen >= len;
        it.sym = folded_frame(sym, sizeof(sym), stack + i, flen, &it.level);
        if ((e = hist_add(h, &it, c, leaf)) == NULL)
            return -1;
        if (leaf) {         /* one sample per count */
            e->nr_samples += c ? c - 1 : 0;
            break;
        }
        i += flen + 1;
    }
    return 0;
}

int dtab_folded_hist(hist_set *out, const char *const *stacks, const size_t *lens,
                     const double *counts, size_t n, const hist_keys *keys)
{
    size_t i;

    memset(out, 0, sizeof(*out));
    if ((out->ev = calloc(1, sizeof(*out->ev))) == NULL)
        return -1;
    out->n = 1;
    out->has_callchain = 1;
    if (hist_init(&out->ev[0], "folded", keys, 1) < 0)
        return -1;
    out->ev[0].type = FOLDED_TYPE;
    for (i = 0; i < n; i++)
        if (folded_line(&out->ev[0], stacks[i], lens[i], counts[i]) < 0)
            return -1;
    return 0;
}

/* --- rows and order ------------------------------------------------------------ */

/* perf links a row BASE lacks to an empty row of BASE's event, whose share
 * it computes as 0 * 100 / total: with no samples of the event in BASE that
 * is 0/0, a NaN (x86 makes it negative: every delta prints as "-nan%"). */
/* The total a change is computed with: every sample's, or with
 * --percentage relative those the filters let through */
static uint64_t total(const dtab *t, const hist *h)
{
    return t->o->relative ? h->shown_period : h->total_period;
}

static double base_pct(const dtab *t, const drow *r)
{
    if (total(t, t->h0) == 0)
        return NAN;
    return r->b ? hist_percent(r->b->period, total(t, t->h0)) : 0;
}

/* perf divides by NEW's total as it is: with --percentage relative it can
 * be 0 while a row of hidden samples still pairs (+inf%) */
static double new_pct(const dtab *t, const drow *r)
{
    if (r->n == NULL)
        return 0;
    if (total(t, t->h1) == 0)
        return r->n->period ? INFINITY : NAN;
    return hist_percent(r->n->period, total(t, t->h1));
}

static double computed(const dtab *t, const drow *r)
{
    uint64_t bp = r->b ? r->b->period : 0;

    switch (t->o->compute) {
    case DT_RATIO: return (double)r->n->period / (double)(bp ? bp : 1);
    case DT_WDIFF: return (double)((int64_t)r->n->period * t->o->w2 - (int64_t)bp * t->o->w1);
    case DT_DELTA_ABS: return fabs(new_pct(t, r) - base_pct(t, r));
    default: return new_pct(t, r) - base_pct(t, r);
    }
}

static int drow_cmp(const void *pa, const void *pb, void *arg)
{
    const dtab *t = arg;
    const drow *a = pa, *b = pb;
    uint64_t ab = a->b ? a->b->period : 0, bb = b->b ? b->b->period : 0;

    if ((a->n == NULL) != (b->n == NULL))
        return a->n == NULL ? 1 : -1;
    if (a->n != NULL) {
        if ((t->o->compute == DT_RATIO || t->o->compute == DT_WDIFF) &&
            (a->b == NULL) != (b->b == NULL))
            return a->b == NULL ? 1 : -1;
        /* perf's comparison: a NaN is equal to everything */
        if (a->value > b->value || a->value < b->value)
            return a->value > b->value ? -1 : 1;
    }
    if (ab != bb)
        return ab > bb ? -1 : 1;
    return hist_key_cmp(t->h0, a->b ? a->b : a->n, b->b ? b->b : b->n);
}

/* perf diff computes the changes with BASE's total, then re-sums that
 * total over the rows it kept to print: with -b, the rows NEW lacks are
 * gone, and with --percentage relative only rows the filters did not hide
 * count; the Baseline column (and -F's formula) is of that */
static void print_total(dtab *t)
{
    size_t i;

    t->total0 = t->h0->total_period;
    if (!t->o->baseline_only && !t->o->relative)
        return;
    t->total0 = 0;
    for (i = 0; i < t->n; i++)
        if (t->rows[i].b != NULL && (t->rows[i].n != NULL || !t->o->baseline_only) &&
            (!t->o->relative || !t->rows[i].b->hidden))
            t->total0 += t->rows[i].b->period;
}

static int build_rows(dtab *t)
{
    size_t i, k = 0, n1 = t->h1 ? t->h1->n : 0;

    if ((t->rows = calloc(t->h0->n + n1 + 1, sizeof(*t->rows))) == NULL)
        return -1;
    for (i = 0; i < t->h0->n; i++) {
        const hist_entry *b = &t->h0->v[i];

        t->rows[k].b = b;
        t->rows[k++].n = t->h1 ? hist_find(t->h1, &b->it) : NULL;
    }
    for (i = 0; i < n1; i++)
        if (hist_find(t->h0, &t->h1->v[i].it) == NULL)
            t->rows[k++].n = &t->h1->v[i];
    t->n = k;
    for (i = 0; i < k; i++)
        if (t->rows[i].n != NULL)
            t->rows[i].value = computed(t, &t->rows[i]);
    qsort_r(t->rows, k, sizeof(*t->rows), drow_cmp, t);
    print_total(t);
    return 0;
}

/* --- text ------------------------------------------------------------------------ */

static const struct column {
    const char *name;
    int         width;
} columns[] = {
    [DT_DELTA] = { "Delta", 7 }, [DT_DELTA_ABS] = { "Delta Abs", 9 },
    [DT_RATIO] = { "Ratio", 14 }, [DT_WDIFF] = { "Weighted diff", 14 },
};

static void print_dots(FILE *fp, int w)
{
    fputs("  ", fp);
    while (w-- > 0)
        fputc('.', fp);
}

static void print_header(FILE *fp, const dtab *t, const int *w)
{
    const struct column *c = &columns[t->o->compute];
    const hist *h = t->h0;
    int i;

    fputs("# Baseline", fp);
    if (t->o->period)
        fprintf(fp, "  %14s", "Base period");
    fprintf(fp, "  %*s", c->width, c->name);
    if (t->o->formula)
        fprintf(fp, "  %*s", FORMULA_WIDTH, "Formula");
    if (t->o->period)
        fprintf(fp, "  %14s", "Period");
    if (t->o->children)
        fputs("  Base Incl  Delta Incl", fp);
    if (t->o->signif)
        fputs("   Signif", fp);
    for (i = 0; i < h->keys.n; i++)
        if (!(h->elide >> h->keys.k[i] & 1))
            fprintf(fp, "  %-*s", w[i], hist_key_header(h->keys.k[i]));
    fputs("\n# ........", fp);
    if (t->o->period)
        print_dots(fp, 14);
    print_dots(fp, c->width);
    if (t->o->formula)
        print_dots(fp, FORMULA_WIDTH);
    if (t->o->period)
        print_dots(fp, 14);
    if (t->o->children) {
        print_dots(fp, 9);
        print_dots(fp, 10);
    }
    if (t->o->signif)
        print_dots(fp, 7);
    for (i = 0; i < h->keys.n; i++)
        if (!(h->elide >> h->keys.k[i] & 1))
            print_dots(fp, w[i]);
    fputs("\n#\n", fp);
}

static void print_computed(FILE *fp, const dtab *t, const drow *r)
{
    int w = columns[t->o->compute].width;
    uint64_t bp = r->b ? r->b->period : 0;

    if (r->n == NULL) {
        fprintf(fp, "  %*s", w, "");
        return;
    }
    switch (t->o->compute) {
    case DT_RATIO:
        if (r->b == NULL)
            fprintf(fp, "  %*s", w, "N/A");
        else
            fprintf(fp, "  %*.6f", w, (double)r->n->period / (double)(bp ? bp : 1));
        break;
    case DT_WDIFF:
        if (r->b == NULL)
            fprintf(fp, "  %*s", w, "N/A");
        else
            fprintf(fp, "  %*ld", w, (long)((int64_t)r->n->period * t->o->w2 -
                                            (int64_t)bp * t->o->w1));
        break;
    default:
        /* perf's 0/0 (base_pct(), new_pct()) is x86's negative NaN */
        if (isnan(new_pct(t, r) - base_pct(t, r)))
            fprintf(fp, "  %*s%%", w - 1, "-nan");
        else
            fprintf(fp, "  %+*.2f%%", w - 1, new_pct(t, r) - base_pct(t, r));
        break;
    }
}

/* perf diff -F: the computed column's terms (periods; a row only NEW has
 * has a baseline of 0), right-aligned in perf's 70 columns; blank for a
 * row NEW lacks */
static void formula_text(char *buf, size_t size, const dtab *t, const drow *r)
{
    uint64_t bp = r->b ? r->b->period : 0;

    if (r->n == NULL) {
        buf[0] = '\0';
    } else if (t->o->compute == DT_RATIO) {
        snprintf(buf, size, "%.0f / %.0f", (double)r->n->period, (double)bp);
    } else if (t->o->compute == DT_WDIFF) {
        snprintf(buf, size, "(%" PRIu64 " * %" PRId64 ") - (%" PRIu64 " * %" PRId64 ")",
                 r->n->period, t->o->w2, bp, t->o->w1);
    } else {
        snprintf(buf, size, "(%" PRIu64 " * 100 / %" PRIu64 ") - (%" PRIu64
                 " * 100 / %" PRIu64 ")", r->n->period, total(t, t->h1), bp, t->total0);
    }
}

static void print_formula(FILE *fp, const dtab *t, const drow *r)
{
    char buf[160];

    formula_text(buf, sizeof(buf), t, r);
    fprintf(fp, "  %*s", FORMULA_WIDTH, buf);
}

static double confidence(const dtab *t, const drow *r)
{
    return dtab_confidence(r->b ? r->b->nr_samples : 0, t->h0->nr_samples,
                           r->n ? r->n->nr_samples : 0, t->h1 ? t->h1->nr_samples : 0);
}

static void print_extra(FILE *fp, const dtab *t, const drow *r)
{
    if (t->o->children) {
        double b = r->b ? hist_percent(r->b->acc_period, t->h0->total_period) : 0;
        double n = r->n ? hist_percent(r->n->acc_period, t->h1->total_period) : 0;

        if (r->b)
            fprintf(fp, "  %8.2f%%", b);
        else
            fprintf(fp, "  %9s", "");
        if (r->n)
            fprintf(fp, "  %+9.2f%%", n - b);
        else
            fprintf(fp, "  %10s", "");
    }
    if (t->o->signif) {
        if (t->h1 != NULL)
            fprintf(fp, "  %6.1f%%", 100.0 * confidence(t, r));
        else
            fprintf(fp, "  %7s", "");
    }
}

/* Whether perf diff has the row at all: the side that made it (BASE's, or
 * NEW's for a dummy) was not made by a sample the -C/-d/-S filters hide,
 * and with -b both profiles have it. Only such rows size the columns. */
static int listed(const dtab *t, const drow *r)
{
    if (t->o->baseline_only && (r->b == NULL || r->n == NULL))
        return 0;
    return !(r->b ? r->b : r->n)->hidden;
}

static int shown(const dtab *t, const drow *r)
{
    if (!listed(t, r))
        return 0;
    if (t->o->limit > 0 && base_pct(t, r) < t->o->limit && new_pct(t, r) < t->o->limit)
        return 0;
    if (t->o->min_signif > 0 && 100.0 * confidence(t, r) < t->o->min_signif)
        return 0;
    return 1;
}

/* --- -t: perf's columns with a field separator ---------------------------------- */

/*
 * perf prints each column's own text, not aligned by a width of the
 * format (its entry functions rather than its colour ones), separated by
 * the separator; every column but the last is then padded with spaces to
 * its width (hist_entry__snprintf_alignment()). The header has perf's
 * widths but no dotted line.
 */
static void sep_col(FILE *fp, const dtab *t, int *first, const char *text, int width, int last)
{
    int n = (int)strlen(text);

    if (!*first)
        fputs(t->o->sep, fp);
    *first = 0;
    fputs(text, fp);
    if (!last && n < width)
        fprintf(fp, "%*s", width - n, "");
}

/* A sort key's text, as hist_key_print() prints that key alone; perf's
 * repsep_snprintf() turns the separator's character in it into '.' */
static void sep_key(char *buf, size_t size, const dtab *t, const hist_entry *e, int key, int w)
{
    hist one = *t->h0;
    int w1[HK_MAX] = { w };
    FILE *m = fmemopen(buf, size, "w");
    char *p;

    buf[0] = '\0';
    if (m == NULL)
        return;
    one.keys.n = 1;
    one.keys.k[0] = (unsigned char)key;
    one.elide = 0;
    hist_key_print(m, &one, e, w1);
    fclose(m);
    memmove(buf, buf + 2, strlen(buf) > 1 ? strlen(buf) - 1 : 1);     /* its "  " */
    for (p = buf; t->o->sep[0] != '\0' && (p = strchr(p, t->o->sep[0])) != NULL; p++)
        *p = '.';
}

/* The computed column's text (perf's hpp_entry_pair()): no value for a
 * row NEW lacks, N/A for a dummy's ratio or wdiff, nothing for a ratio or
 * weighted diff of 0 */
static void sep_computed(char *buf, size_t size, const dtab *t, const drow *r)
{
    uint64_t bp = r->b ? r->b->period : 0;

    buf[0] = '\0';
    if (r->n == NULL)
        return;
    if ((t->o->compute == DT_RATIO || t->o->compute == DT_WDIFF) && r->b == NULL) {
        snprintf(buf, size, "N/A");
    } else if (t->o->compute == DT_RATIO) {
        double v = (double)r->n->period / (double)(bp ? bp : 1);

        if (v > 0)
            snprintf(buf, size, "%14.6F", v);
    } else if (t->o->compute == DT_WDIFF) {
        int64_t v = (int64_t)r->n->period * t->o->w2 - (int64_t)bp * t->o->w1;

        if (v != 0)
            snprintf(buf, size, "%14" PRId64, v);
    } else if (isnan(new_pct(t, r) - base_pct(t, r))) {
        snprintf(buf, size, "-NAN%%");  /* x86's 0/0, as print_computed() */
    } else {
        snprintf(buf, size, "%+4.2F%%", new_pct(t, r) - base_pct(t, r));
    }
}

static void sep_header(FILE *fp, const dtab *t, const int *w)
{
    const struct column *c = &columns[t->o->compute];
    const hist *h = t->h0;
    const char *s = t->o->sep;
    int i;

    fputs("# Baseline", fp);
    if (t->o->period)
        fprintf(fp, "%s%14s", s, "Base period");
    fprintf(fp, "%s%*s", s, c->width, c->name);
    if (t->o->formula)
        fprintf(fp, "%s%*s", s, FORMULA_WIDTH, "Formula");
    if (t->o->period)
        fprintf(fp, "%s%14s", s, "Period");
    if (t->o->children)
        fprintf(fp, "%sBase Incl%sDelta Incl", s, s);
    if (t->o->signif)
        fprintf(fp, "%s Signif", s);
    for (i = 0; i < h->keys.n; i++)
        if (!(h->elide >> h->keys.k[i] & 1))
            fprintf(fp, "%s%-*s", s, w[i], hist_key_header(h->keys.k[i]));
    fputc('\n', fp);
}

static void sep_row(FILE *fp, const dtab *t, const drow *r, const int *w)
{
    const hist_entry *e = r->b ? r->b : r->n;
    char buf[8192];
    int first = 1, i, last_key = -1;

    for (i = 0; i < t->h0->keys.n; i++)
        if (!(t->h0->elide >> t->h0->keys.k[i] & 1))
            last_key = i;
    snprintf(buf, sizeof(buf), "%.2f", r->b ? hist_percent(r->b->period, t->total0) : 0);
    sep_col(fp, t, &first, r->b ? buf : "", 8, 0);
    snprintf(buf, sizeof(buf), "%" PRIu64, r->b ? r->b->period : 0);
    if (t->o->period)
        sep_col(fp, t, &first, buf, 14, 0);
    sep_computed(buf, sizeof(buf), t, r);
    sep_col(fp, t, &first, buf, columns[t->o->compute].width, 0);
    formula_text(buf, sizeof(buf), t, r);
    if (t->o->formula)
        sep_col(fp, t, &first, buf, FORMULA_WIDTH, 0);
    snprintf(buf, sizeof(buf), "%" PRIu64, r->n ? r->n->period : 0);
    if (t->o->period)
        sep_col(fp, t, &first, r->n ? buf : "", 14, 0);
    if (t->o->children) {
        double b = r->b ? hist_percent(r->b->acc_period, t->h0->total_period) : 0;
        double n = r->n ? hist_percent(r->n->acc_period, t->h1->total_period) : 0;

        snprintf(buf, sizeof(buf), "%.2f%%", b);
        sep_col(fp, t, &first, r->b ? buf : "", 9, 0);
        snprintf(buf, sizeof(buf), "%+.2f%%", n - b);
        sep_col(fp, t, &first, r->n ? buf : "", 10, 0);
    }
    if (t->o->signif) {
        snprintf(buf, sizeof(buf), "%.1f%%", 100.0 * confidence(t, r));
        sep_col(fp, t, &first, t->h1 ? buf : "", 7, 0);
    }
    for (i = 0; i < t->h0->keys.n; i++) {
        if (t->h0->elide >> t->h0->keys.k[i] & 1)
            continue;
        sep_key(buf, sizeof(buf), t, e, t->h0->keys.k[i], w[i]);
        sep_col(fp, t, &first, buf, w[i], i == last_key);
    }
    fputc('\n', fp);
}

static void print_table(FILE *fp, const dtab *t)
{
    int w[HK_MAX], unresolved;
    size_t i;

    hist_key_widths_init(t->h0, w, &unresolved);
    for (i = 0; i < t->n; i++)
        if (listed(t, &t->rows[i]))
            hist_key_widths_add(t->h0, t->rows[i].b ? t->rows[i].b : t->rows[i].n, w,
                                &unresolved);
    hist_key_widths_done(t->h0, w, unresolved);
    if (t->o->sep != NULL)
        sep_header(fp, t, w);
    else
        print_header(fp, t, w);
    for (i = 0; i < t->n; i++) {
        const drow *r = &t->rows[i];

        if (!shown(t, r))
            continue;
        if (t->o->sep != NULL) {
            sep_row(fp, t, r, w);
            continue;
        }
        if (r->b)
            fprintf(fp, "  %7.2f%%", hist_percent(r->b->period, t->total0));
        else
            fprintf(fp, "  %8s", "");
        /* perf diff -p: a row only NEW has shows a base period of 0, one
         * only BASE has no new one */
        if (t->o->period)
            fprintf(fp, "  %14" PRIu64, r->b ? r->b->period : 0);
        print_computed(fp, t, r);
        if (t->o->formula)
            print_formula(fp, t, r);
        if (t->o->period && r->n != NULL)
            fprintf(fp, "  %14" PRIu64, r->n->period);
        else if (t->o->period)
            fprintf(fp, "  %14s", "");
        print_extra(fp, t, r);
        hist_key_print(fp, t->h0, r->b ? r->b : r->n, w);
        fputc('\n', fp);
    }
}

/* perf's evsel__match2: the same type and config; folded text is any event */
static const hist *match(const hist_set *s, const hist *h)
{
    size_t i;

    for (i = 0; i < s->n; i++)
        if ((s->ev[i].type == h->type && s->ev[i].config == h->config) ||
            s->ev[i].type == FOLDED_TYPE || h->type == FOLDED_TYPE)
            return &s->ev[i];
    return NULL;
}

int dtab_print(FILE *fp, const hist_set *base, const hist_set *new_, const dtab_opts *o)
{
    size_t i;

    for (i = 0; i < base->n; i++) {
        dtab t = { o, &base->ev[i], match(new_, &base->ev[i]), NULL, 0, 0 };

        if (build_rows(&t) < 0)
            return -1;
        fprintf(fp, "%s# Event '%s'\n#\n", i ? "\n" : "",
                t.h0->type == FOLDED_TYPE && t.h1 ? t.h1->name : t.h0->name);
        print_table(fp, &t);
        free(t.rows);
    }
    return 0;
}
