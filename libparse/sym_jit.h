/* SPDX-License-Identifier: MIT */
/*
 * sym_jit.h - JIT symbol maps: the anonymous maps perf renames to
 * "/tmp/perf-PID.map", and dso__load_perf_map() reading that file.
 *
 * Layer: above symtree.c and sym_io.c; called by symbols.c. The file is
 * read from /tmp itself, never under --symfs, as perf does.
 */
#ifndef PS_SYM_JIT_H
#define PS_SYM_JIT_H

#include "symtree.h"

#define PS_JIT_PATH_MAX 64              /* holds "/tmp/perf-PID.map" */

/** perf's is_anon_memory() || is_no_dso_memory(): the maps it renames. */
int  ps_jit__is_anon(const ps_map *map);
/** PROT_EXEC for MMAP2; an MMAP record maps no data, so always. */
int  ps_jit__is_exec(const ps_map *map);
/** "/tmp/perf-PID.map" into buf (PS_JIT_PATH_MAX bytes). */
void ps_jit__path(char *buf, uint32_t pid);
/** The symbols of pid's perf-PID.map into t, names copied into arena
 *  (never demangled); a missing or unreadable file adds none. */
void ps_jit__load(ps_symtree *t, ps_arena *arena, uint32_t pid);

#endif /* PS_SYM_JIT_H */
