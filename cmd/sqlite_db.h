/* SPDX-License-Identifier: MIT */
/*
 * sqlite_db.h - the database file `perfsift sqlite` writes: a temp file
 * beside the target (a copy of it with --append), the schema's sections
 * (schemas/sqlite.sql, embedded at build time), one transaction, prepared
 * inserts, and the rename that makes it appear whole. An error or SIGINT/
 * SIGTERM/SIGHUP removes the temp file; the target is never touched then.
 * A symlink is followed (its target is replaced, the link stays); a target
 * that is no regular file (/dev/null, /dev/stdout, a FIFO) is never
 * replaced: the finished file is copied into it from a temp file in
 * $TMPDIR.
 */
#ifndef PS_CMD_SQLITE_DB_H
#define PS_CMD_SQLITE_DB_H

#include <sqlite3.h>
#include <stdint.h>
#include "sqlite_queue.h"

typedef struct sqdb {
    const char *cmd;
    const char *path;           /* the target */
    char       *tmp;            /* owned: the file being written */
    char       *dest;           /* owned: what tmp is renamed to (path, its
                                   symlinks followed); NULL: copied into path */
    sqlite3    *db;
    int         is_new;         /* no database was there before (no --append) */
    sqq        *q;              /* owned: inserts go through it (sqdb_row());
                                   whatever else uses db calls sqdb_sync() */
    int         wb_fd;          /* owned: tmp, for writeback (-1: none) */
    size_t      wb_bytes;       /* the writer thread's: rows since writeback */
} sqdb;

/**
 * Create the temp file (with append, a copy of an existing path) and open
 * it in one transaction. An existing path is refused unless force or append.
 * @return 0, or -1 (message printed, nothing left behind)
 */
int  sqdb_open(sqdb *d, const char *cmd, const char *path, int append, int force);
/** Wait until the queued rows are written: db is the caller's until the
 * next row. 0, or -1 when an insert failed (printed). */
int  sqdb_sync(sqdb *d);
/** Run the schema section called name ("create", "fill", "finish"). 0 or -1 */
int  sqdb_section(sqdb *d, const char *name);
/** Run one statement. 0 or -1 (printed) */
int  sqdb_exec(sqdb *d, const char *sql);
/** Prepare a statement kept for the run. NULL on error (printed). */
sqlite3_stmt *sqdb_prepare(sqdb *d, const char *sql);
/**
 * Rows of st, the statement insert ("INSERT ... VALUES (...)"), go into the
 * database n at a time where they follow each other (sqq_batch()): one
 * statement of n rows instead of n. 0, or -1 (printed).
 */
int  sqdb_batch(sqdb *d, sqlite3_stmt *st, const char *insert, unsigned n);
/** A table rows go into: its name and INSERT statement. */
typedef struct sqdb_table { const char *name, *insert; } sqdb_table;
/**
 * Prepare the INSERT of each of the n tables into st[] and read their
 * largest ids into last[] (new ids continue from there). 0, or -1 (printed).
 */
int  sqdb_prepare_tables(sqdb *d, const sqdb_table *t, size_t n, sqlite3_stmt **st,
                         int64_t *last);
/** The largest id of table (0 when empty); -1 on error (printed). */
int64_t sqdb_max_id(sqdb *d, const char *table);
/** 1 when the table has no rows, 0 when it has, -1 when it does not exist. */
int  sqdb_empty(sqdb *d, const char *table);

/**
 * Bind values to st by type letters and run it: 'i' int64_t, 'u' uint64_t
 * (stored as its two's complement int64, as perf's export does), 'd' int
 * (as int64), 'o' uint64_t where UINT64_MAX means NULL, 't' const char *
 * (NULL: SQL NULL), 'n' a NULL, 'b' a blob
 * (const void *, size_t). The row is queued (d->q): 0, or -1 when this or
 * an earlier row failed (printed).
 */
int  sqdb_row(sqdb *d, sqlite3_stmt *st, const char *types, ...);
/** A row of n (at most 64) integers v[i], NULL where bit i of nulls is
 * set: sqdb_row() without the type letters. 0, or -1 as sqdb_row(). */
int  sqdb_ints(sqdb *d, sqlite3_stmt *st, const int64_t *v, unsigned n, uint64_t nulls);

/** Drop the empty tables export-to-sqlite drops, commit, close, rename. 0/-1 */
int  sqdb_commit(sqdb *d);
/** Close and remove the temp file (after an error). Accepts a closed d. */
void sqdb_abort(sqdb *d);

#endif /* PS_CMD_SQLITE_DB_H */
