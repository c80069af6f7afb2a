/* SPDX-License-Identifier: MIT */
/*
 * hist_cache.h - which row a location went to, remembered (hist_capture.c):
 * by (table, pid, tid, cpu, cpumode, address) for a sample's own location,
 * and with the sample's level too for an entry of its call chain.
 * Resolving an address and hashing the names of a row cost far more than
 * this lookup, and a profile repeats few locations.
 *
 * A row only depends on those keys while the threads and maps stay as
 * they are: hist_cache_forget() after every record that changes them
 * (COMM, FORK, EXIT, MMAP, MMAP2, KSYMBOL), and the rows must keep
 * their indexes (forget before hist_collapse()). Direct-mapped: a newer
 * entry takes an older one's slot.
 */
#ifndef PS_CMD_HIST_CACHE_H
#define PS_CMD_HIST_CACHE_H

#include <stdint.h>
#include "hist.h"

typedef struct hist_cache hist_cache;

typedef struct hist_loc_key {
    const hist *h;
    uint64_t    ip;             /* as recorded */
    uint32_t    pid, tid, cpu;
    uint16_t    cpumode;        /* PERF_RECORD_MISC_* it is looked up in */
    char        level;          /* a chain entry: the sample's level;
                                 * the sample's own location: 0 */
} hist_loc_key;

/** NULL out of memory. */
hist_cache *hist_cache_new(void);
void        hist_cache_free(hist_cache *c);
/** Forget every entry (the threads or maps changed). */
void        hist_cache_forget(hist_cache *c);
/** The row index + 1 of k, 0 when not known; *comm what was put with it. */
uint32_t    hist_cache_get(const hist_cache *c, const hist_loc_key *k, const char **comm);
/** Remember row (index + 1) and comm (a string that outlives the cache)
 * for k. */
void        hist_cache_put(hist_cache *c, const hist_loc_key *k, uint32_t row,
                           const char *comm);

#endif /* PS_CMD_HIST_CACHE_H */
