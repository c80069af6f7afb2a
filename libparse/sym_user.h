/* SPDX-License-Identifier: MIT */
/*
 * sym_user.h - loading a user-space DSO as perf 6.1's dso__load() does:
 * which candidate files it tries, in which order, and which of them give
 * the symbols and the PLT; the [vdso] the same way, with this process's
 * own vdso image standing in for a file.
 *
 * Layer: above sym_elf.c, sym_plt.c, sym_buildid.c and sym_io.c; called by
 * symbols.c with the tree to fill, never calling it back.
 */
#ifndef PS_SYM_USER_H
#define PS_SYM_USER_H

#include "symbols_int.h"

#define PS_VDSO_IMAGE "\001vdso"        /* long name of this process's vdso image */

/** The build-id cache entry of x (which must have a build-id): elf,
 *  debug or vdso. @return 0 with the path in buf, or -1 */
int ps_user__cache_path(const ps_symbols *s, const ps_loadctx *x, int debug, char *buf,
                        size_t size);
/** A file's symbols into t; x names the file and what build-id it must
 *  have (none: the file's own, read from the path without --symfs). */
void ps_user__load_file(ps_symbols *s, ps_symtree *t, ps_loadctx *x);
/** A [vdso]'s symbols into t; own: the capture's BUILD_ID feature does not
 *  name it, so this process's vdso is the file (read once per session). */
void ps_user__load_vdso(ps_symbols *s, ps_symtree *t, ps_loadctx *x, int own);
/** This process's vdso image, the file of an own [vdso] (read once per
 *  session). @return it, Borrowed for s's life, or NULL with *size 0 */
const uint8_t *ps_user__vdso_image(ps_symbols *s, size_t *size);

#endif /* PS_SYM_USER_H */
