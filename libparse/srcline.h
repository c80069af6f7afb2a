/* SPDX-License-Identifier: MIT */
/*
 * srcline.h - source lines and inline chains from DWARF, in process with
 * elfutils libdw, answering what perf 6.1 learns by running
 * `addr2line -e FILE -a -i -f` (binutils) on an ELF address: the function
 * and file:line of the address, then, when that function was inlined, each
 * caller it was inlined into with the file:line of the call.
 *
 * Layer: beside symbols.c (it opens the file symbols.c says perf would hand
 * addr2line, with the same regular-file rule), below resolve.c and the
 * emitters. Never prints; a missing or non-ELF file gives "nothing found",
 * a file without DWARF (or corrupt DWARF) answers from its symbols only,
 * never an error.
 *
 * Caches: one libdw handle per file, opened on its first lookup and kept;
 * one answer per (file, address), so a hot address costs one hash lookup.
 * A file can be asked for ahead (ps_srcline__prefetch()): a worker thread
 * opens it (decompressing its DWARF is the slow part) while the caller
 * goes on; a lookup of it then waits for that. Only the worker and the
 * file's first lookup touch a file being opened; everything else is the
 * caller's thread's, so a ps_srcline is still used from one thread.
 *
 * Ownership: every ps_srcinfo and string returned is Borrowed until
 * ps_srcline__free().
 */
#ifndef PS_SRCLINE_H
#define PS_SRCLINE_H

#include <stddef.h>
#include <stdint.h>

typedef struct ps_srcline ps_srcline;

/** One addr2line record. */
typedef struct ps_srcloc {
    const char *func;   /* raw name: DWARF's (linkage name first), or the
                         * ELF symbol binutils picks; NULL: addr2line's "??" */
    const char *file;   /* full path as DWARF has it; NULL: addr2line's "??" */
    unsigned    line;   /* 0: addr2line's "?" */
} ps_srcloc;

/** addr2line's answer: nr == 0 when it prints "??:0" (nothing found). */
typedef struct ps_srcinfo {
    const ps_srcloc *loc;       /* innermost first, then the callers an
                                 * inlined function was inlined into */
    size_t           nr;
} ps_srcinfo;

/** @return 0, or -1 when out of memory. Owned: ps_srcline__free(). */
int  ps_srcline__new(ps_srcline **out);
/** Accepts NULL. */
void ps_srcline__free(ps_srcline *c);

/**
 * Answer every address as an addr2line run for that address alone would
 * (stackcollapse-perf.pl --inline starts one per address), not as the one
 * long-lived addr2line perf keeps per file: what binutils settles on about
 * a function's name while answering one address (innermost_name() in
 * srcline.c) is not carried into the answers for others.
 */
void ps_srcline__set_fresh(ps_srcline *c);

/**
 * addr2line -i -f on path at addr (an ELF virtual address, as objdump
 * shows it).
 * @return 0 with *out filled (nr may be 0), -1 when out of memory
 */
int  ps_srcline__find(ps_srcline *c, const char *path, uint64_t addr, ps_srcinfo *out);

/**
 * `nm FILE`'s address of name (len bytes): the first defined symbol of
 * that name in the file's own .symtab (not its debug file's, not .dynsym).
 * @return 1 with *value set, 0 when nm lists none, -1 out of memory
 */
int  ps_srcline__nm(ps_srcline *c, const char *path, const char *name, size_t len,
                    uint64_t *value);

/**
 * Start opening path in the background, for a ps_srcline__find() to come.
 * Answers are the same either way. A path known already is left alone.
 * @return 0, or -1 when out of memory (nothing started: found later)
 */
int  ps_srcline__prefetch(ps_srcline *c, const char *path);

#endif /* PS_SRCLINE_H */
