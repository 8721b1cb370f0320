#!/bin/bash
# session 2026-11-27d, call 1: make check-gpu on main; a 16 GiB u32 file sorted in one run (the
# clsort_prepare fill fix of 1903a1e, unverified on a GPU); where the 16-way merge spends its time
# (rusage: user, sys, faults, context switches) at 16, 8 and 4 threads.
. .gpu/env.sh; S0=$SECONDS
gcc -O2 -o /tmp/rus .gpu/rus.c && gcc -O2 -pthread -o /tmp/gen .gpu/gen.c || exit 1
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; free -g; df -h /dev/shm /tmp; uname -r; } >$OUT/info.txt 2>&1
make check-gpu > $OUT/check.log 2>&1; echo "check-gpu rc=$? at $((SECONDS-S0)) s"; grep -E "passed|failed|FAIL" $OUT/check.log | tail -4
C=build/clsort; D=/dev/shm/f; mkdir -p $D; R="/tmp/rus"
settle() { sync; sleep 0.5; }
/tmp/gen $D/in16 16384 0 2; settle; echo "16g generated at $((SECONDS-S0)) s"
for r in 1 2; do
  $R 16g-cat sh -c "cat $D/in16 >/dev/null"; $R 16g-cp cp $D/in16 $D/cp16; rm -f $D/cp16; settle
  timeout 120 $R 16g-clsort-nofsync $C -v --no-fsync -d gpu -t u32 -o $D/out16 $D/in16 2>>$OUT/v16.log
  [ $r = 1 ] && { $C -c -t u32 $D/out16 && echo sorted-ok || echo NOT-SORTED; }; rm -f $D/out16; settle
done 2>&1 | tee $OUT/r16.log | grep -E "RUS|sorted|SORT"
rm -f $D/in16; echo "16g done at $((SECONDS-S0)) s"; grep -E "^clsort: +(setup|read|upload|sort|download|write|alloc|total|overlap)" $OUT/v16.log | head -24
for i in $(seq -w 1 16); do /tmp/gen $D/s$i 1024 1 $i; done; settle; echo "merge inputs at $((SECONDS-S0)) s"
{ $R m16-catfile sh -c "cat $D/s* > $D/cpm"; rm -f $D/cpm; settle
  for th in 16 8 4 16; do [ $((SECONDS-S0)) -gt 540 ] && break
    CLSORT_CLI_MERGE_THREADS=$th timeout 60 $R m16-merge-th$th $C -v --no-fsync -m -t u32 -o $D/outm $D/s* 2>>$OUT/vm.log; rm -f $D/outm; settle; done; } 2>&1 | tee $OUT/merge.log | grep RUS
rm -rf $D; echo "all done at $((SECONDS-S0)) s"
