#!/bin/bash
# session 2026-11-28 (eighth), call 2: the staged tiny pass with its network fully unrolled
# (one function per size, k in registers) against the packed pass for those segments
# (CLSORT_SEG_TINY=0), same build; registers from the driver; traces.
. .gpu/env.sh; S0=$SECONDS
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u; } > $OUT/card.txt
chmod -R go-w .gpu
make -j16 all tests > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
echo "built at $((SECONDS-S0)) s"
seg() { env $1 CLSORT_CACHE_DIR=/tmp/cc-$2 timeout 100 build/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t $3 -r 5 --seg-mixes $4 --seg-sizes $5 2>&1 | grep -E "^segments|rror|FAIL|mismatch" | cut -d, -f2,4,5,8,9,16; }
for round in 1 2; do for v in old new; do e=CLSORT_SEG_TINY=0; [ $v = new ] && e=CLSORT_X=1
  echo "== round $round $v"; seg $e $v u32 equal 16,32; seg $e $v u32 uniform 16,32,64
  [ $round = 1 ] && { seg $e $v pairs32 equal 16; seg $e $v pairs32 uniform 16; seg $e $v u64 equal 16; seg $e $v u64 uniform 16; seg $e $v pairs64 uniform 16; }
done; done > $OUT/ab.txt 2>&1
echo "ab at $((SECONDS-S0)) s"
python3 .gpu/regs.py /tmp/cc-new seg_sort_tiny > $OUT/regs.txt 2>&1
for v in new; do e=CLSORT_X=1
  for mx in "equal 16" "uniform 16" "equal 32"; do set -- $mx
    echo "== trace $v $1 $2"; env $e CLSORT_DEBUG=2 CLSORT_CACHE_DIR=/tmp/cc-$v timeout 60 build/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t u32 -r 2 --seg-mixes $1 --seg-sizes $2 2>&1 | grep -E "^clsort:  " | tail -5
  done; done > $OUT/trace.txt 2>&1
cat $OUT/card.txt; cat $OUT/ab.txt; cat $OUT/regs.txt $OUT/trace.txt
