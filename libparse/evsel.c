/* SPDX-License-Identifier: MIT */
/*
 * evsel.c - the event table and the record -> attr lookup (spec 9).
 * Owns ps_evsel storage and the id hash; never decodes record bodies
 * (it reads only the one u64 that holds a record's id).
 */
#include <stdio.h>
#include "attr.h"
#include "evname.h"
#include "evsel.h"

void ps_evlist__free(ps_evlist *l)
{
    free(l->evsels);
    free(l->keys);
    free(l->vals);
    free(l->update_names);
    memset(l, 0, sizeof(*l));
}

static size_t slot_of(uint64_t id, size_t slots)
{
    id ^= id >> 33;
    id *= UINT64_C(0xff51afd7ed558ccd);
    id ^= id >> 33;
    return (size_t)id & (slots - 1);
}

static int rehash(ps_evlist *l, size_t slots)
{
    uint64_t *keys = calloc(slots, sizeof(*keys));
    ps_evsel **vals = calloc(slots, sizeof(*vals));
    size_t i;

    if (keys == NULL || vals == NULL) {
        free(keys);
        free(vals);
        return -1;
    }
    for (i = 0; i < l->slots; i++) {
        size_t s;

        if (l->vals[i] == NULL)
            continue;
        for (s = slot_of(l->keys[i], slots); vals[s]; s = (s + 1) & (slots - 1))
            ;
        keys[s] = l->keys[i];
        vals[s] = l->vals[i];
    }
    free(l->keys);
    free(l->vals);
    l->keys = keys;
    l->vals = vals;
    l->slots = slots;
    return 0;
}

int ps_evlist__add_ids(ps_evlist *l, ps_evsel *e, const uint64_t *ids,
                       uint64_t nr, ps_error *err)
{
    uint64_t i;

    for (i = 0; i < nr; i++) {
        size_t s;

        if ((l->used + 1) * 2 > l->slots &&
            rehash(l, l->slots ? l->slots * 2 : 64) < 0)
            return ps_error__set(err, PS_ENOMEM, PS_NO_OFFSET, "out of memory");
        for (s = slot_of(ids[i], l->slots); l->vals[s]; s = (s + 1) & (l->slots - 1))
            if (l->keys[s] == ids[i])
                break;
        if (l->vals[s] == NULL)
            l->used++;
        l->keys[s] = ids[i];
        l->vals[s] = e;
    }
    return PS_OK;
}

ps_evsel *ps_evlist__find(const ps_evlist *l, uint64_t id)
{
    size_t s;

    if (l->slots == 0)
        return NULL;
    for (s = slot_of(id, l->slots); l->vals[s]; s = (s + 1) & (l->slots - 1))
        if (l->keys[s] == id)
            return l->vals[s];
    return NULL;
}

int ps_evlist__add(ps_evlist *l, ps_arena *a, const ps_attr *attr,
                   const uint64_t *ids, uint64_t nr_ids, ps_evsel **out,
                   ps_error *err)
{
    ps_evsel *e;

    size_t ucap = l->cap;

    if (ps_grow((void **)&l->update_names, &ucap, l->nr + 1, sizeof(char *)) < 0 ||
        ps_grow((void **)&l->evsels, &l->cap, l->nr + 1, sizeof(*l->evsels)) < 0 ||
        (e = ps_arena__alloc(a, sizeof(*e))) == NULL ||
        (nr_ids && (e->ids = ps_arena__memdup(a, ids, nr_ids * 8)) == NULL))
        return ps_error__set(err, PS_ENOMEM, PS_NO_OFFSET, "out of memory");
    l->update_names[l->nr] = NULL;
    e->idx = (unsigned)l->nr;
    e->attr = *attr;
    e->nr_ids = nr_ids;
    if (l->nr == 0) {
        l->id_pos = ps_attr__id_pos(attr->sample_type);
        l->is_pos = ps_attr__is_pos(attr->sample_type);
        l->sample_id_all = ps_attr_flag(attr, PS_ATTR_SAMPLE_ID_ALL);
    } else if (l->id_pos != ps_attr__id_pos(attr->sample_type) ||
               l->is_pos != ps_attr__is_pos(attr->sample_type) ||
               l->id_pos < 0) {
        l->mismatch = 1;
    }
    l->evsels[l->nr++] = e;
    if (out)
        *out = e;
    return ps_evlist__add_ids(l, e, ids, nr_ids, err);
}

int ps_evlist__of_record(const ps_evlist *l, const uint8_t *p, size_t size,
                         uint32_t type, int swap, uint64_t off,
                         const ps_evsel **out, ps_error *err)
{
    const char *what = ps_record_type_name(type) ? ps_record_type_name(type) : "unknown";
    size_t at;
    uint64_t id;

    *out = NULL;
    if (l->nr == 0 || type >= 64)
        return PS_OK;
    if (l->nr == 1) {
        *out = l->evsels[0];
        return PS_OK;
    }
    if (type != PERF_RECORD_SAMPLE && !l->sample_id_all) {
        *out = l->evsels[0];
        return PS_OK;
    }
    if (l->mismatch || l->id_pos < 0)
        return ps_error__set(err, PS_EFORMAT, off,
                             "%s record: the events' sample_types place the event id "
                             "differently (perf: non matching sample_type)", what);
    if (type == PERF_RECORD_SAMPLE)
        at = 8 + 8 * (size_t)l->id_pos;
    else
        at = size >= 8 * (size_t)l->is_pos ? size - 8 * (size_t)l->is_pos : 0;
    if (at < 8 || at + 8 > size)
        return ps_error__set(err, PS_ECORRUPT, off,
                             "%s record: size %zu too small to hold its event id", what, size);
    id = ps_load64(p + at, swap);
    if (id == 0) {
        *out = l->evsels[0];    /* synthesized records carry id 0 */
        return PS_OK;
    }
    if ((*out = ps_evlist__find(l, id)) == NULL)
        return ps_error__set(err, PS_ECORRUPT, off,
                             "%s record: event id %llu matches no event in the file",
                             what, (unsigned long long)id);
    return PS_OK;
}

/* perf 6.1 drops the whole EVENT_DESC (and derives every name) when an
 * attr in it uses bits it does not know. */
static int event_desc_usable(const ps_features *f)
{
    uint32_t i;

    if (!ps_features_has(f, PS_HEADER_EVENT_DESC))
        return 0;
    for (i = 0; i < f->event_desc.nr; i++) {
        const ps_attr *a = &f->event_desc.events[i].attr;

        if ((a->sample_type >> 25) || (a->read_format >> 5) || (a->flags >> 38) ||
            a->reserved_2 || a->aux_action ||
            ((a->sample_type & PERF_SAMPLE_BRANCH_STACK) && (a->branch_sample_type >> 19)))
            return 0;
    }
    return 1;
}

void ps_evlist__name(ps_evlist *l, ps_arena *a, const ps_features *f, size_t from)
{
    int desc_ok = event_desc_usable(f);
    size_t i;

    for (i = from; i < l->nr; i++) {
        ps_evsel *e = l->evsels[i];
        char buf[512];

        ps_evname__derive(buf, sizeof(buf), &e->attr, f);
        e->attr_name = ps_arena__strndup(a, buf, sizeof(buf));
        if (l->update_names[i]) {
            e->name = l->update_names[i];
            continue;
        }
        /* pipe mode: perf names an event when its HEADER_ATTR arrives,
         * before any EVENT_DESC feature record could */
        if (!l->pipe && desc_ok && i < f->event_desc.nr &&
            f->event_desc.events[i].name) {
            e->name = f->event_desc.events[i].name;
            continue;
        }
        e->name = e->attr_name;
    }
}
