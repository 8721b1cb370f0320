#!/bin/bash
# session 2026-11-27d, call 9: -m of 16 sorted 1 GiB files (tmpfs) with 16, 24 and 32 parts
# (CLSORT_CLI_MERGE_THREADS) on the 16 cores: is the 72% use of the cores imbalance?
. .gpu/env.sh; S0=$SECONDS
make -j16 all > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
gcc -O2 -o /tmp/rus .gpu/rus.c && gcc -O2 -pthread -o /tmp/gen .gpu/gen.c || exit 1
L=$OUT/files.log; C=build/clsort; R=/tmp/rus; D=/dev/shm/f; mkdir -p $D
lscpu | grep -E "^CPU\(s\)|Thread|Core|Socket|Model name|MHz" > $OUT/cpu.txt
for i in $(seq -w 1 16); do /tmp/gen $D/s$i 1024 1 $i; done; sync
for r in 1 2; do for th in 16 32 24; do
  CLSORT_CLI_MERGE_THREADS=$th timeout 60 $R m16-th$th $C -v -m -t u32 -o $D/outm $D/s* 2>>$L | tee -a $L; rm -f $D/outm; sync; sleep 0.5; done; done
rm -rf $D; cat $OUT/cpu.txt; echo "all done at $((SECONDS-S0)) s"
