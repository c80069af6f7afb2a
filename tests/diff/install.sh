#!/bin/bash
# install.sh - `make install` into a temporary DESTDIR gives a usable
# library: a program built only from the installed perfsift.h, perfsift.pc
# and libperfsift.so counts the samples of a capture, and agrees with
# `perf report --stats`. Also checks the public header alone under -pedantic.
source "$(dirname "$0")/lib.sh"
require_perf
D=$TMPD/inst
# a plain build even inside `make check SANITIZE=1` (MAKEFLAGS would pass it on)
if ! env -u MAKEFLAGS -u MAKELEVEL make -s -C "$ROOT" install SANITIZE= DESTDIR="$D" PREFIX=/usr > "$TMPD/make.log" 2>&1; then
    fail "install: make install failed: $(tail -3 "$TMPD/make.log")"; finish
fi
for f in usr/bin/perfsift usr/include/perfsift.h usr/lib/libperfsift.a usr/lib/libperfsift.so.0 \
         usr/lib/pkgconfig/perfsift.pc usr/share/man/man1/perfsift.1; do
    [ -e "$D/$f" ] && pass "install $f" || fail "install $f missing"
done
cat > "$TMPD/count.c" <<'C'
#include <stdio.h>
#include <perfsift.h>
int main(int argc, char **argv)
{
    ps_session *s;
    ps_event ev;
    ps_error err;
    unsigned long n = 0;
    int rc;

    if (argc < 2 || ps_session_open(&s, argv[1], NULL, &err) < 0)
        return 1;
    while ((rc = ps_session_next(&ev, s, &err)) == PS_OK)
        n += ev.type == PERF_RECORD_SAMPLE;
    ps_session_close(s);
    printf("%lu\n", n);
    return rc == PS_DONE ? 0 : 1;
}
C
cflags=$(PKG_CONFIG_SYSROOT_DIR="$D" PKG_CONFIG_PATH="$D/usr/lib/pkgconfig" pkg-config --cflags perfsift)
if cc -std=c11 -pedantic -Wall -Wextra -Werror $cflags "$TMPD/count.c" -o "$TMPD/count" \
      -L"$D/usr/lib" -Wl,-rpath,"$D/usr/lib" -lperfsift 2> "$TMPD/cc.err"; then
    pass "install: a program builds against the installed header and library"
else
    fail "install: build against installed library: $(head -3 "$TMPD/cc.err")"; finish
fi
f=$SHARED/corpus/captures/cpuhog-multi-id.data
want=$(perf_run report --stats -i "$f" 2>/dev/null | awk '/^ *SAMPLE events:/ && !done {print $3; done=1}')
got=$("$TMPD/count" "$f")
[ -n "$want" ] && [ "$got" = "$want" ] && pass "install: library counts $got samples, as perf" \
    || fail "install: library counts '$got' samples, perf '$want'"
finish
