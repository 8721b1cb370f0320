#!/bin/bash
# session 2026-11-27, call 2: segments. old (HEAD: binning one local atomic per segment) against
# new (runs per work-item) and new with -DSEG_PACK_UNROLL=1; CUB DeviceSegmentedSort beside.
. .gpu/env.sh; S0=$SECONDS
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u; } > $OUT/card.txt
make -j16 all > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
mkdir -p /tmp/old && tar -xf .gpu/head-src.tar -C /tmp/old && chmod -R go-w /tmp/old && (cd /tmp/old && make -j16 all > /tmp/build-old.log 2>&1) || { tail /tmp/build-old.log; exit 1; }
( nvcc -O3 -arch=sm_90 -o /tmp/cubseg .gpu/cub_segsort_args.cu > /tmp/nvcc.log 2>&1 ) &
echo "built at $((SECONDS-S0)) s"
SIZES=16,32,64,128,256,512,1024,2048,4096,65536
for v in old new unroll old2 new2; do
  B=build; case $v in old*) B=/tmp/old/build ;; esac
  if [ $v = unroll ]; then export CLSORT_BUILD_OPTIONS="-DSEG_PACK_UNROLL=1" CLSORT_CACHE_DIR=/tmp/cc-unroll; else unset CLSORT_BUILD_OPTIONS; export CLSORT_CACHE_DIR=/tmp/cc-$v; fi
  {
  echo "== $v: s, mix, host-variant kernels, buffer-variant span"
  timeout 120 $B/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t u32 -r 5 --seg-mixes equal,uniform --seg-sizes $SIZES 2>&1 | grep -E "^segments" | cut -d, -f4,5,8,9
  timeout 60 $B/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t pairs32 -r 5 --seg-mixes equal --seg-sizes 16,256,4096 2>&1 | grep -E "^segments" | cut -d, -f3,4,5,8,9
  } >> $OUT/bench.txt 2>&1
  if [ $v != old2 ] && [ $v != new2 ]; then
    CLSORT_DEBUG=2 timeout 60 $B/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t u32 -r 1 --seg-mixes equal --seg-sizes 16,256 > /tmp/trace-$v.log 2>&1
    python3 -c "
import re,collections
d=collections.OrderedDict()
for l in open('/tmp/trace-$v.log'):
    m=re.search(r'clsort:\s+(seg\w+)\s+items.*?([\d.]+) us$',l.strip())
    if m: d.setdefault(m.group(1),[]).append(float(m.group(2)))
print('$v', ' | '.join('%s x%d %s'%(k,len(v),' '.join('%.0f'%x for x in v)) for k,v in d.items()))
" >> $OUT/trace-summary.txt
  fi
  echo "$v done at $((SECONDS-S0)) s"
done
unset CLSORT_BUILD_OPTIONS
chmod -R go-w .gpu/cfg-* configs
export CLSORT_CACHE_DIR=/tmp/cc-new
for V in base D E F; do
  if [ $V = base ]; then unset CLSORT_CONFIG_DIR; else export CLSORT_CONFIG_DIR=$PWD/.gpu/cfg-$V; fi
  { echo "== one array, config $V"; timeout 60 build/clsort-bench -d gpu --no-cpu -a bitonic -r 5 -t u32 --min-log 22 --max-log 26 2>&1 | grep -E "^ +[0-9]|skipped" | cut -c1-100; } >> $OUT/onearray.txt 2>&1
done
unset CLSORT_CONFIG_DIR
echo "configs done at $((SECONDS-S0)) s"
wait
timeout 120 /tmp/cubseg 16 32 64 128 256 512 1024 2048 4096 65536 > $OUT/cub.txt 2>&1
echo "all at $((SECONDS-S0)) s"
cut -c1-300 $OUT/trace-summary.txt; cat $OUT/cub.txt | tail -12; cat $OUT/bench.txt; cat $OUT/onearray.txt
