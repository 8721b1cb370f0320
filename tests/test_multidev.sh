#!/bin/sh
# test_multidev.sh - several devices in one process, on PoCL with POCL_DEVICES="pthread pthread"
# (two CPU devices): clsort -d lists and ":all" specs give the same bytes as one device, bad lists
# fail cleanly, and docs/examples/multi_device.c compiles and sorts. TAP.
set -u
BUILD=${BUILD:-build}
cd "$(dirname "$0")/.." || exit 2
case $BUILD in /*) ;; *) BUILD=$(pwd)/$BUILD ;; esac
CLSORT=$BUILD/clsort
REF=$BUILD/refsort-md
[ -x "$CLSORT" ] || { echo "Bail out! $CLSORT not built"; exit 1; }
${CC:-cc} -std=c11 -O2 -o "$REF" tests/cli/refsort.c || { echo "Bail out! cannot build refsort"; exit 1; }
export POCL_DEVICES="pthread pthread"
SEED=${SEED:-$(date +%s)}
W=$(mktemp -d "${TMPDIR:-/tmp}/clsort-md.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT HUP INT TERM
echo "# seed $SEED"
n=0 fails=0
pass() { n=$((n + 1)); echo "ok $n - $1"; }
fail() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }

"$REF" gen u32 4 0 200000 "$SEED" 0 >"$W/a.bin"
"$REF" gen i64 20 5 50000 $((SEED + 1)) 300 >"$W/r.bin"
"$CLSORT" -d 0:0 -s -o "$W/one.bin" "$W/a.bin"
"$CLSORT" -d 0:0 -s -t i64 -R 20 -k 5 -o "$W/rone.bin" "$W/r.bin"
for d in 0:0,0:1 cpu:all all 0:1,0:0,0:1; do
    if "$CLSORT" -d "$d" -s -o "$W/m.bin" "$W/a.bin" && cmp -s "$W/m.bin" "$W/one.bin"; then
        pass "-d $d: u32 keys, same bytes as one device"
    else fail "-d $d: u32 keys, same bytes as one device"; fi
done
for S in 0 64K; do
    opt=""; [ "$S" = 0 ] || opt="-S $S"
    if "$CLSORT" -d cpu:all $opt -s -t i64 -R 20 -k 5 -o "$W/m.bin" "$W/r.bin" && cmp -s "$W/m.bin" "$W/rone.bin"; then
        pass "-d cpu:all ${opt:-(no -S)}: records with keys at an offset, stable order"
    else fail "-d cpu:all ${opt:-(no -S)}: records with keys at an offset, stable order"; fi
done
: >"$W/e.bin"
if "$CLSORT" -d all -o "$W/m.bin" "$W/e.bin" && [ ! -s "$W/m.bin" ]; then pass "-d all: empty file"
else fail "-d all: empty file"; fi
"$CLSORT" -d 0:0,,0:1 -o "$W/x.bin" "$W/a.bin" 2>"$W/err"; rc=$?
if [ $rc = 2 ] && grep -q "empty item" "$W/err" && [ ! -e "$W/x.bin" ]; then pass "empty list item: status 2"
else fail "empty list item: status 2 (got $rc)"; fi
rm -f "$W/x.bin"
if "$CLSORT" --list-devices 2>/dev/null | grep -q "type gpu"; then
    n=$((n + 1)); echo "ok $n # SKIP gpu:all without a GPU: this machine has one"
else
    "$CLSORT" -d gpu:all -o "$W/x.bin" "$W/a.bin" 2>"$W/err"; rc=$?
    if [ $rc = 4 ] && [ "$(wc -l <"$W/err")" = 1 ] && [ ! -e "$W/x.bin" ]; then pass "gpu:all without a GPU: status 4, one line"
    else fail "gpu:all without a GPU: status 4, one line (got $rc)"; fi
fi
rm -f "$W/x.bin"
"$CLSORT" -d 0:0,no-such-device -o "$W/x.bin" "$W/a.bin" 2>"$W/err"; rc=$?
if [ $rc = 4 ] && [ ! -e "$W/x.bin" ]; then pass "unknown device in a list: status 4, no output"
else fail "unknown device in a list: status 4, no output (got $rc)"; fi

# CLSORT_TEST_SAN: the sanitizer flags the library was built with (make check-sanitize).
if ${CC:-cc} -std=c11 -Wall -Wextra -Wpedantic -Werror ${CLSORT_TEST_SAN:-} -o "$W/multi_device" \
    docs/examples/multi_device.c -Iinclude "$BUILD/libclsort.a" -lOpenCL -lpthread -lm -linih; then
    pass "docs/examples/multi_device.c compiles warning-free"
    if out=$("$W/multi_device" 300000) && echo "$out" | grep -Eq "on ([2-9]|[1-9][0-9]+) devices"; then pass "multi_device example sorts on every device (2 or more): $out"
    else fail "multi_device example sorts on every device (2 or more)"; fi
else
    fail "docs/examples/multi_device.c compiles warning-free"
fi
echo "1..$n"
[ "$fails" = 0 ]
