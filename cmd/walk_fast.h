/* SPDX-License-Identifier: MIT */
/*
 * walk_fast.h - walk.c's record loop for the common capture, faster: one
 * perf.data file in the host's byte order whose samples have only fixed
 * fields and a frame-pointer call chain. The same events
 * in the same order as ps_session_next() gives them (perf's ordering
 * queue included), but the file is read() into a sliding window, samples
 * are decoded in place and queued as (time, offset) pairs; every other record goes through the
 * library's decoder. Anything else (other sample fields, records that
 * change the session, damage of any kind) is left to the general loop.
 */
#ifndef PS_CMD_WALK_FAST_H
#define PS_CMD_WALK_FAST_H

#include "../libparse/session.h"

enum {
    WALK_FAST_DONE  = 1,    /* every record delivered */
    WALK_FAST_NO    = 2,    /* not such a capture; nothing was delivered */
    WALK_FAST_RETRY = 3     /* something to leave to the general loop after
                             * records were delivered: start again there */
};

/** What gets each event; nonzero stops the walk and is returned. */
typedef int (*walk_fast_fn)(void *ctx, const ps_event *ev, ps_error *err);

/**
 * Deliver s's records to fn: by time as perf orders them when ordered,
 * else in file order. @return a WALK_FAST_* code, or fn's nonzero return
 */
int walk_fast(ps_session *s, int ordered, walk_fast_fn fn, void *ctx, ps_error *err);

#endif /* PS_CMD_WALK_FAST_H */
