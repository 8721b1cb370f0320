#!/bin/bash
# session 2026-11-27d, call 4: issue 28's figures with the mapped output (4df764f): 1 GiB (tmpfs
# and ext4), 16 GiB (tmpfs), 16 GiB with -S 2G (runs on ext4), the merge of 16 sorted 1 GiB files;
# cat and cp of the same file beside, median of 3; CLSORT_CLI_MAP_OUTPUT=0 (the former pwrite
# path) beside on tmpfs. rusage per command (.gpu/rus.c).
. .gpu/env.sh; S0=$SECONDS
make -j16 all > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
gcc -O2 -o /tmp/rus .gpu/rus.c && gcc -O2 -pthread -o /tmp/gen .gpu/gen.c || exit 1
L=$OUT/files.log; T=$OUT/times.txt; C=build/clsort; R=/tmp/rus
tm() { local lab=$1; shift; echo "== $(date +%T) $lab: $*" >>$L; timeout ${TO:-60} $R "$lab" "$@" 2>>$L | tee -a $T >>$L; }
settle() { sync; sleep 0.5; }
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; free -g; df -h /dev/shm /tmp; uname -r; } >$OUT/info.txt 2>&1
mkdir -p /tmp/f /dev/shm/f /tmp/runs
/tmp/gen /tmp/f/in1 1024 0 1; /tmp/gen /dev/shm/f/in1 1024 0 1; settle
$C -d gpu -t u32 -o /dev/shm/f/warm /dev/shm/f/in1; rm -f /dev/shm/f/warm   # program cache warm
for r in 1 2 3; do for fs in /dev/shm/f /tmp/f; do P=$( [ $fs = /tmp/f ] && echo ext4 || echo shm )
  tm $P-1g-cat sh -c "cat $fs/in1 >/dev/null"; tm $P-1g-cp cp $fs/in1 $fs/cp1; rm -f $fs/cp1; settle
  tm $P-1g-clsort-nofsync $C -v --no-fsync -d gpu -t u32 -o $fs/out1 $fs/in1
  [ $r = 1 ] && { $C -c -t u32 $fs/out1 && echo sorted-ok >>$L || echo NOT-SORTED >>$L; }; rm -f $fs/out1; settle
  tm $P-1g-clsort $C -v -d gpu -t u32 -o $fs/out1 $fs/in1; rm -f $fs/out1; settle
  [ $P = shm ] && { tm shm-1g-clsort-MAP0 env CLSORT_CLI_MAP_OUTPUT=0 $C -v -d gpu -t u32 -o $fs/out1 $fs/in1; rm -f $fs/out1; settle; }
done; done; rm -f /tmp/f/in1 /dev/shm/f/in1; echo "1g done at $((SECONDS-S0)) s"
D=/dev/shm/f; /tmp/gen $D/in16 16384 0 2; settle
for r in 1 2 3; do
  tm shm-16g-cat sh -c "cat $D/in16 >/dev/null"; tm shm-16g-cp cp $D/in16 $D/cp16; rm -f $D/cp16; settle
  tm shm-16g-clsort $C -v -d gpu -t u32 -o $D/out16 $D/in16
  [ $r = 1 ] && { $C -c -t u32 $D/out16 && echo sorted-ok >>$L || echo NOT-SORTED >>$L; }; rm -f $D/out16; settle
  [ $r != 3 ] && { tm shm-16g-clsort-MAP0 env CLSORT_CLI_MAP_OUTPUT=0 $C -v -d gpu -t u32 -o $D/out16 $D/in16; rm -f $D/out16; settle; }
  TO=120 tm shm-16g-S2G-clsort $C -v -S 2G -T /tmp/runs -d gpu -t u32 -o $D/out16 $D/in16
  [ $r = 1 ] && { $C -c -t u32 $D/out16 && echo sorted-ok >>$L || echo NOT-SORTED >>$L; }; rm -f $D/out16 /tmp/runs/*; settle
  [ $((SECONDS-S0)) -gt 330 ] && break
done; rm -f $D/in16; echo "16g done at $((SECONDS-S0)) s"
if [ $((SECONDS-S0)) -lt 400 ]; then for i in $(seq -w 1 16); do /tmp/gen $D/s$i 1024 1 $i; done; settle
  for r in 1 2 3; do tm shm-m16-cat sh -c "cat $D/s* >/dev/null"; tm shm-m16-catfile sh -c "cat $D/s* > $D/cpm"; rm -f $D/cpm; settle
  TO=45 tm shm-m16-clsort $C -v -m -t u32 -o $D/outm $D/s*; rm -f $D/outm; settle
  [ $((SECONDS-S0)) -gt 500 ] && break; done; rm -f $D/s*; echo "merge done at $((SECONDS-S0)) s"; fi
rm -rf /tmp/f /dev/shm/f /tmp/runs
echo "== medians (s)"; awk '{print $2, $4}' $T | sort -k1,1 -k2,2n | awk '{a[$1]=a[$1]" "$2} END{for(k in a){n=split(a[k],v," "); printf "%-26s %7s  (all:%s)\n", k, v[int((n+1)/2)], a[k]}}' | sort
grep -v "rc 0" $T; echo "not sorted: $(grep -c NOT-SORTED $L), sorted-ok: $(grep -c sorted-ok $L)"
