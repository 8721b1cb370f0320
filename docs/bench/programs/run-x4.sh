#!/bin/bash
# session 2026-11-28 (eighth), call 4: the final tree. make check-gpu; the staged tiny pass
# where it pays (GPU default) against every segment packed (CLSORT_SEG_TINY=0), same build, with
# the empty passes' early exits; registers; traces; issue 26's segment table with CUB beside.
. .gpu/env.sh; S0=$SECONDS
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u; } > $OUT/card.txt
chmod -R go-w .gpu
make -j16 all tests > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
( nvcc -O3 -arch=sm_90 -o /tmp/cubseg .gpu/cub_segsort_args.cu ) > /tmp/nvcc.log 2>&1 &
echo "built at $((SECONDS-S0)) s"
timeout 280 make check-gpu > $OUT/check-gpu.log 2>&1; rc=$?
echo "check-gpu rc=$rc at $((SECONDS-S0)) s"
seg() { env $1 CLSORT_CACHE_DIR=/tmp/cc-$2 timeout 100 build/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t $3 -r 5 --seg-mixes $4 --seg-sizes $5 2>&1 | grep -E "^segments|rror|FAIL|mismatch" | cut -d, -f2,4,5,8,9,16; }
for v in old new; do e=CLSORT_SEG_TINY=0; [ $v = new ] && e=CLSORT_X=1
  echo "== $v"; seg $e $v u32 equal 16,32; seg $e $v u32 uniform 16,32
  seg $e $v pairs32 equal 16; seg $e $v pairs32 uniform 16; seg $e $v u64 uniform 16
done > $OUT/ab.txt 2>&1
echo "ab at $((SECONDS-S0)) s"
python3 .gpu/regs.py /tmp/cc-new seg_sort > $OUT/regs.txt 2>&1
{ echo "== new u32 table"; seg CLSORT_X=1 new u32 equal 64,128,256,512,1024,2048,4096,65536; seg CLSORT_X=1 new u32 uniform 64,256,1024
  echo "== new pairs32 table"; seg CLSORT_X=1 new pairs32 equal 4096; } > $OUT/table.txt 2>&1
echo "table at $((SECONDS-S0)) s"
for mx in "equal 16" "uniform 16"; do set -- $mx
  echo "== trace new $1 $2"; CLSORT_DEBUG=2 CLSORT_CACHE_DIR=/tmp/cc-new timeout 60 build/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t u32 -r 2 --seg-mixes $1 --seg-sizes $2 2>&1 | grep -E "^clsort:" | grep -v "cache\|device" | tail -9
done > $OUT/trace.txt 2>&1
wait; timeout 60 /tmp/cubseg 16 32 64 256 4096 u16 u32 > $OUT/cubseg.txt 2>&1
echo "cub at $((SECONDS-S0)) s"
cat $OUT/card.txt; grep -E "^(PASS|FAIL)|passed|failed" $OUT/check-gpu.log | tail -6; echo "check-gpu rc=$rc"
cat $OUT/ab.txt $OUT/table.txt; grep DeviceSegmentedSort $OUT/cubseg.txt; cat $OUT/regs.txt $OUT/trace.txt
