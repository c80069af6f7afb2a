/* SPDX-License-Identifier: MIT */
/*
 * sym_io.h - opening the files a capture names, which are untrusted: the
 * "regular files only" rule, a capped byte reader for text files
 * (kallsyms, perf-PID.map) and path building that refuses to cut.
 *
 * Layer: under the symbol loaders; knows nothing of symbols or DSOs.
 * Every failure here means "no such file" to the caller, never an error:
 * a capture naming a FIFO, device or directory gets no symbols, no hang.
 */
#ifndef PS_SYM_IO_H
#define PS_SYM_IO_H

#include "util.h"

#define PS_PATH_MAX     4096

/** 1 when path names a regular file (stat(), so links are followed). */
int  ps_file__is_regular(const char *path);
/** The file opened O_RDONLY|O_NONBLOCK|O_CLOEXEC if it is a regular file
 *  (checked before and, by fstat(), after opening); -1 otherwise. */
int  ps_file__open_regular(const char *path);

/** perf's tools/lib io.h byte reader over read(2), capped at 1 GiB. */
typedef struct ps_reader ps_reader;

/** NULL: not a regular file, or no memory. Owned: ps_reader__close(). */
ps_reader *ps_reader__open(const char *path);
/** Closes the file; accepts NULL. */
void ps_reader__close(ps_reader *r);
/** 1 once a read found the end (or the cap). */
int  ps_reader__eof(const ps_reader *r);
/** The next byte, or -1 at the end. */
int  ps_reader__getc(ps_reader *r);
/** Up to max bytes into out (not terminated), to the end of the line:
 *  a '\n' met within them is consumed, not stored. @return bytes stored */
size_t ps_reader__rest(ps_reader *r, char *out, size_t max);
void ps_reader__skip_line(ps_reader *r);
/** io__get_hex(): the value's next character, -2 when none was a digit. */
int  ps_reader__hex(ps_reader *r, uint64_t *v);
/** One line with its '\n' (getline), at most max bytes kept; line holds
 *  max + 1. @return bytes kept, or -1 at the end of the file */
long ps_reader__line(ps_reader *r, char *line, size_t max);

/** snprintf() for paths. @return 0, or -1 when cut (a cut path names
 *  another file) */
int  ps_path__fmt(char *buf, size_t size, const char *fmt, ...) PS_PRINTF(3, 4);
/** perf's path__join(): "a/b", or b alone when a is empty. @return 0 or -1 */
int  ps_path__join(char *buf, size_t size, const char *a, const char *b);

#endif /* PS_SYM_IO_H */
