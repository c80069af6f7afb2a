/* SPDX-License-Identifier: MIT */
/*
 * session.h - the session object shared by session.c (the record loop),
 * header.c (file/pipe headers, attr table, feature table) and ring.c (raw
 * ring dumps). Callers outside libparse see only the opaque ps_session.
 */
#ifndef PS_SESSION_H
#define PS_SESSION_H

#include "compress.h"
#include "evsel.h"
#include "order.h"
#include "records.h"
#include "source.h"
#include "tracepoint.h"

struct ps_session {
    char          *path;        /* owned */
    ps_open_opts   opts;
    ps_header      hdr;
    ps_features    feat;
    ps_arena       arena;       /* features, evsels, names */
    ps_evlist      evlist;
    ps_source      src;
    ps_zstream     z;
    ps_rec_vectors vec;
    uint8_t       *scratch;     /* aligned copy of the current record */
    size_t         scratch_cap;
    uint64_t       index;       /* records delivered */
    uint64_t       nr_warnings;
    int            swap;
    int            in_features_marker_seen;
    /* directory captures */
    char         **dir_files;   /* owned: data.*, in readdir() order */
    int           *dir_nums;    /* owned: N of each data.N, -1 if none */
    unsigned       dir_next;
    int            file_index;
    int            done;
    ps_order       order;       /* opts.ordered */
    int            order_off;
    int            pending_rc;  /* ordered: an error held back until the queue is delivered */
    ps_error       pending_err;
    const uint8_t *last_orig;   /* input bytes of the record just decoded */   /* no sample_id_all: perf falls back to file order */
    struct ps_tp  *tp;          /* owned: tracepoint.c's libtraceevent state, made on first use */
    ps_tp_func_fn  tp_func;     /* kernel function names for %ps, or NULL */
    void          *tp_func_ctx;
};

/** Report a warning through opts.warn and count it. */
void ps_session__warn(ps_session *s, uint64_t off, const char *fmt, ...)
    PS_PRINTF(3, 4);

/*
 * For a caller that reads a file's records itself (cmd/walk_fast.c),
 * with read(): faster than the mapping where page faults are dear (a
 * VM's shadow page tables). When the input is one regular file in the
 * host's byte order and no record was read yet: *fd a descriptor of it
 * (owned: close()), [*from, *to) the records' range (the data section,
 * cut at the end of the file), the session's own mapping closed; 0.
 * Else -1 and nothing changed. ps_session_next() says PS_DONE after.
 */
int ps_session__release(ps_session *s, int *fd, uint64_t *from, uint64_t *to);
/**
 * Decode the record at p (8-aligned, header.size bytes; at file offset
 * off) as ps_session_next() would. No side effects: not for the records
 * that change the session (ATTR, FEATURE, TRACING_DATA, EVENT_UPDATE,
 * COMPRESSED) nor those with a payload past header.size. out->raw is p.
 * PS_OK or a negative code.
 */
int ps_session__decode_bytes(ps_event *out, ps_session *s, const uint8_t *p, uint64_t off,
                             ps_error *err);

/* header.c */
int ps_header__read(ps_session *s, ps_error *err);
/* ring.c */
int ps_ring__open(ps_session *s, ps_error *err);

#endif /* PS_SESSION_H */
