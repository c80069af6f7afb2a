/* SPDX-License-Identifier: MIT */
/*
 * srcline.c - addr2line's answers from libdw (see srcline.h).
 *
 * What binutils' addr2line -i -f prints, and so what is reproduced here:
 *  - the line: the line-table row with the highest address <= addr in the
 *    sequence holding addr (the last row when several share it); none when
 *    addr is past a sequence's end;
 *  - the function: the innermost DW_TAG_subprogram / inlined_subroutine
 *    whose ranges hold addr, named by DW_AT_linkage_name (or the MIPS one)
 *    before DW_AT_name, through abstract origins and specifications;
 *  - then, only when that function is an inlined instance, one record per
 *    enclosing function: its name, with the file:line of the call
 *    (DW_AT_call_file / DW_AT_call_line of the one inside it);
 *  - nothing found at all ("??:0") when neither a line nor a function is
 *    known, unless an ELF symbol covers addr: binutils then names it and
 *    prints "??:?" (perf reads that as file "??", line 0), and a file
 *    name when the symbol follows an STT_FILE;
 *  - a file without .debug_info is read through the separate debug file
 *    binutils finds for it (dwsep.c), symbols included;
 *  - a file without DWARF (or whose DWARF binutils refuses) gets the
 *    symbol answers only.
 */
#include "srcline.h"

#include <elfutils/libdw.h>
#include <dwarf.h>
#include <fcntl.h>
#include <gelf.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bfdsym.h"
#include "dwcu.h"
#include "dwfunc.h"
#include "dwimage.h"
#include "dwline.h"
#include "dwsep.h"
#include "sym_io.h"
#include "u64map.h"
#include "util.h"

#define MAX_INLINE_NEST 1024    /* perf reads at most this many callers */

/* Where a file's opening stands (srcfile.opening). */
enum { OPEN_DONE, OPEN_QUEUED, OPEN_WORKER };

typedef struct srcfile {
    char            *path;      /* owned */
    int              fd;        /* -1: not opened (nothing found for it) */
    Elf             *elf;
    int              dfd;       /* the separate debug file binutils follows, or -1 */
    Elf             *delf;
    ps_dwimage       img;       /* the DWARF's file inflated, if compressed */
    Dwarf           *dw;
    ps_dwlines      *lines;     /* owned: .debug_line as binutils reads it */
    ps_bfdsyms      *syms;      /* owned: .symtab as binutils reads it */
    ps_dwfuncs      *funcs;     /* owned: each CU's functions as binutils has them */
    ps_dwcus        *cus;       /* owned: the CUs by their own ranges, where
                                 * .debug_aranges misses (dwcu.h) */
    int              no_dwarf;  /* binutils refuses its DWARF: symbols only */
    ps_u64map        bfd_files; /* libdw's name of a line-table file -> binutils'
                                 * (see bfd_filename) */
    ps_arena         names;     /* the names bfd_files holds */
    ps_u64map        bfd_names; /* function DIE offset -> the name binutils
                                 * now has for it (see innermost_name) */
    ps_srcinfo      *answers;   /* owned, each loc owned (malloc) */
    size_t           nr, cap;
    ps_u64map        by_addr;   /* address -> index in answers */
    struct srcfile  *next;      /* hash chain */
    atomic_int       opening;   /* OPEN_* (changed under mu) */
    struct srcfile  *queued;    /* the worker's queue (under mu) */
} srcfile;

struct ps_srcline {
    srcfile       **buckets;    /* owned */
    size_t          nr_buckets, nr_files;
    /* the worker that opens prefetched files; mu guards the queue, stop
     * and each file's end of opening */
    pthread_mutex_t mu;
    pthread_cond_t  cv;
    pthread_t       worker;
    int             worker_on, stop;
    srcfile        *queue, *queue_tail;
    /* recent lookups by the caller's path pointer (strings are checked
     * too: a pointer may come back with other contents) */
    const char     *memo_path[8];
    srcfile        *memo_file[8];
    int             fresh;      /* ps_srcline__set_fresh() */
};

/* A growing list of records while one address is answered. */
typedef struct loclist {
    ps_srcloc *v;
    size_t     nr, cap;
} loclist;

/* ------------------------------------------------------------------------ */
/* Files                                                                    */

static uint64_t hash_bytes(const char *s, uint64_t h)
{
    while (*s)
        h = (h ^ (uint8_t)*s++) * UINT64_C(0x100000001b3);
    return h;
}

static Elf_Scn *section(Elf *elf, const char *want)
{
    size_t shstrndx;
    Elf_Scn *scn = NULL;

    if (elf_getshdrstrndx(elf, &shstrndx) != 0)
        return NULL;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        const char *name;

        if (gelf_getshdr(scn, &sh) == NULL)
            return NULL;
        name = elf_strptr(elf, shstrndx, sh.sh_name);
        if (name != NULL && strcmp(name, want) == 0)
            return scn;
    }
    return NULL;
}

/* binutils refuses ("DWARF error: section ... is too big") to read a
 * section larger than the file, or compressed to less than a tenth of
 * its size; addr2line then has no DWARF for the file at all. */
static int insane(int fd, Elf_Scn *scn)
{
    GElf_Shdr sh;
    GElf_Chdr ch;
    struct stat st;
    uint64_t size;

    if (scn == NULL || gelf_getshdr(scn, &sh) == NULL || sh.sh_type == SHT_NOBITS ||
        fstat(fd, &st) != 0 || st.st_size <= 0)
        return 0;
    if ((sh.sh_flags & SHF_COMPRESSED) && gelf_getchdr(scn, &ch) != NULL)
        return ch.ch_size / 10 > (uint64_t)st.st_size;
    size = sh.sh_size;
    return size > (uint64_t)st.st_size;
}

/* The line table section: .debug_line, or gcc -gz=zlib-gnu's
 * .zdebug_line, which BFD reads too. *gnu says which. */
static Elf_Scn *line_section(Elf *elf, int *gnu)
{
    Elf_Scn *scn = section(elf, ".debug_line");

    *gnu = scn == NULL;
    return scn != NULL ? scn : section(elf, ".zdebug_line");
}

/* Whether a .zdebug section still holds its "ZLIB" header: libdw may
 * have inflated it in place already (dwarf_begin_elf() does so for the
 * sections it reads). */
static int still_gnu_compressed(Elf_Scn *scn)
{
    Elf_Data *d = elf_getdata(scn, NULL);

    return d != NULL && d->d_size >= 12 && memcmp(d->d_buf, "ZLIB", 4) == 0;
}

/* The .debug_line bytes (decompressed) for the BFD-style decoder; gnu: a
 * .zdebug_line ("ZLIB", size, zlib stream). */
static ps_dwlines *line_programs(Elf *elf, Elf_Scn *scn, int gnu)
{
    GElf_Shdr sh;
    Elf_Data *data;
    int host_le = 1, swap;

    if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type == SHT_NOBITS ||
        ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0) ||
        (gnu && still_gnu_compressed(scn) && elf_compress_gnu(scn, 0, 0) < 0) ||
        (data = elf_getdata(scn, NULL)) == NULL || data->d_buf == NULL)
        return NULL;
    swap = (elf_getident(elf, NULL)[EI_DATA] == ELFDATA2LSB) != *(const char *)&host_le;
    return ps_dwlines__new(data->d_buf, data->d_size, swap);
}

static void elf_close(Elf **elf, int *fd)
{
    if (*elf != NULL)
        elf_end(*elf);
    if (*fd >= 0)
        close(*fd);
    *elf = NULL;
    *fd = -1;
}

/* Everything a file holds open, back to "not opened". */
static void file_close(srcfile *f)
{
    ps_dwfuncs__free(f->funcs);
    ps_dwcus__free(f->cus);
    ps_dwlines__free(f->lines);
    ps_bfdsyms__free(f->syms);
    if (f->dw != NULL)
        dwarf_end(f->dw);
    f->funcs = NULL;
    f->cus = NULL;
    f->lines = NULL;
    f->syms = NULL;
    f->dw = NULL;
    ps_dwimage__close(&f->img);
    elf_close(&f->elf, &f->fd);
    elf_close(&f->delf, &f->dfd);
}

/* The file binutils reads DWARF (and then symbols) from: the file
 * itself, or when it has no .debug_info, the separate debug file it
 * finds for it (dwsep.c); *fd its descriptor. */
static Elf *debug_elf(srcfile *f, int *fd)
{
    char path[PS_PATH_MAX];

    *fd = f->fd;
    if (section(f->elf, ".debug_info") != NULL || ps_dwsep__find(f->elf, f->path, path, sizeof(path)) < 0)
        return f->elf;
    if ((f->dfd = ps_file__open_regular(path)) < 0 ||
        (f->delf = elf_begin(f->dfd, ELF_C_READ_MMAP, NULL)) == NULL ||
        elf_kind(f->delf) != ELF_K_ELF) {
        elf_close(&f->delf, &f->dfd);
        return f->elf;
    }
    *fd = f->dfd;
    return f->delf;
}

/* Open a file once: its symbols as binutils reads them, and its DWARF
 * unless missing or refused; a file that is missing or not ELF stays
 * closed (addr2line fails on it: nothing found). */
static void file_open(srcfile *f)
{
    Elf_Scn *scn;
    int gnu;
    Elf *elf;
    int fd;

    if ((f->fd = ps_file__open_regular(f->path)) < 0)
        return;
    if ((f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL)) == NULL ||
        elf_kind(f->elf) != ELF_K_ELF) {
        file_close(f);
        return;
    }
    elf = debug_elf(f, &fd);
    if ((f->syms = ps_bfdsyms__new(elf)) == NULL) {
        file_close(f);
        return;
    }
    /* without (usable) DWARF, addr2line still names symbols */
    f->no_dwarf = insane(fd, section(elf, ".debug_info")) ||
                  insane(fd, section(elf, ".debug_abbrev"));
    if (!f->no_dwarf) {
        /* libdw reads the inflated image when there is one (same bytes) */
        Elf *dwelf = ps_dwimage__open(&f->img, elf);

        if (dwelf == NULL)
            dwelf = elf;
        if ((f->dw = dwarf_begin_elf(dwelf, DWARF_C_READ, NULL)) != NULL &&
            (scn = line_section(elf, &gnu)) != NULL && !insane(fd, scn))
            f->lines = line_programs(dwelf, elf_getscn(dwelf, elf_ndxscn(scn)), gnu);
    }
    if (f->dw != NULL) {
        /* the table dwarf_addrdie() builds at its first call, built here:
         * on the worker's time when it opens the file */
        Dwarf_Aranges *ar;
        size_t nr;

        (void)dwarf_getaranges(f->dw, &ar, &nr);
    }
    if (f->dw != NULL &&
        ((f->funcs = ps_dwfuncs__new()) == NULL || (f->cus = ps_dwcus__new()) == NULL))
        file_close(f);
}

static int grow_buckets(ps_srcline *c)
{
    size_t i, n = c->nr_buckets ? c->nr_buckets * 2 : 64;
    srcfile **b = calloc(n, sizeof(*b));

    if (b == NULL)
        return -1;
    for (i = 0; i < c->nr_buckets; i++) {
        srcfile *f, *next;

        for (f = c->buckets[i]; f != NULL; f = next) {
            size_t k = hash_bytes(f->path, UINT64_C(0xcbf29ce484222325)) & (n - 1);

            next = f->next;
            f->next = b[k];
            b[k] = f;
        }
    }
    free(c->buckets);
    c->buckets = b;
    c->nr_buckets = n;
    return 0;
}

static srcfile *file_find(const ps_srcline *c, const char *path)
{
    uint64_t h = hash_bytes(path, UINT64_C(0xcbf29ce484222325));
    srcfile *f = NULL;

    if (c->nr_buckets != 0)
        for (f = c->buckets[h & (c->nr_buckets - 1)]; f != NULL; f = f->next)
            if (strcmp(f->path, path) == 0)
                break;
    return f;
}

/* A new entry for path, not opened yet. @return it, NULL out of memory */
static srcfile *file_add(ps_srcline *c, const char *path)
{
    uint64_t h = hash_bytes(path, UINT64_C(0xcbf29ce484222325));
    srcfile *f;

    if ((c->nr_files + 1) * 2 > c->nr_buckets && grow_buckets(c) < 0)
        return NULL;
    if ((f = calloc(1, sizeof(*f))) == NULL || (f->path = strdup(path)) == NULL) {
        free(f);
        return NULL;
    }
    f->fd = f->dfd = -1;
    ps_u64map__init(&f->by_addr);
    ps_u64map__init(&f->bfd_names);
    ps_u64map__init(&f->bfd_files);
    ps_arena__init(&f->names);
    f->next = c->buckets[h & (c->nr_buckets - 1)];
    c->buckets[h & (c->nr_buckets - 1)] = f;
    c->nr_files++;
    return f;
}

/* Take f off the worker's queue (under mu). */
static void unqueue(ps_srcline *c, srcfile *f)
{
    srcfile **p = &c->queue, *prev = NULL;

    while (*p != f) {
        prev = *p;
        p = &(*p)->queued;
    }
    *p = f->queued;
    if (c->queue_tail == f)
        c->queue_tail = prev;
    f->queued = NULL;
}

/* path's entry, opened: now, or by the worker (waited for). A file still
 * queued is opened here rather than after the files before it. */
static srcfile *file_findnew(ps_srcline *c, const char *path)
{
    srcfile *f = file_find(c, path);
    int open_here = 0;

    if (f == NULL) {
        if ((f = file_add(c, path)) != NULL)
            file_open(f);
        return f;
    }
    if (atomic_load_explicit(&f->opening, memory_order_acquire) != OPEN_DONE) {
        pthread_mutex_lock(&c->mu);
        if (atomic_load_explicit(&f->opening, memory_order_relaxed) == OPEN_QUEUED) {
            unqueue(c, f);
            atomic_store_explicit(&f->opening, OPEN_DONE, memory_order_relaxed);
            open_here = 1;
        }
        while (atomic_load_explicit(&f->opening, memory_order_acquire) != OPEN_DONE)
            pthread_cond_wait(&c->cv, &c->mu);
        pthread_mutex_unlock(&c->mu);
        if (open_here)
            file_open(f);
    }
    return f;
}

/* The worker: opens queued files in order until told to stop. */
static void *worker_main(void *arg)
{
    ps_srcline *c = arg;
    srcfile *f;

    pthread_mutex_lock(&c->mu);
    for (;;) {
        while (!c->stop && c->queue == NULL)
            pthread_cond_wait(&c->cv, &c->mu);
        if (c->stop)
            break;
        f = c->queue;
        unqueue(c, f);
        atomic_store_explicit(&f->opening, OPEN_WORKER, memory_order_relaxed);
        pthread_mutex_unlock(&c->mu);
        file_open(f);
        pthread_mutex_lock(&c->mu);
        atomic_store_explicit(&f->opening, OPEN_DONE, memory_order_release);
        pthread_cond_broadcast(&c->cv);
    }
    pthread_mutex_unlock(&c->mu);
    return NULL;
}

static void file_free(srcfile *f)
{
    size_t i;

    for (i = 0; i < f->nr; i++)
        free((void *)f->answers[i].loc);
    free(f->answers);
    ps_u64map__free(&f->by_addr);
    ps_u64map__free(&f->bfd_names);
    ps_u64map__free(&f->bfd_files);
    ps_arena__free(&f->names);
    file_close(f);
    free(f->path);
    free(f);
}

/* ------------------------------------------------------------------------ */
/* The answer cache of one file                                             */

/* Keep an answer (taking its records) for addr. @return 0, -1 no memory */
static int answer_keep(srcfile *f, uint64_t addr, const ps_srcinfo *info)
{
    if (f->nr == f->cap) {
        size_t n = f->cap ? f->cap * 2 : 64;
        ps_srcinfo *v = realloc(f->answers, n * sizeof(*v));

        if (v == NULL)
            return -1;
        f->answers = v;
        f->cap = n;
    }
    if (ps_u64map__put(&f->by_addr, addr, f->nr) < 0)
        return -1;
    f->answers[f->nr++] = *info;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* DWARF                                                                    */

static int loc_push(loclist *l, const char *func, const char *file, unsigned line)
{
    if (l->nr == l->cap) {
        size_t n = l->cap ? l->cap * 2 : 4;
        ps_srcloc *v = realloc(l->v, n * sizeof(*v));

        if (v == NULL)
            return -1;
        l->v = v;
        l->cap = n;
    }
    l->v[l->nr].func = func;
    l->v[l->nr].file = file;
    l->v[l->nr].line = line;
    l->nr++;
    return 0;
}

static const char *attr_string(Dwarf_Die *die, unsigned name)
{
    Dwarf_Attribute a;

    return dwarf_attr_integrate(die, name, &a) != NULL ? dwarf_formstring(&a) : NULL;
}

/* binutils' mangle_style() == 0: names in these languages are final. */
static int plain_language(int lang)
{
    switch (lang) {
    case DW_LANG_C89: case DW_LANG_C: case DW_LANG_C99: case DW_LANG_C11:
    case DW_LANG_Cobol74: case DW_LANG_Cobol85: case DW_LANG_Fortran77:
    case DW_LANG_Fortran90: case DW_LANG_Fortran95: case DW_LANG_Fortran03:
    case DW_LANG_Fortran08: case DW_LANG_Pascal83: case DW_LANG_PLI: case DW_LANG_UPC:
    case 0x2c /* DW_LANG_C17 */: case DW_LANG_Mips_Assembler:
        return 1;
    default:
        return 0;
    }
}

/* binutils' name for a function: its linkage name, else its name;
 * *linkage says whether that counts as a linkage name (a plain name does
 * only in languages binutils does not demangle). A name binutils settled
 * on earlier (innermost_name) wins. */
static const char *function_name(srcfile *f, Dwarf_Die *cu, Dwarf_Die *die, int *linkage)
{
    uint64_t *known = ps_u64map__get(&f->bfd_names, dwarf_dieoffset(die));
    const char *s;

    *linkage = 1;
    if (known != NULL)
        return (const char *)(uintptr_t)*known;
    if ((s = attr_string(die, DW_AT_linkage_name)) != NULL ||
        (s = attr_string(die, DW_AT_MIPS_linkage_name)) != NULL)
        return s;
    *linkage = plain_language(dwarf_srclang(cu));
    return attr_string(die, DW_AT_name);
}

/* Where binutils' function starts: its first range. */
static uint64_t function_low(Dwarf_Die *die)
{
    Dwarf_Addr base, lo, hi;

    if (dwarf_lowpc(die, &lo) == 0 || dwarf_ranges(die, 0, &base, &lo, &hi) > 0)
        return lo;
    return UINT64_MAX;
}

/* The innermost function's name as addr2line prints it. Without a linkage
 * name, binutils prints the ELF symbol it finds for addr (which also names
 * the file when the line table did not), and from then on -- addr2line
 * runs once per DSO for all of perf's questions -- it takes the function
 * as having a linkage name: that symbol's name if it starts where the
 * function does, else the function's own name. Later answers, as inline
 * callers too, use that. */
static const char *innermost_name(srcfile *f, Dwarf_Die *cu, Dwarf_Die *die, uint64_t addr,
                                  const char **file)
{
    int linkage;
    const char *name = function_name(f, cu, die, &linkage), *sym, *sfile;
    uint64_t value;

    if (linkage)
        return name;
    sym = ps_bfdsyms__find(f->syms, addr, &sfile, &value);
    if (ps_u64map__put(&f->bfd_names, dwarf_dieoffset(die),
                       (uintptr_t)(sym && value == function_low(die) ? sym : name)) < 0)
        return NULL;
    if (sym == NULL)
        return name;
    if (*file == NULL)
        *file = sfile;
    return sym;
}

/* File idx of cu's line table (at off), named as binutils 2.40 names it
 * (BFD's concat_filename): a relative name under its directory, and a
 * relative directory (or none: DWARF 4's index 0) under the CU's
 * DW_AT_comp_dir, even where DWARF 5's directory 0 is that comp_dir
 * already ("./libio/./libio/libioP.h"). libdw puts only the directory in
 * front, so its name is taken apart at that directory. Only perf's --full-source-path shows the difference: the last
 * component is the same. NULL: no such file, or no memory. */
static const char *bfd_filename(srcfile *f, Dwarf_Die *cu, uint64_t off, Dwarf_Files *files,
                                size_t idx)
{
    const char *name = dwarf_filesrc(files, idx, NULL, NULL), *comp, *raw = name, *sub = NULL;
    const char *const *dirs;
    Dwarf_Attribute a;
    uint64_t *known, d;
    size_t ndirs, n;
    char *out;

    if (name == NULL || ps_dwlines__file_dir(f->lines, off, idx, &d) <= 0 ||
        dwarf_getsrcdirs(files, &dirs, &ndirs) != 0 || d >= ndirs)
        return name;
    if ((known = ps_u64map__get(&f->bfd_files, (uintptr_t)name)) != NULL)
        return (const char *)(uintptr_t)*known;
    n = dirs[d] != NULL ? strlen(dirs[d]) : 0;
    if (n > 0 && strncmp(name, dirs[d], n) == 0 && name[n] == '/')
        raw = name + n + 1;
    if ((d > 0 || ps_dwlines__version(f->lines, off) >= 5) && n > 0)
        sub = dirs[d];
    comp = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a));
    if (raw[0] == '/' || (sub != NULL && sub[0] == '/') || comp == NULL)
        return name;    /* as libdw has it: the absolute part, then the rest */
    n = strlen(comp) + (sub != NULL ? strlen(sub) + 1 : 0) + strlen(raw) + 2;
    if ((out = ps_arena__alloc(&f->names, n)) == NULL)
        return NULL;
    if (sub != NULL)
        snprintf(out, n, "%s/%s/%s", comp, sub, raw);
    else
        snprintf(out, n, "%s/%s", comp, raw);
    if (ps_u64map__put(&f->bfd_files, (uintptr_t)name, (uintptr_t)out) < 0)
        return NULL;
    return out;
}

/* The CU's line program offset (DW_AT_stmt_list). 0 when it has none. */
static int stmt_list(Dwarf_Die *cu, uint64_t *off)
{
    Dwarf_Attribute a;
    Dwarf_Word v;

    if (dwarf_attr(cu, DW_AT_stmt_list, &a) == NULL || dwarf_formudata(&a, &v) != 0)
        return 0;
    *off = v;
    return 1;
}

/* Where an inlined instance was called from: DW_AT_call_file / _line. */
static void call_site(srcfile *f, Dwarf_Die *cu, Dwarf_Die *inl, const char **file,
                      unsigned *line)
{
    Dwarf_Attribute a;
    Dwarf_Word v;
    Dwarf_Files *files;
    size_t nfiles;

    uint64_t off = UINT64_MAX;

    *file = NULL;
    *line = 0;
    if (dwarf_attr(inl, DW_AT_call_file, &a) != NULL && dwarf_formudata(&a, &v) == 0 &&
        dwarf_getsrcfiles(cu, &files, &nfiles) == 0 && v < nfiles) {
        *file = dwarf_filesrc(files, (size_t)v, NULL, NULL);
        if (f->lines != NULL && stmt_list(cu, &off))
            *file = bfd_filename(f, cu, off, files, (size_t)v);
    }
    if (dwarf_attr(inl, DW_AT_call_line, &a) != NULL && dwarf_formudata(&a, &v) == 0 &&
        v <= UINT32_MAX)
        *line = (unsigned)v;
}

/* The line of addr in its CU, from the CU's line program as binutils
 * decodes it; a file number past the table is binutils' "<unknown>".
 * @return 1 found, 0 not, -1 out of memory */
static int line_of(srcfile *f, Dwarf_Die *cu, uint64_t addr, const char **file, unsigned *line)
{
    Dwarf_Files *files;
    uint64_t idx, off;
    size_t nfiles;
    int rc;

    if (f->lines == NULL || !stmt_list(cu, &off))
        return 0;
    if ((rc = ps_dwlines__find(f->lines, off, addr, &idx, line)) <= 0)
        return rc;
    *file = "<unknown>";
    if ((idx > 0 || ps_dwlines__version(f->lines, off) >= 5) &&
        dwarf_getsrcfiles(cu, &files, &nfiles) == 0 && idx < nfiles)
        *file = bfd_filename(f, cu, off, files, (size_t)idx);
    return 1;
}

/* The CU of addr: binutils reads every unit's own ranges; libdw's
 * dwarf_addrdie() only .debug_aranges, which clang does not emit, so the
 * units' ranges answer where it finds nothing.
 * @return 1 found, 0 not, -1 out of memory */
static int unit_of(srcfile *f, uint64_t addr, Dwarf_Die *cu)
{
    int rc = dwarf_addrdie(f->dw, addr, cu) != NULL ? 1 : ps_dwcus__find(f->cus, f->dw, addr, cu);

    /* a unit binutils never reads (dwcu.h): nothing there */
    return rc > 0 ? ps_dwcus__readable(f->cus, f->dw, cu) : rc;
}

/* The records addr2line prints for addr: the innermost function with the
 * line, then, if it was inlined, each function around it with the place
 * of the call. @return 0, -1 out of memory */
static int answer(srcfile *f, uint64_t addr, loclist *out)
{
    Dwarf_Die cu, chain[256];
    const char *file = NULL, *name;
    unsigned line = 0;
    long n = 0, i;
    int row = 0, linkage, found = 0;

    if (!ps_bfdsyms__in_section(f->syms, addr))
        return 0;
    if (f->dw != NULL && (found = unit_of(f, addr, &cu)) < 0)
        return -1;
    if (found) {
        if ((row = line_of(f, &cu, addr, &file, &line)) < 0 ||
            (n = ps_dwfuncs__chain(f->funcs, &cu, addr, chain, PS_ARRAY_SIZE(chain))) < 0)
            return -1;
    }
    if (n == 0) {
        uint64_t value;
        const char *sfile, *sym = ps_bfdsyms__find(f->syms, addr, &sfile, &value);

        return row || sym ? loc_push(out, sym, row ? file : sfile, line) : 0;
    }
    name = innermost_name(f, &cu, &chain[0], addr, &file);
    if (loc_push(out, name, file, line) < 0)
        return -1;
    if (dwarf_tag(&chain[0]) != DW_TAG_inlined_subroutine)
        return 0;
    /* binutils links only an inlined instance to its caller: the chain
     * ends at the first function that is not one */
    for (i = 1; i < n && out->nr <= MAX_INLINE_NEST &&
                dwarf_tag(&chain[i - 1]) == DW_TAG_inlined_subroutine; i++) {
        call_site(f, &cu, &chain[i - 1], &file, &line);
        if (loc_push(out, function_name(f, &cu, &chain[i], &linkage), file, line) < 0)
            return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Public                                                                   */

int ps_srcline__new(ps_srcline **out)
{
    ps_srcline *c = calloc(1, sizeof(*c));

    *out = NULL;
    if (c == NULL)
        return -1;
    if (pthread_mutex_init(&c->mu, NULL) != 0) {
        free(c);
        return -1;
    }
    if (pthread_cond_init(&c->cv, NULL) != 0) {
        pthread_mutex_destroy(&c->mu);
        free(c);
        return -1;
    }
    elf_version(EV_CURRENT);
    *out = c;
    return 0;
}

int ps_srcline__prefetch(ps_srcline *c, const char *path)
{
    srcfile *f;

    if (file_find(c, path) != NULL)
        return 0;
    if (!c->worker_on) {
        if (pthread_create(&c->worker, NULL, worker_main, c) != 0)
            return 0;           /* no worker: files are opened when asked */
        c->worker_on = 1;
    }
    if ((f = file_add(c, path)) == NULL)
        return -1;
    pthread_mutex_lock(&c->mu);
    atomic_store_explicit(&f->opening, OPEN_QUEUED, memory_order_relaxed);
    if (c->queue_tail != NULL)
        c->queue_tail->queued = f;
    else
        c->queue = f;
    c->queue_tail = f;
    pthread_cond_signal(&c->cv);
    pthread_mutex_unlock(&c->mu);
    return 0;
}

void ps_srcline__free(ps_srcline *c)
{
    size_t i;

    if (c == NULL)
        return;
    if (c->worker_on) {         /* files still queued stay unopened */
        pthread_mutex_lock(&c->mu);
        c->stop = 1;
        pthread_cond_broadcast(&c->cv);
        pthread_mutex_unlock(&c->mu);
        pthread_join(c->worker, NULL);
    }
    pthread_cond_destroy(&c->cv);
    pthread_mutex_destroy(&c->mu);
    for (i = 0; i < c->nr_buckets; i++) {
        srcfile *f, *next;

        for (f = c->buckets[i]; f != NULL; f = next) {
            next = f->next;
            file_free(f);
        }
    }
    free(c->buckets);
    free(c);
}

void ps_srcline__set_fresh(ps_srcline *c)
{
    c->fresh = 1;
}

int ps_srcline__find(ps_srcline *c, const char *path, uint64_t addr, ps_srcinfo *out)
{
    srcfile *f;
    uint64_t *idx;
    loclist l = { NULL, 0, 0 };
    /* a multiplicative hash: malloc'd paths are 16-aligned, so the low
     * bits alone left half the slots unused */
    size_t slot = (size_t)(((uint64_t)(uintptr_t)path * UINT64_C(0x9e3779b97f4a7c15)) >> 61);

    out->loc = NULL;
    out->nr = 0;
    if ((f = c->memo_file[slot]) == NULL || c->memo_path[slot] != path ||
        strcmp(f->path, path) != 0) {
        if ((f = file_findnew(c, path)) == NULL)
            return -1;
        c->memo_path[slot] = path;
        c->memo_file[slot] = f;
    }
    if (f->syms == NULL)
        return 0;
    if ((idx = ps_u64map__get(&f->by_addr, addr)) != NULL) {
        *out = f->answers[*idx];
        return 0;
    }
    if (c->fresh) {     /* a new addr2line process knows no names yet */
        ps_u64map__free(&f->bfd_names);
        ps_u64map__init(&f->bfd_names);
    }
    if (answer(f, addr, &l) < 0) {
        free(l.v);
        return -1;
    }
    out->loc = l.v;
    out->nr = l.nr;
    if (answer_keep(f, addr, out) < 0) {
        free(l.v);
        out->loc = NULL;
        out->nr = 0;
        return -1;
    }
    return 0;
}

/* The value nm prints for the first defined .symtab symbol named name
 * (len bytes), in table order: nm sorts by name, stably. */
static int symtab_value(Elf *elf, const char *name, size_t len, uint64_t *value)
{
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;

    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        Elf_Data *d;
        GElf_Sym sym;
        size_t i, nr;

        if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_SYMTAB ||
            sh.sh_entsize == 0 || (d = elf_getdata(scn, NULL)) == NULL)
            continue;
        nr = d->d_size / sh.sh_entsize;
        for (i = 1; i < nr; i++) {
            const char *n;
            int type;

            if (gelf_getsym(d, (int)i, &sym) == NULL || sym.st_shndx == SHN_UNDEF)
                continue;
            type = GELF_ST_TYPE(sym.st_info);
            if (type == STT_SECTION || type == STT_FILE)
                continue;       /* nm leaves these out */
            n = elf_strptr(elf, sh.sh_link, sym.st_name);
            if (n != NULL && strlen(n) == len && memcmp(n, name, len) == 0) {
                *value = sym.st_value;
                return 1;
            }
        }
    }
    return 0;
}

int ps_srcline__nm(ps_srcline *c, const char *path, const char *name, size_t len,
                   uint64_t *value)
{
    srcfile *f = file_findnew(c, path);

    if (f == NULL)
        return -1;
    return f->elf != NULL ? symtab_value(f->elf, name, len, value) : 0;
}
