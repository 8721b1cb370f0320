#!/bin/bash
# session 2026-11-28 (sixth), call 4: the final tree (the equal-length span, its state in local
# memory): issue 26's segment table, main ccd2d18 (old) at three points, CUB DeviceSegmentedSort
# beside, and seg_sort_packed's registers.
. .gpu/env.sh; S0=$SECONDS
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u; } > $OUT/card.txt
rm -rf /tmp/old && mkdir -p /tmp/old && tar xf .gpu/base-src.tar -C /tmp/old && chmod -R go-w /tmp/old .gpu
( make -j8 all > /tmp/build.log 2>&1 ) & ( cd /tmp/old && make -j8 all > /tmp/build-old.log 2>&1 ) & ( nvcc -O3 -arch=sm_90 -o /tmp/cubseg .gpu/cub_segsort_args.cu > /tmp/nvcc.log 2>&1 ) & wait
[ -x build/clsort-bench ] && [ -x /tmp/old/build/clsort-bench ] || { tail -20 /tmp/build.log /tmp/build-old.log; exit 1; }
echo "built at $((SECONDS-S0)) s"
seg() { CLSORT_CACHE_DIR=/tmp/cc-$2 timeout 60 $1/build/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t $3 -r 5 --seg-mixes $4 --seg-sizes $5 2>&1 | grep -E "^segments|rror|FAIL|mismatch" | cut -d, -f3,4,5,8,9; }
{ echo "== new u32"; seg $PWD new u32 uniform 16,256; seg $PWD new u32 equal 16,4096
  echo "== old u32"; seg /tmp/old old u32 uniform 16,256; seg /tmp/old old u32 equal 16
  echo "== new pairs32"; seg $PWD new pairs32 equal 16,256,4096
  echo "== new u32 rest"; seg $PWD new u32 equal 32,64,256,1024
  [ $((SECONDS-S0)) -lt 140 ] && seg $PWD new u32 uniform 64,1024
} > $OUT/ab.txt 2>&1
echo "segments at $((SECONDS-S0)) s"
timeout 25 /tmp/cubseg 16 64 256 4096 > $OUT/cubseg.txt 2>&1
python3 .gpu/regs.py /tmp/cc-new seg_sort_packed > $OUT/regs.txt 2>&1
echo "all at $((SECONDS-S0)) s"
cat $OUT/card.txt $OUT/ab.txt; grep DeviceSegmentedSort $OUT/cubseg.txt; cat $OUT/regs.txt
