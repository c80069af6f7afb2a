/* SPDX-License-Identifier: MIT */
/*
 * tracepoint.h - HEADER_TRACING_DATA as a libtraceevent handle (spec 10).
 * session.c owns one `struct ps_tp` per session (created on first use by
 * the ps_tracepoint_* functions, freed by ps_session_close()); the parser
 * below it works on bare bytes so the unit tests can feed it blobs.
 */
#ifndef PS_TRACEPOINT_H
#define PS_TRACEPOINT_H

#include "util.h"

typedef struct ps_tp ps_tp;

/* Called for each problem found in a blob (message without a file prefix). */
typedef void (*ps_tp_warn_fn)(void *ctx, const char *msg);

/**
 * Parse a tracing blob (spec 10.1) the way perf feeds libtraceevent
 * (spec 10.3). blob is borrowed and must outlive the handle (the session's
 * arena copy does). A broken blob is not an error: whatever parsed before
 * the damage stays usable and each problem goes to warn.
 * @return the handle (Owned: ps_tp__free()), or NULL when out of memory.
 */
ps_tp *ps_tp__new(const uint8_t *blob, size_t size, ps_tp_warn_fn warn, void *ctx);

/** Free a handle and every older one chained to it. Accepts NULL. */
void ps_tp__free(ps_tp *tp);

/** Number of event formats that parsed (0 when the blob was unusable). */
size_t ps_tp__nr_formats(const ps_tp *tp);

/** The format with this ID ("ID:" = attr.config), or NULL. */
const ps_tp_format *ps_tp__find(const ps_tp *tp, uint64_t id);

/** Decode field idx of a RAW payload described by fmt (see ps_tracepoint_value()). */
int ps_tp__value(ps_tp_value *out, const ps_tp_format *fmt, size_t idx,
                 const uint8_t *raw, size_t raw_size, ps_error *err);

/**
 * perf script's trace text for a RAW payload: the event is found by the
 * payload's common_type as libtraceevent does. Same contract as
 * ps_tracepoint_print().
 */
int ps_tp__print(char *buf, size_t size, ps_tp *tp, const uint8_t *raw,
                 size_t raw_size, int cpu, ps_error *err);

/**
 * Kernel function names for %ps/%pS in trace text (perf script registers
 * machine__resolve_kernel_addr the same way). Given an address, return the
 * name of the function containing it and set *addr to that function's
 * start, *mod to its module name or NULL; NULL when unknown (the address
 * then stays hex). The name must live as long as the session.
 */
typedef const char *(*ps_tp_func_fn)(void *ctx, uint64_t *addr, const char **mod);

/** Set (or with fn NULL clear) the resolver for the session's trace text. */
void ps_session__set_tp_resolver(struct ps_session *s, ps_tp_func_fn fn, void *ctx);

#endif /* PS_TRACEPOINT_H */
