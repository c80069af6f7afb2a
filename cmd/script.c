/* SPDX-License-Identifier: MIT */
/*
 * script.c - perfsift script: the text `perf script` prints, byte for byte
 * with perf 6.1 given the same options on the same machine. Records come in
 * time order (FINISHED_ROUND rounds, as perf's ordered events), feed the
 * machine model, and samples are printed with perf's field layout:
 *
 *   comm tid [cpu] time: period event: [trace] [addr] ip sym+off (dso)
 *
 * or, with call chains, the header line then one "\t%16x sym+off (dso)"
 * line per frame and a blank line. Field choice per event type and -F live
 * in script_fields.c; non-sample records (--show-*-events) in
 * script_events.c.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common.h"
#include "filters.h"
#include "header_print.h"
#include "linebuf.h"
#include "read_split.h"
#include "script.h"
#include "script_events.h"
#include "script_mem.h"
#include "script_brstack.h"
#include "script_dump.h"
#include "script_regs.h"
#include "script_srccode.h"
#include "script_stat.h"
#include "../libparse/resolve.h"
#include "../libparse/tracepoint.h"

static const char usage_text[] =
"usage: perfsift script [options] [FILE]\n"
"\n"
"Print the samples of a capture as `perf script` does: same fields, same\n"
"layout, same symbols (on the same machine), in time order.\n"
"\n"
"  -F, --fields LIST     fields to print: [type:][+-]field,... with type hw,\n"
"                        sw, trace, raw, break, synth and fields comm, tid,\n"
"                        pid, time, cpu, event, trace, ip, sym, dso, addr,\n"
"                        symoff, period, data_src, weight, phys_addr, misc,\n"
"                        data_page_size, code_page_size, ins_lat,\n"
"                        srcline, bpf-output, synth, iregs, uregs, brstack,\n"
"                        brstacksym, tod, flags, ipc, srccode, callindent,\n"
"                        machine_pid, vcpu\n"
"      --ns              times with nanoseconds\n"
"      --reltime         times relative to the first record printed\n"
"      --deltatime       times relative to the previous record printed\n"
"  -G, --hide-call-graph one line per sample, no call chains\n"
"      --max-stack N     at most N call chain entries (default 127)\n"
"      --show-task-events      also COMM, FORK, EXIT\n"
"      --show-mmap-events      also MMAP, MMAP2\n"
"      --show-switch-events    also SWITCH, SWITCH_CPU_WIDE\n"
"      --show-namespace-events also NAMESPACES\n"
"      --show-lost-events      also LOST, LOST_SAMPLES\n"
"      --show-round-events     also FINISHED_ROUND\n"
"      --show-bpf-events       also KSYMBOL, BPF_EVENT\n"
"      --show-cgroup-events    also CGROUP\n"
"      --show-text-poke-events also TEXT_POKE\n"
FILTER_USAGE
"      --symfs DIR       look for binaries under DIR\n"
"      --kallsyms FILE   kernel symbols from FILE\n"
"      --no-demangle     print C++/Rust symbols as they are in the binary\n"
"      --no-inline       no inlined callers under DWARF-unwound frames\n"
"      --full-source-path  srcline with the source file's whole path\n"
"      --header          the capture's header first (perf report --header-only)\n"
"      --header-only     only the header\n"
"  -I, --show-info       the header in full (CPU and memory topology, caches)\n"
"      --per-event-dump  each event's samples to FILE.EVENT.dump\n"
"      --stop-bt LIST    end each call chain after a frame of these symbols\n"
"      --switch-on EVENT   samples only after a sample of EVENT\n"
"      --switch-off EVENT  ... and not after one of EVENT (until the next on)\n"
"      --show-on-off-events  print the switching samples too\n"
"  -L, --Latency         perf's latency columns: comm in 8, cpu as a number\n"
INPUT_USAGE
"  -h, --help            this text\n"
"\n"
"Examples:\n"
"  perfsift script perf.data > out.txt\n"
"  perfsift script -F comm,tid,time,event,ip,sym perf.data\n"
"  perfsift script -G --ns --show-task-events perf.data\n";

enum {
    OPT_NS = 3000, OPT_MAX_STACK, OPT_SYMFS, OPT_KALLSYMS, OPT_NO_DEMANGLE, OPT_RELTIME, OPT_DELTATIME, OPT_INLINE,
    OPT_NO_INLINE, OPT_FULL_SRCPATH, OPT_HEADER, OPT_HEADER_ONLY, OPT_PER_EVENT_DUMP,
    OPT_STOP_BT, OPT_DEMANGLE, OPT_SHOW_KERNEL_PATH, OPT_SWITCH_ON, OPT_SWITCH_OFF,
    OPT_SHOW_ON_OFF, OPT_SHOW_BASE
};

static const struct option long_opts[] = {
    { "fields", required_argument, NULL, 'F' },
    { "ns", no_argument, NULL, OPT_NS },
    { "reltime", no_argument, NULL, OPT_RELTIME },
    { "deltatime", no_argument, NULL, OPT_DELTATIME },
    { "hide-call-graph", no_argument, NULL, 'G' },
    { "max-stack", required_argument, NULL, OPT_MAX_STACK },
    { "show-task-events", no_argument, NULL, OPT_SHOW_BASE + 0 },
    { "show-mmap-events", no_argument, NULL, OPT_SHOW_BASE + 1 },
    { "show-switch-events", no_argument, NULL, OPT_SHOW_BASE + 2 },
    { "show-namespace-events", no_argument, NULL, OPT_SHOW_BASE + 3 },
    { "show-lost-events", no_argument, NULL, OPT_SHOW_BASE + 4 },
    { "show-round-events", no_argument, NULL, OPT_SHOW_BASE + 5 },
    { "show-bpf-events", no_argument, NULL, OPT_SHOW_BASE + 6 },
    { "show-cgroup-events", no_argument, NULL, OPT_SHOW_BASE + 7 },
    { "show-text-poke-events", no_argument, NULL, OPT_SHOW_BASE + 8 },
    FILTER_LONG_OPTS,
    { "symfs", required_argument, NULL, OPT_SYMFS },
    { "kallsyms", required_argument, NULL, OPT_KALLSYMS },
    { "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
    { "inline", no_argument, NULL, OPT_INLINE },
    { "no-inline", no_argument, NULL, OPT_NO_INLINE },
    { "full-source-path", no_argument, NULL, OPT_FULL_SRCPATH },
    { "header", no_argument, NULL, OPT_HEADER },
    { "header-only", no_argument, NULL, OPT_HEADER_ONLY },
    { "show-info", no_argument, NULL, 'I' },
    { "per-event-dump", no_argument, NULL, OPT_PER_EVENT_DUMP },
    { "stop-bt", required_argument, NULL, OPT_STOP_BT },
    { "switch-on", required_argument, NULL, OPT_SWITCH_ON },
    { "switch-off", required_argument, NULL, OPT_SWITCH_OFF },
    { "show-on-off-events", no_argument, NULL, OPT_SHOW_ON_OFF },
    { "Latency", no_argument, NULL, 'L' },
    { "demangle", no_argument, NULL, OPT_DEMANGLE },
    { "demangle-kernel", no_argument, NULL, OPT_SHOW_KERNEL_PATH },
    { "show-kernel-path", no_argument, NULL, OPT_SHOW_KERNEL_PATH },
    { "help", no_argument, NULL, 'h' },
    INPUT_LONG_OPTS,
    { NULL, 0, NULL, 0 }
};

typedef struct script {
    script_config cfg;
    ps_session   *s;
    ps_resolver  *res;
    FILE         *out;
    int           nanosecs;
    int           reltime, deltatime;
    uint64_t      initial_time, previous_time;
    unsigned      max_stack;
    unsigned      show;          /* 1 << SHOW_* */
    sample_filter filter;        /* --comms, --pid, --tid, --cpu, --time */
    int           name_width;    /* perf's evlist__max_name_len, set at first use */
    int           pipe;
    int           has_stat;
    int           no_inline;    /* --no-inline */
    int           full_srcpath; /* --full-source-path */
    int           header;       /* --header: 1, --header-only: 2 */
    int           show_info;    /* -I: the header in full */
    int           per_event_dump;   /* --per-event-dump */
    filter_list   stop_bt;      /* --stop-bt: call chains end at these symbols */
    const char   *switch_name[2];   /* --switch-on, --switch-off events */
    const ps_evsel *switch_ev[2];   /* ... found at the first sample */
    int           switch_ready; /* looked up */
    int           discarding;   /* between an off and an on event */
    int           show_on_off;  /* --show-on-off-events */
    int           latency;      /* -L: perf's latency format of the columns */
    script_dump  *dump;         /* its files; NULL: samples go to out */
    header_printer hp;
    char          srcline[4096 + 32];
    read_split    reads;         /* PERF_SAMPLE_READ: last value per id */
    linebuf       lb;            /* the line being built */
    char          tbuf[32];      /* scratch for the time column */
    char         *trace;         /* tracepoint text buffer */
    size_t        trace_cap;
    script_stat  *stat;          /* perf stat record captures */
    script_srccode *srccode;     /* -F srccode: files read, lines printed */
    int           quiet, warned_aux;
    ps_ksyms     *ksyms;         /* /proc/kallsyms read in a thread from the start */
} script;


static void symbols_warning(void *ctx, const ps_error *w)
{
    (void)ctx;
    fprintf(stderr, "perfsift script: warning: %s\n", w->msg);
}

/* %ps/%pS in trace text: the kernel symbol at addr, as perf resolves it */
static const char *kernel_func(void *ctx, uint64_t *addr, const char **mod)
{
    script *sc = ctx;
    ps_frame f;

    ps_resolver__addr(sc->res, UINT32_MAX, UINT32_MAX, 0, PERF_RECORD_MISC_KERNEL, *addr, &f);
    if (f.r.sym == NULL)
        return NULL;
    *addr -= f.r.symoff;
    *mod = f.map != NULL && f.map->kind == PS_MAP_MODULE ? f.r.dso : NULL;
    return f.r.sym->name;
}

/* --- per-evsel configuration ---------------------------------------------- */

static script_output *output_of(script *sc, const ps_evsel *e)
{
    return &sc->cfg.out[script_output_type(e->attr.type)];
}

/* perf_session__check_output_opt for file mode (script_fields.c) */
/* -F asked for a field (F_*) or an extra one (X_*) for some event type. */
static int wants(const script *sc, uint32_t field, unsigned extra)
{
    int t;

    for (t = 0; t < OT_MAX; t++)
        if ((sc->cfg.out[t].fields & field) || (sc->cfg.out[t].extra & extra))
            return 1;
    return 0;
}

static int check_file_mode(script *sc)
{
    return script_check_session(&sc->cfg, sc->s, sc->has_stat);
}

/* The checks perf makes once the capture is open, in its order: --cpu,
 * the -F fields against the events (file mode; a pipe's attrs are checked
 * as they come), 'tod' without clock data, then --time. An exit status. */
static int check_options(script *sc)
{
    if ((sc->filter.cpus && filter_check_cpus(&sc->filter, sc->s) < 0) ||
        (!sc->pipe && check_file_mode(sc) < 0))
        return EXIT_BADINPUT;
    /* perf checks a file's header only: a pipe's CLOCK_DATA comes later,
     * as a record, and each sample prints "disabled" until it has */
    if (wants(sc, F_TOD, 0) && !sc->pipe &&
        !ps_features_has(ps_session_features(sc->s), PS_HEADER_CLOCK_DATA)) {
        fprintf(stderr, "Can't provide 'tod' time, missing clock data. "
                "Please record with -k/--clockid option.\n");
        return EXIT_BADINPUT;
    }
    sc->filter.reltime = sc->reltime;
    if (filter_time_resolve(&sc->filter, "script", ps_session_features(sc->s)) < 0)
        return EXIT_USAGE;
    return EXIT_OK;
}

/* Pipe mode: perf checks each attr as it arrives (process_attr). */
static int check_pipe_attr(script *sc, size_t idx)
{
    return script_check_pipe_attr(&sc->cfg, sc->s, idx, sc->has_stat);
}

static int name_width(script *sc)
{
    size_t i, n;

    if (sc->name_width)
        return sc->name_width;
    n = ps_session_nr_evsels(sc->s);
    for (i = 0; i < n; i++) {
        const char *name = ps_session_evsel(sc->s, i)->name;
        int len = name ? (int)strlen(name) : 0;

        if (len > sc->name_width)
            sc->name_width = len;
    }
    return sc->name_width;
}

/* --- the sample line ------------------------------------------------------ */

static void print_time(script *sc, uint64_t t)
{
    uint64_t secs, ns;

    /* perf keeps one base for samples and records alike */
    if (sc->reltime) {
        if (sc->initial_time == 0)
            sc->initial_time = t;
        t -= sc->initial_time;
    } else if (sc->deltatime) {
        uint64_t prev = sc->previous_time;

        sc->previous_time = t;
        t = prev ? t - prev : 0;
    }
    secs = t / 1000000000ull;
    ns = t % 1000000000ull;

    if (sc->nanosecs) {             /* "%5lu.%09llu: " */
        lb_u64(&sc->lb, secs, 5);
        lb_putc(&sc->lb, '.');
        lb_u64_zero(&sc->lb, ns, 9);
    } else {                        /* "%12s: " of "%lu.%06lu" */
        /* at most 20 + 1 + 6 characters: never grows past tbuf */
        linebuf t = { sc->tbuf, 0, sizeof(sc->tbuf), 0 };

        lb_u64(&t, secs, 0);
        lb_putc(&t, '.');
        lb_u64_zero(&t, ns / 1000, 6);
        if (t.len < 12)
            lb_str(&sc->lb, "", (int)(12 - t.len));
        lb_mem(&sc->lb, t.p, t.len);
    }
    lb_mem(&sc->lb, ": ", 2);
}

/* perf's misc column: cpumode letters (tested as masks, as perf does),
 * record-specific ones, padded to 6. */
static void print_misc(script *sc, uint16_t misc, uint32_t type)
{
    char buf[16];
    int n = 0;

#define HAS(m) ((misc & (m)) == (m))
    if (HAS(PERF_RECORD_MISC_KERNEL)) buf[n++] = 'K';
    if (HAS(PERF_RECORD_MISC_USER)) buf[n++] = 'U';
    if (HAS(PERF_RECORD_MISC_HYPERVISOR)) buf[n++] = 'H';
    if (HAS(PERF_RECORD_MISC_GUEST_KERNEL)) buf[n++] = 'G';
    if (HAS(PERF_RECORD_MISC_GUEST_USER)) buf[n++] = 'g';
    switch (type) {
    case PERF_RECORD_MMAP:
    case PERF_RECORD_MMAP2:
        if (HAS(PERF_RECORD_MISC_MMAP_DATA)) buf[n++] = 'M';
        break;
    case PERF_RECORD_COMM:
        if (HAS(PERF_RECORD_MISC_COMM_EXEC)) buf[n++] = 'E';
        break;
    case PERF_RECORD_SWITCH:
    case PERF_RECORD_SWITCH_CPU_WIDE:
        if (HAS(PERF_RECORD_MISC_SWITCH_OUT)) {
            buf[n++] = 'S';
            if (misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT)
                buf[n++] = 'p';
        }
        break;
    default:
        break;
    }
#undef HAS
    lb_mem(&sc->lb, buf, (size_t)n);
    lb_str(&sc->lb, " ", 6 - n);
}

static void print_start_rest(script *sc, const script_output *o, uint32_t pid, uint32_t tid,
                             uint32_t cpu, uint64_t time, uint16_t misc, uint32_t type);

/* "YYYY-MM-DD HH:MM:SS.uuuuuu " (9 decimals with --ns): the sample time
 * on the wall clock, from CLOCK_DATA's pair of readings (local time). */
static void print_tod(script *sc, uint64_t t)
{
    const ps_features *f = ps_session_features(sc->s);
    uint64_t tod = f->clock_data.tod_ns, ref = f->clock_data.clockid_ns;
    char date[64];
    struct tm tm;
    time_t sec;

    if (!ps_features_has(f, PS_HEADER_CLOCK_DATA)) {   /* a pipe's, not yet */
        lb_mem(&sc->lb, "disabled ", 9);
        return;
    }
    tod = t > ref ? tod + (t - ref) : tod - (ref - t);
    sec = (time_t)(tod / 1000000000ull);
    if (localtime_r(&sec, &tm) == NULL) {
        lb_mem(&sc->lb, "failed ", 7);
        return;
    }
    strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S", &tm);
    lb_puts(&sc->lb, date);
    lb_putc(&sc->lb, '.');
    if (sc->nanosecs)
        lb_u64_zero(&sc->lb, tod % 1000000000ull, 9);
    else
        lb_u64_zero(&sc->lb, tod % 1000000000ull / 1000, 6);
    lb_putc(&sc->lb, ' ');
}

/* The comm column: "%8.8s " with -L; else "%16s ", or as it is when a
 * call chain follows on lines of its own. */
static void print_comm(script *sc, const script_output *o, const ps_evsel *e, const char *comm)
{
    if (sc->latency) {
        char cut[9];

        snprintf(cut, sizeof(cut), "%s", comm);
        lb_str(&sc->lb, cut, 8);
    } else if ((o->fields & F_IP) && script_evsel_has_callchain(e) && sc->cfg.use_callchain) {
        lb_puts(&sc->lb, comm);
    } else {
        lb_str(&sc->lb, comm, 16);
    }
    lb_putc(&sc->lb, ' ');
}

/* perf_sample__fprintf_start: comm, pid/tid, cpu, time, misc. */
static void script_print_start(script *sc, const ps_evsel *e, uint32_t pid, uint32_t tid,
                        uint32_t cpu, uint64_t time, uint16_t misc, uint32_t type)
{
    const script_output *o = output_of(sc, e);
    char buf[32];

    if (o->fields & F_COMM) {
        const char *comm = ps_resolver__comm(sc->res, pid, tid, time, buf, sizeof(buf));

        print_comm(sc, o, e, comm);
    }
    print_start_rest(sc, o, pid, tid, cpu, time, misc, type);
}

/* the columns after comm: pid/tid, cpu, misc, time */
static void print_start_rest(script *sc, const script_output *o, uint32_t pid, uint32_t tid,
                             uint32_t cpu, uint64_t time, uint16_t misc, uint32_t type)
{
    if ((o->fields & F_PID) && (o->fields & F_TID)) {       /* "%5d/%-5d " */
        lb_int(&sc->lb, (int)pid, 5);
        lb_putc(&sc->lb, '/');
        lb_int(&sc->lb, (int)tid, -5);
        lb_putc(&sc->lb, ' ');
    } else if (o->fields & (F_PID | F_TID)) {               /* "%5d " */
        lb_int(&sc->lb, (int)((o->fields & F_PID) ? pid : tid), 5);
        lb_putc(&sc->lb, ' ');
    }
    if ((o->fields & F_CPU) && sc->latency) {               /* "%3d " */
        lb_int(&sc->lb, (int)cpu, 3);
        lb_putc(&sc->lb, ' ');
    } else if (o->fields & F_CPU) {                         /* "[%03d] " */
        lb_putc(&sc->lb, '[');
        lb_int_zero(&sc->lb, (int)cpu, 3);
        lb_mem(&sc->lb, "] ", 2);
    }
    if (o->fields & F_MISC)
        print_misc(sc, misc, type);
    if (o->fields & F_TOD)
        print_tod(sc, time);
    if (o->fields & F_TIME)
        print_time(sc, time);
}

/* " (dso)" */
static void print_dso(script *sc, const char *dso)
{
    lb_mem(&sc->lb, " (", 2);
    lb_puts(&sc->lb, dso);
    lb_putc(&sc->lb, ')');
}

/* "sym+0xoff" or "[unknown]" */
static void print_sym(script *sc, const ps_frame *f, int with_off)
{
    if (f->r.sym == NULL) {
        lb_mem(&sc->lb, "[unknown]", 9);
        return;
    }
    lb_puts(&sc->lb, f->r.sym->name);
    if (with_off) {
        lb_mem(&sc->lb, "+0x", 3);
        lb_hex(&sc->lb, f->r.symoff, 0);
    }
}

/* "\n  file:line" under a frame (perf's map__fprintf_srcline), nothing
 * when it has no map. */
static void print_srcline(script *sc, const ps_frame *f)
{
    const char *s = ps_resolver__srcline(sc->res, f, sc->srcline, sizeof(sc->srcline));

    if (s != NULL) {
        lb_mem(&sc->lb, "\n  ", 3);
        lb_puts(&sc->lb, s);
    }
}

static void print_frame(script *sc, const script_output *o, const ps_frame *f)
{
    /* user DSOs show the file-relative address, kernel ones the real one */
    int user = f->map != NULL && f->map->kind != PS_MAP_KERNEL &&
               f->map->kind != PS_MAP_MODULE && f->map->kind != PS_MAP_KSYMBOL;

    if (o->fields & F_IP) {
        lb_putc(&sc->lb, '\t');
        lb_hex(&sc->lb, user ? f->r.rel : f->ip, 16);
    }
    if (o->fields & F_SYM) {
        lb_putc(&sc->lb, ' ');
        if (f->inl != NULL) {       /* an inlined function: its name, the offset as is */
            lb_puts(&sc->lb, f->inl);
            if (o->fields & F_SYMOFF) {
                lb_mem(&sc->lb, "+0x", 3);
                lb_hex(&sc->lb, f->r.symoff, 0);
            }
        } else {
            print_sym(sc, f, (o->fields & F_SYMOFF) != 0);
        }
    }
    if ((o->fields & F_DSO) && f->inl == NULL)
        print_dso(sc, f->r.dso);
    if (o->fields & F_SRCLINE)
        print_srcline(sc, f);
    if (f->inl != NULL)
        lb_mem(&sc->lb, " (inlined)", 10);
    lb_putc(&sc->lb, '\n');
}

/* --stop-bt names the frame's function (an inlined one by its own name). */
static int stops_bt(const script *sc, const ps_frame *f)
{
    return filter_list_has(&sc->stop_bt, f->inl != NULL ? f->inl
                                         : f->r.sym != NULL ? f->r.sym->name : NULL);
}

/* The ip part: a call chain (one line per frame) or "ip sym+off (dso)". */
/* perf's unwinder refuses a --max-stack of 0 for a sample it would unwind
 * (user registers, a dumped stack, an unwinder for its process): its chain
 * is then not printed at all, the ip and symbol going on the sample's line
 * as without chains. */
static int unwind_refused(script *sc, const ps_sample *smp)
{
    return sc->max_stack == 0 && ps_resolver__unwinds(sc->res, smp);
}

static int print_ip(script *sc, const script_output *o, const ps_event *ev)
{
    const ps_sample *smp = &ev->u.sample;
    ps_frame one;

    if (sc->cfg.use_callchain && (smp->sample_type & PERF_SAMPLE_CALLCHAIN) &&
        !unwind_refused(sc, smp)) {
        const ps_frame *frames;
        size_t i, n;

        n = ps_resolver__frames(sc->res, smp, ev->evsel->attr.branch_sample_type,
                                sc->max_stack, &frames);
        lb_putc(&sc->lb, '\n');
        for (i = 0; i < n; i++) {
            print_frame(sc, o, &frames[i]);
            if (sc->stop_bt.n > 0 && stops_bt(sc, &frames[i]))
                break;
        }
        return 0;
    }
    ps_resolver__addr(sc->res, smp->pid, smp->tid, smp->time,
                      ev->misc & PERF_RECORD_MISC_CPUMODE_MASK, smp->ip, &one);
    lb_putc(&sc->lb, ' ');
    if (o->fields & F_IP)
        lb_hex(&sc->lb, smp->ip, 16);
    if (o->fields & F_SYM) {
        lb_putc(&sc->lb, ' ');
        print_sym(sc, &one, (o->fields & F_SYMOFF) != 0);
    }
    if (o->fields & F_DSO)
        print_dso(sc, one.r.dso);
    if (o->fields & F_SRCLINE)
        print_srcline(sc, &one);
    return 0;
}

/* perf resolves sample->addr only for page faults (their addr is code or
 * data in the process), with a fallback to the other address space. */
static void print_addr(script *sc, const script_output *o, const ps_event *ev)
{
    const ps_sample *smp = &ev->u.sample;
    const ps_attr *a = &ev->evsel->attr;
    unsigned mode = ev->misc & PERF_RECORD_MISC_CPUMODE_MASK;
    ps_frame f;

    lb_hex(&sc->lb, smp->addr, 16);
    if (!(a->type == PERF_TYPE_SOFTWARE &&
          (a->config == PERF_COUNT_SW_PAGE_FAULTS || a->config == PERF_COUNT_SW_PAGE_FAULTS_MIN ||
           a->config == PERF_COUNT_SW_PAGE_FAULTS_MAJ)))
        return;
    ps_resolver__addr_fb(sc->res, smp->pid, smp->tid, smp->time, mode, smp->addr, &f);
    if (o->fields & F_SYM) {
        lb_putc(&sc->lb, ' ');
        print_sym(sc, &f, (o->fields & F_SYMOFF) != 0);
    }
    if (o->fields & F_DSO)
        print_dso(sc, f.r.dso);
}

static const char *page_size_name(uint64_t size, char *buf, size_t len)
{
    static const char units[] = "BKMGTPE";
    int u = 0;

    if (size == 0)
        return "N/A";
    while (size >= 1024 && (size % 1024) == 0 && units[u + 1]) {
        size /= 1024;
        u++;
    }
    snprintf(buf, len, "%" PRIu64 "%c", size, units[u]);
    return buf;
}

static int print_trace(script *sc, const ps_event *ev)
{
    ps_error err;
    int n = ps_tracepoint_print(sc->trace, sc->trace_cap, sc->s, ev, &err);

    if (n >= 0 && (size_t)n >= sc->trace_cap) {
        char *b = realloc(sc->trace, (size_t)n + 1);

        if (b == NULL)
            return -1;
        sc->trace = b;
        sc->trace_cap = (size_t)n + 1;
        n = ps_tracepoint_print(sc->trace, sc->trace_cap, sc->s, ev, &err);
    }
    if (n >= 0)
        lb_mem(&sc->lb, sc->trace, (size_t)n);
    return 0;
}

/* -F srccode: the source line of the sample's ip (script_srccode.c),
 * located as addr2line locates it for perf's get_srcline_split() */
static int print_srccode(script *sc, const ps_event *ev)
{
    const ps_sample *smp = &ev->u.sample;
    const char *file;
    unsigned line = 0;
    ps_frame f;

    ps_resolver__addr(sc->res, smp->pid, smp->tid, smp->time,
                      ev->misc & PERF_RECORD_MISC_CPUMODE_MASK, smp->ip, &f);
    if ((file = ps_resolver__srcfile_line(sc->res, &f, &line)) == NULL)
        return 0;
    return script_srccode_print(sc->srccode, &sc->lb, smp->tid, file, line);
}

/* One sample as perf's process_event prints it; e is the event it counts
 * for (a group member for split READ samples) and period its period. */
static int print_sample(script *sc, const ps_event *ev, const ps_evsel *e, uint64_t period)
{
    const ps_sample *smp = &ev->u.sample;
    const script_output *o = output_of(sc, e);
    char buf[32];

    if (o->fields == 0 && o->extra == 0)
        return 0;
    if (sc->dump != NULL)       /* what came before goes to stdout */
        lb_flush(&sc->lb, sc->out);
    script_print_start(sc, e, smp->pid, smp->tid, smp->cpu, smp->time, ev->misc,
                       PERF_RECORD_SAMPLE);
    if (o->fields & F_PERIOD) {
        lb_u64(&sc->lb, period, 10);
        lb_putc(&sc->lb, ' ');
    }
    if (o->fields & F_EVNAME) {
        lb_str(&sc->lb, e->name ? e->name : "[unknown]", name_width(sc));
        lb_mem(&sc->lb, ": ", 2);
    }
    if (sc->cfg.print_flags)    /* "  %-21s " of no flags */
        lb_str(&sc->lb, "", 24);
    if ((o->fields & F_TRACE) && smp->raw_data != NULL && print_trace(sc, ev) < 0)
        return -1;
    if (o->fields & F_ADDR)
        print_addr(sc, o, ev);
    if (o->fields & F_DATA_SRC) {
        lb_flush(&sc->lb, sc->out);
        script_data_src_fprintf(sc->out, smp->data_src);
    }
    if (o->fields & F_WEIGHT)
        lb_u64(&sc->lb, script_weight(smp, smp->sample_type), 16);
    if (o->fields & F_INS_LAT)
        lb_u64(&sc->lb, script_ins_lat(smp, smp->sample_type), 16);
    if ((o->fields & F_IP) && print_ip(sc, o, ev) < 0)
        return -1;
    if (o->fields & (F_IREGS | F_UREGS)) {
        const char *arch = script_regs_arch(ps_session_features(sc->s), buf, sizeof(buf));

        if (o->fields & F_IREGS)
            script_regs_print(&sc->lb, &smp->regs_intr, arch);
        if (o->fields & F_UREGS)
            script_regs_print(&sc->lb, &smp->regs_user, arch);
    }
    if (o->fields & (F_BRSTACK | F_BRSTACKSYM))
        script_brstack_print(&sc->lb, sc->res, smp, ev->misc & PERF_RECORD_MISC_CPUMODE_MASK,
                             !(o->fields & F_BRSTACK), (o->fields & F_DSO) != 0);
    if (o->fields & F_PHYS_ADDR)
        lb_hex(&sc->lb, smp->phys_addr, 16);
    if (o->fields & F_DATA_PAGE_SIZE) {
        lb_putc(&sc->lb, ' ');
        lb_puts(&sc->lb, page_size_name(smp->data_page_size, buf, sizeof(buf)));
    }
    if (o->fields & F_CODE_PAGE_SIZE) {
        lb_putc(&sc->lb, ' ');
        lb_puts(&sc->lb, page_size_name(smp->code_page_size, buf, sizeof(buf)));
    }
    lb_putc(&sc->lb, '\n');
    if (sc->dump != NULL && script_dump_take(sc->dump, e, &sc->lb) < 0)
        return -1;
    /* to stdout, as perf prints it, with --per-event-dump too */
    if ((o->extra & X_SRCCODE) && print_srccode(sc, ev) < 0)
        return -1;
    if (sc->lb.len >= (64u << 10))   /* write in large blocks */
        lb_flush(&sc->lb, sc->out);
    return sc->lb.oom ? -1 : 0;
    return 0;
}

/* --- filters -------------------------------------------------------------- */

/* --- PERF_SAMPLE_READ splitting ------------------------------------------- */

/* on_event's "failed, message already printed": outside the PS_E* codes
 * that ps_session_next() returns in the same variable (PS_EFORMAT is -2) */
enum { REPORTED = -1000 };

/* --switch-on/--switch-off's events by name, at the first sample (a pipe's
 * events are known by then). 0, or -1 (message printed). */
static int switch_lookup(script *sc)
{
    size_t i, n = ps_session_nr_evsels(sc->s);
    int k;

    sc->switch_ready = 1;
    for (k = 0; k < 2; k++) {
        for (i = 0; sc->switch_name[k] != NULL && i < n && sc->switch_ev[k] == NULL; i++) {
            const ps_evsel *e = ps_session_evsel(sc->s, i);

            if (e->name != NULL && strcmp(e->name, sc->switch_name[k]) == 0)
                sc->switch_ev[k] = e;
        }
        if (sc->switch_name[k] != NULL && sc->switch_ev[k] == NULL) {
            fprintf(stderr, "perfsift script: --switch-%s: no event '%s' in the capture\n",
                    k == 0 ? "on" : "off", sc->switch_name[k]);
            return -1;
        }
    }
    sc->discarding = sc->switch_ev[0] != NULL;
    return 0;
}

/* perf's evswitch: while discarding, samples wait for the on event; else
 * the off event starts discarding. The switching samples themselves print
 * only with --show-on-off-events. As perf, discarding only ever ends with
 * an on event, so an off event alone hides just its first sample. */
static int switch_discards(script *sc, const ps_evsel *e)
{
    if (sc->switch_ev[0] != NULL && sc->discarding) {
        if (e != sc->switch_ev[0])
            return 1;
        sc->discarding = 0;
        return !sc->show_on_off;
    }
    if (sc->switch_ev[1] != NULL && !sc->discarding && e == sc->switch_ev[1]) {
        sc->discarding = 1;
        return !sc->show_on_off;
    }
    return 0;
}

/* A sample as perf's tool sees it, as event e with this period: the
 * filters and the event switch, then printed. */
static int deliver(script *sc, const ps_event *ev, const ps_evsel *e, uint64_t period)
{
    switch (filter_skip(&sc->filter, sc->res, ev, NULL)) {
    case 0: break;
    case 1: return 0;
    default: return REPORTED;
    }
    if ((sc->switch_name[0] != NULL || sc->switch_name[1] != NULL)) {
        if (!sc->switch_ready && switch_lookup(sc) < 0)
            return REPORTED;
        if (switch_discards(sc, e))
            return 0;
    }
    return print_sample(sc, ev, e, period);
}

/* perf delivers a READ sample once per value, as the value's event, with
 * the increase since that id's previous sample as period (reckoned before
 * any filter looks at it: a filtered sample still moves the baseline);
 * zero increases are not delivered. */
static int read_sample(script *sc, const ps_event *ev)
{
    const ps_read_values *rv = &ev->u.sample.read;
    uint64_t i;
    int rc;

    for (i = 0; i < rv->nr; i++) {
        const ps_evsel *e = ps_session_evsel_by_id(sc->s, rv->values[i].id);
        uint64_t period;

        if (e == NULL)
            continue;
        if (read_split_period(&sc->reads, rv->values[i].id, rv->values[i].value, &period) < 0)
            return -1;
        if (period != 0 && (rc = deliver(sc, ev, e, period)) != 0)
            return rc;
    }
    return 0;
}

static int on_sample(script *sc, const ps_event *ev)
{
    const ps_sample *smp = &ev->u.sample;

    if (ev->evsel == NULL)
        return 0;
    if (smp->sample_type & PERF_SAMPLE_READ)
        return read_sample(sc, ev);
    return deliver(sc, ev, ev->evsel, smp->period);
}

/* --- side-band records ----------------------------------------------------- */

static void print_sideband(script *sc, const ps_event *ev, const script_event_start *st)
{
    const ps_evsel *e = ev->evsel;
    const script_output *o;
    char buf[32];

    lb_flush(&sc->lb, sc->out);     /* keep the order of what is printed */
    if (ev->type == PS_RECORD_FINISHED_ROUND || e == NULL) {
        script_event__fprintf(sc->out, ev);
        return;
    }
    if (st->cpu >= 0 && !filter_cpu_ok(&sc->filter, st->cpu))
        return;
    o = output_of(sc, e);
    if (o->fields & F_COMM) {
        const char *comm = st->thread_tid == -1 ? ":-1" :
            ps_resolver__comm(sc->res, (uint32_t)st->thread_pid, (uint32_t)st->thread_tid,
                              st->time, buf, sizeof(buf));

        print_comm(sc, o, e, comm);
    }
    print_start_rest(sc, o, (uint32_t)st->pid, (uint32_t)st->tid, (uint32_t)st->cpu,
                     st->time, ev->misc, ev->type);
    lb_flush(&sc->lb, sc->out);
    if (ev->type == PERF_RECORD_TEXT_POKE) {
        /* perf names the poked kernel address when it has a symbol for it */
        char sym[512];
        ps_frame f;

        ps_resolver__addr(sc->res, UINT32_MAX, UINT32_MAX, st->time, PERF_RECORD_MISC_KERNEL,
                          ev->u.text_poke.addr, &f);
        if (f.r.sym != NULL)
            snprintf(sym, sizeof(sym), "%s+0x%" PRIx64, f.r.sym->name, f.r.symoff);
        script_event__fprintf_sym(sc->out, ev, f.r.sym != NULL ? sym : NULL);
        return;
    }
    script_event__fprintf(sc->out, ev);
}

static int on_sideband(script *sc, const ps_event *ev, ps_error *err)
{
    int show = (script_event__show_class(ev->type) & (int)sc->show) != 0;
    script_event_start st;

    if (!show)
        return ps_resolver__event(sc->res, ev, err) < 0 ? -1 : 0;
    script_event__start(&st, ev);
    if (!st.apply_first)
        print_sideband(sc, ev, &st);
    if (ps_resolver__event(sc->res, ev, err) < 0)
        return -1;
    if (st.apply_first)
        print_sideband(sc, ev, &st);
    return 0;
}

/* --- the loop --------------------------------------------------------------- */

static int on_event(script *sc, const ps_event *ev, ps_error *err)
{
    if (ev->type == PS_RECORD_HEADER_ATTR && sc->pipe) {
        size_t n = ps_session_nr_evsels(sc->s);

        if (n > 0 && (check_pipe_attr(sc, n - 1) < 0 ||
                      (sc->dump && script_dump_add(sc->dump, ps_session_evsel(sc->s, n - 1)) < 0)))
            return REPORTED;
    }
    if (ev->type == PS_RECORD_AUXTRACE_INFO && !sc->warned_aux && !sc->quiet) {
        sc->warned_aux = 1;
        fprintf(stderr, "perfsift script: warning: AUX area trace data (Intel PT, CoreSight, "
                "...) is not decoded; only recorded samples are printed, as with "
                "perf script --itrace=\n");
    }
    if (ev->type == PERF_RECORD_SAMPLE) {
        int rc = on_sample(sc, ev);

        if (rc == REPORTED)
            return REPORTED;
        if (rc < 0)
            return ps_error__set(err, PS_ENOMEM, ev->offset, "script: out of memory");
        return 0;
    }
    if (sc->stat != NULL) {
        int rc;

        lb_flush(&sc->lb, sc->out);
        rc = script_stat_event(sc->stat, sc->out, ev, err);

        if (rc < 0)
            return -1;
        if (rc > 0)
            return 0;
    }
    if (ev->type == PERF_RECORD_FORK && sc->srccode != NULL)
        script_srccode_forget(sc->srccode, ev->u.fork.tid);  /* a new thread for perf */
    return on_sideband(sc, ev, err);
}

static int run(script *sc, const input_opts *in)
{
    ps_error err;
    ps_event ev;
    uint64_t n = 0;
    int rc;

    while ((rc = ps_session_next(&ev, sc->s, &err)) == PS_OK) {
        if ((sc->header || sc->show_info) && sc->pipe && ev.type == PS_RECORD_HEADER_FEATURE) {
            lb_flush(&sc->lb, sc->out);     /* a pipe's features print as they come */
            header_print_event(&sc->hp, &ev);
        }
        if ((rc = on_event(sc, &ev, &err)) != 0)
            break;
        if (!in->quiet)
            cmd_progress(sc->s, ++n);
    }
    cmd_progress_done();
    lb_flush(&sc->lb, sc->out);
    if (rc == REPORTED)
        return EXIT_BADINPUT;
    if (rc != PS_DONE)
        return cmd_input_error("script", &err);
    return EXIT_OK;
}

static int parse_args(script *sc, input_opts *in, ps_symbols_opts *so, int argc, char **argv)
{
    int c;

    optind = 1;
    while ((c = getopt_long(argc, argv, "F:GC:S:ILi:qh", long_opts, NULL)) != -1) {
        int r = cmd_input_option("script", in, c, optarg);

        if (r == 0)
            r = filter_option(&sc->filter, "script", c, optarg);
        if (r < 0)
            return EXIT_USAGE;
        if (r > 0)
            continue;
        if (c >= OPT_SHOW_BASE && c < OPT_SHOW_BASE + 32) {
            sc->show |= 1u << (c - OPT_SHOW_BASE);
            continue;
        }
        switch (c) {
        case 'F':
            if (script_parse_fields(&sc->cfg, optarg) < 0)
                return EXIT_USAGE;
            break;
        case 'G': sc->cfg.no_callchain = 1; sc->cfg.use_callchain = 0; break;
        case OPT_NS: sc->nanosecs = 1; break;
        case OPT_RELTIME: sc->reltime = 1; break;
        case OPT_DELTATIME: sc->deltatime = 1; break;
        case OPT_MAX_STACK: {
            char *end;
            long v = strtol(optarg, &end, 10);

            if (*end || v < 0)
                return cmd_usage_error("script", "--max-stack takes a number, not '%s'", optarg);
            sc->max_stack = (unsigned)v;
            break;
        }
        case OPT_SYMFS: so->symfs = optarg; break;
        case OPT_KALLSYMS: so->kallsyms = optarg; break;
        case OPT_NO_DEMANGLE: so->demangle = 0; break;
        case OPT_INLINE: sc->no_inline = 0; break;
        case OPT_NO_INLINE: sc->no_inline = 1; break;
        case OPT_FULL_SRCPATH: sc->full_srcpath = 1; break;
        case OPT_HEADER: sc->header = sc->header ? sc->header : 1; break;
        case OPT_HEADER_ONLY: sc->header = 2; break;
        case 'I': sc->show_info = 1; break;
        case OPT_PER_EVENT_DUMP: sc->per_event_dump = 1; break;
        case OPT_STOP_BT:
            if (filter_list_parse(&sc->stop_bt, optarg) < 0)
                return cmd_usage_error("script", "out of memory");
            break;
        case OPT_DEMANGLE: so->demangle = 1; break;
        case OPT_SWITCH_ON: sc->switch_name[0] = optarg; break;
        case OPT_SWITCH_OFF: sc->switch_name[1] = optarg; break;
        case OPT_SHOW_ON_OFF: sc->show_on_off = 1; break;
        case 'L': sc->latency = 1; break;
        case OPT_SHOW_KERNEL_PATH: break;   /* kallsyms has no path to show, and
                                             * its C names nothing to demangle */
        case 'h': fputs(usage_text, stdout); return -1;
        default: return cmd_bad_option("script");
        }
    }
    if (sc->reltime && sc->deltatime)
        return cmd_usage_error("script", "--reltime and --deltatime are mutually exclusive");
    if (optind < argc)
        in->path = argv[optind++];
    if (optind < argc)
        return cmd_usage_error("script", "one capture at a time");
    return 0;
}

/* What perf names the --per-event-dump files after: its input path, which
 * is NULL (printed "(null)") when it reads standard input */
static const char *dump_path(const input_opts *in)
{
    if (in->path == NULL)
        return "perf.data";
    return strcmp(in->path, "-") == 0 ? "(null)" : in->path;
}

/* perf's evlist__sample_id_all: the first event's flag */
static int sample_id_all(ps_session *s)
{
    const ps_evsel *e = ps_session_nr_evsels(s) ? ps_session_evsel(s, 0) : NULL;

    return e == NULL || (e->attr.flags >> PS_ATTR_SAMPLE_ID_ALL) & 1;
}

static void script_free(script *sc)
{
    ps_resolver__free(sc->res);
    ps_ksyms__free(sc->ksyms);
    ps_session_close(sc->s);
    filter_free(&sc->filter);
    filter_list_free(&sc->stop_bt);
    read_split_free(&sc->reads);
    lb_free(&sc->lb);
    free(sc->trace);
    script_stat_free(sc->stat);
    script_srccode_free(sc->srccode);
    script_config_free(&sc->cfg);
}

int cmd_script(int argc, char **argv)
{
    script sc;
    input_opts in;
    ps_symbols_opts so;
    ps_error err;
    int rc;

    memset(&sc, 0, sizeof(sc));
    memset(&in, 0, sizeof(in));
    memset(&so, 0, sizeof(so));
    script_config_init(&sc.cfg);
    sc.max_stack = 127;          /* perf's PERF_MAX_STACK_DEPTH */
    sc.out = stdout;
    setvbuf(stdout, NULL, _IOFBF, 1 << 20);   /* output is most of the work */
    so.demangle = 1;
    rc = parse_args(&sc, &in, &so, argc, argv);
    if (sc.cfg.warnings != NULL && !in.quiet)
        fputs(sc.cfg.warnings, stderr);
    if (rc != 0) {
        script_free(&sc);
        return rc < 0 ? EXIT_OK : rc;
    }
    if (cmd_check_kallsyms("script", so.kallsyms) < 0) {
        script_free(&sc);
        return EXIT_BADINPUT;
    }
    /* perf script orders by time, except with --show-round-events */
    in.ordered = !(sc.show & SCRIPT_SHOW_ROUND);
    sc.quiet = in.quiet;
    if (!in.quiet)
        so.warn = symbols_warning;
    if ((sc.s = cmd_open("script", &in)) == NULL) {
        script_free(&sc);
        return EXIT_BADINPUT;
    }
    sc.pipe = ps_session_header(sc.s)->container == PS_CONTAINER_PIPE;
    if (in.ordered && !sc.pipe && !sample_id_all(sc.s)) {
        /* perf falls back to file order without sample_id_all */
        ps_session_close(sc.s);
        in.ordered = 0;
        if ((sc.s = cmd_open("script", &in)) == NULL) {
            script_free(&sc);
            return EXIT_BADINPUT;
        }
    }
    sc.has_stat = (ps_session_header(sc.s)->features[PS_HEADER_STAT / 64] >> (PS_HEADER_STAT % 64)) & 1;
    /* the kernel's symbols load beside the first records and unwinding;
     * NULL (out of memory): loaded where first needed */
    so.ksyms = sc.ksyms = ps_ksyms__new();
    if (ps_resolver__new(&sc.res, &so, ps_session_features(sc.s), &err) < 0) {
        fprintf(stderr, "perfsift script: %s\n", err.msg);
        script_free(&sc);
        return EXIT_BADINPUT;
    }
    ps_resolver__set_inline(sc.res, !sc.no_inline);
    ps_resolver__set_full_srcpath(sc.res, sc.full_srcpath);
    /* perf hands libtraceevent its kernel symbols only when the tracing
     * data is there at open (a file's feature); a pipe's comes as a record
     * later, so perf prints %ps/%pS of pipe captures as addresses (or by the
     * blob's own kallsyms, which perf writes empty) */
    if (!sc.pipe)
        ps_session__set_tp_resolver(sc.s, kernel_func, &sc);
    if (wants(&sc, 0, X_SRCCODE) && (sc.srccode = script_srccode_new()) == NULL) {
        fprintf(stderr, "perfsift script: out of memory\n");
        script_free(&sc);
        return EXIT_BADINPUT;
    }
    if ((sc.has_stat || sc.pipe) && (sc.stat = script_stat_new(sc.s)) == NULL) {
        fprintf(stderr, "perfsift script: out of memory\n");
        script_free(&sc);
        return EXIT_BADINPUT;
    }
    /* perf prints the header before it checks the options (and with
     * --header-only checks none) */
    if (sc.header)
        header_print_begin(&sc.hp, sc.out, sc.s, !sc.show_info);
    else if (sc.show_info && sc.pipe)   /* perf: a pipe's features, as they come */
        header_print_init(&sc.hp, sc.out, sc.s, 0);
    sc.hp.seen = 1;         /* a pipe's features: only those that come */
    if (sc.header != 2 && (rc = check_options(&sc)) != EXIT_OK) {
        if (sc.header)
            header_print_end(&sc.hp);
        script_free(&sc);
        return cmd_finish_stdout("script", rc);
    }
    if (sc.per_event_dump && sc.header != 2 &&
        (sc.dump = script_dump_open(sc.s, dump_path(&in))) == NULL) {
        script_free(&sc);
        return EXIT_BADINPUT;
    }
    rc = sc.header == 2 ? EXIT_OK : run(&sc, &in);
    if (sc.dump != NULL) {
        if (script_dump_close(sc.dump, sc.out) < 0 && rc == EXIT_OK)
            rc = EXIT_BADINPUT;
        sc.dump = NULL;
    }
    if (sc.header || (sc.show_info && sc.pipe))
        header_print_end(&sc.hp);
    script_free(&sc);
    return cmd_finish_stdout("script", rc);
}
