#!/bin/sh
# test_mpi.sh - clsort-mpi (docs/distributed.md) under mpirun on this machine: 1 to 4 ranks on
# PoCL, compared byte for byte with `clsort -s` of the same file; edge sizes (0, 1, N-1 records),
# sorted, reversed, skewed and all-equal keys, records with keys at an offset, tiny I/O and
# exchange pieces (many rounds), the balance of equal keys, and failures that must end every rank
# with the documented code, one line on stderr and no output. TAP; "# SKIP" without MPI.
#
# Environment: BUILD (default build); CLSORT_DEVICE (default cpu); SEED to replay the data.
# Small files only: every rank starts PoCL, which costs about a second on 2 cores.
set -u

BUILD=${BUILD:-build}
cd "$(dirname "$0")/.." || exit 2
case $BUILD in /*) ;; *) BUILD=$(pwd)/$BUILD ;; esac
export CLSORT_DEVICE="${CLSORT_DEVICE:-cpu}"
SEED=${SEED:-$(date +%s)}
MPI=$BUILD/clsort-mpi
CLSORT=$BUILD/clsort
REF=$BUILD/refsort-mpi

skip() { echo "ok 1 # SKIP $1"; echo "1..1"; exit 0; }
# Under make check-sanitize the ranks would be ASan programs inside Open MPI, whose own
# allocations (not instrumented, kept until exit) LeakSanitizer reports; the MPI tests run in
# make test only.
[ -z "${CLSORT_TEST_SAN:-}" ] || skip "sanitizer build (CLSORT_TEST_SAN): Open MPI's own allocations are not ours to check"
command -v mpirun >/dev/null 2>&1 || skip "no mpirun (Debian: openmpi-bin)"
command -v mpicc >/dev/null 2>&1 || skip "no mpicc (Debian: libopenmpi-dev)"
[ -x "$MPI" ] || skip "$MPI not built (make builds it when mpicc is on PATH)"
[ -x "$CLSORT" ] || { echo "Bail out! $CLSORT not built (run make)"; exit 1; }
${CC:-cc} -std=c11 -O2 -o "$REF" tests/cli/refsort.c || { echo "Bail out! cannot build refsort"; exit 1; }

# Open MPI refuses root unless told, and there are more ranks than cores here.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
# mpirun loads OpenCL itself (hwloc), and a driver may rewrite the ICD loader's variables in its
# environment before the ranks start (seen on the GPU machine: OCL_ICD_FILENAMES lost NVIDIA's
# library, so the ranks saw no GPU). -x hands the ranks the values this script has.
# The values are spelled out (-x VAR=value): a bare -x VAR would read mpirun's own, already
# rewritten environment. (Values with spaces are not supported here.)
MPI_X=""
[ -n "${OCL_ICD_FILENAMES+x}" ] && MPI_X="$MPI_X -x OCL_ICD_FILENAMES=$OCL_ICD_FILENAMES"
[ -n "${OCL_ICD_VENDORS+x}" ] && MPI_X="$MPI_X -x OCL_ICD_VENDORS=$OCL_ICD_VENDORS"
# No hang may stall the suite: every job gets a time limit.
run_mpi() { # run_mpi N ARGS...: stdout to out, stderr to err, status in $rc
    np=$1; shift
    timeout 120 mpirun --oversubscribe $MPI_X -n "$np" "$MPI" "$@" >out 2>err
    rc=$?
}

W=$(mktemp -d "${TMPDIR:-/tmp}/clsort-mpi.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT HUP INT TERM
cd "$W" || exit 1

n=0
fails=0
echo "# seed $SEED (replay with SEED=$SEED), device $CLSORT_DEVICE"
pass() { n=$((n + 1)); echo "ok $n - $1"; }
fail() {
    n=$((n + 1)); fails=$((fails + 1))
    echo "not ok $n - $1"
    [ -s err ] && sed 's/^/#   /' err | head -20
}
seq_seed=0
gen() { # gen FILE TYPE RECORD OFFSET N [DISTINCT]
    seq_seed=$((seq_seed + 1))
    "$REF" gen "$2" "$3" "$4" "$5" $((SEED + seq_seed)) "${6:-0}" >"$1"
}

# same_as_clsort DESC NP FILE OPTIONS...: clsort-mpi -o m.out equals clsort -s -o c.out.
same_as_clsort() {
    desc=$1 np=$2 file=$3; shift 3
    rm -f m.out c.out
    if ! "$CLSORT" -s "$@" -o c.out "$file" 2>err; then
        fail "$desc (clsort itself failed)"
        return
    fi
    run_mpi "$np" "$@" -o m.out "$file"
    if [ "$rc" != 0 ]; then
        fail "$desc (exit status $rc)"
    elif ! cmp -s m.out c.out; then
        fail "$desc (output differs from clsort -s)"
    else
        pass "$desc"
    fi
}

# ---- Ranks and sizes ---------------------------------------------------------------------------
gen rand.bin u32 4 0 5000
for np in 1 2 3 4; do
    same_as_clsort "$np rank(s): 5000 random u32 keys, -s" "$np" rand.bin -s
done
: >empty.bin
same_as_clsort "4 ranks: empty file" 4 empty.bin
gen one.bin u64 8 0 1
same_as_clsort "4 ranks: 1 record" 4 one.bin -t u64
gen three.bin i32 4 0 3
same_as_clsort "4 ranks: N-1 = 3 records" 4 three.bin -t i32 -s
gen five.bin f32 4 0 5
same_as_clsort "4 ranks: N+1 = 5 records (f32 specials)" 4 five.bin -t f32 -s

# ---- Distributions -----------------------------------------------------------------------------
gen dup.bin u32 4 0 6000 20
"$CLSORT" -s -o sorted.bin dup.bin && "$CLSORT" -s -r -o reversed.bin dup.bin
same_as_clsort "3 ranks: sorted input" 3 sorted.bin -s
same_as_clsort "3 ranks: reversed input" 3 reversed.bin -s
gen same.bin u32 4 0 5400 1
gen few.bin u32 4 0 600
cat same.bin few.bin >skewed.bin
same_as_clsort "3 ranks: skewed keys (90% one value)" 3 skewed.bin -s
same_as_clsort "3 ranks: descending i64 with duplicates" 3 dup.bin -t i32 -r -s

# Equal keys split by position: every rank gets about n/N records. 16-byte records whose u32 key
# is at offset 4 are all distinct bytes, so the result also shows the order of the ties.
gen eq.bin u32 16 4 8000 1
same_as_clsort "4 ranks: all-equal keys in records keep input order" 4 eq.bin -R 16 -k 4 -s
run_mpi 4 -v -R 16 -k 4 -s -o m.out eq.bin
counts=$(sed -n 's/.*records per rank after the exchange:\([0-9 ]*\).*/\1/p' err)
balanced=yes
set -- $counts
[ $# = 4 ] || balanced=no
for c in "$@"; do
    [ "$c" -ge 1999 ] && [ "$c" -le 2001 ] || balanced=no
done
if [ "$rc" = 0 ] && [ $balanced = yes ]; then
    pass "all-equal keys: 4 ranks get 2000 records each ($counts)"
else
    fail "all-equal keys: 4 ranks get 2000 records each (got '$counts', status $rc)"
fi
gen sk.bin u32 4 0 8000 2
run_mpi 4 -v -o m.out sk.bin
counts=$(sed -n 's/.*records per rank after the exchange:\([0-9 ]*\).*/\1/p' err)
balanced=yes
set -- $counts
[ $# = 4 ] || balanced=no
for c in "$@"; do
    [ "$c" -ge 1800 ] && [ "$c" -le 2200 ] || balanced=no
done
if [ "$rc" = 0 ] && [ $balanced = yes ]; then
    pass "two key values: 4 ranks get about 2000 records each ($counts)"
else
    fail "two key values: 4 ranks get about 2000 records each (got '$counts', status $rc)"
fi

# ---- Records, offsets, types -------------------------------------------------------------------
gen rec.bin i64 20 5 3000 300
same_as_clsort "3 ranks: i64 keys at offset 5 of 20-byte records, -s" 3 rec.bin -t i64 -R 20 -k 5 -s
gen recf.bin f64 12 3 2000 50
same_as_clsort "2 ranks: f64 keys at offset 3 of 12-byte records, -r -s" 2 recf.bin -t f64 -R 12 -k 3 -r -s
gen recu.bin u32 7 1 2500 40
rm -f m.out
run_mpi 3 -R 7 -k 1 -o m.out recu.bin
if [ "$rc" = 0 ] && "$CLSORT" -c -R 7 -k 1 m.out && [ "$("$REF" canon 7 <m.out | cksum)" = "$("$REF" canon 7 <recu.bin | cksum)" ]; then
    pass "3 ranks without -s: a sorted permutation of the records"
else
    fail "3 ranks without -s: a sorted permutation of the records (status $rc)"
fi

# Pieces of 40 bytes: reads, the exchange and writes all take many rounds, and ranks with nothing
# left in a round still join it.
CLSORT_MPI_PIECE=40 same_as_clsort "3 ranks, 40-byte pieces: many rounds of I/O and exchange" 3 rec.bin -t i64 -R 20 -k 5 -s
CLSORT_MPI_PIECE=1 same_as_clsort "2 ranks, 1-byte pieces (one record a round)" 2 three.bin -t i32 -s

# As clsort: without -o the input is never written (exit 2, "use -o FILE"); -o naming it sorts
# it in place.
cp rand.bin inplace.bin
"$CLSORT" -s -o c.out rand.bin
run_mpi 3 -s inplace.bin
if [ "$rc" = 2 ] && grep -q "use -o FILE" err && [ "$(grep -c '^clsort-mpi:.*use -o FILE' err)" = 1 ] &&
    cmp -s inplace.bin rand.bin && [ "$(ls -A | grep -c clsort-)" = 0 ]; then
    pass "3 ranks, no -o: refused (exit 2, 'use -o FILE'), the input untouched"
else fail "3 ranks, no -o: refused (exit 2, 'use -o FILE'), the input untouched (status $rc)"; fi
run_mpi 3 -s -o inplace.bin inplace.bin
if [ "$rc" = 0 ] && cmp -s inplace.bin c.out; then pass "3 ranks: -o naming the input sorts it in place"
else fail "3 ranks: -o naming the input sorts it in place (status $rc)"; fi

# SIGTERM (mpirun passes it to every rank): each line names clsort-mpi and says whether the output
# was complete. Rank 0 is held at a FIFO (CLSORT_TEST_MPI_PAUSE_*) at the moment under test.
sigterm_at() { # sigterm_at VARIABLE: runs 2 ranks held there, sends SIGTERM; status in $rc
    rm -f t.out t.fifo; mkfifo t.fifo
    env "$1=$W/t.fifo" mpirun --oversubscribe $MPI_X -x "$1=$W/t.fifo" -n 2 "$MPI" -o t.out rand.bin \
        >out 2>err &
    mpid=$!
    exec 3>t.fifo # returns once rank 0 waits at the FIFO
    kill -s TERM $mpid
    ( sleep 60; kill -s KILL $mpid 2>/dev/null ) &
    guard=$!
    wait $mpid
    rc=$?
    exec 3>&-
    kill $guard 2>/dev/null
}
sigterm_at CLSORT_TEST_MPI_PAUSE_BEFORE_RENAME
if grep -q "interrupted" err && ! grep -q "^clsort:" err &&
    grep "interrupted" err | grep -v -q "^clsort-mpi" ; then
    fail "SIGTERM before the rename: every line names clsort-mpi"
elif grep -q "^clsort-mpi.*interrupted by SIGTERM before the output was complete" err &&
    [ ! -e t.out ] && [ "$(ls -A | grep -c clsort-)" = 0 ]; then
    pass "SIGTERM before the rename: clsort-mpi says the output is not complete; none, no temporary file"
else fail "SIGTERM before the rename: clsort-mpi says the output is not complete (status $rc)"; fi
sigterm_at CLSORT_TEST_MPI_PAUSE_AFTER_OUTPUT
if grep -q "^clsort-mpi.*interrupted by SIGTERM after the output was complete: t.out holds the whole result" err &&
    ! grep -q "before the output was complete\|^clsort:" err && cmp -s t.out c.out; then
    pass "SIGTERM after the rename: clsort-mpi says the output is complete, and it is"
else fail "SIGTERM after the rename: clsort-mpi says the output is complete (status $rc)"; fi

# ---- Failures: every rank exits with the code, one line says why, nothing is written -----------
# expect_fail CODE PATTERN DESC NP ARGS...
expect_fail() {
    code=$1 pat=$2 desc=$3 np=$4; shift 4
    run_mpi "$np" "$@"
    # A rank still finishing when mpirun ends the job after the others' exit gets SIGTERM and
    # says so: not a second reason.
    lines=$(grep '^clsort-mpi:' err | grep -vc 'interrupted by SIGTERM')
    if [ "$rc" != "$code" ]; then
        fail "$desc (exit status $rc, expected $code)"
    elif [ "$lines" != 1 ]; then
        fail "$desc ($lines clsort-mpi lines on stderr, expected 1)"
    elif ! grep -q -e "$pat" err; then
        fail "$desc (stderr does not match '$pat')"
    else
        pass "$desc"
    fi
}
mkdir fdir
expect_fail 3 "missing.bin: cannot open input" "missing input: status 3 on every rank" 3 -o fdir/x missing.bin
printf 'abcdefg' >ragged.bin
expect_fail 3 "not a multiple of the record size 4" "ragged input: status 3" 3 -o fdir/x ragged.bin
expect_fail 4 "rank 1: no OpenCL device matches 'no-such-device'" \
    "one rank without its device: status 4 from all, its line only" 2 -d "$CLSORT_DEVICE,no-such-device" -o fdir/x rand.bin
expect_fail 2 "unknown option '--frobnicate'" "usage error: status 2, one line" 3 --frobnicate rand.bin
expect_fail 2 "not standard input" "standard input refused" 2 -
expect_fail 3 "no/such/dir/x: cannot create temporary output" "output in a missing directory" 2 -o no/such/dir/x rand.bin
if [ -z "$(ls -A fdir)" ]; then pass "failures leave no output and no temporary file"
else fail "failures leave no output and no temporary file (fdir: $(ls -A fdir))"; fi
run_mpi 2 --help
if [ "$rc" = 0 ] && [ "$(grep -c '^Usage: mpirun' out)" = 1 ]; then pass "--help: printed once, status 0"
else fail "--help: printed once, status 0"; fi

echo "1..$n"
[ "$fails" = 0 ]
