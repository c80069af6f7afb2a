/* SPDX-License-Identifier: MIT */
/*
 * json_record.h - one record of a capture as a JSON object with every
 * decoded field: what `perfsift dump --json` prints per line and what
 * `perfsift json` starts each record from (schemas/json.schema.json,
 * $defs/record, documents the members). Written as text (json_writer.h);
 * dump reads it back as a jansson object. Uses only perfsift.h and the
 * tracepoint API.
 */
#ifndef PS_CMD_JSON_RECORD_H
#define PS_CMD_JSON_RECORD_H

#include <jansson.h>
#include "json_writer.h"
#include "perfsift.h"

enum {
    JSON_RECORD_NO_STACK = 1u << 0     /* leave out STACK_USER bytes */
};

/** What `perfsift json` says of a sample beyond the record: the event it
 * counts for and its period (a READ sample is delivered once per value). */
typedef struct json_record_extra {
    const char *event;
    uint64_t    period;
} json_record_extra;

/**
 * The record ev of session s written to w as an object that is left open,
 * for the caller to add members and jw_close(w, '}'): offset, size, type,
 * misc, the record's own fields, a sample's fields by sample_type (a
 * tracepoint sample adds "trace" and typed "fields"), and the sample_id
 * trailer. x (may be NULL) gives "event" and "period" their values, in
 * their places, or at the end where the record has no such member.
 * @param flags  JSON_RECORD_* bits
 */
void json_record_write(jw *w, ps_session *s, const ps_event *ev, unsigned flags,
                       const json_record_extra *x);

/**
 * json_record_write()'s object as a jansson object (dump).
 * @return a new object, Owned: json_decref()
 */
json_t *json_record_new(ps_session *s, const ps_event *ev, unsigned flags);

#endif /* PS_CMD_JSON_RECORD_H */
