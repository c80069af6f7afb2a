/* SPDX-License-Identifier: MIT */
/* libwork.h - the interface of libwork.so (see libwork.c). */
#ifndef LIBWORK_H
#define LIBWORK_H

unsigned int lw_key(unsigned int x);
double lw_wave(double x, int n);

#endif
