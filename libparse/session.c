/* SPDX-License-Identifier: MIT */
/*
 * session.c - the public session API and the record loop: framing records
 * from the source or from the nested decompressed stream, copying them to an
 * aligned scratch buffer when they are unaligned or other-endian, finding
 * their evsel (evsel.c), decoding them (records.c), and applying what the
 * stream itself defines in pipe mode (HEADER_ATTR, HEADER_FEATURE,
 * HEADER_TRACING_DATA, EVENT_UPDATE) before handing them out.
 *
 * Invariants: every record handed out was bounds-checked against the bytes
 * that exist; each iteration consumes at least 8 bytes or ends the loop, so
 * no input makes it spin; allocations are bounded by record sizes (<= 64 KiB)
 * or by bytes actually read.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include "attr.h"
#include "features.h"
#include "session.h"
#include "tracepoint.h"
#include "tp_vet.h"

#define REC_HDR 8

void ps_session__warn(ps_session *s, uint64_t off, const char *fmt, ...)
{
    ps_error w;
    va_list ap;
    int n;

    s->nr_warnings++;
    if (s->opts.warn == NULL)
        return;
    memset(&w, 0, sizeof(w));
    w.offset = off;
    n = snprintf(w.msg, sizeof(w.msg), "%s: ", s->path);
    if (off != PS_NO_OFFSET && n > 0 && (size_t)n < sizeof(w.msg))
        n += snprintf(w.msg + n, sizeof(w.msg) - (size_t)n, "offset 0x%llx: ",
                      (unsigned long long)off);
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof(w.msg))
        vsnprintf(w.msg + n, sizeof(w.msg) - (size_t)n, fmt, ap);
    va_end(ap);
    s->opts.warn(s->opts.warn_ctx, &w);
}

/* Prefix a decoder's message with file, offset and record index. */
static int record_error(ps_session *s, ps_error *err, int rc, uint64_t off,
                        uint64_t inner, int nested, uint32_t type)
{
    char msg[sizeof(err->msg)];

    if (err == NULL)
        return rc;
    memcpy(msg, err->msg, sizeof(msg));
    if (nested)
        snprintf(err->msg, sizeof(err->msg), "%.100s: offset 0x%llx +%llu in frame, record %llu: %.300s",
                 s->path, (unsigned long long)off, (unsigned long long)inner,
                 (unsigned long long)s->index, msg);
    else
        snprintf(err->msg, sizeof(err->msg), "%.100s: offset 0x%llx, record %llu: %.300s", s->path,
                 (unsigned long long)off, (unsigned long long)s->index, msg);
    err->code = rc;
    err->offset = off;
    err->record_type = type;
    err->record_index = s->index;
    return rc;
}

/* --- opening ---------------------------------------------------------------- */

/* N of a "data.N" name; -1 for other "data." names */
static int dir_file_number(const char *name)
{
    char *end;
    long n;

    if (name[5] < '0' || name[5] > '9')
        return -1;
    n = strtol(name + 5, &end, 10);
    return *end == '\0' && n >= 0 && n <= 1000000 ? (int)n : -1;
}

static int add_dir_file(ps_session *s, char *p, int num, ps_error *err)
{
    size_t n = s->hdr.nr_dir_files, cap = n, cap2 = n;

    if (ps_grow((void **)&s->dir_files, &cap, n + 1, sizeof(char *)) < 0 ||
        ps_grow((void **)&s->dir_nums, &cap2, n + 1, sizeof(int)) < 0) {
        free(p);
        return ps_error__set(err, PS_ENOMEM, PS_NO_OFFSET, "out of memory");
    }
    s->dir_files[n] = p;
    s->dir_nums[n] = num;
    s->hdr.nr_dir_files = n + 1;
    return PS_OK;
}

/* The regular "data.*" files of a directory capture, in readdir() order:
 * perf_data__open_dir() neither sorts them nor stops at a gap, and perf
 * reads them one after the other in that order, which decides the order
 * of records with equal times, and of all records without ordering
 * (--show-round-events). Empty files hold nothing (perf skips them). */
static int list_dir_files(ps_session *s, ps_error *err)
{
    DIR *dir = opendir(s->path);
    struct dirent *d;
    int rc = PS_OK;

    if (dir == NULL)
        return PS_OK;
    while (rc == PS_OK && (d = readdir(dir)) != NULL) {
        char *p;
        struct stat st;

        if (strncmp(d->d_name, "data.", 5) != 0)
            continue;
        if (asprintf(&p, "%s/%s", s->path, d->d_name) < 0) {
            rc = ps_error__set(err, PS_ENOMEM, PS_NO_OFFSET, "out of memory");
            break;
        }
        if (stat(p, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
            free(p);
            continue;
        }
        rc = add_dir_file(s, p, dir_file_number(d->d_name), err);
    }
    closedir(dir);
    return rc;
}

/* What the source must not recycle: records the ordering queue borrows. */
static uint64_t keep_borrowed(void *arg)
{
    const ps_session *s = arg;

    return ps_order__lowest_borrowed(&s->order);
}

static int open_container(ps_session *s, ps_error *err)
{
    struct stat st;
    char *data_path;
    int rc;

    if (s->opts.attr_path)
        return ps_ring__open(s, err);
    if (strcmp(s->path, "-") != 0 && stat(s->path, &st) == 0 && S_ISDIR(st.st_mode)) {
        if (asprintf(&data_path, "%s/data", s->path) < 0)
            return ps_error__set(err, PS_ENOMEM, PS_NO_OFFSET, "out of memory");
        rc = ps_source__open(&s->src, data_path, err);
        free(data_path);
        if (rc < 0 || (rc = list_dir_files(s, err)) < 0)
            return rc;
        s->src.name = s->path;
        if ((rc = ps_header__read(s, err)) < 0)
            return rc;
        s->hdr.container = PS_CONTAINER_DIR;
        return PS_OK;
    }
    if ((rc = ps_source__open(&s->src, s->path, err)) < 0)
        return rc;
    s->src.keep = keep_borrowed;
    s->src.keep_arg = s;
    return ps_header__read(s, err);
}

int ps_session_open(ps_session **out, const char *path, const ps_open_opts *opts,
                    ps_error *err)
{
    ps_session *s;
    int rc;

    *out = NULL;
    if (err)
        memset(err, 0, sizeof(*err));
    if (path == NULL)
        return ps_error__set(err, PS_EINVAL, PS_NO_OFFSET, "no input given");
    if ((s = calloc(1, sizeof(*s))) == NULL || (s->path = strdup(path)) == NULL) {
        free(s);
        return ps_error__set(err, PS_ENOMEM, PS_NO_OFFSET, "%s: out of memory", path);
    }
    s->src.fd = -1;
    s->file_index = -1;
    ps_arena__init(&s->arena);
    if (opts)
        s->opts = *opts;
    if ((rc = open_container(s, err)) < 0) {
        ps_session_close(s);
        return rc;
    }
    if (s->feat.tracing_data.data != NULL)
        ps_tp_vet_prestart();       /* its start overlaps the reading */
    *out = s;
    return PS_OK;
}

void ps_session_close(ps_session *s)
{
    unsigned i;

    if (s == NULL)
        return;
    ps_source__close(&s->src);
    ps_zstream__free(&s->z);
    ps_order__free(&s->order);
    ps_evlist__free(&s->evlist);
    ps_tp__free(s->tp);         /* before the arena: it borrows the tracing blob */
    ps_arena__free(&s->arena);
    for (i = 0; i < s->hdr.nr_dir_files; i++)
        free(s->dir_files[i]);
    free(s->dir_files);
    free(s->dir_nums);
    free(s->vec.rv);
    free(s->vec.cpus);
    free(s->vec.str);
    free(s->scratch);
    free(s->path);
    free(s);
}

/* --- accessors --------------------------------------------------------------- */

const ps_header *ps_session_header(const ps_session *s) { return &s->hdr; }
const ps_features *ps_session_features(const ps_session *s) { return &s->feat; }
size_t ps_session_nr_evsels(const ps_session *s) { return s->evlist.nr; }
const char *ps_session_path(const ps_session *s) { return s->path; }
uint64_t ps_session_nr_warnings(const ps_session *s) { return s->nr_warnings; }
uint64_t ps_session_bytes_read(const ps_session *s) { return s->src.bytes_read; }

const ps_evsel *ps_session_evsel(const ps_session *s, size_t idx)
{
    return idx < s->evlist.nr ? s->evlist.evsels[idx] : NULL;
}

const ps_evsel *ps_session_evsel_by_id(const ps_session *s, uint64_t id)
{
    return ps_evlist__find(&s->evlist, id);
}

/* --- pipe-mode side effects ---------------------------------------------------- */

static int apply_attr(ps_session *s, const ps_event *ev, ps_error *err)
{
    const ps_record_header_attr *h = &ev->u.header_attr;
    int rc;

    if ((rc = ps_evlist__add(&s->evlist, &s->arena, &h->attr, h->ids, h->nr_ids, NULL,
                             err)) < 0)
        return rc;
    ps_evlist__name(&s->evlist, &s->arena, &s->feat, s->evlist.nr - 1);
    return PS_OK;
}

static void apply_feature(ps_session *s, const ps_event *ev)
{
    const ps_record_feature *f = &ev->u.feature;
    ps_error e;

    if (f->size == 0)
        return;                 /* end-of-features marker: size == 16 */
    if (f->feat_id == 0 || f->feat_id >= PS_HEADER_FEAT_KNOWN) {
        ps_session__warn(s, ev->offset, "FEATURE record: unknown feature id %llu skipped",
                         (unsigned long long)f->feat_id);
        return;
    }
    if (ps_features__decode(&s->feat, &s->arena, (unsigned)f->feat_id, f->data,
                            (size_t)f->size, s->swap, ev->offset + 16, &e) < 0) {
        ps_session__warn(s, ev->offset, "FEATURE record %s: %s",
                         ps_feature_name((unsigned)f->feat_id), e.msg);
        s->feat.failed[f->feat_id / 64] |= UINT64_C(1) << (f->feat_id % 64);
        return;
    }
    if (f->feat_id == PS_HEADER_EVENT_DESC)
        ps_evlist__name(&s->evlist, &s->arena, &s->feat, 0);
}

static void apply_tracing_data(ps_session *s, const ps_event *ev)
{
    ps_error e;

    if (ps_features__decode(&s->feat, &s->arena, PS_HEADER_TRACING_DATA,
                            ev->u.tracing_data.data, ev->u.tracing_data.size, s->swap,
                            ev->offset + ev->size, &e) < 0) {
        ps_session__warn(s, ev->offset, "TRACING_DATA record: %s", e.msg);
        return;
    }
    ps_tp_vet_prestart();
    ps_evlist__name(&s->evlist, &s->arena, &s->feat, 0);
}

static void apply_event_update(ps_session *s, const ps_event *ev)
{
    const ps_record_event_update *u = &ev->u.event_update;
    ps_evsel *e = ps_evlist__find(&s->evlist, u->id);
    const char *str;

    if (e == NULL && s->evlist.nr == 1)
        e = s->evlist.evsels[0];
    if (e == NULL)
        return;
    if (u->type == 0 && (str = ps_arena__strndup(&s->arena, u->str, 256)) != NULL)
        e->unit = str;
    else if (u->type == 1)
        e->scale = u->scale;
    else if (u->type == 2 && (str = ps_arena__strndup(&s->arena, u->str, 1024)) != NULL) {
        e->name = str;
        s->evlist.update_names[e->idx] = str;
    }
}

/* What one COMPRESSED record may inflate to: perf decompresses each into a
 * buffer of HEADER_COMPRESSED's mmap_len (the ring's size); twice that,
 * and 16 MiB when the capture does not say, leave room to spare. */
static uint64_t compressed_max_out(const ps_session *s)
{
    uint64_t len = ps_features_has(&s->feat, PS_HEADER_COMPRESSED) ?
                   s->feat.compressed.mmap_len : 0;

    return len ? 2 * len + (64 << 10) : (uint64_t)16 << 20;
}

static int apply_side_effects(ps_session *s, const ps_event *ev, ps_error *err)
{
    switch (ev->type) {
    case PS_RECORD_HEADER_ATTR:
        return apply_attr(s, ev, err);
    case PS_RECORD_HEADER_FEATURE:
        apply_feature(s, ev);
        return PS_OK;
    case PS_RECORD_HEADER_TRACING_DATA:
        apply_tracing_data(s, ev);
        return PS_OK;
    case PS_RECORD_EVENT_UPDATE:
        apply_event_update(s, ev);
        return PS_OK;
    case PS_RECORD_COMPRESSED:
    case PS_RECORD_COMPRESSED2:
        return ps_zstream__feed(&s->z, ev->u.compressed.data,
                                (size_t)ev->u.compressed.data_size, ev->offset,
                                compressed_max_out(s), err);
    default:
        return PS_OK;
    }
}

/* --- framing ------------------------------------------------------------------ */

/* Copy the record to the aligned scratch buffer when it must be writable
 * (other byte order) or is unaligned (pipe streams, after COMPRESSED). */
static const uint8_t *stable_copy(ps_session *s, const uint8_t *p, size_t n)
{
    if (!s->swap && ((uintptr_t)p & 7) == 0)
        return p;
    if (ps_grow((void **)&s->scratch, &s->scratch_cap, n, 1) < 0)
        return NULL;
    memcpy(s->scratch, p, n);
    return s->scratch;
}

/* The bytes some records carry after header.size (spec 7.1). */
static int extra_size(const uint8_t *p, uint32_t type, uint16_t size, int swap,
                      uint64_t *extra)
{
    *extra = 0;
    if (type == PS_RECORD_HEADER_TRACING_DATA && size >= 12)
        *extra = ps_load32(p + 8, swap);
    else if (type == PS_RECORD_AUXTRACE && size >= 16)
        *extra = ps_load64(p + 8, swap);
    return 0;
}

typedef struct frame {
    const uint8_t *p;           /* header.size bytes, aligned (maybe a copy) */
    const uint8_t *orig;        /* where they are in the input buffer */
    uint32_t type;
    uint16_t misc, size;
    uint64_t off, inner;
    uint64_t extra;             /* payload after the record */
    int nested;
} frame;

static int frame_header(ps_session *s, frame *f, const uint8_t *p, ps_error *err)
{
    f->type = ps_load32(p, s->swap);
    f->misc = ps_load16(p + 4, s->swap);
    f->size = ps_load16(p + 6, s->swap);
    if (f->size < REC_HDR)
        return ps_error__set(err, PS_ECORRUPT, f->off,
                             "%s record: header size %u is below 8",
                             ps_record_type_name(f->type) ? ps_record_type_name(f->type)
                                                          : "unknown", f->size);
    return PS_OK;
}

/* Next record of the nested (decompressed) stream, if a whole one is there. */
static int frame_nested(ps_session *s, frame *f, ps_error *err)
{
    const uint8_t *p;
    int64_t got;
    int rc;

    if ((got = ps_zstream__peek(&s->z, REC_HDR, &p, err)) < 0)
        return (int)got;
    if (got < REC_HDR)
        return PS_DONE;
    f->nested = 1;
    f->off = s->z.container_off;
    f->inner = s->z.out_total;
    if ((rc = frame_header(s, f, p, err)) < 0)
        return rc;
    if ((got = ps_zstream__peek(&s->z, f->size, &p, err)) < 0)
        return (int)got;
    if (got < f->size)
        return PS_DONE;         /* the rest is in the next COMPRESSED record */
    extra_size(p, f->type, f->size, s->swap, &f->extra);
    if (f->extra)
        return ps_error__set(err, PS_EUNSUPPORTED, f->off,
                             "%s record inside a compressed stream carries %llu bytes "
                             "of payload, which is not supported",
                             ps_record_type_name(f->type), (unsigned long long)f->extra);
    f->orig = p;
    if ((f->p = stable_copy(s, p, f->size)) == NULL)
        return ps_error__set(err, PS_ENOMEM, f->off, "out of memory");
    ps_zstream__consume(&s->z, f->size);
    return PS_OK;
}

static int next_dir_file(ps_session *s, ps_error *err)
{
    int rc;

    if (s->hdr.container != PS_CONTAINER_DIR || s->dir_next >= s->hdr.nr_dir_files)
        return PS_DONE;
    if (ps_zstream__pending(&s->z))
        ps_session__warn(s, s->src.pos, "compressed stream ends inside a record");
    ps_source__close(&s->src);
    ps_zstream__reset(&s->z);
    if ((rc = ps_source__open(&s->src, s->dir_files[s->dir_next], err)) < 0)
        return rc;
    s->file_index = s->dir_nums[s->dir_next++];
    return PS_OK;
}

static int frame_main(ps_session *s, frame *f, ps_error *err)
{
    const uint8_t *p;
    int64_t got;
    uint64_t total;
    int rc;

    f->nested = 0;
    f->off = s->src.pos;
    f->inner = 0;
    if ((got = ps_source__peek(&s->src, REC_HDR, &p, err)) < 0)
        return (int)got;
    if (got == 0)
        return PS_DONE;
    if (got < REC_HDR)
        return ps_error__set(err, PS_ETRUNC, f->off,
                             "input ends inside a record header (%lld of 8 bytes)",
                             (long long)got);
    if ((rc = frame_header(s, f, p, err)) < 0)
        return rc;
    extra_size(p, f->type, f->size, s->swap, &f->extra);
    total = f->size;
    if (f->type == PS_RECORD_HEADER_TRACING_DATA)
        total += f->extra;      /* keep the tracing blob contiguous with it */
    if (total > SIZE_MAX || total > (uint64_t)INT64_MAX)
        return ps_error__set(err, PS_ECORRUPT, f->off, "record payload too large");
    if ((got = ps_source__peek(&s->src, (size_t)total, &p, err)) < 0)
        return (int)got;
    if ((uint64_t)got < total)
        return ps_error__set(err, PS_ETRUNC, f->off,
                             "%s record of %llu bytes, input ends after %lld",
                             ps_record_type_name(f->type) ? ps_record_type_name(f->type)
                                                          : "unknown",
                             (unsigned long long)total, (long long)got);
    f->orig = p;
    if ((f->p = stable_copy(s, p, f->size)) == NULL)
        return ps_error__set(err, PS_ENOMEM, f->off, "out of memory");
    return PS_OK;
}

/* Consume a main-stream record and whatever follows it. The tracing blob
 * stays valid: it is copied into the features before the next peek. */
static int finish_main(ps_session *s, const frame *f, ps_error *err)
{
    if (f->type == PS_RECORD_HEADER_TRACING_DATA) {
        ps_source__consume(&s->src, (size_t)(f->size + f->extra));
        return PS_OK;
    }
    ps_source__consume(&s->src, f->size);
    if (f->extra)
        return ps_source__skip(&s->src, f->extra, err);
    return PS_OK;
}

static int decode_frame(ps_event *ev, ps_session *s, const frame *f,
                        const uint8_t *extra, uint8_t *writable, ps_error *err)
{
    ps_rec r;
    int rc;

    memset(ev, 0, sizeof(*ev));
    ev->type = f->type;
    ev->misc = f->misc;
    ev->size = f->size;
    ev->offset = f->off;
    ev->inner_offset = f->inner;
    ev->index = s->index;
    ev->file_index = s->file_index;
    ev->raw = f->p;
    if (f->nested)
        ev->flags |= PS_EVENT_IN_COMPRESSED;
    if (s->file_index >= 0)
        ev->flags |= PS_EVENT_FROM_DIR;
    if ((rc = ps_evlist__of_record(&s->evlist, f->p, f->size, f->type, s->swap, f->off,
                                   &ev->evsel, err)) < 0)
        return rc;
    memset(&r, 0, sizeof(r));
    r.p = f->p;
    r.w = writable ? writable : f->p == s->scratch ? s->scratch : NULL;
    r.size = f->size;
    r.swap = s->swap;
    r.off = f->off;
    r.evsel = ev->evsel;
    r.sample_id_all = ev->evsel && ps_attr_flag(&ev->evsel->attr, PS_ATTR_SAMPLE_ID_ALL);
    r.extra = extra;
    r.extra_size = f->extra;
    r.vec = &s->vec;
    return ps_records__decode(ev, &r, err);
}

/* One record: frame, decode, apply. PS_OK, PS_DONE, or an error. */
static int next_record(ps_event *ev, ps_session *s, ps_error *err)
{
    frame f;
    int rc;

    for (;;) {
        rc = frame_nested(s, &f, err);
        if (rc == PS_OK)
            break;
        if (rc < 0)
            return record_error(s, err, rc, s->z.container_off, s->z.out_total, 1, 0);
        if ((rc = frame_main(s, &f, err)) == PS_OK)
            break;
        if (rc < 0)
            return record_error(s, err, rc, f.off, 0, 0, f.type);
        if (ps_zstream__pending(&s->z) && !ps_zstream__has_input(&s->z) &&
            s->hdr.container != PS_CONTAINER_DIR)
            ps_session__warn(s, s->src.pos, "compressed stream ends inside a record "
                             "(%zu bytes left over)", ps_zstream__pending(&s->z));
        if ((rc = next_dir_file(s, err)) != PS_OK)
            return rc == PS_DONE ? PS_DONE : record_error(s, err, rc, 0, 0, 0, 0);
    }
    rc = decode_frame(ev, s, &f, f.nested ? NULL : f.orig + f.size, NULL, err);
    s->last_orig = f.orig;
    if (rc == PS_OK)
        rc = apply_side_effects(s, ev, err);
    if (!f.nested) {
        int rc2 = finish_main(s, &f, err);

        if (rc == PS_OK)
            rc = rc2;
    }
    if (rc < 0)
        return record_error(s, err, rc, f.off, f.inner, f.nested, f.type);
    return PS_OK;
}

/* One record in file order, skipping bad ones with keep_going. */
static int next_in_file_order(ps_event *out, ps_session *s, ps_error *err)
{
    int rc;

    for (;;) {
        uint64_t pos = s->src.pos, zpos = s->z.out_total;

        rc = next_record(out, s, err);
        if (rc == PS_OK || rc == PS_DONE)
            return rc;
        if (!s->opts.keep_going || rc == PS_ENOMEM || rc == PS_EIO ||
            rc == PS_ETRUNC || s->src.pos >= s->src.end)
            return rc;
        /* Skip the bad record; a bad header (size < 8) resynchronises
         * 8 bytes on, as old perf did, so the loop always advances. */
        ps_session__warn(s, err ? err->offset : PS_NO_OFFSET, "skipped: %s",
                         err ? err->msg : "bad record");
        s->index++;
        if (s->z.out_total == zpos && ps_zstream__pending(&s->z) >= REC_HDR &&
            s->src.pos == pos)
            ps_zstream__consume(&s->z, REC_HDR);
        else if (s->src.pos == pos && s->z.out_total == zpos)
            ps_source__consume(&s->src, REC_HDR);
    }
}

/* The time perf orders a record by: 0 when it has none (delivered at once). */
static uint64_t event_time(const ps_event *ev)
{
    if (ev->type == PERF_RECORD_SAMPLE)
        return (ev->u.sample.sample_type & PERF_SAMPLE_TIME) ? ev->u.sample.time : 0;
    if (ev->type < 64 && ev->has_sample_id && (ev->sample_id.present & PERF_SAMPLE_TIME))
        return ev->sample_id.time;
    return 0;
}

static int deliver_queued(ps_event *out, ps_session *s, ps_queued *q, ps_error *err)
{
    frame f;
    int rc, file_index;

    memset(&f, 0, sizeof(f));
    f.p = f.orig = q->bytes;
    f.type = q->type;
    f.misc = q->misc;
    f.size = q->size;
    f.off = q->off;
    f.inner = q->inner;
    f.nested = q->nested;
    /* decode_frame() takes the file from the session: lend it the queued
     * record's, then give back the one still being read */
    file_index = s->file_index;
    s->file_index = q->file_index;
    rc = decode_frame(out, s, &f, NULL, q->bytes, err);
    s->file_index = file_index;
    if (rc < 0)
        return record_error(s, err, rc, f.off, f.inner, f.nested, f.type);
    out->index = s->index;
    return PS_OK;
}

/* A queued record can point into the file's mapping, or the source's
 * read-ahead chunk (kept while queued: keep_borrowed()), instead of a copy
 * when these outlive the queue (one file: not a directory's files, not a
 * stream) and the record is aligned there and in the host's byte order
 * (other-endian records are swapped in place). */
static int borrowable(const ps_session *s, int nested)
{
    const uint8_t *p = s->last_orig;

    return !nested && !s->swap && s->dir_files == NULL && ps_source__borrowable(&s->src, p) &&
           ((uintptr_t)p & 7) == 0;
}

/* Time order as perf's ordered_events: timed kernel records wait; a
 * FINISHED_ROUND releases those up to the previous round's maximum; the
 * rest is delivered at once. */
static int next_ordered(ps_event *out, ps_session *s, ps_error *err)
{
    ps_queued *q, meta;
    uint64_t t;
    int rc;

    for (;;) {
        if ((q = ps_order__pop(&s->order)) != NULL)
            return deliver_queued(out, s, q, err);
        if (s->pending_rc < 0) {
            if (err)
                *err = s->pending_err;
            return s->pending_rc;
        }
        rc = next_in_file_order(out, s, err);
        if (rc == PS_DONE && s->order.nr_ready < s->order.nr) {
            ps_order__flush(&s->order, UINT64_MAX);
            continue;
        }
        if (rc < 0 && s->order.nr_ready < s->order.nr) {
            /* deliver what was read before the error, then the error:
             * nothing readable is lost (perf drops the queue here) */
            s->pending_rc = rc;
            if (err)
                s->pending_err = *err;
            ps_order__flush(&s->order, UINT64_MAX);
            continue;
        }
        if (rc != PS_OK)
            return rc;
        if (out->type == PS_RECORD_FINISHED_ROUND) {
            ps_order__flush(&s->order, s->order.next_flush);
            s->order.next_flush = s->order.max_time;
        }
        /* perf prints FINISHED_ROUND before the records it releases */
        if ((t = event_time(out)) == 0 || t == UINT64_MAX || out->type >= 64)
            return PS_OK;
        memset(&meta, 0, sizeof(meta));
        meta.time = t;
        meta.off = out->offset;
        meta.inner = out->inner_offset;
        meta.type = out->type;
        meta.misc = out->misc;
        meta.size = out->size;
        meta.nested = !!(out->flags & PS_EVENT_IN_COMPRESSED);
        meta.file_index = out->file_index;
        if ((rc = ps_order__push(&s->order, &meta, s->last_orig, borrowable(s, meta.nested),
                                 err)) < 0)
            return rc;
    }
}

int ps_session_next(ps_event *out, ps_session *s, ps_error *err)
{
    int rc;

    if (s->done)
        return PS_DONE;
    if (s->opts.ordered && !s->order_off && s->evlist.nr && !s->evlist.sample_id_all) {
        s->order_off = 1;
        ps_session__warn(s, PS_NO_OFFSET, "no sample_id_all support: records are "
                         "delivered in file order, unsorted (as perf does)");
    }
    rc = s->opts.ordered && !s->order_off ? next_ordered(out, s, err)
                                          : next_in_file_order(out, s, err);
    if (rc == PS_OK)
        s->index++;
    else if (rc == PS_DONE)
        s->done = 1;
    return rc;
}

/* --- callers that read a file's records themselves ---------------------------- */

int ps_session__release(ps_session *s, int *fd, uint64_t *from, uint64_t *to)
{
    if (s->src.map == NULL || s->src.is_stream || s->src.map_owned != 2 || s->src.fd < 0 ||
        s->dir_files != NULL || s->swap || s->hdr.container != PS_CONTAINER_FILE ||
        s->index != 0 || s->done || (*fd = dup(s->src.fd)) < 0)
        return -1;
    *from = s->src.pos;
    *to = s->src.end < s->src.map_size ? s->src.end : s->src.map_size;
    ps_source__close(&s->src);
    s->done = 1;                /* ps_session_next() has nothing more to say */
    return 0;
}

int ps_session__decode_bytes(ps_event *out, ps_session *s, const uint8_t *p, uint64_t off,
                             ps_error *err)
{
    frame f;
    int rc;

    if (((uintptr_t)p & 7) != 0 || s->swap)
        return ps_error__set(err, PS_EINVAL, off, "record not aligned in host byte order");
    memset(&f, 0, sizeof(f));
    f.off = off;
    if ((rc = frame_header(s, &f, p, err)) < 0)
        return rc;
    extra_size(p, f.type, f.size, 0, &f.extra);
    if (f.extra)
        return ps_error__set(err, PS_EUNSUPPORTED, off, "record with a payload");
    f.p = f.orig = p;
    return decode_frame(out, s, &f, p + f.size, NULL, err);
}
