#!/bin/bash
# session 2026-11-27b, call 6: the whole suite on the GPU (make check-gpu).
. .gpu/env.sh; S0=$SECONDS
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u; } > $OUT/card.txt
timeout 500 make check-gpu > $OUT/check-gpu.log 2>&1; echo "check-gpu rc=$? at $((SECONDS-S0)) s"
cat $OUT/card.txt; tail -60 $OUT/check-gpu.log | grep -vE "^ok|^#"
