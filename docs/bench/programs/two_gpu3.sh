#!/bin/sh
# Session 2026-11-28 (eleventh), call 9: where -d gpu:all's route goes (count, the ranges'
# page-locked memory, scatter), 4 GiB then 16 GiB of u32 on two H200; -d gpu beside.
set -u
T0=$(date +%s)
. .gpu/env.sh
make -j32 all > $OUT/build.log 2>&1 || { tail -20 $OUT/build.log; exit 1; }
B=$PWD/build
D=/tmp/x2; mkdir -p $D; cd $D
[ -s u32_16g ] || python3 - <<'PY'
import numpy as np
rng = np.random.default_rng(29)
def gen(name, chunks):
    with open(name, "wb") as f:
        for _ in range(chunks):
            rng.integers(0, 2**32, size=2**28, dtype=np.uint32).tofile(f)
gen("u32_4g", 4)
gen("u32_16g", 16)
PY
sync; echo "gen done at $(( $(date +%s) - T0 )) s"
for f in u32_4g u32_16g u32_16g; do cat $f > /dev/null
  for d in gpu:all gpu; do echo "== $d $f"; s=$(date +%s.%N); $B/clsort -v -d $d -t u32 -o o.out $f 2>&1 | grep -E 'route|read |sort  |write|total|setup|compile'; e=$(date +%s.%N); echo "wall $(awk "BEGIN{print $e - $s}") s"; rm -f o.out; done
done > $OUT/route.txt 2>&1
cat $OUT/route.txt; echo "end at $(( $(date +%s) - T0 )) s"
