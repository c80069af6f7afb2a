/* SPDX-License-Identifier: MIT */
/*
 * test_dwimage.c - unit tests of dwimage.c: an object built with
 * zlib-compressed DWARF (cc -gz=zlib) inflates into an image whose debug
 * sections hold what libelf's own inflating gives, uncompressed; one
 * built without compression, one with a damaged deflate stream and one
 * whose compressed section is too short for its header all get NULL (the
 * caller then leaves them to libdw, as before).
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "harness.h"
#include "../../libparse/dwimage.h"

static char dir[] = "/tmp/ps-dwimage-XXXXXX";

static const char *tpath(const char *name)
{
    static char buf[4][256];
    static int k;

    k = (k + 1) % 4;
    snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
    return buf[k];
}

/* Build out from a small C file with the given -gz option. @return 0 */
static int build(const char *out, const char *gz)
{
    char cmd[768];
    FILE *f = fopen(tpath("t.c"), "w");

    if (f == NULL)
        return -1;
    fputs("static int sq(int x) { return x * x; }\n"
          "int sum(const int *v, int n) { int s = 0; for (int i = 0; i < n; i++)"
          " s += sq(v[i]); return s; }\n"
          "int main(int argc, char **argv) { (void)argv; return sum(&argc, 1) == 1; }\n", f);
    fclose(f);
    snprintf(cmd, sizeof(cmd), "${CC:-cc} -O2 -g %s -o '%s' '%s' 2>/dev/null", gz, out,
             tpath("t.c"));
    return system(cmd) == 0 ? 0 : -1;
}

static Elf_Scn *named(Elf *elf, const char *want)
{
    size_t shstrndx;
    Elf_Scn *scn = NULL;

    if (elf_getshdrstrndx(elf, &shstrndx) != 0)
        return NULL;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        const char *name;

        if (gelf_getshdr(scn, &sh) != NULL &&
            (name = elf_strptr(elf, shstrndx, sh.sh_name)) != NULL && strcmp(name, want) == 0)
            return scn;
    }
    return NULL;
}

/* The image for path: there (want_image) or not, and when there, its
 * debug sections equal to libelf's inflating of the file's own.
 * @return 1 as expected */
static int check_file(const char *path, int want_image)
{
    static const char *const names[] = { ".debug_info", ".debug_abbrev", ".debug_line",
                                         ".debug_str" };
    int fd = open(path, O_RDONLY), fd2 = open(path, O_RDONLY), ok = 1;
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL), *ref = elf_begin(fd2, ELF_C_READ_MMAP, NULL);
    ps_dwimage img;
    Elf *out = ps_dwimage__open(&img, elf);
    size_t i;

    if ((out != NULL) != want_image)
        ok = 0;
    for (i = 0; out != NULL && i < sizeof(names) / sizeof(names[0]); i++) {
        Elf_Scn *a = named(out, names[i]), *b = named(ref, names[i]);
        Elf_Data *da, *db;
        GElf_Shdr sh;

        if (a == NULL || b == NULL || gelf_getshdr(a, &sh) == NULL ||
            (sh.sh_flags & SHF_COMPRESSED) || gelf_getshdr(b, &sh) == NULL ||
            ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(b, 0, 0) < 0) ||
            (da = elf_getdata(a, NULL)) == NULL || (db = elf_getdata(b, NULL)) == NULL ||
            da->d_size != db->d_size || db->d_size == 0 ||
            memcmp(da->d_buf, db->d_buf, da->d_size) != 0)
            ok = 0;
    }
    ps_dwimage__close(&img);
    elf_end(elf);
    elf_end(ref);
    close(fd);
    close(fd2);
    return ok;
}

/* Copy src to dst, changing one 8-byte word at the section's offset + at. */
static int damage(const char *src, const char *dst, const char *section, size_t at,
                  uint64_t word, int in_header)
{
    int fd = open(src, O_RDONLY), rc = -1;
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    Elf_Scn *scn = named(elf, section);
    size_t size;
    char *raw = elf_rawfile(elf, &size);
    GElf_Shdr sh;
    FILE *f;

    if (scn != NULL && raw != NULL && gelf_getshdr(scn, &sh) != NULL &&
        (f = fopen(dst, "w")) != NULL) {
        char *copy = malloc(size);

        memcpy(copy, raw, size);
        if (in_header)      /* the section's sh_size, in its header */
            memcpy(copy + ((GElf_Ehdr *)(void *)raw)->e_shoff +
                   elf_ndxscn(scn) * sizeof(Elf64_Shdr) + 32, &word, 8);
        else if (at + 8 <= sh.sh_size)
            memcpy(copy + sh.sh_offset + at, &word, 8);
        rc = fwrite(copy, 1, size, f) == size ? 0 : -1;
        fclose(f);
        free(copy);
    }
    elf_end(elf);
    close(fd);
    return rc;
}

static void test_dwimage(void)
{
    char cmd[300];

    elf_version(EV_CURRENT);
    CHECK(mkdtemp(dir) != NULL);
    CHECK(build(tpath("z"), "-gz=zlib") == 0);
    CHECK(build(tpath("plain"), "-gz=none") == 0);
    CHECK(check_file(tpath("z"), 1));
    CHECK(check_file(tpath("plain"), 0));
    /* deflate data damaged past the Chdr (24 bytes) and zlib header */
    CHECK(damage(tpath("z"), tpath("bad"), ".debug_info", 40,
                 UINT64_C(0x5a5a5a5a5a5a5a5a), 0) == 0);
    CHECK(check_file(tpath("bad"), 0));
    /* a compressed section too short for its Chdr */
    CHECK(damage(tpath("z"), tpath("short"), ".debug_info", 0, 8, 1) == 0);
    CHECK(check_file(tpath("short"), 0));
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "test_dwimage: could not remove %s\n", dir);
}

static const struct harness_test tests[] = {
    TEST(test_dwimage),
};

TEST_MAIN(tests)
