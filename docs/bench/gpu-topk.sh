#!/bin/sh
# gpu-topk.sh - docs/perf.md's "Top-k on the GPU": clsort_topk_buffer's device time (keys and
# uint32 indices) on clsort-bench --topk's cells (rows x n from 1 x 2^24 to 2^16 x 2^8, k from 1 to
# 1024) beside torch.topk from the same command (CUDA events, median of 21).
#
#   sh docs/bench/gpu-topk.sh ANCHORS [DEVICE]
#
# ANCHORS: a folder holding torch_topk.py, else docs/bench/anchors' is run with python3 ("-":
# clsort alone). DEVICE: clsort's device (default gpu). Results in $OUT (default
# /tmp/clsort-bench-out/gpu-topk). Reads RUNS (median of, default 11) and TOPK_SCALE (each cell's
# keys divided by 2^TOPK_SCALE, default 0; 4 suits a CPU device).

ANCHORS=${1:?usage: gpu-topk.sh ANCHORS [DEVICE]}
DEV=${2:-gpu}
. "$(dirname "$0")/env.sh"
RUNS=${RUNS:-11}

"$B/clsort-bench" -d "$DEV" -q --topk -t u32,f32 --runs "$RUNS" --topk-scale "${TOPK_SCALE:-0}" \
    --csv "$OUT/topk-all.csv" > /dev/null 2>> "$OUT/log.txt"
col "$OUT/topk-all.csv" type rows n k device_ms check > "$OUT/topk.csv"
TORCH=$(anchor torch_topk.py)
[ -n "$TORCH" ] && python3 "$TORCH" > "$OUT/torch.txt" 2>&1

note "== clsort, ms (type, rows, n, k, device time, check)"
tee -a "$OUT/log.txt" < "$OUT/topk.csv"
[ -s "$OUT/torch.txt" ] && { note "== torch.topk, ms (rows x n | k = 1 | 8 | 32 | 128 | 1024 | torch.sort)"; tee -a "$OUT/log.txt" < "$OUT/torch.txt"; }
