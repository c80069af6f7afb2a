/* SPDX-License-Identifier: MIT */
/*
 * record.h - what the files of `perfsift record` share: the events, the
 * rings, the output sink and the statistics of one recording.
 *
 *   record.c        options, the main loop, the summary, --repair
 *   record_events.c -e parsing, attrs, perf_event_open and its errors
 *   record_ring.c   mmap rings drained by the head/tail protocol (spec 14)
 *   record_synth.c  side-band records synthesized from /proc, host features
 *   record_tp.c     the TRACING_DATA blob from tracefs (spec 10)
 *   record_out.c    where records go: the writer, or --raw-ring files;
 *                   build-ids of the DSOs that got samples
 */
#ifndef PS_CMD_RECORD_H
#define PS_CMD_RECORD_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <sys/types.h>
#include "../libparse/writer.h"

#define REC_NAME_MAX 256
#define REC_RING_ALL ((size_t)-1)     /* rec_out_emit: every ring's dump */

typedef struct rec_event {
    struct perf_event_attr attr;
    char      name[REC_NAME_MAX];   /* as given, for EVENT_DESC */
    char      tp_sys[REC_NAME_MAX]; /* tracepoints: system and name */
    char      tp_name[REC_NAME_MAX];
    uint64_t *ids;
    size_t    nids;
} rec_event;

typedef struct rec_ring {
    int       fd;
    int       cpu;
    uint8_t  *base;                 /* control page, then the data area */
    uint64_t  size;                 /* data area bytes (power of two) */
    int       out_fd;               /* --raw-ring: this ring's stream file */
} rec_ring;

/* Maps seen (synthesized or MMAP2), for the build-ids of DSOs hit. */
typedef struct rec_dso {
    char *path;
    int   hit;
} rec_dso;
typedef struct rec_map {
    int32_t  pid;
    uint64_t start, end;
    size_t   dso;
} rec_map;

typedef struct record {
    /* options */
    const char *output;             /* "-" pipe mode */
    const char *raw_dir;            /* --raw-ring */
    int         freq, period;       /* -F / -c */
    int         callgraph;          /* 0, CG_FP, CG_DWARF */
    unsigned    stack_size;
    int         all_cpus;
    char       *pids;               /* -p list */
    int         compress, level;
    unsigned    pages;
    int         quiet;
    char      **argv;               /* the command, or NULL */
    int         argc;
    int         cmd_argc;           /* argc/argv of perfsift for CMDLINE */
    char      **cmd_argv;
    /* events */
    rec_event  *ev;
    size_t      nev;
    int        *cpus;
    size_t      ncpus;
    pid_t      *tids;               /* threads to open per CPU; -1 = all */
    size_t      ntids;
    int        *fds;
    size_t      nfds;
    rec_ring   *rings;
    size_t      nrings;
    /* output */
    ps_writer  *w;
    int         out_fd;
    int         all_fd;             /* --raw-ring: DIR/all.stream */
    uint8_t    *scratch;            /* a record that wraps, re-joined */
    /* statistics */
    uint64_t    samples, lost, wakeups;
    uint64_t    raw_bytes;          /* --raw-ring: bytes written */
    uint64_t    first_time, last_time;
    int         kernel_hit;
    rec_dso    *dsos;
    size_t      ndsos, cap_dsos;
    rec_map    *maps;
    size_t      nmaps, cap_maps;
    size_t      last_map;
    pid_t       child;
    uint64_t    ktext, ketext;      /* _text, _etext: rec_kernel_text() */
} record;

enum { CG_NONE, CG_FP, CG_DWARF };

/* record_events.c */
int  rec_events_parse(record *r, const char *list);
int  rec_events_default(record *r);
void rec_events_finalize(record *r);
int  rec_events_open(record *r);
int  rec_events_enable(record *r, int on);
void rec_events_close(record *r);
size_t rec_id_hdr_size(const record *r);

/* record_ring.c */
int  rec_rings_mmap(record *r);
int  rec_rings_poll(record *r, int timeout_ms);
int  rec_rings_drain(record *r, uint64_t *bytes);
void rec_rings_unmap(record *r);

/* record_synth.c */
void rec_kernel_text(record *r);
int  rec_synth_kernel(record *r);
enum { SYNTH_FORK = 1, SYNTH_MAPS = 2 };
int  rec_synth_pid(record *r, pid_t pid, unsigned how);
int  rec_synth_all(record *r);
int  rec_features_host(record *r, ps_error *err);

/* record_topo.c */
uint32_t rec_cpus_avail(void);
int  rec_features_topology(record *r, uint32_t avail, ps_error *err);

/* record_tp.c */
typedef struct rec_blob {
    uint8_t *b;
    size_t   len, cap;
    int      fail;
} rec_blob;
void rec_put(rec_blob *o, const void *p, size_t n);
void rec_put32(rec_blob *o, uint32_t v);
void rec_put64(rec_blob *o, uint64_t v);
uint8_t *rec_tracing_data(const record *r, size_t *len);
uint8_t *rec_tracing_data_for(const char *const *sys, const char *const *name, size_t n,
                              size_t *len);
int  rec_tracefs_id(const char *sys, const char *name, uint64_t *id);
uint8_t *rec_tracing_data_ids(const uint64_t *ids, size_t nids, size_t *len);

/* record_out.c */
int  rec_out_open(record *r);
int  rec_out_begin(record *r);
int  rec_out_emit(record *r, size_t ring, const void *rec, size_t len);
void rec_out_note(record *r, const uint8_t *rec);
int  rec_out_round(record *r);
int  rec_out_finish(record *r);
void rec_out_free(record *r);

void rec_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* PS_CMD_RECORD_H */
