/* SPDX-License-Identifier: MIT */
/*
 * test_threads.c - the library keeps no global mutable state: two sessions
 * (each with its resolver: symbols, unwinding, tracepoint text) run at the
 * same time in two threads give what each gives alone. The digest covers
 * every record's type and offset, each sample's resolved call chain (dso,
 * symbol, offset) and each tracepoint sample's trace text. Captures come
 * from testdata/ and $PS_SHARED (default ../shared).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "perfsift.h"
#include "../../libparse/resolve.h"

typedef struct job {
    char     path[512];
    uint64_t digest;
    uint64_t nr_records, nr_frames;
    int      rc;
} job;

static uint64_t mix(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;

    while (n--)
        h = (h ^ *b++) * 0x100000001b3ULL;     /* FNV-1a */
    return h;
}

static uint64_t mix_str(uint64_t h, const char *s)
{
    return mix(h, s ? s : "(null)", strlen(s ? s : "(null)") + 1);
}

static uint64_t sample_digest(job *j, ps_session *s, ps_resolver *r, const ps_event *ev,
                              uint64_t h)
{
    const ps_frame *fr;
    ps_error err;
    char text[1024];
    size_t i, n;
    int len;

    n = ps_resolver__frames(r, &ev->u.sample, ev->evsel ? ev->evsel->attr.branch_sample_type : 0,
                            127, &fr);
    for (i = 0; i < n; i++) {
        h = mix(h, &fr[i].ip, sizeof(fr[i].ip));
        h = mix_str(h, fr[i].r.dso);
        h = mix_str(h, fr[i].r.sym ? fr[i].r.sym->name : NULL);
        h = mix(h, &fr[i].r.symoff, sizeof(fr[i].r.symoff));
    }
    j->nr_frames += n;
    if ((len = ps_tracepoint_print(text, sizeof(text), s, ev, &err)) >= 0)
        h = mix(h, text, strlen(text));
    return h;
}

static void *run(void *arg)
{
    job *j = arg;
    ps_open_opts o = PS_OPEN_OPTS_INIT;
    ps_symbols_opts so;
    ps_session *s = NULL;
    ps_resolver *r = NULL;
    ps_event ev;
    ps_error err;
    uint64_t h = 0xcbf29ce484222325ULL;
    int rc;

    memset(&so, 0, sizeof(so));
    so.demangle = 1;
    so.kallsyms = "/dev/null";   /* the running kernel is not the capture's */
    j->rc = -1;
    if (ps_session_open(&s, j->path, &o, &err) < 0 ||
        ps_resolver__new(&r, &so, ps_session_features(s), &err) < 0)
        goto out;
    while ((rc = ps_session_next(&ev, s, &err)) == PS_OK) {
        if (ps_resolver__event(r, &ev, &err) < 0)
            goto out;
        h = mix(h, &ev.type, sizeof(ev.type));
        h = mix(h, &ev.offset, sizeof(ev.offset));
        if (ev.type == PERF_RECORD_SAMPLE)
            h = sample_digest(j, s, r, &ev, h);
        j->nr_records++;
    }
    j->rc = rc == PS_DONE ? 0 : rc;
out:
    j->digest = h;
    ps_resolver__free(r);
    ps_session_close(s);
    return NULL;
}

static void set_path(job *j, const char *name)
{
    const char *shared = getenv("PS_SHARED");

    memset(j, 0, sizeof(*j));
    if (strncmp(name, "testdata/", 9) == 0)
        snprintf(j->path, sizeof(j->path), "%s", name);
    else
        snprintf(j->path, sizeof(j->path), "%s/%s", shared ? shared : "../shared", name);
}

/* a and b alone, then together in two threads (twice): same digests */
static void check_pair(const char *a, const char *b)
{
    job alone[2], both[2];
    pthread_t t[2];
    int round, i;

    set_path(&alone[0], a);
    set_path(&alone[1], b);
    run(&alone[0]);
    run(&alone[1]);
    for (i = 0; i < 2; i++) {
        CHECK(alone[i].rc == 0);
        CHECK(alone[i].nr_records > 0);
        if (alone[i].rc != 0)
            fprintf(stderr, "%s: cannot be read (rc %d)\n", alone[i].path, alone[i].rc);
    }
    CHECK(alone[0].nr_frames + alone[1].nr_frames > 0);     /* chains were resolved */
    for (round = 0; round < 2; round++) {
        set_path(&both[0], a);
        set_path(&both[1], b);
        for (i = 0; i < 2; i++)
            CHECK(pthread_create(&t[i], NULL, run, &both[i]) == 0);
        for (i = 0; i < 2; i++)
            CHECK(pthread_join(t[i], NULL) == 0);
        for (i = 0; i < 2; i++) {
            CHECK(both[i].rc == alone[i].rc);
            CHECK(both[i].nr_records == alone[i].nr_records);
            CHECK(both[i].nr_frames == alone[i].nr_frames);
            CHECK(both[i].digest == alone[i].digest);
        }
    }
}

/* DWARF unwinding (libdwfl) beside tracepoint text (libtraceevent) */
static void test_dwarf_and_tracepoints(void)
{
    check_pair("testdata/dwarf-inline.data", "corpus/captures/sched-tp-syswide.data");
}

/* two call-chain captures with symbols from the same binaries */
static void test_two_callchain_captures(void)
{
    check_pair("corpus/captures/cpuhog-fp.data", "corpus/captures/mthread-fp.data");
}

/* the same capture twice at once: per-session caches only */
static void test_same_capture_twice(void)
{
    check_pair("corpus/captures/syscalls-tp.data", "corpus/captures/syscalls-tp.data");
}

/* a compressed pipe capture beside a file one */
static void test_compressed_and_file(void)
{
    check_pair("testdata/pipe-z.data", "testdata/threads-z.data");
}

static const struct harness_test tests[] = {
    TEST(test_dwarf_and_tracepoints),
    TEST(test_two_callchain_captures),
    TEST(test_same_capture_twice),
    TEST(test_compressed_and_file),
};

TEST_MAIN(tests)
