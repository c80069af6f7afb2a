/* SPDX-License-Identifier: MIT */
/*
 * replay.c - a main() for a fuzz target without libFuzzer: runs it once
 * on each file named (a folder: each file in it). make check builds every
 * target this way with the normal compiler (and sanitizers under
 * SANITIZE=1) and replays tests/fuzz/regress/ through it, so an input
 * that once crashed stays a test.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf;
    long n;

    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
        fseek(f, 0, SEEK_SET) != 0 || (buf = malloc((size_t)n + 1)) == NULL ||
        fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        if (f != NULL)
            fclose(f);
        return 1;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, (size_t)n);
    free(buf);
    return 0;
}

static int replay(const char *path)
{
    struct dirent **names;
    struct stat st;
    int i, n, bad = 0;

    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return replay_file(path);
    if ((n = scandir(path, &names, NULL, alphasort)) < 0)
        return 1;
    for (i = 0; i < n; i++) {
        char sub[4096];

        if (names[i]->d_name[0] != '.') {
            snprintf(sub, sizeof(sub), "%s/%s", path, names[i]->d_name);
            bad |= replay_file(sub);
        }
        free(names[i]);
    }
    free(names);
    return bad;
}

int main(int argc, char **argv)
{
    int i, bad = 0;

    if (LLVMFuzzerInitialize != NULL)
        LLVMFuzzerInitialize(&argc, &argv);
    for (i = 1; i < argc; i++)
        bad |= replay(argv[i]);
    return bad;
}
