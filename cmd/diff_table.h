/* SPDX-License-Identifier: MIT */
/*
 * diff_table.h - the perf diff table: BASE's and NEW's rows (hist.h, perf
 * diff's symbol identity: name within DSO) paired by their keys, a
 * baseline percentage and one computed column (delta, delta-abs, ratio or
 * wdiff, as perf diff -c computes and orders them), then perfsift's own
 * columns: inclusive (children) baseline and delta, and the significance of
 * each change, a two-proportion z-test on sample counts.
 */
#ifndef PS_CMD_DIFF_TABLE_H
#define PS_CMD_DIFF_TABLE_H

#include <stdio.h>
#include "hist_capture.h"

enum { DT_DELTA, DT_DELTA_ABS, DT_RATIO, DT_WDIFF };

typedef struct dtab_opts {
    int     compute;            /* DT_* */
    int64_t w1, w2;             /* wdiff weights */
    double  limit;              /* --percent-limit: hide rows under it in both */
    int     children;           /* inclusive columns */
    int     signif;             /* the significance column */
    double  min_signif;         /* hide rows less significant (percent) */
    int     period;             /* -p: the base and new periods (perf diff -p) */
    int     formula;            /* -F: how the computed column was computed */
    int     baseline_only;      /* -b: only rows both profiles have */
    const char *sep;            /* -t: columns apart by this, not aligned */
    int     relative;           /* --percentage relative: shares of what the
                                 * -C/-d/-S filters let through */
} dtab_opts;

/** "delta", "delta-abs", "ratio", "wdiff:W1,W2" into o. 0, or -1. */
int  dtab_compute_parse(dtab_opts *o, const char *arg);

/**
 * Folded text ("stack count" lines, difffolded.pl's rules) as one hist:
 * the leaf frame is the symbol (a "_[k]" annotation its level), the first
 * frame the comm, every frame counted once per line for inclusive sums.
 * @return 0, or -1 (out of memory)
 */
int  dtab_folded_hist(hist_set *out, const char *const *stacks, const size_t *lens,
                      const double *counts, size_t n, const hist_keys *keys);

/** Print the table of every event of base (matched in new_ by type and
 * config; a folded input matches any). 0, or -1 (out of memory). */
int  dtab_print(FILE *fp, const hist_set *base, const hist_set *new_, const dtab_opts *o);

/**
 * The two-proportion z-test of k1 of n1 against k2 of n2: the confidence
 * (1 - two-sided p-value, 0..1) that the proportions differ; 0 when either
 * n is 0 or the pooled proportion is 0 or 1.
 */
double dtab_confidence(uint64_t k1, uint64_t n1, uint64_t k2, uint64_t n2);

#endif /* PS_CMD_DIFF_TABLE_H */
