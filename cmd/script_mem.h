/* SPDX-License-Identifier: MIT */
/*
 * script_mem.h - the memory-access fields of `perf script` (perf 6.1):
 * data_src (the value and its decoded text), weight and ins_lat. Uses only
 * perfsift.h; called by cmd/script.c for -F data_src,weight,ins_lat.
 *
 * What perf 6.1 prints (builtin-script.c data_src__fprintf(), util/mem-events.c
 * perf_script__meminfo_scnprintf(); checked against /usr/bin/perf 6.1.187 on
 * every bit of every sub-field, on 3000 random values and on the corpus):
 *
 *   "%16lx %s" of the value and its text, where the text is
 *   "|OP <op>|LVL <lvl>|SNP <snoop>|TLB <tlb>|LCK <lock>|BLK <blk>", cut to
 *   99 characters in all (perf composes it in char[100]), then left-aligned
 *   ("%-*s") to the longest such line printed so far in the process.
 *
 *   - OP: the first of N/A LOAD STORE PFETCH EXEC whose bit is set, else "No".
 *   - LVL (the pre-6.3 form): "Remote " if mem_remote; then, if mem_hops is
 *     set, its name and a space ("core, same node " ...; hops 5-7 read past
 *     perf's table and print "(null) "), otherwise every mem_lvl level bit
 *     but HIT/MISS joined with " or "; then, if mem_lvl_num is non-zero,
 *     " or " (if a level was printed) and its name (CXL I/O "Any cache"
 *     LFB/MAB RAM PMEM N/A for 9..15, "L<n>" below); "N/A" if nothing so
 *     far; then " hit" and/or " miss" from mem_lvl.
 *   - SNP: every mem_snoop bit (N/A None Hit Miss HitM) then every
 *     mem_snoopx bit (Fwd Peer), joined with " or "; "N/A" if none.
 *   - TLB: every mem_dtlb bit but HIT/MISS (N/A L1 L2 Walker Fault) joined
 *     with " or ", "N/A" if none, then " hit" and/or " miss".
 *   - LCK: "N/A" if the NA bit, else "Yes" if LOCKED, else "No".
 *   - BLK: " N/A" if zero or NA (hence the two spaces), else " Data" and/or
 *     " Addr".
 *   Long texts overflow perf's buffer arithmetic (it hands the LVL part the
 *   whole buffer size); that arithmetic is reproduced here too, so even
 *   all-bits-set values print what perf prints.
 *
 * weight: perf prints sample->weight with "%16lu". For PERF_SAMPLE_WEIGHT
 * that is the whole u64; for PERF_SAMPLE_WEIGHT_STRUCT it is only var1_dw,
 * the low 32 bits, while ps_sample.weight holds the whole u64 -- hence
 * script_weight(). ins_lat ("%16u") is var2_w, bits 32..47, for
 * WEIGHT_STRUCT and 0 otherwise.
 */
#ifndef PS_CMD_SCRIPT_MEM_H
#define PS_CMD_SCRIPT_MEM_H

#include <stdio.h>
#include <stdint.h>
#include "perfsift.h"

/**
 * Print the data_src field exactly as perf 6.1 does (no separator before or
 * after; the caller prints the next field or the newline).
 *
 * State: the column width is the longest line printed so far, kept in a
 * static of script_mem.c as perf keeps it -- one per process, shared by all
 * events and never reset by perf; script_data_src_reset() exists for tests.
 *
 * @return the number of bytes written (0 on a write error)
 */
size_t script_data_src_fprintf(FILE *fp, uint64_t data_src);

/** Forget the width script_data_src_fprintf() has grown to (tests only). */
void script_data_src_reset(void);

/**
 * The decoded text alone ("|OP LOAD|LVL L1 hit|..."), as perf 6.1's
 * perf_script__meminfo_scnprintf() makes it into char[100].
 *
 * @param buf, size  like snprintf: at most size-1 characters and a NUL
 * @return the length of the text (at most 99)
 */
size_t script_data_src_scnprintf(char *buf, size_t size, uint64_t data_src);

/**
 * The value perf 6.1 prints for -F weight: s->weight whole for
 * PERF_SAMPLE_WEIGHT, its low 32 bits for PERF_SAMPLE_WEIGHT_STRUCT alone,
 * 0 when sample_type has neither.
 */
uint64_t script_weight(const ps_sample *s, uint64_t sample_type);

/** The value perf 6.1 prints for -F ins_lat: bits 32..47 of a
 * WEIGHT_STRUCT weight, else 0. */
uint16_t script_ins_lat(const ps_sample *s, uint64_t sample_type);

#endif /* PS_CMD_SCRIPT_MEM_H */
