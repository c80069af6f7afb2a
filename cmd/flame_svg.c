/* SPDX-License-Identifier: MIT */
/*
 * flame_svg.c - the SVG of a flame graph (see flame_svg.h), with the
 * geometry of flamegraph.pl (shared/spec/peers.md 1.2, 4.6; its facts, our
 * code): image width W, xpad 10, a frame of count c is c * (W - 20) / total
 * pixels wide, x and width printed to 0.1 px (width is the difference of the
 * printed edges), frames narrower than --minwidth dropped, the image as tall
 * as the deepest frame kept. Labels hold as many characters as
 * width / (fontsize * fontwidth), cut with "..". Tooltips say
 * "name (N countname, P%)" and, for differential frames, "; +D%".
 *
 * Where we differ, on purpose: titles, names and notes are escaped (XML stays
 * well-formed whatever the input, invalid UTF-8 becomes U+FFFD); the root
 * frame is labelled "all"; an icicle graph with a subtitle starts its frames
 * below the subtitle instead of under it. Frames come in (depth, x) order,
 * not Perl's hash order. The script is ours (flame_js.c).
 * Never reads input; writes only to the FILE given.
 */
#include <stdlib.h>
#include <string.h>
#include "flame_color.h"
#include "flame_js.h"
#include "flame_layout.h"
#include "flame_read.h"
#include "flame_svg.h"

#define XPAD 10
#define FRAMEPAD 1
#define SEARCH_COLOR "rgb(230,0,230)"
#define COUNT_TEXT 448          /* 309 digits, their commas and a sign */

void flame_svg_opts_init(flame_svg_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->countname = "samples";
    o->nametype = "Function:";
    o->fonttype = "Verdana";
    o->colors = "hot";
    o->width = 1200;
    o->frameheight = 16;
    o->fontsize = 12;
    o->fontwidth = 0.59;
    o->minwidth = 0.1;
    o->factor = 1;
}

/* Everything the drawing needs, worked out once. */
typedef struct canvas {
    const flame_svg_opts *o;
    FILE   *out;
    double  timemax, widthpertime, minwidth_time;
    double  imageheight, ypad1, ypad2, ypad3, top;   /* top: the icicle's root */
    char    bg1[8], bg2[8];
    int     chain;
} canvas;

/* Perl's print of a number: "%.15g". */
static const char *num(char buf[32], double v)
{
    snprintf(buf, 32, "%.15g", v);
    return buf;
}

/* One character of text as XML: markup escaped; what XML 1.0 cannot hold
 * (control characters, invalid UTF-8) as U+FFFD. */
static void xml_char(FILE *out, const char *s, size_t n, uint32_t c, int quotes)
{
    if (c == '&')
        fputs("&amp;", out);
    else if (c == '<')
        fputs("&lt;", out);
    else if (c == '>')
        fputs("&gt;", out);
    else if (c == '"' && quotes)
        fputs("&quot;", out);
    else if ((c < 0x20 && c != '\t') || (n == 1 && c >= 0x80) || c == 0xfffe || c == 0xffff)
        fputs("\xef\xbf\xbd", out);
    else
        fwrite(s, 1, n, out);
}

static void xml_text(FILE *out, const char *s, size_t len, int quotes)
{
    const char *end = s + len;

    while (s < end) {
        const char *p = s;
        uint32_t c = flame_utf8_next(&s, end);

        xml_char(out, p, (size_t)(s - p), c, quotes);
    }
}

static void xml_str(FILE *out, const char *s, int quotes)
{
    xml_text(out, s, strlen(s), quotes);
}

/* The name without a trailing annotation: _[k] _[w] _[i] _[j]. */
static size_t strip_annotation(const char *s, size_t len)
{
    if (len >= 4 && s[len - 4] == '_' && s[len - 3] == '[' && s[len - 1] == ']' &&
        strchr("kwij", s[len - 2]) != NULL && s[len - 2] != '\0')
        return len - 4;
    return len;
}

/* "%.0f" of v with thousands separators (perlfaq5's commas) into out; returns
 * the number printed, the one Perl computes the percentage from. */
static double count_text(char out[COUNT_TEXT], double v)
{
    char digits[330];           /* DBL_MAX has 309 digits */
    int n = snprintf(digits, sizeof(digits), "%.0f", v), i, o = 0;
    int lead = digits[0] == '-';

    for (i = 0; i < n && i < (int)sizeof(digits) - 1; i++) {
        if (i > lead && (n - i) % 3 == 0)
            out[o++] = ',';
        out[o++] = digits[i];
    }
    out[o] = '\0';
    return strtod(digits, NULL);
}

/* --- header and furniture --------------------------------------------- */

static void write_notes(FILE *out, const char *notes)
{
    char prev = 0;

    fputs("<!-- NOTES: ", out);
    /* a comment cannot hold "--": space them apart */
    for (; notes && *notes; prev = *notes++) {
        if (*notes == '-' && prev == '-')
            fputc(' ', out);
        xml_char(out, notes, 1, (unsigned char)*notes, 0);
    }
    fputs(" -->\n", out);          /* the space keeps a last '-' off "-->" */
}

static void write_head(const canvas *cv, double height)
{
    const flame_svg_opts *o = cv->o;
    char h[32];

    fprintf(cv->out,
            "<?xml version=\"1.0\" standalone=\"no\"?>\n"
            "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
            "\"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n"
            "<svg version=\"1.1\" width=\"%d\" height=\"%s\" onload=\"init(evt)\" "
            "viewBox=\"0 0 %d %s\" xmlns=\"http://www.w3.org/2000/svg\" "
            "xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n"
            "<!-- Flame graph drawn by perfsift flamegraph: hover for details, click "
            "to zoom, Ctrl-F to search (?s=REGEX on load). -->\n",
            o->width, num(h, height), o->width, h);
    write_notes(cv->out, o->notes);
}

static void write_style(const canvas *cv)
{
    const flame_svg_opts *o = cv->o;
    char fs[32], ts[32];

    fprintf(cv->out,
            "<defs>\n"
            "\t<linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\" >\n"
            "\t\t<stop stop-color=\"%s\" offset=\"5%%\" />\n"
            "\t\t<stop stop-color=\"%s\" offset=\"95%%\" />\n"
            "\t</linearGradient>\n"
            "</defs>\n<style type=\"text/css\">\n\ttext { font-family:",
            cv->bg1, cv->bg2);
    xml_str(cv->out, o->fonttype, 0);
    fprintf(cv->out,
            "; font-size:%spx; fill:rgb(0,0,0); }\n"
            "\t#title { text-anchor:middle; font-size:%spx; }\n"
            "\t#subtitle { text-anchor:middle; fill:rgb(160,160,160); }\n"
            "\t#search, #ignorecase { opacity:0.1; cursor:pointer; }\n"
            "\t#search:hover, #search.show, #ignorecase:hover, #ignorecase.show "
            "{ opacity:1; }\n"
            "\t#unzoom { cursor:pointer; }\n"
            "\t#frames > g:hover > rect { stroke:black; stroke-width:0.5; }\n"
            "\t#frames > g { cursor:pointer; }\n"
            "\t.hide { display:none; }\n"
            "\t.parent { opacity:0.5; }\n"
            "</style>\n",
            num(fs, o->fontsize), num(ts, o->fontsize + 5));
}

/* A JavaScript string literal: only ASCII, so no "]]>" and no encoding doubt. */
static void js_string(FILE *out, const char *s)
{
    const char *end = s + strlen(s);

    fputc('"', out);
    while (s < end) {
        uint32_t c = flame_utf8_next(&s, end);

        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&')
            fputc((int)c, out);
        else if (c < 0x10000)
            fprintf(out, "\\u%04x", (unsigned)c);
        else
            fprintf(out, "\\u%04x\\u%04x", (unsigned)(0xd800 + ((c - 0x10000) >> 10)),
                    (unsigned)(0xdc00 + ((c - 0x10000) & 0x3ff)));
    }
    fputc('"', out);
}

static void write_script(const canvas *cv)
{
    const flame_svg_opts *o = cv->o;
    char a[32], b[32];

    fprintf(cv->out, "<script type=\"text/ecmascript\">\n<![CDATA[\n\"use strict\";\n"
            "var fg = { width: %d, xpad: %d, fontsize: %s, fontwidth: %s, inverted: %d, "
            "searchcolor: \"%s\", nametype: ",
            o->width, XPAD, num(a, o->fontsize), num(b, o->fontwidth), o->inverted ? 1 : 0,
            SEARCH_COLOR);
    js_string(cv->out, o->nametype);
    fprintf(cv->out, " };\n%s]]>\n</script>\n", flame_js);
}

/* <text id="ID" x="X" y="Y" EXTRA>TEXT</text>, x as "%.2f" and y as Perl prints it */
static void text_at(const canvas *cv, const char *id, double x, double y, const char *extra,
                    const char *s)
{
    char yb[32];

    fprintf(cv->out, "<text id=\"%s\" x=\"%.2f\" y=\"%s\"%s>", id, x, num(yb, y), extra);
    xml_str(cv->out, s, 0);
    fputs("</text>\n", cv->out);
}

static void write_furniture(const canvas *cv)
{
    const flame_svg_opts *o = cv->o;
    double w = o->width, bottom = cv->imageheight - cv->ypad2 / 2;

    fprintf(cv->out, "<rect x=\"0.0\" y=\"0\" width=\"%.1f\" height=\"%.1f\" "
            "fill=\"url(#background)\" />\n", w, cv->imageheight);
    text_at(cv, "title", (int)(w / 2), o->fontsize * 2, "", o->title);
    if (o->subtitle && o->subtitle[0])
        text_at(cv, "subtitle", (int)(w / 2), o->fontsize * 4, "", o->subtitle);
    text_at(cv, "details", XPAD, bottom, "", " ");
    text_at(cv, "unzoom", XPAD, o->fontsize * 2, " class=\"hide\"", "Reset Zoom");
    text_at(cv, "search", w - XPAD - 100, o->fontsize * 2, "", "Search");
    text_at(cv, "ignorecase", w - XPAD - 16, o->fontsize * 2, "", "ic");
    text_at(cv, "matched", w - XPAD - 100, bottom, "", " ");
}

/* --- frames --------------------------------------------------------------- */

/* The tooltip: "name (N countname, P%[; +D%])", or "all (...)" for the root. */

/* perfsift diff's tooltip: the count drawn, the other profile's, the change */
static void write_title_both(const canvas *cv, const flame_node *n, double samples,
                             const char *txt)
{
    const flame_svg_opts *o = cv->o;
    double all = cv->timemax * o->factor;
    double d = o->negate ? -n->delta : n->delta;
    char other[COUNT_TEXT], change[COUNT_TEXT];

    count_text(other, samples - n->delta * o->factor);
    count_text(change, (d < 0 ? -d : d) * o->factor);
    if (n->depth == 0)
        fputs("all", cv->out);
    else
        xml_text(cv->out, n->name, strip_annotation(n->name, n->len), 1);
    fprintf(cv->out, " (%s ", txt);
    xml_str(cv->out, o->countname, 0);
    fprintf(cv->out, ", %.2f%%; %s: %s; change %s%s, %s%.2f%%)</title>",
            100 * samples / all, o->negate ? "new" : "base", other,
            d > 0 ? "+" : d < 0 ? "-" : "", change, d > 0 ? "+" : "", 100 * d / all);
}

static void write_title(const canvas *cv, const flame_node *n, double etime)
{
    const flame_svg_opts *o = cv->o;
    char txt[COUNT_TEXT];
    double samples = count_text(txt, (etime - n->stime) * o->factor), pct;

    fputs("<title>", cv->out);
    if (n->depth == 0 && !(o->delta_inclusive && n->has_delta)) {
        fprintf(cv->out, "all (%s ", txt);
        xml_str(cv->out, o->countname, 0);
        fputs(", 100%)</title>", cv->out);
        return;
    }
    if (o->delta_inclusive && n->has_delta) {
        write_title_both(cv, n, samples, txt);
        return;
    }
    pct = 100 * samples / (cv->timemax * o->factor);
    xml_text(cv->out, n->name, strip_annotation(n->name, n->len), 1);
    fprintf(cv->out, " (%s ", txt);
    xml_str(cv->out, o->countname, 0);
    fprintf(cv->out, ", %.2f%%", pct);
    if (n->has_delta) {
        /* +0, not -0: Perl negates an integer 0 to 0 ("0.00", never "-0.00") */
        double d = n->delta == 0 ? 0 : o->negate ? -n->delta : n->delta;

        fprintf(cv->out, "; %s%.2f%%", d > 0 ? "+" : "", 100 * d / (cv->timemax * o->factor));
    }
    fputs(")</title>", cv->out);
}

static void frame_color(char out[24], const canvas *cv, const flame_node *n, double maxdelta)
{
    if (n->len == 2 && memcmp(n->name, "--", 2) == 0)
        snprintf(out, 24, "rgb(160,160,160)");
    else if (n->len == 1 && n->name[0] == '-')
        snprintf(out, 24, "rgb(200,200,200)");
    else if (n->has_delta)
        flame_color_delta(out, n->delta, maxdelta, cv->o->negate);
    else
        flame_color_frame(out, cv->o->colors, n->name, n->len);
}

/* The label: as many characters as fit, the last two "..", or none. */
static void write_label(const canvas *cv, const flame_node *n, double x1, double x2)
{
    const flame_svg_opts *o = cv->o;
    const char *s = n->depth == 0 ? "all" : n->name, *p, *end;
    size_t len = n->depth == 0 ? 3 : strip_annotation(n->name, n->len);
    double fit = (x2 - x1) / (o->fontsize * o->fontwidth);
    size_t chars = fit >= 3 ? (fit < 1e9 ? (size_t)fit : (size_t)1e9) : 0, k;

    if (chars == 0)
        return;
    if (flame_utf8_len(s, len) <= chars) {
        xml_text(cv->out, s, len, 0);
        return;
    }
    end = s + len;
    for (p = s, k = 0; k + 2 < chars; k++)
        flame_utf8_next(&p, end);
    xml_text(cv->out, s, (size_t)(p - s), 0);
    fputs("..", cv->out);
}

static void write_frame(const canvas *cv, const flame_node *n, double maxdelta)
{
    const flame_svg_opts *o = cv->o;
    double etime = n->depth == 0 ? cv->timemax : n->etime;
    double x1 = XPAD + n->stime * cv->widthpertime, x2 = XPAD + etime * cv->widthpertime;
    double y1, y2;
    char x1s[48], x2s[48], yb[32], color[24];

    if (!o->inverted) {
        y1 = cv->imageheight - cv->ypad2 - (n->depth + 1.0) * o->frameheight + FRAMEPAD;
        y2 = cv->imageheight - cv->ypad2 - (double)n->depth * o->frameheight;
    } else {
        y1 = cv->top + (double)n->depth * o->frameheight;
        y2 = cv->top + (n->depth + 1.0) * o->frameheight - FRAMEPAD;
    }
    fputs("<g>\n", cv->out);
    write_title(cv, n, etime);
    frame_color(color, cv, n, maxdelta);
    /* the width is the difference of the printed edges, as in flamegraph.pl */
    snprintf(x1s, sizeof(x1s), "%.1f", x1);
    snprintf(x2s, sizeof(x2s), "%.1f", x2);
    fprintf(cv->out, "<rect x=\"%s\" y=\"%s\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
            "rx=\"2\" ry=\"2\" />\n", x1s, num(yb, y1), strtod(x2s, NULL) - strtod(x1s, NULL),
            y2 - y1, color);
    fprintf(cv->out, "<text x=\"%.2f\" y=\"%s\">", x1 + 3, num(yb, 3 + (y1 + y2) / 2));
    write_label(cv, n, x1, x2);
    fputs("</text>\n</g>\n", cv->out);
}

/* --- the whole picture ------------------------------------------------------ */

/* flamegraph.pl's answer to input without counts: a picture saying so. */
static void write_empty(canvas *cv)
{
    const flame_svg_opts *o = cv->o;
    double h = o->fontsize * 5;
    char hb[32];

    fprintf(cv->out,
            "<?xml version=\"1.0\" standalone=\"no\"?>\n"
            "<svg version=\"1.1\" width=\"%d\" height=\"%s\" viewBox=\"0 0 %d %s\" "
            "xmlns=\"http://www.w3.org/2000/svg\">\n"
            "<text x=\"%d\" y=\"%.15g\" text-anchor=\"middle\" font-size=\"%.15g\" "
            "font-family=\"", o->width, num(hb, h), o->width, hb, o->width / 2,
            o->fontsize * 2, o->fontsize);
    xml_str(cv->out, o->fonttype, 1);
    fputs("\">ERROR: No valid input provided to perfsift flamegraph.</text>\n</svg>\n",
          cv->out);
}

static void setup(canvas *cv, const flame_layout *l, const flame_svg_opts *o,
                  flame_svg_stats *st)
{
    unsigned depthmax = 0;
    size_t i;

    cv->timemax = l->time;
    if (o->total > 0 && o->total >= l->time)
        cv->timemax = o->total;
    else if (o->total > 0)
        st->total_ignored = o->total / l->time > 0.02;  /* worth a warning */
    cv->widthpertime = (o->width - 2.0 * XPAD) / cv->timemax;
    cv->minwidth_time = o->minwidth_pct ? cv->timemax * o->minwidth / 100
                                        : o->minwidth / cv->widthpertime;
    for (i = 0; i < l->n; i++)
        if (l->v[i].etime - l->v[i].stime >= cv->minwidth_time && l->v[i].depth > depthmax)
            depthmax = l->v[i].depth;
    cv->ypad1 = o->fontsize * 3;
    cv->ypad2 = o->fontsize * 2 + 10;
    cv->ypad3 = o->fontsize * 2;
    cv->imageheight = (depthmax + 1.0) * o->frameheight + cv->ypad1 + cv->ypad2;
    cv->top = cv->ypad1;
    if (o->subtitle && o->subtitle[0]) {
        cv->imageheight += cv->ypad3;
        cv->top += cv->ypad3;
    }
}

static void draw(canvas *cv, const flame_layout *l, flame_svg_stats *st)
{
    size_t i;

    write_head(cv, cv->imageheight);
    write_style(cv);
    write_script(cv);
    write_furniture(cv);
    fputs("<g id=\"frames\">\n", cv->out);
    for (i = 0; i < l->n; i++) {
        if (l->v[i].etime - l->v[i].stime < cv->minwidth_time)
            continue;               /* too narrow to see */
        write_frame(cv, &l->v[i], l->maxdelta);
        st->nr_frames++;
    }
    fputs("</g>\n</svg>\n", cv->out);
}

int flame_svg_write(FILE *out, flame_line *lines, size_t n, const flame_svg_opts *opts,
                    flame_svg_stats *st)
{
    flame_svg_opts o = *opts;
    flame_layout l;
    canvas cv;
    int rc;

    memset(st, 0, sizeof(*st));
    memset(&cv, 0, sizeof(cv));
    if (o.title == NULL)
        o.title = o.flamechart ? "Flame Chart" : o.inverted ? "Icicle Graph" : "Flame Graph";
    cv.o = &o;
    cv.out = out;
    cv.chain = strcmp(o.colors, "chain") == 0;
    if (flame_color_background(cv.bg1, cv.bg2, o.bgcolors, o.colors) < 0)
        flame_color_background(cv.bg1, cv.bg2, NULL, o.colors);
    if (flame_layout_build(&l, lines, n, o.flamechart, cv.chain, o.delta_inclusive) < 0)
        return FLAME_ENOMEM;
    st->total = l.time;
    if (l.time == 0) {
        write_empty(&cv);
        rc = FLAME_EMPTY;
    } else {
        setup(&cv, &l, &o, st);
        draw(&cv, &l, st);
        rc = FLAME_OK;
    }
    flame_layout_free(&l);
    if (fflush(out) != 0 || ferror(out))
        return FLAME_EIO;
    return rc;
}
