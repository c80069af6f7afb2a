/* SPDX-License-Identifier: MIT */
/*
 * script_stat.h - what `perf script` (perf 6.1) prints for the records of
 * `perf stat record` captures: THREAD_MAP, CPU_MAP, STAT_CONFIG, STAT and
 * STAT_ROUND (and the CPUS kind of EVENT_UPDATE, which it only watches).
 * Uses only perfsift.h; called by cmd/script.c with every non-sample record.
 *
 * What perf 6.1 does (builtin-script.c process_stat*, util/stat.c; checked
 * against /usr/bin/perf 6.1.187 on live `perf stat record` captures of every
 * aggregation mode, pipe mode included, and on hand-made captures):
 *
 * 1. Output. Only STAT_ROUND prints. For each event (evsel order), for each
 *    thread of the THREAD_MAP, for each CPU of the event's CPU map:
 *        "%3d %8d %15lu %15lu %15lu %15lu %s\n"
 *    cpu, thread pid (the map's u64 cut to int), val, ena, run, the round's
 *    time field, event name (EVENT_UPDATE NAME, else HEADER_EVENT_DESC, else
 *    derived: ps_evsel.name, as it is when the round arrives). The round's
 *    type is ignored. Before the first line of the session:
 *        "CPU   THREAD             VAL             ENA             RUN"
 *        "            TIME EVENT\n"   (one line: "%3s %8s %15s %15s %15s %15s %s\n")
 *    printed even when no row follows (empty thread map), never when no
 *    round comes. -F and the other options change none of this; HEADER_STAT
 *    is not needed for it (perf script's field check wants it, not this).
 *
 * 2. Maps. The first THREAD_MAP and the first CPU_MAP count; later ones are
 *    ignored with a warning. Once both are in, each event present gets its
 *    CPU map -- its EVENT_UPDATE CPUS map if one came *before* and the
 *    CPU_MAP is not the "any" map [-1], else the CPU_MAP -- and zeroed
 *    counts for every (cpu, thread) pair. Rows come from these counts.
 *
 * 3. STAT stores (val, ena, run) into its event's slot: event by id as perf
 *    looks it up (one event, or id 0: the first; an id no event has: the
 *    first unless the first event has sample_id_all -- then "Failed to
 *    resolve counter for stat event."), CPU by a *binary search* of the
 *    event's CPU map (so an unsorted map misses CPUs: "Invalid CPU %d for
 *    event %s."), thread by index ("Failed to find perf count for CPU %d
 *    thread %d on event %s."). Each of these errors stops perf.
 *
 * 4. STAT_CONFIG: tag 0 is aggr_mode (its low 32 bits), tag 2 scale
 *    (non-zero = on), tag 1 (interval) is ignored, other tags warn "unknown
 *    stat config term %lu". Before any STAT_CONFIG: mode 0, scale off.
 *    At each round, in modes 0 2 3 4 5 7 (none, socket, die, core, thread,
 *    node) every slot is first turned into the difference from the raw value
 *    it held at the previous round (u64 wrap-around included; a slot no
 *    STAT refreshed is differenced again) and then, with scale on, val
 *    becomes 0 if run is 0, or (u64)((double)val * ena / run) if run < ena
 *    (0 when that passes 2^64, as x86-64 perf gets it). Mode 1 (global), 6
 *    and 8 or more print the stored values as they are.
 *
 * Errors: script_stat_event() returns a negative code with err->msg set to
 * perf's message; perf prints it on stderr followed by
 * "%#lx [%#x]: failed to process type: %u [Invalid argument]" (offset, size,
 * type of the record) and stops processing. Where perf 6.1 crashes instead
 * (a STAT_ROUND, or a STAT of an event, before the CPU and THREAD maps have
 * given it counts) the result is PS_EUNSUPPORTED with a message saying so.
 */
#ifndef PS_CMD_SCRIPT_STAT_H
#define PS_CMD_SCRIPT_STAT_H

#include <stdio.h>
#include "perfsift.h"

typedef struct script_stat script_stat;

/**
 * New stat state for session s (not owned; must outlive the result).
 * Warnings go to stderr, as perf's do; see script_stat_set_warn().
 *
 * @return the state, Owned: script_stat_free(); NULL when out of memory
 */
script_stat *script_stat_new(ps_session *s);

/** Where warnings go ("Extra thread map event, ignoring." ...); NULL: nowhere. */
void script_stat_set_warn(script_stat *st, FILE *warn);

/**
 * Process one record of the session. Pass every non-sample record, in
 * delivery order; rows are printed to out (perf prints them to stdout).
 *
 * @return 1 when ev is a THREAD_MAP, CPU_MAP, STAT_CONFIG, STAT or
 *         STAT_ROUND record (handled, maybe printed); 0 for any other
 *         record (EVENT_UPDATE included: it is only looked at); a negative
 *         PS_E* code where perf 6.1 stops (err filled, offset and record
 *         type of ev)
 */
int script_stat_event(script_stat *st, FILE *out, const ps_event *ev, ps_error *err);

/** Free st. Accepts NULL. */
void script_stat_free(script_stat *st);

#endif /* PS_CMD_SCRIPT_STAT_H */
