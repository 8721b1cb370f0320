#!/bin/bash
# session 2026-11-28 (tenth), call 3: clsort-tune on the H200 with this session's kernels (the
# odd-even merge's tile sort from registers), then the shipped config against the tuned file
# (CLSORT_CONFIG_DIR) in the same command, bitonic and odd-even merge, device time.
. .gpu/env.sh; S0=$SECONDS
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u; } > $OUT/card.txt
chmod -R go-w .gpu
make -j16 all > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
echo "built at $((SECONDS-S0)) s"
CLSORT_CACHE_DIR=/tmp/cc-tune timeout 330 build/clsort-tune -d gpu --budget 300 -o $OUT/tuned.ini -v > $OUT/tune.log 2>&1
echo "tuned at $((SECONDS-S0)) s, rc $?"
mkdir -p /tmp/cfgT && cp $OUT/tuned.ini /tmp/cfgT/nvidia-corporation--nvidia-h200.ini && chmod -R go-w /tmp/cfgT && chmod go-w /tmp
one() { env $1 CLSORT_CACHE_DIR=/tmp/cc-$2 timeout 100 build/clsort-bench -d gpu --no-cpu -q -t $3 -a $4 --min-log 12 --max-log 24 -r 3 2>&1 | grep -E "^ +[0-9]+ +(odd|bit)|rror|^# device" | awk '/^# device/{print; next} {print $1, $2, $6, $12, $NF}' | sed 's/.*| config /config /'; }
for v in shipped tuned shipped tuned; do e=CLSORT_X=1; [ $v = tuned ] && e=CLSORT_CONFIG_DIR=/tmp/cfgT
  echo "== $v"; one $e $v u32 bitonic,odd-even-merge; one $e $v pairs32,u64 bitonic,odd-even-merge
  echo "at $((SECONDS-S0)) s"
done > $OUT/ab.txt 2>&1
echo "end at $((SECONDS-S0)) s"
cat $OUT/card.txt; grep -v '^#' $OUT/tuned.ini | grep -v '^$' | head -60; cat $OUT/ab.txt
