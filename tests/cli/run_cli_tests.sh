#!/bin/sh
# run_cli_tests.sh - tests of the clsort command line (like zstd's cli-tests): every option, exit
# code and error message, results compared byte for byte with a reference sort (refsort.c: qsort
# with the documented order), and interrupts. TAP-like output; exits non-zero on any failure.
#
#   BUILD=build sh tests/cli/run_cli_tests.sh        (from the repository root)
#   SEED=1234 ...                                    replays the data of an earlier run
#
# Small files only (a few MiB at most): it runs in about a minute on 2 cores with PoCL.
set -u

BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$(pwd)/$BUILD ;; esac
CLSORT=$BUILD/clsort
REF=$BUILD/refsort
SRCDIR=$(cd "$(dirname "$0")" && pwd)
export CLSORT_DEVICE="${CLSORT_DEVICE:-cpu}"
SEED=${SEED:-$(date +%s)}
unset TMPDIR_OVERRIDE

if [ ! -x "$CLSORT" ]; then
    echo "Bail out! $CLSORT not built (run make)"
    exit 1
fi
${CC:-cc} -std=c11 -O2 -o "$REF" "$SRCDIR/refsort.c" || { echo "Bail out! cannot build refsort"; exit 1; }

W=$(mktemp -d "${TMPDIR:-/tmp}/clsort-cli.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT HUP INT TERM
cd "$W" || exit 1
mkdir tmp
export TMPDIR="$W/tmp"

n=0
fails=0
echo "# seed $SEED (replay with SEED=$SEED), device ${CLSORT_DEVICE}"

pass() { n=$((n + 1)); echo "ok $n - $1"; }
fail() {
    n=$((n + 1)); fails=$((fails + 1))
    echo "not ok $n - $1"
    if [ -s err ]; then sed 's/^/#   stderr: /' err | head -5; fi
}

# expect CODE DESC CMD...: runs CMD (stdout to ./out, stderr to ./err) and checks the exit code.
expect() {
    want=$1; desc=$2; shift 2
    "$@" >out 2>err
    got=$?
    if [ "$got" -eq "$want" ]; then pass "$desc"; else fail "$desc (exit $got, expected $want)"; fi
}

# expect_err CODE PATTERN DESC CMD...: also one line on stderr that matches PATTERN.
expect_err() {
    want=$1; pat=$2; desc=$3; shift 3
    "$@" >out 2>err
    got=$?
    lines=$(wc -l <err | tr -d ' ')
    if [ "$got" -ne "$want" ]; then
        fail "$desc (exit $got, expected $want)"
    elif [ "$lines" -ne 1 ]; then
        fail "$desc (stderr has $lines lines, expected 1)"
    elif ! grep -q -e "$pat" err; then
        fail "$desc (stderr does not match '$pat')"
    else
        pass "$desc"
    fi
}

# check DESC CONDITION...: a plain assertion.
check() {
    desc=$1; shift
    if "$@"; then pass "$desc"; else fail "$desc"; fi
}

same() { cmp -s "$1" "$2"; }
ksize() { case $1 in *32) echo 4 ;; *) echo 8 ;; esac; }
seq_seed=0
gen() { # gen FILE TYPE RECORD OFFSET N [DISTINCT]
    seq_seed=$((seq_seed + 1))
    "$REF" gen "$2" "$3" "$4" "$5" $((SEED + seq_seed)) "${6:-0}" >"$1"
}
no_temp_left() { # no_temp_left DIR EXPECTED-NAMES...: DIR holds exactly those names
    d=$1; shift
    [ "$(ls -A "$d" | sort | tr '\n' ' ')" = "$(printf '%s\n' "$@" | sed '/^$/d' | sort | tr '\n' ' ')" ]
}

# ---- Help, version, usage errors (exit 2) -------------------------------------------------------
expect 0 "--help exits 0" "$CLSORT" --help
check "--help prints usage on stdout" grep -q "Usage: clsort" out
expect 0 "-h exits 0" "$CLSORT" -h
expect 0 "--version exits 0" "$CLSORT" --version
check "--version names the version" grep -q "clsort [0-9][0-9.]*" out
expect 0 "-V exits 0" "$CLSORT" -V

printf 'abcd' >one.bin
expect_err 2 "unknown option '--frobnicate'" "unknown long option is a usage error" "$CLSORT" --frobnicate one.bin
expect_err 2 "unknown option '-x'" "unknown short option is a usage error" "$CLSORT" -x one.bin
expect_err 2 "invalid type 'u16'" "bad type is a usage error" "$CLSORT" -t u16 one.bin
expect_err 2 "invalid algorithm 'quick'" "bad algorithm is a usage error" "$CLSORT" -a quick one.bin
expect_err 2 "invalid number 'abc'" "bad record size is a usage error" "$CLSORT" -R abc one.bin
expect_err 2 "record size" "record size 0 is a usage error" "$CLSORT" -R 0 one.bin
expect_err 2 "invalid number '-1'" "negative key offset is a usage error" "$CLSORT" -k -1 one.bin
expect_err 2 "invalid buffer size '12X'" "bad buffer size is a usage error" "$CLSORT" -S 12X one.bin
expect_err 2 "invalid buffer size '0'" "buffer size 0 is a usage error" "$CLSORT" -S 0 one.bin
expect_err 2 "key beyond the record" "key past the end of the record" "$CLSORT" -R 6 -k 3 one.bin
expect_err 2 "key beyond the record" "u64 key in 4-byte records" "$CLSORT" -t u64 -R 4 one.bin
expect_err 2 "key beyond the record" "offset past the record" "$CLSORT" -R 8 -k 100 one.bin
expect_err 2 "requires an argument" "missing option argument" "$CLSORT" one.bin -t
expect_err 2 "extra operand 'two.bin'" "two files is a usage error" "$CLSORT" one.bin two.bin
expect_err 2 "cannot be used with --output" "--check with --output is a usage error" "$CLSORT" -c -o x one.bin
check "usage errors write nothing" no_temp_left . one.bin out err tmp
expect 0 "sizes take K/M/G suffixes" "$CLSORT" -S 1K -o - one.bin
expect 0 "sizes take KiB" "$CLSORT" --buffer-size=2KiB -o - one.bin

# ---- Input and output errors (exit 3) -----------------------------------------------------------
expect_err 3 "missing.bin: cannot open input: No such file" "missing input" "$CLSORT" missing.bin
mkdir adir
expect_err 3 "adir: .*Is a directory" "directory as input" "$CLSORT" adir
printf 'abcdefg' >ragged.bin
cp ragged.bin ragged.orig
expect_err 3 "ragged.bin: size 7 is not a multiple of the record size 4" "ragged input refused" "$CLSORT" ragged.bin
check "ragged input left as it was" same ragged.bin ragged.orig
expect_err 3 "not a multiple of the record size 4" "ragged input refused with -o" "$CLSORT" -o r.out ragged.bin
check "ragged input creates no output" test ! -e r.out
expect_err 3 "standard input: size 7 is not a multiple" "ragged standard input refused" sh -c "cat ragged.bin | '$CLSORT'"
check "ragged standard input writes nothing" test ! -s out
expect_err 3 "not a multiple of the record size 6" "ragged with -R refused" "$CLSORT" -R 6 -c one.bin
expect_err 3 "no/such/dir/out.bin: cannot create temporary output" "output in a missing directory" "$CLSORT" -o no/such/dir/out.bin one.bin
expect_err 3 "adir: cannot write output: Is a directory" "directory as output" "$CLSORT" -o adir one.bin
if [ -w /dev/full ]; then
    gen full.bin u32 4 0 1000
    expect_err 3 "/dev/full: write error: No space left on device" "disk full is an I/O error" "$CLSORT" -o /dev/full full.bin
fi
if [ "$(id -u)" != 0 ]; then
    printf 'abcd' >noread.bin; chmod 000 noread.bin
    expect_err 3 "noread.bin: cannot open input: Permission denied" "unreadable input" "$CLSORT" noread.bin
    chmod 600 noread.bin
    mkdir rodir; chmod 555 rodir
    expect_err 3 "rodir/out.bin: cannot create temporary output" "output in a read-only directory" "$CLSORT" -o rodir/out.bin one.bin
    printf 'abcd' >ro.bin; chmod 444 ro.bin
    expect_err 3 "ro.bin: output not writable" "read-only output file" "$CLSORT" ro.bin
    chmod 755 rodir
else
    echo "# skipping permission tests: running as root"
fi
gen big.bin u32 4 0 20000
expect_err 3 "cannot create a temporary run" "-T in a missing directory (external sort)" "$CLSORT" -S 4K -T "$W/nope" -o big.out big.bin
check "failed external sort leaves no output" test ! -e big.out

# ---- Device errors (exit 4) ---------------------------------------------------------------------
expect_err 4 "no OpenCL device matches 'no-such-device-xyz'" "unknown device" "$CLSORT" -d no-such-device-xyz -o - one.bin
expect_err 4 "no OpenCL device matches" "unknown device in CLSORT_DEVICE" env CLSORT_DEVICE=no-such-device-xyz "$CLSORT" -o - one.bin
expect_err 4 "no OpenCL device matches '9:9'" "device index out of range" "$CLSORT" -d 9:9 -o - one.bin

# ---- Devices and cache --------------------------------------------------------------------------
expect 0 "--list-devices exits 0" "$CLSORT" --list-devices
check "--list-devices shows P:D and a default marker" grep -Eq "^[0-9]+:[0-9]+ \\*" out
check "--list-devices shows type, compute units and memory" grep -q "compute units" out
check "--list-devices shows the config source" grep -q "config " out
expect 0 "-d 0:0 works" "$CLSORT" -d 0:0 -o - one.bin
mkdir cache
: >cache/a.clbin; : >cache/b.clbin; : >cache/c.tmp; : >cache/keep.txt
expect 0 "--clear-cache exits 0" env CLSORT_CACHE_DIR="$W/cache" "$CLSORT" --clear-cache
check "--clear-cache reports how many" grep -q "removed 3 cached programs" out
check "--clear-cache removes only cache files" no_temp_left cache keep.txt
expect 0 "--clear-cache on a missing directory" env CLSORT_CACHE_DIR="$W/nocache" "$CLSORT" --clear-cache
check "--clear-cache follows XDG_CACHE_HOME" sh -c "mkdir -p xdg/clsort && : >xdg/clsort/x.clbin &&
    env -u CLSORT_CACHE_DIR XDG_CACHE_HOME='$W/xdg' '$CLSORT' --clear-cache | grep -q 'removed 1 ' && test ! -e xdg/clsort/x.clbin"

# ---- Sorting: all types, both directions, against the reference ---------------------------------
for t in u32 i32 f32 u64 i64 f64; do
    k=$(ksize $t)
    gen in.bin $t "$k" 0 30000
    for dir in "" r; do
        "$REF" sort $t "$k" 0 $dir <in.bin >ref.bin
        expect 0 "sort $t ${dir:+-r }exits 0" "$CLSORT" -t $t ${dir:+-r} -o out.bin in.bin
        check "sort $t ${dir:+-r }matches the reference" same out.bin ref.bin
    done
    gen dup.bin $t "$k" 0 30000 7
    "$REF" sort $t "$k" 0 <dup.bin >ref.bin
    "$CLSORT" -t $t -o out.bin dup.bin 2>err
    check "sort $t with many equal keys (and both zeros for floats)" same out.bin ref.bin
done

for a in auto bitonic odd-even-merge odd-even-transposition; do
    gen in.bin i32 4 0 3000
    "$REF" sort i32 4 0 <in.bin >ref.bin
    expect 0 "-a $a exits 0" "$CLSORT" -t i32 -a $a -o out.bin in.bin
    check "-a $a matches the reference" same out.bin ref.bin
done

# ---- Records with keys at offsets: stable and not -------------------------------------------------
for spec in "u32 7 3" "i32 12 8" "f32 5 1" "u64 16 8" "i64 9 1" "f64 24 13"; do
    set -- $spec
    t=$1; r=$2; o=$3
    gen in.bin $t "$r" "$o" 20000 50
    for dir in "" r; do
        "$REF" sort $t "$r" "$o" $dir <in.bin >ref.bin
        expect 0 "-t $t -R $r -k $o ${dir:+-r }--stable exits 0" "$CLSORT" -t $t -R "$r" -k "$o" ${dir:+-r} -s -o out.bin in.bin
        check "-t $t -R $r -k $o ${dir:+-r }--stable matches the stable reference" same out.bin ref.bin
        "$CLSORT" -t $t -R "$r" -k "$o" ${dir:+-r} -o out.bin in.bin 2>err
        "$REF" keys $t "$r" "$o" <out.bin >keys.out
        "$REF" keys $t "$r" "$o" <ref.bin >keys.ref
        "$REF" canon "$r" <out.bin >canon.out
        "$REF" canon "$r" <in.bin >canon.in
        check "-t $t -R $r -k $o ${dir:+-r }(not stable): keys in order, records a permutation" \
            sh -c "cmp -s keys.out keys.ref && cmp -s canon.out canon.in"
    done
done

# ---- Destinations: in place, -o, standard streams -----------------------------------------------
gen in.bin u32 4 0 10000
"$REF" sort u32 4 0 <in.bin >ref.bin
cp in.bin place.bin; chmod 640 place.bin
expect 0 "in-place sort exits 0" "$CLSORT" place.bin
check "in-place sort replaces the file with the sorted records" same place.bin ref.bin
check "in-place sort keeps the file's mode" sh -c "ls -l place.bin | grep -q '^-rw-r-----'"
check "in-place sort leaves no temporary file" sh -c "! ls -A | grep -q '^\\.place\\.bin\\.clsort-'"
ln -s place.bin link.bin; cp in.bin place.bin
expect 0 "sorting through a symbolic link" "$CLSORT" link.bin
check "the link still is a link to the sorted file" sh -c "test -L link.bin && cmp -s place.bin ref.bin"
rm -f link.bin
expect 0 "sort standard input to standard output" sh -c "cat in.bin | '$CLSORT' > piped.bin"
check "standard streams give the sorted records" same piped.bin ref.bin
expect 0 "FILE - reads standard input" sh -c "'$CLSORT' - < in.bin > piped.bin"
check "FILE - gives the sorted records" same piped.bin ref.bin
expect 0 "-o - writes standard output" sh -c "'$CLSORT' -o - in.bin > piped.bin"
check "-o - gives the sorted records and leaves FILE alone" sh -c "cmp -s piped.bin ref.bin && ! cmp -s in.bin ref.bin"
echo old >dest.bin
expect 0 "-o replaces an existing file" "$CLSORT" -o dest.bin in.bin
check "-o gives the sorted records" same dest.bin ref.bin
expect 0 "--output=FILE same as the input" "$CLSORT" --output=in2.bin in.bin
cp in.bin same.bin
expect 0 "-o FILE equal to the input" "$CLSORT" -o same.bin same.bin
check "-o FILE equal to the input sorts it" same same.bin ref.bin
expect 0 "-o /dev/null" "$CLSORT" -o /dev/null in.bin
check "-o /dev/null leaves /dev/null a device" test -c /dev/null

# ---- 0 and 1 records ----------------------------------------------------------------------------
: >empty.bin
expect 0 "empty file sorts" "$CLSORT" empty.bin
check "empty file stays empty" test ! -s empty.bin
expect 0 "empty file to -o" "$CLSORT" -o empty.out empty.bin
check "empty -o output exists and is empty" sh -c "test -e empty.out && test ! -s empty.out"
expect 0 "empty standard input" sh -c "'$CLSORT' < /dev/null > e.out"
check "empty standard input gives empty output" test ! -s e.out
expect 0 "-c on an empty file" "$CLSORT" -c empty.bin
gen one.bin f64 16 3 1
cp one.bin one.orig
expect 0 "one record sorts" "$CLSORT" -t f64 -R 16 -k 3 one.bin
check "one record unchanged" same one.bin one.orig

# ---- External sort: many runs, byte-identical with the in-memory result ---------------------------
gen ext.bin u32 4 0 200000 1000
"$REF" sort u32 4 0 <ext.bin >ref.bin
expect 0 "-S 16K forces runs" "$CLSORT" -v -S 16K -o ext.out ext.bin
check "-v reports the runs" grep -q "runs of up to 4096 records" err
check "external sort matches the reference" same ext.out ref.bin
check "external sort leaves nothing under TMPDIR" no_temp_left tmp
gen ext.bin i64 20 5 60000 300
for dir in "" r; do
    "$CLSORT" -t i64 -R 20 -k 5 ${dir:+-r} -o mem.out ext.bin 2>err
    "$REF" sort i64 20 5 $dir <ext.bin >ref.bin
    expect 0 "-S 3K with records and -T ${dir:+-r}" "$CLSORT" -t i64 -R 20 -k 5 ${dir:+-r} -S 3K -T "$W/tmp" -o ext.out ext.bin
    check "external ${dir:+-r }record sort is byte-identical to the in-memory sort" same ext.out mem.out
    "$CLSORT" -t i64 -R 20 -k 5 ${dir:+-r} -s -S 3K -o ext.out ext.bin 2>err
    check "external ${dir:+-r }--stable sort matches the stable reference" same ext.out ref.bin
done
check "-T holds no runs afterwards" no_temp_left tmp
gen ext.bin f32 4 0 100000
"$REF" sort f32 4 0 r <ext.bin >ref.bin
expect 0 "external sort of standard input (f32 -r)" sh -c "cat ext.bin | '$CLSORT' -t f32 -r -S 8K > ext.out"
check "external sort of standard input matches the reference" same ext.out ref.bin
expect 0 "external sort with 1-byte -S (one record per run)" "$CLSORT" -S 1 -o ext.out one.orig
gen small.bin u64 8 0 3000
"$REF" sort u64 8 0 <small.bin >ref.bin
expect 0 "-S 8 (one record per run, multi-level merge)" "$CLSORT" -t u64 -S 8 -o ext.out small.bin
check "one record per run matches the reference" same ext.out ref.bin

# ---- Check mode (exit 0 / 1) --------------------------------------------------------------------
gen in.bin i32 4 0 5000
"$REF" sort i32 4 0 <in.bin >sorted.bin
"$REF" sort i32 4 0 r <in.bin >rsorted.bin
expect 0 "-c on sorted input exits 0" "$CLSORT" -t i32 -c sorted.bin
check "-c writes nothing to stdout" test ! -s out
expect_err 1 "disorder at record" "-c on unsorted input exits 1 and says where" "$CLSORT" -t i32 -c in.bin
expect 1 "-c on descending input exits 1" "$CLSORT" -t i32 -c rsorted.bin
expect 0 "-c -r on descending input exits 0" "$CLSORT" -t i32 -r -c rsorted.bin
expect 0 "--check from standard input" sh -c "'$CLSORT' -t i32 --check < sorted.bin"
expect 1 "-c with -R/-k" "$CLSORT" -t u32 -R 8 -k 4 -c sorted.bin
check "-c left the input alone" sh -c "cmp -s sorted.bin sorted.bin && test ! -e .sorted.bin*"

# ---- Verbose, quiet, progress -------------------------------------------------------------------
gen in.bin u32 4 0 10000
expect 0 "-v exits 0" "$CLSORT" -v -o out.bin in.bin
check "-v names device, algorithm and config" sh -c "grep -Eq 'device [0-9]+:[0-9]+' err && grep -q 'algorithm' err && grep -q 'config' err"
check "-v reports read, sort and write times" sh -c "grep -q 'read ' err && grep -q 'sort ' err && grep -q 'write ' err"
expect 0 "-q is silent" "$CLSORT" -q -o out.bin in.bin
check "-q prints nothing" test ! -s err
expect 0 "--progress forces progress" "$CLSORT" --progress -o out.bin in.bin
expect 0 "--no-progress" "$CLSORT" --no-progress -o out.bin in.bin
check "no progress without a terminal" sh -c "'$CLSORT' -o out.bin in.bin 2>&1 | wc -c | grep -qx 0"

# ---- Interrupts: SIGTERM and SIGINT at several moments ------------------------------------------
# The input must be whole or completely sorted, and no temporary file may be left. The moments are
# fractions of an uninterrupted run's time, so that they land in reading, sorting and writing on
# fast and slow machines alike.
now_ms() { t=$(date +%s%N 2>/dev/null); case $t in *N|'') echo $(($(date +%s) * 1000)) ;; *) echo $((t / 1000000)) ;; esac; }
delays() { # delays MS: six moments from the start to a little past the end of a run of MS
    ms=$1; [ "$ms" -lt 50 ] && ms=50
    for pct in 2 15 35 55 80 110; do
        d=$((ms * pct / 100)); printf '%d.%03d ' $((d / 1000)) $((d % 1000))
    done
}
# interrupt_test NAME SIGNAL ORIG REF RUNDIR CLSORT-ARGS...: copies ORIG to intr/data.bin, sorts it
# in place and interrupts it at each moment.
interrupt_test() {
    name=$1; sig=$2; orig=$3; ref=$4; rundir=$5; shift 5
    cp "$orig" intr/data.bin
    t0=$(now_ms); "$CLSORT" "$@" intr/data.bin 2>err; t1=$(now_ms)
    check "$name: uninterrupted run sorts ($((t1 - t0)) ms)" same intr/data.bin "$ref"
    for delay in $(delays $((t1 - t0))); do
        cp "$orig" intr/data.bin
        "$REF" exec "$CLSORT" "$@" intr/data.bin 2>err &
        pid=$!
        sleep "$delay"
        kill -s "$sig" $pid 2>/dev/null
        wait $pid
        rc=$?
        check "$name: SIG$sig after ${delay}s (exit $rc): input whole or sorted" \
            sh -c "cmp -s intr/data.bin '$orig' || cmp -s intr/data.bin '$ref'"
        check "$name: SIG$sig after ${delay}s: no temporary file or run left" \
            sh -c "test \"\$(ls -A intr)\" = data.bin && test -z \"\$(ls -A '$rundir')\""
    done
}
mkdir -p intr runs
gen big.bin u32 4 0 1000000
"$REF" sort u32 4 0 <big.bin >bigref.bin
interrupt_test "in-place sort" TERM big.bin bigref.bin tmp
interrupt_test "in-place sort" INT big.bin bigref.bin tmp
gen bigrec.bin u32 12 4 200000
"$REF" sort u32 12 4 <bigrec.bin >bigrecref.bin
interrupt_test "external sort" TERM bigrec.bin bigrecref.bin runs -R 12 -k 4 -s -S 64K -T "$W/runs"
interrupt_test "external sort" INT bigrec.bin bigrecref.bin runs -R 12 -k 4 -s -S 64K -T "$W/runs"

echo "1..$n"
if [ "$fails" -ne 0 ]; then
    echo "# $fails of $n tests failed (seed $SEED)"
    exit 1
fi
echo "# all $n tests passed"
exit 0
