#!/bin/bash
# session 2026-11-28 (tenth), call 5: stable pairs of 32-bit keys composed as 64-bit keys alone
# (values fetched from a copy by position), the default rule, at the lengths call 4 measured;
# then the whole suite on the GPU (make check-gpu) on the final kernels.
. .gpu/env.sh; S0=$SECONDS
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u; } > $OUT/card.txt
chmod -R go-w .gpu
make -j16 all tests > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
echo "built at $((SECONDS-S0)) s"
seg() { env $1 CLSORT_CACHE_DIR=/tmp/cc-$2 timeout 100 build/clsort-bench -d gpu --no-cpu -q --segments --stable --seg-log 24 -t pairs32 -r 3 --seg-mixes $3 --seg-sizes $4 2>&1 | grep -E "^segments|rror|FAIL|mismatch" | cut -d, -f2,4,5,8,9,16; }
{ echo "== def"; seg CLSORT_X=1 def equal 128,256,1024,4096; seg CLSORT_X=1 def uniform 64,256,1024; echo "== short c1"; seg CLSORT_SEG_COMPOSE=1 c1 equal 32,64; } > $OUT/stable.txt 2>&1
echo "bench at $((SECONDS-S0)) s"
cat $OUT/card.txt $OUT/stable.txt
timeout 300 make check-gpu > $OUT/check-gpu.txt 2>&1; echo "check-gpu rc $? at $((SECONDS-S0)) s"
grep -E 'FAIL|passed' $OUT/check-gpu.txt | tail -5
