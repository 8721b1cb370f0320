#!/bin/bash
# session 2026-11-28 (seventh), call 1: seg_sort_packed in two loops (equal lengths' spans in a
# loop of their own) against main 73f761e (old): registers, segments A/B alternating, traces;
# one-array configs (TILE 8192 / 4096 on 512 work-items) with errors kept, traces at 2^24; CUB.
. .gpu/env.sh; S0=$SECONDS
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u; } > $OUT/card.txt
rm -rf /tmp/old && mkdir -p /tmp/old && tar xf .gpu/base-src.tar -C /tmp/old && chmod -R go-w /tmp/old .gpu
( make -j8 all > /tmp/build.log 2>&1 ) & ( cd /tmp/old && make -j8 all > /tmp/build-old.log 2>&1 ) & wait
[ -x build/clsort-bench ] && [ -x /tmp/old/build/clsort-bench ] || { tail -20 /tmp/build.log /tmp/build-old.log; exit 1; }
( nvcc -O3 -arch=sm_90 -o /tmp/cubseg .gpu/cub_segsort_args.cu; nvcc -O3 -arch=sm_90 -o /tmp/cub_sort .gpu/cub_sort.cu ) > /tmp/nvcc.log 2>&1 &
echo "built at $((SECONDS-S0)) s"
seg() { CLSORT_CACHE_DIR=/tmp/cc-$2 timeout 100 $1/build/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t $3 -r 5 --seg-mixes $4 --seg-sizes $5 2>&1 | grep -E "^segments|rror|FAIL|mismatch" | cut -d, -f3,4,5,8,9; }
for round in 1 2; do for tree in old new; do d=$PWD; [ $tree = old ] && d=/tmp/old
  echo "== round $round $tree u32"; seg $d $tree u32 equal 16,64,256,4096,65536; seg $d $tree u32 uniform 16,256,1024
  echo "== round $round $tree pairs32"; seg $d $tree pairs32 equal 16,4096,65536; seg $d $tree pairs32 uniform 16
done; done > $OUT/segments.txt 2>&1
echo "segments at $((SECONDS-S0)) s"
for tree in old new; do d=$PWD; [ $tree = old ] && d=/tmp/old; for m in equal uniform; do echo "== $tree $m 16"; CLSORT_CACHE_DIR=/tmp/cc-$tree CLSORT_DEBUG=2 timeout 30 $d/build/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t u32 -r 1 --seg-mixes $m --seg-sizes 16 2>&1 | grep -E "us$" | tail -4; done; done > $OUT/trace.txt 2>&1
for tree in old new; do echo "== $tree"; python3 .gpu/regs.py /tmp/cc-$tree seg_sort_packed; done > $OUT/regs-seg.txt 2>&1
echo "traces at $((SECONDS-S0)) s"
one() { CLSORT_CACHE_DIR=/tmp/cc-cfg$1 CLSORT_CONFIG_DIR=$2 timeout 100 build/clsort-bench -d gpu --no-cpu -a bitonic -r 5 -t u32 --min-log 18 --max-log 26 2>&1 | grep -E "^ +[0-9]|rror|unsupported|clsort" | awk '/^ +[0-9]/{print $1, $2, $6, $12; next} {print}'; }
for c in A B C; do dir=$PWD/.gpu/cfg$c; [ $c = A ] && dir=/nonexistent
  echo "== config $c"; one $c $dir; done > $OUT/onearray.txt 2>&1
for c in A B C; do echo "== regs $c"; python3 .gpu/regs.py /tmp/cc-cfg$c bitonic_merge_tile; done > $OUT/regs-one.txt 2>&1
for c in A B; do dir=$PWD/.gpu/cfg$c; [ $c = A ] && dir=/nonexistent; echo "== trace $c 2^24"; CLSORT_CACHE_DIR=/tmp/cc-cfg$c CLSORT_CONFIG_DIR=$dir CLSORT_DEBUG=2 timeout 30 build/clsort-bench -d gpu --no-cpu -q -t u32 -a bitonic --min-log 24 --max-log 24 -r 1 2>&1 | grep -E "us$|launches" | tail -30; done > $OUT/trace-one.txt 2>&1
echo "one-array at $((SECONDS-S0)) s"
wait; timeout 40 /tmp/cubseg 16 64 256 4096 65536 > $OUT/cubseg.txt 2>&1
timeout 40 /tmp/cub_sort > $OUT/cub.txt 2>&1
echo "all at $((SECONDS-S0)) s"
cat $OUT/card.txt $OUT/segments.txt; grep -E "DeviceSegmentedSort" $OUT/cubseg.txt; cat $OUT/trace.txt $OUT/regs-seg.txt $OUT/onearray.txt $OUT/regs-one.txt; grep -v '^$' $OUT/cub.txt | head -12
