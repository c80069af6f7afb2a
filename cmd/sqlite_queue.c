/* SPDX-License-Identifier: MIT */
/*
 * sqlite_queue.c - sqlite_queue.h. A row in a chunk: the statement, the
 * row's length and value count, then per value a type byte and its bytes
 * (an int64, or a length and the text or blob); or, for a row of integers
 * and NULLs (most rows: every sample), the integers alone, written straight
 * into the chunk, and a mask of the NULLs. The reader fills one chunk at a
 * time; the writer takes full ones in order and gives them back.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "linebuf.h"
#include "sqlite_queue.h"

/* Small enough that the chunks in flight stay in the CPUs' caches: the
 * writer reads rows the reader has just written (with 1 MB chunks it
 * waited on memory for a third of its time on the bench capture) */
#define CHUNK_SIZE  (1u << 16)
#define MAX_CHUNKS  8           /* how far the writer may fall behind */
#define MAX_BATCHES 4

typedef struct chunk {
    struct chunk *next;
    size_t        len;
    char          data[CHUNK_SIZE];
} chunk;

typedef struct row_head {
    sqlite3_stmt *st;
    uint32_t      len;          /* bytes, this head included */
    uint16_t      nr;           /* values */
    uint16_t      ints;         /* 1: nr int64s follow, those in nulls NULL */
    uint64_t      nulls;        /* bit i: value i is NULL */
} row_head;

/* b.n rows of b.one in a row run as one statement b.many (sqq_batch()) */
typedef struct batch {
    sqlite3_stmt *one, *many;
    unsigned      n;
} batch;

struct sqq {
    sqlite3        *db;
    batch           batches[MAX_BATCHES];       /* set while the writer waits */
    unsigned        nr_batches;
    void          (*err_fn)(void *ctx, const char *what);
    void          (*chunk_fn)(void *ctx, size_t bytes);
    void           *ctx;
    linebuf         row;        /* the row being built */
    uint32_t        nr;         /* its values so far */
    chunk          *cur;        /* the reader's, being filled */
    int             threaded;
    int             failed_seen;        /* the reader's copy of failed */
    pthread_t       thread;
    pthread_mutex_t mu;         /* guards the members below */
    pthread_cond_t  work, done;
    chunk          *head, *tail;        /* full, waiting for the writer */
    chunk          *spare;
    int             nr_chunks, busy, stop, failed;
};

/* --- the writer ------------------------------------------------------------- */

static int bind(sqlite3_stmt *st, int col, const char **p)
{
    char type = *(*p)++;
    int64_t v;
    uint64_t n;
    int rc;

    if (type == 'n')
        return sqlite3_bind_null(st, col);
    memcpy(type == 'i' ? (void *)&v : (void *)&n, *p, 8);
    *p += 8;
    if (type == 'i')
        return sqlite3_bind_int64(st, col, v);
    if (type == 't')
        rc = sqlite3_bind_text64(st, col, *p, n, SQLITE_STATIC, SQLITE_UTF8);
    else
        rc = sqlite3_bind_blob64(st, col, *p, n, SQLITE_STATIC);
    *p += n;
    return rc;
}

/* a row of integers and NULLs (row_head.ints) into st's parameters from
 * col on */
static int bind_ints(sqlite3_stmt *st, int col, const row_head *h, const char **p)
{
    int64_t v;
    uint32_t i;
    int rc = SQLITE_OK;

    for (i = 0; i < h->nr && rc == SQLITE_OK; i++, *p += 8) {
        if ((h->nulls >> i) & 1) {
            rc = sqlite3_bind_null(st, col + (int)i);
        } else {
            memcpy(&v, *p, 8);
            rc = sqlite3_bind_int64(st, col + (int)i, v);
        }
    }
    return rc;
}

static int bind_row(const row_head *h, const char **p)
{
    uint32_t i;
    int rc = SQLITE_OK;

    if ((int)h->nr < sqlite3_bind_parameter_count(h->st))
        sqlite3_clear_bindings(h->st);          /* the rest are NULL */
    if (h->ints)
        return bind_ints(h->st, 1, h, p);
    for (i = 0; i < h->nr && rc == SQLITE_OK; i++)
        rc = bind(h->st, (int)i + 1, p);
    return rc;
}

static int step(sqlite3_stmt *st, int rc)
{
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc;
}

/* The batch the rows at p start, when there are enough of them in a row
 * (all integers, as many as the first has): its bytes, else 0. */
static size_t batch_len(const sqq *q, const char *p, const char *end, const batch **b)
{
    const char *s = p;
    row_head h, first;
    unsigned i, k;

    memcpy(&first, p, sizeof(first));
    for (i = 0; i < q->nr_batches && q->batches[i].one != first.st; i++)
        ;
    if (i == q->nr_batches || !first.ints)
        return 0;
    *b = &q->batches[i];
    for (k = 0; k < (*b)->n; k++, p += h.len) {
        if (p >= end)
            return 0;
        memcpy(&h, p, sizeof(h));
        if (h.st != first.st || !h.ints || h.nr != first.nr)
            return 0;
    }
    return (size_t)(p - s);
}

/* the rows of a batch (batch_len()) as one statement */
static int run_batch(const batch *b, const char *p)
{
    row_head h;
    unsigned k;
    int rc = SQLITE_OK;

    for (k = 0; k < b->n && rc == SQLITE_OK; k++) {
        memcpy(&h, p, sizeof(h));
        p += sizeof(h);
        rc = bind_ints(b->many, 1 + (int)(k * h.nr), &h, &p);
    }
    return step(b->many, rc);
}

/* bind and step each row of data; -1 at the first that fails (reported) */
static int run_rows(sqq *q, const char *data, size_t len)
{
    const char *p = data, *end = data + len;
    const batch *b;
    row_head h;
    size_t n;
    int rc;

    while (p < end) {
        if (q->nr_batches > 0 && (n = batch_len(q, p, end, &b)) > 0) {
            rc = run_batch(b, p);
            p += n;
        } else {
            memcpy(&h, p, sizeof(h));
            p += sizeof(h);
            rc = step(h.st, bind_row(&h, &p));
        }
        if (rc != SQLITE_DONE) {
            q->err_fn(q->ctx, "cannot insert");
            return -1;
        }
    }
    return 0;
}

static void *writer_main(void *arg)
{
    sqq *q = arg;
    chunk *c;
    int failed;

    pthread_mutex_lock(&q->mu);
    for (;;) {
        while (q->head == NULL && !q->stop)
            pthread_cond_wait(&q->work, &q->mu);
        if ((c = q->head) == NULL)
            break;
        if ((q->head = c->next) == NULL)
            q->tail = NULL;
        q->busy = 1;
        failed = q->failed;
        pthread_mutex_unlock(&q->mu);
        if (!failed && run_rows(q, c->data, c->len) < 0)
            failed = 1;
        if (!failed && q->chunk_fn != NULL)
            q->chunk_fn(q->ctx, c->len);
        pthread_mutex_lock(&q->mu);
        q->failed |= failed;
        c->len = 0;
        c->next = q->spare;
        q->spare = c;
        q->busy = 0;
        pthread_cond_broadcast(&q->done);
    }
    pthread_mutex_unlock(&q->mu);
    return NULL;
}

/* --- the reader --------------------------------------------------------------- */

sqq *sqq_new(sqlite3 *db, void (*err_fn)(void *ctx, const char *what),
             void (*chunk_fn)(void *ctx, size_t bytes), void *ctx)
{
    sqq *q = calloc(1, sizeof(*q));

    if (q == NULL)
        return NULL;
    q->db = db;
    q->err_fn = err_fn;
    q->chunk_fn = chunk_fn;
    q->ctx = ctx;
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->work, NULL);
    pthread_cond_init(&q->done, NULL);
    q->threaded = pthread_create(&q->thread, NULL, writer_main, q) == 0;
    return q;
}

/* with q->mu held: the reader's chunk to the writer */
static void hand_over(sqq *q)
{
    if (q->cur == NULL || q->cur->len == 0)
        return;
    q->cur->next = NULL;
    if (q->tail != NULL)
        q->tail->next = q->cur;
    else
        q->head = q->cur;
    q->tail = q->cur;
    q->cur = NULL;
    pthread_cond_signal(&q->work);
}

/* hand the current chunk over and take an empty one (waiting while the
 * writer is MAX_CHUNKS behind): 0, or -1 when out of memory */
static int next_chunk(sqq *q)
{
    chunk *c;

    pthread_mutex_lock(&q->mu);
    hand_over(q);
    while (q->spare == NULL && q->nr_chunks >= MAX_CHUNKS)
        pthread_cond_wait(&q->done, &q->mu);
    if ((c = q->spare) != NULL)
        q->spare = c->next;
    else if ((c = malloc(sizeof(*c))) != NULL)
        q->nr_chunks++;
    q->failed_seen = q->failed;
    pthread_mutex_unlock(&q->mu);
    if (c == NULL)
        return -1;
    c->len = 0;
    q->cur = c;
    return 0;
}

int sqq_batch(sqq *q, sqlite3_stmt *one, sqlite3_stmt *many, unsigned n)
{
    if (sqq_sync(q) < 0)
        return -1;
    if (q->nr_batches < MAX_BATCHES && n > 1)
        q->batches[q->nr_batches++] = (batch){ one, many, n };
    return 0;
}

int sqq_sync(sqq *q)
{
    if (!q->threaded)
        return q->failed_seen ? -1 : 0;
    pthread_mutex_lock(&q->mu);
    hand_over(q);
    while (q->head != NULL || q->busy)
        pthread_cond_wait(&q->done, &q->mu);
    q->failed_seen = q->failed;
    pthread_mutex_unlock(&q->mu);
    return q->failed_seen ? -1 : 0;
}

void sqq_start(sqq *q, sqlite3_stmt *st)
{
    row_head h = { st, 0, 0, 0, 0 };

    q->row.len = 0;
    lb_mem(&q->row, (const char *)&h, sizeof(h));
}

static void value(sqq *q, char type, const void *v, size_t n)
{
    lb_putc(&q->row, type);
    if (n > 0)
        lb_mem(&q->row, v, n);
    ((row_head *)(void *)q->row.p)->nr++;
}

void sqq_int(sqq *q, int64_t v)
{
    value(q, 'i', &v, 8);
}

void sqq_null(sqq *q)
{
    value(q, 'n', NULL, 0);
}

static void bytes(sqq *q, char type, const void *p, size_t n)
{
    uint64_t len = n;

    if (p == NULL) {
        sqq_null(q);
        return;
    }
    value(q, type, &len, 8);
    lb_mem(&q->row, p, n);
}

void sqq_text(sqq *q, const char *s, size_t n)
{
    bytes(q, 't', s, n);
}

void sqq_blob(sqq *q, const void *p, size_t n)
{
    bytes(q, 'b', p, n);
}

/* Room for a row of len bytes: the end of the reader's chunk, or q->row
 * without a thread or for a row no chunk holds. NULL when out of memory
 * (reported). */
static char *row_space(sqq *q, size_t len)
{
    if (!q->threaded || len > CHUNK_SIZE) {
        q->row.len = 0;
        if (lb_reserve(&q->row, len) < 0) {
            q->err_fn(q->ctx, NULL);
            return NULL;
        }
        return q->row.p;
    }
    if ((q->cur == NULL || q->cur->len + len > CHUNK_SIZE) && next_chunk(q) < 0) {
        q->err_fn(q->ctx, NULL);
        return NULL;
    }
    return q->cur->data + q->cur->len;
}

/* The row of len bytes at row_space() is complete: queued, or written
 * here, in turn (row_space() did not give a chunk). 0, or -1 when this or
 * an earlier row failed. */
static int row_done(sqq *q, size_t len)
{
    if (!q->threaded || len > CHUNK_SIZE) {
        if (sqq_sync(q) < 0)
            return -1;
        if (run_rows(q, q->row.p, len) < 0)
            q->failed_seen = 1;
        return q->failed_seen ? -1 : 0;
    }
    q->cur->len += len;
    return q->failed_seen ? -1 : 0;
}

int sqq_end(sqq *q)
{
    row_head *h = (row_head *)(void *)q->row.p;
    char *p;

    if (q->row.oom) {
        q->err_fn(q->ctx, NULL);
        return -1;
    }
    h->len = (uint32_t)q->row.len;
    if (!q->threaded || q->row.len > CHUNK_SIZE)
        return row_done(q, q->row.len);
    if ((p = row_space(q, q->row.len)) == NULL)
        return -1;
    memcpy(p, q->row.p, q->row.len);
    return row_done(q, q->row.len);
}

int sqq_ints(sqq *q, sqlite3_stmt *st, const int64_t *v, unsigned n, uint64_t nulls)
{
    row_head h = { st, (uint32_t)(sizeof(h) + (size_t)n * 8), (uint16_t)n, 1, nulls };
    char *p;

    if ((p = row_space(q, h.len)) == NULL)
        return -1;
    memcpy(p, &h, sizeof(h));
    memcpy(p + sizeof(h), v, (size_t)n * 8);
    return row_done(q, h.len);
}

static void free_chunks(chunk *c)
{
    chunk *next;

    for (; c != NULL; c = next) {
        next = c->next;
        free(c);
    }
}

void sqq_free(sqq *q)
{
    if (q == NULL)
        return;
    if (q->threaded) {
        sqq_sync(q);
        pthread_mutex_lock(&q->mu);
        q->stop = 1;
        pthread_cond_signal(&q->work);
        pthread_mutex_unlock(&q->mu);
        pthread_join(q->thread, NULL);
    }
    free(q->cur);
    free_chunks(q->spare);
    free_chunks(q->head);
    pthread_cond_destroy(&q->work);
    pthread_cond_destroy(&q->done);
    pthread_mutex_destroy(&q->mu);
    lb_free(&q->row);
    free(q);
}
