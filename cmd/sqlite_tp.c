/* SPDX-License-Identifier: MIT */
/*
 * sqlite_tp.c - tracepoint fields as table rows (sqlite_tp.h). A table is
 * made the first time its event has a sample: "tracepoint_" + system + "_"
 * + event name (characters other than letters, digits and '_' become '_'),
 * a sample_id column (samples.id; not "id": raw_syscalls:sys_enter has a
 * field of that name) and one column per format field, in format
 * order: integer, text for strings, blob for other arrays (the payload's
 * bytes), named as the field unless that is sample_id or another field's
 * name (column_names()). With --append the table may be there already;
 * fields it lacks are added as columns, so the same event from another
 * kernel fits.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "sqlite_tp.h"
#include "../libparse/util.h"

typedef struct tp_table {
    const ps_tp_format *fmt;
    sqlite3_stmt       *insert;
} tp_table;

struct sqtp {
    sqdb     *d;
    tp_table *tables;           /* owned */
    size_t    nr, cap;
};

sqtp *sqtp_new(sqdb *d)
{
    sqtp *t = calloc(1, sizeof(*t));

    if (t == NULL)
        fprintf(stderr, "perfsift %s: out of memory\n", d->cmd);
    else
        t->d = d;
    return t;
}

void sqtp_free(sqtp *t)
{
    if (t == NULL)
        return;
    free(t->tables);
    free(t);
}

static const char *column_type(const ps_tp_field *f)
{
    if (f->flags & PS_TP_FIELD_STRING)
        return "text";
    return (f->flags & PS_TP_FIELD_ARRAY) ? "blob" : "integer";
}

static void table_name(char *buf, size_t size, const ps_tp_format *fmt)
{
    char *p;

    snprintf(buf, size, "tracepoint_%s_%s", fmt->system, fmt->name);
    for (p = buf; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_')
            *p = '_';
}

/* 1 when table already has column name (SQLite's names ignore ASCII case) */
static int has_column(sqdb *d, const char *table, const char *name)
{
    sqlite3_stmt *st;
    int found = 0;

    if (sqdb_sync(d) < 0 ||
        sqlite3_prepare_v2(d->db, "SELECT 1 FROM pragma_table_info(?) "
                           "WHERE name = ? COLLATE NOCASE", -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
    found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

/* name as an SQL identifier at p: quoted, its quotes doubled */
static char *put_ident(char *p, const char *name)
{
    *p++ = '"';
    for (; *name; name++)
        if ((*p++ = *name) == '"')
            *p++ = '"';
    *p++ = '"';
    *p = 0;
    return p;
}

/*
 * The column of each field: its name, unless that is sample_id or an
 * earlier field's (the format is the capture's, so anything): then "_"s
 * are added until it is neither. Names are compared as SQLite does,
 * ignoring ASCII case. Into cols[] (owned); -1 when out of memory.
 */
static int column_names(const ps_tp_format *fmt, char **cols)
{
    size_t i, j, n;
    int clash;

    for (i = 0; i < fmt->nr_fields; i++) {
        n = strlen(fmt->fields[i].name);
        if ((cols[i] = malloc(n + fmt->nr_fields + 2)) == NULL)
            return -1;
        memcpy(cols[i], fmt->fields[i].name, n + 1);
        do {
            clash = strcasecmp(cols[i], "sample_id") == 0;
            for (j = 0; j < i && !clash; j++)
                clash = strcasecmp(cols[i], cols[j]) == 0;
            if (clash) {
                cols[i][n++] = '_';
                cols[i][n] = 0;
            }
        } while (clash);
    }
    return 0;
}

/* the CREATE TABLE, ALTER TABLEs and INSERT of table, in sql (room enough) */
static sqlite3_stmt *table_sql(sqdb *d, const char *table, const ps_tp_format *fmt,
                               char **cols, char *sql)
{
    size_t i;
    char *p;

    p = put_ident(sql + sprintf(sql, "CREATE TABLE IF NOT EXISTS "), table);
    strcpy(p, " (sample_id integer NOT NULL PRIMARY KEY)");
    if (sqdb_exec(d, sql) < 0)
        return NULL;
    for (i = 0; i < fmt->nr_fields; i++) {
        if (has_column(d, table, cols[i]))
            continue;
        p = put_ident(sql + sprintf(sql, "ALTER TABLE "), table);
        p = put_ident(p + sprintf(p, " ADD COLUMN "), cols[i]);
        sprintf(p, " %s", column_type(&fmt->fields[i]));
        if (sqdb_exec(d, sql) < 0)
            return NULL;
    }
    p = put_ident(sql + sprintf(sql, "INSERT INTO "), table);
    p += sprintf(p, " (sample_id");
    for (i = 0; i < fmt->nr_fields; i++)
        p = put_ident(p + sprintf(p, ", "), cols[i]);
    p += sprintf(p, ") VALUES (?");
    for (i = 0; i < fmt->nr_fields; i++)
        p += sprintf(p, ", ?");
    sprintf(p, ")");
    return sqdb_prepare(d, sql);
}

/* CREATE TABLE and the missing columns; the INSERT of every field */
static sqlite3_stmt *make_table(sqdb *d, const ps_tp_format *fmt)
{
    size_t i, cap = 512;
    char table[256], **cols = calloc(fmt->nr_fields + 1, sizeof(*cols)), *sql = NULL;
    sqlite3_stmt *st = NULL;

    table_name(table, sizeof(table), fmt);
    if (cols != NULL && column_names(fmt, cols) == 0) {
        /* every name twice over (quotes doubled), a separator and a type */
        for (i = 0; i < fmt->nr_fields; i++)
            cap += 2 * strlen(cols[i]) + 16;
        if ((sql = malloc(cap)) != NULL)
            st = table_sql(d, table, fmt, cols, sql);
    }
    if (sql == NULL)
        fprintf(stderr, "perfsift %s: out of memory\n", d->cmd);
    for (i = 0; cols != NULL && i < fmt->nr_fields; i++)
        free(cols[i]);
    free(cols);
    free(sql);
    return st;
}

static sqlite3_stmt *table_for(sqtp *t, const ps_tp_format *fmt)
{
    size_t i;

    for (i = 0; i < t->nr; i++)
        if (t->tables[i].fmt == fmt)
            return t->tables[i].insert;
    if (ps_grow((void **)&t->tables, &t->cap, t->nr + 1, sizeof(tp_table)) < 0) {
        fprintf(stderr, "perfsift %s: out of memory\n", t->d->cmd);
        return NULL;
    }
    t->tables[t->nr].fmt = fmt;
    if ((t->tables[t->nr].insert = make_table(t->d, fmt)) == NULL)
        return NULL;
    return t->tables[t->nr++].insert;
}

static void add_value(sqq *q, const ps_tp_value *v)
{
    switch (v->kind) {
    case PS_TP_VALUE_INT:
        sqq_int(q, (v->field->flags & PS_TP_FIELD_SIGNED) ? v->i : (int64_t)v->u);
        break;
    case PS_TP_VALUE_STRING:
        sqq_text(q, v->str, v->len);
        break;
    default:
        sqq_blob(q, v->data, v->size);
    }
}

int sqtp_sample(sqtp *t, ps_session *s, const ps_event *ev, const ps_evsel *e,
                int64_t sample_id)
{
    const ps_tp_format *fmt;
    sqlite3_stmt *st;
    ps_tp_value v;
    ps_error err;
    size_t i;

    if (e->attr.type != PERF_TYPE_TRACEPOINT || !(ev->u.sample.sample_type & PERF_SAMPLE_RAW) ||
        ps_tracepoint_format(&fmt, s, e, &err) < 0)
        return 0;
    if ((st = table_for(t, fmt)) == NULL)
        return -1;
    sqq_start(t->d->q, st);
    sqq_int(t->d->q, sample_id);
    for (i = 0; ps_tracepoint_value(&v, s, ev, i, &err) == PS_OK; i++)
        add_value(t->d->q, &v);
    return sqq_end(t->d->q);
}
