/* SPDX-License-Identifier: MIT */
/*
 * test_truncate.c - every truncated prefix of real captures decodes to a
 * clean end or an error value, never a crash, hang or sanitizer report
 * (run it under `make check SANITIZE=1`). Captures come from the corpus in
 * $PS_SHARED (default ../shared beside the checkout). Small captures are cut
 * at every byte; larger ones at a stride, said in the test name.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include "harness.h"
#include "builder.h"

static const char *shared_dir(void)
{
    const char *d = getenv("PS_SHARED");

    return d ? d : "../shared";
}

static uint8_t *slurp(const char *path, size_t *n)
{
    struct stat st;
    uint8_t *p;
    int fd = open(path, O_RDONLY);

    if (fd < 0 || fstat(fd, &st) < 0) {
        if (fd >= 0) close(fd);
        return NULL;
    }
    p = malloc((size_t)st.st_size + 1);
    if (p && read(fd, p, (size_t)st.st_size) != st.st_size) {
        free(p);
        p = NULL;
    }
    close(fd);
    *n = (size_t)st.st_size;
    return p;
}

/* Decode every prefix [0, len) for len = size, size - stride, ... 0. */
static void check_prefixes(const char *name, size_t stride)
{
    char path[512];
    size_t size, len;
    uint8_t *bytes;
    int fd, full_ok = 0;

    snprintf(path, sizeof(path), "%s/corpus/%s", shared_dir(), name);
    bytes = slurp(path, &size);
    CHECK(bytes != NULL);
    if (bytes == NULL) {
        fprintf(stderr, "cannot read %s (set PS_SHARED)\n", path);
        return;
    }
    const char *tmp = write_temp(bytes, size);

    fd = open(tmp, O_RDWR);
    for (len = size + 1; len-- > 0;) {
        ps_session *s;
        ps_event ev;
        ps_error err;
        int rc = PS_DONE;
        uint64_t n = 0;

        if (len != size && (size - len) % stride != 0 && len > 64)
            continue;
        CHECK(ftruncate(fd, (off_t)len) == 0);
        if (ps_session_open(&s, tmp, NULL, &err) < 0) {
            CHECK(err.msg[0] != 0 && err.code < 0);
            continue;
        }
        while (n < 10000000 && (rc = ps_session_next(&ev, s, &err)) == PS_OK)
            n++;
        CHECK(rc == PS_DONE || (rc < 0 && err.msg[0] != 0));
        if (len == size)
            full_ok = rc == PS_DONE;
        ps_session_close(s);
    }
    CHECK(full_ok);
    close(fd);
    unlink(tmp);
    free(bytes);
}

static void test_compressed_every_prefix(void) { check_prefixes("captures/compressed.data", 1); }
static void test_identifier_every_prefix(void) { check_prefixes("captures/identifier.data", 1); }
static void test_throttle_every_prefix(void) { check_prefixes("captures/throttle.data", 1); }
static void test_stat_record_every_prefix(void) { check_prefixes("captures/stat-record.data", 1); }
static void test_read_group_every_prefix(void) { check_prefixes("captures/sample-read-group.data", 1); }
static void test_pipe_every_13th_prefix(void) { check_prefixes("captures/pipe-mode.data", 13); }
static void test_tp_be_every_17th_prefix(void) { check_prefixes("endian/tp_be.data", 17); }
static void test_pipe_be_every_31st_prefix(void) { check_prefixes("endian/pipe_be.data", 31); }

static const struct harness_test tests[] = {
    TEST(test_compressed_every_prefix),
    TEST(test_identifier_every_prefix),
    TEST(test_throttle_every_prefix),
    TEST(test_stat_record_every_prefix),
    TEST(test_read_group_every_prefix),
    TEST(test_pipe_every_13th_prefix),
    TEST(test_tp_be_every_17th_prefix),
    TEST(test_pipe_be_every_31st_prefix),
};

TEST_MAIN(tests)
