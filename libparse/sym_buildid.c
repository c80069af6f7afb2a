/* SPDX-License-Identifier: MIT */
/*
 * sym_buildid.c - build-ids (see sym_buildid.h). The expected build-id of
 * a file is the MMAP2 record's, else the BUILD_ID feature entry with the
 * same file name; a file's own is read only when neither exists (the
 * loaders decide that). perf.data files pad build-ids to 20 bytes, hence
 * the zero-tail rule in ps_build_id__equal().
 */
#include <stdio.h>
#include <unistd.h>
#include "sym_buildid.h"
#include "sym_io.h"

int ps_build_id__from_notes(uint8_t bid[PS_BUILD_ID_MAX], const uint8_t *notes, size_t len,
                            int strict)
{
    size_t off = 0;

    while (off + 12 <= len) {
        const uint8_t *p = notes + off;
        uint32_t nh[3];
        size_t namesz, descsz;

        memcpy(nh, p, sizeof(nh));
        namesz = ((size_t)nh[0] + 3) & ~(size_t)3;
        descsz = ((size_t)nh[1] + 3) & ~(size_t)3;
        if (strict ? namesz > len || descsz > len || off + 12 + namesz + descsz > len
                   : off + 12 + namesz > len)
            return -1;
        if (nh[2] == 3 && nh[0] == 4 && memcmp(p + 12, "GNU", 4) == 0) {
            size_t sz = descsz < PS_BUILD_ID_MAX ? descsz : PS_BUILD_ID_MAX;

            if (off + 12 + namesz + sz > len)
                return -1;
            memset(bid, 0, PS_BUILD_ID_MAX);
            memcpy(bid, p + 12 + namesz, sz);
            return (int)sz;
        }
        off += 12 + namesz + descsz;
    }
    return -1;
}

/* From /sys/kernel/notes, which holds the kernel's notes in host order. */
int ps_build_id__host(uint8_t bid[PS_BUILD_ID_MAX])
{
    uint8_t buf[4096];
    size_t len = 0;
    ssize_t n;
    int fd = ps_file__open_regular("/sys/kernel/notes");

    if (fd < 0)
        return -1;
    while (len < sizeof(buf) && (n = read(fd, buf + len, sizeof(buf) - len)) > 0)
        len += (size_t)n;
    close(fd);
    return ps_build_id__from_notes(bid, buf, len, 0);
}

/* A 20-byte expectation also matches a shorter id followed by zeros. */
int ps_build_id__equal(const uint8_t *want, size_t nwant, const uint8_t *got, size_t ngot)
{
    size_t i;

    if (nwant > ngot && nwant == PS_BUILD_ID_MAX) {
        if (memcmp(want, got, ngot) != 0)
            return 0;
        for (i = ngot; i < nwant; i++)
            if (want[i])
                return 0;
        return 1;
    }
    return nwant == ngot && memcmp(want, got, nwant) == 0;
}

void ps_build_id__hex(char *hex, const uint8_t *bid, size_t size)
{
    size_t i;

    for (i = 0; i < size; i++)
        snprintf(hex + 2 * i, 3, "%02x", bid[i]);
    hex[2 * size] = '\0';
}

const ps_feat_build_id *ps_build_id__header_entry(const ps_features *feat, const char *name)
{
    uint32_t i;

    if (feat == NULL || !ps_features_has(feat, PS_HEADER_BUILD_ID))
        return NULL;
    for (i = 0; i < feat->build_ids.nr; i++) {
        const ps_feat_build_id *e = &feat->build_ids.entries[i];

        if (e->filename != NULL && strcmp(e->filename, name) == 0)
            return e;
    }
    return NULL;
}

int ps_build_id__expected(uint8_t bid[PS_BUILD_ID_MAX], size_t *size, const ps_features *feat,
                          const ps_map *map, const char *name)
{
    const ps_feat_build_id *e;

    if (map != NULL && map->has_build_id) {
        *size = map->build_id_size <= PS_BUILD_ID_MAX ? map->build_id_size : PS_BUILD_ID_MAX;
        memcpy(bid, map->build_id, *size);
        return 1;
    }
    if ((e = ps_build_id__header_entry(feat, name)) != NULL) {
        *size = e->size <= PS_BUILD_ID_MAX ? e->size : PS_BUILD_ID_MAX;
        memcpy(bid, e->build_id, *size);
        return 1;
    }
    return 0;
}
