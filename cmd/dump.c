/* SPDX-License-Identifier: MIT */
/*
 * dump.c - perfsift dump: every record with every decoded field. Mirrors
 * `perf report -D` in content (not in layout): one line per record (file
 * offset, size, type, fields), continuation lines for arrays (callchains,
 * ids, branch entries, registers); --json prints the same as NDJSON.
 *
 * --json writes each record as json_record_write() makes it (shared with
 * perfsift json); the text form is a generic rendering of the same object
 * parsed back (json_record_new()), so the two outputs can never disagree.
 */
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <string.h>
#include "common.h"
#include "json_record.h"
#include "json_writer.h"

static const char usage_text[] =
"usage: perfsift dump [options] [FILE]\n"
"\n"
"Print every record of a capture with every decoded field, in file order\n"
"(records inside COMPRESSED records follow their container). Tracepoint\n"
"samples add \"trace\" (the text perf script prints after the event name)\n"
"and \"fields\" (each field of the event format, typed).\n"
"\n"
"  -j, --json            NDJSON: one object per record\n"
"      --no-stack        leave out user stack bytes (STACK_USER data)\n"
INPUT_USAGE
"  -h, --help            this text\n"
"\n"
"Examples:\n"
"  perfsift dump perf.data | less\n"
"  perfsift dump --json perf.data | jq 'select(.type == \"SAMPLE\") | .ip'\n";

enum { OPT_NO_STACK = 2000 };

static const struct option long_opts[] = {
    { "json", no_argument, NULL, 'j' },
    { "no-stack", no_argument, NULL, OPT_NO_STACK },
    { "help", no_argument, NULL, 'h' },
    INPUT_LONG_OPTS,
    { NULL, 0, NULL, 0 }
};

/* --- text rendering ------------------------------------------------------------ */

static void print_scalar(FILE *out, json_t *v)
{
    if (json_is_string(v))
        fputs(json_string_value(v), out);
    else if (json_is_integer(v))
        fprintf(out, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    else if (json_is_real(v))
        fprintf(out, "%g", json_real_value(v));
    else if (json_is_true(v))
        fputs("1", out);
    else if (json_is_false(v))
        fputs("0", out);
    else {
        char *s = json_dumps(v, JSON_COMPACT);

        fputs(s ? s : "?", out);
        free(s);
    }
}

/* Scalars on the record's line; arrays and objects on continuation lines. */
static void print_text(FILE *out, json_t *o)
{
    const char *k;
    json_t *v;
    int first = 1;

    fprintf(out, "%s [%" JSON_INTEGER_FORMAT "] %s", json_string_value(json_object_get(o, "offset")),
            json_integer_value(json_object_get(o, "size")),
            json_string_value(json_object_get(o, "type")));
    json_object_foreach(o, k, v) {
        if (!strcmp(k, "offset") || !strcmp(k, "size") || !strcmp(k, "type") ||
            json_is_array(v) || json_is_object(v))
            continue;
        fprintf(out, "%s%s=", first ? ": " : " ", k);
        print_scalar(out, v);
        first = 0;
    }
    fputc('\n', out);
    json_object_foreach(o, k, v) {
        size_t i;
        json_t *e;

        if (json_is_array(v)) {
            json_array_foreach(v, i, e) {
                fprintf(out, "    %s[%zu]: ", k, i);
                print_scalar(out, e);
                fputc('\n', out);
            }
        } else if (json_is_object(v)) {
            char *s = json_dumps(v, JSON_COMPACT);

            fprintf(out, "    %s: %s\n", k, s ? s : "?");
            free(s);
        }
    }
}

/* --json: the record's line as json_record_write() makes it (the text
 * json_record_new() would give, without a jansson object per record),
 * flushed in large writes */
static void json_line(linebuf *lb, ps_session *s, const ps_event *ev, unsigned flags)
{
    jw w;

    jw_init(&w, lb);
    json_record_write(&w, s, ev, flags, NULL);
    jw_close(&w, '}');
    lb_putc(lb, '\n');
    if (lb->len >= 1 << 16)
        lb_flush(lb, stdout);
}

int cmd_dump(int argc, char **argv)
{
    input_opts in = { 0 };
    int json = 0, c, rc, ret = EXIT_OK;
    unsigned flags = 0;
    ps_session *s;
    ps_event ev;
    ps_error err;
    linebuf lb = { 0 };

    while ((c = getopt_long(argc, argv, "jhi:q", long_opts, NULL)) != -1) {
        int r = cmd_input_option("dump", &in, c, optarg);

        if (r < 0)
            return EXIT_USAGE;
        if (r > 0)
            continue;
        switch (c) {
        case 'j': json = 1; break;
        case OPT_NO_STACK: flags |= JSON_RECORD_NO_STACK; break;
        case 'h': fputs(usage_text, stdout); return EXIT_OK;
        default: return cmd_bad_option("dump");
        }
    }
    if (optind < argc)
        in.path = argv[optind++];
    if (optind < argc)
        return cmd_usage_error("dump", "one capture at a time ('%s' is extra)", argv[optind]);
    if ((s = cmd_open("dump", &in)) == NULL)
        return EXIT_BADINPUT;
    while ((rc = ps_session_next(&ev, s, &err)) == PS_OK) {
        cmd_progress(s, ev.index);
        if (json) {
            json_line(&lb, s, &ev, flags);
        } else {
            json_t *o = json_record_new(s, &ev, flags);

            print_text(stdout, o);
            json_decref(o);
        }
    }
    cmd_progress_done();
    lb_flush(&lb, stdout);
    lb_free(&lb);
    if (rc < 0)
        ret = cmd_input_error("dump", &err);
    ps_session_close(s);
    return cmd_finish_stdout("dump", ret);
}
