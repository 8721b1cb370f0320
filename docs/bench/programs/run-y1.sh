#!/bin/bash
# session 2026-11-28 (ninth), call 1: the staged tiny pass of up to 64 keys. Same build:
# old = CLSORT_SEG_TINY=32 (the previous GPU default: staged up to 32 where 3/4 are that short,
# else packed), new = the default (also staged up to 64 where 3/4 are that short), f64 = staged
# up to 64 forced. Registers; traces of equal against uniform.
. .gpu/env.sh; S0=$SECONDS
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u; } > $OUT/card.txt
chmod -R go-w .gpu
make -j16 all tests > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
( nvcc -O3 -arch=sm_90 -o /tmp/cubseg .gpu/cub_segsort_args.cu ) > /tmp/nvcc.log 2>&1 &
echo "built at $((SECONDS-S0)) s"
seg() { env $1 CLSORT_CACHE_DIR=/tmp/cc-$2 timeout 100 build/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t $3 -r 5 --seg-mixes $4 --seg-sizes $5 2>&1 | grep -E "^segments|rror|FAIL|mismatch" | cut -d, -f2,4,5,8,9,16; }
envof() { case $1 in old) echo CLSORT_SEG_TINY=32;; new) echo CLSORT_X=1;; f64) echo "CLSORT_SEG_TINY=64 CLSORT_SEG_STAGE=1";; esac; }
for v in old new f64 old new; do e=$(envof $v)
  echo "== $v"; seg "$e" $v u32 equal 16,32,48,64; seg "$e" $v u32 uniform 16,24,32,48,64
  seg "$e" $v pairs32 equal 32,64; seg "$e" $v pairs32 uniform 32; seg "$e" $v u64 equal 64; seg "$e" $v u64 uniform 32
  echo "at $((SECONDS-S0)) s"
done > $OUT/ab.txt 2>&1
echo "ab at $((SECONDS-S0)) s"
{ for v in old new f64; do echo $v; python3 .gpu/regs.py /tmp/cc-$v seg_sort_tiny; done; } > $OUT/regs.txt 2>&1
for mx in "equal 64" "uniform 32" "equal 256" "uniform 256"; do set -- $mx
  for v in old new; do e=$(envof $v)
  echo "== trace $v $1 $2"; env $e CLSORT_DEBUG=2 CLSORT_CACHE_DIR=/tmp/cc-$v timeout 60 build/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t u32 -r 2 --seg-mixes $1 --seg-sizes $2 2>&1 | grep -E "^clsort:" | grep -v "cache\|device" | tail -7
  done
done > $OUT/trace.txt 2>&1
wait; timeout 60 /tmp/cubseg 32 48 64 u32 u64 > $OUT/cubseg.txt 2>&1
echo "cub at $((SECONDS-S0)) s"
cat $OUT/card.txt; cat $OUT/ab.txt; grep DeviceSegmentedSort $OUT/cubseg.txt; cat $OUT/regs.txt
