/* SPDX-License-Identifier: MIT */
/*
 * test_machine.c - unit tests of machine.c from hand-built ps_events (no
 * files): comm history with and without exec, fork inheritance (a thread
 * shares its process's maps, a new process copies them, a synthesized fork
 * does not), exit and tid reuse, overlapping remaps looked up before and
 * after, kernel maps for any pid, unknown threads, 100k maps, the log of
 * maps put into a process, early MMAP2 records named as perf 6.1 names
 * them, and pathological input (pid/tid -1, zero-length and wrapping maps).
 */
#include <string.h>
#include <time.h>
#include "harness.h"
#include "../../libparse/machine.h"

#define NONE UINT32_MAX
#define KSTART UINT64_C(0xffffffff81000000)
#define MISC_EXEC (1u << 13)            /* COMM_EXEC on COMM, FORK_EXEC on FORK */

static ps_event timed(uint32_t type, uint16_t misc, uint64_t t)
{
    ps_event ev;

    memset(&ev, 0, sizeof(ev));
    ev.type = type;
    ev.misc = misc;
    ev.has_sample_id = 1;
    ev.sample_id.present = PERF_SAMPLE_TIME;
    ev.sample_id.time = t;
    return ev;
}

static int comm(ps_machine *m, uint32_t pid, uint32_t tid, const char *s,
                uint64_t t, int exec)
{
    ps_event ev = timed(PERF_RECORD_COMM, exec ? MISC_EXEC : 0, t);

    ev.u.comm.pid = pid;
    ev.u.comm.tid = tid;
    ev.u.comm.comm = s;
    return ps_machine__event(m, &ev, NULL);
}

static int fork_exit(ps_machine *m, uint32_t type, uint32_t pid, uint32_t tid,
                     uint32_t ppid, uint32_t ptid, uint64_t t, uint16_t misc)
{
    ps_event ev = timed(type, misc, t);

    ev.u.fork.pid = pid;
    ev.u.fork.tid = tid;
    ev.u.fork.ppid = ppid;
    ev.u.fork.ptid = ptid;
    ev.u.fork.time = t;
    return ps_machine__event(m, &ev, NULL);
}

static int mmap1(ps_machine *m, uint32_t pid, uint32_t tid, uint64_t start,
                 uint64_t len, uint64_t pgoff, const char *name, uint64_t t)
{
    ps_event ev = timed(PERF_RECORD_MMAP, PERF_RECORD_MISC_USER, t);

    ev.u.mmap.pid = pid;
    ev.u.mmap.tid = tid;
    ev.u.mmap.start = start;
    ev.u.mmap.len = len;
    ev.u.mmap.pgoff = pgoff;
    ev.u.mmap.filename = name;
    return ps_machine__event(m, &ev, NULL);
}

static int mmap2(ps_machine *m, uint16_t misc, uint32_t pid, uint32_t tid, uint64_t start,
                 uint64_t len, uint64_t pgoff, const char *name, uint64_t t)
{
    ps_event ev = timed(PERF_RECORD_MMAP2, misc, t);

    ev.u.mmap2.pid = pid;
    ev.u.mmap2.tid = tid;
    ev.u.mmap2.start = start;
    ev.u.mmap2.len = len;
    ev.u.mmap2.pgoff = pgoff;
    ev.u.mmap2.maj = 8;
    ev.u.mmap2.ino = 1234;
    ev.u.mmap2.prot = 5;
    ev.u.mmap2.flags = 2;
    ev.u.mmap2.filename = name;
    return ps_machine__event(m, &ev, NULL);
}

static ps_machine *machine(void)
{
    ps_machine *m = NULL;
    ps_error err;

    CHECK(ps_machine__new(&m, &err) == PS_OK && m != NULL);
    return m;
}

/* Name of the map covering addr at t for (pid, tid), "" when none. */
static const char *at(ps_machine *m, uint32_t pid, uint32_t tid, uint64_t t, uint64_t addr)
{
    const ps_map *map = ps_machine__find_map(m, pid, tid, t, addr);

    return map ? map->filename : "";
}

static const char *comm_of(ps_machine *m, uint32_t tid, uint64_t t)
{
    const ps_thread *th = ps_machine__thread(m, NONE, tid, t);

    return th ? ps_thread__comm(th, t) : "";
}

static void test_comm_history_exec(void)
{
    ps_machine *m = machine();
    const ps_thread *th;

    if (!m) return;
    CHECK(mmap1(m, 200, 200, 0x1000, 0x1000, 0, "/bin/x", 1) == PS_OK);
    CHECK(strcmp(comm_of(m, 200, 1), ":200") == 0);      /* placeholder */

    CHECK(comm(m, 100, 100, "bash", 10, 0) == PS_OK);
    CHECK(comm(m, 100, 100, "ls", 20, 1) == PS_OK);
    CHECK(comm(m, 100, 100, "worker", 30, 0) == PS_OK);
    th = ps_machine__thread(m, 100, 100, 25);
    CHECK(th != NULL && th->comm_set && th->nr_comms == 3);
    if (!th) goto out;
    CHECK(th->pid == 100 && th->tid == 100);
    CHECK(strcmp(ps_thread__comm(th, 5), "bash") == 0);  /* before any: the first */
    CHECK(strcmp(ps_thread__comm(th, 10), "bash") == 0);
    CHECK(strcmp(ps_thread__comm(th, 19), "bash") == 0);
    CHECK(strcmp(ps_thread__comm(th, 20), "ls") == 0);
    CHECK(ps_thread__comm_at(th, 20)->exec == 1);
    CHECK(ps_thread__comm_at(th, 10)->exec == 0);
    CHECK(strcmp(ps_thread__comm(th, 1000), "worker") == 0);
    CHECK(ps_thread__comm_at(th, 1000)->exec == 0);
    /* an exec comm keeps the maps (perf waits for the new MMAPs) */
    CHECK(mmap1(m, 100, 100, 0x400000, 0x1000, 0, "/bin/bash", 5) == PS_OK);
    CHECK(comm(m, 100, 100, "true", 40, 1) == PS_OK);
    CHECK(strcmp(at(m, 100, 100, 45, 0x400010), "/bin/bash") == 0);
out:
    ps_machine__free(m);
}

static void test_fork_inheritance(void)
{
    ps_machine *m = machine();
    const ps_thread *th;

    if (!m) return;
    CHECK(comm(m, 100, 100, "bash", 1, 0) == PS_OK);
    CHECK(mmap2(m, 2, 100, 100, 0x400000, 0x1000, 0, "/bin/a", 2) == PS_OK);

    /* a thread of 100: same maps, in both directions */
    CHECK(fork_exit(m, PERF_RECORD_FORK, 100, 101, 100, 100, 30, 0) == PS_OK);
    th = ps_machine__thread(m, 100, 101, 35);
    CHECK(th != NULL && th->ppid == 100 && th->ptid == 100 && th->start_time == 30);
    CHECK(strcmp(comm_of(m, 101, 35), "bash") == 0);
    CHECK(strcmp(at(m, 100, 101, 35, 0x400800), "/bin/a") == 0);
    CHECK(mmap2(m, 2, 100, 101, 0x500000, 0x1000, 0, "/bin/t", 40) == PS_OK);
    CHECK(strcmp(at(m, 100, 100, 45, 0x500000), "/bin/t") == 0);

    /* a new process: a copy, later maps are its own */
    CHECK(fork_exit(m, PERF_RECORD_FORK, 200, 200, 100, 100, 50, 0) == PS_OK);
    CHECK(strcmp(comm_of(m, 200, 55), "bash") == 0);
    CHECK(strcmp(at(m, 200, 200, 55, 0x400000), "/bin/a") == 0);
    CHECK(strcmp(at(m, 200, 200, 55, 0x500fff), "/bin/t") == 0);
    CHECK(mmap2(m, 2, 200, 200, 0x400000, 0x1000, 0, "/bin/b", 60) == PS_OK);
    CHECK(mmap2(m, 2, 100, 100, 0x600000, 0x1000, 0, "/bin/c", 70) == PS_OK);
    CHECK(strcmp(at(m, 200, 200, 65, 0x400000), "/bin/b") == 0);
    CHECK(strcmp(at(m, 200, 200, 55, 0x400000), "/bin/a") == 0);  /* history */
    CHECK(strcmp(at(m, 100, 100, 75, 0x400000), "/bin/a") == 0);
    CHECK(strcmp(at(m, 200, 200, 75, 0x600000), "") == 0);
    CHECK(strcmp(at(m, 100, 101, 75, 0x600000), "/bin/c") == 0);
    /* a thread of 200 not seen before: the process's maps */
    CHECK(strcmp(at(m, 200, 201, 75, 0x400000), "/bin/b") == 0);

    /* a synthesized fork (misc bit 13): no copy, its MMAPs follow */
    CHECK(fork_exit(m, PERF_RECORD_FORK, 300, 300, 100, 100, 80, MISC_EXEC) == PS_OK);
    CHECK(ps_machine__thread(m, 300, 300, 85) != NULL);
    CHECK(strcmp(at(m, 300, 300, 85, 0x400000), "") == 0);
    CHECK(strcmp(comm_of(m, 300, 85), "bash") == 0);
    ps_machine__free(m);
}

static void test_exit_and_tid_reuse(void)
{
    ps_machine *m = machine();
    const ps_thread *th, *old;

    if (!m) return;
    CHECK(comm(m, 100, 100, "bash", 1, 0) == PS_OK);
    CHECK(fork_exit(m, PERF_RECORD_FORK, 100, 101, 100, 100, 30, 0) == PS_OK);
    CHECK(comm(m, 100, 101, "helper", 31, 0) == PS_OK);
    CHECK(fork_exit(m, PERF_RECORD_EXIT, 100, 101, 100, 100, 80, 0) == PS_OK);
    th = ps_machine__thread(m, 100, 101, 85);
    CHECK(th != NULL && th->exited && th->end_time == 80);  /* still findable */
    CHECK(strcmp(comm_of(m, 101, 85), "helper") == 0);

    CHECK(fork_exit(m, PERF_RECORD_FORK, 101, 101, 100, 100, 90, 0) == PS_OK);
    th = ps_machine__thread(m, 101, 101, 95);
    old = ps_machine__thread(m, 100, 101, 85);
    CHECK(th != NULL && old != NULL && th != old);
    if (!th || !old) goto out;
    CHECK(th->pid == 101 && !th->exited && th->prev == old);
    CHECK(old->pid == 100 && old->exited);
    CHECK(strcmp(ps_thread__comm(th, 95), "bash") == 0);
    CHECK(strcmp(ps_thread__comm(old, 85), "helper") == 0);
    CHECK(ps_machine__thread(m, 100, 101, 10) == old);     /* before both: the first */
    CHECK(ps_machine__nr_threads(m) == 3);
    /* EXIT of a tid never seen: ignored */
    CHECK(fork_exit(m, PERF_RECORD_EXIT, 7, 7, 7, 7, 100, 0) == PS_OK);
    CHECK(ps_machine__thread(m, 7, 7, 100) == NULL);
out:
    ps_machine__free(m);
}

static void test_overlapping_remap(void)
{
    ps_machine *m = machine();
    const ps_map *map;

    if (!m) return;
    CHECK(mmap2(m, 2, 10, 10, 0x1000, 0x4000, 0x10000, "/lib/x", 10) == PS_OK);
    CHECK(mmap2(m, 2, 10, 10, 0x2000, 0x1000, 0x100000, "/lib/y", 20) == PS_OK);

    /* a sample before the remap hits the old map */
    map = ps_machine__find_map(m, 10, 10, 15, 0x2500);
    CHECK(map && strcmp(map->filename, "/lib/x") == 0 && map->time_start == 10 &&
          map->time_end == 20 && ps_map__rel(map, 0x2500) == 0x11500);
    map = ps_machine__find_map(m, 10, 10, 25, 0x2500);
    CHECK(map && strcmp(map->filename, "/lib/y") == 0 && ps_map__rel(map, 0x2500) == 0x100500);
    CHECK(map && map->time_end == UINT64_MAX && map->is_mmap2 && map->ino == 1234);
    /* the head and tail of x live on, same file offsets */
    map = ps_machine__find_map(m, 10, 10, 25, 0x1500);
    CHECK(map && strcmp(map->filename, "/lib/x") == 0 && map->start == 0x1000 &&
          map->end == 0x2000 && map->time_start == 20 && ps_map__rel(map, 0x1500) == 0x10500);
    map = ps_machine__find_map(m, 10, 10, 25, 0x4000);
    CHECK(map && strcmp(map->filename, "/lib/x") == 0 && map->start == 0x3000 &&
          map->end == 0x5000 && map->pgoff == 0x12000 && ps_map__rel(map, 0x4000) == 0x13000);
    map = ps_machine__find_map(m, 10, 10, 15, 0x4000);
    CHECK(map && map->start == 0x1000 && map->time_start == 10);

    /* a map over everything, then the same range again at one time */
    CHECK(mmap2(m, 2, 10, 10, 0x0, 0x10000, 0, "/lib/z", 30) == PS_OK);
    CHECK(strcmp(at(m, 10, 10, 25, 0x2500), "/lib/y") == 0);
    CHECK(strcmp(at(m, 10, 10, 15, 0x2500), "/lib/x") == 0);
    CHECK(strcmp(at(m, 10, 10, 35, 0x2500), "/lib/z") == 0);
    CHECK(strcmp(at(m, 10, 10, 5, 0x2500), "") == 0);      /* before any map */
    CHECK(strcmp(at(m, 10, 10, 35, 0x10000), "") == 0);    /* end is exclusive */
    CHECK(strcmp(at(m, 10, 10, 35, 0xffff), "/lib/z") == 0);
    CHECK(mmap2(m, 2, 10, 10, 0x0, 0x10000, 0, "/lib/w", 30) == PS_OK);
    CHECK(strcmp(at(m, 10, 10, 30, 0x2500), "/lib/w") == 0);
    CHECK(strcmp(at(m, 10, 10, 29, 0x2500), "/lib/y") == 0);
    /* a map straddling two others, disjoint neighbours untouched */
    CHECK(mmap2(m, 2, 10, 10, 0x20000, 0x1000, 0, "/lib/p", 40) == PS_OK);
    CHECK(mmap2(m, 2, 10, 10, 0x22000, 0x1000, 0, "/lib/q", 40) == PS_OK);
    CHECK(mmap2(m, 2, 10, 10, 0x20800, 0x2000, 0, "/lib/r", 50) == PS_OK);
    CHECK(strcmp(at(m, 10, 10, 55, 0x20400), "/lib/p") == 0);
    CHECK(strcmp(at(m, 10, 10, 55, 0x21000), "/lib/r") == 0);
    CHECK(strcmp(at(m, 10, 10, 55, 0x22900), "/lib/q") == 0);
    CHECK(strcmp(at(m, 10, 10, 45, 0x22100), "/lib/q") == 0);
    CHECK(strcmp(at(m, 10, 10, 45, 0x21000), "") == 0);    /* was a gap then */
    CHECK(strcmp(at(m, 10, 10, 55, 0x5000), "/lib/w") == 0);
    ps_machine__free(m);
}

/* The maps put into a process, in order: records and a fork's copies,
 * not the pieces a split leaves; none for the kernel. */
static void test_inserted_log(void)
{
    ps_machine *m = machine();
    const ps_maps *s;

    if (!m) return;
    CHECK(mmap2(m, 2, 10, 10, 0x1000, 0x4000, 0, "/lib/x", 10) == PS_OK);
    CHECK(mmap2(m, 2, 10, 10, 0x2000, 0x1000, 0, "/lib/y", 20) == PS_OK);
    CHECK(mmap1(m, NONE, NONE, KSTART, 0x1000, 0, "[kernel.kallsyms]_text", 20) == PS_OK);
    s = ps_machine__user_maps(m, 10, 11, 25);           /* an unknown tid: the leader's */
    CHECK(s != NULL && s == ps_machine__user_maps(m, 10, 10, 25));
    CHECK(ps_maps__inserted(s, 0) && strcmp(ps_maps__inserted(s, 0)->filename, "/lib/x") == 0);
    CHECK(ps_maps__inserted(s, 1) && strcmp(ps_maps__inserted(s, 1)->filename, "/lib/y") == 0);
    CHECK(ps_maps__inserted(s, 2) == NULL);
    CHECK(fork_exit(m, PERF_RECORD_FORK, 20, 20, 10, 10, 30, 0) == PS_OK);
    s = ps_machine__user_maps(m, 20, 20, 35);
    CHECK(s != NULL && s != ps_machine__user_maps(m, 10, 10, 35));
    CHECK(ps_maps__inserted(s, 2) != NULL && ps_maps__inserted(s, 3) == NULL);  /* x, y, x */
    CHECK(ps_machine__user_maps(m, 30, 30, 35) == NULL);
    CHECK(ps_maps__inserted(NULL, 0) == NULL);
    ps_machine__free(m);
}

/* ps_maps__lowest_start(): a forked child keeps its parent's maps, so
 * after its exec the parent's mapping of a library is still the lowest
 * (perf's FDE table base, libparse/unwind_base.c). */
static void test_lowest_start(void)
{
    ps_machine *m = machine();
    const ps_maps *s;
    const ps_map *lib;

    if (!m) return;
    CHECK(mmap2(m, 2, 10, 10, 0x7000, 0x2000, 0, "/lib/libc", 10) == PS_OK);
    CHECK(mmap2(m, 2, 10, 10, 0x9000, 0x1000, 0x2000, "/lib/libc", 11) == PS_OK);
    CHECK(fork_exit(m, PERF_RECORD_FORK, 20, 20, 10, 10, 30, 0) == PS_OK);
    CHECK(comm(m, 20, 20, "child", 31, 1) == PS_OK);
    CHECK(mmap2(m, 2, 20, 20, 0x20000, 0x2000, 0, "/lib/libc", 40) == PS_OK);
    CHECK(mmap2(m, 2, 20, 20, 0x30000, 0x1000, 0, "/lib/other", 41) == PS_OK);
    s = ps_machine__user_maps(m, 20, 20, 50);
    lib = ps_machine__find_user_map(m, 20, 20, 50, 0x20100);
    CHECK(s != NULL && lib != NULL && ps_maps__nr_inserted(s) == 4);
    CHECK(ps_maps__lowest_start(s, 50, lib) == 0x7000);
    CHECK(ps_maps__lowest_start(ps_machine__user_maps(m, 10, 10, 50), 50, lib) == 0x7000);
    lib = ps_machine__find_user_map(m, 20, 20, 50, 0x30000);
    CHECK(lib != NULL && ps_maps__lowest_start(s, 50, lib) == 0x30000);
    /* not yet mapped at t */
    CHECK(ps_maps__lowest_start(s, 40, lib) == UINT64_MAX);
    /* the parent's copy overwritten: the child's own is the lowest */
    CHECK(mmap2(m, 2, 20, 20, 0x6000, 0x4000, 0, "/anon", 60) == PS_OK);
    lib = ps_machine__find_user_map(m, 20, 20, 70, 0x20100);
    CHECK(lib != NULL && ps_maps__lowest_start(s, 70, lib) == 0x20000);
    CHECK(ps_maps__nr_inserted(NULL) == 0 && ps_maps__lowest_start(NULL, 1, lib) == UINT64_MAX);
    ps_machine__free(m);
}

/* An MMAP2 of an early producer (no prot/flags; records.c reads the name
 * at offset 64): perf 6.1 names the map by the bytes after offset 72. */
static void test_early_mmap2_named_as_perf(void)
{
    ps_machine *m = machine();
    uint8_t raw[88];
    ps_event ev = timed(PERF_RECORD_MMAP2, 2, 10);
    const ps_map *map;

    if (!m) return;
    memset(raw, 0, sizeof(raw));
    memcpy(raw + 64, "[vdso]", 6);
    memcpy(raw + 72, "\xe4n", 2);                     /* the trailer's pid */
    ev.raw = raw;
    ev.size = sizeof(raw);
    ev.u.mmap2.pid = ev.u.mmap2.tid = 10;
    ev.u.mmap2.start = 0x7000;
    ev.u.mmap2.len = 0x1000;
    ev.u.mmap2.filename = (const char *)raw + 64;
    CHECK(ps_machine__event(m, &ev, NULL) == PS_OK);
    map = ps_machine__find_map(m, 10, 10, 15, 0x7000);
    CHECK(map && strcmp(map->filename, "\xe4n") == 0 && map->kind == PS_MAP_FILE);
    CHECK(map && map->prot == 0x7364765b);              /* "[vds" */
    ev.u.mmap2.start = 0x9000;                          /* the usual layout: as decoded */
    ev.u.mmap2.filename = "[vdso]";
    CHECK(ps_machine__event(m, &ev, NULL) == PS_OK);
    map = ps_machine__find_map(m, 10, 10, 15, 0x9000);
    CHECK(map && strcmp(map->filename, "[vdso]") == 0 && map->kind == PS_MAP_VDSO);
    ps_machine__free(m);
}

static void test_kernel_maps_any_pid(void)
{
    ps_machine *m = machine();
    const ps_map *map;

    if (!m) return;
    /* the kernel map reaches the top of the address space */
    CHECK(mmap1(m, NONE, 0, 0, 0, 0, "", 0) == PS_OK);      /* zero-length: ignored */
    {
        ps_event ev = timed(PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL, 0);

        ev.u.mmap.pid = NONE;
        ev.u.mmap.start = KSTART;
        ev.u.mmap.len = UINT64_MAX - KSTART;
        ev.u.mmap.pgoff = KSTART;
        ev.u.mmap.filename = "[kernel.kallsyms]_text";
        CHECK(ps_machine__event(m, &ev, NULL) == PS_OK);
    }
    CHECK(mmap2(m, PERF_RECORD_MISC_KERNEL, NONE, 0, UINT64_C(0xffffffffc0000000), 0x5000, 0,
                "/lib/modules/6.1.0/kernel/fs/xfs.ko", 0) == PS_OK);
    CHECK(mmap2(m, 2, 100, 100, 0x7fff0000, 0x2000, 0, "[vdso]", 1) == PS_OK);
    CHECK(mmap2(m, 2, 100, 100, 0x7000000, 0x2000, 0, "//anon", 1) == PS_OK);
    CHECK(mmap2(m, 2, 100, 100, 0x8000000, 0x2000, 0, "/tmp/perf-100.map", 1) == PS_OK);
    CHECK(mmap2(m, 2, 100, 100, 0x9000000, 0x2000, 0, "[heap]", 1) == PS_OK);

    map = ps_machine__find_map(m, 100, 100, 5, KSTART + 0x1234);
    CHECK(map && map->kind == PS_MAP_KERNEL &&
          ps_map__rel(map, KSTART + 0x1234) == KSTART + 0x1234);
    CHECK(map && map->pid == NONE);
    CHECK(ps_machine__find_map(m, 4242, 4242, 5, KSTART) == map);          /* unknown pid */
    CHECK(ps_machine__find_map(m, NONE, NONE, 5, KSTART) == map);
    CHECK(ps_machine__find_kernel_map(m, 5, KSTART) == map);
    CHECK(ps_machine__find_user_map(m, 100, 100, 5, KSTART) == NULL);
    map = ps_machine__find_map(m, 0, 0, 5, UINT64_C(0xffffffffc0001000));
    CHECK(map && map->kind == PS_MAP_MODULE);
    /* the module split the kernel map; its head is still the kernel */
    map = ps_machine__find_kernel_map(m, 5, UINT64_C(0xffffffffbfffffff));
    CHECK(map && map->kind == PS_MAP_KERNEL);
    map = ps_machine__find_user_map(m, 100, 100, 5, 0x7fff0010);
    CHECK(map && map->kind == PS_MAP_VDSO);
    map = ps_machine__find_map(m, 100, 100, 5, 0x7000010);
    CHECK(map && map->kind == PS_MAP_ANON && ps_map__is_identity(map));
    map = ps_machine__find_map(m, 100, 100, 5, 0x8000010);
    CHECK(map && map->kind == PS_MAP_ANON);
    map = ps_machine__find_map(m, 100, 100, 5, 0x9000010);
    CHECK(map && map->kind == PS_MAP_NO_DSO);
    CHECK(ps_machine__nr_ignored(m) == 1);
    ps_machine__free(m);
}

static void test_unknown_thread(void)
{
    ps_machine *m = machine();

    if (!m) return;
    CHECK(ps_machine__thread(m, 5, 5, 0) == NULL);
    CHECK(ps_machine__find_user_map(m, 5, 5, 0, 0x1000) == NULL);
    CHECK(ps_machine__find_map(m, 5, 5, 0, 0x1000) == NULL);
    CHECK(ps_machine__find_kernel_map(m, 0, KSTART) == NULL);
    CHECK(comm(m, 6, 6, "x", 1, 0) == PS_OK);
    CHECK(ps_machine__thread(m, 5, 5, 10) == NULL);
    CHECK(ps_machine__find_map(m, 6, 6, 10, 0x1000) == NULL);
    ps_machine__free(m);
    ps_machine__free(NULL);
}

#define NR_MANY 100000

static void test_many_maps(void)
{
    ps_machine *m = machine();
    clock_t c0;
    double secs;
    size_t i, bad = 0;
    uint64_t x = 88172645463325252u;

    if (!m) return;
    for (i = 0; i < NR_MANY; i++)          /* /proc/pid/maps order: ascending */
        if (mmap2(m, 2, 1, 1, 0x10000 + i * 0x2000, 0x1000, i * 0x1000, "/lib/many",
                  i) != PS_OK)
            bad++;
    for (i = 0; i < NR_MANY / 20; i++) {   /* then remaps in random places */
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        if (mmap2(m, 2, 1, 1, 0x10000 + (x % NR_MANY) * 0x2000 + 0x800, 0x2000, 0,
                  "/lib/remap", NR_MANY + i) != PS_OK)
            bad++;
    }
    CHECK(bad == 0);
    c0 = clock();
    for (i = 0; i < 10 * NR_MANY; i++) {
        size_t k = i % NR_MANY;
        uint64_t addr = 0x10000 + k * 0x2000 + 0x10;
        const ps_map *map = ps_machine__find_map(m, 1, 1, k, addr);  /* before the remaps */

        if (!map || map->start != addr - 0x10 || ps_map__rel(map, addr) != k * 0x1000 + 0x10)
            bad++;
        if (ps_machine__find_map(m, 1, 1, k, addr + 0x1000) != NULL)   /* the gaps */
            bad++;
    }
    secs = (double)(clock() - c0) / CLOCKS_PER_SEC;
    CHECK(bad == 0);
    CHECK(secs < 2.0);                     /* 2M lookups: log n each, even under ASan */
    CHECK(ps_machine__nr_maps(m) >= NR_MANY);
    ps_machine__free(m);
}

static void test_pathological(void)
{
    ps_machine *m = machine();
    ps_event ev;
    const ps_map *map;

    if (!m) return;
    CHECK(comm(m, NONE, NONE, "ghost", 1, 1) == PS_OK);
    CHECK(comm(m, 50, 51, NULL, 1, 0) == PS_OK);
    CHECK(strcmp(comm_of(m, NONE, 2), "ghost") == 0);
    CHECK(strcmp(comm_of(m, 51, 2), "") == 0);
    CHECK(mmap1(m, NONE, NONE, 0x1000, 0x1000, 0, NULL, 2) == PS_OK);
    CHECK(strcmp(at(m, NONE, NONE, 3, 0x1800), "") == 0 &&
          ps_machine__find_map(m, NONE, NONE, 3, 0x1800) != NULL);
    CHECK(mmap1(m, 1, 1, 0x5000, 0, 0, "/zero", 2) == PS_OK);           /* zero length */
    CHECK(ps_machine__find_map(m, 1, 1, 3, 0x5000) == NULL);
    CHECK(mmap1(m, 1, 1, UINT64_C(0xfffffffffffff000), 0x2000, 0, "/wrap", 3) == PS_OK);
    map = ps_machine__find_map(m, 1, 1, 4, UINT64_C(0xfffffffffffff800));
    CHECK(map && map->end == UINT64_MAX);
    CHECK(mmap1(m, 1, 1, 0, UINT64_MAX, UINT64_MAX, "/all", 4) == PS_OK);
    CHECK(strcmp(at(m, 1, 1, 5, 0x5000), "/all") == 0);
    CHECK(strcmp(at(m, 1, 1, 3, UINT64_C(0xfffffffffffff800)), "/wrap") == 0);
    ps_map__rel(ps_machine__find_map(m, 1, 1, 5, 0x5000), 0x5000);      /* wraps, no UB */
    CHECK(mmap1(m, 1, 1, 0x10, UINT64_MAX, 0, "/wrap2", 6) == PS_OK);
    /* odd forks and exits */
    CHECK(fork_exit(m, PERF_RECORD_FORK, NONE, NONE, NONE, NONE, 7, 0) == PS_OK);
    CHECK(fork_exit(m, PERF_RECORD_FORK, 9, 9, 9, 9, 7, 0) == PS_OK);   /* own parent */
    CHECK(fork_exit(m, PERF_RECORD_FORK, 1, 2, 3, 3, 8, 0) == PS_OK);   /* foreign pid */
    CHECK(fork_exit(m, PERF_RECORD_FORK, 1, 3, 1, 1, 8, 0) == PS_OK);   /* stale parent */
    CHECK(fork_exit(m, PERF_RECORD_EXIT, NONE, NONE, NONE, NONE, 9, 0) == PS_OK);
    CHECK(fork_exit(m, PERF_RECORD_EXIT, NONE, NONE, NONE, NONE, 9, 0) == PS_OK);
    /* times going backwards, untimed records, other types */
    CHECK(comm(m, 1, 1, "late", 100, 0) == PS_OK);
    CHECK(comm(m, 1, 1, "early", 50, 0) == PS_OK);
    CHECK(strcmp(comm_of(m, 1, 200), "early") == 0);
    CHECK(mmap1(m, 1, 1, 0x3000, 0x1000, 0, "/late", 100) == PS_OK);
    CHECK(mmap1(m, 1, 1, 0x3000, 0x1000, 0, "/early", 50) == PS_OK);
    (void)at(m, 1, 1, 60, 0x3000);
    (void)at(m, 1, 1, 0, 0x3000);
    memset(&ev, 0, sizeof(ev));
    ev.type = PERF_RECORD_COMM;
    ev.u.comm.pid = ev.u.comm.tid = 77;
    ev.u.comm.comm = "untimed";
    CHECK(ps_machine__event(m, &ev, NULL) == PS_OK);
    CHECK(strcmp(comm_of(m, 77, 100), "untimed") == 0);
    ev.type = PERF_RECORD_SAMPLE;
    CHECK(ps_machine__event(m, &ev, NULL) == PS_OK);
    ev.type = 9999;
    CHECK(ps_machine__event(m, &ev, NULL) == PS_OK);
    ps_machine__free(m);
}

static const struct harness_test tests[] = {
    TEST(test_comm_history_exec),
    TEST(test_fork_inheritance),
    TEST(test_exit_and_tid_reuse),
    TEST(test_overlapping_remap),
    TEST(test_inserted_log),
    TEST(test_lowest_start),
    TEST(test_early_mmap2_named_as_perf),
    TEST(test_kernel_maps_any_pid),
    TEST(test_unknown_thread),
    TEST(test_many_maps),
    TEST(test_pathological),
};

TEST_MAIN(tests)
