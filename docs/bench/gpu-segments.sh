#!/bin/sh
# gpu-segments.sh - docs/perf.md's "Segments on the GPU": 2^24 keys cut into segments (equal
# lengths s, or lengths uniform in 1..2s), u32 keys, u32+u32 pairs and stable pairs; the host
# variant's kernels and the buffer variant's span; CUB DeviceSegmentedSort from the same command.
#
#   sh docs/bench/gpu-segments.sh ANCHORS [DEVICE]
#
# ANCHORS: a folder holding cub_segsort_mix.cu, else docs/bench/anchors' is built ("-": clsort
# alone). DEVICE: clsort's device (default gpu). Results in $OUT (default /tmp/clsort-bench-out/gpu-segments).
# Reads RUNS (median of, default 5) and SEG_LOG (keys, 2^SEG_LOG, default 24).

ANCHORS=${1:?usage: gpu-segments.sh ANCHORS [DEVICE]}
DEV=${2:-gpu}
. "$(dirname "$0")/env.sh"
RUNS=${RUNS:-5}
SEG_LOG=${SEG_LOG:-24}

CUB=$(anchor cub_segsort_mix.cu)
[ -n "$CUB" ] && nvcc -O3 -arch=sm_90 -o /tmp/cub_segsort_mix "$CUB" > "$OUT/nvcc.txt" 2>&1 &

# seg TYPE MIX SIZES [--stable]: one clsort-bench --segments run, appended to $OUT/segments.csv;
# lengths above the keys of a point are left out.
seg() {
    sizes=$(echo "$3" | tr , '\n' | awk -v max=$((1 << SEG_LOG)) '$1 <= max' | paste -sd, -)
    [ -n "$sizes" ] || return 0
    "$B/clsort-bench" -d "$DEV" --no-cpu -q --segments --seg-log "$SEG_LOG" -t "$1" --runs "$RUNS" \
        --seg-mixes "$2" --seg-sizes "$sizes" $4 --csv "$OUT/part.csv" > /dev/null 2>> "$OUT/log.txt"
    col "$OUT/part.csv" type algo mix s device_ms buffer_device_ms check >> "$OUT/segments.csv"
}
echo "type,algo,mix,s,device_ms,buffer_device_ms,check" > "$OUT/segments.csv"
seg u32 equal 16,32,48,64,128,256,512,1024,2048,4096,65536,1048576
seg u32 uniform 16,32,64,128,256,1024
seg pairs32 equal 16,32,64,256,4096
seg pairs32 uniform 16,32,64
seg pairs32 equal 16,32,48,64,128,256,1024,4096 --stable
seg pairs32 uniform 32,64,128,512,2048 --stable
rm -f "$OUT/part.csv"

: > "$OUT/trace.txt"
# Per kernel (four sorts each: warm-up and timed run of the host and buffer variants).
for spec in "u32 equal 64" "u32 uniform 64" "u32 equal 256" "u32 equal 4096" "pairs32 equal 4096"; do
    set -- $spec
    [ "$3" -gt $((1 << SEG_LOG)) ] && continue
    echo "== $1 $2 $3" >> "$OUT/trace.txt"
    CLSORT_DEBUG=2 "$B/clsort-bench" -d "$DEV" --no-cpu -q --segments --seg-log "$SEG_LOG" -t "$1" \
        --runs 1 --seg-mixes "$2" --seg-sizes "$3" 2>&1 | grep -E '^clsort: +[a-z_0-9]+ +items' >> "$OUT/trace.txt"
done

wait
[ -n "$CUB" ] && [ -x /tmp/cub_segsort_mix ] &&
    /tmp/cub_segsort_mix 16 32 48 64 128 256 512 1024 2048 4096 65536 1048576 \
        u16 u32 u64 u128 u256 u1024 > "$OUT/cub.txt" 2>&1

note "== clsort, ms (type, network, mix, s, host variant's kernels, buffer variant's span, check)"
tee -a "$OUT/log.txt" < "$OUT/segments.csv"
[ -s "$OUT/cub.txt" ] && { note "== CUB DeviceSegmentedSort (CUDA events, best of 6)"; tee -a "$OUT/log.txt" < "$OUT/cub.txt"; }
note "== per kernel (us, summed over the four sorts)"
awk '/^==/ { v = $2 " " $3 " " $4 }
     /^clsort: +[a-z_0-9]+ +items/ { k = v " " $2; n[k]++; s[k] += $(NF - 1) }
     END { for (k in n) printf "%s x%d sum %.1f us\n", k, n[k], s[k] }' "$OUT/trace.txt" | sort | tee -a "$OUT/log.txt"
