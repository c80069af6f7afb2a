/* SPDX-License-Identifier: MIT */
/* ring.c - raw ring dumps (spec 14): placeholder until implemented. */
#include "session.h"

int ps_ring__open(ps_session *s, ps_error *err)
{
    return ps_error__set(err, PS_EUNSUPPORTED, PS_NO_OFFSET,
                         "%s: raw ring dumps are not supported yet", s->path);
}
