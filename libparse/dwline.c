/* SPDX-License-Identifier: MIT */
/*
 * dwline.c - line programs as BFD decodes them (see dwline.h).
 *
 * A program is decoded once, on its first lookup, into sequences of rows
 * (address, file, line, end-of-sequence), following BFD's
 * decode_line_info()/add_line_info(): every row counts (is_stmt is not
 * looked at), a row at the same address as the one before it in its
 * sequence replaces it, rows arriving out of order are sorted by address.
 * The sequences are then sorted by start (longest first on a tie), nested
 * ones dropped and overlapping ones trimmed, and an address is looked up
 * by binary search twice, as BFD does.
 */
#include "dwline.h"

#include <stdlib.h>
#include <string.h>

#include "u64map.h"
#include "util.h"

#define DW_LNS_copy             1
#define DW_LNS_advance_pc       2
#define DW_LNS_advance_line     3
#define DW_LNS_set_file         4
#define DW_LNS_const_add_pc     8
#define DW_LNS_fixed_advance_pc 9
#define DW_LNE_end_sequence     1
#define DW_LNE_set_address      2

typedef struct row {
    uint64_t addr;
    uint64_t file;
    unsigned line;
    int      end;
} row;

typedef struct seq {
    uint64_t low, high;         /* high: the end-of-sequence row's address */
    size_t   first, nr;         /* rows[first, first + nr) */
    size_t   order;             /* arrival, to keep the sort stable */
} seq;

typedef struct table {
    uint64_t off;
    int      version;
    uint64_t *dirs;             /* owned: each file's directory index, as
                                 * libdw numbers files (see file_dirs()) */
    size_t   nr_files;
    row     *rows;              /* owned */
    size_t   nr_rows, cap_rows;
    seq     *seqs;              /* owned */
    size_t   nr_seqs, cap_seqs;
} table;

struct ps_dwlines {
    const uint8_t *sec;
    size_t         size;
    int            swap;
    table         *tables;      /* owned, in the order first asked */
    size_t         nr, cap;
    ps_u64map      by_off;      /* program offset -> index in tables */
};

/* The header fields the opcodes need. */
typedef struct header {
    int      version;
    uint8_t  min_inst, max_ops, opcode_base;
    int8_t   line_base;
    uint8_t  line_range;
    const uint8_t *op_lengths;  /* opcode_base - 1 entries */
    ps_cursor tables;           /* the directory and file tables */
    int      dw64;
} header;

/* The state machine registers BFD keeps. */
typedef struct regs {
    uint64_t addr, file;
    unsigned line;              /* BFD's unsigned int: wraps at 32 bits */
} regs;

/* ------------------------------------------------------------------------ */
/* Reading                                                                  */

static int get_u8(ps_cursor *c, uint8_t *v)
{
    const uint8_t *p;

    if (ps_cursor__bytes(c, &p, 1) < 0)
        return -1;
    *v = *p;
    return 0;
}

static int get_uleb(ps_cursor *c, uint64_t *v)
{
    unsigned shift = 0;
    uint8_t b;

    *v = 0;
    do {
        if (get_u8(c, &b) < 0)
            return -1;
        if (shift < 64)
            *v |= (uint64_t)(b & 0x7f) << shift;
        shift += 7;
    } while (b & 0x80);
    return 0;
}

static int get_sleb(ps_cursor *c, int64_t *v)
{
    unsigned shift = 0;
    uint64_t u = 0;
    uint8_t b;

    do {
        if (get_u8(c, &b) < 0)
            return -1;
        if (shift < 64)
            u |= (uint64_t)(b & 0x7f) << shift;
        shift += 7;
    } while (b & 0x80);
    if (shift < 64 && (b & 0x40))
        u |= ~UINT64_C(0) << shift;
    *v = (int64_t)u;
    return 0;
}

/* An address of n bytes (DW_LNE_set_address), in the file's byte order. */
static int get_addr(ps_cursor *c, size_t n, uint64_t *v)
{
    uint32_t v32;

    if (n == 8)
        return ps_cursor__u64(c, v);
    if (n == 4 && ps_cursor__u32(c, &v32) == 0) {
        *v = v32;
        return 0;
    }
    return -1;
}

/* The unit at off: c is set to its program, *h filled. */
static int read_header(const ps_dwlines *d, uint64_t off, ps_cursor *c, header *h)
{
    ps_cursor u;
    uint32_t len32;
    uint64_t len, hlen;
    uint16_t ver;
    uint8_t b, lb;
    int dw64;

    if (off >= d->size)
        return -1;
    ps_cursor__init(&u, d->sec + off, d->size - off, d->swap, off);
    if (ps_cursor__u32(&u, &len32) < 0)
        return -1;
    dw64 = len32 == 0xffffffffu;
    if (dw64 ? ps_cursor__u64(&u, &len) < 0 : (len = len32, 0))
        return -1;
    if (len > ps_cursor__left(&u))
        return -1;
    u.end = u.pos + (size_t)len;
    if (ps_cursor__u16(&u, &ver) < 0 || ver < 2 || ver > 5)
        return -1;
    h->version = ver;
    if (ver >= 5 && (get_u8(&u, &b) < 0 || get_u8(&u, &b) < 0))     /* address, segment sizes */
        return -1;
    if (dw64 ? ps_cursor__u64(&u, &hlen) < 0 : (ps_cursor__u32(&u, &len32) < 0 || (hlen = len32, 0)))
        return -1;
    if (hlen > ps_cursor__left(&u))
        return -1;
    *c = u;
    c->pos = u.pos + (size_t)hlen;      /* the program follows the header */
    h->max_ops = 1;
    if (get_u8(&u, &h->min_inst) < 0 || (ver >= 4 && get_u8(&u, &h->max_ops) < 0) ||
        get_u8(&u, &b) < 0 /* default_is_stmt */ || get_u8(&u, &lb) < 0 ||
        get_u8(&u, &h->line_range) < 0 || get_u8(&u, &h->opcode_base) < 0 ||
        h->line_range == 0 || h->opcode_base == 0 ||
        ps_cursor__bytes(&u, &h->op_lengths, h->opcode_base - 1u) < 0)
        return -1;
    h->line_base = (int8_t)lb;
    h->tables = u;
    /* a header_length shorter than the fields read: no tables (the
     * cursor must not run backwards) */
    h->tables.end = c->pos >= u.pos ? c->pos : u.pos;
    h->dw64 = dw64;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The file table: each file's directory index                             */

#define DW_LNCT_directory_index 2

static int skip_cstr(ps_cursor *c)
{
    const uint8_t *p = memchr(c->p + c->pos, 0, ps_cursor__left(c));

    if (p == NULL)
        return -1;
    c->pos = (size_t)(p - c->p) + 1;
    return 0;
}

static int skip_n(ps_cursor *c, uint64_t n)
{
    const uint8_t *p;

    return n > ps_cursor__left(c) ? -1 : ps_cursor__bytes(c, &p, (size_t)n);
}

/* One DWARF 5 entry field of form `form`; *v its value when it is a
 * constant (0 otherwise). -1: a form a line table cannot hold. */
static int read_form(ps_cursor *c, uint64_t form, int dw64, uint64_t *v)
{
    uint16_t v16;
    uint32_t v32;
    uint8_t v8;
    int64_t sv;

    *v = 0;
    switch (form) {
    case 0x08: return skip_cstr(c);                             /* string */
    case 0x0e: case 0x1f: return skip_n(c, dw64 ? 8 : 4);       /* strp, line_strp */
    case 0x0f: case 0x1a: return get_uleb(c, v);                /* udata, strx */
    case 0x0d: return get_sleb(c, &sv);                         /* sdata */
    case 0x0b: case 0x25: if (get_u8(c, &v8) < 0) return -1; *v = v8; return 0;
    case 0x05: case 0x26:
        if (ps_cursor__u16(c, &v16) < 0) return -1;
        *v = v16;
        return 0;
    case 0x27: return skip_n(c, 3);                             /* strx3 */
    case 0x06: case 0x28:
        if (ps_cursor__u32(c, &v32) < 0) return -1;
        *v = v32;
        return 0;
    case 0x07: return ps_cursor__u64(c, v);                     /* data8 */
    case 0x1e: return skip_n(c, 16);                            /* data16 (MD5) */
    case 0x09: return get_uleb(c, v) < 0 ? -1 : skip_n(c, *v);  /* block */
    case 0x0a: return get_u8(c, &v8) < 0 ? -1 : skip_n(c, v8);  /* block1 */
    default: return -1;
    }
}

/* DWARF 5's entry formats and entries; each entry's directory index into
 * dirs (NULL: the directory table, only skipped). */
static int v5_entries(ps_cursor *c, int dw64, uint64_t **dirs, size_t *nr)
{
    uint64_t fmt[2 * 255], count, i, v;
    uint8_t nfmt;
    unsigned k;

    if (get_u8(c, &nfmt) < 0)
        return -1;
    for (k = 0; k < 2u * nfmt; k++)
        if (get_uleb(c, &fmt[k]) < 0)
            return -1;
    if (get_uleb(c, &count) < 0 || count > ps_cursor__left(c))
        return -1;      /* every entry takes a byte at least, or it has no field */
    if (dirs != NULL && nfmt > 0 && (*dirs = calloc(count + 1, sizeof(**dirs))) == NULL)
        return -1;
    for (i = 0; i < count && nfmt > 0; i++)
        for (k = 0; k < nfmt; k++) {
            if (read_form(c, fmt[2 * k + 1], dw64, &v) < 0)
                return -1;
            if (dirs != NULL && fmt[2 * k] == DW_LNCT_directory_index)
                (*dirs)[i] = v;
        }
    if (dirs != NULL)
        *nr = nfmt > 0 ? (size_t)count : 0;
    return 0;
}

/* DWARF 2-4: the include directories, then the files (name, directory,
 * time, size), each list ending with an empty name. libdw numbers files
 * from 1 here (its entry 0 is a placeholder). */
static int v4_entries(ps_cursor *c, uint64_t **dirs, size_t *nr)
{
    size_t cap = 0;
    uint64_t dir, skip;

    while (ps_cursor__left(c) > 0 && c->p[c->pos] != 0)
        if (skip_cstr(c) < 0)
            return -1;
    if (skip_n(c, 1) < 0)
        return -1;
    while (ps_cursor__left(c) > 0 && c->p[c->pos] != 0) {
        if (skip_cstr(c) < 0 || get_uleb(c, &dir) < 0 || get_uleb(c, &skip) < 0 ||
            get_uleb(c, &skip) < 0)
            return -1;
        if (*nr + 1 >= cap) {
            size_t n = cap ? cap * 2 : 32;
            uint64_t *v = realloc(*dirs, n * sizeof(*v));

            if (v == NULL)
                return -1;
            *dirs = v;
            cap = n;
        }
        if (*nr == 0)
            (*dirs)[(*nr)++] = 0;       /* libdw's placeholder entry 0 */
        (*dirs)[(*nr)++] = dir;
    }
    return 0;
}

/* t->dirs from the header's tables; left empty when they do not parse. */
static void file_dirs(table *t, const header *h)
{
    ps_cursor c = h->tables;
    int rc;

    if (h->version >= 5)
        rc = v5_entries(&c, h->dw64, NULL, NULL) < 0 ? -1
             : v5_entries(&c, h->dw64, &t->dirs, &t->nr_files);
    else
        rc = v4_entries(&c, &t->dirs, &t->nr_files);
    if (rc < 0) {
        free(t->dirs);
        t->dirs = NULL;
        t->nr_files = 0;
    }
}

/* ------------------------------------------------------------------------ */
/* Rows and sequences                                                       */

static int add_row(table *t, const regs *r, int end)
{
    seq *s = t->nr_seqs ? &t->seqs[t->nr_seqs - 1] : NULL;
    row *last = s && s->nr ? &t->rows[s->first + s->nr - 1] : NULL;

    if (last != NULL && !last->end && last->addr == r->addr && last->end == end) {
        last->file = r->file;           /* BFD keeps the last at one address */
        last->line = r->line;
        return 0;
    }
    if (s == NULL || (last != NULL && last->end)) {
        if (t->nr_seqs == t->cap_seqs) {
            size_t n = t->cap_seqs ? t->cap_seqs * 2 : 16;
            seq *v = realloc(t->seqs, n * sizeof(*v));

            if (v == NULL)
                return -1;
            t->seqs = v;
            t->cap_seqs = n;
        }
        s = &t->seqs[t->nr_seqs];
        memset(s, 0, sizeof(*s));
        s->first = t->nr_rows;
        s->order = t->nr_seqs++;
    }
    if (t->nr_rows == t->cap_rows) {
        size_t n = t->cap_rows ? t->cap_rows * 2 : 64;
        row *v = realloc(t->rows, n * sizeof(*v));

        if (v == NULL)
            return -1;
        t->rows = v;
        t->cap_rows = n;
    }
    t->rows[t->nr_rows].addr = r->addr;
    t->rows[t->nr_rows].file = r->file;
    t->rows[t->nr_rows].line = r->line;
    t->rows[t->nr_rows].end = end;
    t->nr_rows++;
    s->nr++;
    return 0;
}

static int row_cmp(const void *a, const void *b)
{
    const row *x = a, *y = b;

    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    return x->end - y->end;     /* the end row goes last */
}

/* A finished sequence: rows by address (qsort is not stable, but rows
 * at one address were merged already when they came in order). */
static void seq_done(table *t)
{
    seq *s = &t->seqs[t->nr_seqs - 1];
    row *v = &t->rows[s->first];
    size_t i;

    for (i = 1; i < s->nr; i++)
        if (v[i].addr < v[i - 1].addr) {
            qsort(v, s->nr, sizeof(*v), row_cmp);
            break;
        }
    s->low = v[0].addr;
    s->high = v[s->nr - 1].addr;
}

static int seq_cmp(const void *a, const void *b)
{
    const seq *x = a, *y = b;

    if (x->low != y->low)
        return x->low < y->low ? -1 : 1;
    if (x->high != y->high)
        return x->high > y->high ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Sorted by start; nested sequences dropped, overlapping ones trimmed. */
static void seqs_sort(table *t)
{
    size_t i, n = 0;
    uint64_t last_high = 0;

    if (t->nr_seqs == 0)
        return;
    qsort(t->seqs, t->nr_seqs, sizeof(*t->seqs), seq_cmp);
    for (i = 0; i < t->nr_seqs; i++) {
        seq s = t->seqs[i];

        if (n > 0 && s.low < last_high) {
            if (s.high <= last_high)
                continue;
            s.low = last_high;
        }
        last_high = s.high;
        t->seqs[n++] = s;
    }
    t->nr_seqs = n;
}

/* ------------------------------------------------------------------------ */
/* The program                                                              */

static void regs_reset(regs *r, const header *h)
{
    r->addr = 0;
    /* BFD 2.40: entry 0 for DWARF 5 (the standard says 1), 1 before */
    r->file = h->version >= 5 ? 0 : 1;
    r->line = 1;
}

static int extended_op(ps_cursor *c, table *t, regs *r, const header *h)
{
    uint64_t len, a;
    uint8_t op;
    size_t start;

    if (get_uleb(c, &len) < 0 || len == 0 || len > ps_cursor__left(c))
        return -1;
    start = c->pos;
    if (get_u8(c, &op) < 0)
        return -1;
    switch (op) {
    case DW_LNE_end_sequence:
        if (add_row(t, r, 1) < 0)
            return -2;
        seq_done(t);
        regs_reset(r, h);
        break;
    case DW_LNE_set_address:
        if (get_addr(c, (size_t)len - 1, &a) < 0)
            return -1;
        r->addr = a;
        break;
    default:                    /* set_discriminator, define_file, vendor: skip */
        break;
    }
    c->pos = start + (size_t)len;
    return 0;
}

/* A standard opcode other than the ones handled: skip its arguments. */
static int skip_args(ps_cursor *c, const header *h, uint8_t op)
{
    uint64_t v;
    unsigned i;

    for (i = 0; i < h->op_lengths[op - 1]; i++)
        if (get_uleb(c, &v) < 0)
            return -1;
    return 0;
}

static int standard_op(ps_cursor *c, table *t, regs *r, const header *h, uint8_t op)
{
    uint64_t u;
    int64_t s;
    uint16_t w;

    switch (op) {
    case DW_LNS_copy:
        return add_row(t, r, 0) < 0 ? -2 : 0;
    case DW_LNS_advance_pc:
        if (get_uleb(c, &u) < 0)
            return -1;
        r->addr += u * h->min_inst;
        return 0;
    case DW_LNS_advance_line:
        if (get_sleb(c, &s) < 0)
            return -1;
        r->line += (unsigned)s;
        return 0;
    case DW_LNS_set_file:
        return get_uleb(c, &r->file);
    case DW_LNS_const_add_pc:
        r->addr += (uint64_t)h->min_inst * ((255u - h->opcode_base) / h->line_range);
        return 0;
    case DW_LNS_fixed_advance_pc:
        if (ps_cursor__u16(c, &w) < 0)
            return -1;
        r->addr += w;
        return 0;
    default:
        return op < h->opcode_base ? skip_args(c, h, op) : -1;
    }
}

/* @return 0 (a corrupt program keeps the sequences finished before), -1
 *         out of memory */
static int decode(const ps_dwlines *d, table *t)
{
    ps_cursor c;
    header h;
    regs r;

    if (read_header(d, t->off, &c, &h) < 0)
        return 0;
    t->version = h.version;
    file_dirs(t, &h);
    regs_reset(&r, &h);
    while (ps_cursor__left(&c) > 0) {
        uint8_t op;
        int rc;

        if (get_u8(&c, &op) < 0)
            break;
        if (op >= h.opcode_base) {      /* special opcode: advance, then a row */
            unsigned adj = op - h.opcode_base;

            r.addr += (uint64_t)(adj / h.line_range) * h.min_inst;
            r.line += (unsigned)(h.line_base + (int)(adj % h.line_range));
            rc = add_row(t, &r, 0) < 0 ? -2 : 0;
        } else if (op == 0) {
            rc = extended_op(&c, t, &r, &h);
        } else {
            rc = standard_op(&c, t, &r, &h, op);
        }
        if (rc == -2)
            return -1;
        if (rc < 0)
            break;
    }
    /* an unfinished last sequence has no end: BFD does not use it */
    if (t->nr_seqs > 0 && !t->rows[t->nr_rows - 1].end) {
        t->nr_rows -= t->seqs[t->nr_seqs - 1].nr;
        t->nr_seqs--;
    }
    seqs_sort(t);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Public                                                                   */

ps_dwlines *ps_dwlines__new(const uint8_t *sec, size_t size, int swap)
{
    ps_dwlines *d = calloc(1, sizeof(*d));

    if (d != NULL) {
        d->sec = sec;
        d->size = size;
        d->swap = swap;
        ps_u64map__init(&d->by_off);
    }
    return d;
}

void ps_dwlines__free(ps_dwlines *d)
{
    size_t i;

    if (d == NULL)
        return;
    for (i = 0; i < d->nr; i++) {
        free(d->tables[i].rows);
        free(d->tables[i].seqs);
        free(d->tables[i].dirs);
    }
    free(d->tables);
    ps_u64map__free(&d->by_off);
    free(d);
}

/* The decoded table at off, decoding it on first use. */
static table *table_get(ps_dwlines *d, uint64_t off)
{
    uint64_t *idx = ps_u64map__get(&d->by_off, off);
    table *t;

    if (idx != NULL)
        return &d->tables[*idx];
    if (d->nr == d->cap) {
        size_t n = d->cap ? d->cap * 2 : 16;
        table *v = realloc(d->tables, n * sizeof(*v));

        if (v == NULL)
            return NULL;
        d->tables = v;
        d->cap = n;
    }
    if (ps_u64map__put(&d->by_off, off, d->nr) < 0)
        return NULL;
    t = &d->tables[d->nr++];
    memset(t, 0, sizeof(*t));
    t->off = off;
    return decode(d, t) < 0 ? NULL : t;
}

int ps_dwlines__find(ps_dwlines *d, uint64_t off, uint64_t addr, uint64_t *file, unsigned *line)
{
    table *t = table_get(d, off);
    size_t lo = 0, hi, k;
    const seq *s;
    const row *v;

    if (t == NULL)
        return -1;
    hi = t->nr_seqs;
    while (lo < hi) {           /* the sequence holding addr */
        size_t mid = lo + (hi - lo) / 2;

        if (addr < t->seqs[mid].low)
            hi = mid;
        else if (addr >= t->seqs[mid].high)
            lo = mid + 1;
        else
            break;
    }
    if (lo >= hi)
        return 0;
    s = &t->seqs[lo + (hi - lo) / 2];
    v = &t->rows[s->first];
    lo = 0;
    hi = s->nr - 1;             /* the end row holds nothing */
    while (lo < hi) {           /* last row with address <= addr */
        size_t mid = lo + (hi - lo + 1) / 2;

        if (v[mid].addr <= addr)
            lo = mid;
        else
            hi = mid - 1;
    }
    k = lo;
    if (v[k].addr > addr || v[k].end || k + 1 >= s->nr || addr >= v[k + 1].addr)
        return 0;
    *file = v[k].file;
    *line = v[k].line;
    return 1;
}

int ps_dwlines__version(ps_dwlines *d, uint64_t off)
{
    table *t = table_get(d, off);

    return t != NULL ? t->version : 0;
}

int ps_dwlines__file_dir(ps_dwlines *d, uint64_t off, uint64_t file, uint64_t *dir)
{
    table *t = table_get(d, off);

    if (t == NULL || file >= t->nr_files)
        return 0;
    *dir = t->dirs[file];
    return 1;
}
