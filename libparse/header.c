/* SPDX-License-Identifier: MIT */
/*
 * header.c - the container's front matter: magic and byte order (spec 2.1,
 * 2.3, 4.1, 4.2), the pipe header (5.1), the file header, the attr table
 * with its id arrays (2.4) and the feature table (6.1), whose payloads go to
 * features.c. Leaves the source positioned at the first record with its end
 * set to the end of the data section.
 *
 * Invariant: every offset and size read here is checked against the file
 * size before use; a bad feature section is a warning, a bad attr table an
 * error (without attrs no record can be decoded).
 */
#include <stdio.h>
#include "attr.h"
#include "features.h"
#include "session.h"

#define MAGIC2     UINT64_C(0x32454C4946524550)     /* "PERFILE2" */
#define MAGIC2_SW  UINT64_C(0x50455246494C4532)
#define PIPE_HEADER_SIZE 16
#define FILE_HEADER_SIZE 104
#define FILE_HEADER_SIZE_OLD 72

/* Legacy PERFFILE: the byte order is the one in which attr_size (or the
 * pipe header size) is a known size (spec 2.3). */
static int legacy_swap(uint64_t v, int pipe, int *swap)
{
    static const uint64_t attr_sizes[] = { 80, 88, 96, 112, 120 };
    size_t i;
    int sw;

    for (sw = 0; sw < 2; sw++) {
        uint64_t x = sw ? ps_bswap64(v) : v;

        if (pipe && x == PIPE_HEADER_SIZE) {
            *swap = sw;
            return 0;
        }
        for (i = 0; !pipe && i < PS_ARRAY_SIZE(attr_sizes); i++)
            if (x == attr_sizes[i]) {
                *swap = sw;
                return 0;
            }
    }
    return -1;
}

static int read_magic(ps_session *s, const uint8_t *p, int64_t got, ps_error *err)
{
    uint64_t magic;

    if (got < 16)
        return ps_error__set(err, PS_EFORMAT, 0,
                             "%s: %lld bytes is too short for a perf.data header",
                             s->path, (long long)got);
    magic = ps_load64(p, 0);
    if (magic == MAGIC2) {
        s->swap = 0;
    } else if (magic == MAGIC2_SW) {
        s->swap = 1;
    } else if (memcmp(p, "PERFFILE", 8) == 0) {
        s->hdr.legacy_magic = 1;
        if (legacy_swap(ps_load64(p + 8, 0), 1, &s->swap) < 0 &&
            (got < 24 || legacy_swap(ps_load64(p + 16, 0), 0, &s->swap) < 0))
            return ps_error__set(err, PS_EFORMAT, 0,
                                 "%s: legacy PERFFILE header with an unknown attr size",
                                 s->path);
    } else {
        return ps_error__set(err, PS_EFORMAT, 0,
                             "%s: not a perf.data file (bad magic)", s->path);
    }
    s->hdr.swapped = s->swap;
    return PS_OK;
}

static void fix_feature_bitmap(ps_header *h, const uint8_t *p, int swap)
{
    int i;

    for (i = 0; i < 4; i++)
        h->features[i] = ps_load64(p + 8 * i, swap);
    if (!swap || (h->features[0] & (1u << PS_HEADER_HOSTNAME)))
        return;
    /* A 32-bit producer stored the bitmap as u32 words (spec 4.2). */
    for (i = 0; i < 4; i++)
        h->features[i] = (uint64_t)ps_load32(p + 8 * i, 1) |
                         (uint64_t)ps_load32(p + 8 * i + 4, 1) << 32;
    if (!(h->features[0] & (1u << PS_HEADER_HOSTNAME))) {
        memset(h->features, 0, sizeof(h->features));
        h->features[0] = 1u << PS_HEADER_BUILD_ID;
    }
}

static int section_ok(const ps_file_section *sec, uint64_t file_size)
{
    return sec->offset <= file_size && sec->size <= file_size - sec->offset;
}

static int read_attrs(ps_session *s, ps_error *err)
{
    ps_header *h = &s->hdr;
    uint64_t n, i;
    int rc;

    if (h->attrs.size == 0)
        return PS_OK;       /* zeroed by perf inject: EVENT_DESC may help later */
    if (h->attr_size < PS_ATTR_SIZE_VER0 + 16)
        return ps_error__set(err, PS_ECORRUPT, 16,
                             "%s: offset 0x10: attr_size %llu is below the minimum 80 "
                             "(was the recording properly terminated?)",
                             s->path, (unsigned long long)h->attr_size);
    if (!section_ok(&h->attrs, h->file_size))
        return ps_error__set(err, PS_ETRUNC, 24,
                             "%s: offset 0x18: attr table [0x%llx, +0x%llx) lies outside "
                             "the %llu-byte file", s->path,
                             (unsigned long long)h->attrs.offset,
                             (unsigned long long)h->attrs.size,
                             (unsigned long long)h->file_size);
    n = h->attrs.size / h->attr_size;
    for (i = 0; i < n; i++) {
        uint64_t off = h->attrs.offset + i * h->attr_size;
        const uint8_t *p = ps_source__at(&s->src, off, h->attr_size);
        ps_file_section ids;
        const uint8_t *idp;
        uint64_t *tmp, j, nr;
        ps_attr attr;

        if ((rc = ps_attr__decode(&attr, p, (size_t)h->attr_size - 16, s->swap, off, err)) < 0) {
            char m[sizeof(err->msg)];

            memcpy(m, err->msg, sizeof(m));
            return ps_error__set(err, rc, off, "%s: offset 0x%llx: attr %llu: %s", s->path,
                                 (unsigned long long)off, (unsigned long long)i, m);
        }
        ids.offset = ps_load64(p + h->attr_size - 16, s->swap);
        ids.size = ps_load64(p + h->attr_size - 8, s->swap);
        if (!section_ok(&ids, h->file_size) || ids.size % 8)
            return ps_error__set(err, PS_ECORRUPT, off + h->attr_size - 16,
                                 "%s: offset 0x%llx: attr %llu: id array [0x%llx, +0x%llx) "
                                 "is outside the file or not a multiple of 8", s->path,
                                 (unsigned long long)(off + h->attr_size - 16),
                                 (unsigned long long)i, (unsigned long long)ids.offset,
                                 (unsigned long long)ids.size);
        nr = ids.size / 8;
        idp = ps_source__at(&s->src, ids.offset, ids.size);
        if ((tmp = malloc(nr ? nr * 8 : 1)) == NULL)
            return ps_error__set(err, PS_ENOMEM, off, "out of memory");
        for (j = 0; j < nr; j++)
            tmp[j] = ps_load64(idp + 8 * j, s->swap);
        rc = ps_evlist__add(&s->evlist, &s->arena, &attr, tmp, nr, NULL, err);
        free(tmp);
        if (rc < 0)
            return rc;
    }
    return PS_OK;
}

static void read_features(ps_session *s)
{
    ps_header *h = &s->hdr;
    uint64_t off = h->feat_offset;
    unsigned feat;
    ps_error e;

    /* Every set bit owns a table slot, the reserved bit 0 included. */
    for (feat = 0; feat < PS_HEADER_FEAT_BITS; feat++) {
        const uint8_t *p;
        ps_file_section sec;

        if (!((h->features[feat / 64] >> (feat % 64)) & 1))
            continue;
        if ((p = ps_source__at(&s->src, off, 16)) == NULL) {
            ps_session__warn(s, off, "feature table entry for %s lies outside the file",
                             ps_feature_name(feat) ? ps_feature_name(feat) : "?");
            return;
        }
        sec.offset = ps_load64(p, s->swap);
        sec.size = ps_load64(p + 8, s->swap);
        off += 16;
        s->feat.sections[feat] = sec;
        if (!section_ok(&sec, h->file_size)) {
            ps_session__warn(s, off - 16, "feature %u section [0x%llx, +0x%llx) lies "
                             "outside the file", feat, (unsigned long long)sec.offset,
                             (unsigned long long)sec.size);
            s->feat.failed[feat / 64] |= UINT64_C(1) << (feat % 64);
            continue;
        }
        if (feat == PS_HEADER_RESERVED || feat >= PS_HEADER_FEAT_KNOWN)
            continue;       /* reserved or unknown: its table slot is skipped */
        p = ps_source__at(&s->src, sec.offset, sec.size);
        if (ps_features__decode(&s->feat, &s->arena, feat, p, (size_t)sec.size, s->swap,
                                sec.offset, &e) < 0) {
            ps_session__warn(s, sec.offset, "feature %s: %s",
                             ps_feature_name(feat) ? ps_feature_name(feat) : "?", e.msg);
            s->feat.failed[feat / 64] |= UINT64_C(1) << (feat % 64);
        }
    }
}

/* EVENT_DESC can stand in for a zeroed attr table (perf inject output). */
static int attrs_from_event_desc(ps_session *s, ps_error *err)
{
    uint32_t i;
    int rc;

    if (s->evlist.nr || !ps_features_has(&s->feat, PS_HEADER_EVENT_DESC))
        return PS_OK;
    for (i = 0; i < s->feat.event_desc.nr; i++) {
        const ps_feat_event_desc *d = &s->feat.event_desc.events[i];

        if ((rc = ps_evlist__add(&s->evlist, &s->arena, &d->attr, d->ids, d->nr_ids,
                                 NULL, err)) < 0)
            return rc;
    }
    if (s->feat.event_desc.nr)
        ps_session__warn(s, 24, "empty attr table: events taken from HEADER_EVENT_DESC");
    return PS_OK;
}

static int read_file_header(ps_session *s, const uint8_t *p, ps_error *err)
{
    ps_header *h = &s->hdr;

    if (s->src.is_stream) {
        int rc2;

        /* File mode needs random access: hold the whole input in memory. */
        ps_session__warn(s, PS_NO_OFFSET, "file-mode perf.data on a pipe: reading it "
                         "whole into memory (give the file name to avoid this)");
        if ((rc2 = ps_source__slurp(&s->src, err)) < 0)
            return rc2;
        p = s->src.map;
        h->file_size = s->src.map_size;
    }
    uint64_t data_end;
    int rc;

    if (h->size != FILE_HEADER_SIZE && h->size != FILE_HEADER_SIZE_OLD)
        return ps_error__set(err, PS_EFORMAT, 8,
                             "%s: offset 0x8: header size %llu is not 104, 72 or 16",
                             s->path, (unsigned long long)h->size);
    if (h->file_size < h->size)
        return ps_error__set(err, PS_ETRUNC, 0, "%s: file ends inside the %llu-byte header",
                             s->path, (unsigned long long)h->size);
    h->container = PS_CONTAINER_FILE;
    h->attr_size = ps_load64(p + 16, s->swap);
    h->attrs.offset = ps_load64(p + 24, s->swap);
    h->attrs.size = ps_load64(p + 32, s->swap);
    h->data.offset = ps_load64(p + 40, s->swap);
    h->data.size = ps_load64(p + 48, s->swap);
    h->event_types.offset = ps_load64(p + 56, s->swap);
    h->event_types.size = ps_load64(p + 64, s->swap);
    if (h->size == FILE_HEADER_SIZE)
        fix_feature_bitmap(h, p + 72, s->swap);
    if (h->data.offset < h->size || h->data.offset > h->file_size)
        return ps_error__set(err, PS_ECORRUPT, 40,
                             "%s: offset 0x28: data offset %llu is outside [%llu, %llu]",
                             s->path, (unsigned long long)h->data.offset,
                             (unsigned long long)h->size, (unsigned long long)h->file_size);
    if (h->data.size == 0) {
        /* Unterminated recording: records run to the end of the file. */
        h->data_size_zero = 1;
        memset(h->features, 0, sizeof(h->features));
        ps_session__warn(s, 48, "data size field is 0: the recording was not properly "
                         "terminated; reading records up to the end of the file");
        data_end = h->file_size;
    } else {
        data_end = h->data.offset + h->data.size;
        if (data_end < h->data.offset || data_end > h->file_size) {
            ps_session__warn(s, 48, "data section [0x%llx, +0x%llx) runs past the end of "
                             "the %llu-byte file", (unsigned long long)h->data.offset,
                             (unsigned long long)h->data.size,
                             (unsigned long long)h->file_size);
            data_end = h->file_size;
        }
    }
    h->feat_offset = h->data.offset + h->data.size;
    if ((rc = read_attrs(s, err)) < 0)
        return rc;
    if (!h->data_size_zero)
        read_features(s);
    if ((rc = attrs_from_event_desc(s, err)) < 0)
        return rc;
    ps_evlist__name(&s->evlist, &s->arena, &s->feat, 0);
    s->src.pos = h->data.offset;
    s->src.end = data_end;
    return PS_OK;
}

int ps_header__read(ps_session *s, ps_error *err)
{
    const uint8_t *p;
    int64_t got;
    int rc;

    s->hdr.file_size = s->src.file_size;
    s->hdr.mtime = s->src.mtime;
    if ((got = ps_source__peek(&s->src, FILE_HEADER_SIZE, &p, err)) < 0)
        return (int)got;
    if ((rc = read_magic(s, p, got, err)) < 0)
        return rc;
    s->hdr.size = ps_load64(p + 8, s->swap);
    if (s->hdr.size == PIPE_HEADER_SIZE) {
        s->hdr.container = PS_CONTAINER_PIPE;
        s->evlist.pipe = 1;
        ps_source__consume(&s->src, PIPE_HEADER_SIZE);
        return PS_OK;
    }
    return read_file_header(s, p, err);
}
