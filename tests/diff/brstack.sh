#!/bin/bash
# brstack.sh - `perfsift script -F brstack,brstacksym` (cmd/script_brstack.c)
# equals `perf script` with the same fields on the captures that carry
# branch stacks (PERF_SAMPLE_BRANCH_STACK, from other machines:
# shared/external): addresses, symbols, dsos and the flags column. The
# LBR call-stack capture perfparser/vector_static_gcc.perf.lbr.data is
# left out: its call chains differ for a perf bug (PERF-DIFFERENCES.md).
source "$(dirname "$0")/lib.sh"
require_perf
E="$SHARED/external"
caps="autofdo/perf-kernel.data quipper/perf.data.branch-4.14
      quipper/perf.data.branch_stack_hw_index quipper/perf.data.branch_stack_spec
      quipper/perf.data.callgraph_and_branch-3.4 quipper/perf.data.raw_callgraph_branch-3.4"
[ "${SCRIPT_SETS:-}" = sanitize ] && caps="quipper/perf.data.branch-4.14 quipper/perf.data.branch_stack_spec"
for c in $caps; do
    f="$E/$c"
    [ -e "$f" ] || { fail "brstack $c: capture missing"; continue; }
    for opts in "-F ip,dso,brstack" "-F ip,sym,dso,brstacksym" "-F +brstack"; do
        # shellcheck disable=SC2086
        perf_run script $opts -i "$f" > "$TMPD/perf.txt" 2>/dev/null
        # shellcheck disable=SC2086
        env -i PATH="$PATH" HOME="$TMPD/home" "$PERFSIFT" script -q $opts "$f" \
            > "$TMPD/ours.txt" 2>/dev/null
        if [ -s "$TMPD/perf.txt" ] && grep -q '/[-MP]/[-X]/[-A]/' "$TMPD/perf.txt" &&
           cmp -s "$TMPD/perf.txt" "$TMPD/ours.txt"; then
            pass "brstack $(basename "$c") [$opts]: $(wc -l < "$TMPD/perf.txt") lines equal perf's"
        else
            fail "brstack $(basename "$c") [$opts]: $(diff "$TMPD/perf.txt" "$TMPD/ours.txt" | grep -c '^[<>]') lines differ"
            diff "$TMPD/perf.txt" "$TMPD/ours.txt" | head -4 | cut -c1-200
        fi
    done
done
finish
