/* SPDX-License-Identifier: MIT */
/*
 * tp_vet.h - guards around libtraceevent for untrusted format texts: which
 * texts its parser survives (tried first in a child process), and which
 * parsed formats its printer would trap on. Used by tracepoint.c, and by
 * session.c to start the helper early.
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
    const char *print_fmt;  /* the caller's: its print fmt as the blob has it */
} ps_tp_text;

enum {
    PS_TP_VET_CRASHED = 0,  /* the helper died parsing it */
    PS_TP_VET_OK = 1,       /* the helper parsed it and went on */
    PS_TP_VET_UNKNOWN = 2   /* not tried (no fork) or the helper stalled */
};

/* Told the verdict (PS_TP_VET_*) on text i, once per text, in order. */
typedef void (*ps_tp_vet_fn)(void *ctx, size_t i, int verdict);

/**
 * Parse texts[0..n) in order in a helper process set up like tep, and tell
 * fn each text's verdict as soon as it is known: a text is OK once the
 * helper has gone on to the next, so the caller parses it while the helper
 * parses the next ones. tep itself is not changed. A text that kills the
 * helper is CRASHED and a new helper goes on after it.
 */
void ps_tp_vet_parse(struct tep_handle *tep, const ps_tp_text *texts, size_t n,
                     ps_tp_vet_fn fn, void *ctx);

/** Start the helper now, if not running: the session does when it meets
 * tracing data, early, while the process is small (a fork write-protects
 * the parent's memory, and each page it writes afterwards faults once). */
void ps_tp_vet_prestart(void);

/**
 * Why printing ev would trap in libtraceevent 1.7 whatever the payload
 * (a division by something that may be 0 or -1), or NULL if it would not.
 */
const char *ps_tp_vet_print(const struct tep_event *ev);

/**
 * Whether printing ev reads a number of bytes, or pads to a width, that a
 * payload may choose: it has a __print_hex(), __print_hex_str() or
 * __print_array(), or a '*' width or precision, checked by
 * ps_tp_vet_sizes_ok() before each print.
 */
int ps_tp_vet_sized(const struct tep_event *ev);

/**
 * Whether every sized print of ev, on data (size bytes, then pad bytes of
 * padding), reads at most pad bytes (libtraceevent reads what the payload
 * asks for, from a start inside it), and every '*' width or precision is
 * at most pad. Sizes it cannot bound fail.
 */
int ps_tp_vet_sizes_ok(const struct tep_event *ev, const void *data, size_t size, size_t pad);

#endif
