/* SPDX-License-Identifier: MIT */
/*
 * resolve.h - samples to meaning: the thread a sample belongs to, and each
 * address (the sample ip, every callchain entry) to map, DSO and symbol, the
 * way perf's machine__resolve() and thread__resolve_callchain() do. Every
 * emitter (script, folded, sqlite, json, report) goes through here, so they
 * agree with each other and with perf.
 *
 * Layer: owns one ps_machine and one ps_symbols; fed every record in
 * delivery order (ps_resolver__event), asked about samples as they come.
 *
 * Ownership: frames, threads and strings returned are Borrowed until
 * ps_resolver__free().
 */
#ifndef PS_RESOLVE_H
#define PS_RESOLVE_H

#include "machine.h"
#include "srcline.h"
#include "symbols.h"

typedef struct ps_resolver ps_resolver;

/** One resolved address. */
typedef struct ps_frame {
    uint64_t      ip;           /* as recorded */
    unsigned      cpumode;      /* PERF_RECORD_MISC_* it was looked up in */
    const ps_map *map;          /* NULL: no map covers it */
    ps_resolved   r;            /* dso, sym, rel, symoff */
    const char   *inl;          /* an inlined function's entry (perf prints
                                 * "name+0xoff (inlined)", no dso): its name,
                                 * r.sym the real symbol around it; NULL for
                                 * a real frame */
    const ps_srcloc *src;       /* an entry of an inline expansion (inlined or
                                 * not): its own file:line; NULL otherwise */
} ps_frame;

/**
 * @param feat  Borrowed for the resolver's life (pipe mode fills it later;
 *              that is fine, symbols are loaded lazily)
 * @return PS_OK or PS_ENOMEM. Owned: ps_resolver__free().
 */
int  ps_resolver__new(ps_resolver **out, const ps_symbols_opts *opts,
                      const ps_features *feat, ps_error *err);
void ps_resolver__free(ps_resolver *r);

/** Feed a record (all of them, in delivery order). PS_OK or PS_ENOMEM. */
int  ps_resolver__event(ps_resolver *r, const ps_event *ev, ps_error *err);

/**
 * By default every lookup answers with the state after the records fed so
 * far, as perf does (the `t` arguments below are then ignored). timed = 1
 * answers as of the time given instead, from the machine's history.
 */
void ps_resolver__set_timed(ps_resolver *r, int timed);

const ps_machine *ps_resolver__machine(const ps_resolver *r);
/** The features the resolver was made with (pipe mode: as they came so far). */
const ps_features *ps_resolver__features(const ps_resolver *r);

/**
 * perf's short name of a DSO (what script, report, export-to-sqlite and
 * convert --to-json print): "[...]" names as they are, a JIT map
 * "/tmp/perf-PID.map" as "[JIT] tid PID" (written to buf), files by their
 * last path component. NULL stays NULL.
 */
const char *ps_dso_short_name(const char *dso, char *buf, size_t size);
/**
 * The short name of frame f's DSO: ps_dso_short_name(), but a kernel
 * module's file (in a kernel frame) as perf names the module: "[name]"
 * (written to buf, which takes 64 bytes for any module).
 */
const char *ps_frame_dso_name(const ps_frame *f, char *buf, size_t size);
ps_symbols       *ps_resolver__symbols(ps_resolver *r);

/**
 * The thread perf attributes (pid, tid) to at time t (NULL when the tid was
 * never seen: perf then makes one named ":tid"), and its comm then, written
 * to buf as perf prints it.
 */
const char *ps_resolver__comm(const ps_resolver *r, uint32_t pid, uint32_t tid,
                              uint64_t t, char *buf, size_t size);

/** One address looked up in the given cpumode, as thread__find_symbol(). */
void ps_resolver__addr(ps_resolver *r, uint32_t pid, uint32_t tid, uint64_t t,
                       unsigned cpumode, uint64_t addr, ps_frame *out);
/** The same, then where no map covers it in the cpumode of the address
 * itself (kernel at or above the kernel's start), as thread__find_symbol_fb(). */
void ps_resolver__addr_fb(ps_resolver *r, uint32_t pid, uint32_t tid, uint64_t t,
                          unsigned cpumode, uint64_t addr, ps_frame *out);

/**
 * The callchain of a sample, leaf first, resolved as perf does (context
 * markers switch the cpumode; at most max_stack entries; a chain with an
 * invalid marker is discarded whole; with LBR call stacks, branch_sample_type
 * having PERF_SAMPLE_BRANCH_CALL_STACK, the user part comes from the LBR;
 * with user registers and stack, it is unwound: see unwind.h).
 * Writes at most max frames (ps_resolver__callchain_max() always suffice).
 * @return the number of frames written
 */
size_t ps_resolver__callchain(ps_resolver *r, const ps_sample *smp,
                              uint64_t branch_sample_type, unsigned max_stack,
                              ps_frame *frames, size_t max);

/** How many frames ps_resolver__callchain() may write for smp. */
size_t ps_resolver__callchain_max(const ps_sample *smp, unsigned max_stack);

/** 1 when perf would post-unwind smp's user stack (ps_unwinder__wants()). */
int ps_resolver__unwinds(ps_resolver *r, const ps_sample *smp);

/**
 * Inline expansion, as perf 6.1 does it for DWARF-unwound user frames
 * with a map and a symbol (default on, perf's --inline / --no-inline):
 * such a frame becomes the chain addr2line gives for its address,
 * innermost first; an entry named like the frame's symbol stays a real
 * frame, the others are inlined entries.
 */
void ps_resolver__set_inline(ps_resolver *r, int on);

/**
 * max_stack keeps the outermost entries of a call chain instead of the
 * innermost, as perf does when it walks chains callers first (perf
 * report's callchain order caller: its default with children, -G). The
 * unwound user part of a DWARF sample is still cut from the leaf: perf's
 * unwinder always walks from there.
 */
void ps_resolver__set_stack_outer(ps_resolver *r, int on);

/** Where perf, walking smp's chain callers first with max_stack, starts:
 * *skip real (non-marker) entries at the inner end left out. -1 when that
 * walk meets a bad context marker (perf drops the whole chain). */
int ps_callchain_outer_skip(const ps_sample *smp, unsigned max_stack, uint64_t *skip);

/**
 * ps_resolver__srcline() names the source file by its whole path, as
 * addr2line gives it (perf's --full-source-path), instead of its last
 * component (the default).
 */
void ps_resolver__set_full_srcpath(ps_resolver *r, int on);

/**
 * The call chain as perf prints it: ps_resolver__callchain() with inline
 * expansion. *frames is Borrowed until the next call.
 * @return the number of frames, 0 also when out of memory
 */
size_t ps_resolver__frames(ps_resolver *r, const ps_sample *smp, uint64_t branch_sample_type,
                           unsigned max_stack, const ps_frame **frames);

/**
 * perf's append_inlines() for frame f as if it had a symbol: addr2line's
 * records for its address (*loc, Borrowed) and each one's name as perf
 * shows it (names[i]: demangled, "??" when unknown). perf asks for an
 * unwound frame without a symbol of its own when the DSO holds a zero-size
 * one at that address (db-export makes them, cmd/sqlite_export.c).
 * @return the number of records: 0 when perf would ask nothing, get
 *         nothing, or when there are more than max
 */
size_t ps_resolver__inlines(ps_resolver *r, const ps_frame *f, const ps_srcloc **loc,
                            const char **names, size_t max);

/**
 * perf's srcline of a frame, written to buf: "file:line" (the file's last
 * component) from addr2line, else "DSO[objdump address]" (map__srcline());
 * an entry of an inline expansion gives its own file:line, "??:0" when
 * addr2line knew the function but not the line.
 * @return buf, or NULL when perf prints nothing: no map, or "??:0" for a
 *         frame that is not an inline entry
 */
const char *ps_resolver__srcline(ps_resolver *r, const ps_frame *f, char *buf, size_t size);

/**
 * perf's get_srcline_split() for frame f: addr2line's first record's file
 * (its whole name, Borrowed until the resolver is freed) and line.
 * @return the file, or NULL when addr2line names none ("??")
 */
const char *ps_resolver__srcfile_line(ps_resolver *r, const ps_frame *f, unsigned *line);

/**
 * perf's get_srcline() at rel, an address in f's map (perf report looks a
 * call chain entry up at its recorded address, not the map-relative one):
 * addr2line's "file:line" there, written to buf ("??" for an unknown file,
 * "??:0" when it knew the function but not the line); *objdump the address
 * perf hands addr2line.
 * @return buf, or NULL when addr2line finds nothing (or f has no map):
 *         perf then prints its fallback
 */
const char *ps_resolver__srcline_at(ps_resolver *r, const ps_frame *f, uint64_t rel,
                                    char *buf, size_t size, uint64_t *objdump);

#endif /* PS_RESOLVE_H */
