/* SPDX-License-Identifier: MIT */
/*
 * sqlite_capture.c - a capture's own rows (sqlite_capture.h): its captures
 * row (the machine its rows carry, the HEADER_* facts, counts), the header
 * text `perfsift info --header` prints (header_print.c, one row a line) and
 * an events row per attr. Written at the end of the walk: in pipe mode the
 * features arrive as records, and the counts need the whole capture.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "header_print.h"
#include "sqlite_capture.h"

int64_t sqcap_next_id(sqdb *d)
{
    int64_t id = sqdb_max_id(d, "captures");

    return id < 0 ? -1 : id + 1;
}

/* the command line as one string, words joined by spaces */
static char *joined(const ps_strlist *l)
{
    size_t i, n = 1;
    char *s, *p;

    for (i = 0; i < l->nr; i++)
        n += strlen(l->strs[i]) + 1;
    if (l->nr == 0 || (s = p = malloc(n)) == NULL)
        return NULL;
    for (i = 0; i < l->nr; i++)
        p += sprintf(p, "%s%s", i ? " " : "", l->strs[i]);
    return s;
}

static int captures_row(sqdb *d, sqx *x, ps_session *s, int64_t id, const char *path,
                        const sqcap_stats *st)
{
    const ps_features *f = ps_session_features(s);
    sqlite3_stmt *ins = sqdb_prepare(d, "INSERT INTO captures VALUES "
                                        "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    char *cmdline = joined(&f->cmdline), when[32];
    time_t now = time(NULL);
    int rc;

    if (ins == NULL) {
        free(cmdline);
        return -1;
    }
    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    rc = sqdb_row(d, ins, "itotttttoootuuuoot", id, path, sqx_has_machine(x), f->hostname,
                  f->osrelease, f->version, f->arch, f->cpudesc,
                  f->nr_cpus_online ? (uint64_t)f->nr_cpus_online : UINT64_MAX,
                  f->nr_cpus_avail ? (uint64_t)f->nr_cpus_avail : UINT64_MAX,
                  f->total_mem ? f->total_mem : UINT64_MAX, cmdline,
                  ps_session_bytes_read(s), st->nr_records, st->nr_samples,
                  st->nr_samples ? st->first_time : UINT64_MAX,
                  st->nr_samples ? st->last_time : UINT64_MAX, when);
    free(cmdline);
    return rc;
}

/* header_print()'s text, a row per line */
static int header_rows(sqdb *d, ps_session *s, int64_t id, const char *path)
{
    sqlite3_stmt *ins = sqdb_prepare(d, "INSERT INTO header VALUES (?,?,?)");
    char *text = NULL, *line, *nl;
    size_t size = 0;
    FILE *fp;
    int64_t n = 0;
    int rc = 0;

    if (ins == NULL || (fp = open_memstream(&text, &size)) == NULL)
        return -1;
    header_print(fp, s, path);
    if (fclose(fp) != 0) {
        free(text);
        return -1;
    }
    for (line = text; rc == 0 && line != NULL && *line; line = nl) {
        if ((nl = strchr(line, '\n')) != NULL)
            *nl++ = '\0';
        rc = sqdb_row(d, ins, "iit", id, ++n, line);
    }
    free(text);
    return rc;
}

static int events_rows(sqdb *d, sqx *x, ps_session *s, int64_t id)
{
    sqlite3_stmt *ins = sqdb_prepare(d, "INSERT INTO events VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)");
    int64_t next = sqdb_max_id(d, "events");
    size_t i, n = ps_session_nr_evsels(s);

    if (ins == NULL || next < 0)
        return -1;
    for (i = 0; i < n; i++) {
        const ps_evsel *e = ps_session_evsel(s, i);
        const ps_attr *a = &e->attr;

        if (sqdb_row(d, ins, "iiitduudu" "uuuu", ++next, id, sqx_evsel_id(x, e), e->name,
                     (int)a->type, a->config, a->sample_period, ps_attr_flag(a, PS_ATTR_FREQ),
                     a->sample_type, a->read_format, a->branch_sample_type, a->flags,
                     e->nr_ids) < 0)
            return -1;
    }
    return 0;
}

int sqcap_write(sqdb *d, sqx *x, ps_session *s, int64_t capture_id, const char *path,
                const sqcap_stats *st)
{
    if (captures_row(d, x, s, capture_id, path, st) < 0 ||
        events_rows(d, x, s, capture_id) < 0 || header_rows(d, s, capture_id, path) < 0)
        return -1;
    return 0;
}
