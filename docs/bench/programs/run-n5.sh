#!/bin/bash
# session 2026-11-27, call 5: seg_sort_packed with the bins' counts in local memory (new) against
# HEAD (old), u32 keys, 2^24, equal and uniform lengths; traces at s = 16; twice each, alternating.
. .gpu/env.sh; S0=$SECONDS
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u; } > $OUT/card.txt
make -j16 all > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
rm -rf /tmp/old; mkdir -p /tmp/old && tar -xf .gpu/head-src.tar -C /tmp/old && chmod -R go-w /tmp/old && (cd /tmp/old && make -j16 all > /tmp/build-old.log 2>&1) || { tail /tmp/build-old.log; exit 1; }
echo "built at $((SECONDS-S0)) s"
for v in old new old new; do
  B=build; [ $v = old ] && B=/tmp/old/build
  export CLSORT_CACHE_DIR=/tmp/cc-$v
  { echo "== $v: mix, s, host-variant kernels, buffer-variant span"
    timeout 100 $B/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t u32 -r 5 --seg-mixes equal,uniform --seg-sizes 16,32,64,128,256,512,1024,2048,4096 2>&1 | grep -E "^segments" | cut -d, -f4,5,8,9 | tr '\n' ' '; echo; } >> $OUT/bench.txt 2>&1
  CLSORT_DEBUG=2 timeout 60 $B/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t u32 -r 1 --seg-mixes equal --seg-sizes 16,256 > /tmp/trace-$v.log 2>&1
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
{ echo "== pairs32 old/new"; for v in old new; do B=build; [ $v = old ] && B=/tmp/old/build; export CLSORT_CACHE_DIR=/tmp/cc-$v
  timeout 100 $B/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t pairs32 -r 5 --seg-mixes equal --seg-sizes 16,64,256,1024,4096 2>&1 | grep -E "^segments" | cut -d, -f3,4,5,8,9 | tr '\n' ' '; echo; done; } >> $OUT/bench.txt 2>&1
echo "all at $((SECONDS-S0)) s"
cat $OUT/bench.txt
