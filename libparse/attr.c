/* SPDX-License-Identifier: MIT */
/*
 * attr.c - decoding perf_event_attr (spec 3.1) in either byte order (4.3),
 * the PERF_SAMPLE_* name table and the id-position rules of spec 9.2.
 * Never touches records or files; pure functions over bytes.
 */
#include <stdio.h>
#include "attr.h"

/* perf's sample_type names, by bit; perf prints them joined by '|'. */
static const char *const sample_bit_names[] = {
    "IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU", "PERIOD",
    "STREAM_ID", "RAW", "BRANCH_STACK", "REGS_USER", "STACK_USER", "WEIGHT",
    "DATA_SRC", "IDENTIFIER", "TRANSACTION", "REGS_INTR", "PHYS_ADDR", "AUX",
    "CGROUP", "DATA_PAGE_SIZE", "CODE_PAGE_SIZE", "WEIGHT_STRUCT",
};

/* perf_event_attr bit-field names, by PS_ATTR_* bit (spec 3.2); bit 16 is
 * the second bit of precise_ip. */
static const char *const attr_flag_names[] = {
    [PS_ATTR_DISABLED] = "disabled", [PS_ATTR_INHERIT] = "inherit",
    [PS_ATTR_PINNED] = "pinned", [PS_ATTR_EXCLUSIVE] = "exclusive",
    [PS_ATTR_EXCLUDE_USER] = "exclude_user", [PS_ATTR_EXCLUDE_KERNEL] = "exclude_kernel",
    [PS_ATTR_EXCLUDE_HV] = "exclude_hv", [PS_ATTR_EXCLUDE_IDLE] = "exclude_idle",
    [PS_ATTR_MMAP] = "mmap", [PS_ATTR_COMM] = "comm", [PS_ATTR_FREQ] = "freq",
    [PS_ATTR_INHERIT_STAT] = "inherit_stat", [PS_ATTR_ENABLE_ON_EXEC] = "enable_on_exec",
    [PS_ATTR_TASK] = "task", [PS_ATTR_WATERMARK] = "watermark",
    [PS_ATTR_PRECISE_IP] = "precise_ip", [PS_ATTR_MMAP_DATA] = "mmap_data",
    [PS_ATTR_SAMPLE_ID_ALL] = "sample_id_all", [PS_ATTR_EXCLUDE_HOST] = "exclude_host",
    [PS_ATTR_EXCLUDE_GUEST] = "exclude_guest",
    [PS_ATTR_EXCLUDE_CALLCHAIN_KERNEL] = "exclude_callchain_kernel",
    [PS_ATTR_EXCLUDE_CALLCHAIN_USER] = "exclude_callchain_user",
    [PS_ATTR_MMAP2] = "mmap2", [PS_ATTR_COMM_EXEC] = "comm_exec",
    [PS_ATTR_USE_CLOCKID] = "use_clockid", [PS_ATTR_CONTEXT_SWITCH] = "context_switch",
    [PS_ATTR_WRITE_BACKWARD] = "write_backward", [PS_ATTR_NAMESPACES] = "namespaces",
    [PS_ATTR_KSYMBOL] = "ksymbol", [PS_ATTR_BPF_EVENT] = "bpf_event",
    [PS_ATTR_AUX_OUTPUT] = "aux_output", [PS_ATTR_CGROUP] = "cgroup",
    [PS_ATTR_TEXT_POKE] = "text_poke", [PS_ATTR_BUILD_ID] = "build_id",
    [PS_ATTR_INHERIT_THREAD] = "inherit_thread", [PS_ATTR_REMOVE_ON_EXEC] = "remove_on_exec",
    [PS_ATTR_SIGTRAP] = "sigtrap", [PS_ATTR_DEFER_CALLCHAIN] = "defer_callchain",
    [PS_ATTR_DEFER_OUTPUT] = "defer_output",
};

/* PERF_FORMAT_* by bit (spec 8.3). */
static const char *const read_format_names[] = {
    "TOTAL_TIME_ENABLED", "TOTAL_TIME_RUNNING", "ID", "GROUP", "LOST",
};

/* PERF_SAMPLE_BRANCH_* by bit (spec 8.6). */
static const char *const branch_sample_names[] = {
    "USER", "KERNEL", "HV", "ANY", "ANY_CALL", "ANY_RETURN", "IND_CALL",
    "ABORT_TX", "IN_TX", "NO_TX", "COND", "CALL_STACK", "IND_JUMP", "CALL",
    "NO_FLAGS", "NO_CYCLES", "TYPE_SAVE", "HW_INDEX", "PRIV_SAVE", "COUNTERS",
};

const char *ps_attr_flag_name(unsigned bit)
{
    return bit < PS_ARRAY_SIZE(attr_flag_names) ? attr_flag_names[bit] : NULL;
}

const char *ps_read_format_name(unsigned bit)
{
    return bit < PS_ARRAY_SIZE(read_format_names) ? read_format_names[bit] : NULL;
}

const char *ps_branch_sample_name(unsigned bit)
{
    return bit < PS_ARRAY_SIZE(branch_sample_names) ? branch_sample_names[bit] : NULL;
}

const char *ps_sample_bit_name(unsigned bit)
{
    return bit < PS_ARRAY_SIZE(sample_bit_names) ? sample_bit_names[bit] : NULL;
}

size_t ps_sample_type_str(char *buf, size_t size, uint64_t sample_type)
{
    size_t n = 0;
    unsigned bit;

    if (size)
        buf[0] = 0;
    for (bit = 0; bit < 64; bit++) {
        const char *name;
        char tmp[32];
        int w;

        if (!(sample_type & (UINT64_C(1) << bit)))
            continue;
        name = ps_sample_bit_name(bit);
        if (name == NULL) {
            snprintf(tmp, sizeof(tmp), "0x%llx", (unsigned long long)(UINT64_C(1) << bit));
            name = tmp;
        }
        /* past the end only the length is wanted: buf may be NULL */
        w = n < size ? snprintf(buf + n, size - n, "%s%s", n ? "|" : "", name)
                     : snprintf(NULL, 0, "%s%s", n ? "|" : "", name);
        n += (size_t)w;
    }
    return n;
}

/* Reverse the bits inside each byte, keeping byte order: a big-endian ABI
 * allocates bit-fields from the most significant bit (spec 4.3). */
static uint64_t reverse_bits_per_byte(uint64_t v)
{
    uint64_t out = 0;
    int byte, bit;

    for (byte = 0; byte < 8; byte++) {
        unsigned b = (unsigned)(v >> (8 * byte)) & 0xff, r = 0;

        for (bit = 0; bit < 8; bit++)
            if (b & (1u << bit))
                r |= 1u << (7 - bit);
        out |= (uint64_t)r << (8 * byte);
    }
    return out;
}

uint32_t ps_attr__stored_size(const uint8_t *p, size_t avail, int swap)
{
    uint32_t size;

    if (avail < 8)
        return 0;
    size = ps_load32(p + 4, swap);
    return size ? size : PS_ATTR_SIZE_VER0;
}

/* Load field at off of width w if it lies inside the attr's size. */
static uint64_t field(const uint8_t *p, uint32_t size, unsigned off, unsigned w,
                      int swap)
{
    if (off + w > size)
        return 0;
    switch (w) {
    case 2: return ps_load16(p + off, swap);
    case 4: return ps_load32(p + off, swap);
    default: return ps_load64(p + off, swap);
    }
}

int ps_attr__decode(ps_attr *out, const uint8_t *p, size_t avail, int swap,
                    uint64_t off, ps_error *err)
{
    uint32_t size;
    uint64_t flags;

    memset(out, 0, sizeof(*out));
    if (avail < PS_ATTR_SIZE_VER0)
        return ps_error__set(err, PS_ETRUNC, off,
                             "perf_event_attr needs 64 bytes, %zu left", avail);
    size = ps_attr__stored_size(p, avail, swap);
    if (size < PS_ATTR_SIZE_VER0)
        return ps_error__set(err, PS_ECORRUPT, off,
                             "perf_event_attr size %u is below the minimum 64", size);
    if (size > avail)
        return ps_error__set(err, PS_ETRUNC, off,
                             "perf_event_attr size %u, only %zu bytes left", size, avail);
    out->type = ps_load32(p, swap);
    out->size = ps_load32(p + 4, swap);
    out->config = field(p, size, 8, 8, swap);
    out->sample_period = field(p, size, 16, 8, swap);
    out->sample_type = field(p, size, 24, 8, swap);
    out->read_format = field(p, size, 32, 8, swap);
    flags = field(p, size, 40, 8, 0);
    out->flags = swap ? reverse_bits_per_byte(flags) : flags;
    if (swap) {
        /* precise_ip is a 2-bit field: bit reversal swapped its bits too. */
        uint64_t pi = (out->flags >> PS_ATTR_PRECISE_IP) & 3;

        pi = ((pi & 1) << 1) | ((pi >> 1) & 1);
        out->flags = (out->flags & ~(UINT64_C(3) << PS_ATTR_PRECISE_IP)) |
                     (pi << PS_ATTR_PRECISE_IP);
    }
    out->wakeup_events = (uint32_t)field(p, size, 48, 4, swap);
    out->bp_type = (uint32_t)field(p, size, 52, 4, swap);
    out->config1 = field(p, size, 56, 8, swap);
    out->config2 = field(p, size, 64, 8, swap);
    out->branch_sample_type = field(p, size, 72, 8, swap);
    out->sample_regs_user = field(p, size, 80, 8, swap);
    out->sample_stack_user = (uint32_t)field(p, size, 88, 4, swap);
    out->clockid = (int32_t)field(p, size, 92, 4, swap);
    out->sample_regs_intr = field(p, size, 96, 8, swap);
    out->aux_watermark = (uint32_t)field(p, size, 104, 4, swap);
    out->sample_max_stack = (uint16_t)field(p, size, 108, 2, swap);
    out->reserved_2 = (uint16_t)field(p, size, 110, 2, swap);
    out->aux_sample_size = (uint32_t)field(p, size, 112, 4, swap);
    /* aux_action is a bit-field word too (spec 4.3): reverse, never swap. */
    out->aux_action = (uint32_t)field(p, size, 116, 4, 0);
    if (swap)
        out->aux_action = (uint32_t)reverse_bits_per_byte(out->aux_action);
    out->sig_data = field(p, size, 120, 8, swap);
    out->config3 = field(p, size, 128, 8, swap);
    return PS_OK;
}

size_t ps_attr__trailer_size(uint64_t st)
{
    return 8 * (size_t)__builtin_popcountll(st & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
        PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER));
}

int ps_attr__id_pos(uint64_t st)
{
    if (st & PERF_SAMPLE_IDENTIFIER)
        return 0;
    if (!(st & PERF_SAMPLE_ID))
        return -1;
    return __builtin_popcountll(st & (PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                                      PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR));
}

int ps_attr__is_pos(uint64_t st)
{
    if (st & PERF_SAMPLE_IDENTIFIER)
        return 1;
    if (!(st & PERF_SAMPLE_ID))
        return -1;
    return 1 + __builtin_popcountll(st & (PERF_SAMPLE_CPU | PERF_SAMPLE_STREAM_ID));
}
