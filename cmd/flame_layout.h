/* SPDX-License-Identifier: MIT */
/*
 * flame_layout.h - folded lines merged into flame graph frames, as
 * flamegraph.pl's flow() merges them: each frame is a name at a depth over a
 * span [stime, etime) of the summed counts. Used by flame_svg.c only.
 */
#ifndef PS_CMD_FLAME_LAYOUT_H
#define PS_CMD_FLAME_LAYOUT_H

#include "flame_svg.h"

typedef struct flame_node {
    const char *name;           /* borrowed from the lines (or the layout) */
    size_t      len;
    unsigned    depth;          /* 0: the root, named "" */
    double      stime, etime;
    double      delta;          /* differential lines: after - before, at the
                                 * leaf only, or summed over the frame's lines */
    int         has_delta;
} flame_node;

typedef struct flame_layout {
    flame_node *v;              /* owned; ordered by depth, then stime */
    size_t      n, cap;
    double      time;           /* sum of the counts that give widths */
    double      maxdelta;       /* largest |delta|, at least 1 */
    char       *text;           /* owned: rewritten stacks and made keys */
} flame_layout;

/**
 * Merge lines[0..n) into frames. Unless flamechart, lines[] is first sorted
 * by key (made when NULL). chain: rewrite stacks as --colors=chain does
 * (frames after a "--" frame are wakers, annotated _[w]). inclusive: each
 * frame's delta is the sum of its lines' (every frame shows its change),
 * not flamegraph.pl's leaf-only delta.
 * @return 0, or -1 when out of memory
 */
int  flame_layout_build(flame_layout *out, flame_line *lines, size_t n, int flamechart,
                        int chain, int inclusive);
void flame_layout_free(flame_layout *l);

#endif /* PS_CMD_FLAME_LAYOUT_H */
