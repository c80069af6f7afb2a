/* SPDX-License-Identifier: MIT */
/*
 * evname.h - the name perf gives an event that no EVENT_DESC/EVENT_UPDATE
 * named: from attr type/config plus modifiers (":HG", ":u", ":ppp" ...),
 * PMU_MAPPINGS for dynamic PMU types, and the tracing data's formats for
 * tracepoints ("sched:sched_switch"). Spec 3.2, 3.3, 15.2.
 */
#ifndef PS_EVNAME_H
#define PS_EVNAME_H

#include "util.h"

/**
 * Write the derived name of attr into buf (always NUL-terminated).
 * f may be NULL or partly filled (pmu_mappings, tracing_data are used when
 * present).
 */
void ps_evname__derive(char *buf, size_t size, const ps_attr *attr,
                       const ps_features *f);

/**
 * Tracepoint name "system:name" for tracepoint id `config`, looked up in a
 * tracing-data blob (spec 10.1); 0 on success, -1 if not found/malformed.
 */
int ps_evname__tracepoint(char *buf, size_t size, const uint8_t *blob,
                          size_t blob_size, uint64_t config);

#endif /* PS_EVNAME_H */
