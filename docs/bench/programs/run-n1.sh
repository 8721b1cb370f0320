#!/bin/bash
# session 2026-11-27, call 1: config experiments for the large one-array sorts (u32 8192-key tiles
# on 512 work-items; pairs and u64 with 4096-key tiles), the same build, device time; CUB beside.
. .gpu/env.sh; S0=$SECONDS
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u; git log --oneline -1; } | tee $OUT/card.txt
make -j16 all > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "built at $((SECONDS-S0)) s"
( nvcc -O3 -arch=sm_90 -o /tmp/cub_sort .gpu/cub_sort.cu && nvcc -O3 -arch=sm_90 -o /tmp/cub_sort64 .gpu/cub_sort64.cu ) > $OUT/nvcc.log 2>&1 &
chmod -R go-w .gpu/cfg-* configs
ONE="-d gpu --no-cpu -a bitonic -r 5"
export CLSORT_CACHE_DIR=/tmp/cc
for V in base A B C; do
  if [ $V = base ]; then unset CLSORT_CONFIG_DIR; else export CLSORT_CONFIG_DIR=$PWD/.gpu/cfg-$V; fi
  {
  echo "== variant $V"
  case $V in
    base) timeout 120 build/clsort-bench $ONE -t u32 --min-log 16 --max-log 28 2>&1 | grep -vE "^clsort:"
          timeout 90 build/clsort-bench $ONE -t pairs32,u64 --min-log 20 --max-log 26 2>&1 | grep -vE "^#|^clsort:"
          timeout 90 build/clsort-bench -d gpu --no-cpu -a odd-even-merge -r 5 -t u32 --min-log 16 --max-log 26 2>&1 | grep -vE "^#|^clsort:" ;;
    A) timeout 90 build/clsort-bench $ONE -t u32 --min-log 22 --max-log 28 2>&1 | grep -vE "^clsort:" ;;
    *) timeout 90 build/clsort-bench $ONE -t pairs32,u64 --min-log 20 --max-log 26 2>&1 | grep -vE "^clsort:" ;;
  esac
  } > $OUT/bench-$V.log 2>&1
  echo "variant $V done at $((SECONDS-S0)) s"
done
unset CLSORT_CONFIG_DIR
for V in base A; do
  [ $V = A ] && export CLSORT_CONFIG_DIR=$PWD/.gpu/cfg-A
  CLSORT_DEBUG=2 timeout 60 build/clsort-bench $ONE -t u32 --min-log 24 --max-log 24 -r 1 > $OUT/trace-$V.log 2>&1
done
unset CLSORT_CONFIG_DIR
for V in base A; do
  python3 -c "
import re,collections
d=collections.OrderedDict()
for l in open('$OUT/trace-$V.log'):
    m=re.search(r'clsort:\s+(\w+)\s+items.*?([\d.]+) us$',l.strip())
    if m: d.setdefault(m.group(1),[]).append(float(m.group(2)))
print('$V', ' | '.join('%s x%d %.0f'%(k,len(v),sum(v)) for k,v in d.items()), '| total %.0f'%sum(sum(v) for v in d.values()))
"
done > $OUT/trace-summary.txt
wait
{ timeout 120 /tmp/cub_sort; timeout 120 /tmp/cub_sort64; } > $OUT/cub.txt 2>&1
echo "all done at $((SECONDS-S0)) s"
cat $OUT/trace-summary.txt | cut -c1-400
cat $OUT/cub.txt
for V in base A B C; do grep -vE "^#" $OUT/bench-$V.log | cut -c1-140; done
