/* SPDX-License-Identifier: MIT */
/*
 * diff_folded.h - two profiles as folded stacks side by side, by
 * difffolded.pl's rules (shared/spec/peers.md 4.5): counts summed per stack
 * and per input (optionally after 0x... addresses are masked), the union of
 * the stacks with 0 where one input lacks a stack, the base optionally
 * scaled to the new total. Sorted bytewise, so the output is reproducible
 * (difffolded.pl's own order is Perl's hash order, random per run).
 */
#ifndef PS_CMD_DIFF_FOLDED_H
#define PS_CMD_DIFF_FOLDED_H

#include <stddef.h>
#include <stdio.h>

typedef struct dfold_ent {
    char  *stack;               /* owned */
    size_t len;
    double count;
} dfold_ent;

/** One input's stacks. */
typedef struct dfold_side {
    dfold_ent *v;
    size_t     n, cap;
    double     total;
    size_t     nr_bad;          /* lines that are not "stack count" */
} dfold_side;

typedef struct dfold_row {
    const char *stack;          /* borrowed from a side */
    size_t      len;
    double      base, new_;
} dfold_row;

/** Add a stack with its count; strip: mask 0x... addresses. 0 or -1. */
int  dfold_add(dfold_side *s, const char *stack, size_t len, double count, int strip);
/** Add one text line, `^(.*)\s+?(\d+(?:\.\d*)?)$`; a bad line is counted. 0 or -1. */
int  dfold_add_line(dfold_side *s, const char *line, size_t len, int strip);
/** Read folded text from fp. 0 or -1 (errno). */
int  dfold_read(dfold_side *s, FILE *fp, int strip);
void dfold_side_free(dfold_side *s);

/**
 * The union of both sides' stacks, sorted, each with both sums; with
 * normalize, base counts scaled as difffolded.pl -n (int(c * total_new /
 * total_base) when the totals differ). *rows owned: free().
 * @return 0 or -1 (out of memory)
 */
int  dfold_merge(dfold_side *base, dfold_side *new_, int normalize, dfold_row **rows,
                 size_t *n);

/** A count as Perl prints a number ("%.15g"; integers in full). */
void dfold_number(char *buf, size_t size, double v);

#endif /* PS_CMD_DIFF_FOLDED_H */
