/* SPDX-License-Identifier: MIT */
/*
 * header_print.c - perfsift info --header; mirrors `perf report
 * --header-only -I` of perf 6.1 byte for byte: the header lines, one
 * printer per HEADER_* feature (a table indexed by feature id, in bit
 * order), the "# event :" lines in perf_event_attr__fprintf's format, and
 * "# missing features:". Uses only perfsift.h.
 *
 * perf 6.1 behaviours reproduced on purpose (shared/spec/perf-data-format.md
 * sections 4 and 6; checked against the corpus oracles and the real perf):
 *  - features are printed for bits 1..31 only (6.1's HEADER_LAST_FEATURE is
 *    32); TRACING_DATA and BUILD_ID have no printer;
 *  - perf stops processing features at the first one that fails, so every
 *    later feature prints its empty form ("(null)", "not available", 0);
 *    EVENT_DESC and BUILD_ID failures do not stop it, and EVENT_DESC is
 *    re-read when printed ("# event desc: not available ...");
 *  - pipe mode prints the header, "# ========\n#\n", then each feature when
 *    its record arrives (BRANCH_STACK, STAT and DIR_FORMAT never print;
 *    DIR_FORMAT fails there), and no "missing features"; perf 6.1 does not
 *    swap the feature id of other-endian pipe streams, so it prints none;
 *  - other-endian files: perf leaves clockid, sample_regs_intr and sig_data
 *    unswapped and reverses the two bits of precise_ip; it skips
 *    BPF_PROG_INFO and BPF_BTF;
 *  - cpu lists of NUMA nodes are re-printed through perf's cpu map parser.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "header_print.h"

#define LAST_FEATURE_61 32          /* perf 6.1's HEADER_LAST_FEATURE */

typedef struct hp_ctx {
    FILE              *out;
    ps_session        *s;
    const ps_header   *h;
    const ps_features *f;
    int                pipe;
    int                brief;   /* perf without -I (header_printer.brief) */
    header_printer    *hp;      /* pipe mode: the names perf has settled */
} hp_ctx;

/* A printer gets ok = 0 when perf would print its feature from an empty
 * environment (the feature, or an earlier one, failed to process). */
typedef void (*feat_print_fn)(const hp_ctx *c, int ok);

static const char *nz(const char *s)
{
    return s ? s : "(null)";
}

static int feature_failed(const ps_features *f, unsigned feat)
{
    return (int)((f->failed[feat / 64] >> (feat % 64)) & 1) || !ps_features_has(f, feat);
}

/* ------------------------------------------------------------------------ */
/* perf_event_attr__fprintf (perf 6.1)                                      */

static const struct bit_name { uint64_t bit; const char *name; } sample_bits[] = {
    { PERF_SAMPLE_IP, "IP" }, { PERF_SAMPLE_TID, "TID" },
    { PERF_SAMPLE_TIME, "TIME" }, { PERF_SAMPLE_ADDR, "ADDR" },
    { PERF_SAMPLE_READ, "READ" }, { PERF_SAMPLE_CALLCHAIN, "CALLCHAIN" },
    { PERF_SAMPLE_ID, "ID" }, { PERF_SAMPLE_CPU, "CPU" },
    { PERF_SAMPLE_PERIOD, "PERIOD" }, { PERF_SAMPLE_STREAM_ID, "STREAM_ID" },
    { PERF_SAMPLE_RAW, "RAW" }, { PERF_SAMPLE_BRANCH_STACK, "BRANCH_STACK" },
    { PERF_SAMPLE_REGS_USER, "REGS_USER" }, { PERF_SAMPLE_STACK_USER, "STACK_USER" },
    { PERF_SAMPLE_IDENTIFIER, "IDENTIFIER" }, { PERF_SAMPLE_REGS_INTR, "REGS_INTR" },
    { PERF_SAMPLE_DATA_SRC, "DATA_SRC" }, { PERF_SAMPLE_WEIGHT, "WEIGHT" },
    { PERF_SAMPLE_PHYS_ADDR, "PHYS_ADDR" }, { 1u << 20, "AUX" },
    { 1u << 21, "CGROUP" }, { 1u << 22, "DATA_PAGE_SIZE" },
    { 1u << 23, "CODE_PAGE_SIZE" }, { 1u << 24, "WEIGHT_STRUCT" },
    { 0, NULL }
};

/* perf formats every field into one buffer and prints it; a bit set with
 * no bit perf knows formats nothing, so the previous field's text shows
 * again (only branch_sample_type can get there: perf refuses the others). */
typedef struct attr_out {
    FILE *out;
    char  buf[1024];        /* perf's BUF_SIZE */
} attr_out;

static void emit(attr_out *o, const char *name)
{
    fprintf(o->out, ", %s = %s", name, o->buf);
}

static void print_bits(attr_out *o, const char *name, uint64_t v,
                       const struct bit_name *bits)
{
    size_t n = 0;

    if (v == 0)
        return;
    for (; bits->name; bits++)
        if ((v & bits->bit) && n < sizeof(o->buf))
            n += (size_t)snprintf(o->buf + n, sizeof(o->buf) - n, "%s%s",
                                  n ? "|" : "", bits->name);
    emit(o, name);
}

/* As print_bits, naming bits through a perfsift.h name function, up to
 * the last bit perf 6.1 knows. */
static void print_named_bits(attr_out *o, const char *name, uint64_t v,
                             const char *(*name_of)(unsigned), unsigned last)
{
    size_t n = 0;
    unsigned bit;

    if (v == 0)
        return;
    for (bit = 0; bit <= last; bit++)
        if (((v >> bit) & 1) && name_of(bit) && n < sizeof(o->buf))
            n += (size_t)snprintf(o->buf + n, sizeof(o->buf) - n, "%s%s",
                                  n ? "|" : "", name_of(bit));
    emit(o, name);
}

static void print_u(attr_out *o, const char *name, uint64_t v)
{
    if (v) {
        snprintf(o->buf, sizeof(o->buf), "%" PRIu64, v);
        emit(o, name);
    }
}

static void print_x(attr_out *o, const char *name, uint64_t v)
{
    if (v) {
        snprintf(o->buf, sizeof(o->buf), "%#" PRIx64, v);
        emit(o, name);
    }
}

/* Print the attr the way perf 6.1 holds it: for other-endian producers it
 * swapped neither clockid, sample_regs_intr nor sig_data, and its bit
 * reversal flipped the two bits of precise_ip. */
static void print_attr(FILE *out, const ps_attr *a, int swapped)
{
    uint64_t precise = (a->flags >> PS_ATTR_PRECISE_IP) & 3;
    uint64_t regs_intr = a->sample_regs_intr, sig_data = a->sig_data;
    int32_t clockid = a->clockid;
    attr_out o;
    size_t i;

    o.out = out;
    o.buf[0] = 0;
    if (swapped) {
        precise = ((precise & 1) << 1) | (precise >> 1);
        regs_intr = __builtin_bswap64(regs_intr);
        sig_data = __builtin_bswap64(sig_data);
        clockid = (int32_t)__builtin_bswap32((uint32_t)clockid);
    }
    print_u(&o, "type", a->type);
    print_u(&o, "size", a->size);
    print_x(&o, "config", a->config);
    print_u(&o, "{ sample_period, sample_freq }", a->sample_period);
    print_bits(&o, "sample_type", a->sample_type, sample_bits);
    print_named_bits(&o, "read_format", a->read_format, ps_read_format_name, 4);
    /* the one-bit flags (and precise_ip) perf 6.1 knows, in bit order */
    for (i = 0; i <= PS_ATTR_SIGTRAP; i++) {
        const char *flag = ps_attr_flag_name((unsigned)i);

        if (flag)
            print_u(&o, flag, i == PS_ATTR_PRECISE_IP ? precise : (a->flags >> i) & 1);
    }
    print_u(&o, "{ wakeup_events, wakeup_watermark }", a->wakeup_events);
    print_u(&o, "bp_type", a->bp_type);
    print_x(&o, "{ bp_addr, config1 }", a->config1);
    print_x(&o, "{ bp_len, config2 }", a->config2);
    print_named_bits(&o, "branch_sample_type", a->branch_sample_type,
                     ps_branch_sample_name, 18 /* PRIV_SAVE */);
    print_x(&o, "sample_regs_user", a->sample_regs_user);
    print_u(&o, "sample_stack_user", a->sample_stack_user);
    if (clockid) {
        snprintf(o.buf, sizeof(o.buf), "%" PRId64, (int64_t)clockid);
        emit(&o, "clockid");
    }
    print_x(&o, "sample_regs_intr", regs_intr);
    print_u(&o, "aux_watermark", a->aux_watermark);
    print_u(&o, "sample_max_stack", a->sample_max_stack);
    print_u(&o, "aux_sample_size", a->aux_sample_size);
    print_u(&o, "sig_data", sig_data);
}

/* ------------------------------------------------------------------------ */
/* cpu lists, bitmaps and sizes the way perf formats them                   */

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;

    return (x > y) - (x < y);
}

/* More CPUs than this in one list is refused: perf's parser checks each
 * against all before it, and would not finish ("0-2147483646"). */
#define MAX_LIST_CPUS (1 << 20)

/* perf_cpu_map__new(): "0-3,8" (base 0 numbers) -> sorted cpus; "" is the
 * dummy map {-1}. Returns the count, or -1 where perf's parser fails (a
 * cpu named twice among them, found here after the sort). */
static int parse_cpu_list(const char *s, int **out)
{
    int *cpus = NULL, n = 0, cap = 0, i;

    *out = NULL;
    if (*s != '\0' && !(*s >= '0' && *s <= '9'))
        return -1;
    while (*s >= '0' && *s <= '9') {
        char *p;
        unsigned long start = strtoul(s, &p, 0), end;

        if (start >= 0x7fffffffUL || (*p != '\0' && *p != ',' && *p != '-'))
            goto invalid;
        end = start;
        if (*p == '-') {
            end = strtoul(p + 1, &p, 0);
            if (end >= 0x7fffffffUL || (*p != '\0' && *p != ',') || end < start)
                goto invalid;
        }
        if (end - start >= (unsigned long)(MAX_LIST_CPUS - n))
            goto invalid;
        for (; start <= end; start++) {
            if (n == cap) {
                int *t = realloc(cpus, (size_t)(cap = cap ? cap * 2 : 64) * sizeof(int));

                if (t == NULL)
                    goto invalid;
                cpus = t;
            }
            cpus[n++] = (int)start;
        }
        s = *p ? p + 1 : p;
    }
    if (n == 0) {
        if ((cpus = malloc(sizeof(int))) == NULL)
            return -1;
        cpus[n++] = -1;
    }
    qsort(cpus, (size_t)n, sizeof(int), cmp_int);
    for (i = 1; i < n; i++)
        if (cpus[i] == cpus[i - 1])
            goto invalid;
    *out = cpus;
    return n;
invalid:
    free(cpus);
    return -1;
}

/* cpu_map__fprintf(): runs of consecutive cpus as "a-b", comma separated. */
static void print_cpu_map(FILE *out, const int *cpus, int n)
{
    int i, start = 0;

    for (i = 1; i <= n; i++) {
        if (i < n && cpus[i] - cpus[start] == i - start)
            continue;
        if (i - 1 == start)
            fprintf(out, "%s%d", start ? "," : "", cpus[start]);
        else
            fprintf(out, "%s%d-%d", start ? "," : "", cpus[start], cpus[i - 1]);
        start = i;
    }
    fputc('\n', out);
}

/* A bounded appender with scnprintf's semantics: output stops at size-1. */
typedef struct sbuf { char *p; size_t size, len; } sbuf;

static void sb_add(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (b->len + 1 >= b->size)
        return;
    va_start(ap, fmt);
    n = vsnprintf(b->p + b->len, b->size - b->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        b->len += (size_t)n < b->size - b->len ? (size_t)n : b->size - b->len - 1;
}

static int test_bit(const uint64_t *bits, uint64_t i)
{
    return (int)((bits[i / 64] >> (i % 64)) & 1);
}

/* bitmap_scnprintf() into a 100-byte buffer, as perf's memory printer.
 * An empty bitmap writes nothing, not even the NUL: perf then prints what
 * its buffer held, the previous node's list. */
static void bitmap_str(char *buf, size_t size, const uint64_t *bits, unsigned nbits)
{
    sbuf b = { buf, size, 0 };
    unsigned cur = 0, rbot, rtop;
    int first = 1;

    while (cur < nbits && !test_bit(bits, cur))
        cur++;
    rbot = cur;
    while (cur < nbits) {
        rtop = cur;
        for (cur++; cur < nbits && !test_bit(bits, cur); cur++)
            ;
        if (cur < nbits && cur <= rtop + 1)
            continue;
        sb_add(&b, "%s%u", first ? "" : ",", rbot);
        if (rbot < rtop)
            sb_add(&b, "-%u", rtop);
        first = 0;
        rbot = cur;
    }
}

/* unit_number__scnprintf(): divide by 1024 while the quotient exceeds 1. */
static void unit_str(char *buf, size_t size, uint64_t n)
{
    static const char unit[] = "BKMG";
    int i = 0;

    while (n / 1024 > 1 && i < 3) {
        n /= 1024;
        i++;
    }
    snprintf(buf, size, "%" PRIu64 "%c", n, unit[i]);
}

/* ------------------------------------------------------------------------ */
/* Feature printers                                                         */

static void print_hostname(const hp_ctx *c, int ok)
{
    fprintf(c->out, "# hostname : %s\n", nz(ok ? c->f->hostname : NULL));
}

static void print_osrelease(const hp_ctx *c, int ok)
{
    fprintf(c->out, "# os release : %s\n", nz(ok ? c->f->osrelease : NULL));
}

static void print_version(const hp_ctx *c, int ok)
{
    fprintf(c->out, "# perf version : %s\n", nz(ok ? c->f->version : NULL));
}

static void print_arch(const hp_ctx *c, int ok)
{
    fprintf(c->out, "# arch : %s\n", nz(ok ? c->f->arch : NULL));
}

static void print_nrcpus(const hp_ctx *c, int ok)
{
    fprintf(c->out, "# nrcpus online : %u\n", ok ? c->f->nr_cpus_online : 0);
    fprintf(c->out, "# nrcpus avail : %u\n", ok ? c->f->nr_cpus_avail : 0);
}

static void print_cpudesc(const hp_ctx *c, int ok)
{
    fprintf(c->out, "# cpudesc : %s\n", nz(ok ? c->f->cpudesc : NULL));
}

static void print_cpuid(const hp_ctx *c, int ok)
{
    fprintf(c->out, "# cpuid : %s\n", nz(ok ? c->f->cpuid : NULL));
}

static void print_total_mem(const hp_ctx *c, int ok)
{
    fprintf(c->out, "# total memory : %" PRIu64 " kB\n", ok ? c->f->total_mem : 0);
}

/* Arguments joined by spaces (one after the last too); a quote prints as \'. */
static void print_cmdline(const hp_ctx *c, int ok)
{
    uint32_t i;

    fputs("# cmdline : ", c->out);
    for (i = 0; ok && i < c->f->cmdline.nr; i++) {
        const char *a = c->f->cmdline.strs[i], *q;

        while ((q = strchr(a, '\'')) != NULL) {
            fprintf(c->out, "%.*s\\'", (int)(q - a), a);
            a = q + 1;
        }
        fprintf(c->out, "%s ", a);
    }
    fputc('\n', c->out);
}

/* perf 6.1's perf_attr_check(): reserved bits, or sample_type,
 * read_format or branch_sample_type bits newer than it knows, make it
 * refuse the whole EVENT_DESC. */
static int attr_too_new(const ps_attr *a)
{
    return (a->flags >> (PS_ATTR_SIGTRAP + 1)) != 0 || a->reserved_2 || a->aux_action ||
           (a->sample_type >> 25) != 0 || (a->read_format >> 5) != 0 ||
           ((a->sample_type & PERF_SAMPLE_BRANCH_STACK) && (a->branch_sample_type >> 19));
}

static int event_desc_unreadable(const ps_features *f)
{
    uint32_t i;

    if (feature_failed(f, PS_HEADER_EVENT_DESC))
        return 1;
    for (i = 0; i < f->event_desc.nr; i++)
        if (attr_too_new(&f->event_desc.events[i].attr))
            return 1;
    return 0;
}

/* EVENT_DESC is re-read when printed, so only its own decoding matters;
 * perf's list ends at the first entry whose attr.size is 0. */
static void print_event_desc(const hp_ctx *c, int ok)
{
    const ps_features *f = c->f;
    uint32_t i, j;

    (void)ok;
    if (event_desc_unreadable(f)) {
        fputs("# event desc: not available or unable to read\n", c->out);
        return;
    }
    for (i = 0; i < f->event_desc.nr && f->event_desc.events[i].attr.size; i++) {
        const ps_feat_event_desc *ev = &f->event_desc.events[i];

        fprintf(c->out, "# event : name = %s, ", nz(ev->name));
        if (ev->nr_ids) {
            fputs(", id = {", c->out);
            for (j = 0; j < ev->nr_ids; j++)
                fprintf(c->out, "%s %" PRIu64, j ? "," : "", ev->ids[j]);
            fputs(" }", c->out);
        }
        print_attr(c->out, &ev->attr, c->h->swapped);
        fputc('\n', c->out);
    }
}

static void print_strs(FILE *out, const char *prefix, const ps_strlist *l)
{
    uint32_t i;

    for (i = 0; i < l->nr; i++)
        fprintf(out, "%s%s\n", prefix, nz(l->strs[i]));
}

/* perf 6.1 refuses a socket id above the number of CPUs (-1 is fine),
 * except for s390 and aarch64 producers (ARCH), whose socket ids are not
 * CPU numbers; it has read the sibling lists by then, but no dies or ids. */
static int cpu_topology_rejected(const hp_ctx *c)
{
    const ps_features *f = c->f;
    const char *arch = ps_features_has(f, PS_HEADER_ARCH) ? f->arch : NULL;
    uint32_t i;

    if (arch && (strncmp(arch, "s390", 4) == 0 || strncmp(arch, "aarch64", 7) == 0))
        return 0;
    for (i = 0; f->cpu_topology.cpus && i < f->cpu_topology.nr_cpus; i++) {
        uint32_t socket = f->cpu_topology.cpus[i].socket_id;

        if (socket != UINT32_MAX && socket > f->nr_cpus_avail)
            return 1;
    }
    return 0;
}

static void print_cpu_topology(const hp_ctx *c, int ok)
{
    const ps_features *f = c->f;
    int rejected = ok && cpu_topology_rejected(c);
    int dies = ok && !rejected && f->cpu_topology.die_cpus.nr;
    uint32_t i;

    if (ok) {
        print_strs(c->out, "# sibling sockets : ", &f->cpu_topology.package_cpus);
        if (dies)
            print_strs(c->out, "# sibling dies    : ", &f->cpu_topology.die_cpus);
        print_strs(c->out, "# sibling threads : ", &f->cpu_topology.core_cpus);
    }
    if (!ok || rejected || f->cpu_topology.cpus == NULL) {
        fputs(dies ? "# Core ID, Die ID and Socket ID information is not available\n"
                   : "# Core ID and Socket ID information is not available\n", c->out);
        return;
    }
    for (i = 0; i < f->cpu_topology.nr_cpus; i++) {
        const ps_feat_cpu *cpu = &f->cpu_topology.cpus[i];

        if (dies)
            fprintf(c->out, "# CPU %d: Core ID %d, Die ID %d, Socket ID %d\n", (int)i,
                    (int)cpu->core_id, (int)cpu->die_id, (int)cpu->socket_id);
        else
            fprintf(c->out, "# CPU %d: Core ID %d, Socket ID %d\n", (int)i,
                    (int)cpu->core_id, (int)cpu->socket_id);
    }
}

/* perf parses every node's cpu list while processing; one bad list fails
 * the whole feature, which then prints nothing. */
static int numa_rejected(const hp_ctx *c)
{
    uint32_t i;
    int *cpus;

    for (i = 0; i < c->f->numa.nr; i++) {
        if (parse_cpu_list(nz(c->f->numa.nodes[i].cpus), &cpus) < 0)
            return 1;
        free(cpus);
    }
    return 0;
}

static void print_numa_topology(const hp_ctx *c, int ok)
{
    const ps_features *f = c->f;
    uint32_t i;
    int *cpus, n;

    if (!ok || numa_rejected(c))
        return;
    for (i = 0; i < f->numa.nr; i++) {
        const ps_feat_numa_node *node = &f->numa.nodes[i];

        fprintf(c->out, "# node%u meminfo  : total = %" PRIu64 " kB, free = %" PRIu64 " kB\n",
                node->node, node->mem_total, node->mem_free);
        fprintf(c->out, "# node%u cpu list : ", node->node);
        n = parse_cpu_list(nz(node->cpus), &cpus);
        print_cpu_map(c->out, cpus, n);
        free(cpus);
    }
}

static void print_branch_stack(const hp_ctx *c, int ok)
{
    (void)ok;
    fputs("# contains samples with branch stack\n", c->out);
}

static void print_pmu_mappings(const hp_ctx *c, int ok)
{
    const ps_features *f = c->f;
    uint32_t i;

    if (!ok || f->pmu_mappings.nr == 0) {
        fputs("# pmu mappings: not available\n", c->out);
        return;
    }
    for (i = 0; i < f->pmu_mappings.nr; i++)
        fprintf(c->out, "%s%s = %" PRIu32, i ? ", " : "# pmu mappings: ",
                nz(f->pmu_mappings.pmus[i].name), f->pmu_mappings.pmus[i].type);
    fputc('\n', c->out);
}

/* Room for a name per evsel of the session; 0, or -1 without memory. */
static int names_reserve(header_printer *hp, size_t n)
{
    const char **t;

    if (n <= hp->nr_names)
        return 0;
    if ((t = realloc(hp->names, n * sizeof(*t))) == NULL)
        return -1;
    memset(t + hp->nr_names, 0, (n - hp->nr_names) * sizeof(*t));
    hp->names = t;
    hp->nr_names = n;
    return 0;
}

/* The name perf prints for evsel k. In a pipe stream perf fixes a name
 * the first time it needs one: the EVENT_DESC name if that feature came
 * first, else the derived name (the session's name before EVENT_DESC). */
static const char *evsel_name(const hp_ctx *c, size_t k)
{
    header_printer *hp = c->hp;

    if (hp == NULL || names_reserve(hp, ps_session_nr_evsels(c->s)) < 0 ||
        k >= hp->nr_names)
        return nz(ps_session_evsel(c->s, k)->name);
    if (hp->names[k] == NULL)
        hp->names[k] = nz(ps_session_evsel(c->s, k)->name);
    return hp->names[k];
}

/* perf rebuilds the groups from GROUP_DESC over the event list (leaders
 * matched in order, members following them), then prints every leader
 * with more than one member as "# group: name{a,b}". */
static void print_group_desc(const hp_ctx *c, int ok)
{
    const ps_features *f = c->f;
    size_t nr_ev = ps_session_nr_evsels(c->s), k;
    uint32_t *members;
    const char **gname;
    uint32_t i = 0;
    long nr = 0;

    if (!ok || nr_ev == 0)
        return;
    members = calloc(nr_ev, sizeof(*members));
    gname = calloc(nr_ev, sizeof(*gname));
    if (members == NULL || gname == NULL)
        goto out;
    for (k = 0; k < nr_ev; k++) {
        const ps_feat_group *g = i < f->group_desc.nr ? &f->group_desc.groups[i] : NULL;

        if (g && k == g->leader_idx) {
            members[k] = g->nr_members;
            if (g->name && strcmp(g->name, "{anon_group}") != 0)
                gname[k] = g->name;
            if (nr > 0)
                break;      /* perf: "invalid group desc" */
            nr = (long)g->nr_members - 1;
            i++;
        } else if (nr) {
            nr--;
        }
    }
    nr = 0;
    for (k = 0; k < nr_ev; k++) {
        const char *name;

        if (members[k] <= 1 && nr == 0)
            continue;
        name = evsel_name(c, k);
        if (members[k] > 1) {
            fprintf(c->out, "# group: %s{%s", gname[k] ? gname[k] : "", name);
            nr = (long)members[k] - 1;
        } else if (nr) {
            fprintf(c->out, ",%s", name);
            if (--nr == 0)
                fputs("}\n", c->out);
        }
    }
out:
    free(members);
    free(gname);
}

static void print_auxtrace(const hp_ctx *c, int ok)
{
    (void)ok;
    fputs("# contains AUX area data (e.g. instruction trace)\n", c->out);
}

static void print_stat(const hp_ctx *c, int ok)
{
    (void)ok;
    fputs("# contains stat data\n", c->out);
}

static void print_cache(const hp_ctx *c, int ok)
{
    uint32_t i;

    fputs("# CPU cache info:\n", c->out);
    for (i = 0; ok && i < c->f->cache.nr; i++) {
        const ps_feat_cache *k = &c->f->cache.caches[i];

        fprintf(c->out, "#  L%d %-15s %8s [%s]\n", (int)k->level, nz(k->type),
                nz(k->size), nz(k->map));
    }
}

static void print_sample_time(const hp_ctx *c, int ok)
{
    uint64_t first = ok ? c->f->sample_time.first : 0;
    uint64_t last = ok ? c->f->sample_time.last : 0;

    fprintf(c->out, "# time of first sample : %" PRIu64 ".%06" PRIu64 "\n",
            first / 1000000000, first % 1000000000 / 1000);
    fprintf(c->out, "# time of last sample : %" PRIu64 ".%06" PRIu64 "\n",
            last / 1000000000, last % 1000000000 / 1000);
    fprintf(c->out, "# sample duration : %10.3f ms\n", (double)(last - first) / 1000000);
}

static void print_mem_topology(const hp_ctx *c, int ok)
{
    const ps_features *f = c->f;
    uint64_t i, nr = ok ? f->mem_topology.nr_nodes : 0;
    char map[100];

    fprintf(c->out, "# memory nodes (nr %d, block size 0x%" PRIx64 "):\n", (int)nr,
            ok ? f->mem_topology.block_size : 0);
    map[0] = 0;
    for (i = 0; i < nr; i++) {
        const ps_feat_mem_node *n = &f->mem_topology.nodes[i];
        char size[50];
        uint64_t b, weight = 0;

        for (b = 0; b < n->nbits; b++)
            weight += (uint64_t)test_bit(n->bits, b);
        unit_str(size, sizeof(size), f->mem_topology.block_size * weight);
        bitmap_str(map, sizeof(map), n->bits, (unsigned)n->nbits);
        fprintf(c->out, "#  %3" PRIu64 " [%s]: %s\n", n->node, size, map);
    }
}

static void print_clockid(const hp_ctx *c, int ok)
{
    fprintf(c->out, "# clockid frequency: %" PRIu64 " MHz\n",
            (ok ? c->f->clockid_res_ns : 0) * 1000);
}

/* perf takes the version from the directory it opened; a plain file has
 * none (and fails the feature). */
static int dir_format_rejected(const hp_ctx *c)
{
    return c->h->container != PS_CONTAINER_DIR;
}

static void print_dir_format(const hp_ctx *c, int ok)
{
    uint64_t v = ok && c->h->container == PS_CONTAINER_DIR ? c->f->dir_format : 0;

    fprintf(c->out, "# directory data version : %" PRIu64 "\n", v);
}

/* ---- BPF_PROG_INFO: struct bpf_prog_info fields perf's printer reads ---- */

enum {
    BPI_ID = 4, BPI_TAG = 8, BPI_NAME = 64, BPI_NR_JITED_KSYMS = 104,
    BPI_NR_JITED_FUNC_LENS = 108, BPI_JITED_KSYMS = 112, BPI_JITED_FUNC_LENS = 120,
    BPI_BTF_ID = 128, BPI_FUNC_INFO_REC_SIZE = 132, BPI_FUNC_INFO = 136,
    BPI_NR_FUNC_INFO = 144, BPI_NR_PROG_TAGS = 180, BPI_PROG_TAGS = 184,
    BPI_SIZE = 232,
    /* bits of the `arrays` mask */
    BPIL_JITED_KSYMS = 3, BPIL_JITED_FUNC_LENS = 4, BPIL_FUNC_INFO = 5,
    BPIL_PROG_TAGS = 8
};

typedef struct bpf_view {
    uint8_t        info[BPI_SIZE];  /* zero-filled past info_len */
    const uint8_t *data;
    uint32_t       data_len;
    uint64_t       arrays;
} bpf_view;

static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* The array an info field points at (an offset into data in the file), or
 * NULL when its bit is clear or it does not fit. */
static const uint8_t *bpf_array(const bpf_view *v, unsigned bit, unsigned field,
                                uint64_t count, uint64_t elem)
{
    uint64_t off = rd64(v->info + field);

    if (!((v->arrays >> bit) & 1) || off > v->data_len ||
        (elem && count > (v->data_len - off) / elem))
        return NULL;
    return v->data + off;
}

/* Minimal BTF reader: the name of type `id`, NULL if the blob or the id is
 * not usable (libbpf would reject the blob, perf then has no BTF). */
static const char *btf_type_name(const ps_feat_btf *btf, uint32_t id, int *ok)
{
    const uint8_t *d = btf->data;
    uint32_t hdr_len, type_off, type_len, str_off, str_len, pos, end, cur = 1;

    *ok = 0;
    if (btf->size < 24 || d[0] != 0x9f || d[1] != 0xeb)
        return NULL;
    hdr_len = rd32(d + 4);
    type_off = rd32(d + 8);
    type_len = rd32(d + 12);
    str_off = rd32(d + 16);
    str_len = rd32(d + 20);
    if (hdr_len < 24 || hdr_len > btf->size || type_off > btf->size - hdr_len ||
        type_len > btf->size - hdr_len - type_off || str_off > btf->size - hdr_len ||
        str_len > btf->size - hdr_len - str_off || str_len == 0)
        return NULL;
    /* libbpf rejects a string section that does not start and end with a
     * NUL; the names below are then always terminated inside the blob */
    if (d[hdr_len + str_off] != '\0' || d[hdr_len + str_off + str_len - 1] != '\0')
        return NULL;
    *ok = 1;
    if (id == 0)
        return "";
    pos = hdr_len + type_off;
    end = pos + type_len;
    while (pos + 12 <= end) {
        uint32_t name_off = rd32(d + pos), info = rd32(d + pos + 4);
        uint32_t vlen = info & 0xffff, kind = (info >> 24) & 0x1f, extra;

        if (cur == id)
            return name_off < str_len ? (const char *)d + hdr_len + str_off + name_off : NULL;
        switch (kind) {
        case 1: case 14: case 17: extra = 4; break;          /* INT VAR DECL_TAG */
        case 3: extra = 12; break;                            /* ARRAY */
        case 4: case 5: case 15: case 19: extra = 12 * vlen; break;
        case 6: case 13: extra = 8 * vlen; break;             /* ENUM FUNC_PROTO */
        case 2: case 7: case 8: case 9: case 10: case 11: case 12: case 16: case 18:
            extra = 0; break;
        default: *ok = 0; return NULL;
        }
        pos += 12 + extra;
        cur++;
    }
    return NULL;
}

static const ps_feat_btf *find_btf(const ps_features *f, uint32_t id)
{
    uint32_t i;

    for (i = 0; ps_features_has(f, PS_HEADER_BPF_BTF) && i < f->bpf_btf.count; i++)
        if (f->bpf_btf.btfs[i].id == id)
            return &f->bpf_btf.btfs[i];
    return NULL;
}

/* synthesize_bpf_prog_name(): bpf_prog_<tag>[_<name>] */
static void bpf_prog_name(char *buf, size_t size, const bpf_view *v, const ps_feat_btf *btf,
                          uint32_t sub, uint32_t nr_sub, const uint8_t *tags)
{
    const char *short_name = NULL;
    sbuf b = { buf, size, 0 };
    int i, btf_ok = 0;

    sb_add(&b, "bpf_prog_");
    for (i = 0; i < 8; i++)
        sb_add(&b, "%02x", tags[8 * sub + i]);
    if (btf) {
        uint32_t rec = rd32(v->info + BPI_FUNC_INFO_REC_SIZE);
        const uint8_t *fi = bpf_array(v, BPIL_FUNC_INFO, BPI_FUNC_INFO,
                                      rd32(v->info + BPI_NR_FUNC_INFO), rec);

        if (fi && rec >= 8 && sub < rd32(v->info + BPI_NR_FUNC_INFO))
            short_name = btf_type_name(btf, rd32(fi + (size_t)sub * rec + 4), &btf_ok);
    }
    if (!btf_ok) {
        if (sub == 0 && nr_sub == 1)
            short_name = v->info[BPI_NAME] ? (const char *)v->info + BPI_NAME : NULL;
        else
            short_name = "F";
    }
    if (short_name == (const char *)v->info + BPI_NAME)
        sb_add(&b, "_%.16s", short_name);
    else if (short_name)
        sb_add(&b, "_%s", short_name);
}

static void print_one_bpf_prog(FILE *out, const ps_features *f, const ps_feat_bpf_prog *p)
{
    bpf_view v;
    uint32_t nr, i;
    const uint8_t *addrs, *lens, *tags;
    const ps_feat_btf *btf = NULL;
    char name[512];

    memset(&v, 0, sizeof(v));
    memcpy(v.info, p->info, p->info_len < BPI_SIZE ? p->info_len : BPI_SIZE);
    v.data = p->data;
    v.data_len = p->data_len;
    v.arrays = p->arrays;
    nr = rd32(v.info + BPI_NR_JITED_KSYMS);
    if (nr != rd32(v.info + BPI_NR_PROG_TAGS) || nr != rd32(v.info + BPI_NR_JITED_FUNC_LENS))
        return;
    addrs = bpf_array(&v, BPIL_JITED_KSYMS, BPI_JITED_KSYMS, nr, 8);
    lens = bpf_array(&v, BPIL_JITED_FUNC_LENS, BPI_JITED_FUNC_LENS, nr, 4);
    tags = bpf_array(&v, BPIL_PROG_TAGS, BPI_PROG_TAGS, nr, 8);
    if (nr && (addrs == NULL || lens == NULL || tags == NULL))
        return;     /* perf would follow garbage pointers here */
    if (rd32(v.info + BPI_BTF_ID))
        btf = find_btf(f, rd32(v.info + BPI_BTF_ID));
    if (nr == 1) {
        bpf_prog_name(name, sizeof(name), &v, btf, 0, nr, tags);
        fprintf(out, "# bpf_prog_info %u: %s addr 0x%" PRIx64 " size %u\n",
                rd32(v.info + BPI_ID), name, rd64(addrs), rd32(lens));
        return;
    }
    fprintf(out, "# bpf_prog_info %u:\n", rd32(v.info + BPI_ID));
    for (i = 0; i < nr; i++) {
        bpf_prog_name(name, sizeof(name), &v, btf, i, nr, tags);
        fprintf(out, "# \tsub_prog %u: %s addr 0x%" PRIx64 " size %u\n", i, name,
                rd64(addrs + 8 * (size_t)i), rd32(lens + 4 * (size_t)i));
    }
}

/* perf keeps programs (and BTF blobs) in a tree keyed by id: printed in
 * ascending id order, the first of equal ids kept. */
static int cmp_u64_pair(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;

    return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

/* keys[i] = {id, i}, sorted; returns the count or -1. */
static long sorted_ids(uint64_t **out, uint32_t nr, uint32_t (*id_of)(const void *, uint32_t),
                       const void *arr)
{
    uint64_t *k = malloc(((size_t)nr + 1) * 2 * sizeof(uint64_t));
    uint32_t i;

    if ((*out = k) == NULL)
        return -1;
    for (i = 0; i < nr; i++) {
        k[2 * i] = id_of(arr, i);
        k[2 * i + 1] = i;
    }
    qsort(k, nr, 2 * sizeof(uint64_t), cmp_u64_pair);
    return nr;
}

static uint32_t prog_id(const void *arr, uint32_t i)
{
    const ps_feat_bpf_prog *p = (const ps_feat_bpf_prog *)arr + i;

    return p->info_len >= BPI_ID + 4 ? rd32(p->info + BPI_ID) : 0;
}

static uint32_t btf_id(const void *arr, uint32_t i)
{
    return ((const ps_feat_btf *)arr)[i].id;
}

static void print_bpf_prog_info(const hp_ctx *c, int ok)
{
    const ps_features *f = c->f;
    uint64_t *k;
    long n, i;

    if (!ok || c->h->swapped)
        return;
    if ((n = sorted_ids(&k, f->bpf_prog_info.count, prog_id, f->bpf_prog_info.progs)) < 0)
        return;
    for (i = 0; i < n; i++)
        if (i == 0 || k[2 * i] != k[2 * i - 2])
            print_one_bpf_prog(c->out, f, &f->bpf_prog_info.progs[k[2 * i + 1]]);
    free(k);
}

static void print_bpf_btf(const hp_ctx *c, int ok)
{
    const ps_features *f = c->f;
    uint64_t *k;
    long n, i;

    if (!ok || c->h->swapped)
        return;
    if ((n = sorted_ids(&k, f->bpf_btf.count, btf_id, f->bpf_btf.btfs)) < 0)
        return;
    for (i = 0; i < n; i++)
        if (i == 0 || k[2 * i] != k[2 * i - 2])
            fprintf(c->out, "# btf info of id %" PRIu64 "\n", k[2 * i]);
    free(k);
}

static void print_compressed(const hp_ctx *c, int ok)
{
    fprintf(c->out, "# compressed : %s, level = %d, ratio = %d\n",
            ok && c->f->compressed.type == 1 ? "Zstd" : "Unknown",
            ok ? (int)c->f->compressed.level : 0, ok ? (int)c->f->compressed.ratio : 0);
}

static void print_caps(FILE *out, const char *pmu, uint32_t nr, const ps_feat_cap *caps)
{
    uint32_t i;

    if (nr == 0) {
        fprintf(out, "# %s pmu capabilities: not available\n", pmu);
        return;
    }
    fprintf(out, "# %s pmu capabilities: ", pmu);
    for (i = 0; i < nr; i++)
        fprintf(out, "%s%s=%s", i ? ", " : "", nz(caps[i].name), nz(caps[i].value));
    fputc('\n', out);
}

static void print_cpu_pmu_caps(const hp_ctx *c, int ok)
{
    print_caps(c->out, "cpu", ok ? c->f->cpu_pmu_caps.nr : 0, c->f->cpu_pmu_caps.caps);
}

static const char *clockid_name(uint32_t id)
{
    switch (id) {
    case 1: return "monotonic";
    case 4: return "monotonic_raw";
    case 0: return "realtime";
    case 7: return "boottime";
    case 11: return "tai";
    default: return "(not found)";
    }
}

static void print_clock_data(const hp_ctx *c, int ok)
{
    uint64_t tod = c->f->clock_data.tod_ns, clk = c->f->clock_data.clockid_ns;
    time_t sec = (time_t)(tod / 1000000000);
    int usec = (int)(tod % 1000000000 / 1000);
    const char *name = clockid_name(c->f->clock_data.clockid);
    char date[64], tstr[96];
    struct tm tm;

    if (!ok) {
        fputs("# reference time disabled\n", c->out);
        return;
    }
    if (localtime_r(&sec, &tm) == NULL) {
        snprintf(tstr, sizeof(tstr), "<error>");
    } else {
        strftime(date, sizeof(date), "%F %T", &tm);
        snprintf(tstr, sizeof(tstr), "%s.%06d", date, usec);
    }
    fprintf(c->out, "# clockid: %s (%u)\n", name, c->f->clock_data.clockid);
    fprintf(c->out, "# reference time: %s = %ld.%06d (TOD) = %ld.%09ld (%s)\n", tstr,
            (long)sec, usec, (long)(clk / 1000000000), (long)(clk % 1000000000), name);
}

static void print_hybrid_topology(const hp_ctx *c, int ok)
{
    uint32_t i;

    fputs("# hybrid cpu system:\n", c->out);
    for (i = 0; ok && i < c->f->hybrid_topology.nr; i++)
        fprintf(c->out, "# %s cpu list : %s\n", nz(c->f->hybrid_topology.pmus[i].pmu_name),
                nz(c->f->hybrid_topology.pmus[i].cpus));
}

static void print_pmu_caps(const hp_ctx *c, int ok)
{
    uint32_t i;

    for (i = 0; ok && i < c->f->pmu_caps.nr; i++) {
        const ps_feat_pmu_caps *p = &c->f->pmu_caps.pmus[i];

        print_caps(c->out, nz(p->pmu_name), p->nr_caps, p->caps);
    }
}

/* ------------------------------------------------------------------------ */
/* The table: perf 6.1's printer and "processing failure stops the rest"    */

enum { STOPS = 1, NO_PIPE = 2, FULL_ONLY = 4 };

typedef int (*feat_reject_fn)(const hp_ctx *c);

static const struct feat_printer {
    feat_print_fn  print;
    feat_reject_fn rejects;     /* perf's processing refuses decoded data */
    unsigned       flags;       /* STOPS: a failure ends perf's processing;
                                 * NO_PIPE: never printed from a pipe stream;
                                 * FULL_ONLY: printed with -I only, else
                                 * "info available" */
} printers[LAST_FEATURE_61] = {
    [PS_HEADER_TRACING_DATA]    = { NULL, NULL, STOPS },
    [PS_HEADER_BUILD_ID]        = { NULL, NULL, 0 },
    [PS_HEADER_HOSTNAME]        = { print_hostname, NULL, STOPS },
    [PS_HEADER_OSRELEASE]       = { print_osrelease, NULL, STOPS },
    [PS_HEADER_VERSION]         = { print_version, NULL, STOPS },
    [PS_HEADER_ARCH]            = { print_arch, NULL, STOPS },
    [PS_HEADER_NRCPUS]          = { print_nrcpus, NULL, STOPS },
    [PS_HEADER_CPUDESC]         = { print_cpudesc, NULL, STOPS },
    [PS_HEADER_CPUID]           = { print_cpuid, NULL, STOPS },
    [PS_HEADER_TOTAL_MEM]       = { print_total_mem, NULL, STOPS },
    [PS_HEADER_CMDLINE]         = { print_cmdline, NULL, STOPS },
    [PS_HEADER_EVENT_DESC]      = { print_event_desc, NULL, 0 },
    [PS_HEADER_CPU_TOPOLOGY]    = { print_cpu_topology, cpu_topology_rejected, STOPS | FULL_ONLY },
    [PS_HEADER_NUMA_TOPOLOGY]   = { print_numa_topology, numa_rejected, STOPS | FULL_ONLY },
    [PS_HEADER_BRANCH_STACK]    = { print_branch_stack, NULL, NO_PIPE },
    [PS_HEADER_PMU_MAPPINGS]    = { print_pmu_mappings, NULL, STOPS },
    [PS_HEADER_GROUP_DESC]      = { print_group_desc, NULL, STOPS },
    [PS_HEADER_AUXTRACE]        = { print_auxtrace, NULL, STOPS },
    [PS_HEADER_STAT]            = { print_stat, NULL, NO_PIPE },
    [PS_HEADER_CACHE]           = { print_cache, NULL, STOPS | FULL_ONLY },
    [PS_HEADER_SAMPLE_TIME]     = { print_sample_time, NULL, STOPS },
    [PS_HEADER_MEM_TOPOLOGY]    = { print_mem_topology, NULL, STOPS | FULL_ONLY },
    [PS_HEADER_CLOCKID]         = { print_clockid, NULL, STOPS },
    [PS_HEADER_DIR_FORMAT]      = { print_dir_format, dir_format_rejected, STOPS | NO_PIPE },
    [PS_HEADER_BPF_PROG_INFO]   = { print_bpf_prog_info, NULL, STOPS },
    [PS_HEADER_BPF_BTF]         = { print_bpf_btf, NULL, STOPS },
    [PS_HEADER_COMPRESSED]      = { print_compressed, NULL, STOPS },
    [PS_HEADER_CPU_PMU_CAPS]    = { print_cpu_pmu_caps, NULL, STOPS },
    [PS_HEADER_CLOCK_DATA]      = { print_clock_data, NULL, STOPS },
    [PS_HEADER_HYBRID_TOPOLOGY] = { print_hybrid_topology, NULL, STOPS | FULL_ONLY },
    [PS_HEADER_PMU_CAPS]        = { print_pmu_caps, NULL, STOPS },
};

/* A feature's text, or without -I for the ones perf keeps for it, the
 * line that says it is there. */
static void print_feature(const hp_ctx *c, unsigned feat, int ok)
{
    const struct feat_printer *p = &printers[feat];

    if (c->brief && (p->flags & FULL_ONLY))
        fprintf(c->out, "# %s info available, use -I to display\n", ps_feature_name(feat));
    else
        p->print(c, ok);
}

/* Whether perf's processing of feat fails: our decoder failed, or perf
 * refuses what it decoded. */
static int perf_fails(const hp_ctx *c, unsigned feat)
{
    const struct feat_printer *p = &printers[feat];

    return feature_failed(c->f, feat) || (p->rejects && p->rejects(c));
}

static int header_has(const ps_header *h, unsigned feat)
{
    return (int)((h->features[feat / 64] >> (feat % 64)) & 1);
}

/* ctime(): "Tue Nov 14 22:13:20 2023\n" in local time, C locale. */
static void print_captured_on(FILE *out, int64_t mtime)
{
    static const char days[] = "SunMonTueWedThuFriSat";
    static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
    time_t t = (time_t)mtime;
    struct tm tm;

    fputs("# captured on    : ", out);
    if (localtime_r(&t, &tm) == NULL || tm.tm_wday < 0 || tm.tm_wday > 6 ||
        tm.tm_mon < 0 || tm.tm_mon > 11) {
        fputs("(null)", out);          /* ctime() returned NULL */
        return;
    }
    fprintf(out, "%.3s %.3s%3d %.2d:%.2d:%.2d %d\n", days + 3 * tm.tm_wday,
            months + 3 * tm.tm_mon, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
            tm.tm_year + 1900);
}

/* perf reads the whole feature table first; when it cannot (the file ends
 * inside it) no feature prints at all. No set bit then has a section. */
static int feature_table_read(const hp_ctx *c)
{
    unsigned feat;

    for (feat = 1; feat < PS_HEADER_FEAT_BITS; feat++)
        if (header_has(c->h, feat) && c->f->sections[feat].offset != 0)
            return 1;
    return 0;
}

static void print_file_features(const hp_ctx *c)
{
    int table = feature_table_read(c), stopped = 0;
    unsigned feat;

    for (feat = 1; table && feat < LAST_FEATURE_61; feat++) {
        const struct feat_printer *p = &printers[feat];
        int failed;

        if (!header_has(c->h, feat))
            continue;
        failed = perf_fails(c, feat);
        if (p->print)
            print_feature(c, feat, !stopped && !feature_failed(c->f, feat));
        if (failed && (p->flags & STOPS))
            stopped = 1;
    }
    fputs("# missing features: ", c->out);
    for (feat = 1; feat < LAST_FEATURE_61; feat++)
        if (!header_has(c->h, feat))
            fprintf(c->out, "%s ", ps_feature_name(feat));
    fputc('\n', c->out);
}

/* One HEADER_FEATURE record of a pipe stream; 0 to go on, -1 where perf
 * stops processing the stream. */
static int print_pipe_feature(const hp_ctx *c, uint64_t feat)
{
    const struct feat_printer *p;

    if (feat == 0 || feat >= LAST_FEATURE_61)
        return 0;       /* perf: "invalid record type", skipped */
    p = &printers[feat];
    if (p->print == NULL || (p->flags & NO_PIPE))
        return (feat == PS_HEADER_DIR_FORMAT) ? -1 : 0;
    if (perf_fails(c, (unsigned)feat) && feat != PS_HEADER_EVENT_DESC)
        return -1;      /* perf prints a pipe feature only once processed */
    print_feature(c, (unsigned)feat, 1);
    return 0;
}

static void ctx_init(hp_ctx *c, FILE *out, ps_session *s, header_printer *hp)
{
    c->out = out;
    c->s = s;
    c->h = ps_session_header(s);
    c->f = ps_session_features(s);
    c->pipe = c->h->container == PS_CONTAINER_PIPE;
    c->brief = hp != NULL && hp->brief;
    c->hp = c->pipe ? hp : NULL;
}

/* perf names the evsels that have no name yet from an EVENT_DESC it could
 * read (by index). */
static void settle_desc_names(const hp_ctx *c)
{
    const ps_features *f = c->f;
    uint32_t i;

    if (event_desc_unreadable(f))
        return;
    if (names_reserve(c->hp, ps_session_nr_evsels(c->s)) < 0)
        return;
    for (i = 0; i < f->event_desc.nr && i < c->hp->nr_names; i++)
        if (c->hp->names[i] == NULL)
            c->hp->names[i] = nz(f->event_desc.events[i].name);
}

void header_print_init(header_printer *hp, FILE *out, ps_session *s, int brief)
{
    hp->brief = brief;
    hp->out = out;
    hp->s = s;
    hp->stopped = 0;
    hp->seen = 0;
    hp->names = NULL;
    hp->nr_names = 0;
}

void header_print_begin(header_printer *hp, FILE *out, ps_session *s, int brief)
{
    hp_ctx c;

    header_print_init(hp, out, s, brief);
    ctx_init(&c, out, s, hp);
    fputs("# ========\n", out);
    print_captured_on(out, c.h->mtime);
    fprintf(out, "# header version : %u\n", c.h->legacy_magic ? 0u : 1u);
    fprintf(out, "# data offset    : %" PRIu64 "\n", c.pipe ? 0 : c.h->data.offset);
    fprintf(out, "# data size      : %" PRIu64 "\n", c.pipe ? 0 : c.h->data.size);
    fprintf(out, "# feat offset    : %" PRIu64 "\n", c.pipe ? 0 : c.h->feat_offset);
    if (!c.pipe)
        print_file_features(&c);
    fputs("# ========\n#\n", out);
}

/* Pipe mode: a feature prints when its record arrives, with the state the
 * session has then (names, groups), as in perf; perf 6.1 does not swap the
 * feature id of other-endian streams, so it prints none of theirs. */
void header_print_event(header_printer *hp, const ps_event *ev)
{
    hp_ctx c;

    ctx_init(&c, hp->out, hp->s, hp);
    hp->seen = 1;
    if (!c.pipe || hp->stopped || c.h->swapped ||
        ev->type != PS_RECORD_HEADER_FEATURE || ev->u.feature.size == 0)
        return;
    if (print_pipe_feature(&c, ev->u.feature.feat_id) < 0)
        hp->stopped = 1;
    else if (ev->u.feature.feat_id == PS_HEADER_EVENT_DESC)
        settle_desc_names(&c);
}

/* A pipe stream drained before any event reached header_print_event():
 * print what arrived, in bit order (the arrival order is lost). */
void header_print_end(header_printer *hp)
{
    unsigned feat;
    hp_ctx c;

    ctx_init(&c, hp->out, hp->s, hp);
    if (!c.pipe || hp->seen || c.h->swapped)
        goto out;
    for (feat = 1; feat < LAST_FEATURE_61; feat++) {
        if (!ps_features_has(c.f, feat) && !((c.f->failed[0] >> feat) & 1))
            continue;       /* never arrived */
        if (print_pipe_feature(&c, feat) < 0)
            break;
        if (feat == PS_HEADER_EVENT_DESC)
            settle_desc_names(&c);
    }
out:
    free(hp->names);
    hp->names = NULL;
    hp->nr_names = 0;
}

int header_print(FILE *out, ps_session *s, const char *display_name)
{
    header_printer hp;
    ps_event ev;
    ps_error err;
    int rc, pipe = ps_session_header(s)->container == PS_CONTAINER_PIPE;

    header_print_begin(&hp, out, s, 0);
    if (!pipe)
        return 0;
    while ((rc = ps_session_next(&ev, s, &err)) == PS_OK)
        header_print_event(&hp, &ev);
    if (rc < 0 && hp.seen) {
        /* perf reports the bad record, keeps what it printed, exits 0 */
        fprintf(stderr, "perfsift info: %s: %s\n", display_name, err.msg);
    }
    header_print_end(&hp);
    return 0;
}
