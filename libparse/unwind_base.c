/* SPDX-License-Identifier: MIT */
/*
 * unwind_base.c - where perf's libunwind looks a frame's FDE up.
 *
 * perf 6.1 (read_unwind_spec_eh_frame()) does not place a DSO's
 * .eh_frame_hdr table at the load bias of the map the pc is in: it takes
 * the lowest start of all the process's maps of that DSO, less the page of
 * the file's first PT_LOAD vaddr. Where that is not the pc's load bias,
 * the binary search runs at another base: it looks up the file address
 * pc - that base, and the FDE it finds must cover that same address, so
 * the frame is unwound with the row there, or (far more often) with none,
 * and libunwind guesses the caller (unwind_guess.c).
 *
 * When this happens: a forked child keeps a copy of its parent's maps in
 * perf, and an exec adds maps without dropping those; a child that
 * fork()s and exec()s (a shell running a command) still has the parent's
 * mapping of ld.so and libc, usually at lower addresses. Its own are then
 * looked up at the parent's base and miss. (A DSO whose lowest map is
 * not its first segment gives a small shift instead.)
 *
 * A pc whose row libunwind has cached is not looked up at all
 * (unwind_cache.c).
 *
 * Layer: above machine.c (the process's maps) and unwind_cache.c; called
 * by unwind.c and unwind_step.c. Writes only a module's base cache.
 */
#include "unwind_int.h"

/* perf's base for md's DSO in c's process now, cached in md until the
 * process's maps change. @return 0, or -1 when no map of it is found */
static int perf_base(const struct ctx *c, struct module *md, const ps_map *map, uint64_t *out)
{
    const ps_maps *s = ps_machine__user_maps(c->u->m, c->smp->pid, c->smp->tid, c->t);
    size_t n = ps_maps__nr_inserted(s);
    uint64_t lo;

    if (md->base_maps != s || md->base_n != n) {
        lo = ps_maps__lowest_start(s, c->t, map);
        md->base_ok = lo != UINT64_MAX;
        md->base = lo - md->elf_base;
        md->base_maps = s;
        md->base_n = n;
    }
    *out = md->base;
    return md->base_ok ? 0 : -1;
}

int ps_unwind__perf_lookup(const struct ctx *c, struct module *md, uint64_t pc,
                           uint64_t addr, uint64_t *out)
{
    const ps_map *map;
    uint64_t base;

    if (ps_unwind__cache_get(c->luc, pc, out))
        return 1;
    *out = addr;
    if ((map = ps_machine__find_user_map(c->u->m, c->smp->pid, c->smp->tid, c->t, addr)) == NULL ||
        perf_base(c, md, map, &base) < 0 || base == md->bias)
        return 1;
    /* the file address perf looks up, as an address in md (unsigned: a
     * base above addr wraps to an address no FDE covers) */
    *out = addr - base + md->bias;
    return *out >= md->lo && *out < md->hi;
}
