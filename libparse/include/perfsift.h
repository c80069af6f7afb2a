/* SPDX-License-Identifier: MIT */
/*
 * perfsift.h - the one public header of libparse.
 *
 * libparse reads what Linux perf writes: perf.data files (file mode, pipe
 * mode, directory mode, either byte order, zstd-compressed records) and raw
 * ring-buffer dumps, and hands every record to the caller decoded into typed
 * structs through a pull iterator:
 *
 *     ps_session *s;
 *     ps_event ev;
 *     ps_error err;
 *     if (ps_session_open(&s, "perf.data", NULL, &err) < 0) ...
 *     while ((rc = ps_session_next(&ev, s, &err)) == PS_OK) ...
 *     ps_session_close(s);
 *
 * Ownership: everything a ps_event points to is Borrowed until the next
 * ps_session_next() or ps_session_close(); everything reachable from
 * ps_session_header(), ps_session_features() and ps_session_evsel() is
 * Borrowed until ps_session_close() (pipe mode adds to them as records
 * arrive, so re-read the count after each record).
 *
 * Every integer in these structs is in host byte order, whatever the file's.
 * Names follow perf: PERF_RECORD_* / PERF_SAMPLE_* come from
 * <linux/perf_event.h>; perf's own record types are PS_RECORD_<perf name>.
 * Byte-level reference: shared/spec/perf-data-format.md.
 */
#ifndef PERFSIFT_H
#define PERFSIFT_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define PS_API __attribute__((visibility("default")))
#else
#define PS_API
#endif

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */

/** Result codes. Pinned: never renumbered. */
enum ps_code {
    PS_OK           = 0,
    PS_DONE         = 1,   /* end of input (ps_session_next only) */
    PS_EIO          = -1,  /* the OS refused a read/open/mmap */
    PS_EFORMAT      = -2,  /* not a perf.data file / unknown container */
    PS_ECORRUPT     = -3,  /* a length, count or offset is impossible */
    PS_ETRUNC       = -4,  /* the input ends inside a structure */
    PS_ENOMEM       = -5,
    PS_EUNSUPPORTED = -6,  /* valid but not understood (e.g. unknown sample bits) */
    PS_EINVAL       = -7   /* bad argument from the caller */
};

#define PS_NO_OFFSET UINT64_MAX

typedef struct ps_error {
    int      code;          /* PS_E* (negative); PS_OK when nothing failed */
    uint64_t offset;        /* input byte offset where detected, or PS_NO_OFFSET */
    uint32_t record_type;   /* record being decoded, or 0 */
    uint64_t record_index;  /* 0-based index of that record, or UINT64_MAX */
    char     msg[512];      /* caller-owned, so reporting PS_ENOMEM allocates nothing */
} ps_error;

/** Static name of a code ("corrupt input" ...). */
PS_API const char *ps_error_str(int code);

/* ------------------------------------------------------------------------ */
/* Record and feature identifiers perf defines outside the kernel UAPI       */

#ifndef PERF_RECORD_AUX_OUTPUT_HW_ID
#define PERF_RECORD_AUX_OUTPUT_HW_ID 21
#endif
#define PS_RECORD_CALLCHAIN_DEFERRED 22   /* newest kernels */

enum ps_user_record {
    PS_RECORD_HEADER_ATTR          = 64,
    PS_RECORD_HEADER_EVENT_TYPE    = 65,
    PS_RECORD_HEADER_TRACING_DATA  = 66,
    PS_RECORD_HEADER_BUILD_ID      = 67,
    PS_RECORD_FINISHED_ROUND       = 68,
    PS_RECORD_ID_INDEX             = 69,
    PS_RECORD_AUXTRACE_INFO        = 70,
    PS_RECORD_AUXTRACE             = 71,
    PS_RECORD_AUXTRACE_ERROR       = 72,
    PS_RECORD_THREAD_MAP           = 73,
    PS_RECORD_CPU_MAP              = 74,
    PS_RECORD_STAT_CONFIG          = 75,
    PS_RECORD_STAT                 = 76,
    PS_RECORD_STAT_ROUND           = 77,
    PS_RECORD_EVENT_UPDATE         = 78,
    PS_RECORD_TIME_CONV            = 79,
    PS_RECORD_HEADER_FEATURE       = 80,
    PS_RECORD_COMPRESSED           = 81,
    PS_RECORD_FINISHED_INIT        = 82,
    PS_RECORD_COMPRESSED2          = 83,
    PS_RECORD_BPF_METADATA         = 84,
    PS_RECORD_SCHEDSTAT_CPU        = 85,
    PS_RECORD_SCHEDSTAT_DOMAIN     = 86,
    PS_RECORD_MAX                  = 87    /* one past the last type we name */
};

/** perf's HEADER_* feature bits (spec section 6.3). */
enum ps_feature {
    PS_HEADER_RESERVED = 0, PS_HEADER_TRACING_DATA = 1, PS_HEADER_BUILD_ID = 2,
    PS_HEADER_HOSTNAME = 3, PS_HEADER_OSRELEASE = 4, PS_HEADER_VERSION = 5,
    PS_HEADER_ARCH = 6, PS_HEADER_NRCPUS = 7, PS_HEADER_CPUDESC = 8,
    PS_HEADER_CPUID = 9, PS_HEADER_TOTAL_MEM = 10, PS_HEADER_CMDLINE = 11,
    PS_HEADER_EVENT_DESC = 12, PS_HEADER_CPU_TOPOLOGY = 13,
    PS_HEADER_NUMA_TOPOLOGY = 14, PS_HEADER_BRANCH_STACK = 15,
    PS_HEADER_PMU_MAPPINGS = 16, PS_HEADER_GROUP_DESC = 17,
    PS_HEADER_AUXTRACE = 18, PS_HEADER_STAT = 19, PS_HEADER_CACHE = 20,
    PS_HEADER_SAMPLE_TIME = 21, PS_HEADER_MEM_TOPOLOGY = 22,
    PS_HEADER_CLOCKID = 23, PS_HEADER_DIR_FORMAT = 24,
    PS_HEADER_BPF_PROG_INFO = 25, PS_HEADER_BPF_BTF = 26,
    PS_HEADER_COMPRESSED = 27, PS_HEADER_CPU_PMU_CAPS = 28,
    PS_HEADER_CLOCK_DATA = 29, PS_HEADER_HYBRID_TOPOLOGY = 30,
    PS_HEADER_PMU_CAPS = 31, PS_HEADER_CPU_DOMAIN_INFO = 32,
    PS_HEADER_FEAT_KNOWN = 33,     /* one past the last feature we decode */
    PS_HEADER_FEAT_BITS = 256
};

/** perf's printed name of a record type ("SAMPLE", "FINISHED_ROUND"), or NULL. Static. */
PS_API const char *ps_record_type_name(uint32_t type);
/** perf's name of a feature bit ("HOSTNAME"), or NULL. Static. */
PS_API const char *ps_feature_name(unsigned feat);

/* ------------------------------------------------------------------------ */
/* perf_event_attr, decoded                                                  */

/* Bits of ps_attr.flags, little-endian numbering (spec 3.2), whatever the
 * producer's byte order was. */
#define PS_ATTR_FLAG(n) (UINT64_C(1) << (n))
enum ps_attr_flag_bit {
    PS_ATTR_DISABLED = 0, PS_ATTR_INHERIT = 1, PS_ATTR_PINNED = 2,
    PS_ATTR_EXCLUSIVE = 3, PS_ATTR_EXCLUDE_USER = 4, PS_ATTR_EXCLUDE_KERNEL = 5,
    PS_ATTR_EXCLUDE_HV = 6, PS_ATTR_EXCLUDE_IDLE = 7, PS_ATTR_MMAP = 8,
    PS_ATTR_COMM = 9, PS_ATTR_FREQ = 10, PS_ATTR_INHERIT_STAT = 11,
    PS_ATTR_ENABLE_ON_EXEC = 12, PS_ATTR_TASK = 13, PS_ATTR_WATERMARK = 14,
    PS_ATTR_PRECISE_IP = 15 /* 2 bits */, PS_ATTR_MMAP_DATA = 17,
    PS_ATTR_SAMPLE_ID_ALL = 18, PS_ATTR_EXCLUDE_HOST = 19,
    PS_ATTR_EXCLUDE_GUEST = 20, PS_ATTR_EXCLUDE_CALLCHAIN_KERNEL = 21,
    PS_ATTR_EXCLUDE_CALLCHAIN_USER = 22, PS_ATTR_MMAP2 = 23,
    PS_ATTR_COMM_EXEC = 24, PS_ATTR_USE_CLOCKID = 25,
    PS_ATTR_CONTEXT_SWITCH = 26, PS_ATTR_WRITE_BACKWARD = 27,
    PS_ATTR_NAMESPACES = 28, PS_ATTR_KSYMBOL = 29, PS_ATTR_BPF_EVENT = 30,
    PS_ATTR_AUX_OUTPUT = 31, PS_ATTR_CGROUP = 32, PS_ATTR_TEXT_POKE = 33,
    PS_ATTR_BUILD_ID = 34, PS_ATTR_INHERIT_THREAD = 35,
    PS_ATTR_REMOVE_ON_EXEC = 36, PS_ATTR_SIGTRAP = 37,
    PS_ATTR_DEFER_CALLCHAIN = 38, PS_ATTR_DEFER_OUTPUT = 39
};

typedef struct ps_attr {
    uint32_t type;
    uint32_t size;              /* as written (0 read as 64) */
    uint64_t config;
    uint64_t sample_period;     /* or sample_freq when PS_ATTR_FREQ */
    uint64_t sample_type;
    uint64_t read_format;
    uint64_t flags;             /* PS_ATTR_* bits */
    uint32_t wakeup_events;
    uint32_t bp_type;
    uint64_t config1;           /* bp_addr / kprobe_func / uprobe_path */
    uint64_t config2;           /* bp_len / kprobe_addr / probe_offset */
    uint64_t branch_sample_type;
    uint64_t sample_regs_user;
    uint32_t sample_stack_user;
    int32_t  clockid;
    uint64_t sample_regs_intr;
    uint32_t aux_watermark;
    uint16_t sample_max_stack;
    uint16_t reserved_2;
    uint32_t aux_sample_size;
    uint32_t aux_action;        /* reserved_3 before VER7 kernels */
    uint64_t sig_data;
    uint64_t config3;
} ps_attr;

static inline int ps_attr_flag(const ps_attr *a, unsigned bit)
{
    return (int)((a->flags >> bit) & 1);
}

/* ------------------------------------------------------------------------ */
/* Events (attrs with their ids and names)                                   */

typedef struct ps_evsel {
    unsigned        idx;        /* position in the attr table / HEADER_ATTR order */
    ps_attr         attr;
    const char     *name;       /* EVENT_UPDATE NAME, EVENT_DESC, else derived as perf does */
    const char     *attr_name;  /* the name perf derives from the attr alone */
    uint64_t        nr_ids;
    const uint64_t *ids;
    /* from EVENT_UPDATE */
    const char     *unit;       /* NULL if none */
    double          scale;      /* 0 if none */
} ps_evsel;

/* ------------------------------------------------------------------------ */
/* Samples (spec section 8)                                                  */

typedef struct ps_read_value {
    uint64_t value;
    uint64_t id;                /* if PERF_FORMAT_ID */
    uint64_t lost;              /* if PERF_FORMAT_LOST */
} ps_read_value;

typedef struct ps_read_values {
    uint64_t              read_format;
    uint64_t              nr;           /* 1 without PERF_FORMAT_GROUP */
    uint64_t              time_enabled;
    uint64_t              time_running;
    const ps_read_value  *values;       /* nr entries */
} ps_read_values;

typedef struct ps_regs {
    uint64_t        abi;        /* 0 none, 1 32-bit, 2 64-bit */
    uint64_t        mask;       /* the attr's register mask */
    uint64_t        nr;         /* popcount(mask) when abi != 0, else 0 */
    const uint64_t *regs;       /* by increasing register number */
} ps_regs;

typedef struct ps_branch_entry {
    uint64_t from;
    uint64_t to;
    uint64_t flags;             /* little-endian bit positions (spec 8.6) */
} ps_branch_entry;

typedef struct ps_sample {
    uint64_t sample_type;
    uint64_t identifier;
    uint64_t ip;
    uint32_t pid, tid;          /* (uint32_t)-1 without PERF_SAMPLE_TID, as perf */
    uint64_t time;
    uint64_t addr;
    uint64_t id;
    uint64_t stream_id;
    uint32_t cpu, cpu_res;      /* cpu (uint32_t)-1 without PERF_SAMPLE_CPU */
    uint64_t period;            /* attr.sample_period when not sampled */
    ps_read_values read;
    uint64_t        nr_callchain;
    const uint64_t *callchain;  /* with PERF_CONTEXT_* markers, leaf first */
    uint32_t        raw_size;
    const uint8_t  *raw_data;   /* producer byte order (tracing data says which) */
    uint64_t               nr_branches;
    int                    has_hw_idx;
    uint64_t               hw_idx;
    const ps_branch_entry *branches;
    const uint64_t        *branch_counters;   /* nr_branches entries, or NULL */
    ps_regs         regs_user;
    uint64_t        stack_size;
    const uint8_t  *stack_data;
    uint64_t        stack_dyn_size;
    uint64_t        weight;     /* WEIGHT, or WEIGHT_STRUCT's whole u64 */
    uint64_t        data_src;
    uint64_t        transaction;
    ps_regs         regs_intr;
    uint64_t        phys_addr;
    uint64_t        cgroup;
    uint64_t        data_page_size;
    uint64_t        code_page_size;
    uint64_t        aux_size;
    const uint8_t  *aux_data;
} ps_sample;

/** The sample_id_all trailer of a non-sample record (spec 9.1). */
typedef struct ps_sample_id {
    uint64_t present;           /* sample_type bits of the fields present */
    uint32_t pid, tid;
    uint64_t time;
    uint64_t id;
    uint64_t stream_id;
    uint32_t cpu, cpu_res;
    uint64_t identifier;
} ps_sample_id;

/* ------------------------------------------------------------------------ */
/* Kernel records (spec 7.3.1)                                              */

typedef struct ps_record_mmap {
    uint32_t pid, tid;
    uint64_t start, len, pgoff;
    const char *filename;
} ps_record_mmap;

typedef struct ps_record_mmap2 {
    uint32_t pid, tid;
    uint64_t start, len, pgoff;
    int      has_build_id;      /* misc & PERF_RECORD_MISC_MMAP_BUILD_ID */
    uint32_t maj, min;
    uint64_t ino, ino_generation;
    uint8_t  build_id_size;
    uint8_t  build_id[20];
    uint32_t prot, flags;
    const char *filename;
} ps_record_mmap2;

typedef struct ps_record_comm { uint32_t pid, tid; const char *comm; } ps_record_comm;
typedef struct ps_record_fork { uint32_t pid, ppid, tid, ptid; uint64_t time; } ps_record_fork;
typedef struct ps_record_lost { uint64_t id, lost; } ps_record_lost;
typedef struct ps_record_throttle { uint64_t time, id, stream_id; } ps_record_throttle;
typedef struct ps_record_read { uint32_t pid, tid; ps_read_values values; } ps_record_read;
typedef struct ps_record_aux { uint64_t aux_offset, aux_size, flags; } ps_record_aux;
typedef struct ps_record_itrace_start { uint32_t pid, tid; } ps_record_itrace_start;
typedef struct ps_record_lost_samples { uint64_t lost; } ps_record_lost_samples;
typedef struct ps_record_switch_cpu_wide { uint32_t next_prev_pid, next_prev_tid; } ps_record_switch_cpu_wide;

typedef struct ps_ns_link { uint64_t dev, ino; } ps_ns_link;
typedef struct ps_record_namespaces {
    uint32_t pid, tid;
    uint64_t nr_namespaces;
    const ps_ns_link *link_info;
} ps_record_namespaces;

typedef struct ps_record_ksymbol {
    uint64_t addr;
    uint32_t len;
    uint16_t ksym_type, flags;
    const char *name;
} ps_record_ksymbol;

typedef struct ps_record_bpf_event {
    uint16_t type, flags;
    uint32_t id;
    uint8_t  tag[8];
} ps_record_bpf_event;

typedef struct ps_record_cgroup { uint64_t id; const char *path; } ps_record_cgroup;

typedef struct ps_record_text_poke {
    uint64_t addr;
    uint16_t old_len, new_len;
    const uint8_t *bytes;       /* old_len old bytes then new_len new bytes */
} ps_record_text_poke;

typedef struct ps_record_aux_output_hw_id { uint64_t hw_id; } ps_record_aux_output_hw_id;

typedef struct ps_record_callchain_deferred {
    uint64_t cookie;
    uint64_t nr;
    const uint64_t *ips;
} ps_record_callchain_deferred;

/* ------------------------------------------------------------------------ */
/* perf user records (spec 7.3.2 - 7.3.21)                                   */

typedef struct ps_record_header_attr {
    ps_attr attr;
    uint64_t nr_ids;
    const uint64_t *ids;
} ps_record_header_attr;

typedef struct ps_record_event_type { uint64_t event_id; const char *name; } ps_record_event_type;

typedef struct ps_record_tracing_data {
    uint32_t size;              /* bytes that follow the record */
    const uint8_t *data;        /* the tracing blob (size bytes) */
} ps_record_tracing_data;

typedef struct ps_record_build_id {
    int32_t  pid;
    uint8_t  build_id[20];
    uint8_t  build_id_size;     /* 20 unless misc bit 15 says otherwise */
    const char *filename;
} ps_record_build_id;

typedef struct ps_id_index_entry { uint64_t id, idx, cpu, tid; } ps_id_index_entry;
typedef struct ps_id_index_vm { uint64_t machine_pid, vcpu; } ps_id_index_vm;
typedef struct ps_record_id_index {
    uint64_t nr;
    const ps_id_index_entry *entries;
    const ps_id_index_vm *vm;   /* NULL unless the second array is present */
} ps_record_id_index;

typedef struct ps_record_auxtrace_info {
    uint32_t type;
    uint64_t nr_priv;
    const uint64_t *priv;
} ps_record_auxtrace_info;

typedef struct ps_record_auxtrace {
    uint64_t size, offset, reference;
    uint32_t idx, tid, cpu, reserved;
} ps_record_auxtrace;

typedef struct ps_record_auxtrace_error {
    uint32_t type, code, cpu, pid, tid, fmt;
    uint64_t ip, time;
    const char *msg;
    uint32_t machine_pid, vcpu;
} ps_record_auxtrace_error;

typedef struct ps_thread_map_entry { uint64_t pid; char comm[16]; } ps_thread_map_entry;
typedef struct ps_record_thread_map {
    uint64_t nr;
    const ps_thread_map_entry *entries;
} ps_record_thread_map;

/** A decoded perf_record_cpu_map_data (CPU_MAP and EVENT_UPDATE CPUS). */
typedef struct ps_cpu_map {
    uint16_t type;              /* 0 CPUS, 1 MASK, 2 RANGE_CPUS */
    uint16_t long_size;         /* MASK only */
    uint64_t nr;                /* CPUs in the list */
    const int32_t *cpus;        /* ascending as stored; -1 = any */
} ps_cpu_map;

typedef struct ps_stat_config_entry { uint64_t tag, val; } ps_stat_config_entry;
typedef struct ps_record_stat_config {
    uint64_t nr;
    const ps_stat_config_entry *entries;
} ps_record_stat_config;

typedef struct ps_record_stat {
    uint64_t id;
    uint32_t cpu, thread;
    uint64_t val, ena, run;
} ps_record_stat;

typedef struct ps_record_stat_round { uint64_t type, time; } ps_record_stat_round;

typedef struct ps_record_event_update {
    uint64_t type;              /* 0 UNIT, 1 SCALE, 2 NAME, 3 CPUS */
    uint64_t id;
    const char *str;            /* UNIT, NAME */
    double scale;               /* SCALE */
    ps_cpu_map cpus;            /* CPUS */
} ps_record_event_update;

typedef struct ps_record_time_conv {
    uint64_t time_shift, time_mult, time_zero;
    int      has_cycles;        /* record long enough for the fields below */
    uint64_t time_cycles, time_mask;
    uint8_t  cap_user_time_zero, cap_user_time_short;
} ps_record_time_conv;

typedef struct ps_record_feature {
    uint64_t feat_id;
    uint64_t size;              /* payload bytes; 0 = end-of-features marker */
    const uint8_t *data;
} ps_record_feature;

typedef struct ps_record_compressed {
    uint64_t data_size;         /* compressed bytes */
    const uint8_t *data;
} ps_record_compressed;

typedef struct ps_record_opaque {
    uint64_t size;
    const uint8_t *data;        /* the body after the 8-byte header */
} ps_record_opaque;

/* ------------------------------------------------------------------------ */
/* The event a ps_session_next() call yields                                */

enum ps_event_flag {
    PS_EVENT_IN_COMPRESSED = 1 << 0,   /* decompressed from a COMPRESSED record */
    PS_EVENT_UNKNOWN_TYPE  = 1 << 1,   /* type we have no decoder for; body opaque */
    PS_EVENT_FROM_DIR      = 1 << 2    /* from a directory capture's data.N file */
};

typedef struct ps_event {
    uint32_t type;
    uint16_t misc;
    uint16_t size;              /* header.size (the body of AUXTRACE/TRACING_DATA extends past it) */
    unsigned flags;             /* PS_EVENT_* */
    uint64_t offset;            /* file (stream) offset of the record or of its COMPRESSED container */
    uint64_t inner_offset;      /* offset inside the decompressed stream when IN_COMPRESSED */
    uint64_t index;             /* 0-based record index in delivery order (nested ones included) */
    int      file_index;        /* directory captures: -1 for 'data', N for data.N */
    const uint8_t *raw;         /* the record as read, host byte order, 8-aligned */
    const ps_evsel *evsel;      /* attr the record belongs to, NULL if none/unknown */
    int      has_sample_id;     /* non-sample record with a trailer */
    ps_sample_id sample_id;
    union {
        ps_sample sample;
        ps_record_mmap mmap;
        ps_record_mmap2 mmap2;
        ps_record_comm comm;
        ps_record_fork fork;        /* FORK and EXIT */
        ps_record_lost lost;
        ps_record_throttle throttle; /* THROTTLE and UNTHROTTLE */
        ps_record_read read;
        ps_record_aux aux;
        ps_record_itrace_start itrace_start;
        ps_record_lost_samples lost_samples;
        ps_record_switch_cpu_wide switch_cpu_wide;
        ps_record_namespaces namespaces;
        ps_record_ksymbol ksymbol;
        ps_record_bpf_event bpf_event;
        ps_record_cgroup cgroup;
        ps_record_text_poke text_poke;
        ps_record_aux_output_hw_id aux_output_hw_id;
        ps_record_callchain_deferred callchain_deferred;
        ps_record_header_attr header_attr;
        ps_record_event_type event_type;
        ps_record_tracing_data tracing_data;
        ps_record_build_id build_id;
        ps_record_id_index id_index;
        ps_record_auxtrace_info auxtrace_info;
        ps_record_auxtrace auxtrace;
        ps_record_auxtrace_error auxtrace_error;
        ps_record_thread_map thread_map;
        ps_cpu_map cpu_map;
        ps_record_stat_config stat_config;
        ps_record_stat stat;
        ps_record_stat_round stat_round;
        ps_record_event_update event_update;
        ps_record_time_conv time_conv;
        ps_record_feature feature;
        ps_record_compressed compressed;
        ps_record_opaque opaque;    /* BPF_METADATA, SCHEDSTAT_*, unknown types */
    } u;
} ps_event;

/* ------------------------------------------------------------------------ */
/* Header and features                                                      */

enum ps_container {
    PS_CONTAINER_FILE = 0,      /* PERFILE2 / PERFFILE with a file header */
    PS_CONTAINER_PIPE = 1,      /* 16-byte pipe header + record stream */
    PS_CONTAINER_DIR  = 2,      /* perf record --threads directory */
    PS_CONTAINER_RING = 3       /* raw ring dump (stream or snapshot) */
};

typedef struct ps_file_section { uint64_t offset, size; } ps_file_section;

typedef struct ps_header {
    int             container;      /* PS_CONTAINER_* */
    int             legacy_magic;   /* PERFFILE (v1) */
    int             swapped;        /* producer had the other byte order */
    int             ring_snapshot;  /* ring dump given as control page + data pages */
    uint64_t        size;           /* header size field (104, 72 or 16) */
    uint64_t        attr_size;
    ps_file_section attrs;
    ps_file_section data;           /* data.size as stored (0 when unterminated) */
    ps_file_section event_types;
    uint64_t        features[4];    /* bitmap as stored (after byte-order fixes) */
    uint64_t        feat_offset;    /* data.offset + data.size */
    uint64_t        file_size;      /* of the input (0 for a pipe) */
    int64_t         mtime;          /* seconds since the epoch, input's mtime (0 for a pipe) */
    int             data_size_zero; /* unterminated capture: records read to EOF */
    unsigned        nr_dir_files;   /* directory captures: data.N files */
} ps_header;

typedef struct ps_strlist { uint32_t nr; const char **strs; } ps_strlist;

typedef struct ps_feat_event_desc {
    ps_attr     attr;
    const char *name;
    uint32_t    nr_ids;
    const uint64_t *ids;
} ps_feat_event_desc;

typedef struct ps_feat_cpu {
    uint32_t core_id, socket_id, die_id;
} ps_feat_cpu;

typedef struct ps_feat_numa_node {
    uint32_t node;
    uint64_t mem_total, mem_free;   /* kB */
    const char *cpus;
} ps_feat_numa_node;

typedef struct ps_feat_pmu { uint32_t type; const char *name; } ps_feat_pmu;
typedef struct ps_feat_group {
    const char *name;
    uint32_t leader_idx, nr_members;
} ps_feat_group;
typedef struct ps_feat_auxtrace_entry { uint64_t offset, size; } ps_feat_auxtrace_entry;
typedef struct ps_feat_cache {
    uint32_t level, line_size, sets, ways;
    const char *type, *size, *map;
} ps_feat_cache;
typedef struct ps_feat_mem_node {
    uint64_t node;
    uint64_t nbits;
    const uint64_t *bits;       /* ceil(nbits / 64) words */
} ps_feat_mem_node;
typedef struct ps_feat_bpf_prog {
    uint32_t info_len, data_len;
    uint64_t arrays;
    const uint8_t *info, *data;
} ps_feat_bpf_prog;
typedef struct ps_feat_btf { uint32_t id, size; const uint8_t *data; } ps_feat_btf;
typedef struct ps_feat_cap { const char *name, *value; } ps_feat_cap;
typedef struct ps_feat_pmu_caps {
    const char *pmu_name;
    uint32_t nr_caps;
    const ps_feat_cap *caps;
} ps_feat_pmu_caps;
typedef struct ps_feat_hybrid { const char *pmu_name, *cpus; } ps_feat_hybrid;
typedef struct ps_feat_domain {
    uint32_t domain;
    const char *name;           /* NULL before schedstat version 17 */
    const char *cpumask, *cpulist;
} ps_feat_domain;
typedef struct ps_feat_cpu_domains {
    uint32_t cpu, nr_domains;
    const ps_feat_domain *domains;
} ps_feat_cpu_domains;
typedef struct ps_feat_build_id {
    uint16_t misc;
    int32_t  pid;
    uint8_t  build_id[20];
    uint8_t  size;              /* valid bytes of build_id */
    const char *filename;
} ps_feat_build_id;

/** Every feature section, decoded. A feature is valid when its bit is set in
 * `present`; `failed` marks sections that were there but could not be decoded
 * (reported through the warning callback, never fatal). */
typedef struct ps_features {
    uint64_t present[4];
    uint64_t failed[4];
    ps_file_section sections[PS_HEADER_FEAT_BITS];   /* file mode: where each was */

    struct { uint64_t size; const uint8_t *data; } tracing_data;
    struct { uint32_t nr; const ps_feat_build_id *entries; } build_ids;
    const char *hostname, *osrelease, *version, *arch, *cpudesc, *cpuid;
    uint32_t nr_cpus_avail, nr_cpus_online;
    uint64_t total_mem;
    ps_strlist cmdline;
    struct { uint32_t nr; uint32_t attr_size; const ps_feat_event_desc *events; } event_desc;
    struct {
        ps_strlist package_cpus, core_cpus, die_cpus;
        uint32_t nr_cpus;           /* entries in cpus (0 when absent) */
        int has_die_ids;
        const ps_feat_cpu *cpus;
    } cpu_topology;
    struct { uint32_t nr; const ps_feat_numa_node *nodes; } numa;
    struct { uint32_t nr; const ps_feat_pmu *pmus; } pmu_mappings;
    struct { uint32_t nr; const ps_feat_group *groups; } group_desc;
    struct { uint64_t nr; const ps_feat_auxtrace_entry *entries; } auxtrace;
    struct { uint32_t version, nr; const ps_feat_cache *caches; } cache;
    struct { uint64_t first, last; } sample_time;
    struct {
        uint64_t version, block_size, nr_nodes;
        const ps_feat_mem_node *nodes;
    } mem_topology;
    uint64_t clockid_res_ns;
    uint64_t dir_format;
    struct { uint32_t count; const ps_feat_bpf_prog *progs; } bpf_prog_info;
    struct { uint32_t count; const ps_feat_btf *btfs; } bpf_btf;
    struct { uint32_t version, type, level, ratio, mmap_len; } compressed;
    struct { uint32_t nr; const ps_feat_cap *caps; } cpu_pmu_caps;
    struct { uint32_t version, clockid; uint64_t tod_ns, clockid_ns; } clock_data;
    struct { uint32_t nr; const ps_feat_hybrid *pmus; } hybrid_topology;
    struct { uint32_t nr; const ps_feat_pmu_caps *pmus; } pmu_caps;
    struct {
        uint32_t schedstat_version, max_sched_domains, nr_cpus;
        const ps_feat_cpu_domains *cpus;
    } cpu_domain_info;
} ps_features;

static inline int ps_features_has(const ps_features *f, unsigned feat)
{
    return feat < PS_HEADER_FEAT_BITS && ((f->present[feat / 64] >> (feat % 64)) & 1);
}

/* ------------------------------------------------------------------------ */
/* Sessions                                                                  */

enum ps_ring_form {
    PS_RING_AUTO = 0,           /* snapshot if the file starts with a plausible control page */
    PS_RING_STREAM = 1,         /* plain drained record stream */
    PS_RING_SNAPSHOT = 2        /* perf_event_mmap_page + data pages */
};

typedef void (*ps_warn_fn)(void *ctx, const ps_error *warning);

#define PS_OPEN_OPTS_VERSION 1
typedef struct ps_open_opts {
    unsigned    version;        /* PS_OPEN_OPTS_VERSION */
    int         ordered;        /* deliver in time order (FINISHED_ROUND flushing) */
    int         keep_going;     /* skip a bad record with a warning where framing allows */
    const char *attr_path;      /* raw ring dump: attr(s), JSON or binary perf_event_attr */
    int         ring_form;      /* PS_RING_* when attr_path is set */
    ps_warn_fn  warn;           /* oddities that are not errors; NULL = count only */
    void       *warn_ctx;
} ps_open_opts;

#define PS_OPEN_OPTS_INIT { PS_OPEN_OPTS_VERSION, 0, 0, NULL, PS_RING_AUTO, NULL, NULL }

typedef struct ps_session ps_session;

/**
 * Open a capture: a perf.data file or directory, "-" for standard input (pipe
 * or redirected file), or with opts->attr_path a raw ring dump. Reads the
 * header, attrs and (file mode) the features.
 *
 * @param[out] out  the new session, NULL on failure. Owned: ps_session_close().
 * @return PS_OK or a negative PS_E* code, with err filled in.
 */
PS_API int ps_session_open(ps_session **out, const char *path,
                           const ps_open_opts *opts, ps_error *err);

/**
 * Decode the next record.
 * @return PS_OK (out filled, Borrowed until the next call), PS_DONE at the end
 *         of input, or a negative code with err naming the offset and record.
 */
PS_API int ps_session_next(ps_event *out, ps_session *s, ps_error *err);

/** Free everything. Accepts NULL. */
PS_API void ps_session_close(ps_session *s);

PS_API const ps_header *ps_session_header(const ps_session *s);
PS_API const ps_features *ps_session_features(const ps_session *s);
PS_API size_t ps_session_nr_evsels(const ps_session *s);
PS_API const ps_evsel *ps_session_evsel(const ps_session *s, size_t idx);
/** The evsel whose id list holds id, or NULL. */
PS_API const ps_evsel *ps_session_evsel_by_id(const ps_session *s, uint64_t id);
/** Name of the input as given ("-" for stdin). */
PS_API const char *ps_session_path(const ps_session *s);
/** Number of warnings so far (unknown record types, skipped records ...). */
PS_API uint64_t ps_session_nr_warnings(const ps_session *s);
/** Bytes of input consumed so far (for progress display). */
PS_API uint64_t ps_session_bytes_read(const ps_session *s);

/* ------------------------------------------------------------------------ */
/* Helpers for callers                                                       */

/** perf's sample_type bit names, "IP|TID|..." into buf (as perf prints them). */
PS_API size_t ps_sample_type_str(char *buf, size_t size, uint64_t sample_type);
/** PERF_SAMPLE_* name of one bit ("IP"), or NULL. Static. */
PS_API const char *ps_sample_bit_name(unsigned bit);
/** Kernel name of a ps_attr.flags bit ("sample_id_all"; "precise_ip" at its
 * first bit, NULL at its second), or NULL. Static. */
PS_API const char *ps_attr_flag_name(unsigned bit);
/** PERF_FORMAT_* name of one read_format bit ("GROUP"), or NULL. Static. */
PS_API const char *ps_read_format_name(unsigned bit);
/** PERF_SAMPLE_BRANCH_* name of one branch_sample_type bit ("HW_INDEX"), or NULL. Static. */
PS_API const char *ps_branch_sample_name(unsigned bit);
/** Parse an attr from a JSON object or a binary perf_event_attr (either
 * byte order not supported: native only). For --attr files. */
PS_API int ps_attr_parse(ps_attr *out, const void *buf, size_t size, ps_error *err);

/* ------------------------------------------------------------------------ */
/* Tracepoints (spec section 10)                                             */
/*
 * The TRACING_DATA blob (file feature or pipe-mode HEADER_TRACING_DATA
 * record) is parsed on first use with libtraceevent, once per session, as
 * perf does (spec 10.3). It describes the RAW payload of tracepoint samples:
 * attrs of type PERF_TYPE_TRACEPOINT, and attrs of the "kprobe"/"uprobe"
 * PMU types (PMU_MAPPINGS) whose config is a format ID of the blob.
 *
 * A missing or damaged blob is never fatal: the formats that parsed stay
 * usable, the problem is reported once through the warning callback naming
 * the events affected, and the functions below return an error for those
 * events only.
 */

/** Bits of ps_tp_field.flags. */
enum ps_tp_field_flag {
    PS_TP_FIELD_SIGNED   = 1 << 0,  /* "signed:1" */
    PS_TP_FIELD_ARRAY    = 1 << 1,  /* "type name[N]", or a dynamic "type[]" */
    PS_TP_FIELD_STRING   = 1 << 2,  /* a char array (fixed or dynamic): text up to its first NUL */
    PS_TP_FIELD_DATA_LOC = 1 << 3,  /* __data_loc: a u32 at offset, low 16 bits = offset of the
                                       data in the payload, high 16 bits = its length in bytes */
    PS_TP_FIELD_REL_LOC  = 1 << 4,  /* __rel_loc: the same, the offset counted from the
                                       end of the u32 */
    PS_TP_FIELD_POINTER  = 1 << 5,  /* "type *name": an address of the traced kernel */
    PS_TP_FIELD_LONG     = 1 << 6,  /* long / unsigned long (the traced kernel's sizeof(long)) */
    PS_TP_FIELD_COMMON   = 1 << 7   /* common_* header field, shared by every event */
};

/** One field of a format, as its "field:" line says. */
typedef struct ps_tp_field {
    const char *name;           /* "prev_comm" */
    const char *type;           /* the declaration without the name, as libtraceevent
                                   reads it: "char[16]", "__data_loc char[]", "pid_t" */
    uint32_t    offset;         /* in the RAW payload (DATA_LOC/REL_LOC: of the u32 word) */
    uint32_t    size;           /* bytes at offset */
    uint32_t    elem_size;      /* arrays: bytes per element (1 when unknown); else size */
    uint32_t    nr_elems;       /* fixed arrays: element count; 0 otherwise */
    unsigned    flags;          /* PS_TP_FIELD_* */
} ps_tp_field;

/** One event format of the tracing data (spec 10.2). */
typedef struct ps_tp_format {
    uint64_t    id;             /* "ID:", the attr.config of the event */
    const char *system;         /* "sched" ("ftrace" for ftrace's own formats) */
    const char *name;           /* "sched_switch" */
    const char *print_fmt;      /* the text after "print fmt: ", "" if none */
    int         print_failed;   /* libtraceevent could not parse print_fmt: the trace
                                   text is its "[FAILED TO PARSE]" fallback, as in perf */
    int         big_endian;     /* byte order of RAW payloads (the blob's endianness byte) */
    int         long_size;      /* sizeof(long) of the traced kernel */
    uint32_t    nr_common;      /* fields[0 .. nr_common-1] are the common_* fields */
    uint32_t    nr_fields;      /* all fields, common ones first, in format order */
    const ps_tp_field *fields;
} ps_tp_format;

/** ps_tp_value.kind */
enum ps_tp_value_kind {
    PS_TP_VALUE_INT    = 0,     /* a scalar of 1, 2, 4 or 8 bytes: u and i */
    PS_TP_VALUE_STRING = 1,     /* str, len */
    PS_TP_VALUE_ARRAY  = 2      /* data, size, elem_size, nr (any other field) */
};

/** The value of one field of one sample. */
typedef struct ps_tp_value {
    const ps_tp_field *field;   /* Borrowed until ps_session_close() */
    int            kind;        /* PS_TP_VALUE_* */
    uint64_t       u;           /* INT: the value read in the payload's byte order,
                                   zero-extended from the field's size */
    int64_t        i;           /* INT: sign-extended when the field is SIGNED, else (int64_t)u */
    const char    *str;         /* STRING: len bytes, not NUL-terminated (stops before the
                                   first NUL); Borrowed like the sample */
    size_t         len;
    const uint8_t *data;        /* ARRAY: the bytes as stored (payload byte order);
                                   Borrowed like the sample */
    size_t         size;        /* ARRAY: bytes */
    uint32_t       elem_size;   /* ARRAY: bytes per element; read them with ps_tp_value_at() */
    size_t         nr;          /* ARRAY: size / elem_size */
    int            big_endian;  /* byte order of data */
} ps_tp_value;

/**
 * The format of a tracepoint event.
 *
 * @param[out] out  the format; Borrowed until ps_session_close()
 * @param e         an evsel of s (ps_event.evsel of a sample)
 * @return PS_OK; PS_EINVAL when e is not a tracepoint event (no message is
 *         needed then: skip it); PS_ECORRUPT when the tracing data is missing,
 *         damaged or has no format with e's id (err says which; the session's
 *         warning callback was told once, naming the event)
 */
PS_API int ps_tracepoint_format(const ps_tp_format **out, ps_session *s,
                                const ps_evsel *e, ps_error *err);

/**
 * Decode field idx (0 .. nr_fields-1 of the sample's format) of a tracepoint
 * sample. Iterate with `for (i = 0; (rc = ps_tracepoint_value(&v, s, ev, i,
 * &err)) == PS_OK; i++)`. Integers honour the blob's byte order and the
 * field's size and signedness; __data_loc/__rel_loc fields yield the data
 * they point to.
 *
 * @param[out] out  the value; its pointers are Borrowed like the sample
 *                  (until the next ps_session_next())
 * @param sample    a PERF_RECORD_SAMPLE event of s with RAW data
 * @return PS_OK; PS_DONE when idx is past the last field; PS_EINVAL when the
 *         sample is not a tracepoint sample with RAW data; PS_ECORRUPT when
 *         there is no format (as ps_tracepoint_format()) or the field lies
 *         outside the RAW payload
 */
PS_API int ps_tracepoint_value(ps_tp_value *out, ps_session *s,
                               const ps_event *sample, size_t idx, ps_error *err);

/**
 * Element i (< v->nr) of an ARRAY value in host order: zero-extended, or
 * sign-extended (two's complement in the uint64_t) when the field is SIGNED.
 * Elements of a size other than 1, 2, 4 or 8 read as 0.
 */
PS_API uint64_t ps_tp_value_at(const ps_tp_value *v, size_t i);

/**
 * The text `perf script` prints for a tracepoint sample after the event name
 * (its "trace" field): libtraceevent's tep_print_event(TEP_PRINT_INFO), the
 * event chosen by the payload's common_type as libtraceevent does. Kernel
 * addresses printed with %ps/%pS stay hex, as with `perf script --kallsyms
 * /dev/null`; no libtraceevent plugins are loaded (perf 6.1 as packaged loads
 * none).
 *
 * @param buf, size  like snprintf: at most size-1 characters and a NUL
 * @return the length of the whole text (so a result >= size means buf was too
 *         small), or a negative code: PS_EINVAL (not a tracepoint sample with
 *         RAW data), PS_ECORRUPT (no usable format, or a field of the event
 *         lies outside the RAW payload), PS_ENOMEM
 */
PS_API int ps_tracepoint_print(char *buf, size_t size, ps_session *s,
                               const ps_event *sample, ps_error *err);

#ifdef __cplusplus
}
#endif
#endif /* PERFSIFT_H */
