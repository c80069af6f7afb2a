/* SPDX-License-Identifier: MIT */
/*
 * fold.c - the folding options and the table of folded stacks: a hash of
 * stack -> count in an arena, sorted bytewise at the end (Perl's `sort`
 * without a locale compares bytes). fold_run() picks the front end.
 */
#include <stdlib.h>
#include <string.h>
#include "fold_int.h"
#include "../libparse/util.h"

const char fold_usage[] =
"Folding (the options of stackcollapse-perf.pl, same names and meanings):\n"
"      --pid             root frame comm-PID\n"
"      --tid             root frame comm-PID/TID\n"
"      --kernel          annotate kernel frames with _[k]\n"
"      --jit             annotate JIT frames (/tmp/perf-PID.map) with _[j]\n"
"      --all             --kernel and --jit\n"
"      --addrs           unknown frames as [dso <address>]\n"
"      --inline          inlined functions as frames, from DWARF, root first\n"
"                        (addr2line -i, computed in process)\n"
"      --context         with --inline: function:file:line\n"
"      --srcline         frame:file:line where perf knows the line\n"
"      --event-filter EV only samples of event EV (default: the first event\n"
"                        seen, as stackcollapse-perf.pl)\n"
"      --weight W        samples (count samples) or period (sum periods);\n"
"                        default: periods where perf script prints them\n"
"      --compat MODE     perl: reproduce stackcollapse-perf.pl exactly, its\n"
"                        bugs included (one-character comms, -1/-1 threads,\n"
"                        '('-frames dropped, no last sample without a blank\n"
"                        line); perf-py: perf script report stackcollapse\n"
"      --tidy-java, --include-pid, --include-tid, --no-comm\n"
"                        stackcollapse.py's options (with --compat=perf-py)\n"
"      --script-input F  fold `perf script` text from F ('-': stdin)\n"
"                        instead of a capture\n"
"      --symfs DIR       look for binaries under DIR\n"
"      --kallsyms FILE   kernel symbols from FILE\n"
"      --max-stack N     at most N call chain entries (default 127)\n";

void fold_opts_init(fold_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->max_stack = 127;         /* perf's PERF_MAX_STACK_DEPTH */
}

static int parse_enum(const char *cmd, const char *opt, const char *arg,
                      const char *const *names, int *out)
{
    int i;

    for (i = 0; names[i] != NULL; i++)
        if (strcmp(arg, names[i]) == 0) {
            *out = i;
            return 1;
        }
    cmd_usage_error(cmd, "bad --%s '%s'", opt, arg);
    return -1;
}

int fold_option(const char *cmd, fold_opts *o, int c, const char *arg)
{
    static const char *const weights[] = { "default", "samples", "period", NULL };
    static const char *const compats[] = { "none", "perl", "perf-py", NULL };

    switch (c) {
    case OPT_FOLD_PID: o->pid = 1; return 1;
    case OPT_FOLD_TID: o->tid = 1; return 1;
    case OPT_FOLD_KERNEL: o->kernel = 1; return 1;
    case OPT_FOLD_JIT: o->jit = 1; return 1;
    case OPT_FOLD_ALL: o->kernel = o->jit = 1; return 1;
    case OPT_FOLD_ADDRS: o->addrs = 1; return 1;
    case OPT_FOLD_INLINE: o->inline_ = 1; return 1;
    case OPT_FOLD_SRCLINE: o->srcline = 1; return 1;
    case OPT_FOLD_CONTEXT: o->context = 1; return 1;
    case OPT_FOLD_EVENT_FILTER: o->event_filter = arg; return 1;
    case OPT_FOLD_WEIGHT: return parse_enum(cmd, "weight", arg, weights, &o->weight);
    case OPT_FOLD_COMPAT: return parse_enum(cmd, "compat", arg, compats, &o->compat);
    case OPT_FOLD_TIDY_JAVA: o->tidy_java = 1; return 1;
    case OPT_FOLD_INCLUDE_PID: o->pid = 1; return 1;
    case OPT_FOLD_INCLUDE_TID: o->tid = 1; return 1;
    case OPT_FOLD_NO_COMM: o->no_comm = 1; return 1;
    case OPT_FOLD_SCRIPT_INPUT: o->script_input = arg; return 1;
    case OPT_FOLD_SYMFS: o->symfs = arg; return 1;
    case OPT_FOLD_KALLSYMS: o->kallsyms = arg; return 1;
    case OPT_FOLD_MAX_STACK: {
        char *end;
        long v = strtol(arg, &end, 10);

        if (*arg == '\0' || *end || v < 0 || v > 1000000) {
            cmd_usage_error(cmd, "--max-stack takes a number, not '%s'", arg);
            return -1;
        }
        o->max_stack = (unsigned)v;
        return 1;
    }
    default:
        return 0;
    }
}

/* --- the table ------------------------------------------------------------- */

typedef struct fold_slot {
    const char *key;            /* in the arena; NULL: free */
    size_t      len;
    uint64_t    hash, count;
} fold_slot;

struct fold_table {
    fold_slot *slots;
    size_t     nslots, used;
    ps_arena   keys;
};

fold_table *fold_table_new(void)
{
    fold_table *t = calloc(1, sizeof(*t));

    if (t == NULL)
        return NULL;
    ps_arena__init(&t->keys);
    t->nslots = 1024;
    if ((t->slots = calloc(t->nslots, sizeof(*t->slots))) == NULL) {
        free(t);
        return NULL;
    }
    return t;
}

void fold_table_free(fold_table *t)
{
    if (t == NULL)
        return;
    ps_arena__free(&t->keys);
    free(t->slots);
    free(t);
}

/* FNV-1a, 64-bit: stacks share long prefixes, so every byte must count. */
static uint64_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    size_t i;

    for (i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static int table_grow(fold_table *t)
{
    size_t i, n = t->nslots * 2;
    fold_slot *s = calloc(n, sizeof(*s));

    if (s == NULL)
        return -1;
    for (i = 0; i < t->nslots; i++) {
        size_t j;

        if (t->slots[i].key == NULL)
            continue;
        for (j = t->slots[i].hash & (n - 1); s[j].key != NULL; j = (j + 1) & (n - 1))
            ;
        s[j] = t->slots[i];
    }
    free(t->slots);
    t->slots = s;
    t->nslots = n;
    return 0;
}

int fold_table_add(fold_table *t, const char *stack, size_t len, uint64_t n)
{
    uint64_t h = hash_bytes(stack, len);
    size_t j;

    if ((t->used + 1) * 4 > t->nslots * 3 && table_grow(t) < 0)
        return -1;
    for (j = h & (t->nslots - 1); t->slots[j].key != NULL; j = (j + 1) & (t->nslots - 1)) {
        fold_slot *s = &t->slots[j];

        if (s->hash == h && s->len == len && memcmp(s->key, stack, len) == 0) {
            s->count += n;
            return 0;
        }
    }
    if ((t->slots[j].key = ps_arena__memdup(&t->keys, stack, len + 1)) == NULL)
        return -1;
    ((char *)t->slots[j].key)[len] = '\0';
    t->slots[j].len = len;
    t->slots[j].hash = h;
    t->slots[j].count = n;
    t->used++;
    return 0;
}

static int entry_cmp(const void *a, const void *b)
{
    const fold_entry *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->stack, y->stack, n);

    if (c != 0)
        return c;
    return x->len < y->len ? -1 : x->len > y->len;
}

int fold_table_result(fold_table *t, fold_result *r)
{
    size_t i, k = 0;

    r->v = malloc((t->used ? t->used : 1) * sizeof(*r->v));
    if (r->v == NULL)
        return -1;
    for (i = 0; i < t->nslots; i++) {
        if (t->slots[i].key == NULL)
            continue;
        r->v[k].stack = t->slots[i].key;
        r->v[k].len = t->slots[i].len;
        r->v[k].count = t->slots[i].count;
        k++;
    }
    r->n = k;
    qsort(r->v, r->n, sizeof(*r->v), entry_cmp);
    return 0;
}

/* --- running ---------------------------------------------------------------- */

int fold_run(const char *cmd, const input_opts *in, const fold_opts *o, fold_result *out)
{
    fold_table *t = fold_table_new();
    folder f;
    int rc;

    memset(out, 0, sizeof(*out));
    if (t == NULL || folder_init(&f, o, t) < 0) {
        fold_table_free(t);
        fprintf(stderr, "perfsift %s: out of memory\n", cmd);
        return EXIT_BADINPUT;
    }
    if (o->script_input != NULL) {
        rc = fold_text(cmd, o->script_input, &f);
        snprintf(out->countname, sizeof(out->countname), "%s",
                 o->compat == FOLD_COMPAT_PERF_PY || o->weight == FOLD_WEIGHT_SAMPLES
                 ? "samples" : "counts");
    } else {
        rc = fold_capture(cmd, in, &f, out->countname, sizeof(out->countname));
    }
    if (rc == EXIT_OK && f.oom) {
        fprintf(stderr, "perfsift %s: out of memory\n", cmd);
        rc = EXIT_BADINPUT;
    }
    folder_free(&f);
    if (rc == EXIT_OK && fold_table_result(t, out) < 0) {
        fprintf(stderr, "perfsift %s: out of memory\n", cmd);
        rc = EXIT_BADINPUT;
    }
    out->priv = t;
    if (rc != EXIT_OK)
        fold_result_free(out);
    return rc;
}

void fold_result_free(fold_result *r)
{
    free(r->v);
    fold_table_free(r->priv);
    memset(r, 0, sizeof(*r));
}
