#!/bin/bash
# session 2026-11-28 (seventh), call 3: the driver's own view of the bitonic kernels at 512
# work-items (-cl-nv-verbose build log, CL_KERNEL_WORK_GROUP_SIZE, private memory).
. .gpu/env.sh
{ nvidia-smi -L; date -u; } > $OUT/card.txt
gcc -O1 -o /tmp/kq .gpu/kq.c -lOpenCL || exit 1
K=kernels
for shape in "256 4096 16" "512 4096 16" "512 8192 16"; do set -- $shape
  echo "== WG_SIZE=$1 TILE=$2 KEYS_PER_ITEM=$3"
  for nv in 1 " "; do echo "-- NV=$nv"; NV=$nv timeout 60 /tmp/kq "-DCLSORT_NET=0 -DKEY_BITS=32 -DVAL_BYTES=0 -DINDEX_BITS=32 -DWG_SIZE=$1 -DVEC_STEP=1 -DTILE=$2 -DKEYS_PER_ITEM=$3" $K/manifest.h $K/common.cl $K/rows.cl $K/tile.cl $K/bitonic_sort.cl $K/bitonic_merge.cl $K/bitonic_global.cl $K/bitonic_wide.cl 2>&1 | grep -vE "^$|warning" | head -60; done
done > $OUT/kq.txt 2>&1
cat $OUT/card.txt $OUT/kq.txt
