/* SPDX-License-Identifier: MIT */
/*
 * machine.h - the machine model (DESIGN.md "machine.c"): threads, their comm
 * history and per-process address spaces, built from the COMM, FORK, EXIT,
 * MMAP and MMAP2 records a session yields, in delivery order. Everything is
 * kept over time, so a lookup "as of time t" answers what perf would have
 * answered had it processed the records up to t.
 *
 * Layer: above records/session (it consumes ps_event), below symbols.c and
 * the emitters. It never reads files and never calls symbols.c.
 *
 * Ownership: every ps_thread, ps_comm and ps_map pointer returned here is
 * Borrowed until ps_machine__free(); later events never move or free them
 * (a map retired by a remap keeps its address; only its time_end is set).
 */
#ifndef PS_MACHINE_H
#define PS_MACHINE_H

#include "util.h"

/** What a map holds; decides how perf resolves addresses in it. */
enum ps_map_kind {
    PS_MAP_FILE = 0,    /* a file mapping: DSO at pgoff */
    PS_MAP_KERNEL,      /* "[kernel.kallsyms]..." / "[guest.kernel.kallsyms...": kernel text */
    PS_MAP_MODULE,      /* any other kernel-mode map: modules, bpf, ool text */
    PS_MAP_VDSO,        /* "[vdso]" (and "[vdso32]", "[vdsox32]") */
    PS_MAP_ANON,        /* "//anon", "/dev/zero", "/anon_hugepage", JIT "/tmp/perf-N.map" */
    PS_MAP_NO_DSO,      /* "[stack...", "[heap]", "/SYSV...": no file behind it */
    PS_MAP_KSYMBOL      /* a KSYMBOL record (BPF program, ftrace trampoline):
                         * kernel text named `filename`, one symbol, pgoff 0 */
};

/**
 * One mapping, valid for addresses [start, end) at times
 * [time_start, time_end). time_end is UINT64_MAX while the mapping is live.
 * When a new mapping overlaps it, it is retired (time_end = the new map's
 * time) and the parts the new map does not cover live on as new ps_maps
 * (time_start = the new map's time, start/pgoff moved as perf does).
 */
typedef struct ps_map {
    uint64_t start, end;        /* end = start + len, clamped to UINT64_MAX on wrap */
    uint64_t pgoff;             /* file offset of start */
    uint64_t time_start, time_end;
    uint32_t pid, tid;          /* of the record that made it (-1 for the kernel) */
    int      kind;              /* PS_MAP_* */
    int      is_mmap2;          /* the MMAP2 fields below are meaningful */
    const char *filename;       /* Borrowed until ps_machine__free() */
    uint32_t maj, min;
    uint64_t ino, ino_generation;
    uint32_t prot, flags;
    int      has_build_id;
    uint8_t  build_id_size;
    uint8_t  build_id[20];
    /* history: the maps this one replaced, sorted by start, non-overlapping
     * (arena-owned, immutable once made; may be shared by fork copies) */
    const struct ps_map *const *replaced;
    size_t   nr_replaced;
} ps_map;

/** One entry of a thread's comm history. */
typedef struct ps_comm {
    uint64_t time;              /* from this time on (until the next entry) */
    const char *comm;           /* Borrowed until ps_machine__free() */
    int      exec;              /* set by a COMM record with PERF_RECORD_MISC_COMM_EXEC */
} ps_comm;

typedef struct ps_maps ps_maps;   /* an address space; opaque */

/**
 * One incarnation of a thread id. A FORK reusing a tid starts a new
 * incarnation; the older one stays reachable for lookups before the fork.
 */
typedef struct ps_thread {
    uint32_t pid, tid;          /* pid (uint32_t)-1 when never learned */
    uint32_t ppid, ptid;        /* from FORK; (uint32_t)-1 otherwise */
    uint64_t start_time;        /* FORK time; 0 when first seen another way */
    uint64_t end_time;          /* EXIT time, or the FORK that reused the tid; UINT64_MAX */
    int      exited;            /* an EXIT record was seen */
    int      comm_set;          /* 0: comms[0] is the ":tid" placeholder */
    ps_comm *comms;             /* owned: time-ordered, nr_comms >= 1 */
    size_t   nr_comms, cap_comms;
    ps_maps *maps;              /* shared by the threads of a process */
    struct ps_thread *prev;     /* the previous incarnation of this tid, or NULL */
} ps_thread;

typedef struct ps_machine ps_machine;

/** @return PS_OK, or PS_ENOMEM with *out NULL. Owned: ps_machine__free(). */
int  ps_machine__new(ps_machine **out, ps_error *err);
/** Accepts NULL. */
void ps_machine__free(ps_machine *m);

/**
 * Feed one event (any type; only COMM, FORK, EXIT, MMAP, MMAP2 and KSYMBOL
 * change the model, the rest are ignored). Feed them in delivery order; a
 * record's time is its sample_id time (FORK/EXIT: their own time field), or the latest time
 * seen so far when it has none.
 * @return PS_OK or PS_ENOMEM (the model stays consistent, minus that record)
 */
int  ps_machine__event(ps_machine *m, const ps_event *ev, ps_error *err);

/**
 * The incarnation of thread tid alive at time t (perf keys threads by tid;
 * pid is not compared), an exited one included, as perf keeps it until the
 * tid is reused. Before the first incarnation's start, the first one.
 * @return the thread, or NULL when tid was never seen
 */
const ps_thread *ps_machine__thread(const ps_machine *m, uint32_t pid, uint32_t tid,
                                    uint64_t t);

/** The comm entry in force at time t (before the first entry: the first). */
const ps_comm *ps_thread__comm_at(const ps_thread *th, uint64_t t);
/** Its string. */
const char *ps_thread__comm(const ps_thread *th, uint64_t t);

/**
 * The map covering addr at time t in the address space of (pid, tid): the
 * thread's process maps (or, for an unknown tid, those of pid's leader),
 * then the kernel maps. O(log n + k), k = remaps of addr after t.
 * @return the map, or NULL
 */
const ps_map *ps_machine__find_map(const ps_machine *m, uint32_t pid, uint32_t tid,
                                   uint64_t t, uint64_t addr);
/**
 * The address space ps_machine__find_user_map() looks in for (pid, tid) at
 * time t: the thread's, or for an unknown tid that of pid's leader.
 * @return it (Borrowed until ps_machine__free()), or NULL when neither is known
 */
const ps_maps *ps_machine__user_maps(const ps_machine *m, uint32_t pid, uint32_t tid,
                                     uint64_t t);
/**
 * The maps put into user space s, in delivery order: one per MMAP/MMAP2
 * record and, for a forked process, one per map copied from its parent;
 * not the pieces a later map's split leaves. These are the insertions at
 * which perf prepares a process for unwinding (see unwind.c).
 * @return the i-th, or NULL when i is past the last (or s is NULL)
 */
const ps_map *ps_maps__inserted(const ps_maps *s, size_t i);
/** How many maps ps_maps__inserted() has for s (0 for NULL): a count that
 * changes whenever s's maps do. */
size_t ps_maps__nr_inserted(const ps_maps *s);
/**
 * The lowest start among the maps of s in place at time t whose file is
 * like's as perf tells DSOs apart (the same name, and the same device and
 * inode where both maps carry them).
 * @return it, or UINT64_MAX when there is none
 */
uint64_t ps_maps__lowest_start(const ps_maps *s, uint64_t t, const ps_map *like);
/** Only the user space of (pid, tid); NULL when unknown or unmapped. */
const ps_map *ps_machine__find_user_map(const ps_machine *m, uint32_t pid, uint32_t tid,
                                        uint64_t t, uint64_t addr);
/** Only the kernel maps (MMAP/MMAP2 with a kernel cpumode, any pid). */
const ps_map *ps_machine__find_kernel_map(const ps_machine *m, uint64_t t, uint64_t addr);

/**
 * The map-relative address perf uses to find addr in the map's file:
 * addr - map->start + map->pgoff. (perf resolves PS_MAP_ANON and
 * PS_MAP_NO_DSO maps by identity instead: see ps_map__is_identity().)
 */
static inline uint64_t ps_map__rel(const ps_map *map, uint64_t addr)
{
    return addr - map->start + map->pgoff;   /* unsigned: wraps, never UB */
}

/** perf's identity__map_ip maps: anonymous/JIT and file-less regions. */
static inline int ps_map__is_identity(const ps_map *map)
{
    return map->kind == PS_MAP_ANON || map->kind == PS_MAP_NO_DSO;
}

/**
 * perf's machine->kernel_start: the start of the kernel map ("[kernel.kallsyms]"),
 * or 1 << 63 when there is none. Addresses at or above it are kernel ones
 * when a callchain or sample does not say.
 */
uint64_t ps_machine__kernel_start(const ps_machine *m);

/** Counters: threads (all incarnations), maps (all versions), records ignored
 * (zero-length maps). */
uint64_t ps_machine__nr_threads(const ps_machine *m);
uint64_t ps_machine__nr_maps(const ps_machine *m);
uint64_t ps_machine__nr_ignored(const ps_machine *m);

#endif /* PS_MACHINE_H */
