/* SPDX-License-Identifier: MIT */
/*
 * flame_color.c - frame colours as flamegraph.pl computes them with --hash
 * (the facts of its color(), namehash() and color_scale(); the code is ours).
 *
 * A name gives two numbers in (0, 1]: v1 from its first three characters and
 * v2 from its last three (the characters of the reversed name), each after
 * dropping a "module`" prefix. A palette channel is base + int(span * v).
 * The multi palettes (java, js, perl, wakeup, chain) first pick a flat one
 * from the name's shape and annotation (_[k] _[j] _[i] _[w]).
 * Characters are Unicode code points of UTF-8 text, as in Perl reading its
 * input with the :utf8 layer. Never allocates.
 */
#include <stdio.h>
#include <string.h>
#include "flame_color.h"
#include "flame_read.h"

/* One channel: base + int(span * v[which]) (which: 1, 2 or 3). */
struct channel { int base, span, which; };

static const struct palette {
    const char    *name;
    struct channel r, g, b;
    const char    *bg;          /* the default --bgcolors */
} palettes[] = {
    { "hot",    { 205, 50, 3 }, {   0, 230, 1 }, {   0, 55, 2 }, "yellow" },
    { "mem",    {   0,  0, 1 }, { 190,  50, 2 }, {   0, 210, 1 }, "green" },
    { "io",     {  80, 60, 1 }, {  80,  60, 1 }, { 190, 55, 2 }, "blue" },
    { "red",    { 200, 55, 1 }, {  50,  80, 1 }, {  50, 80, 1 }, "grey" },
    { "green",  {  50, 60, 1 }, { 200,  55, 1 }, {  50, 60, 1 }, "grey" },
    { "blue",   {  80, 60, 1 }, {  80,  60, 1 }, { 205, 50, 1 }, "grey" },
    { "yellow", { 175, 55, 1 }, { 175,  55, 1 }, {  50, 20, 1 }, "grey" },
    { "purple", { 190, 65, 1 }, {  80,  60, 1 }, { 190, 65, 1 }, "grey" },
    { "aqua",   {  50, 60, 1 }, { 165,  55, 1 }, { 165, 55, 1 }, "grey" },
    { "orange", { 190, 65, 1 }, {  90,  65, 1 }, {   0,  0, 1 }, "grey" },
};

/* Palettes that choose a flat palette per name. */
static const char *pick_java(const char *s, size_t n);
static const char *pick_js(const char *s, size_t n);
static const char *pick_perl(const char *s, size_t n);
static const char *pick_wakeup(const char *s, size_t n);
static const char *pick_chain(const char *s, size_t n);

static const struct multi {
    const char *name;
    const char *(*pick)(const char *s, size_t n);
    const char *bg;
} multis[] = {
    { "java",   pick_java,   "yellow" },
    { "js",     pick_js,     "yellow" },
    { "perl",   pick_perl,   "yellow" },
    { "wakeup", pick_wakeup, "blue" },
    { "chain",  pick_chain,  "blue" },
};

static const struct background {
    const char *name, *c1, *c2;
} backgrounds[] = {
    { "yellow", "#eeeeee", "#eeeeb0" },
    { "blue",   "#eeeeee", "#e0e0ff" },
    { "green",  "#eef2ee", "#e0ffe0" },
    { "grey",   "#f8f8f8", "#e8e8e8" },
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const struct palette *find_flat(const char *name)
{
    size_t i;

    for (i = 0; i < COUNT(palettes); i++)
        if (strcmp(palettes[i].name, name) == 0)
            return &palettes[i];
    return NULL;
}

static const struct multi *find_multi(const char *name)
{
    size_t i;

    for (i = 0; i < COUNT(multis); i++)
        if (strcmp(multis[i].name, name) == 0)
            return &multis[i];
    return NULL;
}

int flame_color_valid(const char *palette)
{
    return find_flat(palette) != NULL || find_multi(palette) != NULL;
}

const char *flame_color_names(void)
{
    return "hot, mem, io, wakeup, chain, java, js, perl, red, green, blue, aqua, "
           "yellow, purple, orange";
}

static int is_hex6(const char *s)
{
    size_t i;

    if (s[0] != '#' || strlen(s) != 7)
        return 0;
    for (i = 1; i < 7; i++)
        if (strchr("0123456789abcdefABCDEF", s[i]) == NULL)
            return 0;
    return 1;
}

int flame_color_background(char c1[8], char c2[8], const char *bgcolors, const char *palette)
{
    size_t i;

    if (bgcolors == NULL || bgcolors[0] == '\0') {
        const struct palette *p = find_flat(palette);
        const struct multi *m = find_multi(palette);

        bgcolors = p ? p->bg : m ? m->bg : "yellow";
    }
    if (is_hex6(bgcolors)) {    /* a flat colour: both stops the same */
        memcpy(c1, bgcolors, 8);
        memcpy(c2, bgcolors, 8);
        return 0;
    }
    for (i = 0; i < COUNT(backgrounds); i++)
        if (strcmp(backgrounds[i].name, bgcolors) == 0) {
            memcpy(c1, backgrounds[i].c1, 8);
            memcpy(c2, backgrounds[i].c2, 8);
            return 0;
        }
    return -1;
}

/* --- the name's shape --------------------------------------------------- */

static int has(const char *s, size_t n, const char *needle)
{
    size_t k = strlen(needle), i;

    for (i = 0; i + k <= n; i++)
        if (memcmp(s + i, needle, k) == 0)
            return 1;
    return 0;
}

static int ends(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);

    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* m:^L?(java|javax|jdk|net|org|com|io|sun)/: */
static int java_package(const char *s, size_t n)
{
    static const char *const pkgs[] = { "java/", "javax/", "jdk/", "net/", "org/",
                                        "com/", "io/", "sun/" };
    size_t i, k;

    if (n > 0 && s[0] == 'L')     /* no package starts with L: strip it */
        s++, n--;
    for (i = 0; i < COUNT(pkgs); i++) {
        k = strlen(pkgs[i]);
        if (n >= k && memcmp(s, pkgs[i], k) == 0)
            return 1;
    }
    return 0;
}

static const char *pick_java(const char *s, size_t n)
{
    if (ends(s, n, "_[j]"))
        return "green";
    if (ends(s, n, "_[i]"))
        return "aqua";
    if (java_package(s, n) || has(s, n, ":::"))
        return "green";         /* ":::" is perf-map-agent's method separator */
    if (has(s, n, "::"))
        return "yellow";        /* C++ */
    if (ends(s, n, "_[k]"))
        return "orange";
    return "red";
}

/* m:/.*\.js: - a '/' with ".js" somewhere after it */
static int js_path(const char *s, size_t n)
{
    const char *slash = memchr(s, '/', n);

    return slash != NULL && has(slash + 1, n - (size_t)(slash + 1 - s), ".js");
}

static const char *pick_js(const char *s, size_t n)
{
    if (ends(s, n, "_[j]"))
        return memchr(s, '/', n) ? "green" : "aqua";
    if (has(s, n, "::"))
        return "yellow";
    if (js_path(s, n))
        return "green";
    if (memchr(s, ':', n))
        return "aqua";          /* a builtin */
    if (n == 1 && s[0] == ' ')
        return "green";         /* a missing symbol */
    if (has(s, n, "_[k]"))
        return "orange";
    return "red";
}

static const char *pick_perl(const char *s, size_t n)
{
    if (has(s, n, "::"))
        return "yellow";
    if (has(s, n, "Perl") || has(s, n, ".pl"))
        return "green";
    if (ends(s, n, "_[k]"))
        return "orange";
    return "red";
}

static const char *pick_wakeup(const char *s, size_t n)
{
    (void)s, (void)n;
    return "aqua";
}

static const char *pick_chain(const char *s, size_t n)
{
    return has(s, n, "_[w]") ? "aqua" : "blue";   /* waker, off-CPU */
}

/* --- namehash ------------------------------------------------------------ */

/* flamegraph.pl's namehash() of the characters c[0..n): the first three
 * weigh most; 1 - vector / max. */
static double hash_chars(const uint32_t *c, size_t n)
{
    double vector = 0, weight = 1, max = 1;
    int mod = 10;
    size_t k;

    for (k = 0; k < n; k++) {
        int i = (int)(c[k] % (uint32_t)mod);

        vector += ((double)i / (mod - 1)) * weight;
        mod++;
        max += weight;
        weight *= 0.70;
        if (mod > 12)
            break;
    }
    return 1 - vector / max;
}

/* v1: `s/.(.*?)`//` drops everything to the first backquote after the
 * first character; then the first three characters. */
static double hash_forward(const char *s, size_t n)
{
    const char *end = s + n, *q = n > 1 ? memchr(s + 1, '`', n - 1) : NULL;
    uint32_t c[3];
    size_t k = 0;

    if (q != NULL)
        s = q + 1;
    while (s < end && k < 3)
        c[k++] = flame_utf8_next(&s, end);
    return hash_chars(c, k);
}

/* v2: the same on the reversed name. Its first backquote after its first
 * character is the name's last backquote before its last character; what
 * it keeps is the text before that backquote, read from its end. */
static double hash_reverse(const char *s, size_t n)
{
    const char *end = s + n, *q = NULL, *p;
    uint32_t last[3], c[3];
    size_t k = 0, i;

    for (p = s; n > 1 && p < s + n - 1; p++)
        if (*p == '`')
            q = p;
    if (q != NULL)
        end = q;
    for (p = s; p < end; k++)               /* the last three characters */
        last[k % 3] = flame_utf8_next(&p, end);
    for (i = 0; i < 3 && i < k; i++)
        c[i] = last[(k - 1 - i) % 3];
    return hash_chars(c, i);
}

static int channel(const struct channel *ch, const double v[4])
{
    return ch->base + (int)(ch->span * v[ch->which]);
}

void flame_color_frame(char out[24], const char *palette, const char *name, size_t len)
{
    const struct multi *m = find_multi(palette);
    const struct palette *p;
    double v[4];

    if (m != NULL)
        palette = m->pick(name, len);
    if ((p = find_flat(palette)) == NULL) {
        snprintf(out, 24, "rgb(0,0,0)");
        return;
    }
    v[0] = 0;
    v[1] = hash_forward(name, len);
    v[2] = v[3] = hash_reverse(name, len);
    snprintf(out, 24, "rgb(%d,%d,%d)", channel(&p->r, v), channel(&p->g, v),
             channel(&p->b, v));
}

void flame_color_delta(char out[24], double delta, double maxdelta, int negate)
{
    int r = 255, g = 255, b = 255;

    if (negate)
        delta = -delta;
    if (delta > 0)
        g = b = (int)(210 * (maxdelta - delta) / maxdelta);
    else if (delta < 0)
        r = g = (int)(210 * (maxdelta + delta) / maxdelta);
    snprintf(out, 24, "rgb(%d,%d,%d)", r, g, b);
}
