/* SPDX-License-Identifier: MIT */
/*
 * script_mem.c - perf script's data_src, weight and ins_lat fields (perf
 * 6.1). The rules, and what was checked, are in script_mem.h; this file is
 * the name tables of the perf_mem_data_src sub-fields and a model of the
 * fixed buffer perf composes the text in.
 *
 * Why a buffer model rather than plain string building: perf writes the
 * text into char[100] piece by piece with scnprintf() (which returns what
 * it wrote, size-1 when it truncates, and -1 for a zero size) and strcat()
 * (which ignores the size), and it passes the LVL printer the size of the
 * whole buffer instead of what is left. For every realistic value none of
 * that matters; for long multi-bit values it decides where the text is cut.
 * Positions and sizes are kept as int64_t, which is what perf's size_t
 * arithmetic amounts to, and every byte goes to a scratch buffer large
 * enough that perf's overruns land inside it.
 *
 * Bit layout of data_src (union perf_mem_data_src, the kernel UAPI; a
 * value, so the same in either byte order): op 0-4, lvl 5-18, snoop 19-23,
 * lock 24-25, dtlb 26-32, lvl_num 33-36, remote 37, snoopx 38-39, blk
 * 40-42, hops 43-45.
 */
#include <inttypes.h>
#include <string.h>
#include "script_mem.h"

/* --- the sub-fields ---------------------------------------------------------- */

#define DS_FIELD(v, shift, width) \
    ((unsigned)(((v) >> (shift)) & ((UINT64_C(1) << (width)) - 1)))

#define DS_OP(v)      DS_FIELD(v, 0, 5)
#define DS_LVL(v)     DS_FIELD(v, 5, 14)
#define DS_SNOOP(v)   DS_FIELD(v, 19, 5)
#define DS_LOCK(v)    DS_FIELD(v, 24, 2)
#define DS_DTLB(v)    DS_FIELD(v, 26, 7)
#define DS_LVL_NUM(v) DS_FIELD(v, 33, 4)
#define DS_REMOTE(v)  DS_FIELD(v, 37, 1)
#define DS_SNOOPX(v)  DS_FIELD(v, 38, 2)
#define DS_BLK(v)     DS_FIELD(v, 40, 3)
#define DS_HOPS(v)    DS_FIELD(v, 43, 3)

/* Bits both mem_lvl and mem_dtlb use for hit and miss (PERF_MEM_*_HIT/MISS). */
#define DS_HIT  0x2u
#define DS_MISS 0x4u

/* mem_op: the first bit set wins; none is "No". */
static const char *const op_names[] = { "N/A", "LOAD", "STORE", "PFETCH", "EXEC" };

/* mem_lvl, by bit (HIT and MISS are printed after the list instead). */
static const char *const lvl_names[] = {
    "N/A", "HIT", "MISS", "L1", "LFB/MAB", "L2", "L3", "Local RAM",
    "Remote RAM (1 hop)", "Remote RAM (2 hops)", "Remote Cache (1 hop)",
    "Remote Cache (2 hops)", "I/O", "Uncached"
};

/* mem_lvl_num, by value; a hole prints as "L<n>". perf 6.1 has no entry
 * for 8 (PERF_MEM_LVLNUM_UNC came with 6.3). */
static const char *const lvl_num_names[16] = {
    [0x9] = "CXL", [0xa] = "I/O", [0xb] = "Any cache", [0xc] = "LFB/MAB",
    [0xd] = "RAM", [0xe] = "PMEM", [0xf] = "N/A"
};

/* mem_hops, by value. perf 6.1's table stops at 4; 5..7 index past it into
 * null pointers, which glibc's printf prints as "(null)". */
static const char *const hops_names[8] = {
    "N/A", "core, same node", "node, same socket", "socket, same board",
    "board", "(null)", "(null)", "(null)"
};

static const char *const snoop_names[] = { "N/A", "None", "Hit", "Miss", "HitM" };
static const char *const snoopx_names[] = { "Fwd", "Peer" };
static const char *const tlb_names[] = {
    "N/A", "HIT", "MISS", "L1", "L2", "Walker", "Fault"
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* --- perf's buffer, modelled --------------------------------------------------- */

/* perf's buffers are char[100]. */
#define PERF_BUF_SIZE 100

/* Big enough for the worst overrun: every name of every table plus the
 * separators is well under 1 KiB. */
#define SCRATCH_SIZE 2048

typedef struct pbuf {
    char c[SCRATCH_SIZE];
} pbuf;

/* Length of the string at pos, never reading past the scratch. */
static int64_t pbuf_strlen(const pbuf *b, int64_t pos)
{
    int64_t n = 0;

    if (pos < 0)
        return 0;
    while (pos + n < SCRATCH_SIZE && b->c[pos + n] != '\0')
        n++;
    return n;
}

static void pbuf_write(pbuf *b, int64_t pos, const char *s, int64_t n)
{
    int64_t i;

    for (i = 0; i < n; i++)
        if (pos + i >= 0 && pos + i < SCRATCH_SIZE)
            b->c[pos + i] = s[i];
    if (pos + n >= 0 && pos + n < SCRATCH_SIZE)
        b->c[pos + n] = '\0';
}

/*
 * scnprintf(base + pos, size, "%s", s) as perf's tools/lib has it: writes
 * at most size-1 characters and a NUL; returns the characters written, that
 * is size-1 when it truncates -- which is -1 for size 0. A negative size
 * stands for a size_t that wrapped: vsnprintf then writes everything and
 * the result is size-1 again.
 */
static int64_t pbuf_put(pbuf *b, int64_t pos, int64_t size, const char *s)
{
    int64_t n = (int64_t)strlen(s);

    if (size > 0) {
        pbuf_write(b, pos, s, n < size ? n : size - 1);
        return n >= size ? size - 1 : n;
    }
    if (size < 0)
        pbuf_write(b, pos, s, n);
    return size - 1;
}

/* strcat(base + pos, s): appends where the string really ends. */
static void pbuf_cat(pbuf *b, int64_t pos, const char *s)
{
    pbuf_write(b, pos + pbuf_strlen(b, pos), s, (int64_t)strlen(s));
}

static void pbuf_clear(pbuf *b, int64_t pos)
{
    pbuf_write(b, pos, "", 0);
}

/* --- the six parts (each: write at pos, within size; return the length) ------ */

static int64_t part_op(pbuf *b, int64_t pos, int64_t size, uint64_t v)
{
    unsigned op = DS_OP(v);
    const char *s = "No";
    size_t i;

    for (i = 0; i < ARRAY_SIZE(op_names); i++) {
        if (op & (1u << i)) {
            s = op_names[i];
            break;
        }
    }
    return pbuf_put(b, pos, size, s);
}

/* The names of the set bits of m, " or " between them (strcat'ed, as perf
 * does), each within size - l. perf's LVL list puts " or " before all but
 * the first name printed (printed != NULL); its SNP and TLB lists put it
 * before any name once l != 0 (printed == NULL). Returns the new l. */
static int64_t or_list(pbuf *b, int64_t pos, int64_t size, int64_t l,
                       int *printed, unsigned m,
                       const char *const *names, size_t nr_names)
{
    size_t i;

    for (i = 0; i < nr_names && (m >> i) != 0; i++) {
        if (!(m & (1u << i)))
            continue;
        if (printed ? (*printed)++ != 0 : l != 0) {
            pbuf_cat(b, pos, " or ");
            l += 4;
        }
        l += pbuf_put(b, pos + l, size - l, names[i]);
    }
    return l;
}

static int64_t part_lvl(pbuf *b, int64_t pos, int64_t size, uint64_t v)
{
    unsigned m = DS_LVL(v), num = DS_LVL_NUM(v), hops = DS_HOPS(v);
    int64_t l = 0;
    int printed = 0;
    char tmp[32];

    size -= 1;
    pbuf_clear(b, pos);
    if (DS_REMOTE(v)) {
        pbuf_cat(b, pos, "Remote ");
        l += 7;
    }
    if (hops) {
        snprintf(tmp, sizeof(tmp), "%s ", hops_names[hops]);
        l += pbuf_put(b, pos + l, size - l, tmp);
    } else {
        l = or_list(b, pos, size, l, &printed, m & ~(DS_HIT | DS_MISS),
                    lvl_names, ARRAY_SIZE(lvl_names));
    }
    if (num) {
        if (printed++) {
            pbuf_cat(b, pos, " or ");
            l += 4;
        }
        if (lvl_num_names[num])
            l += pbuf_put(b, pos + l, size - l, lvl_num_names[num]);
        else {
            snprintf(tmp, sizeof(tmp), "L%u", num);
            l += pbuf_put(b, pos + l, size - l, tmp);
        }
    }
    if (l == 0)
        l += pbuf_put(b, pos + l, size - l, "N/A");
    if (m & DS_HIT)
        l += pbuf_put(b, pos + l, size - l, " hit");
    if (m & DS_MISS)
        l += pbuf_put(b, pos + l, size - l, " miss");
    return l;
}

static int64_t part_snoop(pbuf *b, int64_t pos, int64_t size, uint64_t v)
{
    int64_t l = 0;

    size -= 1;
    pbuf_clear(b, pos);
    l = or_list(b, pos, size, l, NULL, DS_SNOOP(v),
                snoop_names, ARRAY_SIZE(snoop_names));
    l = or_list(b, pos, size, l, NULL, DS_SNOOPX(v),
                snoopx_names, ARRAY_SIZE(snoopx_names));
    if (pbuf_strlen(b, pos) == 0)
        l += pbuf_put(b, pos, size - l, "N/A");
    return l;
}

static int64_t part_tlb(pbuf *b, int64_t pos, int64_t size, uint64_t v)
{
    unsigned m = DS_DTLB(v);
    int64_t l = 0;

    size -= 1;
    pbuf_clear(b, pos);
    l = or_list(b, pos, size, l, NULL, m & ~(DS_HIT | DS_MISS),
                tlb_names, ARRAY_SIZE(tlb_names));
    if (pbuf_strlen(b, pos) == 0)
        l += pbuf_put(b, pos, size - l, "N/A");
    if (m & DS_HIT)
        l += pbuf_put(b, pos + l, size - l, " hit");
    if (m & DS_MISS)
        l += pbuf_put(b, pos + l, size - l, " miss");
    return l;
}

static int64_t part_lock(pbuf *b, int64_t pos, int64_t size, uint64_t v)
{
    unsigned m = DS_LOCK(v);

    return pbuf_put(b, pos, size, (m & 1) ? "N/A" : (m & 2) ? "Yes" : "No");
}

static int64_t part_blk(pbuf *b, int64_t pos, int64_t size, uint64_t v)
{
    unsigned m = DS_BLK(v);
    int64_t l = 0;

    size -= 1;
    pbuf_clear(b, pos);
    if (m == 0 || (m & 1))
        return pbuf_put(b, pos, size, " N/A");
    if (m & 2)
        l += pbuf_put(b, pos + l, size - l, " Data");
    if (m & 4)
        l += pbuf_put(b, pos + l, size - l, " Addr");
    return l;
}

/* perf_script__meminfo_scnprintf() into b at 0 with perf's size. */
static void compose(pbuf *b, uint64_t v)
{
    static const struct {
        const char *label;
        int64_t (*part)(pbuf *, int64_t, int64_t, uint64_t);
        int whole_size;         /* perf passes the full size, not what is left */
    } parts[] = {
        { "|OP ", part_op, 0 }, { "|LVL ", part_lvl, 1 },
        { "|SNP ", part_snoop, 0 }, { "|TLB ", part_tlb, 0 },
        { "|LCK ", part_lock, 0 }, { "|BLK ", part_blk, 0 },
    };
    const int64_t size = PERF_BUF_SIZE;
    int64_t i = 0;
    size_t k;

    memset(b->c, 0, sizeof(b->c));
    for (k = 0; k < ARRAY_SIZE(parts); k++) {
        i += pbuf_put(b, i, size - i, parts[k].label);
        i += parts[k].part(b, i, parts[k].whole_size ? size : size - i, v);
    }
}

/* --- public ------------------------------------------------------------------ */

size_t script_data_src_scnprintf(char *buf, size_t size, uint64_t data_src)
{
    pbuf b;
    size_t n;

    compose(&b, data_src);
    n = (size_t)pbuf_strlen(&b, 0);
    if (n > PERF_BUF_SIZE - 1)
        n = PERF_BUF_SIZE - 1;
    if (size > 0) {
        size_t c = n < size - 1 ? n : size - 1;

        memcpy(buf, b.c, c);
        buf[c] = '\0';
    }
    return n;
}

/* perf's static maxlen in data_src__fprintf(): one per process. */
static int data_src_maxlen;

void script_data_src_reset(void)
{
    data_src_maxlen = 0;
}

size_t script_data_src_fprintf(FILE *fp, uint64_t data_src)
{
    pbuf b;
    char line[PERF_BUF_SIZE];
    int len, rc;

    compose(&b, data_src);
    b.c[SCRATCH_SIZE - 1] = '\0';
    /* scnprintf(out, 100, "%16lx %s"): the line is cut at 99 characters */
    len = snprintf(line, sizeof(line), "%16" PRIx64 " %s", data_src, b.c);
    if (len < 0)
        return 0;
    if (len > PERF_BUF_SIZE - 1)
        len = PERF_BUF_SIZE - 1;
    if (data_src_maxlen < len)
        data_src_maxlen = len;
    rc = fprintf(fp, "%-*s", data_src_maxlen, line);
    return rc < 0 ? 0 : (size_t)rc;
}

uint64_t script_weight(const ps_sample *s, uint64_t sample_type)
{
    if (sample_type & PERF_SAMPLE_WEIGHT)
        return s->weight;
    if (sample_type & PERF_SAMPLE_WEIGHT_STRUCT)
        return s->weight & UINT32_MAX;      /* var1_dw */
    return 0;
}

uint16_t script_ins_lat(const ps_sample *s, uint64_t sample_type)
{
    if ((sample_type & PERF_SAMPLE_WEIGHT) ||
        !(sample_type & PERF_SAMPLE_WEIGHT_STRUCT))
        return 0;
    return (uint16_t)(s->weight >> 32);     /* var2_w */
}
