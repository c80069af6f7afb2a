/* SPDX-License-Identifier: MIT */
/*
 * unwind_dso.c - the file perf's unwinder reads a DSO from, and what it
 * makes of it: the bytes behind a mapped address (unwind_mem.c), the
 * modules given to libdwfl (unwind_space.c) and the DSO type perf's gate
 * looks at (unwind_gate.c) all come from here. Also the chained hash table
 * these files and unwind_gate.c's gates live in.
 *
 * "The file" is the one perf's dso__data_open() finds: the build-id cache
 * entry when the DSO has a build-id, else the path under --symfs; regular
 * files only. For a [vdso] that the BUILD_ID feature does not name, perf's
 * file is a copy of its own vdso: sym_user.c's image of this process's,
 * used unless --symfs hides it (then the [vdso] has no file).
 *
 * Layer: below unwind_mem.c, unwind_gate.c and unwind_space.c, above
 * sym_user.c, sym_buildid.c and sym_io.c; calls no other unwind file.
 * Ownership: entries and paths live in the unwinder's arena, the bucket
 * arrays and the vdso copy are the unwinder's (ps_unwinder__free()).
 */
#include <gelf.h>
#include <stddef.h>
#include <sys/auxv.h>
#include <unistd.h>
#include "sym_user.h"
#include "unwind_int.h"

/* FNV-1a over n bytes, on from h (FNV_OFFSET to start). */
uint64_t ps_unwind__hash_bytes(const void *p, size_t n, uint64_t h)
{
    const uint8_t *b = p;

    while (n-- > 0)
        h = (h ^ *b++) * UINT64_C(0x100000001b3);
    return h;
}

struct node *ps_unwind__table_find(const struct table *t, uint64_t hash, match_fn match,
                                   const void *key)
{
    struct node *n = NULL;

    if (t->nr_buckets != 0)
        for (n = t->buckets[hash & (t->nr_buckets - 1)]; n != NULL; n = n->next)
            if (n->hash == hash && match(n, key))
                break;
    return n;
}

/* Add n (its hash set); buckets double at one node each. @return 0 or -1 */
int ps_unwind__table_add(struct table *t, struct node *n)
{
    if (t->nr >= t->nr_buckets) {
        size_t nb = t->nr_buckets ? t->nr_buckets * 2 : 64, i;
        struct node **b = calloc(nb, sizeof(*b));

        if (b == NULL)
            return -1;
        for (i = 0; i < t->nr_buckets; i++) {
            while (t->buckets[i] != NULL) {
                struct node *m = t->buckets[i];

                t->buckets[i] = m->next;
                m->next = b[m->hash & (nb - 1)];
                b[m->hash & (nb - 1)] = m;
            }
        }
        free(t->buckets);
        t->buckets = b;
        t->nr_buckets = nb;
    }
    n->next = t->buckets[n->hash & (t->nr_buckets - 1)];
    t->buckets[n->hash & (t->nr_buckets - 1)] = n;
    t->nr++;
    return 0;
}

/* dso__type_fd(): the ELF class; a 32-bit x86-64 file is x32. */
static int elf_type(Elf *elf)
{
    GElf_Ehdr eh;

    if (elf == NULL || elf_kind(elf) != ELF_K_ELF)
        return DSO_TYPE_UNKNOWN;
    if (gelf_getclass(elf) == ELFCLASS64)
        return DSO_TYPE_64BIT;
    if (gelf_getehdr(elf, &eh) == NULL)
        return DSO_TYPE_UNKNOWN;
    return eh.e_machine == EM_X86_64 ? DSO_TYPE_X32BIT : DSO_TYPE_32BIT;
}

/* perf's [vdso] DSO, unless the BUILD_ID feature names it, is a copy of
 * perf's own vdso; this process's stands in for it, as in sym_user.c. */
static int own_vdso_type(void)
{
    const unsigned char *img = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
    uint16_t machine;

    if (img == NULL || memcmp(img, ELFMAG, SELFMAG) != 0)
        return DSO_TYPE_UNKNOWN;
    if (img[EI_CLASS] == ELFCLASS64)
        return DSO_TYPE_64BIT;
    if (img[EI_CLASS] != ELFCLASS32)
        return DSO_TYPE_UNKNOWN;
    memcpy(&machine, img + offsetof(Elf32_Ehdr, e_machine), sizeof(machine));
    return machine == EM_X86_64 ? DSO_TYPE_X32BIT : DSO_TYPE_32BIT;
}

/* The bytes of that file: sym_user.c's copy of this process's vdso, copied
 * again because libelf reads an image in place (elf_memory() may write).
 * @return 0, or -1 without a ps_symbols or a vdso */
static int own_vdso(ps_unwinder *u)
{
    const uint8_t *img;
    size_t n;

    if (!u->vdso_read && u->syms != NULL) {
        u->vdso_read = 1;
        if ((img = ps_user__vdso_image(u->syms, &n)) != NULL && (u->vdso = malloc(n)) != NULL) {
            memcpy(u->vdso, img, n);
            u->vdso_size = n;
        }
    }
    return u->vdso != NULL ? 0 : -1;
}

static int file_matches(const struct node *n, const void *key)
{
    const struct dso_file *f = (const struct dso_file *)n, *k = key;

    return f->kind == k->kind && f->has_bid == k->has_bid && f->bid_size == k->bid_size &&
           memcmp(f->bid, k->bid, k->bid_size) == 0 && strcmp(f->name, k->name) == 0;
}

/* The path and type of the file dso__data_open() reads for map's DSO (a
 * file or [vdso] map, named and build-id'd as symbols.c does): the
 * build-id cache entry when the DSO has a build-id, then the file under
 * --symfs; regular files only. An own [vdso] is perf's temp copy of its
 * own vdso (own_vdso()), which --symfs hides. Looked for once per DSO.
 * @return the entry, or NULL when out of memory */
const struct dso_file *ps_unwind__dso_file(ps_unwinder *u, const ps_map *map)
{
    const ps_feat_build_id *e = NULL;
    char path[PS_PATH_MAX];
    struct dso_file k, *f;
    ps_loadctx x;
    int own = 0, found = 0, fd;

    memset(&k, 0, sizeof(k));
    k.name = map->filename;
    k.kind = map->kind;
    if (map->kind == PS_MAP_VDSO) {
        e = ps_build_id__header_entry(u->feat, map->filename);
        own = e == NULL && strcmp(map->filename, "[vdso]") == 0;
    }
    k.has_bid = ps_build_id__expected(k.bid, &k.bid_size, u->feat, e ? NULL : map,
                                      map->filename);
    k.node.hash = ps_unwind__hash_bytes(k.name, strlen(k.name), FNV_OFFSET ^ (uint64_t)k.kind);
    k.node.hash = ps_unwind__hash_bytes(k.bid, k.bid_size, k.node.hash);
    f = (struct dso_file *)ps_unwind__table_find(&u->files, k.node.hash, file_matches, &k);
    if (f != NULL)
        return f;
    if ((f = ps_arena__alloc(&u->arena, sizeof(*f))) == NULL)
        return NULL;
    *f = k;
    f->type = DSO_TYPE_UNKNOWN;
    memset(&x, 0, sizeof(x));
    x.long_name = map->filename;
    x.is_vdso = map->kind == PS_MAP_VDSO;
    x.has_bid = k.has_bid;
    memcpy(x.bid, k.bid, sizeof(x.bid));
    x.bid_size = k.bid_size;
    if (u->syms != NULL && x.has_bid)
        found = ps_user__cache_path(u->syms, &x, 0, path, sizeof(path)) == 0 &&
                ps_file__is_regular(path);
    if (!found && own && !u->symfs[0]) {
        f->type = own_vdso_type();
        f->own_image = own_vdso(u) == 0;
    } else if (!found && !own) {
        found = ps_path__join(path, sizeof(path), u->symfs, map->filename) == 0 &&
                ps_file__is_regular(path);
    }
    if (found && (f->path = ps_arena__strndup(&u->arena, path, strlen(path))) != NULL &&
        (fd = ps_file__open_regular(path)) >= 0) {
        Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);

        f->type = elf_type(elf);
        elf_end(elf);
        close(fd);
    }
    ps_unwind__table_add(&u->files, &f->node);     /* uncached on failure: found again */
    return f;
}

/* 1 when libdwfl gets map's file (see ps_unwind__dso_file()). */
int ps_unwind__has_file(const ps_map *map)
{
    return map != NULL && (map->kind == PS_MAP_FILE || map->kind == PS_MAP_VDSO);
}
