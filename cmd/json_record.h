/* SPDX-License-Identifier: MIT */
/*
 * json_record.h - one record of a capture as a jansson object with every
 * decoded field: what `perfsift dump --json` prints per line and what
 * `perfsift json` starts each record from (schemas/json.schema.json,
 * $defs/record, documents the members). Uses only perfsift.h and the
 * tracepoint API.
 */
#ifndef PS_CMD_JSON_RECORD_H
#define PS_CMD_JSON_RECORD_H

#include <jansson.h>
#include "perfsift.h"

enum {
    JSON_RECORD_NO_STACK = 1u << 0     /* leave out STACK_USER bytes */
};

/**
 * The record ev of session s: offset, size, type, misc, the record's own
 * fields, a sample's fields by sample_type (a tracepoint sample adds
 * "trace" and typed "fields"), and the sample_id trailer.
 * @param flags  JSON_RECORD_* bits
 * @return a new object, Owned: json_decref()
 */
json_t *json_record_new(ps_session *s, const ps_event *ev, unsigned flags);

/* The value rules every record member follows (the schema's $defs): */
/** "0x<lowercase hex>" (addresses, masks, flags) */
json_t *json_record_hex(uint64_t v);
/** counts and times: a JSON integer, or "0x..." past INT64_MAX */
json_t *json_record_num(uint64_t v);
/** a string from the capture, escaped reversibly (info_json_text()); NULL
 * gives null */
json_t *json_record_text(const char *s);

#endif /* PS_CMD_JSON_RECORD_H */
