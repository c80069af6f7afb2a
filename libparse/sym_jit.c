/* SPDX-License-Identifier: MIT */
/*
 * sym_jit.c - JIT maps (see sym_jit.h). Anonymous executable maps are
 * "/tmp/perf-PID.map", PID being the process that mapped them;
 * non-executable ones keep their name and have no symbols (symbols.c
 * decides that with ps_jit__is_exec()). The file's lines are
 * "START SIZE name", parsed with strtoull as perf 6.1 does: a line's last
 * byte is dropped, names shorter than 3 bytes are skipped, and no fixups
 * run afterwards, so overlapping entries resolve as perf's tree has them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>
#include "sym_io.h"
#include "sym_jit.h"

#define MAP_LINE_MAX    (1u << 16)             /* perf-PID.map line kept */

int ps_jit__is_anon(const ps_map *map)
{
    const char *f = map->filename;

    return !strcmp(f, "//anon") || !strncmp(f, "/dev/zero", 9) ||
           !strncmp(f, "/anon_hugepage", 14) || (map->flags & 0x40000u) ||
           !strncmp(f, "[stack", 6) || !strncmp(f, "/SYSV", 5) || !strcmp(f, "[heap]");
}

int ps_jit__is_exec(const ps_map *map)
{
    return map->is_mmap2 ? (map->prot & 4) != 0 : 1;   /* PROT_EXEC; MMAP: no data maps */
}

void ps_jit__path(char *buf, uint32_t pid)
{
    snprintf(buf, PS_JIT_PATH_MAX, "/tmp/perf-%" PRIu32 ".map", pid);
}

/* dso__load_perf_map(): "START SIZE name" per line, numbers through
 * strtoull(base 16); the line's last byte is cut (the '\n', or the name's
 * last letter on an unterminated last line); short lines are skipped. */
static void parse_map_line(ps_symtree *t, ps_arena *arena, char *line, long line_len)
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
    ps_symtree__add(t, arena, start, size, STB_GLOBAL, STT_FUNC, line + len, 0);
}

void ps_jit__load(ps_symtree *t, ps_arena *arena, uint32_t pid)
{
    char path[PS_JIT_PATH_MAX], *line;
    struct stat st;
    ps_reader *r;
    long n;

    ps_jit__path(path, pid);
    if (lstat(path, &st) < 0)
        return;
    if ((line = malloc(MAP_LINE_MAX + 1)) == NULL)
        return;
    if ((r = ps_reader__open(path)) == NULL) {
        free(line);
        return;
    }
    while ((n = ps_reader__line(r, line, MAP_LINE_MAX)) >= 0)
        if (n > 0)
            parse_map_line(t, arena, line, n);
    ps_reader__close(r);
    free(line);
}
