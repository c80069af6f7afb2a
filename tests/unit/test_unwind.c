/* SPDX-License-Identifier: MIT */
/*
 * test_unwind.c - unwind.c without files: which samples are unwound (user
 * registers and a non-empty dynamic stack dump), the sample ip as the
 * first address (taken from its slot among the registers the mask
 * packs), and a chain that stops there when no map names a file.
 * Unwinding through real ELF files is checked against perf by
 * tests/diff/script.sh on the dwarf captures.
 */
#include <string.h>
#include "harness.h"
#include "../../libparse/unwind.h"

/* x86-64: AX, BX, SP (7) and IP (8) sampled, packed in that order. */
static const uint64_t regs[] = { 1, 2, 0x7ffc0000, 0x401234 };
static uint8_t stack[64];

static ps_sample dwarf_sample(void)
{
    ps_sample s;

    memset(&s, 0, sizeof(s));
    s.sample_type = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
    s.pid = s.tid = 42;
    s.regs_user.abi = 2;
    s.regs_user.mask = (1u << 0) | (1u << 1) | (1u << 7) | (1u << 8);
    s.regs_user.nr = 4;
    s.regs_user.regs = regs;
    s.stack_size = sizeof(stack);
    s.stack_data = stack;
    s.stack_dyn_size = sizeof(stack);
    return s;
}

static void test_wanted_needs_regs_and_dyn_stack(void)
{
    ps_sample s = dwarf_sample();

    CHECK(ps_unwind__wanted(&s));
    s.stack_dyn_size = 0;
    CHECK(!ps_unwind__wanted(&s));
    s = dwarf_sample();
    s.regs_user.abi = 0;
    CHECK(!ps_unwind__wanted(&s));
    s = dwarf_sample();
    s.sample_type &= ~(uint64_t)PERF_SAMPLE_STACK_USER;
    CHECK(!ps_unwind__wanted(&s));
}

static void test_first_address_is_the_ip(void)
{
    ps_machine *m;
    ps_unwinder *u;
    ps_sample s = dwarf_sample();
    uint64_t ips[8];

    CHECK(ps_machine__new(&m, NULL) == PS_OK);
    CHECK(ps_unwinder__new(&u, m, NULL, NULL, NULL) == PS_OK);
    CHECK(ps_unwinder__user(u, &s, UINT64_MAX, ips, 8) == 1);
    CHECK(ips[0] == 0x401234);
    CHECK(ps_unwinder__user(u, &s, UINT64_MAX, ips, 0) == 0);
    s.regs_user.mask &= ~(uint64_t)(1u << 8);       /* no IP: nothing */
    s.regs_user.nr = 3;
    CHECK(ps_unwinder__user(u, &s, UINT64_MAX, ips, 8) == 0);
    ps_unwinder__free(u);
    ps_machine__free(m);
    ps_unwinder__free(NULL);
}

static const struct harness_test tests[] = {
    TEST(test_wanted_needs_regs_and_dyn_stack),
    TEST(test_first_address_is_the_ip),
};

TEST_MAIN(tests)
