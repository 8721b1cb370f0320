#!/bin/bash
# session 2026-11-28 (sixth), call 3: make check-gpu on the final tree; segments A/B against main
# ccd2d18 (old) for the equal-length span of seg_sort_packed; issue 26's segment table from one
# command with CUB DeviceSegmentedSort (keys and pairs) beside.
. .gpu/env.sh; S0=$SECONDS
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u; } > $OUT/card.txt
rm -rf /tmp/old && mkdir -p /tmp/old && tar xf .gpu/base-src.tar -C /tmp/old && chmod -R go-w /tmp/old .gpu
( make -j8 all tests > /tmp/build.log 2>&1 ) & ( cd /tmp/old && make -j8 all > /tmp/build-old.log 2>&1 ) & wait
[ -x build/clsort-bench ] && [ -x /tmp/old/build/clsort-bench ] || { tail -20 /tmp/build.log /tmp/build-old.log; exit 1; }
( nvcc -O3 -arch=sm_90 -o /tmp/cubseg .gpu/cub_segsort_args.cu ) > /tmp/nvcc.log 2>&1 &
echo "built at $((SECONDS-S0)) s"
timeout 250 make check-gpu > $OUT/check-gpu.log 2>&1; rc=$?
echo "check-gpu rc=$rc at $((SECONDS-S0)) s"
seg() { CLSORT_CACHE_DIR=/tmp/cc-$2 timeout 100 $1/build/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t $3 -r 5 --seg-mixes $4 --seg-sizes $5 2>&1 | grep -E "^segments|rror|FAIL|mismatch" | cut -d, -f3,4,5,8,9; }
for v in old new; do d=$PWD; [ $v = old ] && d=/tmp/old
  echo "== $v u32"; seg $d $v u32 equal 16,64,256,4096; seg $d $v u32 uniform 16,256
  echo "== $v pairs32"; seg $d $v pairs32 equal 16,4096
done > $OUT/ab.txt 2>&1
echo "ab at $((SECONDS-S0)) s"
{ echo "== new u32 table"; seg $PWD new u32 equal 32,128,512,1024,2048,65536; seg $PWD new u32 uniform 64,1024
  [ $((SECONDS-S0)) -lt 480 ] && { echo "== new pairs32 table"; seg $PWD new pairs32 equal 64,256,1024; }
} > $OUT/table.txt 2>&1
echo "table at $((SECONDS-S0)) s"
wait; timeout 45 /tmp/cubseg 16 32 64 128 256 512 1024 2048 4096 65536 > $OUT/cubseg.txt 2>&1
CLSORT_CACHE_DIR=/tmp/cc-new CLSORT_DEBUG=2 timeout 20 build/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t u32 -r 1 --seg-mixes equal --seg-sizes 16 2>&1 | grep -E "us$" | tail -4 > $OUT/trace.txt
python3 .gpu/regs.py /tmp/cc-new seg_sort_packed > $OUT/regs.txt 2>&1; python3 .gpu/regs.py /tmp/cc-old seg_sort_packed >> $OUT/regs.txt 2>&1
echo "all at $((SECONDS-S0)) s"
cat $OUT/card.txt; grep -E "^(PASS|FAIL)|passed|failed" $OUT/check-gpu.log | tail -6; echo "check-gpu rc=$rc"
cat $OUT/ab.txt $OUT/table.txt; grep DeviceSegmentedSort $OUT/cubseg.txt; cat $OUT/trace.txt $OUT/regs.txt
