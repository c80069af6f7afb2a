/* SPDX-License-Identifier: MIT */
/*
 * info_json.h - the parts of `perfsift info --json` that describe what a
 * capture declares: the file header, every decoded HEADER_* feature and the
 * event table, as jansson values (schemas/info.schema.json documents them).
 * Uses only perfsift.h; info.c adds the record counts and prints.
 */
#ifndef PS_CMD_INFO_JSON_H
#define PS_CMD_INFO_JSON_H

#include <jansson.h>
#include "perfsift.h"

/*
 * Each builder reads the session as it is now (pipe mode: call them after
 * the last record, when every HEADER_ATTR and HEADER_FEATURE has arrived).
 * Strings from the capture are written reversibly, since they need not be
 * UTF-8 and JSON must be: a backslash becomes two, and a byte that is not
 * part of valid UTF-8 becomes the text \xNN (lowercase hex).
 *
 * @return a new object or array, Owned: json_decref(); NULL when out of
 *         memory (nothing partial is returned).
 */
json_t *info_json_header(ps_session *s);     /* ps_header + feature bitmap */
json_t *info_json_features(ps_session *s);   /* ps_features, by feature */
json_t *info_json_events(ps_session *s);     /* ps_evsel table */
/* A string from a capture: valid UTF-8 kept, '\\' doubled, other bytes as
 * the text \xNN (reversible; schemas/info.schema.json). NULL -> null. */
json_t *info_json_text(const char *s);
/* Length of the valid UTF-8 sequence at p (n > 0 bytes left), 0 when the
 * byte at p starts none: the test info_json_text() escapes by. */
size_t info_json_utf8_len(const unsigned char *p, size_t n);

#endif /* PS_CMD_INFO_JSON_H */
