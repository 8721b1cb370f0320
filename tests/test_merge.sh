#!/bin/sh
# test_merge.sh - the k-way merge of the clsort tool (the loser tree of clsort_losertree.c), both
# where it is used: the runs of an external sort (forced with a small -S) and -m over sorted files.
# Every result is compared byte for byte with tests/cli/refsort.c (qsort with the documented
# order, ties in input order): many runs and multi-level merges, k = 1 .. 130 sources, the fan-in
# cut by the open-file limit, every key type in both byte orders and directions, records with keys
# at offsets, duplicates across runs and files (stability, --key tie-breakers, -u), stretches of
# one source (sorted, reversed and block-interleaved inputs), buffers that refill mid-merge, the
# writer thread's handoffs, empty inputs, and -m's order check (exit 3, the record named). TAP.
#
#   BUILD=build sh tests/test_merge.sh          SEED=1234 ... replays the data of an earlier run
set -u
BUILD=${BUILD:-build}
cd "$(dirname "$0")/.." || exit 2
case $BUILD in /*) ;; *) BUILD=$(pwd)/$BUILD ;; esac
CLSORT=$BUILD/clsort
REF=$BUILD/refsort-merge
[ -x "$CLSORT" ] || { echo "Bail out! $CLSORT not built"; exit 1; }
${CC:-cc} -std=c11 -O2 -o "$REF" tests/cli/refsort.c || { echo "Bail out! cannot build refsort"; exit 1; }
export CLSORT_DEVICE="${CLSORT_DEVICE:-cpu}"
SEED=${SEED:-$(date +%s)}
W=$(mktemp -d "${TMPDIR:-/tmp}/clsort-merge.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT HUP INT TERM
cd "$W" || exit 1
mkdir tmp
export TMPDIR="$W/tmp"
echo "# seed $SEED (replay with SEED=$SEED), device $CLSORT_DEVICE"

n=0
fails=0
pass() { n=$((n + 1)); echo "ok $n - $1"; }
fail() {
    n=$((n + 1)); fails=$((fails + 1))
    echo "not ok $n - $1"
    if [ -s err ]; then sed 's/^/#   stderr: /' err | head -5; fi
}
# same DESC FILE REF: FILE and REF hold the same bytes.
same() {
    if cmp -s "$2" "$3"; then pass "$1"; else fail "$1 (differs: $(cmp "$2" "$3" 2>&1 | head -1))"; fi
}
# run DESC CMD...: CMD exits 0 (stderr to ./err).
run() {
    d=$1; shift
    if "$@" 2>err; then return 0; fi
    fail "$d (exit $?)"
    return 1
}
gen_seq=0
gen() { # gen FILE TYPE RECORD OFFSET N [DISTINCT]
    gen_seq=$((gen_seq + 1))
    "$REF" gen "$2" "$3" "$4" "$5" $((SEED + gen_seq)) "${6:-0}" >"$1"
}
ksize() { case $1 in *8|*8be) echo 1 ;; *16*) echo 2 ;; *32*) echo 4 ;; *) echo 8 ;; esac; }
# split_sorted FILE RECORD K PREFIX SORTCMD...: cuts FILE into K consecutive parts of whole
# records (the last part takes the rest; parts may be empty) and sorts each with SORTCMD.
split_sorted() {
    f=$1 rs=$2 kk=$3 pre=$4; shift 4
    total=$(($(wc -c <"$f") / rs))
    per=$((total / kk))
    i=0
    while [ $i -lt "$kk" ]; do
        cnt=$per
        [ $i -eq $((kk - 1)) ] && cnt=$((total - per * (kk - 1)))
        dd if="$f" bs="$rs" skip=$((i * per)) count="$cnt" 2>/dev/null | "$@" >"$pre.$(printf %03d $i)"
        i=$((i + 1))
    done
}

# ---- Runs: k sources for k = 2 .. 130, one level (fan-in 64) and several ----------------------------
gen a.bin u32 4 0 13000 700
"$REF" sort u32 4 0 <a.bin >ref.bin
for k in 1 2 3 5 17 64 65 130; do
    S=$(( (13000 + k - 1) / k * 4 ))
    if run "-S $S ($k runs)" "$CLSORT" -v -S "$S" -o out.bin a.bin; then
        if [ "$k" -gt 1 ]; then
            grep -q "^clsort: $k runs of up to" err && pass "-S $S makes $k runs" || fail "-S $S makes $k runs ($(grep runs err))"
        fi
        same "$k runs merge to the reference" out.bin ref.bin
    fi
done
# The fan-in follows the open-file limit: half of the descriptors left once the device is open,
# less a reserve of 16, at least 2 (a GPU driver holds tens of descriptors, PoCL a few): 130 runs
# through merges of at most (limit - 16 - 3) / 2 runs, and at most 64 without a limit.
for lim in 40 50 60; do
    top=$(( (lim - 19) / 2 ))
    sh -c "ulimit -n $lim && exec '$CLSORT' -v -S 400 -o out.bin a.bin" 2>err
    rc=$?
    if [ $rc -ne 0 ] && [ "$CLSORT_DEVICE" != cpu ] && grep -q "Too many open files" err; then
        # A GPU driver holds tens of descriptors (NVIDIA's about 30): under the tightest limits
        # nothing is left even for a 2-way merge's levels, and clsort must say so (one line),
        # which is what happened. PoCL (the default device here) runs every limit.
        n=$((n + 1)); echo "ok $n # skip ulimit -n $lim: the $CLSORT_DEVICE driver leaves too few descriptors ($(head -1 err))"
        continue
    fi
    if [ $rc -ne 0 ]; then
        fail "ulimit -n $lim: 130 runs (exit $rc)"
        continue
    fi
    fan=$(sed -n 's/.*merge fan-in \([0-9]*\),.*/\1/p' err)
    if [ -n "$fan" ] && [ "$fan" -ge 2 ] && [ "$fan" -le "$top" ]; then
        pass "ulimit -n $lim gives fan-in $fan (2..$top)"
    else
        fail "ulimit -n $lim gives fan-in 2..$top ($(grep fan-in err))"
    fi
    same "130 runs, fan-in $fan: the reference" out.bin ref.bin
done
if [ -z "$(ls -A tmp)" ]; then pass "no run left under TMPDIR"; else fail "no run left under TMPDIR"; fi

# ---- Runs: every key type, both directions and byte orders, duplicates across runs --------------------
for t in u32 i32 f32 u64 i64 f64 i16 f16 bf16; do
    k=$(ksize $t)
    gen t.bin $t "$k" 0 6000 300
    for dir in "" r; do
        "$REF" sort $t "$k" 0 $dir <t.bin >ref.bin
        run "$t ${dir:+-r }in 23 runs" "$CLSORT" -t $t ${dir:+-r} -S $((6000 / 23 * k + k)) -o out.bin t.bin &&
            same "$t ${dir:+-r }runs: the reference" out.bin ref.bin
    done
    "$REF" swap $t <t.bin >be.bin
    "$REF" msort "$k" "0:${t}be:r" <be.bin >ref.bin
    run "${t}be -r in runs" "$CLSORT" -t ${t}be -r -S $((6000 / 9 * k)) -o out.bin be.bin &&
        same "${t}be -r runs: the reference" out.bin ref.bin
    # Records with the key at an odd offset, 4 distinct keys: long stretches of ties across runs.
    gen rec.bin $t 21 5 5000 4
    "$REF" msort 21 "5:$t" <rec.bin >ref.bin
    run "$t records, 4 keys, in runs" "$CLSORT" -t $t -R 21 -k 5 -S 2100 -o out.bin rec.bin &&
        same "$t records with 4 distinct keys: ties in input order across 50 runs" out.bin ref.bin
    run "$t records, -s, in runs" "$CLSORT" -s -t $t -R 21 -k 5 -S 2100 -o out.bin rec.bin &&
        same "$t records with -s: the stable reference" out.bin ref.bin
done

# ---- Runs: tie-breaking keys, -u ----------------------------------------------------------------------
gen mk.bin u32 16 0 20000 6
"$REF" msort 16 0:u32 8:i64:r 4:f32 <mk.bin >ref.bin
run "three keys in runs" "$CLSORT" -R 16 --key 0:u32 --key 8:i64:r --key 4:f32 -S 8K -o out.bin mk.bin &&
    same "three keys in 40 runs: the reference" out.bin ref.bin
gen mk2.bin u64 16 0 20000 3
"$REF" msort 16 u 0:u64 12:u32be <mk2.bin >ref.bin
run "-u with two keys in runs" "$CLSORT" -u -R 16 --key 0:u64 --key 12:u32be -S 4K -o out.bin mk2.bin &&
    same "-u with two keys in runs: the first of equal records" out.bin ref.bin
gen dup.bin i32 4 0 30000 50
"$REF" msort 4 u 0:i32 <dup.bin >ref.bin
run "-u in runs" "$CLSORT" -u -t i32 -S 1K -o out.bin dup.bin && same "-u across 118 runs: one per key" out.bin ref.bin
gen dup.bin f64 12 4 30000 50
"$REF" msort 12 u 4:f64:r <dup.bin >ref.bin
run "-u -r records in runs" "$CLSORT" -u -r -t f64 -R 12 -k 4 -S 3K -o out.bin dup.bin &&
    same "-u -r records across runs: the first record of each key" out.bin ref.bin

# ---- Runs: stretches of one source (sorted, reversed, blocks) ---------------------------------------
gen s.bin u64 8 0 20000
"$REF" sort u64 8 0 <s.bin >sorted.bin
run "sorted input in runs" "$CLSORT" -t u64 -S 8K -o out.bin sorted.bin && same "sorted input in runs stays as it was" out.bin sorted.bin
"$REF" sort u64 8 0 r <s.bin >rev.bin
run "reversed input in runs" "$CLSORT" -t u64 -S 8K -o out.bin rev.bin && same "reversed input in runs: sorted" out.bin sorted.bin
run "reversed input in runs, -r" "$CLSORT" -t u64 -r -S 8K -o out.bin sorted.bin && same "sorted input, -r, in runs: reversed" out.bin rev.bin
# Sorted blocks, shuffled: each run holds a few long stretches.
split -b 16000 sorted.bin blk.
cat $(ls blk.* | sort -r) >blocks.bin
run "shuffled sorted blocks in runs" "$CLSORT" -t u64 -S 24000 -o out.bin blocks.bin && same "sorted blocks in runs: sorted" out.bin sorted.bin

# ---- Writer thread: outputs of several 4 MiB buffers -------------------------------------------------
gen big.bin u32 4 0 3000000
"$REF" sort u32 4 0 <big.bin >ref.bin
run "12 MiB in 24 runs" "$CLSORT" -S 512K -o out.bin big.bin && same "12 MiB in 24 runs: the reference" out.bin ref.bin
run "12 MiB in 24 runs to a pipe" sh -c "'$CLSORT' -S 512K -o - big.bin | cat >out.bin" && same "12 MiB to a pipe: the reference" out.bin ref.bin

# ---- -m: k files ----------------------------------------------------------------------------------
gen m.bin i64 12 4 9000 400
"$REF" sort i64 12 4 <m.bin >ref.bin
for k in 1 2 3 5 17 64 130; do
    rm -f part.*
    split_sorted m.bin 12 "$k" part "$REF" sort i64 12 4
    run "-m of $k files" "$CLSORT" -m -t i64 -R 12 -k 4 -o out.bin part.* &&
        same "-m of $k files: the stable sort of their concatenation" out.bin ref.bin
done
rm -f part.*
split_sorted big.bin 4 4 part "$REF" sort u32 4 0
"$REF" sort u32 4 0 <big.bin >ref.bin
run "-m of 4 files, 12 MiB" "$CLSORT" -m -o out.bin part.* && same "-m of 12 MiB (writer handoffs): the reference" out.bin ref.bin
run "-m -S 64K (buffers refill every 16384 records)" "$CLSORT" -m -S 64K -o out.bin part.* &&
    same "-m with 64 KiB buffers: the reference" out.bin ref.bin

# A write error in the writer thread ends the merge: exit 3, one line.
if [ -w /dev/full ]; then
    "$CLSORT" -m -o /dev/full part.* 2>err; rc=$?
    [ $rc -eq 3 ] && [ "$(wc -l <err)" -eq 1 ] && grep -q "/dev/full: write error: No space left" err &&
        pass "-m into a full device: exit 3, one line" || fail "-m into a full device (exit $rc)"
    "$CLSORT" -S 1M -o /dev/full big.bin 2>err; rc=$?
    [ $rc -eq 3 ] && [ "$(wc -l <err)" -eq 1 ] && grep -q "/dev/full: write error: No space left" err &&
        pass "runs merged into a full device: exit 3, one line" || fail "runs merged into a full device (exit $rc)"
fi

# -m: every type, both directions; duplicates across files with -u and tie-breaking keys.
for t in u32 i32 f32 u64 i64 f64 u32be f64be u8 f16 bf16be; do
    k=$(ksize $t)
    gen t.bin "${t%be}" 20 3 6000 30
    for dir in "" r; do
        rm -f part.*
        split_sorted t.bin 20 5 part "$REF" msort 20 "3:$t${dir:+:r}"
        "$REF" msort 20 "3:$t${dir:+:r}" <t.bin >ref.bin
        run "-m $t ${dir:+-r}" "$CLSORT" -m -t $t ${dir:+-r} -R 20 -k 3 -o out.bin part.* &&
            same "-m $t ${dir:+-r }records, 30 keys over 5 files: ties in file order" out.bin ref.bin
        "$REF" msort 20 u "3:$t${dir:+:r}" <t.bin >ref.bin
        run "-m -u $t ${dir:+-r}" "$CLSORT" -m -u -t $t ${dir:+-r} -R 20 -k 3 -o out.bin part.* &&
            same "-m -u $t ${dir:+-r}: the first record of each key" out.bin ref.bin
    done
done
rm -f part.*
split_sorted mk.bin 16 7 part "$REF" msort 16 0:u32 8:i64:r 4:f32
"$REF" msort 16 0:u32 8:i64:r 4:f32 <mk.bin >ref.bin
run "-m with three keys" "$CLSORT" -m -R 16 --key 0:u32 --key 8:i64:r --key 4:f32 -o out.bin part.* &&
    same "-m with three keys over 7 files: the reference" out.bin ref.bin
"$REF" msort 16 u 0:u32 8:i64:r 4:f32 <mk.bin >ref.bin
run "-m -u with three keys" "$CLSORT" -m -u -R 16 --key 0:u32 --key 8:i64:r --key 4:f32 -o out.bin part.* &&
    same "-m -u with three keys: the reference" out.bin ref.bin
# Interleaved blocks: A holds keys 0-99 and 200-299, B 100-199, so each file wins long stretches,
# and the boundaries tie.
rm -f part.*
gen il.bin u32 8 0 30000 300
"$REF" msort 8 0:u32 <il.bin >il.s
"$REF" msort 8 0:u32 <il.bin >ref.bin
dd if=il.s bs=8 count=10000 2>/dev/null >pa
dd if=il.s bs=8 skip=10000 count=10000 2>/dev/null >pb
dd if=il.s bs=8 skip=20000 2>/dev/null >>pa
run "-m of interleaved blocks" "$CLSORT" -m -R 8 -o out.bin pa pb
cat pa pb | "$REF" msort 8 0:u32 >ref2.bin
same "-m of interleaved blocks: the stable order (file A first on ties)" out.bin ref2.bin

# ---- -m: empty inputs -------------------------------------------------------------------------------
: >e1.bin; : >e2.bin
run "-m of empty files" "$CLSORT" -m -o out.bin e1.bin e2.bin && { [ -f out.bin ] && [ ! -s out.bin ] && pass "-m of empty files: an empty file" || fail "-m of empty files: an empty file"; }
rm -f part.*
split_sorted m.bin 12 3 part "$REF" sort i64 12 4
"$REF" sort i64 12 4 <m.bin >ref.bin
run "-m with empty files among others" "$CLSORT" -m -t i64 -R 12 -k 4 -o out.bin e1.bin part.000 e2.bin part.001 part.002 e1.bin &&
    same "-m with empty files among others: the reference" out.bin ref.bin
: >empty.bin
run "sort of an empty file with a small -S" "$CLSORT" -S 4 -o out.bin empty.bin && { [ ! -s out.bin ] && pass "empty input: empty output" || fail "empty input: empty output"; }

# ---- -m: the order check (exit 3, no output) --------------------------------------------------------
gen c.bin u32 4 0 40000
"$REF" sort u32 4 0 <c.bin >c.s
# Swap records 16383 and 16384: the disorder is the first record of the second 64 KiB buffer.
{ dd if=c.s bs=4 count=16383; dd if=c.s bs=4 skip=16384 count=1; dd if=c.s bs=4 skip=16383 count=1; dd if=c.s bs=4 skip=16385; } 2>/dev/null >bad.bin
if cmp -s c.s bad.bin; then
    pass "# SKIP records 16383 and 16384 are equal"
    pass "# SKIP"
else
    "$CLSORT" -m -S 64K -o bad.out c.s bad.bin 2>err; rc=$?
    if [ $rc -eq 3 ] && grep -q "bad.bin: disorder at record 16384 (byte offset 65536): --merge needs sorted inputs" err; then
        pass "-m: disorder across a buffer refill is exit 3 naming record 16384"
    else fail "-m: disorder across a buffer refill (exit $rc)"; fi
    [ ! -e bad.out ] && pass "-m with disorder writes no output" || fail "-m with disorder writes no output"
fi
"$CLSORT" -m -o bad.out c.s bad.bin 2>err; rc=$?
[ $rc -eq 3 ] && grep -q "bad.bin: disorder at record 16384 " err && pass "-m: disorder inside one buffer is exit 3 naming the record" || fail "-m: disorder inside one buffer (exit $rc)"
{ cat c.s; printf '\000\000\000\000'; } >tail.bin
"$CLSORT" -m -o bad.out c.s tail.bin 2>err; rc=$?
[ $rc -eq 3 ] && grep -q "tail.bin: disorder at record 40000 (byte offset 160000)" err && pass "-m: disorder at the last record" || fail "-m: disorder at the last record (exit $rc)"
gen mk3.bin u32 12 0 3000 5
"$REF" msort 12 0:u32 4:u32 <mk3.bin >k2.s
"$REF" msort 12 0:u32 4:u32:r <mk3.bin >k2r.s
"$CLSORT" -m -R 12 --key 0:u32 --key 4:u32 -o bad.out k2.s k2r.s 2>err; rc=$?
[ $rc -eq 3 ] && grep -q "k2r.s: disorder at record" err && pass "-m: disorder in a tie-breaking key is found" || fail "-m: disorder in a tie-breaking key (exit $rc)"
run "-m --no-check takes the same files" "$CLSORT" -m --no-check -R 12 --key 0:u32 --key 4:u32 -o bad.out k2.s k2r.s &&
    { "$REF" canon 12 <bad.out >c1; cat k2.s k2r.s | "$REF" canon 12 >c2; same "-m --no-check keeps every record" c1 c2; }
"$CLSORT" -m -r -o bad.out c.s 2>err; rc=$?
[ $rc -eq 3 ] && grep -q "c.s: disorder at record" err && pass "-m -r finds an ascending file out of order" || fail "-m -r on an ascending file (exit $rc)"

echo "1..$n"
[ "$fails" -eq 0 ] || { echo "# $fails of $n failed (seed $SEED)"; exit 1; }
echo "# all $n tests passed"
