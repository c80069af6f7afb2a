/* SPDX-License-Identifier: MIT */
/*
 * order.c - the time-ordering queue (see order.h). Knows nothing of record
 * contents: session.c decides which records carry a time and re-decodes a
 * queued copy when it is due.
 */
#include "order.h"

void ps_order__free(ps_order *o)
{
    size_t i;

    for (i = 0; i < o->nr; i++)
        if (!o->q[i].borrowed)
            free(o->q[i].bytes);
    free(o->q);
    memset(o, 0, sizeof(*o));
}

int ps_order__push(ps_order *o, const ps_queued *meta, const uint8_t *bytes, int borrow,
                   ps_error *err)
{
    ps_queued *e;

    if (ps_grow((void **)&o->q, &o->cap, o->nr + 1, sizeof(*o->q)) < 0)
        return ps_error__set(err, PS_ENOMEM, meta->off, "out of memory (ordering queue)");
    e = &o->q[o->nr];
    *e = *meta;
    e->borrowed = borrow;
    if (borrow) {
        e->bytes = (uint8_t *)bytes;    /* never written through */
    } else {
        if ((e->bytes = malloc(meta->size ? meta->size : 1)) == NULL)
            return ps_error__set(err, PS_ENOMEM, meta->off, "out of memory (ordering queue)");
        memcpy(e->bytes, bytes, meta->size);
    }
    e->seq = o->seq++;
    o->nr++;
    if (e->time > o->max_time)
        o->max_time = e->time;
    return PS_OK;
}

static int by_time(const void *a, const void *b)
{
    const ps_queued *x = a, *y = b;

    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void ps_order__flush(ps_order *o, uint64_t limit)
{
    size_t i, n = 0;

    /* Drop what was already handed out, then sort what waits. */
    if (o->ready > 0) {
        for (i = 0; i < o->ready; i++)
            if (!o->q[i].borrowed)
                free(o->q[i].bytes);
        memmove(o->q, o->q + o->ready, (o->nr - o->ready) * sizeof(*o->q));
        o->nr -= o->ready;
        o->nr_ready -= o->ready;
        o->ready = 0;
    }
    if (o->nr > o->nr_ready)
        qsort(o->q + o->nr_ready, o->nr - o->nr_ready, sizeof(*o->q), by_time);
    for (i = o->nr_ready; i < o->nr && o->q[i].time <= limit; i++)
        n++;
    o->nr_ready += n;
}

ps_queued *ps_order__pop(ps_order *o)
{
    ps_queued *e;

    if (o->ready > 0) {             /* the previous one is no longer needed */
        if (!o->q[o->ready - 1].borrowed)
            free(o->q[o->ready - 1].bytes);
        o->q[o->ready - 1].bytes = NULL;
    }
    if (o->ready >= o->nr_ready)
        return NULL;
    e = &o->q[o->ready++];
    if (e->time < o->last_delivered)
        o->nr_out_of_order++;
    else
        o->last_delivered = e->time;
    return e;
}

uint64_t ps_order__lowest_borrowed(const ps_order *o)
{
    uint64_t low = UINT64_MAX;
    size_t i;

    for (i = 0; i < o->nr; i++)
        if (o->q[i].borrowed && o->q[i].bytes != NULL && o->q[i].off < low)
            low = o->q[i].off;
    return low;
}
