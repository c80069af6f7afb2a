/* SPDX-License-Identifier: MIT */
/*
 * ringwrap.c - wrap a drained ring-buffer stream into the smallest perf.data
 * that perf 6.1 reads (spec 14.3): file header, the ids, one attr entry,
 * and the records as the data section, no features and no FINISHED_ROUND.
 * Test tool for tests/diff/ring.sh: it lets real perf (`perf script -i`)
 * judge the same records perfsift decodes from the raw dump.
 *
 *   ringwrap ATTR.bin ID[,ID...] RECORDS.raw OUT.data
 *
 * ATTR.bin is one binary struct perf_event_attr (native byte order) as the
 * kernel took it. Written from shared/spec/perf-data-format.md sections 2
 * and 14.3; checks only what it needs to stay within its buffers.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FILE_HEADER_SIZE 104
#define MAX_IDS 256

static unsigned char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    size_t cap = 0, len = 0, n;

    if (f == NULL) {
        perror(path);
        return NULL;
    }
    do {
        if (len == cap) {
            unsigned char *nb = realloc(buf, cap = cap ? cap * 2 : 65536);

            if (nb == NULL) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        n = fread(buf + len, 1, cap - len, f);
        len += n;
    } while (n > 0);
    fclose(f);
    *size = len;
    return buf;
}

static void put64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }

static int parse_ids(char *arg, uint64_t *ids)
{
    int n = 0;
    char *tok;

    for (tok = strtok(arg, ","); tok && n < MAX_IDS; tok = strtok(NULL, ","))
        ids[n++] = strtoull(tok, NULL, 0);
    return n;
}

int main(int argc, char **argv)
{
    unsigned char hdr[FILE_HEADER_SIZE] = "PERFILE2", sec[16];
    uint64_t ids[MAX_IDS], attr_size, ids_off, attr_off, data_off;
    unsigned char *attr, *data;
    size_t attr_len, data_len;
    uint32_t size;
    FILE *out;
    int nr_ids;

    if (argc != 5) {
        fprintf(stderr, "usage: ringwrap ATTR.bin ID[,ID...] RECORDS.raw OUT.data\n");
        return 2;
    }
    if ((attr = slurp(argv[1], &attr_len)) == NULL || (data = slurp(argv[3], &data_len)) == NULL)
        return 1;
    memcpy(&size, attr + 4, 4);
    if (attr_len < 64 || size < 64 || size > attr_len) {
        fprintf(stderr, "%s: not one binary perf_event_attr\n", argv[1]);
        return 1;
    }
    nr_ids = parse_ids(argv[2], ids);
    attr_size = size + 16;                  /* attr + its ids section */
    ids_off = FILE_HEADER_SIZE;
    attr_off = ids_off + 8 * (uint64_t)nr_ids;
    data_off = attr_off + attr_size;
    put64(hdr + 8, FILE_HEADER_SIZE);
    put64(hdr + 16, attr_size);
    put64(hdr + 24, attr_off);
    put64(hdr + 32, attr_size);
    put64(hdr + 40, data_off);
    put64(hdr + 48, data_len);
    put64(sec, ids_off);
    put64(sec + 8, 8 * (uint64_t)nr_ids);
    if ((out = fopen(argv[4], "wb")) == NULL) {
        perror(argv[4]);
        return 1;
    }
    fwrite(hdr, 1, sizeof(hdr), out);
    fwrite(ids, 8, (size_t)nr_ids, out);
    fwrite(attr, 1, size, out);
    fwrite(sec, 1, sizeof(sec), out);
    fwrite(data, 1, data_len, out);
    if (fclose(out) != 0) {
        perror(argv[4]);
        return 1;
    }
    free(attr);
    free(data);
    return 0;
}
