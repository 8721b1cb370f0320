#!/bin/bash
# session 2026-11-27e, call 1: the vector merge (clsort_vecmerge.c) against the loser tree
# (CLSORT_CLI_VECTOR_MERGE=0) in the same command: -m of 16 sorted 1 GiB files on tmpfs, cat into
# a file beside, median of 3; then -S 2G of a 16 GiB file (runs on ext4), cp beside, 2 each.
. .gpu/env.sh; S0=$SECONDS
make -j16 all > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
gcc -O2 -o /tmp/rus .gpu/rus.c && gcc -O2 -pthread -o /tmp/gen .gpu/gen.c || exit 1
L=$OUT/files.log; T=$OUT/times.txt; C=build/clsort; R=/tmp/rus; D=/dev/shm/f; mkdir -p $D
tm() { local lab=$1; shift; echo "== $(date +%T) $lab: $*" >>$L; timeout ${TO:-60} $R "$lab" "$@" 2>>$L | tee -a $T >>$L; }
settle() { sync; sleep 0.5; }
lscpu > $OUT/cpu.txt; grep -o -w -E "avx2|avx512f|avx512bw" /proc/cpuinfo | sort | uniq -c | tee -a $OUT/cpu.txt
cat /sys/kernel/mm/transparent_hugepage/shmem_enabled | tee -a $OUT/cpu.txt
for i in $(seq -w 1 16); do /tmp/gen $D/s$i 1024 1 $i; done; settle
for r in 1 2 3; do tm m16-catfile sh -c "cat $D/s* > $D/cpm"; rm -f $D/cpm; settle
  tm m16-vector $C -v -m -t u32 -o $D/outv $D/s*; settle
  tm m16-losertree env CLSORT_CLI_VECTOR_MERGE=0 $C -v -m -t u32 -o $D/outl $D/s*; settle
  if [ $r = 1 ]; then cmp $D/outv $D/outl && echo same-bytes >>$L || echo DIFFERENT >>$L; $C -c -t u32 $D/outv && echo sorted-ok >>$L || echo NOT-SORTED >>$L; fi
  rm -f $D/outv $D/outl; settle; done
rm -f $D/s*; /tmp/gen $D/in16 16384 0 2; settle
for r in 1 2; do tm S2G-cp cp $D/in16 $D/cp16; rm -f $D/cp16; settle
  TO=120 tm S2G-vector $C -v -S 2G -d gpu -t u32 -o $D/out16 $D/in16; rm -f $D/out16; settle
  TO=120 tm S2G-losertree env CLSORT_CLI_VECTOR_MERGE=0 $C -v -S 2G -d gpu -t u32 -o $D/out16 $D/in16; rm -f $D/out16; settle
  [ $((SECONDS-S0)) -gt 420 ] && break; done
rm -rf $D; echo "all done at $((SECONDS-S0)) s"
echo "== medians (s)"; awk '{print $2, $4}' $T | sort -k1,1 -k2,2n | awk '{a[$1]=a[$1]" "$2} END{for(k in a){n=split(a[k],v," "); printf "%-22s %7s  (all:%s)\n", k, v[int((n+1)/2)], a[k]}}' | sort
grep -v "rc 0" $T; grep -c -E "same-bytes|sorted-ok" $L; grep -E "DIFFERENT|NOT-SORTED" $L
grep -E "^clsort: +(merge|runs) " $L | cut -c1-170 | tail -14
