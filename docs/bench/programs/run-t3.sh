#!/bin/bash
# session 2026-11-27e, call 3: the output mapped while the context is made (start_early_map)
# against the tree before it (base: f463657, built from git archive in the same command), 1 GiB
# u32 on tmpfs and ext4, cat and cp beside, 5 rounds; XEXIT (an experiment's knob): 1 ends the
# process right after the summary without tearing down the context, 2 times clsort_destroy.
# Then -m of 16 sorted 1 GiB files with the grown allocation steps, cat into a file beside.
. .gpu/env.sh; S0=$SECONDS
make -j16 all > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
mkdir -p /tmp/base && tar -xf .gpu/base-src.tar -C /tmp/base && (cd /tmp/base && make -j16 all > $OUT/build-base.log 2>&1) || { tail -30 $OUT/build-base.log; exit 1; }
gcc -O2 -o /tmp/rus .gpu/rus.c && gcc -O2 -pthread -o /tmp/gen .gpu/gen.c || exit 1
L=$OUT/files.log; T=$OUT/times.txt; C=build/clsort; B=/tmp/base/build/clsort; R=/tmp/rus
tm() { local lab=$1; shift; echo "== $(date +%T) $lab: $*" >>$L; timeout ${TO:-60} $R "$lab" "$@" 2>>$L | tee -a $T >>$L; }
settle() { sync; sleep 0.5; }
mkdir -p /tmp/f /dev/shm/f
/tmp/gen /tmp/f/in1 1024 0 1; /tmp/gen /dev/shm/f/in1 1024 0 1; settle
$C -d gpu -t u32 -o /dev/shm/f/warm /dev/shm/f/in1; $B -d gpu -t u32 -o /dev/shm/f/warm /dev/shm/f/in1; rm -f /dev/shm/f/warm
for r in 1 2 3 4 5; do for fs in /dev/shm/f /tmp/f; do P=$( [ $fs = /tmp/f ] && echo ext4 || echo shm )
  [ $P = ext4 ] && [ $r -gt 3 ] && continue
  tm $P-1g-cat sh -c "cat $fs/in1 >/dev/null"; tm $P-1g-cp cp $fs/in1 $fs/cp1; rm -f $fs/cp1; settle
  tm $P-1g-base $B -v -d gpu -t u32 -o $fs/out1 $fs/in1; rm -f $fs/out1; settle
  tm $P-1g-early $C -v -d gpu -t u32 -o $fs/out1 $fs/in1
  [ $r = 1 ] && { $C -c -t u32 $fs/out1 && echo sorted-ok >>$L || echo NOT-SORTED >>$L; }; rm -f $fs/out1; settle
  [ $P = shm ] && { tm $P-1g-early-xexit1 env XEXIT=1 $C -v -d gpu -t u32 -o $fs/out1 $fs/in1; cmp -s $fs/out1 $fs/in1 && echo UNSORTED-SAME >>$L; rm -f $fs/out1; settle
    tm $P-1g-early-xexit2 env XEXIT=2 $C -v -d gpu -t u32 -o $fs/out1 $fs/in1; rm -f $fs/out1; settle; }
done; done; rm -rf /tmp/f
D=/dev/shm/f; rm -f $D/*; for i in $(seq -w 1 16); do /tmp/gen $D/s$i 1024 1 $i; done; settle
for r in 1 2 3; do tm m16-catfile sh -c "cat $D/s* > $D/cpm"; rm -f $D/cpm; settle
  tm m16-vector $C -v -m -t u32 -o $D/outv $D/s*; rm -f $D/outv; settle; done
rm -rf $D; echo "all done at $((SECONDS-S0)) s"
echo "== medians (s)"; awk '{print $2, $4}' $T | sort -k1,1 -k2,2n | awk '{a[$1]=a[$1]" "$2} END{for(k in a){n=split(a[k],v," "); printf "%-22s %7s  (all:%s)\n", k, v[int((n+1)/2)], a[k]}}' | sort
grep -v "rc 0" $T; grep -c sorted-ok $L; grep -E "NOT-SORTED" $L; grep XDESTROY $L | tr '\n' ' '; echo
grep -E "^clsort: +(setup|alloc|write|total) " $L | cut -c1-150 | tail -16
