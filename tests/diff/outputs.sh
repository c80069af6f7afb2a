#!/bin/bash
# outputs.sh - every command that writes a file writes it whole or not at
# all (temp file beside it + rename): folded -o, json -o, flamegraph -o,
# diff -o/--svg, sqlite -o. For each: a bad input leaves an existing output
# as it was and no temp file; a full disk (a 64 KiB tmpfs) and a read-only
# directory (a tmpfs remounted ro) end in exit 1 with a message, the old
# output intact, nothing left behind; SIGTERM/SIGINT while the input is
# still arriving (a FIFO held open) removes the temp file. The mounts need
# root; without it those cases are skipped (said so), not passed.
. "$(dirname "$0")/lib.sh"
W=$TMPD/w
mkdir -p "$W"
CAP=$ROOT/testdata/multi-sys.data
PIPECAP=$ROOT/testdata/pipe-z.data
head -c 3000 "$CAP" > "$TMPD/bad.data"          # header and attrs, records cut
printf 'a;b 1\n' > "$TMPD/base.folded"

# name -> the command writing OUT (the output path is the last argument)
declare -A CMDS=(
    [folded]="folded -q INPUT -o"
    [json]="json -q INPUT -o"
    [flamegraph]="flamegraph -q INPUT -o"
    [diff-svg]="diff -q $TMPD/base.folded INPUT --svg"
    [diff-folded]="diff --folded $TMPD/base.folded INPUT -o"
    [sqlite]="sqlite -q INPUT -f -o"
)

run_cmd() {     # name input out: run it, stderr to $TMPD/err
    local c=${CMDS[$1]}
    # shellcheck disable=SC2086
    "$PERFSIFT" ${c//INPUT/$2} "$3" > /dev/null 2> "$TMPD/err"
}

left_behind() { ls -A "$1" | grep -c '\.tmp\.' ; }
is_old() { printf 'old\n' | cmp -s - "$1"; }

for name in "${!CMDS[@]}"; do
    # good input: the output appears and replaces the old one
    echo old > "$W/out.$name"
    if run_cmd "$name" "$CAP" "$W/out.$name" && [ -s "$W/out.$name" ] &&
       ! is_old "$W/out.$name" && [ "$(left_behind "$W")" = 0 ]; then
        pass "outputs $name: written whole, no temp left"
    else
        fail "outputs $name: good input: $(head -c 300 "$TMPD/err")"
    fi
    # bad input: exit 1, a message, the old output untouched
    echo old > "$W/out.$name"
    run_cmd "$name" "$TMPD/bad.data" "$W/out.$name"
    rc=$?
    # the input's error is the message: no "cannot write" after it
    if [ $rc = 1 ] && [ -s "$TMPD/err" ] && is_old "$W/out.$name" &&
       ! grep -q 'cannot write' "$TMPD/err" && [ "$(left_behind "$W")" = 0 ]; then
        pass "outputs $name: bad input leaves the old output and no temp"
    else
        fail "outputs $name: bad input: exit $rc, output $(is_old "$W/out.$name" && echo kept || echo changed), $(left_behind "$W") temp(s): $(head -c 300 "$TMPD/err")"
    fi
done

# full disk and read-only directory: small tmpfs mounts (root only)
M=$TMPD/mnt
mkdir -p "$M"
if mount -t tmpfs -o size=64k tmpfs "$M" 2>/dev/null; then
    # fill it up to a few KiB, so even a short output cannot fit
    head -c 40000 /dev/zero > "$M/filler" 2>/dev/null
    for name in "${!CMDS[@]}"; do
        echo old > "$M/out.$name"
        head -c 60000 /dev/zero > "$M/filler2" 2>/dev/null
        run_cmd "$name" "$CAP" "$M/out.$name"
        rc=$?
        if [ $rc = 1 ] && grep -q 'perfsift' "$TMPD/err" && is_old "$M/out.$name" &&
           [ "$(left_behind "$M")" = 0 ]; then
            pass "outputs $name: disk full: exit 1 with a message, old output kept, no temp"
        else
            fail "outputs $name: disk full: exit $rc, output $(is_old "$M/out.$name" && echo kept || echo changed), $(left_behind "$M") temp(s): $(head -c 300 "$TMPD/err")"
        fi
        rm -f "$M/filler2"
    done
    rm -f "$M"/*
    for name in "${!CMDS[@]}"; do echo old > "$M/out.$name"; done
    if mount -o remount,ro "$M" 2>/dev/null; then
        for name in "${!CMDS[@]}"; do
            run_cmd "$name" "$CAP" "$M/out.$name"
            rc=$?
            if [ $rc = 1 ] && grep -q 'perfsift' "$TMPD/err" && is_old "$M/out.$name"; then
                pass "outputs $name: read-only directory: exit 1 with a message, old output kept"
            else
                fail "outputs $name: read-only directory: exit $rc: $(head -c 300 "$TMPD/err")"
            fi
        done
    else
        echo "SKIP outputs read-only: cannot remount the tmpfs read-only"
    fi
    umount "$M"
else
    echo "SKIP outputs disk-full/read-only: cannot mount a tmpfs (not root?)"
fi

# a signal while the input still arrives: the temp file goes with it
for name in json sqlite; do
    for sig in TERM INT; do
        rm -f "$W"/*
        echo old > "$W/out.$name"
        mkfifo "$W/in.fifo"
        c=${CMDS[$name]}
        # shellcheck disable=SC2086
        "$PERFSIFT" ${c//INPUT/-} "$W/out.$name" < "$W/in.fifo" > /dev/null 2>&1 &
        pid=$!
        exec 7> "$W/in.fifo"
        head -c 2000 "$PIPECAP" >&7      # part of a pipe capture; the FIFO stays open
        for _ in $(seq 100); do
            [ "$(left_behind "$W")" != 0 ] && break
            sleep 0.05
        done
        had=$(left_behind "$W")
        kill -s "$sig" "$pid"
        wait "$pid" 2>/dev/null
        exec 7>&-
        rm -f "$W/in.fifo"
        if [ "$had" != 0 ] && [ "$(left_behind "$W")" = 0 ] && is_old "$W/out.$name"; then
            pass "outputs $name: SIG$sig mid-input removes the temp file, old output kept"
        else
            fail "outputs $name: SIG$sig: temp seen $had, left $(left_behind "$W"), output $(is_old "$W/out.$name" && echo kept || echo changed)"
        fi
    done
done
# Targets that are no regular file are written into, never replaced: a
# FIFO gets the output and stays a FIFO; a character device (made with
# mknod here, as root: a rename over /dev/null would replace /dev/null) stays
# a device; -o LINK writes the link's target and keeps the link.
S=$TMPD/special
mkdir -p "$S"
for name in "${!CMDS[@]}"; do
    rm -f "$S"/*
    mkfifo "$S/fifo"
    timeout 120 cat "$S/fifo" > "$S/from-fifo" & reader=$!
    run_cmd "$name" "$CAP" "$S/fifo"
    rc=$?
    [ $rc -eq 0 ] || kill $reader 2>/dev/null
    wait $reader 2>/dev/null
    if [ $rc -eq 0 ] && [ -p "$S/fifo" ] && [ -s "$S/from-fifo" ] && [ "$(left_behind "$S")" = 0 ]; then
        pass "outputs $name: a FIFO gets the output and stays a FIFO"
    else
        fail "outputs $name: FIFO: exit $rc, $(ls -l "$S" | tr '\n' ' '): $(head -c 200 "$TMPD/err")"
    fi
    echo old > "$S/target"
    ln -s target "$S/link"
    if run_cmd "$name" "$CAP" "$S/link" && [ -L "$S/link" ] && [ -s "$S/target" ] &&
       ! is_old "$S/target" && [ "$(left_behind "$S")" = 0 ]; then
        pass "outputs $name: -o LINK writes the target and keeps the link"
    else
        fail "outputs $name: symlink: $(ls -l "$S" | tr '\n' ' '): $(head -c 200 "$TMPD/err")"
    fi
    if [ "$(id -u)" != 0 ]; then
        fail "outputs $name: a device target needs root (mknod)"
    elif mknod -m 666 "$S/null" c 1 3 && run_cmd "$name" "$CAP" "$S/null" && [ -c "$S/null" ] &&
         [ "$(left_behind "$S")" = 0 ]; then
        pass "outputs $name: a character device is written into and stays a device"
    else
        fail "outputs $name: device: $(ls -l "$S" | tr '\n' ' '): $(head -c 200 "$TMPD/err")"
    fi
done
finish
