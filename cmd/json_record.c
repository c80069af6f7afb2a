/* SPDX-License-Identifier: MIT */
/*
 * json_record.c - a record as a jansson object with every decoded field
 * (json_record.h): one function per record type, in a table indexed by
 * PERF_RECORD_* / PS_RECORD_* type; tracepoint samples get the libparse
 * tracepoint API's trace text and typed fields (spec 10). dump.c prints
 * these objects (as NDJSON, or as text rendered from them, so its two
 * outputs never disagree); json_doc.c extends the samples with what the
 * resolver knows. Never resolves anything itself.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "info_json.h"
#include "json_record.h"

/* --- value helpers ----------------------------------------------------------- */

static json_t *hex(uint64_t v)
{
    char buf[24];

    snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
    return json_string(buf);
}

/* Counts and times as JSON numbers; values past int64 as hex strings. */
static json_t *num(uint64_t v)
{
    return v > INT64_MAX ? hex(v) : json_integer((json_int_t)v);
}

static json_t *bytes_hex(const uint8_t *p, uint64_t n)
{
    static const char digits[] = "0123456789abcdef";
    char *s = malloc(2 * n + 1);
    json_t *j;
    uint64_t i;

    if (s == NULL)
        return json_null();
    for (i = 0; i < n; i++) {
        s[2 * i] = digits[p[i] >> 4];
        s[2 * i + 1] = digits[p[i] & 15];
    }
    s[2 * n] = 0;
    j = json_string(s);
    free(s);
    return j;
}

/* Names may hold any bytes: the escaping info --json documents (valid
 * UTF-8 kept, '\\' doubled, other bytes as the text \xNN), so both
 * outputs read back the same way. */
static json_t *str(const char *s)
{
    json_t *j = info_json_text(s);

    return j ? j : json_null();
}

static json_t *u64_array(const uint64_t *v, uint64_t n, int as_hex)
{
    json_t *a = json_array();
    uint64_t i;

    for (i = 0; i < n; i++)
        json_array_append_new(a, as_hex ? hex(v[i]) : num(v[i]));
    return a;
}

static void set(json_t *o, const char *k, json_t *v)
{
    json_object_set_new(o, k, v);
}

static json_t *read_values(const ps_read_values *r)
{
    json_t *o = json_object(), *vals = json_array();
    uint64_t i;

    if (r->read_format & PERF_FORMAT_TOTAL_TIME_ENABLED)
        set(o, "time_enabled", num(r->time_enabled));
    if (r->read_format & PERF_FORMAT_TOTAL_TIME_RUNNING)
        set(o, "time_running", num(r->time_running));
    for (i = 0; i < r->nr; i++) {
        json_t *v = json_object();

        set(v, "value", num(r->values[i].value));
        if (r->read_format & PERF_FORMAT_ID)
            set(v, "id", num(r->values[i].id));
        if (r->read_format & PERF_FORMAT_LOST)
            set(v, "lost", num(r->values[i].lost));
        json_array_append_new(vals, v);
    }
    set(o, "values", vals);
    return o;
}

static json_t *regs(const ps_regs *r)
{
    json_t *o = json_object();

    set(o, "abi", num(r->abi));
    set(o, "mask", hex(r->mask));
    set(o, "regs", u64_array(r->regs, r->nr, 1));
    return o;
}

static json_t *cpu_map(const ps_cpu_map *m)
{
    json_t *a = json_array();
    uint64_t i;

    for (i = 0; i < m->nr; i++)
        json_array_append_new(a, json_integer(m->cpus[i]));
    return a;
}

/* --- one function per record type -------------------------------------------------- */

static void j_sample(json_t *o, const ps_event *ev, unsigned flags)
{
    const ps_sample *s = &ev->u.sample;
    uint64_t st = s->sample_type, i;

    if (st & PERF_SAMPLE_IDENTIFIER) set(o, "identifier", num(s->identifier));
    if (st & PERF_SAMPLE_IP) set(o, "ip", hex(s->ip));
    if (st & PERF_SAMPLE_TID) { set(o, "pid", json_integer((int32_t)s->pid)); set(o, "tid", json_integer((int32_t)s->tid)); }
    if (st & PERF_SAMPLE_TIME) set(o, "time", num(s->time));
    if (st & PERF_SAMPLE_ADDR) set(o, "addr", hex(s->addr));
    if (st & PERF_SAMPLE_ID) set(o, "id", num(s->id));
    if (st & PERF_SAMPLE_STREAM_ID) set(o, "stream_id", num(s->stream_id));
    if (st & PERF_SAMPLE_CPU) set(o, "cpu", json_integer(s->cpu));
    set(o, "period", num(s->period));
    if (st & PERF_SAMPLE_READ) set(o, "read", read_values(&s->read));
    if (st & PERF_SAMPLE_CALLCHAIN) set(o, "callchain", u64_array(s->callchain, s->nr_callchain, 1));
    if (st & PERF_SAMPLE_RAW) set(o, "raw", bytes_hex(s->raw_data, s->raw_size));
    if (st & PERF_SAMPLE_BRANCH_STACK) {
        json_t *a = json_array();

        for (i = 0; i < s->nr_branches; i++)
            json_array_append_new(a, json_pack("{s:o, s:o, s:o}", "from", hex(s->branches[i].from),
                                               "to", hex(s->branches[i].to),
                                               "flags", hex(s->branches[i].flags)));
        set(o, "branch_stack", a);
        if (s->has_hw_idx) set(o, "hw_idx", num(s->hw_idx));
        if (s->branch_counters) set(o, "branch_counters", u64_array(s->branch_counters, s->nr_branches, 1));
    }
    if (st & PERF_SAMPLE_REGS_USER) set(o, "regs_user", regs(&s->regs_user));
    if (st & PERF_SAMPLE_STACK_USER) {
        json_t *u = json_object();

        set(u, "size", num(s->stack_size));
        set(u, "dyn_size", num(s->stack_dyn_size));
        if (!(flags & JSON_RECORD_NO_STACK)) set(u, "data", bytes_hex(s->stack_data, s->stack_dyn_size));
        set(o, "stack_user", u);
    }
    if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) set(o, "weight", num(s->weight));
    if (st & PERF_SAMPLE_DATA_SRC) set(o, "data_src", hex(s->data_src));
    if (st & PERF_SAMPLE_TRANSACTION) set(o, "transaction", hex(s->transaction));
    if (st & PERF_SAMPLE_REGS_INTR) set(o, "regs_intr", regs(&s->regs_intr));
    if (st & PERF_SAMPLE_PHYS_ADDR) set(o, "phys_addr", hex(s->phys_addr));
    if (st & PERF_SAMPLE_CGROUP) set(o, "cgroup", num(s->cgroup));
    if (st & PERF_SAMPLE_DATA_PAGE_SIZE) set(o, "data_page_size", num(s->data_page_size));
    if (st & PERF_SAMPLE_CODE_PAGE_SIZE) set(o, "code_page_size", num(s->code_page_size));
    if (st & PERF_SAMPLE_AUX) set(o, "aux", bytes_hex(s->aux_data, s->aux_size));
}

static void j_mmap(json_t *o, const ps_event *ev)
{
    const ps_record_mmap *m = &ev->u.mmap;

    set(o, "pid", json_integer((int32_t)m->pid));
    set(o, "tid", json_integer((int32_t)m->tid));
    set(o, "start", hex(m->start));
    set(o, "len", hex(m->len));
    set(o, "pgoff", hex(m->pgoff));
    set(o, "filename", str(m->filename));
}

static void j_mmap2(json_t *o, const ps_event *ev)
{
    const ps_record_mmap2 *m = &ev->u.mmap2;

    set(o, "pid", json_integer((int32_t)m->pid));
    set(o, "tid", json_integer((int32_t)m->tid));
    set(o, "start", hex(m->start));
    set(o, "len", hex(m->len));
    set(o, "pgoff", hex(m->pgoff));
    if (m->has_build_id) {
        set(o, "build_id", bytes_hex(m->build_id, m->build_id_size));
    } else {
        set(o, "maj", json_integer(m->maj));
        set(o, "min", json_integer(m->min));
        set(o, "ino", num(m->ino));
        set(o, "ino_generation", num(m->ino_generation));
    }
    set(o, "prot", json_integer(m->prot));
    set(o, "flags", json_integer(m->flags));
    set(o, "filename", str(m->filename));
}

static void j_comm(json_t *o, const ps_event *ev)
{
    set(o, "pid", json_integer((int32_t)ev->u.comm.pid));
    set(o, "tid", json_integer((int32_t)ev->u.comm.tid));
    set(o, "comm", str(ev->u.comm.comm));
    set(o, "exec", json_boolean(ev->misc & PERF_RECORD_MISC_COMM_EXEC));
}

static void j_fork(json_t *o, const ps_event *ev)
{
    const ps_record_fork *f = &ev->u.fork;

    set(o, "pid", json_integer((int32_t)f->pid));
    set(o, "ppid", json_integer((int32_t)f->ppid));
    set(o, "tid", json_integer((int32_t)f->tid));
    set(o, "ptid", json_integer((int32_t)f->ptid));
    set(o, "time", num(f->time));
}

static void j_lost(json_t *o, const ps_event *ev)
{
    set(o, "id", num(ev->u.lost.id));
    set(o, "lost", num(ev->u.lost.lost));
}

static void j_throttle(json_t *o, const ps_event *ev)
{
    set(o, "time", num(ev->u.throttle.time));
    set(o, "id", num(ev->u.throttle.id));
    set(o, "stream_id", num(ev->u.throttle.stream_id));
}

static void j_read(json_t *o, const ps_event *ev)
{
    set(o, "pid", json_integer((int32_t)ev->u.read.pid));
    set(o, "tid", json_integer((int32_t)ev->u.read.tid));
    set(o, "read", read_values(&ev->u.read.values));
}

static void j_aux(json_t *o, const ps_event *ev)
{
    set(o, "aux_offset", hex(ev->u.aux.aux_offset));
    set(o, "aux_size", hex(ev->u.aux.aux_size));
    set(o, "flags", hex(ev->u.aux.flags));
}

static void j_pid_tid(json_t *o, const ps_event *ev)
{
    set(o, "pid", json_integer((int32_t)ev->u.itrace_start.pid));
    set(o, "tid", json_integer((int32_t)ev->u.itrace_start.tid));
}

static void j_lost_samples(json_t *o, const ps_event *ev)
{
    set(o, "lost", num(ev->u.lost_samples.lost));
}

static void j_switch(json_t *o, const ps_event *ev)
{
    set(o, "out", json_boolean(ev->misc & PERF_RECORD_MISC_SWITCH_OUT));
    set(o, "preempt", json_boolean(ev->misc & (1u << 14)));
    if (ev->type == PERF_RECORD_SWITCH_CPU_WIDE) {
        set(o, "next_prev_pid", json_integer((int32_t)ev->u.switch_cpu_wide.next_prev_pid));
        set(o, "next_prev_tid", json_integer((int32_t)ev->u.switch_cpu_wide.next_prev_tid));
    }
}

static void j_namespaces(json_t *o, const ps_event *ev)
{
    const ps_record_namespaces *n = &ev->u.namespaces;
    json_t *a = json_array();
    uint64_t i;

    set(o, "pid", json_integer((int32_t)n->pid));
    set(o, "tid", json_integer((int32_t)n->tid));
    for (i = 0; i < n->nr_namespaces; i++)
        json_array_append_new(a, json_pack("{s:o, s:o}", "dev", hex(n->link_info[i].dev),
                                           "ino", hex(n->link_info[i].ino)));
    set(o, "link_info", a);
}

static void j_ksymbol(json_t *o, const ps_event *ev)
{
    const ps_record_ksymbol *k = &ev->u.ksymbol;

    set(o, "addr", hex(k->addr));
    set(o, "len", json_integer(k->len));
    set(o, "ksym_type", json_integer(k->ksym_type));
    set(o, "flags", json_integer(k->flags));
    set(o, "name", str(k->name));
}

static void j_bpf_event(json_t *o, const ps_event *ev)
{
    const ps_record_bpf_event *b = &ev->u.bpf_event;

    set(o, "bpf_type", json_integer(b->type));
    set(o, "flags", json_integer(b->flags));
    set(o, "id", json_integer(b->id));
    set(o, "tag", bytes_hex(b->tag, 8));
}

static void j_cgroup(json_t *o, const ps_event *ev)
{
    set(o, "id", num(ev->u.cgroup.id));
    set(o, "path", str(ev->u.cgroup.path));
}

static void j_text_poke(json_t *o, const ps_event *ev)
{
    const ps_record_text_poke *t = &ev->u.text_poke;

    set(o, "addr", hex(t->addr));
    set(o, "old", bytes_hex(t->bytes, t->old_len));
    set(o, "new", bytes_hex(t->bytes + t->old_len, t->new_len));
}

static void j_aux_output_hw_id(json_t *o, const ps_event *ev)
{
    set(o, "hw_id", num(ev->u.aux_output_hw_id.hw_id));
}

static void j_callchain_deferred(json_t *o, const ps_event *ev)
{
    set(o, "cookie", num(ev->u.callchain_deferred.cookie));
    set(o, "ips", u64_array(ev->u.callchain_deferred.ips, ev->u.callchain_deferred.nr, 1));
}

static void j_header_attr(json_t *o, const ps_event *ev)
{
    const ps_attr *a = &ev->u.header_attr.attr;

    set(o, "attr", json_pack("{s:I, s:I, s:o, s:o, s:o, s:o, s:o}",
                             "type", (json_int_t)a->type, "size", (json_int_t)a->size,
                             "config", hex(a->config), "sample_period", num(a->sample_period),
                             "sample_type", hex(a->sample_type),
                             "read_format", hex(a->read_format), "flags", hex(a->flags)));
    set(o, "ids", u64_array(ev->u.header_attr.ids, ev->u.header_attr.nr_ids, 0));
}

static void j_event_type(json_t *o, const ps_event *ev)
{
    set(o, "event_id", num(ev->u.event_type.event_id));
    set(o, "name", str(ev->u.event_type.name));
}

static void j_tracing_data(json_t *o, const ps_event *ev)
{
    set(o, "data_size", json_integer(ev->u.tracing_data.size));
}

static void j_build_id(json_t *o, const ps_event *ev)
{
    const ps_record_build_id *b = &ev->u.build_id;

    set(o, "pid", json_integer(b->pid));
    set(o, "build_id", bytes_hex(b->build_id, b->build_id_size));
    set(o, "filename", str(b->filename));
}

static void j_id_index(json_t *o, const ps_event *ev)
{
    const ps_record_id_index *x = &ev->u.id_index;
    json_t *a = json_array();
    uint64_t i;

    for (i = 0; i < x->nr; i++) {
        json_t *e = json_pack("{s:o, s:o, s:I, s:I}", "id", num(x->entries[i].id),
                              "idx", num(x->entries[i].idx),
                              "cpu", (json_int_t)(int64_t)x->entries[i].cpu,
                              "tid", (json_int_t)(int64_t)x->entries[i].tid);

        if (x->vm) {
            set(e, "machine_pid", num(x->vm[i].machine_pid));
            set(e, "vcpu", num(x->vm[i].vcpu));
        }
        json_array_append_new(a, e);
    }
    set(o, "entries", a);
}

static void j_auxtrace_info(json_t *o, const ps_event *ev)
{
    set(o, "auxtrace_type", json_integer(ev->u.auxtrace_info.type));
    set(o, "priv", u64_array(ev->u.auxtrace_info.priv, ev->u.auxtrace_info.nr_priv, 1));
}

static void j_auxtrace(json_t *o, const ps_event *ev)
{
    const ps_record_auxtrace *a = &ev->u.auxtrace;

    set(o, "data_size", hex(a->size));
    set(o, "data_offset", hex(a->offset));
    set(o, "reference", hex(a->reference));
    set(o, "idx", json_integer(a->idx));
    set(o, "tid", json_integer((int32_t)a->tid));
    set(o, "cpu", json_integer((int32_t)a->cpu));
}

static void j_auxtrace_error(json_t *o, const ps_event *ev)
{
    const ps_record_auxtrace_error *a = &ev->u.auxtrace_error;

    set(o, "error_type", json_integer(a->type));
    set(o, "code", json_integer(a->code));
    set(o, "cpu", json_integer((int32_t)a->cpu));
    set(o, "pid", json_integer((int32_t)a->pid));
    set(o, "tid", json_integer((int32_t)a->tid));
    set(o, "fmt", json_integer(a->fmt));
    set(o, "ip", hex(a->ip));
    set(o, "time", num(a->time));
    set(o, "msg", str(a->msg));
}

static void j_thread_map(json_t *o, const ps_event *ev)
{
    json_t *a = json_array();
    uint64_t i;

    for (i = 0; i < ev->u.thread_map.nr; i++) {
        const ps_thread_map_entry *e = &ev->u.thread_map.entries[i];
        char comm[17];

        memcpy(comm, e->comm, 16);
        comm[16] = 0;
        json_array_append_new(a, json_pack("{s:I, s:o}", "pid", (json_int_t)(int64_t)e->pid,
                                           "comm", str(comm)));
    }
    set(o, "threads", a);
}

static void j_cpu_map(json_t *o, const ps_event *ev)
{
    set(o, "map_type", json_integer(ev->u.cpu_map.type));
    set(o, "cpus", cpu_map(&ev->u.cpu_map));
}

static void j_stat_config(json_t *o, const ps_event *ev)
{
    json_t *a = json_array();
    uint64_t i;

    for (i = 0; i < ev->u.stat_config.nr; i++)
        json_array_append_new(a, json_pack("{s:o, s:o}", "tag", num(ev->u.stat_config.entries[i].tag),
                                           "val", num(ev->u.stat_config.entries[i].val)));
    set(o, "config", a);
}

static void j_stat(json_t *o, const ps_event *ev)
{
    const ps_record_stat *s = &ev->u.stat;

    set(o, "id", num(s->id));
    set(o, "cpu", json_integer((int32_t)s->cpu));
    set(o, "thread", json_integer((int32_t)s->thread));
    set(o, "val", num(s->val));
    set(o, "ena", num(s->ena));
    set(o, "run", num(s->run));
}

static void j_stat_round(json_t *o, const ps_event *ev)
{
    set(o, "round_type", num(ev->u.stat_round.type));
    set(o, "time", num(ev->u.stat_round.time));
}

static void j_event_update(json_t *o, const ps_event *ev)
{
    const ps_record_event_update *u = &ev->u.event_update;

    set(o, "update_type", num(u->type));
    set(o, "id", num(u->id));
    if (u->type == 0) set(o, "unit", str(u->str));
    if (u->type == 1) set(o, "scale", json_real(u->scale));
    if (u->type == 2) set(o, "name", str(u->str));
    if (u->type == 3) set(o, "cpus", cpu_map(&u->cpus));
}

static void j_time_conv(json_t *o, const ps_event *ev)
{
    const ps_record_time_conv *t = &ev->u.time_conv;

    set(o, "time_shift", num(t->time_shift));
    set(o, "time_mult", num(t->time_mult));
    set(o, "time_zero", num(t->time_zero));
    if (t->has_cycles) {
        set(o, "time_cycles", num(t->time_cycles));
        set(o, "time_mask", hex(t->time_mask));
        set(o, "cap_user_time_zero", json_integer(t->cap_user_time_zero));
        set(o, "cap_user_time_short", json_integer(t->cap_user_time_short));
    }
}

static void j_feature(json_t *o, const ps_event *ev)
{
    const char *name = ps_feature_name((unsigned)ev->u.feature.feat_id);

    set(o, "feat_id", num(ev->u.feature.feat_id));
    if (name && ev->u.feature.feat_id < 256) set(o, "feature", json_string(name));
    set(o, "payload_size", num(ev->u.feature.size));
}

static void j_compressed(json_t *o, const ps_event *ev)
{
    set(o, "data_size", num(ev->u.compressed.data_size));
}

static void j_opaque(json_t *o, const ps_event *ev)
{
    set(o, "body", bytes_hex(ev->u.opaque.data, ev->u.opaque.size));
}

static void j_none(json_t *o, const ps_event *ev)
{
    (void)o; (void)ev;
}

typedef void (*json_fn)(json_t *o, const ps_event *ev);

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

static json_t *tp_number(uint64_t v, int is_signed)
{
    return is_signed ? json_integer((json_int_t)(int64_t)v) : num(v);
}

static json_t *tp_value(const ps_tp_value *v)
{
    int is_signed = (v->field->flags & PS_TP_FIELD_SIGNED) != 0;
    json_t *a, *j;
    char *c;
    size_t i;

    switch (v->kind) {
    case PS_TP_VALUE_INT:
        return tp_number(is_signed ? (uint64_t)v->i : v->u, is_signed);
    case PS_TP_VALUE_STRING:
        if ((c = strndup(v->str, v->len)) == NULL)
            return json_null();
        j = str(c);
        free(c);
        return j;
    default:
        a = json_array();
        for (i = 0; i < v->nr; i++)
            json_array_append_new(a, tp_number(ps_tp_value_at(v, i), is_signed));
        return a;
    }
}

/* "trace" (or "trace_error") and "fields" of a tracepoint sample. Samples of
 * other events, or without RAW data, get neither. */
static void j_tracepoint(json_t *o, ps_session *s, const ps_event *ev)
{
    const ps_tp_format *fmt;
    json_t *fields;
    ps_tp_value v;
    ps_error err;
    char small[1024], *text = small;
    size_t i;
    int n, rc;

    if (!(ev->u.sample.sample_type & PERF_SAMPLE_RAW) ||
        ps_tracepoint_format(&fmt, s, ev->evsel, &err) < 0)
        return;
    n = ps_tracepoint_print(small, sizeof(small), s, ev, &err);
    if (n >= (int)sizeof(small) && (text = malloc((size_t)n + 1)) != NULL)
        n = ps_tracepoint_print(text, (size_t)n + 1, s, ev, &err);
    if (text == NULL)
        set(o, "trace_error", str("out of memory"));
    else if (n < 0)
        set(o, "trace_error", str(err.msg));
    else
        set(o, "trace", str(text));
    if (text != small)
        free(text);
    fields = json_object();
    for (i = 0; (rc = ps_tracepoint_value(&v, s, ev, i, &err)) == PS_OK; i++)
        set(fields, v.field->name, tp_value(&v));
    set(o, "fields", fields);
    if (rc < 0)
        set(o, "fields_error", str(err.msg));
}

static json_t *sample_id(const ps_sample_id *s)
{
    json_t *o = json_object();

    if (s->present & PERF_SAMPLE_TID) { set(o, "pid", json_integer((int32_t)s->pid)); set(o, "tid", json_integer((int32_t)s->tid)); }
    if (s->present & PERF_SAMPLE_TIME) set(o, "time", num(s->time));
    if (s->present & PERF_SAMPLE_ID) set(o, "id", num(s->id));
    if (s->present & PERF_SAMPLE_STREAM_ID) set(o, "stream_id", num(s->stream_id));
    if (s->present & PERF_SAMPLE_CPU) set(o, "cpu", json_integer(s->cpu));
    if (s->present & PERF_SAMPLE_IDENTIFIER) set(o, "identifier", num(s->identifier));
    return o;
}

json_t *json_record_new(ps_session *s, const ps_event *ev, unsigned flags)
{
    const char *name = ps_record_type_name(ev->type);
    json_t *o = json_object();

    set(o, "offset", hex(ev->offset));
    if (ev->flags & PS_EVENT_IN_COMPRESSED)
        set(o, "inner_offset", num(ev->inner_offset));
    if (ev->file_index >= 0)
        set(o, "file", json_integer(ev->file_index));
    set(o, "size", json_integer(ev->size));
    set(o, "type", json_string(name ? name : "UNKNOWN"));
    set(o, "type_id", json_integer(ev->type));
    set(o, "misc", hex(ev->misc));
    if (ev->evsel && ev->type < 64)
        set(o, "event", str(ev->evsel->name ? ev->evsel->name : "?"));
    if (ev->type == PERF_RECORD_SAMPLE && !(ev->flags & PS_EVENT_UNKNOWN_TYPE))
        j_sample(o, ev, flags);
    else if (ev->type < (sizeof(json_fns) / sizeof(json_fns[0])) && json_fns[ev->type] &&
             !(ev->flags & PS_EVENT_UNKNOWN_TYPE))
        json_fns[ev->type](o, ev);
    else
        j_opaque(o, ev);
    if (ev->type == PERF_RECORD_SAMPLE && ev->evsel && !(ev->flags & PS_EVENT_UNKNOWN_TYPE))
        j_tracepoint(o, s, ev);
    if (ev->has_sample_id)
        set(o, "sample_id", sample_id(&ev->sample_id));
    return o;
}


json_t *json_record_hex(uint64_t v) { return hex(v); }
json_t *json_record_num(uint64_t v) { return num(v); }
json_t *json_record_text(const char *s) { return s ? str(s) : json_null(); }
