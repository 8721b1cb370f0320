#!/bin/sh
# check_layers_planted.sh - tests/check_layers.sh must fail on an upward include (TAP).
# Plants one include at a time in a copy of host/ and tools/ and expects the check to name it:
# the shared records layer including clsort's options (lib -> programs), one program including
# another's header (clsort-mpi -> clsort), planning including the dispatch layer's header and the
# dispatch layer including the API's (host/: each layer calls only downwards).
# Usage: sh tests/check_layers_planted.sh (from the repository root or anywhere).

root=$(cd "$(dirname "$0")/.." && pwd)
tmp=${TMPDIR:-/tmp}/check_layers_planted.$$
trap 'rm -rf "$tmp"' EXIT INT TERM

n=0
failed=0
# plant FILE HEADER WANT DESCRIPTION: a copy with `#include "HEADER"` added to FILE, whose check
# must exit 1 with a "not ok" line that contains WANT.
plant() {
    rm -rf "$tmp" && mkdir -p "$tmp/tests" || exit 2
    cp -R "$root/host" "$root/tools" "$tmp/" && cp "$root/tests/check_layers.sh" "$tmp/tests/" ||
        exit 2
    printf '#include "%s"\n' "$2" >>"$tmp/$1"
    out=$(sh "$tmp/tests/check_layers.sh" "$tmp" 2>&1)
    rc=$?
    n=$((n + 1))
    if [ "$rc" = 1 ] && printf '%s\n' "$out" | grep '^not ok' | grep -q -e "$3"; then
        echo "ok $n - $4"
    else
        failed=1
        echo "not ok $n - $4 (exit $rc)"
        printf '%s\n' "$out" | grep -A1 '^not ok' | sed 's/^/# /'
    fi
}

plant tools/lib/clsort_records.c clsort_args.h "tools/lib/clsort_records.c includes only its layer" \
    "an include of clsort/ from tools/lib/ fails the check"
plant tools/clsort-mpi/mpi_io.c clsort_guard.h "tools/clsort-mpi/mpi_io.c includes only its layer" \
    "an include of clsort/ from clsort-mpi/ fails the check"
plant host/planning/plan.c dispatch.h "host/planning/plan.c includes only its layer" \
    "an include of dispatch/ from planning/ fails the check"
plant host/dispatch/dispatch_sort.c api_common.h \
    "host/dispatch/dispatch_sort.c includes only its layer" \
    "an include of api/ from dispatch/ fails the check"
echo "1..$n"
exit $failed
