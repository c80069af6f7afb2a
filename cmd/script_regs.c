/* SPDX-License-Identifier: MIT */
/*
 * script_regs.c - `perfsift script -F iregs,uregs`: a sample's registers
 * (PERF_SAMPLE_REGS_INTR, PERF_SAMPLE_REGS_USER) as perf 6.1 prints them,
 * with its register names per arch (perf_reg_name(): the uapi
 * perf_regs.h numbering). Arches perf 6.1 names that are not here (arm,
 * powerpc, riscv, s390, ...) print "unknown" for every register; so does
 * perf for a number it has no name for.
 */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include "script_regs.h"

/* arch/x86/include/uapi/asm/perf_regs.h: AX..GS, R8..R15 (64-bit), then
 * XMM0..XMM15 from 32, two slots each, both named after the register. */
static const char *x86_name(unsigned r)
{
    static const char *const gpr[] = {
        "AX", "BX", "CX", "DX", "SI", "DI", "BP", "SP", "IP", "FLAGS", "CS", "SS",
        "DS", "ES", "FS", "GS", "R8", "R9", "R10", "R11", "R12", "R13", "R14", "R15",
    };
    static const char *const xmm[] = {
        "XMM0", "XMM1", "XMM2", "XMM3", "XMM4", "XMM5", "XMM6", "XMM7", "XMM8",
        "XMM9", "XMM10", "XMM11", "XMM12", "XMM13", "XMM14", "XMM15",
    };

    if (r < sizeof(gpr) / sizeof(gpr[0]))
        return gpr[r];
    if (r >= 32 && r < 64)
        return xmm[(r - 32) / 2];
    return NULL;
}

/* arch/arm64/include/uapi/asm/perf_regs.h: x0..x29, lr, sp, pc; vg 46. */
static const char *arm64_name(unsigned r)
{
    static const char *const x[] = {
        "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11",
        "x12", "x13", "x14", "x15", "x16", "x17", "x18", "x19", "x20", "x21", "x22",
        "x23", "x24", "x25", "x26", "x27", "x28", "x29", "lr", "sp", "pc",
    };

    if (r < sizeof(x) / sizeof(x[0]))
        return x[r];
    return r == 46 ? "vg" : NULL;
}

static const char *reg_name(const char *arch, unsigned r)
{
    const char *n = NULL;

    if (strcmp(arch, "x86") == 0)
        n = x86_name(r);
    else if (strcmp(arch, "arm64") == 0)
        n = arm64_name(r);
    return n != NULL ? n : "unknown";
}

const char *script_regs_arch(const ps_features *f, char *buf, size_t size)
{
    const char *a = f != NULL && ps_features_has(f, PS_HEADER_ARCH) ? f->arch : NULL;
    struct utsname u;

    if (a == NULL) {
        if (uname(&u) != 0)
            return "unknown";
        snprintf(buf, size, "%s", u.machine);
        a = buf;
    }
    if (strcmp(a, "x86_64") == 0 || (a[0] == 'i' && strlen(a) >= 4 && a[2] == '8' && a[3] == '6'))
        return "x86";
    if (strcmp(a, "aarch64") == 0 || strcmp(a, "arm64") == 0)
        return "arm64";
    return a;
}

void script_regs_print(linebuf *lb, const ps_regs *regs, const char *arch)
{
    uint64_t i = 0;
    unsigned r;

    if (regs->abi == 0 || regs->regs == NULL)
        return;
    lb_mem(lb, " ABI:", 5);
    lb_u64(lb, regs->abi, 0);
    lb_putc(lb, ' ');
    for (r = 0; r < 64 && i < regs->nr; r++) {
        if (!(regs->mask & (UINT64_C(1) << r)))
            continue;
        lb_str(lb, reg_name(arch, r), 5);
        lb_mem(lb, ":0x", 3);
        lb_hex(lb, regs->regs[i++], 0);
        lb_putc(lb, ' ');
    }
}
