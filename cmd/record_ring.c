/* SPDX-License-Identifier: MIT */
/*
 * record_ring.c - one mmap ring per CPU (spec 14): the first fd of each CPU
 * owns the mapping, the CPU's other fds write into it (SET_OUTPUT). Drained
 * with the head/tail protocol of spec 14.2: data_head loaded with acquire
 * semantics, records handled from data_tail to data_head, data_tail stored
 * with release semantics so the kernel may reuse the space. A record whose
 * body wraps past the end of the data area is re-joined in r->scratch.
 *
 * Invariants: a record header never wraps (sizes are multiples of 8); a
 * size below 8 or past data_head means the ring is not what we think it
 * is: the rest of that pass is skipped (tail = head) rather than read.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include "record.h"

#define SCRATCH_SIZE 65536               /* a record's size is a u16 */

int rec_rings_mmap(record *r)
{
    long page = sysconf(_SC_PAGESIZE);
    size_t per_cpu = r->nev * r->ntids, c, k;

    r->nrings = r->ncpus;
    if ((r->rings = calloc(r->nrings, sizeof(*r->rings))) == NULL ||
        (r->scratch = malloc(SCRATCH_SIZE)) == NULL)
        return -1;
    for (c = 0; c < r->ncpus; c++) {
        rec_ring *g = &r->rings[c];
        int lead = r->fds[c * per_cpu];

        g->fd = lead;
        g->cpu = r->cpus[c];
        g->out_fd = -1;
        g->size = (uint64_t)r->pages * (uint64_t)page;
        g->base = mmap(NULL, (size_t)(g->size + (uint64_t)page), PROT_READ | PROT_WRITE,
                       MAP_SHARED, lead, 0);
        if (g->base == MAP_FAILED) {
            int e = errno;

            g->base = NULL;
            if (e == EPERM || e == ENOMEM)
                rec_error("cannot map a ring of %u pages (%s): the locked-memory limit is "
                          "exceeded; see kernel.perf_event_mlock_kb (%s) and 'ulimit -l', "
                          "or use fewer pages (-m)", r->pages, strerror(e),
                          "/proc/sys/kernel/perf_event_mlock_kb");
            else
                rec_error("cannot map the ring of CPU %d: %s%s", g->cpu, strerror(e),
                          e == EINVAL ? " (-m must be a power of two)" : "");
            return -1;
        }
        for (k = 1; k < per_cpu; k++)
            if (ioctl(r->fds[c * per_cpu + k], PERF_EVENT_IOC_SET_OUTPUT, lead) < 0) {
                rec_error("PERF_EVENT_IOC_SET_OUTPUT: %s", strerror(errno));
                return -1;
            }
    }
    return 0;
}

void rec_rings_unmap(record *r)
{
    long page = sysconf(_SC_PAGESIZE);
    size_t i;

    for (i = 0; i < r->nrings; i++)
        if (r->rings[i].base != NULL)
            munmap(r->rings[i].base, (size_t)(r->rings[i].size + (uint64_t)page));
    free(r->rings);
    free(r->scratch);
    r->rings = NULL;
    r->scratch = NULL;
    r->nrings = 0;
}

/* Wait for data (or a signal, or the timeout). @return 1 when every ring
 * is hung up (all monitored tasks exited: nothing more will come), else 0 */
int rec_rings_poll(record *r, int timeout_ms)
{
    struct pollfd pfd[1024];
    size_t i, n = r->nrings < 1024 ? r->nrings : 1024, hup = 0;

    for (i = 0; i < n; i++)
        pfd[i] = (struct pollfd){ .fd = r->rings[i].fd, .events = POLLIN };
    if (poll(pfd, n, timeout_ms) <= 0)
        return 0;
    for (i = 0; i < n; i++) {
        hup += (pfd[i].revents & POLLHUP) != 0;
    }
    return n > 0 && hup == n;
}

static int drain_one(record *r, size_t idx, uint64_t *bytes)
{
    rec_ring *g = &r->rings[idx];
    struct perf_event_mmap_page *pg = (void *)g->base;
    uint8_t *data = g->base + sysconf(_SC_PAGESIZE);
    uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = pg->data_tail, mask = g->size - 1;
    int rc = 0;

    while (tail < head) {
        uint64_t off = tail & mask;
        struct perf_event_header *h = (void *)(data + off);
        const uint8_t *rec = data + off;

        if (h->size < 8 || h->size > head - tail) {
            rec_error("ring of CPU %d: bad record size %u at %llu; skipping to the head",
                      g->cpu, h->size, (unsigned long long)tail);
            break;
        }
        if (off + h->size > g->size) {       /* the body wraps */
            size_t first = (size_t)(g->size - off);

            memcpy(r->scratch, rec, first);
            memcpy(r->scratch + first, data, h->size - first);
            rec = r->scratch;
        }
        rec_out_note(r, rec);
        if ((rc = rec_out_emit(r, idx, rec, ((const struct perf_event_header *)rec)->size)) < 0)
            break;
        *bytes += h->size;
        tail += h->size;
    }
    __atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
    return rc;
}

/* One pass over every ring; *bytes: how much it moved. */
int rec_rings_drain(record *r, uint64_t *bytes)
{
    size_t i;

    *bytes = 0;
    for (i = 0; i < r->nrings; i++)
        if (drain_one(r, i, bytes) < 0)
            return -1;
    return 0;
}
