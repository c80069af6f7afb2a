/* SPDX-License-Identifier: MIT */
/*
 * dwsep.c - finding the separate debug file as BFD does (see dwsep.h).
 */
#include "dwsep.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "sym_buildid.h"
#include "sym_elf.h"
#include "sym_io.h"

#define DEBUGDIR "/usr/lib/debug"       /* Debian's binutils: --with-separate-debug-dir */

/* A debuglink candidate larger than this is not read: its CRC is over the
 * whole file, and a sparse file of 100 GB beside a binary would take
 * minutes. Real separate debug files stay well below it. */
#define MAX_DEBUG_FILE ((uint64_t)8 << 30)

/* The CRC-32 .gnu_debuglink holds (zlib's, the IEEE one) of a whole file. */
static int file_crc32(const char *path, uint32_t *out)
{
    uint8_t buf[65536];
    uLong crc = crc32(0, Z_NULL, 0);
    struct stat st;
    ssize_t n;
    int fd;

    if ((fd = ps_file__open_regular(path)) < 0)
        return -1;
    if (fstat(fd, &st) < 0 || (uint64_t)st.st_size > MAX_DEBUG_FILE) {
        close(fd);
        return -1;
    }
    while ((n = read(fd, buf, sizeof(buf))) > 0)
        crc = crc32(crc, buf, (uInt)n);
    close(fd);
    if (n < 0)
        return -1;
    *out = (uint32_t)crc;
    return 0;
}

static int by_build_id(Elf *elf, char *out, size_t size)
{
    uint8_t bid[PS_BUILD_ID_MAX], found[PS_BUILD_ID_MAX];
    char hex[2 * PS_BUILD_ID_MAX + 1];
    int n, i;

    if ((n = ps_elf__build_id(elf, bid)) < 2)
        return -1;
    for (i = 0; i < n; i++)
        snprintf(hex + 2 * i, 3, "%02x", bid[i]);
    if (snprintf(out, size, "%s/.build-id/%.2s/%s.debug", DEBUGDIR, hex, hex + 2) >= (int)size)
        return -1;
    return ps_elf__file_build_id(out, found) == n && memcmp(found, bid, (size_t)n) == 0 ? 0 : -1;
}

/* .gnu_debuglink: the file name and the CRC after it (4-aligned). */
static int debuglink(Elf *elf, char *name, size_t size, uint32_t *crc)
{
    GElf_Ehdr eh;
    GElf_Shdr sh;
    Elf_Scn *sec;
    Elf_Data *d;
    size_t len, at;
    const uint8_t *p;

    if (gelf_getehdr(elf, &eh) == NULL ||
        (sec = ps_elf__section_by_name(elf, &eh, &sh, ".gnu_debuglink", NULL)) == NULL ||
        (d = elf_getdata(sec, NULL)) == NULL || d->d_buf == NULL)
        return -1;
    p = d->d_buf;
    len = strnlen((const char *)p, d->d_size);
    at = (len + 4) & ~(size_t)3;
    if (len == 0 || len >= size || at + 4 > d->d_size)
        return -1;
    memcpy(name, p, len);
    name[len] = '\0';
    *crc = eh.e_ident[EI_DATA] == ELFDATA2MSB
           ? (uint32_t)p[at] << 24 | (uint32_t)p[at + 1] << 16 | (uint32_t)p[at + 2] << 8 | p[at + 3]
           : (uint32_t)p[at + 3] << 24 | (uint32_t)p[at + 2] << 16 | (uint32_t)p[at + 1] << 8 | p[at];
    return strchr(name, '/') == NULL ? 0 : -1;
}

static int by_debuglink(Elf *elf, const char *path, char *out, size_t size)
{
    char name[256], dir[PS_PATH_MAX];
    const char *slash = strrchr(path, '/');
    uint32_t want, got;
    int i;

    if (debuglink(elf, name, sizeof(name), &want) < 0)
        return -1;
    snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path + 1) : 0, path);
    for (i = 0; i < 3; i++) {
        int n = i == 0 ? snprintf(out, size, "%s%s", dir, name)
              : i == 1 ? snprintf(out, size, "%s.debug/%s", dir, name)
              : snprintf(out, size, "%s%s%s%s", DEBUGDIR, dir[0] == '/' ? "" : "/", dir, name);

        if (n > 0 && (size_t)n < size && strcmp(out, path) != 0 &&
            file_crc32(out, &got) == 0 && got == want)
            return 0;
    }
    return -1;
}

int ps_dwsep__find(Elf *elf, const char *path, char *out, size_t size)
{
    if (by_build_id(elf, out, size) == 0 || by_debuglink(elf, path, out, size) == 0)
        return 0;
    return -1;
}
