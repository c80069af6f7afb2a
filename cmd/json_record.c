/* SPDX-License-Identifier: MIT */
/*
 * json_record.c - a record as a JSON object with every decoded field
 * (json_record.h), written straight as text (json_writer.h): one function
 * per record type, in a table indexed by PERF_RECORD_* / PS_RECORD_* type;
 * tracepoint samples get the libparse tracepoint API's trace text and
 * typed fields (spec 10). json_doc.c extends the samples with what the
 * resolver knows; dump.c parses the text back into a jansson object and
 * prints that (as NDJSON, or as text rendered from it, so its two outputs
 * never disagree). Never resolves anything itself.
 *
 * Why text and not jansson objects: building and freeing an object per
 * record (a tree of small allocations, then jansson's own dump) was most
 * of `perfsift json`'s time. The members and their order are the same as
 * when the objects were jansson's.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "json_record.h"

/* --- value helpers ----------------------------------------------------------- */

static void u64_array(jw *w, const char *key, const uint64_t *v, uint64_t n, int as_hex)
{
    uint64_t i;

    jw_open(w, key, '[');
    for (i = 0; i < n; i++) {
        if (as_hex)
            jw_hex(w, NULL, v[i]);
        else
            jw_num(w, NULL, v[i]);
    }
    jw_close(w, ']');
}

static void read_values(jw *w, const char *key, const ps_read_values *r)
{
    uint64_t i;

    jw_open(w, key, '{');
    if (r->read_format & PERF_FORMAT_TOTAL_TIME_ENABLED)
        jw_num(w, "time_enabled", r->time_enabled);
    if (r->read_format & PERF_FORMAT_TOTAL_TIME_RUNNING)
        jw_num(w, "time_running", r->time_running);
    jw_open(w, "values", '[');
    for (i = 0; i < r->nr; i++) {
        jw_open(w, NULL, '{');
        jw_num(w, "value", r->values[i].value);
        if (r->read_format & PERF_FORMAT_ID)
            jw_num(w, "id", r->values[i].id);
        if (r->read_format & PERF_FORMAT_LOST)
            jw_num(w, "lost", r->values[i].lost);
        jw_close(w, '}');
    }
    jw_close(w, ']');
    jw_close(w, '}');
}

static void regs(jw *w, const char *key, const ps_regs *r)
{
    jw_open(w, key, '{');
    jw_num(w, "abi", r->abi);
    jw_hex(w, "mask", r->mask);
    u64_array(w, "regs", r->regs, r->nr, 1);
    jw_close(w, '}');
}

static void cpu_map(jw *w, const char *key, const ps_cpu_map *m)
{
    uint64_t i;

    jw_open(w, key, '[');
    for (i = 0; i < m->nr; i++)
        jw_i64(w, NULL, m->cpus[i]);
    jw_close(w, ']');
}

/* "pid" and "tid" as the kernel's signed 32-bit ids */
static void pid_tid(jw *w, uint32_t pid, uint32_t tid)
{
    jw_i64(w, "pid", (int32_t)pid);
    jw_i64(w, "tid", (int32_t)tid);
}

/* --- one function per record type -------------------------------------------------- */

static void j_sample(jw *w, const ps_event *ev, unsigned flags, const json_record_extra *x)
{
    const ps_sample *s = &ev->u.sample;
    uint64_t st = s->sample_type, i;

    if (st & PERF_SAMPLE_IDENTIFIER) jw_num(w, "identifier", s->identifier);
    if (st & PERF_SAMPLE_IP) jw_hex(w, "ip", s->ip);
    if (st & PERF_SAMPLE_TID) pid_tid(w, s->pid, s->tid);
    if (st & PERF_SAMPLE_TIME) jw_num(w, "time", s->time);
    if (st & PERF_SAMPLE_ADDR) jw_hex(w, "addr", s->addr);
    if (st & PERF_SAMPLE_ID) jw_num(w, "id", s->id);
    if (st & PERF_SAMPLE_STREAM_ID) jw_num(w, "stream_id", s->stream_id);
    if (st & PERF_SAMPLE_CPU) jw_i64(w, "cpu", s->cpu);
    jw_num(w, "period", x != NULL ? x->period : s->period);
    if (st & PERF_SAMPLE_READ) read_values(w, "read", &s->read);
    if (st & PERF_SAMPLE_CALLCHAIN) u64_array(w, "callchain", s->callchain, s->nr_callchain, 1);
    if (st & PERF_SAMPLE_RAW) jw_bytes(w, "raw", s->raw_data, s->raw_size);
    if (st & PERF_SAMPLE_BRANCH_STACK) {
        jw_open(w, "branch_stack", '[');
        for (i = 0; i < s->nr_branches; i++) {
            jw_open(w, NULL, '{');
            jw_hex(w, "from", s->branches[i].from);
            jw_hex(w, "to", s->branches[i].to);
            jw_hex(w, "flags", s->branches[i].flags);
            jw_close(w, '}');
        }
        jw_close(w, ']');
        if (s->has_hw_idx) jw_num(w, "hw_idx", s->hw_idx);
        if (s->branch_counters) u64_array(w, "branch_counters", s->branch_counters, s->nr_branches, 1);
    }
    if (st & PERF_SAMPLE_REGS_USER) regs(w, "regs_user", &s->regs_user);
    if (st & PERF_SAMPLE_STACK_USER) {
        jw_open(w, "stack_user", '{');
        jw_num(w, "size", s->stack_size);
        jw_num(w, "dyn_size", s->stack_dyn_size);
        if (!(flags & JSON_RECORD_NO_STACK)) jw_bytes(w, "data", s->stack_data, s->stack_dyn_size);
        jw_close(w, '}');
    }
    if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) jw_num(w, "weight", s->weight);
    if (st & PERF_SAMPLE_DATA_SRC) jw_hex(w, "data_src", s->data_src);
    if (st & PERF_SAMPLE_TRANSACTION) jw_hex(w, "transaction", s->transaction);
    if (st & PERF_SAMPLE_REGS_INTR) regs(w, "regs_intr", &s->regs_intr);
    if (st & PERF_SAMPLE_PHYS_ADDR) jw_hex(w, "phys_addr", s->phys_addr);
    if (st & PERF_SAMPLE_CGROUP) jw_num(w, "cgroup", s->cgroup);
    if (st & PERF_SAMPLE_DATA_PAGE_SIZE) jw_num(w, "data_page_size", s->data_page_size);
    if (st & PERF_SAMPLE_CODE_PAGE_SIZE) jw_num(w, "code_page_size", s->code_page_size);
    if (st & PERF_SAMPLE_AUX) jw_bytes(w, "aux", s->aux_data, s->aux_size);
}

/* what MMAP and MMAP2 share */
static void mapping(jw *w, uint32_t pid, uint32_t tid, uint64_t start, uint64_t len,
                    uint64_t pgoff)
{
    pid_tid(w, pid, tid);
    jw_hex(w, "start", start);
    jw_hex(w, "len", len);
    jw_hex(w, "pgoff", pgoff);
}

static void j_mmap(jw *w, const ps_event *ev)
{
    const ps_record_mmap *m = &ev->u.mmap;

    mapping(w, m->pid, m->tid, m->start, m->len, m->pgoff);
    jw_text(w, "filename", m->filename);
}

static void j_mmap2(jw *w, const ps_event *ev)
{
    const ps_record_mmap2 *m = &ev->u.mmap2;

    mapping(w, m->pid, m->tid, m->start, m->len, m->pgoff);
    if (m->has_build_id) {
        jw_bytes(w, "build_id", m->build_id, m->build_id_size);
    } else {
        jw_i64(w, "maj", m->maj);
        jw_i64(w, "min", m->min);
        jw_num(w, "ino", m->ino);
        jw_num(w, "ino_generation", m->ino_generation);
    }
    jw_i64(w, "prot", m->prot);
    jw_i64(w, "flags", m->flags);
    jw_text(w, "filename", m->filename);
}

static void j_comm(jw *w, const ps_event *ev)
{
    pid_tid(w, ev->u.comm.pid, ev->u.comm.tid);
    jw_text(w, "comm", ev->u.comm.comm);
    jw_bool(w, "exec", ev->misc & PERF_RECORD_MISC_COMM_EXEC);
}

static void j_fork(jw *w, const ps_event *ev)
{
    const ps_record_fork *f = &ev->u.fork;

    jw_i64(w, "pid", (int32_t)f->pid);
    jw_i64(w, "ppid", (int32_t)f->ppid);
    jw_i64(w, "tid", (int32_t)f->tid);
    jw_i64(w, "ptid", (int32_t)f->ptid);
    jw_num(w, "time", f->time);
}

static void j_lost(jw *w, const ps_event *ev)
{
    jw_num(w, "id", ev->u.lost.id);
    jw_num(w, "lost", ev->u.lost.lost);
}

static void j_throttle(jw *w, const ps_event *ev)
{
    jw_num(w, "time", ev->u.throttle.time);
    jw_num(w, "id", ev->u.throttle.id);
    jw_num(w, "stream_id", ev->u.throttle.stream_id);
}

static void j_read(jw *w, const ps_event *ev)
{
    pid_tid(w, ev->u.read.pid, ev->u.read.tid);
    read_values(w, "read", &ev->u.read.values);
}

static void j_aux(jw *w, const ps_event *ev)
{
    jw_hex(w, "aux_offset", ev->u.aux.aux_offset);
    jw_hex(w, "aux_size", ev->u.aux.aux_size);
    jw_hex(w, "flags", ev->u.aux.flags);
}

static void j_pid_tid(jw *w, const ps_event *ev)
{
    pid_tid(w, ev->u.itrace_start.pid, ev->u.itrace_start.tid);
}

static void j_lost_samples(jw *w, const ps_event *ev)
{
    jw_num(w, "lost", ev->u.lost_samples.lost);
}

static void j_switch(jw *w, const ps_event *ev)
{
    jw_bool(w, "out", ev->misc & PERF_RECORD_MISC_SWITCH_OUT);
    jw_bool(w, "preempt", ev->misc & (1u << 14));
    if (ev->type == PERF_RECORD_SWITCH_CPU_WIDE) {
        jw_i64(w, "next_prev_pid", (int32_t)ev->u.switch_cpu_wide.next_prev_pid);
        jw_i64(w, "next_prev_tid", (int32_t)ev->u.switch_cpu_wide.next_prev_tid);
    }
}

static void j_namespaces(jw *w, const ps_event *ev)
{
    const ps_record_namespaces *n = &ev->u.namespaces;
    uint64_t i;

    pid_tid(w, n->pid, n->tid);
    jw_open(w, "link_info", '[');
    for (i = 0; i < n->nr_namespaces; i++) {
        jw_open(w, NULL, '{');
        jw_hex(w, "dev", n->link_info[i].dev);
        jw_hex(w, "ino", n->link_info[i].ino);
        jw_close(w, '}');
    }
    jw_close(w, ']');
}

static void j_ksymbol(jw *w, const ps_event *ev)
{
    const ps_record_ksymbol *k = &ev->u.ksymbol;

    jw_hex(w, "addr", k->addr);
    jw_i64(w, "len", k->len);
    jw_i64(w, "ksym_type", k->ksym_type);
    jw_i64(w, "flags", k->flags);
    jw_text(w, "name", k->name);
}

static void j_bpf_event(jw *w, const ps_event *ev)
{
    const ps_record_bpf_event *b = &ev->u.bpf_event;

    jw_i64(w, "bpf_type", b->type);
    jw_i64(w, "flags", b->flags);
    jw_i64(w, "id", b->id);
    jw_bytes(w, "tag", b->tag, 8);
}

static void j_cgroup(jw *w, const ps_event *ev)
{
    jw_num(w, "id", ev->u.cgroup.id);
    jw_text(w, "path", ev->u.cgroup.path);
}

static void j_text_poke(jw *w, const ps_event *ev)
{
    const ps_record_text_poke *t = &ev->u.text_poke;

    jw_hex(w, "addr", t->addr);
    jw_bytes(w, "old", t->bytes, t->old_len);
    jw_bytes(w, "new", t->bytes + t->old_len, t->new_len);
}

static void j_aux_output_hw_id(jw *w, const ps_event *ev)
{
    jw_num(w, "hw_id", ev->u.aux_output_hw_id.hw_id);
}

static void j_callchain_deferred(jw *w, const ps_event *ev)
{
    jw_num(w, "cookie", ev->u.callchain_deferred.cookie);
    u64_array(w, "ips", ev->u.callchain_deferred.ips, ev->u.callchain_deferred.nr, 1);
}

static void j_header_attr(jw *w, const ps_event *ev)
{
    const ps_attr *a = &ev->u.header_attr.attr;

    jw_open(w, "attr", '{');
    jw_i64(w, "type", (int64_t)a->type);
    jw_i64(w, "size", (int64_t)a->size);
    jw_hex(w, "config", a->config);
    jw_num(w, "sample_period", a->sample_period);
    jw_hex(w, "sample_type", a->sample_type);
    jw_hex(w, "read_format", a->read_format);
    jw_hex(w, "flags", a->flags);
    jw_close(w, '}');
    u64_array(w, "ids", ev->u.header_attr.ids, ev->u.header_attr.nr_ids, 0);
}

static void j_event_type(jw *w, const ps_event *ev)
{
    jw_num(w, "event_id", ev->u.event_type.event_id);
    jw_text(w, "name", ev->u.event_type.name);
}

static void j_tracing_data(jw *w, const ps_event *ev)
{
    jw_i64(w, "data_size", ev->u.tracing_data.size);
}

static void j_build_id(jw *w, const ps_event *ev)
{
    const ps_record_build_id *b = &ev->u.build_id;

    jw_i64(w, "pid", b->pid);
    jw_bytes(w, "build_id", b->build_id, b->build_id_size);
    jw_text(w, "filename", b->filename);
}

static void j_id_index(jw *w, const ps_event *ev)
{
    const ps_record_id_index *x = &ev->u.id_index;
    uint64_t i;

    jw_open(w, "entries", '[');
    for (i = 0; i < x->nr; i++) {
        jw_open(w, NULL, '{');
        jw_num(w, "id", x->entries[i].id);
        jw_num(w, "idx", x->entries[i].idx);
        jw_i64(w, "cpu", (int64_t)x->entries[i].cpu);
        jw_i64(w, "tid", (int64_t)x->entries[i].tid);
        if (x->vm) {
            jw_num(w, "machine_pid", x->vm[i].machine_pid);
            jw_num(w, "vcpu", x->vm[i].vcpu);
        }
        jw_close(w, '}');
    }
    jw_close(w, ']');
}

static void j_auxtrace_info(jw *w, const ps_event *ev)
{
    jw_i64(w, "auxtrace_type", ev->u.auxtrace_info.type);
    u64_array(w, "priv", ev->u.auxtrace_info.priv, ev->u.auxtrace_info.nr_priv, 1);
}

static void j_auxtrace(jw *w, const ps_event *ev)
{
    const ps_record_auxtrace *a = &ev->u.auxtrace;

    jw_hex(w, "data_size", a->size);
    jw_hex(w, "data_offset", a->offset);
    jw_hex(w, "reference", a->reference);
    jw_i64(w, "idx", a->idx);
    jw_i64(w, "tid", (int32_t)a->tid);
    jw_i64(w, "cpu", (int32_t)a->cpu);
}

static void j_auxtrace_error(jw *w, const ps_event *ev)
{
    const ps_record_auxtrace_error *a = &ev->u.auxtrace_error;

    jw_i64(w, "error_type", a->type);
    jw_i64(w, "code", a->code);
    jw_i64(w, "cpu", (int32_t)a->cpu);
    pid_tid(w, a->pid, a->tid);
    jw_i64(w, "fmt", a->fmt);
    jw_hex(w, "ip", a->ip);
    jw_num(w, "time", a->time);
    jw_text(w, "msg", a->msg);
}

static void j_thread_map(jw *w, const ps_event *ev)
{
    uint64_t i;

    jw_open(w, "threads", '[');
    for (i = 0; i < ev->u.thread_map.nr; i++) {
        const ps_thread_map_entry *e = &ev->u.thread_map.entries[i];
        char comm[17];

        memcpy(comm, e->comm, 16);
        comm[16] = 0;
        jw_open(w, NULL, '{');
        jw_i64(w, "pid", (int64_t)e->pid);
        jw_text(w, "comm", comm);
        jw_close(w, '}');
    }
    jw_close(w, ']');
}

static void j_cpu_map(jw *w, const ps_event *ev)
{
    jw_i64(w, "map_type", ev->u.cpu_map.type);
    cpu_map(w, "cpus", &ev->u.cpu_map);
}

static void j_stat_config(jw *w, const ps_event *ev)
{
    uint64_t i;

    jw_open(w, "config", '[');
    for (i = 0; i < ev->u.stat_config.nr; i++) {
        jw_open(w, NULL, '{');
        jw_num(w, "tag", ev->u.stat_config.entries[i].tag);
        jw_num(w, "val", ev->u.stat_config.entries[i].val);
        jw_close(w, '}');
    }
    jw_close(w, ']');
}

static void j_stat(jw *w, const ps_event *ev)
{
    const ps_record_stat *s = &ev->u.stat;

    jw_num(w, "id", s->id);
    jw_i64(w, "cpu", (int32_t)s->cpu);
    jw_i64(w, "thread", (int32_t)s->thread);
    jw_num(w, "val", s->val);
    jw_num(w, "ena", s->ena);
    jw_num(w, "run", s->run);
}

static void j_stat_round(jw *w, const ps_event *ev)
{
    jw_num(w, "round_type", ev->u.stat_round.type);
    jw_num(w, "time", ev->u.stat_round.time);
}

static void j_event_update(jw *w, const ps_event *ev)
{
    const ps_record_event_update *u = &ev->u.event_update;

    jw_num(w, "update_type", u->type);
    jw_num(w, "id", u->id);
    if (u->type == 0) jw_text(w, "unit", u->str);
    if (u->type == 1) jw_real(w, "scale", u->scale);
    if (u->type == 2) jw_text(w, "name", u->str);
    if (u->type == 3) cpu_map(w, "cpus", &u->cpus);
}

static void j_time_conv(jw *w, const ps_event *ev)
{
    const ps_record_time_conv *t = &ev->u.time_conv;

    jw_num(w, "time_shift", t->time_shift);
    jw_num(w, "time_mult", t->time_mult);
    jw_num(w, "time_zero", t->time_zero);
    if (t->has_cycles) {
        jw_num(w, "time_cycles", t->time_cycles);
        jw_hex(w, "time_mask", t->time_mask);
        jw_i64(w, "cap_user_time_zero", t->cap_user_time_zero);
        jw_i64(w, "cap_user_time_short", t->cap_user_time_short);
    }
}

static void j_feature(jw *w, const ps_event *ev)
{
    const char *name = ps_feature_name((unsigned)ev->u.feature.feat_id);

    jw_num(w, "feat_id", ev->u.feature.feat_id);
    if (name && ev->u.feature.feat_id < 256) jw_string(w, "feature", name);
    jw_num(w, "payload_size", ev->u.feature.size);
}

static void j_compressed(jw *w, const ps_event *ev)
{
    jw_num(w, "data_size", ev->u.compressed.data_size);
}

static void j_opaque(jw *w, const ps_event *ev)
{
    jw_bytes(w, "body", ev->u.opaque.data, ev->u.opaque.size);
}

static void j_none(jw *w, const ps_event *ev)
{
    (void)w; (void)ev;
}

typedef void (*json_fn)(jw *w, const ps_event *ev);

static const json_fn json_fns[] = {
    [PERF_RECORD_MMAP] = j_mmap, [PERF_RECORD_LOST] = j_lost, [PERF_RECORD_COMM] = j_comm,
    [PERF_RECORD_EXIT] = j_fork, [PERF_RECORD_THROTTLE] = j_throttle,
    [PERF_RECORD_UNTHROTTLE] = j_throttle, [PERF_RECORD_FORK] = j_fork,
    [PERF_RECORD_READ] = j_read,
    [PERF_RECORD_MMAP2] = j_mmap2, [PERF_RECORD_AUX] = j_aux,
    [PERF_RECORD_ITRACE_START] = j_pid_tid, [PERF_RECORD_LOST_SAMPLES] = j_lost_samples,
    [PERF_RECORD_SWITCH] = j_switch, [PERF_RECORD_SWITCH_CPU_WIDE] = j_switch,
    [PERF_RECORD_NAMESPACES] = j_namespaces, [PERF_RECORD_KSYMBOL] = j_ksymbol,
    [PERF_RECORD_BPF_EVENT] = j_bpf_event, [PERF_RECORD_CGROUP] = j_cgroup,
    [PERF_RECORD_TEXT_POKE] = j_text_poke, [PERF_RECORD_AUX_OUTPUT_HW_ID] = j_aux_output_hw_id,
    [PS_RECORD_CALLCHAIN_DEFERRED] = j_callchain_deferred,
    [PS_RECORD_HEADER_ATTR] = j_header_attr, [PS_RECORD_HEADER_EVENT_TYPE] = j_event_type,
    [PS_RECORD_HEADER_TRACING_DATA] = j_tracing_data, [PS_RECORD_HEADER_BUILD_ID] = j_build_id,
    [PS_RECORD_FINISHED_ROUND] = j_none, [PS_RECORD_FINISHED_INIT] = j_none,
    [PS_RECORD_ID_INDEX] = j_id_index, [PS_RECORD_AUXTRACE_INFO] = j_auxtrace_info,
    [PS_RECORD_AUXTRACE] = j_auxtrace, [PS_RECORD_AUXTRACE_ERROR] = j_auxtrace_error,
    [PS_RECORD_THREAD_MAP] = j_thread_map, [PS_RECORD_CPU_MAP] = j_cpu_map,
    [PS_RECORD_STAT_CONFIG] = j_stat_config, [PS_RECORD_STAT] = j_stat,
    [PS_RECORD_STAT_ROUND] = j_stat_round, [PS_RECORD_EVENT_UPDATE] = j_event_update,
    [PS_RECORD_TIME_CONV] = j_time_conv, [PS_RECORD_HEADER_FEATURE] = j_feature,
    [PS_RECORD_COMPRESSED] = j_compressed, [PS_RECORD_COMPRESSED2] = j_compressed,
    [PS_RECORD_BPF_METADATA] = j_opaque, [PS_RECORD_SCHEDSTAT_CPU] = j_opaque,
    [PS_RECORD_SCHEDSTAT_DOMAIN] = j_opaque,
};

/* --- tracepoint samples: perf script's trace text and typed fields --------- */

static void tp_number(jw *w, const char *key, uint64_t v, int is_signed)
{
    if (is_signed)
        jw_i64(w, key, (int64_t)v);
    else
        jw_num(w, key, v);
}

/* the value of a field (its key written already) */
static void tp_value(jw *w, const ps_tp_value *v)
{
    int is_signed = (v->field->flags & PS_TP_FIELD_SIGNED) != 0;
    size_t i;

    switch (v->kind) {
    case PS_TP_VALUE_INT:
        tp_number(w, NULL, is_signed ? (uint64_t)v->i : v->u, is_signed);
        return;
    case PS_TP_VALUE_STRING:
        jw_text_n(w, NULL, v->str, strnlen(v->str, v->len));
        return;
    default:
        jw_open(w, NULL, '[');
        for (i = 0; i < v->nr; i++)
            tp_number(w, NULL, ps_tp_value_at(v, i), is_signed);
        jw_close(w, ']');
    }
}

/* The decoded fields of a sample, so that names can be compared. */
typedef struct tp_values {
    ps_tp_value  small[32], *v;
    size_t       n, cap;
} tp_values;

static int tp_collect(tp_values *t, ps_session *s, const ps_event *ev, ps_error *err)
{
    ps_tp_value *bigger;
    int rc;

    t->v = t->small;
    t->cap = sizeof(t->small) / sizeof(t->small[0]);
    for (t->n = 0;; t->n++) {
        if (t->n == t->cap) {
            bigger = malloc(2 * t->cap * sizeof(*bigger));
            if (bigger == NULL) {
                snprintf(err->msg, sizeof(err->msg), "out of memory");
                return err->code = PS_ENOMEM;
            }
            memcpy(bigger, t->v, t->n * sizeof(*bigger));
            if (t->v != t->small)
                free(t->v);
            t->v = bigger;
            t->cap *= 2;
        }
        if ((rc = ps_tracepoint_value(&t->v[t->n], s, ev, t->n, err)) != PS_OK)
            return rc;
    }
}

/* "fields": each field of the sample by name, in format order. A name
 * repeats only in a damaged format; a JSON object holds it once, where it
 * came first, with the last value (jansson's rule, which this output
 * followed when it was built with jansson). Returns how the decoding
 * ended: PS_DONE, or an error in err. */
static int tp_fields(jw *w, ps_session *s, const ps_event *ev, ps_error *err)
{
    tp_values t;
    size_t i, j, last;
    int rc = tp_collect(&t, s, ev, err);

    jw_open(w, "fields", '{');
    for (i = 0; i < t.n; i++) {
        const char *name = t.v[i].field->name;

        for (j = 0; j < i && strcmp(t.v[j].field->name, name) != 0; j++)
            ;
        if (j < i)
            continue;
        for (last = i, j = i + 1; j < t.n; j++)
            if (strcmp(t.v[j].field->name, name) == 0)
                last = j;
        if (jw_key_text(w, name) < 0)
            continue;           /* not UTF-8: jansson leaves the member out */
        w->comma = 0;
        tp_value(w, &t.v[last]);
    }
    jw_close(w, '}');
    if (t.v != t.small)
        free(t.v);
    return rc;
}

/* "trace" (or "trace_error") and "fields" of a tracepoint sample. Samples of
 * other events, or without RAW data, get neither. */
static void j_tracepoint(jw *w, ps_session *s, const ps_event *ev)
{
    const ps_tp_format *fmt;
    ps_error err;
    char small[1024], *text = small;
    int n;

    if (!(ev->u.sample.sample_type & PERF_SAMPLE_RAW) ||
        ps_tracepoint_format(&fmt, s, ev->evsel, &err) < 0)
        return;
    n = ps_tracepoint_print(small, sizeof(small), s, ev, &err);
    if (n >= (int)sizeof(small) && (text = malloc((size_t)n + 1)) != NULL)
        n = ps_tracepoint_print(text, (size_t)n + 1, s, ev, &err);
    if (text == NULL)
        jw_text(w, "trace_error", "out of memory");
    else if (n < 0)
        jw_text(w, "trace_error", err.msg);
    else
        jw_text(w, "trace", text);
    if (text != small)
        free(text);
    if (tp_fields(w, s, ev, &err) < 0)
        jw_text(w, "fields_error", err.msg);
}

static void sample_id(jw *w, const ps_sample_id *s)
{
    jw_open(w, "sample_id", '{');
    if (s->present & PERF_SAMPLE_TID) pid_tid(w, s->pid, s->tid);
    if (s->present & PERF_SAMPLE_TIME) jw_num(w, "time", s->time);
    if (s->present & PERF_SAMPLE_ID) jw_num(w, "id", s->id);
    if (s->present & PERF_SAMPLE_STREAM_ID) jw_num(w, "stream_id", s->stream_id);
    if (s->present & PERF_SAMPLE_CPU) jw_i64(w, "cpu", s->cpu);
    if (s->present & PERF_SAMPLE_IDENTIFIER) jw_num(w, "identifier", s->identifier);
    jw_close(w, '}');
}

void json_record_write(jw *w, ps_session *s, const ps_event *ev, unsigned flags,
                       const json_record_extra *x)
{
    const char *name = ps_record_type_name(ev->type);
    int known = !(ev->flags & PS_EVENT_UNKNOWN_TYPE);
    int has_event = ev->evsel && ev->type < 64;
    int is_sample = ev->type == PERF_RECORD_SAMPLE && known;

    jw_open(w, NULL, '{');
    jw_hex(w, "offset", ev->offset);
    if (ev->flags & PS_EVENT_IN_COMPRESSED)
        jw_num(w, "inner_offset", ev->inner_offset);
    if (ev->file_index >= 0)
        jw_i64(w, "file", ev->file_index);
    jw_i64(w, "size", ev->size);
    jw_string(w, "type", name ? name : "UNKNOWN");
    jw_i64(w, "type_id", ev->type);
    jw_hex(w, "misc", ev->misc);
    if (has_event)
        jw_text(w, "event", x != NULL ? x->event : ev->evsel->name ? ev->evsel->name : "?");
    if (is_sample)
        j_sample(w, ev, flags, x);
    else if (ev->type < (sizeof(json_fns) / sizeof(json_fns[0])) && json_fns[ev->type] && known)
        json_fns[ev->type](w, ev);
    else
        j_opaque(w, ev);
    if (is_sample && ev->evsel)
        j_tracepoint(w, s, ev);
    if (ev->has_sample_id)
        sample_id(w, &ev->sample_id);
    /* where the record had no such member, the extra ones come last */
    if (x != NULL && !has_event)
        jw_text(w, "event", x->event);
    if (x != NULL && !is_sample)
        jw_num(w, "period", x->period);
}

json_t *json_record_new(ps_session *s, const ps_event *ev, unsigned flags)
{
    linebuf b = { 0 };
    json_t *o = NULL;
    jw w;

    jw_init(&w, &b);
    json_record_write(&w, s, ev, flags, NULL);
    jw_close(&w, '}');
    if (!b.oom)
        o = json_loadb(b.p, b.len, 0, NULL);
    lb_free(&b);
    return o != NULL ? o : json_object();
}
