/* SPDX-License-Identifier: MIT */
/*
 * unwind_regs.c - the sample's registers for libdwfl: perf's register
 * numbers per arch, a register's value in a sample, and the registers a
 * walk starts with (libdwfl's set_initial_registers callback).
 *
 * perf numbers the registers per arch (arch/<arch>/include/uapi/asm/
 * perf_regs.h) and packs the ones in the attr's mask in increasing order;
 * the tables below map DWARF register numbers to perf's. A capture
 * without HEADER_ARCH, or with an arch not here, gets x86-64's.
 *
 * Layer: below unwind.c, calls no other unwind file; reads the ctx the
 * driver and unwind_guess.c filled, writes nothing of the unwinder's.
 */
#include <string.h>
#include "unwind_int.h"

static const struct regs_arch regs_arches[] = {
    {
        .name = "x86_64", .nr_dwarf = 17,
        /* rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip(return address) */
        .perf_of_dwarf = { 0, 3, 2, 1, 4, 5, 6, 7,
                           16, 17, 18, 19, 20, 21, 22, 23, 8 },
        .perf_ip = 8, .perf_sp = 7, .pc_is_dwarf = 1,
    },
    {
        .name = "aarch64", .nr_dwarf = 32,
        /* x0..x30, sp: perf's numbers are the same; pc is perf's 32 */
        .perf_of_dwarf = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                           16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29,
                           30, 31 },
        .perf_ip = 32, .perf_sp = 31, .pc_is_dwarf = 0,
    },
};

/* perf_reg_value(): the register's slot among those in the mask. */
int ps_unwind__reg_value(const ps_regs *regs, int idx, uint64_t *out)
{
    uint64_t below;
    unsigned slot;

    if (idx < 0 || idx > 63 || !(regs->mask & (UINT64_C(1) << idx)))
        return -1;
    below = regs->mask & ((UINT64_C(1) << idx) - 1);
    slot = (unsigned)__builtin_popcountll(below);
    if (slot >= regs->nr)
        return -1;
    *out = regs->regs[slot];
    return 0;
}

const struct regs_arch *ps_unwind__capture_arch(const ps_unwinder *u)
{
    size_t i;

    if (u->feat != NULL && u->feat->arch != NULL)
        for (i = 0; i < PS_ARRAY_SIZE(regs_arches); i++)
            if (strcmp(u->feat->arch, regs_arches[i].name) == 0)
                return &regs_arches[i];
    return &regs_arches[0];
}

/* The registers a walk that goes on from a guessed frame's caller starts
 * with (x86-64 only): its pc is the address its FDE is looked up at. */
static bool resume_registers(Dwfl_Thread *thread, const struct ctx *c)
{
    Dwarf_Word pc = c->resume_pc - (c->resume_as_is ? 0 : 1);
    unsigned i;

    for (i = 0; i < 16; i++)
        if ((c->resume_mask & (1u << i)) &&
            !dwfl_thread_state_registers(thread, (int)i, 1, &c->resume_regs[i]))
            return false;
    return dwfl_thread_state_registers(thread, 16, 1, &pc);
}

bool ps_unwind__set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
    const struct ctx *c = ((struct space *)thread_arg)->cur;
    const struct regs_arch *a = c->arch;
    unsigned i;
    uint64_t v;

    if (c->resumed)
        return resume_registers(thread, c);
    for (i = 0; i < a->nr_dwarf; i++) {
        Dwarf_Word w;

        if (ps_unwind__reg_value(&c->smp->regs_user, a->perf_of_dwarf[i], &v) < 0)
            continue;
        w = v;
        if (!dwfl_thread_state_registers(thread, (int)i, 1, &w))
            return false;
    }
    if (!a->pc_is_dwarf) {
        if (ps_unwind__reg_value(&c->smp->regs_user, a->perf_ip, &v) < 0)
            return false;
        dwfl_thread_state_register_pc(thread, v);
    }
    return true;
}
