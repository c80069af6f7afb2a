/* SPDX-License-Identifier: MIT */
/*
 * unwind_mem.c - the sample's memory as perf's libunwind reads it
 * (access_mem()), for libdwfl's memory_read callback and for
 * unwind_guess.c's and the driver's own reads:
 *
 *  - the stack dump for [sp, sp + dyn_size - 8) (perf's range check drops
 *    the last word);
 *  - anything else the mapped file's bytes at addr - map start + pgoff
 *    (a [vdso]'s at addr - map start), the file unwind_dso.c finds;
 *  - an address in a map whose file cannot be read there (anonymous
 *    memory, [stack], past its end) reads as 0: perf's failure code
 *    reaches libunwind as a success. Only an address outside every map is
 *    unreadable (mem_word()).
 *
 * Layer: above unwind_dso.c and machine.c (which map is at an address, as
 * of the sample's time). A file read here is mapped once and kept mapped
 * (not open) until the unwinder is freed: the same few files are read
 * thousands of times (unwind_guess.c reads the code at each pc it
 * guesses from), and an open, stat and read for each word was most of
 * the time of a capture of a real program. Writes the ctx's count of zero
 * reads, the unwinder's file_v (and unwind_dso.c's table, through it).
 */
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sym_io.h"
#include "unwind_int.h"

/* f's file, mapped on first use: its bytes, or NULL (not mappable: read
 * with pread() then) */
static const struct file_bytes *file_bytes(ps_unwinder *u, const struct dso_file *f)
{
    uint64_t *at = ps_u64map__get(&u->file_v_at, (uintptr_t)f);
    struct file_bytes b = { NULL, 0 };
    struct stat st;
    int fd;

    if (at != NULL)
        return &u->file_v[*at];
    if ((fd = ps_file__open_regular(f->path)) >= 0) {
        if (fstat(fd, &st) == 0 && st.st_size > 0 && (uint64_t)st.st_size <= SIZE_MAX) {
            void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);

            if (m != MAP_FAILED) {
                b.p = m;
                b.n = (size_t)st.st_size;
            }
        }
        close(fd);
    }
    if (b.p == NULL)
        return NULL;
    if ((u->nr_file_v == u->cap_file_v &&
         ps_grow((void **)&u->file_v, &u->cap_file_v, u->nr_file_v + 1,
                 sizeof(*u->file_v)) < 0) ||
        ps_u64map__put(&u->file_v_at, (uintptr_t)f, u->nr_file_v) < 0) {
        munmap((void *)b.p, b.n);
        return NULL;
    }
    u->file_v[u->nr_file_v] = b;
    return &u->file_v[u->nr_file_v++];
}

void ps_unwind__mem_free(ps_unwinder *u)
{
    size_t i;

    for (i = 0; i < u->nr_file_v; i++)
        munmap((void *)u->file_v[i].p, u->file_v[i].n);
    free(u->file_v);
    ps_u64map__free(&u->file_v_at);
    u->file_v = NULL;
    u->nr_file_v = u->cap_file_v = 0;
}

/* The offset in its file of addr, inside map: perf gives [vdso] maps a
 * zero pgoff. */
static uint64_t file_off(const ps_map *map, uint64_t addr)
{
    return map->kind == PS_MAP_VDSO ? addr - map->start : ps_map__rel(map, addr);
}

/*
 * A word of memory outside the stack dump, as perf's access_mem(): the
 * bytes of the file mapped at addr (access_dso_mem()). Where the map's
 * DSO cannot be read (no file: anonymous memory, [stack]; past its end)
 * perf's failure reaches libunwind as a success, with the value 0; only
 * an address no map covers is an error.
 * @return 0, or -1 when no map covers addr
 */
static int mem_word(const struct ctx *c, uint64_t addr, uint64_t *out)
{
    const ps_map *map = ps_machine__find_user_map(c->u->m, c->smp->pid, c->smp->tid,
                                                  c->t, addr);
    const struct file_bytes *fb;
    const struct dso_file *f;
    uint64_t off;
    uint8_t b[8];
    int fd;

    if (map == NULL)
        return -1;
    *out = 0;
    if (!ps_unwind__has_file(map) || (f = ps_unwind__dso_file(c->u, map)) == NULL)
        return 0;
    off = file_off(map, addr);
    if (f->own_image) {
        if (off <= c->u->vdso_size && c->u->vdso_size - off >= sizeof(b))
            memcpy(out, c->u->vdso + off, sizeof(b));
        return 0;
    }
    if (f->path == NULL)
        return 0;
    if ((fb = file_bytes(c->u, f)) != NULL) {
        /* as pread(): the word only where the file has all 8 bytes */
        if (off <= fb->n && fb->n - off >= sizeof(b))
            memcpy(out, fb->p + off, sizeof(b));
        return 0;
    }
    if ((fd = ps_file__open_regular(f->path)) < 0)
        return 0;
    if (pread(fd, b, sizeof(b), (off_t)off) == (ssize_t)sizeof(b))
        memcpy(out, b, sizeof(b));
    close(fd);
    return 0;
}

/* The word at addr as libunwind sees it under perf: the stack dump for
 * [sp, sp + dyn_size - 8), else mem_word(). @return 0 or -1 */
int ps_unwind__read_word(const struct ctx *c, uint64_t addr, uint64_t *out)
{
    if (addr + 8 < addr)
        return -1;
    if (addr >= c->sp && addr + 8 < c->stack_end) {
        memcpy(out, c->smp->stack_data + (addr - c->sp), sizeof(*out));
        return 0;
    }
    return mem_word(c, addr, out);
}

/* libdwfl's memory_read; counts the zeros, which frame_cb() asks about. */
bool ps_unwind__memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
    struct ctx *c = ((struct space *)arg)->cur;
    uint64_t v;

    (void)dwfl;
    if (c == NULL || ps_unwind__read_word(c, addr, &v) < 0)
        return false;
    c->nr_zero += v == 0;
    *result = v;
    return true;
}
