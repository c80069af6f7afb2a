/* SPDX-License-Identifier: MIT */
/*
 * fold_int.h - inside the folder: the table of stacks (fold.c), the rules
 * that turn one sample into one stack (fold_rules.c), shared by the two
 * front ends, perf script text (fold_text.c) and captures (fold_capture.c).
 * Both feed the same calls with the same strings perf script would print,
 * so the two paths fold a capture identically.
 */
#ifndef PS_CMD_FOLD_INT_H
#define PS_CMD_FOLD_INT_H

#include "fold.h"

/* A byte string that is not NUL-terminated. */
typedef struct fold_str {
    const char *p;
    size_t      n;
} fold_str;

typedef struct fold_table fold_table;

fold_table *fold_table_new(void);
void fold_table_free(fold_table *t);
/** Add n to the stack's count; 0, or -1 when out of memory. */
int  fold_table_add(fold_table *t, const char *stack, size_t len, uint64_t n);
/** Move the stacks, sorted bytewise, into r (the table is emptied). */
int  fold_table_result(fold_table *t, fold_result *r);

/** One frame as perf script prints it: "pc func (mod)" then a srcline. */
typedef struct fold_frame {
    fold_str pc;                /* hex, no 0x */
    fold_str func;              /* "sym+0xoff", "[unknown]", ... */
    fold_str mod;               /* the dso, "inlined", "[unknown]" */
    fold_str src;               /* srcline text; p NULL: none printed */
    int      from_capture;      /* pc/mod name the real file (--inline) */
} fold_frame;

/** Gives the next input line for --compat=perl --srcline (NULL at end). */
typedef const char *(*fold_next_line)(void *ctx, size_t *len);

typedef struct folder {
    const fold_opts *o;
    fold_table *t;
    char       *pname;          /* the root frame; NULL: no sample open */
    size_t      pname_cap;
    int         open;           /* a sample is open (pname set) */
    int         java;           /* pname starts with "java" */
    char       *groups;         /* frames' pieces, leaf first, '\0'-separated */
    size_t      glen, gcap;
    size_t     *gend;           /* end offset of each group */
    size_t      ngroups, gend_cap;
    char       *key;            /* the joined stack */
    size_t      key_cap;
    char       *filter;         /* event filter (own copy) */
    int         filter_defaulted, warned;
    void       *inl;            /* fold_inline state (--inline) */
    int         oom;
    uint64_t    nr_samples;
} folder;

int  folder_init(folder *f, const fold_opts *o, fold_table *t);
void folder_free(folder *f);

/**
 * The event filter: 1 when a sample of event ev is kept. Without
 * --event-filter the first event seen becomes the filter, with perl's
 * message for the first one rejected.
 */
int  folder_event_ok(folder *f, fold_str ev);

/** Open a sample, or rename the open one (perl merges a header without a
 * blank line before it into the stack): comm, pid ("?" when not known)
 * and tid as text. */
void folder_begin(folder *f, fold_str comm, fold_str pid, fold_str tid);
/** Add a frame (leaf first). next/ctx: --compat=perl --srcline reads lines. */
void folder_frame(folder *f, const fold_frame *fr, fold_next_line next, void *ctx);
/** Remove the last frame's group and give its text (valid until the next
 * frame): the frame as the rules fold it. 0 when there is none. */
size_t folder_take_group(folder *f, const char **text);
/** Close the sample with its count; without an open sample, a no-op. */
void folder_end(folder *f, uint64_t count);
/** Forget the open sample. */
void folder_drop(folder *f);

/** perf script report stackcollapse: one frame of the decoded sample. */
void folder_py_frame(folder *f, const char *sym, const char *dso);
/** ...and its end: comm, pid, tid; counts samples. */
void folder_py_end(folder *f, const char *comm, uint32_t pid, uint32_t tid);

/** stackcollapse-perf.pl --inline: the addr2line chain for a frame, root
 * first, joined by ';' into out; 0 when it gives nothing usable. */
size_t fold_inline_chain(folder *f, const fold_frame *fr, char **out);
void   fold_inline_free(void *inl);

/* The two front ends. */
int fold_text(const char *cmd, const char *path, folder *f);
int fold_text_fp(const char *cmd, FILE *fp, const char *name, folder *f);
int fold_capture(const char *cmd, const input_opts *in, folder *f, char *countname,
                 size_t countname_size);

#endif /* PS_CMD_FOLD_INT_H */
