/* SPDX-License-Identifier: MIT */
/*
 * sym_buildid.h - build-ids as perf 6.1 handles them: found in ELF notes
 * (a file's, or the running kernel's /sys/kernel/notes), compared with
 * dso__build_id_equal()'s padding rule, printed as hex for cache paths,
 * and which one a map's file is expected to have.
 *
 * Layer: under sym_elf.c and the loaders, above sym_io.c. Reads only
 * /sys/kernel/notes; never opens a file a capture names.
 */
#ifndef PS_SYM_BUILDID_H
#define PS_SYM_BUILDID_H

#include "symbols.h"

#define PS_BUILD_ID_MAX 20              /* perf's BUILD_ID_SIZE */

/**
 * The NT_GNU_BUILD_ID note among ELF notes (headers in host byte order),
 * its size as perf takes it (4-aligned, at most 20), bid zero-padded.
 * strict: a note running past the end fails the walk (perf's libelf
 * reader); else only the bytes read must be inside (its sysfs reader).
 * @return the size, or -1
 */
int ps_build_id__from_notes(uint8_t bid[PS_BUILD_ID_MAX], const uint8_t *notes, size_t len,
                            int strict);
/** The running kernel's build-id. @return its size, or -1 */
int ps_build_id__host(uint8_t bid[PS_BUILD_ID_MAX]);
/** dso__build_id_equal(). @return 1 when got is the wanted build-id */
int ps_build_id__equal(const uint8_t *want, size_t nwant, const uint8_t *got, size_t ngot);
/** Lower-case hex of bid[0..size) into hex (2 * size + 1 bytes). */
void ps_build_id__hex(char *hex, const uint8_t *bid, size_t size);

/** The capture's BUILD_ID feature entry for this file name, or NULL. */
const ps_feat_build_id *ps_build_id__header_entry(const ps_features *feat, const char *name);
/**
 * The build-id perf expects of a map's file: the MMAP2 record's (map may
 * be NULL), else the BUILD_ID feature entry named name.
 * @return 1 with bid and *size set, else 0 with both untouched
 */
int ps_build_id__expected(uint8_t bid[PS_BUILD_ID_MAX], size_t *size, const ps_features *feat,
                          const ps_map *map, const char *name);

#endif /* PS_SYM_BUILDID_H */
