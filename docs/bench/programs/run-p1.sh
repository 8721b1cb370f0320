#!/bin/bash
# session 2026-11-27b, call 1: seg_sort_packed's span path (tiles without gaps) against main
# d5a6f2e in the same command, CUB beside; then where a short clsort process spends its time.
. .gpu/env.sh; S0=$SECONDS
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u; git log --oneline -1; } > $OUT/card.txt
make -j16 all > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
rm -rf /tmp/old && mkdir -p /tmp/old && tar xf .gpu/head-src.tar -C /tmp/old && chmod -R go-w /tmp/old
( cd /tmp/old && make -j16 all > /tmp/build-old.log 2>&1 ) || { tail -30 /tmp/build-old.log; exit 1; }
( nvcc -O3 -arch=sm_90 -o /tmp/cubseg .gpu/cub_segsort_args.cu ) > /tmp/nvcc.log 2>&1 &
gcc -O2 -Iinclude -o /tmp/lifetime .gpu/lifetime.c build/libclsort.a -lOpenCL -lpthread -lm -linih -lhwy_contrib -lhwy -lstdc++ -ldl
echo "built at $((SECONDS-S0)) s"
seg() { # $1 tree, $2 type, $3 mixes, $4 sizes
  timeout 150 $1/build/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t $2 -r 5 --seg-mixes $3 --seg-sizes $4 2>&1 | grep -E "^segments|rror|FAIL|mismatch" | cut -d, -f3,4,5,8,9; }
for round in 1 2; do
  for tree in /tmp/old $PWD; do
    echo "== round $round $tree u32"; seg $tree u32 equal,uniform 16,32,64,128,256,512,1024,2048,4096,65536
    echo "== round $round $tree pairs32"; seg $tree pairs32 equal 16,64,256,1024,4096
    echo "at $((SECONDS-S0)) s" >&2
  done
done > $OUT/segments.txt 2>&1
wait
timeout 100 /tmp/cubseg 16 32 64 128 256 512 1024 2048 4096 65536 > $OUT/cub.txt 2>&1
echo "segments at $((SECONDS-S0)) s"
# a short process: start, driver, context, programs, teardown
{ gcc -O2 -pthread -o /tmp/gen .gpu/gen.c; mkdir -p /dev/shm/f /tmp/f
  /tmp/gen /dev/shm/f/in1 1024 0 1; /tmp/gen /tmp/f/in1 1024 0 1; sync
  for i in 1 2 3; do
    /usr/bin/time -f "list-devices wall %e s" build/clsort --list-devices >/dev/null
    /usr/bin/time -f "lifetime 2^28 wall %e s" /tmp/lifetime $((1<<28))
    /usr/bin/time -f "lifetime 2^20 wall %e s" /tmp/lifetime $((1<<20))
    /usr/bin/time -f "shm 1g --no-fsync wall %e s" build/clsort -v --no-fsync -d gpu -t u32 -o /dev/shm/f/out /dev/shm/f/in1 2>&1 | grep -E "setup|read |write |sort |wall|total"
    /usr/bin/time -f "cat shm wall %e s" cat /dev/shm/f/in1 > /dev/null
    /usr/bin/time -f "cp shm wall %e s" cp /dev/shm/f/in1 /dev/shm/f/cp; rm -f /dev/shm/f/cp /dev/shm/f/out
    /usr/bin/time -f "ext4 1g wall %e s" build/clsort -v -d gpu -t u32 -o /tmp/f/out /tmp/f/in1 2>&1 | grep -E "setup|read |write |sort |sync|wall|total"
    /usr/bin/time -f "ext4 1g --no-fsync wall %e s" build/clsort -v --no-fsync -d gpu -t u32 -o /tmp/f/out /tmp/f/in1 2>&1 | grep -E "setup|wall"
    /usr/bin/time -f "cat ext4 wall %e s" cat /tmp/f/in1 > /dev/null
    /usr/bin/time -f "cp ext4 wall %e s" cp /tmp/f/in1 /tmp/f/cp; rm -f /tmp/f/cp /tmp/f/out; sync
  done; rm -rf /dev/shm/f /tmp/f; } > $OUT/process.txt 2>&1
echo "all at $((SECONDS-S0)) s"
cat $OUT/card.txt $OUT/segments.txt; grep -E "DeviceSegmentedSort" $OUT/cub.txt; cat $OUT/process.txt | grep -v "^$" | tail -45
