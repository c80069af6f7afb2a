#!/bin/bash
# sqlite.sh - `perfsift sqlite` (issue 6).
#  1. Every testdata/ and corpus capture perf reads: the database equals
#     `perf script -s export-to-sqlite.py DB all calls callchains`'s: the
#     same tables, columns and views; the same rows in selected_events,
#     machines, threads, comms, comm_threads, dsos, symbols, samples and
#     context_switches (ids replaced by what they name; "exact" when the ids
#     match too) and the same call tree (tests/tools/sqlite_compare.py says
#     what is allowed to differ, and why).
#  2. Captures with tracepoints: every field of every tracepoint sample
#     equals what perf's scripting hands a script (sqlite_tp_fields.py).
#  3. --append: two captures in one database, each as it is alone.
#  4. Errors: an existing output without --force, an output directory that
#     does not exist, a capture damaged half way and Ctrl-C: the old file
#     untouched, no temp file left.
# SCRIPT_SETS=sanitize (make check SANITIZE=1) runs a few captures only.
source "$(dirname "$0")/lib.sh"
require_perf
install_dwarf_bins
E2S=/usr/lib/perf-core/scripts/python/export-to-sqlite.py
CMP="python3 $ROOT/tests/tools/sqlite_compare.py"
if ! /usr/bin/python3 -c 'import PySide2.QtSql' 2>/dev/null; then
    fail "sqlite: export-to-sqlite.py needs python3-pyside2.qtsql (make deps)"
    finish
fi

sq() { env -i PATH="$PATH" HOME="$TMPD/home" LC_ALL=C "$PERFSIFT" sqlite "$@"; }
no_tmp() { ! ls "$1"/*.tmp.* >/dev/null 2>&1; }

if [ "$SCRIPT_SETS" = sanitize ]; then
    caps="$ROOT/testdata/dwarf-inline.data $SHARED/corpus/captures/cpuhog-fp.data
          $SHARED/corpus/captures/switch-cpuwide.data $SHARED/corpus/captures/syscalls-tp.data
          $SHARED/corpus/captures/pipe-mode.data"
else
    # and a perf 3.8 capture with kernel modules ("[name]" DSOs); one of
    # perf 3.4 with chains longer than 127 entries (db-export keeps their
    # outer end, as testdata/deep-stack.data); and dwarf/fork.data: DWARF
    # stacks through stripped ls, where perf's call paths take addr2line's
    # names for its own "unknown" symbols
    caps="$(ls -d "$ROOT"/testdata/*.data "$SHARED"/corpus/captures/*.data)
          $SHARED/external/quipper/perf.data.throttle-3.8
          $SHARED/external/quipper/perf.data.callgraph_and_branch-3.4
          $ROOT/testdata/dwarf/fork.data"
fi

# a format field named sample_id (the file says what the fields are): its
# own column, the key stays samples.id
python3 -c 'import sys; d = open(sys.argv[1], "rb").read()
open(sys.argv[2], "wb").write(d.replace(b"int error_code;", b"int sample_id; ", 1))' \
    "$ROOT/testdata/one-tp.data" "$TMPD/tp-sample-id.data"
caps="$caps $TMPD/tp-sample-id.data"

# --- 1, 2: each capture against perf ---------------------------------------
nexact=0 nok=0 nperf=0 bad=""
for f in $caps; do
    n=$(basename "$f" .data)
    rm -f "$TMPD/perf.db" "$TMPD/ps.db" "$TMPD/tp.jsonl"
    # the script resolves its arguments in perf's working directory
    if ! (cd "$TMPD" && perf_run script -i "$f" -s "$E2S" perf.db all calls callchains \
              >/dev/null 2>&1) || [ ! -s "$TMPD/perf.db" ]; then
        nperf=$((nperf + 1))    # perf cannot read it (or crashes on it)
        continue
    fi
    if ! sq -q "$f" -o "$TMPD/ps.db" 2>"$TMPD/err"; then
        fail "sqlite $n: perfsift failed: $(head -2 "$TMPD/err")"
        continue
    fi
    if ! out=$($CMP "$TMPD/perf.db" "$TMPD/ps.db" 2>&1); then
        fail "sqlite $n: differs from export-to-sqlite.py:"$'\n'"$(head -8 <<< "$out")"
        continue
    fi
    case $out in "ok exact") nexact=$((nexact + 1)) ;; *) nok=$((nok + 1)) ;; esac
    # DWARF captures whose inline entries repeat a name at one address
    # (perf makes a symbol per entry) or recur in several processes (one
    # per DSO address): perf's ids, not only its rows
    case $n in dwarf-shlib|dwarf-datamap|fork)
        [ "$out" = "ok exact" ] || fail "sqlite $n: not perf's ids: $out" ;;
    esac
    if sqlite3 "$TMPD/ps.db" "SELECT name FROM sqlite_master WHERE name LIKE 'tracepoint_%'" |
            grep -q .; then
        perf_run script -i "$f" -s "$ROOT/tests/tools/sqlite_tp_fields.py" "$TMPD/tp.jsonl" \
            >/dev/null 2>&1
        if tp=$($CMP --tp "$TMPD/tp.jsonl" "$TMPD/ps.db" 2>&1); then
            pass "sqlite $n: tracepoint fields equal perf's ($tp)"
        else
            fail "sqlite $n: tracepoint fields:"$'\n'"$(head -5 <<< "$tp")"
        fi
    fi
done
if [ $((nexact + nok)) -gt 0 ]; then
    pass "sqlite: $((nexact + nok)) captures equal export-to-sqlite.py's databases" \
         "($nexact with the same ids; $nperf perf does not read)"
fi

# --- 3. --append ---------------------------------------------------------------
A=$SHARED/corpus/captures/cpuhog-fp.data B=$SHARED/corpus/captures/switch-task.data
rm -f "$TMPD"/a.db "$TMPD"/b.db "$TMPD"/ab.db
sq -q "$A" -o "$TMPD/a.db" && sq -q "$B" -o "$TMPD/b.db" && sq -q "$A" -o "$TMPD/ab.db" &&
    sq -q --append "$B" -o "$TMPD/ab.db"
q='SELECT count(*), sum(period), count(DISTINCT thread_id) FROM samples WHERE id > 0'
per_capture="SELECT c.id, count(s.id), sum(s.period) FROM captures c
             JOIN samples s ON s.machine_id = c.machine_id GROUP BY c.id ORDER BY c.id"
got=$(sqlite3 "$TMPD/ab.db" "$per_capture" 2>&1 | tr '\n' ' ')
want="1|$(sqlite3 "$TMPD/a.db" "$q" | cut -d'|' -f1,2) 2|$(sqlite3 "$TMPD/b.db" "$q" | cut -d'|' -f1,2) "
dup=$(sqlite3 "$TMPD/ab.db" "SELECT count(*) FROM branch_types; SELECT count(*) FROM samples WHERE id = 0")
if [ "$got" = "$want" ] && [ "$(echo $dup)" = "42 1" ]; then
    pass "sqlite --append: two captures, each with its own rows ($got)"
else
    fail "sqlite --append: per capture '$got', want '$want'; branch_types, row 0: $dup"
fi

# --- 4. errors ---------------------------------------------------------------------
D=$TMPD/out; mkdir -p "$D"; echo old > "$D/x.db"
sq -q "$A" -o "$D/x.db" 2>"$TMPD/err"; rc=$?
if [ $rc -eq 1 ] && [ "$(cat "$D/x.db")" = old ] && grep -q "already exists" "$TMPD/err" &&
        no_tmp "$D"; then
    pass "sqlite: an existing output is refused without --force"
else
    fail "sqlite: existing output: rc $rc, $(head -1 "$TMPD/err")"
fi
sq -q "$A" -o "$D/x.db" --force && [ "$(sqlite3 "$D/x.db" 'SELECT count(*) FROM captures')" = 1 ] &&
    no_tmp "$D" && pass "sqlite --force: replaces the output" || fail "sqlite --force"
cp "$D/x.db" "$D/keep.db"

sq -q "$A" -o "$TMPD/no/such/dir/x.db" 2>"$TMPD/err"; rc=$?
[ $rc -eq 1 ] && [ ! -e "$TMPD/no" ] && grep -q "cannot create" "$TMPD/err" &&
    pass "sqlite: an output directory that does not exist is an error" ||
    fail "sqlite: missing output directory: rc $rc, $(head -1 "$TMPD/err")"
if [ "$(id -u)" -ne 0 ]; then
    mkdir -p "$TMPD/ro"; chmod 555 "$TMPD/ro"
    sq -q "$A" -o "$TMPD/ro/x.db" 2>/dev/null && fail "sqlite: unwritable directory accepted" ||
        pass "sqlite: an unwritable directory is an error"
fi

# damaged half way: 4 KB of 0xff bytes from the middle on (a record of
# 65535 bytes that the file cannot hold: random bytes made this fail only
# most of the time, as they can read as records that fit)
size=$(stat -c %s "$A")
cp "$A" "$TMPD/bad.data"
head -c 4096 /dev/zero | tr '\0' '\377' |
    dd of="$TMPD/bad.data" bs=1 seek=$((size / 2)) count=4096 conv=notrunc 2>/dev/null
cp "$TMPD/bad.data" "$TMPD/cut.data"; truncate -s $((size / 2)) "$TMPD/cut.data"
for c in bad cut; do
    sq -q "$TMPD/$c.data" -o "$D/keep.db" --force 2>"$TMPD/err"; rc=$?
    if [ $rc -eq 1 ] && cmp -s "$D/keep.db" "$D/x.db" && no_tmp "$D"; then
        pass "sqlite: a capture $([ $c = bad ] && echo damaged || echo cut) half way" \
             "leaves the old database as it was ($(head -1 "$TMPD/err" | cut -c1-60)...)"
    else
        fail "sqlite: $c capture: rc $rc, old file $(cmp -s "$D/keep.db" "$D/x.db" && echo kept ||
              echo changed), $(ls "$D")"
    fi
done

# Ctrl-C while the capture is still arriving
mkfifo "$TMPD/fifo"
(cat "$SHARED/corpus/captures/pipe-mode.data"; sleep 3) > "$TMPD/fifo" &
feeder=$!
env -i PATH="$PATH" HOME="$TMPD/home" "$PERFSIFT" sqlite -q - -o "$D/keep.db" --force \
    < "$TMPD/fifo" &
pid=$!
sleep 1
kill -INT $pid; wait $pid; rc=$?
kill $feeder 2>/dev/null; wait $feeder 2>/dev/null
if [ $rc -eq 130 ] && cmp -s "$D/keep.db" "$D/x.db" && no_tmp "$D"; then
    pass "sqlite: Ctrl-C leaves no temp file and the old database as it was"
else
    fail "sqlite: Ctrl-C: rc $rc, $(ls "$D")"
fi

# outputs that are no regular file are written into, never replaced by a
# file (as root, -o /dev/null --force used to put a file where /dev/null
# was); a symlink is followed, --force and --append replace its target
S=$TMPD/special; mkdir -p "$S"; mkfifo "$S/fifo"
timeout 300 cat "$S/fifo" > "$S/from-fifo.db" & reader=$!
sq -q "$A" -o "$S/fifo"; rc=$?
[ $rc -eq 0 ] && [ -p "$S/fifo" ] || kill $reader 2>/dev/null   # it never opened the FIFO
wait $reader
sq -q "$A" -o /dev/stdout | cat > "$S/from-pipe.db"; prc=${PIPESTATUS[0]}
sqlite3 "$D/x.db" "$q" > "$S/want"
if [ $rc -eq 0 ] && [ -p "$S/fifo" ] && [ $prc -eq 0 ] &&
        [ "$(sqlite3 "$S/from-fifo.db" "$q")" = "$(cat "$S/want")" ] &&
        [ "$(sqlite3 "$S/from-pipe.db" "$q")" = "$(cat "$S/want")" ] &&
        ! ls "$S"/fifo.tmp.* >/dev/null 2>&1; then
    pass "sqlite: a FIFO and /dev/stdout to a pipe get the database, and stay what they were"
else
    fail "sqlite: FIFO rc $rc, pipe rc $prc: $(ls -l "$S" | tr '\n' ' ')"
fi
if [ "$(id -u)" -eq 0 ]; then
    mknod "$S/null" c 1 3
    sq -q "$A" -o "$S/null" --force; rc=$?
    sq -q "$A" -o "$S/null" --append 2>"$TMPD/err"; arc=$?
    [ $rc -eq 0 ] && [ -c "$S/null" ] && [ $arc -eq 1 ] && grep -q "not a regular file" "$TMPD/err" &&
        pass "sqlite: a character device output stays a device (--append refused)" ||
        fail "sqlite: device output: rc $rc, --append rc $arc, $(ls -l "$S/null")"
fi
cp "$D/x.db" "$S/real.db"; ln -s real.db "$S/link.db"
sq -q "$B" -o "$S/link.db" --force && sq -q --append "$A" -o "$S/link.db"; rc=$?
if [ $rc -eq 0 ] && [ -L "$S/link.db" ] &&
        [ "$(sqlite3 "$S/real.db" 'SELECT count(*) FROM captures')" = 2 ] && no_tmp "$S"; then
    pass "sqlite: -o SYMLINK (--force, --append) writes the link's target, the link stays"
else
    fail "sqlite: symlink output: rc $rc, $(ls -l "$S" | tr '\n' ' ')"
fi

sq --help | grep -q -- "--append" && sq -q "$A" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && pass "sqlite: --help; no -o is a usage error" || fail "sqlite: no -o gave $rc"
finish
