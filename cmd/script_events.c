/* SPDX-License-Identifier: MIT */
/*
 * script_events.c - perf script's text for non-sample records (perf 6.1's
 * perf_event__fprintf() bodies), which --show-*-events option gates each
 * type, and where the values of its prefix come from. The rules are written
 * out in script_events.h; this file is one table row per record type.
 *
 * Never touches raw bytes (libparse decoded them) nor machine state (the
 * caller owns threads); never calls back into script.c.
 */
#include <inttypes.h>
#include <string.h>
#include "script_events.h"

/* Where the prefix's thread comes from. */
enum thread_src {
    FROM_SAMPLE = 0,            /* the sample_id trailer's pid/tid */
    FROM_BODY                   /* the record's own pid/tid fields */
};

typedef size_t (*body_fn)(FILE *fp, const ps_event *ev, const char *sym);

/* --- bodies (util/event.c of perf 6.1) ------------------------------------- */

static size_t print_comm(FILE *fp, const ps_event *ev, const char *sym)
{
    const ps_record_comm *c = &ev->u.comm;

    (void)sym;
    return (size_t)fprintf(fp, "%s: %s:%d/%d\n",
                           (ev->misc & PERF_RECORD_MISC_COMM_EXEC) ? " exec" : "",
                           c->comm, (int)c->pid, (int)c->tid);
}

/* FORK and EXIT */
static size_t print_task(FILE *fp, const ps_event *ev, const char *sym)
{
    const ps_record_fork *f = &ev->u.fork;

    (void)sym;
    return (size_t)fprintf(fp, "(%d:%d):(%d:%d)\n", (int)f->pid, (int)f->tid,
                           (int)f->ppid, (int)f->ptid);
}

/* perf prints these with "%#lx": 0 comes out as "0", not "0x0". */
static int print_alt_hex(FILE *fp, uint64_t v)
{
    return v ? fprintf(fp, "%#" PRIx64, v) : fprintf(fp, "0");
}

static size_t print_map_range(FILE *fp, uint32_t pid, uint32_t tid, uint64_t start,
                              uint64_t len, uint64_t pgoff)
{
    int n = fprintf(fp, " %d/%d: [", (int)pid, (int)tid);

    n += print_alt_hex(fp, start);
    n += fprintf(fp, "(");
    n += print_alt_hex(fp, len);
    n += fprintf(fp, ") @ ");
    n += print_alt_hex(fp, pgoff);
    return (size_t)n;
}

static size_t print_mmap(FILE *fp, const ps_event *ev, const char *sym)
{
    const ps_record_mmap *m = &ev->u.mmap;
    size_t n = print_map_range(fp, m->pid, m->tid, m->start, m->len, m->pgoff);

    (void)sym;
    return n + (size_t)fprintf(fp, "]: %c %s\n",
                               (ev->misc & PERF_RECORD_MISC_MMAP_DATA) ? 'r' : 'x',
                               m->filename);
}

/* Where prot/flags sit in an MMAP2 record, and where the filename follows. */
enum { MMAP2_PROT_OFF = 64, MMAP2_NAME_OFF = 72 };

/*
 * Early MMAP2 producers wrote no prot/flags, and libparse then reads the
 * name from where prot would be. perf 6.1 does not know that layout: it
 * takes the name's first 8 bytes as prot/flags and prints the bytes after
 * them (the sample_id trailer, usually) up to a NUL. Mimic it within the
 * record; returns 0 when ev is not that case.
 */
static int early_mmap2(const ps_event *ev, uint32_t *prot, uint32_t *flags,
                       const char **name, size_t *name_len)
{
    const ps_record_mmap2 *m = &ev->u.mmap2;
    const uint8_t *p = ev->raw;
    const char *end;

    if (p == NULL || (const uint8_t *)m->filename != p + MMAP2_PROT_OFF ||
        ev->size < MMAP2_NAME_OFF)
        return 0;
    memcpy(prot, p + MMAP2_PROT_OFF, 4);
    memcpy(flags, p + MMAP2_PROT_OFF + 4, 4);
    *name = (const char *)p + MMAP2_NAME_OFF;
    end = memchr(*name, 0, (size_t)ev->size - MMAP2_NAME_OFF);
    *name_len = end ? (size_t)(end - *name) : (size_t)ev->size - MMAP2_NAME_OFF;
    return 1;
}

static size_t print_mmap2(FILE *fp, const ps_event *ev, const char *sym)
{
    const ps_record_mmap2 *m = &ev->u.mmap2;
    size_t n = print_map_range(fp, m->pid, m->tid, m->start, m->len, m->pgoff);
    uint32_t prot = m->prot, flags = m->flags;
    const char *name = m->filename;
    size_t name_len = strlen(name);

    (void)sym;
    early_mmap2(ev, &prot, &flags, &name, &name_len);
    if (ev->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
        unsigned i;

        n += (size_t)fprintf(fp, " <");
        for (i = 0; i < m->build_id_size && i < sizeof(m->build_id); i++)
            n += (size_t)fprintf(fp, "%02x", m->build_id[i]);
        n += (size_t)fprintf(fp, ">");
    } else {
        n += (size_t)fprintf(fp, " %02x:%02x %" PRIu64 " %" PRIu64,
                             (unsigned)m->maj, (unsigned)m->min, m->ino,
                             m->ino_generation);
    }
    /* PROT_READ 1, PROT_WRITE 2, PROT_EXEC 4; MAP_SHARED 1 */
    return n + (size_t)fprintf(fp, "]: %c%c%c%c %.*s\n",
                               (prot & 1) ? 'r' : '-', (prot & 2) ? 'w' : '-',
                               (prot & 4) ? 'x' : '-', (flags & 1) ? 's' : 'p',
                               (int)name_len, name);
}

static const char *const ns_names[] = { "net", "uts", "ipc", "pid", "user", "mnt", "cgroup" };

static size_t print_namespaces(FILE *fp, const ps_event *ev, const char *sym)
{
    const ps_record_namespaces *ns = &ev->u.namespaces;
    uint32_t nr = (uint32_t)ns->nr_namespaces;     /* perf keeps 32 bits of it */
    size_t n;
    uint32_t i;

    (void)sym;
    n = (size_t)fprintf(fp, " %d/%d - nr_namespaces: %u\n\t\t[",
                        (int)ns->pid, (int)ns->tid, nr);
    for (i = 0; i < nr && i < ns->nr_namespaces; i++) {
        const char *name = i < sizeof(ns_names) / sizeof(ns_names[0]) ? ns_names[i]
                                                                      : "UNKNOWN";

        if (i && i % 4 == 0)
            n += (size_t)fprintf(fp, "\n\t\t ");
        n += (size_t)fprintf(fp, "%u/%s: %" PRIu64 "/", i, name, ns->link_info[i].dev);
        n += (size_t)print_alt_hex(fp, ns->link_info[i].ino);
        n += (size_t)fprintf(fp, "%s", i + 1 != nr ? ", " : "]\n");
    }
    return n;
}

static size_t print_cgroup(FILE *fp, const ps_event *ev, const char *sym)
{
    (void)sym;
    return (size_t)fprintf(fp, " cgroup: %" PRIu64 " %s\n", ev->u.cgroup.id,
                           ev->u.cgroup.path);
}

static size_t print_aux(FILE *fp, const ps_event *ev, const char *sym)
{
    const ps_record_aux *a = &ev->u.aux;
    int n = fprintf(fp, " offset: ");

    (void)sym;
    n += print_alt_hex(fp, a->aux_offset);
    n += fprintf(fp, " size: ");
    n += print_alt_hex(fp, a->aux_size);
    n += fprintf(fp, " flags: ");
    n += print_alt_hex(fp, a->flags);
    n += fprintf(fp, " [%s%s%s]\n", (a->flags & PERF_AUX_FLAG_TRUNCATED) ? "T" : "",
                 (a->flags & PERF_AUX_FLAG_OVERWRITE) ? "O" : "",
                 (a->flags & PERF_AUX_FLAG_PARTIAL) ? "P" : "");
    return (size_t)n;
}

static size_t print_itrace_start(FILE *fp, const ps_event *ev, const char *sym)
{
    (void)sym;
    return (size_t)fprintf(fp, " pid: %u tid: %u\n", ev->u.itrace_start.pid,
                           ev->u.itrace_start.tid);
}

/* SWITCH and SWITCH_CPU_WIDE */
static size_t print_switch(FILE *fp, const ps_event *ev, const char *sym)
{
    int out = (ev->misc & PERF_RECORD_MISC_SWITCH_OUT) != 0;
    const char *in_out = !out ? "IN         "
                       : (ev->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) ? "OUT preempt"
                                                                         : "OUT        ";

    (void)sym;
    if (ev->type == PERF_RECORD_SWITCH)
        return (size_t)fprintf(fp, " %s\n", in_out);
    return (size_t)fprintf(fp, " %s  %s pid/tid: %5d/%-5d\n", in_out, out ? "next" : "prev",
                           (int)ev->u.switch_cpu_wide.next_prev_pid,
                           (int)ev->u.switch_cpu_wide.next_prev_tid);
}

static size_t print_lost(FILE *fp, const ps_event *ev, const char *sym)
{
    (void)sym;
    return (size_t)fprintf(fp, " lost %" PRIu64 "\n", ev->u.lost.lost);
}

static size_t print_ksymbol(FILE *fp, const ps_event *ev, const char *sym)
{
    const ps_record_ksymbol *k = &ev->u.ksymbol;

    (void)sym;
    return (size_t)fprintf(fp, " addr %" PRIx64 " len %u type %u flags 0x%x name %s\n",
                           k->addr, k->len, (unsigned)k->ksym_type, (unsigned)k->flags,
                           k->name);
}

static size_t print_bpf_event(FILE *fp, const ps_event *ev, const char *sym)
{
    const ps_record_bpf_event *b = &ev->u.bpf_event;

    (void)sym;
    return (size_t)fprintf(fp, " type %u, flags %u, id %u\n", (unsigned)b->type,
                           (unsigned)b->flags, b->id);
}

/* perf's binary__fprintf() with the text-poke printer: 16 bytes a line. */
static size_t print_poke_bytes(FILE *fp, const char *what, const uint8_t *p, size_t len)
{
    size_t n = 0, i;

    for (i = 0; i < len; i++) {
        if (i % 16 == 0)
            n += (size_t)fprintf(fp, "            %s bytes:", what);
        n += (size_t)fprintf(fp, " %02x", p[i]);
        if (i % 16 == 15 || i == len - 1)
            n += (size_t)fprintf(fp, "\n");
    }
    return n;
}

static size_t print_text_poke(FILE *fp, const ps_event *ev, const char *sym)
{
    const ps_record_text_poke *t = &ev->u.text_poke;
    size_t n = (size_t)fprintf(fp, " %" PRIx64 " %s", t->addr, sym ? sym : "");

    n += (size_t)fprintf(fp, " old len %u new len %u\n", (unsigned)t->old_len,
                         (unsigned)t->new_len);
    n += print_poke_bytes(fp, "Old", t->bytes, t->old_len);
    return n + print_poke_bytes(fp, "New", t->bytes + t->old_len, t->new_len);
}

static size_t print_aux_output_hw_id(FILE *fp, const ps_event *ev, const char *sym)
{
    int n = fprintf(fp, " hw_id: ");

    (void)sym;
    n += print_alt_hex(fp, ev->u.aux_output_hw_id.hw_id);
    return (size_t)(n + fprintf(fp, "\n"));
}

/* --- the table ---------------------------------------------------------------- */

/* show: the options that print the type (perf's tool callbacks set in
 * __cmd_script); thread: where the prefix's comm comes from; late: printed
 * before the machine applies it (EXIT); body: NULL prints a bare newline. */
static const struct event_kind {
    int      show;
    uint8_t  thread;
    uint8_t  late;
    body_fn  body;
} event_kinds[] = {
    [PERF_RECORD_MMAP]            = { SCRIPT_SHOW_MMAP, FROM_BODY, 0, print_mmap },
    [PERF_RECORD_LOST]            = { SCRIPT_SHOW_LOST, FROM_SAMPLE, 0, print_lost },
    [PERF_RECORD_COMM]            = { SCRIPT_SHOW_TASK, FROM_BODY, 0, print_comm },
    [PERF_RECORD_EXIT]            = { SCRIPT_SHOW_TASK, FROM_BODY, 1, print_task },
    [PERF_RECORD_THROTTLE]        = { SCRIPT_SHOW_NONE, FROM_SAMPLE, 0, NULL },
    [PERF_RECORD_UNTHROTTLE]      = { SCRIPT_SHOW_NONE, FROM_SAMPLE, 0, NULL },
    [PERF_RECORD_FORK]            = { SCRIPT_SHOW_TASK, FROM_BODY, 0, print_task },
    [PERF_RECORD_MMAP2]           = { SCRIPT_SHOW_MMAP, FROM_BODY, 0, print_mmap2 },
    [PERF_RECORD_AUX]             = { SCRIPT_SHOW_NONE, FROM_SAMPLE, 0, print_aux },
    [PERF_RECORD_ITRACE_START]    = { SCRIPT_SHOW_NONE, FROM_SAMPLE, 0, print_itrace_start },
    [PERF_RECORD_LOST_SAMPLES]    = { SCRIPT_SHOW_NONE, FROM_SAMPLE, 0, NULL },
    [PERF_RECORD_SWITCH]          = { SCRIPT_SHOW_SWITCH, FROM_SAMPLE, 0, print_switch },
    [PERF_RECORD_SWITCH_CPU_WIDE] = { SCRIPT_SHOW_SWITCH, FROM_SAMPLE, 0, print_switch },
    [PERF_RECORD_NAMESPACES]      = { SCRIPT_SHOW_NAMESPACE, FROM_BODY, 0, print_namespaces },
    [PERF_RECORD_KSYMBOL]         = { SCRIPT_SHOW_BPF | SCRIPT_SHOW_TEXT_POKE, FROM_SAMPLE, 0,
                                      print_ksymbol },
    [PERF_RECORD_BPF_EVENT]       = { SCRIPT_SHOW_BPF, FROM_SAMPLE, 0, print_bpf_event },
    [PERF_RECORD_CGROUP]          = { SCRIPT_SHOW_CGROUP, FROM_SAMPLE, 0, print_cgroup },
    [PERF_RECORD_TEXT_POKE]       = { SCRIPT_SHOW_TEXT_POKE, FROM_SAMPLE, 0, print_text_poke },
    [PERF_RECORD_AUX_OUTPUT_HW_ID] = { SCRIPT_SHOW_NONE, FROM_SAMPLE, 0,
                                       print_aux_output_hw_id },
    [PS_RECORD_FINISHED_ROUND]    = { SCRIPT_SHOW_ROUND, FROM_SAMPLE, 0, NULL },
};

#define NR_KINDS (sizeof(event_kinds) / sizeof(event_kinds[0]))

static const struct event_kind *kind_of(uint32_t type)
{
    static const struct event_kind none = { SCRIPT_SHOW_NONE, FROM_SAMPLE, 0, NULL };

    return type < NR_KINDS ? &event_kinds[type] : &none;
}

/* perf 6.1's perf_event__name(): its table stops at FINISHED_INIT and has
 * no kernel types past AUX_OUTPUT_HW_ID. */
static const char *perf61_name(uint32_t type)
{
    const char *name;

    if (type > PS_RECORD_FINISHED_INIT)
        return "INVALID";
    if (type == 0)
        return "TOTAL";
    if (type > PERF_RECORD_AUX_OUTPUT_HW_ID && type < PS_RECORD_HEADER_ATTR)
        return "UNKNOWN";
    name = ps_record_type_name(type);
    return name ? name : "UNKNOWN";
}

int script_event__show_class(uint32_t record_type)
{
    return kind_of(record_type)->show;
}

/* The record's own pid/tid, for the FROM_BODY types. */
static void body_thread(const ps_event *ev, int32_t *pid, int32_t *tid)
{
    switch (ev->type) {
    case PERF_RECORD_COMM:
        *pid = (int32_t)ev->u.comm.pid, *tid = (int32_t)ev->u.comm.tid;
        break;
    case PERF_RECORD_FORK:
    case PERF_RECORD_EXIT:
        *pid = (int32_t)ev->u.fork.pid, *tid = (int32_t)ev->u.fork.tid;
        break;
    case PERF_RECORD_MMAP:
        *pid = (int32_t)ev->u.mmap.pid, *tid = (int32_t)ev->u.mmap.tid;
        break;
    case PERF_RECORD_MMAP2:
        *pid = (int32_t)ev->u.mmap2.pid, *tid = (int32_t)ev->u.mmap2.tid;
        break;
    case PERF_RECORD_NAMESPACES:
        *pid = (int32_t)ev->u.namespaces.pid, *tid = (int32_t)ev->u.namespaces.tid;
        break;
    default:
        break;
    }
}

void script_event__start(script_event_start *out, const ps_event *ev)
{
    const struct event_kind *k = kind_of(ev->type);
    const ps_sample_id *sid = &ev->sample_id;
    int sid_all = ev->evsel && ps_attr_flag(&ev->evsel->attr, PS_ATTR_SAMPLE_ID_ALL);

    /* perf_sample defaults when the trailer lacks a field */
    out->pid = out->tid = -1;
    out->cpu = -1;
    out->time = UINT64_MAX;
    if (ev->has_sample_id && (sid->present & PERF_SAMPLE_TID))
        out->pid = (int32_t)sid->pid, out->tid = (int32_t)sid->tid;
    if (ev->has_sample_id && (sid->present & PERF_SAMPLE_CPU))
        out->cpu = (int32_t)sid->cpu;
    if (ev->has_sample_id && (sid->present & PERF_SAMPLE_TIME))
        out->time = sid->time;

    out->thread_pid = out->pid;
    out->thread_tid = out->tid;
    if (k->thread == FROM_BODY)
        body_thread(ev, &out->thread_pid, &out->thread_tid);
    out->apply_first = !k->late;

    if (ev->evsel && !sid_all) {
        out->cpu = 0;
        out->time = (ev->type == PERF_RECORD_FORK || ev->type == PERF_RECORD_EXIT)
                    ? ev->u.fork.time : 0;
        out->pid = out->thread_pid;
        out->tid = out->thread_tid;
    }
}

size_t script_event__fprintf_sym(FILE *fp, const ps_event *ev, const char *text_poke_sym)
{
    const struct event_kind *k = kind_of(ev->type);
    size_t n = (size_t)fprintf(fp, "PERF_RECORD_%s", perf61_name(ev->type));

    if ((ev->flags & PS_EVENT_UNKNOWN_TYPE) || k->body == NULL)
        return n + (size_t)fprintf(fp, "\n");
    return n + k->body(fp, ev, text_poke_sym);
}

size_t script_event__fprintf(FILE *fp, const ps_event *ev)
{
    return script_event__fprintf_sym(fp, ev, NULL);
}
