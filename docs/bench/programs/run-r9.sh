#!/bin/bash
# session 2026-11-27d, call 8: why -S 2G's merge of runs on ext4 is slower than -m of tmpfs files:
# the same sort with its runs on ext4 and on tmpfs, and with the runs written by pwrite
# (CLSORT_CLI_MAP_OUTPUT=0), rusage per command; /proc/vmstat's writeback counters around each.
. .gpu/env.sh; S0=$SECONDS
make -j16 all > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
gcc -O2 -o /tmp/rus .gpu/rus.c && gcc -O2 -pthread -o /tmp/gen .gpu/gen.c || exit 1
L=$OUT/files.log; C=build/clsort; R=/tmp/rus; D=/dev/shm/f; mkdir -p $D /tmp/runs /dev/shm/runs
cat /sys/kernel/mm/transparent_hugepage/shmem_enabled /sys/kernel/mm/transparent_hugepage/enabled; grep -E "dev/shm| / " /proc/mounts
sysctl vm.dirty_ratio vm.dirty_background_ratio 2>/dev/null
/tmp/gen $D/in16 16384 0 2; sync; $C -d gpu -t u32 -o $D/w $D/in16; rm -f $D/w; sync
for r in 1 2; do for v in "ext4 /tmp/runs" "shm /dev/shm/runs" "ext4-pwrite /tmp/runs"; do set -- $v
  e=; [ $1 = ext4-pwrite ] && e=CLSORT_CLI_MAP_OUTPUT=0
  echo "== $1" >>$L; grep -E "^nr_dirty |^nr_writeback " /proc/vmstat | tr '\n' ' ' >>$L; echo >>$L
  timeout 90 $R S2G-$1 env $e $C -v -S 2G -T $2 -d gpu -t u32 -o $D/out16 $D/in16 2>>$L | tee -a $L
  grep -E "^nr_dirty |^nr_writeback " /proc/vmstat | tr '\n' ' ' >>$L; echo >>$L
  rm -f $D/out16 $2/*; sync; sleep 1; done; [ $((SECONDS-S0)) -gt 300 ] && break; done
rm -rf $D /dev/shm/runs /tmp/runs; echo "all done at $((SECONDS-S0)) s"
grep -E "^== |RUS|^clsort: +(read|runs|merge) " $L | cut -c1-160
