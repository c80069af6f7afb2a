/* SPDX-License-Identifier: MIT */
/*
 * source.h - bytes in. A source is either a memory image (an mmap'd regular
 * file, or a buffer we own such as an unwrapped ring dump) read in place, or
 * a stream (pipe, terminal, socket) read through a rolling buffer.
 * Spec sections 1, 5 and 13. Knows nothing of records beyond "give me n
 * contiguous bytes at the current position".
 *
 * Invariants: pos <= end; for streams the buffer holds input bytes
 * [buf_off, buf_off + len) and pos lies inside it; the buffer only grows when
 * it is full of real input, so its size is at most twice the bytes read.
 */
#ifndef PS_SOURCE_H
#define PS_SOURCE_H

#include "util.h"

typedef struct ps_source {
    const char    *name;        /* for messages; borrowed */
    int            fd;          /* -1 when none / closed */
    int            is_stream;
    /* memory image */
    const uint8_t *map;
    size_t         map_size;
    int            map_owned;   /* 1: free(), 2: munmap() */
    /* stream */
    uint8_t       *buf;
    size_t         cap, len;    /* len bytes valid from buf[0] */
    uint64_t       buf_off;     /* input offset of buf[0] */
    int            eof;
    /* both */
    uint64_t       pos;         /* input offset of the next byte */
    uint64_t       end;         /* do not read at or past this offset */
    uint64_t       bytes_read;
    uint64_t       dropped;     /* mapped pages before this were madvise'd away */
    int64_t        mtime;
    uint64_t       file_size;
    struct ps_readahead *rd;    /* owned: the reader thread (source.c), or NULL */
    int            rd_later;    /* start the reader at the first consume: not
                                 * for a session whose records are never read
                                 * through here (ps_session__release()) */
    size_t         rd_step;     /* the reader's chunk size */
    uint64_t       rd_min;      /* maps smaller than this get no reader */
    /* The lowest input offset whose bytes a caller still holds by pointer
     * past the next peek (records the time-ordering queue borrows), or
     * UINT64_MAX; NULL: none. Set by the caller after opening. */
    uint64_t     (*keep)(void *arg);
    void          *keep_arg;
} ps_source;

/** Open path ("-" = stdin): regular files are mmap'd, others streamed. */
int  ps_source__open(ps_source *src, const char *path, ps_error *err);
/** Use a caller buffer as a memory image; owned: free() it on close. */
void ps_source__from_buffer(ps_source *src, const char *name, uint8_t *buf,
                            size_t size, int owned);
void ps_source__close(ps_source *src);

/**
 * Make n bytes at pos contiguous; *p points at them (valid until the next
 * call on src). Returns the number available: n, or fewer at end of input.
 * A negative return is an I/O error (err filled).
 */
int64_t ps_source__peek(ps_source *src, size_t n, const uint8_t **p, ps_error *err);
void    ps_source__consume(ps_source *src, size_t n);
/** Skip n bytes; PS_ETRUNC if the input ends first. */
int     ps_source__skip(ps_source *src, uint64_t n, ps_error *err);
/** Turn a stream into a memory image by reading it to the end (for a
 * file-mode capture arriving on a pipe). Memory: the input's size. */
int     ps_source__slurp(ps_source *src, ps_error *err);
/** Whether a pointer peek returned stays valid past the next call (as long
 * as src->keep reports its offset): one into the mapping, or into the
 * reader's chunk while keep (which must be set) holds it. */
int     ps_source__borrowable(const ps_source *src, const uint8_t *p);
/** Memory images only: n bytes at absolute offset off, or NULL if outside. */
const uint8_t *ps_source__at(const ps_source *src, uint64_t off, uint64_t n);

#endif /* PS_SOURCE_H */
