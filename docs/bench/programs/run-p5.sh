#!/bin/bash
# session 2026-11-27b, call 5: seg_sort_packed's span path, final form (segments of 1024 keys
# and more, no flag), against main d5a6f2e, alternating; then mid sizes with more work-items per
# tile (config variants of bitonic u32).
. .gpu/env.sh; S0=$SECONDS
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u; } > $OUT/card.txt
rm -rf /tmp/old && mkdir -p /tmp/old && tar xf .gpu/head-src.tar -C /tmp/old && chmod -R go-w /tmp/old
( make -j8 all > /tmp/build.log 2>&1 ) & ( cd /tmp/old && make -j8 all > /tmp/build-old.log 2>&1 ) & wait
[ -x build/clsort-bench ] && [ -x /tmp/old/build/clsort-bench ] || { tail -20 /tmp/build.log /tmp/build-old.log; exit 1; }
echo "built at $((SECONDS-S0)) s"
seg() { timeout 100 $1/build/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t $2 -r 5 --seg-mixes $3 --seg-sizes $4 2>&1 | grep -E "^segments|rror|FAIL|mismatch" | cut -d, -f3,4,5,8,9; }
for round in 1 2; do for tree in /tmp/old $PWD; do
  echo "== round $round $tree u32"; seg $tree u32 equal 16,64,256,1024,2048,4096,65536; seg $tree u32 uniform 16,256
  echo "== round $round $tree pairs32"; seg $tree pairs32 equal 16,1024,4096
  echo "round $round $tree at $((SECONDS-S0)) s" >&2
done; done > $OUT/segments.txt 2>&1
echo "segments at $((SECONDS-S0)) s"
# mid sizes: more work-items per tile (config variants, bitonic u32, 2^16..2^22)
mk() { local d=/tmp/cfg-$1; mkdir -p $d; chmod 755 $d
  for f in nvidia-corporation--nvidia-h200.ini nvidia-corporation--nvidia-h100-80gb-hbm3.ini; do
    printf '[device]\n\n[auto]\nrule = max bitonic\nhost_fallback_max = 4096\n\n[bitonic.32.keys]\nwg_size = %s\nvec_step = 1\ntile = %s\nkeys_per_item = 16\n' $2 $3 > $d/$f; done; }
mk t8w256 256 8192; mk t8w512 512 8192; mk t8w1024 1024 8192; mk t4w256 256 4096; mk t4w512 512 4096; mk t4w1024 1024 4096; mk t2w256 256 2048
for round in 1; do for v in shipped t8w256 t8w512 t8w1024 t4w256 t4w512 t4w1024 t2w256; do
  echo "== round $round $v"
  if [ $v = shipped ]; then E=""; else E="CLSORT_CONFIG_DIR=/tmp/cfg-$v"; fi
  env $E timeout 60 build/clsort-bench -d gpu --no-cpu -q -a bitonic -r 7 -t u32 --min-log 16 --max-log 22 2>&1 | grep -E "^ +[0-9]|rror|refus" | awk '{print $1, $2, $6, $12}'
done; done > $OUT/midsizes.txt 2>&1
echo "mid sizes at $((SECONDS-S0)) s"
cat $OUT/card.txt $OUT/segments.txt $OUT/midsizes.txt
