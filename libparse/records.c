/* SPDX-License-Identifier: MIT */
/*
 * records.c - one record's bytes -> ps_event, for every PERF_RECORD_* kernel
 * type (1..22) and every perf user type (64..86): spec section 7; samples
 * (section 8) and sample_id trailers (9.1).
 *
 * Table-driven: record_kinds[] gives each type its printed name (perf's
 * spelling, as `perf report --stats` shows it), its minimum size and its
 * decoder. Decoders read through a bounded cursor in the producer's byte
 * order; arrays handed to the caller are swapped in place in the (writable)
 * copy when the byte order differs, so callers always see host order.
 *
 * Never frames records, never looks up evsels, never allocates beyond the
 * session's reusable vectors (bounded by the record's size).
 */
#include <stdio.h>
#include "attr.h"
#include "records.h"

typedef int (*decode_fn)(ps_event *ev, const ps_rec *r, ps_cursor *c, ps_error *err);

struct record_kind {
    const char *name;
    uint16_t    min_size;
    uint8_t     kernel;     /* may carry a sample_id trailer */
    decode_fn   decode;
};

#define BAD(...) ps_error__set(err, PS_ECORRUPT, r->off, __VA_ARGS__)

static const char *kind_name(uint32_t type);

/* --- helpers -------------------------------------------------------------- */

static int need(const ps_rec *r, ps_cursor *c, size_t n, const char *what,
                ps_error *err)
{
    if (ps_cursor__left(c) >= n)
        return PS_OK;
    return ps_error__set(err, PS_ECORRUPT, r->off,
                         "%s record: %s needs %zu bytes, %zu left (size %zu)",
                         kind_name(ps_load32(r->p, r->swap)), what, n,
                         ps_cursor__left(c), r->size);
}

static uint64_t get64(ps_cursor *c)
{
    uint64_t v = 0;

    (void)ps_cursor__u64(c, &v);
    return v;
}

static uint32_t get32(ps_cursor *c)
{
    uint32_t v = 0;

    (void)ps_cursor__u32(c, &v);
    return v;
}

static uint16_t get16(ps_cursor *c)
{
    uint16_t v = 0;

    (void)ps_cursor__u16(c, &v);
    return v;
}

/* n u64 words at the cursor, in host order (swapped in place if needed). */
static int get_u64s(const ps_rec *r, ps_cursor *c, uint64_t n,
                    const uint64_t **out, const char *what, ps_error *err)
{
    size_t i, start = c->pos;
    int rc;

    if (n > ps_cursor__left(c) / 8)
        return BAD("%s record: %s of %llu words does not fit in the %zu bytes left",
                   kind_name(ps_load32(r->p, r->swap)), what,
                   (unsigned long long)n, ps_cursor__left(c));
    if ((rc = need(r, c, (size_t)n * 8, what, err)) < 0)
        return rc;
    if (r->swap)
        for (i = 0; i < n; i++) {
            uint64_t v = ps_load64(r->w + start + 8 * i, 1);

            memcpy(r->w + start + 8 * i, &v, 8);
        }
    *out = (const uint64_t *)(const void *)(r->p + start);
    c->pos += (size_t)n * 8;
    return PS_OK;
}

/* A NUL-terminated string filling the rest of the body (padded). Old or
 * odd producers leave it empty or unterminated (perf reads on regardless):
 * then a terminated copy is made in the session's string buffer. */
static int get_string(const ps_rec *r, ps_cursor *c, const char **out,
                      const char *what, ps_error *err)
{
    const uint8_t *s = r->p + c->pos;
    size_t left = ps_cursor__left(c);

    (void)what;
    if (left > 0 && memchr(s, 0, left) != NULL) {
        *out = (const char *)s;
    } else {
        if (ps_grow((void **)&r->vec->str, &r->vec->str_cap, left + 1, 1) < 0)
            return ps_error__set(err, PS_ENOMEM, r->off, "out of memory");
        memcpy(r->vec->str, s, left);
        r->vec->str[left] = 0;
        *out = r->vec->str;
    }
    c->pos = c->end;
    return PS_OK;
}

/* --- read values (spec 8.3) ----------------------------------------------- */

static int get_read_values(ps_read_values *out, const ps_rec *r, ps_cursor *c,
                           uint64_t rf, ps_error *err)
{
    uint64_t nr = 1, per, i;
    int group = !!(rf & PERF_FORMAT_GROUP);

    memset(out, 0, sizeof(out[0]));
    out->read_format = rf;
    per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
    /* GROUP: nr, times, then {value, id, lost} x nr.
     * Single: value, times, id, lost (spec 8.3). */
    if (ps_cursor__left(c) < 8 * (size_t)(1 + !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
                                  !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING)))
        return BAD("READ values: %zu bytes left, too few for read_format 0x%llx",
                   ps_cursor__left(c), (unsigned long long)rf);
    if (group)
        nr = get64(c);
    else
        r->vec->single.value = get64(c);
    if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
        out->time_enabled = get64(c);
    if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
        out->time_running = get64(c);
    if (!group) {
        if (ps_cursor__left(c) < 8 * (per - 1))
            return BAD("READ values: %zu bytes left, too few for read_format 0x%llx",
                       ps_cursor__left(c), (unsigned long long)rf);
        r->vec->single.id = (rf & PERF_FORMAT_ID) ? get64(c) : 0;
        r->vec->single.lost = (rf & PERF_FORMAT_LOST) ? get64(c) : 0;
        out->nr = 1;
        out->values = &r->vec->single;
        return PS_OK;
    }
    if (nr > ps_cursor__left(c) / (8 * per))
        return BAD("READ values: nr %llu needs %llu bytes, %zu left",
                   (unsigned long long)nr, (unsigned long long)(nr * 8 * per),
                   ps_cursor__left(c));
    if (ps_grow((void **)&r->vec->rv, &r->vec->rv_cap, nr ? nr : 1,
                sizeof(ps_read_value)) < 0)
        return ps_error__set(err, PS_ENOMEM, r->off, "out of memory");
    for (i = 0; i < nr; i++) {
        ps_read_value *v = &r->vec->rv[i];

        v->value = get64(c);
        v->id = (rf & PERF_FORMAT_ID) ? get64(c) : 0;
        v->lost = (rf & PERF_FORMAT_LOST) ? get64(c) : 0;
    }
    out->nr = nr;
    out->values = r->vec->rv;
    return PS_OK;
}

/* --- CPU maps (spec 7.3.11) ------------------------------------------------ */

static int push_cpu(const ps_rec *r, uint64_t *nr, int32_t cpu, ps_error *err)
{
    if (ps_grow((void **)&r->vec->cpus, &r->vec->cpus_cap, *nr + 1, sizeof(int32_t)) < 0)
        return ps_error__set(err, PS_ENOMEM, r->off, "out of memory");
    r->vec->cpus[(*nr)++] = cpu;
    return PS_OK;
}

static int decode_cpu_map_data(ps_cpu_map *m, const ps_rec *r, ps_cursor *c,
                               ps_error *err)
{
    uint64_t nr = 0;
    uint16_t i, n;
    int rc;

    memset(m, 0, sizeof(*m));
    if ((rc = need(r, c, 2, "cpu map type", err)) < 0)
        return rc;
    m->type = get16(c);
    if (m->type == 0) {                             /* CPUS */
        if ((rc = need(r, c, 2, "cpu map nr", err)) < 0)
            return rc;
        n = get16(c);
        if ((rc = need(r, c, (size_t)n * 2, "cpu list", err)) < 0)
            return rc;
        for (i = 0; i < n; i++) {
            uint16_t cpu = get16(c);

            if ((rc = push_cpu(r, &nr, cpu == 0xffff ? -1 : cpu, err)) < 0)
                return rc;
        }
    } else if (m->type == 1) {                      /* MASK */
        uint16_t long_size;
        unsigned bits, w, b;

        if ((rc = need(r, c, 4, "cpu mask header", err)) < 0)
            return rc;
        n = get16(c);
        long_size = get16(c);
        m->long_size = long_size;
        if (long_size != 4 && long_size != 8)
            return BAD("CPU_MAP record: mask long_size %u is neither 4 nor 8", long_size);
        if (long_size == 8) {
            if ((rc = need(r, c, 4, "cpu mask padding", err)) < 0)
                return rc;
            c->pos += 4;
        }
        if ((rc = need(r, c, (size_t)n * long_size, "cpu mask words", err)) < 0)
            return rc;
        bits = 8u * long_size;
        for (w = 0; w < n; w++) {
            uint64_t word = long_size == 8 ? get64(c) : get32(c);

            for (b = 0; b < bits; b++)
                if ((word >> b) & 1)
                    if ((rc = push_cpu(r, &nr, (int32_t)(w * bits + b), err)) < 0)
                        return rc;
        }
    } else if (m->type == 2) {                      /* RANGE_CPUS */
        uint8_t any;
        uint16_t start, end;
        uint32_t cpu;

        if ((rc = need(r, c, 6, "cpu range", err)) < 0)
            return rc;
        any = c->p[c->pos];
        c->pos += 2;
        start = get16(c);
        end = get16(c);
        if (any && (rc = push_cpu(r, &nr, -1, err)) < 0)
            return rc;
        for (cpu = start; cpu <= end; cpu++)
            if ((rc = push_cpu(r, &nr, (int32_t)cpu, err)) < 0)
                return rc;
    } else {
        return BAD("cpu map type %u is unknown", m->type);
    }
    m->nr = nr;
    m->cpus = r->vec->cpus;
    return PS_OK;
}

/* --- samples (spec 8.2) ---------------------------------------------------- */

static int get_regs(ps_regs *out, const ps_rec *r, ps_cursor *c, uint64_t mask,
                    const char *what, ps_error *err)
{
    int rc;

    memset(out, 0, sizeof(*out));
    out->mask = mask;
    if ((rc = need(r, c, 8, what, err)) < 0)
        return rc;
    out->abi = get64(c);
    if (out->abi == 0)
        return PS_OK;
    out->nr = (uint64_t)__builtin_popcountll(mask);
    return get_u64s(r, c, out->nr, &out->regs, what, err);
}

/* Big-endian bit-field layout of the branch flags word: each sub-field sits
 * at the mirrored position (spec 8.6). {LE position, width}. */
static const uint8_t branch_fields[][2] = {
    {0, 1}, {1, 1}, {2, 1}, {3, 1}, {4, 16}, {20, 4}, {24, 2}, {26, 4}, {30, 3}, {33, 31},
};

static uint64_t branch_flags_from_be(uint64_t v)
{
    uint64_t out = 0;
    size_t i;

    for (i = 0; i < PS_ARRAY_SIZE(branch_fields); i++) {
        unsigned pos = branch_fields[i][0], w = branch_fields[i][1];
        uint64_t mask = w == 64 ? ~UINT64_C(0) : (UINT64_C(1) << w) - 1;

        out |= ((v >> (64 - pos - w)) & mask) << pos;
    }
    return out;
}

static int get_branch_stack(ps_sample *s, const ps_rec *r, ps_cursor *c,
                            const ps_attr *a, ps_error *err)
{
    const uint64_t *words;
    uint64_t i;
    int rc;

    if ((rc = need(r, c, 8, "BRANCH_STACK nr", err)) < 0)
        return rc;
    s->nr_branches = get64(c);
    if ((a->branch_sample_type & (1u << 17)) && ps_cursor__left(c) >= 8 &&
        !(s->nr_branches == 0 && ps_cursor__left(c) < 8)) {
        s->has_hw_idx = 1;
        s->hw_idx = get64(c);
    }
    if (s->nr_branches > ps_cursor__left(c) / 24)
        return BAD("SAMPLE record: BRANCH_STACK nr %llu needs %llu bytes, %zu left",
                   (unsigned long long)s->nr_branches,
                   (unsigned long long)s->nr_branches * 24, ps_cursor__left(c));
    if ((rc = get_u64s(r, c, s->nr_branches * 3, &words, "BRANCH_STACK entries", err)) < 0)
        return rc;
    s->branches = (const ps_branch_entry *)(const void *)words;
    if (r->swap)
        for (i = 0; i < s->nr_branches; i++) {
            uint64_t f = branch_flags_from_be(words[3 * i + 2]);

            memcpy(r->w + (size_t)((const uint8_t *)&words[3 * i + 2] - r->p), &f, 8);
        }
    if (a->branch_sample_type & (1u << 19))        /* PERF_SAMPLE_BRANCH_COUNTERS */
        return get_u64s(r, c, s->nr_branches, &s->branch_counters,
                        "BRANCH_STACK counters", err);
    return PS_OK;
}

static int get_u64_field(const ps_rec *r, ps_cursor *c, uint64_t *v,
                         const char *what, ps_error *err)
{
    int rc;

    if ((rc = need(r, c, 8, what, err)) < 0)
        return rc;
    *v = get64(c);
    return PS_OK;
}

#define FIXED_SAMPLE_BITS (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
    PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | \
    PERF_SAMPLE_PERIOD | PERF_SAMPLE_IDENTIFIER)

static int sample_fixed(ps_sample *s, const ps_rec *r, ps_cursor *c, uint64_t st,
                        ps_error *err)
{
    size_t fixed = 8 * (size_t)__builtin_popcountll(st & FIXED_SAMPLE_BITS);

    if (ps_cursor__left(c) < fixed) {
        char names[256];

        ps_sample_type_str(names, sizeof(names), st);
        return BAD("SAMPLE size %zu too small for sample_type %s", r->size, names);
    }
    if (st & PERF_SAMPLE_IDENTIFIER) s->identifier = get64(c);
    if (st & PERF_SAMPLE_IP) s->ip = get64(c);
    /* absent pid/tid/cpu are -1, as perf has them (perf script prints an
     * unknown thread ":-1" then) */
    s->pid = s->tid = s->cpu = UINT32_MAX;
    if (st & PERF_SAMPLE_TID) { s->pid = get32(c); s->tid = get32(c); }
    if (st & PERF_SAMPLE_TIME) s->time = get64(c);
    if (st & PERF_SAMPLE_ADDR) s->addr = get64(c);
    if (st & PERF_SAMPLE_ID) s->id = get64(c);
    if (st & PERF_SAMPLE_STREAM_ID) s->stream_id = get64(c);
    if (st & PERF_SAMPLE_CPU) { s->cpu = get32(c); s->cpu_res = get32(c); }
    if (st & PERF_SAMPLE_PERIOD) s->period = get64(c);
    if (!(st & PERF_SAMPLE_ID) && (st & PERF_SAMPLE_IDENTIFIER))
        s->id = s->identifier;
    return PS_OK;
}

static int sample_variable(ps_sample *s, const ps_rec *r, ps_cursor *c,
                           const ps_attr *a, ps_error *err)
{
    uint64_t st = a->sample_type;
    int rc;

    if ((st & PERF_SAMPLE_READ) &&
        (rc = get_read_values(&s->read, r, c, a->read_format, err)) < 0)
        return rc;
    if (st & PERF_SAMPLE_CALLCHAIN) {
        if ((rc = get_u64_field(r, c, &s->nr_callchain, "CALLCHAIN nr", err)) < 0 ||
            (rc = get_u64s(r, c, s->nr_callchain, &s->callchain, "CALLCHAIN", err)) < 0)
            return rc;
    }
    if (st & PERF_SAMPLE_RAW) {
        if ((rc = need(r, c, 4, "RAW size", err)) < 0)
            return rc;
        s->raw_size = get32(c);
        if ((rc = need(r, c, s->raw_size, "RAW data", err)) < 0)
            return rc;
        s->raw_data = c->p + c->pos;
        c->pos += s->raw_size;
    }
    if ((st & PERF_SAMPLE_BRANCH_STACK) && (rc = get_branch_stack(s, r, c, a, err)) < 0)
        return rc;
    if ((st & PERF_SAMPLE_REGS_USER) &&
        (rc = get_regs(&s->regs_user, r, c, a->sample_regs_user, "REGS_USER", err)) < 0)
        return rc;
    if (st & PERF_SAMPLE_STACK_USER) {
        if ((rc = get_u64_field(r, c, &s->stack_size, "STACK_USER size", err)) < 0)
            return rc;
        if (s->stack_size) {
            if ((rc = need(r, c, s->stack_size, "STACK_USER data", err)) < 0)
                return rc;
            s->stack_data = c->p + c->pos;
            c->pos += (size_t)s->stack_size;
            if ((rc = get_u64_field(r, c, &s->stack_dyn_size, "STACK_USER dyn_size", err)) < 0)
                return rc;
            if (s->stack_dyn_size > s->stack_size)
                return BAD("SAMPLE record: STACK_USER dyn_size %llu exceeds size %llu",
                           (unsigned long long)s->stack_dyn_size,
                           (unsigned long long)s->stack_size);
        }
    }
    if ((st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) &&
        (rc = get_u64_field(r, c, &s->weight, "WEIGHT", err)) < 0)
        return rc;
    if ((st & PERF_SAMPLE_DATA_SRC) &&
        (rc = get_u64_field(r, c, &s->data_src, "DATA_SRC", err)) < 0)
        return rc;
    if ((st & PERF_SAMPLE_TRANSACTION) &&
        (rc = get_u64_field(r, c, &s->transaction, "TRANSACTION", err)) < 0)
        return rc;
    if ((st & PERF_SAMPLE_REGS_INTR) &&
        (rc = get_regs(&s->regs_intr, r, c, a->sample_regs_intr, "REGS_INTR", err)) < 0)
        return rc;
    if ((st & PERF_SAMPLE_PHYS_ADDR) &&
        (rc = get_u64_field(r, c, &s->phys_addr, "PHYS_ADDR", err)) < 0)
        return rc;
    if ((st & PERF_SAMPLE_CGROUP) &&
        (rc = get_u64_field(r, c, &s->cgroup, "CGROUP", err)) < 0)
        return rc;
    if ((st & PERF_SAMPLE_DATA_PAGE_SIZE) &&
        (rc = get_u64_field(r, c, &s->data_page_size, "DATA_PAGE_SIZE", err)) < 0)
        return rc;
    if ((st & PERF_SAMPLE_CODE_PAGE_SIZE) &&
        (rc = get_u64_field(r, c, &s->code_page_size, "CODE_PAGE_SIZE", err)) < 0)
        return rc;
    if (st & PERF_SAMPLE_AUX) {
        if ((rc = get_u64_field(r, c, &s->aux_size, "AUX size", err)) < 0 ||
            (rc = need(r, c, s->aux_size, "AUX data", err)) < 0)
            return rc;
        s->aux_data = c->p + c->pos;
        c->pos += (size_t)s->aux_size;
    }
    return PS_OK;
}

static int decode_sample(ps_event *ev, const ps_rec *r, ps_cursor *c, ps_error *err)
{
    ps_sample *s = &ev->u.sample;
    const ps_attr *a;
    int rc;

    if (r->evsel == NULL)
        return BAD("SAMPLE record: no event (attr) to decode it with");
    a = &r->evsel->attr;
    if (a->sample_type >> 25)
        return ps_error__set(err, PS_EUNSUPPORTED, r->off,
                             "SAMPLE record: sample_type 0x%llx has bits no kernel defines",
                             (unsigned long long)a->sample_type);
    s->sample_type = a->sample_type;
    if ((rc = sample_fixed(s, r, c, a->sample_type, err)) < 0)
        return rc;
    if (!(a->sample_type & PERF_SAMPLE_PERIOD))
        s->period = a->sample_period;
    return sample_variable(s, r, c, a, err);
}

/* --- kernel records (spec 7.3.1) ------------------------------------------- */

static int decode_mmap(ps_event *ev, const ps_rec *r, ps_cursor *c, ps_error *err)
{
    ps_record_mmap *m = &ev->u.mmap;

    m->pid = get32(c);
    m->tid = get32(c);
    m->start = get64(c);
    m->len = get64(c);
    m->pgoff = get64(c);
    return get_string(r, c, &m->filename, "filename", err);
}

static int decode_mmap2(ps_event *ev, const ps_rec *r, ps_cursor *c, ps_error *err)
{
    ps_record_mmap2 *m = &ev->u.mmap2;

    m->pid = get32(c);
    m->tid = get32(c);
    m->start = get64(c);
    m->len = get64(c);
    m->pgoff = get64(c);
    if (ev->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
        m->has_build_id = 1;
        m->build_id_size = c->p[c->pos];
        if (m->build_id_size > 20)
            return BAD("MMAP2 record: build-id size %u exceeds 20", m->build_id_size);
        memcpy(m->build_id, c->p + c->pos + 4, 20);
        c->pos += 24;
    } else {
        m->maj = get32(c);
        m->min = get32(c);
        m->ino = get64(c);
        m->ino_generation = get64(c);
    }
    /* Some early MMAP2 producers wrote no prot/flags: a body with no room
     * for them and a filename can only be that layout. */
    if (ps_cursor__left(c) > 0 && ps_cursor__left(c) < 9)
        return get_string(r, c, &m->filename, "filename", err);
    m->prot = get32(c);
    m->flags = get32(c);
    return get_string(r, c, &m->filename, "filename", err);
}

static int decode_comm(ps_event *ev, const ps_rec *r, ps_cursor *c, ps_error *err)
{
    ev->u.comm.pid = get32(c);
    ev->u.comm.tid = get32(c);
    return get_string(r, c, &ev->u.comm.comm, "comm", err);
}

static int decode_fork(ps_event *ev, const ps_rec *r, ps_cursor *c, ps_error *err)
{
    (void)r; (void)err;
    ev->u.fork.pid = get32(c);
    ev->u.fork.ppid = get32(c);
    ev->u.fork.tid = get32(c);
    ev->u.fork.ptid = get32(c);
    ev->u.fork.time = get64(c);
    return PS_OK;
}

static int decode_lost(ps_event *ev, const ps_rec *r, ps_cursor *c, ps_error *err)
{
    (void)r; (void)err;
    ev->u.lost.id = get64(c);
    ev->u.lost.lost = get64(c);
    return PS_OK;
}

static int decode_throttle(ps_event *ev, const ps_rec *r, ps_cursor *c, ps_error *err)
{
    (void)r; (void)err;
    ev->u.throttle.time = get64(c);
    ev->u.throttle.id = get64(c);
    ev->u.throttle.stream_id = get64(c);
    return PS_OK;
}

static int decode_read(ps_event *ev, const ps_rec *r, ps_cursor *c, ps_error *err)
{
    ev->u.read.pid = get32(c);
    ev->u.read.tid = get32(c);
    if (r->evsel == NULL)
        return BAD("READ record: no event (attr) gives its read_format");
    return get_read_values(&ev->u.read.values, r, c, r->evsel->attr.read_format, err);
}

static int decode_aux(ps_event *ev, const ps_rec *r, ps_cursor *c, ps_error *err)
{
    (void)r; (void)err;
    ev->u.aux.aux_offset = get64(c);
    ev->u.aux.aux_size = get64(c);
    ev->u.aux.flags = get64(c);
    return PS_OK;
}

static int decode_pid_tid(ps_event *ev, const ps_rec *r, ps_cursor *c, ps_error *err)
{
    (void)r; (void)err;
    ev->u.itrace_start.pid = get32(c);
    ev->u.itrace_start.tid = get32(c);
    return PS_OK;
}

static int decode_u64(ps_event *ev, const ps_rec *r, ps_cursor *c, ps_error *err)
{
    (void)r; (void)err;
    ev->u.lost_samples.lost = get64(c);     /* same layout as aux_output_hw_id */
    return PS_OK;
}

static int decode_empty(ps_event *ev, const ps_rec *r, ps_cursor *c, ps_error *err)
{
    (void)ev; (void)r; (void)c; (void)err;
    return PS_OK;
}

static int decode_namespaces(ps_event *ev, const ps_rec *r, ps_cursor *c, ps_error *err)
{
    ps_record_namespaces *n = &ev->u.namespaces;
    const uint64_t *words;
    int rc;

    n->pid = get32(c);
    n->tid = get32(c);
    n->nr_namespaces = get64(c);
    if (n->nr_namespaces > ps_cursor__left(c) / 16)
        return BAD("NAMESPACES record: nr %llu needs %llu bytes, %zu left",
                   (unsigned long long)n->nr_namespaces,
                   (unsigned long long)n->nr_namespaces * 16, ps_cursor__left(c));
    if ((rc = get_u64s(r, c, n->nr_namespaces * 2, &words, "link_info", err)) < 0)
        return rc;
    n->link_info = (const ps_ns_link *)(const void *)words;
    return PS_OK;
}

static int decode_ksymbol(ps_event *ev, const ps_rec *r, ps_cursor *c, ps_error *err)
{
    ps_record_ksymbol *k = &ev->u.ksymbol;

    k->addr = get64(c);
    k->len = get32(c);
    k->ksym_type = get16(c);
    k->flags = get16(c);
    return get_string(r, c, &k->name, "name", err);
}

static int decode_bpf_event(ps_event *ev, const ps_rec *r, ps_cursor *c, ps_error *err)
{
    (void)r; (void)err;
    ev->u.bpf_event.type = get16(c);
    ev->u.bpf_event.flags = get16(c);
    ev->u.bpf_event.id = get32(c);
    memcpy(ev->u.bpf_event.tag, c->p + c->pos, 8);
    c->pos += 8;
    return PS_OK;
}

static int decode_cgroup(ps_event *ev, const ps_rec *r, ps_cursor *c, ps_error *err)
{
    ev->u.cgroup.id = get64(c);
    return get_string(r, c, &ev->u.cgroup.path, "path", err);
}

static int decode_text_poke(ps_event *ev, const ps_rec *r, ps_cursor *c, ps_error *err)
{
    ps_record_text_poke *t = &ev->u.text_poke;
    int rc;

    t->addr = get64(c);
    t->old_len = get16(c);
    t->new_len = get16(c);
    if ((rc = need(r, c, (size_t)t->old_len + t->new_len, "TEXT_POKE bytes", err)) < 0)
        return rc;
    t->bytes = c->p + c->pos;
    c->pos += (size_t)t->old_len + t->new_len;
    return PS_OK;
}

static int decode_callchain_deferred(ps_event *ev, const ps_rec *r, ps_cursor *c,
                                     ps_error *err)
{
    ps_record_callchain_deferred *d = &ev->u.callchain_deferred;

    d->cookie = get64(c);
    d->nr = get64(c);
    return get_u64s(r, c, d->nr, &d->ips, "ips", err);
}

/* --- perf user records (spec 7.3.2 - 7.3.21) -------------------------------- */

static int decode_header_attr(ps_event *ev, const ps_rec *r, ps_cursor *c, ps_error *err)
{
    ps_record_header_attr *h = &ev->u.header_attr;
    uint32_t asize;
    int rc;

    if ((rc = ps_attr__decode(&h->attr, c->p + c->pos, ps_cursor__left(c), r->swap,
                              r->off + c->pos, err)) < 0)
        return rc;
    asize = ps_attr__stored_size(c->p + c->pos, ps_cursor__left(c), r->swap);
    if (PS_ALIGN8(asize) > ps_cursor__left(c))
        return BAD("ATTR record: attr size %u exceeds the record", asize);
    c->pos += (size_t)PS_ALIGN8(asize);
    h->nr_ids = ps_cursor__left(c) / 8;
    return get_u64s(r, c, h->nr_ids, &h->ids, "ids", err);
}

static int decode_event_type(ps_event *ev, const ps_rec *r, ps_cursor *c, ps_error *err)
{
    ev->u.event_type.event_id = get64(c);
    return get_string(r, c, &ev->u.event_type.name, "name", err);
}

static int decode_tracing_data(ps_event *ev, const ps_rec *r, ps_cursor *c, ps_error *err)
{
    (void)err;
    ev->u.tracing_data.size = get32(c);
    ev->u.tracing_data.data = r->extra;
    return PS_OK;
}

static int decode_build_id(ps_event *ev, const ps_rec *r, ps_cursor *c, ps_error *err)
{
    ps_record_build_id *b = &ev->u.build_id;

    b->pid = (int32_t)get32(c);
    memcpy(b->build_id, c->p + c->pos, 20);
    b->build_id_size = (ev->misc & (1u << 15)) ? c->p[c->pos + 20] : 20;
    if (b->build_id_size > 20)
        return BAD("BUILD_ID record: build-id size %u exceeds 20", b->build_id_size);
    c->pos += 24;
    return get_string(r, c, &b->filename, "filename", err);
}

static int decode_id_index(ps_event *ev, const ps_rec *r, ps_cursor *c, ps_error *err)
{
    ps_record_id_index *x = &ev->u.id_index;
    const uint64_t *words;
    int rc;

    x->nr = get64(c);
    if (x->nr > ps_cursor__left(c) / 32)
        return BAD("ID_INDEX record: nr %llu needs %llu bytes, %zu left",
                   (unsigned long long)x->nr, (unsigned long long)x->nr * 32,
                   ps_cursor__left(c));
    if ((rc = get_u64s(r, c, x->nr * 4, &words, "entries", err)) < 0)
        return rc;
    x->entries = (const ps_id_index_entry *)(const void *)words;
    if (x->nr && ps_cursor__left(c) / 16 >= x->nr) {
        if ((rc = get_u64s(r, c, x->nr * 2, &words, "vm entries", err)) < 0)
            return rc;
        x->vm = (const ps_id_index_vm *)(const void *)words;
    }
    return PS_OK;
}

static int decode_auxtrace_info(ps_event *ev, const ps_rec *r, ps_cursor *c, ps_error *err)
{
    ps_record_auxtrace_info *a = &ev->u.auxtrace_info;

    a->type = get32(c);
    c->pos += 4;
    a->nr_priv = ps_cursor__left(c) / 8;
    return get_u64s(r, c, a->nr_priv, &a->priv, "priv", err);
}

static int decode_auxtrace(ps_event *ev, const ps_rec *r, ps_cursor *c, ps_error *err)
{
    ps_record_auxtrace *a = &ev->u.auxtrace;

    (void)r; (void)err;
    a->size = get64(c);
    a->offset = get64(c);
    a->reference = get64(c);
    a->idx = get32(c);
    a->tid = get32(c);
    a->cpu = get32(c);
    a->reserved = get32(c);
    return PS_OK;
}

static int decode_auxtrace_error(ps_event *ev, const ps_rec *r, ps_cursor *c,
                                 ps_error *err)
{
    ps_record_auxtrace_error *a = &ev->u.auxtrace_error;

    a->type = get32(c);
    a->code = get32(c);
    a->cpu = get32(c);
    a->pid = get32(c);
    a->tid = get32(c);
    a->fmt = get32(c);
    a->ip = get64(c);
    a->time = get64(c);
    if (a->fmt < 1)
        a->time = 0;
    if (memchr(c->p + c->pos, 0, 64) == NULL)
        return BAD("AUXTRACE_ERROR record: msg is not NUL-terminated");
    a->msg = (const char *)c->p + c->pos;
    c->pos += 64;
    if (a->fmt >= 2 && ps_cursor__left(c) >= 8) {
        a->machine_pid = get32(c);
        a->vcpu = get32(c);
    }
    (void)r;
    return PS_OK;
}

static int decode_thread_map(ps_event *ev, const ps_rec *r, ps_cursor *c, ps_error *err)
{
    ps_record_thread_map *t = &ev->u.thread_map;
    uint64_t i;

    t->nr = get64(c);
    if (t->nr > ps_cursor__left(c) / 24)
        return BAD("THREAD_MAP record: nr %llu needs %llu bytes, %zu left",
                   (unsigned long long)t->nr, (unsigned long long)t->nr * 24,
                   ps_cursor__left(c));
    t->entries = (const ps_thread_map_entry *)(const void *)(c->p + c->pos);
    if (r->swap)
        for (i = 0; i < t->nr; i++) {
            uint64_t v = ps_load64(r->w + c->pos + 24 * i, 1);

            memcpy(r->w + c->pos + 24 * i, &v, 8);
        }
    c->pos += (size_t)t->nr * 24;
    return PS_OK;
}

static int decode_cpu_map(ps_event *ev, const ps_rec *r, ps_cursor *c, ps_error *err)
{
    return decode_cpu_map_data(&ev->u.cpu_map, r, c, err);
}

static int decode_stat_config(ps_event *ev, const ps_rec *r, ps_cursor *c, ps_error *err)
{
    ps_record_stat_config *s = &ev->u.stat_config;
    const uint64_t *words;
    int rc;

    s->nr = get64(c);
    if (s->nr > ps_cursor__left(c) / 16)
        return BAD("STAT_CONFIG record: nr %llu needs %llu bytes, %zu left",
                   (unsigned long long)s->nr, (unsigned long long)s->nr * 16,
                   ps_cursor__left(c));
    if ((rc = get_u64s(r, c, s->nr * 2, &words, "entries", err)) < 0)
        return rc;
    s->entries = (const ps_stat_config_entry *)(const void *)words;
    return PS_OK;
}

static int decode_stat(ps_event *ev, const ps_rec *r, ps_cursor *c, ps_error *err)
{
    (void)r; (void)err;
    ev->u.stat.id = get64(c);
    ev->u.stat.cpu = get32(c);
    ev->u.stat.thread = get32(c);
    ev->u.stat.val = get64(c);
    ev->u.stat.ena = get64(c);
    ev->u.stat.run = get64(c);
    return PS_OK;
}

static int decode_stat_round(ps_event *ev, const ps_rec *r, ps_cursor *c, ps_error *err)
{
    (void)r; (void)err;
    ev->u.stat_round.type = get64(c);
    ev->u.stat_round.time = get64(c);
    return PS_OK;
}

static int decode_event_update(ps_event *ev, const ps_rec *r, ps_cursor *c, ps_error *err)
{
    ps_record_event_update *u = &ev->u.event_update;
    uint64_t bits;
    int rc;

    u->type = get64(c);
    u->id = get64(c);
    switch (u->type) {
    case 0: /* UNIT */
    case 2: /* NAME */
        return get_string(r, c, &u->str, u->type ? "name" : "unit", err);
    case 1: /* SCALE */
        if ((rc = need(r, c, 8, "scale", err)) < 0)
            return rc;
        bits = get64(c);
        memcpy(&u->scale, &bits, sizeof(bits));
        return PS_OK;
    case 3: /* CPUS */
        return decode_cpu_map_data(&u->cpus, r, c, err);
    default:
        return PS_OK;   /* newer update types: body left opaque */
    }
}

static int decode_time_conv(ps_event *ev, const ps_rec *r, ps_cursor *c, ps_error *err)
{
    ps_record_time_conv *t = &ev->u.time_conv;

    (void)r; (void)err;
    t->time_shift = get64(c);
    t->time_mult = get64(c);
    t->time_zero = get64(c);
    if (ps_cursor__left(c) >= 16) {
        t->has_cycles = 1;
        t->time_cycles = get64(c);
        t->time_mask = get64(c);
    }
    if (ps_cursor__left(c) >= 2) {
        t->cap_user_time_zero = c->p[c->pos];
        t->cap_user_time_short = c->p[c->pos + 1];
    }
    return PS_OK;
}

static int decode_feature(ps_event *ev, const ps_rec *r, ps_cursor *c, ps_error *err)
{
    (void)r; (void)err;
    ev->u.feature.feat_id = get64(c);
    ev->u.feature.size = ps_cursor__left(c);
    ev->u.feature.data = c->p + c->pos;
    c->pos = c->end;
    return PS_OK;
}

static int decode_compressed(ps_event *ev, const ps_rec *r, ps_cursor *c, ps_error *err)
{
    (void)r; (void)err;
    ev->u.compressed.data_size = ps_cursor__left(c);
    ev->u.compressed.data = c->p + c->pos;
    c->pos = c->end;
    return PS_OK;
}

static int decode_compressed2(ps_event *ev, const ps_rec *r, ps_cursor *c, ps_error *err)
{
    uint64_t n = get64(c);

    if (n > ps_cursor__left(c))
        return BAD("COMPRESSED2 record: data_size %llu exceeds the %zu bytes left",
                   (unsigned long long)n, ps_cursor__left(c));
    ev->u.compressed.data_size = n;
    ev->u.compressed.data = c->p + c->pos;
    c->pos = c->end;
    return PS_OK;
}

static int decode_opaque(ps_event *ev, const ps_rec *r, ps_cursor *c, ps_error *err)
{
    (void)r; (void)err;
    ev->u.opaque.size = ps_cursor__left(c);
    ev->u.opaque.data = c->p + c->pos;
    c->pos = c->end;
    return PS_OK;
}

/* --- the table ------------------------------------------------------------- */

/* min_size: header + fixed fields (strings may be empty). */
static const struct record_kind record_kinds[] = {
    [PERF_RECORD_MMAP]              = { "MMAP",             40, 1, decode_mmap },
    [PERF_RECORD_LOST]              = { "LOST",             24, 1, decode_lost },
    [PERF_RECORD_COMM]              = { "COMM",             16, 1, decode_comm },
    [PERF_RECORD_EXIT]              = { "EXIT",             32, 1, decode_fork },
    [PERF_RECORD_THROTTLE]          = { "THROTTLE",         32, 1, decode_throttle },
    [PERF_RECORD_UNTHROTTLE]        = { "UNTHROTTLE",       32, 1, decode_throttle },
    [PERF_RECORD_FORK]              = { "FORK",             32, 1, decode_fork },
    [PERF_RECORD_READ]              = { "READ",             16, 1, decode_read },
    [PERF_RECORD_SAMPLE]            = { "SAMPLE",            8, 0, decode_sample },
    [PERF_RECORD_MMAP2]             = { "MMAP2",            72, 1, decode_mmap2 },
    [PERF_RECORD_AUX]               = { "AUX",              32, 1, decode_aux },
    [PERF_RECORD_ITRACE_START]      = { "ITRACE_START",     16, 1, decode_pid_tid },
    [PERF_RECORD_LOST_SAMPLES]      = { "LOST_SAMPLES",     16, 1, decode_u64 },
    [PERF_RECORD_SWITCH]            = { "SWITCH",            8, 1, decode_empty },
    [PERF_RECORD_SWITCH_CPU_WIDE]   = { "SWITCH_CPU_WIDE",  16, 1, decode_pid_tid },
    [PERF_RECORD_NAMESPACES]        = { "NAMESPACES",       24, 1, decode_namespaces },
    [PERF_RECORD_KSYMBOL]           = { "KSYMBOL",          24, 1, decode_ksymbol },
    [PERF_RECORD_BPF_EVENT]         = { "BPF_EVENT",        24, 1, decode_bpf_event },
    [PERF_RECORD_CGROUP]            = { "CGROUP",           16, 1, decode_cgroup },
    [PERF_RECORD_TEXT_POKE]         = { "TEXT_POKE",        20, 1, decode_text_poke },
    [PERF_RECORD_AUX_OUTPUT_HW_ID]  = { "AUX_OUTPUT_HW_ID", 16, 1, decode_u64 },
    [PS_RECORD_CALLCHAIN_DEFERRED]  = { "CALLCHAIN_DEFERRED", 24, 1, decode_callchain_deferred },
    [PS_RECORD_HEADER_ATTR]         = { "ATTR",             72, 0, decode_header_attr },
    [PS_RECORD_HEADER_EVENT_TYPE]   = { "EVENT_TYPE",       16, 0, decode_event_type },
    [PS_RECORD_HEADER_TRACING_DATA] = { "TRACING_DATA",     12, 0, decode_tracing_data },
    [PS_RECORD_HEADER_BUILD_ID]     = { "BUILD_ID",         36, 0, decode_build_id },
    [PS_RECORD_FINISHED_ROUND]      = { "FINISHED_ROUND",    8, 0, decode_empty },
    [PS_RECORD_ID_INDEX]            = { "ID_INDEX",         16, 0, decode_id_index },
    [PS_RECORD_AUXTRACE_INFO]       = { "AUXTRACE_INFO",    16, 0, decode_auxtrace_info },
    [PS_RECORD_AUXTRACE]            = { "AUXTRACE",         48, 0, decode_auxtrace },
    [PS_RECORD_AUXTRACE_ERROR]      = { "AUXTRACE_ERROR",  112, 0, decode_auxtrace_error },
    [PS_RECORD_THREAD_MAP]          = { "THREAD_MAP",       16, 0, decode_thread_map },
    [PS_RECORD_CPU_MAP]             = { "CPU_MAP",          10, 0, decode_cpu_map },
    [PS_RECORD_STAT_CONFIG]         = { "STAT_CONFIG",      16, 0, decode_stat_config },
    [PS_RECORD_STAT]                = { "STAT",             48, 0, decode_stat },
    [PS_RECORD_STAT_ROUND]          = { "STAT_ROUND",       24, 0, decode_stat_round },
    [PS_RECORD_EVENT_UPDATE]        = { "EVENT_UPDATE",     24, 0, decode_event_update },
    [PS_RECORD_TIME_CONV]           = { "TIME_CONV",        32, 0, decode_time_conv },
    [PS_RECORD_HEADER_FEATURE]      = { "FEATURE",          16, 0, decode_feature },
    [PS_RECORD_COMPRESSED]          = { "COMPRESSED",        8, 0, decode_compressed },
    [PS_RECORD_FINISHED_INIT]       = { "FINISHED_INIT",     8, 0, decode_empty },
    [PS_RECORD_COMPRESSED2]         = { "COMPRESSED2",      16, 0, decode_compressed2 },
    [PS_RECORD_BPF_METADATA]        = { "BPF_METADATA",      8, 0, decode_opaque },
    [PS_RECORD_SCHEDSTAT_CPU]       = { "SCHEDSTAT_CPU",     8, 0, decode_opaque },
    [PS_RECORD_SCHEDSTAT_DOMAIN]    = { "SCHEDSTAT_DOMAIN",  8, 0, decode_opaque },
};

static const struct record_kind *kind_of(uint32_t type)
{
    if (type < PS_ARRAY_SIZE(record_kinds) && record_kinds[type].decode)
        return &record_kinds[type];
    return NULL;
}

static const char *kind_name(uint32_t type)
{
    const struct record_kind *k = kind_of(type);

    return k ? k->name : "unknown";
}

const char *ps_record_type_name(uint32_t type)
{
    const struct record_kind *k = kind_of(type);

    return k ? k->name : NULL;
}

int ps_records__known(uint32_t type)
{
    return kind_of(type) != NULL;
}

size_t ps_records__min_size(uint32_t type)
{
    const struct record_kind *k = kind_of(type);

    return k ? k->min_size : 8;
}

int ps_records__trailer(ps_sample_id *out, const ps_rec *r, uint64_t st,
                        ps_error *err)
{
    size_t n = ps_attr__trailer_size(st);
    ps_cursor c;

    memset(out, 0, sizeof(*out));
    if (n + 8 > r->size)
        return BAD("%s record: size %zu too small for its %zu-byte sample_id trailer",
                   kind_name(ps_load32(r->p, r->swap)), r->size, n);
    ps_cursor__init(&c, r->p + r->size - n, n, r->swap, r->off + r->size - n);
    out->present = st & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
                         PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER);
    if (st & PERF_SAMPLE_TID) { out->pid = get32(&c); out->tid = get32(&c); }
    if (st & PERF_SAMPLE_TIME) out->time = get64(&c);
    if (st & PERF_SAMPLE_ID) out->id = get64(&c);
    if (st & PERF_SAMPLE_STREAM_ID) out->stream_id = get64(&c);
    if (st & PERF_SAMPLE_CPU) { out->cpu = get32(&c); out->cpu_res = get32(&c); }
    if (st & PERF_SAMPLE_IDENTIFIER) out->identifier = get64(&c);
    return PS_OK;
}

int ps_records__decode(ps_event *ev, const ps_rec *r, ps_error *err)
{
    const struct record_kind *k = kind_of(ev->type);
    size_t body_end = r->size;
    ps_cursor c;
    int rc;

    /* decode_frame() zeroed *ev */
    if (k == NULL) {
        ev->flags |= PS_EVENT_UNKNOWN_TYPE;
        /* a future kernel record still ends with the trailer (as perf reads it) */
        if (ev->type < 64 && r->sample_id_all && r->evsel &&
            r->size >= 8 + ps_attr__trailer_size(r->evsel->attr.sample_type) &&
            ps_records__trailer(&ev->sample_id, r, r->evsel->attr.sample_type, err) == PS_OK) {
            ev->has_sample_id = 1;
            body_end -= ps_attr__trailer_size(r->evsel->attr.sample_type);
        }
        ps_cursor__init(&c, r->p, body_end, r->swap, r->off);
        c.pos = 8;
        return decode_opaque(ev, r, &c, err);
    }
    if (r->size < k->min_size)
        return BAD("%s record: size %zu is below the minimum %u", k->name, r->size,
                   k->min_size);
    if (k->kernel && r->sample_id_all && r->evsel) {
        uint64_t st = r->evsel->attr.sample_type;
        size_t tsize = ps_attr__trailer_size(st);

        if (r->size < (size_t)k->min_size + tsize)
            return BAD("%s record: size %zu too small for its fields and %zu-byte "
                       "sample_id trailer", k->name, r->size, tsize);
        if ((rc = ps_records__trailer(&ev->sample_id, r, st, err)) < 0)
            return rc;
        ev->has_sample_id = 1;
        body_end -= tsize;
    }
    ps_cursor__init(&c, r->p, body_end, r->swap, r->off);
    c.pos = 8;
    return k->decode(ev, r, &c, err);
}
