#!/bin/sh
# test_pmerge.sh - the merge cut into parts by key ranges, one loser tree per thread, each part
# written at its offset (clsort_pmerge.c): -m over mapped files and the runs of an
# external sort, with 1 (the one loser tree), 2, 3 and 8 parts (CLSORT_CLI_MERGE_THREADS), give the
# reference's bytes: every key type both ways, records with keys at offsets, --key tie-breakers,
# records that are one key merged by the vector merge (clsort_vecmerge.c) and by the loser tree,
# many files of awkward lengths with the edge keys (the largest key is the vector merge's padding),
# equal keys across files (ties by file), files whose ranges do not overlap, empty files, a single
# file; -m's order check finds a disorder inside a part, at a part border and in a later file
# (exit 3, the record named, no output); -u, pipes and standard input keep the one-thread merge.
# TAP.   BUILD=build sh tests/test_pmerge.sh   (SEED=... replays a run's data)
set -u
BUILD=${BUILD:-build}
cd "$(dirname "$0")/.." || exit 2
case $BUILD in /*) ;; *) BUILD=$(pwd)/$BUILD ;; esac
CLSORT=$BUILD/clsort
REF=$BUILD/refsort-pm
[ -x "$CLSORT" ] || { echo "Bail out! $CLSORT not built"; exit 1; }
${CC:-cc} -std=c11 -O2 -o "$REF" tests/cli/refsort.c || { echo "Bail out! cannot build refsort"; exit 1; }
export CLSORT_DEVICE="${CLSORT_DEVICE:-cpu}"
SEED=${SEED:-$(date +%s)}
W=$(mktemp -d "${TMPDIR:-/tmp}/clsort-pm.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT HUP INT TERM
echo "# seed $SEED"
n=0 fails=0
pass() { n=$((n + 1)); echo "ok $n - $1"; }
fail() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }

# mcheck NAME REF_FILE CLSORT_ARGS...: the merge with 1, 2, 3 and 8 threads gives REF_FILE, and with
# 8 threads -v says it ran in several parts (when the input is large enough to share). The parts
# store into a mapping of the output or pwrite it (cli_writer_map decides by the file system and
# the fsync); with 3 threads both are forced (CLSORT_CLI_MAP_OUTPUT=1 and 0), and the loser tree
# in each part instead of the vector merge (CLSORT_CLI_VECTOR_MERGE=0, 3l).
mcheck() {
    name=$1 ref=$2; shift 2
    ok=1 why=""
    for th in 1 2 3 8 3m 3p 3l; do
        case $th in 3m) map=1 ;; 3p) map=0 ;; *) map= ;; esac
        vec=; [ $th = 3l ] && vec=0
        if ! CLSORT_CLI_VECTOR_MERGE=$vec CLSORT_CLI_MAP_OUTPUT=$map CLSORT_CLI_MERGE_THREADS=${th%[mpl]} "$CLSORT" -v "$@" \
            2>"$W/err.$th" || ! cmp -s "$W/out" "$ref"; then
            ok=0 why="$why threads=$th differs or failed ($(head -c 300 "$W/err.$th"))"
        fi
    done
    if [ $ok = 1 ]; then pass "$name"; else fail "$name:$why"; fi
}

# The vector merge needs AVX2 for 4-byte keys, AVX-512F for 8-byte ones; -v says which merges
# took it.
avx2=0; grep -qw avx2 /proc/cpuinfo 2>/dev/null && avx2=1
avx512=0; grep -qw avx512f /proc/cpuinfo 2>/dev/null && avx512=1
# Sorted files of every key type, both directions; 8 parts of at least 64K records need 512K.
for t in u32 i32 f32 u64 i64 f64; do
    sz=4; case $t in *64) sz=8 ;; esac
    for r in "" r; do
        ropt=""; [ -z "$r" ] || ropt=-r
        for i in 1 2 3; do
            "$REF" gen "$t" "$sz" 0 $((200000 * i)) $((SEED + i)) 5000 | "$REF" sort "$t" "$sz" 0 $r >"$W/s$i"
        done
        cat "$W/s1" "$W/s2" "$W/s3" | "$REF" sort "$t" "$sz" 0 $r >"$W/ref"
        mcheck "-m $t ${ropt:-ascending}, 3 files" "$W/ref" -m -t "$t" $ropt -o "$W/out" "$W/s1" "$W/s2" "$W/s3"
        if grep -q "in 8 parts" "$W/err.8" && grep -q "in 1 part;" "$W/err.1"; then pass "-m $t ${ropt:-ascending}: 8 parts with 8 threads, 1 with 1"
        else fail "-m $t ${ropt:-ascending}: 8 parts with 8 threads, 1 with 1 ($(grep merge "$W/err.8"))"; fi
        vm=")"; { [ $avx2 = 1 ] && [ $sz = 4 ]; } || { [ $avx512 = 1 ] && [ $sz = 8 ]; } && vm=", vector merge)"
        if grep -q "in 3 parts on as many threads (mapped inputs and output$vm" "$W/err.3m" &&
            grep -q "in 3 parts on as many threads (mapped inputs$vm;" "$W/err.3p" &&
            grep -q "in 3 parts on as many threads (mapped inputs[a-z ]*);" "$W/err.3l"; then
            pass "-m $t ${ropt:-ascending}: -v says whether the output was mapped and which merge ran"
        else fail "-m $t ${ropt:-ascending}: -v says whether the output was mapped and which merge ran ($(grep merge "$W/err.3m" "$W/err.3p" "$W/err.3l"))"; fi
    done
done
# Many files of lengths around the vector merge's 16 keys and its 512-key buffers, some empty, of
# edge keys (0, the largest, NaNs, both zeros, infinities: refsort bytes), every type both ways;
# the largest key is also the padding of the vector merge's sources.
for sz in 4 8; do
    rm -f "$W"/e*
    for i in $(seq 1 33); do
        case $i in 1) c=0 ;; 2) c=1 ;; 3) c=15 ;; 4) c=16 ;; 5) c=17 ;; 6) c=511 ;; 7) c=513 ;; 8) c=0 ;;
            *) c=$(( (i * 7919 + SEED) % 20000 + 1000 )) ;; esac
        "$REF" bytes $((c * sz)) $((SEED + 100 + i)) 6 >"$W/e$i.raw"
    done
    types="u32 i32 f32"; [ $sz = 8 ] && types="u64 i64 f64"
    for t in $types; do
        for r in "" r; do
            ropt=""; [ -z "$r" ] || ropt=-r
            files=""
            for i in $(seq 1 33); do
                "$REF" sort "$t" $sz 0 $r <"$W/e$i.raw" >"$W/e$i"; files="$files $W/e$i"
            done
            # shellcheck disable=SC2086
            cat $files | "$REF" sort "$t" $sz 0 $r >"$W/ref"
            # shellcheck disable=SC2086
            mcheck "-m $t ${ropt:-ascending}, 33 files of 0 to 21000 edge keys" "$W/ref" -m -t "$t" $ropt -o "$W/out" $files
        done
    done
done
# Records of 24 bytes, an i64 key at offset 4, and few distinct keys: ties across files come out
# in the order of the files (each reference input is file 1's records, then file 2's, ...).
"$REF" gen i64 24 4 300000 $((SEED + 10)) 40 | "$REF" sort i64 24 4 >"$W/r1"
"$REF" gen i64 24 4 400000 $((SEED + 11)) 40 | "$REF" sort i64 24 4 >"$W/r2"
cat "$W/r1" "$W/r2" | "$REF" sort i64 24 4 >"$W/ref"
mcheck "-m records of 24 bytes, key at offset 4, 40 distinct keys (ties by file)" "$W/ref" \
    -m -t i64 -R 24 -k 4 -o "$W/out" "$W/r1" "$W/r2"
# --key tie-breakers.
"$REF" gen u32 16 0 300000 $((SEED + 12)) 30 | "$REF" msort 16 0:u32 8:i64:r >"$W/k1"
"$REF" gen u32 16 0 300000 $((SEED + 13)) 30 | "$REF" msort 16 0:u32 8:i64:r >"$W/k2"
cat "$W/k1" "$W/k2" | "$REF" msort 16 0:u32 8:i64:r >"$W/ref"
mcheck "-m --key 0:u32 --key 8:i64:r" "$W/ref" -m -R 16 --key 0:u32 --key 8:i64:r -o "$W/out" "$W/k1" "$W/k2"
# Files whose key ranges do not overlap (the parts must come from both), an empty file, one file.
"$REF" gen u32 4 0 600000 $((SEED + 14)) 0 | "$REF" sort u32 4 0 >"$W/all"
head -c 1200000 "$W/all" >"$W/lo"; tail -c +1200001 "$W/all" >"$W/hi"; : >"$W/empty"
mcheck "-m of files that do not overlap (given high first), and an empty one" "$W/all" \
    -m -o "$W/out" "$W/hi" "$W/empty" "$W/lo"
mcheck "-m of one file" "$W/all" -m -o "$W/out" "$W/all"
# The runs of an external sort: -S makes 10 runs of 64K records, merged in parts.
"$REF" gen u32 4 0 655360 $((SEED + 15)) 0 >"$W/in"
"$REF" sort u32 4 0 <"$W/in" >"$W/ref"
mcheck "an external sort's runs (-S 256K)" "$W/ref" -S 256K -o "$W/out" "$W/in"
"$REF" gen f64 16 8 400000 $((SEED + 16)) 100 >"$W/in"
"$REF" sort f64 16 8 r <"$W/in" >"$W/ref"
mcheck "an external sort's runs, 16-byte records, f64 descending, many ties (-S 1M)" "$W/ref" \
    -S 1M -s -t f64 -r -R 16 -k 8 -o "$W/out" "$W/in"
# The order check, in the second file: a record out of order at several places (inside parts, near
# their borders, one before the end).
for where in 100000 299999 450000 599998; do
    cp "$W/all" "$W/bad"
    printf '\377\377\377\377' | dd of="$W/bad" bs=4 seek=$where conv=notrunc 2>/dev/null
    for t in 1 2 8 8m; do
        rm -f "$W/out"
        map=; [ $t = 8m ] && map=1 # the mapped output abandoned
        CLSORT_CLI_MAP_OUTPUT=$map CLSORT_CLI_MERGE_THREADS=${t%m} "$CLSORT" -m -o "$W/out" "$W/lo" "$W/bad" 2>"$W/err"; rc=$?
        if [ $rc = 3 ] && grep -q "bad: disorder at record $((where + 1)) " "$W/err" && [ ! -e "$W/out" ] &&
            [ -z "$(ls -A "$W" | grep clsort-)" ]; then
            pass "-m order check, threads=$t: disorder after record $where found (exit 3, no output)"
        else fail "-m order check, threads=$t: disorder after record $where (rc $rc: $(cat "$W/err"))"; fi
    done
done
if CLSORT_CLI_MERGE_THREADS=8 "$CLSORT" -m --no-check -o "$W/out" "$W/lo" "$W/hi" && cmp -s "$W/out" "$W/all"; then
    pass "-m --no-check in parts"
else fail "-m --no-check in parts"; fi
# -u, a pipe and standard input take the one-thread merge (a part's size is not known before it is
# merged, or the output cannot be written at offsets): still the reference's bytes.
cat "$W/s1" "$W/s2" | "$REF" sort f64 8 0 r >/dev/null
"$REF" gen u32 4 0 300000 $((SEED + 17)) 1000 | "$REF" sort u32 4 0 >"$W/u1"
"$REF" gen u32 4 0 300000 $((SEED + 18)) 1000 | "$REF" sort u32 4 0 >"$W/u2"
cat "$W/u1" "$W/u2" | "$REF" msort 4 u 0:u32 >"$W/ref"
if CLSORT_CLI_MERGE_THREADS=8 "$CLSORT" -v -m -u -o "$W/out" "$W/u1" "$W/u2" 2>"$W/err" && cmp -s "$W/out" "$W/ref" &&
    grep -q "in 1 part;" "$W/err"; then pass "-m -u: one loser tree, same bytes"
else fail "-m -u: one loser tree, same bytes"; fi
cat "$W/u1" "$W/u2" | "$REF" sort u32 4 0 >"$W/ref"
if CLSORT_CLI_MERGE_THREADS=8 "$CLSORT" -m -o - "$W/u1" "$W/u2" | cmp -s - "$W/ref" &&
    CLSORT_CLI_MERGE_THREADS=8 "$CLSORT" -m -o "$W/out" - "$W/u2" <"$W/u1" && cmp -s "$W/out" "$W/ref"; then
    pass "-m to a pipe and from standard input: same bytes"
else fail "-m to a pipe and from standard input: same bytes"; fi
# A write past the file-size limit in the parts (and in the one-thread merge): exit 3, one line,
# no output and no temporary file (the signal the kernel sends the writing thread is blocked).
mkdir "$W/lim"
for th in 1 4 4m; do # 4m: the mapping is declined past the limit, the pwrites report it
    map=; [ $th = 4m ] && map=1
    ( ulimit -f 1000 2>/dev/null || exit 9; CLSORT_CLI_MAP_OUTPUT=$map CLSORT_CLI_MERGE_THREADS=${th%m} exec "$CLSORT" -m -o "$W/lim/out" "$W/lo" "$W/hi" ) 2>"$W/err"; rc=$?
    if [ $rc = 9 ]; then n=$((n + 1)); echo "ok $n # SKIP ulimit -f is not available"; continue; fi
    if [ $rc = 3 ] && [ "$(wc -l <"$W/err")" = 1 ] && grep -q "write error" "$W/err" && [ -z "$(ls -A "$W/lim")" ]; then
        pass "-m past ulimit -f, threads=$th: exit 3, one line, nothing left"
    else fail "-m past ulimit -f, threads=$th: exit 3 (got $rc: $(cat "$W/err")), one line, nothing left ($(ls -A "$W/lim"))"; fi
done
echo "1..$n"
[ "$fails" = 0 ]
