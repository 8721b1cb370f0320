#!/bin/sh
# bench_test.sh - clsort-bench's segmented mode on the CPU device (PoCL), small: every point it
# prints must say "ok" (each result is checked against a per-segment reference), and with
# --stable the pair types must run stable (the algo column "+stable") and pass the check of
# their values against each segment's stable order. TAP output.
BUILD=${BUILD:-build}
cd "$(dirname "$0")/.." || exit 2
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; }
check() { if eval "$2"; then ok "$1"; else notok "$1"; fi; }

if [ ! -x "$BUILD/clsort-bench" ]; then
    echo "1..0 # SKIP $BUILD/clsort-bench not built"
    exit 0
fi
echo "1..5"
tmp=$(mktemp -d /tmp/clsort-bench-test.XXXXXX) || exit 2
trap 'rm -rf "$tmp"' EXIT
dev=${CLSORT_DEVICE:-cpu}
run() { # output-file args...
    out=$1
    shift
    "$BUILD/clsort-bench" -d "$dev" -q --no-cpu --segments --seg-log 12 -n 1 \
        --seg-mixes equal,uniform --seg-sizes 16,48 "$@" >"$out" 2>"$tmp/err.txt"
}
run "$tmp/plain.txt" -t u32,pairs32 -a bitonic,odd-even-merge
rc=$?
sed 's/^/# /' "$tmp/plain.txt" "$tmp/err.txt" | grep -v '^# #' | head -40
check "clsort-bench --segments exits 0" '[ $rc = 0 ]'
check "16 points, each checked ok" \
    '[ "$(grep -c "^segments,.*,ok$" "$tmp/plain.txt")" = 16 ]'
run "$tmp/stable.txt" --stable -t u32,pairs32,pairs64 -a auto,odd-even-transposition
rc=$?
sed 's/^/# /' "$tmp/stable.txt" "$tmp/err.txt" | grep -v '^# #' | head -40
check "clsort-bench --segments --stable exits 0" '[ $rc = 0 ]'
check "24 points, each checked ok" \
    '[ "$(grep -c "^segments,.*,ok$" "$tmp/stable.txt")" = 24 ]'
check "the pair types ran stable, the keys alone did not ask to" \
    '[ "$(grep -c "^segments,pairs[0-9]*,[a-z-]*+stable," "$tmp/stable.txt")" = 16 ] &&
     [ "$(grep -c "^segments,u32,[a-z-]*," "$tmp/stable.txt")" = 8 ]'
