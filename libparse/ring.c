/* SPDX-License-Identifier: MIT */
/*
 * ring.c - raw ring-buffer dumps (spec 14): the --attr file that says what
 * the records are, and the dump itself, in either of its two forms.
 *
 *   attr file   JSON (an object, or a list of objects; schemas/attr.schema.json)
 *               or the kernel's binary struct perf_event_attr, one or several
 *               back to back, each stepped by its own size field (native byte
 *               order). JSON when the first non-space byte is '{' or '['.
 *   stream      records as a consumer drained them (tail to head, wrapped
 *               records re-joined): read in place like a pipe-mode stream.
 *   snapshot    the whole mmap area: perf_event_mmap_page, then the data
 *               pages. Unwrapped here, once, into one owned buffer holding
 *               data_tail .. data_head in order (spec 14.1, 14.2).
 *
 * Owns: the attr-file syntax (tables of perf_event_attr field, flag and bit
 * names) and the public ps_attr_parse(); the control-page rules; the
 * linearised snapshot. Leaves s->src positioned at the first record and
 * s->evlist filled and named. Never decodes a record (session.c does).
 *
 * Invariants: every field of the dump is untrusted. Control-page offsets and
 * sizes are checked against the bytes that exist before use; the snapshot
 * buffer is at most data_size bytes, and data_size is at most the input
 * size; the attr file is read whole but capped at ATTR_FILE_MAX. Offsets in
 * errors are byte offsets in the file named; for a snapshot, record offsets
 * are positions in the unwrapped stream (0 = the record at data_tail).
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "attr.h"
#include "session.h"

#define ATTR_FILE_MAX  (16u << 20)   /* no real attr file comes near this */
#define ATTR_NAME_MAX  1024
#define CTL_DATA_HEAD  1024          /* perf_event_mmap_page offsets, spec 14.1 */
#define CTL_DATA_TAIL  1032
#define CTL_DATA_OFF   1040
#define CTL_DATA_SIZE  1048
#define CTL_SIZE       1056          /* bytes of control page we need */
#define SNAP_MIN_PAGE  4096

/* ------------------------------------------------------------------------ */
/* Name tables of the JSON attr form                                         */

/* PERF_TYPE_* by value (spec 3.3). */
static const char *const type_names[] = {
    "HARDWARE", "SOFTWARE", "TRACEPOINT", "HW_CACHE", "RAW", "BREAKPOINT",
};

/* How a bit-list field spells its names. */
struct bit_set {
    const char        *prefix;   /* optional in the JSON */
    const char *const *names;    /* NULL entries: no name */
    size_t             nr;
};

enum field_kind {
    F_U,            /* unsigned, `width` bytes */
    F_S32,          /* clockid */
    F_TYPE,         /* number or PERF_TYPE_* name */
    F_SAMPLE,       /* number or list of PERF_SAMPLE_* names */
    F_FORMAT,       /* number or list of PERF_FORMAT_* names */
    F_BRANCH,       /* number or list of PERF_SAMPLE_BRANCH_* names */
};

/* Every numeric perf_event_attr field, by its kernel name (spec 3.1).
 * set_bit: a flag the field implies (sample_freq -> freq, ...), or -1. */
static const struct attr_field {
    const char *name;
    size_t      off;
    unsigned    width;
    int         kind;
    int         set_bit;
} attr_fields[] = {
#define FIELD(n, member, kind, bit) \
    { n, offsetof(ps_attr, member), sizeof(((ps_attr *)0)->member), kind, bit }
    FIELD("type", type, F_TYPE, -1),
    FIELD("size", size, F_U, -1),
    FIELD("config", config, F_U, -1),
    FIELD("sample_period", sample_period, F_U, -1),
    FIELD("sample_freq", sample_period, F_U, PS_ATTR_FREQ),
    FIELD("sample_type", sample_type, F_SAMPLE, -1),
    FIELD("read_format", read_format, F_FORMAT, -1),
    FIELD("wakeup_events", wakeup_events, F_U, -1),
    FIELD("wakeup_watermark", wakeup_events, F_U, PS_ATTR_WATERMARK),
    FIELD("bp_type", bp_type, F_U, -1),
    FIELD("config1", config1, F_U, -1),
    FIELD("bp_addr", config1, F_U, -1),
    FIELD("config2", config2, F_U, -1),
    FIELD("bp_len", config2, F_U, -1),
    FIELD("branch_sample_type", branch_sample_type, F_BRANCH, -1),
    FIELD("sample_regs_user", sample_regs_user, F_U, -1),
    FIELD("sample_stack_user", sample_stack_user, F_U, -1),
    FIELD("clockid", clockid, F_S32, -1),
    FIELD("sample_regs_intr", sample_regs_intr, F_U, -1),
    FIELD("aux_watermark", aux_watermark, F_U, -1),
    FIELD("sample_max_stack", sample_max_stack, F_U, -1),
    FIELD("aux_sample_size", aux_sample_size, F_U, -1),
    FIELD("aux_action", aux_action, F_U, -1),
    FIELD("sig_data", sig_data, F_U, -1),
    FIELD("config3", config3, F_U, -1),
#undef FIELD
};

/* ------------------------------------------------------------------------ */
/* The parsed attr file                                                      */

typedef struct ring_attr {
    ps_attr         attr;
    const uint64_t *ids;        /* in the list's arena */
    uint64_t        nr_ids;
    const char     *name;       /* JSON "name", or NULL */
} ring_attr;

typedef struct attr_list {
    ring_attr  *v;              /* owned */
    size_t      nr, cap;
    ps_arena   *arena;          /* ids and names */
    const char *path;           /* for messages */
} attr_list;

static ring_attr *attr_list_push(attr_list *l, ps_error *err)
{
    if (ps_grow((void **)&l->v, &l->cap, l->nr + 1, sizeof(*l->v)) < 0) {
        ps_error__set(err, PS_ENOMEM, PS_NO_OFFSET, "%s: out of memory", l->path);
        return NULL;
    }
    memset(&l->v[l->nr], 0, sizeof(l->v[l->nr]));
    return &l->v[l->nr++];
}

/* ------------------------------------------------------------------------ */
/* JSON values                                                               */

/* A u64 from a non-negative JSON integer or a C integer string ("0x1f",
 * "4096": JSON integers stop at 2^63). 0, or -1 if v is neither. */
static int json_u64(const json_t *v, uint64_t *out)
{
    const char *s;
    char *end;

    if (json_is_integer(v) && json_integer_value(v) >= 0) {
        *out = (uint64_t)json_integer_value(v);
        return 0;
    }
    if (!json_is_string(v))
        return -1;
    s = json_string_value(v);
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    *out = strtoull(s, &end, 0);
    return errno || *end ? -1 : 0;
}

static int json_s32(const json_t *v, int32_t *out)
{
    uint64_t u;

    if (json_is_integer(v) && json_integer_value(v) >= INT32_MIN &&
        json_integer_value(v) <= INT32_MAX) {
        *out = (int32_t)json_integer_value(v);
        return 0;
    }
    if (json_u64(v, &u) < 0 || u > INT32_MAX)
        return -1;
    *out = (int32_t)u;
    return 0;
}

/* Position of name in a bit_set, with or without its prefix, any case. */
static int bit_of(const struct bit_set *set, const char *name)
{
    size_t plen = strlen(set->prefix), i;

    if (strncasecmp(name, set->prefix, plen) == 0)
        name += plen;
    for (i = 0; i < set->nr; i++)
        if (set->names[i] && strcasecmp(name, set->names[i]) == 0)
            return (int)i;
    return -1;
}

/* A mask from "IP|TID|TIME" (as perf and perfsift info print it): 0, or the
 * 1-based position of the first bad name. */
static size_t mask_of_string(const struct bit_set *set, const char *str, uint64_t *out)
{
    char buf[1024], *tok, *save = NULL;
    size_t pos = 1;

    if (strlen(str) >= sizeof(buf))
        return 1;
    strcpy(buf, str);
    *out = 0;
    for (tok = strtok_r(buf, "|", &save); tok; tok = strtok_r(NULL, "|", &save), pos++) {
        int bit = bit_of(set, tok);

        if (bit < 0)
            return pos;
        *out |= UINT64_C(1) << bit;
    }
    return 0;
}

/* A mask: a number, a list of bit names, or names joined by '|'. */
static int json_mask(const attr_list *l, size_t idx, const char *key,
                     const json_t *v, const struct bit_set *set, uint64_t *out,
                     ps_error *err)
{
    size_t i, bad;
    json_t *e;

    if (json_u64(v, out) == 0)
        return PS_OK;
    if (json_is_string(v) && (bad = mask_of_string(set, json_string_value(v), out)) != 0)
        return ps_error__set(err, PS_EINVAL, PS_NO_OFFSET,
                             "%s: attr %zu: '%s' name %zu is not a %s* name",
                             l->path, idx, key, bad, set->prefix);
    if (json_is_string(v))
        return PS_OK;
    if (!json_is_array(v))
        return ps_error__set(err, PS_EINVAL, PS_NO_OFFSET,
                             "%s: attr %zu: '%s' must be a number or a list of %s* names",
                             l->path, idx, key, set->prefix);
    *out = 0;
    json_array_foreach(v, i, e) {
        int bit = json_is_string(e) ? bit_of(set, json_string_value(e)) : -1;

        if (bit < 0)
            return ps_error__set(err, PS_EINVAL, PS_NO_OFFSET,
                                 "%s: attr %zu: '%s' entry %zu is not a %s* name",
                                 l->path, idx, key, i, set->prefix);
        *out |= UINT64_C(1) << bit;
    }
    return PS_OK;
}

static int json_perf_type(const json_t *v, uint64_t *out)
{
    static const struct bit_set types = {
        "PERF_TYPE_", type_names, PS_ARRAY_SIZE(type_names)
    };
    int t;

    if (json_u64(v, out) == 0)
        return 0;
    if (!json_is_string(v) || (t = bit_of(&types, json_string_value(v))) < 0)
        return -1;
    *out = (uint64_t)t;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* JSON attr objects                                                         */

static void store_field(ps_attr *a, const struct attr_field *f, uint64_t v)
{
    uint8_t *p = (uint8_t *)a + f->off;
    uint16_t v16 = (uint16_t)v;
    uint32_t v32 = (uint32_t)v;

    if (f->width == 2)
        memcpy(p, &v16, 2);
    else if (f->width == 4)
        memcpy(p, &v32, 4);
    else
        memcpy(p, &v, 8);
}

static int field_error(const attr_list *l, size_t idx, const struct attr_field *f,
                       ps_error *err)
{
    return ps_error__set(err, PS_EINVAL, PS_NO_OFFSET, "%s: attr %zu: '%s' must be %s",
                         l->path, idx, f->name,
                         f->kind == F_S32 ? "a 32-bit signed integer"
                         : f->kind == F_TYPE ? "a number or a PERF_TYPE_* name"
                         : "a non-negative integer or an integer string");
}

static int json_field(const attr_list *l, size_t idx, ps_attr *a,
                      const struct attr_field *f, const json_t *v, ps_error *err)
{
    const char *names[64], *rf_names[64], *br_names[64];
    struct bit_set samples = { "PERF_SAMPLE_", names, 64 };
    struct bit_set formats = { "PERF_FORMAT_", rf_names, 64 };
    struct bit_set branches = { "PERF_SAMPLE_BRANCH_", br_names, 64 };
    uint64_t u = 0;
    unsigned i;

    for (i = 0; i < 64; i++) {      /* the name tables live in attr.c */
        names[i] = ps_sample_bit_name(i);
        rf_names[i] = ps_read_format_name(i);
        br_names[i] = ps_branch_sample_name(i);
    }
    switch (f->kind) {
    case F_S32:
        return json_s32(v, &a->clockid) < 0 ? field_error(l, idx, f, err) : PS_OK;
    case F_SAMPLE:
        return json_mask(l, idx, f->name, v, &samples, &a->sample_type, err);
    case F_FORMAT:
        return json_mask(l, idx, f->name, v, &formats, &a->read_format, err);
    case F_BRANCH:
        return json_mask(l, idx, f->name, v, &branches, &a->branch_sample_type, err);
    case F_TYPE:
        if (json_perf_type(v, &u) < 0)
            return field_error(l, idx, f, err);
        break;
    default:
        if (json_u64(v, &u) < 0)
            return field_error(l, idx, f, err);
        break;
    }
    if (f->width < 8 && (u >> (8 * f->width)) != 0)
        return ps_error__set(err, PS_EINVAL, PS_NO_OFFSET,
                             "%s: attr %zu: '%s' value 0x%llx does not fit in %u bits",
                             l->path, idx, f->name, (unsigned long long)u, 8 * f->width);
    store_field(a, f, u);
    return PS_OK;
}

static int json_flag(const attr_list *l, size_t idx, ps_attr *a, unsigned bit,
                     const char *key, const json_t *v, ps_error *err)
{
    if (!json_is_boolean(v) && !(json_is_integer(v) && json_integer_value(v) >= 0 &&
                                 json_integer_value(v) <= 1))
        return ps_error__set(err, PS_EINVAL, PS_NO_OFFSET,
                             "%s: attr %zu: '%s' must be true or false", l->path, idx, key);
    if (json_is_true(v) || (json_is_integer(v) && json_integer_value(v) == 1))
        a->flags |= PS_ATTR_FLAG(bit);
    else
        a->flags &= ~PS_ATTR_FLAG(bit);
    return PS_OK;
}

static int json_precise_ip(const attr_list *l, size_t idx, ps_attr *a,
                           const json_t *v, ps_error *err)
{
    uint64_t u;

    if (json_u64(v, &u) < 0 || u > 3)
        return ps_error__set(err, PS_EINVAL, PS_NO_OFFSET,
                             "%s: attr %zu: 'precise_ip' must be 0, 1, 2 or 3",
                             l->path, idx);
    a->flags = (a->flags & ~(UINT64_C(3) << PS_ATTR_PRECISE_IP)) |
               (u << PS_ATTR_PRECISE_IP);
    return PS_OK;
}

static int json_ids(attr_list *l, size_t idx, ring_attr *r, const json_t *v,
                    ps_error *err)
{
    size_t i, n = json_is_array(v) ? json_array_size(v) : 0;
    uint64_t *ids;

    if (!json_is_array(v))
        return ps_error__set(err, PS_EINVAL, PS_NO_OFFSET,
                             "%s: attr %zu: 'ids' must be a list of event ids",
                             l->path, idx);
    if (n == 0)
        return PS_OK;
    if ((ids = ps_arena__array(l->arena, n, sizeof(*ids))) == NULL)
        return ps_error__set(err, PS_ENOMEM, PS_NO_OFFSET, "%s: out of memory", l->path);
    for (i = 0; i < n; i++)
        if (json_u64(json_array_get(v, i), &ids[i]) < 0)
            return ps_error__set(err, PS_EINVAL, PS_NO_OFFSET,
                                 "%s: attr %zu: 'ids' entry %zu is not an event id",
                                 l->path, idx, i);
    r->ids = ids;
    r->nr_ids = n;
    return PS_OK;
}

static int json_name(attr_list *l, size_t idx, ring_attr *r, const json_t *v,
                     ps_error *err)
{
    if (!json_is_string(v) || json_string_length(v) == 0 ||
        json_string_length(v) > ATTR_NAME_MAX)
        return ps_error__set(err, PS_EINVAL, PS_NO_OFFSET,
                             "%s: attr %zu: 'name' must be a string of 1 to %u bytes",
                             l->path, idx, ATTR_NAME_MAX);
    if ((r->name = ps_arena__strndup(l->arena, json_string_value(v), ATTR_NAME_MAX)) == NULL)
        return ps_error__set(err, PS_ENOMEM, PS_NO_OFFSET, "%s: out of memory", l->path);
    return PS_OK;
}

/* One member of an attr object. "flags" (the whole word) was applied first,
 * so the named flag bits refine it. */
static int json_member(attr_list *l, size_t idx, ring_attr *r, const char *key,
                       const json_t *v, ps_error *err)
{
    size_t i;

    for (i = 0; i < PS_ARRAY_SIZE(attr_fields); i++)
        if (strcmp(key, attr_fields[i].name) == 0)
            return json_field(l, idx, &r->attr, &attr_fields[i], v, err);
    for (i = 0; i < 64; i++)        /* precise_ip is a 2-bit value: below */
        if (i != PS_ATTR_PRECISE_IP && ps_attr_flag_name((unsigned)i) &&
            strcmp(key, ps_attr_flag_name((unsigned)i)) == 0)
            return json_flag(l, idx, &r->attr, (unsigned)i, key, v, err);
    if (strcmp(key, "precise_ip") == 0)
        return json_precise_ip(l, idx, &r->attr, v, err);
    if (strcmp(key, "ids") == 0)
        return json_ids(l, idx, r, v, err);
    if (strcmp(key, "name") == 0)
        return json_name(l, idx, r, v, err);
    if (strcmp(key, "flags") == 0 || key[0] == '$')
        return PS_OK;           /* "$schema", "$comment": annotations */
    return ps_error__set(err, PS_EINVAL, PS_NO_OFFSET,
                         "%s: attr %zu: unknown field '%s' (see schemas/attr.schema.json)",
                         l->path, idx, key);
}

static int json_attr(attr_list *l, const json_t *o, ps_error *err)
{
    size_t idx = l->nr;
    const json_t *v;
    const char *key;
    ring_attr *r;
    int rc;

    if (!json_is_object(o))
        return ps_error__set(err, PS_EINVAL, PS_NO_OFFSET,
                             "%s: attr %zu is not a JSON object", l->path, idx);
    if (json_object_get(o, "sample_period") && json_object_get(o, "sample_freq"))
        return ps_error__set(err, PS_EINVAL, PS_NO_OFFSET,
                             "%s: attr %zu: give sample_period or sample_freq, not both",
                             l->path, idx);
    if ((r = attr_list_push(l, err)) == NULL)
        return PS_ENOMEM;
    r->attr.size = PS_ATTR_SIZE_KNOWN;
    if ((v = json_object_get(o, "flags")) != NULL &&
        json_u64(v, &r->attr.flags) < 0)
        return ps_error__set(err, PS_EINVAL, PS_NO_OFFSET,
                             "%s: attr %zu: 'flags' must be a non-negative integer",
                             l->path, idx);
    json_object_foreach((json_t *)(uintptr_t)o, key, v)
        if ((rc = json_member(l, idx, r, key, v, err)) < 0)
            return rc;
    /* sample_freq means freq, wakeup_watermark means watermark, whatever
     * order the members came in. */
    for (size_t i = 0; i < PS_ARRAY_SIZE(attr_fields); i++)
        if (attr_fields[i].set_bit >= 0 && json_object_get(o, attr_fields[i].name))
            r->attr.flags |= PS_ATTR_FLAG(attr_fields[i].set_bit);
    return PS_OK;
}

static int parse_json(attr_list *l, const uint8_t *buf, size_t size, ps_error *err)
{
    json_error_t jerr;
    json_t *root = json_loadb((const char *)buf, size, JSON_REJECT_DUPLICATES, &jerr);
    const json_t *o;
    size_t i;
    int rc = PS_OK;

    if (root == NULL)
        return ps_error__set(err, PS_EINVAL, (uint64_t)jerr.position,
                             "%s: line %d column %d: %s", l->path, jerr.line,
                             jerr.column, jerr.text);
    if (json_is_array(root)) {
        json_array_foreach(root, i, o)
            if ((rc = json_attr(l, o, err)) < 0)
                break;
    } else {
        rc = json_attr(l, root, err);
    }
    json_decref(root);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Binary attrs                                                              */

static int parse_binary(attr_list *l, const uint8_t *buf, size_t size, ps_error *err)
{
    size_t off = 0;
    int rc;

    while (off < size) {
        ring_attr *r;

        if ((r = attr_list_push(l, err)) == NULL)
            return PS_ENOMEM;
        if ((rc = ps_attr__decode(&r->attr, buf + off, size - off, 0, off, err)) < 0) {
            char msg[sizeof(err->msg)];

            if (err) {
                memcpy(msg, err->msg, sizeof(msg));
                snprintf(err->msg, sizeof(err->msg), "%.200s: offset 0x%zx: attr %zu: %.250s",
                         l->path, off, l->nr - 1, msg);
            }
            return rc;
        }
        off += ps_attr__stored_size(buf + off, size - off, 0);   /* >= 64 */
    }
    return PS_OK;
}

static int is_json(const uint8_t *buf, size_t size)
{
    size_t i;

    for (i = 0; i < size; i++) {
        if (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r')
            continue;
        return buf[i] == '{' || buf[i] == '[';
    }
    return 0;
}

static int parse_attrs(attr_list *l, const uint8_t *buf, size_t size, ps_error *err)
{
    int rc = is_json(buf, size) ? parse_json(l, buf, size, err)
                                : parse_binary(l, buf, size, err);

    if (rc == PS_OK && l->nr == 0)
        return ps_error__set(err, PS_EINVAL, PS_NO_OFFSET,
                             "%s: no perf_event_attr in the attr file", l->path);
    return rc;
}

int ps_attr_parse(ps_attr *out, const void *buf, size_t size, ps_error *err)
{
    ps_arena arena;
    attr_list l = { NULL, 0, 0, &arena, "attr" };
    int rc;

    memset(out, 0, sizeof(*out));
    if (buf == NULL && size)
        return ps_error__set(err, PS_EINVAL, PS_NO_OFFSET, "attr: no buffer");
    ps_arena__init(&arena);
    rc = parse_attrs(&l, buf, size, err);
    if (rc == PS_OK && l.nr != 1)
        rc = ps_error__set(err, PS_EINVAL, PS_NO_OFFSET,
                           "attr: %zu attrs given where one was expected", l.nr);
    if (rc == PS_OK)
        *out = l.v[0].attr;
    free(l.v);
    ps_arena__free(&arena);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Loading the attr file into the event list                                 */

/* Read all of path ("-" = stdin) into a malloc'd buffer; more than
 * ATTR_FILE_MAX bytes is refused (so a wrong file name costs little). */
static int read_attr_file(const char *path, uint8_t **out, size_t *size, ps_error *err)
{
    int fd = strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    size_t len = 0, cap = 0;
    uint8_t *buf = NULL;
    int rc = PS_OK;
    ssize_t n = 1;

    if (fd < 0)
        return ps_error__set(err, PS_EIO, PS_NO_OFFSET, "%s: %s", path, strerror(errno));
    while (n != 0) {
        if (len > ATTR_FILE_MAX) {
            rc = ps_error__set(err, PS_EINVAL, PS_NO_OFFSET,
                               "%s: larger than %u bytes: not an attr file", path,
                               ATTR_FILE_MAX);
            break;
        }
        if (ps_grow((void **)&buf, &cap, len + 4096, 1) < 0) {
            rc = ps_error__set(err, PS_ENOMEM, PS_NO_OFFSET, "%s: out of memory", path);
            break;
        }
        if ((n = read(fd, buf + len, cap - len)) < 0 && errno != EINTR) {
            rc = ps_error__set(err, PS_EIO, len, "%s: %s", path, strerror(errno));
            break;
        }
        len += n > 0 ? (size_t)n : 0;
    }
    if (fd != STDIN_FILENO)
        close(fd);
    if (rc < 0) {
        free(buf);
        return rc;
    }
    *out = buf;
    *size = len;
    return PS_OK;
}

static int add_attrs(ps_session *s, const attr_list *l, ps_error *err)
{
    size_t i;
    int rc;

    for (i = 0; i < l->nr; i++)
        if ((rc = ps_evlist__add(&s->evlist, &s->arena, &l->v[i].attr, l->v[i].ids,
                                 l->v[i].nr_ids, NULL, err)) < 0)
            return rc;
    ps_evlist__name(&s->evlist, &s->arena, &s->feat, 0);
    for (i = 0; i < l->nr; i++) {
        if (l->v[i].name == NULL)
            continue;
        /* As an EVENT_UPDATE NAME would: kept by later renaming. */
        s->evlist.evsels[i]->name = l->v[i].name;
        s->evlist.update_names[i] = l->v[i].name;
    }
    for (i = 0; l->nr > 1 && i < l->nr; i++)
        if (l->v[i].nr_ids == 0)
            ps_session__warn(s, PS_NO_OFFSET, "attr %zu of %zu in '%s' has no ids, so no "
                             "record can be matched to it", i, l->nr, l->path);
    return PS_OK;
}

static int load_attrs(ps_session *s, ps_error *err)
{
    attr_list l = { NULL, 0, 0, &s->arena, s->opts.attr_path };
    uint8_t *buf = NULL;
    size_t size = 0;
    int rc;

    if (strcmp(l.path, "-") == 0 && strcmp(s->path, "-") == 0)
        return ps_error__set(err, PS_EINVAL, PS_NO_OFFSET,
                             "the ring dump and its attr file cannot both be standard input");
    if ((rc = read_attr_file(l.path, &buf, &size, err)) == PS_OK &&
        (rc = parse_attrs(&l, buf, size, err)) == PS_OK)
        rc = add_attrs(s, &l, err);
    free(buf);
    free(l.v);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Snapshots: the control page                                               */

typedef struct ring_ctl {
    uint64_t head, tail;        /* bytes ever written / consumed */
    uint64_t data_offset, data_size;
} ring_ctl;

static int is_pow2(uint64_t v) { return v && (v & (v - 1)) == 0; }

static void read_ctl(ring_ctl *c, const uint8_t *p)
{
    c->head = ps_load64(p + CTL_DATA_HEAD, 0);
    c->tail = ps_load64(p + CTL_DATA_TAIL, 0);
    c->data_offset = ps_load64(p + CTL_DATA_OFF, 0);
    c->data_size = ps_load64(p + CTL_DATA_SIZE, 0);
}

/*
 * PS_RING_AUTO: does the input start with a control page? Its data_offset
 * and data_size must be page-like powers of two, and its first 8 bytes must
 * not be a record header, which every drained stream starts with (the
 * kernel's version and compat_version, 0 today, read as type 0, size 0).
 * Whether the data area fits and data_tail <= data_head is then for
 * ctl_check() to report: such a file is a broken snapshot, not a stream.
 */
static int ctl_likely(const ring_ctl *c, const uint8_t *p)
{
    return is_pow2(c->data_offset) && c->data_offset >= SNAP_MIN_PAGE &&
           is_pow2(c->data_size) && (ps_load32(p, 0) == 0 || ps_load16(p + 6, 0) < 8);
}

/* The control page of a dump said to be a snapshot, field by field.
 * avail: bytes the input has (streams: what a peek could get). */
static int ctl_check(const ps_session *s, const ring_ctl *c, uint64_t avail,
                     ps_error *err)
{
    if (c->data_offset < CTL_SIZE || c->data_offset % 8)
        return ps_error__set(err, PS_ECORRUPT, CTL_DATA_OFF,
                             "%s: offset 0x%x: snapshot control page: data_offset %llu "
                             "is not an 8-aligned offset past the control page",
                             s->path, CTL_DATA_OFF, (unsigned long long)c->data_offset);
    if (c->data_size == 0 || c->data_size % 8)
        return ps_error__set(err, PS_ECORRUPT, CTL_DATA_SIZE,
                             "%s: offset 0x%x: snapshot control page: data_size %llu is "
                             "not a non-zero multiple of 8", s->path, CTL_DATA_SIZE,
                             (unsigned long long)c->data_size);
    if (c->data_offset > avail || c->data_size > avail - c->data_offset)
        return ps_error__set(err, PS_ETRUNC, CTL_DATA_SIZE,
                             "%s: offset 0x%x: snapshot truncated: the data area "
                             "[0x%llx, 0x%llx) ends past the end of the input "
                             "(%llu bytes)", s->path, CTL_DATA_SIZE,
                             (unsigned long long)c->data_offset,
                             (unsigned long long)(c->data_offset + c->data_size),
                             (unsigned long long)avail);
    if (c->head < c->tail)
        return ps_error__set(err, PS_ECORRUPT, CTL_DATA_HEAD,
                             "%s: offset 0x%x: snapshot control page: data_head 0x%llx is "
                             "below data_tail 0x%llx", s->path, CTL_DATA_HEAD,
                             (unsigned long long)c->head, (unsigned long long)c->tail);
    if (c->head % 8 || c->tail % 8)
        return ps_error__set(err, PS_ECORRUPT, CTL_DATA_HEAD,
                             "%s: offset 0x%x: snapshot control page: data_head 0x%llx / "
                             "data_tail 0x%llx are not 8-aligned record boundaries",
                             s->path, CTL_DATA_HEAD, (unsigned long long)c->head,
                             (unsigned long long)c->tail);
    return PS_OK;
}

/* ------------------------------------------------------------------------ */
/* Snapshots: unwrapping                                                     */

/* A plausible kernel record header at p: what resync() chains through. */
static int header_ok(const uint8_t *p)
{
    uint32_t type = ps_load32(p, 0);
    uint16_t size = ps_load16(p + 6, 0);

    return type != 0 && type < 64 && size >= 8 && size % 8 == 0;
}

/*
 * An overwritten ring holds the last data_size bytes, which begin inside
 * some record. Only data_head is a sure record boundary, so take the
 * earliest 8-aligned position from which headers chain exactly to the end:
 * ok[q] = header at q is plausible and q + size is the end or itself ok.
 * One backward pass, n / 8 bytes of state. Returns bytes to skip, or -1.
 */
static int64_t resync(const uint8_t *buf, size_t n)
{
    size_t nr = n / 8, q;
    uint8_t *ok;
    int64_t skip = -1;

    if (nr == 0 || (ok = calloc(nr, 1)) == NULL)
        return -1;
    for (q = nr; q-- > 0;) {
        size_t end;

        if (!header_ok(buf + 8 * q))
            continue;
        end = 8 * q + ps_load16(buf + 8 * q + 6, 0);
        ok[q] = end == n || (end < n && ok[end / 8]);
    }
    for (q = 0; q < nr; q++)
        if (ok[q]) {
            skip = (int64_t)(8 * q);
            break;
        }
    free(ok);
    return skip;
}

/* Copy tail..head of the data area into one buffer, in order: the record
 * that straddles the end of the area comes out whole. */
static uint8_t *unwrap(const uint8_t *area, const ring_ctl *c, uint64_t from,
                       size_t live)
{
    size_t start = (size_t)(from % c->data_size);
    size_t first = live < c->data_size - start ? live : (size_t)(c->data_size - start);
    uint8_t *buf = malloc(live ? live : 1);

    if (buf == NULL)
        return NULL;
    memcpy(buf, area + start, first);
    memcpy(buf + first, area, live - first);
    return buf;
}

/* The live bytes of an overwritten ring, from the first record boundary. */
static int drop_overwritten(ps_session *s, const ring_ctl *c, uint8_t *buf,
                            size_t *live, ps_error *err)
{
    int64_t skip;

    ps_session__warn(s, CTL_DATA_HEAD, "snapshot: data_head - data_tail = %llu exceeds "
                     "data_size %llu, so older records were overwritten; keeping the "
                     "last %llu bytes", (unsigned long long)(c->head - c->tail),
                     (unsigned long long)c->data_size, (unsigned long long)c->data_size);
    if ((skip = resync(buf, *live)) < 0)
        return ps_error__set(err, PS_ECORRUPT, c->data_offset,
                             "%s: offset 0x%llx: overwritten snapshot: no record boundary "
                             "leads to data_head", s->path,
                             (unsigned long long)c->data_offset);
    if (skip > 0)
        ps_session__warn(s, c->data_offset + (c->head - *live) % c->data_size,
                         "snapshot: skipped %lld bytes of a partly overwritten record",
                         (long long)skip);
    memmove(buf, buf + skip, *live - (size_t)skip);
    *live -= (size_t)skip;
    return PS_OK;
}

/* The unwrapped records of the snapshot at p (got bytes readable). */
static int linearise(ps_session *s, const uint8_t *p, uint64_t got,
                     const ring_ctl *c, uint8_t **out, size_t *size, ps_error *err)
{
    uint64_t from;
    size_t live;
    uint8_t *buf;
    int rc;

    for (size_t i = 0; i < s->evlist.nr; i++)
        if (ps_attr_flag(&s->evlist.evsels[i]->attr, PS_ATTR_WRITE_BACKWARD))
            return ps_error__set(err, PS_EUNSUPPORTED, PS_NO_OFFSET,
                                 "%s: snapshot of a write_backward ring (attr %zu) is "
                                 "not supported", s->path, i);
    /* ctl_check() bounded data_size by the input size, so it fits a size_t. */
    live = (size_t)(c->head - c->tail > c->data_size ? c->data_size : c->head - c->tail);
    from = c->head - live;
    if ((buf = unwrap(p + c->data_offset, c, from, live)) == NULL)
        return ps_error__set(err, PS_ENOMEM, PS_NO_OFFSET,
                             "%s: out of memory for %llu bytes of records", s->path,
                             (unsigned long long)live);
    if (c->head - c->tail > c->data_size &&
        (rc = drop_overwritten(s, c, buf, &live, err)) < 0) {
        free(buf);
        return rc;
    }
    if (got > c->data_offset + c->data_size)
        ps_session__warn(s, c->data_offset + c->data_size,
                         "snapshot: %llu bytes after the data area ignored",
                         (unsigned long long)(got - c->data_offset - c->data_size));
    *out = buf;
    *size = live;
    return PS_OK;
}

/* ------------------------------------------------------------------------ */
/* Opening the dump                                                          */

/* Is the input a snapshot? 1 yes, 0 no (a stream), or an error. Reads
 * through peeks, so a stream keeps every byte for the record loop. */
static int detect_snapshot(ps_session *s, ring_ctl *c, const uint8_t **p,
                           uint64_t *got, ps_error *err)
{
    int form = s->opts.ring_form;
    uint64_t want;
    int64_t n;

    if (form == PS_RING_STREAM)
        return 0;
    if ((n = ps_source__peek(&s->src, CTL_SIZE, p, err)) < 0)
        return (int)n;
    if (n < CTL_SIZE && form == PS_RING_SNAPSHOT)
        return ps_error__set(err, PS_ETRUNC, 0,
                             "%s: offset 0x0: snapshot truncated: the control page "
                             "needs %u bytes, the input has %lld", s->path, CTL_SIZE,
                             (long long)n);
    if (n < CTL_SIZE)
        return 0;
    read_ctl(c, *p);
    if (form == PS_RING_AUTO && !ctl_likely(c, *p))
        return 0;
    /* Bounded by what the input really holds: a peek never invents bytes. */
    want = c->data_offset > UINT64_MAX - c->data_size ? UINT64_MAX
                                                      : c->data_offset + c->data_size;
    if ((n = ps_source__peek(&s->src, want > SIZE_MAX ? SIZE_MAX : (size_t)want, p,
                             err)) < 0)
        return (int)n;
    *got = s->src.is_stream ? (uint64_t)n : s->src.file_size;
    return 1;
}

static int open_snapshot(ps_session *s, const uint8_t *p, uint64_t got,
                         const ring_ctl *c, ps_error *err)
{
    uint8_t *buf = NULL;
    size_t size = 0;
    int rc;

    if ((rc = ctl_check(s, c, got, err)) < 0 ||
        (rc = linearise(s, p, got, c, &buf, &size, err)) < 0)
        return rc;
    ps_source__close(&s->src);
    ps_source__from_buffer(&s->src, s->path, buf, size, 1);
    s->hdr.ring_snapshot = 1;
    s->hdr.data.offset = c->data_offset;
    s->hdr.data.size = size;
    return PS_OK;
}

int ps_ring__open(ps_session *s, ps_error *err)
{
    const uint8_t *p = NULL;
    uint64_t got = 0;
    ring_ctl c = { 0, 0, 0, 0 };
    int rc;

    if ((rc = load_attrs(s, err)) < 0 ||
        (rc = ps_source__open(&s->src, s->path, err)) < 0)
        return rc;
    s->hdr.container = PS_CONTAINER_RING;
    s->hdr.file_size = s->src.file_size;
    s->hdr.mtime = s->src.mtime;
    if ((rc = detect_snapshot(s, &c, &p, &got, err)) < 0)
        return rc;
    if (rc == 1)
        return open_snapshot(s, p, got, &c, err);
    s->hdr.data.offset = 0;
    s->hdr.data.size = s->src.is_stream ? 0 : s->src.file_size;
    s->hdr.data_size_zero = s->src.is_stream;
    return PS_OK;
}
