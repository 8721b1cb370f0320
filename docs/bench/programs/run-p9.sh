#!/bin/bash
# session 2026-11-27b, call 7: the span path for pairs programs only (keys programs as d5a6f2e)
# against main d5a6f2e, alternating; then make check-gpu on the final tree.
. .gpu/env.sh; S0=$SECONDS
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u; } > $OUT/card.txt
rm -rf /tmp/old && mkdir -p /tmp/old && tar xf .gpu/head-src.tar -C /tmp/old && chmod -R go-w /tmp/old
( make -j8 all > /tmp/build.log 2>&1 ) & ( cd /tmp/old && make -j8 all > /tmp/build-old.log 2>&1 ) & wait
echo "built at $((SECONDS-S0)) s"
seg() { timeout 100 $1/build/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t $2 -r 5 --seg-mixes $3 --seg-sizes $4 2>&1 | grep -E "^segments|rror|FAIL|mismatch" | cut -d, -f3,4,5,8,9; }
for round in 1 2; do for tree in /tmp/old $PWD; do
  echo "== round $round $tree pairs32"; seg $tree pairs32 equal 16,256,1024,4096,65536
  echo "== round $round $tree u32"; seg $tree u32 equal 16,1024,4096
  echo "round $round $tree at $((SECONDS-S0)) s" >&2
done; done > $OUT/segments.txt 2>&1
echo "segments at $((SECONDS-S0)) s"
timeout 330 make check-gpu > $OUT/check-gpu.log 2>&1; echo "check-gpu rc=$? at $((SECONDS-S0)) s"
cat $OUT/card.txt $OUT/segments.txt; grep -E "^FAIL|passed" $OUT/check-gpu.log
