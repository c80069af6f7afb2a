/* SPDX-License-Identifier: MIT */
/*
 * tp_vet.h - guards around libtraceevent for untrusted format texts: which
 * texts its parser survives (tried first in a child process), and which
 * parsed formats its printer would trap on. Used by tracepoint.c only.
 */
#ifndef PS_TP_VET_H
#define PS_TP_VET_H

#include <stddef.h>

struct tep_handle;
struct tep_event;

/* One format text as tracepoint.c hands it to tep_parse_format(). */
typedef struct ps_tp_text {
    const char *sys;
    const char *text;       /* NUL-terminated at or after len */
    size_t      len;        /* bytes given to libtraceevent */
    size_t      at;         /* blob offset, for the caller's warnings */
} ps_tp_text;

enum {
    PS_TP_VET_CRASHED = 0,  /* the child died parsing it */
    PS_TP_VET_OK = 1,       /* the child parsed it and went on */
    PS_TP_VET_UNKNOWN = 2   /* not tried (no fork) or the child stalled */
};

/**
 * Parse texts[0..n) in order in a forked copy of tep, and set verdict[i]
 * to one of the PS_TP_VET_* values. tep itself is not changed. A text that
 * kills the child is marked and a new child goes on after it, so the cost
 * is one fork plus one per crashing text.
 */
void ps_tp_vet_parse(struct tep_handle *tep, const ps_tp_text *texts, size_t n,
                     unsigned char *verdict);

/**
 * Why printing ev would trap in libtraceevent 1.7 whatever the payload
 * (a division by something that may be 0 or -1), or NULL if it would not.
 */
const char *ps_tp_vet_print(const struct tep_event *ev);

#endif
