#!/bin/bash
# session 2026-11-28 (seventh), call 7: seg_sort_packed with equal lengths' bounds computed (one
# load/store path) against main 73f761e (old, the span path): registers, segments A/B alternating;
# issue 26's segment table with CUB DeviceSegmentedSort beside; make check-gpu on the final tree;
# mid sizes, shipped config (A) against TILE 8192 on 512 work-items (B), 3 rounds.
. .gpu/env.sh; S0=$SECONDS
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u; } > $OUT/card.txt
rm -rf /tmp/old && mkdir -p /tmp/old && tar xf .gpu/base-src.tar -C /tmp/old && chmod -R go-w /tmp/old .gpu
( make -j8 all tests > /tmp/build.log 2>&1 ) & ( cd /tmp/old && make -j8 all > /tmp/build-old.log 2>&1 ) & wait
[ -x build/clsort-bench ] && [ -x /tmp/old/build/clsort-bench ] || { tail -20 /tmp/build.log /tmp/build-old.log; exit 1; }
( nvcc -O3 -arch=sm_90 -o /tmp/cubseg .gpu/cub_segsort_args.cu ) > /tmp/nvcc.log 2>&1 &
echo "built at $((SECONDS-S0)) s"
seg() { CLSORT_CACHE_DIR=/tmp/cc-$2 timeout 100 $1/build/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t $3 -r 5 --seg-mixes $4 --seg-sizes $5 2>&1 | grep -E "^segments|rror|FAIL|mismatch" | cut -d, -f3,4,5,8,9; }
for round in 1 2; do for v in old new; do d=$PWD; [ $v = old ] && d=/tmp/old
  echo "== round $round $v u32"; seg $d $v u32 equal 16,64,256,4096; seg $d $v u32 uniform 16,256
  echo "== round $round $v pairs32"; seg $d $v pairs32 equal 16,4096
done; done > $OUT/ab.txt 2>&1
python3 .gpu/regs.py /tmp/cc-new seg_sort_packed > $OUT/regs.txt 2>&1; python3 .gpu/regs.py /tmp/cc-old seg_sort_packed >> $OUT/regs.txt 2>&1
echo "ab at $((SECONDS-S0)) s"
{ echo "== new u32 table"; seg $PWD new u32 equal 32,128,512,1024,2048,65536; seg $PWD new u32 uniform 64,1024
  echo "== new pairs32 table"; seg $PWD new pairs32 equal 256; seg $PWD new pairs32 uniform 16,256
} > $OUT/table.txt 2>&1
echo "table at $((SECONDS-S0)) s"
wait; timeout 45 /tmp/cubseg 16 32 64 128 256 512 1024 2048 4096 65536 > $OUT/cubseg.txt 2>&1
echo "cub at $((SECONDS-S0)) s"
timeout 260 make check-gpu > $OUT/check-gpu.log 2>&1; rc=$?
echo "check-gpu rc=$rc at $((SECONDS-S0)) s"
one() { CLSORT_CACHE_DIR=/tmp/cc-cfg$1 CLSORT_CONFIG_DIR=$2 timeout 60 build/clsort-bench -d gpu --no-cpu -q -a bitonic -r 7 -t u32 --min-log 16 --max-log 22 2>&1 | grep -E "^ +[0-9]|rror|FAIL" | awk '{print $1, $2, $6, $12, $NF}'; }
for round in 1 2 3; do [ $((SECONDS-S0)) -lt 520 ] || break; for c in A B; do dir=$PWD/.gpu/cfg$c; [ $c = A ] && dir=/nonexistent
  echo "== round $round config $c"; one $c $dir; done; done > $OUT/mid.txt 2>&1
echo "mid at $((SECONDS-S0)) s"
cat $OUT/card.txt; grep -E "^(PASS|FAIL)|passed|failed" $OUT/check-gpu.log | tail -6; echo "check-gpu rc=$rc"
cat $OUT/ab.txt $OUT/table.txt; grep DeviceSegmentedSort $OUT/cubseg.txt; cat $OUT/regs.txt $OUT/mid.txt
