#!/bin/bash
# session 2026-11-28 (eleventh), call 6: the mid sizes again on another machine (bitonic u32
# 2^14..2^22, median of 9, three rounds), CUB in the same command, and enq.c's launch cost there.
. .gpu/env.sh; S0=$SECONDS; export CLSORT_CACHE_DIR=/tmp/cc-f2
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u; lscpu | grep -E 'Model name|^CPU\(s\)'; } > $OUT/card.txt
chmod -R go-w .gpu
nvcc -O3 -arch=sm_90 -o /tmp/cub_sort .gpu/cub_sort.cu > /tmp/nvcc.log 2>&1 &
gcc -O2 -w -o /tmp/enq .gpu/enq.c -lOpenCL
make -j16 all > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
for round in 1 2 3; do echo "== round $round"; timeout 100 build/clsort-bench -d gpu --no-cpu -q -t u32 -a bitonic --min-log 14 --max-log 22 -r 9 2>&1 | grep -E "^ +[0-9]+ +bit|rror|FAIL" | awk '{print $1, $2, $6, $12, $NF}'; done > $OUT/mid.txt 2>&1
wait; timeout 60 /tmp/cub_sort > $OUT/cub.txt 2>&1
timeout 100 /tmp/enq 2>&1 | grep -v '^extensions' > $OUT/enq.txt
cat $OUT/card.txt $OUT/mid.txt $OUT/cub.txt | cut -c1-150; grep -E 'host|launch' $OUT/enq.txt | head -30
echo "end at $((SECONDS-S0)) s"
