/* SPDX-License-Identifier: MIT */
/*
 * unwind_guess.c - what a frame's CFI says, and what perf's libunwind
 * does where it says nothing.
 *
 * CFI rows: whether a frame's FDE is a signal frame's, and where it saves
 * the return address (the driver reads that slot to find a return
 * address of 0, which ends libdwfl's chain but is one more frame for
 * libunwind).
 *
 * The guess: in a file whose FDEs miss the pc, libunwind guesses the
 * caller, its own way (a PLT entry's pattern; else rbp, within bounds,
 * the caller's sp the CFA plus 16): on x86-64 ps_unwind__guess_caller()
 * does as it does, and libdwfl goes on from there in a new walk.
 * libunwind's signal trampoline pattern (no FDE) is not modelled:
 * libdwfl's guess stands.
 *
 * Layer: above unwind_mem.c (the words the guess reads); called by
 * unwind.c's frame callback. Writes a ctx's signal, ra_slot and resume_*
 * fields, nothing else.
 */
#include <dwarf.h>
#include "unwind_int.h"

/* The .eh_frame FDE's row for addr in the module libdwfl finds there.
 * @return it (Owned: free()), or NULL when there is none */
static Dwarf_Frame *cfi_row(Dwfl *dwfl, Dwarf_Addr addr)
{
    Dwfl_Module *mod = dwfl_addrmodule(dwfl, addr);
    Dwarf_Frame *frame;
    Dwarf_CFI *cfi;
    Dwarf_Addr bias;

    if (mod == NULL || (cfi = dwfl_module_eh_cfi(mod, &bias)) == NULL ||
        dwarf_cfi_addrframe(cfi, addr - bias, &frame) != 0)
        return NULL;
    return frame;
}

/* Where row says the return address of state's frame is saved, for the
 * usual rules: the CFA a register plus an offset, the return address at
 * an offset from it. @return 0, or -1 for any other rule */
static int ra_slot(Dwfl_Frame *state, Dwarf_Frame *row, int ra, uint64_t *out)
{
    Dwarf_Op mem[3], *ops;
    Dwarf_Word reg;
    size_t nops;
    uint64_t cfa;

    if (dwarf_frame_cfa(row, &ops, &nops) != 0 || nops != 1)
        return -1;
    if (ops[0].atom == DW_OP_bregx)
        cfa = ops[0].number2;
    else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31)
        cfa = ops[0].number;
    else
        return -1;
    if (dwfl_frame_reg(state, ops[0].atom == DW_OP_bregx ? (unsigned)ops[0].number :
                       (unsigned)(ops[0].atom - DW_OP_breg0), &reg) != 0)
        return -1;
    cfa += reg;
    if (ra < 0 || dwarf_frame_register(row, ra, mem, &ops, &nops) != 0 || ops == NULL ||
        nops == 0 || ops[0].atom != DW_OP_call_frame_cfa)
        return -1;
    if (nops == 1)
        *out = cfa;
    else if (nops == 2 && ops[1].atom == DW_OP_plus_uconst)
        *out = cfa + ops[1].number;
    else
        return -1;
    return 0;
}

/* What the FDE row at addr says of state's frame: whether it is a signal
 * frame's, and where the return address is saved (c->has_ra_slot). */
void ps_unwind__note_row(struct ctx *c, Dwfl *dwfl, Dwfl_Frame *state, Dwarf_Addr addr)
{
    Dwarf_Frame *row = cfi_row(dwfl, addr);
    Dwarf_Addr start, end;
    bool signal = false;
    int ra;

    c->has_ra_slot = 0;
    if (row != NULL) {
        ra = dwarf_frame_info(row, &start, &end, &signal);
        c->has_ra_slot = ra_slot(state, row, ra, &c->ra_slot) == 0;
        free(row);
    }
    c->signal = signal;
}

/* x86-64's DWARF numbers for the registers libunwind's guesses use */
enum { X86_RBP = 6, X86_RSP = 7, X86_NR_GPR = 16 };

/* libunwind's bound on how far above the CFA a frame pointer it follows
 * may be */
#define FP_GUESS_MAX 0x4000

/* 1 when the module at addr has an FDE for it. */
int ps_unwind__has_fde(Dwfl *dwfl, Dwarf_Addr addr)
{
    Dwarf_Frame *row = cfi_row(dwfl, addr);
    int found = row != NULL;

    free(row);
    return found;
}

/* libunwind's x86-64 code patterns, read as two words at a frame's pc:
 * rt_sigreturn's trampoline (mov $15,%rax; syscall) and a lazy PLT entry
 * (jmp *GOT(%rip); push $n; jmp PLT0). */
static int is_sigreturn(uint64_t w0, uint64_t w1)
{
    return w0 == UINT64_C(0x0f0000000fc0c748) && (w1 & 0xff) == 0x05;
}

static int is_plt_entry(uint64_t w0, uint64_t w1)
{
    return (w0 & 0xffff) == 0x25ff && ((w0 >> 48) & 0xff) == 0x68 &&
           ((w1 >> 24) & 0xff) == 0xe9;
}

/*
 * The caller of an x86-64 frame whose file has CFI but no FDE for its pc,
 * guessed as libunwind 1.6 does (unw_step() once dwarf_step() finds no
 * FDE), where libdwfl's guess (x86_64_unwind()) differs. "cfa" is
 * libunwind's: the sample's sp for the first frame, else the CFA of the
 * last step, which is this frame's sp (state's, or the one resumed from).
 *  - A PLT entry: the return address is at cfa, cfa grows by 8; the other
 *    registers stay as they are, and so does the way the caller's FDE is
 *    looked up (as is for the first frame).
 *  - Else rbp is a frame pointer if it is not 0, readable, at or above
 *    cfa and at most FP_GUESS_MAX above it: the return address is at
 *    rbp + 8, the caller's rbp at rbp; cfa grows by 16 (rbp + 16 for
 *    libdwfl); every other register is unknown. Otherwise the chain ends.
 * The next walk then starts from the caller (c->resume_*): libdwfl has
 * no way to go on from a frame of its own making.
 * @return 1 with the caller there, 0 when the chain ends at this frame,
 * -1 for a signal trampoline (not modelled: libdwfl's guess stands)
 */
int ps_unwind__guess_caller(struct ctx *c, Dwfl_Frame *state, uint64_t pc, int as_is)
{
    Dwarf_Word cfa, rbp, v;
    uint64_t w0, w1, rbp1, ra;
    int plt = 0;
    unsigned i;

    if (ps_unwind__read_word(c, pc, &w0) == 0 && ps_unwind__read_word(c, pc + 8, &w1) == 0) {
        if (is_sigreturn(w0, w1))
            return -1;
        plt = is_plt_entry(w0, w1);
    }
    if (dwfl_frame_reg(state, X86_RSP, &cfa) != 0)
        return 0;
    c->resume_mask = 0;
    if (plt) {
        if (ps_unwind__read_word(c, cfa, &ra) < 0)
            return 0;
        for (i = 0; i < X86_NR_GPR; i++) {
            if (i != X86_RSP && dwfl_frame_reg(state, i, &v) == 0) {
                c->resume_regs[i] = v;
                c->resume_mask |= 1u << i;
            }
        }
        c->resume_regs[X86_RSP] = cfa + 8;
        c->resume_as_is = as_is;
    } else {
        if (dwfl_frame_reg(state, X86_RBP, &rbp) != 0 || rbp == 0 ||
            ps_unwind__read_word(c, rbp, &rbp1) < 0 || rbp < cfa || rbp - cfa > FP_GUESS_MAX ||
            ps_unwind__read_word(c, rbp + 8, &ra) < 0)
            return 0;
        c->resume_regs[X86_RBP] = rbp1;
        c->resume_mask |= 1u << X86_RBP;
        c->resume_regs[X86_RSP] = cfa + 16;
        c->resume_as_is = 0;
    }
    c->resume_mask |= 1u << X86_RSP;
    c->resume_pc = ra;
    return 1;
}
