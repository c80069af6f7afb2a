/* SPDX-License-Identifier: MIT */
/*
 * callchain.c - perf report's call graph trees (callchain.h): built as
 * perf's callchain_append() builds them, sorted and printed as its report
 * prints them (ui/stdio/hist.c), so that the text is the same.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include "callchain.h"
#include "rbshape.h"
#include "../libparse/util.h"

struct cc_node {
    cc_node  *parent;
    cc_ent   *val;              /* the node's run of entries */
    size_t    nval, capval;
    cc_node **kid;              /* children, as made */
    size_t    nkid, capkid;
    cc_node  *last;             /* the child the last walk took */
    int       mixed;            /* a child starts with an inlined or an
                                 * unresolved entry (see append_kids()) */
    rbshape   tree;             /* their order: perf's red-black tree of them,
                                 * shaped alike (its comparison is not a
                                 * total order once inlined entries, compared
                                 * by name, meet others) */
    cc_node **out;              /* the children shown, sorted (cc_sort) */
    size_t    nout, capout;
    uint64_t  hit, children_hit;        /* chains ending here, below */
    uint64_t  count, children_count;    /* the same in chains */
};

#define CUMUL(n)  ((n)->hit + (n)->children_hit)
#define CUMUL_COUNT(n) ((n)->count + (n)->children_count)

/* --- parameters -------------------------------------------------------------- */

void cc_params_default(cc_params *p)
{
    memset(p, 0, sizeof(*p));
    p->mode = CC_GRAPH;
    p->min_percent = 0.5;
    p->value = CC_PERCENT;
}

/* perf matches a word by the prefix typed ("g" is graph) */
static int word_is(const char *tok, const char *word)
{
    return *tok != '\0' && strncmp(word, tok, strlen(tok)) == 0;
}

static int parse_word(cc_params *p, const char *tok)
{
    static const struct { const char *w; int kind, v; } words[] = {
        { "graph", 0, CC_GRAPH }, { "flat", 0, CC_FLAT }, { "fractal", 0, CC_FRACTAL },
        { "folded", 0, CC_FOLDED }, { "caller", 1, 1 }, { "callee", 1, 0 },
        { "function", 2, 0 }, { "percent", 3, CC_PERCENT }, { "period", 3, CC_PERIOD },
        { "count", 3, CC_COUNT },
    };
    size_t i;

    for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
        if (!word_is(tok, words[i].w))
            continue;
        if (words[i].kind == 0)
            p->mode = words[i].v;
        else if (words[i].kind == 1) {
            p->caller = words[i].v;
            p->order_set = 1;
        } else if (words[i].kind == 3)
            p->value = words[i].v;
        return 1;
    }
    return 0;
}

int cc_params_parse(cc_params *p, const char *arg, char *err, size_t errsize)
{
    char buf[256], *tok, *save = NULL, *end;
    int min_set = 0;

    if (strlen(arg) >= sizeof(buf)) {
        snprintf(err, errsize, "--call-graph: '%s' is too long", arg);
        return -1;
    }
    strcpy(buf, arg);
    for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
        if (word_is(tok, "none")) {
            p->mode = CC_NONE;
            return 0;
        }
        if (parse_word(p, tok))
            continue;
        if (word_is(tok, "address") || word_is(tok, "srcline") || word_is(tok, "branch")) {
            snprintf(err, errsize, "--call-graph: sort key '%s' is not supported "
                     "(only function)", tok);
            return -1;
        }
        if (!min_set) {
            p->min_percent = strtod(tok, &end);
            min_set = 1;
        } else {
            p->print_limit = (uint32_t)strtoul(tok, &end, 0);
        }
        if (end == tok || *end != '\0') {
            snprintf(err, errsize, "--call-graph: '%s' is not a print type, order, key, "
                     "value or number", tok);
            return -1;
        }
    }
    return 0;
}

/* --- the tree ------------------------------------------------------------- */

static int cmp_u64(uint64_t a, uint64_t b)
{
    return (a > b) - (a < b);
}

static int cmp_dso(const cc_ent *a, const cc_ent *b)
{
    int k = cmp_u64(a->dso_ord, b->dso_ord);

    return k ? k : cmp_u64(a->dso_seq, b->dso_seq);
}

/* perf's match_chain() with key "function": <0 when c (in the tree) comes
 * before n (the new entry) in its order, 0 when they are one entry */
static int match(const cc_ent *c, const cc_ent *n)
{
    int k;

    if (c->dso == n->dso && c->start == n->start && c->name != NULL && n->name != NULL &&
        !c->inlined && !n->inlined)
        return 0;               /* the common case: one symbol */
    if (c->name != NULL && n->name != NULL) {
        if (c->inlined || n->inlined) {
            k = strcmp(c->name, n->name);
            return (k > 0) - (k < 0);
        }
        if (c->dso != n->dso)
            return cmp_dso(c, n);
        return cmp_u64(c->start, n->start);
    }
    if (c->dso != n->dso)
        return cmp_dso(c, n);
    return cmp_u64(c->ip, n->ip);
}

static int put_vals(cc_node *nd, const cc_ent *ents, size_t n)
{
    if (nd->nval + n > nd->capval &&
        ps_grow((void **)&nd->val, &nd->capval, nd->nval + n, sizeof(*nd->val)) < 0)
        return -1;
    memcpy(nd->val + nd->nval, ents, n * sizeof(*ents));
    nd->nval += n;
    return 0;
}

static int plain(const cc_ent *e);

/* kid as nd's child number nd->nkid (its payload in nd->tree) */
static int put_kid(cc_node *nd, cc_node *kid)
{
    if (nd->nkid == nd->capkid &&
        ps_grow((void **)&nd->kid, &nd->capkid, nd->nkid + 1, sizeof(*nd->kid)) < 0)
        return -1;
    nd->kid[nd->nkid++] = kid;
    kid->parent = nd;
    nd->mixed |= !plain(&kid->val[0]);
    nd->last = kid;
    return 0;
}

typedef struct kid_key {
    const cc_node *nd;
    const cc_ent  *e;
} kid_key;

/* rbshape_cmp: perf's append_chain_children() walk, which goes left of a
 * child that comes before the entry */
static int kid_cmp(void *arg, uint32_t payload)
{
    const kid_key *k = arg;
    int m = match(&k->nd->kid[payload]->val[0], k->e);

    return (m > 0) - (m < 0);
}

/* nd's children in the tree's order into *out (malloc'd); -1 out of memory */
static int kids_inorder(const cc_node *nd, uint32_t **out)
{
    if ((*out = malloc((nd->nkid ? nd->nkid : 1) * sizeof(**out))) == NULL)
        return -1;
    rbshape_inorder(&nd->tree, *out);
    return 0;
}

static void node_free(cc_node *nd)
{
    size_t i;

    if (nd == NULL)
        return;
    for (i = 0; i < nd->nkid; i++)
        node_free(nd->kid[i]);
    free(nd->kid);
    rbshape_free(&nd->tree);
    free(nd->val);
    free(nd->out);
    free(nd);
}

void cc_free(cc_node *root)
{
    node_free(root);
}

/* A new node of the rest of the chain, ending there (add_child()). */
static cc_node *new_leaf(const cc_ent *ents, size_t n, uint64_t period)
{
    cc_node *nd = calloc(1, sizeof(*nd));

    if (nd == NULL || put_vals(nd, ents, n) < 0) {
        free(nd);
        return NULL;
    }
    nd->hit = period;
    nd->count = 1;
    return nd;
}

static int append_chain(cc_node *nd, const cc_ent *ents, size_t n, size_t pos, uint64_t period,
                        cc_node **leaf);

/* the chain from pos among nd's children (append_chain_children()) */
static int plain(const cc_ent *e)
{
    return e->name != NULL && !e->inlined;
}

static int append_kids(cc_node *nd, const cc_ent *ents, size_t n, size_t pos, uint64_t period,
                       cc_node **leaf)
{
    kid_key k = { nd, &ents[pos] };
    uint32_t i;
    int found;

    /* Among children that all start with a resolved, not inlined entry,
     * perf's comparison is a total order, so its walk finds the child
     * that matches whenever there is one: the one the last walk took,
     * as a rule. (Otherwise the walk itself decides.) */
    if (nd->last != NULL && !nd->mixed && plain(&ents[pos]) &&
        match(&nd->last->val[0], &ents[pos]) == 0) {
        if (append_chain(nd->last, ents, n, pos, period, leaf) < 0)
            return -1;
        nd->children_hit += period;
        nd->children_count++;
        return 0;
    }
    if ((i = rbshape_findnew(&nd->tree, kid_cmp, &k, (uint32_t)nd->nkid, &found)) == UINT32_MAX)
        return -1;
    if (found) {
        nd->last = nd->kid[i];
        if (append_chain(nd->kid[i], ents, n, pos, period, leaf) < 0)
            return -1;
    } else {
        cc_node *kid = new_leaf(ents + pos, n - pos, period);

        if (kid == NULL || put_kid(nd, kid) < 0) {
            node_free(kid);
            return -1;
        }
        *leaf = kid;
    }
    nd->children_hit += period;
    nd->children_count++;
    return 0;
}

/* child number i (made) into nd's tree where its first entry goes */
static int insert_kid(cc_node *nd, uint32_t i)
{
    kid_key k = { nd, &nd->kid[i]->val[0] };
    int found;

    return rbshape_findnew(&nd->tree, kid_cmp, &k, i, &found) == UINT32_MAX ? -1 : 0;
}

/* nd keeps its first k entries; the rest and its children go to a new
 * only child (split_add_child()), and the chain, if it goes on, to a
 * second one */
static int split(cc_node *nd, size_t k, const cc_ent *ents, size_t n, size_t pos, uint64_t period,
                 cc_node **leaf)
{
    cc_node *tail = calloc(1, sizeof(*tail));
    size_t i;

    if (tail == NULL || put_vals(tail, nd->val + k, nd->nval - k) < 0) {
        free(tail);
        return -1;
    }
    tail->kid = nd->kid;
    tail->nkid = nd->nkid;
    tail->capkid = nd->capkid;
    tail->tree = nd->tree;
    tail->mixed = nd->mixed;
    tail->last = nd->last;
    for (i = 0; i < tail->nkid; i++)
        tail->kid[i]->parent = tail;
    rbshape_init(&nd->tree);
    nd->mixed = 0;
    nd->last = NULL;
    tail->hit = nd->hit;
    tail->children_hit = nd->children_hit;
    tail->count = nd->count;
    tail->children_count = nd->children_count;
    nd->kid = NULL;
    nd->nkid = nd->capkid = 0;
    nd->nval = k;
    if (put_kid(nd, tail) < 0 || insert_kid(nd, 0) < 0) {
        node_free(tail);
        return -1;
    }
    nd->children_hit = CUMUL(tail);
    nd->children_count = CUMUL_COUNT(tail);
    if (pos < n) {
        cc_node *rest = new_leaf(ents + pos, n - pos, period);

        nd->hit = 0;
        nd->count = 0;
        nd->children_hit += period;
        nd->children_count++;
        if (rest == NULL || put_kid(nd, rest) < 0) {
            node_free(rest);
            return -1;
        }
        if (insert_kid(nd, 1) < 0)
            return -1;
        *leaf = rest;
    } else {
        nd->hit = period;
        nd->count = 1;
        *leaf = nd;
    }
    return 0;
}

/* nd's first entry is the chain's at pos (append_chain()) */
static int append_chain(cc_node *nd, const cc_ent *ents, size_t n, size_t pos, uint64_t period,
                        cc_node **leaf)
{
    size_t k = 0;

    while (k < nd->nval && pos + k < n && match(&nd->val[k], &ents[pos + k]) == 0)
        k++;
    if (k < nd->nval)
        return split(nd, k, ents, n, pos + k, period, leaf);
    if (pos + k == n) {
        nd->hit += period;
        nd->count++;
        *leaf = nd;
        return 0;
    }
    return append_kids(nd, ents, n, pos + k, period, leaf);
}

int cc_append(cc_node **root, const cc_ent *ents, size_t n, uint64_t period, cc_node **leaf)
{
    cc_node *end = NULL;

    if (leaf != NULL)
        *leaf = NULL;
    if (n == 0)
        return 0;
    if (*root == NULL && (*root = calloc(1, sizeof(**root))) == NULL)
        return -1;
    if (append_kids(*root, ents, n, 0, period, &end) < 0)
        return -1;
    if (leaf != NULL)
        *leaf = end;
    return 0;
}

/* Only the end's own sums: its ancestors' children sums are made again
 * from the ends when the tree is sorted (sum_kids()). */
void cc_replay(cc_node *leaf, uint64_t period)
{
    leaf->hit += period;
    leaf->count++;
}

size_t cc_leaf_len(const cc_node *leaf)
{
    return leaf->nval;
}

/* merge_chain_branch(): src's chains, path by path, into dst */
static int merge_node(cc_node *dst, const cc_node *src, cc_ent **path, size_t *len, size_t *cap)
{
    size_t old = *len, i;
    cc_node *end;
    uint32_t *order;

    if (*len + src->nval > *cap && ps_grow((void **)path, cap, *len + src->nval, sizeof(**path)) < 0)
        return -1;
    if (src->nval > 0)          /* (the root has no entries) */
        memcpy(*path + *len, src->val, src->nval * sizeof(**path));
    *len += src->nval;
    if (src->hit && *len > 0 && append_kids(dst, *path, *len, 0, src->hit, &end) < 0)
        return -1;
    if (kids_inorder(src, &order) < 0)
        return -1;
    for (i = 0; i < src->nkid; i++)
        if (merge_node(dst, src->kid[order[i]], path, len, cap) < 0) {
            free(order);
            return -1;
        }
    free(order);
    *len = old;
    return 0;
}

int cc_merge(cc_node **dst, cc_node *src)
{
    cc_ent *path = NULL;
    size_t len = 0, cap = 0;
    int rc;

    if (src == NULL)
        return 0;
    if (*dst == NULL) {
        *dst = src;
        return 0;
    }
    rc = merge_node(*dst, src, &path, &len, &cap);
    free(path);
    node_free(src);
    return rc;
}

/* --- sorting --------------------------------------------------------------- */

/* put nd into out sorted by key, larger first, after its equals (perf's
 * rb_insert_callchain()) */
static int put_sorted(cc_node *into, cc_node *nd, int by_hit)
{
    uint64_t key = by_hit ? nd->hit : CUMUL(nd);
    size_t lo = 0, hi = into->nout;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t k = by_hit ? into->out[mid]->hit : CUMUL(into->out[mid]);

        if (k < key)
            hi = mid;
        else
            lo = mid + 1;
    }
    if (into->nout == into->capout &&
        ps_grow((void **)&into->out, &into->capout, into->nout + 1, sizeof(*into->out)) < 0)
        return -1;
    memmove(into->out + lo + 1, into->out + lo, (into->nout - lo) * sizeof(*into->out));
    into->out[lo] = nd;
    into->nout++;
    return 0;
}

static int sort_graph(cc_node *nd, int rel, double min_frac, uint64_t min_hit)
{
    size_t i;

    uint32_t *order;
    int rc = 0;

    nd->nout = 0;
    if (rel)
        min_hit = (uint64_t)ceil((double)nd->children_hit * min_frac);
    if (kids_inorder(nd, &order) < 0)
        return -1;
    for (i = 0; i < nd->nkid && rc == 0; i++) {
        cc_node *kid = nd->kid[order[i]];

        if ((rc = sort_graph(kid, rel, min_frac, min_hit)) == 0 && CUMUL(kid) >= min_hit)
            rc = put_sorted(nd, kid, 0);
    }
    free(order);
    return rc;
}

static int sort_flat(cc_node *root, cc_node *nd, uint64_t min_hit)
{
    uint32_t *order;
    size_t i;

    if (kids_inorder(nd, &order) < 0)
        return -1;
    for (i = 0; i < nd->nkid; i++)
        if (sort_flat(root, nd->kid[order[i]], min_hit) < 0) {
            free(order);
            return -1;
        }
    free(order);
    if (nd->hit && nd->hit >= min_hit)
        return put_sorted(root, nd, 1);
    return 0;
}

/* Each node's children sums from the chains' ends below it: what
 * append_kids() adds up along every walk, which cc_replay() does not. */
static void sum_kids(cc_node *nd)
{
    size_t i;

    nd->children_hit = 0;
    nd->children_count = 0;
    for (i = 0; i < nd->nkid; i++) {
        sum_kids(nd->kid[i]);
        nd->children_hit += CUMUL(nd->kid[i]);
        nd->children_count += CUMUL_COUNT(nd->kid[i]);
    }
}

int cc_sort(cc_node *root, const cc_params *p, uint64_t min_hit)
{
    if (root == NULL)
        return 0;
    sum_kids(root);
    switch (p->mode) {
    case CC_GRAPH: return sort_graph(root, 0, 0, min_hit);
    case CC_FRACTAL: return sort_graph(root, 1, p->min_percent / 100.0, 0);
    case CC_FLAT:
    case CC_FOLDED:
        root->nout = 0;
        return sort_flat(root, root, min_hit);
    default: return 0;
    }
}

/* --- printing ------------------------------------------------------------- */

typedef struct printer {
    FILE            *fp;
    const cc_params *p;
} printer;

static void ent_name(FILE *fp, const cc_ent *e)
{
    if (e->name != NULL)
        fprintf(fp, "%s%s", e->name, e->inlined ? " (inlined)" : "");
    else if (e->ip != 0)
        fprintf(fp, "0x%lx", (unsigned long)e->ip);
    else
        fputc('0', fp);         /* printf's "%#x" of 0 */
}

/* callchain_node__fprintf_value(); hit and count are the node's own in
 * folded mode, with its children's otherwise */
static void value(const printer *pr, uint64_t hit, uint64_t count, uint64_t total)
{
    switch (pr->p->value) {
    case CC_PERIOD: fprintf(pr->fp, "%lu", (unsigned long)hit); break;
    case CC_COUNT: fprintf(pr->fp, "%u", (unsigned)count); break;
    default: fprintf(pr->fp, "%.2f%%", total ? (double)hit * 100.0 / (double)total : 0.0); break;
    }
}

static void margin(const printer *pr, int left)
{
    fprintf(pr->fp, "%*s", 12 + left, "");
}

/* perf keeps the depth's pipes in an int: bit i of it is 1 << i, which the
 * machine takes modulo 32 */
static int bit(unsigned mask, int i)
{
    return (mask >> (i & 31)) & 1;
}

static void graph_line(const printer *pr, int depth, unsigned mask, int left)
{
    int i;

    margin(pr, left);
    for (i = 0; i < depth; i++)
        fputs(bit(mask, i) ? "|          " : "           ", pr->fp);
    fputc('\n', pr->fp);
}

static void graph_entry(const printer *pr, const cc_ent *e, uint64_t hit, uint64_t count,
                        int depth, unsigned mask, int first, uint64_t total, int left)
{
    int i;

    margin(pr, left);
    for (i = 0; i < depth; i++) {
        fputc(bit(mask, i) ? '|' : ' ', pr->fp);
        if (first && i == depth - 1) {
            fputs("--", pr->fp);
            value(pr, hit, count, total);
            fputs("--", pr->fp);
        } else {
            fputs("          ", pr->fp);
        }
    }
    ent_name(pr->fp, e);
    fputc('\n', pr->fp);
}

static unsigned shl(int i)
{
    return 1u << (i & 31);
}

/* __callchain__fprintf_graph() */
static void graph(const printer *pr, const cc_node *nd, uint64_t total, int depth, unsigned mask,
                  int left)
{
    int rel = pr->p->mode == CC_FRACTAL;
    uint64_t remaining = total, cumul_count = 0;
    unsigned new_mask = mask;
    const cc_node *kid = NULL;
    size_t i, j;

    for (i = 0; i < nd->nout; i++) {
        kid = nd->out[i];
        remaining -= CUMUL(kid);
        cumul_count += CUMUL_COUNT(kid);
        if (i + 1 == nd->nout && (!rel || !remaining))
            new_mask &= ~shl(depth - 1);
        graph_line(pr, depth, mask, left);
        for (j = 0; j < kid->nval; j++)
            graph_entry(pr, &kid->val[j], CUMUL(kid), CUMUL_COUNT(kid), depth, new_mask, j == 0,
                        total, left);
        graph(pr, kid, rel ? kid->children_hit : total, depth + 1, new_mask | shl(depth), left);
        if (i + 1 == pr->p->print_limit)
            break;
    }
    if (rel && remaining && remaining != total) {
        static const cc_ent rest = { 0, 0, 0, 0, NULL, "[...]", 0 };
        uint64_t count = 0;

        if (pr->p->value == CC_COUNT && kid != NULL) {
            if (nd->children_count <= cumul_count)
                return;
            count = nd->children_count - cumul_count;
        }
        new_mask &= ~shl(depth - 1);
        graph_entry(pr, &rest, remaining, count, depth, new_mask, 1, total, left);
    }
}

/* callchain__fprintf_graph(): a lone chain carrying all of the row goes
 * first without a percentage */
static void print_graph(const printer *pr, const cc_node *root, uint64_t total, uint64_t parent)
{
    size_t printed = 0, j;
    int left = 0, started = 0, any = 0;

    if (root->nout == 1 && CUMUL(root->out[0]) == parent) {
        const cc_node *nd = root->out[0];

        for (j = 0; j < nd->nval; j++) {
            if (j == 0 && pr->p->skip_first)
                continue;
            if (!started) {
                margin(pr, left);
                fputs("|\n", pr->fp);
                margin(pr, left);
                fputs("---", pr->fp);
                left += 3;
                started = 1;
            } else {
                margin(pr, left);
            }
            ent_name(pr->fp, &nd->val[j]);
            fputc('\n', pr->fp);
            any = 1;
            if (++printed == pr->p->print_limit)
                break;
        }
        root = nd;
    }
    if (pr->p->mode == CC_FRACTAL)
        total = parent;
    graph(pr, root, total, 1, 1, left);
    if (any || root->nout > 0)
        fputc('\n', pr->fp);
}

static void path(const printer *pr, const cc_node *nd, int folded, int *first)
{
    size_t j;

    if (nd == NULL)
        return;
    path(pr, nd->parent, folded, first);
    for (j = 0; j < nd->nval; j++) {
        /* perf's flat and folded printers leave out entries at or above
         * PERF_CONTEXT_MAX (an unwinder's 0xffffffffffffffff end mark);
         * its graph printer shows them */
        if (nd->val[j].ip >= PERF_CONTEXT_MAX)
            continue;
        if (folded) {
            if (!*first)
                fputc(';', pr->fp);
            *first = 0;
        } else {
            fputs("                ", pr->fp);
        }
        ent_name(pr->fp, &nd->val[j]);
        if (!folded)
            fputc('\n', pr->fp);
    }
}

void cc_print(FILE *fp, const cc_node *root, const cc_params *p, uint64_t total, uint64_t parent)
{
    printer pr = { fp, p };
    size_t i;

    if (root == NULL)
        return;
    if (p->mode == CC_GRAPH || p->mode == CC_FRACTAL) {
        print_graph(&pr, root, total, parent);
        return;
    }
    for (i = 0; i < root->nout; i++) {
        const cc_node *nd = root->out[i];
        int first = 1;

        if (p->mode == CC_FLAT) {
            fputs("           ", fp);
            value(&pr, CUMUL(nd), CUMUL_COUNT(nd), total);
            fputc('\n', fp);
            path(&pr, nd, 0, &first);
            fputc('\n', fp);
        } else {
            value(&pr, nd->hit, nd->count, total);
            fputc(' ', fp);
            path(&pr, nd, 1, &first);
            fputc('\n', fp);
        }
        if (i + 1 == p->print_limit)
            break;
    }
}
