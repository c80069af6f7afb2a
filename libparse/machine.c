/* SPDX-License-Identifier: MIT */
/*
 * machine.c - threads, comms and address spaces over time, from
 * PERF_RECORD_COMM, FORK, EXIT, MMAP and MMAP2 (spec section 7.3.1), fed in
 * delivery order. Mirrors perf's machine/thread/maps rules (facts only):
 *
 *  - Threads are keyed by tid. A record naming an unknown tid creates it
 *    with the placeholder comm ":tid"; a thread whose pid differs from its
 *    tid shares the address space of its leader (pid, pid).
 *  - COMM: the first real comm overrides the placeholder; later ones append
 *    to the history (the exec flag is kept per entry). Exec drops no maps:
 *    perf relies on the new MMAPs replacing the old ones.
 *  - FORK: a reused tid starts a new incarnation (the old one ends at the
 *    fork time). The child takes its parent's current comm; a thread of the
 *    same process shares the maps, a new process gets a copy of them, unless
 *    misc bit 13 (perf's internal PERF_RECORD_MISC_FORK_EXEC: a synthesized
 *    fork, its MMAPs follow) says not to copy.
 *  - EXIT marks the thread exited; it stays findable, as in perf.
 *  - MMAP/MMAP2 with a kernel cpumode go to the one kernel address space,
 *    whatever their pid; others to the thread's process.
 *
 * Address spaces. `live` is sorted by start and non-overlapping, so a
 * lookup is a binary search. A new map retires every live map it overlaps
 * (time_end = its time) and re-inserts the uncovered head and tail of the
 * first and last of them as new maps (time_start = its time; the tail's
 * pgoff moves by the bytes cut off, as perf's split does). The new map and
 * the pieces record what they replaced (`replaced`, sorted, non-overlapping
 * since they were live together), so a lookup at an earlier time walks from
 * the live map covering addr down that history: O(log n) per level, one
 * level per remap of addr after t. Memory: each map is referenced from at
 * most three `replaced` arrays, so O(threads + maps) in all (a forked
 * process copies its parent's live maps, as perf does). A user space also
 * logs the maps put into it (`inserted`, one pointer each), because perf
 * decides whether a process can be unwound at those insertions.
 *
 * Threads: an open-addressing table on tid (load <= 1/2) holds the newest
 * incarnation; older ones hang off `prev`. A lookup is O(1) expected plus
 * one step per reuse of the tid after t.
 *
 * Invariants: maps, threads and strings live in the arena and never move;
 * a map's fields change only once (time_end, at retirement). Times are
 * taken as given; out-of-order input gives odd answers, never a crash.
 * Never calls symbols.c or reads files.
 */
#include <stdio.h>
#include "machine.h"

#define PS_NONE              UINT32_MAX    /* (uint32_t)-1: pid/tid unknown */
#define PS_MISC_COMM_EXEC    (1u << 13)    /* PERF_RECORD_MISC_COMM_EXEC */
#define PS_MISC_FORK_EXEC    (1u << 13)    /* perf-internal, on synthesized FORKs */
#define PS_MISC_CPUMODE_MASK 7u
#define PS_MISC_KERNEL       1u
#define PS_MISC_GUEST_KERNEL 4u
#define PS_MAP_HUGETLB       0x40000u      /* MAP_HUGETLB in mmap2 flags */

struct ps_maps {
    ps_map **live;              /* owned array; sorted by start, non-overlapping */
    size_t   nr_live, cap_live;
    const ps_map **inserted;    /* owned array: see ps_maps__inserted() */
    size_t   nr_inserted, cap_inserted;
};

struct ps_machine {
    ps_arena   arena;           /* threads, maps, strings, replaced arrays */
    ps_thread **slots;          /* owned: open-addressing table, newest incarnation per tid */
    size_t     nr_slots, nr_used;
    ps_maps  **spaces;          /* owned: every address space, for freeing */
    size_t     nr_spaces, cap_spaces;
    ps_maps   *kernel;
    uint64_t   kernel_start;    /* start of the first "[kernel.kallsyms" map, or 0 */
    uint64_t   last_time;
    uint64_t   nr_threads, nr_maps, nr_ignored;
};

static int nomem(ps_error *err, const ps_event *ev)
{
    return ps_error__set(err, PS_ENOMEM, ev ? ev->offset : PS_NO_OFFSET,
                         "machine: out of memory");
}

/* ------------------------------------------------------------------------ */
/* Address spaces                                                           */

static ps_maps *maps_new(ps_machine *m)
{
    ps_maps *s;

    if (ps_grow((void **)&m->spaces, &m->cap_spaces, m->nr_spaces + 1,
                sizeof(*m->spaces)) < 0 ||
        (s = ps_arena__alloc(&m->arena, sizeof(*s))) == NULL)
        return NULL;
    m->spaces[m->nr_spaces++] = s;
    return s;
}

/* Index of the first live map whose end is above addr (ends are sorted too,
 * the maps being disjoint); nr_live when none. */
static size_t first_ending_after(const ps_maps *s, uint64_t addr)
{
    size_t lo = 0, hi = s->nr_live;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (s->live[mid]->end > addr) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

/* The map of a sorted, disjoint array that covers addr, or NULL. */
static const ps_map *search(const ps_map *const *v, size_t n, uint64_t addr)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {            /* first with start > addr */
        size_t mid = lo + (hi - lo) / 2;

        if (v[mid]->start > addr) hi = mid;
        else lo = mid + 1;
    }
    if (lo == 0 || v[lo - 1]->end <= addr)
        return NULL;
    return v[lo - 1];
}

static const ps_map *maps_find(const ps_maps *s, uint64_t t, uint64_t addr)
{
    const ps_map *map;

    if (s == NULL)
        return NULL;
    map = search((const ps_map *const *)s->live, s->nr_live, addr);
    while (map != NULL && map->time_start > t)
        map = search(map->replaced, map->nr_replaced, addr);
    return map;
}

static ps_map *map_clone(ps_machine *m, const ps_map *from)
{
    ps_map *c = ps_arena__alloc(&m->arena, sizeof(*c));

    if (c != NULL) {
        *c = *from;
        m->nr_maps++;
    }
    return c;
}

/* A piece [start, end) of retired map `old` that lives on from time t. */
static ps_map *map_piece(ps_machine *m, const ps_map *old, uint64_t start,
                         uint64_t end, uint64_t t)
{
    ps_map *p = map_clone(m, old);
    const ps_map **rep = ps_arena__alloc(&m->arena, sizeof(*rep));

    if (p == NULL || rep == NULL)
        return NULL;
    rep[0] = old;
    p->pgoff = old->pgoff + (start - old->start);
    p->start = start;
    p->end = end;
    p->time_start = t;
    p->time_end = UINT64_MAX;
    p->replaced = rep;
    p->nr_replaced = 1;
    return p;
}

/* Insert map (time_start set, end > start), splitting what it overlaps. */
static int maps_insert(ps_machine *m, ps_maps *s, ps_map *map)
{
    size_t i = first_ending_after(s, map->start), j = i, k, nr_new;
    ps_map *head = NULL, *tail = NULL;
    const ps_map **rep = NULL;

    while (j < s->nr_live && s->live[j]->start < map->end)
        j++;
    if (j > i) {
        const ps_map *first = s->live[i], *last = s->live[j - 1];

        if ((rep = ps_arena__array(&m->arena, j - i, sizeof(*rep))) == NULL)
            return -1;
        if (first->start < map->start &&
            (head = map_piece(m, first, first->start, map->start, map->time_start)) == NULL)
            return -1;
        if (last->end > map->end &&
            (tail = map_piece(m, last, map->end, last->end, map->time_start)) == NULL)
            return -1;
    }
    nr_new = 1 + (head != NULL) + (tail != NULL);
    /* Make room first: on failure nothing has changed yet. */
    if (ps_grow((void **)&s->live, &s->cap_live, s->nr_live - (j - i) + nr_new,
                sizeof(*s->live)) < 0)
        return -1;
    for (k = i; k < j; k++) {
        rep[k - i] = s->live[k];
        s->live[k]->time_end = map->time_start;
    }
    if (j > i) {
        map->replaced = rep;
        map->nr_replaced = j - i;
    }
    memmove(s->live + i + nr_new, s->live + j, (s->nr_live - j) * sizeof(*s->live));
    s->nr_live = s->nr_live - (j - i) + nr_new;
    k = i;
    if (head) s->live[k++] = head;
    s->live[k++] = map;
    if (tail) s->live[k] = tail;
    return 0;
}

/* Room for n more entries in s's insertion log, made before a map goes in
 * so that logging it cannot fail. */
static int log_reserve(ps_maps *s, size_t n)
{
    return ps_grow((void **)&s->inserted, &s->cap_inserted, s->nr_inserted + n,
                   sizeof(*s->inserted));
}

/* A copy of parent's live maps into the new, empty space `to` (perf's
 * maps__copy_from). The copies share the (immutable) history arrays, so the
 * child sees its parent's past too. */
static int maps_copy(ps_machine *m, ps_maps *to, const ps_maps *from)
{
    size_t i;

    if (to == from || to->nr_live != 0 || from->nr_live == 0)
        return 0;
    if (ps_grow((void **)&to->live, &to->cap_live, from->nr_live, sizeof(*to->live)) < 0 ||
        log_reserve(to, from->nr_live) < 0)
        return -1;
    for (i = 0; i < from->nr_live; i++) {
        ps_map *c = map_clone(m, from->live[i]);

        if (c == NULL)
            return -1;
        to->live[to->nr_live++] = c;    /* same order: still sorted, disjoint */
        to->inserted[to->nr_inserted++] = c;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Threads                                                                  */

static size_t slot_of(const ps_machine *m, uint32_t tid)
{
    uint64_t h = tid * UINT64_C(0x9E3779B97F4A7C15);

    return (size_t)(h >> 32) & (m->nr_slots - 1);
}

/* The newest incarnation of tid, or NULL. Expected O(1): load <= 1/2. */
static ps_thread *thread_head(const ps_machine *m, uint32_t tid)
{
    size_t i;

    if (m->nr_slots == 0)
        return NULL;
    for (i = slot_of(m, tid); m->slots[i] != NULL; i = (i + 1) & (m->nr_slots - 1))
        if (m->slots[i]->tid == tid)
            return m->slots[i];
    return NULL;
}

static int slots_grow(ps_machine *m)
{
    size_t n = m->nr_slots ? m->nr_slots * 2 : 64, i, old_n = m->nr_slots;
    ps_thread **old = m->slots;

    if (n > SIZE_MAX / sizeof(*old) || (m->slots = calloc(n, sizeof(*old))) == NULL) {
        m->slots = old;
        return -1;
    }
    m->nr_slots = n;
    for (i = 0; i < old_n; i++) {
        size_t j;

        if (old[i] == NULL)
            continue;
        for (j = slot_of(m, old[i]->tid); m->slots[j]; j = (j + 1) & (n - 1))
            ;
        m->slots[j] = old[i];
    }
    free(old);
    return 0;
}

/* Make th the newest incarnation of its tid (replacing th->prev's slot). */
static int thread_publish(ps_machine *m, ps_thread *th)
{
    size_t i;

    if ((m->nr_used + 1) * 2 > m->nr_slots && slots_grow(m) < 0)
        return -1;
    for (i = slot_of(m, th->tid); m->slots[i] != NULL; i = (i + 1) & (m->nr_slots - 1))
        if (m->slots[i]->tid == th->tid) {
            m->slots[i] = th;
            return 0;
        }
    m->slots[i] = th;
    m->nr_used++;
    return 0;
}

static int comm_push(ps_thread *th, uint64_t t, const char *comm, int exec)
{
    if (ps_grow((void **)&th->comms, &th->cap_comms, th->nr_comms + 1,
                sizeof(*th->comms)) < 0)
        return -1;
    /* Keep the history sorted for the binary search, whatever the input. */
    if (th->nr_comms && t < th->comms[th->nr_comms - 1].time)
        t = th->comms[th->nr_comms - 1].time;
    th->comms[th->nr_comms].time = t;
    th->comms[th->nr_comms].comm = comm;
    th->comms[th->nr_comms].exec = exec;
    th->nr_comms++;
    return 0;
}

static ps_thread *thread_findnew(ps_machine *m, uint32_t pid, uint32_t tid);

/* A new incarnation of tid starting at t, with the placeholder comm and the
 * address space perf gives it (its leader's, or a new one). */
static ps_thread *thread_new(ps_machine *m, uint32_t pid, uint32_t tid, uint64_t t)
{
    ps_thread *th = ps_arena__alloc(&m->arena, sizeof(*th)), *leader;
    char name[16];

    if (th == NULL)
        return NULL;
    th->pid = pid;
    th->tid = tid;
    th->ppid = th->ptid = PS_NONE;
    th->start_time = t;
    th->end_time = UINT64_MAX;
    snprintf(name, sizeof(name), ":%u", (unsigned)tid);
    if (comm_push(th, t, ps_arena__strndup(&m->arena, name, sizeof(name)), 0) < 0)
        return NULL;
    if (th->comms[0].comm == NULL)
        goto fail;
    if (pid != PS_NONE && pid != tid) {
        if ((leader = thread_findnew(m, pid, pid)) == NULL)
            goto fail;
        th->maps = leader->maps;
    } else if ((th->maps = maps_new(m)) == NULL) {
        goto fail;
    }
    th->prev = thread_head(m, tid);
    if (thread_publish(m, th) < 0)
        goto fail;
    if (th->prev && th->prev->end_time > t)
        th->prev->end_time = t;
    m->nr_threads++;
    return th;
fail:
    free(th->comms);
    th->comms = NULL;
    return NULL;
}

/* perf's machine__findnew_thread: the current incarnation, created if new. */
static ps_thread *thread_findnew(ps_machine *m, uint32_t pid, uint32_t tid)
{
    ps_thread *th = thread_head(m, tid);

    if (th == NULL)
        return thread_new(m, pid, tid, 0);
    if (th->pid == PS_NONE && pid != PS_NONE) {
        th->pid = pid;              /* learned late: join the process if we can */
        if (pid != tid && th->maps && th->maps->nr_live == 0) {
            ps_thread *leader = thread_findnew(m, pid, pid);

            if (leader == NULL)
                return NULL;
            th->maps = leader->maps;
        }
    }
    return th;
}

/* ------------------------------------------------------------------------ */
/* Records                                                                  */

static uint64_t event_time(ps_machine *m, const ps_event *ev)
{
    uint64_t t = m->last_time;

    if (ev->type == PERF_RECORD_FORK || ev->type == PERF_RECORD_EXIT)
        t = ev->u.fork.time;
    else if (ev->has_sample_id && (ev->sample_id.present & PERF_SAMPLE_TIME))
        t = ev->sample_id.time;
    if (t > m->last_time)
        m->last_time = t;
    return t;
}

static int on_comm(ps_machine *m, const ps_event *ev, uint64_t t)
{
    const ps_record_comm *c = &ev->u.comm;
    ps_thread *th = thread_findnew(m, c->pid, c->tid);
    const char *name = c->comm ? c->comm : "";
    const char *s = ps_arena__strndup(&m->arena, name, strlen(name));
    int exec = (ev->misc & PS_MISC_COMM_EXEC) != 0;

    if (th == NULL || s == NULL)
        return -1;
    if (!th->comm_set) {             /* perf overrides the ":tid" placeholder */
        th->comms[0].time = t;
        th->comms[0].comm = s;
        th->comms[0].exec = exec;
    } else if (comm_push(th, t, s, exec) < 0) {
        return -1;
    }
    th->comm_set = 1;
    return 0;
}

static int on_fork(ps_machine *m, const ps_event *ev, uint64_t t)
{
    const ps_record_fork *f = &ev->u.fork;
    ps_thread *parent = thread_findnew(m, f->ppid, f->ptid), *th;

    if (parent == NULL)
        return -1;
    if (parent->pid != f->ppid && (parent = thread_new(m, f->ppid, f->ptid, t)) == NULL)
        return -1;                   /* a stale thread held ptid: perf replaces it */
    if ((th = thread_new(m, f->pid, f->tid, t)) == NULL)
        return -1;
    th->ppid = f->ppid;
    th->ptid = f->ptid;
    if (f->pid == parent->pid)
        th->maps = parent->maps;     /* a thread: share the process */
    else if (f->pid == f->tid && !(ev->misc & PS_MISC_FORK_EXEC) &&
             maps_copy(m, th->maps, parent->maps) < 0)
        return -1;                   /* a new process: a copy (th->maps is new) */
    if (parent->comm_set) {
        /* the parent's comm as last set, not as of t: perf's thread__fork()
         * copies thread__comm_str(parent). The same in time order; with
         * --show-round-events records come in file order, and a COMM that
         * came late (its time before t) is the one perf copies */
        th->comms[0] = parent->comms[parent->nr_comms - 1];
        th->comms[0].time = t;
        th->comms[0].exec = 0;
        th->comm_set = 1;
    }
    return 0;
}

static void on_thread_exit(ps_machine *m, const ps_event *ev, uint64_t t)
{
    ps_thread *th = thread_head(m, ev->u.fork.tid);

    if (th != NULL && !th->exited) {
        th->exited = 1;
        if (t < th->end_time)
            th->end_time = t;
    }
}

static int map_kind(const char *f, int kernel, uint32_t flags)
{
    static const char *const anon[] = { "//anon", "/dev/zero", "/anon_hugepage" };
    size_t i;

    if (kernel)
        return (!strncmp(f, "[kernel.kallsyms", 16) ||
                !strncmp(f, "[guest.kernel.kallsyms", 22)) ? PS_MAP_KERNEL : PS_MAP_MODULE;
    if (!strncmp(f, "[vdso", 5))
        return PS_MAP_VDSO;
    for (i = 0; i < PS_ARRAY_SIZE(anon); i++)
        if (!strncmp(f, anon[i], strlen(anon[i])))
            return PS_MAP_ANON;
    if ((!strncmp(f, "/tmp/perf-", 10) && strstr(f, ".map") != NULL) ||
        (flags & PS_MAP_HUGETLB))
        return PS_MAP_ANON;
    if (!strncmp(f, "[stack", 6) || !strcmp(f, "[heap]") || !strncmp(f, "/SYSV", 5))
        return PS_MAP_NO_DSO;
    return PS_MAP_FILE;
}

/* Early MMAP2 producers wrote no prot/flags, and records.c then takes the
 * name from where prot would be (raw + 64). perf 6.1 does not know that
 * layout: its map gets prot/flags from the name's first 8 bytes and is
 * named by the bytes after them (the sample_id trailer, usually) up to a
 * NUL inside the record. The model takes perf's view, since the DSO perf
 * makes of that name decides what it resolves and unwinds there.
 * @return 1 when ev is such a record, with tmp's fields set as perf's */
static int perf_early_mmap2(const ps_event *ev, ps_map *tmp, size_t *name_len)
{
    enum { PROT_OFF = 64, NAME_OFF = 72 };
    const uint8_t *p = ev->raw;
    const uint8_t *end;

    if (p == NULL || (const uint8_t *)ev->u.mmap2.filename != p + PROT_OFF ||
        ev->size < NAME_OFF)
        return 0;
    memcpy(&tmp->prot, p + PROT_OFF, sizeof(tmp->prot));
    memcpy(&tmp->flags, p + PROT_OFF + 4, sizeof(tmp->flags));
    tmp->filename = (const char *)p + NAME_OFF;
    end = memchr(p + NAME_OFF, 0, (size_t)ev->size - NAME_OFF);
    *name_len = end ? (size_t)(end - (p + NAME_OFF)) : (size_t)ev->size - NAME_OFF;
    return 1;
}

static int on_mmap(ps_machine *m, const ps_event *ev, uint64_t t)
{
    unsigned mode = ev->misc & PS_MISC_CPUMODE_MASK;
    int kernel = mode == PS_MISC_KERNEL || mode == PS_MISC_GUEST_KERNEL;
    ps_map tmp, *map;
    ps_maps *space;
    size_t name_len = SIZE_MAX;

    memset(&tmp, 0, sizeof(tmp));
    if (ev->type == PERF_RECORD_MMAP2) {
        const ps_record_mmap2 *r = &ev->u.mmap2;

        tmp.pid = r->pid; tmp.tid = r->tid;
        tmp.start = r->start; tmp.end = r->start + r->len; tmp.pgoff = r->pgoff;
        tmp.filename = r->filename;
        tmp.is_mmap2 = 1;
        tmp.maj = r->maj; tmp.min = r->min;
        tmp.ino = r->ino; tmp.ino_generation = r->ino_generation;
        tmp.prot = r->prot; tmp.flags = r->flags;
        tmp.has_build_id = r->has_build_id;
        tmp.build_id_size = r->build_id_size <= 20 ? r->build_id_size : 20;
        memcpy(tmp.build_id, r->build_id, sizeof(tmp.build_id));
        perf_early_mmap2(ev, &tmp, &name_len);
    } else {
        const ps_record_mmap *r = &ev->u.mmap;

        tmp.pid = r->pid; tmp.tid = r->tid;
        tmp.start = r->start; tmp.end = r->start + r->len; tmp.pgoff = r->pgoff;
        tmp.filename = r->filename;
    }
    if (tmp.end < tmp.start)         /* start + len wrapped: clamp */
        tmp.end = UINT64_MAX;
    if (tmp.end == tmp.start) {      /* zero length: covers nothing */
        m->nr_ignored++;
        return 0;
    }
    if (tmp.filename == NULL)
        tmp.filename = "";
    if (name_len == SIZE_MAX)
        name_len = strlen(tmp.filename);
    if ((tmp.filename = ps_arena__strndup(&m->arena, tmp.filename, name_len)) == NULL)
        return -1;
    tmp.kind = map_kind(tmp.filename, kernel, tmp.flags);
    tmp.time_start = t;
    tmp.time_end = UINT64_MAX;
    if (kernel) {
        space = m->kernel;
    } else {
        ps_thread *th = thread_findnew(m, tmp.pid, tmp.tid);

        if (th == NULL)
            return -1;
        space = th->maps;
    }
    if ((map = map_clone(m, &tmp)) == NULL || (!kernel && log_reserve(space, 1) < 0))
        return -1;
    if (tmp.kind == PS_MAP_KERNEL && m->kernel_start == 0)
        m->kernel_start = tmp.start;
    if (maps_insert(m, space, map) < 0)
        return -1;
    if (!kernel)                     /* only user spaces are unwound */
        space->inserted[space->nr_inserted++] = map;
    return 0;
}

/* KSYMBOL: register maps [addr, addr + len) of kernel text under the
 * symbol's name (perf gives it a DSO of its own with one symbol);
 * unregister retires the live map starting at addr, as perf removes it. */
static int on_ksymbol(ps_machine *m, const ps_event *ev, uint64_t t)
{
    const ps_record_ksymbol *r = &ev->u.ksymbol;
    ps_maps *s = m->kernel;
    ps_map tmp, *map;
    size_t i;

    if (r->flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER) {
        i = first_ending_after(s, r->addr);
        if (i < s->nr_live && s->live[i]->start == r->addr &&
            s->live[i]->kind == PS_MAP_KSYMBOL) {
            s->live[i]->time_end = t;
            memmove(s->live + i, s->live + i + 1, (s->nr_live - i - 1) * sizeof(*s->live));
            s->nr_live--;
        }
        return 0;
    }
    if (r->len == 0) {
        m->nr_ignored++;
        return 0;
    }
    memset(&tmp, 0, sizeof(tmp));
    tmp.pid = tmp.tid = PS_NONE;
    tmp.start = r->addr;
    tmp.end = r->addr + r->len < r->addr ? UINT64_MAX : r->addr + r->len;
    tmp.kind = PS_MAP_KSYMBOL;
    tmp.time_start = t;
    tmp.time_end = UINT64_MAX;
    tmp.filename = ps_arena__strndup(&m->arena, r->name ? r->name : "",
                                     r->name ? strlen(r->name) : 0);
    if (tmp.filename == NULL || (map = map_clone(m, &tmp)) == NULL)
        return -1;
    return maps_insert(m, s, map);
}

/* ------------------------------------------------------------------------ */
/* API                                                                      */

int ps_machine__new(ps_machine **out, ps_error *err)
{
    ps_machine *m = calloc(1, sizeof(*m));

    *out = NULL;
    if (m == NULL)
        return nomem(err, NULL);
    ps_arena__init(&m->arena);
    if ((m->kernel = maps_new(m)) == NULL) {
        ps_machine__free(m);
        return nomem(err, NULL);
    }
    *out = m;
    return PS_OK;
}

void ps_machine__free(ps_machine *m)
{
    size_t i;

    if (m == NULL)
        return;
    for (i = 0; i < m->nr_slots; i++) {
        ps_thread *th;

        for (th = m->slots[i]; th != NULL; th = th->prev)
            free(th->comms);
    }
    for (i = 0; i < m->nr_spaces; i++) {
        free(m->spaces[i]->live);
        free(m->spaces[i]->inserted);
    }
    free(m->spaces);
    free(m->slots);
    ps_arena__free(&m->arena);
    free(m);
}

int ps_machine__event(ps_machine *m, const ps_event *ev, ps_error *err)
{
    uint64_t t;
    int rc = 0;

    switch (ev->type) {
    case PERF_RECORD_COMM:
        t = event_time(m, ev);
        rc = on_comm(m, ev, t);
        break;
    case PERF_RECORD_FORK:
        t = event_time(m, ev);
        rc = on_fork(m, ev, t);
        break;
    case PERF_RECORD_EXIT:
        t = event_time(m, ev);
        on_thread_exit(m, ev, t);
        break;
    case PERF_RECORD_MMAP:
    case PERF_RECORD_MMAP2:
        t = event_time(m, ev);
        rc = on_mmap(m, ev, t);
        break;
    case PERF_RECORD_KSYMBOL:
        t = event_time(m, ev);
        rc = on_ksymbol(m, ev, t);
        break;
    default:
        break;
    }
    return rc < 0 ? nomem(err, ev) : PS_OK;
}

const ps_thread *ps_machine__thread(const ps_machine *m, uint32_t pid, uint32_t tid,
                                    uint64_t t)
{
    const ps_thread *th = thread_head(m, tid);

    (void)pid;                       /* perf keys threads by tid alone */
    while (th != NULL && th->start_time > t && th->prev != NULL)
        th = th->prev;
    return th;
}

const ps_comm *ps_thread__comm_at(const ps_thread *th, uint64_t t)
{
    size_t lo = 0, hi = th->nr_comms;

    while (lo < hi) {                /* first entry with time > t */
        size_t mid = lo + (hi - lo) / 2;

        if (th->comms[mid].time > t) hi = mid;
        else lo = mid + 1;
    }
    return &th->comms[lo ? lo - 1 : 0];
}

const char *ps_thread__comm(const ps_thread *th, uint64_t t)
{
    return ps_thread__comm_at(th, t)->comm;
}

const ps_maps *ps_machine__user_maps(const ps_machine *m, uint32_t pid, uint32_t tid,
                                     uint64_t t)
{
    const ps_thread *th = ps_machine__thread(m, pid, tid, t);

    if (th == NULL && pid != PS_NONE)
        th = ps_machine__thread(m, pid, pid, t);
    return th ? th->maps : NULL;
}

const ps_map *ps_machine__find_user_map(const ps_machine *m, uint32_t pid, uint32_t tid,
                                        uint64_t t, uint64_t addr)
{
    return maps_find(ps_machine__user_maps(m, pid, tid, t), t, addr);
}

const ps_map *ps_maps__inserted(const ps_maps *s, size_t i)
{
    return s != NULL && i < s->nr_inserted ? s->inserted[i] : NULL;
}

size_t ps_maps__nr_inserted(const ps_maps *s)
{
    return s != NULL ? s->nr_inserted : 0;
}

/* perf's DSO identity (dsos__findnew_id()): the name, then the MMAP2 ids
 * when both sides have them. */
static int same_dso(const ps_map *a, const ps_map *b)
{
    if (strcmp(a->filename, b->filename) != 0)
        return 0;
    if (!a->is_mmap2 || !b->is_mmap2 || (a->ino == 0 && a->maj == 0 && a->min == 0) ||
        (b->ino == 0 && b->maj == 0 && b->min == 0))
        return 1;
    return a->maj == b->maj && a->min == b->min && a->ino == b->ino &&
           a->ino_generation == b->ino_generation;
}

uint64_t ps_maps__lowest_start(const ps_maps *s, uint64_t t, const ps_map *like)
{
    size_t i;

    /* live is sorted by start: the first match is the lowest */
    for (i = 0; s != NULL && i < s->nr_live; i++)
        if (s->live[i]->time_start <= t && same_dso(s->live[i], like))
            return s->live[i]->start;
    return UINT64_MAX;
}

const ps_map *ps_machine__find_kernel_map(const ps_machine *m, uint64_t t, uint64_t addr)
{
    return maps_find(m->kernel, t, addr);
}

const ps_map *ps_machine__find_map(const ps_machine *m, uint32_t pid, uint32_t tid,
                                   uint64_t t, uint64_t addr)
{
    const ps_map *map = ps_machine__find_user_map(m, pid, tid, t, addr);

    return map ? map : ps_machine__find_kernel_map(m, t, addr);
}

uint64_t ps_machine__kernel_start(const ps_machine *m)
{
    return m->kernel_start ? m->kernel_start : 1ull << 63;
}

uint64_t ps_machine__nr_threads(const ps_machine *m) { return m->nr_threads; }
uint64_t ps_machine__nr_maps(const ps_machine *m) { return m->nr_maps; }
uint64_t ps_machine__nr_ignored(const ps_machine *m) { return m->nr_ignored; }
