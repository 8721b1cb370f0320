#!/bin/bash
# session 2026-11-28 (seventh), call 2: why 512 work-items a tile are refused (the bench now says
# why), and what TILE 8192 / 4096 on 512 work-items do once the reason is known.
. .gpu/env.sh; S0=$SECONDS
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u; } > $OUT/card.txt
chmod -R go-w .gpu; make -j8 all > /tmp/build.log 2>&1 || { tail -20 /tmp/build.log; exit 1; }
echo "built at $((SECONDS-S0)) s"
for c in B C; do echo "== config $c"; CLSORT_CACHE_DIR=/tmp/cc-cfg$c CLSORT_CONFIG_DIR=$PWD/.gpu/cfg$c CLSORT_DEBUG=1 timeout 60 build/clsort-bench -d gpu --no-cpu -a bitonic -r 1 -t u32 --min-log 20 --max-log 20 2>&1 | grep -v "^#" | head -20; python3 .gpu/regs.py /tmp/cc-cfg$c bitonic; done > $OUT/why.txt 2>&1
cat $OUT/card.txt $OUT/why.txt
