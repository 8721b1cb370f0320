#!/bin/bash
# session 2026-11-27, call 6: -m of 16 sorted 1 GiB files, the output mapped (CLSORT_CLI_MERGE_MAP
# default: on tmpfs and with --no-fsync) against pwrite (=0); tmpfs, and ext4 with --no-fsync.
. .gpu/env.sh; S0=$SECONDS
{ nproc; free -g | head -2; date -u; } > $OUT/card.txt
make -j16 tools > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
L=$OUT/files.log; T=$OUT/times.txt; C=build/clsort
tm() { local lab=$1; shift; echo "== $(date +%T) $lab: $*" >>$L
  local s=$(date +%s%N); timeout ${TO:-60} "$@" >>$L 2>&1; local rc=$?; local ms=$(( ($(date +%s%N)-s)/1000000 ))
  echo "$lab $ms rc=$rc" >>$T; echo "$lab $ms rc=$rc" >>$L; }
gcc -O2 -pthread -o /tmp/gen .gpu/gen.c || exit 1
D=/dev/shm/f; mkdir -p $D /tmp/f; for i in $(seq -w 1 16); do /tmp/gen $D/s$i 1024 1 $i; done
echo "generated at $((SECONDS-S0)) s"
for r in 1 2 3; do
  tm m-cat sh -c "cat $D/s* >/dev/null"; tm m-catfile sh -c "cat $D/s* > $D/cpm"; rm -f $D/cpm
  CLSORT_CLI_MERGE_MAP=0 tm shm-pwrite $C -v -m -t u32 -o $D/outm $D/s*; [ $r = 1 ] && cp $D/outm /tmp/f/ref 2>/dev/null; rm -f $D/outm
  tm shm-mapped $C -v -m -t u32 -o $D/outm $D/s*; [ $r = 1 ] && { cmp -s $D/outm /tmp/f/ref && echo same-bytes >>$L || echo DIFFERENT >>$L; }; rm -f $D/outm
  CLSORT_CLI_MERGE_MAP=0 tm ext4-nofsync-pwrite $C -v -m --no-fsync -t u32 -o /tmp/f/outm $D/s*; rm -f /tmp/f/outm; sync
  tm ext4-nofsync-mapped $C -v -m --no-fsync -t u32 -o /tmp/f/outm $D/s*; rm -f /tmp/f/outm; sync
  echo "round $r at $((SECONDS-S0)) s"
done; rm -rf /tmp/f $D
echo "== medians (ms) =="; sort -k1,1 -k2,2n $T | awk '{a[$1]=a[$1]" "$2} END{for(k in a){n=split(a[k],v," "); printf "%-22s %6s  (all:%s)\n", k, v[int((n+1)/2)], a[k]}}' | sort
grep -v rc=0 $T; grep -cE "DIFFERENT" $L; grep -c same-bytes $L
grep -aE "^clsort: merge" $L | cut -c1-160
