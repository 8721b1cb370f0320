#!/bin/sh
# fuzz_runs.sh - fuzzes clsort's runs, merges and -u (a one-record last run once lost a record
# with -u) against the reference tests/cli/refsort.c (`refsort msort`), byte for byte.
# Each case draws: a record/key layout (-t alone, -R/-k, one to three --key, u32 ... f64, big- and
# little-endian, descending keys), a run of 1..5 records (-S), n = k*run + r records with small
# r, data from a small palette of edge bytes (equal keys, equal records, NaNs, both zeros), -u, -s,
# -r, and the input as one file, standard input (a pipe), several files (one of them perhaps
# standard input) or already sorted files merged with -m; some cases sort on two PoCL devices
# (-d cpu:all with POCL_DEVICES="pthread pthread"), some stream through small pipeline chunks,
# some keep only the first N records (--top N, against the reference's head).
# TAP: one point per case, the plan at the end; a failing case prints how to replay it.
#
#   BUILD=build sh tests/cli/fuzz_runs.sh       (from the repository root)
#   SEED=1234 ...                               replays a run; FUZZ_CASE=17 only its case 17
#   FUZZ_CASES=N  at most N cases (default by CLSORT_TEST_LEVEL: 0: 100, 1: 1500, 2: 100000)
#   FUZZ_TIME=S   stop starting cases after S seconds (default by level: 15, 50, 600)
#   FUZZ_KEEP=DIR keep each failing case's files (input, parts, output, reference) in DIR/CASE
set -u

BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$(pwd)/$BUILD ;; esac
CLSORT=$BUILD/clsort
REF=$BUILD/refsort-fuzz
SRCDIR=$(cd "$(dirname "$0")" && pwd)
export CLSORT_DEVICE="${CLSORT_DEVICE:-cpu}"
SEED=${SEED:-$(date +%s)}
LEVEL=${CLSORT_TEST_LEVEL:-1}
case $LEVEL in
0) cases=100 secs=15 ;;
2) cases=100000 secs=600 ;;
*) cases=1500 secs=50 ;;
esac
CASES=${FUZZ_CASES:-$cases}
TIME=${FUZZ_TIME:-$secs}
ONLY=${FUZZ_CASE:-}

[ -x "$CLSORT" ] || { echo "Bail out! $CLSORT not built (run make)"; exit 1; }
${CC:-cc} -std=c11 -O2 -o "$REF" "$SRCDIR/refsort.c" || { echo "Bail out! cannot build refsort"; exit 1; }

W=$(mktemp -d "${TMPDIR:-/tmp}/clsort-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT HUP INT TERM
cd "$W" || exit 1
mkdir tmp
export TMPDIR="$W/tmp"
echo "# seed $SEED (replay with SEED=$SEED), level $LEVEL: up to $CASES cases in ${TIME} s"

# A splitmix-free, shell-only generator: an LCG on 31 bits, seeded per case so that one case can
# be replayed alone (FUZZ_CASE).
rs=1
rnd() { # rnd N -> sets r to a number in 0..N-1
    rs=$(((rs * 1103515245 + 12345) % 2147483648))
    r=$(((rs / 65536) % $1))
}
pick() { # pick WORD... -> sets p to one of them
    rnd $#
    shift "$r"
    p=$1
}
ksize() { case $1 in *32 | *32be) echo 4 ;; *) echo 8 ;; esac; }

n_ok=0 n_fail=0 i=0
start=$(date +%s)
while [ "$i" -lt "$CASES" ]; do
    i=$((i + 1))
    if [ -n "$ONLY" ]; then
        [ "$i" = "$ONLY" ] || continue
    elif [ $(($(date +%s) - start)) -ge "$TIME" ]; then
        break
    fi
    rs=$(((SEED * 7919 + i * 104729) % 2147483648))
    rnd 7
    rs=$((rs + r))

    # The layout: args for clsort, keys for refsort, the record size R.
    rnd 3
    layout=$r
    pick u32 i32 f32 u64 i64 f64 u32be i32be f32be u64be i64be f64be
    t=$p
    K=$(ksize "$t")
    rnd 2
    rev=$r
    kr=""
    [ "$rev" = 1 ] && kr=":r"
    case $layout in
    0) # records that are their own keys
        R=$K
        args="-t $t"
        keys="0:$t$kr"
        ;;
    1) # one key somewhere inside a larger record
        rnd 9
        R=$((K + r))
        rnd $((R - K + 1))
        off=$r
        args="-t $t -R $R -k $off"
        keys="$off:$t$kr"
        ;;
    *) # one to three --key (ties of the first broken by the others)
        rnd 3
        nk=$((r + 1))
        rnd 17
        R=$((8 + r))
        args="-R $R"
        keys=""
        j=0
        while [ "$j" -lt "$nk" ]; do
            pick u32 i32 f32 u64 i64 f64 u32be i32be f32be u64be i64be f64be
            kt=$p
            kk=$(ksize "$kt")
            rnd $((R - kk + 1))
            ko=$r
            rnd 3
            if [ "$r" = 0 ]; then
                args="$args --key $ko:$kt:r"
                keys="$keys $ko:$kt:r"
            else
                args="$args --key $ko:$kt"
                keys="$keys $ko:$kt$kr" # -r makes every key without :r descending
            fi
            j=$((j + 1))
        done
        ;;
    esac
    [ "$rev" = 1 ] && args="$args -r"

    # Runs of 1..5 records, n = k * run + r with r small (the last run short, of one record, or
    # none), now and then a larger n for a multi-level merge.
    rnd 5
    run=$((r + 1))
    rnd 8
    k=$r
    rnd 4
    rest=$r
    [ "$rest" -gt "$run" ] && rest=$run
    rnd 10
    [ "$r" = 0 ] && k=$((k + 40))
    n=$((k * run + rest))
    args="$args -S $((run * R))"
    rnd 3
    [ "$r" = 0 ] && args="$args -S $((run * R + R - 1))" # a -S that is not a whole record

    rnd 3
    u=""
    [ "$r" = 0 ] && { args="$args -u"; u="u"; }
    rnd 2
    [ "$r" = 0 ] && args="$args -s"

    # The data: few byte values make equal keys and equal records likely.
    pick 2 3 4 12 0
    alpha=$p
    "$REF" bytes $((n * R)) $((SEED + i)) "$alpha" >in

    # The input: one file, a pipe, several files (one of them perhaps standard input), or -m.
    rnd 6
    how=$r
    env=""
    rnd 5
    [ "$r" = 0 ] && { env="POCL_DEVICES=pthread pthread"; args="$args -d cpu:all"; }
    rnd 4
    [ "$r" = 0 ] && [ -z "$env" ] && env="CLSORT_CLI_CHUNK_SIZE=$(((run + 1) / 2 * R))"
    "$REF" msort "$R" $u $keys <in >ref
    # --top N: the head of the same result, for N around the run size and n.
    rnd 5
    if [ "$r" = 0 ] && [ "$how" != 5 ] && [ "${env#POCL}" = "$env" ]; then
        pick 1 2 $run $((run + 1)) $((n / 2 + 1)) $((n > 0 ? n : 1)) $((n + 3))
        args="$args --top $p"
        head -c $((p * R)) ref >ref.top && mv ref.top ref
    fi
    rm -f out p1 p2 p3
    cmd=""
    if [ "$how" -ge 3 ]; then # three parts, whole records, perhaps empty
        rnd $((n + 1))
        a=$r
        rnd $((n - a + 1))
        b=$r
        head -c $((a * R)) in >p1
        tail -c +$((a * R + 1)) in | head -c $((b * R)) >p2
        tail -c +$(((a + b) * R + 1)) in >p3
        if [ "$how" = 5 ]; then
            for f in p1 p2 p3; do "$REF" msort "$R" $u $keys <$f >$f.s && mv $f.s $f; done
            # -u on sorted inputs: equal records across files still leave only the first
            args="$args -m"
        fi
    fi
    case $how in
    0 | 1) cmd="\"\$CLSORT\" $args -o out in" ;;
    2) cmd="cat in | \"\$CLSORT\" $args -o out" ;;
    3) cmd="\"\$CLSORT\" $args -o out p1 p2 p3" ;;
    4) cmd="\"\$CLSORT\" $args -o out p1 - p3 <p2" ;;
    5) cmd="\"\$CLSORT\" $args -o out p1 p2 p3" ;;
    esac
    if [ -n "$env" ]; then
        (export "${env%%=*}=${env#*=}"; eval "$cmd") 2>err
    else
        eval "$cmd" 2>err
    fi
    rc=$?
    desc="n=$n run=$run R=$R $env clsort ${args} (how $how; refsort msort $R $u $keys)"
    if [ "$rc" = 0 ] && cmp -s out ref; then
        n_ok=$((n_ok + 1))
        echo "ok $i - $desc"
    else
        n_fail=$((n_fail + 1))
        echo "not ok $i - $desc: exit $rc, $(wc -c <out 2>/dev/null || echo no) bytes, expected $(wc -c <ref)"
        sed 's/^/#   stderr: /' err | head -3
        echo "#   replay: SEED=$SEED FUZZ_CASE=$i BUILD=$BUILD sh tests/cli/fuzz_runs.sh"
        if [ -n "${FUZZ_KEEP:-}" ]; then # the case's files, to look at
            mkdir -p "$FUZZ_KEEP/$i" && cp in ref out err p1 p2 p3 "$FUZZ_KEEP/$i/" 2>/dev/null
        fi
    fi
done
echo "1..$((n_ok + n_fail))"
echo "# $n_ok passed, $n_fail failed, $(($(date +%s) - start)) s"
[ "$n_fail" = 0 ]
