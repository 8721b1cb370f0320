#!/bin/bash
# session 2026-11-28 (eleventh): issue 26's two tables on the final tree, each beside CUB from the
# same command. Part "one": one array (bitonic u32 2^12..2^28, odd-even merge u32 2^12..2^24,
# pairs and u64 at 2^24; CUB radix, thrust::sort, the d2d copy), launches and per-kernel times
# (CLSORT_DEBUG=2). Part "seg": segments of 2^24 keys (u32 equal and uniform, u32 pairs) beside
# CUB DeviceSegmentedSort, per-kernel times. Part "check": make check-gpu.
PART=$1
. .gpu/env.sh; S0=$SECONDS; export CLSORT_CACHE_DIR=/tmp/cc-f1
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u; } > $OUT/card.txt
chmod -R go-w .gpu
if [ $PART = one ]; then
( nvcc -O3 -arch=sm_90 -o /tmp/cub_sort .gpu/cub_sort.cu; nvcc -O3 -arch=sm_90 -o /tmp/cub_sort64 .gpu/cub_sort64.cu ) > /tmp/nvcc.log 2>&1 &
fi
if [ $PART = seg ]; then nvcc -O3 -arch=sm_90 -o /tmp/cubseg .gpu/cub_segsort_args.cu > /tmp/nvcc.log 2>&1 & fi
if [ $PART = check ]; then
  timeout 500 make check-gpu > $OUT/check-gpu.txt 2>&1; echo "check-gpu rc $? at $((SECONDS-S0)) s"
  grep -E 'FAIL|passed|summary' $OUT/check-gpu.txt | tail -5; exit 0
fi
make -j16 all > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
echo "built at $((SECONDS-S0)) s"
if [ $PART = one ]; then
one() { timeout 150 build/clsort-bench -d gpu --no-cpu -q -t $1 -a $2 --min-log $3 --max-log $4 -r 5 2>&1 | grep -E "^ +[0-9]+ +(odd|bit)|rror|FAIL" | awk '{print $1, $2, $3, $6, $12, $NF}'; }
for round in 1 2; do echo "== round $round"
  one u32 bitonic 12 28; one u32 odd-even-merge 12 24
  one pairs32 bitonic 24 24; one u64 bitonic 24 24; one pairs32 odd-even-merge 24 24; one u64 odd-even-merge 24 24
  echo "at $((SECONDS-S0)) s"; done > $OUT/onearray.txt 2>&1
tr() { echo "== trace $1 $2 2^$3 (warm-up, timed run, end-to-end warm-up and run: 4 sorts)"; CLSORT_DEBUG=2 timeout 60 build/clsort-bench -d gpu --no-cpu -q -t $1 -a $2 --min-log $3 --max-log $3 -r 1 2>&1 | grep -E "^clsort: +[a-z_0-9]+ +items|launch"; }
{ tr u32 bitonic 16; tr u32 bitonic 18; tr u32 bitonic 20; tr u32 bitonic 24; tr u32 bitonic 28; tr pairs32 bitonic 24; tr u64 bitonic 24; tr u32 odd-even-merge 24; } > $OUT/trace.txt 2>&1
echo "one-array at $((SECONDS-S0)) s"
wait; { timeout 60 /tmp/cub_sort; timeout 40 /tmp/cub_sort64; } > $OUT/cub.txt 2>&1
cat $OUT/card.txt $OUT/onearray.txt $OUT/cub.txt | cut -c1-150
fi
if [ $PART = seg ]; then
seg() { timeout 200 build/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t $1 -r 5 --seg-mixes $2 --seg-sizes $3 2>&1 | grep -E "^segments|rror|FAIL|mismatch" | cut -d, -f2,4,5,7,8,9,16; }
{ seg u32 equal 16,32,48,64,128,256; seg u32 equal 512,1024,2048,4096,65536,1048576; seg u32 uniform 16,32,64,128,256,1024
  seg pairs32 equal 16,32,64,256,4096; seg pairs32 uniform 16,32,64; } > $OUT/segments.txt 2>&1
echo "segments at $((SECONDS-S0)) s"
strs() { echo "== trace seg $1 $2 $3 (4 sorts: warm-up and run, host and buffer variants)"; CLSORT_DEBUG=2 timeout 60 build/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t $1 -r 1 --seg-mixes $2 --seg-sizes $3 2>&1 | grep -E "^clsort: +[a-z_0-9]+ +items"; }
{ strs u32 equal 64; strs u32 uniform 64; strs u32 equal 256; strs u32 uniform 256; strs u32 equal 4096; strs pairs32 equal 4096; } > $OUT/trace.txt 2>&1
wait; timeout 90 /tmp/cubseg 16 32 48 64 128 256 512 1024 2048 4096 65536 1048576 u16 u32 u64 u128 u256 u1024 > $OUT/cubseg.txt 2>&1
cat $OUT/card.txt $OUT/segments.txt $OUT/cubseg.txt | cut -c1-150
fi
echo "end at $((SECONDS-S0)) s"
awk '/^== trace/{v=$3"-"$4"-"$5"-"$6} /^clsort: +[a-z_0-9]+ +items/{k=v" "$2; n[k]++; s[k]+=$(NF-1)} END {for (k in n) printf "%s x%d sum %.1f us\n", k, n[k], s[k]}' $OUT/trace.txt | sort
