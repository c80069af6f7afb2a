/* SPDX-License-Identifier: MIT */
/*
 * record_synth.c - what the kernel never tells a recorder that starts
 * late: the kernel image and modules as MMAP records, every existing
 * thread as FORK + COMM and every process's executable mappings as MMAP2
 * (spec 15.2), all read from /proc; and the host-description features
 * (HOSTNAME ... CMDLINE, spec 6.4).
 *
 * With --raw-ring they start every ring's dump, so each decodes alone.
 * Synthesized records carry a zero sample_id trailer (time 0: perf
 * delivers them at once, spec 12.2), sized for the first attr, whose id 0
 * they name (spec 15.1 item 7).
 */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "../libparse/util.h"
#include "common.h"
#include "record.h"

#define MISC_KERNEL 1
#define MISC_USER   2
#define MISC_MMAP_DATA (1 << 13)
#define REC_MAX     4096

/* Header, body (blen bytes, padded to 8) and a zero trailer, emitted. */
static int emit(record *r, uint32_t type, uint16_t misc, const void *body, size_t blen)
{
    uint8_t rec[REC_MAX];
    size_t size = 8 + PS_ALIGN8(blen) + rec_id_hdr_size(r);
    struct perf_event_header h = { type, misc, (uint16_t)size };

    if (size > sizeof(rec))
        return 0;                       /* a path this long: leave the map out */
    memset(rec, 0, size);
    memcpy(rec, &h, 8);
    memcpy(rec + 8, body, blen);
    rec_out_note(r, rec);
    return rec_out_emit(r, REC_RING_ALL, rec, size);
}

/* The kernel's text range from /proc/kallsyms, in one pass that stops at
 * _etext. Read before the events go on (record.c): reading the file takes
 * a tenth of a second or more, and a task that exits between enabling and
 * the /proc walk leaves samples with no COMM anywhere. */
void rec_kernel_text(record *r)
{
    FILE *f = fopen("/proc/kallsyms", "r");
    char line[512], name[256], t;
    unsigned long long a;

    r->ktext = r->ketext = 0;
    if (f == NULL)
        return;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "%llx %c %255s", &a, &t, name) == 3) {
            if (strcmp(name, "_text") == 0)
                r->ktext = a;
            else if (strcmp(name, "_etext") == 0 && (r->ketext = a) != 0)
                break;
        }
    fclose(f);
}

static int emit_mmap(record *r, uint16_t misc, int32_t pid, int32_t tid, uint64_t start,
                     uint64_t len, uint64_t pgoff, const char *name)
{
    uint8_t b[REC_MAX];
    size_t n = strlen(name) + 1;

    if (40 + n > sizeof(b) - 64)
        return 0;
    memcpy(b, &pid, 4);
    memcpy(b + 4, &tid, 4);
    memcpy(b + 8, &start, 8);
    memcpy(b + 16, &len, 8);
    memcpy(b + 24, &pgoff, 8);
    memcpy(b + 32, name, n);
    return emit(r, PERF_RECORD_MMAP, misc, b, 32 + n);
}

/* The kernel map perf synthesizes (spec 7.3.1), then one per module. */
int rec_synth_kernel(record *r)
{
    uint64_t text = r->ktext, etext = r->ketext;
    FILE *f;
    char line[512], name[128];
    unsigned long long size, addr;

    if (text != 0 && emit_mmap(r, MISC_KERNEL, -1, 0, text, etext > text ? etext - text :
                               0x2000000, text, "[kernel.kallsyms]_text") < 0)
        return -1;
    if ((f = fopen("/proc/modules", "r")) == NULL)
        return 0;
    while (fgets(line, sizeof(line), f)) {
        char path[160];

        if (sscanf(line, "%127s %llu %*s %*s %*s %llx", name, &size, &addr) != 3 || addr == 0)
            continue;
        snprintf(path, sizeof(path), "[%s]", name);
        if (emit_mmap(r, MISC_KERNEL, -1, 0, addr, size, 0, path) < 0)
            break;
    }
    fclose(f);
    return 0;
}

static int emit_comm(record *r, int32_t pid, int32_t tid, const char *comm)
{
    uint8_t b[32] = { 0 };

    memcpy(b, &pid, 4);
    memcpy(b + 4, &tid, 4);
    memcpy(b + 8, comm, strnlen(comm, 15));
    return emit(r, PERF_RECORD_COMM, 0, b, 8 + strnlen(comm, 15) + 1);
}

static int emit_fork(record *r, int32_t pid, int32_t ppid, int32_t tid, int32_t ptid)
{
    int32_t b[6] = { pid, ppid, tid, ptid, 0, 0 };

    return emit(r, PERF_RECORD_FORK, 0, b, sizeof(b));
}

/* One /proc/PID/maps line as MMAP2: executable mappings, and data ones
 * too with mmap_data (dwarf mode: perf's unwinder looks for [stack]). */
static int emit_map_line(record *r, int32_t pid, const char *line)
{
    unsigned long long start, end, pgoff, ino;
    unsigned maj, min;
    char perms[8], path[REC_MAX / 2] = "";
    uint8_t b[REC_MAX];
    uint32_t prot, flags, z = 0;
    uint64_t len, ino64;
    size_t n;
    int exec;

    if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %2047[^\n]", &start, &end, perms, &pgoff,
               &maj, &min, &ino, path) < 7)
        return 0;
    exec = strchr(perms, 'x') != NULL;
    if (!exec && !r->ev[0].attr.mmap_data)
        return 0;
    if (path[0] == 0)
        snprintf(path, sizeof(path), "//anon");
    prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
           (exec ? PROT_EXEC : 0);
    flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
    len = end - start;
    ino64 = ino;
    n = strlen(path) + 1;
    memcpy(b, &pid, 4);
    memcpy(b + 4, &pid, 4);
    memcpy(b + 8, &start, 8);
    memcpy(b + 16, &len, 8);
    memcpy(b + 24, &pgoff, 8);
    memcpy(b + 32, &maj, 4);
    memcpy(b + 36, &min, 4);
    memcpy(b + 40, &ino64, 8);
    memcpy(b + 48, &z, 4);              /* ino_generation: u64 zero */
    memcpy(b + 52, &z, 4);
    memcpy(b + 56, &prot, 4);
    memcpy(b + 60, &flags, 4);
    memcpy(b + 64, path, n);
    return emit(r, PERF_RECORD_MMAP2, exec ? MISC_USER : MISC_USER | MISC_MMAP_DATA, b, 64 + n);
}

static int synth_maps(record *r, pid_t pid)
{
    char path[64], line[REC_MAX];
    FILE *f;
    int rc = 0;

    snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
    if ((f = fopen(path, "r")) == NULL)
        return 0;                       /* gone meanwhile */
    while (rc == 0 && fgets(line, sizeof(line), f))
        rc = emit_map_line(r, pid, line);
    fclose(f);
    return rc;
}

static void read_comm(pid_t pid, pid_t tid, char comm[16])
{
    char path[96];
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
    comm[0] = 0;
    if ((f = fopen(path, "r")) != NULL) {
        if (fgets(comm, 16, f))
            comm[strcspn(comm, "\n")] = 0;
        fclose(f);
    }
}

static pid_t read_ppid(pid_t pid)
{
    char path[64], line[256];
    FILE *f;
    int ppid = 0;

    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    if ((f = fopen(path, "r")) == NULL)
        return 0;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "PPid: %d", &ppid) == 1)
            break;
    fclose(f);
    return ppid;
}

/* A process: FORK (SYNTH_FORK) and COMM per thread, then its MMAP2s
 * (SYNTH_MAPS). A command about to exec gets COMMs only, as perf does:
 * its maps are the recorder's, replaced at exec, and stale ones would
 * overlap the new image's in a reader. */
int rec_synth_pid(record *r, pid_t pid, unsigned how)
{
    int with_fork = (how & SYNTH_FORK) != 0;
    char path[64], comm[16];
    struct dirent *d;
    DIR *dir;
    pid_t ppid = with_fork ? read_ppid(pid) : 0;
    int rc = 0;

    snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
    if ((dir = opendir(path)) == NULL)
        return 0;
    while (rc == 0 && (d = readdir(dir)) != NULL) {
        pid_t tid = (pid_t)atoi(d->d_name);

        if (tid <= 0)
            continue;
        read_comm(pid, tid, comm);
        if (with_fork)
            rc = tid == pid ? emit_fork(r, pid, ppid, tid, ppid) : emit_fork(r, pid, pid, tid, pid);
        if (rc == 0)
            rc = emit_comm(r, pid, tid, comm);
    }
    closedir(dir);
    return rc == 0 && (how & SYNTH_MAPS) ? synth_maps(r, pid) : rc;
}

int rec_synth_all(record *r)
{
    struct dirent *d;
    DIR *dir = opendir("/proc");
    int rc = 0;

    if (dir == NULL)
        return 0;
    while (rc == 0 && (d = readdir(dir)) != NULL)
        if (isdigit((unsigned char)d->d_name[0]))
            rc = rec_synth_pid(r, (pid_t)atoi(d->d_name), SYNTH_FORK | SYNTH_MAPS);
    closedir(dir);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Host features                                                             */

static int set_string(record *r, unsigned bit, const char *s, ps_error *err)
{
    size_t len;
    uint8_t *b = ps_feat_string(s, &len);
    int rc;

    if (b == NULL)
        return -1;
    rc = ps_writer_set_feature(r->w, bit, b, len, err);
    free(b);
    return rc;
}

static uint64_t mem_total_kb(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    unsigned long long kb = 0;
    char line[256];

    if (f == NULL)
        return 0;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "MemTotal: %llu", &kb) == 1)
            break;
    fclose(f);
    return kb;
}

static int set_cmdline(record *r, ps_error *err)
{
    const char **v = calloc((size_t)r->cmd_argc + 3, sizeof(*v));
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    uint8_t *b;
    size_t len;
    int i, rc = -1;

    if (v == NULL)
        return -1;
    self[n > 0 ? n : 0] = 0;
    v[0] = n > 0 ? self : "perfsift";
    v[1] = "record";                    /* perf's form: the binary, the command, options */
    for (i = 1; i < r->cmd_argc; i++)
        v[i + 1] = r->cmd_argv[i];
    if ((b = ps_feat_string_list(v, (size_t)(r->cmd_argc > 1 ? r->cmd_argc + 1 : 2), &len))) {
        rc = ps_writer_set_feature(r->w, PS_HEADER_CMDLINE, b, len, err);
        free(b);
    }
    free(v);
    return rc;
}

int rec_features_host(record *r, ps_error *err)
{
    struct utsname u;
    char desc[256], id[128];
    uint32_t nr[2] = { rec_cpus_avail(),
                       (uint32_t)sysconf(_SC_NPROCESSORS_ONLN) };
    uint64_t mem = mem_total_kb();

    if (uname(&u) < 0)
        memset(&u, 0, sizeof(u));
    cmd_host_cpu(desc, sizeof(desc), id, sizeof(id));
    if (set_string(r, PS_HEADER_HOSTNAME, u.nodename, err) < 0 ||
        set_string(r, PS_HEADER_OSRELEASE, u.release, err) < 0 ||
        set_string(r, PS_HEADER_VERSION, "0.1.0 (perfsift record)", err) < 0 ||
        set_string(r, PS_HEADER_ARCH, u.machine, err) < 0 ||
        ps_writer_set_feature(r->w, PS_HEADER_NRCPUS, nr, sizeof(nr), err) < 0 ||
        set_string(r, PS_HEADER_CPUDESC, desc, err) < 0 ||
        set_string(r, PS_HEADER_CPUID, id, err) < 0 ||
        ps_writer_set_feature(r->w, PS_HEADER_TOTAL_MEM, &mem, sizeof(mem), err) < 0 ||
        set_cmdline(r, err) < 0 || rec_features_topology(r, nr[0], err) < 0)
        return -1;
    return 0;
}
