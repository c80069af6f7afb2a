/* SPDX-License-Identifier: MIT */
/*
 * writer_feat.c - feature payload primitives for the writer (spec 6.2,
 * 6.4): perf strings padded to 64 bytes as perf writes them, string
 * lists, and BUILD_ID entries in perf 6.1's form.
 */
#include "util.h"
#include "writer.h"

#define NAME_ALIGN 64
#define BUILD_ID_BYTES 20

static size_t string_size(const char *s)
{
    return NAME_ALIGN * (strlen(s) / NAME_ALIGN + 1);   /* text, NUL, zeros */
}

static size_t put_string(uint8_t *p, const char *s)
{
    uint32_t n = (uint32_t)string_size(s);

    memcpy(p, &n, 4);
    memset(p + 4, 0, n);
    memcpy(p + 4, s, strlen(s));
    return 4 + n;
}

uint8_t *ps_feat_string(const char *s, size_t *len)
{
    uint8_t *b = malloc(4 + string_size(s));

    if (b != NULL)
        *len = put_string(b, s);
    return b;
}

uint8_t *ps_feat_string_list(const char *const *v, size_t nr, size_t *len)
{
    size_t i, n = 4, pos = 4;
    uint32_t nr32 = (uint32_t)nr;
    uint8_t *b;

    for (i = 0; i < nr; i++)
        n += 4 + string_size(v[i]);
    if ((b = malloc(n)) == NULL)
        return NULL;
    memcpy(b, &nr32, 4);
    for (i = 0; i < nr; i++)
        pos += put_string(b + pos, v[i]);
    *len = pos;
    return b;
}

/* perf 6.1's entry: 36 bytes, then the path padded to a multiple of 64. */
int ps_buildid_list_add(ps_buildid_list *l, uint16_t cpumode, int32_t pid,
                        const uint8_t *bid, size_t bid_size, const char *path)
{
    size_t plen = NAME_ALIGN * ((strlen(path) + 1 + NAME_ALIGN - 1) / NAME_ALIGN);
    size_t size = 36 + plen;
    uint16_t size16 = (uint16_t)size, misc = cpumode;
    uint8_t *e;

    if (size > 65535 || bid_size > BUILD_ID_BYTES)
        return -1;
    if (ps_grow((void **)&l->buf, &l->cap, l->len + size, 1) < 0)
        return -1;
    e = l->buf + l->len;
    memset(e, 0, size);
    memcpy(e + 4, &misc, 2);
    memcpy(e + 6, &size16, 2);
    memcpy(e + 8, &pid, 4);
    memcpy(e + 12, bid, bid_size);
    memcpy(e + 36, path, strlen(path));
    l->len += size;
    return 0;
}
