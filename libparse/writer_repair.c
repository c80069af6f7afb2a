/* SPDX-License-Identifier: MIT */
/*
 * writer_repair.c - terminating a capture whose recorder was killed before
 * ps_writer_finish: the header still says data.size 0 (spec 2.1), records
 * run to the end of the file and the last one may be torn.
 *
 * Invariants: every record header is checked against the file size before
 * its size is trusted; only types perf 6.1 knows are kept (spec 15.1 item
 * 5), so a garbage tail is cut rather than handed to perf. The file is only
 * changed after the scan succeeded: truncate to the kept records, append
 * the feature table, then rewrite the header last (a crash in between
 * leaves a file that is still "unterminated", never a wrong one).
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util.h"
#include "writer.h"

#define HDR_SIZE 104

typedef struct scan_hdr {
    uint64_t v[13];             /* perf_file_header as u64 words */
} scan_hdr;

static int known_type(uint32_t t)
{
    return (t >= 1 && t <= 21) || (t >= 64 && t <= 82);
}

static int read_header(int fd, const char *path, scan_hdr *h, uint64_t fsize, ps_error *err)
{
    if (pread(fd, h->v, HDR_SIZE, 0) != HDR_SIZE)
        return ps_error__set(err, PS_ETRUNC, 0, "%s: shorter than a perf.data header", path);
    if (memcmp(&h->v[0], "PERFILE2", 8) != 0 || h->v[1] != HDR_SIZE)
        return ps_error__set(err, PS_EFORMAT, 0,
                             "%s: not a file-mode perf.data written on this machine", path);
    if (h->v[6] != 0)
        return ps_error__set(err, PS_EINVAL, 48,
                             "%s: already terminated (data size %llu): nothing to repair",
                             path, (unsigned long long)h->v[6]);
    if (h->v[5] < HDR_SIZE || h->v[5] > fsize || h->v[3] > fsize || h->v[4] > fsize - h->v[3])
        return ps_error__set(err, PS_ECORRUPT, 24,
                             "%s: attr table or data offset outside the file", path);
    return PS_OK;
}

/* Tracepoint attrs in the attr table (type 2 at an entry's start, config
 * at 8): their count, configs of the first 64 in info. */
static int find_tracepoints(const uint8_t *m, const scan_hdr *h, ps_repair_info *info)
{
    uint64_t off;
    uint32_t type;
    int n = 0;

    if (h->v[2] < 16)
        return 0;
    for (off = h->v[3]; off + h->v[2] <= h->v[3] + h->v[4]; off += h->v[2]) {
        memcpy(&type, m + off, 4);
        if (type != 2)
            continue;
        if (n < 64)
            memcpy(&info->tp_config[n], m + off + 8, 8);
        n++;
    }
    return n;
}

static void scan_records(const uint8_t *m, uint64_t start, uint64_t end, ps_repair_info *info)
{
    uint64_t pos = start;

    while (end - pos >= 8) {
        uint32_t type;
        uint16_t size;

        memcpy(&type, m + pos, 4);
        memcpy(&size, m + pos + 6, 2);
        if (size < 8 || size > end - pos || !known_type(type))
            break;
        info->compressed |= type == 81;
        info->records++;
        pos += size;
    }
    info->data_size = pos - start;
    info->dropped = end - pos;
}

static int scan(int fd, const char *path, scan_hdr *h, ps_repair_info *info, ps_error *err)
{
    struct stat st;
    uint8_t *m;

    memset(info, 0, sizeof(*info));
    if (fstat(fd, &st) < 0)
        return ps_error__set(err, PS_EIO, PS_NO_OFFSET, "%s: %s", path, strerror(errno));
    if (read_header(fd, path, h, (uint64_t)st.st_size, err) < 0)
        return err->code;
    m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED)
        return ps_error__set(err, PS_EIO, PS_NO_OFFSET, "%s: mmap: %s", path, strerror(errno));
    info->tracepoints = find_tracepoints(m, h, info);
    scan_records(m, h->v[5], (uint64_t)st.st_size, info);
    munmap(m, (size_t)st.st_size);
    if (info->records == 0)
        return ps_error__set(err, PS_ETRUNC, h->v[5], "%s: no complete record to keep", path);
    return PS_OK;
}

int ps_writer_repair_scan(const char *path, ps_repair_info *info, ps_error *err)
{
    scan_hdr h;
    int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

    if (fd < 0)
        return ps_error__set(err, PS_EIO, PS_NO_OFFSET, "%s: %s", path, strerror(errno));
    rc = scan(fd, path, &h, info, err);
    close(fd);
    return rc;
}

/* Features in bit order: COMPRESSED if needed plus the caller's. */
static int append_features(int fd, scan_hdr *h, const ps_repair_feat *extra, size_t nextra,
                           const ps_repair_info *info, const char *path, ps_error *err)
{
    static const uint32_t zstd[5] = { 0, 1, 1, 0, PS_WRITER_MMAP_LEN };
    uint64_t table = h->v[5] + info->data_size, off;
    const void *buf[PS_FEAT_LAST] = { 0 };
    size_t len[PS_FEAT_LAST] = { 0 }, i, n = 0;
    unsigned bit;

    if (info->compressed) {
        buf[PS_HEADER_COMPRESSED] = zstd;
        len[PS_HEADER_COMPRESSED] = sizeof(zstd);
    }
    for (i = 0; i < nextra; i++)
        if (extra[i].bit > 0 && extra[i].bit < PS_FEAT_LAST) {
            buf[extra[i].bit] = extra[i].buf;
            len[extra[i].bit] = extra[i].len;
        }
    for (bit = 1; bit < PS_FEAT_LAST; bit++)
        n += buf[bit] != NULL;
    off = table + 16 * n;
    for (bit = 1; bit < PS_FEAT_LAST; bit++) {
        uint64_t sec[2] = { off, len[bit] };

        if (buf[bit] == NULL)
            continue;
        if (pwrite(fd, sec, 16, (off_t)table) != 16 ||
            pwrite(fd, buf[bit], len[bit], (off_t)off) != (ssize_t)len[bit])
            return ps_error__set(err, PS_EIO, table, "%s: %s", path, strerror(errno));
        h->v[9 + bit / 64] |= 1ull << (bit % 64);
        table += 16;
        off += len[bit];
    }
    return PS_OK;
}

int ps_writer_repair(const char *path, const ps_repair_feat *extra, size_t nextra,
                     ps_repair_info *info, ps_error *err)
{
    scan_hdr h;
    int fd = open(path, O_RDWR | O_CLOEXEC), rc;

    if (fd < 0)
        return ps_error__set(err, PS_EIO, PS_NO_OFFSET, "%s: %s", path, strerror(errno));
    if ((rc = scan(fd, path, &h, info, err)) < 0)
        goto out;
    rc = PS_EIO;
    if (ftruncate(fd, (off_t)(h.v[5] + info->data_size)) < 0) {
        ps_error__set(err, PS_EIO, PS_NO_OFFSET, "%s: truncate: %s", path, strerror(errno));
        goto out;
    }
    memset(&h.v[9], 0, 32);
    if (append_features(fd, &h, extra, nextra, info, path, err) < 0)
        goto out;
    h.v[6] = info->data_size;
    if (fsync(fd) < 0 || pwrite(fd, h.v, HDR_SIZE, 0) != HDR_SIZE) {
        ps_error__set(err, PS_EIO, 0, "%s: header: %s", path, strerror(errno));
        goto out;
    }
    rc = PS_OK;
out:
    close(fd);
    return rc;
}
