/* SPDX-License-Identifier: MIT */
/*
 * script_events.h - the text `perf script` (perf 6.1) prints for non-sample
 * records under --show-*-events, and the rules for the prefix before it.
 * Uses only perfsift.h; knows nothing of threads or options: the caller
 * (cmd/script.c) owns the machine state, the field list and the ordering.
 *
 * How perf 6.1 prints these records (from builtin-script.c and
 * util/event.c, checked against /usr/bin/perf 6.1.187 on the corpus and
 * on hand-made captures):
 *
 * 1. Gating. A record is printed only when its option is given
 *    (script_event__show_class): --show-task-events COMM FORK EXIT;
 *    --show-mmap-events MMAP MMAP2; --show-switch-events SWITCH
 *    SWITCH_CPU_WIDE; --show-namespace-events NAMESPACES;
 *    --show-cgroup-events CGROUP; --show-lost-events LOST only (never
 *    LOST_SAMPLES); --show-round-events FINISHED_ROUND; --show-bpf-events
 *    KSYMBOL BPF_EVENT; --show-text-poke-events TEXT_POKE *and* KSYMBOL.
 *    THROTTLE, UNTHROTTLE, LOST_SAMPLES, AUX, ITRACE_START, READ,
 *    AUX_OUTPUT_HW_ID and all user records other than FINISHED_ROUND are
 *    never printed by perf script 6.1, whatever the options.
 *
 * 2. Line = prefix + script_event__fprintf(). FINISHED_ROUND has no prefix:
 *    just "PERF_RECORD_FINISHED_ROUND\n". Every other record gets the
 *    prefix whenever perf finds its evsel (ps_event.evsel != NULL; perf's
 *    evlist__id2evsel: one event, or id 0 as in synthesized records, gives
 *    the first event), with or without sample_id_all. evsel NULL: body only.
 *
 * 3. The prefix is perf_sample__fprintf_start() with the evsel's output
 *    fields (the -F set for the evsel's attr type; default fields of that
 *    type otherwise), exactly as for a sample of that evsel but stopping
 *    after the time: [VM:/VCPU: for guests] comm, pid/tid, [cpu], misc,
 *    tod, time -- no event name, ip or period. Details that differ from
 *    samples:
 *    - the values (script_event__start): with sample_id_all, pid/tid, cpu
 *      and time come from the sample_id trailer (-1 / -1 / (u64)-1 when the
 *      trailer lacks TID / CPU / TIME); without sample_id_all perf forces
 *      cpu 0, time = FORK/EXIT's own time field or 0 for other types, and
 *      pid/tid = the thread's pid/tid below.
 *    - comm is the comm of machine thread (thread_pid, thread_tid):
 *      the record's own pid/tid for COMM FORK EXIT MMAP MMAP2 NAMESPACES
 *      (so kernel MMAPs, pid -1 tid 0, show "swapper"), the sample_id
 *      pid/tid for all others. Threads are keyed by tid. tid == -1 means
 *      no thread: comm ":-1"; tid 0 is "swapper" from the start; a thread
 *      with no COMM yet is ":<tid>". FORK replaces any thread of the
 *      child's tid; the child takes the parent's comm only if the parent
 *      has one set (else ":<tid>").
 *    - state: COMM, FORK, MMAP, MMAP2, NAMESPACES, CGROUP, KSYMBOL and
 *      TEXT_POKE are applied to the machine *before* printing (COMM shows
 *      its new comm; FORK's child is created first and shows the comm it
 *      inherited from its parent); EXIT is printed *before* it is applied.
 *    - comm is "%s " (not "%16s ") when ip is an output field and the
 *      evsel has callchains -- same rule as samples. Beware pipe mode:
 *      perf adds ip,sym to the fields of a callchain event when its ATTR
 *      record arrives, even under -F without ip (unless "-F -ip"), so
 *      there comm is "%s ". pid/tid "%5d/%-5d ", "%5d "; cpu "[%03d] ";
 *      time "%12s: " usec ("%5lu.%09llu: " with --ns). --reltime and
 *      --deltatime share their state with samples: a printed non-sample
 *      record (time 0 included) moves the delta base.
 *    - misc field (-F misc): each of K(1) U(2) H(3) G(4) g(5) whose bits
 *      are all set in header.misc (misc 3 prints "KUH"), then "M" for
 *      MMAP/MMAP2 with MMAP_DATA, "E" for COMM with COMM_EXEC, "S" (+"p"
 *      if preempt) for SWITCH* with SWITCH_OUT; padded to 6 columns.
 *
 * 4. Filters: only --cpu applies (to the prefix cpu; -1 passes; without
 *    sample_id_all the cpu is 0). --pid, --tid, --comms and --time filter
 *    samples only: non-sample records of other pids/comms/times still
 *    print.
 *
 * 5. Order. Without --show-round-events perf sorts records by the
 *    sample_id time with the samples (FINISHED_ROUND flushing); records
 *    whose time is 0 or absent are not queued but printed at once, ahead
 *    of queued older-in-file records (synthesized records at time 0 thus
 *    come out in file order before any timed record). --show-round-events
 *    turns ordering OFF: everything, samples included, comes out in file
 *    order, and comms in prefixes reflect file order too. A capture whose
 *    events lack sample_id_all is never ordered. (Intel PT captures refuse
 *    --show-round-events: "requires ordered events".)
 *
 * 6. Bodies: util/event.c perf_event__fprintf(), reproduced by
 *    script_event__fprintf() for every type. "%#lx" prints 0 as "0", not
 *    "0x0" (MMAP pgoff); KSYMBOL addr and TEXT_POKE addr have no 0x. The
 *    TEXT_POKE symbol ("name+0xoff", resolved in kernel maps) needs
 *    kallsyms: pass it to script_event__fprintf_sym(), NULL prints none.
 *    Types with no body print the bare "PERF_RECORD_<NAME>\n"; names are
 *    perf 6.1's ("UNKNOWN" for 22..63, "INVALID" past FINISHED_INIT).
 */
#ifndef PS_CMD_SCRIPT_EVENTS_H
#define PS_CMD_SCRIPT_EVENTS_H

#include <stdio.h>
#include "perfsift.h"

/** The --show-*-events options, as bits. */
enum script_event_show {
    SCRIPT_SHOW_NONE      = 0,
    SCRIPT_SHOW_TASK      = 1 << 0,     /* --show-task-events */
    SCRIPT_SHOW_MMAP      = 1 << 1,     /* --show-mmap-events */
    SCRIPT_SHOW_SWITCH    = 1 << 2,     /* --show-switch-events */
    SCRIPT_SHOW_NAMESPACE = 1 << 3,     /* --show-namespace-events */
    SCRIPT_SHOW_LOST      = 1 << 4,     /* --show-lost-events */
    SCRIPT_SHOW_ROUND     = 1 << 5,     /* --show-round-events */
    SCRIPT_SHOW_BPF       = 1 << 6,     /* --show-bpf-events */
    SCRIPT_SHOW_CGROUP    = 1 << 7,     /* --show-cgroup-events */
    SCRIPT_SHOW_TEXT_POKE = 1 << 8      /* --show-text-poke-events */
};

/**
 * The options that make perf script print a record type: a mask of
 * SCRIPT_SHOW_* (any one bit set in the user's options is enough; KSYMBOL
 * answers BPF|TEXT_POKE), or SCRIPT_SHOW_NONE when perf never prints it.
 */
int script_event__show_class(uint32_t record_type);

/** The values perf's prefix shows for a non-sample record (point 3 above). */
typedef struct script_event_start {
    int32_t  pid, tid;          /* pid/tid columns */
    int32_t  cpu;               /* cpu column (-1 when unknown) */
    uint64_t time;              /* time column, ns (UINT64_MAX when unknown) */
    int32_t  thread_pid;        /* thread whose comm is shown... */
    int32_t  thread_tid;        /* ...-1: none, comm ":-1" */
    int      apply_first;       /* 1: update the machine with the record
                                   before printing; 0: print, then apply */
} script_event_start;

/** Fill *out for ev (any non-sample record type). Cannot fail. */
void script_event__start(script_event_start *out, const ps_event *ev);

/**
 * Print the body perf prints after the prefix: "PERF_RECORD_<NAME>" and the
 * type's details, through the final newline (several lines for NAMESPACES
 * and TEXT_POKE).
 * @return bytes written (as fprintf counts them)
 */
size_t script_event__fprintf(FILE *fp, const ps_event *ev);

/** The same; for TEXT_POKE, text_poke_sym is printed after the address
 * ("name+0xoff" as perf resolves it in the kernel maps; NULL for none). */
size_t script_event__fprintf_sym(FILE *fp, const ps_event *ev,
                                 const char *text_poke_sym);

#endif /* PS_CMD_SCRIPT_EVENTS_H */
