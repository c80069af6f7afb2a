/* SPDX-License-Identifier: MIT */
/* fuzz_tracepoint - HEADER_TRACING_DATA and RAW payload decoding: the
 * input is [u16 payload length][payload][tracing data blob]. Every field
 * of the payload's event (found by its common_type) is decoded and the
 * trace text printed, as perf script would. */
#include "fuzz.h"
#include "../../libparse/tracepoint.h"

static void quiet(void *ctx, const char *msg)
{
    (void)ctx;
    (void)msg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const ps_tp_format *fmt;
    ps_tp_value v;
    ps_error err;
    uint8_t *blob, *raw;
    size_t plen, i;
    char text[256];
    ps_tp *tp;

    if (size < 2)
        return 0;
    plen = (size_t)data[0] | (size_t)data[1] << 8;
    data += 2;
    size -= 2;
    if (plen > size)
        plen = size;
    /* exact-size heap copies: ASan sees any read past either */
    raw = malloc(plen ? plen : 1);
    blob = malloc(size - plen ? size - plen : 1);
    memcpy(raw, data, plen);
    memcpy(blob, data + plen, size - plen);
    tp = ps_tp__new(blob, size - plen, quiet, NULL);
    if (tp != NULL && ps_tp__nr_formats(tp) > 0) {
        uint64_t id = plen >= 2 ? (uint64_t)raw[0] | (uint64_t)raw[1] << 8 : 0;

        if ((fmt = ps_tp__find(tp, id)) != NULL)
            for (i = 0; ps_tp__value(&v, fmt, i, raw, plen, &err) == PS_OK; i++)
                if (v.kind == PS_TP_VALUE_ARRAY && v.nr)
                    (void)ps_tp_value_at(&v, v.nr - 1);
        (void)ps_tp__print(text, sizeof(text), tp, raw, plen, 0, &err);
    }
    ps_tp__free(tp);
    free(blob);
    free(raw);
    return 0;
}
