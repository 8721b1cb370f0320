#!/bin/bash
# session 2026-11-28 (seventh), call 6: where seg_sort_packed's 40 registers come from: the
# driver's ptxas report (-cl-nv-verbose) for variants of segmented.cl (.gpu/segvar: v0 main,
# v1 ccd2d18, v2 no equal-length span in tiles, v3 v2 without the span branches, v4 no test,
# v5 no store-side span branch), u32 keys and u32 pairs.
. .gpu/env.sh
{ nvidia-smi -L; date -u; } > $OUT/card.txt
gcc -O1 -o /tmp/kq .gpu/kq.c -lOpenCL 2>/dev/null || exit 1
K=kernels
for vb in "0 32" "4 32"; do set -- $vb
for v in 0 1 2 3 4 5; do
  echo "== v$v VAL_BYTES=$1"
  NV=1 timeout 60 /tmp/kq "-DCLSORT_SEG=1 -DSEG_NET=0 -DKEY_BITS=$2 -DVAL_BYTES=$1 -DSEG_TILE=4096 -DSEG_WG=256 -DSEG_STABLE=0 -DSEG_TINY_LOG=0 -DTILE=4096 -DWG_SIZE=256" $K/manifest.h $K/common.cl $K/rows.cl $K/tile.cl .gpu/segvar/v$v.cl $K/seg_large.cl 2>&1 | grep -A3 "entry function 'seg_sort_packed'" | grep -E "Used|spill|^build"
done; done > $OUT/segregs.txt 2>&1
cat $OUT/card.txt $OUT/segregs.txt
