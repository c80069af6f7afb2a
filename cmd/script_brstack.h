/* SPDX-License-Identifier: MIT */
/*
 * script_brstack.h - `perfsift script -F brstack,brstacksym`: a sample's
 * branch stack as perf 6.1 prints it (script_brstack.c).
 */
#ifndef PS_CMD_SCRIPT_BRSTACK_H
#define PS_CMD_SCRIPT_BRSTACK_H

#include "linebuf.h"
#include "../libparse/resolve.h"

/** Each entry "from/to/flags ": from and to as addresses (0x...) or, with
 * syms, as symbol+offset; with dso, "(dso)" after each; nothing without
 * entries. cpumode: the sample's. */
void script_brstack_print(linebuf *lb, ps_resolver *res, const ps_sample *smp,
                          unsigned cpumode, int syms, int dso);

#endif /* PS_CMD_SCRIPT_BRSTACK_H */
