#!/bin/bash
# session 2026-11-27, call 3: make check-gpu on the final kernels, then issue 28's file figures:
# 1 GiB u32 on ext4 (clsort with and without --no-fsync, cat, cp; 3 rounds) and -m of 16 sorted
# 1 GiB files on tmpfs (3 rounds).
. .gpu/env.sh; S0=$SECONDS
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u; } > $OUT/card.txt
timeout 400 make check-gpu > $OUT/check-gpu.log 2>&1; echo "check-gpu rc=$? at $((SECONDS-S0)) s"
grep -E "passed|^FAIL|not ok" $OUT/check-gpu.log | tail -8
L=$OUT/files.log; T=$OUT/times.txt; C=build/clsort
tm() { local lab=$1; shift; echo "== $(date +%T) $lab: $*" >>$L
  local s=$(date +%s%N); timeout ${TO:-60} "$@" >>$L 2>&1; local rc=$?; local ms=$(( ($(date +%s%N)-s)/1000000 ))
  echo "$lab $ms rc=$rc" >>$T; echo "$lab $ms rc=$rc" >>$L; }
settle() { sync; sleep 0.5; }
gcc -O2 -pthread -o /tmp/gen .gpu/gen.c || exit 1
mkdir -p /tmp/f /dev/shm/f; /tmp/gen /tmp/f/in1 1024 0 1; settle
$C -d gpu -t u32 -o /tmp/f/warm /tmp/f/in1; rm -f /tmp/f/warm; settle
for r in 1 2 3; do fs=/tmp/f
  tm 1g-cat sh -c "cat $fs/in1 >/dev/null"; tm 1g-cp cp $fs/in1 $fs/cp1; rm -f $fs/cp1; settle
  tm 1g-clsort $C -v -d gpu -t u32 -o $fs/out1 $fs/in1; [ $r = 1 ] && { $C -c $fs/out1 && echo sorted-ok >>$L || echo NOT-SORTED >>$L; }; rm -f $fs/out1; settle
  tm 1g-clsort-nofsync $C -v --no-fsync -d gpu -t u32 -o $fs/out1 $fs/in1; rm -f $fs/out1; settle
done; rm -f /tmp/f/in1; echo "1g done at $((SECONDS-S0)) s"
D=/dev/shm/f; for i in $(seq -w 1 16); do /tmp/gen $D/s$i 1024 1 $i; done
for r in 1 2 3; do
  tm m-cat sh -c "cat $D/s* >/dev/null"; tm m-catfile sh -c "cat $D/s* > $D/cpm"; rm -f $D/cpm
  TO=60 tm m-clsort $C -v -m -t u32 -o $D/outm $D/s*; [ $r = 1 ] && { $C -c $D/outm && echo merge-sorted-ok >>$L || echo MERGE-NOT-SORTED >>$L; }; rm -f $D/outm
done; rm -rf /tmp/f /dev/shm/f; echo "merge done at $((SECONDS-S0)) s"
echo "== medians (ms) =="; sort -k1,1 -k2,2n $T | awk '{a[$1]=a[$1]" "$2} END{for(k in a){n=split(a[k],v," "); printf "%-20s %6s  (all:%s)\n", k, v[int((n+1)/2)], a[k]}}' | sort
grep -v rc=0 $T; grep -c "NOT-SORTED" $L; grep -E "sorted-ok" $L | sort | uniq -c
grep -aE "^clsort: (setup|read|sort|write|sync|total|merge)" $L | sort | uniq -c | sort -rn | head -30
