#!/bin/bash
# session 2026-11-27e, call 2: where the vector merge's system time goes. -m of 16 sorted 1 GiB
# files on tmpfs: 8, 12 and 16 threads; 16 with MADV_POPULATE_WRITE after each fallocate step
# (XPOP, an experiment's knob) and with 512 MiB steps (XSTEP); perf's kernel profile if it exists.
. .gpu/env.sh; S0=$SECONDS
make -j16 all > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
gcc -O2 -o /tmp/rus .gpu/rus.c && gcc -O2 -pthread -o /tmp/gen .gpu/gen.c || exit 1
L=$OUT/files.log; T=$OUT/times.txt; C=build/clsort; R=/tmp/rus; D=/dev/shm/f; mkdir -p $D
tm() { local lab=$1; shift; echo "== $(date +%T) $lab: $*" >>$L; timeout ${TO:-60} $R "$lab" "$@" 2>>$L | tee -a $T >>$L; }
settle() { sync; sleep 0.5; }
for i in $(seq -w 1 16); do /tmp/gen $D/s$i 1024 1 $i; done; settle
for r in 1 2; do
  for v in "th16" "th8 CLSORT_CLI_MERGE_THREADS=8" "th12 CLSORT_CLI_MERGE_THREADS=12" "pop XPOP=1" "step512 XSTEP=512" "pop-step512 XPOP=1 XSTEP=512"; do
    set -- $v; lab=$1; shift
    tm m16-$lab env "$@" $C -v -m -t u32 -o $D/outv $D/s*; rm -f $D/outv; settle; done; done
if which perf >/dev/null 2>&1; then
  perf record -a -g -o /tmp/perf.data -- $C -m -t u32 -o $D/outv $D/s* 2>>$L; rm -f $D/outv
  perf report -i /tmp/perf.data --no-children --stdio --sort sym 2>/dev/null | grep -E "^ +[0-9]" | head -40 > $OUT/perf.txt
else echo "no perf" > $OUT/perf.txt; fi
rm -rf $D; echo "all done at $((SECONDS-S0)) s"
echo "== medians (s)"; awk '{print $2, $4}' $T | sort -k1,1 -k2,2n | awk '{a[$1]=a[$1]" "$2} END{for(k in a){n=split(a[k],v," "); printf "%-22s %7s  (all:%s)\n", k, v[int((n+1)/2)], a[k]}}' | sort
cut -c1-110 $T; head -30 $OUT/perf.txt
