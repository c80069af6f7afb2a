/* SPDX-License-Identifier: MIT */
/*
 * unwind.h - user-space call chains of `perf record --call-graph dwarf`
 * samples (PERF_SAMPLE_REGS_USER + PERF_SAMPLE_STACK_USER), unwound in
 * process with elfutils libdwfl from the captured registers and stack
 * bytes, giving the addresses perf 6.1's post unwinder (libunwind, on
 * x86-64) gives: the sample's user ip, then each caller's return address
 * minus one (unless the frame is a signal frame).
 *
 * Layer: above machine.c (maps say which ELF file is at an address) and
 * symbols.c (whose --symfs and build-id cache say where that file is;
 * regular files only), below resolve.c, which turns the addresses into
 * frames. Never prints; any failure ends the chain early.
 *
 * Ownership: everything here is owned by the ps_unwinder.
 */
#ifndef PS_UNWIND_H
#define PS_UNWIND_H

#include "machine.h"
#include "symbols.h"

typedef struct ps_unwinder ps_unwinder;

/**
 * @param m      the machine maps are looked up in; Borrowed for the
 *               unwinder's life
 * @param feat   the capture's features (HEADER_ARCH picks the register
 *               table, x86-64 without one, and which processes perf
 *               unwinds; BUILD_ID the DSOs' build-ids); Borrowed likewise,
 *               read lazily
 * @param syms   where files are looked for (--symfs, the build-id cache)
 *               and perf's own [vdso] image (sym_user.c); Borrowed
 *               likewise; NULL: under / only, and no [vdso] CFI
 * @return PS_OK or PS_ENOMEM. Owned: ps_unwinder__free().
 */
int  ps_unwinder__new(ps_unwinder **out, const ps_machine *m, const ps_features *feat,
                      ps_symbols *syms, ps_error *err);
/** Accepts NULL. */
void ps_unwinder__free(ps_unwinder *u);

/** 1 when perf would post-unwind smp: it has user registers and a
 *  non-empty dynamic stack dump. */
int  ps_unwind__wanted(const ps_sample *smp);

/** 1 when perf would post-unwind smp here: ps_unwind__wanted() and an
 *  unwinder for its process (unwind_gate.c), maps as of time t. Notes the
 *  sample as ps_unwinder__note_sample() does. */
int  ps_unwinder__wants(ps_unwinder *u, const ps_sample *smp, uint64_t t);

/**
 * Tell the unwinder a sample is being processed, dwarf or not, in
 * delivery order: without HEADER_ARCH, perf's first one decides which
 * processes it unwinds (see unwind_gate.c). ps_unwinder__user() calls it too.
 */
void ps_unwinder__note_sample(ps_unwinder *u, const ps_sample *smp);

/**
 * Unwind smp's user stack, maps looked up as of time t (UINT64_MAX:
 * "now"). Writes at most max addresses, leaf first: the user ip, then one
 * per caller frame (return address - 1, or as is for signal frames).
 * Zero addresses are dropped, as perf does. A process perf has no
 * unwinder for (see unwind_gate.c) gets none, not even the ip.
 * @return the number of addresses written (0: nothing to unwind)
 */
size_t ps_unwinder__user(ps_unwinder *u, const ps_sample *smp, uint64_t t,
                         uint64_t *ips, size_t max);

#endif /* PS_UNWIND_H */
