/* SPDX-License-Identifier: MIT */
/* header_print.h - perf report --header-only -I output (cmd/header_print.c). */
#ifndef PS_CMD_HEADER_PRINT_H
#define PS_CMD_HEADER_PRINT_H

#include <stdio.h>
#include "perfsift.h"

int header_print(FILE *out, ps_session *s, const char *display_name);

#endif
