#!/bin/bash
# session 2026-11-28 (ninth), call 2: the staged pass with work-items reordered by size class and
# networks cut to 24/40/48/56 slots (the tree) against 8c86c2e (staged up to 64, one network
# size a group; built from git archive), same command; then issue 26's segment table and CUB.
. .gpu/env.sh; S0=$SECONDS
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u; } > $OUT/card.txt
chmod -R go-w .gpu
make -j16 all tests > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
mkdir -p /tmp/base && tar -xf .gpu/base-src.tar -C /tmp/base && chmod -R go-w /tmp/base && make -C /tmp/base -j16 all > /tmp/base.log 2>&1 || { tail -20 /tmp/base.log; exit 1; }
( nvcc -O3 -arch=sm_90 -o /tmp/cubseg .gpu/cub_segsort_args.cu ) > /tmp/nvcc.log 2>&1 &
echo "built at $((SECONDS-S0)) s"
seg() { env CLSORT_CACHE_DIR=/tmp/cc-$1 timeout 100 $2/build/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t $3 -r 5 --seg-mixes $4 --seg-sizes $5 2>&1 | grep -E "^segments|rror|FAIL|mismatch" | cut -d, -f2,4,5,8,9,16; }
for v in base new base new; do d=.; [ $v = base ] && d=/tmp/base
  echo "== $v"; seg $v $d u32 equal 16,20,24,48; seg $v $d u32 uniform 8,16,24,32
  seg $v $d pairs32 uniform 16,32; seg $v $d u64 uniform 16
  echo "at $((SECONDS-S0)) s"
done > $OUT/ab.txt 2>&1
echo "ab at $((SECONDS-S0)) s"
{ echo "== new u32 table"; seg new . u32 equal 32,64,128,256,512,1024,2048,4096,65536; seg new . u32 uniform 64,256,1024
  echo "== new pairs32 table"; seg new . pairs32 equal 16,64,4096; } > $OUT/table.txt 2>&1
echo "table at $((SECONDS-S0)) s"
python3 .gpu/regs.py /tmp/cc-new seg_sort_tiny > $OUT/regs.txt 2>&1
for mx in "uniform 16" "uniform 32"; do set -- $mx
  for v in base new; do d=.; [ $v = base ] && d=/tmp/base
  echo "== trace $v $1 $2"; CLSORT_DEBUG=2 CLSORT_CACHE_DIR=/tmp/cc-$v timeout 60 $d/build/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t u32 -r 2 --seg-mixes $1 --seg-sizes $2 2>&1 | grep -E "^clsort:" | grep -v "cache\|device" | tail -3
  done
done > $OUT/trace.txt 2>&1
wait; timeout 60 /tmp/cubseg 16 20 24 48 u8 u16 u24 > $OUT/cubseg.txt 2>&1
echo "cub at $((SECONDS-S0)) s"
cat $OUT/card.txt; cat $OUT/ab.txt $OUT/table.txt; grep DeviceSegmentedSort $OUT/cubseg.txt; cat $OUT/regs.txt $OUT/trace.txt
