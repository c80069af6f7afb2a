/* SPDX-License-Identifier: MIT */
/*
 * script_fields.c - which fields `perfsift script` prints for each kind of
 * event: perf 6.1's default table, its -F grammar ("a,b", "type:a,b",
 * "+a,-b"), and its check that the samples carry what is asked (fields that
 * are only defaults are dropped silently, asked-for ones are an error).
 * Messages match perf's wording so scripts that grep them keep working.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "script.h"
#include "../libparse/util.h"

typedef struct field_name { const char *name; uint32_t field; } field_name;

/* perf 6.1's -F vocabulary; the ones perfsift cannot print yet are
 * recognised (so the error says so) but refused. Later perfs' cgroup and
 * dsoff are not in it: perf 6.1 says "Invalid field requested." */
static const field_name fields[] = {
    { "comm", F_COMM }, { "tid", F_TID }, { "pid", F_PID }, { "time", F_TIME },
    { "cpu", F_CPU }, { "event", F_EVNAME }, { "trace", F_TRACE }, { "ip", F_IP },
    { "sym", F_SYM }, { "dso", F_DSO }, { "addr", F_ADDR }, { "symoff", F_SYMOFF },
    { "period", F_PERIOD }, { "data_src", F_DATA_SRC }, { "weight", F_WEIGHT },
    { "bpf-output", F_BPF_OUTPUT }, { "synth", F_SYNTH }, { "phys_addr", F_PHYS_ADDR },
    { "misc", F_MISC },
    { "data_page_size", F_DATA_PAGE_SIZE }, { "code_page_size", F_CODE_PAGE_SIZE },
    { "srcline", F_SRCLINE }, { "iregs", F_IREGS }, { "uregs", F_UREGS },
    { "brstack", F_BRSTACK }, { "brstacksym", F_BRSTACKSYM },
    { "callindent", 0 },        /* indents only branch traces (BTS), which perf
                                 * prints apart: nothing to do for samples */
    { "insn", F_UNSUPPORTED }, { "insnlen", F_UNSUPPORTED },
    { "brstackinsn", F_UNSUPPORTED }, { "brstackoff", F_UNSUPPORTED },
    { "metric", F_UNSUPPORTED }, { "srccode", 0 }, { "ipc", F_IPC },
    { "tod", F_TOD }, { "flags", F_FLAGS }, { "ins_lat", F_INS_LAT }, { "brstackinsnlen", F_UNSUPPORTED },
    /* a guest's machine pid and vcpu: perf 6.1 looks them up (ID_INDEX)
     * only with its guest options (perf_guest), which perfsift does not
     * take, so it prints them for no sample */
    { "machine_pid", 0 }, { "vcpu", 0 },
};

#define PERF_TYPE_SYNTH_ 0x80000000u    /* perf's PERF_TYPE_SYNTH: INT_MAX + 1 */

#define F_SAMPLE_DEFAULT (F_COMM | F_TID | F_CPU | F_TIME | F_EVNAME | F_IP | F_SYM | \
                          F_SYMOFF | F_DSO | F_PERIOD)

int script_output_type(uint32_t attr_type)
{
    if (attr_type == PERF_TYPE_SYNTH_)
        return OT_SYNTH;
    return attr_type < PERF_TYPE_MAX ? (int)attr_type : OT_OTHER;
}

/* perf 6.1's event_type(): it names four types; raw, break and synth
 * events are "unknown" in its messages (it is given the output type, so
 * even its synth case does not match) */
const char *script_type_name(int ot)
{
    switch (ot) {
    case OT_HW: return "hardware";
    case OT_SW: return "software";
    case OT_TP: return "tracepoint";
    case OT_HW_CACHE: return "hardware-cache";
    default: return "unknown";
    }
}

void script_config_free(script_config *c)
{
    free(c->warnings);
    c->warnings = NULL;
    c->warnings_len = 0;
}

/* Keep one of perf's warnings (a message it prints as it parses -F). */
static void warn(script_config *c, const char *fmt, ...) PS_PRINTF(2, 3);
static void warn(script_config *c, const char *fmt, ...)
{
    char line[256];
    va_list ap;
    char *p;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof(line))
        n = sizeof(line) - 1;
    if ((p = realloc(c->warnings, c->warnings_len + (size_t)n + 1)) == NULL)
        return;                 /* a warning lost to want of memory */
    memcpy(p + c->warnings_len, line, (size_t)n + 1);
    c->warnings = p;
    c->warnings_len += (size_t)n;
}

void script_config_init(script_config *c)
{
    int t;

    memset(c, 0, sizeof(*c));
    c->use_callchain = 1;
    for (t = 0; t < OT_MAX; t++) {
        c->out[t].fields = F_SAMPLE_DEFAULT;
        c->out[t].invalid = F_TRACE | F_BPF_OUTPUT;
    }
    c->out[OT_SW].fields |= F_BPF_OUTPUT;
    c->out[OT_SW].invalid = F_TRACE;
    c->out[OT_TP].fields = F_COMM | F_TID | F_CPU | F_TIME | F_EVNAME | F_TRACE;
    c->out[OT_TP].invalid = 0;
    c->out[OT_RAW].fields |= F_ADDR | F_DATA_SRC | F_WEIGHT | F_INS_LAT;
    c->out[OT_SYNTH].fields = F_COMM | F_TID | F_CPU | F_TIME | F_EVNAME | F_IP |
                              F_SYM | F_DSO | F_SYNTH;
}

static int type_of_prefix(const char *s)
{
    static const struct { const char *name; int ot; } types[] = {
        { "hw", OT_HW }, { "sw", OT_SW }, { "trace", OT_TP }, { "raw", OT_RAW },
        { "break", OT_BP }, { "synth", OT_SYNTH },
    };
    size_t i;

    for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
        if (strcmp(s, types[i].name) == 0)
            return types[i].ot;
    return -1;
}

static const field_name *field_lookup(const char *tok)
{
    size_t i;

    for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
        if (strcmp(tok, fields[i].name) == 0)
            return &fields[i];
    return NULL;
}

/* The fields of value 0 above that perf has a bit for (script.h X_*) */
static unsigned extra_bit(const field_name *fn)
{
    static const struct { const char *name; unsigned bit; } extras[] = {
        { "callindent", X_CALLINDENT }, { "machine_pid", X_MACHINE_PID },
        { "vcpu", X_VCPU }, { "srccode", X_SRCCODE },
    };
    size_t i;

    for (i = 0; i < sizeof(extras) / sizeof(extras[0]); i++)
        if (strcmp(fn->name, extras[i].name) == 0)
            return extras[i].bit;
    return 0;
}

static void set_extra(script_output *o, const field_name *fn, int remove)
{
    unsigned bit = extra_bit(fn);

    if (remove)
        o->extra &= ~bit;
    else
        o->extra |= bit;
}

static void set_field(script_output *o, uint32_t f, int remove)
{
    if (remove) {
        o->fields &= ~f;
        o->user_set_fields &= ~f;
        o->user_unset_fields |= f;
    } else {
        o->fields |= f;
        o->user_set_fields |= f;
        o->user_unset_fields &= ~f;
    }
}

/* One token of the list, for one type (type >= 0) or all (-1). */
static int apply_token(script_config *c, int type, const field_name *fn, int remove)
{
    int t;

    if (fn->field == F_UNSUPPORTED) {
        fprintf(stderr, "perfsift script: field '%s' is not supported yet\n", fn->name);
        return -1;
    }
    if (type >= 0) {
        if (c->out[type].invalid & fn->field) {
            fprintf(stderr, "'%s' not valid for %s events.\n", fn->name, script_type_name(type));
            return -1;
        }
        /* perf 6.1 does not mark typed fields as asked for: ones the
         * samples lack are dropped silently, as defaults are. It flags
         * the type wildcard_set too, so only "type:" with no field asks
         * for events of that type to exist (script_check_session) */
        if (remove)
            c->out[type].fields &= ~fn->field;
        else
            c->out[type].fields |= fn->field;
        set_extra(&c->out[type], fn, remove);
        c->out[type].user_set = 1;
        c->out[type].wildcard_set = 1;
        return 0;
    }
    for (t = 0; t < OT_MAX; t++) {
        if (c->out[t].invalid & fn->field) {
            warn(c, "'%s' not valid for %s events. Ignoring.\n", fn->name, script_type_name(t));
            continue;
        }
        set_field(&c->out[t], fn->field, remove);
        set_extra(&c->out[t], fn, remove);
        c->out[t].user_set = 1;
        c->out[t].wildcard_set = 1;
    }
    return 0;
}

/* Reset the field sets a plain (no +/-) list replaces. */
static void reset_for_set(script_config *c, int type)
{
    int t;

    for (t = 0; t < OT_MAX; t++) {
        if (type >= 0 && t != type)
            continue;
        c->out[t].fields = 0;
        c->out[t].extra = 0;
        c->out[t].user_set = 1;
        c->out[t].wildcard_set = type < 0;
    }
}

/* perf's warnings that a list replaces what earlier ones asked: a typed
 * list whenever its type was set before, a plain (no +/-) untyped list
 * when any type was */
static void warn_override(script_config *c, int type, const char *list)
{
    int t;

    if (type >= 0) {
        if (c->out[type].user_set)
            warn(c, "Overriding previous field request for %s events.\n",
                 script_type_name(type));
        return;
    }
    if (strchr(list, '+') != NULL || strchr(list, '-') != NULL)
        return;
    for (t = 0; t < OT_MAX; t++)
        if (c->out[t].user_set) {
            warn(c, "Overriding previous field request for all events.\n");
            return;
        }
}

int script_parse_fields(script_config *c, const char *arg)
{
    enum { DEFAULT, SET, ADD, REMOVE } change = DEFAULT;
    char *str = strdup(arg), *list, *tok, *save = NULL, *colon;
    int type = -1, rc = 0;

    if (str == NULL)
        return -1;
    list = str;
    if ((colon = strchr(str, ':')) != NULL) {
        *colon = '\0';
        list = colon + 1;
        if ((type = type_of_prefix(str)) < 0) {
            fprintf(stderr, "Invalid event type in field string.\n");
            free(str);
            return -1;
        }
    } else if (*str == '\0') {
        fprintf(stderr, "Cannot set fields to 'none' for all event types.\n");
        free(str);
        return -1;
    }
    warn_override(c, type, list);
    if (strchr(list, '+') == NULL && strchr(list, '-') == NULL)
        reset_for_set(c, type);
    for (tok = strtok_r(list, ",", &save); tok && rc == 0; tok = strtok_r(NULL, ",", &save)) {
        const field_name *fn;
        int remove = 0;

        if (*tok == '+' || *tok == '-') {
            if (change == SET)
                goto badmix;
            change = *tok == '+' ? ADD : REMOVE;
            remove = *tok == '-';
            tok++;
        } else {
            if (change != SET && change != DEFAULT)
                goto badmix;
            change = SET;
        }
        if ((fn = field_lookup(tok)) == NULL) {
            fprintf(stderr, "Invalid field requested.\n");
            rc = -1;
            break;
        }
        /* perf 6.1 keeps "flags" out of its per-type fields: any -F that
         * names it, with or without a type, turns the column on (or off,
         * -flags) for every event */
        if (fn->field == F_FLAGS)
            c->print_flags = !remove;
        else
            rc = apply_token(c, type, fn, remove);
    }
    free(str);
    return rc;
badmix:
    fprintf(stderr, "Cannot mix +-field with overridden fields\n");
    free(str);
    return -1;
}

/* perf's evsel__do_check_stype: the samples lack `bit`; an asked-for field is
 * an error (unless allow), a default one is dropped. */
static int check_stype(script_output *o, const ps_evsel *e, uint64_t bit, const char *msg,
                       uint32_t field, const char *fname, int allow)
{
    if (e->attr.sample_type & bit)
        return 0;
    if (o->user_set_fields & field) {
        if (allow)
            return 0;
        fprintf(stderr, "Samples for '%s' event do not have %s attribute set. "
                "Cannot print '%s' field.\n", e->name, msg, fname);
        return -1;
    }
    o->fields &= ~field;
    return 0;
}

int script_check_attr(script_config *c, const ps_evsel *e, int has_stat_feature,
                      int has_traces)
{
    script_output *o = &c->out[script_output_type(e->attr.type)];
    uint64_t st = e->attr.sample_type;

    /* perf 6.1 skips the dummy event (its sample_type says nothing about
     * what the real events carry); in pipe mode, where only the first
     * attr of a type is checked, that spares its whole type */
    if (has_stat_feature ||
        (e->attr.type == PERF_TYPE_SOFTWARE && e->attr.config == PERF_COUNT_SW_DUMMY))
        return 0;
    if ((o->fields & F_TRACE) && !has_traces) {
        fprintf(stderr, "No trace sample to read. Did you call 'perf record -R'?\n");
        return -1;
    }
    if ((o->fields & F_IP) && check_stype(o, e, PERF_SAMPLE_IP, "IP", F_IP, "ip", 0))
        return -1;
    if ((o->fields & F_ADDR) && check_stype(o, e, PERF_SAMPLE_ADDR, "ADDR", F_ADDR, "addr", 0))
        return -1;
    if ((o->fields & F_DATA_SRC) &&
        check_stype(o, e, PERF_SAMPLE_DATA_SRC, "DATA_SRC", F_DATA_SRC, "data_src", 0))
        return -1;
    if ((o->fields & F_WEIGHT) &&
        check_stype(o, e, PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT",
                    F_WEIGHT, "weight", 0))
        return -1;
    if ((o->fields & F_SYM) && !(st & (PERF_SAMPLE_IP | PERF_SAMPLE_ADDR))) {
        fprintf(stderr, "Display of symbols requested but neither sample IP nor sample address\n"
                "available. Hence, no addresses to convert to symbols.\n");
        return -1;
    }
    if ((o->fields & F_SYMOFF) && !(o->fields & F_SYM)) {
        /* sic: perf 6.1's message lacks the space */
        fprintf(stderr, "Display of offsets requested but symbol is notselected.\n");
        return -1;
    }
    if ((o->fields & F_DSO) && !(st & (PERF_SAMPLE_IP | PERF_SAMPLE_ADDR))) {
        fprintf(stderr, "Display of DSO requested but no address to convert.\n");
        return -1;
    }
    if (((o->fields & F_SRCLINE) || (o->extra & X_SRCCODE)) && !(o->fields & F_IP)) {
        fprintf(stderr, "Display of source line number requested but sample IP is not\n"
                "selected. Hence, no address to lookup the source line number.\n");
        return -1;
    }
    if ((o->fields & (F_PID | F_TID)) &&
        check_stype(o, e, PERF_SAMPLE_TID, "TID", F_TID | F_PID, "tid", 0))
        return -1;
    if ((o->fields & F_TIME) && check_stype(o, e, PERF_SAMPLE_TIME, "TIME", F_TIME, "time", 0))
        return -1;
    if ((o->fields & F_CPU) &&
        check_stype(o, e, PERF_SAMPLE_CPU, "CPU", F_CPU, "cpu", c->allow_user_set))
        return -1;
    if ((o->fields & F_IREGS) &&
        check_stype(o, e, PERF_SAMPLE_REGS_INTR, "IREGS", F_IREGS, "iregs", c->allow_user_set))
        return -1;
    if ((o->fields & F_UREGS) &&
        check_stype(o, e, PERF_SAMPLE_REGS_USER, "UREGS", F_UREGS, "uregs", 0))
        return -1;
    if ((o->fields & F_PHYS_ADDR) &&
        check_stype(o, e, PERF_SAMPLE_PHYS_ADDR, "PHYS_ADDR", F_PHYS_ADDR, "phys_addr", 0))
        return -1;
    if ((o->fields & F_DATA_PAGE_SIZE) &&
        check_stype(o, e, PERF_SAMPLE_DATA_PAGE_SIZE, "DATA_PAGE_SIZE", F_DATA_PAGE_SIZE,
                    "data_page_size", 0))
        return -1;
    if ((o->fields & F_CODE_PAGE_SIZE) &&
        check_stype(o, e, PERF_SAMPLE_CODE_PAGE_SIZE, "CODE_PAGE_SIZE", F_CODE_PAGE_SIZE,
                    "code_page_size", 0))
        return -1;
    if ((o->fields & F_INS_LAT) &&
        check_stype(o, e, PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT_STRUCT", F_INS_LAT, "ins_lat", 0))
        return -1;
    return 0;
}

/* --- a whole capture's configuration -------------------------------------- */

int script_evsel_has_callchain(const ps_evsel *e)
{
    return (e->attr.sample_type & PERF_SAMPLE_CALLCHAIN) != 0;
}

/* The first event of output type t, which perf 6.1 checks the type's
 * fields against: never the dummy event (a capture with the dummy before
 * cpu-clock has cpu-clock's sample_type checked). */
static const ps_evsel *first_of_type(ps_session *s, int t)
{
    size_t i, n = ps_session_nr_evsels(s);

    for (i = 0; i < n; i++) {
        const ps_evsel *e = ps_session_evsel(s, i);

        if (script_output_type(e->attr.type) == t &&
            !(e->attr.type == PERF_TYPE_SOFTWARE && e->attr.config == PERF_COUNT_SW_DUMMY))
            return e;
    }
    return NULL;
}

/* perf_session__check_output_opt for file mode: each type checked against
 * its first event; callchains used only if some event has them. */
int script_check_session(script_config *cfg, ps_session *s, int has_stat)
{
    size_t i, n = ps_session_nr_evsels(s);
    int has_traces = 0, any_callchain = 0, t;

    cfg->allow_user_set = ps_features_has(ps_session_features(s), PS_HEADER_AUXTRACE);
    for (i = 0; i < n; i++) {
        const ps_evsel *e = ps_session_evsel(s, i);

        has_traces |= e->attr.type == PERF_TYPE_TRACEPOINT;
        any_callchain |= script_evsel_has_callchain(e);
    }
    for (t = 0; t < OT_MAX; t++) {
        const ps_evsel *e = first_of_type(s, t);

        /* "-F sw:" (no field) hides the type's events: they must exist */
        if (e == NULL && cfg->out[t].user_set && !cfg->out[t].wildcard_set &&
            t != OT_SYNTH) {
            fprintf(stderr, "%s events do not exist. "
                    "Remove corresponding -F option to proceed.\n", script_type_name(t));
            return -1;
        }
        if (e != NULL && (cfg->out[t].fields || cfg->out[t].extra) &&
            script_check_attr(cfg, e, has_stat, has_traces) < 0)
            return -1;
    }
    if (!cfg->no_callchain && n > 0 && !any_callchain)
        cfg->use_callchain = 0;
    /* tracepoints show where they fired when they have call chains */
    if (cfg->use_callchain && !cfg->out[OT_TP].user_set) {
        for (i = 0; i < n; i++) {
            const ps_evsel *e = ps_session_evsel(s, i);

            if (e->attr.type == PERF_TYPE_TRACEPOINT && script_evsel_has_callchain(e)) {
                cfg->out[OT_TP].fields |= F_IP | F_SYM | F_SYMOFF | F_DSO;
                break;
            }
        }
    }
    return 0;
}

/* Pipe mode: perf checks each attr as it arrives (process_attr). */
int script_check_pipe_attr(script_config *cfg, ps_session *s, size_t idx, int has_stat)
{
    const ps_evsel *e = ps_session_evsel(s, idx);
    uint64_t combined = 0;
    script_output *o;
    size_t i;

    if (e->attr.type >= PERF_TYPE_MAX && script_output_type(e->attr.type) != OT_SYNTH)
        return 0;
    for (i = 0; i < idx; i++)
        if (ps_session_evsel(s, i)->attr.type == e->attr.type)
            return 0;
    if (e->attr.sample_type &&
        script_check_attr(cfg, e, has_stat, e->attr.type == PERF_TYPE_TRACEPOINT) < 0)
        return -1;
    for (i = 0; i <= idx; i++)
        combined |= ps_session_evsel(s, i)->attr.sample_type;
    o = &cfg->out[script_output_type(e->attr.type)];
    if (cfg->use_callchain &&
        ((combined & PERF_SAMPLE_CALLCHAIN) || (combined & PERF_SAMPLE_BRANCH_STACK) ||
         ((combined & PERF_SAMPLE_REGS_USER) && (combined & PERF_SAMPLE_STACK_USER)))) {
        if (!(o->user_unset_fields & F_IP))
            o->fields |= F_IP;
        if (!(o->user_unset_fields & F_SYM))
            o->fields |= F_SYM;
    }
    return 0;
}

