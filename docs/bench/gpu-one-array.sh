#!/bin/sh
# gpu-one-array.sh - docs/perf.md's "One array on the GPU": clsort's device time on one
# device-resident array beside CUB DeviceRadixSort, thrust::sort and a device-to-device copy from
# the same command, then where the time goes (CLSORT_DEBUG=2) and what one launch costs.
#
#   sh docs/bench/gpu-one-array.sh ANCHORS [DEVICE]
#
# ANCHORS: the folder holding cub_sort.cu (the project's CUDA anchors; "-" to run clsort alone).
# DEVICE: clsort's device (default gpu). Results in $OUT (default
# /tmp/clsort-bench-out/gpu-one-array).
# Reads ROUNDS (default 2), RUNS (median of, default 5) and MAX_LOG (the largest n is 2^MAX_LOG,
# default 28; lower it to try the scenario on a CPU device) and LAUNCH (1: time one launch with
# anchors/launch_cost.c on the first GPU; default 1 where DEVICE is a GPU).

ANCHORS=${1:?usage: gpu-one-array.sh ANCHORS [DEVICE]}
DEV=${2:-gpu}
. "$(dirname "$0")/env.sh"
ROUNDS=${ROUNDS:-2}
RUNS=${RUNS:-5}
MAX_LOG=${MAX_LOG:-28}

CUB=$(anchor cub_sort.cu)
[ -n "$CUB" ] && nvcc -O3 -arch=sm_90 -o /tmp/cub_sort "$CUB" > "$OUT/nvcc.txt" 2>&1 &
# The launch probe only on a GPU: on a CPU device its thousands of launches take many minutes.
case $DEV in gpu*) LAUNCH=${LAUNCH:-1} ;; *) LAUNCH=${LAUNCH:-0} ;; esac
[ "$LAUNCH" = 1 ] && cc -O2 -w -o /tmp/launch_cost "$BENCH_DIR/anchors/launch_cost.c" -lOpenCL > "$OUT/cc.txt" 2>&1 &

# bench TYPE ALGO MINLOG MAXLOG: one clsort-bench run, appended to $OUT/one-array.csv.
bench() {
    hi=$4; [ "$hi" -gt "$MAX_LOG" ] && hi=$MAX_LOG
    lo=$3; [ "$lo" -gt "$hi" ] && lo=$hi
    "$B/clsort-bench" -d "$DEV" --no-cpu -q -t "$1" -a "$2" --min-log "$lo" --max-log "$hi" \
        --runs "$RUNS" --csv "$OUT/part.csv" > /dev/null 2>> "$OUT/log.txt"
    col "$OUT/part.csv" type algo_run log2n device_ms global_passes check |
        sed "s/^/$round,/" >> "$OUT/one-array.csv"
}
echo "round,type,algo,log2n,device_ms,passes,check" > "$OUT/one-array.csv"
round=1
while [ "$round" -le "$ROUNDS" ]; do
    bench u32 bitonic 12 28
    bench u32 odd-even-merge 12 24
    bench pairs32 bitonic 24 24
    bench u64 bitonic 24 24
    bench pairs32 odd-even-merge 24 24
    bench u64 odd-even-merge 24 24
    round=$((round + 1))
done
rm -f "$OUT/part.csv"

: > "$OUT/trace.txt"
# Per kernel at 2^24 and 2^28 (four sorts each: warm-up, timed, end-to-end warm-up and timed).
for spec in "u32 bitonic 24" "u32 bitonic 28" "pairs32 bitonic 24" "u64 bitonic 24" "u32 odd-even-merge 24"; do
    set -- $spec
    [ "$3" -gt "$MAX_LOG" ] && continue
    echo "== $1 $2 2^$3" >> "$OUT/trace.txt"
    CLSORT_DEBUG=2 "$B/clsort-bench" -d "$DEV" --no-cpu -q -t "$1" -a "$2" --min-log "$3" \
        --max-log "$3" --runs 1 2>&1 | grep -E '^clsort: +[a-z_0-9]+ +items|launch' >> "$OUT/trace.txt"
done

wait
[ -n "$CUB" ] && [ -x /tmp/cub_sort ] && /tmp/cub_sort > "$OUT/cub.txt" 2>&1
[ "$LAUNCH" = 1 ] && [ -x /tmp/launch_cost ] && /tmp/launch_cost 2>&1 | grep -v '^extensions' > "$OUT/launch.txt"

note "== clsort device time, ms (round, type, network, log2 n, median, passes, check)"
cat "$OUT/one-array.csv" | tee -a "$OUT/log.txt"
[ -s "$OUT/cub.txt" ] && { note "== CUB, thrust, copy (CUDA events, best of 8)"; cut -c1-150 "$OUT/cub.txt" | tee -a "$OUT/log.txt"; }
note "== per kernel (us, summed over the four sorts)"
awk '/^==/ { v = $2 " " $3 " " $4 }
     /^clsort: +[a-z_0-9]+ +items/ { k = v " " $2; n[k]++; s[k] += $(NF - 1) }
     END { for (k in n) printf "%s x%d sum %.1f us\n", k, n[k], s[k] }' "$OUT/trace.txt" | sort | tee -a "$OUT/log.txt"
[ -s "$OUT/launch.txt" ] && { note "== one launch"; tee -a "$OUT/log.txt" < "$OUT/launch.txt"; }
