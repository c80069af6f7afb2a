/* SPDX-License-Identifier: MIT */
/*
 * fold_rules.c - one sample to one folded stack, by stackcollapse-perf.pl's
 * rules (shared/spec/peers.md section 4.1): the comm (with --pid/--tid) as
 * the root, then each frame's function, tidied (offset, arguments, quotes
 * and ';' removed), [dso] for unknown symbols, _[k]/_[j]/_[i] annotations.
 * Frames arrive leaf first; the stack is written root first.
 *
 * --compat=perl differs only where the Perl script is wrong whatever its
 * input: it drops frames whose name starts with '(', C++'s "(anonymous
 * namespace)::f" too, and with --srcline it takes the next input line as the
 * source line even when perf printed none for that frame.
 *
 * --compat=perf-py has its own, smaller rules (stackcollapse.py).
 */
#include <stdlib.h>
#include <string.h>
#include "fold_int.h"
#include "../libparse/util.h"

int folder_init(folder *f, const fold_opts *o, fold_table *t)
{
    memset(f, 0, sizeof(*f));
    f->o = o;
    f->t = t;
    if (o->event_filter != NULL && (f->filter = strdup(o->event_filter)) == NULL)
        return -1;
    return 0;
}

void folder_free(folder *f)
{
    free(f->pname);
    free(f->groups);
    free(f->gend);
    free(f->key);
    free(f->filter);
    fold_inline_free(f->inl);
    memset(f, 0, sizeof(*f));
}

static int str_eq(fold_str s, const char *lit)
{
    size_t n = strlen(lit);

    return s.n == n && memcmp(s.p, lit, n) == 0;
}

/* "cycles:u" -> "cycles": perf's modifier letters after the last ':' */
static fold_str event_base(fold_str ev)
{
    size_t i = ev.n, j;

    while (i > 0 && ev.p[i - 1] != ':')
        i--;
    if (i == 0 || i == ev.n)
        return ev;
    for (j = i; j < ev.n; j++)
        if (strchr("ukhIGHpPSDWe", ev.p[j]) == NULL)
            return ev;
    return (fold_str){ ev.p, i - 1 };
}

/* perl compares the event as printed; the default ignores modifiers */
static int same_event(const folder *f, fold_str ev)
{
    fold_str a, b = { f->filter, strlen(f->filter) };

    if (f->o->compat == FOLD_COMPAT_PERL)
        return str_eq(ev, f->filter);
    a = event_base(ev);
    b = event_base(b);
    return a.n == b.n && memcmp(a.p, b.p, a.n) == 0;
}

int folder_event_ok(folder *f, fold_str ev)
{
    if (f->filter == NULL) {
        if ((f->filter = malloc(ev.n + 1)) == NULL) {
            f->oom = 1;
            return 0;
        }
        memcpy(f->filter, ev.p, ev.n);
        f->filter[ev.n] = '\0';
        f->filter_defaulted = 1;
        return 1;
    }
    if (same_event(f, ev))
        return 1;
    if (f->filter_defaulted && !f->warned && !f->o->quiet) {
        if (f->o->compat == FOLD_COMPAT_PERL)   /* perl names the event dropped */
            fprintf(stderr, "Filtering for events of type: %.*s\n", (int)ev.n, ev.p);
        else
            fprintf(stderr, "perfsift: folding the first event seen, %s, only (not %.*s); "
                    "--event-filter picks another\n", f->filter, (int)ev.n, ev.p);
        f->warned = 1;
    }
    return 0;
}

/* --- the sample's text ---------------------------------------------------- */

/* append n bytes to a growing buffer */
static void put(folder *f, char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t c = *cap ? *cap : 256;
        char *p;

        while (c < *len + n + 1)
            c *= 2;
        if ((p = realloc(*buf, c)) == NULL) {
            f->oom = 1;
            return;
        }
        *buf = p;
        *cap = c;
    }
    memcpy(*buf + *len, s, n);
    *len += n;
    (*buf)[*len] = '\0';
}

static void gput(folder *f, const char *s, size_t n)
{
    put(f, &f->groups, &f->glen, &f->gcap, s, n);
}

/* close the current group (one frame's pieces) */
static void group_end(folder *f)
{
    if (f->ngroups == f->gend_cap &&
        ps_grow((void **)&f->gend, &f->gend_cap, f->ngroups + 1, sizeof(*f->gend)) < 0) {
        f->oom = 1;
        return;
    }
    f->gend[f->ngroups++] = f->glen;
}

void folder_begin(folder *f, fold_str comm, fold_str pid, fold_str tid)
{
    size_t len = 0, i;

    put(f, &f->pname, &len, &f->pname_cap, comm.p, comm.n);
    if (f->o->tid || f->o->pid) {
        put(f, &f->pname, &len, &f->pname_cap, "-", 1);
        put(f, &f->pname, &len, &f->pname_cap, pid.p, pid.n);
        if (f->o->tid) {
            put(f, &f->pname, &len, &f->pname_cap, "/", 1);
            put(f, &f->pname, &len, &f->pname_cap, tid.p, tid.n);
        }
    }
    if (f->pname == NULL)
        return;
    f->open = 1;
    for (i = 0; i < len; i++)
        if (f->pname[i] == ' ')
            f->pname[i] = '_';
    f->java = strncmp(f->pname, "java", 4) == 0;
}

void folder_drop(folder *f)
{
    f->open = 0;
    f->glen = 0;
    f->ngroups = 0;
}

size_t folder_take_group(folder *f, const char **text)
{
    size_t start;

    if (f->ngroups == 0)
        return 0;
    f->ngroups--;
    start = f->ngroups ? f->gend[f->ngroups - 1] : 0;
    *text = f->groups + start;
    f->glen = start;
    return f->gend[f->ngroups] - start;
}

void folder_end(folder *f, uint64_t count)
{
    size_t len = 0, g;

    if (!f->open) {
        folder_drop(f);
        return;
    }
    put(f, &f->key, &len, &f->key_cap, f->pname, strlen(f->pname));
    /* groups are leaf first; each goes in front of the ones before it */
    for (g = f->ngroups; g-- > 0;) {
        size_t start = g ? f->gend[g - 1] : 0;

        put(f, &f->key, &len, &f->key_cap, ";", 1);
        put(f, &f->key, &len, &f->key_cap, f->groups + start, f->gend[g] - start);
    }
    if (!f->oom && fold_table_add(f->t, f->key, len, count) < 0)
        f->oom = 1;
    f->nr_samples++;
    folder_drop(f);
}

/* --- one frame --------------------------------------------------------------- */

/* s/\+0x[\da-f]+$// */
static fold_str strip_offset(fold_str s)
{
    size_t i = s.n;

    while (i > 0 && ((s.p[i - 1] >= '0' && s.p[i - 1] <= '9') ||
                     (s.p[i - 1] >= 'a' && s.p[i - 1] <= 'f')))
        i--;
    if (i < s.n && i >= 3 && memcmp(s.p + i - 3, "+0x", 3) == 0)
        s.n = i - 3;
    return s;
}

static int has(fold_str s, const char *lit)
{
    size_t n = strlen(lit), i;

    for (i = 0; i + n <= s.n; i++)
        if (memcmp(s.p + i, lit, n) == 0)
            return 1;
    return 0;
}

/* m/\.\(.*\)\./ : Go's "pkg.(*T).M" keeps its parentheses */
static int go_method(const char *s, size_t n)
{
    const char *open = NULL;
    size_t i;

    for (i = 0; i + 1 < n; i++)
        if (s[i] == '.' && s[i + 1] == '(') {
            open = s + i;
            break;
        }
    if (open == NULL)
        return 0;
    for (i = n; i-- > (size_t)(open - s) + 2;)
        if (s[i] == '.' && s[i - 1] == ')')
            return 1;
    return 0;
}

static int anon_ns(const char *s, size_t n, size_t i)
{
    return n - i - 1 >= 20 && memcmp(s + i + 1, "anonymous namespace)", 20) == 0;
}

/*
 * Where the argument list starts. perl: the first '(' (not "(anonymous
 * namespace)"), which cuts C++ names with function types in template
 * arguments ("std::function<int (int)>::operator()") to "std::function<int ".
 * The default: the first '(' outside <...>, the '<' and '>' of
 * "operator<<" and the like not counted.
 */
static size_t args_start(const char *s, size_t n, int perl)
{
    size_t i;
    int depth = 0;

    for (i = 0; i < n; i++) {
        if (!perl && i + 8 <= n && memcmp(s + i, "operator", 8) == 0) {
            for (i += 8; i < n && (s[i] == '<' || s[i] == '>' || s[i] == '=' ||
                                   s[i] == '-'); i++)
                ;
            if (i >= n)
                break;
        }
        if (s[i] == '(' && (perl || depth == 0) && !anon_ns(s, n, i))
            return i;
        if (!perl && s[i] == '<')
            depth++;
        else if (!perl && s[i] == '>' && depth > 0)
            depth--;
    }
    return n;
}

/* perl's generic tidy of one function name, in place; returns the length */
static size_t tidy(char *s, size_t n, int perl)
{
    size_t i, k;

    for (i = 0; i < n; i++)
        if (s[i] == ';')
            s[i] = ':';
    if (!go_method(s, n))
        n = args_start(s, n, perl);
    for (i = k = 0; i < n; i++)
        if (s[i] != '"' && s[i] != '\'')
            s[k++] = s[i];
    return k;
}

/*
 * Rust's legacy mangling left half done by old perfs
 * ("GcBox$LT$T$GT$::new::h0123456789abcdef"): escapes decoded and the hash
 * dropped, as perf 6.1 itself prints such names. Default mode only.
 */
static size_t rust_legacy(char *s, size_t n)
{
    static const struct { const char *esc, *to; } map[] = {
        { "$SP$", "@" }, { "$BP$", "*" }, { "$RF$", "&" }, { "$LT$", "<" }, { "$GT$", ">" },
        { "$LP$", "(" }, { "$RP$", ")" }, { "$C$", "," }, { "$u7e$", "~" }, { "$u20$", " " },
        { "$u27$", "'" }, { "$u5b$", "[" }, { "$u5d$", "]" }, { "$u7b$", "{" },
        { "$u7d$", "}" }, { "$u3b$", ";" }, { "$u2b$", "+" }, { "$u22$", "\"" },
    };
    size_t i, k, j;

    if (n < 19 || memcmp(s + n - 19, "::h", 3) != 0)
        return n;
    for (i = n - 16; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return n;
    n -= 19;
    for (i = k = 0; i < n;) {
        /* "_$" opens an element that starts with an escape */
        if (s[i] == '_' && i + 1 < n && s[i + 1] == '$' &&
            (i == 0 || (i >= 2 && s[i - 1] == '.' && s[i - 2] == '.'))) {
            i++;
            continue;
        }
        for (j = 0; j < sizeof(map) / sizeof(map[0]); j++) {
            size_t l = strlen(map[j].esc);

            if (i + l <= n && memcmp(s + i, map[j].esc, l) == 0) {
                s[k++] = map[j].to[0];
                i += l;
                break;
            }
        }
        if (j < sizeof(map) / sizeof(map[0]))
            continue;
        if (s[i] == '.' && i + 1 < n && s[i + 1] == '.') {
            s[k++] = ':';
            s[k++] = ':';
            i += 2;
            continue;
        }
        s[k++] = s[i++];
    }
    return k;
}

/* a mod's last path component */
static fold_str base_name(fold_str m)
{
    size_t i;

    for (i = m.n; i > 0 && m.p[i - 1] != '/'; i--)
        ;
    return (fold_str){ m.p + i, m.n - i };
}

/* perf inject --jit's ELF files: jitted-PID-N.so */
static int jitted_so(fold_str mod)
{
    fold_str b = base_name(mod);
    size_t i = 7, d;

    if (b.n < 13 || memcmp(b.p, "jitted-", 7) != 0 || memcmp(b.p + b.n - 3, ".so", 3) != 0)
        return 0;
    for (d = 0; d < 2; d++) {
        size_t st = i;

        while (i < b.n && b.p[i] >= '0' && b.p[i] <= '9')
            i++;
        if (i == st || i >= b.n || b.p[i] != (d == 0 ? '-' : '.'))
            return 0;
        i++;
    }
    return i == b.n - 2;
}

/* m{/tmp/perf-\d+\.map} */
static int perf_map(fold_str mod)
{
    size_t i, j;

    for (i = 0; i + 10 <= mod.n; i++) {
        if (memcmp(mod.p + i, "/tmp/perf-", 10) != 0)
            continue;
        for (j = i + 10; j < mod.n && mod.p[j] >= '0' && mod.p[j] <= '9'; j++)
            ;
        if (j > i + 10 && j + 4 <= mod.n && memcmp(mod.p + j, ".map", 4) == 0)
            return 1;
    }
    return 0;
}

/* perl: "[...]" or ".../vmlinux"; the default also "vmlinux-VERSION" and
 * module files (".ko") */
static int kernel_mod(fold_str mod, int perl)
{
    fold_str b = base_name(mod);

    return ((mod.n > 0 && mod.p[0] == '[') ||
            (mod.n >= 7 && memcmp(mod.p + mod.n - 7, "vmlinux", 7) == 0) ||
            (!perl && b.n > 8 && memcmp(b.p, "vmlinux-", 8) == 0) ||
            (!perl && b.n > 3 && memcmp(b.p + b.n - 3, ".ko", 3) == 0)) &&
           !has(mod, "unknown");
}

/* "[unknown]" becomes [dso basename], [unknown], or with --addrs [x <pc>] */
static size_t unknown_name(folder *f, const fold_frame *fr, char *buf, size_t size)
{
    fold_str m = fr->mod;
    size_t i;
    int n;

    if (str_eq(m, "[unknown]")) {
        m.p = "unknown";
        m.n = 7;
    } else {
        for (i = m.n; i > 0; i--)
            if (m.p[i - 1] == '/')
                break;
        m.p += i;
        m.n -= i;
    }
    if (f->o->addrs)
        n = snprintf(buf, size, "[%.*s <%.*s>]", (int)m.n, m.p, (int)fr->pc.n, fr->pc.p);
    else
        n = snprintf(buf, size, "[%.*s]", (int)m.n, m.p);
    return n < 0 ? 0 : (size_t)n >= size ? size - 1 : (size_t)n;
}

/* --srcline: "[...]" groups removed, trimmed */
static void srcline_suffix(folder *f, const char *s, size_t n)
{
    char buf[4096];
    size_t i, k = 0, a, b;
    int depth = 0;

    for (i = 0; i < n && k < sizeof(buf); i++) {
        if (s[i] == '[' && memchr(s + i, ']', n - i) != NULL) {
            depth = 1;
            continue;
        }
        if (depth) {
            if (s[i] == ']')
                depth = 0;
            continue;
        }
        buf[k++] = s[i];
    }
    for (a = 0; a < k && (buf[a] == ' ' || buf[a] == '\t' || buf[a] == '\r'); a++)
        ;
    for (b = k; b > a && (buf[b - 1] == ' ' || buf[b - 1] == '\t' || buf[b - 1] == '\r'); b--)
        ;
    if (b > a) {
        gput(f, ":", 1);
        gput(f, buf + a, b - a);
    }
}

static void piece(folder *f, const fold_frame *fr, fold_str func, int first,
                  int *unknown, fold_next_line next, void *ctx)
{
    char buf[8192];
    size_t n;
    int perl = f->o->compat == FOLD_COMPAT_PERL;

    if (str_eq(func, "[unknown]")) {
        *unknown |= str_eq(fr->mod, "[unknown]");
        n = unknown_name(f, fr, buf, sizeof(buf));
    } else {
        n = func.n < sizeof(buf) ? func.n : sizeof(buf) - 1;
        memcpy(buf, func.p, n);
    }
    if (!perl)
        n = rust_legacy(buf, n);
    n = tidy(buf, n, perl);
    if (f->java && memchr(buf, '/', n) != NULL && n > 0 && buf[0] == 'L')
        memmove(buf, buf + 1, --n);
    if (!first) {
        if (!has((fold_str){ buf, n }, "_[i]"))
            gput(f, buf, n), gput(f, "_[i]", 4), n = 0;
    } else if (f->o->kernel && kernel_mod(fr->mod, perl)) {
        gput(f, buf, n), gput(f, "_[k]", 4), n = 0;
    } else if (f->o->jit && (perf_map(fr->mod) || (!perl && jitted_so(fr->mod))) &&
               !has((fold_str){ buf, n }, "_[j]")) {
        gput(f, buf, n), gput(f, "_[j]", 4), n = 0;
    }
    gput(f, buf, n);
    if (!f->o->srcline || *unknown)
        return;
    if (f->o->compat == FOLD_COMPAT_PERL) {
        size_t len;
        const char *l = next ? next(ctx, &len) : NULL;

        if (l != NULL)
            srcline_suffix(f, l, len);
    } else if (fr->src.p != NULL) {
        srcline_suffix(f, fr->src.p, fr->src.n);
    }
}

void folder_frame(folder *f, const fold_frame *fr, fold_next_line next, void *ctx)
{
    fold_str func = strip_offset(fr->func);
    int first = 1, unknown = 0;

    if (!f->open)
        return;
    if (f->o->inline_) {
        char *chain;
        size_t n = fold_inline_chain(f, fr, &chain);

        if (n > 0) {
            gput(f, chain, n);
            group_end(f);
            return;
        }
    }
    /* perl drops every name starting with '(' (meant for process names);
     * the default keeps C++'s "(anonymous namespace)::f" only: the
     * argument rule would cut any other such name to nothing, an empty
     * frame neither peer draws ("(anon) start" in a perf-PID.map) */
    if (func.n > 0 && func.p[0] == '(' &&
        (f->o->compat == FOLD_COMPAT_PERL || !anon_ns(func.p, func.n, 0)))
        return;
    for (;;) {
        const char *arrow = NULL;
        size_t i;
        fold_str p = func;

        for (i = 0; i + 1 < func.n; i++)
            if (func.p[i] == '-' && func.p[i + 1] == '>') {
                arrow = func.p + i;
                break;
            }
        if (arrow != NULL)
            p.n = (size_t)(arrow - func.p);
        if (!first)
            gput(f, ";", 1);
        piece(f, fr, p, first, &unknown, next, ctx);
        first = 0;
        if (arrow == NULL)
            break;
        func.n -= p.n + 2;
        func.p = arrow + 2;
    }
    group_end(f);
}

/* --- perf script report stackcollapse ------------------------------------- */

void folder_py_frame(folder *f, const char *sym, const char *dso)
{
    size_t start = f->glen, i;

    gput(f, sym ? sym : "[unknown]", strlen(sym ? sym : "[unknown]"));
    if (f->oom)
        return;
    for (i = start; i < f->glen; i++)
        if (f->groups[i] == ';')
            f->groups[i] = ':';
    if (f->o->tidy_java) {
        size_t k = start;
        char *open;

        for (i = start; i < f->glen; i++)
            if (f->groups[i] != '<' && f->groups[i] != '>')
                f->groups[k++] = f->groups[i];
        f->glen = k;
        f->groups[k] = '\0';
        /* python's sym.find('/') is truthy unless '/' is the first byte */
        if (f->glen > start && f->groups[start] == 'L' && f->groups[start] != '/') {
            memmove(f->groups + start, f->groups + start + 1, f->glen - start);
            f->glen--;
        }
        if ((open = memchr(f->groups + start, '(', f->glen - start)) != NULL) {
            f->glen = (size_t)(open - f->groups);
            f->groups[f->glen] = '\0';
        }
    }
    if (f->o->kernel && dso != NULL && strcmp(dso, "[kernel.kallsyms]") == 0)
        gput(f, "_[k]", 4);
    group_end(f);
}

void folder_py_end(folder *f, const char *comm, uint32_t pid, uint32_t tid)
{
    char num[32];
    size_t len = 0, i;

    if (f->o->no_comm) {
        /* no root frame: the leaf-first groups alone */
        size_t g;

        for (g = f->ngroups; g-- > 0;) {
            size_t start = g ? f->gend[g - 1] : 0;

            if (len)
                put(f, &f->key, &len, &f->key_cap, ";", 1);
            put(f, &f->key, &len, &f->key_cap, f->groups + start, f->gend[g] - start);
        }
        if (!f->oom && fold_table_add(f->t, f->key ? f->key : "", len, 1) < 0)
            f->oom = 1;
        folder_drop(f);
        return;
    }
    put(f, &f->pname, &len, &f->pname_cap, comm, strlen(comm));
    for (i = 0; f->pname != NULL && i < len; i++)
        if (f->pname[i] == ' ')
            f->pname[i] = '_';
    f->open = f->pname != NULL;
    if (f->o->pid) {
        snprintf(num, sizeof(num), "-%d", (int)pid);
        put(f, &f->pname, &len, &f->pname_cap, num, strlen(num));
    }
    if (f->o->tid) {
        snprintf(num, sizeof(num), "%c%d", f->o->pid ? '/' : '-', (int)tid);
        put(f, &f->pname, &len, &f->pname_cap, num, strlen(num));
    }
    folder_end(f, 1);
}
