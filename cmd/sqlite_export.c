/* SPDX-License-Identifier: MIT */
/*
 * sqlite_export.c - export-to-sqlite.py's rows (sqlite_export.h), as perf
 * 6.1's db-export layer makes them while `perf script -s` walks a capture:
 *
 * - Ids are handed out on first export, per table, in perf's order: for a
 *   sample its event, the machine, its process's main thread and that
 *   thread's exec comm, the thread and its current comm, then the dso and
 *   symbol of the ip, those of each call chain entry root first (with the
 *   call path nodes), those of the sample's addr, and the sample itself.
 * - A comm row is perf's struct comm: one per entry of a thread's comm
 *   history, so a comm name repeats for each thread that had it.
 * - An address with a map but no symbol gets perf's zero-size "unknown"
 *   symbol at that address (the map-relative one for the sample's ip and
 *   addr, the raw one for call chain entries, as perf passes them). Its
 *   insertion can turn perf's remembered last lookup in that DSO stale
 *   (stale_find): the next lookup at that address gets the unknown symbol.
 *   A sample whose addr is its ip gets two (twin_unknown()).
 * - Threads are perf's thread objects: an incarnation of the machine model,
 *   or for a tid no record named the one perf makes on the sample (comm
 *   ":TID"), together with its process leader.
 * - Tracepoint samples are exported too (perf's script gets them through
 *   its tracepoint handlers instead, which export-to-sqlite.py ignores), so
 *   their fields have a sample to belong to (sqlite_tp.c).
 */
#include <stdlib.h>
#include <string.h>
#include "sqlite_chain.h"
#include "sqlite_export.h"
#include "../libparse/sym_buildid.h"
#include "../libparse/sym_elf.h"
#include "../libparse/symbols.h"
#include "../libparse/symtree.h"
#include "../libparse/unwind.h"

#define NOW UINT64_MAX                  /* perf's view: the records so far */
#define PERF_MEM_DATA_SRC_NONE 0x5080021

/* --- a hash map from three words to an id (0: absent) ---------------------- */

typedef struct k3 { uint64_t a, b, c; int64_t id; } k3;
typedef struct k3map { k3 *e; size_t cap, nr; } k3map;

static size_t k3_slot(const k3map *m, uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t h = ((a * UINT64_C(0x9e3779b97f4a7c15)) ^ b) * UINT64_C(0xff51afd7ed558ccd) ^ c;
    size_t i;

    h = (h ^ (h >> 31)) * UINT64_C(0xc4ceb9fe1a85ec53);
    for (i = (h ^ (h >> 29)) & (m->cap - 1); m->e[i].id != 0; i = (i + 1) & (m->cap - 1))
        if (m->e[i].a == a && m->e[i].b == b && m->e[i].c == c)
            break;
    return i;
}

static int64_t k3_get(const k3map *m, uint64_t a, uint64_t b, uint64_t c)
{
    return m->cap ? m->e[k3_slot(m, a, b, c)].id : 0;
}

static int k3_put(k3map *m, uint64_t a, uint64_t b, uint64_t c, int64_t id)
{
    size_t i;

    if ((m->nr + 1) * 2 > m->cap) {
        k3map g = { calloc(m->cap ? m->cap * 2 : 1024, sizeof(k3)), m->cap ? m->cap * 2 : 1024, 0 };

        if (g.e == NULL)
            return -1;
        for (i = 0; i < m->cap; i++)
            if (m->e[i].id != 0)
                g.e[k3_slot(&g, m->e[i].a, m->e[i].b, m->e[i].c)] = m->e[i];
        g.nr = m->nr;
        free(m->e);
        *m = g;
    }
    i = k3_slot(m, a, b, c);
    m->e[i] = (k3){ a, b, c, id };
    m->nr++;
    return 0;
}

/* --- state ------------------------------------------------------------------ */

typedef struct xthread {
    const ps_thread *th;        /* NULL: made by perf for a sample's unknown tid */
    uint32_t pid, tid;
    int64_t  id;                /* threads.id, 0 until exported */
    int64_t *comm_ids;          /* owned: per entry of th->comms, 0 until exported */
    size_t   nr_comm_ids;
} xthread;

enum { T_EVSEL, T_MACHINE, T_THREAD, T_COMM, T_COMM_THREAD, T_DSO, T_SYMBOL,
       T_CALL_PATH, T_SAMPLE, T_SWITCH, NR_TABLES };

static const sqdb_table tables[NR_TABLES] = {
    [T_EVSEL]       = { "selected_events", "INSERT INTO selected_events VALUES (?,?)" },
    [T_MACHINE]     = { "machines", "INSERT INTO machines VALUES (?,?,?)" },
    [T_THREAD]      = { "threads", "INSERT INTO threads VALUES (?,?,?,?,?)" },
    [T_COMM]        = { "comms", "INSERT INTO comms (id, comm, c_thread_id, c_time, exec_flag)"
                                 " VALUES (?,?,?,?,?)" },
    [T_COMM_THREAD] = { "comm_threads", "INSERT INTO comm_threads VALUES (?,?,?)" },
    [T_DSO]         = { "dsos", "INSERT INTO dsos VALUES (?,?,?,?,?)" },
    [T_SYMBOL]      = { "symbols", "INSERT INTO symbols VALUES (?,?,?,?,?,?)" },
    [T_CALL_PATH]   = { "call_paths", "INSERT INTO call_paths VALUES (?,?,?,?)" },
    /* branch_type, in_tx, insn/cyc counts and flags come from decoding
     * branch traces (Intel PT): always 0, not bound for every row */
    [T_SAMPLE]      = { "samples", "INSERT INTO samples VALUES "
                                   "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,0,0,?,0,0,0)" },
    [T_SWITCH]      = { "context_switches",
                        "INSERT INTO context_switches VALUES (?,?,?,?,?,?,?,?,?)" },
};

/* samples rows go in this many at a time (sqdb_batch()) */
#define SAMPLE_BATCH 16

/*
 * The ids of recent frames, as frame_ids() found them: most frames are
 * answered here without the dsos and symbols maps. A frame with a symbol is
 * known by the symbol's (stable) pointer, whose ids never change; one
 * without by its dso, address and lookup address, whose "unknown" symbol
 * depends on those made before, so its entry holds while no symbol was
 * made since (nr_syms).
 */
#define MEMO_BITS 12

typedef struct frame_memo {
    const ps_sym *sym;
    const char   *dso;
    uint64_t      rel, addr, start;
    int64_t       dso_id, sym_id, nr_syms;
} frame_memo;

/* A call path's last child looked up (call_path()): a node's children
 * repeat, and this small array stays in cache where the paths map, keyed
 * on all three words, does not */
typedef struct path_memo {
    int64_t  sym_id, child;         /* child 0: none */
    uint64_t ip;
} path_memo;

/*
 * perf's dso__find_symbol() remembers its last lookup per DSO (address and
 * symbol), and dso__insert_symbol() of a zero-size "unknown" symbol at or
 * below that address overwrites the remembered symbol with it. Until the
 * DSO's next lookup elsewhere, a lookup at the remembered address gets that
 * unknown symbol, whatever symbol is really there: a page fault whose addr
 * lies below its ip in the same DSO (ld.so reading its own relocations)
 * leaves the second event's sample of the same fault at the unknown
 * symbol. Such stale lookups are kept here, most often none.
 */
#define STALE_FINDS 8
typedef struct stale_find {
    const char *dso;
    uint64_t    at, start;          /* the lookup address; the unknown symbol's */
    int64_t     sym_id;             /* the unknown symbol's; 0: no stale lookup */
} stale_find;

/* The last sample's thread and comm ids, per thread (sample_threads()) */
#define THREAD_MEMOS 16
typedef struct thread_memo {
    uint32_t pid, tid;
    uint64_t nr_records;
    size_t   nr_threads;
    int      comm_exec;
    long     t;                     /* -1: none */
    int64_t  comm_id;
} thread_memo;

struct sqx {
    sqdb         *d;
    thread_memo   last_thread[THREAD_MEMOS];    /* by tid */
    frame_memo   *memo;             /* owned; NULL: none */
    sqch_set      chains;           /* each thread's last call chain */
    uint64_t      nr_records;       /* those that may change what an address is */
    const char   *symfs;
    ps_resolver  *res;
    const ps_features *feat;
    uint32_t      pid;              /* the sample being exported's */
    ps_frame     *xf;               /* owned: a chain with unknown_inlines() */
    size_t        nr_xf;
    sqlite3_stmt *st[NR_TABLES];
    int64_t       last[NR_TABLES];  /* the last id given in each table */
    int64_t       machine_id;       /* 0 until the first export */
    int64_t       root_path;        /* call_paths id of the root, 0 until made */
    int           comm_exec;        /* some event has attr.comm_exec */
    int           timeless;         /* records carry no time: perf's is -1 */
    int64_t      *evsel_ids;        /* owned: by evsel idx */
    size_t        nr_evsel_ids;
    xthread      *threads;          /* owned */
    size_t        nr_threads, cap_threads;
    k3map         thread_idx;       /* thread key -> index + 1 */
    k3map         dsos;             /* dso name pointer -> dsos.id */
    k3map         syms;             /* symbol key -> symbols.id */
    k3map         paths;            /* (parent, symbol, ip) -> call_paths.id */
    path_memo    *children;         /* owned: by parent id - path_base */
    size_t        nr_children;
    int64_t       path_base;        /* call_paths ids made here are above it */
    k3map         fork_time;        /* forked thread -> its FORK's sample time */
    stale_find    stale[STALE_FINDS];
    size_t        nr_stale;
    int           stale_hit;        /* a chain frame got a stale lookup's symbol */
};

sqx *sqx_new(sqdb *d, const char *symfs)
{
    sqx *x = calloc(1, sizeof(*x));
    size_t i;

    if (x == NULL) {
        fprintf(stderr, "perfsift %s: out of memory\n", d->cmd);
        return NULL;
    }
    x->d = d;
    x->symfs = symfs ? symfs : "";
    x->memo = calloc((size_t)1 << MEMO_BITS, sizeof(*x->memo));   /* NULL: slower */
    for (i = 0; i < THREAD_MEMOS; i++)
        x->last_thread[i].t = -1;
    x->path_base = -1;
    if (sqdb_prepare_tables(d, tables, NR_TABLES, x->st, x->last) < 0 ||
        sqdb_batch(d, x->st[T_SAMPLE], tables[T_SAMPLE].insert, SAMPLE_BATCH) < 0) {
        sqx_free(x);
        return NULL;
    }
    return x;
}

void sqx_free(sqx *x)
{
    size_t i;

    if (x == NULL)
        return;
    for (i = 0; i < x->nr_threads; i++)
        free(x->threads[i].comm_ids);
    free(x->threads);
    free(x->xf);
    free(x->evsel_ids);
    free(x->thread_idx.e);
    free(x->dsos.e);
    free(x->syms.e);
    free(x->paths.e);
    free(x->children);
    free(x->fork_time.e);
    free(x->memo);
    sqch_free(&x->chains);
    free(x);
}

void sqx_begin(sqx *x, walk *w)
{
    x->res = walk_resolver(w);
    x->feat = ps_session_features(walk_session(w));
}

static int oom(sqx *x)
{
    fprintf(stderr, "perfsift %s: out of memory\n", x->d->cmd);
    return -1;
}

static int64_t next_id(sqx *x, int t)
{
    return ++x->last[t];
}

/* --- events and the machine ------------------------------------------------- */

int64_t sqx_evsel_id(const sqx *x, const ps_evsel *e)
{
    return e->idx < x->nr_evsel_ids ? x->evsel_ids[e->idx] : 0;
}

static int64_t export_evsel(sqx *x, const ps_evsel *e)
{
    int64_t id;

    if ((id = sqx_evsel_id(x, e)) != 0)
        return id;
    if (e->idx >= x->nr_evsel_ids) {
        size_t n = x->nr_evsel_ids;

        if (ps_grow((void **)&x->evsel_ids, &x->nr_evsel_ids, e->idx + 1, sizeof(int64_t)) < 0)
            return oom(x);
        memset(x->evsel_ids + n, 0, (x->nr_evsel_ids - n) * sizeof(int64_t));
    }
    id = x->evsel_ids[e->idx] = next_id(x, T_EVSEL);
    return sqdb_row(x->d, x->st[T_EVSEL], "it", id, e->name) < 0 ? -1 : id;
}

int64_t sqx_machine_id(sqx *x)
{
    if (x->machine_id != 0)
        return x->machine_id;
    x->machine_id = next_id(x, T_MACHINE);
    /* the host: perf's HOST_KERNEL_ID and no root directory */
    return sqdb_row(x->d, x->st[T_MACHINE], "idt", x->machine_id, -1, "") < 0 ? -1
                                                                             : x->machine_id;
}

uint64_t sqx_has_machine(const sqx *x)
{
    return x->machine_id != 0 ? (uint64_t)x->machine_id : UINT64_MAX;
}

/* --- threads and comms ------------------------------------------------------ */

/* index of the thread (th, or perf's own one for tid when th is NULL) */
static long thread_of(sqx *x, const ps_thread *th, uint32_t pid, uint32_t tid)
{
    uint64_t a = th ? (uint64_t)(uintptr_t)th : tid, b = th ? 0 : 1;
    int64_t i = k3_get(&x->thread_idx, a, b, 0);
    xthread *t;

    if (i != 0)
        return (long)i - 1;
    if (ps_grow((void **)&x->threads, &x->cap_threads, x->nr_threads + 1, sizeof(xthread)) < 0 ||
        k3_put(&x->thread_idx, a, b, 0, (int64_t)x->nr_threads + 1) < 0)
        return oom(x);
    t = &x->threads[x->nr_threads];
    memset(t, 0, sizeof(*t));
    t->th = th;
    t->pid = th && th->pid != UINT32_MAX ? th->pid : pid;
    t->tid = tid;
    return (long)x->nr_threads++;
}

/* machine__find_thread(): a model thread, or one perf made for a sample */
static long find_thread(sqx *x, uint32_t pid, uint32_t tid)
{
    const ps_thread *th = ps_machine__thread(ps_resolver__machine(x->res), pid, tid, NOW);
    int64_t i = k3_get(&x->thread_idx, tid, 1, 0);

    if (th == NULL)
        return i != 0 ? (long)i - 1 : -2;
    /* a tid first seen in a sample, then named by a COMM: perf's thread
     * object made for the sample takes the comm (a FORK makes a new one) */
    if (i != 0 && x->threads[i - 1].th == NULL && th->ppid == UINT32_MAX &&
        k3_get(&x->thread_idx, (uintptr_t)th, 0, 0) == 0) {
        x->threads[i - 1].th = th;
        return k3_put(&x->thread_idx, (uintptr_t)th, 0, 0, i) < 0 ? oom(x) : (long)i - 1;
    }
    return thread_of(x, th, pid, tid);
}

/* machine__findnew_thread() for a sample: perf makes an unknown tid, and
 * (thread__init_maps) its process leader */
static long sample_thread(sqx *x, uint32_t pid, uint32_t tid)
{
    long t = find_thread(x, pid, tid);

    if (t == -2 && (t = thread_of(x, NULL, pid, tid)) >= 0 && pid != tid &&
        pid != UINT32_MAX && find_thread(x, pid, pid) == -2 &&
        thread_of(x, NULL, pid, pid) < 0)
        return -1;
    if (t >= 0 && x->threads[t].pid == UINT32_MAX)
        x->threads[t].pid = pid;
    return t;
}

/* thread__main_thread(): -2 when there is none */
static long main_thread(sqx *x, long t)
{
    const xthread *th = &x->threads[t];

    if (th->pid == th->tid)
        return t;
    if (th->pid == UINT32_MAX)
        return -2;
    return find_thread(x, th->pid, th->pid);
}

static size_t nr_comms(const xthread *t)
{
    return t->th ? t->th->nr_comms : 1;
}

/* thread__exec_comm(), or thread__comm() when no event has comm_exec */
static size_t exec_comm(const sqx *x, const xthread *t)
{
    size_t i, n = nr_comms(t);

    if (!x->comm_exec || t->th == NULL)
        return n - 1;
    for (i = n; i-- > 0;)
        if (t->th->comms[i].exec)
            return i;
    /* the oldest, unless it is a forked main thread's inherited one */
    if (n >= 2 && t->th->comms[0].time == 0 && t->pid == t->tid)
        return 1;
    return 0;
}

static int export_thread(sqx *x, long t, long main)
{
    xthread *th = &x->threads[t];

    if (th->id != 0)
        return 0;
    th->id = next_id(x, T_THREAD);
    return sqdb_row(x->d, x->st[T_THREAD], "iiidd", th->id, sqx_machine_id(x),
                    main >= 0 ? x->threads[main].id : 0, (int)th->pid, (int)th->tid);
}

static int comm_thread(sqx *x, int64_t comm_id, long t)
{
    return sqdb_row(x->d, x->st[T_COMM_THREAD], "iii", next_id(x, T_COMM_THREAD), comm_id,
                    x->threads[t].id);
}

/* entry i of thread t's comm history: its comms row */
static int64_t export_comm(sqx *x, long t, size_t i)
{
    xthread *th = &x->threads[t];
    char fake[16];
    const char *name = fake;
    uint64_t time = 0;
    int exec = 0;
    int64_t id;

    if (i >= th->nr_comm_ids) {
        size_t n = th->nr_comm_ids;

        if (ps_grow((void **)&th->comm_ids, &th->nr_comm_ids, i + 1, sizeof(int64_t)) < 0)
            return oom(x);
        memset(th->comm_ids + n, 0, (th->nr_comm_ids - n) * sizeof(int64_t));
    }
    if (th->comm_ids[i] != 0)
        return th->comm_ids[i];
    if (th->th != NULL) {
        name = th->th->comms[i].comm;
        time = th->th->comms[i].time;
        exec = th->th->comms[i].exec;

        /* the comm a fork inherits starts at the FORK record's sample
         * time in perf (the model keeps the record's own time field) */
        if (i == 0 && time == th->th->start_time && th->th->ppid != UINT32_MAX) {
            int64_t ft = k3_get(&x->fork_time, (uintptr_t)th->th, 0, 0);

            time = ft != 0 ? (uint64_t)ft : time;
        }
        /* a COMM or FORK without a time starts its comm at perf's "no
         * time", -1 (the model keeps the last time seen instead) */
        if (x->timeless && th->th->comm_set)
            time = UINT64_MAX;
    } else {
        snprintf(fake, sizeof(fake), ":%d", (int)th->tid);
    }
    id = th->comm_ids[i] = next_id(x, T_COMM);
    return sqdb_row(x->d, x->st[T_COMM], "itiud", id, name, th->id, time, exec) < 0 ? -1 : id;
}

/* db_export__exec_comm(): an exec comm has one main thread, recorded in
 * comm_threads when the comm is first exported (other threads of the
 * process get theirs when they are) */
static int64_t export_exec_comm(sqx *x, long main)
{
    size_t i = exec_comm(x, &x->threads[main]);
    int64_t id;

    if (i < x->threads[main].nr_comm_ids && x->threads[main].comm_ids[i] != 0)
        return x->threads[main].comm_ids[i];
    if ((id = export_comm(x, main, i)) < 0 || comm_thread(x, id, main) < 0)
        return -1;
    return id;
}

/* db_export__threads(): *comm_id is the main thread's exec comm (or 0) */
static int export_threads(sqx *x, long t, long main, int64_t *comm_id)
{
    *comm_id = 0;
    if (main >= 0) {
        if (export_thread(x, main, main) < 0 || (*comm_id = export_exec_comm(x, main)) < 0)
            return -1;
    }
    if (t != main) {
        int new_thread = x->threads[t].id == 0;

        if (export_thread(x, t, main) < 0 ||
            (*comm_id != 0 && new_thread && comm_thread(x, *comm_id, t) < 0))
            return -1;
    }
    return export_comm(x, t, nr_comms(&x->threads[t]) - 1) < 0 ? -1 : 0;
}

/* --- dsos and symbols --------------------------------------------------------- */

/* the build-id perf's dso has when it is exported: the capture's (MMAP2
 * or BUILD_ID feature), else the one dso__load() read from the file */
static void dso_build_id(sqx *x, const ps_frame *f, char *hex)
{
    uint8_t bid[PS_BUILD_ID_MAX];
    size_t size = 0;
    int n;

    hex[0] = '\0';
    if (ps_build_id__expected(bid, &size, x->feat, f->map, f->r.dso) ||
        ps_build_id__expected(bid, &size, x->feat, NULL, f->map->filename)) {
        ps_build_id__hex(hex, bid, size);
    } else if (f->map->kind == PS_MAP_FILE && f->map->filename[0] == '/') {
        char path[4096 + 256];

        snprintf(path, sizeof(path), "%s%s", x->symfs, f->map->filename);
        if ((n = ps_elf__file_build_id(path, bid)) > 0)
            ps_build_id__hex(hex, bid, (size_t)n);
    }
}

static int64_t export_dso(sqx *x, const ps_frame *f)
{
    int64_t id = k3_get(&x->dsos, (uintptr_t)f->r.dso, 0, 0);
    const char *long_name = f->r.dso;
    char hex[2 * PS_BUILD_ID_MAX + 1], jit[64];

    if (id != 0)
        return id;
    id = next_id(x, T_DSO);
    if (k3_put(&x->dsos, (uintptr_t)f->r.dso, 0, 0, id) < 0)
        return oom(x);
    if (f->map->kind == PS_MAP_MODULE)
        long_name = f->map->filename;   /* the module's path, name "[mod]" */
    dso_build_id(x, f, hex);
    if (sqdb_row(x->d, x->st[T_DSO], "iittt", id, sqx_machine_id(x),
                 ps_frame_dso_name(f, jit, sizeof(jit)), long_name, hex) < 0)
        return -1;
    return id;
}

static int symbol_row(sqx *x, int64_t id, int64_t dso_id, uint64_t start, uint64_t end,
                      int binding, const char *name)
{
    return sqdb_row(x->d, x->st[T_SYMBOL], "iiuudt", id, dso_id, start, end, binding, name);
}

/* a symbol's STB_* binding: resolved symbols are symtree nodes */
static int sym_binding(const ps_sym *s)
{
    return ((const ps_sym_node *)(const void *)s)->binding;
}

/* frame f's entry in the memo (looked up at addr) */
static frame_memo *memo_slot(const sqx *x, const ps_frame *f, uint64_t addr)
{
    uint64_t h = f->r.sym != NULL ? (uintptr_t)f->r.sym
                                  : ((uintptr_t)f->r.dso ^ f->r.rel * 31) * 31 ^ addr;

    return &x->memo[(h * UINT64_C(0x9e3779b97f4a7c15)) >> (64 - MEMO_BITS)];
}

/*
 * call_path_from_sample()'s dso__find_symbol() for an entry without a
 * symbol: it passes the raw address, not the map-relative one its
 * symbols are keyed on, so in a non-PIE executable (text mapped above its
 * file offset) it can land in some other function, which perf then
 * exports as the entry's symbol. Elsewhere raw addresses are beyond every
 * symbol and it finds nothing.
 */
static const ps_sym *raw_symbol(sqx *x, const ps_frame *f, uint64_t addr)
{
    return ps_symbols__find_rel(ps_resolver__symbols(x->res), f->map, x->pid, addr);
}

/*
 * db_ids_from_al() for a frame: its dso and symbol (a real one, an inlined
 * function's, or perf's "unknown" one at addr), the offset into it.
 * Nothing when the frame has no map.
 */
static int frame_ids(sqx *x, const ps_frame *f, uint64_t addr, int64_t *dso_id,
                     int64_t *sym_id, uint64_t *off)
{
    const ps_sym *s = f->r.sym, *raw = NULL;
    uint64_t a, b, c, start, end;
    const char *name = "unknown";
    int binding = 0;
    int64_t id;
    frame_memo *m = NULL;

    if (f->map != NULL && f->inl == NULL && x->memo != NULL) {
        m = memo_slot(x, f, addr);
        if (m->dso_id != 0 && m->sym == s && m->dso == f->r.dso &&
            (s != NULL || (m->rel == f->r.rel && m->addr == addr &&
                           m->nr_syms == x->last[T_SYMBOL]))) {
            *dso_id = m->dso_id;
            *sym_id = m->sym_id;
            *off = f->r.rel - (s != NULL ? s->start : m->start);
            return 0;
        }
    }
    *dso_id = *sym_id = 0;
    *off = 0;
    if (f->map == NULL || strcmp(f->r.dso, "[unknown]") == 0)
        return 0;
    if ((*dso_id = export_dso(x, f)) < 0)
        return -1;
    if (f->inl != NULL && s == NULL) {
        /* an addr2line record of perf's "unknown" symbol (unknown_inlines()):
         * a symbol of its own per record, as perf caches them per address */
        a = (uint64_t)*dso_id; b = f->r.rel; c = (uintptr_t)f->src;
    } else if (f->inl != NULL && s != NULL) {
        /* perf keeps a DSO's inline chains by address in the file (every
         * process mapping it shares them), with a symbol per entry */
        a = (uint64_t)*dso_id; b = f->r.rel; c = (uintptr_t)f->src;
    } else if (s != NULL) {
        a = (uintptr_t)s; b = 0; c = 0;
    } else {
        /* perf's lookup at the map-relative address finds an "unknown"
         * symbol made there before; a call chain entry then tries its
         * raw address, and makes one there */
        a = (uint64_t)*dso_id; b = f->r.rel; c = 1;
        if (addr != f->r.rel && k3_get(&x->syms, a, b, c) == 0) {
            b = addr;
            raw = raw_symbol(x, f, addr);
            if (raw != NULL) {
                a = (uintptr_t)raw; b = 0; c = 0;
            }
        }
    }
    start = end = f->inl != NULL && s == NULL ? f->r.rel : b;
    if (f->inl != NULL && s == NULL)
        name = f->inl;
    if (s != NULL || raw != NULL) {
        const ps_sym *y = s != NULL ? s : raw;

        start = y->start;
        end = y->end;
        binding = sym_binding(y);
        name = f->inl != NULL ? f->inl : y->name;
    }
    *off = f->r.rel - start;
    if ((*sym_id = k3_get(&x->syms, a, b, c)) == 0) {
        id = *sym_id = next_id(x, T_SYMBOL);
        if (k3_put(&x->syms, a, b, c, id) < 0)
            return oom(x);
        if (symbol_row(x, id, *dso_id, start, end, binding, name) < 0)
            return -1;
    }
    if (m != NULL)
        *m = (frame_memo){ s, f->r.dso, f->r.rel, addr, start, *dso_id, *sym_id,
                           x->last[T_SYMBOL] };
    return 0;
}

/*
 * dso__find_symbol() at f's map-relative address: *h gets the stale lookup
 * of f's DSO when it answers there (sym_id 0 otherwise); a lookup elsewhere
 * forgets it. Inline entries are no lookups of their own.
 */
static void find_stale(sqx *x, const ps_frame *f, stale_find *h)
{
    size_t i;

    h->sym_id = 0;
    if (x->nr_stale == 0 || f->map == NULL || f->inl != NULL)
        return;
    for (i = 0; i < x->nr_stale; i++) {
        if (x->stale[i].dso != f->r.dso)
            continue;
        if (x->stale[i].at == f->r.rel)
            *h = x->stale[i];
        else
            x->stale[i] = x->stale[--x->nr_stale];
        return;
    }
}

/* perf's last lookup in dso, at at, now answers the unknown symbol sym_id */
static void remember_stale(sqx *x, const char *dso, uint64_t at, uint64_t start,
                           int64_t sym_id)
{
    size_t i;

    for (i = 0; i < x->nr_stale && x->stale[i].dso != dso; i++)
        ;
    if (i == STALE_FINDS)
        i = 0;                  /* more DSOs stale at once than ever seen: one goes */
    else if (i == x->nr_stale)
        x->nr_stale++;
    x->stale[i] = (stale_find){ dso, at, start, sym_id };
}

/* an unknown symbol at start inserted in dso while perf's last lookup there
 * was at at: above start, that lookup goes stale */
static void insert_unknown(sqx *x, const char *dso, uint64_t at, uint64_t start, int64_t sym_id)
{
    if (at > start)
        remember_stale(x, dso, at, start, sym_id);
}

/*
 * A sample's addr at its ip, neither with a symbol: perf looked both up
 * before inserting the ip's unknown symbol, so the addr gets one of its
 * own at the same address, which perf's lookups there then answer (its
 * last one, at, was in the chain or the addr itself).
 */
static int twin_unknown(sqx *x, const ps_frame *f, uint64_t at, int64_t *dso_id,
                        int64_t *sym_id, uint64_t *off)
{
    *off = 0;
    if ((*dso_id = export_dso(x, f)) < 0)
        return -1;
    if ((*sym_id = k3_get(&x->syms, (uint64_t)*dso_id, f->r.rel, 2)) == 0) {
        *sym_id = next_id(x, T_SYMBOL);
        if (k3_put(&x->syms, (uint64_t)*dso_id, f->r.rel, 2, *sym_id) < 0)
            return oom(x);
        if (symbol_row(x, *sym_id, *dso_id, f->r.rel, f->r.rel, 0, "unknown") < 0)
            return -1;
    }
    remember_stale(x, f->r.dso, at > f->r.rel ? at : f->r.rel, f->r.rel, *sym_id);
    return 0;
}

/* frame_ids(), or the ids of the stale lookup h when it answers for f */
static int frame_ids_at(sqx *x, const ps_frame *f, const stale_find *h, uint64_t addr,
                        int64_t *dso_id, int64_t *sym_id, uint64_t *off)
{
    if (h->sym_id == 0)
        return frame_ids(x, f, addr, dso_id, sym_id, off);
    if ((*dso_id = export_dso(x, f)) < 0)
        return -1;
    *sym_id = h->sym_id;
    *off = f->r.rel - h->start;
    return 0;
}

/* 1 when frame_ids() of f just made an unknown symbol (perf's lookup found
 * none), nr_syms being the symbols made before */
static int made_unknown(const sqx *x, const ps_frame *f, const stale_find *h, int64_t nr_syms)
{
    return h->sym_id == 0 && f->map != NULL && f->r.sym == NULL && f->inl == NULL &&
           x->last[T_SYMBOL] > nr_syms;
}

/* --- call paths ------------------------------------------------------------------ */

/* parent's entry in x->children; NULL when it has none (out of memory) */
static path_memo *children_of(sqx *x, int64_t parent)
{
    size_t i, n = x->nr_children;

    if (x->path_base < 0)
        x->path_base = x->last[T_CALL_PATH];
    if (parent <= x->path_base)
        return NULL;
    i = (size_t)(parent - x->path_base);
    if (i >= n) {
        if (ps_grow((void **)&x->children, &x->nr_children, i + 1, sizeof(path_memo)) < 0)
            return NULL;
        memset(x->children + n, 0, (x->nr_children - n) * sizeof(path_memo));
    }
    return &x->children[i];
}

static int64_t call_path(sqx *x, int64_t parent, int64_t sym_id, uint64_t ip)
{
    path_memo *m = children_of(x, parent);
    int64_t id;

    if (m != NULL && m->child != 0 && m->sym_id == sym_id && m->ip == ip)
        return m->child;
    if ((id = k3_get(&x->paths, (uint64_t)parent, (uint64_t)sym_id, ip)) == 0) {
        id = next_id(x, T_CALL_PATH);
        if (k3_put(&x->paths, (uint64_t)parent, (uint64_t)sym_id, ip, id) < 0)
            return oom(x);
        if (sqdb_row(x->d, x->st[T_CALL_PATH], "iiiu", id, parent, sym_id, ip) < 0)
            return -1;
    }
    if ((m = children_of(x, parent)) != NULL)      /* it may have moved */
        *m = (path_memo){ sym_id, id, ip };
    return id;
}

/*
 * A thread's samples mostly share the root part of their call chains; the
 * last one's (sqlite_chain.h) answers for that part:
 * - a frame with a symbol always gets the same ids; one without gets an
 *   "unknown" symbol that depends on those made before (frame_ids()), so
 *   its link holds while no symbol was made since;
 * - a raw entry resolves to the same frame while nothing changed what an
 *   address is: no record but samples came (maps, threads), no symbol was
 *   made, the kernel symbols are as they were (the resolver loads them on
 *   first use, and its kernel map grows then). Only for chains resolved one
 *   frame per entry (no LBR call stack, no unwinding, no frame dropped).
 */

/* link l gives frame f its ids and call path, as frame_ids() and
 * call_path() would */
static int link_matches(const sqx *x, const sqch_link *l, const ps_frame *f)
{
    if (l->sym != f->r.sym || l->map != f->map || l->dso != f->r.dso || l->inl != f->inl)
        return 0;
    if (l->sym != NULL && l->inl == NULL && l->sym_id != 0)
        return 1;               /* the symbol alone decides */
    return l->ip == f->ip && l->rel == f->r.rel &&
           (l->sym != NULL || l->nr_syms == x->last[T_SYMBOL]);
}

/* frame f at depth d of chain c (whose shallower links are this sample's):
 * its call path below parent */
static int64_t chain_step(sqx *x, sqch *c, size_t d, const ps_frame *f, int64_t parent)
{
    int64_t dso_id, sym_id, cp;
    uint64_t off;
    stale_find h;

    find_stale(x, f, &h);
    x->stale_hit |= h.sym_id != 0;
    if (frame_ids_at(x, f, &h, f->ip, &dso_id, &sym_id, &off) < 0 ||
        /* perf tells frames with a symbol apart by it alone */
        (cp = call_path(x, parent, sym_id, sym_id ? 0 : f->ip)) < 0)
        return -1;
    c->l[d] = (sqch_link){ f->map, f->r.dso, f->inl, f->r.sym, f->ip, f->r.rel, sym_id, cp,
                           x->last[T_SYMBOL] };
    return cp;
}

/* what a raw chain's answers depend on, now */
static void chain_stamp(const sqx *x, uint64_t *stamp)
{
    uint64_t start = 0, end = 0;

    ps_symbols__kernel_extent(ps_resolver__symbols(x->res), &start, &end);
    stamp[0] = x->nr_records;
    stamp[1] = (uint64_t)x->last[T_SYMBOL];
    stamp[2] = start;
    stamp[3] = end;
}

/* 1 when smp's chain resolves to a frame per raw entry (but its context
 * markers), none added (LBR, unwinding) and none dropped (max_stack) */
static int one_per_entry(const ps_sample *smp, uint64_t branch_sample_type, unsigned max_stack)
{
    return !((branch_sample_type & PERF_SAMPLE_BRANCH_CALL_STACK) &&
             (smp->sample_type & PERF_SAMPLE_BRANCH_STACK)) &&
           !ps_unwind__wanted(smp) && smp->nr_callchain <= max_stack;
}

/*
 * The frames of smp's chain that c's last one does not answer for: into
 * *frames (leaf first), their number returned; *keep gets the number of
 * c's links (root first) that are this chain's too.
 */
static size_t chain_frames(sqx *x, walk *w, const ps_event *ev, sqch *c, int plain,
                           const uint64_t *stamp, const ps_frame **frames, size_t *keep)
{
    const ps_sample *smp = &ev->u.sample;
    uint64_t bst = ev->evsel->attr.branch_sample_type;
    size_t n = 0, s = smp->nr_callchain;
    ps_sample leaf;

    *keep = 0;
    if (plain)
        s = sqch_shared(c, smp->callchain, smp->nr_callchain, stamp, keep);
    if (s == smp->nr_callchain)
        return ps_resolver__frames(x->res, smp, bst, walk_max_stack(w), frames);
    leaf = *smp;
    leaf.nr_callchain = s;
    if (s > 0 && (n = ps_resolver__frames(x->res, &leaf, bst, walk_max_stack(w), frames)) == 0) {
        /* markers alone, or one perf rejects (then it drops the chain) */
        *keep = 0;
        return ps_resolver__frames(x->res, smp, bst, walk_max_stack(w), frames);
    }
    return n;
}

/* 1 when perf's db-export made its "unknown" symbol at f's address */
static int has_unknown(const sqx *x, const ps_frame *f)
{
    int64_t dso_id = k3_get(&x->dsos, (uintptr_t)f->r.dso, 0, 0);

    return dso_id != 0 && k3_get(&x->syms, (uint64_t)dso_id, f->r.rel, 1) != 0;
}

/*
 * perf resolves an unwound frame's symbol by its map-relative address, and
 * finds there the zero-size "unknown" symbol db_ids_from_al() inserted in
 * the DSO for an earlier export (the sample's own ip, or an entry); then
 * unwind_entry()'s append_inlines() asks addr2line, and each record it gets
 * becomes an entry whose symbol is the record's function with the unknown
 * symbol's (empty) range: on a stripped file addr2line names the nearest
 * preceding .dynsym symbol (_obstack_memory_used in /usr/bin/ls). frames
 * [0, *n) leaf first; the result in x->xf. -1 when out of memory.
 */
static int unknown_inlines(sqx *x, const ps_sample *smp, const ps_frame **frames, size_t *n)
{
    const char *names[64];
    const ps_srcloc *loc;
    size_t i, j, nr, out = 0;

    if (!ps_unwind__wanted(smp))
        return 0;
    for (i = 0; i < *n; i++) {
        const ps_frame *f = &(*frames)[i];

        nr = 0;
        if (f->map != NULL && f->r.sym == NULL && f->inl == NULL &&
            f->cpumode == PERF_RECORD_MISC_USER && has_unknown(x, f))
            nr = ps_resolver__inlines(x->res, f, &loc, names, 64);
        if (ps_grow((void **)&x->xf, &x->nr_xf, out + (nr ? nr : 1), sizeof(ps_frame)) < 0)
            return oom(x);
        if (nr == 0) {
            x->xf[out++] = *f;
            continue;
        }
        for (j = 0; j < nr; j++) {
            ps_frame *e = &x->xf[out++];

            *e = *f;
            e->src = &loc[j];
            /* perf reuses the unknown symbol for a record of that name */
            e->inl = strcmp(names[j], "unknown") == 0 ? NULL : names[j];
        }
    }
    *frames = x->xf;
    *n = out;
    return 0;
}

/*
 * Where perf's last lookup in dso was when call_path_from_sample() ended
 * (chain c, root first): at the raw address of the leafmost entry there
 * without a symbol (looked up again by it, after the other entries), else
 * at the leafmost entry there. 0 when the chain has none there.
 */
static int chain_last_find(const sqch *c, const char *dso, uint64_t *at)
{
    size_t i;
    int found = 0;

    for (i = c->nr; i-- > 0;) {
        const sqch_link *l = &c->l[i];

        if (l->dso != dso || l->map == NULL || l->inl != NULL)
            continue;
        if (l->sym == NULL) {
            *at = l->ip;
            return 1;
        }
        if (!found) {
            *at = l->rel;
            found = 1;
        }
    }
    return found;
}

/*
 * call_path_from_sample(): the chain root first into the tree; its leaf.
 * *last gets where perf's last lookup in adso was then (chain_last_find();
 * 0: no entry there).
 */
static int64_t sample_call_path(sqx *x, walk *w, const ps_event *ev, const char *adso,
                                uint64_t *last)
{
    const ps_sample *smp = &ev->u.sample;
    sqch *c = sqch_of(&x->chains, smp->pid, smp->tid);
    int plain = one_per_entry(smp, ev->evsel->attr.branch_sample_type, walk_max_stack(w));
    uint64_t stamp[SQCH_STAMP] = { 0 }, after[SQCH_STAMP] = { 0 };
    const ps_frame *frames;
    int64_t cp;
    size_t i, d, n, keep;

    *last = 0;
    if (!walk_use_callchain(w) || !(smp->sample_type & PERF_SAMPLE_CALLCHAIN))
        return 0;
    if (x->nr_stale > 0)
        c->nr = c->nr_raw = 0;  /* every entry is a lookup that may meet one */
    if (plain)
        chain_stamp(x, stamp);
    n = chain_frames(x, w, ev, c, plain, stamp, &frames, &keep);
    if (!plain && unknown_inlines(x, smp, &frames, &n) < 0)
        return -1;
    if (n + keep == 0) {
        c->nr = c->nr_raw = 0;
        return 0;
    }
    if (x->root_path == 0 && (x->root_path = call_path(x, 0, 0, 0)) < 0)
        return -1;
    if (sqch_reserve(c, keep + n) < 0)
        return oom(x);
    /* frames[i] is at depth keep + n - 1 - i */
    for (d = keep; d < keep + n && d < c->nr; d++) {
        const ps_frame *f = &frames[keep + n - 1 - d];

        if (!link_matches(x, &c->l[d], f))
            break;
        /* a symbol's link matches at any address: chain_last_find() wants
         * this frame's */
        c->l[d].ip = f->ip;
        c->l[d].rel = f->r.rel;
    }
    cp = d > 0 ? c->l[d - 1].cp : x->root_path;
    c->nr = c->nr_raw = 0;
    for (i = keep + n - d; i-- > 0; d++)
        if ((cp = chain_step(x, c, d, &frames[i], cp)) < 0)
            return -1;
    c->nr = keep + n;
    /* the answers hold for the next sample only if nothing changed while
     * they were made */
    if (plain)
        chain_stamp(x, after);
    if (sqch_set_raw(c, smp->callchain, plain && memcmp(stamp, after, sizeof(after)) == 0
                                        ? smp->nr_callchain : 0, stamp) < 0)
        return oom(x);
    if (adso != NULL && !chain_last_find(c, adso, last))
        *last = 0;
    if (x->stale_hit)
        c->nr = c->nr_raw = 0;  /* those ids are not the frames' own */
    x->stale_hit = 0;
    return cp;
}

/* --- samples -------------------------------------------------------------------- */

/* sample_addr_correlates_sym(): page faults and BTS have a symbol at addr */
static int addr_has_symbol(const ps_attr *a)
{
    if (a->type == PERF_TYPE_SOFTWARE)
        return a->config == PERF_COUNT_SW_PAGE_FAULTS ||
               a->config == PERF_COUNT_SW_PAGE_FAULTS_MIN ||
               a->config == PERF_COUNT_SW_PAGE_FAULTS_MAJ;
    return a->type == PERF_TYPE_HARDWARE && a->config == PERF_COUNT_HW_BRANCH_INSTRUCTIONS &&
           a->sample_period == 1 && !ps_attr_flag(a, PS_ATTR_FREQ);
}

/*
 * thread__resolve() of the sample's addr: in the sample's cpumode, then in
 * the one the address implies (perf_env__single_address_space() holds on
 * every arch but sparc, so thread__find_map_fb() falls back).
 */
static void addr_frame(sqx *x, const ps_sample *smp, unsigned cpumode, ps_frame *f)
{
    unsigned mode = smp->addr >= ps_machine__kernel_start(ps_resolver__machine(x->res))
                    ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;

    ps_resolver__addr(x->res, smp->pid, smp->tid, smp->time, cpumode, smp->addr, f);
    if (f->map == NULL && mode != cpumode &&
        (cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_USER))
        ps_resolver__addr(x->res, smp->pid, smp->tid, smp->time, mode, smp->addr, f);
}

static void update_comm_exec(sqx *x, ps_session *s)
{
    size_t i, n = ps_session_nr_evsels(s);

    for (i = 0; i < n && !x->comm_exec; i++)
        x->comm_exec = ps_attr_flag(&ps_session_evsel(s, i)->attr, PS_ATTR_COMM_EXEC);
    /* perf reads the id trailer of every record as the first event's */
    if (n > 0) {
        const ps_attr *a = &ps_session_evsel(s, 0)->attr;

        x->timeless = !ps_attr_flag(a, PS_ATTR_SAMPLE_ID_ALL) ||
                      !(a->sample_type & PERF_SAMPLE_TIME);
    }
}

/*
 * The sample's thread (index) and its comms.id, with their rows exported.
 * The answers for the last sample hold for the next one of the same
 * thread while no record came (threads, comms), no thread was made and
 * comm_exec is as it was: then nothing is exported either.
 */
static int sample_threads(sqx *x, uint32_t pid, uint32_t tid, long *t, int64_t *comm_id)
{
    thread_memo *m = &x->last_thread[tid % THREAD_MEMOS];
    long main;

    if (m->t >= 0 && m->pid == pid && m->tid == tid && m->nr_records == x->nr_records &&
        m->nr_threads == x->nr_threads && m->comm_exec == x->comm_exec) {
        *t = m->t;
        *comm_id = m->comm_id;
        return 0;
    }
    m->t = -1;
    if ((*t = sample_thread(x, pid, tid)) < 0 || (main = main_thread(x, *t)) == -1 ||
        export_threads(x, *t, main, comm_id) < 0)
        return -1;
    *m = (thread_memo){ pid, tid, x->nr_records, x->nr_threads, x->comm_exec, *t, *comm_id };
    return 0;
}

int sqx_sample(sqx *x, walk *w, const ps_event *ev, const ps_evsel *e, uint64_t period,
               int64_t *sample_id)
{
    const ps_sample *smp = &ev->u.sample;
    unsigned cpumode = ev->misc & PERF_RECORD_MISC_CPUMODE_MASK;
    int64_t evsel_id, comm_id, dso_id, sym_id, to_dso = 0, to_sym = 0, cp, id;
    uint64_t off, to_off = 0, weight = smp->weight, last;
    int64_t nr_syms;
    int has_addr = (smp->sample_type & PERF_SAMPLE_ADDR) && addr_has_symbol(&e->attr);
    int twin = 0;
    long t;
    ps_frame f, fa;
    stale_find hip, ha = { 0 };

    update_comm_exec(x, walk_session(w));
    if ((evsel_id = export_evsel(x, e)) < 0 || sqx_machine_id(x) < 0 ||
        sample_threads(x, smp->pid, smp->tid, &t, &comm_id) < 0)
        return -1;
    id = *sample_id = next_id(x, T_SAMPLE);
    x->pid = smp->pid;
    /* perf looks up the ip, then the addr, before it exports either */
    ps_resolver__addr(x->res, smp->pid, smp->tid, smp->time, cpumode, smp->ip, &f);
    find_stale(x, &f, &hip);
    if (has_addr) {
        addr_frame(x, smp, cpumode, &fa);
        find_stale(x, &fa, &ha);
    }
    nr_syms = x->last[T_SYMBOL];
    if (frame_ids_at(x, &f, &hip, f.r.rel, &dso_id, &sym_id, &off) < 0)
        return -1;
    if (has_addr && fa.map != NULL && made_unknown(x, &f, &hip, nr_syms) && fa.r.dso == f.r.dso) {
        insert_unknown(x, f.r.dso, fa.r.rel, f.r.rel, sym_id);
        twin = fa.r.rel == f.r.rel && fa.inl == NULL && ha.sym_id == 0;
    }
    if ((cp = sample_call_path(x, w, ev, has_addr && fa.map ? fa.r.dso : NULL, &last)) < 0)
        return -1;
    if (has_addr) {
        nr_syms = x->last[T_SYMBOL];
        if (twin ? twin_unknown(x, &fa, last, &to_dso, &to_sym, &to_off) < 0
                 : frame_ids_at(x, &fa, &ha, fa.r.rel, &to_dso, &to_sym, &to_off) < 0)
            return -1;
        if (!twin && last != 0 && made_unknown(x, &fa, &ha, nr_syms))
            insert_unknown(x, fa.r.dso, last, fa.r.rel, to_sym);
    }
    if (smp->sample_type & PERF_SAMPLE_WEIGHT_STRUCT)
        weight &= 0xffffffff;           /* perf keeps var1_dw as the weight */
    {
        int64_t v[] = {
            id, evsel_id, x->machine_id, x->threads[t].id, comm_id, dso_id, sym_id,
            (int64_t)off, (int64_t)smp->ip,
            (smp->sample_type & PERF_SAMPLE_TIME) ? (int64_t)smp->time : -1,
            (int)smp->cpu, to_dso, to_sym, (int64_t)to_off, (int64_t)smp->addr,
            (int64_t)period, (int64_t)weight, (int64_t)smp->transaction,
            (smp->sample_type & PERF_SAMPLE_DATA_SRC) ? (int64_t)smp->data_src
                                                      : PERF_MEM_DATA_SRC_NONE,
            cp
        };

        return sqdb_ints(x->d, x->st[T_SAMPLE], v, sizeof(v) / sizeof(v[0]), 0);
    }
}

/* --- context switches -------------------------------------------------------------- */

/* db_export__pid_tid(): a known thread with a comm, exported */
static int switch_side(sqx *x, uint32_t pid, uint32_t tid, int64_t *th_id, int64_t *comm_id,
                       int *idle)
{
    long t = find_thread(x, pid, tid), main;

    if (t == -1)
        return -1;
    if (t < 0 || x->threads[t].th == NULL || !x->threads[t].th->comm_set)
        return 0;
    *idle = x->threads[t].pid == 0 && x->threads[t].tid == 0;
    if ((main = main_thread(x, t)) == -1 || export_threads(x, t, main, comm_id) < 0)
        return -1;
    *th_id = x->threads[t].id;
    return 0;
}

static int note_fork(sqx *x, const ps_event *ev)
{
    const ps_thread *th;

    if (!ev->has_sample_id || !(ev->sample_id.present & PERF_SAMPLE_TIME) ||
        ev->sample_id.time == 0 ||
        (th = ps_machine__thread(ps_resolver__machine(x->res), ev->u.fork.pid,
                                 ev->u.fork.tid, NOW)) == NULL ||
        k3_get(&x->fork_time, (uintptr_t)th, 0, 0) != 0)
        return 0;
    return k3_put(&x->fork_time, (uintptr_t)th, 0, 0, (int64_t)ev->sample_id.time) < 0 ? oom(x)
                                                                                     : 0;
}

int sqx_record(sqx *x, walk *w, const ps_event *ev)
{
    const ps_sample_id *sid = &ev->sample_id;
    uint64_t has = ev->has_sample_id ? sid->present : 0;
    int out = (ev->misc & PERF_RECORD_MISC_SWITCH_OUT) != 0;
    int flags = out | (out && (ev->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) ? 2 : 0);
    int64_t th[2] = { 0, 0 }, comm[2] = { 0, 0 };
    int idle[2] = { 0, 0 }, a = out ? 0 : 1;

    if (ev->type != PS_RECORD_FINISHED_ROUND)
        x->nr_records++;        /* the chains' answers may not hold (sample_call_path()) */
    if (ev->type == PERF_RECORD_FORK)
        return note_fork(x, ev);
    if (ev->type != PERF_RECORD_SWITCH && ev->type != PERF_RECORD_SWITCH_CPU_WIDE)
        return 0;
    update_comm_exec(x, walk_session(w));
    if (sqx_machine_id(x) < 0 ||
        switch_side(x, (has & PERF_SAMPLE_TID) ? sid->pid : UINT32_MAX,
                    (has & PERF_SAMPLE_TID) ? sid->tid : UINT32_MAX,
                    &th[a], &comm[a], &idle[a]) < 0)
        return -1;
    if (ev->type == PERF_RECORD_SWITCH_CPU_WIDE &&
        switch_side(x, ev->u.switch_cpu_wide.next_prev_pid, ev->u.switch_cpu_wide.next_prev_tid,
                    &th[1 - a], &comm[1 - a], &idle[1 - a]) < 0)
        return -1;
    /* neither side traced, or one unknown and the other idle */
    if ((th[0] == 0 || idle[0]) && (th[1] == 0 || idle[1]))
        return 0;
    return sqdb_row(x->d, x->st[T_SWITCH], "iiudiiiid", next_id(x, T_SWITCH), x->machine_id,
                    (has & PERF_SAMPLE_TIME) ? sid->time : UINT64_MAX,
                    (has & PERF_SAMPLE_CPU) ? (int)sid->cpu : -1,
                    th[0], comm[0], th[1], comm[1], flags);
}
