/* SPDX-License-Identifier: MIT */
/*
 * sym_kmod.h - kernel module names as perf 6.1 makes them from paths
 * (kmod_path__parse_name()) and which name it prints for a module DSO.
 * Pure string work over the capture's features; never reads files.
 *
 * Layer: called by symbols.c; calls nothing above util.h.
 */
#ifndef PS_SYM_KMOD_H
#define PS_SYM_KMOD_H

#include "symbols.h"

/** "[name]" for a module path (a .ko, maybe .gz/.xz; dashes become
 *  underscores), the base name otherwise; bracketed names stay. */
void ps_kmod__name(const char *path, char *buf, size_t size);
/**
 * The name perf prints for module "[name]": the path of a kernel BUILD_ID
 * entry naming the same module when there is one (perf made that DSO
 * while reading the header and finds it again by its "[name]"), else
 * name itself. Borrowed from name or feat.
 */
const char *ps_kmod__print_name(const ps_features *feat, const char *name);

#endif /* PS_SYM_KMOD_H */
