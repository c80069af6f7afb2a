/* SPDX-License-Identifier: MIT */
/*
 * unwind_step.c - the fast walk: an x86-64 user stack unwound with the
 * CFI rows libdw reads, each read once per process and address and kept,
 * applied here instead of by libdwfl's frame walk (which looks the FDE
 * up, runs its CIE and FDE programs and allocates a row for every frame
 * of every sample, and again for unwind.c's own questions).
 *
 * The result must be the one unwind.c's libdwfl walk gives, frame for
 * frame (addresses, activation flags, the last row's return-address slot,
 * the walk's return code), but for one register: an rbx the CFI leaves
 * unspecified is the callee's, as for libunwind, not undefined (see
 * read_row()). So this file does what libdwfl 0.188 does
 * (facts from its handle_cfi(), expr_eval(), dwfl_frame_pc() and
 * dwfl_thread_getframes(), no code) with the answers of the same libdw
 * calls (dwarf_cfi_addrframe(), dwarf_frame_cfa(), dwarf_frame_register()
 * on the module's .eh_frame), and what unwind.c's frame_cb() does with
 * them. Anything it does not model makes the walk give up (-1), and the
 * caller unwinds the sample the libdwfl way from the start:
 *  - a pc without an .eh_frame FDE (libunwind's guess, unwind_guess.c),
 *    or one perf looks up where it finds none (unwind_base.c);
 *  - rules or expressions beyond the common ones (PLT CFA expressions,
 *    DW_OP_bra ...), a return address column other than rip's;
 *  - a pc in no file map, or in one that changed (unwind_space.c's
 *    whole-stack scan decides what libdwfl knows then).
 *
 * Rows: per space, by lookup address (pc, or pc - 1), in a table dropped
 * whenever the space's modules change (struct space's gen). Each is read
 * whole (struct cfi_row) and kept as what the walk reads of it on every
 * frame (struct row: a few cache lines, where the whole row's 1.5 KB made
 * its first load the walk's costliest instruction); the whole one is kept
 * beside it only when a rule needs the stack machine (REG_EXPR).
 *
 * Layer: above unwind_space.c (modules, reported here per frame pc) and
 * unwind_mem.c (memory as perf reads it); called by unwind.c. Owns each
 * space's row table (ps_unwind__rows_free()).
 */
#include <dwarf.h>
#include <gelf.h>
#include "u64map.h"
#include "unwind_int.h"

enum { X86_NR_REGS = 17, X86_RA = 16, X86_RBX = 3 };  /* libdwfl's frame registers; rip */
#define MAX_OPS 3                           /* dwarf_frame_register()'s own forms */

/* What a lookup address gives. */
enum { ROW_OK, ROW_STOP, ROW_SLOW };

/* A register's rule as handle_cfi() reads dwarf_frame_register(); the
 * usual expressions are pre-read: the register saved at CFA + off
 * (DW_OP_call_frame_cfa [DW_OP_plus_uconst off]), or its value CFA + off
 * (the same and DW_OP_stack_value), the CFA a register plus an offset. */
enum { REG_ERROR, REG_UNDEFINED, REG_SAME, REG_EXPR, REG_AT_CFA, REG_VAL_CFA };

struct step_op {
    uint8_t  atom;
    uint64_t number, number2;
};

/* A row as libdw gives it, the rules pre-read (simplify()). */
struct cfi_row {
    uint8_t        kind;        /* ROW_* */
    uint8_t        signal;      /* the FDE's CIE is a signal frame's */
    uint8_t        cfa_ok;      /* dwarf_frame_cfa() answered */
    uint8_t        nr_cfa;
    uint8_t        cfa_simple;  /* the CFA is register cfa_reg plus cfa_off */
    uint64_t       cfa_reg, cfa_off;
    struct step_op cfa[MAX_OPS];
    uint8_t        reg_kind[X86_NR_REGS];
    uint8_t        nr_ops[X86_NR_REGS];
    uint64_t       reg_off[X86_NR_REGS];   /* REG_AT_CFA, REG_VAL_CFA */
    uint8_t        ra_undefined;            /* rip's rule is "undefined" */
    uint32_t       same;                    /* the REG_SAME registers */
    uint8_t        nr_computed;             /* the others with a value rule */
    uint8_t        computed[X86_NR_REGS];
    struct step_op ops[X86_NR_REGS][MAX_OPS];
};

/* A register with a value rule, as step() applies it. */
struct rule {
    uint8_t  reg;
    uint8_t  kind;              /* REG_AT_CFA, REG_VAL_CFA, REG_EXPR */
    uint64_t off;               /* REG_AT_CFA, REG_VAL_CFA */
};

#define NO_FULL UINT32_MAX

/* What the walk reads of a cfi_row, its hot fields first. */
struct row {
    uint8_t     kind, signal, cfa_simple, ra_undefined;   /* as in cfi_row */
    uint8_t     ra_slot_ok;     /* row_ra_slot() finds the return address slot */
    uint8_t     nr_computed;
    uint32_t    same;
    uint32_t    full;           /* index of the whole row in rows.full, or NO_FULL */
    uint32_t    ra_slot_reg;    /* the slot is that register plus ra_slot_off */
    uint64_t    cfa_reg, cfa_off, ra_slot_off;
    struct rule computed[X86_NR_REGS];
};

struct rows {
    uint64_t        gen;        /* the space's gen the rows were read at */
    ps_u64map       by_addr;    /* lookup address -> index in v */
    struct row     *v;          /* owned */
    size_t          nr, cap;
    struct cfi_row *full;       /* owned: the rows with REG_EXPR rules */
    size_t          nr_full, cap_full;
};

/* One frame's registers, as a Dwfl_Frame holds them. */
struct regs {
    uint64_t r[X86_NR_REGS];
    uint32_t set;
    uint64_t pc;
    int      pc_set;            /* else the pc is undefined: the end */
    int      initial, signal_frame;
};

/* 1 when expr_eval() below knows op (as libdwfl does). */
static int op_supported(uint8_t atom)
{
    return (atom >= DW_OP_lit0 && atom <= DW_OP_lit31) ||
           (atom >= DW_OP_breg0 && atom <= DW_OP_breg31) ||
           (atom >= DW_OP_reg0 && atom <= DW_OP_reg31) ||
           atom == DW_OP_bregx || atom == DW_OP_regx || atom == DW_OP_const1u ||
           atom == DW_OP_const1s || atom == DW_OP_const2u || atom == DW_OP_const2s ||
           atom == DW_OP_const4u || atom == DW_OP_const4s || atom == DW_OP_const8u ||
           atom == DW_OP_const8s || atom == DW_OP_constu || atom == DW_OP_consts ||
           atom == DW_OP_plus_uconst || atom == DW_OP_plus || atom == DW_OP_minus ||
           atom == DW_OP_deref || atom == DW_OP_call_frame_cfa ||
           atom == DW_OP_stack_value || atom == DW_OP_nop;
}

/* Copy nops ops into out. @return 0, or -1 when they are not modelled */
static int copy_ops(struct step_op *out, uint8_t *nr, const Dwarf_Op *ops, size_t nops)
{
    size_t i;

    if (nops > MAX_OPS)
        return -1;
    for (i = 0; i < nops; i++) {
        if (!op_supported(ops[i].atom))
            return -1;
        out[i].atom = ops[i].atom;
        out[i].number = ops[i].number;
        out[i].number2 = ops[i].number2;
    }
    *nr = (uint8_t)nops;
    return 0;
}

/* 1 when the module libdwfl finds at addr is an x86-64 ELF (its ebl's
 * register set is the one modelled). */
static int is_x86_64(Dwfl_Module *mod)
{
    GElf_Addr bias;
    Elf *elf = dwfl_module_getelf(mod, &bias);
    GElf_Ehdr eh;

    return elf != NULL && gelf_getclass(elf) == ELFCLASS64 && gelf_getehdr(elf, &eh) != NULL &&
           eh.e_machine == EM_X86_64;
}

/* Pre-read the usual forms of r's rules (see REG_AT_CFA): evaluated
 * without the stack machine, to the same values and memory reads. */
static void simplify(struct cfi_row *r)
{
    const struct step_op *c = r->cfa;
    unsigned i;

    if (!r->cfa_ok || r->nr_cfa != 1)
        return;
    if (c->atom == DW_OP_bregx) {
        r->cfa_reg = c->number;
        r->cfa_off = c->number2;
    } else if (c->atom >= DW_OP_breg0 && c->atom <= DW_OP_breg31) {
        r->cfa_reg = c->atom - DW_OP_breg0;
        r->cfa_off = c->number;
    } else {
        return;
    }
    r->cfa_simple = 1;
    for (i = 0; i < X86_NR_REGS; i++) {
        const struct step_op *o = r->ops[i];
        size_t n = r->nr_ops[i];
        uint64_t off = 0;
        int val = 0;

        if (r->reg_kind[i] != REG_EXPR || o[0].atom != DW_OP_call_frame_cfa)
            continue;
        if (n >= 2 && o[1].atom == DW_OP_plus_uconst) {
            off = o[1].number;
            o++;
            n--;
        }
        if (n == 2 && o[1].atom == DW_OP_stack_value) {
            val = 1;
            n--;
        }
        if (n != 1)
            continue;
        r->reg_kind[i] = val ? REG_VAL_CFA : REG_AT_CFA;
        r->reg_off[i] = off;
    }
}

/* The row handle_cfi() would use at addr, read into r. */
static void read_row(struct space *sp, uint64_t addr, struct cfi_row *r)
{
    const struct module *md = ps_unwind__mod_at(sp, addr);
    Dwfl_Module *mod;
    Dwarf_Frame *frame;
    Dwarf_CFI *cfi;
    Dwarf_Addr bias, start, end;
    Dwarf_Op mem[3], *ops;
    size_t nops;
    bool signal = false;
    int ra;
    unsigned i;

    memset(r, 0, sizeof(*r));
    r->kind = ROW_SLOW;
    if (md == NULL || !md->eh_frame_hdr) {
        r->kind = ROW_STOP;
        return;
    }
    if ((mod = dwfl_addrmodule(sp->dwfl, addr)) == NULL || !is_x86_64(mod) ||
        (cfi = dwfl_module_eh_cfi(mod, &bias)) == NULL ||
        dwarf_cfi_addrframe(cfi, addr - bias, &frame) != 0)
        return;
    ra = dwarf_frame_info(frame, &start, &end, &signal);
    r->signal = signal;
    if (ra != X86_RA)
        goto out;
    if (dwarf_frame_cfa(frame, &ops, &nops) == 0) {
        if (copy_ops(r->cfa, &r->nr_cfa, ops, nops) < 0)
            goto out;
        r->cfa_ok = 1;
    }
    for (i = 0; i < X86_NR_REGS; i++) {
        if (dwarf_frame_register(frame, (int)i, mem, &ops, &nops) != 0) {
            r->reg_kind[i] = REG_ERROR;
        } else if (nops == 0) {
            r->reg_kind[i] = ops == mem ? REG_UNDEFINED : ops == NULL ? REG_SAME : REG_ERROR;
        } else {
            if (copy_ops(r->ops[i], &r->nr_ops[i], ops, nops) < 0)
                goto out;
            r->reg_kind[i] = REG_EXPR;
        }
    }
    /* libunwind starts every register as "same value"; libdw starts them
     * from elfutils' x86-64 ABI CFI, which names DWARF register 0 (rax)
     * where it means rbx (3): an rbx the CFI does not mention is undefined
     * there, and a caller whose CFA is rbx-based (ld.so's lazy-binding
     * trampolines) would end the chain. Kept as libunwind keeps it. */
    if (r->reg_kind[X86_RBX] == REG_UNDEFINED)
        r->reg_kind[X86_RBX] = REG_SAME;
    r->kind = ROW_OK;
    simplify(r);
    for (i = 0; i < X86_NR_REGS; i++) {
        if (r->reg_kind[i] == REG_SAME)
            r->same |= 1u << i;
        else if (r->reg_kind[i] != REG_ERROR && r->reg_kind[i] != REG_UNDEFINED)
            r->computed[r->nr_computed++] = (uint8_t)i;
    }
    r->ra_undefined = r->reg_kind[X86_RA] == REG_UNDEFINED;
out:
    free(frame);
}

/* Where f says the return address of the frame is saved, for the usual
 * rules (unwind_guess.c's ra_slot()): the CFA a register plus an offset,
 * the return address at an offset from it; the register number taken as
 * an unsigned, as dwfl_frame_reg() takes it. */
static void ra_slot_rule(const struct cfi_row *f, struct row *r)
{
    const struct step_op *ra = f->ops[X86_RA];

    if (!f->cfa_ok || f->nr_cfa != 1 || !f->cfa_simple || f->nr_ops[X86_RA] == 0 ||
        ra[0].atom != DW_OP_call_frame_cfa)
        return;
    r->ra_slot_reg = (uint32_t)f->cfa_reg;
    r->ra_slot_off = f->cfa_off;
    if (f->nr_ops[X86_RA] == 2 && ra[1].atom == DW_OP_plus_uconst)
        r->ra_slot_off += ra[1].number;
    else if (f->nr_ops[X86_RA] != 1)
        return;
    r->ra_slot_ok = 1;
}

/* f as the walk reads it, into r; f kept in t->full when a rule needs it.
 * @return 0, or -1 out of memory */
static int compact(struct rows *t, const struct cfi_row *f, struct row *r)
{
    unsigned k;

    memset(r, 0, sizeof(*r));
    r->kind = f->kind;
    r->signal = f->signal;
    r->cfa_simple = f->cfa_simple;
    r->ra_undefined = f->ra_undefined;
    r->same = f->same;
    r->cfa_reg = f->cfa_reg;
    r->cfa_off = f->cfa_off;
    r->full = NO_FULL;
    r->nr_computed = f->nr_computed;
    ra_slot_rule(f, r);
    for (k = 0; k < f->nr_computed; k++) {
        unsigned i = f->computed[k];

        r->computed[k].reg = (uint8_t)i;
        r->computed[k].kind = f->reg_kind[i];
        r->computed[k].off = f->reg_off[i];
        if (f->reg_kind[i] == REG_EXPR && r->full == NO_FULL) {
            if (t->nr_full >= NO_FULL ||
                ps_grow((void **)&t->full, &t->cap_full, t->nr_full + 1, sizeof(*t->full)) < 0)
                return -1;
            t->full[t->nr_full] = *f;
            r->full = (uint32_t)t->nr_full++;
        }
    }
    return 0;
}

/* The row at addr, read once per gen. @return it, or NULL out of memory */
static const struct row *row_at(struct space *sp, uint64_t addr)
{
    struct rows *t = sp->rows;
    struct cfi_row f;
    uint64_t *hit;

    if (t == NULL) {
        if ((t = calloc(1, sizeof(*t))) == NULL)
            return NULL;
        ps_u64map__init(&t->by_addr);
        t->gen = sp->gen;
        sp->rows = t;
    }
    if (t->gen != sp->gen) {
        ps_u64map__free(&t->by_addr);
        ps_u64map__init(&t->by_addr);
        t->nr = 0;
        t->nr_full = 0;
        t->gen = sp->gen;
    }
    if ((hit = ps_u64map__get(&t->by_addr, addr)) != NULL)
        return &t->v[*hit];
    if (ps_grow((void **)&t->v, &t->cap, t->nr + 1, sizeof(*t->v)) < 0)
        return NULL;
    read_row(sp, addr, &f);
    if (compact(t, &f, &t->v[t->nr]) < 0 || ps_u64map__put(&t->by_addr, addr, t->nr) < 0)
        return NULL;
    return &t->v[t->nr++];
}

void ps_unwind__rows_free(struct space *sp)
{
    if (sp->rows != NULL) {
        ps_u64map__free(&sp->rows->by_addr);
        free(sp->rows->v);
        free(sp->rows->full);
        free(sp->rows);
        sp->rows = NULL;
    }
}

/* The address whose row perf's libunwind unwinds addr's frame with
 * (unwind_base.c): addr itself, or another where its table base is off.
 * @return it, or 0 where its lookup misses (libunwind guesses: the
 * libdwfl walk's frame_cb() does that) */
static uint64_t lookup_addr(struct space *sp, const struct ctx *c, uint64_t pc, uint64_t addr)
{
    struct module *md = ps_unwind__mod_at(sp, addr);
    uint64_t look;

    if (md == NULL || md->failed || !md->eh_frame_hdr)
        return addr;            /* row_at() says ROW_STOP */
    return ps_unwind__perf_lookup(c, md, pc, addr, &look) && look != 0 ? look : 0;
}

/* dwfl_frame_reg(): 0 with the value, else the register is unknown. */
static int reg_get(const struct regs *s, uint64_t regno, uint64_t *out)
{
    if (regno >= X86_NR_REGS || !(s->set & (1u << regno)))
        return -1;
    *out = s->r[regno];
    return 0;
}

/* libdwfl's memory_read callback (ps_unwind__memory_read()); the stack
 * dump's words, by far the most read, without the call. */
static int mem_read(struct ctx *c, uint64_t addr, uint64_t *out)
{
    if (addr >= c->sp && addr + 8 > addr && addr + 8 < c->stack_end)
        memcpy(out, c->smp->stack_data + (addr - c->sp), sizeof(*out));
    else if (ps_unwind__read_word(c, addr, out) < 0)
        return -1;
    c->nr_zero += *out == 0;
    return 0;
}

/* expr_eval() for the ops op_supported() lets in: a stack machine whose
 * result is read from memory when DW_OP_call_frame_cfa made it a
 * location. row NULL: the CFA itself is being computed (no CFA inside).
 * @return 0 with *out, -1 when libdwfl's evaluation fails */
static int eval(struct ctx *c, const struct regs *s, const struct cfi_row *row,
                const struct step_op *ops, size_t nops, uint64_t *out)
{
    uint64_t st[2 * MAX_OPS + 2], a, b;
    size_t n = 0, i;
    int is_location = 0;

    if (nops == 0)
        return -1;
    for (i = 0; i < nops; i++) {
        const struct step_op *op = &ops[i];
        uint8_t at = op->atom;

        if (at >= DW_OP_lit0 && at <= DW_OP_lit31) {
            st[n++] = at - DW_OP_lit0;
        } else if (at >= DW_OP_reg0 && at <= DW_OP_reg31) {
            if (reg_get(s, at - DW_OP_reg0, &a) < 0)
                return -1;
            st[n++] = a;
        } else if (at >= DW_OP_breg0 && at <= DW_OP_breg31) {
            if (reg_get(s, at - DW_OP_breg0, &a) < 0)
                return -1;
            st[n++] = a + op->number;
        } else {
            switch (at) {
            case DW_OP_regx:
                if (reg_get(s, op->number, &a) < 0)
                    return -1;
                st[n++] = a;
                break;
            case DW_OP_bregx:
                if (reg_get(s, op->number, &a) < 0)
                    return -1;
                st[n++] = a + op->number2;
                break;
            case DW_OP_plus_uconst:
                if (n == 0)
                    return -1;
                st[n - 1] += op->number;
                break;
            case DW_OP_plus:
            case DW_OP_minus:
                if (n < 2)
                    return -1;
                b = st[--n];
                a = st[--n];
                st[n++] = at == DW_OP_plus ? a + b : a - b;
                break;
            case DW_OP_deref:
                if (n == 0 || mem_read(c, st[n - 1], &st[n - 1]) < 0)
                    return -1;
                break;
            case DW_OP_call_frame_cfa:
                if (row == NULL || !row->cfa_ok ||
                    eval(c, s, NULL, row->cfa, row->nr_cfa, &a) < 0)
                    return -1;
                st[n++] = a;
                is_location = 1;
                break;
            case DW_OP_stack_value:
                is_location = 0;
                break;
            case DW_OP_nop:
                break;
            default:            /* DW_OP_const* */
                st[n++] = op->number;
                break;
            }
        }
    }
    if (n == 0)
        return -1;
    *out = st[n - 1];
    return is_location ? mem_read(c, *out, out) : 0;
}

/* handle_cfi(): the caller's registers from s and row (ROW_OK). Each
 * rule reads s only, so the order they are applied in does not matter:
 * the "same value" ones are copied at once. Registers without a value
 * rule stay unset (undefined, or an error handle_cfi() skips). */
static void step(struct ctx *c, const struct rows *t, const struct regs *s,
                 const struct row *row, struct regs *u)
{
    int cfa_known = 0;
    uint64_t cfa = 0;
    unsigned k;

    memcpy(u->r, s->r, sizeof(u->r));
    u->set = s->set & row->same;
    u->pc_set = 0;
    u->initial = 0;
    u->signal_frame = row->signal;
    if (row->cfa_simple && reg_get(s, row->cfa_reg, &cfa) == 0) {
        cfa += row->cfa_off;
        cfa_known = 1;
    }
    for (k = 0; k < row->nr_computed; k++) {
        const struct rule *ru = &row->computed[k];
        const struct cfi_row *f;
        unsigned i = ru->reg;
        uint64_t v;

        switch (ru->kind) {
        case REG_AT_CFA:
            if (!cfa_known || mem_read(c, cfa + ru->off, &v) < 0)
                continue;
            break;
        case REG_VAL_CFA:
            if (!cfa_known)
                continue;
            v = cfa + ru->off;
            break;
        default:                /* REG_EXPR: compact() kept the whole row */
            f = &t->full[row->full];
            if (eval(c, s, f, f->ops[i], f->nr_ops[i], &v) < 0)
                continue;
            break;
        }
        u->r[i] = v;
        u->set |= 1u << i;
    }
    if (!row->ra_undefined && reg_get(u, X86_RA, &u->pc) == 0 && u->pc != 0)
        u->pc_set = 1;
}

/* unwind_guess.c's ra_slot() on a cached row (ra_slot_rule()). */
static int row_ra_slot(const struct regs *s, const struct row *row, uint64_t *out)
{
    uint64_t reg;

    if (!row->ra_slot_ok || reg_get(s, row->ra_slot_reg, &reg) < 0)
        return -1;
    *out = reg + row->ra_slot_off;
    return 0;
}

/* The first frame's registers (set_initial_registers, then the pc from
 * rip as state_fetch_pc() takes it). @return 0, or -1 without rip */
static int initial_regs(const struct ctx *c, struct regs *s)
{
    const ps_regs *regs = &c->smp->regs_user;
    const struct regs_arch *a = c->arch;
    uint64_t by_perf[64], have = 0, mask = regs->mask;
    unsigned i, slot;

    /* ps_unwind__reg_value() for all of them in one pass over the mask */
    for (slot = 0; mask != 0 && slot < regs->nr; slot++, mask &= mask - 1) {
        i = (unsigned)__builtin_ctzll(mask);
        by_perf[i] = regs->regs[slot];
        have |= UINT64_C(1) << i;
    }
    memset(s, 0, sizeof(*s));
    for (i = 0; i < X86_NR_REGS; i++) {
        int p = a->perf_of_dwarf[i];

        if (p < 0 || !(have & (UINT64_C(1) << p)))
            continue;
        s->r[i] = by_perf[p];
        s->set |= 1u << i;
    }
    if (!(s->set & (1u << X86_RA)))
        return -1;
    s->pc = s->r[X86_RA];
    s->pc_set = 1;
    s->initial = 1;
    return 0;
}

/*
 * Walk c's sample as dwfl_getthread_frames() with unwind.c's frame_cb()
 * would, leaving c's frames, signal and ra slot as they leave them.
 * @return the walk's return code (0: the pc became undefined; 1: the
 * callback stopped it), or -1 when the sample must be walked by libdwfl
 * (c then holds garbage: the caller starts over)
 */
int ps_unwind__step_walk(ps_unwinder *u, struct space *sp, struct ctx *c)
{
    struct regs regs[2], *cur = &regs[0], *next = &regs[1], *t;
    struct recent_maps recent;

    if (c->arch->nr_dwarf != X86_NR_REGS || !c->arch->pc_is_dwarf || initial_regs(c, cur) < 0)
        return -1;
    memset(&recent, 0, sizeof(recent));
    for (;;) {
        int callee_signal = c->nr == 0 || c->signal, act;
        uint64_t nr_zero = c->nr_zero, addr = callee_signal ? cur->pc : cur->pc - 1, look;
        const struct row *row;

        c->pcs[c->nr] = cur->pc;
        c->has_ra_slot = 0;
        if (ps_unwind__report_addr(u, sp, c, addr, &recent) < 0 ||
            (look = lookup_addr(sp, c, cur->pc, addr)) == 0 ||
            (row = row_at(sp, look)) == NULL || row->kind == ROW_SLOW)
            return -1;
        if (row->kind == ROW_OK)
            ps_unwind__cache_put(c->luc, cur->pc, look);
        if (row->kind == ROW_STOP) {
            c->act[c->nr++] = (uint8_t)callee_signal;
            return 1;
        }
        /* libdwfl looks the row up at the same address */
        if ((cur->initial || cur->signal_frame) != callee_signal)
            return -1;
        step(c, sp->rows, cur, row, next);
        act = cur->initial || cur->signal_frame || (next->pc_set && next->signal_frame);
        if (callee_signal || c->nr_zero != nr_zero) {
            c->signal = row->signal;
            c->has_ra_slot = row_ra_slot(cur, row, &c->ra_slot) == 0;
        } else {
            c->signal = act;
        }
        c->act[c->nr] = (uint8_t)act;
        if (++c->nr >= c->max)
            return 1;
        if (!next->pc_set)
            return 0;
        t = cur;
        cur = next;
        next = t;
    }
}
