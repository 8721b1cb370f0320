#!/bin/sh
# valgrind_cli.sh BUILD - a short memcheck of the clsort CLI (make check-valgrind): an in-place
# sort on the device, (key, index) pairs through -R/-k with -s, an external sort with runs and a
# merge, a check (-c), and a usage error. Memory errors anywhere and definite leaks in clsort's
# code fail it; PoCL/LLVM/ocl-icd noise is suppressed by tests/sanitize/valgrind.supp.
# A run without valgrind first fills the kernel caches, so valgrind never runs the compiler.
BUILD=${1:-build}
cd "$(dirname "$0")/../.." || exit 2
ROOT=$(pwd)
CLSORT=$ROOT/$BUILD/clsort
export CLSORT_DEVICE="${CLSORT_DEVICE:-cpu}"
command -v valgrind >/dev/null || { echo "check-valgrind: valgrind not installed (apt-get install valgrind)"; exit 2; }
[ -x "$CLSORT" ] || { echo "check-valgrind: $CLSORT not built"; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/clsort-vg.XXXXXX") || exit 2
trap 'rm -rf "$W"' EXIT
${CC:-cc} -std=c11 -O2 -o "$W/refsort" tests/cli/refsort.c || exit 2
"$W/refsort" gen u32 4 0 3000 1 0 >"$W/keys.bin"
"$W/refsort" gen u64 16 4 2500 2 0 >"$W/recs.bin"
VG="valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite
    --errors-for-leak-kinds=definite --track-origins=yes --num-callers=30
    --suppressions=$ROOT/tests/sanitize/valgrind.supp"
fails=0
run() { # DESC ARGS...: the same command, once plainly (caches), once under valgrind
    desc=$1; shift
    cp "$W/keys.bin" "$W/k.bin"; cp "$W/recs.bin" "$W/r.bin"
    (cd "$W" && "$CLSORT" "$@" >/dev/null 2>&1)
    cp "$W/keys.bin" "$W/k.bin"; cp "$W/recs.bin" "$W/r.bin"
    start=$(date +%s)
    (cd "$W" && $VG --log-file="$W/vg.log" "$CLSORT" "$@" >/dev/null 2>"$W/err")
    rc=$?
    if [ "$rc" = 99 ] || [ -s "$W/vg.log" ]; then
        echo "not ok - $desc: valgrind reports (exit $rc):"
        sed 's/^/#   /' "$W/vg.log" | head -60
        fails=$((fails + 1))
    else
        echo "ok - $desc (exit $rc, $(($(date +%s) - start)) s)"
    fi
}
run "in-place sort of 3000 u32 keys" -a bitonic k.bin
run "pairs: -R 16 -k 4 -t u64 -s" -R 16 -k 4 -t u64 -s -o out.bin r.bin
run "external sort: runs of 8 KiB and a merge" -R 16 -k 4 -t u64 -S 8K -T . -o out.bin r.bin
run "check (-c) of unsorted input" -c keys.bin
run "usage error" --record-size=0 k.bin
[ "$fails" = 0 ] && echo "check-valgrind: clean" || { echo "check-valgrind: $fails failed"; exit 1; }
