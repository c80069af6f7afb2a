/* SPDX-License-Identifier: MIT */
/*
 * sqlite_insert_floor.c SRC.db DST.db - SQLite's own limit for the rows of
 * a `perfsift sqlite` database: DST gets SRC's tables (no views, no
 * indexes) and every row, read and inserted with prepared statements in
 * one transaction, journal and sync off, as perfsift writes. Prints the
 * number of rows. tests/bench_sqlite.sh times it against perfsift sqlite.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

static void die(sqlite3 *db, const char *what)
{
    fprintf(stderr, "sqlite_insert_floor: %s: %s\n", what, sqlite3_errmsg(db));
    exit(1);
}

static long copy_table(sqlite3 *src, sqlite3 *dst, const char *name, const char *create)
{
    char sql[512], *p;
    sqlite3_stmt *rd, *wr;
    long n = 0;
    int i, nc;

    if (sqlite3_exec(dst, create, NULL, NULL, NULL) != SQLITE_OK)
        die(dst, create);
    snprintf(sql, sizeof(sql), "SELECT * FROM \"%s\"", name);
    if (sqlite3_prepare_v2(src, sql, -1, &rd, NULL) != SQLITE_OK)
        die(src, sql);
    nc = sqlite3_column_count(rd);
    p = sql + snprintf(sql, sizeof(sql), "INSERT INTO \"%s\" VALUES (?", name);
    for (i = 1; i < nc && p < sql + sizeof(sql) - 4; i++)
        p += sprintf(p, ",?");
    strcpy(p, ")");
    if (sqlite3_prepare_v2(dst, sql, -1, &wr, NULL) != SQLITE_OK)
        die(dst, sql);
    while (sqlite3_step(rd) == SQLITE_ROW) {
        for (i = 0; i < nc; i++)
            sqlite3_bind_value(wr, i + 1, sqlite3_column_value(rd, i));
        if (sqlite3_step(wr) != SQLITE_DONE)
            die(dst, name);
        sqlite3_reset(wr);
        n++;
    }
    sqlite3_finalize(rd);
    sqlite3_finalize(wr);
    return n;
}

int main(int argc, char **argv)
{
    sqlite3 *src, *dst;
    sqlite3_stmt *t;
    long rows = 0;

    if (argc != 3) {
        fprintf(stderr, "usage: sqlite_insert_floor SRC.db DST.db\n");
        return 2;
    }
    if (sqlite3_open_v2(argv[1], &src, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
        die(src, argv[1]);
    if (sqlite3_open(argv[2], &dst) != SQLITE_OK)
        die(dst, argv[2]);
    sqlite3_exec(dst, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN",
                 NULL, NULL, NULL);
    if (sqlite3_prepare_v2(src, "SELECT name, sql FROM sqlite_master WHERE type = 'table'",
                           -1, &t, NULL) != SQLITE_OK)
        die(src, "sqlite_master");
    while (sqlite3_step(t) == SQLITE_ROW)
        rows += copy_table(src, dst, (const char *)sqlite3_column_text(t, 0),
                           (const char *)sqlite3_column_text(t, 1));
    sqlite3_finalize(t);
    if (sqlite3_exec(dst, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        die(dst, "COMMIT");
    sqlite3_close(dst);
    sqlite3_close(src);
    printf("%ld\n", rows);
    return 0;
}
