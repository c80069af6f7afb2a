/* SPDX-License-Identifier: MIT */
/*
 * read_split.h - perf's delivery of PERF_SAMPLE_READ samples: one sample
 * per read value, for that value's event, whose period is the value's
 * increase since the same id's previous sample (zero increases are not
 * delivered). Shared by `info --stats` and `script`.
 */
#ifndef PS_CMD_READ_SPLIT_H
#define PS_CMD_READ_SPLIT_H

#include <stddef.h>
#include <stdint.h>

/* last value per event id: open addressing, ids stored +1 (0 = free slot) */
typedef struct read_split {
    uint64_t *ids, *vals;
    size_t    slots, used;
} read_split;

#define READ_SPLIT_INIT { NULL, NULL, 0, 0 }

/**
 * Record value for id and give the period perf delivers for it.
 * @return 0, or -1 when out of memory
 */
int  read_split_period(read_split *rs, uint64_t id, uint64_t value, uint64_t *period);
void read_split_free(read_split *rs);

#endif /* PS_CMD_READ_SPLIT_H */
