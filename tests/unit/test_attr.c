/* SPDX-License-Identifier: MIT */
/*
 * test_attr.c - unit tests of attr.c: perf_event_attr decoding at every
 * PERF_ATTR_SIZE_VER0..VER8 size and larger unknown ones (spec 3.1), in both
 * byte orders (4.3: integers swapped at their width, the flags and
 * aux_action words bit-reversed per byte, precise_ip's two bits restored),
 * the size checks, the PERF_SAMPLE_* name table and the sample_id trailer
 * size and id positions of spec 9.1 / 9.2. Every attr is decoded from a heap
 * buffer of exactly the bytes given, so a sanitizer build sees any over-read.
 */
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "../../libparse/attr.h"

#define OFF 0x4000      /* input offset given to the decoder */

/* Distinct per field, high bytes set so a missed swap shows. */
#define V(n) (UINT64_C(0x0102030405060700) + (n))

/* One field of the attr layout (spec 3.1). */
struct field {
    unsigned off, width;
    uint64_t value;
};

/* Every integer field but type/size and the two bit-field words. */
static const struct field fields[] = {
    {   8, 8, V(1) },           /* config */
    {  16, 8, V(2) },           /* sample_period */
    {  24, 8, V(3) },           /* sample_type */
    {  32, 8, V(4) },           /* read_format */
    {  48, 4, 0x30313233 },     /* wakeup_events */
    {  52, 4, 0x34353637 },     /* bp_type */
    {  56, 8, V(5) },           /* config1 */
    {  64, 8, V(6) },           /* config2 */
    {  72, 8, V(7) },           /* branch_sample_type */
    {  80, 8, V(8) },           /* sample_regs_user */
    {  88, 4, 0x58595a5b },     /* sample_stack_user */
    {  92, 4, 0x8c5d5e5f },     /* clockid (negative as s32) */
    {  96, 8, V(9) },           /* sample_regs_intr */
    { 104, 4, 0x68696a6b },     /* aux_watermark */
    { 108, 2, 0x6c6d },         /* sample_max_stack */
    { 110, 2, 0x6e6f },         /* reserved_2 */
    { 112, 4, 0x70717273 },     /* aux_sample_size */
    { 120, 8, V(10) },          /* sig_data */
    { 128, 8, V(11) },          /* config3 */
    { 136, 8, V(12) },          /* unknown VER9 field: must be ignored */
};

#define FLAGS   UINT64_C(0x00000041e1943703)    /* precise_ip = 0 */
#define AUX_ACT UINT32_C(0x00000005)            /* aux_start_paused | aux_resume */

static uint64_t reverse_bits_per_byte(uint64_t v)
{
    uint64_t out = 0;
    int i;

    for (i = 0; i < 64; i++)
        if ((v >> i) & 1)
            out |= UINT64_C(1) << ((i & ~7) | (7 - (i & 7)));
    return out;
}

static void store(uint8_t *p, unsigned width, uint64_t v, int swap)
{
    uint16_t v16 = (uint16_t)v;
    uint32_t v32 = (uint32_t)v;

    switch (width) {
    case 2: if (swap) v16 = __builtin_bswap16(v16); memcpy(p, &v16, 2); break;
    case 4: if (swap) v32 = __builtin_bswap32(v32); memcpy(p, &v32, 4); break;
    default: if (swap) v = __builtin_bswap64(v); memcpy(p, &v, 8); break;
    }
}

/* The 144-byte image a producer of the given byte order writes, with
 * `size_field` at offset 4, flags/aux_action as its ABI lays bit-fields. */
static void make_attr(uint8_t img[144], uint32_t size_field, uint64_t flags,
                      uint32_t aux_action, int swap)
{
    size_t i;

    memset(img, 0, 144);
    store(img, 4, 0x0a0b0c0d, swap);
    store(img + 4, 4, size_field, swap);
    for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
        store(img + fields[i].off, fields[i].width, fields[i].value, swap);
    if (swap) {
        flags = reverse_bits_per_byte(flags);
        aux_action = (uint32_t)reverse_bits_per_byte(aux_action);
    }
    memcpy(img + 40, &flags, 8);
    memcpy(img + 116, &aux_action, 4);
}

/* Decode n bytes copied to an exact-size heap buffer. */
static int decode(ps_attr *out, const uint8_t *img, size_t n, int swap, ps_error *err)
{
    uint8_t *p = malloc(n ? n : 1);
    int rc;

    memcpy(p, img, n);
    rc = ps_attr__decode(out, p, n, swap, OFF, err);
    free(p);
    return rc;
}

static uint64_t got_field(const ps_attr *a, unsigned off)
{
    switch (off) {
    case 8: return a->config;
    case 16: return a->sample_period;
    case 24: return a->sample_type;
    case 32: return a->read_format;
    case 48: return a->wakeup_events;
    case 52: return a->bp_type;
    case 56: return a->config1;
    case 64: return a->config2;
    case 72: return a->branch_sample_type;
    case 80: return a->sample_regs_user;
    case 88: return a->sample_stack_user;
    case 92: return (uint32_t)a->clockid;
    case 96: return a->sample_regs_intr;
    case 104: return a->aux_watermark;
    case 108: return a->sample_max_stack;
    case 110: return a->reserved_2;
    case 112: return a->aux_sample_size;
    case 120: return a->sig_data;
    case 128: return a->config3;
    default: return 0;      /* not a field we decode */
    }
}

/* Each field inside `layout` bytes holds its value, every other is 0. */
static int fields_match(const ps_attr *a, uint32_t layout)
{
    size_t i;
    int ok = 1;

    for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        uint64_t want = fields[i].off + fields[i].width <= layout ? fields[i].value : 0;

        if (fields[i].off >= PS_ATTR_SIZE_KNOWN)
            continue;
        if (got_field(a, fields[i].off) != want) {
            fprintf(stderr, "  layout %u: field at %u is 0x%llx, want 0x%llx\n", layout,
                    fields[i].off, (unsigned long long)got_field(a, fields[i].off),
                    (unsigned long long)want);
            ok = 0;
        }
    }
    if (a->type != 0x0a0b0c0d || a->flags != FLAGS)
        ok = 0;
    if (a->aux_action != (layout >= 120 ? AUX_ACT : 0))
        ok = 0;
    return ok;
}

/* VER0..VER8, an unknown larger size, and sizes ending inside a field. */
static void test_every_size(void)
{
    static const uint32_t sizes[] = { 64, 72, 80, 96, 104, 112, 120, 128, 136, 144,
                                      100, 124, 132 };
    uint8_t img[144];
    size_t i;
    int swap;

    for (swap = 0; swap < 2; swap++)
        for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
            ps_attr a;
            ps_error err;

            make_attr(img, sizes[i], FLAGS, AUX_ACT, swap);
            CHECK(decode(&a, img, sizes[i], swap, &err) == PS_OK);
            CHECK(a.size == sizes[i]);
            CHECK(fields_match(&a, sizes[i]));
            /* bytes after the attr (the ids section) are not read as fields */
            if (sizes[i] + 8 <= sizeof(img)) {
                CHECK(decode(&a, img, sizes[i] + 8, swap, &err) == PS_OK);
                CHECK(fields_match(&a, sizes[i]));
            }
        }
}

/* size 0 is the VER0 layout; the field keeps what was written. */
static void test_size_zero_is_64(void)
{
    uint8_t img[144];
    int swap;

    for (swap = 0; swap < 2; swap++) {
        ps_attr a;
        ps_error err;

        make_attr(img, 0, FLAGS, AUX_ACT, swap);
        CHECK(ps_attr__stored_size(img, sizeof(img), swap) == 64);
        CHECK(decode(&a, img, 64, swap, &err) == PS_OK);
        CHECK(a.size == 0);
        CHECK(fields_match(&a, 64));
        CHECK(decode(&a, img, sizeof(img), swap, &err) == PS_OK);
        CHECK(a.config1 == V(5) && a.config2 == 0 && a.sig_data == 0);
    }
}

static void test_size_refused(void)
{
    static const uint32_t small[] = { 1, 8, 56, 63 };
    uint8_t img[144];
    size_t i;
    int swap;

    for (swap = 0; swap < 2; swap++) {
        ps_attr a;
        ps_error err;

        for (i = 0; i < sizeof(small) / sizeof(small[0]); i++) {
            make_attr(img, small[i], FLAGS, 0, swap);
            memset(&err, 0, sizeof(err));
            CHECK(decode(&a, img, sizeof(img), swap, &err) == PS_ECORRUPT);
            CHECK(err.code == PS_ECORRUPT && err.offset == OFF);
            CHECK(strstr(err.msg, "below the minimum 64") != NULL);
        }
        /* size larger than the bytes there */
        make_attr(img, 136, FLAGS, 0, swap);
        memset(&err, 0, sizeof(err));
        CHECK(decode(&a, img, 128, swap, &err) == PS_ETRUNC);
        CHECK(err.offset == OFF && strstr(err.msg, "136") != NULL);
        make_attr(img, 0xffffffffu, FLAGS, 0, swap);
        CHECK(decode(&a, img, sizeof(img), swap, &err) == PS_ETRUNC);
        /* fewer than 64 bytes at all, whatever the size says */
        make_attr(img, 64, FLAGS, 0, swap);
        for (i = 0; i < 64; i++)
            CHECK(decode(&a, img, i, swap, &err) == PS_ETRUNC);
        CHECK(ps_attr__stored_size(img, 7, swap) == 0);
        CHECK(ps_attr__stored_size(img, 8, swap) == 64);
    }
}

/* Each flag bit set alone comes back at its little-endian position. */
static void test_flag_bits_other_endian(void)
{
    uint8_t img[144];
    unsigned bit;
    int swap;

    for (swap = 0; swap < 2; swap++)
        for (bit = 0; bit < 64; bit++) {
            uint64_t flags = UINT64_C(1) << bit;
            ps_attr a;
            ps_error err;

            if (bit == PS_ATTR_PRECISE_IP || bit == PS_ATTR_PRECISE_IP + 1)
                continue;       /* a 2-bit value: next test */
            make_attr(img, 128, flags, 0, swap);
            CHECK(decode(&a, img, 128, swap, &err) == PS_OK);
            if (a.flags != flags)
                fprintf(stderr, "  swap %d bit %u: got 0x%llx\n", swap, bit,
                        (unsigned long long)a.flags);
            CHECK(a.flags == flags);
        }
}

/* precise_ip 1, 2, 3 as a big-endian ABI stores them: the value's high bit
 * first (spec 4.3), with neighbouring flags set to catch spill-over. */
static void test_precise_ip_round_trip(void)
{
    uint64_t around = PS_ATTR_FLAG(PS_ATTR_WATERMARK) | PS_ATTR_FLAG(PS_ATTR_MMAP_DATA) |
                      PS_ATTR_FLAG(PS_ATTR_DISABLED) | PS_ATTR_FLAG(PS_ATTR_SIGTRAP);
    uint8_t img[144];
    uint64_t v, n;
    int swap;

    for (swap = 0; swap < 2; swap++)
        for (n = 0; n < 2; n++)
            for (v = 0; v <= 3; v++) {
                uint64_t want = (n ? around : 0) | v << PS_ATTR_PRECISE_IP;
                /* what the producer's bit-field holds: on BE the value's
                 * bits sit in the reversed order once bytes are mirrored */
                uint64_t stored_v = swap ? ((v & 1) << 1) | (v >> 1) : v;
                uint64_t prod = (n ? around : 0) | stored_v << PS_ATTR_PRECISE_IP;
                ps_attr a;
                ps_error err;

                make_attr(img, 128, prod, 0, swap);
                CHECK(decode(&a, img, 128, swap, &err) == PS_OK);
                CHECK(a.flags == want);
                CHECK(((a.flags >> PS_ATTR_PRECISE_IP) & 3) == v);
            }
}

/* aux_action (offset 116) is a bit-field word like flags (spec 4.3). */
static void test_aux_action_other_endian(void)
{
    uint8_t img[144];
    unsigned bit;
    int swap;

    for (swap = 0; swap < 2; swap++)
        for (bit = 0; bit < 32; bit++) {
            ps_attr a;
            ps_error err;

            make_attr(img, 128, FLAGS, UINT32_C(1) << bit, swap);
            CHECK(decode(&a, img, 128, swap, &err) == PS_OK);
            CHECK(a.aux_action == UINT32_C(1) << bit);
            CHECK(a.aux_sample_size == 0x70717273 && a.sig_data == V(10));
        }
}

/* Native order leaves every flag word untouched, whatever its bits. */
static void test_flags_native_untouched(void)
{
    static const uint64_t pats[] = { 0, ~UINT64_C(0), UINT64_C(0x8000000000000001),
                                     UINT64_C(0x0123456789abcdef) };
    uint8_t img[144];
    size_t i;

    for (i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
        ps_attr a;
        ps_error err;

        make_attr(img, 128, pats[i], 0, 0);
        CHECK(decode(&a, img, 128, 0, &err) == PS_OK && a.flags == pats[i]);
        make_attr(img, 128, pats[i], 0, 1);
        /* other-endian all-ones/zero are their own reversal */
        CHECK(decode(&a, img, 128, 1, &err) == PS_OK);
        if (pats[i] == 0 || pats[i] == ~UINT64_C(0))
            CHECK(a.flags == pats[i]);
    }
}

static void test_sample_type_names(void)
{
    static const char *const names[] = {
        "IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU", "PERIOD",
        "STREAM_ID", "RAW", "BRANCH_STACK", "REGS_USER", "STACK_USER", "WEIGHT",
        "DATA_SRC", "IDENTIFIER", "TRANSACTION", "REGS_INTR", "PHYS_ADDR", "AUX",
        "CGROUP", "DATA_PAGE_SIZE", "CODE_PAGE_SIZE", "WEIGHT_STRUCT",
    };
    char buf[512];
    unsigned bit;

    for (bit = 0; bit < 25; bit++) {
        CHECK(ps_sample_bit_name(bit) && strcmp(ps_sample_bit_name(bit), names[bit]) == 0);
        CHECK(ps_sample_type_str(buf, sizeof(buf), UINT64_C(1) << bit) == strlen(names[bit]));
        CHECK(strcmp(buf, names[bit]) == 0);
    }
    CHECK((UINT64_C(1) << 24) == PERF_SAMPLE_WEIGHT_STRUCT);
    CHECK(ps_sample_bit_name(25) == NULL && ps_sample_bit_name(63) == NULL);
    CHECK(ps_sample_bit_name(1000) == NULL);

    CHECK(ps_sample_type_str(buf, sizeof(buf), 0) == 0 && buf[0] == 0);
    CHECK(ps_sample_type_str(buf, sizeof(buf), PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                             PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD) == 18);
    CHECK(strcmp(buf, "IP|TID|TIME|PERIOD") == 0);
    /* bits with no name print as hex, in bit order */
    ps_sample_type_str(buf, sizeof(buf), PERF_SAMPLE_CPU | (UINT64_C(1) << 25) |
                                         (UINT64_C(1) << 63));
    CHECK(strcmp(buf, "CPU|0x2000000|0x8000000000000000") == 0);
}

/* A short buffer is cut but terminated; the return is the full length. */
static void test_sample_type_str_truncates(void)
{
    uint64_t all = (UINT64_C(1) << 25) - 1;
    char full[512], small[10];
    size_t n = ps_sample_type_str(full, sizeof(full), all), i;

    CHECK(n == strlen(full) && n > sizeof(small));
    CHECK(ps_sample_type_str(small, sizeof(small), all) == n);
    CHECK(small[sizeof(small) - 1] == 0 && strncmp(small, full, sizeof(small) - 1) == 0);
    for (i = 1; i < 40; i++) {
        char *p = malloc(i);

        CHECK(ps_sample_type_str(p, i, all) == n);
        CHECK(strlen(p) == i - 1 && strncmp(p, full, i - 1) == 0);
        free(p);
    }
    /* size 0: length only, the buffer is not touched */
    small[0] = 'x';
    CHECK(ps_sample_type_str(small, 0, all) == n && small[0] == 'x');
    CHECK(ps_sample_type_str(NULL, 0, all) == n);
}

/* spec 9.1: 8 bytes for each of TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER. */
static void test_trailer_size(void)
{
    static const uint64_t in_trailer[] = {
        PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID,
        PERF_SAMPLE_CPU, PERF_SAMPLE_IDENTIFIER,
    };
    uint64_t others = ((UINT64_C(1) << 25) - 1), mask;
    size_t i;

    for (i = 0; i < 6; i++)
        others &= ~in_trailer[i];
    CHECK(ps_attr__trailer_size(0) == 0);
    CHECK(ps_attr__trailer_size(others) == 0);
    CHECK(ps_attr__trailer_size(~UINT64_C(0)) == 48);
    for (mask = 0; mask < 64; mask++) {
        uint64_t st = others;
        size_t want = 0;

        for (i = 0; i < 6; i++)
            if (mask & (UINT64_C(1) << i)) {
                st |= in_trailer[i];
                want += 8;
            }
        CHECK(ps_attr__trailer_size(st) == want);
    }
}

/* spec 9.2: id_pos counts IP, TID, TIME, ADDR before ID; is_pos counts ID
 * itself plus STREAM_ID and CPU after it; IDENTIFIER gives 0 and 1. */
static void test_id_positions(void)
{
    uint64_t before[4] = { PERF_SAMPLE_IP, PERF_SAMPLE_TID, PERF_SAMPLE_TIME,
                           PERF_SAMPLE_ADDR };
    uint64_t after[2] = { PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU };
    uint64_t noise = PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN |
                     PERF_SAMPLE_RAW | PERF_SAMPLE_WEIGHT;
    unsigned b, a, i;

    for (b = 0; b < 16; b++)
        for (a = 0; a < 4; a++) {
            uint64_t st = 0;
            int nb = 0, na = 0;

            for (i = 0; i < 4; i++)
                if (b & (1u << i)) { st |= before[i]; nb++; }
            for (i = 0; i < 2; i++)
                if (a & (1u << i)) { st |= after[i]; na++; }
            CHECK(ps_attr__id_pos(st) == -1 && ps_attr__is_pos(st) == -1);
            CHECK(ps_attr__id_pos(st | noise) == -1);
            CHECK(ps_attr__id_pos(st | PERF_SAMPLE_ID) == nb);
            CHECK(ps_attr__id_pos(st | PERF_SAMPLE_ID | noise) == nb);
            CHECK(ps_attr__is_pos(st | PERF_SAMPLE_ID) == 1 + na);
            CHECK(ps_attr__is_pos(st | PERF_SAMPLE_ID | noise) == 1 + na);
            CHECK(ps_attr__id_pos(st | PERF_SAMPLE_IDENTIFIER) == 0);
            CHECK(ps_attr__is_pos(st | PERF_SAMPLE_IDENTIFIER) == 1);
            CHECK(ps_attr__id_pos(st | PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_ID) == 0);
            CHECK(ps_attr__is_pos(st | PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_ID) == 1);
        }
}

/* The public name tables: every flag bit but precise_ip's second has its
 * kernel name; read_format and branch names stop where the kernel's do. */
static void test_bit_names(void)
{
    unsigned bit;

    for (bit = 0; bit <= PS_ATTR_DEFER_OUTPUT; bit++)
        CHECK((bit == PS_ATTR_PRECISE_IP + 1) == (ps_attr_flag_name(bit) == NULL));
    CHECK(ps_attr_flag_name(PS_ATTR_DEFER_OUTPUT + 1) == NULL);
    CHECK(strcmp(ps_attr_flag_name(PS_ATTR_SAMPLE_ID_ALL), "sample_id_all") == 0);
    CHECK(strcmp(ps_attr_flag_name(PS_ATTR_PRECISE_IP), "precise_ip") == 0);
    CHECK(strcmp(ps_read_format_name(3), "GROUP") == 0 && ps_read_format_name(5) == NULL);
    CHECK(strcmp(ps_branch_sample_name(17), "HW_INDEX") == 0);
    CHECK(strcmp(ps_branch_sample_name(19), "COUNTERS") == 0 && ps_branch_sample_name(20) == NULL);
}

static const struct harness_test tests[] = {
    TEST(test_bit_names),
    TEST(test_every_size),
    TEST(test_size_zero_is_64),
    TEST(test_size_refused),
    TEST(test_flag_bits_other_endian),
    TEST(test_precise_ip_round_trip),
    TEST(test_aux_action_other_endian),
    TEST(test_flags_native_untouched),
    TEST(test_sample_type_names),
    TEST(test_sample_type_str_truncates),
    TEST(test_trailer_size),
    TEST(test_id_positions),
};

TEST_MAIN(tests)
