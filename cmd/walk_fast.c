/* SPDX-License-Identifier: MIT */
/*
 * walk_fast.c - the record loop of walk_fast.h. Why it is faster than
 * ps_session_next(): the file is read() into a window that slides along
 * (in a VM with shadow page tables, faulting a mapping's pages in cost
 * five times as much as copying them); a queued sample is 16 bytes (its
 * time and offset) instead of a full decode before queueing and another
 * after; a sample is decoded in place into one reused event, only the
 * fixed fields and the call chain (a pointer into the window); and a
 * round's queue is sorted by merging its runs (each CPU's records come in
 * time order), not by a general sort. The window keeps every queued
 * record, so its memory is the ordering queue's, as the session's is.
 *
 * The order is ps_order's (libparse/order.c), kept exactly: records with
 * a time wait; a FINISHED_ROUND is delivered, then makes the queued
 * records up to the previous round's largest time due, in time order,
 * ties in file order; records without a time (or of user types) go at
 * once; the end of input delivers the rest. Whatever this loop does not
 * know how to take (a record that changes the session, a sample field it
 * does not decode, any damage) ends it with WALK_FAST_NO before the first
 * delivery, or WALK_FAST_RETRY after: the general loop then starts over
 * and says what perf would.
 *
 * The reader thread (captures of READ_THREAD bytes and more): read()
 * copies the page cache out at some 7 GB/s, a third of the loop's time on
 * a bench capture, so a second thread reads ahead into the window while
 * this one decodes. Hand-off, all under f->lock: the reader reads into
 * buf + filled (never past wcap), outside the lock, then adds what it got
 * to filled; the loop only reads bytes below the filled it last saw, and
 * moves or reallocates the window (grow()) only with the reader paused and
 * out of read(). rpos, filled, reading, paused, stop, rdone are shared;
 * the loop keeps its own copy of filled in wlen.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "walk_fast.h"

#define READ_MIN (1u << 17)     /* read this much at a time */
#define WINDOW_MIN (2u << 20)   /* the smallest window: compacted when full
                                 * (a huge page: ps_alloc_huge()) */
/* the largest: a capture whose rounds hold more (or that has none) is
 * left to the general loop, which queues pointers into the mapping */
#define WINDOW_MAX ((size_t)256 << 20)
#define READ_THREAD ((uint64_t)1 << 20)     /* from here on, a reader thread */
#define ALIGN 64                /* read() destinations: on a cache line (grow()) */

/* the sample fields decoded here: all of fixed size but the call chain */
#define FAST_FIXED (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
                    PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | \
                    PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)
#define FAST_SAMPLE (FAST_FIXED | PERF_SAMPLE_CALLCHAIN)

typedef struct qent {
    uint64_t time, off;
} qent;

typedef struct fast {
    ps_session     *s;
    int             fd;
    uint8_t        *buf;        /* file bytes [woff, woff + wlen) */
    size_t          wlen, wcap;
    uint64_t        woff, rpos, rend;   /* next file offset to read, end */
    int             threaded;   /* the reader thread runs (see the top) */
    pthread_t       reader;
    pthread_mutex_t lock;
    pthread_cond_t  cond;       /* a change of the shared state below */
    size_t          filled;     /* shared: bytes of buf read */
    int             reading;    /* shared: the reader is in read() */
    int             paused;     /* shared: the loop moves buf: read nothing */
    int             stop;       /* shared: the reader is to end */
    int             rdone;      /* shared: the reader ended (rend, or error) */
    int             ordered;
    walk_fast_fn    fn;
    void           *ctx;
    ps_error       *err;
    uint64_t        st;         /* every event's sample_type (one, or all equal) */
    size_t          id_at;      /* offset of the event id in a sample, 0: one event */
    size_t          fixed;      /* bytes of the fixed fields */
    size_t          time_at;    /* offset of the time in a sample */
    const ps_evsel *first;
    uint64_t        delivered;
    qent           *q, *tmp;    /* the queue, and merge space as large */
    size_t          nq, cap;
    uint64_t        max_time, next_flush;
    ps_event        ev;         /* the sample being delivered */
} fast;

/* --- which captures ---------------------------------------------------------- */

/* One sample_type and one place of the event id for every event (what
 * ps_evlist__of_record() needs to find a sample's event). */
static int check_events(fast *f)
{
    size_t i, n = ps_session_nr_evsels(f->s);

    if (n == 0)
        return -1;
    f->first = ps_session_evsel(f->s, 0);
    f->st = f->first->attr.sample_type;
    for (i = 1; i < n; i++)
        if (ps_session_evsel(f->s, i)->attr.sample_type != f->st)
            return -1;
    if ((f->st & ~(uint64_t)FAST_SAMPLE) != 0)
        return -1;
    f->fixed = 8 * (size_t)__builtin_popcountll(f->st & FAST_FIXED);
    f->time_at = 8 + 8 * (size_t)__builtin_popcountll(f->st & (PERF_SAMPLE_IDENTIFIER |
                                                              PERF_SAMPLE_IP | PERF_SAMPLE_TID));
    if (n == 1)
        f->id_at = 0;
    else if (f->st & PERF_SAMPLE_IDENTIFIER)
        f->id_at = 8;
    else if (f->st & PERF_SAMPLE_ID)
        f->id_at = 8 + 8 * (size_t)__builtin_popcountll(f->st & (PERF_SAMPLE_IP |
                   PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR));
    else
        return -1;
    return 0;
}

/* Records that change nothing in the session (apply_side_effects() in
 * session.c) and carry no payload past header.size. */
static int known_type(uint32_t type)
{
    if (type > 0 && type < 64)
        return ps_records__known(type);
    switch (type) {
    case PS_RECORD_HEADER_BUILD_ID: case PS_RECORD_FINISHED_ROUND:
    case PS_RECORD_ID_INDEX: case PS_RECORD_THREAD_MAP: case PS_RECORD_CPU_MAP:
    case PS_RECORD_STAT_CONFIG: case PS_RECORD_STAT: case PS_RECORD_STAT_ROUND:
    case PS_RECORD_TIME_CONV: case PS_RECORD_FINISHED_INIT:
        return 1;
    default:
        return 0;
    }
}

/* --- the window ------------------------------------------------------------- */

static const uint8_t *at(const fast *f, uint64_t off)
{
    return f->buf + (off - f->woff);
}

/* the first file offset still needed: pos, or an older queued record */
static uint64_t keep_from(const fast *f, uint64_t pos)
{
    size_t i;

    for (i = 0; i < f->nq; i++)
        if (f->q[i].off < pos)
            pos = f->q[i].off;
    return pos;
}

/* The buffer is full: drop what nothing needs any more (before pos and
 * the oldest queued record); grow it when what is kept fills half of it
 * (compacting less often) or want bytes do not fit. 0, or -1 (memory, or
 * past WINDOW_MAX). */
static int grow(fast *f, uint64_t pos, size_t want)
{
    uint64_t keep = keep_from(f, pos);
    size_t cap;
    uint8_t *b;

    /* read() into a destination that is not on a cache line costs four
     * times as much on some CPUs (AMD EPYC here: 1.5 GB/s, not 6), so the
     * bytes move by whole lines: the window's start stays as far from
     * rpos as the reads' multiples of READ_MIN keep it, 0 mod ALIGN */
    keep -= (keep - f->woff) & (ALIGN - 1);
    if (keep > f->woff) {
        memmove(f->buf, f->buf + (keep - f->woff), (size_t)(f->woff + f->wlen - keep));
        f->wlen -= (size_t)(keep - f->woff);
        f->woff = keep;
    }
    if (f->wcap - f->wlen >= want && f->wlen <= f->wcap / 2)
        return 0;
    for (cap = f->wcap ? f->wcap * 2 : WINDOW_MIN; cap - f->wlen < want; cap *= 2)
        if (cap > WINDOW_MAX)
            return -1;
    if (cap > WINDOW_MAX || (b = ps_alloc_huge(cap)) == NULL)
        return -1;
    if (f->buf != NULL)         /* not realloc(): it keeps 16 bytes' alignment only */
        memcpy(b, f->buf, f->wlen);
    free(f->buf);
    f->buf = b;
    f->wcap = cap;
    return 0;
}

/* Make [pos, pos + n) of the file readable at at(f, pos): read on, in
 * pieces small enough to still be in the cache when their records are
 * delivered (a round or two later), into a buffer made room in by grow().
 * 0, or -1 (input error, or the file ends early: the general loop says). */
static int window_threaded(fast *f, uint64_t pos, size_t n);

static int window(fast *f, uint64_t pos, size_t n)
{
    if (f->threaded && pos + n > f->woff + f->wlen)
        return window_threaded(f, pos, n);
    while (pos + n > f->woff + f->wlen) {
        size_t want = READ_MIN > n ? READ_MIN : n;
        ssize_t got;

        if (f->rpos >= f->rend)
            return -1;
        if (f->wcap - f->wlen < want && grow(f, pos, want) < 0)
            return -1;
        got = read(f->fd, f->buf + f->wlen, (size_t)(f->rend - f->rpos < want ? f->rend - f->rpos
                                                                                : want));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        f->wlen += (size_t)got;
        f->rpos += (uint64_t)got;
    }
    return 0;
}

/* --- the reader thread -------------------------------------------------------- */

static void *reader_main(void *arg)
{
    fast *f = arg;

    pthread_mutex_lock(&f->lock);
    for (;;) {
        uint8_t *dst;
        size_t want;
        ssize_t got;

        while (!f->stop && f->rpos < f->rend && (f->paused || f->filled == f->wcap))
            pthread_cond_wait(&f->cond, &f->lock);
        if (f->stop || f->rpos >= f->rend)
            break;
        want = f->wcap - f->filled < READ_MIN ? f->wcap - f->filled : READ_MIN;
        if (f->rend - f->rpos < want)
            want = (size_t)(f->rend - f->rpos);
        dst = f->buf + f->filled;
        f->reading = 1;
        pthread_mutex_unlock(&f->lock);
        got = read(f->fd, dst, want);
        pthread_mutex_lock(&f->lock);
        f->reading = 0;
        if (got < 0 && errno == EINTR) {
            pthread_cond_broadcast(&f->cond);
            continue;
        }
        if (got <= 0)
            break;              /* the loop finds the bytes missing */
        f->filled += (size_t)got;
        f->rpos += (uint64_t)got;
        pthread_cond_broadcast(&f->cond);
    }
    f->rdone = 1;
    pthread_cond_broadcast(&f->cond);
    pthread_mutex_unlock(&f->lock);
    return NULL;
}

/* window() with the reader: wait for it, or make room (it paused). */
static int window_threaded(fast *f, uint64_t pos, size_t n)
{
    int rc = 0;

    pthread_mutex_lock(&f->lock);
    while (pos + n > f->woff + f->filled) {
        if (pos + n > f->woff + f->wcap) {
            f->paused = 1;
            while (f->reading)
                pthread_cond_wait(&f->cond, &f->lock);
            f->wlen = f->filled;
            rc = grow(f, pos, READ_MIN > n ? READ_MIN : n);
            f->filled = f->wlen;
            f->paused = 0;
            pthread_cond_broadcast(&f->cond);
            if (rc < 0)
                break;
        } else if (f->rdone) {
            rc = -1;
            break;
        } else {
            pthread_cond_wait(&f->cond, &f->lock);
        }
    }
    f->wlen = f->filled;
    pthread_mutex_unlock(&f->lock);
    return rc;
}

/* Start the reader on a big capture, the window made first; no thread
 * (the loop reads itself) when that fails. */
static void reader_start(fast *f, uint64_t from, uint64_t to)
{
    if (to - from < READ_THREAD || grow(f, from, READ_MIN) < 0)
        return;
    if (pthread_mutex_init(&f->lock, NULL) != 0)
        return;
    if (pthread_cond_init(&f->cond, NULL) != 0) {
        pthread_mutex_destroy(&f->lock);
        return;
    }
    f->threaded = pthread_create(&f->reader, NULL, reader_main, f) == 0;
    if (!f->threaded) {
        pthread_cond_destroy(&f->cond);
        pthread_mutex_destroy(&f->lock);
    }
}

static void reader_stop(fast *f)
{
    if (!f->threaded)
        return;
    pthread_mutex_lock(&f->lock);
    f->stop = 1;
    pthread_cond_broadcast(&f->cond);
    pthread_mutex_unlock(&f->lock);
    pthread_join(f->reader, NULL);
    pthread_cond_destroy(&f->cond);
    pthread_mutex_destroy(&f->lock);
    f->threaded = 0;
}

/* --- delivery ---------------------------------------------------------------- */

static uint64_t ld64(const uint8_t *p) { return ps_load64(p, 0); }
static uint32_t ld32(const uint8_t *p) { return ps_load32(p, 0); }

/* The sample at off into f->ev, as records.c decodes it; 1 when it is not
 * one to decode here (too short, unknown event id: the library says why). */
static int decode_sample(fast *f, uint64_t off, uint16_t misc, uint16_t size)
{
    const uint8_t *p = at(f, off);
    ps_sample *s = &f->ev.u.sample;
    uint64_t st = f->st, id;
    size_t c = 8;

    if (size < 8 + f->fixed)
        return 1;
    f->ev.evsel = f->first;
    if (f->id_at && (id = ld64(p + f->id_at)) != 0 &&
        (f->ev.evsel = ps_session_evsel_by_id(f->s, id)) == NULL)
        return 1;
    s->identifier = (st & PERF_SAMPLE_IDENTIFIER) ? ld64(p + c) : 0;
    c += (st & PERF_SAMPLE_IDENTIFIER) ? 8 : 0;
    s->ip = (st & PERF_SAMPLE_IP) ? ld64(p + c) : 0;
    c += (st & PERF_SAMPLE_IP) ? 8 : 0;
    s->pid = s->tid = s->cpu = UINT32_MAX;
    if (st & PERF_SAMPLE_TID) {
        s->pid = ld32(p + c);
        s->tid = ld32(p + c + 4);
        c += 8;
    }
    s->time = (st & PERF_SAMPLE_TIME) ? ld64(p + c) : 0;
    c += (st & PERF_SAMPLE_TIME) ? 8 : 0;
    s->addr = (st & PERF_SAMPLE_ADDR) ? ld64(p + c) : 0;
    c += (st & PERF_SAMPLE_ADDR) ? 8 : 0;
    s->id = (st & PERF_SAMPLE_ID) ? ld64(p + c) : (st & PERF_SAMPLE_IDENTIFIER) ? s->identifier : 0;
    c += (st & PERF_SAMPLE_ID) ? 8 : 0;
    s->stream_id = (st & PERF_SAMPLE_STREAM_ID) ? ld64(p + c) : 0;
    c += (st & PERF_SAMPLE_STREAM_ID) ? 8 : 0;
    s->cpu_res = 0;
    if (st & PERF_SAMPLE_CPU) {
        s->cpu = ld32(p + c);
        s->cpu_res = ld32(p + c + 4);
        c += 8;
    }
    s->period = (st & PERF_SAMPLE_PERIOD) ? ld64(p + c) : f->ev.evsel->attr.sample_period;
    c += (st & PERF_SAMPLE_PERIOD) ? 8 : 0;
    s->nr_callchain = 0;
    s->callchain = NULL;
    if (st & PERF_SAMPLE_CALLCHAIN) {
        if (size - c < 8)
            return 1;
        s->nr_callchain = ld64(p + c);
        c += 8;
        if (s->nr_callchain > (size - c) / 8)
            return 1;
        s->callchain = (const uint64_t *)(const void *)(p + c);
    }
    s->sample_type = st;
    f->ev.misc = misc;
    f->ev.size = size;
    f->ev.offset = off;
    f->ev.raw = p;
    return 0;
}

/* Deliver the record at off: a sample decoded here, the rest by the library. */
static int deliver(fast *f, uint64_t off)
{
    const uint8_t *p = at(f, off);
    uint32_t type = ld32(p);
    ps_event ev;

    if (type == PERF_RECORD_SAMPLE &&
        decode_sample(f, off, ps_load16(p + 4, 0), ps_load16(p + 6, 0)) == 0) {
        f->ev.index = f->delivered++;
        return f->fn(f->ctx, &f->ev, f->err);
    }
    if (ps_session__decode_bytes(&ev, f->s, at(f, off), off, f->err) < 0)
        return f->delivered ? WALK_FAST_RETRY : WALK_FAST_NO;
    ev.index = f->delivered++;
    return f->fn(f->ctx, &ev, f->err);
}

/* --- the queue --------------------------------------------------------------- */

static int push(fast *f, uint64_t time, uint64_t off)
{
    if (f->nq == f->cap) {
        size_t n = f->cap ? f->cap * 2 : 4096;
        qent *q = realloc(f->q, n * sizeof(*q)), *t;

        if (q == NULL)
            return -1;
        f->q = q;
        if ((t = realloc(f->tmp, n * sizeof(*t))) == NULL)
            return -1;
        f->tmp = t;
        f->cap = n;
    }
    f->q[f->nq++] = (qent){ time, off };
    if (time > f->max_time)
        f->max_time = time;
    return 0;
}

/* the end of the ascending run starting at i */
static size_t run_end(const qent *v, size_t i, size_t n)
{
    for (i++; i < n && v[i - 1].time <= v[i].time; i++)
        ;
    return i;
}

/* Stable sort by time (ties keep queue order, which is file order): merge
 * neighbouring runs until one is left; a round is a few runs. */
static void sort_queue(fast *f)
{
    qent *v = f->q, *t = f->tmp;
    size_t n = f->nq;

    while (run_end(v, 0, n) < n) {
        size_t i = 0;

        while (i < n) {
            size_t m = run_end(v, i, n), e = m < n ? run_end(v, m, n) : n, a = i, b = m, k = i;

            while (a < m && b < e)
                t[k++] = v[b].time < v[a].time ? v[b++] : v[a++];
            while (a < m)
                t[k++] = v[a++];
            while (b < e)
                t[k++] = v[b++];
            i = e;
        }
        memcpy(v, t, n * sizeof(*v));
    }
}

/* Deliver the queued records with time <= limit, in order. */
static int flush(fast *f, uint64_t limit)
{
    size_t i, k;
    int rc;

    if (f->nq == 0)
        return 0;
    sort_queue(f);
    for (k = 0; k < f->nq && f->q[k].time <= limit; k++)
        ;
    for (i = 0; i < k; i++)
        if ((rc = deliver(f, f->q[i].off)) != 0)
            return rc;
    memmove(f->q, f->q + k, (f->nq - k) * sizeof(*f->q));
    f->nq -= k;
    return 0;
}

/* --- the loop ---------------------------------------------------------------- */

/* The time perf orders a record by, 0 for none (session.c's event_time()). */
static int record_time(fast *f, uint64_t off, uint32_t type, uint16_t size, uint64_t *t)
{
    ps_event ev;

    *t = 0;
    if (type == PERF_RECORD_SAMPLE) {
        if (f->st & PERF_SAMPLE_TIME) {
            if (f->time_at + 8 > size)
                return -1;
            *t = ld64(at(f, off) + f->time_at);
        }
        return 0;
    }
    if (type >= 64)
        return 0;
    if (ps_session__decode_bytes(&ev, f->s, at(f, off), off, f->err) < 0)
        return -1;
    if (ev.has_sample_id && (ev.sample_id.present & PERF_SAMPLE_TIME))
        *t = ev.sample_id.time;
    return 0;
}

/* One record read in file order: queued, or delivered at once. */
static int step(fast *f, uint64_t off, uint32_t type, uint16_t size)
{
    uint64_t t;
    int rc;

    if (!f->ordered)
        return deliver(f, off);
    if (record_time(f, off, type, size, &t) < 0)
        return f->delivered ? WALK_FAST_RETRY : WALK_FAST_NO;
    if (t != 0 && t != UINT64_MAX)
        return push(f, t, off) < 0 ? WALK_FAST_RETRY : 0;
    if ((rc = deliver(f, off)) != 0 || type != PS_RECORD_FINISHED_ROUND)
        return rc;
    rc = flush(f, f->next_flush);
    f->next_flush = f->max_time;
    return rc;
}

static int run(fast *f, uint64_t pos, uint64_t end)
{
    int rc;

    while (pos < end) {
        const uint8_t *p;
        uint32_t type;
        uint16_t size;

        if (end - pos < 8 || window(f, pos, 8) < 0)
            return f->delivered ? WALK_FAST_RETRY : WALK_FAST_NO;
        p = at(f, pos);
        type = ld32(p);
        size = ps_load16(p + 6, 0);
        if (size < 8 || (size & 7) != 0 || size > end - pos || window(f, pos, size) < 0 ||
            (type != PERF_RECORD_SAMPLE && !known_type(type)))
            return f->delivered ? WALK_FAST_RETRY : WALK_FAST_NO;
        if ((rc = step(f, pos, type, size)) != 0)
            return rc;
        pos += size;

    }
    if (f->nq > 0 && (rc = flush(f, UINT64_MAX)) != 0)
        return rc;
    return WALK_FAST_DONE;
}

int walk_fast(ps_session *s, int ordered, walk_fast_fn fn, void *ctx, ps_error *err)
{
    fast *f;
    uint64_t from, to;
    int rc;

    if ((f = calloc(1, sizeof(*f))) == NULL)
        return WALK_FAST_NO;
    f->fd = -1;
    f->s = s;
    f->fn = fn;
    f->ctx = ctx;
    f->err = err;
    f->ordered = ordered;
    f->ev.type = PERF_RECORD_SAMPLE;
    f->ev.file_index = -1;
    if (check_events(f) < 0 || ps_session__release(s, &f->fd, &from, &to) < 0) {
        rc = WALK_FAST_NO;
    } else if ((from & 7) != 0 || lseek(f->fd, (off_t)from, SEEK_SET) != (off_t)from) {
        rc = WALK_FAST_RETRY;   /* the session is spent: start over */
    } else {
        f->woff = f->rpos = from;
        f->rend = to;
        posix_fadvise(f->fd, (off_t)from, (off_t)(to - from), POSIX_FADV_SEQUENTIAL);
        reader_start(f, from, to);
        rc = run(f, from, to);
        if (rc == WALK_FAST_NO)
            rc = WALK_FAST_RETRY;
        reader_stop(f);
    }
    if (f->fd >= 0)
        close(f->fd);
    free(f->buf);
    free(f->q);
    free(f->tmp);
    free(f);
    return rc;
}
