/* SPDX-License-Identifier: MIT */
/* header_print.c - TEMPORARY stub until the real printer lands. */
#include "header_print.h"

int header_print(FILE *out, ps_session *s, const char *display_name)
{
    (void)s;
    fprintf(out, "# header of %s\n", display_name);
    return 0;
}
