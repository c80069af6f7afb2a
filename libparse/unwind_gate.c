/* SPDX-License-Identifier: MIT */
/*
 * unwind_gate.c - which processes perf unwinds at all. A process is
 * unwound only once perf gave its maps an unwinder, which happens when a
 * map goes in whose file the capture's arch takes (on x86: a readable
 * 64-bit ELF; ps_unwind__gate_open()). Until then its samples get no user
 * part at all. aarch64 captures are the exception, on purpose: Debian's
 * perf 6.1 has no arm64 libunwind and unwinds none of them, perfsift
 * unwinds them all.
 *
 * Layer: above unwind_dso.c (a DSO's type) and machine.c (the order maps
 * went into a process's maps); called by unwind.c before anything else
 * is done for a sample. Owns the gate table: one gate per ps_maps, in the
 * unwinder's arena.
 */
#include <string.h>
#include "unwind_int.h"

/* Whether perf unwinds a process (see ps_unwind__gate_open()). */
struct gate {
    struct node    node;
    const ps_maps *maps;
    size_t         checked;     /* ps_maps__inserted() entries looked at */
    int            open;        /* a map gave the process perf's unwinder ... */
    uint64_t       since;       /* ... at this time (its time_start) */
};

/*
 * perf's unwind__prepare_access(), run each time a map goes into a
 * process's maps (MMAP records, a fork's copies): the first map whose DSO
 * type the capture's arch takes gives the process its unwinder, for good.
 * Until then perf unwinds nothing there: the user part of a call chain is
 * empty, not even the sample ip.
 */
enum gate_rule {
    GATE_ALWAYS,    /* any map, file or not */
    GATE_64BIT,     /* x86: a 64-bit DSO (Debian's perf has no x86_32 libunwind,
                     * so a 32-bit one is "not supported" and the next map tries) */
    GATE_KNOWN,     /* other arches: any DSO of a known type (perf's arm also
                     * refuses 64-bit ones; no arm32 register table here anyway) */
};

/* The rule for an arch as uname -m names it (HEADER_ARCH holds that). */
static int arch_rule(const char *a)
{
    /* perf_env__arch()'s "x86": x86_64 and i?86 */
    if (strcmp(a, "x86_64") == 0 || (strlen(a) >= 4 && a[0] == 'i' && a[2] == '8' && a[3] == '6'))
        return GATE_64BIT;
    /* Debian's perf 6.1 has no arm64 libunwind and never unwinds arm64
     * captures; perfsift does, with its aarch64 table (a perf limitation
     * deliberately not copied) */
    if (strncmp(a, "aarch64", 7) == 0 || strncmp(a, "arm64", 5) == 0)
        return GATE_ALWAYS;
    return GATE_KNOWN;
}

/*
 * Without HEADER_ARCH perf's env has no arch, and a map put in then gives
 * its process an unwinder without a look. Processing the first sample
 * fills the arch in from uname() of the machine perf runs on (seen with
 * perf 6.1: pipe captures without the ARCH feature, maps timed before or
 * after the first sample); from then on that arch's rule applies.
 */
static int arch_unknown(const ps_features *feat)
{
    return feat == NULL || !ps_features_has(feat, PS_HEADER_ARCH) || feat->arch == NULL;
}

static int gate_matches(const struct node *n, const void *key)
{
    return ((const struct gate *)n)->maps == key;
}

static struct gate *gate_get(ps_unwinder *u, const ps_maps *s)
{
    uint64_t h = ps_unwind__hash_bytes(&s, sizeof(s), FNV_OFFSET);
    struct gate *g = (struct gate *)ps_unwind__table_find(&u->gates, h, gate_matches, s);

    if (g != NULL)
        return g;
    if ((g = ps_arena__alloc(&u->arena, sizeof(*g))) == NULL)
        return NULL;
    memset(g, 0, sizeof(*g));
    g->node.hash = h;
    g->maps = s;
    return ps_unwind__table_add(&u->gates, &g->node) == 0 ? g : NULL;
}

/* 1 when map, put into a process's maps, gives it perf's unwinder. */
static int gate_opens(ps_unwinder *u, const ps_map *map, int unknown, int rule)
{
    const struct dso_file *f;

    if ((unknown && map->time_start <= u->first_sample) || rule == GATE_ALWAYS)
        return 1;
    /* other maps are no files ("//anon" is perf's /tmp/perf-PID.map, text) */
    if ((map->kind != PS_MAP_FILE && map->kind != PS_MAP_VDSO) ||
        (f = ps_unwind__dso_file(u, map)) == NULL)
        return 0;
    return rule == GATE_64BIT ? f->type == DSO_TYPE_64BIT : f->type != DSO_TYPE_UNKNOWN;
}

/* 1 when perf has an unwinder for the process whose maps are s, as of
 * time t. The maps put in are checked once each, in delivery order. */
int ps_unwind__gate_open(ps_unwinder *u, const ps_maps *s, uint64_t t)
{
    int unknown = arch_unknown(u->feat);
    int rule = arch_rule(unknown ? u->host_arch : u->feat->arch);
    const ps_map *map;
    struct gate *g;

    if (!unknown && rule == GATE_ALWAYS)
        return 1;
    if (s == NULL)
        return 0;               /* a thread without maps: perf's are empty too */
    if ((g = gate_get(u, s)) == NULL)
        return 1;               /* out of memory: unwind as if perf could */
    while (!g->open && (map = ps_maps__inserted(s, g->checked)) != NULL &&
           map->time_start <= t) {
        g->checked++;
        if (gate_opens(u, map, unknown, rule)) {
            g->open = 1;
            g->since = map->time_start;
        }
    }
    return g->open && g->since <= t;
}
