#!/bin/bash
# session 2026-11-27d, call 7: the final tree (the output mapped from the pipeline's start): 1 GiB
# on tmpfs and ext4 and 16 GiB on tmpfs in one run, cat and cp beside, median of 3.
. .gpu/env.sh; S0=$SECONDS
make -j16 all > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
gcc -O2 -o /tmp/rus .gpu/rus.c && gcc -O2 -pthread -o /tmp/gen .gpu/gen.c || exit 1
L=$OUT/files.log; T=$OUT/times.txt; C=build/clsort; R=/tmp/rus
tm() { local lab=$1; shift; echo "== $(date +%T) $lab: $*" >>$L; timeout ${TO:-60} $R "$lab" "$@" 2>>$L | tee -a $T >>$L; }
settle() { sync; sleep 0.5; }
mkdir -p /tmp/f /dev/shm/f
/tmp/gen /tmp/f/in1 1024 0 1; /tmp/gen /dev/shm/f/in1 1024 0 1; settle
$C -d gpu -t u32 -o /dev/shm/f/warm /dev/shm/f/in1; rm -f /dev/shm/f/warm
for r in 1 2 3; do for fs in /dev/shm/f /tmp/f; do P=$( [ $fs = /tmp/f ] && echo ext4 || echo shm )
  tm $P-1g-cat sh -c "cat $fs/in1 >/dev/null"; tm $P-1g-cp cp $fs/in1 $fs/cp1; rm -f $fs/cp1; settle
  tm $P-1g-clsort-nofsync $C -v --no-fsync -d gpu -t u32 -o $fs/out1 $fs/in1
  [ $r = 1 ] && { $C -c -t u32 $fs/out1 && echo sorted-ok >>$L || echo NOT-SORTED >>$L; }; rm -f $fs/out1; settle
  tm $P-1g-clsort $C -v -d gpu -t u32 -o $fs/out1 $fs/in1; rm -f $fs/out1; settle
done; done; rm -f /tmp/f/in1 /dev/shm/f/in1
D=/dev/shm/f; /tmp/gen $D/in16 16384 0 2; settle
for r in 1 2 3; do tm shm-16g-cat sh -c "cat $D/in16 >/dev/null"; tm shm-16g-cp cp $D/in16 $D/cp16; rm -f $D/cp16; settle
  tm shm-16g-clsort $C -v -d gpu -t u32 -o $D/out16 $D/in16
  [ $r = 1 ] && { $C -c -t u32 $D/out16 && echo sorted-ok >>$L || echo NOT-SORTED >>$L; }; rm -f $D/out16; settle; done
rm -rf /tmp/f /dev/shm/f; echo "all done at $((SECONDS-S0)) s"
echo "== medians (s)"; awk '{print $2, $4}' $T | sort -k1,1 -k2,2n | awk '{a[$1]=a[$1]" "$2} END{for(k in a){n=split(a[k],v," "); printf "%-26s %7s  (all:%s)\n", k, v[int((n+1)/2)], a[k]}}' | sort
grep -v "rc 0" $T; echo "not sorted: $(grep -c NOT-SORTED $L), sorted-ok: $(grep -c sorted-ok $L)"
grep -E "^clsort: +(write|setup|total) " $L | cut -c1-140 | tail -12
