#!/bin/bash
# session 2026-11-27e, call 6: the files table on the session's final code: 16 GiB u32 on tmpfs
# in one run (cat, cp and base 04542a0 beside, 3 rounds), with -S 2G (runs on ext4, 2 rounds),
# and -m of 16 sorted 1 GiB files (cat into a file beside; the loser tree in the same command).
. .gpu/env.sh; S0=$SECONDS
make -j16 all > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
mkdir -p /tmp/base && tar -xf .gpu/base-src.tar -C /tmp/base && (cd /tmp/base && make -j16 all > $OUT/build-base.log 2>&1) || { tail -30 $OUT/build-base.log; exit 1; }
gcc -O2 -o /tmp/rus .gpu/rus.c && gcc -O2 -pthread -o /tmp/gen .gpu/gen.c || exit 1
L=$OUT/files.log; T=$OUT/times.txt; C=build/clsort; B=/tmp/base/build/clsort; R=/tmp/rus
tm() { local lab=$1; shift; echo "== $(date +%T) $lab: $*" >>$L; timeout ${TO:-60} $R "$lab" "$@" 2>>$L | tee -a $T >>$L; }
settle() { sync; sleep 0.5; }
D=/dev/shm/f; mkdir -p $D; /tmp/gen $D/in16 16384 0 2; settle
$C -d gpu -t u32 -o $D/w $D/in16; rm -f $D/w; settle
for r in 1 2 3; do tm 16g-cat sh -c "cat $D/in16 >/dev/null"; tm 16g-cp cp $D/in16 $D/cp16; rm -f $D/cp16; settle
  tm 16g-base $B -v -d gpu -t u32 -o $D/out16 $D/in16; rm -f $D/out16; settle
  tm 16g-clsort $C -v -d gpu -t u32 -o $D/out16 $D/in16
  [ $r = 1 ] && { $C -c -t u32 $D/out16 && echo sorted-ok >>$L || echo NOT-SORTED >>$L; }; rm -f $D/out16; settle; done
for r in 1 2; do TO=120 tm S2G-clsort $C -v -S 2G -d gpu -t u32 -o $D/out16 $D/in16
  [ $r = 1 ] && { $C -c -t u32 $D/out16 && echo sorted-ok >>$L || echo NOT-SORTED >>$L; }; rm -f $D/out16; settle; done
rm -f $D/in16; for i in $(seq -w 1 16); do /tmp/gen $D/s$i 1024 1 $i; done; settle
for r in 1 2 3; do tm m16-catfile sh -c "cat $D/s* > $D/cpm"; rm -f $D/cpm; settle
  tm m16-vector $C -v -m -t u32 -o $D/outm $D/s*
  [ $r = 1 ] && { $C -c -t u32 $D/outm && echo sorted-ok >>$L || echo NOT-SORTED >>$L; }; rm -f $D/outm; settle
  tm m16-losertree env CLSORT_CLI_VECTOR_MERGE=0 $C -v -m -t u32 -o $D/outm $D/s*; rm -f $D/outm; settle; done
rm -rf $D; echo "all done at $((SECONDS-S0)) s"
echo "== medians (s)"; awk '{print $2, $4}' $T | sort -k1,1 -k2,2n | awk '{a[$1]=a[$1]" "$2} END{for(k in a){n=split(a[k],v," "); printf "%-22s %7s  (all:%s)\n", k, v[int((n+1)/2)], a[k]}}' | sort
grep -v "rc 0" $T; grep -c sorted-ok $L; grep NOT-SORTED $L
awk '/^== /{lab=$3} /clsort: (write|merge|runs|read )/{print lab, $0}' $L | grep -v base | cut -c1-150 | tail -12
