/* SPDX-License-Identifier: MIT */
/*
 * sqlite_queue.h - rows handed to a writer thread, so that SQLite's inserts
 * run while the capture is read and resolved (about a third of the time
 * each way on the bench capture; they used to take turns).
 *
 * A row is its prepared statement and its values, copied into a chunk;
 * full chunks go to the thread, which binds and steps them in order. At
 * most MAX_CHUNKS chunks exist, so memory stays flat: the reader waits
 * when the writer is that far behind. Only the thread uses the connection
 * while rows are queued; sqq_sync() waits for it to be done before anyone
 * else may. Without a thread (it could not start) rows run at once.
 */
#ifndef PS_CMD_SQLITE_QUEUE_H
#define PS_CMD_SQLITE_QUEUE_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sqq sqq;

/** A queue writing into db; err_fn(ctx, what) reports a failed insert
 * (from the writer thread; what NULL: out of memory); chunk_fn(ctx, bytes),
 * if not NULL, is called by the writer thread after each chunk of rows it
 * wrote (bytes: the chunk's). NULL when out of memory. */
sqq *sqq_new(sqlite3 *db, void (*err_fn)(void *ctx, const char *what),
             void (*chunk_fn)(void *ctx, size_t bytes), void *ctx);
/** Write what is queued, stop the thread. Accepts NULL. */
void sqq_free(sqq *q);

/** Start a row of st; then one value per parameter, in order (fewer: the
 * rest are NULL), then sqq_end(). */
void sqq_start(sqq *q, sqlite3_stmt *st);
void sqq_int(sqq *q, int64_t v);
void sqq_null(sqq *q);
/** s NULL: a NULL; else n bytes of UTF-8 text */
void sqq_text(sqq *q, const char *s, size_t n);
/** p NULL: a NULL (as sqlite3_bind_blob); else n bytes */
void sqq_blob(sqq *q, const void *p, size_t n);
/** Queue the row (or run it, without a thread). 0, or -1 when an insert
 * failed or memory ran out (reported). */
int  sqq_end(sqq *q);

/** A row of st of n (at most 64) integers, v[i], NULL where bit i of
 * nulls is set: as sqq_start(), sqq_int()/sqq_null() and sqq_end(), with
 * one copy. 0, or -1 as sqq_end(). */
int  sqq_ints(sqq *q, sqlite3_stmt *st, const int64_t *v, unsigned n, uint64_t nulls);

/**
 * Have n rows of integers of one that follow each other run as one
 * statement many, which inserts them all (`INSERT ... VALUES (...), ...`,
 * each row's values in turn): SQLite's work per statement is then done
 * once for them. Call with nothing queued for one yet. 0, or -1 when an
 * earlier row failed.
 */
int  sqq_batch(sqq *q, sqlite3_stmt *one, sqlite3_stmt *many, unsigned n);

/** Wait until every row is written. 0, or -1 when one failed (reported). */
int  sqq_sync(sqq *q);

#endif /* PS_CMD_SQLITE_QUEUE_H */
