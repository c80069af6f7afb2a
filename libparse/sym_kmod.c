/* SPDX-License-Identifier: MIT */
/*
 * sym_kmod.c - module names (see sym_kmod.h). Module DSOs print as
 * "[name]" (from a .ko path, '-' made '_'), or as the path of a kernel
 * BUILD_ID entry for the same module; a bracketed map name is a module
 * unless it is one of the kernel's own ([kernel.kallsyms], [vdso] ...).
 */
#include <stdio.h>
#include "sym_io.h"
#include "sym_kmod.h"

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

/* kmod_path__parse_name() */
void ps_kmod__name(const char *path, char *buf, size_t size)
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

/* Only kernel-mode entries (misc KERNEL or GUEST_KERNEL) with module paths. */
const char *ps_kmod__print_name(const ps_features *feat, const char *name)
{
    char other[PS_PATH_MAX];
    uint32_t i;

    if (feat == NULL || !ps_features_has(feat, PS_HEADER_BUILD_ID))
        return name;
    for (i = 0; i < feat->build_ids.nr; i++) {
        const ps_feat_build_id *e = &feat->build_ids.entries[i];
        unsigned mode = e->misc & 7u;

        if (e->filename == NULL || (mode != 1 && mode != 4) || !is_kmod_path(e->filename))
            continue;
        ps_kmod__name(e->filename, other, sizeof(other));
        if (strcmp(other, name) == 0)
            return e->filename;
    }
    return name;
}
