#!/bin/bash
# session 2026-11-27c, call 3: the whole suite on the GPU (make check-gpu), then issue 26's one-array
# table (u32 2^16..2^28, pairs and u64 at 2^24, odd-even merge) with CUB and thrust from the same
# command, and where 2^24 goes (CLSORT_DEBUG=2).
. .gpu/env.sh; S0=$SECONDS
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u; } > $OUT/card.txt
make -j16 all tests > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
( nvcc -O3 -arch=sm_90 -o /tmp/cub_sort .gpu/cub_sort.cu && nvcc -O3 -arch=sm_90 -o /tmp/cub_sort64 .gpu/cub_sort64.cu ) > /tmp/nvcc.log 2>&1 &
echo "built at $((SECONDS-S0)) s"
timeout 300 make check-gpu > $OUT/check-gpu.log 2>&1; rc=$?
echo "check-gpu rc=$rc at $((SECONDS-S0)) s"
{ echo "== one array (n, network, device ms, passes)"
  timeout 120 build/clsort-bench -d gpu --no-cpu -q -a bitonic -r 5 -t u32 --min-log 16 --max-log 28 2>&1 | grep -E "^ +[0-9]" | awk '{print $1, $2, $6, $12}'
  timeout 90 build/clsort-bench -d gpu --no-cpu -q -a bitonic -r 5 -t pairs32,u64 --min-log 24 --max-log 24 2>&1 | grep -E "^ +[0-9]|keys" | awk '{print $1, $2, $6, $12}'
  timeout 60 build/clsort-bench -d gpu --no-cpu -q -a odd-even-merge -r 5 -t u32 --min-log 16 --max-log 24 2>&1 | grep -E "^ +[0-9]" | awk '{print $1, $2, $6, $12}'
} > $OUT/onearray.txt 2>&1
echo "one array at $((SECONDS-S0)) s"
echo "== per-kernel 2^24" > $OUT/trace.txt; CLSORT_DEBUG=2 timeout 30 build/clsort-bench -d gpu --no-cpu -q -t u32 -a bitonic --min-log 24 --max-log 24 -r 1 2>&1 | grep -E "us$|launches" | tail -40 >> $OUT/trace.txt
wait; { timeout 100 /tmp/cub_sort; timeout 100 /tmp/cub_sort64; } > $OUT/cub.txt 2>&1
echo "all at $((SECONDS-S0)) s"
cat $OUT/card.txt; grep -E "^(PASS|FAIL)|passed|failed|^ok|^not ok" $OUT/check-gpu.log | tail -45; echo "check-gpu rc=$rc"
cat $OUT/onearray.txt; cat $OUT/cub.txt | grep -v "^$" | head -30
