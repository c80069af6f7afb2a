/* SPDX-License-Identifier: MIT */
/*
 * script_regs.h - `perfsift script -F iregs,uregs`: a sample's registers
 * as perf 6.1 prints them (script_regs.c).
 */
#ifndef PS_CMD_SCRIPT_REGS_H
#define PS_CMD_SCRIPT_REGS_H

#include "linebuf.h"
#include "perfsift.h"

/** perf's name for the capture's arch (perf_env__arch()): HEADER_ARCH,
 * else this machine's, normalized ("x86_64" -> "x86", "aarch64" -> "arm64"). */
const char *script_regs_arch(const ps_features *f, char *buf, size_t size);

/** " ABI:n " and "%5s:0x%x " per register in the mask, as perf prints
 * them; nothing when the sample has none (ABI 0). */
void script_regs_print(linebuf *lb, const ps_regs *regs, const char *arch);

#endif /* PS_CMD_SCRIPT_REGS_H */
