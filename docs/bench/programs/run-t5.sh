#!/bin/bash
# session 2026-11-27e, call 5: make check-gpu on the session's final code; then 1 GiB u32 files
# on tmpfs (5 rounds) and ext4 (3 rounds), cat and cp beside, against base (04542a0: the ring of
# 8 chunks of 16 MiB), built from git archive in the same command.
. .gpu/env.sh; S0=$SECONDS
make check-gpu > $OUT/check-gpu.log 2>&1; echo "check-gpu rc $? at $((SECONDS-S0)) s"; tail -5 $OUT/check-gpu.log
mkdir -p /tmp/base && tar -xf .gpu/base-src.tar -C /tmp/base && (cd /tmp/base && make -j16 all > $OUT/build-base.log 2>&1) || { tail -30 $OUT/build-base.log; exit 1; }
gcc -O2 -o /tmp/rus .gpu/rus.c && gcc -O2 -pthread -o /tmp/gen .gpu/gen.c || exit 1
L=$OUT/files.log; T=$OUT/times.txt; C=build/clsort; B=/tmp/base/build/clsort; R=/tmp/rus
tm() { local lab=$1; shift; echo "== $(date +%T) $lab: $*" >>$L; timeout ${TO:-60} $R "$lab" "$@" 2>>$L | tee -a $T >>$L; }
settle() { sync; sleep 0.5; }
mkdir -p /tmp/f /dev/shm/f
/tmp/gen /tmp/f/in1 1024 0 1; /tmp/gen /dev/shm/f/in1 1024 0 1; settle
$C -d gpu -t u32 -o /dev/shm/f/warm /dev/shm/f/in1; $B -d gpu -t u32 -o /dev/shm/f/warm /dev/shm/f/in1 2>/dev/null; rm -f /dev/shm/f/warm
for r in 1 2 3 4 5; do for fs in /dev/shm/f /tmp/f; do P=$( [ $fs = /tmp/f ] && echo ext4 || echo shm )
  [ $P = ext4 ] && [ $r -gt 3 ] && continue
  tm $P-1g-cat sh -c "cat $fs/in1 >/dev/null"; tm $P-1g-cp cp $fs/in1 $fs/cp1; rm -f $fs/cp1; settle
  tm $P-1g-base $B -v -d gpu -t u32 -o $fs/out1 $fs/in1; rm -f $fs/out1; settle
  tm $P-1g-clsort $C -v -d gpu -t u32 -o $fs/out1 $fs/in1
  [ $r = 1 ] && { $C -c -t u32 $fs/out1 && echo sorted-ok >>$L || echo NOT-SORTED >>$L; }; rm -f $fs/out1; settle
  [ $P = ext4 ] && { tm $P-1g-clsort-nofsync $C -v --no-fsync -d gpu -t u32 -o $fs/out1 $fs/in1; rm -f $fs/out1; settle; }
done; done; rm -rf /tmp/f /dev/shm/f
echo "all done at $((SECONDS-S0)) s"
echo "== medians (s)"; awk '{print $2, $4}' $T | sort -k1,1 -k2,2n | awk '{a[$1]=a[$1]" "$2} END{for(k in a){n=split(a[k],v," "); printf "%-22s %7s  (all:%s)\n", k, v[int((n+1)/2)], a[k]}}' | sort
grep -v "rc 0" $T; grep -c sorted-ok $L; grep NOT-SORTED $L
awk '/^== /{lab=$3} /clsort: (alloc|write|total|pipeline)/{print lab, $0}' $L | grep -v base | cut -c1-140 | tail -8
