#!/bin/bash
# session 2026-11-28 (ninth), call 4: odd-even merge and transposition segments of 33..64 keys:
# the default (staged up to 32, the group pass above: no packed pass for these networks) against
# the staged pass of 64 forced, same build.
. .gpu/env.sh; S0=$SECONDS
{ nvidia-smi -L; date -u; } > $OUT/card.txt
chmod -R go-w .gpu
make -j16 all > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
echo "built at $((SECONDS-S0)) s"
seg() { env $1 CLSORT_CACHE_DIR=/tmp/cc-$2 timeout 60 build/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t u32 -r 5 -a $3 --seg-mixes $4 --seg-sizes $5 2>&1 | grep -E "^segments|rror|FAIL|mismatch" | cut -d, -f2,3,4,5,8,9,16; }
for a in odd-even-merge odd-even-transposition; do
  for v in def f64; do e=CLSORT_X=1; [ $v = f64 ] && e="CLSORT_SEG_TINY=64 CLSORT_SEG_STAGE=1"
    echo "== $v $a"; seg "$e" $v $a equal 48; seg "$e" $v $a uniform 32
  done
done > $OUT/ab.txt 2>&1
echo "at $((SECONDS-S0)) s"
cat $OUT/card.txt $OUT/ab.txt
