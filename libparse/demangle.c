/* SPDX-License-Identifier: MIT */
/*
 * demangle.c - perf 6.1's demangle_sym() (see demangle.h): libiberty's
 * cplus_demangle(name, DMGL_NO_OPTS), then the Rust legacy clean-up on
 * its result; if C++ demangling fails, OCaml, then Java (return type
 * dropped). The OCaml, Java and Rust rules are perf's own, read from perf
 * 6.1 (facts only) and written again here.
 *
 * Kernel and JIT-map names are never demangled; that is the loaders'
 * choice, not this file's. Never reads files, never allocates beyond the
 * one returned string.
 */
#include "demangle.h"
#include "sym_ctype.h"
#include "util.h"

/* libiberty (static, from libiberty-dev); its header drags in libiberty.h,
 * whose basename() clashes with glibc's, so declare the one entry point. */
char *cplus_demangle(const char *mangled, int options);
#define DMGL_NO_OPTS 0
#define DMGL_PARAMS (1 << 0)
#define DMGL_ANSI   (1 << 1)

/* OCaml: "caml" + upper-case letter; "__" is '.', "$xx" a hex byte. */
static char *demangle_ocaml(const char *sym)
{
    size_t len = strlen(sym), i = 4, j = 0;
    char *out;

    if (strncmp(sym, "caml", 4) != 0 || !ps_l1_upper((unsigned char)sym[4]))
        return NULL;
    if ((out = malloc(len + 1)) == NULL)
        return NULL;
    while (i < len) {
        if (sym[i] == '_' && sym[i + 1] == '_') {
            out[j++] = '.'; i += 2;
        } else if (sym[i] == '$' && ps_hexval((unsigned char)sym[i + 1]) >= 0 &&
                   ps_hexval((unsigned char)sym[i + 2]) >= 0) {
            out[j++] = (char)(ps_hexval((unsigned char)sym[i + 1]) << 4 |
                              ps_hexval((unsigned char)sym[i + 2]));
            i += 3;
        } else {
            out[j++] = sym[i++];
        }
    }
    out[j] = '\0';
    return out;
}

enum { JV_PREFIX, JV_CLASS, JV_FUNC, JV_TYPE, JV_CTYPE };

static const char *java_base_type(char c)
{
    switch (c) {
    case 'B': return "byte";   case 'C': return "char";
    case 'D': return "double"; case 'F': return "float";
    case 'I': return "int";    case 'J': return "long";
    case 'S': return "short";  case 'Z': return "boolean";
    default:  return NULL;
    }
}

typedef struct jbuf { char *p; size_t len, cap; } jbuf;

static void jb_puts(jbuf *b, const char *s)
{
    while (*s && b->len + 1 < b->cap)
        b->p[b->len++] = *s++;
}
static void jb_putc(jbuf *b, char c) { if (b->len + 1 < b->cap) b->p[b->len++] = c; }

/* Java signatures (OpenJDK "Lpkg/Cls;meth(args)ret"), from str up to end,
 * starting in PREFIX mode: classes get dots, arguments their Java names.
 * @return 0, or -1 when the text is not such a signature */
static int demangle_java_part(const char *str, const char *end, jbuf *b)
{
    int mode = JV_PREFIX, narg = 0, array = 0;
    const char *q;

    for (q = str; q != end && b->len + 1 < b->cap; q++) {
        const char *base = java_base_type(*q);

        if (*q == 'L' && (mode == JV_PREFIX || mode == JV_TYPE)) {
            if (mode == JV_TYPE) {
                if (narg) jb_puts(b, ", ");
                narg++;
            }
            mode = mode == JV_PREFIX ? JV_CLASS : JV_CTYPE;
        } else if ((base != NULL || *q == 'V') && mode == JV_TYPE) {
            if (base != NULL && narg) jb_puts(b, ", ");
            jb_puts(b, base != NULL ? base : "void");
            while (array-- > 0) jb_puts(b, "[]");
            array = 0;
            if (base != NULL) narg++;
        } else if (*q == '[') {
            if (mode != JV_TYPE) return -1;
            array++;
        } else if (*q == '(') {
            if (mode != JV_FUNC) return -1;
            jb_putc(b, *q);
            mode = JV_TYPE;
        } else if (*q == ')') {
            if (mode != JV_TYPE) return -1;
            jb_putc(b, *q);
            narg = 0;
        } else if (*q == ';') {
            if (mode != JV_CLASS && mode != JV_CTYPE) return -1;
            if (mode == JV_CLASS && ps_l1_alpha((unsigned char)q[1])) jb_putc(b, '.');
            mode = mode == JV_CLASS ? JV_FUNC : JV_TYPE;
        } else if (*q == '/') {
            if (mode != JV_CLASS && mode != JV_CTYPE) return -1;
            jb_putc(b, '.');
        } else {
            jb_putc(b, *q);
        }
    }
    b->p[b->len] = '\0';
    return 0;
}

/* java_demangle_sym(str, JAVA_DEMANGLE_NORET): up to the last ')'. */
static char *demangle_java(const char *sym)
{
    const char *rp = strrchr(sym, ')');
    jbuf b;

    if (rp == NULL)
        return NULL;
    b.cap = strlen(sym) * 3 + 1;
    b.len = 0;
    if ((b.p = malloc(b.cap)) == NULL)
        return NULL;
    b.p[0] = '\0';
    if (demangle_java_part(sym, rp + 1, &b) < 0) {
        free(b.p);
        return NULL;
    }
    return b.p;
}

/* Rust legacy names after C++ demangling: "path::h<16 hex>" with 5..15
 * distinct digits, only [A-Za-z0-9_.:$] and known $ escapes. */
static const char *const rust_escapes[][2] = {
    { "$C$", "," }, { "$SP$", "@" }, { "$BP$", "*" }, { "$RF$", "&" },
    { "$LT$", "<" }, { "$GT$", ">" }, { "$LP$", "(" }, { "$RP$", ")" },
    { "$u20$", " " }, { "$u27$", "'" }, { "$u5b$", "[" }, { "$u5d$", "]" },
    { "$u7e$", "~" },
};

static int rust_escape_at(const char *s, char *out)
{
    size_t i;

    for (i = 0; i < PS_ARRAY_SIZE(rust_escapes); i++) {
        size_t n = strlen(rust_escapes[i][0]);

        if (strncmp(s, rust_escapes[i][0], n) == 0) {
            if (out) *out = rust_escapes[i][1][0];
            return (int)n;
        }
    }
    return 0;
}

static int rust_plain(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* The 16 digits after "::h": lower-case hex only, 5 to 15 of them distinct. */
static int rust_hash_ok(const char *h)
{
    unsigned seen = 0, count = 0;
    size_t i;

    for (i = 0; i < 16; i++) {
        int v = (h[i] >= '0' && h[i] <= '9') || (h[i] >= 'a' && h[i] <= 'f')
                ? ps_hexval((unsigned char)h[i]) : -1;     /* lower case only */

        if (v < 0)
            return 0;
        seen |= 1u << v;
    }
    for (i = 0; i < 16; i++)
        count += (seen >> i) & 1;
    return count >= 5 && count <= 15;
}

/* The path before the hash: [A-Za-z0-9_.:], known $ escapes, no "...". */
static int rust_path_ok(const char *p, const char *end)
{
    while (p < end) {
        int n;

        if (*p == '$') {
            if ((n = rust_escape_at(p, NULL)) == 0)
                return 0;
            p += n;
        } else if (*p == '.' && strncmp(p, "...", 3) == 0) {
            return 0;
        } else if (rust_plain(*p) || *p == '_' || *p == ':' || *p == '.') {
            p++;
        } else {
            return 0;
        }
    }
    return 1;
}

static int rust_is_mangled(const char *sym)
{
    size_t len = strlen(sym), keep;

    if (len <= 3 + 16)
        return 0;
    keep = len - 19;
    if (strncmp(sym + keep, "::h", 3) != 0)
        return 0;
    return rust_hash_ok(sym + keep + 3) && rust_path_ok(sym, sym + keep);
}

/* In place: hash dropped, escapes decoded, ".." is "::", "." is "-", and
 * the '_' a path component gets before an escape is dropped. */
static void rust_demangle(char *sym)
{
    const char *in = sym, *end = sym + strlen(sym) - 19;
    char *out = sym;

    while (in < end) {
        int n;

        if (*in == '$') {
            if ((n = rust_escape_at(in, out)) == 0)
                break;
            in += n; out++;
        } else if (*in == '_') {
            if ((in == sym || in[-1] == ':') && in[1] == '$')
                in++;
            else
                *out++ = *in++;
        } else if (*in == '.') {
            if (in[1] == '.') { *out++ = ':'; *out++ = ':'; in += 2; }
            else { *out++ = '-'; in++; }
        } else if (rust_plain(*in) || *in == ':') {
            *out++ = *in++;
        } else {
            break;
        }
    }
    *out = '\0';
}

/* demangle_sym(): NULL when the name stays as it is. Owned: free(). */
char *ps_sym__demangle(const char *name)
{
    char *d = cplus_demangle(name, DMGL_NO_OPTS);

    if (d == NULL) {
        if ((d = demangle_ocaml(name)) == NULL)
            d = demangle_java(name);
    } else if (rust_is_mangled(d)) {
        rust_demangle(d);
    }
    return d;
}

/* bfd_demangle(abfd, name, DMGL_PARAMS | DMGL_ANSI), as addr2line -C:
 * leading '.'/'$' and an "@..." suffix are set aside and put back. */
char *ps_sym__demangle_a2l(const char *name)
{
    size_t pre = strspn(name, ".$"), core, len;
    const char *at = strchr(name + pre, '@');
    char *tmp, *d, *out;

    core = at ? (size_t)(at - name) - pre : strlen(name + pre);
    if ((tmp = malloc(core + 1)) == NULL)
        return NULL;
    memcpy(tmp, name + pre, core);
    tmp[core] = '\0';
    d = cplus_demangle(tmp, DMGL_PARAMS | DMGL_ANSI);
    free(tmp);
    if (d == NULL || (pre == 0 && at == NULL))
        return d;
    len = strlen(d);
    if ((out = malloc(pre + len + (at ? strlen(at) : 0) + 1)) != NULL) {
        memcpy(out, name, pre);
        memcpy(out + pre, d, len);
        strcpy(out + pre + len, at ? at : "");
    }
    free(d);
    return out;
}
