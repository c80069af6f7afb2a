/* SPDX-License-Identifier: MIT */
/*
 * info.c - perfsift info: the capture's header, features, event table and
 * record counts. Mirrors `perf report --header-only -I` (--header, printed
 * by header_print.c) and `perf report --stats` (--stats), byte for byte.
 */
#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "read_split.h"
#include "header_print.h"
#include "info_json.h"

static const char usage_text[] =
"usage: perfsift info [options] [FILE]\n"
"\n"
"Show what a capture holds. With no option: the header and features, the\n"
"event table and the record counts.\n"
"\n"
"  -s, --stats           record counts, exactly as 'perf report --stats'\n"
"  -H, --header          header and features, exactly as\n"
"                        'perf report --header-only -I'\n"
"  -e, --events          the event table (name, type, config, sample_type,\n"
"                        read_format, flags)\n"
"  -j, --json            all of the above as one JSON document\n"
"      --symfs DIR       accepted and ignored, as 'perf report --stats' and\n"
"                        '--header-only' do: info resolves no symbols\n"
INPUT_USAGE
"  -h, --help            this text\n"
"\n"
"Examples:\n"
"  perfsift info --stats perf.data\n"
"  perf record -o - -- ./prog | perfsift info -\n";

/* Past cmd_input_option()'s values. */
enum { OPT_INFO_SYMFS = 1200 };

static const struct option long_opts[] = {
    { "stats", no_argument, NULL, 's' },
    { "header", no_argument, NULL, 'H' },
    { "events", no_argument, NULL, 'e' },
    { "json", no_argument, NULL, 'j' },
    { "help", no_argument, NULL, 'h' },
    { "symfs", required_argument, NULL, OPT_INFO_SYMFS },
    INPUT_LONG_OPTS,
    { NULL, 0, NULL, 0 }
};

#define NR_TYPES 128

/* Counts as perf report --stats keeps them: per record type for the whole
 * file, and per event the samples delivered (after PERF_SAMPLE_READ
 * splitting) and the samples lost. */
typedef struct stats {
    uint64_t total;
    uint64_t nr[NR_TYPES];
    uint64_t nr_unknown_high;   /* types >= NR_TYPES */
    uint64_t *samples;          /* per evsel */
    uint64_t *lost_samples;     /* per evsel */
    size_t    nr_evsels;
    read_split reads;           /* last READ value per event id */
} stats;

static int stats_grow(stats *st, size_t nr_evsels)
{
    size_t i;

    if (nr_evsels <= st->nr_evsels)
        return 0;
    if ((st->samples = realloc(st->samples, nr_evsels * 8)) == NULL ||
        (st->lost_samples = realloc(st->lost_samples, nr_evsels * 8)) == NULL)
        return -1;
    for (i = st->nr_evsels; i < nr_evsels; i++)
        st->samples[i] = st->lost_samples[i] = 0;
    st->nr_evsels = nr_evsels;
    return 0;
}

/* perf splits a PERF_SAMPLE_READ sample into one sample per read value,
 * whose period is the value's increase since the same id's last sample;
 * zero increases deliver nothing. */
static void count_read_sample(stats *st, ps_session *s, const ps_sample *smp)
{
    uint64_t i;

    for (i = 0; i < smp->read.nr; i++) {
        const ps_read_value *v = &smp->read.values[i];
        const ps_evsel *e = ps_session_evsel_by_id(s, v->id);
        uint64_t period;

        if (e == NULL || read_split_period(&st->reads, v->id, v->value, &period) < 0)
            continue;
        if (period)
            st->samples[e->idx]++;
    }
}

static void count_event(stats *st, ps_session *s, const ps_event *ev)
{
    st->total++;
    if (ev->type < NR_TYPES)
        st->nr[ev->type]++;
    else
        st->nr_unknown_high++;
    if (stats_grow(st, ps_session_nr_evsels(s)) < 0 || ev->evsel == NULL)
        return;
    if (ev->type == PERF_RECORD_SAMPLE) {
        if (ev->u.sample.sample_type & PERF_SAMPLE_READ)
            count_read_sample(st, s, &ev->u.sample);
        else
            st->samples[ev->evsel->idx]++;
    } else if (ev->type == PERF_RECORD_LOST_SAMPLES) {
        st->lost_samples[ev->evsel->idx] += ev->u.lost_samples.lost;
    }
}

static void stats_free(stats *st)
{
    free(st->samples);
    free(st->lost_samples);
    read_split_free(&st->reads);
}

static void print_stats(FILE *out, const stats *st, ps_session *s)
{
    size_t i;

    /* perf notes that AUX-area decoding is not counted when there is some */
    fprintf(out, "\nAggregated stats:%s\n", st->nr[PS_RECORD_AUXTRACE_INFO] ?
            " (excludes AUX area (e.g. instruction trace) decoded / synthesized events)" : "");
    fprintf(out, "%16s events: %10d\n", "TOTAL", (int)st->total);
    for (i = 1; i < NR_TYPES; i++) {
        const char *name = ps_record_type_name((uint32_t)i);

        if (name == NULL || st->nr[i] == 0)
            continue;
        fprintf(out, "%16s events: %10d  (%4.1f%%)\n", name, (int)st->nr[i],
                st->total ? 100.0 * (double)st->nr[i] / (double)st->total : 0.0);
    }
    /* perf refuses files with types it does not know; we count them */
    for (i = 1; i < NR_TYPES; i++)
        if (st->nr[i] && ps_record_type_name((uint32_t)i) == NULL)
            fprintf(out, "%10s%-6zu events: %10d  (%4.1f%%)\n", "UNKNOWN_", i, (int)st->nr[i],
                    100.0 * (double)st->nr[i] / (double)st->total);
    if (st->nr_unknown_high)
        fprintf(out, "%16s events: %10d\n", "UNKNOWN_128+", (int)st->nr_unknown_high);
    for (i = 0; i < ps_session_nr_evsels(s) && i < st->nr_evsels; i++) {
        if (st->samples[i] == 0 && st->lost_samples[i] == 0)
            continue;
        /* perf report names pipe-mode events from their attrs alone (it
         * takes no EVENT_UPDATE names) */
        fprintf(out, "%s stats:\n", ps_session_header(s)->container == PS_CONTAINER_PIPE ?
                ps_session_evsel(s, i)->attr_name : ps_session_evsel(s, i)->name);
        if (st->samples[i])
            fprintf(out, "%16s events: %10d\n", "SAMPLE", (int)st->samples[i]);
        if (st->lost_samples[i])
            fprintf(out, "%16s events: %10d\n", "LOST_SAMPLES", (int)st->lost_samples[i]);
    }
}

static void print_events(FILE *out, ps_session *s)
{
    size_t i;

    fprintf(out, "# events\n");
    for (i = 0; i < ps_session_nr_evsels(s); i++) {
        const ps_evsel *e = ps_session_evsel(s, i);
        char st[512], rf[128] = "";

        ps_sample_type_str(st, sizeof(st), e->attr.sample_type);
        if (e->attr.read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) strcat(rf, "|TOTAL_TIME_ENABLED");
        if (e->attr.read_format & PERF_FORMAT_TOTAL_TIME_RUNNING) strcat(rf, "|TOTAL_TIME_RUNNING");
        if (e->attr.read_format & PERF_FORMAT_ID) strcat(rf, "|ID");
        if (e->attr.read_format & PERF_FORMAT_GROUP) strcat(rf, "|GROUP");
        if (e->attr.read_format & PERF_FORMAT_LOST) strcat(rf, "|LOST");
        fprintf(out, "%zu: name=%s type=%u config=0x%llx sample_type=%s read_format=%s "
                     "flags=0x%llx ids=%llu\n", i, e->name, e->attr.type,
                (unsigned long long)e->attr.config, st[0] ? st : "0",
                rf[0] ? rf + 1 : "0", (unsigned long long)e->attr.flags,
                (unsigned long long)e->nr_ids);
    }
}

static json_t *stats_json(const stats *st, ps_session *s)
{
    json_t *types = json_object(), *per = json_array();
    size_t i;

    for (i = 1; i < NR_TYPES; i++) {
        char unknown[32];

        if (st->nr[i] == 0)
            continue;
        snprintf(unknown, sizeof(unknown), "UNKNOWN_%zu", i);
        json_object_set_new(types, ps_record_type_name((uint32_t)i) ?
                            ps_record_type_name((uint32_t)i) : unknown,
                            json_integer((json_int_t)st->nr[i]));
    }
    if (st->nr_unknown_high)
        json_object_set_new(types, "UNKNOWN_128_AND_UP",
                            json_integer((json_int_t)st->nr_unknown_high));
    for (i = 0; i < ps_session_nr_evsels(s) && i < st->nr_evsels; i++)
        json_array_append_new(per, json_pack("{s:I, s:o, s:I, s:I}", "idx", (json_int_t)i,
                                             "name", info_json_text(ps_session_evsel(s, i)->name),
                                             "SAMPLE", (json_int_t)st->samples[i],
                                             "LOST_SAMPLES", (json_int_t)st->lost_samples[i]));
    return json_pack("{s:I, s:o, s:o}", "total", (json_int_t)st->total, "records", types,
                     "events", per);
}

/* Read every record; counts go to st, pipe-mode features to hp (may be
 * NULL). Returns PS_DONE or an error code. */
static int read_all(ps_session *s, stats *st, header_printer *hp, ps_error *err)
{
    ps_event ev;
    int rc;

    while ((rc = ps_session_next(&ev, s, err)) == PS_OK) {
        count_event(st, s, &ev);
        cmd_progress(s, st->total);
        if (hp)
            header_print_event(hp, &ev);
    }
    cmd_progress_done();
    return rc;
}

int cmd_info(int argc, char **argv)
{
    input_opts in = { 0 };
    int want_stats = 0, want_header = 0, want_events = 0, json = 0, c, rc, ret = EXIT_OK;
    stats st;
    header_printer hp;
    ps_session *s;
    ps_error err;

    while ((c = getopt_long(argc, argv, "sHejhi:q", long_opts, NULL)) != -1) {
        int r = cmd_input_option("info", &in, c, optarg);

        if (r < 0)
            return EXIT_USAGE;
        if (r > 0)
            continue;
        switch (c) {
        case 's': want_stats = 1; break;
        case 'H': want_header = 1; break;
        case 'e': want_events = 1; break;
        case 'j': json = 1; break;
        case OPT_INFO_SYMFS: break;
        case 'h': fputs(usage_text, stdout); return EXIT_OK;
        default: return cmd_bad_option("info");
        }
    }
    if (optind < argc)
        in.path = argv[optind++];
    if (optind < argc)
        return cmd_usage_error("info", "one capture at a time ('%s' is extra)", argv[optind]);
    if (!want_stats && !want_header && !want_events)
        want_stats = want_header = want_events = 1;
    if ((s = cmd_open("info", &in)) == NULL)
        return EXIT_BADINPUT;
    memset(&st, 0, sizeof(st));
    /* Pipe streams define their header as they go: the printer follows
     * the records (file mode prints it all at begin). */
    /* A ring dump has no perf.data header: say what it is instead. */
    if (want_header && !json && ps_session_header(s)->container == PS_CONTAINER_RING) {
        printf("# raw ring dump (%s form), %llu bytes of records\n",
               ps_session_header(s)->ring_snapshot ? "snapshot" : "stream",
               (unsigned long long)ps_session_header(s)->data.size);
        want_header = 0;
        want_events = !json;
    }
    if (want_header && !json)
        header_print_begin(&hp, stdout, s, 0);
    rc = PS_DONE;
    if (want_stats || json || ps_session_header(s)->container == PS_CONTAINER_PIPE)
        rc = read_all(s, &st, want_header && !json ? &hp : NULL, &err);
    if (want_header && !json)
        header_print_end(&hp);
    if (json) {
        json_t *doc = json_pack("{s:o, s:o, s:o, s:o}", "header", info_json_header(s),
                                "features", info_json_features(s),
                                "events", info_json_events(s), "stats", stats_json(&st, s));

        if (doc == NULL) {      /* a builder ran out of memory */
            fprintf(stderr, "perfsift info: out of memory\n");
            ret = EXIT_BADINPUT;
        } else {
            json_dumpf(doc, stdout, JSON_INDENT(2));
            fputc('\n', stdout);
        }
        json_decref(doc);
    } else {
        if (want_events)
            print_events(stdout, s);
        if (want_stats)
            print_stats(stdout, &st, s);
    }
    if (rc < 0)
        ret = cmd_input_error("info", &err);
    stats_free(&st);
    ps_session_close(s);
    return cmd_finish_stdout("info", ret);
}
