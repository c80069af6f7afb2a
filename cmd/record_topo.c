/* SPDX-License-Identifier: MIT */
/*
 * record_topo.c - the machine-description features perf record writes
 * besides the host strings (record_synth.c): CPU_TOPOLOGY, NUMA_TOPOLOGY,
 * PMU_MAPPINGS, CACHE and MEM_TOPOLOGY read from sysfs the way perf 6.1
 * reads them (spec 6.4), and BPF_PROG_INFO, BPF_BTF and PMU_CAPS, which
 * perf writes even when they hold nothing. `perf report --header` then
 * shows for a perfsift capture what it shows for perf's, and `--sort
 * socket` has its topology. A feature sysfs cannot describe is left out,
 * as perf leaves it out.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "../libparse/util.h"
#include "common.h"
#include "record.h"

#define SYS "/sys/devices/system"
#define PMUS "/sys/bus/event_source/devices"
#define MAX_CACHE_INDEX 4       /* perf reads index0..index3 of each CPU */
#define MAX_ITEMS 4096          /* lists of CPUs, nodes, caches, PMUs */

/* --- a feature payload being built ------------------------------------------------ */

static void put_str(rec_blob *f, const char *s)
{
    size_t n;
    uint8_t *b = ps_feat_string(s, &n);

    if (b == NULL)
        f->fail = 1;
    else
        rec_put(f, b, n);
    free(b);
}

/* Hand the payload to the writer: 0 written or nothing to write, -1 error. */
static int set(record *r, unsigned bit, rec_blob *f, int ok, ps_error *err)
{
    int rc = 0;

    if (f->fail) {
        ps_error__set(err, PS_ENOMEM, 0, "out of memory building a header feature");
        rc = -1;
    } else if (ok) {
        rc = ps_writer_set_feature(r->w, bit, f->b, f->len, err);
    }
    free(f->b);
    memset(f, 0, sizeof(*f));
    return rc;
}

/* --- sysfs ------------------------------------------------------------------------- */

/* The first line of a file, without its newline; 0, or -1 unreadable. */
static int read_line(const char *path, char *buf, size_t size)
{
    FILE *fp = fopen(path, "r");
    int ok;

    if (fp == NULL)
        return -1;
    ok = fgets(buf, (int)size, fp) != NULL;
    fclose(fp);
    if (!ok)
        return -1;
    buf[strcspn(buf, "\n")] = 0;
    return 0;
}

static long read_long(const char *path, long def)
{
    char buf[64], *end;
    long v;

    if (read_line(path, buf, sizeof(buf)) < 0)
        return def;
    v = strtol(buf, &end, 0);
    return end == buf ? def : v;
}

/* The largest number in a CPU list such as "0-3,8", -1 for none. */
static long list_max(const char *path)
{
    char buf[4096], *p;
    long max = -1;

    if (read_line(path, buf, sizeof(buf)) < 0)
        return -1;
    for (p = buf; *p; ) {
        char *end;
        long v = strtol(p, &end, 10);

        if (end == p)
            break;
        if (v > max)
            max = v;
        p = *end ? end + 1 : end;
    }
    return max;
}

/* perf's nr_cpus_avail: the highest present CPU + 1. */
uint32_t rec_cpus_avail(void)
{
    long max = list_max(SYS "/cpu/present");

    return max >= 0 ? (uint32_t)max + 1 : (uint32_t)sysconf(_SC_NPROCESSORS_CONF);
}

static int online(long cpu)
{
    char path[128];

    snprintf(path, sizeof(path), SYS "/cpu/cpu%ld/online", cpu);
    return access(path, F_OK) != 0 || read_long(path, 1) == 1;     /* cpu0 has none */
}

/* --- CPU_TOPOLOGY -------------------------------------------------------------------- */

typedef struct strset {
    char  *v[MAX_ITEMS];
    size_t n;
} strset;

static int strset_add(strset *s, const char *str)
{
    size_t i;

    for (i = 0; i < s->n; i++)
        if (strcmp(s->v[i], str) == 0)
            return 0;
    if (s->n == MAX_ITEMS || (s->v[s->n] = strdup(str)) == NULL)
        return -1;
    s->n++;
    return 0;
}

static void strset_put(rec_blob *f, const strset *s)
{
    size_t i;

    rec_put32(f, (uint32_t)s->n);
    for (i = 0; i < s->n; i++)
        put_str(f, s->v[i]);
}

static void strset_free(strset *s)
{
    while (s->n)
        free(s->v[--s->n]);
}

/* One topology file of a CPU, the newer name tried first. */
static int topo_file(long cpu, const char *name, const char *old, char *buf, size_t size)
{
    char path[160];

    snprintf(path, sizeof(path), SYS "/cpu/cpu%ld/topology/%s", cpu, name);
    if (read_line(path, buf, size) == 0 || old == NULL)
        return read_line(path, buf, size);
    snprintf(path, sizeof(path), SYS "/cpu/cpu%ld/topology/%s", cpu, old);
    return read_line(path, buf, size);
}

/* perf reads die topology on x86-64 and s390x only, where the kernel has it. */
static int has_dies(void)
{
    struct utsname u;

    if (uname(&u) < 0 || (strncmp(u.machine, "x86_64", 6) != 0 &&
                          strncmp(u.machine, "s390x", 5) != 0))
        return 0;
    return access(SYS "/cpu/cpu0/topology/die_cpus_list", F_OK) == 0;
}

static long topo_id(long cpu, const char *name)
{
    char path[160];

    snprintf(path, sizeof(path), SYS "/cpu/cpu%ld/topology/%s", cpu, name);
    return read_long(path, -1);
}

/* Sibling lists of the online CPUs (first seen first), then the ids of
 * every CPU up to nr_cpus_avail. */
static int cpu_topology(record *r, uint32_t avail, ps_error *err)
{
    static strset pkg, die, core;
    int dies = has_dies(), ok = 1;
    char buf[4096];
    rec_blob f = { 0 };
    long cpu;

    for (cpu = 0; cpu < (long)avail && ok; cpu++) {
        if (!online(cpu))
            continue;
        ok = topo_file(cpu, "package_cpus_list", "core_siblings_list", buf, sizeof(buf)) == 0 &&
             strset_add(&pkg, buf) == 0 &&
             (!dies || (topo_file(cpu, "die_cpus_list", NULL, buf, sizeof(buf)) == 0 &&
                        strset_add(&die, buf) == 0)) &&
             topo_file(cpu, "core_cpus_list", "thread_siblings_list", buf, sizeof(buf)) == 0 &&
             strset_add(&core, buf) == 0;
    }
    strset_put(&f, &pkg);
    strset_put(&f, &core);
    for (cpu = 0; cpu < (long)avail; cpu++) {
        rec_put32(&f, (uint32_t)topo_id(cpu, "core_id"));
        rec_put32(&f, (uint32_t)topo_id(cpu, "physical_package_id"));
    }
    if (dies) {
        strset_put(&f, &die);
        for (cpu = 0; cpu < (long)avail; cpu++)
            rec_put32(&f, (uint32_t)topo_id(cpu, "die_id"));
    }
    strset_free(&pkg);
    strset_free(&die);
    strset_free(&core);
    return set(r, PS_HEADER_CPU_TOPOLOGY, &f, ok, err);
}

/* --- NUMA_TOPOLOGY, MEM_TOPOLOGY -------------------------------------------------- */

/* "Node 0 MemTotal:  7825184 kB" and MemFree from a node's meminfo. */
static int node_mem(long node, uint64_t *total, uint64_t *free_kb)
{
    char path[128], line[256];
    unsigned long long v;
    FILE *fp;
    int n = 0;

    snprintf(path, sizeof(path), SYS "/node/node%ld/meminfo", node);
    if ((fp = fopen(path, "r")) == NULL)
        return -1;
    while (fgets(line, sizeof(line), fp)) {
        char *p = strchr(line, ':');

        if (p == NULL || sscanf(p + 1, "%llu", &v) != 1)
            continue;
        if (strstr(line, " MemTotal:") != NULL && ++n)
            *total = v;
        else if (strstr(line, " MemFree:") != NULL && ++n)
            *free_kb = v;
    }
    fclose(fp);
    return n == 2 ? 0 : -1;
}

/* The numbers of a list such as "0-1,4" (ranges expanded), up to max of them. */
static size_t list_items(const char *list, long *out, size_t max)
{
    const char *p = list;
    size_t n = 0;

    while (*p && n < max) {
        char *end;
        long a = strtol(p, &end, 10), b = a;

        if (end == p)
            break;
        if (*end == '-')
            b = strtol(end + 1, &end, 10);
        for (; a <= b && n < max; a++)
            out[n++] = a;
        p = *end ? end + 1 : end;
    }
    return n;
}

static int numa_topology(record *r, ps_error *err)
{
    static long nodes[MAX_ITEMS];
    char buf[4096], path[128];
    size_t i, n;
    rec_blob f = { 0 };
    int ok;

    if (read_line(SYS "/node/online", buf, sizeof(buf)) < 0)
        return 0;
    n = list_items(buf, nodes, MAX_ITEMS);
    rec_put32(&f, (uint32_t)n);
    for (i = 0, ok = n > 0; i < n && ok; i++) {
        uint64_t total = 0, free_kb = 0;

        snprintf(path, sizeof(path), SYS "/node/node%ld/cpulist", nodes[i]);
        ok = node_mem(nodes[i], &total, &free_kb) == 0 && read_line(path, buf, sizeof(buf)) == 0;
        rec_put32(&f, (uint32_t)nodes[i]);
        rec_put64(&f, total);
        rec_put64(&f, free_kb);
        put_str(&f, buf);
    }
    return set(r, PS_HEADER_NUMA_TOPOLOGY, &f, ok, err);
}

static int by_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;

    return (x > y) - (x < y);
}

/* One node's memory blocks (its memoryN entries) as perf's bitmap: the
 * number of bits, then that number again and the 64-bit words. */
static int mem_node(rec_blob *f, long node)
{
    char path[128];
    struct dirent *d;
    uint64_t *words;
    unsigned long max = 0, blk;
    size_t nw;
    DIR *dir;

    snprintf(path, sizeof(path), SYS "/node/node%ld", node);
    if ((dir = opendir(path)) == NULL)
        return -1;
    while ((d = readdir(dir)) != NULL)
        if (sscanf(d->d_name, "memory%lu", &blk) == 1 && blk > max && blk < (1ul << 24))
            max = blk;
    nw = (max + 1 + 63) / 64;
    if ((words = calloc(nw, 8)) == NULL) {
        closedir(dir);
        return -1;
    }
    rewinddir(dir);
    while ((d = readdir(dir)) != NULL)
        if (sscanf(d->d_name, "memory%lu", &blk) == 1 && blk <= max)
            words[blk / 64] |= (uint64_t)1 << (blk % 64);
    closedir(dir);
    rec_put64(f, (uint64_t)node);
    rec_put64(f, max + 1);
    rec_put64(f, max + 1);
    rec_put(f, words, nw * 8);
    free(words);
    return 0;
}

static int mem_topology(record *r, ps_error *err)
{
    static long nodes[MAX_ITEMS];
    char buf[64];
    unsigned long long bsize;
    struct dirent *d;
    size_t i, n = 0;
    long node;
    rec_blob f = { 0 };
    DIR *dir;
    int ok = 1;

    if (read_line("/sys/devices/system/memory/block_size_bytes", buf, sizeof(buf)) < 0 ||
        sscanf(buf, "%llx", &bsize) != 1 || (dir = opendir(SYS "/node")) == NULL)
        return 0;
    while ((d = readdir(dir)) != NULL && n < MAX_ITEMS)
        if (sscanf(d->d_name, "node%ld", &node) == 1 && node >= 0)
            nodes[n++] = node;
    closedir(dir);
    qsort(nodes, n, sizeof(*nodes), by_long);
    rec_put64(&f, 1);
    rec_put64(&f, bsize);
    rec_put64(&f, n);
    for (i = 0; i < n && ok; i++)
        ok = mem_node(&f, nodes[i]) == 0;
    return set(r, PS_HEADER_MEM_TOPOLOGY, &f, ok && n > 0, err);
}

/* --- CACHE ---------------------------------------------------------------------------- */

typedef struct cache {
    uint32_t level, line, sets, ways;
    char     type[32], size[32], cpus[256];
} cache;

/* index I of a CPU: 1 absent, 0 read, -1 unreadable */
static int cache_read(long cpu, int idx, cache *c)
{
    char dir[128], path[192];
    long v[4];
    static const char *const num[4] = { "level", "coherency_line_size", "number_of_sets",
                                        "ways_of_associativity" };
    int i;

    snprintf(dir, sizeof(dir), SYS "/cpu/cpu%ld/cache/index%d", cpu, idx);
    if (access(dir, F_OK) != 0)
        return 1;
    for (i = 0; i < 4; i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, num[i]);
        if ((v[i] = read_long(path, -1)) < 0)
            return -1;
    }
    c->level = (uint32_t)v[0];
    c->line = (uint32_t)v[1];
    c->sets = (uint32_t)v[2];
    c->ways = (uint32_t)v[3];
    snprintf(path, sizeof(path), "%s/type", dir);
    if (read_line(path, c->type, sizeof(c->type)) < 0)
        return -1;
    snprintf(path, sizeof(path), "%s/size", dir);
    if (read_line(path, c->size, sizeof(c->size)) < 0)
        return -1;
    snprintf(path, sizeof(path), "%s/shared_cpu_list", dir);
    return read_line(path, c->cpus, sizeof(c->cpus)) < 0 ? -1 : 0;
}

static int same_cache(const cache *a, const cache *b)
{
    return a->level == b->level && a->line == b->line && a->sets == b->sets &&
           a->ways == b->ways && strcmp(a->type, b->type) == 0 &&
           strcmp(a->size, b->size) == 0 && strcmp(a->cpus, b->cpus) == 0;
}

/* Every distinct cache of every CPU, first seen first, then by level
 * (stable: perf's order on the machines compared). */
static int caches(record *r, uint32_t avail, ps_error *err)
{
    static cache c[MAX_ITEMS];
    size_t n = 0, i, k;
    uint32_t level, maxlevel = 0;
    rec_blob f = { 0 };
    long cpu;

    for (cpu = 0; cpu < (long)avail; cpu++)
        for (i = 0; i < MAX_CACHE_INDEX && n < MAX_ITEMS; i++) {
            int rc = cache_read(cpu, (int)i, &c[n]);

            if (rc < 0)
                return 0;
            if (rc == 1)
                break;
            for (k = 0; k < n && !same_cache(&c[k], &c[n]); k++)
                ;
            if (k == n && c[n++].level > maxlevel)
                maxlevel = c[n - 1].level;
        }
    if (n == 0)
        return 0;
    rec_put32(&f, 1);
    rec_put32(&f, (uint32_t)n);
    for (level = 0; level <= maxlevel; level++)
        for (i = 0; i < n; i++)
            if (c[i].level == level) {
                rec_put32(&f, c[i].level);
                rec_put32(&f, c[i].line);
                rec_put32(&f, c[i].sets);
                rec_put32(&f, c[i].ways);
                put_str(&f, c[i].type);
                put_str(&f, c[i].size);
                put_str(&f, c[i].cpus);
            }
    return set(r, PS_HEADER_CACHE, &f, 1, err);
}

/* --- PMU_MAPPINGS, PMU_CAPS, the empty BPF features ------------------------------------ */

/* The PMUs in sysfs, in directory order (perf's list order). */
static size_t pmu_names(char names[][64], size_t max)
{
    DIR *dir = opendir(PMUS);
    struct dirent *d;
    size_t n = 0;

    if (dir == NULL)
        return 0;
    while ((d = readdir(dir)) != NULL && n < max)
        if (d->d_name[0] != '.' && strlen(d->d_name) < 64)
            snprintf(names[n++], 64, "%s", d->d_name);
    closedir(dir);
    return n;
}

static int pmu_mappings(record *r, char names[][64], size_t n, ps_error *err)
{
    char path[192];
    size_t i, k = 0;
    rec_blob f = { 0 };

    rec_put32(&f, 0);
    for (i = 0; i < n; i++) {
        long type;

        snprintf(path, sizeof(path), PMUS "/%s/type", names[i]);
        if ((type = read_long(path, -1)) < 0)
            continue;
        rec_put32(&f, (uint32_t)type);
        put_str(&f, names[i]);
        k++;
    }
    if (!f.fail)
        memcpy(f.b, &(uint32_t){ (uint32_t)k }, 4);
    return set(r, PS_HEADER_PMU_MAPPINGS, &f, k > 0, err);
}

/* One PMU's caps directory as perf writes it (count, name/value strings,
 * the PMU's name); 0 when it has none. */
static size_t pmu_caps_one(rec_blob *f, const char *pmu)
{
    char dir[192], path[512], val[256];
    struct dirent *d;
    size_t n = 0, at = f->len;
    DIR *dp;

    snprintf(dir, sizeof(dir), PMUS "/%s/caps", pmu);
    if ((dp = opendir(dir)) == NULL)
        return 0;
    rec_put32(f, 0);
    while ((d = readdir(dp)) != NULL) {
        snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
        if (d->d_name[0] == '.' || read_line(path, val, sizeof(val)) < 0)
            continue;
        put_str(f, d->d_name);
        put_str(f, val);
        n++;
    }
    closedir(dp);
    if (n == 0 || f->fail) {
        f->len = at;
        return 0;
    }
    memcpy(f->b + at, &(uint32_t){ (uint32_t)n }, 4);
    put_str(f, pmu);
    return n;
}

/* PMU_CAPS: every PMU but "cpu" that has capabilities (perf 6.1). */
static int pmu_caps(record *r, char names[][64], size_t n, ps_error *err)
{
    size_t i, k = 0;
    rec_blob f = { 0 };

    rec_put32(&f, 0);
    for (i = 0; i < n; i++)
        if (strcmp(names[i], "cpu") != 0 && pmu_caps_one(&f, names[i]) > 0)
            k++;
    if (!f.fail)
        memcpy(f.b, &(uint32_t){ (uint32_t)k }, 4);
    return set(r, PS_HEADER_PMU_CAPS, &f, 1, err);
}

int rec_features_topology(record *r, uint32_t avail, ps_error *err)
{
    static char names[256][64];
    uint32_t zero = 0;
    size_t n = pmu_names(names, 256);

    if (cpu_topology(r, avail, err) < 0 || numa_topology(r, err) < 0 ||
        pmu_mappings(r, names, n, err) < 0 || caches(r, avail, err) < 0 ||
        mem_topology(r, err) < 0 ||
        ps_writer_set_feature(r->w, PS_HEADER_BPF_PROG_INFO, &zero, 4, err) < 0 ||
        ps_writer_set_feature(r->w, PS_HEADER_BPF_BTF, &zero, 4, err) < 0 ||
        pmu_caps(r, names, n, err) < 0)
        return -1;
    return 0;
}
