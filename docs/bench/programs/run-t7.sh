#!/bin/bash
# session 2026-11-27e, call 7: -S 2G of 16 GiB (runs on ext4) was 17.8-20.3 s in call 6 against
# 16.1 last session: the new ring (16 chunks of 4 MiB, 14 writers) against base 04542a0 (8 of
# 16 MiB, 6 writers), and the new ring with CLSORT_CLI_WRITERS=6 or 16 MiB chunks.
. .gpu/env.sh; S0=$SECONDS
make -j16 all > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
mkdir -p /tmp/base && tar -xf .gpu/base-src.tar -C /tmp/base && (cd /tmp/base && make -j16 all > $OUT/build-base.log 2>&1) || { tail -30 $OUT/build-base.log; exit 1; }
gcc -O2 -o /tmp/rus .gpu/rus.c && gcc -O2 -pthread -o /tmp/gen .gpu/gen.c || exit 1
L=$OUT/files.log; T=$OUT/times.txt; C=build/clsort; B=/tmp/base/build/clsort; R=/tmp/rus
tm() { local lab=$1; shift; echo "== $(date +%T) $lab: $*" >>$L; timeout ${TO:-60} $R "$lab" "$@" 2>>$L | tee -a $T >>$L; }
settle() { sync; sleep 0.5; }
D=/dev/shm/f; mkdir -p $D; /tmp/gen $D/in16 16384 0 2; settle
$C -d gpu -t u32 -o $D/w $D/in1 2>/dev/null; rm -f $D/w
for r in 1 2; do
  for v in "new" "base" "new-w6 CLSORT_CLI_WRITERS=6" "new-c16 CLSORT_CLI_CHUNK_SIZE=16M"; do
    set -- $v; lab=$1; shift; [ $r = 2 ] && [ $lab = new-c16 ] && continue
    X=$C; [ $lab = base ] && X=$B
    TO=100 tm S2G-$lab env "$@" $X -v -S 2G -d gpu -t u32 -o $D/out16 $D/in16; rm -f $D/out16; settle
    [ $((SECONDS-S0)) -gt 330 ] && break 2
  done; done
rm -rf $D; echo "all done at $((SECONDS-S0)) s"
echo "== medians (s)"; awk '{print $2, $4}' $T | sort -k1,1 -k2,2n | awk '{a[$1]=a[$1]" "$2} END{for(k in a){n=split(a[k],v," "); printf "%-22s %7s  (all:%s)\n", k, v[int((n+1)/2)], a[k]}}' | sort
awk '/^== /{lab=$3} /clsort: (merge|runs|read )/{print lab, $0}' $L | cut -c1-150
