/* SPDX-License-Identifier: MIT */
/*
 * symbols.c - address -> DSO -> symbol, answering what `perf script` of
 * perf 6.1 prints as "sym+0xoff (dso)" for the same capture on the same
 * machine (DESIGN.md "symbols.c"). Every rule below was read from perf 6.1
 * (facts only) and checked against the installed perf with small captures.
 *
 * Owns: the DSO cache (one entry per file + build-id, per kernel, module,
 * JIT map, KSYMBOL map; each loaded once, lazily, on its first lookup), the
 * symbol tables, ELF reading (libelf), kallsyms and perf-PID.map parsing,
 * demangling. Never reads a capture, never decides which map an address is
 * in (machine.c does), never prints.
 *
 * Rules mirrored from perf 6.1:
 *  - Symbol tables are perf's red-black trees, rebuilt node for node: same
 *    insertion order, same rebalancing, same erasures. Lookups walk the tree
 *    exactly as perf's symbols__find() (a symbol holds [start, end), and a
 *    zero-size one holds its start), so overlapping symbols (JIT maps, ELF
 *    labels) resolve to the very node perf finds.
 *  - ELF (user files, [vdso]): the candidate files of dso__load() in its
 *    order (debuglink, build-id cache, /usr/lib/debug forms, the file
 *    itself, .debug/ beside it); a candidate whose build-id differs from the
 *    expected one is skipped. The first with .symtab gives the symbols, the
 *    first with .dynsym the PLT; .dynsym alone when no .symtab is found.
 *    Functions, ifuncs, objects and text/data labels of allocated sections
 *    are kept (not SHN_ABS ones), their value turned into a file offset by
 *    the runtime file's PT_LOAD holding it (by their section when none
 *    does: .bss objects keep their segment's delta); then fixup_end (a
 *    zero-size symbol ends where the next starts), fixup_duplicate (one
 *    symbol per start, choose_best_symbol's order), then "name@plt"
 *    entries, one per .rela.plt/.rel.plt slot after the PLT header (no
 *    fixups for them: a zero-size _init stretched over .plt still wins).
 *  - Expected build-id: the MMAP2 record's, else the BUILD_ID feature entry
 *    with the same file name, else the file's own.
 *  - [vdso]: when the capture's BUILD_ID feature names it, only the build-id
 *    cache can give symbols; otherwise this process's own vdso image is the
 *    file (checked against an MMAP2 build-id when there is one).
 *  - Module DSOs print as "[name]" (from a .ko path, '-' made '_'), or as
 *    the path of a kernel BUILD_ID entry for the same module.
 *  - Anonymous executable maps are "/tmp/perf-PID.map" (PID of the process
 *    that mapped them), read from /tmp itself (never under --symfs):
 *    "START SIZE name" lines parsed with strtoull, as perf does (a line's
 *    last byte is dropped, names shorter than 3 bytes are skipped); no
 *    fixups. Non-executable ones keep their name and have no symbols.
 *  - Kernel: --kallsyms FILE if given; else nothing under --symfs; else
 *    /proc/kallsyms when the capture has no kernel build-id or it equals
 *    the running kernel's (/sys/kernel/notes); else the build-id cache's
 *    kallsyms; else the "No kallsyms or vmlinux with build-id" warning.
 *    Types T W D B are kept; symbols move by the delta between the file's
 *    ref-reloc symbol (the "_text" of "[kernel.kallsyms]_text") and the
 *    map's pgoff; "[mod]" symbols go to their module's DSO (relative to the
 *    module map) if that DSO was not looked at before the kernel was loaded;
 *    the kernel map then spans its first to last symbol. Without the
 *    ref-reloc symbol in the file perf keeps the raw, unfixed symbols.
 *  - perf's symoff for a zero-size symbol hit at its start is counted from
 *    the map start (rel - map start - sym start).
 *  - Demangling: libiberty's cplus_demangle(name, DMGL_NO_OPTS), then the
 *    Rust legacy clean-up on its result; if it fails, OCaml then Java
 *    (return type dropped). Kernel and JIT-map names are never demangled.
 *
 * Untrusted paths: a path is stat()ed first and opened only if it is a
 * regular file (O_RDONLY|O_NONBLOCK|O_CLOEXEC, then fstat again); text
 * files are read through a fixed buffer with a byte cap. Anything wrong
 * gives "no symbols", never an error or a hang.
 *
 * Not done (perf would, in setups this machine lacks): vmlinux files and
 * /proc/kcore for the kernel, .ko files for modules, guest kernels,
 * PowerPC .opd, perf's namespace (setns) lookups of JIT maps.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>
#include "symbols.h"

/* libiberty (static, from libiberty-dev); its header drags in libiberty.h,
 * whose basename() clashes with glibc's, so declare the one entry point. */
char *cplus_demangle(const char *mangled, int options);
#define DMGL_NO_OPTS 0

#define NIL             (-1)
#define PS_PATH_MAX     4096
#define TEXT_FILE_CAP   (UINT64_C(1) << 30)   /* bytes read from a text file */
#define MAP_LINE_MAX    (1u << 16)             /* perf-PID.map line kept */
#define KSYM_NAME_MAX   512                    /* perf 6.1's KSYM_NAME_LEN */
#define BUILD_ID_MAX    20
#define PAGE_4K         UINT64_C(4096)

/* ------------------------------------------------------------------------ */
/* Symbol trees: perf's rb-tree of struct symbol, index-linked               */

typedef struct sym_node {
    ps_sym   sym;                   /* first: callers get &node->sym */
    int32_t  left, right, parent;   /* NIL-terminated */
    uint8_t  red, binding, type, dead;
} sym_node;

typedef struct symtree {
    sym_node *n;                    /* owned */
    size_t    nr, cap;
    int32_t   root;
} symtree;

#define T_L(t, i) ((t)->n[i].left)
#define T_R(t, i) ((t)->n[i].right)
#define T_P(t, i) ((t)->n[i].parent)

static int t_red(const symtree *t, int32_t i) { return i != NIL && t->n[i].red; }

static void t_replace_child(symtree *t, int32_t parent, int32_t old, int32_t new)
{
    if (parent == NIL)
        t->root = new;
    else if (T_L(t, parent) == old)
        T_L(t, parent) = new;
    else
        T_R(t, parent) = new;
}

static void t_rotate_left(symtree *t, int32_t x)
{
    int32_t y = T_R(t, x);

    T_R(t, x) = T_L(t, y);
    if (T_L(t, y) != NIL)
        T_P(t, T_L(t, y)) = x;
    T_P(t, y) = T_P(t, x);
    t_replace_child(t, T_P(t, x), x, y);
    T_L(t, y) = x;
    T_P(t, x) = y;
}

static void t_rotate_right(symtree *t, int32_t x)
{
    int32_t y = T_L(t, x);

    T_L(t, x) = T_R(t, y);
    if (T_R(t, y) != NIL)
        T_P(t, T_R(t, y)) = x;
    T_P(t, y) = T_P(t, x);
    t_replace_child(t, T_P(t, x), x, y);
    T_R(t, y) = x;
    T_P(t, x) = y;
}

/* The classic insertion rebalance (the same rotations as lib/rbtree.c). */
static void t_insert_fixup(symtree *t, int32_t z)
{
    for (;;) {
        int32_t p = T_P(t, z), g, u;

        if (p == NIL) { t->n[z].red = 0; return; }
        if (!t->n[p].red)
            return;
        g = T_P(t, p);
        if (p == T_L(t, g)) {
            u = T_R(t, g);
            if (t_red(t, u)) {
                t->n[p].red = t->n[u].red = 0; t->n[g].red = 1; z = g; continue;
            }
            if (z == T_R(t, p)) { t_rotate_left(t, p); z = p; p = T_P(t, z); }
            t->n[p].red = 0; t->n[g].red = 1; t_rotate_right(t, g);
        } else {
            u = T_L(t, g);
            if (t_red(t, u)) {
                t->n[p].red = t->n[u].red = 0; t->n[g].red = 1; z = g; continue;
            }
            if (z == T_L(t, p)) { t_rotate_right(t, p); z = p; p = T_P(t, z); }
            t->n[p].red = 0; t->n[g].red = 1; t_rotate_left(t, g);
        }
        return;
    }
}

/* Append a node and link it where perf's __symbols__insert() would: equal
 * starts go right, so in-order equals insertion order among them. */
static int t_insert(symtree *t, uint64_t start, uint64_t end, uint8_t binding,
                    uint8_t type, const char *name)
{
    int32_t z, p = NIL, x = t->root;
    sym_node *nd;

    if (t->nr >= INT32_MAX - 1 || ps_grow((void **)&t->n, &t->cap, t->nr + 1, sizeof(*t->n)) < 0)
        return -1;
    z = (int32_t)t->nr++;
    nd = &t->n[z];
    memset(nd, 0, sizeof(*nd));
    nd->sym.start = start; nd->sym.end = end; nd->sym.name = name;
    nd->binding = binding; nd->type = type; nd->red = 1;
    nd->left = nd->right = NIL;
    while (x != NIL) {
        p = x;
        x = start < t->n[x].sym.start ? T_L(t, x) : T_R(t, x);
    }
    nd->parent = p;
    if (p == NIL)
        t->root = z;
    else if (start < t->n[p].sym.start)
        T_L(t, p) = z;
    else
        T_R(t, p) = z;
    t_insert_fixup(t, z);
    return 0;
}

/* Erase rebalance; x may be NIL, so its parent is passed. A NIL x counts as
 * the left child unless the parent's right link is NIL too (lib/rbtree.c's
 * "node != parent->rb_right" test). */
static void t_erase_fixup(symtree *t, int32_t x, int32_t parent)
{
    while (parent != NIL && !t_red(t, x)) {
        int32_t w;

        if (x != T_R(t, parent)) {
            w = T_R(t, parent);
            if (t_red(t, w)) {
                t->n[w].red = 0; t->n[parent].red = 1;
                t_rotate_left(t, parent); w = T_R(t, parent);
            }
            if (!t_red(t, T_L(t, w)) && !t_red(t, T_R(t, w))) {
                t->n[w].red = 1; x = parent; parent = T_P(t, x); continue;
            }
            if (!t_red(t, T_R(t, w))) {
                t->n[T_L(t, w)].red = 0; t->n[w].red = 1;
                t_rotate_right(t, w); w = T_R(t, parent);
            }
            t->n[w].red = t->n[parent].red; t->n[parent].red = 0;
            t->n[T_R(t, w)].red = 0; t_rotate_left(t, parent);
        } else {
            w = T_L(t, parent);
            if (t_red(t, w)) {
                t->n[w].red = 0; t->n[parent].red = 1;
                t_rotate_right(t, parent); w = T_L(t, parent);
            }
            if (!t_red(t, T_R(t, w)) && !t_red(t, T_L(t, w))) {
                t->n[w].red = 1; x = parent; parent = T_P(t, x); continue;
            }
            if (!t_red(t, T_L(t, w))) {
                t->n[T_R(t, w)].red = 0; t->n[w].red = 1;
                t_rotate_left(t, w); w = T_L(t, parent);
            }
            t->n[w].red = t->n[parent].red; t->n[parent].red = 0;
            t->n[T_L(t, w)].red = 0; t_rotate_right(t, parent);
        }
        x = t->root;
        break;
    }
    if (x != NIL)
        t->n[x].red = 0;
}

/* rb_erase(): a node with two children is replaced by its successor. */
static void t_erase(symtree *t, int32_t z)
{
    int32_t x, xp, y = z;
    int y_red = t->n[z].red;

    if (T_L(t, z) == NIL || T_R(t, z) == NIL) {
        x = T_L(t, z) == NIL ? T_R(t, z) : T_L(t, z);
        xp = T_P(t, z);
        t_replace_child(t, xp, z, x);
        if (x != NIL)
            T_P(t, x) = xp;
    } else {
        for (y = T_R(t, z); T_L(t, y) != NIL; y = T_L(t, y))
            ;
        y_red = t->n[y].red;
        x = T_R(t, y);
        if (T_P(t, y) == z) {
            xp = y;
        } else {
            xp = T_P(t, y);
            T_L(t, xp) = x;
            if (x != NIL)
                T_P(t, x) = xp;
            T_R(t, y) = T_R(t, z);
            T_P(t, T_R(t, y)) = y;
        }
        t_replace_child(t, T_P(t, z), z, y);
        T_P(t, y) = T_P(t, z);
        T_L(t, y) = T_L(t, z);
        T_P(t, T_L(t, y)) = y;
        t->n[y].red = t->n[z].red;
    }
    t->n[z].dead = 1;
    if (!y_red)
        t_erase_fixup(t, x, xp);
}

static int32_t t_first(const symtree *t)
{
    int32_t i = t->root;

    while (i != NIL && T_L(t, i) != NIL)
        i = T_L(t, i);
    return i;
}

static int32_t t_last(const symtree *t)
{
    int32_t i = t->root;

    while (i != NIL && T_R(t, i) != NIL)
        i = T_R(t, i);
    return i;
}

static int32_t t_next(const symtree *t, int32_t i)
{
    int32_t p;

    if (T_R(t, i) != NIL) {
        for (i = T_R(t, i); T_L(t, i) != NIL; i = T_L(t, i))
            ;
        return i;
    }
    while ((p = T_P(t, i)) != NIL && i == T_R(t, p))
        i = p;
    return p;
}

/* The live nodes in order (perf's rb_first/rb_next walk). Owned: free(). */
static int32_t *t_inorder(const symtree *t, size_t *nr)
{
    int32_t *v = malloc((t->nr ? t->nr : 1) * sizeof(*v)), i;
    size_t k = 0;

    if (v == NULL)
        return NULL;
    for (i = t_first(t); i != NIL; i = t_next(t, i))
        v[k++] = i;
    *nr = k;
    return v;
}

/* perf's symbols__find(). */
static const sym_node *t_find(const symtree *t, uint64_t ip)
{
    int32_t i = t->root;

    while (i != NIL) {
        const sym_node *s = &t->n[i];

        if (ip < s->sym.start)
            i = s->left;
        else if (ip > s->sym.end || (ip == s->sym.end && ip != s->sym.start))
            i = s->right;
        else
            return s;
    }
    return NULL;
}

/* Drop erased nodes so the array holds only what lookups can reach; after
 * this the nodes never move again (ps_sym pointers stay valid). */
static int t_compact(symtree *t)
{
    int32_t *map, j = 0;
    size_t i;

    if (t->nr == 0)
        return 0;
    if ((map = malloc(t->nr * sizeof(*map))) == NULL)
        return -1;
    for (i = 0; i < t->nr; i++)
        map[i] = t->n[i].dead ? NIL : j++;
    for (i = 0; i < t->nr; i++) {
        sym_node nd = t->n[i];

        if (nd.dead)
            continue;
        nd.left = nd.left == NIL ? NIL : map[nd.left];
        nd.right = nd.right == NIL ? NIL : map[nd.right];
        nd.parent = nd.parent == NIL ? NIL : map[nd.parent];
        t->n[map[i]] = nd;
    }
    t->root = t->root == NIL ? NIL : map[t->root];
    t->nr = (size_t)j;
    free(map);
    return 0;
}

static void t_init(symtree *t) { memset(t, 0, sizeof(*t)); t->root = NIL; }
static void t_free(symtree *t) { free(t->n); t_init(t); }

/* ------------------------------------------------------------------------ */
/* perf's fixups                                                            */

static uint64_t roundup_4k(uint64_t x) { return (x + PAGE_4K - 1) / PAGE_4K * PAGE_4K; }

/* symbols__fixup_end(): a zero-size symbol ends where the next one starts;
 * in kallsyms, not across the kernel/module boundary ('[' in the name). */
static int fixup_end(symtree *t, int is_kallsyms)
{
    size_t nr, i;
    int32_t *v = t_inorder(t, &nr);
    ps_sym *prev, *curr = NULL;

    if (v == NULL)
        return -1;
    for (i = 0; i < nr; i++) {
        prev = curr;
        curr = &t->n[v[i]].sym;
        if (prev == NULL || prev->end != prev->start)
            continue;
        if (is_kallsyms && (!strchr(prev->name, '[') != !strchr(curr->name, '[')))
            prev->end = roundup_4k(prev->end + PAGE_4K);
        else
            prev->end = curr->start;
    }
    if (curr != NULL && curr->end == curr->start)
        curr->end = roundup_4k(curr->start) + PAGE_4K;
    free(v);
    return 0;
}

static size_t leading_underscores(const char *s)
{
    size_t n = 0;

    while (s[n] == '_')
        n++;
    return n;
}

/* choose_best_symbol(): 0 keeps a, 1 keeps b. The tests run in perf's
 * order: sized over zero-size, non-weak over weak, global over other,
 * fewer leading underscores, longer name, else the first. */
static int choose_best(const sym_node *a, const sym_node *b)
{
    int64_t la = (int64_t)(a->sym.end - a->sym.start);
    int64_t lb = (int64_t)(b->sym.end - b->sym.start);
    size_t na, nb;

    if (lb == 0 && la > 0) return 0;
    if (la == 0 && lb > 0) return 1;
    if ((b->binding == STB_WEAK) != (a->binding == STB_WEAK))
        return a->binding == STB_WEAK;
    if ((a->binding == STB_GLOBAL) != (b->binding == STB_GLOBAL))
        return b->binding == STB_GLOBAL;
    na = leading_underscores(a->sym.name);
    nb = leading_underscores(b->sym.name);
    if (na != nb)
        return na > nb;
    na = strlen(a->sym.name);
    nb = strlen(b->sym.name);
    if (na != nb)
        return na < nb;
    return 0;
}

/* symbols__fixup_duplicate(): walk in order; of two neighbours with one
 * start the loser is erased, and the winner meets the next one. */
static int fixup_duplicate(symtree *t)
{
    size_t nr, i;
    int32_t *v = t_inorder(t, &nr), curr;

    if (v == NULL)
        return -1;
    for (i = 1, curr = nr ? v[0] : NIL; i < nr; i++) {
        int32_t next = v[i];

        if (t->n[curr].sym.start != t->n[next].sym.start) {
            curr = next;
            continue;
        }
        if (choose_best(&t->n[curr], &t->n[next]) == 0) {
            t_erase(t, next);
        } else {
            t_erase(t, curr);
            curr = next;
        }
    }
    free(v);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Demangling, as perf 6.1's demangle_sym()                                 */

/* The tools/ ctype perf links: ASCII plus Latin-1 letters. */
static int l1_upper(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 0xc0 && c <= 0xde && c != 0xd7);
}
static int l1_alpha(unsigned char c)
{
    return l1_upper(c) || (c >= 'a' && c <= 'z') || (c >= 0xdf && c != 0xf7);
}
static int hexval(unsigned char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* OCaml: "caml" + upper-case letter; "__" is '.', "$xx" a hex byte. */
static char *demangle_ocaml(const char *sym)
{
    size_t len = strlen(sym), i = 4, j = 0;
    char *out;

    if (strncmp(sym, "caml", 4) != 0 || !l1_upper((unsigned char)sym[4]))
        return NULL;
    if ((out = malloc(len + 1)) == NULL)
        return NULL;
    while (i < len) {
        if (sym[i] == '_' && sym[i + 1] == '_') {
            out[j++] = '.'; i += 2;
        } else if (sym[i] == '$' && hexval((unsigned char)sym[i + 1]) >= 0 &&
                   hexval((unsigned char)sym[i + 2]) >= 0) {
            out[j++] = (char)(hexval((unsigned char)sym[i + 1]) << 4 |
                              hexval((unsigned char)sym[i + 2]));
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
            if (mode == JV_CLASS && l1_alpha((unsigned char)q[1])) jb_putc(b, '.');
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

static int rust_is_mangled(const char *sym)
{
    size_t len = strlen(sym), keep, i;
    unsigned seen = 0, count = 0;
    const char *h, *p;

    if (len <= 3 + 16)
        return 0;
    keep = len - 19;
    h = sym + keep;
    if (strncmp(h, "::h", 3) != 0)
        return 0;
    for (i = 3; i < 19; i++) {
        int v = (h[i] >= '0' && h[i] <= '9') || (h[i] >= 'a' && h[i] <= 'f')
                ? hexval((unsigned char)h[i]) : -1;        /* lower case only */

        if (v < 0)
            return 0;
        seen |= 1u << v;
    }
    for (i = 0; i < 16; i++)
        count += (seen >> i) & 1;
    if (count < 5 || count > 15)
        return 0;
    for (p = sym; p < sym + keep;) {
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
static char *demangle(const char *name)
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

/* ------------------------------------------------------------------------ */
/* DSOs and the session state                                               */

enum dso_kind { DSO_ELF, DSO_VDSO, DSO_PERFMAP, DSO_KERNEL, DSO_MODULE, DSO_KSYMBOL, DSO_NONE };

typedef struct dso {
    int          kind;
    const char  *key;           /* arena: what it is looked up by */
    const char  *name;          /* arena: what perf prints */
    uint8_t      bid[BUILD_ID_MAX];
    uint8_t      bid_size;
    int          has_bid;
    int          loaded;
    symtree      syms;
    struct dso  *next;          /* hash chain */
} dso;

typedef struct map_dso_ent { const ps_map *map; dso *d; } map_dso_ent;

typedef struct kmod_syms {      /* one module's kallsyms symbols, in order */
    const char *name;           /* arena: "[mod]" */
    size_t      first, nr;      /* slice of ps_symbols.kmod_nodes */
} kmod_syms;

struct ps_symbols {
    const ps_features *feat;
    ps_arena     arena;         /* names, keys, copied options */
    const char  *symfs;         /* "" when none */
    const char  *kallsyms;      /* NULL when none */
    char         buildid_dir[PS_PATH_MAX];
    int          demangle;
    ps_warn_fn   warn;
    void        *warn_ctx;
    char         warning[256];
    int          has_warning;

    dso        **buckets;       /* owned: DSOs by key */
    size_t       nr_buckets, nr_dsos;
    map_dso_ent *by_map;        /* owned: map -> DSO, open addressing */
    size_t       by_map_cap, by_map_nr;

    dso         *kernel;
    int          kernel_syms;   /* kallsyms loaded: extent and modules valid */
    uint64_t     kstart, kend;  /* map__fixup_start/end of the kernel map */
    sym_node    *kmod_nodes;    /* owned: module symbols, absolute addresses */
    size_t       nr_kmod_nodes;
    kmod_syms   *kmods;         /* owned */
    size_t       nr_kmods;
    uint64_t     nr_syms;
    int          vdso_read;     /* this process's vdso looked for */
    uint8_t     *vdso_image;    /* owned: a copy of it, or NULL */
    size_t       vdso_size;
};

static uint64_t hash_str(const char *s, uint64_t h)
{
    while (*s)
        h = (h ^ (uint8_t)*s++) * UINT64_C(0x100000001b3);
    return h;
}

static uint64_t dso_hash(int kind, const char *key, const uint8_t *bid, size_t n)
{
    uint64_t h = hash_str(key, UINT64_C(0xcbf29ce484222325) ^ (uint64_t)kind);
    size_t i;

    for (i = 0; i < n; i++)
        h = (h ^ bid[i]) * UINT64_C(0x100000001b3);
    return h;
}

static int dso_matches(const dso *d, int kind, const char *key, const uint8_t *bid,
                       size_t n, int has_bid)
{
    return d->kind == kind && strcmp(d->key, key) == 0 && d->has_bid == has_bid &&
           (!has_bid || (d->bid_size == n && memcmp(d->bid, bid, n) == 0));
}

static int grow_buckets(ps_symbols *s)
{
    size_t nb = s->nr_buckets ? s->nr_buckets * 2 : 64, i;
    dso **b = calloc(nb, sizeof(*b));

    if (b == NULL)
        return -1;
    for (i = 0; i < s->nr_buckets; i++) {
        dso *d = s->buckets[i], *next;

        for (; d != NULL; d = next) {
            uint64_t h = dso_hash(d->kind, d->key, d->bid, d->has_bid ? d->bid_size : 0);

            next = d->next;
            d->next = b[h & (nb - 1)];
            b[h & (nb - 1)] = d;
        }
    }
    free(s->buckets);
    s->buckets = b;
    s->nr_buckets = nb;
    return 0;
}

/* The DSO of this identity, made (not loaded) when new. NULL: no memory. */
static dso *dso_findnew(ps_symbols *s, int kind, const char *key, const char *name,
                        const uint8_t *bid, size_t bid_size, int has_bid)
{
    size_t n = has_bid ? bid_size : 0;
    uint64_t h = dso_hash(kind, key, bid, n);
    dso *d;

    if (s->nr_buckets) {
        for (d = s->buckets[h & (s->nr_buckets - 1)]; d != NULL; d = d->next)
            if (dso_matches(d, kind, key, bid, n, has_bid))
                return d;
    }
    if (s->nr_dsos + 1 > s->nr_buckets && grow_buckets(s) < 0)
        return NULL;
    if ((d = ps_arena__alloc(&s->arena, sizeof(*d))) == NULL ||
        (d->key = ps_arena__strndup(&s->arena, key, strlen(key))) == NULL ||
        (d->name = ps_arena__strndup(&s->arena, name, strlen(name))) == NULL)
        return NULL;
    d->kind = kind;
    d->has_bid = has_bid;
    d->bid_size = (uint8_t)n;
    if (n)
        memcpy(d->bid, bid, n);
    t_init(&d->syms);
    d->next = s->buckets[h & (s->nr_buckets - 1)];
    s->buckets[h & (s->nr_buckets - 1)] = d;
    s->nr_dsos++;
    return d;
}

/* The DSO a map resolved to before, so the path/name work is done once. */
static dso **by_map_slot(ps_symbols *s, const ps_map *map)
{
    size_t i = ((uintptr_t)map >> 4) * UINT64_C(0x9e3779b97f4a7c15) & (s->by_map_cap - 1);

    while (s->by_map[i].map != NULL && s->by_map[i].map != map)
        i = (i + 1) & (s->by_map_cap - 1);
    s->by_map[i].map = map;
    return &s->by_map[i].d;
}

static int by_map_reserve(ps_symbols *s)
{
    size_t cap = s->by_map_cap ? s->by_map_cap * 2 : 256, i, old = s->by_map_cap;
    map_dso_ent *prev = s->by_map;

    if ((s->by_map_nr + 1) * 2 <= s->by_map_cap)
        return 0;
    if ((s->by_map = calloc(cap, sizeof(*s->by_map))) == NULL) {
        s->by_map = prev;
        return -1;
    }
    s->by_map_cap = cap;
    for (i = 0; i < old; i++)
        if (prev[i].map != NULL)
            *by_map_slot(s, prev[i].map) = prev[i].d;
    free(prev);
    return 0;
}

/* A DSO just loaded: its tree is final, drop the erased nodes. */
static dso *dso_done(ps_symbols *s, dso *d)
{
    if (t_compact(&d->syms) == 0)
        s->nr_syms += d->syms.nr;
    return d;
}

static const char *arena_name(ps_symbols *s, const char *name)
{
    return ps_arena__strndup(&s->arena, name, strlen(name));
}

/* Insert one symbol, its name demangled when asked. */
static int add_sym(ps_symbols *s, symtree *t, uint64_t start, uint64_t size,
                   uint8_t binding, uint8_t type, const char *name, int want_demangle)
{
    char *d = want_demangle ? demangle(name) : NULL;
    const char *stored = arena_name(s, d ? d : name);

    free(d);
    if (stored == NULL)
        return -1;
    return t_insert(t, start, size ? start + size : start, binding, type, stored);
}

static void set_warning(ps_symbols *s, const char *fmt, const char *arg)
{
    snprintf(s->warning, sizeof(s->warning), fmt, arg);
    s->has_warning = 1;
    if (s->warn != NULL) {
        ps_error w;

        memset(&w, 0, sizeof(w));
        w.code = PS_OK;
        w.offset = PS_NO_OFFSET;
        snprintf(w.msg, sizeof(w.msg), "%s", s->warning);
        s->warn(s->warn_ctx, &w);
    }
}

/* ------------------------------------------------------------------------ */
/* Untrusted files                                                          */

static int is_regular_file(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* A regular file, opened without blocking; -1 for anything else. */
static int open_regular(const char *path)
{
    struct stat st;
    int fd;

    if (!is_regular_file(path))
        return -1;
    if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
        return -1;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return -1;
    }
    return fd;
}

/* A byte reader over read(2) with a cap: perf's tools/lib io.h reader. */
typedef struct reader {
    int      fd;
    uint8_t  buf[8192];
    size_t   pos, end;
    uint64_t total;
    int      eof;
} reader;

static int rd_getc(reader *r)
{
    if (r->pos == r->end) {
        ssize_t n;

        if (r->eof)
            return -1;
        do {
            n = read(r->fd, r->buf, sizeof(r->buf));
        } while (n < 0 && errno == EINTR);
        if (n <= 0 || r->total >= TEXT_FILE_CAP) {
            r->eof = 1;
            return -1;
        }
        r->total += (uint64_t)n;
        r->pos = 0;
        r->end = (size_t)n;
    }
    return r->buf[r->pos++];
}

static void rd_skip_line(reader *r)
{
    int c;

    while ((c = rd_getc(r)) >= 0 && c != '\n')
        ;
}

/* io__get_hex(): the value's next character, -2 when none was a digit. */
static int rd_hex(reader *r, uint64_t *v)
{
    int first = 1;

    *v = 0;
    for (;;) {
        int c = rd_getc(r), h;

        if (c < 0)
            return c;
        if ((h = hexval((unsigned char)c)) < 0)
            return first ? -2 : c;
        *v = *v << 4 | (uint64_t)h;
        first = 0;
    }
}

/* One line with its '\n' (getline), at most MAP_LINE_MAX bytes kept.
 * @return bytes kept, or -1 at the end of the file */
static long rd_line(reader *r, char *line)
{
    size_t n = 0;
    int c;

    while ((c = rd_getc(r)) >= 0) {
        if (n < MAP_LINE_MAX)
            line[n++] = (char)c;
        if (c == '\n')
            break;
    }
    if (c < 0 && n == 0)
        return -1;
    line[n] = '\0';
    return (long)n;
}

/* snprintf() for paths: -1 when cut, as a cut path names another file. */
static int pathf(char *buf, size_t size, const char *fmt, ...) PS_PRINTF(3, 4);
static int pathf(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* perf's path__join(): "a/b", or b alone when a is empty. */
static int path_join(char *buf, size_t size, const char *a, const char *b)
{
    return pathf(buf, size, "%s%s%s", a, a[0] ? "/" : "", b);
}

/* ------------------------------------------------------------------------ */
/* ELF files (libelf)                                                       */

typedef struct symsrc {
    int        fd;              /* -1: in-memory image */
    Elf       *elf;
    GElf_Ehdr  ehdr;
    Elf_Scn   *symtab, *dynsym;
    GElf_Shdr  symshdr, dynshdr;
    size_t     dynsym_idx;
} symsrc;

/* elf_section_by_name(): note that shp ends up holding the last section
 * seen when the name is missing, which perf's type checks then look at. */
static Elf_Scn *section_by_name(Elf *elf, const GElf_Ehdr *eh, GElf_Shdr *shp,
                                const char *name, size_t *idx)
{
    Elf_Scn *sec = NULL;
    size_t cnt = 1;

    if (elf_rawdata(elf_getscn(elf, eh->e_shstrndx), NULL) == NULL)
        return NULL;
    while ((sec = elf_nextscn(elf, sec)) != NULL) {
        const char *str;

        if (gelf_getshdr(sec, shp) == NULL)
            memset(shp, 0, sizeof(*shp));
        str = elf_strptr(elf, eh->e_shstrndx, shp->sh_name);
        if (str != NULL && strcmp(name, str) == 0) {
            if (idx)
                *idx = cnt;
            return sec;
        }
        cnt++;
    }
    return NULL;
}

/* The NT_GNU_BUILD_ID note of the first of .note.gnu.build-id, .notes,
 * .note; its size as perf takes it (4-aligned, at most 20).
 * @return the size, or -1 */
static int elf_build_id(Elf *elf, uint8_t bid[BUILD_ID_MAX])
{
    static const char *const names[] = { ".note.gnu.build-id", ".notes", ".note" };
    GElf_Ehdr eh;
    GElf_Shdr sh;
    Elf_Data *data;
    Elf_Scn *sec = NULL;
    size_t i, off = 0;

    if (elf_kind(elf) != ELF_K_ELF || gelf_getehdr(elf, &eh) == NULL)
        return -1;
    for (i = 0; i < PS_ARRAY_SIZE(names) && sec == NULL; i++)
        sec = section_by_name(elf, &eh, &sh, names[i], NULL);
    if (sec == NULL || (data = elf_getdata(sec, NULL)) == NULL || data->d_buf == NULL)
        return -1;
    while (off + 12 <= data->d_size) {
        const uint8_t *p = (const uint8_t *)data->d_buf + off;
        uint32_t nh[3];
        size_t namesz, descsz;

        memcpy(nh, p, sizeof(nh));          /* host order: libelf converted it */
        namesz = ((size_t)nh[0] + 3) & ~(size_t)3;
        descsz = ((size_t)nh[1] + 3) & ~(size_t)3;
        if (namesz > data->d_size || descsz > data->d_size ||
            off + 12 + namesz + descsz > data->d_size)
            return -1;
        if (nh[2] == 3 && nh[0] == 4 && memcmp(p + 12, "GNU", 4) == 0) {
            size_t sz = descsz < BUILD_ID_MAX ? descsz : BUILD_ID_MAX;

            memset(bid, 0, BUILD_ID_MAX);
            memcpy(bid, p + 12 + namesz, sz);
            return (int)sz;
        }
        off += 12 + namesz + descsz;
    }
    return -1;
}

/* dso__build_id_equal(): a 20-byte expectation also matches a shorter id
 * followed by zeros (perf.data files pad build-ids to 20). */
static int build_id_equal(const uint8_t *want, size_t nwant, const uint8_t *got, size_t ngot)
{
    size_t i;

    if (nwant > ngot && nwant == BUILD_ID_MAX) {
        if (memcmp(want, got, ngot) != 0)
            return 0;
        for (i = ngot; i < nwant; i++)
            if (want[i])
                return 0;
        return 1;
    }
    return nwant == ngot && memcmp(want, got, nwant) == 0;
}

static void symsrc_close(symsrc *ss)
{
    if (ss->elf)
        elf_end(ss->elf);
    if (ss->fd >= 0)
        close(ss->fd);
    memset(ss, 0, sizeof(*ss));
    ss->fd = -1;
}

/* symsrc__init(): an ELF file (or image when path is NULL) whose build-id
 * is the expected one (when one is expected), with its symbol tables. */
static int symsrc_open(symsrc *ss, const char *path, const uint8_t *image, size_t image_size,
                       const uint8_t *bid, size_t bid_size)
{
    memset(ss, 0, sizeof(*ss));
    ss->fd = -1;
    if (path != NULL) {
        if ((ss->fd = open_regular(path)) < 0)
            return -1;
        ss->elf = elf_begin(ss->fd, ELF_C_READ, NULL);
    } else {
        ss->elf = elf_memory((char *)(uintptr_t)image, image_size);
    }
    if (ss->elf == NULL || gelf_getehdr(ss->elf, &ss->ehdr) == NULL ||
        (ss->ehdr.e_ident[EI_DATA] != ELFDATA2LSB && ss->ehdr.e_ident[EI_DATA] != ELFDATA2MSB))
        goto fail;
    if (bid != NULL) {
        uint8_t got[BUILD_ID_MAX];
        int n = elf_build_id(ss->elf, got);

        if (n < 0 || !build_id_equal(bid, bid_size, got, (size_t)n))
            goto fail;
    }
    ss->symtab = section_by_name(ss->elf, &ss->ehdr, &ss->symshdr, ".symtab", NULL);
    if (ss->symshdr.sh_type != SHT_SYMTAB)
        ss->symtab = NULL;
    ss->dynsym = section_by_name(ss->elf, &ss->ehdr, &ss->dynshdr, ".dynsym", &ss->dynsym_idx);
    if (ss->dynshdr.sh_type != SHT_DYNSYM)
        ss->dynsym = NULL;
    return 0;
fail:
    symsrc_close(ss);
    return -1;
}

static const char *data_str(const Elf_Data *d, uint64_t off)
{
    const char *p;

    if (d == NULL || d->d_buf == NULL || off >= d->d_size)
        return "";
    p = (const char *)d->d_buf + off;
    return memchr(p, '\0', d->d_size - off) ? p : "";
}

static Elf_Data *section_strings(Elf *elf, size_t idx)
{
    Elf_Scn *sec = elf_getscn(elf, idx);

    return sec ? elf_getdata(sec, NULL) : NULL;
}

/* elf_sym__is_function / is_object / is_label */
static int sym_kind(const GElf_Sym *sym)
{
    int type = GELF_ST_TYPE(sym->st_info);

    if (sym->st_name == 0 || sym->st_shndx == SHN_UNDEF)
        return 0;
    if (type == STT_FUNC || type == STT_GNU_IFUNC || type == STT_OBJECT)
        return 1;
    if (type == STT_NOTYPE && sym->st_shndx != SHN_ABS)
        return 2;                           /* a label */
    return 0;
}

static int is_arm_mapping_symbol(const GElf_Ehdr *eh, const char *name)
{
    return (eh->e_machine == EM_ARM || eh->e_machine == EM_AARCH64) && name[0] == '$' &&
           name[1] != '\0' && strchr("adtx", name[1]) != NULL &&
           (name[2] == '\0' || name[2] == '.');
}

/* The section a symbol lives in, as perf's loader takes it: the symbol
 * file's, or the runtime file's when the former is NOBITS (debug files). */
static int sym_section(const symsrc *syms, const symsrc *run, size_t shndx,
                       GElf_Shdr *sh, Elf_Data **secstrs)
{
    Elf_Scn *sec = elf_getscn(syms->elf, shndx);

    if (sec == NULL || gelf_getshdr(sec, sh) == NULL)
        return -1;
    if (!(sh->sh_flags & SHF_ALLOC))
        return -1;
    *secstrs = section_strings(syms->elf, syms->ehdr.e_shstrndx);
    if (sh->sh_type == SHT_NOBITS) {
        if ((sec = elf_getscn(run->elf, shndx)) == NULL || gelf_getshdr(sec, sh) == NULL)
            return -1;
        *secstrs = section_strings(run->elf, run->ehdr.e_shstrndx);
    }
    return 0;
}

/* The file offset of a symbol value: by the runtime file's PT_LOAD that
 * holds it (so .bss objects keep their segment's delta), else by its
 * section, as perf 6.1 adjusts user-space symbols. */
static uint64_t file_offset(const symsrc *run, const GElf_Shdr *sh, uint64_t value)
{
    size_t i, nr;
    GElf_Phdr ph;

    if (elf_getphdrnum(run->elf, &nr) == 0) {
        for (i = 0; i < nr && i <= INT_MAX; i++) {
            uint64_t sz;

            if (gelf_getphdr(run->elf, (int)i, &ph) == NULL)
                break;
            sz = ph.p_memsz > ph.p_filesz ? ph.p_memsz : ph.p_filesz;
            if (ph.p_type != PT_LOAD || sz == 0)
                continue;
            if (value >= ph.p_vaddr && value < ph.p_vaddr + sz)
                return value - (ph.p_vaddr - ph.p_offset);
        }
    }
    return value - (sh->sh_addr - sh->sh_offset);
}

/* dso__load_sym() for a user-space file.
 * @return symbols added, or -1 */
static long load_elf_syms(ps_symbols *s, symtree *t, const symsrc *syms, const symsrc *run)
{
    Elf_Scn *sec = syms->symtab ? syms->symtab : syms->dynsym;
    GElf_Shdr sh = syms->symtab ? syms->symshdr : syms->dynshdr;
    Elf_Data *data, *strs;
    GElf_Sym sym;
    uint64_t nr_syms, i;
    long nr = 0;

    if (sec == NULL || (data = elf_getdata(sec, NULL)) == NULL ||
        (strs = section_strings(syms->elf, sh.sh_link)) == NULL ||
        section_strings(syms->elf, syms->ehdr.e_shstrndx) == NULL ||
        section_strings(run->elf, run->ehdr.e_shstrndx) == NULL)
        return -1;
    nr_syms = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
    memset(&sym, 0, sizeof(sym));
    for (i = 0; i < nr_syms && i <= INT_MAX; i++) {
        GElf_Shdr ssh;
        Elf_Data *secstrs;
        const char *name;
        int kind;

        gelf_getsym(data, (int)i, &sym);    /* perf keeps the last one on failure */
        name = data_str(strs, sym.st_name);
        if ((kind = sym_kind(&sym)) == 0 || is_arm_mapping_symbol(&syms->ehdr, name))
            continue;
        if (sym_section(syms, run, sym.st_shndx, &ssh, &secstrs) < 0)
            continue;
        if (kind == 2 && !strstr(data_str(secstrs, ssh.sh_name), "text") &&
            !strstr(data_str(secstrs, ssh.sh_name), "data"))
            continue;
        if (syms->ehdr.e_machine == EM_ARM && GELF_ST_TYPE(sym.st_info) == STT_FUNC &&
            (sym.st_value & 1))
            sym.st_value--;
        sym.st_value = file_offset(run, &ssh, sym.st_value);
        if (add_sym(s, t, sym.st_value, sym.st_size, GELF_ST_BIND(sym.st_info),
                    GELF_ST_TYPE(sym.st_info), name, s->demangle) < 0)
            return -1;
        nr++;
    }
    if (nr > 0 && (fixup_end(t, 0) < 0 || fixup_duplicate(t) < 0))
        return -1;
    return nr;
}

/* PLT header and entry sizes as perf 6.1 guesses them. */
static void plt_sizes(const GElf_Ehdr *eh, const GElf_Shdr *plt, uint64_t *hdr, uint64_t *ent)
{
    switch (eh->e_machine) {
    case EM_ARM:     *hdr = 20;  *ent = 12; break;
    case EM_AARCH64: *hdr = 32;  *ent = 16; break;
    case EM_SPARC:   *hdr = 48;  *ent = 12; break;
    case EM_SPARCV9: *hdr = 128; *ent = 32; break;
    default:         *hdr = *ent = plt->sh_entsize; break;
    }
}

/* dso__synthesize_plt_symbols(): "name@plt" for each .rela.plt/.rel.plt
 * entry, in relocation order, one PLT slot each after the header. */
static long synth_plt(ps_symbols *s, symtree *t, const symsrc *ss)
{
    GElf_Shdr rel_sh, plt_sh;
    Elf_Scn *rel;
    Elf_Data *reldata, *syms, *strs;
    uint64_t nr_rel, i, off, hdr, ent;
    GElf_Sym sym;
    long nr = 0;

    if (ss->dynsym == NULL)
        return 0;
    if ((rel = section_by_name(ss->elf, &ss->ehdr, &rel_sh, ".rela.plt", NULL)) == NULL &&
        (rel = section_by_name(ss->elf, &ss->ehdr, &rel_sh, ".rel.plt", NULL)) == NULL)
        return 0;
    if (rel_sh.sh_link != ss->dynsym_idx ||
        section_by_name(ss->elf, &ss->ehdr, &plt_sh, ".plt", NULL) == NULL ||
        (reldata = elf_getdata(rel, NULL)) == NULL ||
        (syms = elf_getdata(ss->dynsym, NULL)) == NULL ||
        (strs = section_strings(ss->elf, ss->dynshdr.sh_link)) == NULL || strs->d_size == 0)
        return 0;
    nr_rel = rel_sh.sh_entsize ? rel_sh.sh_size / rel_sh.sh_entsize : 0;
    plt_sizes(&ss->ehdr, &plt_sh, &hdr, &ent);
    off = plt_sh.sh_offset + hdr;
    memset(&sym, 0, sizeof(sym));
    for (i = 0; i < nr_rel && i <= INT_MAX; i++, off += ent) {
        GElf_Rela rela;
        GElf_Rel r;
        char *d, name[1024];
        size_t symidx;

        if (rel_sh.sh_type == SHT_RELA) {
            if (gelf_getrela(reldata, (int)i, &rela) == NULL)
                break;
            symidx = GELF_R_SYM(rela.r_info);
        } else if (rel_sh.sh_type == SHT_REL) {
            if (gelf_getrel(reldata, (int)i, &r) == NULL)
                break;
            symidx = GELF_R_SYM(r.r_info);
        } else {
            break;
        }
        gelf_getsym(syms, (int)symidx, &sym);
        d = s->demangle ? demangle(data_str(strs, sym.st_name)) : NULL;
        snprintf(name, sizeof(name), "%s@plt", d ? d : data_str(strs, sym.st_name));
        free(d);
        if (add_sym(s, t, off, ent, STB_GLOBAL, STT_FUNC, name, 0) < 0)
            return -1;
        nr++;
    }
    return nr;
}

/* filename__read_build_id() */
static int file_build_id(const char *path, uint8_t bid[BUILD_ID_MAX])
{
    symsrc ss;
    int n;

    if (symsrc_open(&ss, path, NULL, 0, NULL, 0) < 0)
        return -1;
    n = elf_build_id(ss.elf, bid);
    symsrc_close(&ss);
    return n;
}

/* filename__read_debuglink(): the file name at the start of .gnu_debuglink */
static int file_debuglink(const char *path, char *out, size_t size)
{
    symsrc ss;
    GElf_Shdr sh;
    Elf_Scn *sec;
    Elf_Data *d;
    int rc = -1;

    if (symsrc_open(&ss, path, NULL, 0, NULL, 0) < 0)
        return -1;
    if ((sec = section_by_name(ss.elf, &ss.ehdr, &sh, ".gnu_debuglink", NULL)) != NULL &&
        (d = elf_getdata(sec, NULL)) != NULL && d->d_buf != NULL) {
        size_t n = d->d_size < size - 1 ? d->d_size : size - 1;

        memcpy(out, d->d_buf, n);
        out[n] = '\0';
        rc = 0;
    }
    symsrc_close(&ss);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* dso__load(): the candidate files of a user-space DSO                     */

enum cand {
    C_DEBUGLINK, C_CACHE, C_CACHE_DEBUG, C_FEDORA, C_UBUNTU, C_BUILDID_DEBUG,
    C_SYSTEM, C_OPENEMBEDDED, C_MIXEDUP_UBUNTU, NR_CANDS
};

#define VDSO_IMAGE "\001vdso"   /* stands for this process's vdso image */

typedef struct loadctx {
    const char *long_name;      /* the DSO's file name (or VDSO_IMAGE) */
    int         is_vdso;
    int         has_bid;
    uint8_t     bid[BUILD_ID_MAX];
    size_t      bid_size;
} loadctx;

static void bid_hex(const loadctx *x, char *hex)
{
    size_t i;

    for (i = 0; i < x->bid_size; i++)
        snprintf(hex + 2 * i, 3, "%02x", x->bid[i]);
    hex[2 * x->bid_size] = '\0';
}

/* dso__build_id_filename(): $cache/.build-id/xx/rest when that is a file
 * (old layout), else that directory + "elf", "debug" or "vdso". */
static int cache_path(const ps_symbols *s, const loadctx *x, int debug, char *buf, size_t size)
{
    char hex[2 * BUILD_ID_MAX + 1], link[PS_PATH_MAX];

    if (!x->has_bid)
        return -1;
    bid_hex(x, hex);
    if (pathf(link, sizeof(link), "%s/.build-id/%.2s/%s", s->buildid_dir, hex, hex + 2) < 0)
        return -1;
    if (is_regular_file(link))
        return pathf(buf, size, "%s", link);
    return pathf(buf, size, "%s/%s", link, x->is_vdso ? "vdso" : debug ? "debug" : "elf");
}

/* DEBUGLINK: the .gnu_debuglink name, looked for as perf's four forms
 * (the bare name, beside the file, in .debug/ beside it, under
 * /usr/lib/debug + the file's directory). */
static int debuglink_path(const ps_symbols *s, const loadctx *x, char *buf, size_t size)
{
    static const char *const forms[] = { "%.0s%s", "%s/%s", "%s/.debug/%s", "/usr/lib/debug%s/%s" };
    char file[PS_PATH_MAX], dir[PS_PATH_MAX], link[PS_PATH_MAX];
    const char *slash;
    size_t i;

    if (path_join(file, sizeof(file), s->symfs, x->long_name) < 0)
        return -1;
    slash = strrchr(file, '/');
    memcpy(dir, file, slash ? (size_t)(slash - file) : 0);
    dir[slash ? slash - file : 0] = '\0';
    if (!is_regular_file(file) || file_debuglink(file, link, sizeof(link)) < 0)
        return -1;
    for (i = 0; i < PS_ARRAY_SIZE(forms); i++) {
        if (pathf(buf, size, forms[i], dir, link) == 0 && is_regular_file(buf))
            return 0;
    }
    return -1;
}

/* dso__read_binary_type_filename() for the user-space types.
 * @return 0 with the path in buf, or -1 when the type does not apply */
static int cand_path(const ps_symbols *s, const loadctx *x, int type, char *buf, size_t size)
{
    const char *name = x->long_name, *slash;
    char hex[2 * BUILD_ID_MAX + 1], tmp[PS_PATH_MAX];

    switch (type) {
    case C_DEBUGLINK:     return debuglink_path(s, x, buf, size);
    case C_CACHE:         return cache_path(s, x, 0, buf, size);
    case C_CACHE_DEBUG:   return cache_path(s, x, 1, buf, size);
    case C_FEDORA:
        if (pathf(tmp, sizeof(tmp), "/usr/lib/debug%s.debug", name) < 0)
            return -1;
        break;
    case C_UBUNTU:
        if (pathf(tmp, sizeof(tmp), "/usr/lib/debug%s", name) < 0)
            return -1;
        break;
    case C_BUILDID_DEBUG:
        if (!x->has_bid)
            return -1;
        bid_hex(x, hex);
        if (pathf(tmp, sizeof(tmp), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2) < 0)
            return -1;
        break;
    case C_SYSTEM:
        if (pathf(tmp, sizeof(tmp), "%s", name) < 0)
            return -1;
        break;
    case C_OPENEMBEDDED:        /* DIR/.debug/BASE; perf keeps a slash-less name's
                                 * first byte: "[vdso]" gives "[.debug[vdso]" */
        slash = strrchr(name, '/');
        slash = slash ? slash : name;
        if (path_join(tmp, sizeof(tmp), s->symfs, "") < 0)
            return -1;
        return pathf(buf, size, "%s%.*s.debug%s", tmp, (int)(slash - name) + 1, name, slash);
    case C_MIXEDUP_UBUNTU:
        if (strncmp(name, "/usr/lib/", 9) != 0)
            return -1;
        if (pathf(tmp, sizeof(tmp), "/usr/lib/debug%s", name + 4) < 0)
            return -1;
        break;
    default:
        return -1;
    }
    return path_join(buf, size, s->symfs, tmp);
}

/* Open one candidate; the vdso image stands in for its own path. */
static int cand_open(ps_symbols *s, const loadctx *x, const char *path, symsrc *ss)
{
    const uint8_t *bid = x->has_bid ? x->bid : NULL;
    char own[PS_PATH_MAX];

    if (x->is_vdso && x->long_name[0] == VDSO_IMAGE[0]) {
        if (path_join(own, sizeof(own), s->symfs, VDSO_IMAGE) == 0 && strcmp(path, own) == 0)
            return s->symfs[0] ? -1 : symsrc_open(ss, NULL, s->vdso_image, s->vdso_size,
                                                  bid, x->bid_size);
    }
    return symsrc_open(ss, path, NULL, 0, bid, x->bid_size);
}

/* Load a user-space DSO: the first candidate with .symtab gives the
 * symbols, the first with .dynsym the runtime view (PLT). */
static void load_user_dso(ps_symbols *s, dso *d, loadctx *x)
{
    symsrc ss[2], cur, *syms = NULL, *run = NULL;
    char path[PS_PATH_MAX];
    int type, used = 0;
    long nr;

    for (type = 0; type < NR_CANDS && !(syms && run); type++) {
        int take_syms, take_run;

        if (cand_path(s, x, type, path, sizeof(path)) < 0 || cand_open(s, x, path, &cur) < 0)
            continue;
        take_syms = syms == NULL && cur.symtab != NULL;
        take_run = run == NULL && cur.dynsym != NULL;
        if (!take_syms && !take_run) {
            symsrc_close(&cur);
            continue;
        }
        ss[used] = cur;
        if (take_syms) syms = &ss[used];
        if (take_run) run = &ss[used];
        used++;
    }
    if (syms == NULL) syms = run;
    if (run == NULL) run = syms;
    if (syms != NULL && (nr = load_elf_syms(s, &d->syms, syms, run)) > 0)
        synth_plt(s, &d->syms, run);
    while (used > 0)
        symsrc_close(&ss[--used]);
}

/* ------------------------------------------------------------------------ */
/* Build-ids of the capture                                                 */

/* The BUILD_ID feature entry for this file name, or NULL. */
static const ps_feat_build_id *header_build_id(const ps_symbols *s, const char *name)
{
    uint32_t i;

    if (s->feat == NULL || !ps_features_has(s->feat, PS_HEADER_BUILD_ID))
        return NULL;
    for (i = 0; i < s->feat->build_ids.nr; i++) {
        const ps_feat_build_id *e = &s->feat->build_ids.entries[i];

        if (e->filename != NULL && strcmp(e->filename, name) == 0)
            return e;
    }
    return NULL;
}

/* The expected build-id of a map's file: MMAP2's, else the header's. */
static void expected_build_id(const ps_symbols *s, const ps_map *map, const char *name, loadctx *x)
{
    const ps_feat_build_id *e;

    x->has_bid = 0;
    if (map != NULL && map->has_build_id) {
        x->bid_size = map->build_id_size <= BUILD_ID_MAX ? map->build_id_size : BUILD_ID_MAX;
        memcpy(x->bid, map->build_id, x->bid_size);
        x->has_bid = 1;
    } else if ((e = header_build_id(s, name)) != NULL) {
        x->bid_size = e->size <= BUILD_ID_MAX ? e->size : BUILD_ID_MAX;
        memcpy(x->bid, e->build_id, x->bid_size);
        x->has_bid = 1;
    }
}

/* ------------------------------------------------------------------------ */
/* User files and the vdso                                                  */

static dso *file_dso(ps_symbols *s, const ps_map *map)
{
    loadctx x;
    dso *d;

    memset(&x, 0, sizeof(x));
    x.long_name = map->filename;
    expected_build_id(s, map, map->filename, &x);
    if ((d = dso_findnew(s, DSO_ELF, map->filename, map->filename, x.bid, x.bid_size,
                         x.has_bid)) == NULL || d->loaded)
        return d;
    d->loaded = 1;
    if (!x.has_bid && is_regular_file(map->filename)) {  /* perf: the bare path */
        char path[PS_PATH_MAX];
        int n;

        if (path_join(path, sizeof(path), s->symfs, map->filename) == 0 &&
            (n = file_build_id(path, x.bid)) > 0) {
            x.bid_size = (size_t)n;
            x.has_bid = 1;
        }
    }
    load_user_dso(s, d, &x);
    return dso_done(s, d);
}

/* A copy of this process's [vdso] (perf reads its own, as the one that
 * matches the kernel it runs on). */
static void read_own_vdso(ps_symbols *s)
{
    unsigned long base = getauxval(AT_SYSINFO_EHDR);
    char line[512];
    FILE *f;

    s->vdso_read = 1;
    if (base == 0 || (f = fopen("/proc/self/maps", "re")) == NULL)
        return;
    while (fgets(line, sizeof(line), f) != NULL) {
        unsigned long lo, hi;

        if (strstr(line, "[vdso]") == NULL || sscanf(line, "%lx-%lx", &lo, &hi) != 2 ||
            lo != base || hi <= lo || hi - lo > (64u << 20))
            continue;
        if ((s->vdso_image = malloc(hi - lo)) != NULL) {
            memcpy(s->vdso_image, (const void *)lo, hi - lo);
            s->vdso_size = hi - lo;
        }
        break;
    }
    fclose(f);
}

/* [vdso]: named by the BUILD_ID feature, perf's DSO has no file (only the
 * build-id cache); otherwise the file is this process's own vdso. */
static dso *vdso_dso(ps_symbols *s, const ps_map *map)
{
    const ps_feat_build_id *e = header_build_id(s, map->filename);
    int own = e == NULL && strcmp(map->filename, "[vdso]") == 0;
    loadctx x;
    dso *d;

    memset(&x, 0, sizeof(x));
    x.is_vdso = 1;
    x.long_name = own ? VDSO_IMAGE : map->filename;
    expected_build_id(s, e ? NULL : map, map->filename, &x);
    if ((d = dso_findnew(s, DSO_VDSO, x.long_name, map->filename, x.bid, x.bid_size,
                         x.has_bid)) == NULL || d->loaded)
        return d;
    d->loaded = 1;
    if (own && !s->vdso_read)
        read_own_vdso(s);
    if (own && s->vdso_image == NULL)
        return dso_done(s, d);
    if (own && !x.has_bid) {
        symsrc ss;
        int n;

        if (symsrc_open(&ss, NULL, s->vdso_image, s->vdso_size, NULL, 0) == 0) {
            if ((n = elf_build_id(ss.elf, x.bid)) > 0) {
                x.bid_size = (size_t)n;
                x.has_bid = 1;
            }
            symsrc_close(&ss);
        }
    }
    load_user_dso(s, d, &x);
    return dso_done(s, d);
}

/* ------------------------------------------------------------------------ */
/* JIT maps: /tmp/perf-PID.map                                              */

/* dso__load_perf_map(): "START SIZE name" per line, numbers through
 * strtoull(base 16); the line's last byte is cut (the '\n', or the name's
 * last letter on an unterminated last line); short lines are skipped. */
static void parse_map_line(ps_symbols *s, symtree *t, char *line, long line_len)
{
    uint64_t start, size;
    char *end;
    long len;

    line[--line_len] = '\0';
    start = strtoull(line, &end, 16);
    len = (long)(end - line) + 1;
    if (len + 2 >= line_len)
        return;
    size = strtoull(line + len, &end, 16);
    len = (long)(end - line) + 1;
    if (len + 2 >= line_len)
        return;
    add_sym(s, t, start, size, STB_GLOBAL, STT_FUNC, line + len, 0);
}

static void load_perf_map(ps_symbols *s, dso *d, uint32_t pid)
{
    char path[64], *line;
    struct stat st;
    reader *r;
    long n;

    snprintf(path, sizeof(path), "/tmp/perf-%" PRIu32 ".map", pid);
    if (lstat(path, &st) < 0)
        return;
    if ((r = calloc(1, sizeof(*r))) == NULL)
        return;
    if ((line = malloc(MAP_LINE_MAX + 1)) == NULL || (r->fd = open_regular(path)) < 0) {
        free(line);
        free(r);
        return;
    }
    while ((n = rd_line(r, line)) >= 0)
        if (n > 0)
            parse_map_line(s, &d->syms, line, n);
    close(r->fd);
    free(line);
    free(r);
}

static int map_is_exec(const ps_map *map)
{
    return map->is_mmap2 ? (map->prot & 4) != 0 : 1;   /* PROT_EXEC; MMAP: no data maps */
}

/* perf's is_anon_memory() || is_no_dso_memory(): the maps it renames. */
static int anon_name(const ps_map *map)
{
    const char *f = map->filename;

    return !strcmp(f, "//anon") || !strncmp(f, "/dev/zero", 9) ||
           !strncmp(f, "/anon_hugepage", 14) || (map->flags & 0x40000u) ||
           !strncmp(f, "[stack", 6) || !strncmp(f, "/SYSV", 5) || !strcmp(f, "[heap]");
}

static dso *perfmap_dso(ps_symbols *s, const ps_map *map, uint32_t pid)
{
    char name[64];
    const char *dname = map->filename;
    uint32_t owner = map->pid != UINT32_MAX ? map->pid : pid;
    dso *d;

    if (anon_name(map)) {
        if (!map_is_exec(map))
            return dso_findnew(s, DSO_NONE, map->filename, map->filename, NULL, 0, 0);
        snprintf(name, sizeof(name), "/tmp/perf-%" PRIu32 ".map", owner);
        dname = name;
    }
    if ((d = dso_findnew(s, DSO_PERFMAP, dname, dname, NULL, 0, 0)) == NULL || d->loaded)
        return d;
    d->loaded = 1;
    load_perf_map(s, d, owner);
    return dso_done(s, d);
}

/* ------------------------------------------------------------------------ */
/* The kernel: kallsyms                                                     */

/* The running kernel's build-id, from /sys/kernel/notes. */
static int host_build_id(uint8_t bid[BUILD_ID_MAX])
{
    uint8_t buf[4096];
    size_t len = 0, off = 0;
    ssize_t n;
    int fd = open_regular("/sys/kernel/notes");

    if (fd < 0)
        return -1;
    while (len < sizeof(buf) && (n = read(fd, buf + len, sizeof(buf) - len)) > 0)
        len += (size_t)n;
    close(fd);
    while (off + 12 <= len) {
        uint32_t nh[3];
        size_t namesz, descsz;

        memcpy(nh, buf + off, sizeof(nh));
        namesz = ((size_t)nh[0] + 3) & ~(size_t)3;
        descsz = ((size_t)nh[1] + 3) & ~(size_t)3;
        if (off + 12 + namesz > len)
            break;
        if (nh[2] == 3 && nh[0] == 4 && memcmp(buf + off + 12, "GNU", 4) == 0) {
            size_t sz = descsz < BUILD_ID_MAX ? descsz : BUILD_ID_MAX;

            if (off + 12 + namesz + sz > len)
                break;
            memset(bid, 0, BUILD_ID_MAX);
            memcpy(bid, buf + off + 12 + namesz, sz);
            return (int)sz;
        }
        off += 12 + namesz + descsz;
    }
    return -1;
}

/* symbol__read_kptr_restrict(): /proc/kallsyms shows zeros to us. */
static int kallsyms_restricted(void)
{
    char line[16] = "";
    int fd, restricted = 0, capable = geteuid() == 0;
    ssize_t n;

    if ((fd = open_regular("/proc/sys/kernel/kptr_restrict")) >= 0) {
        if ((n = read(fd, line, sizeof(line) - 1)) > 0) {
            line[n] = '\0';
            restricted = capable ? atoi(line) >= 2 : atoi(line) != 0;
        }
        close(fd);
    }
    if ((fd = open_regular("/proc/sys/kernel/perf_event_paranoid")) >= 0) {
        memset(line, 0, sizeof(line));
        if (read(fd, line, sizeof(line) - 1) > 0 && atoi(line) > 1 && !capable)
            restricted = 1;
        close(fd);
    }
    return restricted;
}

/* dso__find_kallsyms(): which kallsyms file stands for the capture's
 * kernel. @return 0 with the path in buf, -1 for none */
static int find_kallsyms(ps_symbols *s, const loadctx *x, char *buf, size_t size)
{
    uint8_t host[BUILD_ID_MAX];
    char hex[2 * BUILD_ID_MAX + 1];
    int n;

    if (!x->has_bid || ((n = host_build_id(host)) > 0 &&
                        build_id_equal(x->bid, x->bid_size, host, (size_t)n))) {
        snprintf(buf, size, "/proc/kallsyms");
        return 0;
    }
    bid_hex(x, hex);
    if (pathf(buf, size, "%s/[kernel.kallsyms]/%s/kallsyms", s->buildid_dir, hex) == 0 &&
        access(buf, F_OK) == 0)
        return 0;
    if (pathf(buf, size, "%s/[kernel.kallsyms]/%s", s->buildid_dir, hex) == 0 &&
        access(buf, F_OK) == 0)
        return 0;
    set_warning(s, "No kallsyms or vmlinux with build-id %s was found", hex);
    return -1;
}

/* kallsyms__parse(): "hex type name[\t[mod]]" lines, through perf's byte
 * reader (a name is cut at 512 bytes, the rest read as the next line). */
typedef int (*ksym_fn)(void *ctx, const char *name, char type, uint64_t start);

static int kallsyms_parse(const char *path, void *ctx, ksym_fn fn)
{
    reader *r = calloc(1, sizeof(*r));
    char name[KSYM_NAME_MAX + 2];
    int rc = 0;

    if (r == NULL || (r->fd = open_regular(path)) < 0) {
        free(r);
        return -1;
    }
    while (!r->eof && rc == 0) {
        uint64_t start;
        int type, c;
        size_t i;

        if (rd_hex(r, &start) != ' ') { rd_skip_line(r); continue; }
        type = rd_getc(r);
        if (rd_getc(r) != ' ') { rd_skip_line(r); continue; }
        for (i = 0; i < KSYM_NAME_MAX + 1; i++) {
            if ((c = rd_getc(r)) < 0 || c == '\n')
                break;
            name[i] = (char)c;
        }
        name[i] = '\0';
        rc = fn(ctx, name, (char)type, start);
    }
    close(r->fd);
    free(r);
    return rc < 0 ? -1 : 0;
}

typedef struct kfind { const char *name; uint64_t start; int found; } kfind;

/* kallsyms__get_function_start(): the first T/W/A symbol of that name. */
static int kfind_cb(void *ctx, const char *name, char type, uint64_t start)
{
    kfind *k = ctx;
    char up = (char)(type >= 'a' && type <= 'z' ? type - 32 : type);

    if ((up != 'T' && up != 'W' && type != 'A') || strcmp(name, k->name) != 0)
        return 0;
    k->start = start;
    k->found = 1;
    return 1;
}

typedef struct kload { ps_symbols *s; symtree *t; } kload;

/* map__process_kallsym_symbol(): T W D B (either case), no '$' locals. */
static int kload_cb(void *ctx, const char *name, char type, uint64_t start)
{
    kload *k = ctx;
    char up = (char)(type >= 'a' && type <= 'z' ? type - 32 : type);
    uint8_t binding = type == 'W' ? STB_WEAK
                    : (type >= 'A' && type <= 'Z') ? STB_GLOBAL : STB_LOCAL;

    if ((up != 'T' && up != 'W' && up != 'D' && up != 'B') || name[0] == '$')
        return 0;
    return add_sym(k->s, k->t, start, 0, binding, (up == 'T' || up == 'W') ? STT_FUNC : STT_OBJECT,
                   name, 0) < 0 ? -1 : 0;
}

/* Group the module symbols (name "sym\t[mod]") by module, in order, and
 * take them (and the x86_64 entry trampolines) out of the kernel tree; the
 * rest move by -delta. As perf's maps__split_kallsyms(). */
static int split_kallsyms(ps_symbols *s, symtree *t, uint64_t delta)
{
    size_t nr, i, k = 0;
    int32_t *v = t_inorder(t, &nr);

    if (v == NULL || (s->kmod_nodes = calloc(nr ? nr : 1, sizeof(*s->kmod_nodes))) == NULL ||
        (s->kmods = calloc(nr ? nr : 1, sizeof(*s->kmods))) == NULL) {
        free(v);
        return -1;
    }
    for (i = 0; i < nr; i++) {
        sym_node *nd = &t->n[v[i]];
        char *tab = strchr(nd->sym.name, '\t');

        if (tab != NULL) {
            kmod_syms *m = s->nr_kmods ? &s->kmods[s->nr_kmods - 1] : NULL;

            *tab = '\0';                /* the name is ours, in the arena */
            if (m == NULL || strcmp(m->name, tab + 1) != 0) {
                m = &s->kmods[s->nr_kmods++];
                m->name = tab + 1;
                m->first = k;
                m->nr = 0;
            }
            s->kmod_nodes[k++] = *nd;
            m->nr++;
            t_erase(t, v[i]);
        } else if (strcmp(nd->sym.name, "__entry_SYSCALL_64_trampoline") == 0) {
            t_erase(t, v[i]);
        } else {
            nd->sym.start -= delta;
            nd->sym.end -= delta;
        }
    }
    s->nr_kmod_nodes = k;
    free(v);
    return 0;
}

/* dso__load_kallsyms() into the kernel DSO, map being the kernel map. */
static void load_kallsyms(ps_symbols *s, dso *d, const ps_map *map, const char *path)
{
    const char *ref = strrchr(map->filename, ']');
    kload kl = { s, &d->syms };
    kfind kf;
    uint64_t delta = 0;
    int32_t first, last;

    if (strcmp(path, "/proc/kallsyms") == 0 && kallsyms_restricted())
        return;
    if (kallsyms_parse(path, &kl, kload_cb) < 0)
        return;
    if (map->pgoff != 0 && ref != NULL) {       /* ref_reloc_sym, e.g. "_text" */
        kf.name = ref + 1;
        kf.found = 0;
        if (kallsyms_parse(path, &kf, kfind_cb) < 0 || !kf.found)
            return;                             /* perf keeps the raw symbols */
        delta = kf.start - map->pgoff;
    }
    if (fixup_end(&d->syms, 1) < 0 || fixup_duplicate(&d->syms) < 0 ||
        split_kallsyms(s, &d->syms, delta) < 0)
        return;
    s->kernel_syms = 1;
    first = t_first(&d->syms);
    last = t_last(&d->syms);
    if (first != NIL) {
        s->kstart = d->syms.n[first].sym.start;
        s->kend = d->syms.n[last].sym.end;
    }
}

/* dso__load_kernel_sym() without vmlinux files: --kallsyms, else nothing
 * under --symfs, else the kallsyms dso__find_kallsyms() picks. */
static void load_kernel(ps_symbols *s, dso *d, const ps_map *map)
{
    char path[PS_PATH_MAX];
    loadctx x;

    memset(&x, 0, sizeof(x));
    expected_build_id(s, map, "[kernel.kallsyms]", &x);
    if (s->kallsyms != NULL) {
        if (pathf(path, sizeof(path), "%s", s->kallsyms) < 0)
            return;
    } else if (s->symfs[0] != '\0' || find_kallsyms(s, &x, path, sizeof(path)) < 0) {
        return;
    }
    load_kallsyms(s, d, map, path);
}

static dso *kernel_dso(ps_symbols *s, const ps_map *map)
{
    int guest = strncmp(map->filename, "[guest.kernel.kallsyms", 22) == 0;
    const char *name = guest ? "[guest.kernel.kallsyms]" : "[kernel.kallsyms]";
    dso *d = dso_findnew(s, DSO_KERNEL, name, name, NULL, 0, 0);

    if (d == NULL || d->loaded)
        return d;
    d->loaded = 1;
    if (!guest) {
        load_kernel(s, d, map);
        s->kernel = d;
    }
    return dso_done(s, d);
}

/* kmod_path__parse(): where a module path's ".ko" would be (before a
 * .gz/.xz suffix), or NULL; a bracketed name is a module unless it is one
 * of the kernel's own. */
static const char *kmod_ext(const char *path, const char **basep, int *kmod)
{
    static const char *const own[] = {
        "[kernel.kallsyms]", "[guest.kernel.kallsyms", "[vdso]", "[vdso32]", "[vdsox32]",
        "[vsyscall]"
    };
    const char *base = strrchr(path, '/'), *ext = strrchr(path, '.');
    size_t i;

    *basep = base = base ? base + 1 : path;
    *kmod = 0;
    if (base[0] == '[') {
        *kmod = 1;
        for (i = 0; i < PS_ARRAY_SIZE(own); i++)
            if (strncmp(base, own[i], strlen(own[i])) == 0)
                *kmod = 0;
        return NULL;
    }
    if (ext == NULL)
        return NULL;
    if (!strcmp(ext, ".gz") || !strcmp(ext, ".xz"))
        ext -= 3;
    if (ext > base)
        *kmod = strncmp(ext, ".ko", 3) == 0;
    return ext;
}

static int is_kmod_path(const char *path)
{
    const char *base;
    int kmod;

    kmod_ext(path, &base, &kmod);
    return kmod;
}

/* kmod_path__parse_name(): "[name]" for a module path (dashes become
 * underscores), the base name otherwise; bracketed names stay. */
static void module_name(const char *path, char *buf, size_t size)
{
    const char *base, *ext;
    int kmod;
    size_t i;

    ext = kmod_ext(path, &base, &kmod);
    if (ext == NULL) {
        snprintf(buf, size, "%s", base);
        return;
    }
    if (kmod)
        snprintf(buf, size, "[%.*s]", (int)(ext - base), base);
    else
        snprintf(buf, size, "%s", base);
    for (i = 0; buf[i]; i++)
        if (buf[i] == '-')
            buf[i] = '_';
}

/* The name perf prints for a module: the path of a kernel BUILD_ID entry
 * naming the same module when there is one (perf made that DSO while
 * reading the header and finds it again by its "[name]"), else "[name]". */
static const char *module_print_name(const ps_symbols *s, const char *name)
{
    char other[PS_PATH_MAX];
    uint32_t i;

    if (s->feat == NULL || !ps_features_has(s->feat, PS_HEADER_BUILD_ID))
        return name;
    for (i = 0; i < s->feat->build_ids.nr; i++) {
        const ps_feat_build_id *e = &s->feat->build_ids.entries[i];
        unsigned mode = e->misc & 7u;

        if (e->filename == NULL || (mode != 1 && mode != 4) || !is_kmod_path(e->filename))
            continue;
        module_name(e->filename, other, sizeof(other));
        if (strcmp(other, name) == 0)
            return e->filename;
    }
    return name;
}

/* A module's DSO: its kallsyms symbols, relative to its map, if the
 * kernel was loaded before the module was first looked at (perf hands
 * them out when it loads the kernel, to modules not loaded yet). */
static dso *module_dso(ps_symbols *s, const ps_map *map)
{
    char name[PS_PATH_MAX];
    dso *d;
    size_t i, j;

    module_name(map->filename, name, sizeof(name));
    if ((d = dso_findnew(s, DSO_MODULE, name, module_print_name(s, name), NULL, 0, 0)) == NULL ||
        d->loaded)
        return d;
    d->loaded = 1;
    if (!s->kernel_syms)
        return d;
    for (i = 0; i < s->nr_kmods; i++) {
        if (strcmp(s->kmods[i].name, name) != 0)
            continue;
        for (j = 0; j < s->kmods[i].nr; j++) {
            const sym_node *nd = &s->kmod_nodes[s->kmods[i].first + j];

            if (t_insert(&d->syms, nd->sym.start - map->start, nd->sym.end - map->start,
                         nd->binding, nd->type, nd->sym.name) < 0)
                return dso_done(s, d);
        }
    }
    return dso_done(s, d);
}

/* KSYMBOL: one symbol named like its map over the whole of it. */
static dso *ksymbol_dso(ps_symbols *s, const ps_map *map)
{
    char key[64];
    dso *d;

    snprintf(key, sizeof(key), "%p", (const void *)map);
    if ((d = dso_findnew(s, DSO_KSYMBOL, key, map->filename, NULL, 0, 0)) == NULL || d->loaded)
        return d;
    d->loaded = 1;
    t_insert(&d->syms, 0, map->end - map->start, STB_GLOBAL, STT_FUNC, d->name);
    return dso_done(s, d);
}

/* ------------------------------------------------------------------------ */
/* Public                                                                   */

int ps_symbols__new(ps_symbols **out, const ps_symbols_opts *opts,
                    const ps_features *feat, ps_error *err)
{
    ps_symbols *s = calloc(1, sizeof(*s));
    const char *home = getenv("HOME");

    *out = NULL;
    if (s == NULL)
        return ps_error__set(err, PS_ENOMEM, PS_NO_OFFSET, "symbols: out of memory");
    ps_arena__init(&s->arena);
    s->feat = feat;
    s->demangle = opts ? opts->demangle : 1;
    s->symfs = arena_name(s, opts && opts->symfs ? opts->symfs : "");
    s->kallsyms = opts && opts->kallsyms ? arena_name(s, opts->kallsyms) : NULL;
    if (s->symfs == NULL || (opts && opts->kallsyms && s->kallsyms == NULL)) {
        ps_symbols__free(s);
        return ps_error__set(err, PS_ENOMEM, PS_NO_OFFSET, "symbols: out of memory");
    }
    if (opts) { s->warn = opts->warn; s->warn_ctx = opts->warn_ctx; }
    /* perf: --symfs moves the build-id cache to SYMFS/.debug */
    if (opts && opts->symfs && opts->symfs[0])
        snprintf(s->buildid_dir, sizeof(s->buildid_dir), "%s/.debug", opts->symfs);
    else if (opts && opts->buildid_dir)
        snprintf(s->buildid_dir, sizeof(s->buildid_dir), "%s", opts->buildid_dir);
    else
        snprintf(s->buildid_dir, sizeof(s->buildid_dir), "%s%s.debug", home ? home : "",
                 home ? "/" : "");
    elf_version(EV_CURRENT);
    *out = s;
    return PS_OK;
}

void ps_symbols__free(ps_symbols *s)
{
    size_t i;

    if (s == NULL)
        return;
    for (i = 0; i < s->nr_buckets; i++) {
        dso *d;

        for (d = s->buckets[i]; d != NULL; d = d->next)
            t_free(&d->syms);
    }
    free(s->buckets);
    free(s->by_map);
    free(s->kmod_nodes);
    free(s->kmods);
    free(s->vdso_image);
    ps_arena__free(&s->arena);
    free(s);
}

/* Which DSO perf gives a map, loaded now if it is its first use. */
static dso *map_dso(ps_symbols *s, const ps_map *map, uint32_t pid)
{
    dso *d = NULL;

    switch (map->kind) {
    case PS_MAP_FILE:    d = file_dso(s, map); break;
    case PS_MAP_VDSO:    d = vdso_dso(s, map); break;
    case PS_MAP_ANON:
    case PS_MAP_NO_DSO:  d = perfmap_dso(s, map, pid); break;
    case PS_MAP_KERNEL:  d = kernel_dso(s, map); break;
    case PS_MAP_MODULE:  d = module_dso(s, map); break;
    case PS_MAP_KSYMBOL: d = ksymbol_dso(s, map); break;
    default:             break;
    }
    return d;
}

/* The map-relative address perf looks symbols up with (map->map_ip). */
static uint64_t map_rel(const ps_map *map, uint64_t addr)
{
    switch (map->kind) {
    case PS_MAP_KERNEL:
        return addr;
    case PS_MAP_MODULE:
    case PS_MAP_KSYMBOL:
        return addr - map->start;
    case PS_MAP_ANON:
    case PS_MAP_NO_DSO:
        return anon_name(map) ? addr : ps_map__rel(map, addr);
    default:
        return ps_map__rel(map, addr);
    }
}

void ps_symbols__resolve(ps_symbols *s, const ps_map *map, uint32_t pid,
                         uint64_t addr, ps_resolved *out)
{
    const sym_node *nd;
    uint64_t map_start;
    dso **slot = NULL, *d;
    int kernel_before;

    memset(out, 0, sizeof(*out));
    out->dso = "[unknown]";
    out->rel = addr;
    if (map == NULL)
        return;
    kernel_before = s->kernel_syms;
    if (by_map_reserve(s) == 0) {
        slot = by_map_slot(s, map);
        if (*slot == NULL)
            s->by_map_nr++;
    }
    if ((d = slot && *slot ? *slot : map_dso(s, map, pid)) == NULL)
        return;
    if (slot)
        *slot = d;
    map_start = map->start;
    if (map->kind == PS_MAP_KERNEL && d == s->kernel && s->kernel_syms) {
        /* perf shrank the kernel map to its symbols when it loaded them:
         * later lookups outside find no map at all */
        if (kernel_before && (addr < s->kstart || addr >= s->kend))
            return;
        map_start = s->kstart;
    }
    out->dso = d->name;
    out->rel = map_rel(map, addr);
    if ((nd = t_find(&d->syms, out->rel)) == NULL)
        return;
    out->sym = &nd->sym;
    /* perf's symoff: a zero-size symbol hit at its start is offset from
     * the map start (__symbol__fprintf_symname_offs) */
    out->symoff = out->rel < nd->sym.end ? out->rel - nd->sym.start
                                         : out->rel - map_start - nd->sym.start;
}

int ps_symbols__kernel_extent(const ps_symbols *s, uint64_t *start, uint64_t *end)
{
    if (!s->kernel_syms)
        return 0;
    *start = s->kstart;
    *end = s->kend;
    return 1;
}

const char *ps_symbols__take_warning(ps_symbols *s)
{
    if (!s->has_warning)
        return NULL;
    s->has_warning = 0;
    return s->warning;
}

uint64_t ps_symbols__nr_dsos(const ps_symbols *s) { return s->nr_dsos; }
uint64_t ps_symbols__nr_syms(const ps_symbols *s) { return s->nr_syms; }
