/* SPDX-License-Identifier: MIT */
/*
 * ringsnap.c - make raw ring dumps of both forms from a live perf ring, for
 * tests/diff/ring.sh and testdata/ring/ (spec 14).
 *
 *   ringsnap snap PREFIX       PREFIX.snap   control page + data pages, taken
 *                                            while data_tail..data_head holds
 *                                            unconsumed records that straddle
 *                                            the end of the data area
 *                              PREFIX.stream the same records, drained in
 *                                            order (wrapped ones re-joined)
 *                              PREFIX.full   every record ever written (file
 *                                            offset == ring position)
 *                              PREFIX.attr.bin  the binary perf_event_attr
 *   ringsnap overwrite PREFIX  PREFIX.snap, PREFIX.attr.bin of a read-only
 *                              (overwrite mode) ring that wrapped 3+ times
 *   ringsnap wide-attr FILE    the binary attr shared/corpus/ring/ring.c used
 *                              for wide.raw (not opened; just written)
 *
 * The event is task-clock on this process (a software event: no PMU needed),
 * sampling IP|TID|TIME|ID|CPU|PERIOD|CALLCHAIN with sample_id_all, in a ring
 * of 2 data pages. `snap` consumes records as a reader would (advancing
 * data_tail) until the ring has wrapped at least once and the live region
 * crosses the end of the data area with a record whose body wraps; it also
 * renames the thread and maps an executable page after each drain, so the
 * live region carries COMM and MMAP2 records too. The event is disabled
 * while the ring is inspected, so the snapshot is stable. Prints the event
 * id and the control-page values on stdout.
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define DATA_PAGES 2
#define MAX_ROUNDS 2000000

volatile unsigned long sink;

__attribute__((noinline)) static void burn(long n)
{
    unsigned long x = 1;

    for (long i = 0; i < n; i++)
        x = x * 6364136223846793005ULL + 1;
    sink = x;
}

static void die(const char *what)
{
    perror(what);
    exit(1);
}

static void sample_attr(struct perf_event_attr *a)
{
    memset(a, 0, sizeof(*a));
    a->size = sizeof(*a);
    a->type = PERF_TYPE_SOFTWARE;
    a->config = PERF_COUNT_SW_TASK_CLOCK;
    a->sample_period = 20000;
    a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                     PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
                     PERF_SAMPLE_CALLCHAIN;
    a->read_format = PERF_FORMAT_ID;
    a->disabled = 1;
    a->mmap = 1;
    a->comm = 1;
    a->task = 1;
    a->sample_id_all = 1;
    a->mmap2 = 1;
    a->comm_exec = 1;
    a->exclude_guest = 1;
}

/* The attr of shared/corpus/ring/ring.c mode "wide", field for field. */
static void wide_attr(struct perf_event_attr *a)
{
    memset(a, 0, sizeof(*a));
    a->size = sizeof(*a);
    a->type = PERF_TYPE_SOFTWARE;
    a->config = PERF_COUNT_SW_DUMMY;
    a->sample_period = 1;
    a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
                     PERF_SAMPLE_IDENTIFIER;
    a->disabled = 1; a->mmap = 1; a->mmap2 = 1; a->comm = 1; a->task = 1;
    a->sample_id_all = 1; a->context_switch = 1; a->namespaces = 1;
    a->ksymbol = 1; a->bpf_event = 1; a->cgroup = 1; a->text_poke = 1;
}

static void write_file(const char *prefix, const char *suffix, const void *p, size_t n)
{
    char path[4096];
    FILE *f;

    snprintf(path, sizeof(path), "%s%s", prefix, suffix);
    if ((f = fopen(path, "wb")) == NULL || fwrite(p, 1, n, f) != n || fclose(f) != 0)
        die(path);
}

typedef struct ring {
    int fd;
    struct perf_event_mmap_page *pc;
    unsigned char *data;
    uint64_t size;              /* data_size */
    uint64_t tail;              /* our consumer position */
    size_t map_len;
} ring;

static void ring_open(ring *r, struct perf_event_attr *a, int prot)
{
    long psz = sysconf(_SC_PAGESIZE);

    r->fd = (int)syscall(__NR_perf_event_open, a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (r->fd < 0)
        die("perf_event_open");
    r->map_len = (size_t)(1 + DATA_PAGES) * (size_t)psz;
    r->pc = mmap(NULL, r->map_len, prot, MAP_SHARED, r->fd, 0);
    if (r->pc == MAP_FAILED)
        die("mmap");
    r->data = (unsigned char *)r->pc + r->pc->data_offset;
    r->size = r->pc->data_size;
    r->tail = 0;
}

static uint64_t ring_head(const ring *r)
{
    return __atomic_load_n(&r->pc->data_head, __ATOMIC_ACQUIRE);
}

/* Append the records tail..head to f (NULL: drop them), re-joining wrapped
 * ones; return how many records had a wrapped body. */
static int copy_records(const ring *r, uint64_t from, uint64_t head, FILE *f)
{
    int wrapped = 0;

    while (from < head) {
        size_t off = (size_t)(from % r->size);
        struct perf_event_header h;
        unsigned char buf[65536];
        size_t first;

        memcpy(&h, r->data + off, sizeof(h));   /* headers never wrap */
        first = off + h.size > r->size ? r->size - off : h.size;
        memcpy(buf, r->data + off, first);
        memcpy(buf + first, r->data, h.size - first);
        wrapped += first < h.size;
        if (f && fwrite(buf, 1, h.size, f) != h.size)
            die("write");
        from += h.size;
    }
    return wrapped;
}

static void consume(ring *r, uint64_t head, FILE *full)
{
    copy_records(r, r->tail, head, full);
    r->tail = head;
    __atomic_store_n(&r->pc->data_tail, head, __ATOMIC_RELEASE);
}

/* A COMM and an MMAP2 record for the live region. */
static void side_band(int n)
{
    char name[16];
    void *m;

    snprintf(name, sizeof(name), "ringsnap-%d", n % 1000);
    prctl(PR_SET_NAME, name, 0, 0, 0);
    m = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m != MAP_FAILED)
        munmap(m, 4096);
}

static int live_ok(const ring *r, uint64_t head)
{
    uint64_t live = head - r->tail;

    return head >= 2 * r->size && live >= r->size / 2 && live < r->size &&
           r->tail % r->size + live > r->size &&
           copy_records(r, r->tail, head, NULL) > 0;
}

static void snap(const char *prefix)
{
    struct perf_event_attr a;
    char path[4096];
    FILE *full;
    uint64_t head = 0, id;
    ring r;
    int n;

    sample_attr(&a);
    ring_open(&r, &a, PROT_READ | PROT_WRITE);
    ioctl(r.fd, PERF_EVENT_IOC_ID, &id);
    snprintf(path, sizeof(path), "%s.full", prefix);
    if ((full = fopen(path, "wb")) == NULL)
        die(path);
    for (n = 0; n < MAX_ROUNDS; n++) {
        ioctl(r.fd, PERF_EVENT_IOC_ENABLE, 0);
        burn(3000);
        ioctl(r.fd, PERF_EVENT_IOC_DISABLE, 0);
        head = ring_head(&r);
        if (live_ok(&r, head))
            break;
        if (head - r.tail >= r.size * 3 / 4) {
            consume(&r, head, full);
            ioctl(r.fd, PERF_EVENT_IOC_ENABLE, 0);
            side_band(n);
        }
    }
    if (n == MAX_ROUNDS) {
        fprintf(stderr, "ringsnap: no straddling live region after %d rounds\n", n);
        exit(1);
    }
    write_file(prefix, ".snap", r.pc, r.map_len);
    snprintf(path, sizeof(path), "%s.stream", prefix);
    {
        FILE *f = fopen(path, "wb");

        if (f == NULL)
            die(path);
        n = copy_records(&r, r.tail, head, f);
        if (fclose(f) != 0)
            die(path);
    }
    copy_records(&r, r.tail, head, full);
    if (fclose(full) != 0)
        die("full");
    write_file(prefix, ".attr.bin", &a, sizeof(a));
    printf("id %llu pid %d data_size %llu data_tail %llu data_head %llu wrapped_records %d\n",
           (unsigned long long)id, (int)getpid(), (unsigned long long)r.size,
           (unsigned long long)r.tail, (unsigned long long)head, n);
}

static void overwrite(const char *prefix)
{
    struct perf_event_attr a;
    uint64_t id, head;
    ring r;

    sample_attr(&a);
    ring_open(&r, &a, PROT_READ);           /* no PROT_WRITE: overwrite mode */
    ioctl(r.fd, PERF_EVENT_IOC_ID, &id);
    ioctl(r.fd, PERF_EVENT_IOC_ENABLE, 0);
    do
        burn(100000);
    while (ring_head(&r) < 3 * r.size + r.size / 3);
    ioctl(r.fd, PERF_EVENT_IOC_DISABLE, 0);
    head = ring_head(&r);
    write_file(prefix, ".snap", r.pc, r.map_len);
    write_file(prefix, ".attr.bin", &a, sizeof(a));
    printf("id %llu pid %d data_size %llu data_tail %llu data_head %llu\n",
           (unsigned long long)id, (int)getpid(), (unsigned long long)r.size,
           (unsigned long long)r.pc->data_tail, (unsigned long long)head);
}

int main(int argc, char **argv)
{
    struct perf_event_attr a;

    if (argc == 3 && strcmp(argv[1], "snap") == 0)
        snap(argv[2]);
    else if (argc == 3 && strcmp(argv[1], "overwrite") == 0)
        overwrite(argv[2]);
    else if (argc == 3 && strcmp(argv[1], "wide-attr") == 0) {
        wide_attr(&a);
        write_file(argv[2], "", &a, sizeof(a));
    } else {
        fprintf(stderr, "usage: ringsnap snap|overwrite PREFIX | ringsnap wide-attr FILE\n");
        return 2;
    }
    return 0;
}
