/* SPDX-License-Identifier: MIT */
/*
 * sym_plt.h - perf 6.1's dso__synthesize_plt_symbols(): "name@plt"
 * symbols for the PLT slots of a file's .dynsym, which no symbol table
 * lists but perf prints.
 *
 * Layer: above sym_elf.c and symtree.c, under sym_user.c.
 */
#ifndef PS_SYM_PLT_H
#define PS_SYM_PLT_H

#include "sym_elf.h"

/**
 * Add one "name@plt" symbol per .rela.plt/.rel.plt entry of ss to t (no
 * fixups after: perf runs none, so a zero-size _init stretched over .plt
 * still wins); names into arena, the target's demangled when demangle.
 * @return symbols added (0 when ss has no PLT perf can read), or -1
 */
long ps_plt__synthesize(ps_symtree *t, const ps_symsrc *ss, ps_arena *arena, int demangle);

#endif /* PS_SYM_PLT_H */
