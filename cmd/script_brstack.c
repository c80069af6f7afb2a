/* SPDX-License-Identifier: MIT */
/*
 * script_brstack.c - `perfsift script -F brstack,brstacksym`: a sample's
 * branch stack (PERF_SAMPLE_BRANCH_STACK) as perf 6.1 prints it
 * (perf_sample__fprintf_brstack{,sym} and print_bstack_flags: facts, not
 * code). Each end of a branch is looked up as thread__find_map_fb() and
 * thread__find_symbol_fb() do (the sample's cpumode, then the address's
 * own); the flags are the kernel's perf_branch_entry bits.
 */
#include "script_brstack.h"

/* perf_branch_entry's bit fields (spec 8.6) */
#define BR_MISPRED(f)   ((f) & 1)
#define BR_PREDICTED(f) (((f) >> 1) & 1)
#define BR_IN_TX(f)     (((f) >> 2) & 1)
#define BR_ABORT(f)     (((f) >> 3) & 1)
#define BR_CYCLES(f)    (((f) >> 4) & 0xffff)
#define BR_TYPE(f)      (((f) >> 20) & 0xf)
#define BR_NEW_TYPE(f)  (((f) >> 26) & 0xf)

enum { BR_UNKNOWN = 0, BR_EXTEND_ABI = 15 };

/* perf's get_branch_type(): branch_type_name(), or for PERF_BR_EXTEND_ABI
 * branch_new_type_name(); "" for an unknown type. */
static const char *type_name(uint64_t flags)
{
    static const char *const types[] = {
        "", "COND", "UNCOND", "IND", "CALL", "IND_CALL", "RET", "SYSCALL", "SYSRET",
        "COND_CALL", "COND_RET", "ERET", "IRQ", "SERROR", "NO_TX", "",
    };
    static const char *const new_types[] = {
        "FAULT_ALGN", "FAULT_DATA", "FAULT_INST", "ARCH_1", "ARCH_2", "ARCH_3", "ARCH_4",
        "ARCH_5",
    };
    unsigned t = (unsigned)BR_TYPE(flags), n = (unsigned)BR_NEW_TYPE(flags);

    if (t != BR_EXTEND_ABI)
        return types[t];
    return n < sizeof(new_types) / sizeof(new_types[0]) ? new_types[n] : "(null)";
}

/* "/M|P|-/X|-/A|-/cycles/type " */
static void flags_text(linebuf *lb, uint64_t f)
{
    lb_putc(lb, '/');
    lb_putc(lb, !(BR_MISPRED(f) || BR_PREDICTED(f)) ? '-' : BR_PREDICTED(f) ? 'P' : 'M');
    lb_putc(lb, '/');
    lb_putc(lb, BR_IN_TX(f) ? 'X' : '-');
    lb_putc(lb, '/');
    lb_putc(lb, BR_ABORT(f) ? 'A' : '-');
    lb_putc(lb, '/');
    lb_u64(lb, BR_CYCLES(f), 0);
    lb_putc(lb, '/');
    lb_puts(lb, type_name(f));
    lb_putc(lb, ' ');
}

/* One end: "0x..." or "sym+0xoff" / "[unknown]", then "(dso)". */
static void end_text(linebuf *lb, const ps_frame *f, uint64_t addr, int syms, int dso)
{
    if (!syms) {
        lb_mem(lb, "0x", 2);
        lb_hex(lb, addr, 0);
    } else if (f->r.sym == NULL) {
        lb_mem(lb, "[unknown]", 9);
    } else {
        lb_puts(lb, f->r.sym->name);
        lb_mem(lb, "+0x", 3);
        lb_hex(lb, f->r.symoff, 0);
    }
    if (dso) {
        lb_putc(lb, '(');
        lb_puts(lb, f->map != NULL ? f->r.dso : "[unknown]");
        lb_putc(lb, ')');
    }
}

void script_brstack_print(linebuf *lb, ps_resolver *res, const ps_sample *smp,
                          unsigned cpumode, int syms, int dso)
{
    ps_frame from, to;
    uint64_t i;

    for (i = 0; i < smp->nr_branches && smp->branches != NULL; i++) {
        const ps_branch_entry *b = &smp->branches[i];

        if (syms || dso) {
            ps_resolver__addr_fb(res, smp->pid, smp->tid, smp->time, cpumode, b->from, &from);
            ps_resolver__addr_fb(res, smp->pid, smp->tid, smp->time, cpumode, b->to, &to);
        }
        if (!syms)
            lb_putc(lb, ' ');
        end_text(lb, &from, b->from, syms, dso);
        lb_putc(lb, '/');
        end_text(lb, &to, b->to, syms, dso);
        flags_text(lb, b->flags);
    }
}
