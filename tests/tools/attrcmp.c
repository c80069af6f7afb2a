/* SPDX-License-Identifier: MIT */
/*
 * attrcmp.c - do two attr files (JSON or binary, one attr each) describe the
 * same perf_event_attr? Parses both with the public ps_attr_parse() and
 * compares every ps_attr field, naming the ones that differ. Test tool for
 * tests/diff/ring.sh; links libperfsift.a.
 *
 *   attrcmp A B        exit 0 same, 1 different, 2 a file did not parse
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "perfsift.h"

static void *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;

    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
        fseek(f, 0, SEEK_SET) != 0 || (buf = malloc((size_t)n + 1)) == NULL ||
        fread(buf, 1, (size_t)n, f) != (size_t)n) {
        perror(path);
        exit(2);
    }
    fclose(f);
    *size = (size_t)n;
    return buf;
}

static int load(ps_attr *a, const char *path)
{
    ps_error err;
    size_t size;
    void *buf = slurp(path, &size);
    int rc = ps_attr_parse(a, buf, size, &err);

    free(buf);
    if (rc < 0)
        fprintf(stderr, "attrcmp: %s: %s\n", path, err.msg);
    return rc;
}

#define CMP(f) do { if (a.f != b.f) { \
    printf("%s: 0x%llx != 0x%llx\n", #f, (unsigned long long)a.f, (unsigned long long)b.f); \
    diff++; } } while (0)

int main(int argc, char **argv)
{
    ps_attr a, b;
    int diff = 0;

    if (argc != 3) {
        fprintf(stderr, "usage: attrcmp A B\n");
        return 2;
    }
    if (load(&a, argv[1]) < 0 || load(&b, argv[2]) < 0)
        return 2;
    CMP(type); CMP(size); CMP(config); CMP(sample_period); CMP(sample_type);
    CMP(read_format); CMP(flags); CMP(wakeup_events); CMP(bp_type);
    CMP(config1); CMP(config2); CMP(branch_sample_type); CMP(sample_regs_user);
    CMP(sample_stack_user); CMP(clockid); CMP(sample_regs_intr);
    CMP(aux_watermark); CMP(sample_max_stack); CMP(reserved_2);
    CMP(aux_sample_size); CMP(aux_action); CMP(sig_data); CMP(config3);
    return diff ? 1 : 0;
}
