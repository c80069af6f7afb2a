/* SPDX-License-Identifier: MIT */
/*
 * order.h - optional time ordering of records (spec section 12): records
 * with a timestamp wait in a queue; FINISHED_ROUND delivers those up to the
 * previous round's maximum time, the end of input delivers the rest. Memory
 * is bounded by what one or two rounds hold, never by the file.
 */
#ifndef PS_ORDER_H
#define PS_ORDER_H

#include "util.h"

typedef struct ps_queued {
    uint64_t time, seq;
    uint64_t off, inner;
    uint32_t type;
    uint16_t misc, size;
    int      nested, file_index;
    uint8_t *bytes;             /* the record as read (producer order): owned,
                                 * or borrowed from the file's mapping */
    int      borrowed;
} ps_queued;

typedef struct ps_order {
    ps_queued *q;               /* queued records; [ready, nr_ready) sorted and due */
    size_t     nr, cap;
    size_t     ready, nr_ready;
    uint64_t   seq;
    uint64_t   max_time;        /* largest time queued so far */
    uint64_t   next_flush;      /* deliver up to this time at the next round */
    uint64_t   nr_out_of_order; /* records older than one already delivered */
    uint64_t   last_delivered;
} ps_order;

void ps_order__free(ps_order *o);
/**
 * Queue n bytes with their framing: a copy, or with borrow the bytes
 * themselves (they must outlive the queue: a file mapped whole). PS_ENOMEM
 * on failure.
 */
int  ps_order__push(ps_order *o, const ps_queued *meta, const uint8_t *bytes, int borrow,
                    ps_error *err);
/** Make the records with time <= limit due, in time order (stable). */
void ps_order__flush(ps_order *o, uint64_t limit);
/** The next due record, or NULL; valid until the next call. */
ps_queued *ps_order__pop(ps_order *o);
/** The lowest input offset of a borrowed record still held (the one last
 * popped included), or UINT64_MAX. */
uint64_t ps_order__lowest_borrowed(const ps_order *o);

#endif /* PS_ORDER_H */
