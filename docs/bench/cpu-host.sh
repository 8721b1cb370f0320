#!/bin/sh
# cpu-host.sh - docs/perf.md's "The CPU path": clsort_sort of host arrays on a CPU device (AUTO,
# which takes the host's own sort there, and the bitonic network on the same cores) beside qsort,
# std::sort and Highway's vqsort on the same data (clsort-bench) and NumPy's sort (python3), all
# end-to-end, one run after another on the same machine.
#
#   sh docs/bench/cpu-host.sh [DEVICE]
#
# DEVICE: clsort's device (default cpu). Results in $OUT (default /tmp/clsort-bench-out/cpu-host).
# Reads RUNS (median of, default 5) and LOGS (sizes, default "22 24").

DEV=${1:-cpu}
. "$(dirname "$0")/env.sh"
RUNS=${RUNS:-5}
LOGS=${LOGS:-22 24}

echo "type,log2n,algo,algo_run,e2e_ms,qsort_ms,stdsort_ms,vqsort_ms,check" > "$OUT/cpu.csv"
for l in $LOGS; do
    "$B/clsort-bench" -d "$DEV" -q -t u32,f32,u64 -a auto,bitonic --min-log "$l" --max-log "$l" \
        --cpu-max-log "$l" --runs "$RUNS" --csv "$OUT/part.csv" > /dev/null 2>> "$OUT/log.txt"
    col "$OUT/part.csv" type log2n algo algo_run e2e_ms qsort_ms stdsort_ms vqsort_ms check >> "$OUT/cpu.csv"
done
rm -f "$OUT/part.csv"

# NumPy's sort of the same sizes and types (a fresh random array each run, median).
python3 - "$RUNS" $LOGS > "$OUT/numpy.txt" 2>&1 <<'PY'
import sys, time
import numpy as np
runs, logs = int(sys.argv[1]), [int(a) for a in sys.argv[2:]]
rng = np.random.default_rng(1)
print("# numpy", np.__version__)
for l in logs:
    for name in ("u32", "f32", "u64"):
        t = []
        for _ in range(runs):
            if name == "u64":
                a = rng.integers(0, 2**64, size=1 << l, dtype=np.uint64)
            else:
                a = rng.integers(0, 2**32, size=1 << l, dtype=np.uint32)
                a = a.view(np.float32) if name == "f32" else a
            s = time.perf_counter(); np.sort(a); t.append((time.perf_counter() - s) * 1e3)
        t.sort()
        print(f"{name},{l},numpy,{t[len(t) // 2]:.2f}")
PY

note "== clsort and the host's sorts, ms (type, log2 n, network asked, run, clsort end-to-end, qsort, std::sort, vqsort, check)"
tee -a "$OUT/log.txt" < "$OUT/cpu.csv"
note "== NumPy, ms"
tee -a "$OUT/log.txt" < "$OUT/numpy.txt"
