#!/bin/bash
# session 2026-11-28 (seventh), call 4: does a bitonic_sort_tile built for 512 work-items run at
# 512 on the NVIDIA driver, although CL_KERNEL_WORK_GROUP_SIZE says 256?
. .gpu/env.sh
{ nvidia-smi -L; date -u; } > $OUT/card.txt
gcc -O1 -o /tmp/kq .gpu/kq.c -lOpenCL 2>/dev/null || exit 1
K=kernels
for shape in "256 4096 16" "512 4096 16" "512 8192 16" "1024 8192 16"; do set -- $shape
  echo "== WG_SIZE=$1 TILE=$2 KEYS_PER_ITEM=$3"
  NV=" " WG=$1 TILE=$2 timeout 60 /tmp/kq "-DCLSORT_NET=0 -DKEY_BITS=32 -DVAL_BYTES=0 -DINDEX_BITS=32 -DWG_SIZE=$1 -DVEC_STEP=1 -DTILE=$2 -DKEYS_PER_ITEM=$3" $K/manifest.h $K/common.cl $K/rows.cl $K/tile.cl $K/bitonic_sort.cl $K/bitonic_merge.cl $K/bitonic_global.cl $K/bitonic_wide.cl 2>&1 | grep -E "sort_tile|global_r1 |^build|launch"
done > $OUT/kq.txt 2>&1
echo "== clinfo-ish"; cat $OUT/card.txt $OUT/kq.txt
