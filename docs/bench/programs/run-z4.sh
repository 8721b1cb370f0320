#!/bin/bash
# session 2026-11-28 (tenth), call 4: stable pairs of 32-bit keys composed (the default rule:
# where segments above 64 keys hold an eighth of the keys) against the stable passes
# (CLSORT_SEG_COMPOSE=0) and composed forced (=1) for short ones, same build; then the whole
# suite on the GPU (make check-gpu).
. .gpu/env.sh; S0=$SECONDS
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u; } > $OUT/card.txt
chmod -R go-w .gpu
make -j16 all tests > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
echo "built at $((SECONDS-S0)) s"
seg() { env $1 CLSORT_CACHE_DIR=/tmp/cc-$2 timeout 100 build/clsort-bench -d gpu --no-cpu -q --segments --stable --seg-log 24 -t pairs32 -r 3 --seg-mixes $3 --seg-sizes $4 2>&1 | grep -E "^segments|rror|FAIL|mismatch" | cut -d, -f2,4,5,8,9,16; }
for v in def c0; do e=CLSORT_X=1; [ $v = c0 ] && e=CLSORT_SEG_COMPOSE=0
  echo "== $v"; seg $e $v equal 64,128,256,1024,4096; seg $e $v uniform 32,64,256,1024
done > $OUT/stable.txt 2>&1
for v in c1 c0; do e=CLSORT_SEG_COMPOSE=1; [ $v = c0 ] && e=CLSORT_SEG_COMPOSE=0
  echo "== short $v"; seg $e $v equal 16,32; seg $e $v uniform 8,16
done >> $OUT/stable.txt 2>&1
echo "bench at $((SECONDS-S0)) s"
cat $OUT/card.txt $OUT/stable.txt
timeout 330 make check-gpu > $OUT/check-gpu.txt 2>&1; echo "check-gpu rc $? at $((SECONDS-S0)) s"
tail -8 $OUT/check-gpu.txt
