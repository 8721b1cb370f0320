#!/bin/bash
# session 2026-11-27d, call 2: the mapped output (cli_writer_map) against pwrite
# (CLSORT_CLI_MAP_OUTPUT=0) in the same command: the 16-way merge of 16 GiB (tmpfs), 1 GiB and
# 16 GiB sorted in one run (tmpfs), 16 GiB with -S 2G (runs on ext4), a 4 GiB merge into ext4 with
# and without the fsync; cat and cp beside. rusage per command (.gpu/rus.c).
. .gpu/env.sh; S0=$SECONDS
make -j16 all > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
gcc -O2 -o /tmp/rus .gpu/rus.c && gcc -O2 -pthread -o /tmp/gen .gpu/gen.c || exit 1
C=build/clsort; D=/dev/shm/f; E=/tmp/f; mkdir -p $D $E /tmp/runs; R=/tmp/rus; L=$OUT/v.log
settle() { sync; sleep 0.3; }
run() { local lab=$1; shift; echo "== $lab" >>$L; $R "$lab" "$@" 2>>$L | tee -a $OUT/rus.txt; }
echo "built at $((SECONDS-S0)) s"
# 1 GiB, warm-up first (program cache, first context)
/tmp/gen $D/in1 1024 0 1; settle; $C -d gpu -t u32 -o $D/w $D/in1; rm -f $D/w
for r in 1 2 3; do run 1g-cat sh -c "cat $D/in1 >/dev/null"; run 1g-cp cp $D/in1 $D/cp1; rm -f $D/cp1; settle
  for m in 0 d; do run 1g-map$m env CLSORT_CLI_MAP_OUTPUT=${m/d/} $C -v -d gpu -t u32 -o $D/o1 $D/in1
    [ $r = 1 ] && { $C -c -t u32 $D/o1 && echo sorted-ok || echo NOT-SORTED; }; rm -f $D/o1; settle; done; done
rm -f $D/in1; echo "1g done at $((SECONDS-S0)) s"
/tmp/gen $D/in16 16384 0 2; settle
for r in 1 2; do run 16g-cat sh -c "cat $D/in16 >/dev/null"; run 16g-cp cp $D/in16 $D/cp16; rm -f $D/cp16; settle
  for m in 0 d; do timeout 60 $R 16g-map$m env CLSORT_CLI_MAP_OUTPUT=${m/d/} $C -v -d gpu -t u32 -o $D/o16 $D/in16 2>>$L | tee -a $OUT/rus.txt
    [ $r = 1 ] && { $C -c -t u32 $D/o16 && echo sorted-ok || echo NOT-SORTED; }; rm -f $D/o16; settle; done; done
echo "16g done at $((SECONDS-S0)) s"
for m in d 0; do timeout 90 $R 16g-S2G-map$m env CLSORT_CLI_MAP_OUTPUT=${m/d/} $C -v -S 2G -T /tmp/runs -d gpu -t u32 -o $D/o16 $D/in16 2>>$L | tee -a $OUT/rus.txt
  [ $m = d ] && { $C -c -t u32 $D/o16 && echo sorted-ok || echo NOT-SORTED; }; rm -f $D/o16 /tmp/runs/*; settle; done
rm -f $D/in16; echo "S2G done at $((SECONDS-S0)) s"
for i in $(seq -w 1 16); do /tmp/gen $D/s$i 1024 1 $i; done; settle
run m16-catfile sh -c "cat $D/s* > $D/cpm"; rm -f $D/cpm; settle
for r in 1 2; do for v in "MAP=0" "MAP=" "POP=1" "BUF=2097152"; do
  case $v in MAP=0) e="CLSORT_CLI_MAP_OUTPUT=0";; MAP=) e="CLSORT_CLI_MAP_OUTPUT=";; POP=1) e="CLSORT_CLI_MAP_POPULATE=1";; *) e="CLSORT_CLI_MAP_BUF=2097152";; esac
  timeout 60 $R m16-$v env $e $C -v --no-fsync -m -t u32 -o $D/om $D/s* 2>>$L | tee -a $OUT/rus.txt
  if [ $r = 1 ] && [ $v = MAP=0 ]; then mv $D/om $D/ref; elif [ $r = 1 ]; then cmp -s $D/om $D/ref && echo merge-same || echo MERGE-DIFFERS; fi
  rm -f $D/om; settle; done; rm -f $D/ref; [ $((SECONDS-S0)) -gt 480 ] && break; done
rm -f $D/s*; echo "merge done at $((SECONDS-S0)) s"
if [ $((SECONDS-S0)) -lt 500 ]; then
  for i in $(seq -w 1 16); do /tmp/gen $E/s$i 256 1 $i; done; settle
  for v in "0 --no-fsync" "d --no-fsync" "0 " "1 "; do set -- $v
    timeout 40 $R ext4-m4g-map$1$2 env CLSORT_CLI_MAP_OUTPUT=${1/d/} $C -v $2 -m -t u32 -o $E/om $E/s* 2>>$L | tee -a $OUT/rus.txt; rm -f $E/om; settle; done; fi
rm -rf $D $E /tmp/runs; echo "all done at $((SECONDS-S0)) s"
echo "== table"; awk '{print $2, $4, $6, $8}' $OUT/rus.txt | sort | awk '{a[$1]=a[$1]" "$2"("$3"/"$4")"} END{for(k in a) printf "%-26s %s\n", k, a[k]}' | sort
grep -E "^clsort: +(write|merge)" $L | sort | uniq -c | sort -rn | head -0
