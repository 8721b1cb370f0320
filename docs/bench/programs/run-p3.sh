#!/bin/bash
# session 2026-11-27b, call 3: seg_sort_packed's span path, second form (no extra barrier, flag
# per tile parity) against main d5a6f2e, alternating, CUB beside; then a short process's time.
. .gpu/env.sh; S0=$SECONDS
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u; } > $OUT/card.txt
rm -rf /tmp/old && mkdir -p /tmp/old && tar xf .gpu/head-src.tar -C /tmp/old && chmod -R go-w /tmp/old
( make -j8 all > /tmp/build.log 2>&1 ) & ( cd /tmp/old && make -j8 all > /tmp/build-old.log 2>&1 ) & wait
[ -x build/clsort-bench ] && [ -x /tmp/old/build/clsort-bench ] || { tail -20 /tmp/build.log /tmp/build-old.log; exit 1; }
( nvcc -O3 -arch=sm_90 -o /tmp/cubseg .gpu/cub_segsort_args.cu ) > /tmp/nvcc.log 2>&1 &
gcc -O2 -Iinclude -o /tmp/lifetime .gpu/lifetime.c -Lbuild -lclsort -Wl,-rpath,$PWD/build || echo "lifetime: no build"
echo "built at $((SECONDS-S0)) s"
seg() { timeout 100 $1/build/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t $2 -r 5 --seg-mixes $3 --seg-sizes $4 2>&1 | grep -E "^segments|rror|FAIL|mismatch" | cut -d, -f3,4,5,8,9; }
for round in 1 2; do for tree in /tmp/old $PWD; do
  echo "== round $round $tree u32"; seg $tree u32 equal 16,32,64,256,1024,4096; seg $tree u32 uniform 16,64,256
  echo "== round $round $tree pairs32"; seg $tree pairs32 equal 16,256,4096
  echo "round $round $tree at $((SECONDS-S0)) s" >&2
done; done > $OUT/segments.txt 2>&1
wait; timeout 60 /tmp/cubseg 16 32 64 256 1024 4096 > $OUT/cub.txt 2>&1
echo "segments at $((SECONDS-S0)) s"
if [ $((SECONDS-S0)) -lt 420 ]; then
{ gcc -O2 -pthread -o /tmp/gen .gpu/gen.c; mkdir -p /dev/shm/f; /tmp/gen /dev/shm/f/in1 1024 0 1
  for i in 1 2; do
    /usr/bin/time -f "list-devices wall %e s" build/clsort --list-devices >/dev/null
    /usr/bin/time -f "lifetime 2^28 wall %e s" /tmp/lifetime $((1<<28))
    /usr/bin/time -f "lifetime 2^20 wall %e s" /tmp/lifetime $((1<<20))
    /usr/bin/time -f "shm 1g --no-fsync wall %e s" build/clsort -v --no-fsync -d gpu -t u32 -o /dev/shm/f/out /dev/shm/f/in1 2>&1 | grep -E "setup|read |write |sort |wall|overlap"
    /usr/bin/time -f "cat shm wall %e s" cat /dev/shm/f/in1 > /dev/null
    /usr/bin/time -f "cp shm wall %e s" cp /dev/shm/f/in1 /dev/shm/f/cp; rm -f /dev/shm/f/cp /dev/shm/f/out
  done; rm -rf /dev/shm/f; } > $OUT/process.txt 2>&1
fi
echo "all at $((SECONDS-S0)) s"
cat $OUT/card.txt $OUT/segments.txt; grep -E "DeviceSegmentedSort" $OUT/cub.txt; cat $OUT/process.txt 2>/dev/null | grep -v "^$"
