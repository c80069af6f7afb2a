/* SPDX-License-Identifier: MIT */
/*
 * sqlite_db.c - the output database of `perfsift sqlite` (sqlite_db.h).
 *
 * The schema is schemas/sqlite.sql, turned into a C string by the Makefile
 * (build/gen/sqlite_schema.inc) and run section by section; nothing here
 * names a column. The file is written as perf's script writes it (journal
 * off, one transaction) but under a temp name: without a journal an
 * interrupted run cannot be rolled back, so it must never be the target.
 * Rows are inserted by a thread of their own (sqlite_queue.h): every
 * function here that uses the connection otherwise waits for it first.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sqlite_db.h"

static const char schema_sql[] =
#include "sqlite_schema.inc"
    ;

/* removed by the signal handler; the one temp file of the process */
static char *volatile live_tmp;

static void on_signal(int sig)
{
    if (live_tmp != NULL)
        unlink(live_tmp);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void catch_signals(void)
{
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
    struct sigaction sa;
    size_t i;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        sigaction(sigs[i], &sa, NULL);
}

static int db_error(sqdb *d, const char *what)
{
    fprintf(stderr, "perfsift %s: %s: %s: %s\n", d->cmd, d->path, what,
            d->db ? sqlite3_errmsg(d->db) : "out of memory");
    return -1;
}

/* a failed insert, told by the queue's writer thread */
static void insert_error(void *ctx, const char *what)
{
    sqdb *d = ctx;

    if (what != NULL)
        db_error(d, what);
    else
        fprintf(stderr, "perfsift %s: out of memory\n", d->cmd);
}

/*
 * After every 8 MB of queued rows (a few MB of file), from the writer
 * thread: have the kernel start writing what SQLite has written so far
 * (sync_file_range() returns without waiting), so that the fsync() before
 * the rename (sqdb_commit()) finds little left to do.
 */
static void wrote_chunk(void *ctx, size_t bytes)
{
    sqdb *d = ctx;

    d->wb_bytes += bytes;
    if (d->wb_fd >= 0 && d->wb_bytes >= ((size_t)8 << 20)) {
        d->wb_bytes = 0;
        sync_file_range(d->wb_fd, 0, 0, SYNC_FILE_RANGE_WRITE);
    }
}

int sqdb_sync(sqdb *d)
{
    return d->q != NULL ? sqq_sync(d->q) : 0;
}

/* the existing database, byte for byte, into the temp file */
static int copy_into(int out, const char *from)
{
    char buf[1 << 16];
    ssize_t n;
    int in = open(from, O_RDONLY);

    if (in < 0)
        return -1;
    while ((n = read(in, buf, sizeof(buf))) > 0)
        if (write(out, buf, (size_t)n) != n) {
            n = -1;
            break;
        }
    close(in);
    return n < 0 ? -1 : 0;
}

/* the finished database into a target that is no regular file */
static int copy_out(const sqdb *d)
{
    int fd = open(d->path, O_WRONLY | O_CLOEXEC), rc;

    if (fd < 0)
        return -1;
    rc = copy_into(fd, d->tmp);
    if (close(fd) < 0)
        rc = -1;
    return rc;
}

/*
 * The temp file: beside dest, so that the rename is atomic; in $TMPDIR when
 * there is no dest (a device or FIFO cannot have files beside it: /dev is
 * root's). Its mode is a new file's (or the target's, when appending).
 */
static int make_tmp(sqdb *d, int append, const struct stat *st)
{
    const char *dir = getenv("TMPDIR");
    size_t n;
    mode_t um = umask(0);
    int fd;

    umask(um);
    if (dir == NULL || dir[0] == 0)
        dir = "/tmp";
    n = (d->dest ? strlen(d->dest) : strlen(dir) + 16) + 16;
    if ((d->tmp = malloc(n)) == NULL) {
        fprintf(stderr, "perfsift %s: out of memory\n", d->cmd);
        return -1;
    }
    if (d->dest != NULL)
        snprintf(d->tmp, n, "%s.tmp.XXXXXX", d->dest);
    else
        snprintf(d->tmp, n, "%s/perfsift-sqlite.XXXXXX", dir);
    if ((fd = mkstemp(d->tmp)) < 0) {
        fprintf(stderr, "perfsift %s: cannot create %s: %s\n", d->cmd, d->tmp, strerror(errno));
        free(d->tmp);
        d->tmp = NULL;
        return -1;
    }
    live_tmp = d->tmp;
    catch_signals();
    if (fchmod(fd, append ? st->st_mode & 07777 : 0666 & ~um) < 0 ||
        (append && copy_into(fd, d->path) < 0) || close(fd) < 0) {
        fprintf(stderr, "perfsift %s: cannot write %s: %s\n", d->cmd, d->tmp, strerror(errno));
        return -1;
    }
    return 0;
}

int sqdb_open(sqdb *d, const char *cmd, const char *path, int append, int force)
{
    struct stat st;
    int exists = stat(path, &st) == 0;

    memset(d, 0, sizeof(*d));
    d->wb_fd = -1;
    d->cmd = cmd;
    d->path = path;
    if (exists && S_ISDIR(st.st_mode)) {
        fprintf(stderr, "perfsift %s: %s is a directory\n", cmd, path);
        return -1;
    }
    if (exists && !S_ISREG(st.st_mode)) {
        /* /dev/null, /dev/stdout to a pipe, a FIFO: written into, never
         * replaced (a rename would put a file where the device was) */
        if (append) {
            fprintf(stderr, "perfsift %s: %s is not a regular file: --append needs a "
                    "database file\n", cmd, path);
            return -1;
        }
    } else if (exists && !append && !force) {
        fprintf(stderr, "perfsift %s: %s already exists (--force replaces it, "
                "--append adds to it)\n", cmd, path);
        return -1;
    } else if ((d->dest = exists ? realpath(path, NULL) : strdup(path)) == NULL) {
        fprintf(stderr, "perfsift %s: %s: %s\n", cmd, path, strerror(errno));
        return -1;
    }
    d->is_new = !(exists && append);
    if (make_tmp(d, !d->is_new, &st) < 0)
        goto fail;
    /* no counting of SQLite's memory, and the mutex taken for it at every
     * allocation: nothing here asks (an error only when SQLite is in use) */
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    if (sqlite3_open_v2(d->tmp, &d->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
                        NULL) != SQLITE_OK) {
        db_error(d, "cannot open");
        goto fail;
    }
    if (!d->is_new && sqdb_max_id(d, "samples") < 0)
        goto fail;      /* not a database this command wrote */
    /* the file is new to this process and nobody else's until renamed */
    if (sqdb_exec(d, "PRAGMA journal_mode = OFF") < 0 ||
        sqdb_exec(d, "PRAGMA synchronous = OFF") < 0 ||
        sqdb_exec(d, "PRAGMA locking_mode = EXCLUSIVE") < 0 ||
        sqdb_exec(d, "PRAGMA temp_store = MEMORY") < 0 ||
        /* rows are appended: a page is done once full, so a small cache
         * writes it then, from the writer thread, and leaves little for
         * the commit (at the end, when nothing else runs) */
        sqdb_exec(d, "PRAGMA cache_size = -4096") < 0 ||
        sqdb_exec(d, "BEGIN") < 0)
        goto fail;
    d->wb_fd = open(d->tmp, O_RDONLY | O_CLOEXEC);     /* -1: no early writeback */
    if ((d->q = sqq_new(d->db, insert_error, wrote_chunk, d)) == NULL) {
        fprintf(stderr, "perfsift %s: out of memory\n", cmd);
        goto fail;
    }
    return 0;
fail:
    sqdb_abort(d);
    return -1;
}

int sqdb_exec(sqdb *d, const char *sql)
{
    char *msg = NULL;

    if (sqdb_sync(d) < 0)
        return -1;
    if (sqlite3_exec(d->db, sql, NULL, NULL, &msg) == SQLITE_OK)
        return 0;
    fprintf(stderr, "perfsift %s: %s: %s\n", d->cmd, d->path, msg ? msg : "out of memory");
    sqlite3_free(msg);
    return -1;
}

int sqdb_section(sqdb *d, const char *name)
{
    static const char mark[] = "-- @section ";
    const char *p = schema_sql, *end;
    char *sql;
    int rc;

    while ((p = strstr(p, mark)) != NULL) {
        p += sizeof(mark) - 1;
        if (strncmp(p, name, strlen(name)) == 0 && p[strlen(name)] == '\n')
            break;
    }
    if (p == NULL) {
        fprintf(stderr, "perfsift %s: schema has no section '%s'\n", d->cmd, name);
        return -1;
    }
    p += strlen(name);
    end = strstr(p, mark);
    if ((sql = strndup(p, end ? (size_t)(end - p) : strlen(p))) == NULL)
        return db_error(d, "schema");
    rc = sqdb_exec(d, sql);
    free(sql);
    return rc;
}

sqlite3_stmt *sqdb_prepare(sqdb *d, const char *sql)
{
    sqlite3_stmt *st = NULL;

    if (sqdb_sync(d) < 0)
        return NULL;
    if (sqlite3_prepare_v3(d->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) != SQLITE_OK)
        db_error(d, sql);
    return st;
}

int sqdb_batch(sqdb *d, sqlite3_stmt *st, const char *insert, unsigned n)
{
    const char *row = strstr(insert, "VALUES (");
    size_t head, len;
    sqlite3_stmt *many;
    char *sql, *p;
    unsigned i;

    if (row == NULL)
        return db_error(d, "a batch needs INSERT ... VALUES (...) (a bug)");
    row += strlen("VALUES ");
    head = (size_t)(row - insert);
    len = strlen(row);
    if ((sql = p = malloc(head + n * (len + 1) + 1)) == NULL)
        return db_error(d, "out of memory");
    memcpy(p, insert, head);
    for (p += head, i = 0; i < n; i++, p += len + 1) {
        memcpy(p, row, len);
        p[len] = i + 1 < n ? ',' : '\0';
    }
    many = sqdb_prepare(d, sql);
    free(sql);
    return many != NULL ? sqq_batch(d->q, st, many, n) : -1;
}

static int64_t one_int(sqdb *d, const char *sql, int *missing)
{
    sqlite3_stmt *st = NULL;
    int64_t v = -1;

    if (sqdb_sync(d) < 0)
        return -1;
    if (sqlite3_prepare_v2(d->db, sql, -1, &st, NULL) != SQLITE_OK) {
        if (missing != NULL)
            *missing = 1;
        else
            db_error(d, "cannot read the database");
        return -1;
    }
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

int64_t sqdb_max_id(sqdb *d, const char *table)
{
    char sql[128];

    snprintf(sql, sizeof(sql), "SELECT coalesce(max(id), 0) FROM %s", table);
    return one_int(d, sql, NULL);
}

int sqdb_prepare_tables(sqdb *d, const sqdb_table *t, size_t n, sqlite3_stmt **st,
                        int64_t *last)
{
    size_t i;

    for (i = 0; i < n; i++)
        if ((st[i] = sqdb_prepare(d, t[i].insert)) == NULL ||
            (last[i] = sqdb_max_id(d, t[i].name)) < 0)
            return -1;
    return 0;
}

int sqdb_empty(sqdb *d, const char *table)
{
    char sql[128];
    int missing = 0;
    int64_t n;

    snprintf(sql, sizeof(sql), "SELECT count(*) FROM (SELECT 1 FROM %s LIMIT 1)", table);
    n = one_int(d, sql, &missing);
    return missing ? -1 : n == 0;
}

/* sqdb_row() of a row with no text or blob: the integers in one go */
static int int_row(sqdb *d, sqlite3_stmt *st, const char *types, va_list ap)
{
    int64_t v[64];
    uint64_t nulls = 0, u;
    unsigned i;

    for (i = 0; types[i]; i++) {
        switch (types[i]) {
        case 'i': v[i] = va_arg(ap, int64_t); break;
        case 'u': v[i] = (int64_t)va_arg(ap, uint64_t); break;
        case 'd': v[i] = va_arg(ap, int); break;
        case 'o':
            u = va_arg(ap, uint64_t);
            v[i] = (int64_t)u;
            nulls |= (uint64_t)(u == UINT64_MAX) << i;
            break;
        default:        /* 'n' */
            v[i] = 0;
            nulls |= (uint64_t)1 << i;
            break;
        }
    }
    return sqdb_ints(d, st, v, i, nulls);
}

int sqdb_ints(sqdb *d, sqlite3_stmt *st, const int64_t *v, unsigned n, uint64_t nulls)
{
    return sqq_ints(d->q, st, v, n, nulls);
}

int sqdb_row(sqdb *d, sqlite3_stmt *st, const char *types, ...)
{
    va_list ap;
    const char *t, *s;
    uint64_t v;
    int rc;

    va_start(ap, types);
    if (strlen(types) <= 64 && strspn(types, "iudon") == strlen(types)) {
        rc = int_row(d, st, types, ap);
        va_end(ap);
        return rc;
    }
    sqq_start(d->q, st);
    for (t = types; *t; t++) {
        switch (*t) {
        case 'i': sqq_int(d->q, va_arg(ap, int64_t)); break;
        case 'u': sqq_int(d->q, (int64_t)va_arg(ap, uint64_t)); break;
        case 'd': sqq_int(d->q, va_arg(ap, int)); break;
        case 'n': sqq_null(d->q); break;
        case 'o':
            if ((v = va_arg(ap, uint64_t)) == UINT64_MAX)
                sqq_null(d->q);
            else
                sqq_int(d->q, (int64_t)v);
            break;
        case 't':
            s = va_arg(ap, const char *);
            sqq_text(d->q, s, s ? strlen(s) : 0);
            break;
        case 'b':
            s = va_arg(ap, const void *);
            sqq_blob(d->q, s, va_arg(ap, size_t));
            break;
        default:
            va_end(ap);
            return db_error(d, "bad row type (a bug)");
        }
    }
    va_end(ap);
    return sqq_end(d->q);
}

static int drop(sqdb *d, const char *table)
{
    char sql[128];

    snprintf(sql, sizeof(sql), "DROP VIEW IF EXISTS %s_view; DROP TABLE IF EXISTS %s",
             table, table);
    return sqdb_exec(d, sql);
}

/* export-to-sqlite's trace_end(): its empty tables go, with their views */
static int drop_empty(sqdb *d)
{
    static const char *const power[] = { "mwait", "pwre", "exstop", "pwrx" };
    size_t i;
    int rc = 0, all = 1;

    if (sqdb_empty(d, "ptwrite") == 1)
        rc |= drop(d, "ptwrite");
    for (i = 0; i < 4; i++)
        all &= sqdb_empty(d, power[i]) == 1;
    if (all) {
        rc |= sqdb_exec(d, "DROP VIEW IF EXISTS power_events_view");
        for (i = 0; i < 4; i++)
            rc |= drop(d, power[i]);
        if (sqdb_empty(d, "cbr") == 1)
            rc |= drop(d, "cbr");
    }
    if (sqdb_empty(d, "context_switches") == 1)
        rc |= drop(d, "context_switches");
    return rc;
}

static void close_db(sqdb *d)
{
    sqlite3_stmt *st;

    sqq_free(d->q);             /* its thread stops before the statements go */
    d->q = NULL;
    if (d->wb_fd >= 0)
        close(d->wb_fd);
    d->wb_fd = -1;
    if (d->db == NULL)
        return;
    while ((st = sqlite3_next_stmt(d->db, NULL)) != NULL)
        sqlite3_finalize(st);
    sqlite3_close(d->db);
    d->db = NULL;
}

int sqdb_commit(sqdb *d)
{
    int fd, ok;

    if (sqdb_sync(d) < 0 || drop_empty(d) < 0 || sqdb_exec(d, "COMMIT") < 0) {
        sqdb_abort(d);
        return -1;
    }
    close_db(d);
    /* the rename must not publish a file whose bytes are still in flight */
    ok = (fd = open(d->tmp, O_RDONLY)) >= 0 && fsync(fd) == 0;
    if (fd >= 0 && close(fd) < 0)
        ok = 0;
    if (!ok || (d->dest != NULL ? rename(d->tmp, d->dest) : copy_out(d)) < 0) {
        fprintf(stderr, "perfsift %s: cannot write %s: %s\n", d->cmd, d->path, strerror(errno));
        sqdb_abort(d);
        return -1;
    }
    if (d->dest == NULL)
        unlink(d->tmp);
    live_tmp = NULL;
    free(d->tmp);
    free(d->dest);
    d->tmp = d->dest = NULL;
    return 0;
}

void sqdb_abort(sqdb *d)
{
    close_db(d);
    if (d->tmp != NULL) {
        unlink(d->tmp);
        live_tmp = NULL;
        free(d->tmp);
        d->tmp = NULL;
    }
    free(d->dest);
    d->dest = NULL;
}
