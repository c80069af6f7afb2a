/* SPDX-License-Identifier: MIT */
/*
 * script.h - what the parts of `perfsift script` share: the output fields,
 * the per-event-type field sets (perf's output[] table) and the -F parser
 * (script_fields.c), used by the printer (script.c).
 */
#ifndef PS_CMD_SCRIPT_H
#define PS_CMD_SCRIPT_H

#include <stdint.h>
#include "perfsift.h"

/* Output fields, in perf's -F vocabulary. */
enum {
    F_COMM = 1u << 0, F_TID = 1u << 1, F_PID = 1u << 2, F_TIME = 1u << 3,
    F_CPU = 1u << 4, F_EVNAME = 1u << 5, F_TRACE = 1u << 6, F_IP = 1u << 7,
    F_SYM = 1u << 8, F_DSO = 1u << 9, F_ADDR = 1u << 10, F_SYMOFF = 1u << 11,
    F_PERIOD = 1u << 12, F_DATA_SRC = 1u << 13, F_WEIGHT = 1u << 14,
    F_PHYS_ADDR = 1u << 15, F_MISC = 1u << 16,
    F_DATA_PAGE_SIZE = 1u << 18, F_CODE_PAGE_SIZE = 1u << 19,
    F_BPF_OUTPUT = 1u << 20, F_SYNTH = 1u << 21, F_INS_LAT = 1u << 22, F_SRCLINE = 1u << 23,
    F_IREGS = 1u << 24, F_UREGS = 1u << 25, F_BRSTACK = 1u << 26, F_BRSTACKSYM = 1u << 27,
    F_TOD = 1u << 28,           /* wall-clock time, from the CLOCK_DATA feature */
    F_FLAGS = 1u << 29,         /* branch flags: blank for every sample perfsift
                                 * prints (only itrace synthesizes them) */
    F_IPC = 1u << 30,           /* nothing without cycle counts (itrace, LBR) */
    F_UNSUPPORTED = 1u << 31     /* a perf field perfsift does not print yet */
};

/* Fields kept outside the F_* word (it is full): callindent, machine_pid
 * and vcpu print nothing here; srccode prints the source line after the
 * sample (script_srccode.c). */
enum { X_CALLINDENT = 1u << 0, X_MACHINE_PID = 1u << 1, X_VCPU = 1u << 2, X_SRCCODE = 1u << 3 };

/* perf's output types: attr.type 0..5, then synthesized and any other PMU. */
enum { OT_HW, OT_SW, OT_TP, OT_HW_CACHE, OT_RAW, OT_BP, OT_SYNTH, OT_OTHER, OT_MAX };

typedef struct script_output {
    uint32_t fields;            /* what is printed */
    uint32_t invalid;           /* never valid for this type */
    uint32_t user_set_fields;   /* asked for explicitly: missing data is an error */
    uint32_t user_unset_fields; /* removed explicitly with -F -x */
    unsigned extra;             /* X_* fields: perf has bits for them too, so
                                 * a sample with only those is a line */
    int      user_set;          /* -F touched this type */
    int      wildcard_set;      /* ...through a type-less -F */
    int      checked;           /* check_attr ran for this type */
} script_output;

typedef struct script_config {
    script_output out[OT_MAX];
    int      use_callchain;     /* perf's symbol_conf.use_callchain */
    int      no_callchain;      /* -G */
    int      allow_user_set;    /* HEADER_AUXTRACE: asked-for cpu, iregs may be missing */
    int      print_flags;       /* "flags" in any -F: one switch for every type */
    char    *warnings;          /* owned: perf's -F warnings, for after the options
                                 * (not with -q); NULL: none */
    size_t   warnings_len;
} script_config;

/** perf's output type of an attr type. */
int  script_output_type(uint32_t attr_type);
/** The default table. */
void script_config_init(script_config *c);
/** Free what the parser kept (the warnings). */
void script_config_free(script_config *c);
/** Apply one -F argument; prints perf-like errors (its warnings are kept
 * in c->warnings); 0 or -1. */
int  script_parse_fields(script_config *c, const char *arg);
/**
 * perf's evsel__check_attr for the first event of its type: drops default
 * fields the samples cannot supply, refuses asked-for ones. 0 or -1 (message
 * printed).
 */
int  script_check_attr(script_config *c, const ps_evsel *e, int has_stat_feature,
                       int has_traces);
/** The sample type has PERF_SAMPLE_CALLCHAIN. */
int  script_evsel_has_callchain(const ps_evsel *e);
/**
 * perf_session__check_output_opt, file mode: each output type checked
 * against its first event (script_check_attr), call chains used only if an
 * event has them, tracepoints with call chains showing where they fired.
 * 0 or -1 (message printed).
 */
int  script_check_session(script_config *c, ps_session *s, int has_stat);
/** The same for pipe mode, as each attr (index idx) arrives. */
int  script_check_pipe_attr(script_config *c, ps_session *s, size_t idx, int has_stat);
/** The name perf gives an output type in its messages. */
const char *script_type_name(int ot);

#endif /* PS_CMD_SCRIPT_H */
