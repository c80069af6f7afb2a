/* SPDX-License-Identifier: MIT */
/*
 * record_events.c - the events of `perfsift record`: perf's names for
 * software and hardware events and system:name tracepoints turned into
 * perf_event_attrs (spec 3, 15.3), opened per CPU and per target thread,
 * and perf_event_open's errors explained in words.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "record.h"

#define SAMPLE_BASE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME)
#define REGS_X86_64 0xff0fffull         /* perf's user register set on x86_64 */
#define DEFAULT_FREQ 4000

static const struct ev_name {
    const char *name;
    uint32_t    type;
    uint64_t    config;
} ev_names[] = {
    { "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
    { "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
    { "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
    { "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
    { "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
    { "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
    { "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
    { "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
    { "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
    { "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
    { "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
    { "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
    { "dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
    { "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
    { "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
    { "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
    { "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
    { "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
    { "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
    { "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
    { "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
    { "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
    { "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
    { "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
    { "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
};

void rec_error(const char *fmt, ...)
{
    va_list ap;

    fputs("perfsift record: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static int have_cpu_pmu(void)
{
    return access("/sys/bus/event_source/devices/cpu", F_OK) == 0 ||
           access("/sys/bus/event_source/devices/cpu_core", F_OK) == 0;
}

static rec_event *ev_push(record *r)
{
    rec_event *e = realloc(r->ev, (r->nev + 1) * sizeof(*r->ev));

    if (e == NULL)
        return NULL;
    r->ev = e;
    e = &r->ev[r->nev++];
    memset(e, 0, sizeof(*e));
    e->attr.size = PS_WRITER_ATTR_SIZE;
    return e;
}

/* ":u" / ":k" modifiers (the rest of perf's are not supported). */
static int apply_modifiers(rec_event *e, const char *mod)
{
    for (; *mod; mod++) {
        if (*mod == 'u')
            e->attr.exclude_kernel = 1, e->attr.exclude_hv = 1;
        else if (*mod == 'k')
            e->attr.exclude_user = 1, e->attr.exclude_hv = 1;
        else {
            rec_error("event modifier '%c' is not supported (only :u and :k)", *mod);
            return -1;
        }
    }
    return 0;
}

static int parse_named(record *r, const char *tok)
{
    char base[REC_NAME_MAX];
    const char *colon = strchr(tok, ':');
    size_t n = colon ? (size_t)(colon - tok) : strlen(tok), i;
    rec_event *e;

    if (n >= sizeof(base))
        return -1;
    memcpy(base, tok, n);
    base[n] = 0;
    for (i = 0; i < sizeof(ev_names) / sizeof(ev_names[0]); i++) {
        if (strcmp(ev_names[i].name, base) != 0)
            continue;
        if (ev_names[i].type == PERF_TYPE_HARDWARE && !have_cpu_pmu()) {
            rec_error("event '%s' needs a hardware PMU and this machine has none "
                      "(no /sys/bus/event_source/devices/cpu: a VM without PMU "
                      "passthrough?); software events work: -e cpu-clock", base);
            return -2;
        }
        if ((e = ev_push(r)) == NULL)
            return -2;
        e->attr.type = ev_names[i].type;
        e->attr.config = ev_names[i].config;
        snprintf(e->name, sizeof(e->name), "%s", tok);
        return colon ? (apply_modifiers(e, colon + 1) < 0 ? -2 : 0) : 0;
    }
    return -1;
}

static int parse_tracepoint(record *r, const char *tok)
{
    const char *colon = strchr(tok, ':');
    rec_event *e;
    uint64_t id;
    char sys[REC_NAME_MAX], name[REC_NAME_MAX];

    if (colon == NULL || colon == tok || colon[1] == 0 ||
        (size_t)(colon - tok) >= sizeof(sys) || strlen(colon + 1) >= sizeof(name))
        return -1;
    snprintf(sys, sizeof(sys), "%.*s", (int)(colon - tok), tok);
    snprintf(name, sizeof(name), "%s", colon + 1);
    if (rec_tracefs_id(sys, name, &id) < 0) {
        rec_error("no tracepoint '%s:%s' here (no events/%s/%s/id under "
                  "/sys/kernel/tracing; is tracefs mounted? 'perf list tracepoint' "
                  "lists them)", sys, name, sys, name);
        return -2;
    }
    if ((e = ev_push(r)) == NULL)
        return -2;
    e->attr.type = PERF_TYPE_TRACEPOINT;
    e->attr.config = id;
    snprintf(e->tp_sys, sizeof(e->tp_sys), "%s", sys);
    snprintf(e->tp_name, sizeof(e->tp_name), "%s", name);
    snprintf(e->name, sizeof(e->name), "%.127s:%.127s", sys, name);
    return 0;
}

/* A comma-separated -e list. @return 0, or -1 with a message printed */
int rec_events_parse(record *r, const char *list)
{
    char *copy = strdup(list), *save = NULL, *tok;
    int rc = 0;

    if (copy == NULL)
        return -1;
    for (tok = strtok_r(copy, ",", &save); tok && rc == 0; tok = strtok_r(NULL, ",", &save)) {
        int k = parse_named(r, tok);

        if (k == -1)
            k = parse_tracepoint(r, tok);
        if (k == -1)
            rec_error("unknown event '%s' (software: cpu-clock, task-clock, page-faults, "
                      "context-switches, cpu-migrations, minor-faults, major-faults; "
                      "tracepoints: system:name)", tok);
        rc = k < 0 ? -1 : 0;
    }
    free(copy);
    return rc;
}

/* perf's default: cycles, or cpu-clock where there is no PMU. */
int rec_events_default(record *r)
{
    return rec_events_parse(r, have_cpu_pmu() ? "cycles" : "cpu-clock");
}

/* sample_type and flags of every attr, once all events are known. */
void rec_events_finalize(record *r)
{
    uint64_t common = SAMPLE_BASE;
    size_t i;

    for (i = 0; i < r->nev; i++)
        if (r->ev[i].attr.type == PERF_TYPE_TRACEPOINT)
            common |= PERF_SAMPLE_CPU;
    if (r->all_cpus)
        common |= PERF_SAMPLE_CPU;
    /* several events, or a pipe (spec 5.2): samples say which event they are,
     * at a position that does not depend on the event (spec 15.1 item 7) */
    if (r->nev > 1 || (r->output && strcmp(r->output, "-") == 0))
        common |= PERF_SAMPLE_IDENTIFIER;
    if (r->callgraph != CG_NONE)
        common |= PERF_SAMPLE_CALLCHAIN;
    for (i = 0; i < r->nev; i++) {
        struct perf_event_attr *a = &r->ev[i].attr;

        a->sample_type = common;
        if (a->type == PERF_TYPE_TRACEPOINT)
            a->sample_type |= PERF_SAMPLE_RAW | PERF_SAMPLE_PERIOD;
        /* a tracepoint samples every hit unless -c or -F says otherwise, as
         * perf's default for it */
        if (a->type == PERF_TYPE_TRACEPOINT && r->period <= 0 && r->freq <= 0) {
            a->sample_period = 1;
        } else if (r->period > 0) {
            a->sample_period = (uint64_t)r->period;
        } else {
            a->freq = 1;
            a->sample_freq = (uint64_t)(r->freq > 0 ? r->freq : DEFAULT_FREQ);
            a->sample_type |= PERF_SAMPLE_PERIOD;
        }
        if (r->callgraph == CG_DWARF) {
            a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
            a->sample_regs_user = REGS_X86_64;
            a->sample_stack_user = r->stack_size;
            a->exclude_callchain_user = 1;
            a->mmap_data = i == 0;      /* perf's unwinder wants the [stack] map */
        }
        a->disabled = 1;
        a->inherit = !r->all_cpus;
        a->enable_on_exec = r->argv != NULL && !r->all_cpus && r->pids == NULL;
        a->sample_id_all = 1;
        a->exclude_guest = 1;
        if (i == 0) {       /* side-band records once, from the first event */
            a->mmap = a->comm = a->task = a->mmap2 = a->comm_exec = 1;
        }
    }
}

size_t rec_id_hdr_size(const record *r)
{
    uint64_t t = r->ev[0].attr.sample_type;
    size_t n = 0;

    n += !!(t & PERF_SAMPLE_TID) + !!(t & PERF_SAMPLE_TIME) + !!(t & PERF_SAMPLE_ID);
    n += !!(t & PERF_SAMPLE_STREAM_ID) + !!(t & PERF_SAMPLE_CPU) + !!(t & PERF_SAMPLE_IDENTIFIER);
    return 8 * n;
}

static long sys_perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
    return syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static int read_int_file(const char *path, int def)
{
    FILE *f = fopen(path, "r");
    int v = def;

    if (f != NULL) {
        if (fscanf(f, "%d", &v) != 1)
            v = def;
        fclose(f);
    }
    return v;
}

/* perf_event_open's errno in words: what is refused here and why. */
static void explain_open_error(const record *r, const rec_event *e, int err, pid_t tid, int cpu)
{
    int paranoid = read_int_file("/proc/sys/kernel/perf_event_paranoid", 2);

    switch (err) {
    case EACCES:
    case EPERM:
        rec_error("no permission to open '%s' (%s). kernel.perf_event_paranoid is %d: "
                  "-1 allows everything, 0 forbids raw tracepoint access to unprivileged "
                  "users, 1 also CPU-wide events (-a), 2 also kernel profiling; "
                  "run as root, grant CAP_PERFMON, or lower it with "
                  "'sysctl kernel.perf_event_paranoid=1'%s%s", e->name, strerror(err),
                  paranoid, r->all_cpus ? " (-a needs <= 0)" : "",
                  paranoid >= 2 && !e->attr.exclude_kernel && !r->all_cpus ?
                  "; or record user space only: -e NAME:u" : "");
        break;
    case EINVAL:
        rec_error("the kernel refused '%s' on CPU %d (%s): the event, its sampling "
                  "settings (%s %llu%s; see kernel.perf_event_max_sample_rate), the "
                  "callchain mode or the precision asked for are not supported here",
                  e->name, cpu, strerror(err), e->attr.freq ? "-F" : "-c",
                  (unsigned long long)e->attr.sample_period,
                  r->callgraph == CG_DWARF ? ", dwarf stack size" : "");
        break;
    case ENOENT:
    case ENODEV:
    case EOPNOTSUPP:
        rec_error("event '%s' does not exist on this machine (%s)%s", e->name,
                  strerror(err), e->attr.type == PERF_TYPE_HARDWARE ?
                  ": no hardware PMU; use -e cpu-clock" : "");
        break;
    case ESRCH:
        rec_error("no such process or thread %d", (int)tid);
        break;
    case EMFILE:
    case ENFILE:
        rec_error("too many open files for '%s' (%s): one per event, CPU and thread is "
                  "needed; raise 'ulimit -n'", e->name, strerror(err));
        break;
    default:
        rec_error("cannot open '%s' on CPU %d: %s", e->name, cpu, strerror(err));
    }
}

static int add_id(rec_event *e, int fd)
{
    uint64_t id, *ids;

    if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0)
        return -1;
    if ((ids = realloc(e->ids, (e->nids + 1) * sizeof(*ids))) == NULL)
        return -1;
    e->ids = ids;
    e->ids[e->nids++] = id;
    return 0;
}

/* One fd per event x CPU x thread; fds[] in that order. */
int rec_events_open(record *r)
{
    size_t c, i, t, k = 0;

    r->nfds = r->nev * r->ncpus * r->ntids;
    if ((r->fds = malloc(r->nfds * sizeof(*r->fds))) == NULL)
        return -1;
    for (c = 0; c < r->ncpus; c++)
        for (i = 0; i < r->nev; i++)
            for (t = 0; t < r->ntids; t++) {
                long fd = sys_perf_event_open(&r->ev[i].attr, r->tids[t], r->cpus[c]);

                if (fd < 0) {
                    explain_open_error(r, &r->ev[i], errno, r->tids[t], r->cpus[c]);
                    r->nfds = k;
                    return -1;
                }
                r->fds[k++] = (int)fd;
                if (add_id(&r->ev[i], (int)fd) < 0) {
                    rec_error("PERF_EVENT_IOC_ID: %s", strerror(errno));
                    r->nfds = k;
                    return -1;
                }
            }
    return 0;
}

int rec_events_enable(record *r, int on)
{
    size_t k;

    for (k = 0; k < r->nfds; k++)
        if (ioctl(r->fds[k], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0) < 0)
            return -1;
    return 0;
}

void rec_events_close(record *r)
{
    size_t k;

    for (k = 0; k < r->nfds; k++)
        close(r->fds[k]);
    free(r->fds);
    r->fds = NULL;
    r->nfds = 0;
}
