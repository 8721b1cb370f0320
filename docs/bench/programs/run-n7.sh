#!/bin/bash
# session 2026-11-27, call 7: issue 26's two tables from one command on the final tree: one array
# (u32, 2^16..2^28) and segments (2^24 u32, equal and uniform; pairs) beside CUB's from the same
# command.
. .gpu/env.sh; S0=$SECONDS
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u; git log --oneline -1; } > $OUT/card.txt
make -j16 all > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
( nvcc -O3 -arch=sm_90 -o /tmp/cubseg .gpu/cub_segsort_args.cu && nvcc -O3 -arch=sm_90 -o /tmp/cub_sort .gpu/cub_sort.cu && nvcc -O3 -arch=sm_90 -o /tmp/cub_sort64 .gpu/cub_sort64.cu ) > /tmp/nvcc.log 2>&1 &
echo "built at $((SECONDS-S0)) s"
{ echo "== one array (n, network, device ms, passes)"
  timeout 120 build/clsort-bench -d gpu --no-cpu -q -a bitonic -r 5 -t u32 --min-log 16 --max-log 28 2>&1 | grep -E "^ +[0-9]" | awk '{print $1, $2, $6, $11}'
  timeout 90 build/clsort-bench -d gpu --no-cpu -q -a bitonic -r 5 -t pairs32,u64 --min-log 24 --max-log 24 2>&1 | grep -E "^ +[0-9]|keys" | awk '{print $1, $2, $6, $11}'
  timeout 60 build/clsort-bench -d gpu --no-cpu -q -a odd-even-merge -r 5 -t u32 --min-log 16 --max-log 24 2>&1 | grep -E "^ +[0-9]" | awk '{print $1, $2, $6, $11}'
} > $OUT/onearray.txt 2>&1
echo "one array at $((SECONDS-S0)) s"
{ echo "== segments u32 (mix, s, host-variant kernels, buffer-variant span)"
  timeout 150 build/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t u32 -r 5 --seg-mixes equal,uniform --seg-sizes 16,32,64,128,256,512,1024,2048,4096,65536 2>&1 | grep -E "^segments" | cut -d, -f4,5,8,9
  echo "== segments pairs32"
  timeout 100 build/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t pairs32 -r 5 --seg-mixes equal --seg-sizes 16,32,64,128,256,512,1024,2048,4096 2>&1 | grep -E "^segments" | cut -d, -f3,4,5,8,9
} > $OUT/segments.txt 2>&1
echo "segments at $((SECONDS-S0)) s"
wait
{ timeout 100 /tmp/cubseg 16 32 64 128 256 512 1024 2048 4096 65536; timeout 100 /tmp/cub_sort; timeout 100 /tmp/cub_sort64; } > $OUT/cub.txt 2>&1
echo "all at $((SECONDS-S0)) s"
cat $OUT/card.txt $OUT/onearray.txt $OUT/segments.txt; grep -E "DeviceSegmentedSort|cub_" $OUT/cub.txt
