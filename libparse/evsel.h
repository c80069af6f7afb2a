/* SPDX-License-Identifier: MIT */
/*
 * evsel.h - the event table: attrs with their ids and names, and the
 * id -> evsel lookup of spec section 9 (IDENTIFIER first, else the shared
 * id_pos/is_pos, else the only attr).
 */
#ifndef PS_EVSEL_H
#define PS_EVSEL_H

#include "util.h"

typedef struct ps_evlist {
    ps_evsel  **evsels;         /* stable pointers, arena-allocated */
    size_t      nr, cap;
    const char **update_names;  /* EVENT_UPDATE NAME per evsel (cap entries) */
    /* open-addressing id table */
    uint64_t   *keys;
    ps_evsel  **vals;
    size_t      slots, used;
    int         id_pos, is_pos; /* of the first attr, spec 9.3 */
    int         sample_id_all;  /* of the first attr */
    int         mismatch;       /* attrs disagree on id positions */
    int         pipe;           /* pipe mode: perf names events without EVENT_DESC */
} ps_evlist;

void ps_evlist__free(ps_evlist *l);
/** Append an evsel (attr copied; ids copied into the arena). */
int ps_evlist__add(ps_evlist *l, ps_arena *a, const ps_attr *attr,
                   const uint64_t *ids, uint64_t nr_ids, ps_evsel **out,
                   ps_error *err);
/** Register more ids for an evsel. */
int ps_evlist__add_ids(ps_evlist *l, ps_evsel *e, const uint64_t *ids,
                       uint64_t nr, ps_error *err);
ps_evsel *ps_evlist__find(const ps_evlist *l, uint64_t id);

/**
 * The evsel of a record (header.size bytes at p, host order when !swap).
 * *out NULL means "no evsel" (user record, or no attrs). Returns PS_OK or an
 * error for ids that match no attr (perf 6.1 aborts there too).
 */
int ps_evlist__of_record(const ps_evlist *l, const uint8_t *p, size_t size,
                         uint32_t type, int swap, uint64_t off,
                         const ps_evsel **out, ps_error *err);

/** (Re)name evsels from index `from` on: EVENT_UPDATE NAME, else
 * EVENT_DESC, else the name perf derives from the attr. */
void ps_evlist__name(ps_evlist *l, ps_arena *a, const ps_features *f, size_t from);

#endif /* PS_EVSEL_H */
