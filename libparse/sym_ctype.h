/* SPDX-License-Identifier: MIT */
/*
 * sym_ctype.h - the character classes perf's symbol code tests with: the
 * tools/ ctype perf links (ASCII plus Latin-1 letters, which decide how an
 * OCaml or Java name is read) and hex digits. Locale-free on purpose: the
 * answers must not depend on the caller's setlocale(). Header only.
 */
#ifndef PS_SYM_CTYPE_H
#define PS_SYM_CTYPE_H

static inline int ps_l1_upper(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 0xc0 && c <= 0xde && c != 0xd7);
}

static inline int ps_l1_alpha(unsigned char c)
{
    return ps_l1_upper(c) || (c >= 'a' && c <= 'z') || (c >= 0xdf && c != 0xf7);
}

/* A hex digit's value (either case), -1 for any other byte. */
static inline int ps_hexval(unsigned char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

#endif /* PS_SYM_CTYPE_H */
