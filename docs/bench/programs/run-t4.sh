#!/bin/bash
# session 2026-11-27e, call 4: the pipeline's ring for a 1 GiB sort on tmpfs: chunk size
# (CLSORT_CLI_CHUNK_SIZE) and chunks in the ring (XSLOTS, an experiment's knob; writers = slots
# - 2), cat and cp beside, 5 rounds.
. .gpu/env.sh; S0=$SECONDS
make -j16 all > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
gcc -O2 -o /tmp/rus .gpu/rus.c && gcc -O2 -pthread -o /tmp/gen .gpu/gen.c || exit 1
L=$OUT/files.log; T=$OUT/times.txt; C=build/clsort; R=/tmp/rus
tm() { local lab=$1; shift; echo "== $(date +%T) $lab: $*" >>$L; timeout ${TO:-60} $R "$lab" "$@" 2>>$L | tee -a $T >>$L; }
settle() { sync; sleep 0.5; }
fs=/dev/shm/f; mkdir -p $fs; /tmp/gen $fs/in1 1024 0 1; settle
$C -d gpu -t u32 -o $fs/warm $fs/in1; rm -f $fs/warm
for r in 1 2 3 4 5; do
  tm cat sh -c "cat $fs/in1 >/dev/null"; tm cp cp $fs/in1 $fs/cp1; rm -f $fs/cp1; settle
  for v in "s8c16" "s8c8 CLSORT_CLI_CHUNK_SIZE=8M" "s16c8 XSLOTS=16 CLSORT_CLI_CHUNK_SIZE=8M" "s16c4 XSLOTS=16 CLSORT_CLI_CHUNK_SIZE=4M" "s12c8 XSLOTS=12 CLSORT_CLI_CHUNK_SIZE=8M" "s16c16 XSLOTS=16"; do
    set -- $v; lab=$1; shift
    tm $lab env "$@" $C -v -d gpu -t u32 -o $fs/out1 $fs/in1
    [ $r = 1 ] && { $C -c -t u32 $fs/out1 && echo sorted-ok >>$L || echo NOT-SORTED >>$L; }; rm -f $fs/out1; settle
  done; done
rm -rf $fs; echo "all done at $((SECONDS-S0)) s"
echo "== medians (s)"; awk '{print $2, $4}' $T | sort -k1,1 -k2,2n | awk '{a[$1]=a[$1]" "$2} END{for(k in a){n=split(a[k],v," "); printf "%-10s %7s  (all:%s)\n", k, v[int((n+1)/2)], a[k]}}' | sort
grep -c sorted-ok $L; grep NOT-SORTED $L
awk '/^== /{lab=$3} /clsort: (alloc|write|total)/{print lab, $0}' $L | cut -c1-130 | tail -18
