#!/bin/bash
# session 2026-11-27b, call 5: the 1 GiB clsort with the pipeline's allocations, releases and
# wait for clsort_prepare in -v (the 0.14-0.18 s no step accounted for), cat and cp beside.
. .gpu/env.sh; S0=$SECONDS
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u; } > $OUT/card.txt
make -j16 all > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
gcc -O2 -pthread -o /tmp/gen .gpu/gen.c; mkdir -p /dev/shm/f; /tmp/gen /dev/shm/f/in1 1024 0 1
build/clsort -d gpu -t u32 -o /dev/shm/f/out /dev/shm/f/in1; rm -f /dev/shm/f/out  # kernels into the cache
echo "ready at $((SECONDS-S0)) s"
for i in 1 2 3; do
  /usr/bin/time -f "shm 1g --no-fsync wall %e s" build/clsort -v --no-fsync -d gpu -t u32 -o /dev/shm/f/out /dev/shm/f/in1 2>&1 | grep -vE "^clsort: (device|input|output|key|records|buffer|pipeline)"
  [ $i = 1 ] && { build/clsort -c -t u32 /dev/shm/f/out && echo sorted-ok; }
  /usr/bin/time -f "cat shm wall %e s" cat /dev/shm/f/in1 > /dev/null
  /usr/bin/time -f "cp shm wall %e s" cp /dev/shm/f/in1 /dev/shm/f/cp; rm -f /dev/shm/f/cp /dev/shm/f/out
done > $OUT/process.txt 2>&1
rm -rf /dev/shm/f; echo "all at $((SECONDS-S0)) s"; cat $OUT/card.txt $OUT/process.txt
