#!/bin/bash
# session 2026-11-28 (sixth), call 2: seg_sort_packed's tile count by shifts (new) and the span flag
# (new + -DPACK_SPAN_FLAG=1) against main ccd2d18 (old), one round each, alternating; registers;
# traces at 16; why 512 work-items are refused for bitonic u32.
. .gpu/env.sh; S0=$SECONDS
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u; } > $OUT/card.txt
rm -rf /tmp/old && mkdir -p /tmp/old && tar xf .gpu/base-src.tar -C /tmp/old && chmod -R go-w /tmp/old .gpu
( make -j8 all > /tmp/build.log 2>&1 ) & ( cd /tmp/old && make -j8 all > /tmp/build-old.log 2>&1 ) & wait
[ -x build/clsort-bench ] && [ -x /tmp/old/build/clsort-bench ] || { tail -20 /tmp/build.log /tmp/build-old.log; exit 1; }
echo "built at $((SECONDS-S0)) s"
seg() { CLSORT_CACHE_DIR=/tmp/cc-$2 timeout 100 $1/build/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t $3 -r 5 --seg-mixes $4 --seg-sizes $5 2>&1 | grep -E "^segments|rror|FAIL|mismatch" | cut -d, -f3,4,5,8,9; }
var() { case $1 in old) echo /tmp/old;; *) echo $PWD;; esac; }
for round in 1 2; do for v in old new flag; do d=$(var $v); o=; [ $v = flag ] && o=-DPACK_SPAN_FLAG=1
  echo "== round $round $v u32"; CLSORT_BUILD_OPTIONS=$o seg $d $v u32 equal 16,64,256,4096; CLSORT_BUILD_OPTIONS=$o seg $d $v u32 uniform 16,256
  echo "== round $round $v pairs32"; CLSORT_BUILD_OPTIONS=$o seg $d $v pairs32 equal 16,4096
  echo "$round $v at $((SECONDS-S0)) s" >&2
  [ $((SECONDS-S0)) -gt 330 ] && break 2
done; done > $OUT/segments.txt 2> $OUT/progress.txt
echo "segments at $((SECONDS-S0)) s"
for v in old new flag; do d=$(var $v); o=; [ $v = flag ] && o=-DPACK_SPAN_FLAG=1; for m in equal uniform; do echo "== $v $m 16"; CLSORT_BUILD_OPTIONS=$o CLSORT_CACHE_DIR=/tmp/cc-$v CLSORT_DEBUG=2 timeout 30 $d/build/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t u32 -r 1 --seg-mixes $m --seg-sizes 16 2>&1 | grep -E "us$" | tail -3; done; done > $OUT/trace.txt 2>&1
for v in old new flag; do echo "== $v"; python3 .gpu/regs.py /tmp/cc-$v seg_sort_packed; done > $OUT/regs-seg.txt 2>&1
echo "traces at $((SECONDS-S0)) s"
CLSORT_CACHE_DIR=/tmp/cc-cfgB CLSORT_CONFIG_DIR=$PWD/.gpu/cfgB timeout 60 build/clsort-bench -d gpu --no-cpu -a bitonic -r 1 -t u32 --min-log 20 --max-log 20 > $OUT/cfgB.txt 2>&1
python3 .gpu/regs.py /tmp/cc-cfgB bitonic >> $OUT/cfgB.txt 2>&1
echo "all at $((SECONDS-S0)) s"
cat $OUT/card.txt $OUT/segments.txt $OUT/trace.txt $OUT/regs-seg.txt; grep -iE "allow|unsupported|error" $OUT/cfgB.txt | head -5; tail -4 $OUT/cfgB.txt
