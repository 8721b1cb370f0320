#!/bin/bash
# session 2026-11-28 (ninth), call 3: the final tree (staged pass up to 64 keys, one network a
# group, the 24-slot cut network) against 8c86c2e (built from git archive), same command; then
# make check-gpu.
. .gpu/env.sh; S0=$SECONDS
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u; } > $OUT/card.txt
chmod -R go-w .gpu
make -j16 all tests > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
mkdir -p /tmp/base && tar -xf .gpu/base-src.tar -C /tmp/base && chmod -R go-w /tmp/base && make -C /tmp/base -j16 all > /tmp/base.log 2>&1 || { tail -20 /tmp/base.log; exit 1; }
echo "built at $((SECONDS-S0)) s"
seg() { env CLSORT_CACHE_DIR=/tmp/cc-$1 timeout 100 $2/build/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t $3 -r 5 --seg-mixes $4 --seg-sizes $5 2>&1 | grep -E "^segments|rror|FAIL|mismatch" | cut -d, -f2,4,5,8,9,16; }
for v in base new; do d=.; [ $v = base ] && d=/tmp/base
  echo "== $v"; seg $v $d u32 equal 16,20,24,48,64; seg $v $d u32 uniform 12,16,24,32
  seg $v $d pairs32 uniform 32; seg $v $d u64 uniform 16
  echo "at $((SECONDS-S0)) s"
done > $OUT/ab.txt 2>&1
echo "ab at $((SECONDS-S0)) s"
python3 .gpu/regs.py /tmp/cc-new seg_sort_tiny > $OUT/regs.txt 2>&1
timeout 330 make check-gpu > $OUT/check-gpu.log 2>&1; rc=$?
echo "check-gpu rc=$rc at $((SECONDS-S0)) s"
cat $OUT/card.txt; grep -E "^(PASS|FAIL)|passed|failed" $OUT/check-gpu.log | tail -6; echo "check-gpu rc=$rc"
cat $OUT/ab.txt $OUT/regs.txt
