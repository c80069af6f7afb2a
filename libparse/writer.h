/* SPDX-License-Identifier: MIT */
/*
 * writer.h - the perf.data writer: what perf 6.1 requires of a file (spec
 * 15) in file mode and pipe mode (spec 5), with optional zstd COMPRESSED
 * records (spec 11). Used by `perfsift record`.
 *
 * Life of a writer:
 *   ps_writer_open -> ps_writer_add_attr... -> ps_writer_set_feature...
 *   -> ps_writer_begin -> ps_writer_write / ps_writer_round...
 *   -> ps_writer_set_feature... (file mode: features may come late)
 *   -> ps_writer_finish -> ps_writer_free
 *
 * File mode: begin writes a header with data.size 0 (what a killed recorder
 * leaves; ps_writer_repair terminates such a file), the id arrays and the
 * attr table; finish writes the feature table at data.offset + data.size
 * and rewrites the header with the real sizes. Pipe mode: begin writes the
 * 16-byte header, one HEADER_ATTR per attr, one HEADER_FEATURE per feature
 * set so far, the end-of-features marker and HEADER_TRACING_DATA; nothing
 * is ever rewritten.
 *
 * Attrs are stored with attr.size 128 (perf 6.1 refuses larger ones).
 * Records are copied verbatim (native byte order).
 */
#ifndef PS_WRITER_H
#define PS_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include "perfsift.h"

#define PS_WRITER_ATTR_SIZE 128         /* PERF_ATTR_SIZE_VER7, perf 6.1's */
#define PS_WRITER_MMAP_LEN  528384u   /* COMPRESSED mmap_len, as perf 6.1 (spec 6.4) */

enum ps_writer_flag {
    PS_WRITER_PIPE = 1,                 /* pipe mode: no seeking, no rewrite */
    PS_WRITER_ZSTD = 2,                 /* records inside COMPRESSED records */
};

/* Feature bits: perfsift.h's PS_HEADER_*. perf 6.1's HEADER_LAST_FEATURE: */
#define PS_FEAT_LAST 32

typedef struct ps_writer ps_writer;

/** A writer on fd (not closed by the writer). level: zstd level with ZSTD. */
int  ps_writer_open(ps_writer **out, int fd, unsigned flags, int level, ps_error *err);
/** Free the writer (NULL is fine); does not finish the file. */
void ps_writer_free(ps_writer *w);

/**
 * Add an event before begin. attr: the kernel's struct perf_event_attr,
 * at least PS_WRITER_ATTR_SIZE bytes (later bytes are dropped); ids: its
 * fds' PERF_EVENT_IOC_ID values; name: as EVENT_DESC names it.
 */
int ps_writer_add_attr(ps_writer *w, const void *attr, const uint64_t *ids, size_t nids,
                       const char *name, ps_error *err);
/** Set (or replace) feature bit's payload. Pipe mode: only before begin. */
int ps_writer_set_feature(ps_writer *w, unsigned bit, const void *buf, size_t len,
                          ps_error *err);
/** Write what precedes the records (see above). EVENT_DESC is added here. */
int ps_writer_begin(ps_writer *w, ps_error *err);
/** Append whole records (len bytes, one or several). */
int ps_writer_write(ps_writer *w, const void *rec, size_t len, ps_error *err);
/** Append FINISHED_ROUND and push buffered bytes (and compressed ones) out. */
int ps_writer_round(ps_writer *w, ps_error *err);
/** Flush; file mode: feature section and the header with the real sizes. */
int ps_writer_finish(ps_writer *w, ps_error *err);

/** Bytes of records written so far (before compression). */
uint64_t ps_writer_bytes_in(const ps_writer *w);
/** Bytes written to the fd so far. */
uint64_t ps_writer_bytes_out(const ps_writer *w);

/* writer_feat.c: payload builders. Each returns a malloc'd buffer (*len
 * set) or NULL on out of memory. */

/** A perf string (u32 len, text, NUL, zeros to a multiple of 64). */
uint8_t *ps_feat_string(const char *s, size_t *len);
/** A string list (u32 nr, then nr perf strings). */
uint8_t *ps_feat_string_list(const char *const *v, size_t nr, size_t *len);

/** A BUILD_ID feature being built, one entry per DSO (spec 6.4). */
typedef struct ps_buildid_list {
    uint8_t *buf;
    size_t   len, cap;
} ps_buildid_list;
/** Append an entry (cpumode 1 kernel / 2 user, pid -1 for the host). */
int ps_buildid_list_add(ps_buildid_list *l, uint16_t cpumode, int32_t pid,
                        const uint8_t *bid, size_t bid_size, const char *path);

/* writer_repair.c */

/** What ps_writer_repair found. */
typedef struct ps_repair_info {
    uint64_t records;           /* complete records kept */
    uint64_t data_size;         /* bytes of them */
    uint64_t dropped;           /* bytes after the last complete record */
    int      compressed;        /* COMPRESSED records present */
    int      tracepoints;       /* tracepoint attrs present */
    uint64_t tp_config[64];     /* their configs (tracefs ids), the first 64 */
} ps_repair_info;

/**
 * Terminate a file-mode capture whose recorder died before finishing it
 * (header data.size 0): keep the complete records, drop a torn last one,
 * write features (COMPRESSED when needed, plus extra[bit] payloads given
 * by the caller, e.g. TRACING_DATA) and the header. The file is changed in
 * place. @return PS_OK, or a negative code with err set
 */
typedef struct ps_repair_feat {
    unsigned    bit;
    const void *buf;
    size_t      len;
} ps_repair_feat;
int ps_writer_repair(const char *path, const ps_repair_feat *extra, size_t nextra,
                     ps_repair_info *info, ps_error *err);
/** Only look: fill info for path without changing it. */
int ps_writer_repair_scan(const char *path, ps_repair_info *info, ps_error *err);

#endif /* PS_WRITER_H */
