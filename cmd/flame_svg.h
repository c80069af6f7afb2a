/* SPDX-License-Identifier: MIT */
/*
 * flame_svg.h - an interactive SVG flame graph drawn from folded stacks, with
 * the frames, widths and colours flamegraph.pl (brendangregg/FlameGraph)
 * draws from the same lines given --hash: its sort, its merge of adjacent
 * equal prefixes, its x/width arithmetic, --minwidth pruning, text
 * truncation, palettes and the red/blue colours of differential lines.
 * `perfsift flamegraph` draws folded stacks; `perfsift diff --svg` draws two
 * counts per stack. The script inside the SVG is perfsift's own (hover,
 * click to zoom, search with ?s=TERM on load, reset zoom).
 * Spec: shared/spec/peers.md 1.2 and 4.6.
 */
#ifndef PS_CMD_FLAME_SVG_H
#define PS_CMD_FLAME_SVG_H

#include <stddef.h>
#include <stdio.h>

/**
 * One folded stack: frames joined by ';', root first, with one count, or two
 * for a differential graph (before, after; the width is the after count).
 * key is the text flamegraph.pl sorts: the whole input line ("stack count"),
 * which decides where equal prefixes meet. NULL: the writer makes it from
 * the stack and counts. Nothing here is NUL-terminated; all is borrowed.
 */
typedef struct flame_line {
    const char *stack;
    size_t      len;
    const char *key;
    size_t      key_len;
    double      count1;         /* the count, or the before count */
    double      count2;         /* the after count when nr_counts == 2 */
    int         nr_counts;      /* 1 or 2 */
} flame_line;

/** What flamegraph.pl's options set; flame_svg_opts_init() gives its defaults. */
typedef struct flame_svg_opts {
    const char *title;          /* NULL: "Flame Graph", "Icicle Graph", "Flame Chart" */
    const char *subtitle;       /* NULL or "": none */
    const char *countname;      /* "samples" */
    const char *nametype;       /* "Function:" */
    const char *fonttype;       /* "Verdana" */
    const char *colors;         /* palette name, "hot"; see flame_color_valid() */
    const char *bgcolors;       /* NULL: by palette; yellow, blue, green, grey, #rrggbb */
    const char *notes;          /* NULL: none; an XML comment */
    int         width;          /* image width, 1200 */
    int         frameheight;    /* 16 */
    double      fontsize;       /* 12 */
    double      fontwidth;      /* 0.59: average glyph width / font size */
    double      minwidth;       /* 0.1 (pixels, or percent of the total) */
    int         minwidth_pct;   /* minwidth is a percentage */
    double      total;          /* 0: the sum of the counts */
    double      factor;         /* 1: counts shown are count * factor */
    int         inverted;       /* icicle graph: root at the top */
    int         flamechart;     /* keep line order, no sort */
    int         negate;         /* swap the differential hues */
    int         delta_inclusive; /* differential: every frame coloured by the
                                  * change of all below it, not the leaves only */
} flame_svg_opts;

void flame_svg_opts_init(flame_svg_opts *o);

/** What the writer noticed, for the caller's warnings. */
typedef struct flame_svg_stats {
    double total;               /* sum of the counts drawn (after counts) */
    int    total_ignored;       /* opts.total was below the sum, so unused */
    size_t nr_frames;           /* frames drawn (the root included) */
} flame_svg_stats;

enum { FLAME_OK = 0, FLAME_EMPTY = 1, FLAME_ENOMEM = -1, FLAME_EIO = -2 };

/**
 * Write the flame graph of lines[0..n) to out. Unless o->flamechart, sorts
 * lines[] in place by key, as flamegraph.pl sorts its input.
 * @return FLAME_OK; FLAME_EMPTY when the counts sum to 0 (an SVG saying so
 *         was written, as flamegraph.pl does); FLAME_ENOMEM or FLAME_EIO
 *         (a write to out failed; errno says why)
 */
int flame_svg_write(FILE *out, flame_line *lines, size_t n, const flame_svg_opts *o,
                    flame_svg_stats *st);

#endif /* PS_CMD_FLAME_SVG_H */
