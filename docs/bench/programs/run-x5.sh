#!/bin/bash
# session 2026-11-28 (eighth), call 5: the final tree (call 4's plus 8 groups a compute unit for
# the buffer variant's packed and group passes where it expects the staged pass to do the work).
# test_segments on the GPU; issue 26's segment table, staged where it pays (new) against every
# segment packed (CLSORT_SEG_TINY=0: the previous default), same build; CUB beside.
. .gpu/env.sh; S0=$SECONDS
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u; } > $OUT/card.txt
chmod -R go-w .gpu
make -j16 all tests > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
( nvcc -O3 -arch=sm_90 -o /tmp/cubseg .gpu/cub_segsort_args.cu ) > /tmp/nvcc.log 2>&1 &
CLSORT_CACHE_DIR=/tmp/cc-t timeout 150 build/tests/test_segments > $OUT/test_segments.log 2>&1; trc=$?
echo "test_segments rc=$trc at $((SECONDS-S0)) s"
seg() { env $1 CLSORT_CACHE_DIR=/tmp/cc-$2 timeout 60 build/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t $3 -r 5 --seg-mixes $4 --seg-sizes $5 2>&1 | grep -E "^segments|rror|FAIL|mismatch" | cut -d, -f2,4,5,8,9,16; }
{ for v in old new; do e=CLSORT_SEG_TINY=0; [ $v = new ] && e=CLSORT_X=1
  echo "== $v"; seg $e $v u32 equal 16,32; seg $e $v u32 uniform 16; seg $e $v pairs32 equal 16; seg $e $v pairs32 uniform 16
  done
  echo "== new table"; seg CLSORT_X=1 new u32 equal 64,128,256,512,1024,2048,4096; seg CLSORT_X=1 new u32 uniform 32,256
  seg CLSORT_X=1 new pairs32 equal 4096; } > $OUT/table.txt 2>&1
echo "table at $((SECONDS-S0)) s"
wait; timeout 40 /tmp/cubseg 16 32 4096 u16 > $OUT/cubseg.txt 2>&1
echo "cub at $((SECONDS-S0)) s"
cat $OUT/card.txt; tail -2 $OUT/test_segments.log; grep "^not ok" $OUT/test_segments.log | head -5; echo "test_segments rc=$trc"
cat $OUT/table.txt; grep DeviceSegmentedSort $OUT/cubseg.txt
