#!/bin/bash
# session 2026-11-28 (seventh), call 5: with the reqd size trusted (program.c), bitonic u32 on
# 512 and 1024 work-items a tile (configs B, C, E, F) against the shipped config (A), 2^16..2^28;
# traces at 2^24 and 2^20; registers; CUB beside.
. .gpu/env.sh; S0=$SECONDS
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u; } > $OUT/card.txt
chmod -R go-w .gpu; make -j8 all > /tmp/build.log 2>&1 || { tail -20 /tmp/build.log; exit 1; }
nvcc -O3 -arch=sm_90 -o /tmp/cub_sort .gpu/cub_sort.cu > /tmp/nvcc.log 2>&1 &
echo "built at $((SECONDS-S0)) s"
one() { CLSORT_CACHE_DIR=/tmp/cc-cfg$1 CLSORT_CONFIG_DIR=$2 timeout 120 build/clsort-bench -d gpu --no-cpu -a bitonic -r 5 -t u32 --min-log 16 --max-log $3 2>&1 | grep -E "^ +[0-9]|rror|unsupported|FAIL" | awk '/^ +[0-9]/{print $1, $2, $6, $12, $NF; next} {print}'; }
for round in 1 2; do for c in A B C E F; do dir=$PWD/.gpu/cfg$c; [ $c = A ] && dir=/nonexistent
  echo "== round $round config $c"; one $c $dir 26; done; done > $OUT/onearray.txt 2>&1
echo "configs at $((SECONDS-S0)) s"
for c in A B C E F; do echo "== regs $c"; python3 .gpu/regs.py /tmp/cc-cfg$c bitonic_merge_tile; done > $OUT/regs-one.txt 2>&1
for c in A B C E F; do dir=$PWD/.gpu/cfg$c; [ $c = A ] && dir=/nonexistent; for lg in 20 24; do echo "== trace $c 2^$lg"; CLSORT_CACHE_DIR=/tmp/cc-cfg$c CLSORT_CONFIG_DIR=$dir CLSORT_DEBUG=2 timeout 30 build/clsort-bench -d gpu --no-cpu -q -t u32 -a bitonic --min-log $lg --max-log $lg -r 1 2>&1 | grep -E "us$|launches" | tail -40; done; done > $OUT/trace-one.txt 2>&1
for c in A B E; do dir=$PWD/.gpu/cfg$c; [ $c = A ] && dir=/nonexistent; echo "== 2^28 config $c"; CLSORT_CACHE_DIR=/tmp/cc-cfg$c CLSORT_CONFIG_DIR=$dir timeout 60 build/clsort-bench -d gpu --no-cpu -a bitonic -r 3 -t u32 --min-log 28 --max-log 28 2>&1 | grep -E "^ +[0-9]|rror|FAIL" | awk '{print $1, $2, $6, $12, $NF}'; done > $OUT/big.txt 2>&1
echo "traces at $((SECONDS-S0)) s"
wait; timeout 60 /tmp/cub_sort > $OUT/cub.txt 2>&1
echo "all at $((SECONDS-S0)) s"
cat $OUT/card.txt $OUT/onearray.txt $OUT/big.txt $OUT/regs-one.txt; grep -v '^$' $OUT/cub.txt | head -12
