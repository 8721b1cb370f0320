#!/bin/bash
# session 2026-11-27c, call 4: issue 26's segment table from one command on the final tree (2^24
# u32 keys, equal and uniform lengths, 16..4096 and 65536; u32 pairs), CUB DeviceSegmentedSort
# beside; then main 5031055 against this tree for the scatter's count reads (uniform 16 and 256,
# equal 16), alternating.
. .gpu/env.sh; S0=$SECONDS
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u; } > $OUT/card.txt
rm -rf /tmp/old && mkdir -p /tmp/old && tar xf .gpu/head-src.tar -C /tmp/old && chmod -R go-w /tmp/old
( make -j8 all > /tmp/build.log 2>&1 ) & ( cd /tmp/old && make -j8 all > /tmp/build-old.log 2>&1 ) & wait
[ -x build/clsort-bench ] && [ -x /tmp/old/build/clsort-bench ] || { tail -20 /tmp/build.log /tmp/build-old.log; exit 1; }
( nvcc -O3 -arch=sm_90 -o /tmp/cubseg .gpu/cub_segsort_args.cu ) > /tmp/nvcc.log 2>&1 &
echo "built at $((SECONDS-S0)) s"
{ echo "== segments u32 (mix, s, host-variant kernels, buffer-variant span)"
  timeout 170 build/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t u32 -r 5 --seg-mixes equal,uniform --seg-sizes 16,32,64,128,256,512,1024,2048,4096,65536 2>&1 | grep -E "^segments|rror" | cut -d, -f4,5,8,9
  echo "== segments pairs32"
  timeout 120 build/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t pairs32 -r 5 --seg-mixes equal --seg-sizes 16,64,256,1024,4096 2>&1 | grep -E "^segments|rror" | cut -d, -f4,5,8,9
} > $OUT/segments.txt 2>&1
echo "segments at $((SECONDS-S0)) s"
wait; timeout 100 /tmp/cubseg 16 32 64 128 256 512 1024 2048 4096 65536 > $OUT/cub.txt 2>&1
echo "cub at $((SECONDS-S0)) s"
seg() { timeout 100 $1/build/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t u32 -r 5 --seg-mixes $2 --seg-sizes $3 2>&1 | grep -E "^segments|rror" | cut -d, -f4,5,8,9; }
for round in 1; do for tree in /tmp/old $PWD; do
  echo "== round $round $tree"; seg $tree uniform 16,256; seg $tree equal 16
  [ $((SECONDS-S0)) -gt 480 ] && break 2
done; done > $OUT/ab.txt 2>&1
echo "all at $((SECONDS-S0)) s"
cat $OUT/card.txt $OUT/segments.txt; grep -E "DeviceSegmentedSort" $OUT/cub.txt; cat $OUT/ab.txt
