#!/bin/bash
# session 2026-11-27d, call 5: the merge's parts allocating the mapped output as they go (the lazy
# mapping of 4c...): -m of 16 sorted 1 GiB files (tmpfs) with CLSORT_CLI_MAP_OUTPUT=0 (pwrite)
# beside, and 16 GiB with -S 2G (runs on ext4); cat into a file and cp beside, median of 3.
. .gpu/env.sh; S0=$SECONDS
make -j16 all > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
gcc -O2 -o /tmp/rus .gpu/rus.c && gcc -O2 -pthread -o /tmp/gen .gpu/gen.c || exit 1
L=$OUT/files.log; T=$OUT/times.txt; C=build/clsort; R=/tmp/rus
tm() { local lab=$1; shift; echo "== $(date +%T) $lab: $*" >>$L; timeout ${TO:-60} $R "$lab" "$@" 2>>$L | tee -a $T >>$L; }
settle() { sync; sleep 0.5; }
D=/dev/shm/f; mkdir -p $D /tmp/runs
for i in $(seq -w 1 16); do /tmp/gen $D/s$i 1024 1 $i; done; settle
for r in 1 2 3; do tm shm-m16-catfile sh -c "cat $D/s* > $D/cpm"; rm -f $D/cpm; settle
  tm shm-m16-clsort $C -v -m -t u32 -o $D/outm $D/s*
  [ $r = 1 ] && mv $D/outm $D/refm; rm -f $D/outm; settle
  tm shm-m16-clsort-MAP0 env CLSORT_CLI_MAP_OUTPUT=0 $C -v -m -t u32 -o $D/outm $D/s*
  [ $r = 1 ] && { cmp -s $D/outm $D/refm && echo merge-same >>$L || echo MERGE-DIFFERS >>$L; rm -f $D/refm; }; rm -f $D/outm; settle
done; rm -f $D/s*; echo "merge done at $((SECONDS-S0)) s"
/tmp/gen $D/in16 16384 0 2; settle; $C -d gpu -t u32 -o $D/w $D/in16; rm -f $D/w; settle
for r in 1 2 3; do tm shm-16g-cp cp $D/in16 $D/cp16; rm -f $D/cp16; settle
  TO=90 tm shm-16g-S2G-clsort $C -v -S 2G -T /tmp/runs -d gpu -t u32 -o $D/out16 $D/in16
  [ $r = 1 ] && { $C -c -t u32 $D/out16 && echo sorted-ok >>$L || echo NOT-SORTED >>$L; }; rm -f $D/out16 /tmp/runs/*; settle
  [ $((SECONDS-S0)) -gt 420 ] && break
done; rm -rf $D /tmp/runs; echo "all done at $((SECONDS-S0)) s"
echo "== medians (s)"; awk '{print $2, $4}' $T | sort -k1,1 -k2,2n | awk '{a[$1]=a[$1]" "$2} END{for(k in a){n=split(a[k],v," "); printf "%-26s %7s  (all:%s)\n", k, v[int((n+1)/2)], a[k]}}' | sort
grep -v "rc 0" $T; grep -c -E "merge-same|sorted-ok" $L; grep -E "MERGE-DIFFERS|NOT-SORTED" $L
grep -E "^clsort: +(merge|runs|read) " $L | cut -c1-150
