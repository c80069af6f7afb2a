/* SPDX-License-Identifier: MIT */
/*
 * sqlite_records.c - non-sample records as rows (sqlite_records.h). One
 * row per record (per namespace link for NAMESPACES), in delivery order;
 * time and cpu come from the record's sample_id trailer and are NULL
 * without one (FORK, EXIT and THROTTLE carry their own time).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sqlite_records.h"

enum { R_MMAPS, R_THREAD_EVENTS, R_LOST, R_THROTTLE, R_CGROUPS, R_NAMESPACES, R_KSYMBOLS,
       R_BPF_EVENTS, NR_RTABLES };

static const sqdb_table rtables[NR_RTABLES] = {
    [R_MMAPS]         = { "mmaps", "INSERT INTO mmaps VALUES "
                                   "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)" },
    [R_THREAD_EVENTS] = { "thread_events",
                          "INSERT INTO thread_events VALUES (?,?,?,?,?,?,?,?,?,?,?)" },
    [R_LOST]          = { "lost", "INSERT INTO lost VALUES (?,?,?,?,?,?,?)" },
    [R_THROTTLE]      = { "throttle", "INSERT INTO throttle VALUES (?,?,?,?,?,?,?)" },
    [R_CGROUPS]       = { "cgroups", "INSERT INTO cgroups VALUES (?,?,?,?,?)" },
    [R_NAMESPACES]    = { "namespaces", "INSERT INTO namespaces VALUES (?,?,?,?,?,?,?,?,?)" },
    [R_KSYMBOLS]      = { "ksymbols", "INSERT INTO ksymbols VALUES (?,?,?,?,?,?,?,?)" },
    [R_BPF_EVENTS]    = { "bpf_events", "INSERT INTO bpf_events VALUES (?,?,?,?,?,?,?)" },
};

struct sqrec {
    sqdb         *d;
    int64_t       capture_id;
    sqlite3_stmt *st[NR_RTABLES];
    int64_t       last[NR_RTABLES];
};

sqrec *sqrec_new(sqdb *d, int64_t capture_id)
{
    sqrec *r = calloc(1, sizeof(*r));

    if (r == NULL) {
        fprintf(stderr, "perfsift %s: out of memory\n", d->cmd);
        return NULL;
    }
    r->d = d;
    r->capture_id = capture_id;
    if (sqdb_prepare_tables(d, rtables, NR_RTABLES, r->st, r->last) < 0) {
        free(r);
        return NULL;
    }
    return r;
}

void sqrec_free(sqrec *r)
{
    free(r);
}

/* the trailer's time and cpu, UINT64_MAX (NULL) when absent */
static uint64_t rec_time(const ps_event *ev)
{
    return ev->has_sample_id && (ev->sample_id.present & PERF_SAMPLE_TIME) ? ev->sample_id.time
                                                                           : UINT64_MAX;
}

static uint64_t rec_cpu(const ps_event *ev)
{
    return ev->has_sample_id && (ev->sample_id.present & PERF_SAMPLE_CPU) ? ev->sample_id.cpu
                                                                          : UINT64_MAX;
}

static int64_t next(sqrec *r, int t)
{
    return ++r->last[t];
}

static int mmap_row(sqrec *r, const ps_event *ev)
{
    unsigned cpumode = ev->misc & PERF_RECORD_MISC_CPUMODE_MASK;
    const ps_record_mmap *m = &ev->u.mmap;
    const ps_record_mmap2 *m2 = &ev->u.mmap2;
    char hex[41] = "";
    unsigned i;

    if (ev->type == PERF_RECORD_MMAP)
        return sqdb_row(r->d, r->st[R_MMAPS], "iioodddu" "uunnnnnnnt", next(r, R_MMAPS),
                        r->capture_id, rec_time(ev), rec_cpu(ev), cpumode, (int)m->pid,
                        (int)m->tid, m->start, m->len, m->pgoff, m->filename);
    if (!m2->has_build_id)
        return sqdb_row(r->d, r->st[R_MMAPS], "iioodddu" "uudduuddnt", next(r, R_MMAPS),
                        r->capture_id, rec_time(ev), rec_cpu(ev), cpumode, (int)m2->pid,
                        (int)m2->tid, m2->start, m2->len, m2->pgoff, (int)m2->maj,
                        (int)m2->min, m2->ino, m2->ino_generation, (int)m2->prot,
                        (int)m2->flags, m2->filename);
    /* the build-id takes the place of maj, min, ino and ino_generation */
    for (i = 0; i < m2->build_id_size && i < 20; i++)
        snprintf(hex + 2 * i, 3, "%02x", m2->build_id[i]);
    return sqdb_row(r->d, r->st[R_MMAPS], "iioodddu" "uunnnnddtt", next(r, R_MMAPS),
                    r->capture_id, rec_time(ev), rec_cpu(ev), cpumode, (int)m2->pid,
                    (int)m2->tid, m2->start, m2->len, m2->pgoff, (int)m2->prot,
                    (int)m2->flags, hex, m2->filename);
}

static int thread_row(sqrec *r, const ps_event *ev)
{
    const ps_record_fork *f = &ev->u.fork;

    if (ev->type == PERF_RECORD_COMM)
        return sqdb_row(r->d, r->st[R_THREAD_EVENTS], "iiootddnntd", next(r, R_THREAD_EVENTS),
                        r->capture_id, rec_time(ev), rec_cpu(ev), "COMM",
                        (int)ev->u.comm.pid, (int)ev->u.comm.tid, ev->u.comm.comm,
                        (ev->misc & PERF_RECORD_MISC_COMM_EXEC) != 0);
    return sqdb_row(r->d, r->st[R_THREAD_EVENTS], "iiuotddddnn", next(r, R_THREAD_EVENTS),
                    r->capture_id, f->time, rec_cpu(ev),
                    ev->type == PERF_RECORD_FORK ? "FORK" : "EXIT", (int)f->pid, (int)f->tid,
                    (int)f->ppid, (int)f->ptid);
}

static int lost_row(sqrec *r, const ps_event *ev)
{
    if (ev->type == PERF_RECORD_LOST)
        return sqdb_row(r->d, r->st[R_LOST], "iiootuu", next(r, R_LOST), r->capture_id,
                        rec_time(ev), rec_cpu(ev), "LOST", ev->u.lost.id, ev->u.lost.lost);
    return sqdb_row(r->d, r->st[R_LOST], "iiootnu", next(r, R_LOST), r->capture_id,
                    rec_time(ev), rec_cpu(ev), "LOST_SAMPLES", ev->u.lost_samples.lost);
}

static int throttle_row(sqrec *r, const ps_event *ev)
{
    const ps_record_throttle *t = &ev->u.throttle;

    return sqdb_row(r->d, r->st[R_THROTTLE], "iiuotuu", next(r, R_THROTTLE), r->capture_id,
                    t->time, rec_cpu(ev),
                    ev->type == PERF_RECORD_THROTTLE ? "THROTTLE" : "UNTHROTTLE", t->id,
                    t->stream_id);
}

static int cgroup_row(sqrec *r, const ps_event *ev)
{
    return sqdb_row(r->d, r->st[R_CGROUPS], "iiout", next(r, R_CGROUPS), r->capture_id,
                    rec_time(ev), ev->u.cgroup.id, ev->u.cgroup.path);
}

static int namespaces_rows(sqrec *r, const ps_event *ev)
{
    /* the kernel's *_NS_INDEX order, perf's perf_ns__names() */
    static const char *const names[] = { "net", "uts", "ipc", "pid", "user", "mnt", "cgroup" };
    const ps_record_namespaces *n = &ev->u.namespaces;
    uint64_t i;

    for (i = 0; i < n->nr_namespaces; i++)
        if (sqdb_row(r->d, r->st[R_NAMESPACES], "iioddituu", next(r, R_NAMESPACES),
                     r->capture_id, rec_time(ev), (int)n->pid, (int)n->tid, (int64_t)i,
                     i < sizeof(names) / sizeof(names[0]) ? names[i] : NULL,
                     n->link_info[i].dev, n->link_info[i].ino) < 0)
            return -1;
    return 0;
}

static int ksymbol_row(sqrec *r, const ps_event *ev)
{
    const ps_record_ksymbol *k = &ev->u.ksymbol;

    return sqdb_row(r->d, r->st[R_KSYMBOLS], "iioudddt", next(r, R_KSYMBOLS), r->capture_id,
                    rec_time(ev), k->addr, (int)k->len, (int)k->ksym_type, (int)k->flags,
                    k->name);
}

static int bpf_row(sqrec *r, const ps_event *ev)
{
    const ps_record_bpf_event *b = &ev->u.bpf_event;
    char tag[17];
    int i;

    for (i = 0; i < 8; i++)
        snprintf(tag + 2 * i, 3, "%02x", b->tag[i]);
    return sqdb_row(r->d, r->st[R_BPF_EVENTS], "iiodddt", next(r, R_BPF_EVENTS), r->capture_id,
                    rec_time(ev), (int)b->type, (int)b->flags, (int)b->id, tag);
}

static int (*const row_of[])(sqrec *r, const ps_event *ev) = {
    [PERF_RECORD_MMAP] = mmap_row,              [PERF_RECORD_MMAP2] = mmap_row,
    [PERF_RECORD_COMM] = thread_row,            [PERF_RECORD_FORK] = thread_row,
    [PERF_RECORD_EXIT] = thread_row,            [PERF_RECORD_LOST] = lost_row,
    [PERF_RECORD_LOST_SAMPLES] = lost_row,      [PERF_RECORD_THROTTLE] = throttle_row,
    [PERF_RECORD_UNTHROTTLE] = throttle_row,    [PERF_RECORD_CGROUP] = cgroup_row,
    [PERF_RECORD_NAMESPACES] = namespaces_rows, [PERF_RECORD_KSYMBOL] = ksymbol_row,
    [PERF_RECORD_BPF_EVENT] = bpf_row,
};

int sqrec_record(sqrec *r, const ps_event *ev)
{
    if (ev->type >= sizeof(row_of) / sizeof(row_of[0]) || row_of[ev->type] == NULL)
        return 0;
    return row_of[ev->type](r, ev);
}
