#!/bin/bash
# session 2026-11-27, call 4: seg_sort_packed's slot loops unrolled by the compiler's choice, 1
# (none), 2 and 4; one-array configs D (TILE 4096, 512 work-items), E (4096, 1024), F (8192,
# 1024) above 2^22; CUB DeviceSegmentedSort beside.
. .gpu/env.sh; S0=$SECONDS
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u; } > $OUT/card.txt
make -j16 all > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
( nvcc -O3 -arch=sm_90 -o /tmp/cubseg .gpu/cub_segsort_args.cu > /tmp/nvcc.log 2>&1 ) &
echo "built at $((SECONDS-S0)) s"
for v in dflt u1 u2 u4; do
  case $v in dflt) unset CLSORT_BUILD_OPTIONS ;; u*) export CLSORT_BUILD_OPTIONS="-DSEG_PACK_UNROLL=${v#u}" ;; esac
  export CLSORT_CACHE_DIR=/tmp/cc-$v
  { echo "== $v: s, host-variant kernels, buffer-variant span"
    timeout 100 build/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t u32 -r 5 --seg-mixes equal --seg-sizes 16,64,256,4096 2>&1 | grep -E "^segments" | cut -d, -f5,8,9 | tr '\n' ' '; echo; } >> $OUT/bench.txt 2>&1
  CLSORT_DEBUG=2 timeout 60 build/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t u32 -r 1 --seg-mixes equal --seg-sizes 16 > /tmp/trace-$v.log 2>&1
  python3 -c "
import re,collections
d=collections.OrderedDict()
for l in open('/tmp/trace-$v.log'):
    m=re.search(r'clsort:\s+(seg\w+)\s+items.*?([\d.]+) us$',l.strip())
    if m: d.setdefault(m.group(1),[]).append(float(m.group(2)))
print('$v', ' | '.join('%s x%d %s'%(k,len(v),' '.join('%.0f'%x for x in v)) for k,v in d.items()))
" >> $OUT/bench.txt
  echo "$v done at $((SECONDS-S0)) s"
done
unset CLSORT_BUILD_OPTIONS
chmod -R go-w .gpu/cfg-* configs
export CLSORT_CACHE_DIR=/tmp/cc-dflt
for V in base D E F; do
  if [ $V = base ]; then unset CLSORT_CONFIG_DIR; else export CLSORT_CONFIG_DIR=$PWD/.gpu/cfg-$V; fi
  { echo "== one array, config $V"; timeout 60 build/clsort-bench -d gpu --no-cpu -a bitonic -r 5 -t u32 --min-log 22 --max-log 26 2>&1 | grep -E "^ +[0-9]|skipped" | cut -c1-100; } >> $OUT/onearray.txt 2>&1
  echo "config $V done at $((SECONDS-S0)) s"
done
unset CLSORT_CONFIG_DIR
wait
timeout 100 /tmp/cubseg 16 32 64 128 256 512 1024 2048 4096 65536 > $OUT/cub.txt 2>&1
echo "all at $((SECONDS-S0)) s"
cat $OUT/bench.txt; tail -12 $OUT/cub.txt; cat $OUT/onearray.txt
