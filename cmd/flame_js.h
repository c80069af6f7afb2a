/* SPDX-License-Identifier: MIT */
/*
 * flame_js.h - the JavaScript of the flame graph SVG (flame_js.c).
 */
#ifndef PS_CMD_FLAME_JS_H
#define PS_CMD_FLAME_JS_H

/** The script, without its <script> element; needs `var fg` set first. */
extern const char flame_js[];

#endif /* PS_CMD_FLAME_JS_H */
