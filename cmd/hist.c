/* SPDX-License-Identifier: MIT */
/*
 * hist.c - rows by sort keys (hist.h): an open-addressing table over a
 * growing array of rows, strings interned once per table, perf's tie order
 * and the text of the key columns (perf report --stdio's widths and
 * formats: "%7d:%-*s" for pid, "[k] " before symbols, 16 hex digits for an
 * unresolved address).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "hist.h"
#include "diff_shape.h"
#include "rbshape.h"
#include "../libparse/u64map.h"
#include "../libparse/util.h"

/* --- interned strings ------------------------------------------------------ */

struct hist_strs {
    char  **v;
    size_t  n, nslots;
};

static uint64_t hash_str(uint64_t h, const char *s)
{
    for (; s != NULL && *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return (h ^ 0xff) * 0x100000001b3ULL;
}

uint64_t hist_hash_str(const char *s)
{
    return hash_str(0xcbf29ce484222325ULL, s);
}

static uint64_t hash_u64(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h * 0x100000001b3ULL;
}

static int strs_grow(struct hist_strs *t)
{
    size_t i, n = t->nslots ? t->nslots * 2 : 256;
    char **v = calloc(n, sizeof(*v));

    if (v == NULL)
        return -1;
    for (i = 0; i < t->nslots; i++) {
        size_t j;

        if (t->v[i] == NULL)
            continue;
        for (j = hash_str(0xcbf29ce484222325ULL, t->v[i]) & (n - 1); v[j]; j = (j + 1) & (n - 1))
            ;
        v[j] = t->v[i];
    }
    free(t->v);
    t->v = v;
    t->nslots = n;
    return 0;
}

const char *hist_str(hist *h, const char *s)
{
    struct hist_strs *t = h->strs;
    size_t j;

    if (s == NULL)
        return NULL;
    if ((t->n + 1) * 2 > t->nslots && strs_grow(t) < 0)
        return NULL;
    for (j = hash_str(0xcbf29ce484222325ULL, s) & (t->nslots - 1); t->v[j];
         j = (j + 1) & (t->nslots - 1))
        if (strcmp(t->v[j], s) == 0)
            return t->v[j];
    if ((t->v[j] = strdup(s)) == NULL)
        return NULL;
    t->n++;
    return t->v[j];
}

/* --- keys ------------------------------------------------------------------ */

static const struct key_name {
    const char *name;
    int         key;
} key_names[] = {
    { "comm", HK_COMM }, { "pid", HK_PID }, { "tid", HK_TID }, { "dso", HK_DSO },
    { "sym", HK_SYM }, { "symbol", HK_SYM }, { "cpu", HK_CPU }, { "trace", HK_TRACE },
    { "srcline", HK_SRCLINE }, { "srcfile", HK_SRCFILE }, { "weight", HK_WEIGHT },
    { "local_weight", HK_LOCAL_WEIGHT }, { "transaction", HK_TRANSACTION },
    { "cgroup", HK_CGROUP }, { "socket", HK_SOCKET },
    { "dso_from", HK_DSO_FROM }, { "dso_to", HK_DSO_TO }, { "symbol_from", HK_SYM_FROM },
    { "symbol_to", HK_SYM_TO }, { "cycles", HK_CYCLES },
};

int hist_keys_parse(hist_keys *k, const char *s, const char **bad, size_t *bad_len)
{
    memset(k, 0, sizeof(*k));
    while (*s) {
        size_t len = strcspn(s, ","), i;

        for (i = 0; i < sizeof(key_names) / sizeof(key_names[0]); i++)
            if (strlen(key_names[i].name) == len && strncmp(key_names[i].name, s, len) == 0)
                break;
        if (i == sizeof(key_names) / sizeof(key_names[0]) || len == 0) {
            *bad = s;
            *bad_len = len;
            return -1;
        }
        if (!hist_keys_has(k, key_names[i].key))
            k->k[k->n++] = (unsigned char)key_names[i].key;
        s += len;
        if (*s == ',')
            s++;
    }
    if (k->n == 0) {
        *bad = s;
        *bad_len = 0;
        return -1;
    }
    return 0;
}

int hist_keys_has(const hist_keys *k, int key)
{
    int i;

    for (i = 0; i < k->n; i++)
        if (k->k[i] == key)
            return 1;
    return 0;
}

static int branch_key(int key)
{
    return key >= HK_DSO_FROM && key <= HK_CYCLES;
}

int hist_keys_branch(const hist_keys *k)
{
    int i;

    for (i = 0; i < k->n; i++)
        if (branch_key(k->k[i]))
            return 1;
    return 0;
}

void hist_keys_add_ipc(hist_keys *k)
{
    if (!hist_keys_has(k, HK_IPC) && k->n < HK_MAX)
        k->k[k->n++] = HK_IPC;
}

/* --- the table ------------------------------------------------------------- */

int hist_init(hist *h, const char *name, const hist_keys *keys, int by_name)
{
    memset(h, 0, sizeof(*h));
    h->keys = *keys;
    h->by_name = by_name;
    if ((h->strs = calloc(1, sizeof(*h->strs))) == NULL ||
        (h->name = strdup(name ? name : "[unknown]")) == NULL)
        return -1;
    return 0;
}

void hist_free(hist *h)
{
    size_t i;

    if (h->strs != NULL) {
        for (i = 0; i < h->strs->nslots; i++)
            free(h->strs->v[i]);
        free(h->strs->v);
        free(h->strs);
    }
    free(h->name);
    diff_shape_free(h->shape);
    free(h->group_v);
    free(h->group_ns);
    free(h->group_acc);
    free(h->group_name);
    for (i = 0; i < h->n; i++) {
        cc_free(h->v[i].chain);
        free((void *)h->v[i].it.br);
    }
    free(h->v);
    free(h->slots);
    memset(h, 0, sizeof(*h));
}

static int str_eq(const char *a, const char *b)
{
    return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* A branch end's symbol key as perf's sort__sym_from_cmp() has it: two
 * unresolved ends by their recorded addresses, then symbols before none,
 * then symbols by start and end (perf's _sort__sym_cmp(): two symbols at
 * the same place are one), each by the sign of the difference. */
static int end_sym_cmp(const hist_end *a, const hist_end *b)
{
    int64_t d;

    if (a->sym == NULL && b->sym == NULL)
        d = (int64_t)(a->addr - b->addr);
    else if (a->sym == NULL || b->sym == NULL)
        return a->sym != NULL ? -1 : 1;
    else if (a->sym_start != b->sym_start)
        d = (int64_t)(a->sym_start - b->sym_start);
    else
        d = (int64_t)(a->sym_end - b->sym_end);
    return (d > 0) - (d < 0);
}

/* perf's _sort__dso_cmp() unswapped, as its branch keys call it: no DSO
 * first, then names descending */
static int end_dso_cmp(const char *a, const char *b)
{
    if (a == NULL || b == NULL)
        return (a != NULL) - (b != NULL);
    return strcmp(b, a);
}

/* The order of a branch key (perf's se_cmp: its trees and its output
 * alike); cycles descending. 0 for another key. */
static int branch_cmp(int key, const hist_item *a, const hist_item *b)
{
    const hist_branch *x = a->br, *y = b->br;

    if (x == NULL || y == NULL)
        return (x != NULL) - (y != NULL);
    switch (key) {
    case HK_DSO_FROM: return end_dso_cmp(x->from.dso, y->from.dso);
    case HK_DSO_TO: return end_dso_cmp(x->to.dso, y->to.dso);
    case HK_SYM_FROM: return end_sym_cmp(&x->from, &y->from);
    case HK_SYM_TO: return end_sym_cmp(&x->to, &y->to);
    case HK_CYCLES: return (x->cycles < y->cycles) - (x->cycles > y->cycles);
    }
    return 0;
}

static uint64_t hash_end(uint64_t x, const hist_end *e)
{
    return e->sym != NULL ? hash_u64(hash_u64(x, e->sym_start), e->sym_end)
                          : hash_u64(x ^ 1, e->addr);
}

static uint64_t hash_branch(uint64_t x, int key, const hist_branch *b)
{
    if (b == NULL)
        return hash_u64(x, 0);
    switch (key) {
    case HK_DSO_FROM: return hash_str(x, b->from.dso);
    case HK_DSO_TO: return hash_str(x, b->to.dso);
    case HK_SYM_FROM: return hash_end(x, &b->from);
    case HK_SYM_TO: return hash_end(x, &b->to);
    case HK_CYCLES: return hash_u64(x, b->cycles);
    }
    return x;
}

/* perf's sort__sym_cmp(), the IPC column's: unresolved rows by the sign
 * of their addresses' difference, then DSOs (none last), then symbols
 * before none, by start (inlined ones by name the other way) */
static int ipc_cmp(const hist_item *a, const hist_item *b)
{
    int c;

    if (a->sym == NULL && b->sym == NULL) {
        int64_t d = (int64_t)(a->ip - b->ip);

        return (d > 0) - (d < 0);
    }
    if ((c = (a->dso == NULL || b->dso == NULL) ? (a->dso == NULL) - (b->dso == NULL)
                                                : strcmp(a->dso, b->dso)) != 0)
        return c;
    if (a->sym == NULL || b->sym == NULL)
        return a->sym != NULL ? -1 : 1;
    if ((a->inlined || b->inlined) && strcmp(a->sym, b->sym) != 0)
        return strcmp(b->sym, a->sym);
    return (a->sym_start > b->sym_start) - (a->sym_start < b->sym_start);
}

/* The numeric keys in perf's output order: weight descending (perf's
 * local_weight compares left - right), the others ascending. */
static int num_key_cmp(int key, const hist_item *a, const hist_item *b)
{
    switch (key) {
    case HK_WEIGHT: case HK_LOCAL_WEIGHT: return (a->weight < b->weight) - (a->weight > b->weight);
    case HK_TRANSACTION: return (a->transaction > b->transaction) - (a->transaction < b->transaction);
    case HK_CGROUP: return (a->cgroup > b->cgroup) - (a->cgroup < b->cgroup);
    case HK_SOCKET: return (a->socket > b->socket) - (a->socket < b->socket);
    default: return 0;
    }
}

/* perf's text of a cgroup id: its path from the CGROUP records, "unknown"
 * without one, "N/A" for none (0) */
static const char *cgroup_text(const hist_item *it)
{
    return it->cgroup == 0 ? "N/A" : it->cgroup_name != NULL ? it->cgroup_name : "unknown";
}

/* perf's transaction column: its flags' names, "NEITHER " when neither
 * sync nor async, ":" and the abort code in hex; always this wide */
enum { TXN_WIDTH = 27 };
static void txn_text(char *buf, size_t size, uint64_t t)
{
    static const struct { uint64_t flag; const char *name; } bits[] = {
        { 1u << 0, "EL " }, { 1u << 1, "TX " }, { 1u << 2, "SYNC " }, { 1u << 3, "ASYNC " },
        { 1u << 4, "RETRY " }, { 1u << 5, "CON " }, { 1u << 6, "CAP-WRITE " },
        { 1u << 7, "CAP-READ " },
    };
    size_t at = 0, i;

    buf[0] = '\0';
    for (i = 0; i < sizeof(bits) / sizeof(bits[0]) && at < size; i++)
        if (t & bits[i].flag)
            at += (size_t)snprintf(buf + at, size - at, "%s", bits[i].name);
    if (t != 0 && !(t & (1u << 2 | 1u << 3)) && at < size)
        at += (size_t)snprintf(buf + at, size - at, "NEITHER ");
    if ((t >> 32) != 0 && at < size)    /* PERF_TXN_ABORT_MASK */
        snprintf(buf + at, size - at, ":%" PRIx64, t >> 32);
}

/* Whether it and the row's item are the same row under the keys. */
static int same(const hist *h, const hist_item *a, const hist_item *b)
{
    int i;

    for (i = 0; i < h->keys.n; i++) {
        switch (h->keys.k[i]) {
        case HK_DSO_FROM: case HK_DSO_TO: case HK_SYM_FROM: case HK_SYM_TO: case HK_CYCLES:
            if (branch_cmp(h->keys.k[i], a, b) != 0)
                return 0;
            break;
        case HK_COMM: if (!str_eq(a->comm, b->comm)) return 0; break;
        case HK_PID: case HK_TID: if (a->tid != b->tid) return 0; break;
        case HK_CPU: if (a->cpu != b->cpu) return 0; break;
        case HK_DSO: if (!str_eq(a->dso, b->dso)) return 0; break;
        case HK_TRACE: if (!str_eq(a->trace, b->trace)) return 0; break;
        case HK_SRCLINE: if (!str_eq(a->srcline, b->srcline)) return 0; break;
        case HK_SRCFILE: if (!str_eq(a->srcfile, b->srcfile)) return 0; break;
        case HK_WEIGHT: case HK_LOCAL_WEIGHT: if (a->weight != b->weight) return 0; break;
        case HK_TRANSACTION: if (a->transaction != b->transaction) return 0; break;
        case HK_CGROUP: if (a->cgroup != b->cgroup) return 0; break;
        case HK_SOCKET: if (a->socket != b->socket) return 0; break;
        case HK_IPC:
            if (ipc_cmp(a, b) != 0)
                return 0;
            break;
        case HK_SYM:
            if ((a->sym == NULL) != (b->sym == NULL) || a->inlined != b->inlined)
                return 0;
            if (h->by_name) {
                if (a->sym != NULL && strcmp(a->sym, b->sym) != 0)
                    return 0;
            } else if (a->sym != NULL ? a->sym_start != b->sym_start || strcmp(a->sym, b->sym)
                                      : a->ip != b->ip) {
                return 0;
            }
            /* perf report compares symbols within their DSO, perf diff not */
            if (!h->by_name && !hist_keys_has(&h->keys, HK_DSO) && !str_eq(a->dso, b->dso))
                return 0;
            break;
        }
    }
    return 1;
}

/* the hash of it's first nkeys keys */
static uint64_t hash_keys(const hist *h, const hist_item *it, int nkeys)
{
    uint64_t x = 0xcbf29ce484222325ULL;
    int i;

    for (i = 0; i < nkeys; i++) {
        switch (h->keys.k[i]) {
        case HK_DSO_FROM: case HK_DSO_TO: case HK_SYM_FROM: case HK_SYM_TO: case HK_CYCLES:
            x = hash_branch(x, h->keys.k[i], it->br);
            break;
        case HK_COMM: x = hash_str(x, it->comm); break;
        case HK_PID: case HK_TID: x = hash_u64(x, (uint32_t)it->tid); break;
        case HK_CPU: x = hash_u64(x, (uint32_t)it->cpu); break;
        case HK_DSO: x = hash_str(x, it->dso); break;
        case HK_TRACE: x = hash_str(x, it->trace); break;
        case HK_SRCLINE: x = hash_str(x, it->srcline); break;
        case HK_SRCFILE: x = hash_str(x, it->srcfile); break;
        case HK_WEIGHT: case HK_LOCAL_WEIGHT: x = hash_u64(x, it->weight); break;
        case HK_TRANSACTION: x = hash_u64(x, it->transaction); break;
        case HK_CGROUP: x = hash_u64(x, it->cgroup); break;
        case HK_SOCKET: x = hash_u64(x, (uint32_t)it->socket); break;
        case HK_IPC: x = it->sym ? hash_str(x, it->sym) : hash_u64(x, it->ip); break;
        case HK_SYM:
            x = it->sym ? hash_str(x, it->sym) : h->by_name ? hash_u64(x, 1) : hash_u64(x, it->ip);
            break;
        }
    }
    return x;
}

static uint64_t hash_item(const hist *h, const hist_item *it)
{
    return hash_keys(h, it, h->keys.n);
}

static int slots_grow(hist *h)
{
    size_t i, n = h->nslots ? h->nslots * 2 : 1024;
    uint32_t *s = calloc(n, sizeof(*s));

    if (s == NULL)
        return -1;
    for (i = 0; i < h->n; i++) {
        size_t j;

        for (j = hash_item(h, &h->v[i].it) & (n - 1); s[j]; j = (j + 1) & (n - 1))
            ;
        s[j] = (uint32_t)i + 1;
    }
    free(h->slots);
    h->slots = s;
    h->nslots = n;
    return 0;
}

static size_t slot_of(const hist *h, const hist_item *it, uint64_t x)
{
    size_t j;

    for (j = x & (h->nslots - 1); h->slots[j]; j = (j + 1) & (h->nslots - 1))
        if (same(h, it, &h->v[h->slots[j] - 1].it))
            break;
    return j;
}

hist_entry *hist_find(const hist *h, const hist_item *it)
{
    size_t j;

    if (h->nslots == 0)
        return NULL;
    j = slot_of(h, it, hash_item(h, it));
    return h->slots[j] ? &h->v[h->slots[j] - 1] : NULL;
}

/* A copy of b owned by a row of h, its strings interned; NULL out of memory. */
static hist_branch *branch_copy(hist *h, const hist_branch *b)
{
    hist_branch *c = malloc(sizeof(*c));

    if (c == NULL)
        return NULL;
    *c = *b;
    if ((b->from.dso && (c->from.dso = hist_str(h, b->from.dso)) == NULL) ||
        (b->from.sym && (c->from.sym = hist_str(h, b->from.sym)) == NULL) ||
        (b->to.dso && (c->to.dso = hist_str(h, b->to.dso)) == NULL) ||
        (b->to.sym && (c->to.sym = hist_str(h, b->to.sym)) == NULL)) {
        free(c);
        return NULL;
    }
    return c;
}

/* a new row for it, its strings interned */
static hist_entry *insert(hist *h, const hist_item *it, size_t j)
{
    hist_entry *e;

    if (h->n >= UINT32_MAX - 1 || ps_grow((void **)&h->v, &h->cap, h->n + 1, sizeof(*h->v)) < 0)
        return NULL;
    e = &h->v[h->n];
    memset(e, 0, sizeof(*e));
    e->it = *it;
    e->pair = -1;
    e->hidden = h->hide_new;
    if ((it->comm && (e->it.comm = hist_str(h, it->comm)) == NULL) ||
        (it->dso && (e->it.dso = hist_str(h, it->dso)) == NULL) ||
        (it->sym && (e->it.sym = hist_str(h, it->sym)) == NULL) ||
        (it->trace && (e->it.trace = hist_str(h, it->trace)) == NULL) ||
        (it->srcline && (e->it.srcline = hist_str(h, it->srcline)) == NULL) ||
        (it->srcfile && (e->it.srcfile = hist_str(h, it->srcfile)) == NULL) ||
        (it->br && (e->it.br = branch_copy(h, it->br)) == NULL))
        return NULL;
    ++h->n;
    if (!h->slots[j])           /* a row hist_append() adds beside an equal one
                                 * is not found by item */
        h->slots[j] = (uint32_t)h->n;
    return e;
}

hist_entry *hist_append(hist *h, const hist_item *it, uint64_t period, int self)
{
    hist_entry *e;

    if ((h->n + 1) * 2 > h->nslots && slots_grow(h) < 0)
        return NULL;
    if ((e = insert(h, it, slot_of(h, it, hash_item(h, it)))) == NULL)
        return NULL;
    return hist_add_at(h, (size_t)(e - h->v), period, self);
}

hist_entry *hist_add(hist *h, const hist_item *it, uint64_t period, int self)
{
    hist_entry *e;
    uint64_t x;
    size_t j;

    if ((h->n + 1) * 2 > h->nslots && slots_grow(h) < 0)
        return NULL;
    x = hash_item(h, it);
    j = slot_of(h, it, x);
    if (h->slots[j])
        e = &h->v[h->slots[j] - 1];
    else if ((e = insert(h, it, j)) == NULL)
        return NULL;
    /* perf diff merges a DSO's unresolved addresses: show the lowest of
     * the samples' own, as perf compares addresses (by the sign of their
     * difference: a kernel address is below a user one) */
    if (h->by_name && self && e->it.sym == NULL &&
        (e->nr_samples == 0 || (int64_t)(it->ip - e->it.ip) < 0))
        e->it.ip = it->ip;
    return hist_add_at(h, (size_t)(e - h->v), period, self);
}

hist_entry *hist_add_at(hist *h, size_t row, uint64_t period, int self)
{
    hist_entry *e = &h->v[row];

    if (self) {
        e->period += period;
        e->nr_samples++;
    }
    if (e->stamp != h->stamp) {
        e->stamp = h->stamp;
        e->acc_period += period;
        e->acc_samples++;
    }
    return e;
}

int hist_collapse(hist *h)
{
    size_t i, k = 0;

    memset(h->slots, 0, h->nslots * sizeof(*h->slots));
    for (i = 0; i < h->n; i++) {
        hist_entry *e = &h->v[i];
        size_t j = slot_of(h, &e->it, hash_item(h, &e->it));

        if (h->slots[j]) {
            hist_entry *d = &h->v[h->slots[j] - 1];

            d->period += e->period;
            d->nr_samples += e->nr_samples;
            d->acc_period += e->acc_period;
            d->acc_samples += e->acc_samples;
            if (e->max_depth > d->max_depth)
                d->max_depth = e->max_depth;
            if (cc_merge(&d->chain, e->chain) < 0)
                return -1;
            continue;
        }
        h->v[k] = *e;
        h->slots[j] = (uint32_t)++k;
    }
    h->n = k;
    return 0;
}

/* --- order and text ---------------------------------------------------------- */

static int cmp_str(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "");
}

static int cmp_sym(const hist_item *a, const hist_item *b)
{
    if (a->sym != NULL && b->sym != NULL)
        return strcmp(a->sym, b->sym);
    if (a->sym != NULL || b->sym != NULL)
        return a->sym != NULL ? -1 : 1;
    /* perf compares unresolved addresses by their difference, as a
     * signed number: kernel ones come before user ones */
    return (int64_t)a->ip < (int64_t)b->ip ? -1 : (int64_t)a->ip > (int64_t)b->ip;
}

/* The symbol key's output order: names; with a rank (perf's tree order
 * breaks the ties) unresolved addresses are all alike, as perf's
 * sort__sym_sort has them. */
static int cmp_sym_out(const hist_item *a, const hist_item *b, int alike)
{
    if (alike && a->sym == NULL && b->sym == NULL)
        return 0;
    return cmp_sym(a, b);
}

/* perf's DSO order: by short name, rows without a map last */
static int cmp_dso(const char *a, const char *b)
{
    if (a == NULL || b == NULL)
        return (a == NULL) - (b == NULL);
    return strcmp(a, b);
}

/* the first nkeys keys; alike: unresolved addresses compare equal (perf's
 * sort__sym_sort) */
static int keys_cmp(const hist *h, const hist_entry *a, const hist_entry *b, int alike,
                    int nkeys)
{
    int i, c = 0;

    for (i = 0; i < nkeys && c == 0; i++) {
        if (h->elide >> h->keys.k[i] & 1)
            continue;           /* perf's output order skips elided columns */
        switch (h->keys.k[i]) {
        case HK_DSO_FROM: case HK_DSO_TO: case HK_SYM_FROM: case HK_SYM_TO: case HK_CYCLES:
            c = branch_cmp(h->keys.k[i], &a->it, &b->it);
            break;
        case HK_COMM: c = cmp_str(a->it.comm, b->it.comm); break;
        case HK_PID: case HK_TID: c = (a->it.tid > b->it.tid) - (a->it.tid < b->it.tid); break;
        case HK_CPU: c = (a->it.cpu > b->it.cpu) - (a->it.cpu < b->it.cpu); break;
        case HK_DSO: c = cmp_dso(a->it.dso, b->it.dso); break;
        case HK_SYM: c = cmp_sym_out(&a->it, &b->it, alike); break;
        case HK_TRACE: c = cmp_str(a->it.trace, b->it.trace); break;
        case HK_SRCLINE: c = cmp_str(a->it.srcline, b->it.srcline); break;
        case HK_SRCFILE: c = cmp_str(a->it.srcfile, b->it.srcfile); break;
        default: c = num_key_cmp(h->keys.k[i], &a->it, &b->it); break;
        case HK_IPC: c = ipc_cmp(&a->it, &b->it); break;
        }
    }
    return c;
}

static int key_cmp(const hist *h, const hist_entry *a, const hist_entry *b, int alike)
{
    return keys_cmp(h, a, b, alike, h->keys.n);
}

static int entries_item_cmp(const hist *h, const hist_item *a, const hist_item *b);

/* perf's output order of rows it finds equal: its sort keys' output
 * comparators (unresolved addresses alike, whatever the keys after the
 * symbol), then the order of its tree of entries (or, for keys without a
 * total order, the rank diff_shape.c gave) */
int hist_key_cmp(const hist *h, const hist_entry *a, const hist_entry *b)
{
    int c = key_cmp(h, a, b, 1);

    if (c == 0 && !h->ranked)
        c = entries_item_cmp(h, &a->it, &b->it);
    return c;
}

const char *hist_key_header(int key)
{
    static const char *const names[HK_MAX] = {
        [HK_COMM] = "Command", [HK_PID] = "    Pid:Command", [HK_TID] = "    Tid",
        [HK_DSO] = "Shared Object", [HK_SYM] = "Symbol", [HK_CPU] = "CPU",
        [HK_TRACE] = "Trace output", [HK_SRCLINE] = "Source:Line",
        [HK_SRCFILE] = "Source File", [HK_WEIGHT] = "Weight", [HK_LOCAL_WEIGHT] = "Local Weight",
        [HK_TRANSACTION] = "Transaction", [HK_CGROUP] = "Cgroup", [HK_SOCKET] = "Socket",
        [HK_DSO_FROM] = "Source Shared Object",
        [HK_DSO_TO] = "Target Shared Object", [HK_SYM_FROM] = "Source Symbol",
        [HK_SYM_TO] = "Target Symbol", [HK_CYCLES] = "Basic Block Cycles",
        [HK_IPC] = "IPC   [IPC Coverage]",
    };
    return names[key];
}

static int max_int(int a, int b) { return a > b ? a : b; }

/* The thread's comm is what perf measures the comm columns by. */
static int comm_len(const hist_entry *e)
{
    return (int)strlen(e->thread_comm ? e->thread_comm : e->it.comm ? e->it.comm : "");
}

void hist_key_widths_init(const hist *h, int *w, int *unresolved)
{
    int i;

    for (i = 0; i < h->keys.n; i++)
        w[i] = (int)strlen(hist_key_header(h->keys.k[i]));
    *unresolved = 0;
}

/* perf's widths of a branch end's columns: the symbol's name and "[k] ",
 * or an unresolved address's 16 digits; the DSO's name only where the
 * end has a symbol (perf prints longer ones cut to the width) */
static void end_widths(const hist_end *e, int *wsym, int *wdso)
{
    if (e->sym == NULL) {
        *wsym = max_int(*wsym, 16 + 4 + 2);
        return;
    }
    *wsym = max_int(*wsym, (int)strlen(e->sym) + 4);
    *wdso = max_int(*wdso, (int)strlen(e->dso ? e->dso : "[unknown]"));
}

/* the widths of the branch key columns of e (unshown columns too) */
static void branch_widths(const hist *h, const hist_entry *e, int *w)
{
    int wk[HK_MAX], i;

    if (e->it.br == NULL)
        return;
    for (i = 0; i < h->keys.n; i++)
        wk[h->keys.k[i]] = w[i];
    wk[HK_SYM_FROM] = wk[HK_DSO_FROM] = wk[HK_SYM_TO] = wk[HK_DSO_TO] = 0;
    end_widths(&e->it.br->from, &wk[HK_SYM_FROM], &wk[HK_DSO_FROM]);
    end_widths(&e->it.br->to, &wk[HK_SYM_TO], &wk[HK_DSO_TO]);
    for (i = 0; i < h->keys.n; i++)
        if (branch_key(h->keys.k[i]) && h->keys.k[i] != HK_CYCLES)
            w[i] = max_int(w[i], wk[h->keys.k[i]]);
}

void hist_key_widths_add(const hist *h, const hist_entry *e, int *w, int *unresolved)
{
    char buf[32];
    int i;

    branch_widths(h, e, w);
    /* (a row's symbol, a key or not: perf's entry has its first sample's) */
    *unresolved |= e->it.sym == NULL && e->it.br == NULL;
    for (i = 0; i < h->keys.n; i++) {
        switch (h->keys.k[i]) {
        case HK_COMM: w[i] = max_int(w[i], comm_len(e)); break;
        case HK_PID: w[i] = max_int(w[i], comm_len(e) + 8); break;
        case HK_TID: w[i] = max_int(w[i], snprintf(buf, sizeof(buf), "%d", e->it.tid)); break;
        case HK_DSO: w[i] = max_int(w[i], (int)strlen(e->it.dso ? e->it.dso : "[unknown]")); break;
        case HK_SYM:
            w[i] = max_int(w[i], e->it.sym ? (int)strlen(e->it.sym) + 4 : 16 + 4 + 2);
            break;
        case HK_TRACE:
            w[i] = max_int(w[i], (int)strlen(e->it.trace ? e->it.trace : ""));
            break;
        case HK_SRCLINE:
            w[i] = max_int(w[i], (int)strlen(e->it.srcline ? e->it.srcline : ""));
            break;
        case HK_SRCFILE:
            w[i] = max_int(w[i], (int)strlen(e->it.srcfile ? e->it.srcfile : ""));
            break;
        case HK_WEIGHT: case HK_LOCAL_WEIGHT: w[i] = max_int(w[i], 12); break;
        case HK_TRANSACTION: w[i] = max_int(w[i], TXN_WIDTH); break;
        case HK_CGROUP:     /* (perf measures the rows with a cgroup) */
            if (e->it.cgroup != 0)
                w[i] = max_int(w[i], (int)strlen(cgroup_text(&e->it)));
            break;
        }
    }
}

void hist_key_widths_done(const hist *h, int *w, int unresolved)
{
    int i;

    /* perf widens the DSO column for rows of unresolved addresses (not
     * with a --dsos list) */
    for (i = 0; unresolved && !h->dso_filter && i < h->keys.n; i++)
        if (h->keys.k[i] == HK_DSO && w[i] < 16)
            w[i] = 16;
}

typedef struct src_ctx { const hist *h; int nkeys; } src_ctx;

static int cmp_u64_desc(uint64_t a, uint64_t b);

/* perf's output order up to key nkeys: periods, then the keys' output
 * comparators */
static int src_out_cmp(const void *pa, const void *pb, void *arg)
{
    const src_ctx *c = arg;
    const hist_entry *a = &c->h->v[*(const size_t *)pa], *b = &c->h->v[*(const size_t *)pb];
    int r = cmp_u64_desc(a->acc_period, b->acc_period);

    if (r == 0)
        r = cmp_u64_desc(a->period, b->period);
    return r != 0 ? r : keys_cmp(c->h, a, b, 1, c->nkeys);
}

/* Mark (made[row] = 1) the rows perf's output tree compares on key i:
 * rows alike in its order up to there (tree neighbours, met when the later
 * went in). 0, or -1 out of memory. */
static int src_out_made(const hist *h, int i, char *made)
{
    size_t *v = malloc((h->n ? h->n : 1) * sizeof(*v)), j, k;
    src_ctx c = { h, i };

    if (v == NULL)
        return -1;
    for (j = 0; j < h->n; j++)
        v[j] = j;
    qsort_r(v, h->n, sizeof(*v), src_out_cmp, &c);
    for (j = 0; j < h->n; j = k) {
        for (k = j + 1; k < h->n && src_out_cmp(&v[j], &v[k], &c) == 0; k++)
            made[v[j]] = made[v[k]] = 1;
    }
    free(v);
    return 0;
}

/* A group table's row j that perf compared with another on every key: a
 * row of two members (the leader's found in a member's tree, or a
 * member's in the leader's), or of two samples of one. */
static int group_met(const hist *h, size_t j)
{
    uint32_t m, in = 0;

    for (m = 0; h->group_v != NULL && m < h->group_n; m++) {
        in += h->group_ns[j * h->group_n + m] > 0;
        if (h->group_ns[j * h->group_n + m] > 1)
            return 1;
    }
    return in > 1;
}

/* The rows whose text of key i (srcline, srcfile, trace) perf made before sizing
 * the column: it makes one when a tree compares the row with another on
 * that key, which is when a second sample came to the row, when another
 * row has the values of the keys before it (tree neighbours: compared when
 * the later went in), or when its output tree finds the two alike up to
 * there (src_out_made()). 0, or -1 out of memory. */
static int src_made(const hist *h, int i, char *made)
{
    ps_u64map seen;
    uint64_t *n;
    size_t j;
    int rc = 0;

    ps_u64map__init(&seen);
    for (j = 0; j < h->n && rc == 0; j++) {
        uint64_t x = hash_keys(h, &h->v[j].it, i);

        if ((n = ps_u64map__get(&seen, x)) != NULL)
            ++*n;
        else
            rc = ps_u64map__put(&seen, x, 1);
    }
    for (j = 0; j < h->n && rc == 0; j++) {
        n = ps_u64map__get(&seen, hash_keys(h, &h->v[j].it, i));
        made[j] = (n != NULL && *n > 1) || group_met(h, j) ||
                  h->v[j].acc_samples > 1 || h->v[j].nr_samples > 1;
    }
    ps_u64map__free(&seen);
    /* (a group's output order is its own: not followed there) */
    return rc != 0 ? -1 : h->group_v != NULL ? 0 : src_out_made(h, i, made);
}

/* perf sizes a srcline, srcfile or trace column by the texts made by then
 * (hists__calc_col_len()) and cuts the others to it: a table of one sample
 * keeps the header's width. */
static void src_widths(const hist *h, int *w, int i)
{
    char *made = calloc(h->n ? h->n : 1, 1);
    size_t j;

    if (made != NULL && src_made(h, i, made) < 0)
        memset(made, 1, h->n);  /* (out of memory: every text counts) */
    w[i] = (int)strlen(hist_key_header(h->keys.k[i]));
    for (j = 0; j < h->n; j++) {
        const hist_entry *e = &h->v[j];
        const char *t = h->keys.k[i] == HK_SRCLINE ? e->it.srcline
                      : h->keys.k[i] == HK_SRCFILE ? e->it.srcfile : e->it.trace;

        if (!e->hidden && (made == NULL || made[j]))
            w[i] = max_int(w[i], (int)strlen(t ? t : ""));
    }
    free(made);
}

void hist_key_widths(const hist *h, int *w)
{
    int unresolved, i;
    size_t j;

    hist_key_widths_init(h, w, &unresolved);
    for (j = 0; j < h->n; j++)
        if (!h->v[j].hidden)
            hist_key_widths_add(h, &h->v[j], w, &unresolved);
    hist_key_widths_done(h, w, unresolved);
    for (i = 0; i < h->keys.n; i++)
        if (h->keys.k[i] == HK_SRCLINE || h->keys.k[i] == HK_SRCFILE ||
            h->keys.k[i] == HK_TRACE)
            src_widths(h, w, i);
}

void hist_sym_text(char *buf, size_t size, const hist_item *it)
{
    if (it->sym != NULL && it->object)  /* ip as the row has it: map-relative for
                                         * a sample's own, as recorded in a chain */
        snprintf(buf, size, "[%c] %s+0x%" PRIx64, it->level, it->sym, it->ip - it->object_at);
    else if (it->sym != NULL)
        snprintf(buf, size, "[%c] %s%s", it->level, it->sym, it->inlined ? " (inlined)" : "");
    else if (it->ip == 0)
        snprintf(buf, size, "[%c] %016" PRIx64, it->level, it->ip);
    else
        snprintf(buf, size, "[%c] 0x%016" PRIx64, it->level, it->ip);
}

/* "[k] name" or "[.] 0x<16 digits>" of a branch end, as hist_sym_text() */
static void end_text(char *buf, size_t size, const hist_end *e)
{
    hist_item it;

    memset(&it, 0, sizeof(it));
    it.sym = e->sym;
    it.ip = e->ip;
    it.level = e->level;
    it.object = e->object;
    it.object_at = e->object_at;
    hist_sym_text(buf, size, &it);
}

/* A branch key's column of e: the DSO cut to its width, the symbol padded
 * but as the last column, the cycles ("-" for none) as perf's "%-*hd". */
static void branch_print(FILE *fp, int key, const hist_entry *e, int w, int last)
{
    const hist_branch *b = e->it.br;
    const hist_end *end = key == HK_DSO_FROM || key == HK_SYM_FROM ? &b->from : &b->to;
    char buf[4096];

    switch (key) {
    case HK_DSO_FROM:
    case HK_DSO_TO:
        fprintf(fp, "%-*.*s", w, w, end->dso ? end->dso : "[unknown]");
        break;
    case HK_SYM_FROM:
    case HK_SYM_TO:
        end_text(buf, sizeof(buf), end);
        fprintf(fp, "%-*s", last ? 0 : w, buf);
        break;
    case HK_CYCLES:
        if (b->cycles == 0)
            fprintf(fp, "%-*s", w, "-");
        else
            fprintf(fp, "%-*hd", w, (short)b->cycles);
        break;
    }
}

void hist_key_print(FILE *fp, const hist *h, const hist_entry *e, const int *w)
{
    const char *src;
    char buf[4096];
    int i;

    for (i = 0; i < h->keys.n; i++) {
        int last = i == h->keys.n - 1;  /* perf pads every column but a last
                                         * symbol (elided or not) */

        if (h->elide >> h->keys.k[i] & 1)
            continue;
        fputs("  ", fp);
        if (branch_key(h->keys.k[i])) {
            if (e->it.br != NULL)
                branch_print(fp, h->keys.k[i], e, w[i], last);
            else
                fprintf(fp, "%-*.*s", w[i], w[i], "N/A");
            continue;
        }
        switch (h->keys.k[i]) {
        case HK_COMM:
            fprintf(fp, "%-*.*s", w[i], w[i], e->it.comm ? e->it.comm : "");
            break;
        case HK_PID:
            fprintf(fp, "%7d:%-*.*s", e->it.tid, w[i] - 8, w[i] - 8,
                    e->thread_comm ? e->thread_comm : e->it.comm ? e->it.comm : "");
            break;
        case HK_TID: fprintf(fp, "%*d", w[i], e->it.tid); break;
        case HK_CPU: fprintf(fp, "%*.*d", w[i], w[i], e->it.cpu); break;
        case HK_SOCKET: fprintf(fp, "%*.*d", w[i], 3, e->it.socket); break;
        case HK_DSO: fprintf(fp, "%-*s", w[i], e->it.dso ? e->it.dso : "[unknown]"); break;
        case HK_SYM:
            hist_sym_text(buf, sizeof(buf), &e->it);
            fprintf(fp, "%-*s", last ? 0 : w[i], buf);
            break;
        case HK_IPC:        /* perf's sym_ipc_null, or sym_ipc of no cycles */
            if (e->it.br != NULL)   /* the branch view's */
                fprintf(fp, "%-*s", w[i], e->it.sym != NULL ? "0.00  [  0.0%]" : "-");
            else
                fprintf(fp, "%-*s", w[i], "-      -");
            break;
        case HK_TRACE:      /* cut to the width; padded but as the last */
            fprintf(fp, "%-*.*s", last ? 0 : w[i], w[i], e->it.trace ? e->it.trace : "");
            break;
        case HK_WEIGHT: case HK_LOCAL_WEIGHT:
            fprintf(fp, "%-*" PRIu64, w[i], e->it.weight);
            break;
        case HK_TRANSACTION:
            txn_text(buf, sizeof(buf), e->it.transaction);
            fprintf(fp, "%-*s", w[i], buf);
            break;
        case HK_CGROUP:
            fprintf(fp, "%-*s", last ? 0 : w[i], cgroup_text(&e->it));
            break;
        case HK_SRCLINE:
        case HK_SRCFILE:    /* perf's "%-.*s": the last one unpadded */
            src = h->keys.k[i] == HK_SRCLINE ? e->it.srcline : e->it.srcfile;
            fprintf(fp, "%-*.*s", last ? 0 : w[i], w[i], src ? src : "");
            break;
        }
    }
}

/* The order of perf's tree of entries (its se_cmp and se_collapse
 * functions): comm and DSO names ascending, a DSO before none, symbols by
 * start address (inlined ones by name) before unresolved addresses, these
 * by the sign of their difference. */
static int entries_dso_cmp(const hist_item *a, const hist_item *b)
{
    return a->dso == NULL || b->dso == NULL ? (a->dso == NULL) - (b->dso == NULL)
                                            : strcmp(a->dso, b->dso);
}

static int entries_sym_cmp(const hist_item *a, const hist_item *b)
{
    int c;

    if (a->sym == NULL && b->sym == NULL) {
        int64_t d = (int64_t)(a->ip - b->ip);   /* perf's _sort__addr_cmp: the
                                                 * difference, not the order */
        return (d > 0) - (d < 0);
    }
    /* perf 6.1's sort__sym_cmp() compares the DSOs first whatever the keys
     * (its test for a dso key is always true): with sym before dso too */
    if ((c = entries_dso_cmp(a, b)) != 0)
        return c;
    if (a->sym == NULL || b->sym == NULL)
        return a->sym != NULL ? -1 : 1;
    if ((a->inlined || b->inlined) && strcmp(a->sym, b->sym) != 0)
        return strcmp(b->sym, a->sym);      /* perf's _sort__sym_cmp: names
                                             * compared the other way */
    return (a->sym_start > b->sym_start) - (a->sym_start < b->sym_start);
}

static int entries_item_cmp(const hist *h, const hist_item *a, const hist_item *b)
{
    int i, c = 0;

    for (i = 0; i < h->keys.n && c == 0; i++) {
        switch (h->keys.k[i]) {
        case HK_DSO_FROM: case HK_DSO_TO: case HK_SYM_FROM: case HK_SYM_TO: case HK_CYCLES:
            c = branch_cmp(h->keys.k[i], a, b);
            break;
        case HK_COMM: c = cmp_str(a->comm, b->comm); break;
        case HK_PID: case HK_TID: c = (a->tid > b->tid) - (a->tid < b->tid); break;
        case HK_CPU: c = (a->cpu > b->cpu) - (a->cpu < b->cpu); break;
        case HK_DSO: c = entries_dso_cmp(a, b); break;
        case HK_SYM: c = entries_sym_cmp(a, b); break;
        case HK_TRACE: c = cmp_str(a->trace, b->trace); break;
        case HK_SRCLINE: c = cmp_str(a->srcline, b->srcline); break;
        case HK_SRCFILE: c = cmp_str(a->srcfile, b->srcfile); break;
        default: c = num_key_cmp(h->keys.k[i], a, b); break;
        case HK_IPC: c = ipc_cmp(a, b); break;
        }
    }
    return c;
}

typedef struct order_ctx { const hist *h; int children, tiebreak; } order_ctx;

typedef struct ins_ctx { const hist *h; size_t row; } ins_ctx;

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
    return (a < b) - (a > b);
}

/* perf's group sort: the leader's period, then each member's in turn */
static int group_cmp(const hist *h, const uint64_t *v, size_t a, size_t b)
{
    const uint64_t *x = v + a * h->group_n, *y = v + b * h->group_n;
    uint32_t m;
    int r = 0;

    for (m = 0; m < h->group_n && r == 0; m++)
        r = cmp_u64_desc(x[m], y[m]);
    return r;
}

static int order_cmp(const void *pa, const void *pb, void *arg)
{
    const order_ctx *c = arg;
    const hist_entry *a = &c->h->v[*(const size_t *)pa], *b = &c->h->v[*(const size_t *)pb];
    size_t ia = *(const size_t *)pa, ib = *(const size_t *)pb;
    /* (perf's children sort of a group compares the leader's alone) */
    int r = c->children ? cmp_u64_desc(a->acc_period, b->acc_period) : 0;

    if (r == 0 && c->children && c->h->depth_order && a->it.pid == b->it.pid &&
        a->it.tid == b->it.tid)
        r = c->h->depth_order * cmp_u64_desc(a->max_depth, b->max_depth);
    if (r == 0)
        r = c->h->group_v != NULL ? group_cmp(c->h, c->h->group_v, ia, ib)
                                  : cmp_u64_desc(a->period, b->period);
    if (r == 0)
        r = key_cmp(c->h, a, b, 1);
    /* what perf's output tree finds equal stays in the order it went in:
     * its tree of entries' */
    if (r == 0 && c->h->ranked)     /* that tree rebuilt (diff_shape.h) */
        r = (a->rank > b->rank) - (a->rank < b->rank);
    else if (r == 0 && c->tiebreak)
        r = entries_item_cmp(c->h, &a->it, &b->it);
    return r;
}

/* rbshape_cmp for perf's output tree: the new row goes left of the
 * node's when it comes first, right when they are alike */
static int ins_cmp(const ins_ctx *x, uint32_t payload, int children)
{
    order_ctx c = { x->h, children, 0 };
    size_t a = x->row, b = payload;

    return order_cmp(&a, &b, &c) < 0 ? -1 : 1;
}

static int ins_cmp_children(void *arg, uint32_t payload)
{
    return ins_cmp(arg, payload, 1);
}

static int ins_cmp_self(void *arg, uint32_t payload)
{
    return ins_cmp(arg, payload, 0);
}

/* rbshape_cmp for perf's trees of entries (hists__findnew_entry(), then
 * its collapse): keys compared, equal ones to the right */
static int entries_ins_cmp(void *arg, uint32_t payload)
{
    const ins_ctx *x = arg;

    return entries_item_cmp(x->h, &x->h->v[x->row].it, &x->h->v[payload].it) < 0 ? -1 : 1;
}

static int rank_cmp(const void *pa, const void *pb, void *arg)
{
    const hist *h = arg;
    uint32_t a = h->v[*(const size_t *)pa].rank, b = h->v[*(const size_t *)pb].rank;

    return (a > b) - (a < b);
}

/* The rows v[0..k) into a tree shaped as perf's with cmp, in that order;
 * their order in it back into v. -1 out of memory. */
static int tree_pass(const hist *h, size_t *v, size_t k, rbshape_cmp cmp, uint32_t *out)
{
    rbshape t;
    size_t i;
    int found;

    rbshape_init(&t);
    for (i = 0; i < k; i++) {
        ins_ctx x = { h, v[i] };

        if (rbshape_findnew(&t, cmp, &x, (uint32_t)v[i], &found) == UINT32_MAX) {
            rbshape_free(&t);
            return -1;
        }
    }
    rbshape_inorder(&t, out);
    rbshape_free(&t);
    for (i = 0; i < k; i++)
        v[i] = out[i];
    return 0;
}

/* perf's output order is not a total one (its addresses compare by the
 * sign of their difference; with children, rows of one thread by the depth
 * of their chains): the shape of its trees decides. So the rows go as in
 * perf: into its tree of entries as they were made, from there (with comm
 * in the keys) into its collapsed tree, from there into its output tree;
 * shown rows (not hidden, not under limit) in that last one's order into
 * v. NULL out of memory. */
static size_t *tree_order(const hist *h, size_t *v, int children, double limit, size_t *n)
{
    uint32_t *out = malloc((h->n ? h->n : 1) * sizeof(*out));
    size_t i, j, k = 0, kreal;
    int comm;

    if (out == NULL) {
        free(v);
        return NULL;
    }
    for (i = 0; i < h->n; i++)      /* as made; perf has no rows of chains alone
                                     * without children */
        if ((children || h->v[i].nr_samples > 0) && !h->v[i].merged && !h->v[i].dummy)
            v[k++] = i;
    /* a group's dummy rows go into perf's last tree of entries after the
     * rest (the collapsed one, with comm in the keys) */
    kreal = k;
    for (i = 0; i < h->n; i++)
        if (h->v[i].dummy)
            v[k++] = i;
    comm = hist_keys_has(&h->keys, HK_COMM);
    if (h->ranked)                  /* perf's trees rebuilt: their order */
        qsort_r(v, k, sizeof(*v), rank_cmp, (void *)h);
    if ((!h->ranked && tree_pass(h, v, comm ? kreal : k, entries_ins_cmp, out) < 0) ||
        (!h->ranked && comm && tree_pass(h, v, k, entries_ins_cmp, out) < 0) ||
        tree_pass(h, v, k, children ? ins_cmp_children : ins_cmp_self, out) < 0) {
        free(out);
        free(v);
        return NULL;
    }
    for (i = j = 0; i < k; i++) {
        const hist_entry *e = &h->v[v[i]];

        if (!e->hidden && !(limit > 0 && hist_percent(children ? e->acc_period : e->period,
                                                      h->total_period) < limit))
            v[j++] = v[i];
    }
    free(out);
    *n = j;
    return v;
}

size_t *hist_order(const hist *h, int children, double limit, size_t *n)
{
    size_t *v = malloc((h->n ? h->n : 1) * sizeof(*v)), i, k = 0;
    order_ctx c = { h, children, 1 };

    if (v == NULL)
        return NULL;
    for (i = 0; i < h->n; i++) {
        const hist_entry *e = &h->v[i];

        if ((!children && e->nr_samples == 0 && !e->dummy) || e->hidden)
            continue;
        if (limit > 0 && hist_percent(children ? e->acc_period : e->period,
                                      h->total_period) < limit)
            continue;
        v[k++] = i;
    }
    if (!h->ranked || children)
        return tree_order(h, v, children, limit, n);
    qsort_r(v, k, sizeof(*v), order_cmp, &c);
    *n = k;
    return v;
}

/* The index by key of the rows as they are now. Shaping perf's trees
 * (diff_shape.c) leaves rows it merged away in the index, beside or in
 * front of the row that took their sums, and rows it renamed under their
 * old key: a lookup there finds an empty row, or none. Live rows only,
 * the first of equal ones. */
static void reindex_live(hist *h)
{
    size_t i, j;

    if (h->nslots == 0)
        return;
    memset(h->slots, 0, h->nslots * sizeof(*h->slots));
    for (i = 0; i < h->n; i++) {
        if (h->v[i].merged)
            continue;
        j = slot_of(h, &h->v[i].it, hash_item(h, &h->v[i].it));
        if (!h->slots[j])
            h->slots[j] = (uint32_t)i + 1;
    }
}

hist_entry *hist_group_dummy(hist *h, const hist_entry *e)
{
    hist_entry *d;

    if ((d = hist_append(h, &e->it, 0, 0)) == NULL ||
        (e->thread_comm != NULL && (d->thread_comm = hist_str(h, e->thread_comm)) == NULL))
        return NULL;
    d->acc_samples = 0;
    d->dummy = 1;
    d->hidden = 0;      /* perf's dummy copies the member's row, not the
                         * filter verdict of the last sample */
    return d;
}

/* Pairs by key (the hash index), dummies for a member's rows the leader
 * lacks: lead[k][member row] the leader's row. -1 out of memory. */
static int link_by_key(hist *h, hist *const *m, uint32_t n, uint32_t **lead)
{
    size_t r;
    uint32_t k;

    /* perf pairs a group's rows by their keys after its collapse */
    reindex_live(h);
    for (k = 1; k < n; k++)
        if (m[k - 1] != NULL)
            reindex_live(m[k - 1]);
    for (k = 1; k < n; k++) {
        for (r = 0; m[k - 1] != NULL && r < m[k - 1]->n; r++) {
            const hist_entry *e = &m[k - 1]->v[r], *f;
            hist_entry *d;

            lead[k - 1][r] = UINT32_MAX;
            if (e->merged)
                continue;
            if ((f = hist_find(h, &e->it)) != NULL) {
                lead[k - 1][r] = (uint32_t)(f - h->v);
                continue;
            }
            if (e->hidden || (e->nr_samples == 0 && e->acc_period == 0))
                continue;       /* (a hidden row's dummy is hidden too) */
            if ((d = hist_group_dummy(h, e)) == NULL)
                return -1;
            lead[k - 1][r] = (uint32_t)(d - h->v);
        }
    }
    return 0;
}

/* perf's trees rebuilt for every event of the group (DWARF chains with
 * children): pair in them, as perf, misses included */
static int shaped_group(const hist *h, hist *const *m, uint32_t n)
{
    uint32_t k;

    if (!h->ranked || h->shape == NULL)
        return 0;
    for (k = 1; k < n; k++)
        if (m[k - 1] == NULL || m[k - 1]->shape == NULL)
            return 0;
    return 1;
}

/* first: of member rows paired with one leader row, the first gives its
 * values (by key: the index's row), else the last (perf's last pair) */
static int group_arrays(hist *h, hist *const *m, uint32_t n, uint32_t *const *lead, int first)
{
    size_t i, r;
    uint32_t k;

    free(h->group_v);
    free(h->group_ns);
    free(h->group_acc);
    h->group_ns = calloc(h->n ? h->n * n : 1, sizeof(*h->group_ns));
    h->group_acc = calloc(h->n ? h->n * n : 1, sizeof(*h->group_acc));
    if ((h->group_v = calloc(h->n ? h->n * n : 1, sizeof(*h->group_v))) == NULL ||
        h->group_ns == NULL || h->group_acc == NULL)
        return -1;
    h->group_n = n;
    for (i = 0; i < h->n; i++) {
        h->group_v[i * n] = h->v[i].period;
        h->group_ns[i * n] = h->v[i].nr_samples;
        h->group_acc[i * n] = h->v[i].acc_period;
    }
    for (k = 1; k < n; k++) {
        size_t mn = m[k - 1] != NULL ? m[k - 1]->n : 0;

        for (r = 0; r < mn; r++) {
            size_t x = first ? mn - 1 - r : r;
            const hist_entry *e = &m[k - 1]->v[x];
            uint32_t l = lead[k - 1][x];

            if (l == UINT32_MAX || l >= h->n)
                continue;
            h->group_v[l * n + k] = e->period;
            h->group_ns[l * n + k] = e->nr_samples;
            h->group_acc[l * n + k] = e->acc_period;
        }
    }
    return 0;
}

int hist_group_link(hist *h, hist *const *m, uint32_t n)
{
    uint32_t *lead[64], k;
    int rc = 0, shaped = shaped_group(h, m, n);

    if (n > 65)
        n = 65;
    for (k = 1; k < n; k++)
        lead[k - 1] = NULL;
    for (k = 1; k < n && rc == 0; k++) {
        size_t mn = m[k - 1] != NULL ? m[k - 1]->n : 0;

        if ((lead[k - 1] = malloc((mn ? mn : 1) * sizeof(**lead))) == NULL)
            rc = -1;
        else if (shaped)
            rc = diff_shape_link(h->shape, h, m[k - 1]->shape, m[k - 1], lead[k - 1]);
    }
    if (rc == 0 && !shaped)
        rc = link_by_key(h, m, n, lead);
    if (rc == 0)
        rc = group_arrays(h, m, n, lead, !shaped);
    for (k = 1; k < n; k++)
        free(lead[k - 1]);
    return rc;
}
