#!/bin/bash
# session 2026-11-28 (eighth), call 1: the staged tiny pass (segments up to 32 keys one a
# work-item through local memory, by index; GPU default) against the packed pass for them
# (CLSORT_SEG_TINY=0, the previous GPU default), same build; test_segments on the GPU first;
# CUB DeviceSegmentedSort equal and uniform beside; registers; a trace of each.
. .gpu/env.sh; S0=$SECONDS
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u; } > $OUT/card.txt
chmod -R go-w .gpu
make -j16 all tests > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
( nvcc -O3 -arch=sm_90 -o /tmp/cubseg .gpu/cub_segsort_args.cu ) > /tmp/nvcc.log 2>&1 &
echo "built at $((SECONDS-S0)) s"
CLSORT_CACHE_DIR=/tmp/cc-t timeout 200 build/tests/test_segments > $OUT/test_segments.log 2>&1; trc=$?
echo "test_segments rc=$trc at $((SECONDS-S0)) s"; tail -3 $OUT/test_segments.log; grep "^not ok" $OUT/test_segments.log | head
seg() { env $1 CLSORT_CACHE_DIR=/tmp/cc-$2 timeout 100 build/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t $3 -r 5 --seg-mixes $4 --seg-sizes $5 2>&1 | grep -E "^segments|rror|FAIL|mismatch" | cut -d, -f2,4,5,8,9,16; }
for round in 1 2; do for v in old new; do e=CLSORT_SEG_TINY=0; [ $v = new ] && e=CLSORT_X=1
  echo "== round $round $v u32"; seg $e $v u32 equal 16,32,64; seg $e $v u32 uniform 16,32,64,256
  echo "== round $round $v pairs32"; seg $e $v pairs32 equal 16,32; seg $e $v pairs32 uniform 16
  echo "== round $round $v u64"; seg $e $v u64 equal 16; seg $e $v u64 uniform 16
done; done > $OUT/ab.txt 2>&1
echo "ab at $((SECONDS-S0)) s"
python3 .gpu/regs.py /tmp/cc-new seg_sort_tiny > $OUT/regs.txt 2>&1
for v in old new; do e=CLSORT_SEG_TINY=0; [ $v = new ] && e=CLSORT_X=1
  for mx in "equal 16" "uniform 16" "uniform 64"; do set -- $mx
    echo "== trace $v $1 $2"; env $e CLSORT_DEBUG=2 CLSORT_CACHE_DIR=/tmp/cc-$v timeout 60 build/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t u32 -r 2 --seg-mixes $1 --seg-sizes $2 2>&1 | grep -E "^clsort:  " | tail -6
  done; done > $OUT/trace.txt 2>&1
wait; timeout 60 /tmp/cubseg 16 32 64 u16 u32 u64 u256 > $OUT/cubseg.txt 2>&1
echo "cub at $((SECONDS-S0)) s"
cat $OUT/card.txt; cat $OUT/ab.txt; grep DeviceSegmentedSort $OUT/cubseg.txt; cat $OUT/regs.txt $OUT/trace.txt
