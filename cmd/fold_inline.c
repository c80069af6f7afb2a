/* SPDX-License-Identifier: MIT */
/*
 * fold_inline.c - stackcollapse-perf.pl --inline: a frame's address given
 * to `addr2line -a PC -e MOD -i -f -s -C`, its answer (innermost first)
 * turned root first and joined by ';', used as it is. perfsift asks its
 * own addr2line emulation (libparse/srcline.h) instead of a process per
 * address. Files perf names in brackets, kernel ones and perf-PID.map JIT
 * symbol files are not asked. When addr2line knows nothing and perf printed
 * "sym+0xOFF", the Perl script asks again at nm's address of sym plus OFF
 * (nm_retry()); if that fails too the frame stays as perf printed it.
 */
#include <stdlib.h>
#include <string.h>
#include "fold_int.h"
#include "../libparse/demangle.h"
#include "../libparse/srcline.h"

typedef struct inline_state {
    ps_srcline *sl;
    char       *buf;
    size_t      cap;
} inline_state;

void fold_inline_free(void *p)
{
    inline_state *st = p;

    if (st == NULL)
        return;
    ps_srcline__free(st->sl);
    free(st->buf);
    free(st);
}

/* m/(perf-\d+.map|kernel\.|\[[^\]]+\])/ */
static int skipped_mod(const char *m)
{
    const char *p;

    if (strstr(m, "kernel.") != NULL)
        return 1;
    for (p = strchr(m, '['); p != NULL; p = strchr(p + 1, '['))
        if (p[1] != ']' && p[1] != '\0' && strchr(p + 1, ']') != NULL)
            return 1;
    for (p = strstr(m, "perf-"); p != NULL; p = strstr(p + 1, "perf-")) {
        const char *d = p + 5;

        while (*d >= '0' && *d <= '9')
            d++;
        if (d > p + 5 && d[0] != '\0' && strncmp(d + 1, "map", 3) == 0)
            return 1;
    }
    return 0;
}

static int append(inline_state *st, size_t *len, const char *s, size_t n)
{
    if (*len + n + 1 > st->cap) {
        size_t c = st->cap ? st->cap * 2 : 256;
        char *p;

        while (c < *len + n + 1)
            c *= 2;
        if ((p = realloc(st->buf, c)) == NULL)
            return -1;
        st->buf = p;
        st->cap = c;
    }
    memcpy(st->buf + *len, s, n);
    *len += n;
    st->buf[*len] = '\0';
    return 0;
}

/* one addr2line item: "func" (demangled as addr2line -C does: with the
 * parameters), with --context ":file:line" */
static int item(inline_state *st, size_t *len, const ps_srcloc *l, int context)
{
    char *d = l->func ? ps_sym__demangle_a2l(l->func) : NULL;
    const char *fn = d ? d : l->func ? l->func : "??";
    char tail[64];
    int rc = append(st, len, fn, strlen(fn));

    free(d);
    if (rc < 0 || !context)
        return rc;
    if (l->file != NULL) {
        const char *b = strrchr(l->file, '/');

        b = b ? b + 1 : l->file;
        rc = append(st, len, ":", 1) < 0 || append(st, len, b, strlen(b)) < 0 ? -1 : 0;
    } else {
        rc = append(st, len, ":??", 3);
    }
    if (l->line)
        snprintf(tail, sizeof(tail), ":%u", l->line);
    else
        snprintf(tail, sizeof(tail), ":?");
    return rc < 0 ? -1 : append(st, len, tail, strlen(tail));
}

/*
 * The Perl script's second try when addr2line answers "??:0": func must
 * read m/^(.+)\+0x([0-9a-f]+)$/ and `nm MOD` list $1; then addr2line at
 * that symbol's address plus $2. This is what finds the lines of non-PIE
 * executables, whose perf script addresses are file offsets, not the
 * virtual addresses addr2line wants.
 */
static int nm_retry(inline_state *st, const char *path, fold_str func, ps_srcinfo *si)
{
    size_t i = func.n, hex;
    uint64_t base;
    char off[20];
    int rc;

    while (i > 0 && ((func.p[i - 1] >= '0' && func.p[i - 1] <= '9') ||
                     (func.p[i - 1] >= 'a' && func.p[i - 1] <= 'f')))
        i--;
    hex = func.n - i;
    if (hex == 0 || hex >= sizeof(off) || i < 4 || memcmp(func.p + i - 3, "+0x", 3) != 0)
        return 0;
    if ((rc = ps_srcline__nm(st->sl, path, func.p, i - 3, &base)) <= 0)
        return rc;
    memcpy(off, func.p + i, hex);
    off[hex] = '\0';
    return ps_srcline__find(st->sl, path, base + strtoull(off, NULL, 16), si);
}

size_t fold_inline_chain(folder *f, const fold_frame *fr, char **out)
{
    inline_state *st = f->inl;
    char path[4096], pc[32];
    ps_srcinfo si;
    size_t len = 0, i;
    int n;

    n = snprintf(path, sizeof(path), "%s%.*s", f->o->symfs ? f->o->symfs : "",
                 (int)fr->mod.n, fr->mod.p);
    if (n < 0 || (size_t)n >= sizeof(path) || skipped_mod(path + (f->o->symfs ?
                                                                  strlen(f->o->symfs) : 0)))
        return 0;
    if (st == NULL) {
        if ((st = calloc(1, sizeof(*st))) == NULL || ps_srcline__new(&st->sl) < 0) {
            free(st);
            f->oom = 1;
            return 0;
        }
        ps_srcline__set_fresh(st->sl);  /* the script runs addr2line per address */
        f->inl = st;
    }
    snprintf(pc, sizeof(pc), "%.*s", (int)(fr->pc.n < 20 ? fr->pc.n : 20), fr->pc.p);
    if (ps_srcline__find(st->sl, path, strtoull(pc, NULL, 16), &si) < 0) {
        f->oom = 1;
        return 0;
    }
    if (si.nr == 0 && nm_retry(st, path, fr->func, &si) < 0) {
        f->oom = 1;
        return 0;
    }
    if (si.nr == 0)
        return 0;               /* "??": the frame as perf printed it */
    for (i = si.nr; i-- > 0;) {
        if (len && append(st, &len, ";", 1) < 0)
            goto oom;
        if (item(st, &len, &si.loc[i], f->o->context) < 0)
            goto oom;
    }
    *out = st->buf;
    return len;
oom:
    f->oom = 1;
    return 0;
}
