/* SPDX-License-Identifier: MIT */
/*
 * flame_color.h - the colours of flame graph frames: flamegraph.pl's palettes
 * with --hash (a colour is a function of the name alone, so the same function
 * has the same colour in every graph), its red/blue differential scale and
 * its background gradients.
 */
#ifndef PS_CMD_FLAME_COLOR_H
#define PS_CMD_FLAME_COLOR_H

#include <stddef.h>

/** 1 if palette names one of flamegraph.pl's palettes (hot, mem, io, ...). */
int flame_color_valid(const char *palette);

/** The palette names, comma-separated, for messages. Static. */
const char *flame_color_names(void);

/**
 * The two gradient stops for --bgcolors (yellow, blue, green, grey or
 * #rrggbb; NULL or "": the palette's default) into c1/c2 ("#rrggbb").
 * @return 0, or -1 if bgcolors is none of those
 */
int flame_color_background(char c1[8], char c2[8], const char *bgcolors, const char *palette);

/** "rgb(r,g,b)" of the frame name[0..len) in palette, into out. */
void flame_color_frame(char out[24], const char *palette, const char *name, size_t len);

/** The differential colour of a frame whose count changed by delta. */
void flame_color_delta(char out[24], double delta, double maxdelta, int negate);

#endif /* PS_CMD_FLAME_COLOR_H */
