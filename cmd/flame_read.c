/* SPDX-License-Identifier: MIT */
/*
 * flame_read.c - folded text into flame_line arrays, parsed the way
 * flamegraph.pl parses it (shared/spec/peers.md 4.6): a line is
 * `^(.*)\s+?(\d+(?:\.\d*)?)$`, and the same pattern applied to the stack it
 * leaves peels a second count (a differential line). Lines that do not match
 * are counted, not kept. Text lives in chunks owned by the flame_input, each
 * line NUL-terminated so strtod() can read a count where it stands.
 * Never draws; never prints.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "flame_read.h"
#include "../libparse/util.h"

struct flame_chunk {
    struct flame_chunk *next;
    size_t used, cap;
    char   data[];
};

#define CHUNK_MIN ((size_t)1 << 20)

/* Where the regex puts the parts of one line. */
typedef struct parsed {
    size_t      stack_len;
    const char *tok1, *tok2;    /* count texts: the only/before one, the after one */
    size_t      tok1_len, tok2_len;
    int         nr_counts;
} parsed;

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/*
 * `^(.*)\s+?(\d+(?:\.\d*)?)$` on s[0..len): the count cannot hold
 * whitespace and the stack is greedy, so the count is whatever follows the
 * last whitespace character, and the stack all before that character.
 */
static int peel_count(const char *s, size_t len, size_t *stack_len, const char **tok,
                      size_t *tok_len)
{
    size_t i = len, j;

    while (i > 0 && !is_space(s[i - 1]))
        i--;
    if (i == 0)
        return 0;
    for (j = i; j < len && is_digit(s[j]); j++)
        ;
    if (j == i)
        return 0;
    if (j < len && s[j] == '.')
        for (j++; j < len && is_digit(s[j]); j++)
            ;
    if (j != len)
        return 0;
    *stack_len = i - 1;
    *tok = s + i;
    *tok_len = len - i;
    return 1;
}

static int parse_line(const char *s, size_t len, parsed *p)
{
    size_t inner;
    const char *tok;
    size_t tok_len;

    if (!peel_count(s, len, &p->stack_len, &p->tok1, &p->tok1_len))
        return 0;
    p->nr_counts = 1;
    if (peel_count(s, p->stack_len, &inner, &tok, &tok_len)) {
        /* "stack before after": what was peeled first is the after count */
        p->tok2 = p->tok1;
        p->tok2_len = p->tok1_len;
        p->tok1 = tok;
        p->tok1_len = tok_len;
        p->stack_len = inner;
        p->nr_counts = 2;
    }
    return 1;
}

static int push(flame_input *in, const flame_line *l)
{
    if (ps_grow((void **)&in->v, &in->cap, in->n + 1, sizeof(*in->v)) < 0)
        return -1;
    in->v[in->n++] = *l;
    return 0;
}

/* s[len] is a NUL in text the input owns. */
static int add_parsed(flame_input *in, const char *s, size_t len)
{
    flame_line l;
    parsed p;

    if (!parse_line(s, len, &p)) {
        in->nr_ignored++;
        return 0;
    }
    l.stack = s;
    l.len = p.stack_len;
    l.key = s;
    l.key_len = len;
    l.nr_counts = p.nr_counts;
    /* each count token ends at whitespace or the NUL, so strtod stops there */
    l.count1 = strtod(p.tok1, NULL);
    l.count2 = p.nr_counts == 2 ? strtod(p.tok2, NULL) : 0;
    return push(in, &l);
}

/* Room for size bytes of text that stays where it is until the input is freed. */
static char *chunk_alloc(flame_input *in, size_t size)
{
    struct flame_chunk *c = in->chunks;
    char *p;

    if (c == NULL || c->cap - c->used < size) {
        size_t cap = size > CHUNK_MIN ? size : CHUNK_MIN;

        if ((c = malloc(sizeof(*c) + cap)) == NULL)
            return NULL;
        c->used = 0;
        c->cap = cap;
        c->next = in->chunks;
        in->chunks = c;
    }
    p = c->data + c->used;
    c->used += size;
    return p;
}

int flame_input_add_line(flame_input *in, const char *line, size_t len)
{
    char *s = chunk_alloc(in, len + 1);

    if (s == NULL)
        return -1;
    memcpy(s, line, len);
    s[len] = '\0';
    return add_parsed(in, s, len);
}

/* The whole stream in one chunk: lines then point into it, no copies. */
static struct flame_chunk *read_all(FILE *f)
{
    struct flame_chunk *c = malloc(sizeof(*c) + CHUNK_MIN);
    size_t got;

    if (c == NULL)
        return NULL;
    c->next = NULL;
    c->used = 0;
    c->cap = CHUNK_MIN;
    for (;;) {
        if (c->cap - c->used < 2) {
            struct flame_chunk *b = realloc(c, sizeof(*c) + c->cap * 2);

            if (b == NULL)
                break;
            c = b;
            c->cap *= 2;
        }
        got = fread(c->data + c->used, 1, c->cap - c->used - 1, f);
        c->used += got;
        if (got == 0)
            break;
    }
    if (ferror(f) || c->cap - c->used < 2) {
        int e = ferror(f) ? errno : ENOMEM;

        free(c);
        errno = e;
        return NULL;
    }
    c->data[c->used] = '\0';
    return c;
}

int flame_input_read(flame_input *in, FILE *f)
{
    struct flame_chunk *c = read_all(f);
    char *p, *end, *nl;

    if (c == NULL)
        return -1;
    c->next = in->chunks;
    in->chunks = c;
    p = c->data;
    end = c->data + c->used;
    while (p < end) {
        /* chomp: one "\n" ends a line; a last line may have none */
        if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
            nl = end;
        *nl = '\0';
        if (add_parsed(in, p, (size_t)(nl - p)) < 0) {
            errno = ENOMEM;
            return -1;
        }
        p = nl + 1;
    }
    return 0;
}

int flame_split_next(const char **p, const char *end, const char **f, size_t *flen)
{
    const char *s = *p, *q;

    /* only separators left: Perl's split drops trailing empty fields */
    for (q = s; q < end && *q == ';'; q++)
        ;
    if (q == end)
        return 0;
    if ((q = memchr(s, ';', (size_t)(end - s))) == NULL)
        q = end;
    *f = s;
    *flen = (size_t)(q - s);
    *p = q < end ? q + 1 : end;
    return 1;
}

/* Frames of stack[0..len) in reverse order, joined by ';', into out. */
static size_t reverse_frames(char *out, const char *stack, size_t len)
{
    const char *p = stack, *f;
    size_t flen, o = len, used = 0;

    /* fields are written from the end of out[0..len) backwards */
    while (flame_split_next(&p, stack + len, &f, &flen)) {
        if (used > 0)
            out[--o] = ';';
        o -= flen;
        memcpy(out + o, f, flen);
        used++;
    }
    memmove(out, out + o, len - o);
    return len - o;
}

int flame_input_reverse(flame_input *in)
{
    size_t i, n = in->n;

    in->n = 0;
    for (i = 0; i < n; i++) {
        flame_line l = in->v[i];
        parsed p;
        size_t size, k;
        char *s;

        if (!parse_line(l.key, l.key_len, &p))
            continue;               /* cannot be: it was parsed when added */
        size = l.len + 2 + p.tok1_len + (p.nr_counts == 2 ? p.tok2_len + 1 : 0);
        if ((s = chunk_alloc(in, size)) == NULL)
            return -1;
        k = reverse_frames(s, l.stack, l.len);
        s[k++] = ' ';
        memcpy(s + k, p.tok1, p.tok1_len);
        k += p.tok1_len;
        if (p.nr_counts == 2) {
            s[k++] = ' ';
            memcpy(s + k, p.tok2, p.tok2_len);
            k += p.tok2_len;
        }
        s[k] = '\0';
        /* parsed again, as flamegraph.pl does: a reversed frame may now end
         * the line looking like a count; in->v has room, as n lines fit */
        if (add_parsed(in, s, k) < 0)
            return -1;
    }
    return 0;
}

void flame_input_free(flame_input *in)
{
    struct flame_chunk *c, *next;

    for (c = in->chunks; c; c = next) {
        next = c->next;
        free(c);
    }
    free(in->v);
    memset(in, 0, sizeof(*in));
}

uint32_t flame_utf8_next(const char **p, const char *end)
{
    const unsigned char *s = (const unsigned char *)*p;
    size_t avail = (size_t)(end - *p), n, i;
    uint32_t c = s[0], min;

    if (c < 0x80)
        n = 1, min = 0;
    else if ((c & 0xe0) == 0xc0)
        n = 2, c &= 0x1f, min = 0x80;
    else if ((c & 0xf0) == 0xe0)
        n = 3, c &= 0x0f, min = 0x800;
    else if ((c & 0xf8) == 0xf0)
        n = 4, c &= 0x07, min = 0x10000;
    else
        n = 0, min = 0;
    if (n == 0 || n > avail)
        goto byte;
    for (i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            goto byte;
        c = (c << 6) | (s[i] & 0x3f);
    }
    if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        goto byte;
    *p += n;
    return c;
byte:
    *p += 1;
    return s[0];
}

size_t flame_utf8_len(const char *s, size_t len)
{
    const char *end = s + len;
    size_t n = 0;

    while (s < end) {
        flame_utf8_next(&s, end);
        n++;
    }
    return n;
}
