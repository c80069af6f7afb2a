/* SPDX-License-Identifier: MIT */
/*
 * tracepoint.c - HEADER_TRACING_DATA (spec 10): the blob fed to
 * libtraceevent in the order and with the calls perf's trace-event-read.c
 * uses (spec 10.3), its formats exposed as ps_tp_format tables, tracepoint
 * RAW payloads decoded field by field in the blob's byte order (spec 4.7),
 * and the trace text `perf script` prints (spec 10.4).
 *
 * Layer: reads the session's features and evsels and warns through
 * ps_session__warn(); never decodes records, never calls symbols.
 *
 * Invariants:
 *  - the blob is untrusted: every size in it is checked against the bytes
 *    left before anything is copied; libtraceevent only ever sees
 *    NUL-terminated copies of the texts;
 *  - a damaged blob keeps what parsed before the damage (perf drops the
 *    whole blob; we keep going so the other events still decode) and each
 *    problem is one warning; events left without a format are named once;
 *  - libtraceevent does not check payload reads against record->size, so
 *    before a payload is printed every field of its event is checked against
 *    the RAW size (the static extent and where each __data_loc/__rel_loc
 *    points), and libtraceevent gets a copy followed by PS_TP_PAD zero bytes:
 *    what a print fmt computes past the fields (an index, a bprint argument
 *    list) reads zeros as long as it stays within the pad, and a print that
 *    reads as many bytes as the payload says (__print_hex(), __print_array())
 *    is checked to stay within it first (tp_vet.c), or not printed;
 *  - every format text is parsed first in a helper process (tp_vet.c): one
 *    that crashes libtraceevent there is dropped, or kept without its print
 *    fmt, and never parsed here;
 *  - the library never prints: libtraceevent's log level is set to none
 *    (tep_set_loglevel() is process-wide);
 *  - one handle per blob. Pipe mode may bring a second blob; its handle
 *    replaces the first, which is kept (chained) until ps_session_close(),
 *    so every ps_tp_format handed out stays valid until then.
 */
#include <ctype.h>
#include <stdio.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>
#include "session.h"
#include "tracepoint.h"
#include "tp_vet.h"

#define PS_TP_PAD 65536

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOST_BIG 1
#else
#define HOST_BIG 0
#endif

/* A parsed event: libtraceevent's and ours, in ascending id order. */
typedef struct tp_event {
    struct tep_event *ev;
    const char       *print_fmt;
    int               sized;        /* sizes to check before printing (tp_vet.c) */
} tp_event;

struct ps_tp {
    struct tep_handle *tep;         /* owned; NULL when the blob was unusable */
    const uint8_t     *blob;        /* borrowed (the session's feature copy) */
    size_t             blob_size;
    int                big;         /* the blob's endianness byte, as 0/1 */
    char               problem[160];   /* why parsing stopped, "" if it did not */
    tp_event          *events;      /* owned; parallel to formats */
    ps_tp_format      *formats;     /* owned; ascending id */
    size_t             nr_formats, events_cap;
    ps_arena           arena;       /* field tables, print fmt texts */
    int                type_off, type_size;   /* common_type, as libtraceevent finds it */
    struct trace_seq   seq;
    uint8_t           *copy;        /* owned: payload + PS_TP_PAD zeros */
    size_t             copy_cap, copy_dirty;
    char              *text;        /* owned: NUL-terminated copy of one blob text */
    size_t             text_cap;
    ps_tp_warn_fn      warn;
    void              *warn_ctx;
    /* session bookkeeping (tracepoint.c's public half) */
    uint8_t           *warned;      /* per evsel idx: its missing format was reported */
    size_t             warned_cap;
    int                warned_all;  /* the unusable blob was reported */
    ps_tp             *older;       /* owned: the handle of an earlier blob */
};

/* ------------------------------------------------------------------------ */
/* Small helpers                                                            */

static void tp_warn(ps_tp *tp, const char *fmt, ...) PS_PRINTF(2, 3);
static void tp_warn(ps_tp *tp, const char *fmt, ...)
{
    char msg[400];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (tp->warn)
        tp->warn(tp->warn_ctx, msg);
}

/* An unsigned integer of 1, 2, 4 or 8 bytes in the given order; 0 for other
 * sizes (what libtraceevent's tep_read_number() gives). */
static uint64_t load_uint(const uint8_t *p, uint32_t size, int big)
{
    int swap = big != HOST_BIG;

    switch (size) {
    case 1: return p[0];
    case 2: return ps_load16(p, swap);
    case 4: return ps_load32(p, swap);
    case 8: return ps_load64(p, swap);
    default: return 0;
    }
}

static int64_t sign_extend(uint64_t v, uint32_t size)
{
    uint64_t sign;

    if (size == 0 || size >= 8)
        return (int64_t)v;
    sign = UINT64_C(1) << (8 * size - 1);
    if (v & sign)
        v |= ~((sign << 1) - 1);
    return (int64_t)v;
}

/* The value of the "key:" line of a format text, for messages ("?" if none). */
static void format_line(char *out, size_t size, const char *text, const char *key)
{
    size_t klen = strlen(key);
    const char *p = text;

    snprintf(out, size, "?");
    while (p && *p) {
        if (strncmp(p, key, klen) == 0 && p[klen] == ':') {
            const char *v = p + klen + 1, *e;

            while (*v == ' ' || *v == '\t')
                v++;
            e = strchr(v, '\n');
            snprintf(out, size, "%.*s", (int)(e ? e - v : (ptrdiff_t)strlen(v)), v);
            return;
        }
        p = strchr(p, '\n');
        if (p)
            p++;
    }
}

/* ------------------------------------------------------------------------ */
/* The blob (spec 10.1), read with a bounded cursor                         */

typedef struct rd {
    ps_tp    *tp;
    ps_cursor c;
} rd;

/* Stop parsing: remember and report why. Returns -1. */
static int rd_fail(rd *r, const char *what, const char *why)
{
    snprintf(r->tp->problem, sizeof(r->tp->problem), "offset %zu: %s: %s",
             r->c.pos, what, why);
    tp_warn(r->tp, "tracing data: %s; what follows is ignored", r->tp->problem);
    return -1;
}

static int rd_u32(rd *r, uint32_t *v, const char *what)
{
    return ps_cursor__u32(&r->c, v) < 0 ? rd_fail(r, what, "truncated") : 0;
}

static int rd_u64(rd *r, uint64_t *v, const char *what)
{
    return ps_cursor__u64(&r->c, v) < 0 ? rd_fail(r, what, "truncated") : 0;
}

/* n bytes (a size read from the blob) as a NUL-terminated scratch copy. */
static int rd_text(rd *r, uint64_t n, const char *what, char **out)
{
    const uint8_t *p;
    ps_tp *tp = r->tp;

    if (n > ps_cursor__left(&r->c) || ps_cursor__bytes(&r->c, &p, (size_t)n) < 0)
        return rd_fail(r, what, "size is larger than the bytes left");
    if (ps_grow((void **)&tp->text, &tp->text_cap, (size_t)n + 1, 1) < 0)
        return rd_fail(r, what, "out of memory");
    memcpy(tp->text, p, (size_t)n);
    tp->text[n] = 0;
    *out = tp->text;
    return 0;
}

/* A NUL-terminated string inside the blob. */
static int rd_cstr(rd *r, const char **out, const char *what)
{
    const uint8_t *p = r->c.p + r->c.pos;
    const uint8_t *nul = memchr(p, 0, ps_cursor__left(&r->c));

    if (nul == NULL)
        return rd_fail(r, what, "no terminating NUL");
    *out = (const char *)p;
    r->c.pos += (size_t)(nul - p) + 1;
    return 0;
}

/* A fixed tag including its NUL ("header_page", 12 bytes). */
static int rd_tag(rd *r, const char *tag)
{
    size_t n = strlen(tag) + 1;

    if (ps_cursor__left(&r->c) < n)
        return rd_fail(r, tag, "truncated");
    if (memcmp(r->c.p + r->c.pos, tag, n) != 0)
        return rd_fail(r, tag, "tag not found");
    r->c.pos += n;
    return 0;
}

/* perf tests atof(version) < 0.6; read the number without the locale. */
static int version_has_cmdlines(const char *v)
{
    double x = 0, scale = 1;

    while (*v == ' ' || *v == '\t')
        v++;
    for (; *v >= '0' && *v <= '9'; v++)
        x = x * 10 + (*v - '0');
    if (*v == '.') {
        double frac = 0;

        for (v++; *v >= '0' && *v <= '9' && scale < 1e15; v++) {
            frac = frac * 10 + (*v - '0');
            scale *= 10;
        }
        x += frac / scale;
    }
    return x >= 0.6;
}

/* Where the print fmt line of text starts (after its label), or NULL. */
static const char *print_fmt_line(const char *text)
{
    const char *p = strstr(text, "\nprint fmt: ");

    return p ? p + strlen("\nprint fmt: ") : NULL;
}

/* The "print fmt: " text of a format (after the label, to the line end). */
static const char *print_fmt_of(ps_tp *tp, const char *text)
{
    const char *p = print_fmt_line(text);
    const char *e;

    if (p == NULL)
        return "";
    e = strchr(p, '\n');
    return ps_arena__strndup(&tp->arena, p, e ? (size_t)(e - p) : strlen(p));
}

/* Whether a "field:" line of the format text declares name (n bytes):
 * the identifier before its ';' (an array's "[...]" dropped). */
static int field_declared(const char *text, const char *name, size_t n)
{
    const char *p = text;

    while ((p = strstr(p, "field:")) != NULL) {
        const char *end = strchr(p, ';'), *nl = strchr(p, '\n'), *id;

        p += 6;
        if (end == NULL || (nl != NULL && nl < end))
            continue;
        if (memchr(p, '[', (size_t)(end - p)) != NULL)
            end = memchr(p, '[', (size_t)(end - p));
        for (id = end; id > p && (isalnum((unsigned char)id[-1]) || id[-1] == '_'); id--)
            ;
        if ((size_t)(end - id) == n && memcmp(id, name, n) == 0)
            return 1;
    }
    return 0;
}

/* Whether at (inside the print fmt starting at pf) lies in the arguments
 * of a __print_flags() or __print_symbolic() call, where libtraceevent
 * trips on an unknown field (elsewhere it prints a fallback). */
static int in_flag_call(const char *pf, const char *at)
{
    static const char *const calls[] = { "__print_flags(", "__print_symbolic(" };
    size_t i;

    for (i = 0; i < 2; i++) {
        const char *c;

        for (c = pf; (c = strstr(c, calls[i])) != NULL && c < at;) {
            const char *q = c + strlen(calls[i]);
            int depth = 1;

            for (; *q && depth > 0 && q < at; q++)
                depth += (*q == '(') - (*q == ')');
            if (q == at && depth > 0)
                return 1;
            c = q;
        }
    }
    return 0;
}

/* Whether the text at p continues the false branch of a ternary with
 * something libtraceevent 1.7 dereferences NULL on: it reads that branch
 * as one operand (an optional REC->field, then an operator), and a
 * subscript, member access, ';', brace, '#' or '@' there crashes it
 * (tests/fuzz/regress/tracepoint/ternary-*). */
static int ternary_trap(const char *p)
{
    if (p[0] == '-' && p[1] == '>')
        return 1;
    return strchr("[].;{}#@", *p) != NULL && *p != '\0';
}

static int is_word(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Whether the '/' or '%' at op (inside the print fmt starting at pf) divides
 * two constants by zero: libtraceevent 1.7 folds "atom OP atom" while it
 * parses, reading a word that is not a number as 0, and traps (SIGFPE) on
 * "1/0", "X/Y", "(1)%(0)", "2*0/0"; a field on either side ("REC->a/0"),
 * a cast ("1/(int)0") or a call ("1/sizeof(int)") is left alone, and so
 * are nonzero divisors (tests/fuzz/regress/tracepoint/divide-by-zero). */
static int divide_trap(const char *pf, const char *op)
{
    const char *q = op + 1, *w, *l = op;

    while (*q == ' ' || *q == '(')
        q++;
    for (w = q; is_word(*w); w++)
        ;
    if (w == q || (w - q == 3 && strncmp(q, "REC->", 5) == 0) || *w == '(' || *w == '[' ||
        *w == '.')
        return 0;                       /* no word, or a field, call or member */
    while (*w == ' ' || *w == ')')
        w++;
    if (is_word(*w) || *w == '(' || strtoull(q, NULL, 0) != 0)
        return 0;                       /* a cast's operand follows; or not 0 */
    while (l > pf && (l[-1] == ' ' || l[-1] == ')'))
        l--;
    if (l == pf || !is_word(l[-1]))
        return 0;                       /* the dividend ends in ']' or the like */
    while (l > pf && is_word(l[-1]))
        l--;
    return !(l - pf >= 2 && ((l[-2] == '-' && l[-1] == '>') || l[-1] == '.'));
}

/* Whether p starts a call of a helper that libtraceevent 1.7 knows and
 * perf 6.1's own copy of it does not: perf fails such a print fmt ("function
 * __get_cpumask not defined") and prints the event's fields after "[FAILED
 * TO PARSE]" (ipi:ipi_send_cpumask), where 1.7 would print the text. */
static int perf_lacks_call(const char *p)
{
    static const char *const calls[] = {
        "__get_cpumask", "__get_rel_cpumask", "__get_sockaddr", "__get_sockaddr_rel",
    };
    size_t i, n;

    for (i = 0; i < PS_ARRAY_SIZE(calls); i++) {
        const char *q = p + (n = strlen(calls[i]));

        if (strncmp(p, calls[i], n) != 0)
            continue;
        while (*q == ' ')
            q++;
        if (*q == '(')
            return 1;
    }
    return 0;
}

/* Whether a print fmt (pf: its "\nprint fmt: " line) has a ternary whose
 * false branch holds, at the ternary's own parenthesis depth, one of the
 * tokens ternary_trap() names. String and character literals are
 * skipped; depth is counted in parentheses (at most 64 levels looked at). */
static const char *print_fmt_trap(const char *pf)
{
    unsigned char pending[64] = { 0 }, falsebr[64] = { 0 };
    const char *p = pf + strlen("\nprint fmt: ");
    int d = 0;
    char quote = 0;

    for (; *p && *p != '\n'; p++) {
        if (quote) {
            if (*p == '\\' && p[1])
                p++;
            else if (*p == quote)
                quote = 0;
            continue;
        }
        if (d >= 64)        /* no format nests this deep: do not risk it */
            return "nests parentheses over 64 deep";
        if (*p == '"' || *p == '\'') {
            quote = *p;
        } else if (*p == '(') {
            if (++d < 64)
                pending[d] = falsebr[d] = 0;
        } else if (*p == ')') {
            d -= d > 0;
        } else if (*p == ',') {
            pending[d] = falsebr[d] = 0;
        } else if (*p == '?') {
            pending[d]++;
            falsebr[d] = 0;
        } else if (*p == ':' && pending[d] > 0) {
            pending[d]--;
            falsebr[d] = 1;
            while (p[1] == ' ')
                p++;
            if (strncmp(p + 1, "REC->", 5) == 0)    /* the field is read whole */
                for (p += 5; isalnum((unsigned char)p[1]) || p[1] == '_'; p++)
                    ;
        } else if (falsebr[d] && ternary_trap(p)) {
            return "has a ternary libtraceevent cannot parse (a subscript, member or stray "
                   "token in its last branch)";
        } else if ((*p == '/' || *p == '%') && divide_trap(pf, p)) {
            return "divides a constant by zero, which libtraceevent computes while parsing";
        } else if (*p == '_' && !is_word(p[-1]) && perf_lacks_call(p)) {
            return "calls a function perf 6.1's libtraceevent does not define (as perf, the "
                   "event prints its fields)";
        } else if (strncmp(p, "sizeof", 6) == 0 && !is_word(p[-1]) && !is_word(p[6])) {
            /* `sizeof(int)`, `x / sizeof(int)`, `x + sizeof(x)`: libtraceevent
             * 1.7 reads freed memory (ASan); no kernel format in the corpus
             * uses it (test_tracepoint test_sizeof_traps) */
            return "uses sizeof, on which libtraceevent reads freed memory";
        }
    }
    return NULL;
}

/* Length of text (n bytes) up to its first bad field line, or n: libtraceevent
 * reads a field declaration cut short ("field:char c[" at the end) or with
 * bytes its tokenizer has no class for through a NULL token, so it is given
 * whole, printable field lines only. */
static size_t field_lines_length(ps_tp *tp, const char *text, size_t n, size_t at)
{
    const char *p, *line;

    for (line = text; (p = strstr(line, "field:")) != NULL; line = p) {
        const char *nl = strchr(p, '\n'), *semi = strchr(p, ';'), *q;
        int bad = semi == NULL || (nl != NULL && semi > nl);

        for (q = p; !bad && *q && *q != '\n'; q++)
            bad = (*q < 0x20 && *q != '\t') || (unsigned char)*q >= 0x7f;
        /* an array's '[' left open before the ';' sends it reading tokens
         * past the line to a NULL one (tests/fuzz/regress/tracepoint/) */
        for (q = p; !bad && q < semi; q++)
            if (*q == '[')
                bad = memchr(q, ']', (size_t)(semi - q)) == NULL;
        if (bad) {
            tp_warn(tp, "tracing data: offset %zu: a field line cut short, not printable or with "
                    "an open '['; the format is read up to it", at);
            while (p > text && p[-1] != '\n')
                p--;
            return (size_t)(p - text);
        }
        p = semi;
    }
    return n;
}

/* Length of the format text to give libtraceevent: up to a bad field line
 * (field_lines_length()), and without the print fmt when print_fmt_trap()
 * finds a trap in it, or when it names, inside __print_flags() or
 * __print_symbolic(), a field the format does not declare: libtraceevent
 * 1.7 crashes on it (perf 6.1 with it); without a print fmt the event
 * parses, marked failed, and prints perf's fallback. A bad field line
 * after the print fmt keeps the print fmt, so it is checked all the same. */
static size_t safe_format_length(ps_tp *tp, const char *text, size_t n, size_t at)
{
    const char *pf, *p, *why;
    size_t len = field_lines_length(tp, text, n, at);

    if ((pf = strstr(text, "\nprint fmt: ")) == NULL || (size_t)(pf - text) + 1 >= len)
        return len;
    if ((why = print_fmt_trap(pf)) != NULL) {
        tp_warn(tp, "tracing data: offset %zu: print fmt %s; the print fmt is ignored", at, why);
        return (size_t)(pf - text) + 1;
    }
    for (p = pf; (p = strstr(p, "REC->")) != NULL;) {
        size_t k = 0;

        p += 5;
        while (isalnum((unsigned char)p[k]) || p[k] == '_')
            k++;
        if (in_flag_call(pf, p) && !field_declared(text, p, k)) {
            tp_warn(tp, "tracing data: offset %zu: print fmt names REC->%.*s, which the "
                    "format does not declare; the print fmt is ignored", at, (int)k, p);
            return (size_t)(pf - text) + 1;
        }
    }
    return len;
}

/* The blob's event format texts, read before any is parsed so that a
 * child process can try them first (tp_vet.c). The texts are owned. */
typedef struct fmt_list {
    ps_tp_text *t;
    size_t      n, cap;
} fmt_list;

static void fmt_list__free(fmt_list *l)
{
    size_t i;

    for (i = 0; i < l->n; i++)
        free((char *)l->t[i].text);
    free(l->t);
}

/* Copy the conversion at p ('%' then modifiers, in the format string) to
 * out (when not NULL) as perf 6.1 prints it; *used is set to the bytes read,
 * and the bytes written are returned. perf 6.1's libtraceevent skips a 'z'
 * (or 'Z') size and prints the value as an int ("%zd" of -14 prints
 * 4294967282, "%zx" of 2^32 + 1 prints 1); 1.7 prints the long. Without the
 * 'z', and with 'd' or 'i' as 'u', 1.7 prints what perf prints. */
static size_t copy_conversion(char *out, const char *p, size_t *used)
{
    size_t i = 1, o = 0;
    int z = 0;

    if (out)
        out[o] = '%';
    o++;
    for (; p[i] && strchr("#0-+ .*123456789hlLjtqzZ", p[i]) != NULL; i++) {
        if (p[i] == 'z' || p[i] == 'Z') {
            z = 1;
            continue;
        }
        if (out)
            out[o] = p[i];
        o++;
    }
    *used = i;
    if (p[i] == '\0' || p[i] == '"' || p[i] == '\\' || p[i] == '\n')
        return o;               /* the string ends inside the conversion */
    if (out)
        out[o] = z && (p[i] == 'd' || p[i] == 'i') ? 'u' : p[i];
    *used = i + 1;
    return o + 1;
}

/* Copy the print fmt line from p (to its newline or NUL) to out (when not
 * NULL), the format string (the quoted strings before the first argument)
 * as perf 6.1 reads it: a tab or carriage return as its escape, a 'z' size
 * dropped (copy_conversion()); an escaped quote does not end a string.
 * Returns the bytes it takes. */
static size_t copy_print_fmt(char *out, const char *p)
{
    size_t o = 0, used;
    char quote = 0, c;
    int args = 0;

    for (; *p && *p != '\n'; p++) {
        c = *p;
        args |= !quote && c == ',';
        if (quote == '"' && !args && c == '%' && p[1] != '%') {
            o += copy_conversion(out ? out + o : NULL, p, &used);
            p += used - 1;
            continue;
        }
        if (quote && !args && (c == '\t' || c == '\r')) {
            if (out) {
                out[o] = '\\';
                out[o + 1] = c == '\t' ? 't' : 'r';
            }
            o += 2;
            continue;
        }
        if (quote && c == '\\' && p[1] && p[1] != '\n') {
            if (out)
                out[o] = c;
            o++;
            c = *++p;
        } else if (quote == '"' && !args && c == '%') {
            if (out)
                out[o] = c;     /* "%%": the first of two, the second below */
            o++;
            c = *++p;
        } else if (c == '"' || c == '\'') {
            quote = quote == 0 ? c : quote == c ? 0 : quote;
        }
        if (out)
            out[o] = c;
        o++;
    }
    return o;
}

/*
 * text (n bytes) as libtraceevent 1.7 reads it the way perf 6.1 does, in
 * a new allocation (*out_n bytes), or NULL when out of memory. perf 6.1's
 * own copy of the library keeps every byte up to the closing quote in a
 * string; 1.7 ends the string at a byte that is not printable, so a print
 * fmt with a tab inside its format string (maple_tree:ma_read's "%s\tNode:")
 * fails to parse there and prints "[FAILED TO PARSE]" where perf prints
 * the text. A tab or carriage return inside the format string becomes its
 * escape ("\t", "\r"), which 1.7's printer turns back into the same byte.
 * In a string argument it stays: 1.7 prints an argument's escapes as they
 * are, so no text there prints as perf does (no kernel format has one).
 * The format string's conversions lose their 'z' (copy_conversion()).
 */
static char *escape_print_fmt(const char *text, size_t n, size_t *out_n)
{
    const char *pf = print_fmt_line(text);
    size_t head = pf ? (size_t)(pf - text) : n;
    size_t line = pf ? strcspn(pf, "\n") : 0;      /* to the newline or a NUL */
    size_t esc = pf ? copy_print_fmt(NULL, pf) : 0, o;
    char *out = malloc(n - line + esc + 1);

    if (out == NULL)
        return NULL;
    memcpy(out, text, head);
    o = head + (pf ? copy_print_fmt(out + head, pf) : 0);
    memcpy(out + o, text + head + line, n - head - line);
    o += n - head - line;
    out[o] = 0;
    *out_n = o;
    return out;
}

/* One event format text of system sys (spec 10.1 rows 11, 12), with the
 * length tracepoint.c's own checks allow libtraceevent to see. */
static int read_format(rd *r, fmt_list *l, const char *sys, const char *what)
{
    size_t at = r->c.pos;
    uint64_t n;
    char *text, *copy;
    size_t len;

    if (rd_u64(r, &n, what) < 0 || rd_text(r, n, what, &text) < 0)
        return -1;
    if (ps_grow((void **)&l->t, &l->cap, l->n + 1, sizeof(*l->t)) < 0 ||
        (copy = escape_print_fmt(text, (size_t)n, &len)) == NULL)
        return rd_fail(r, what, "out of memory");
    l->t[l->n].sys = sys;
    l->t[l->n].text = copy;
    l->t[l->n].len = safe_format_length(r->tp, copy, len, at);
    l->t[l->n].at = at;
    l->t[l->n].print_fmt = print_fmt_of(r->tp, text);
    l->n++;
    return 0;
}

/* Parse one vetted text into tp (the parent's tep). */
static int parse_format(ps_tp *tp, const ps_tp_text *t)
{
    struct tep_event *ev = NULL;
    const char *why;
    enum tep_errno e;

    e = tep_parse_format(tp->tep, &ev, t->text, (unsigned long)t->len, t->sys);
    if (e != 0 || ev == NULL) {
        char name[64], msg[128];

        format_line(name, sizeof(name), t->text, "name");
        tep_strerror(tp->tep, e, msg, sizeof(msg));
        tp_warn(tp, "tracing data: offset %zu: format of %s:%s does not parse (%s)",
                t->at, t->sys, name, msg);
        return 0;
    }
    if ((why = ps_tp_vet_print(ev)) != NULL) {
        /* libtraceevent prints a failed event as fields only */
        ev->flags |= TEP_EVENT_FL_FAILED;
        tp_warn(tp, "tracing data: offset %zu: %s:%s: print fmt %s, on which libtraceevent "
                "traps; the event prints as one whose print fmt does not parse", t->at,
                t->sys, ev->name ? ev->name : "?", why);
    } else if (ev->flags & TEP_EVENT_FL_FAILED) {
        char fmtbuf[80];

        format_line(fmtbuf, sizeof(fmtbuf), t->text, "print fmt");
        tp_warn(tp, "tracing data: offset %zu: %s:%s: libtraceevent cannot parse all of "
                "this format (print fmt: %s); its trace text is libtraceevent's fallback, "
                "as in perf", t->at, t->sys, ev->name ? ev->name : "?", fmtbuf);
    }
    if (ps_grow((void **)&tp->events, &tp->events_cap, tp->nr_formats + 1,
                sizeof(*tp->events)) < 0) {
        snprintf(tp->problem, sizeof(tp->problem), "out of memory");
        return -1;
    }
    tp->events[tp->nr_formats].ev = ev;
    tp->events[tp->nr_formats].print_fmt = t->print_fmt;
    tp->events[tp->nr_formats].sized = ps_tp_vet_sized(ev);
    tp->nr_formats++;
    return 0;
}

/* What the verdicts of tp_vet.c go to: the handle to parse into. */
typedef struct vet_ctx {
    ps_tp      *tp;
    ps_tp_text *t;              /* the texts judged */
    unsigned char *crashed;     /* per blob text: the helper died on it */
    int         retry, failed;  /* without the print fmt; out of memory */
} vet_ctx;

static void warn_dropped(ps_tp *tp, const ps_tp_text *t)
{
    char name[64];

    format_line(name, sizeof(name), t->text, "name");
    tp_warn(tp, "tracing data: offset %zu: libtraceevent crashes on the format of %s:%s "
            "(found in a helper process); the event has no format", t->at, t->sys, name);
}

/* A verdict (tp_vet.c): parse what the helper survived, remember what it
 * did not for retry_crashed(), or, on the retry, give it up. */
static void on_verdict(void *ctx, size_t i, int verdict)
{
    vet_ctx *c = ctx;
    char name[64];

    if (verdict != PS_TP_VET_CRASHED) {
        if (c->retry) {
            format_line(name, sizeof(name), c->t[i].text, "name");
            tp_warn(c->tp, "tracing data: offset %zu: libtraceevent crashes on the print fmt "
                    "of %s:%s (found in a helper process); the print fmt is ignored",
                    c->t[i].at, c->t[i].sys, name);
        }
        if (!c->failed && parse_format(c->tp, &c->t[i]) < 0)
            c->failed = 1;
        return;
    }
    if (c->retry)
        warn_dropped(c->tp, &c->t[i]);
    else
        c->crashed[i] = 1;
}

/* Texts the helper died on, again without their print fmt (where
 * libtraceevent's parser has crashed so far); dropped if that is all. */
static void retry_crashed(vet_ctx *c, const fmt_list *l)
{
    ps_tp_text *again = malloc(l->n * sizeof(*again));
    size_t i, m = 0;

    for (i = 0; i < l->n; i++) {
        const char *pf = strstr(l->t[i].text, "\nprint fmt: ");

        if (!c->crashed[i])
            continue;
        if (again == NULL || pf == NULL || (size_t)(pf - l->t[i].text) + 1 >= l->t[i].len) {
            warn_dropped(c->tp, &l->t[i]);
            continue;
        }
        again[m] = l->t[i];
        again[m++].len = (size_t)(pf - l->t[i].text) + 1;
    }
    c->t = again;
    c->retry = 1;
    if (m > 0)
        ps_tp_vet_parse(c->tp->tep, again, m, on_verdict, c);
    free(again);
}

/* Try the texts in the helper, parsing each here once it survived it. */
static int parse_formats(ps_tp *tp, fmt_list *l)
{
    vet_ctx c = { tp, l->t, NULL, 0, 0 };

    if (l->n == 0)
        return 0;
    if ((c.crashed = calloc(l->n, 1)) == NULL) {
        snprintf(tp->problem, sizeof(tp->problem), "out of memory");
        return -1;
    }
    ps_tp_vet_parse(tp->tep, l->t, l->n, on_verdict, &c);
    if (!c.failed)
        retry_crashed(&c, l);
    free(c.crashed);
    return c.failed ? -1 : 0;
}

static int parse_header_page(rd *r)
{
    ps_tp *tp = r->tp;
    uint64_t n;
    char *text;

    if (rd_tag(r, "header_page") < 0 || rd_u64(r, &n, "header_page") < 0 ||
        rd_text(r, n, "header_page", &text) < 0)
        return -1;
    /* the commit field is a kernel long: it refines the long size */
    if (tep_parse_header_page(tp->tep, text, (unsigned long)n,
                              tep_get_long_size(tp->tep)) == 0)
        tep_set_long_size(tp->tep, tep_get_header_page_size(tp->tep));
    return 0;
}

static int skip_header_event(rd *r)
{
    uint64_t n;

    if (rd_tag(r, "header_event") < 0 || rd_u64(r, &n, "header_event") < 0)
        return -1;
    if (n > ps_cursor__left(&r->c))
        return rd_fail(r, "header_event", "size is larger than the bytes left");
    r->c.pos += (size_t)n;
    return 0;
}

/* The ftrace and event formats (rows 9-12), read into l. */
static int read_event_formats(rd *r, fmt_list *l)
{
    uint32_t nr, nr_sys, i, j;

    if (rd_u32(r, &nr, "number of ftrace formats") < 0)
        return -1;
    for (i = 0; i < nr; i++)
        if (read_format(r, l, "ftrace", "ftrace format") < 0)
            return -1;
    if (rd_u32(r, &nr_sys, "number of systems") < 0)
        return -1;
    for (i = 0; i < nr_sys; i++) {
        const char *sys;

        if (rd_cstr(r, &sys, "system name") < 0 ||
            rd_u32(r, &nr, "number of formats") < 0)
            return -1;
        for (j = 0; j < nr; j++)
            if (read_format(r, l, sys, "event format") < 0)
                return -1;
    }
    return 0;
}

/* printk formats, lines `0xADDR : "fmt"`, split as perf splits them: at
 * the first ':', then one character (the space) skipped. A line without
 * anything after its ':' is skipped (perf would read past the line). */
static void register_printk(ps_tp *tp, char *text)
{
    char *next = NULL, *line;

    for (line = strtok_r(text, "\n", &next); line; line = strtok_r(NULL, "\n", &next)) {
        char *fmt = NULL, *addr = strtok_r(line, ":", &fmt);

        if (addr == NULL) {
            tp_warn(tp, "tracing data: printk format with an empty entry; the rest is ignored");
            return;
        }
        if (fmt == NULL || *fmt == 0)
            continue;
        /* libtraceevent strips a quote and a "\n" by stepping back from
         * the end without looking at the length: below 4 characters it
         * reads before its copy. No kernel format is that short. */
        if (strlen(fmt + 1) < 4) {
            tp_warn(tp, "tracing data: printk format shorter than 4 characters skipped");
            continue;
        }
        tep_register_print_string(tp->tep, fmt + 1, strtoull(addr, NULL, 16));
    }
}

/* saved_cmdlines, lines "pid comm" (perf: sscanf "%d %16s"). */
static void register_cmdlines(ps_tp *tp, char *text)
{
    char *next = NULL, *line;

    for (line = strtok_r(text, "\n", &next); line; line = strtok_r(NULL, "\n", &next)) {
        char comm[17];
        int pid;

        if (sscanf(line, "%d %16s", &pid, comm) == 2)
            tep_register_comm(tp->tep, comm, pid);
    }
}

static int parse_tail(rd *r, int has_cmdlines)
{
    uint32_t n4;
    uint64_t n8;
    char *text;

    /* kallsyms: skipped, as perf does (it resolves with its own symbols) */
    if (rd_u32(r, &n4, "kallsyms size") < 0)
        return -1;
    if (n4 > ps_cursor__left(&r->c))
        return rd_fail(r, "kallsyms", "size is larger than the bytes left");
    r->c.pos += n4;
    if (rd_u32(r, &n4, "printk size") < 0 || rd_text(r, n4, "printk formats", &text) < 0)
        return -1;
    register_printk(r->tp, text);
    if (!has_cmdlines)
        return 0;
    if (rd_u64(r, &n8, "saved_cmdlines size") < 0 ||
        rd_text(r, n8, "saved_cmdlines", &text) < 0)
        return -1;
    register_cmdlines(r->tp, text);
    return 0;
}

/* Magic, version, endianness, long size, page size (rows 1-6); sets up tep. */
static int parse_preamble(rd *r, int *has_cmdlines)
{
    static const uint8_t magic[10] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
    ps_tp *tp = r->tp;
    const char *version;
    uint32_t page_size;
    uint8_t long_size;

    if (ps_cursor__left(&r->c) < sizeof(magic) ||
        memcmp(r->c.p, magic, sizeof(magic)) != 0)
        return rd_fail(r, "magic", "not \\027\\010\\104tracing");
    r->c.pos = sizeof(magic);
    if (rd_cstr(r, &version, "version") < 0)
        return -1;
    *has_cmdlines = version_has_cmdlines(version);
    if (ps_cursor__left(&r->c) < 2)
        return rd_fail(r, "endianness and long size", "truncated");
    tp->big = r->c.p[r->c.pos] != 0;
    long_size = r->c.p[r->c.pos + 1];
    r->c.pos += 2;
    r->c.swap = tp->big != HOST_BIG;
    if (rd_u32(r, &page_size, "page size") < 0)
        return -1;
    if ((tp->tep = tep_alloc()) == NULL)
        return rd_fail(r, "libtraceevent", "out of memory");
    tep_set_flag(tp->tep, TEP_NSEC_OUTPUT);
    tep_set_file_bigendian(tp->tep, tp->big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
    tep_set_local_bigendian(tp->tep, HOST_BIG ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
    tep_set_long_size(tp->tep, long_size);
    tep_set_page_size(tp->tep, (int)page_size);
    return 0;
}

static void parse_blob(ps_tp *tp)
{
    rd r;
    int has_cmdlines = 0;
    fmt_list l = { NULL, 0, 0 };
    int read_all;

    r.tp = tp;
    ps_cursor__init(&r.c, tp->blob, tp->blob_size, 0, 0);
    if (parse_preamble(&r, &has_cmdlines) < 0 || parse_header_page(&r) < 0 ||
        skip_header_event(&r) < 0)
        return;
    /* the formats read before a damage are parsed, as before the vetting */
    read_all = read_event_formats(&r, &l) == 0;
    if (parse_formats(tp, &l) == 0 && read_all)
        parse_tail(&r, has_cmdlines);
    fmt_list__free(&l);
}

/* ------------------------------------------------------------------------ */
/* Formats as ps_tp_format tables                                           */

/* Bytes of a C type libtraceevent gave no element size for ("int" of a
 * __rel_loc int[]); 0 if unknown. */
static uint32_t c_type_size(const char *type, int long_size)
{
    static const struct { const char *name; uint32_t size; } types[] = {
        { "char", 1 }, { "signed char", 1 }, { "unsigned char", 1 }, { "bool", 1 },
        { "_Bool", 1 }, { "s8", 1 }, { "u8", 1 }, { "__s8", 1 }, { "__u8", 1 },
        { "short", 2 }, { "unsigned short", 2 }, { "s16", 2 }, { "u16", 2 },
        { "__s16", 2 }, { "__u16", 2 }, { "int", 4 }, { "unsigned int", 4 },
        { "unsigned", 4 }, { "s32", 4 }, { "u32", 4 }, { "__s32", 4 }, { "__u32", 4 },
        { "pid_t", 4 }, { "long long", 8 }, { "unsigned long long", 8 }, { "s64", 8 },
        { "u64", 8 }, { "__s64", 8 }, { "__u64", 8 },
    };
    char base[64];
    size_t n, i;
    const char *p = type;

    if (strncmp(p, "__data_loc ", 11) == 0)
        p += 11;
    else if (strncmp(p, "__rel_loc ", 10) == 0)
        p += 10;
    if (strncmp(p, "const ", 6) == 0)
        p += 6;
    if (strchr(p, '*'))
        return (uint32_t)long_size;
    n = strcspn(p, "[");
    while (n > 0 && p[n - 1] == ' ')
        n--;
    if (n >= sizeof(base))
        return 0;
    memcpy(base, p, n);
    base[n] = 0;
    if (strcmp(base, "long") == 0 || strcmp(base, "unsigned long") == 0)
        return (uint32_t)long_size;
    for (i = 0; i < PS_ARRAY_SIZE(types); i++)
        if (strcmp(base, types[i].name) == 0)
            return types[i].size;
    return 0;
}

static void fill_field(ps_tp_field *f, const struct tep_format_field *tf,
                       unsigned common, int long_size)
{
    unsigned long fl = tf->flags;

    f->name = tf->name ? tf->name : "";
    f->type = tf->type ? tf->type : "";
    f->offset = (uint32_t)tf->offset;   /* negative ones become impossible offsets */
    f->size = (uint32_t)tf->size;
    f->flags = common;
    if (fl & TEP_FIELD_IS_SIGNED) f->flags |= PS_TP_FIELD_SIGNED;
    if (fl & TEP_FIELD_IS_ARRAY) f->flags |= PS_TP_FIELD_ARRAY;
    if (fl & TEP_FIELD_IS_POINTER) f->flags |= PS_TP_FIELD_POINTER;
    if (fl & TEP_FIELD_IS_LONG) f->flags |= PS_TP_FIELD_LONG;
    if (fl & TEP_FIELD_IS_DYNAMIC)
        f->flags |= (fl & TEP_FIELD_IS_RELATIVE) ? PS_TP_FIELD_REL_LOC : PS_TP_FIELD_DATA_LOC;
    /* libtraceevent calls u8/s8 arrays strings too; they are bytes */
    if ((fl & TEP_FIELD_IS_STRING) && strstr(f->type, "char"))
        f->flags |= PS_TP_FIELD_STRING;
    if (f->flags & PS_TP_FIELD_ARRAY) {
        f->elem_size = tf->elementsize ? tf->elementsize : c_type_size(f->type, long_size);
        if (f->elem_size == 0)
            f->elem_size = 1;
        if (!(fl & TEP_FIELD_IS_DYNAMIC))
            f->nr_elems = tf->arraylen;
    } else {
        f->elem_size = f->size;
    }
}

static uint32_t count_fields(const struct tep_format_field *f)
{
    uint32_t n = 0;

    for (; f && n < UINT32_MAX; f = f->next)
        n++;
    return n;
}

static int fill_format(ps_tp *tp, ps_tp_format *fmt, const tp_event *te)
{
    const struct tep_event *ev = te->ev;
    const struct tep_format_field *tf;
    ps_tp_field *fields;
    uint32_t nr_common = count_fields(ev->format.common_fields);
    uint32_t nr = count_fields(ev->format.fields), i = 0;
    int long_size = tep_get_long_size(tp->tep);

    if (nr > UINT32_MAX - nr_common ||
        (fields = ps_arena__array(&tp->arena, (size_t)nr_common + nr, sizeof(*fields))) == NULL)
        return -1;
    for (tf = ev->format.common_fields; tf && i < nr_common; tf = tf->next)
        fill_field(&fields[i++], tf, PS_TP_FIELD_COMMON, long_size);
    for (tf = ev->format.fields; tf && i < nr_common + nr; tf = tf->next)
        fill_field(&fields[i++], tf, 0, long_size);
    fmt->id = (uint64_t)(int64_t)ev->id;
    fmt->system = ev->system ? ev->system : "";
    fmt->name = ev->name ? ev->name : "";
    fmt->print_fmt = te->print_fmt ? te->print_fmt : "";
    fmt->print_failed = (ev->flags & TEP_EVENT_FL_FAILED) != 0;
    fmt->big_endian = tp->big;
    fmt->long_size = long_size;
    fmt->nr_common = nr_common;
    fmt->nr_fields = nr_common + nr;
    fmt->fields = fields;
    return 0;
}

static int cmp_event(const void *a, const void *b)
{
    int x = ((const tp_event *)a)->ev->id, y = ((const tp_event *)b)->ev->id;

    return (x > y) - (x < y);
}

/* Sort by id, build the tables, find common_type as libtraceevent does
 * (from the format it holds first). -1 when out of memory. */
static int build_formats(ps_tp *tp)
{
    struct tep_event *first;
    struct tep_format_field *ct;
    size_t i;

    if (tp->nr_formats == 0)
        return 0;
    qsort(tp->events, tp->nr_formats, sizeof(*tp->events), cmp_event);
    if ((tp->formats = calloc(tp->nr_formats, sizeof(*tp->formats))) == NULL)
        return -1;
    for (i = 0; i < tp->nr_formats; i++)
        if (fill_format(tp, &tp->formats[i], &tp->events[i]) < 0)
            return -1;
    tp->type_off = -1;
    if ((first = tep_get_event(tp->tep, 0)) != NULL &&
        (ct = tep_find_common_field(first, "common_type")) != NULL) {
        tp->type_off = ct->offset;
        tp->type_size = ct->size;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The handle                                                               */

ps_tp *ps_tp__new(const uint8_t *blob, size_t size, ps_tp_warn_fn warn, void *ctx)
{
    ps_tp *tp = calloc(1, sizeof(*tp));

    if (tp == NULL)
        return NULL;
    ps_arena__init(&tp->arena);
    trace_seq_init(&tp->seq);
    tp->blob = blob;
    tp->blob_size = size;
    tp->warn = warn;
    tp->warn_ctx = ctx;
    tp->type_off = -1;
    tep_set_loglevel(TEP_LOG_NONE);
    if (blob == NULL) {
        snprintf(tp->problem, sizeof(tp->problem), "the capture has no tracing data");
        return tp;
    }
    parse_blob(tp);
    free(tp->text);
    tp->text = NULL;
    tp->text_cap = 0;
    if (build_formats(tp) < 0) {
        ps_tp__free(tp);
        return NULL;
    }
    if (tp->nr_formats == 0 && tp->problem[0] == 0)
        snprintf(tp->problem, sizeof(tp->problem), "the tracing data holds no event format");
    return tp;
}

void ps_tp__free(ps_tp *tp)
{
    while (tp) {
        ps_tp *older = tp->older;

        if (tp->tep)
            tep_free(tp->tep);
        trace_seq_destroy(&tp->seq);
        ps_arena__free(&tp->arena);
        free(tp->events);
        free(tp->formats);
        free(tp->copy);
        free(tp->text);
        free(tp->warned);
        free(tp);
        tp = older;
    }
}

size_t ps_tp__nr_formats(const ps_tp *tp)
{
    return tp ? tp->nr_formats : 0;
}

/* Index of the format of ev (one of tp's events), or of id when ev is NULL. */
static const ps_tp_format *find_format(const ps_tp *tp, int id, const struct tep_event *ev)
{
    size_t lo = 0, hi = tp->nr_formats;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (tp->events[mid].ev->id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* duplicate ids: the one libtraceevent would pick */
    for (hi = lo; hi < tp->nr_formats && tp->events[hi].ev->id == id; hi++)
        if (ev == NULL || tp->events[hi].ev == ev)
            return &tp->formats[hi];
    return NULL;
}

const ps_tp_format *ps_tp__find(const ps_tp *tp, uint64_t id)
{
    if (tp == NULL || tp->tep == NULL || id > INT32_MAX)
        return NULL;
    return find_format(tp, (int)id, tep_find_event(tp->tep, (int)id));
}

/* ------------------------------------------------------------------------ */
/* Payloads                                                                 */

static int outside(ps_error *err, const ps_tp_format *fmt, const ps_tp_field *f,
                   const char *what, uint64_t off, uint64_t size, size_t raw_size)
{
    return ps_error__set(err, PS_ECORRUPT, PS_NO_OFFSET,
                         "%s:%s: field %s: %s (offset %llu, %llu bytes) lies outside "
                         "the %zu-byte RAW data", fmt->system, fmt->name, f->name, what,
                         (unsigned long long)off, (unsigned long long)size, raw_size);
}

/* Where field f's bytes are: itself, or what its __data_loc/__rel_loc word
 * points to. Every extent is checked against raw_size. */
static int field_extent(const uint8_t **data, size_t *size, const ps_tp_format *fmt,
                        const ps_tp_field *f, const uint8_t *raw, size_t raw_size,
                        ps_error *err)
{
    uint64_t word, off, len;

    if ((uint64_t)f->offset + f->size > raw_size)
        return outside(err, fmt, f, "the field", f->offset, f->size, raw_size);
    if (!(f->flags & (PS_TP_FIELD_DATA_LOC | PS_TP_FIELD_REL_LOC))) {
        *data = raw + f->offset;
        *size = f->size;
        return PS_OK;
    }
    word = load_uint(raw + f->offset, f->size, fmt->big_endian);
    off = word & 0xffff;
    len = (word >> 16) & 0xffff;
    if (f->flags & PS_TP_FIELD_REL_LOC)
        off += (uint64_t)f->offset + f->size;
    if (off + len > raw_size)
        return outside(err, fmt, f, "its data", off, len, raw_size);
    *data = raw + off;
    *size = (size_t)len;
    return PS_OK;
}

int ps_tp__value(ps_tp_value *out, const ps_tp_format *fmt, size_t idx,
                 const uint8_t *raw, size_t raw_size, ps_error *err)
{
    const ps_tp_field *f;
    const uint8_t *data;
    size_t size;
    int rc;

    memset(out, 0, sizeof(*out));
    if (idx >= fmt->nr_fields)
        return PS_DONE;
    f = &fmt->fields[idx];
    out->field = f;
    out->big_endian = fmt->big_endian;
    if ((rc = field_extent(&data, &size, fmt, f, raw, raw_size, err)) < 0)
        return rc;
    if (f->flags & PS_TP_FIELD_STRING) {
        out->kind = PS_TP_VALUE_STRING;
        out->str = (const char *)data;
        out->len = strnlen(out->str, size);
    } else if (!(f->flags & (PS_TP_FIELD_ARRAY | PS_TP_FIELD_DATA_LOC | PS_TP_FIELD_REL_LOC)) &&
               (size == 1 || size == 2 || size == 4 || size == 8)) {
        out->kind = PS_TP_VALUE_INT;
        out->u = load_uint(data, (uint32_t)size, fmt->big_endian);
        out->i = (f->flags & PS_TP_FIELD_SIGNED) ? sign_extend(out->u, (uint32_t)size)
                                                 : (int64_t)out->u;
    } else {
        out->kind = PS_TP_VALUE_ARRAY;
        out->data = data;
        out->size = size;
        out->elem_size = (f->flags & PS_TP_FIELD_ARRAY) && f->elem_size ? f->elem_size : 1;
        out->nr = size / out->elem_size;
    }
    return PS_OK;
}

uint64_t ps_tp_value_at(const ps_tp_value *v, size_t i)
{
    uint64_t x;

    if (v == NULL || v->kind != PS_TP_VALUE_ARRAY || i >= v->nr || v->elem_size == 0)
        return 0;
    x = load_uint(v->data + i * v->elem_size, v->elem_size, v->big_endian);
    if (v->field && (v->field->flags & PS_TP_FIELD_SIGNED))
        x = (uint64_t)sign_extend(x, v->elem_size);
    return x;
}

/* The payload copy libtraceevent reads: raw, then zeros to PS_TP_PAD past it. */
static const uint8_t *padded_copy(ps_tp *tp, const uint8_t *raw, size_t raw_size)
{
    size_t need = raw_size + PS_TP_PAD;

    if (need > tp->copy_cap) {
        uint8_t *p = realloc(tp->copy, need);

        if (p == NULL)
            return NULL;
        memset(p + tp->copy_cap, 0, need - tp->copy_cap);
        tp->copy = p;
        tp->copy_cap = need;
    }
    memcpy(tp->copy, raw, raw_size);
    if (tp->copy_dirty > raw_size)
        memset(tp->copy + raw_size, 0, tp->copy_dirty - raw_size);
    tp->copy_dirty = raw_size;
    return tp->copy;
}

int ps_tp__print(char *buf, size_t size, ps_tp *tp, const uint8_t *raw,
                 size_t raw_size, int cpu, ps_error *err)
{
    const struct tep_event *ev;
    const ps_tp_format *fmt = NULL;
    struct tep_record rec;
    size_t i, len;

    if (tp == NULL || tp->tep == NULL || tp->nr_formats == 0)
        return ps_error__set(err, PS_ECORRUPT, PS_NO_OFFSET, "no usable tracing data (%s)",
                             tp && tp->problem[0] ? tp->problem : "none");
    if (tp->type_off < 0 || tp->type_size < 0 ||
        (uint64_t)tp->type_off + (uint64_t)tp->type_size > raw_size)
        return ps_error__set(err, PS_ECORRUPT, PS_NO_OFFSET,
                             "RAW data of %zu bytes has no common_type field", raw_size);
    ev = tep_find_event(tp->tep, (int)load_uint(raw + tp->type_off, (uint32_t)tp->type_size,
                                                tp->big));
    /* an unknown id prints "[UNKNOWN EVENT]" without reading fields; a
     * known one only once its fields are known to lie in the payload */
    if (ev && (fmt = find_format(tp, ev->id, ev)) == NULL)
        return ps_error__set(err, PS_ECORRUPT, PS_NO_OFFSET, "event id %d: no field table",
                             ev->id);
    for (i = 0; ev && i < fmt->nr_fields; i++) {
        const uint8_t *d;
        size_t n;
        int rc;

        if ((rc = field_extent(&d, &n, fmt, &fmt->fields[i], raw, raw_size, err)) < 0)
            return rc;
    }
    memset(&rec, 0, sizeof(rec));
    if ((rec.data = (void *)padded_copy(tp, raw, raw_size)) == NULL)
        return ps_error__set(err, PS_ENOMEM, PS_NO_OFFSET, "out of memory");
    /* __print_hex() and the like read as many bytes as the payload says,
     * and a '*' width pads as far as it says */
    if (ev && tp->events[fmt - tp->formats].sized &&
        !ps_tp_vet_sizes_ok(ev, rec.data, raw_size, PS_TP_PAD))
        return ps_error__set(err, PS_ECORRUPT, PS_NO_OFFSET,
                             "%s: a length or width the payload sets is more than its print "
                             "fmt can print (%zu bytes of payload)",
                             ev->name ? ev->name : "event", raw_size);
    rec.size = (int)raw_size;
    rec.cpu = cpu;
    trace_seq_reset(&tp->seq);
    tep_print_event(tp->tep, &tp->seq, &rec, "%s", TEP_PRINT_INFO);
    if (tp->seq.state != TRACE_SEQ__GOOD)
        return ps_error__set(err, PS_ENOMEM, PS_NO_OFFSET, "out of memory");
    /* perf prints it with "%.*s": up to the first NUL */
    len = tp->seq.buffer ? strnlen(tp->seq.buffer, tp->seq.len) : 0;
    if (len > INT32_MAX)
        len = INT32_MAX;
    if (size > 0) {
        size_t n = len < size - 1 ? len : size - 1;

        if (n)
            memcpy(buf, tp->seq.buffer, n);
        buf[n] = 0;
    }
    return (int)len;
}

/* ------------------------------------------------------------------------ */
/* The public API: one handle per session, made on first use               */

static void session_warn(void *ctx, const char *msg)
{
    ps_session__warn((ps_session *)ctx, PS_NO_OFFSET, "%s", msg);
}

/* A "kprobe"/"uprobe" PMU type (PMU_MAPPINGS): its config may be a format ID. */
static int is_probe_pmu(const ps_features *f, uint32_t type)
{
    uint32_t i;

    if (type < PERF_TYPE_MAX)
        return 0;
    for (i = 0; i < f->pmu_mappings.nr; i++) {
        const ps_feat_pmu *p = &f->pmu_mappings.pmus[i];

        if (p->type == type && p->name &&
            (strcmp(p->name, "kprobe") == 0 || strcmp(p->name, "uprobe") == 0))
            return 1;
    }
    return 0;
}

/* Tell once that the blob is unusable, naming the tracepoint events. */
static void warn_unusable(ps_session *s, ps_tp *tp)
{
    char names[300];
    size_t i, n = 0;

    if (tp->warned_all)
        return;
    tp->warned_all = 1;
    names[0] = 0;
    for (i = 0; i < s->evlist.nr; i++) {
        const ps_evsel *e = s->evlist.evsels[i];
        int w;

        if (e->attr.type != PERF_TYPE_TRACEPOINT || n >= sizeof(names))
            continue;
        w = snprintf(names + n, sizeof(names) - n, "%s%s (id %llu)", n ? ", " : "",
                     e->name ? e->name : "?", (unsigned long long)e->attr.config);
        n = w < 0 ? sizeof(names) : n + (size_t)w;
    }
    ps_session__warn(s, PS_NO_OFFSET, "%s: tracepoint fields and trace text are not "
                     "decoded for: %s", tp->problem, names[0] ? names : "(no event yet)");
}

/* Tell once per evsel that its format is missing. */
static void warn_missing(ps_session *s, ps_tp *tp, const ps_evsel *e)
{
    size_t cap = tp->warned_cap;

    if (tp->nr_formats == 0) {
        warn_unusable(s, tp);
        return;
    }
    if (e->idx >= tp->warned_cap) {
        if (ps_grow((void **)&tp->warned, &cap, (size_t)e->idx + 1, 1) < 0)
            return;
        memset(tp->warned + tp->warned_cap, 0, cap - tp->warned_cap);
        tp->warned_cap = cap;
    }
    if (tp->warned[e->idx])
        return;
    tp->warned[e->idx] = 1;
    ps_session__warn(s, PS_NO_OFFSET, "tracepoint '%s' (id %llu): no format in the tracing "
                     "data; its fields and trace text are not decoded",
                     e->name ? e->name : "?", (unsigned long long)e->attr.config);
}

/* libtraceevent's resolver signature, forwarding to the session's. */
static char *tep_func(void *priv, unsigned long long *addrp, char **modp)
{
    ps_session *s = priv;
    uint64_t addr = *addrp;
    const char *mod = NULL, *name;

    *modp = NULL;
    if (s->tp_func == NULL || (name = s->tp_func(s->tp_func_ctx, &addr, &mod)) == NULL)
        return NULL;
    *addrp = addr;
    *modp = (char *)mod;
    return (char *)name;
}

static void apply_resolver(ps_session *s, ps_tp *tp)
{
    for (; tp != NULL; tp = tp->older)
        if (tp->tep != NULL)
            tep_set_function_resolver(tp->tep, tep_func, s);
}

void ps_session__set_tp_resolver(ps_session *s, ps_tp_func_fn fn, void *ctx)
{
    s->tp_func = fn;
    s->tp_func_ctx = ctx;
    apply_resolver(s, s->tp);
}

/* The handle for the session's current blob (pipe mode: the latest). */
static ps_tp *session_tp(ps_session *s)
{
    const uint8_t *blob = s->feat.tracing_data.data;
    size_t size = (size_t)s->feat.tracing_data.size;
    ps_tp *tp;

    if (s->tp && s->tp->blob == blob && s->tp->blob_size == size)
        return s->tp;
    if ((tp = ps_tp__new(blob, size, session_warn, s)) == NULL)
        return NULL;
    tp->older = s->tp;
    s->tp = tp;
    if (s->tp_func != NULL && tp->tep != NULL)
        tep_set_function_resolver(tp->tep, tep_func, s);
    return tp;
}

int ps_tracepoint_format(const ps_tp_format **out, ps_session *s, const ps_evsel *e,
                         ps_error *err)
{
    const ps_tp_format *fmt;
    int probe;
    ps_tp *tp;

    *out = NULL;
    if (s == NULL || e == NULL)
        return ps_error__set(err, PS_EINVAL, PS_NO_OFFSET, "no session or event given");
    probe = is_probe_pmu(&s->feat, e->attr.type);
    if (e->attr.type != PERF_TYPE_TRACEPOINT && !probe)
        return ps_error__set(err, PS_EINVAL, PS_NO_OFFSET, "event '%s' is not a tracepoint",
                             e->name ? e->name : "?");
    if ((tp = session_tp(s)) == NULL)
        return ps_error__set(err, PS_ENOMEM, PS_NO_OFFSET, "out of memory");
    if ((fmt = ps_tp__find(tp, e->attr.config)) != NULL) {
        *out = fmt;
        return PS_OK;
    }
    if (probe)
        return ps_error__set(err, PS_EINVAL, PS_NO_OFFSET, "event '%s': config %llu is no "
                             "tracepoint format id", e->name ? e->name : "?",
                             (unsigned long long)e->attr.config);
    warn_missing(s, tp, e);
    return ps_error__set(err, PS_ECORRUPT, PS_NO_OFFSET, "tracepoint '%s' (id %llu): %s",
                         e->name ? e->name : "?", (unsigned long long)e->attr.config,
                         tp->nr_formats ? "no format with this id in the tracing data"
                                        : tp->problem);
}

/* The sample's format, after checking it is a tracepoint sample with RAW. */
static int sample_format(const ps_tp_format **fmt, ps_session *s, const ps_event *ev,
                         ps_error *err)
{
    int rc;

    *fmt = NULL;
    if (ev == NULL || ev->type != PERF_RECORD_SAMPLE || ev->evsel == NULL)
        return ps_error__set(err, PS_EINVAL, PS_NO_OFFSET, "not a sample of a known event");
    if (!(ev->u.sample.sample_type & PERF_SAMPLE_RAW) || ev->u.sample.raw_data == NULL)
        return ps_error__set(err, PS_EINVAL, ev->offset, "sample of '%s' has no RAW data",
                             ev->evsel->name ? ev->evsel->name : "?");
    if ((rc = ps_tracepoint_format(fmt, s, ev->evsel, err)) < 0 && err)
        err->offset = ev->offset;
    return rc;
}

int ps_tracepoint_value(ps_tp_value *out, ps_session *s, const ps_event *sample,
                        size_t idx, ps_error *err)
{
    const ps_tp_format *fmt;
    int rc;

    memset(out, 0, sizeof(*out));
    if ((rc = sample_format(&fmt, s, sample, err)) < 0)
        return rc;
    rc = ps_tp__value(out, fmt, idx, sample->u.sample.raw_data, sample->u.sample.raw_size,
                      err);
    if (rc < 0 && err)
        err->offset = sample->offset;
    return rc;
}

int ps_tracepoint_print(char *buf, size_t size, ps_session *s, const ps_event *sample,
                        ps_error *err)
{
    const ps_tp_format *fmt;
    const ps_sample *sm;
    int rc;

    if (size > 0)
        buf[0] = 0;
    if ((rc = sample_format(&fmt, s, sample, err)) < 0)
        return rc;
    sm = &sample->u.sample;
    rc = ps_tp__print(buf, size, s->tp, sm->raw_data, sm->raw_size,
                      (sm->sample_type & PERF_SAMPLE_CPU) ? (int)sm->cpu : -1, err);
    if (rc < 0 && err)
        err->offset = sample->offset;
    return rc;
}
