#!/bin/bash
# session 2026-11-27d, call 3: where the mapped write's time goes. wb2.c (each phase of writing
# 8 GiB from memory: fallocate or ftruncate, pwrite or mapped copy, munmap) on tmpfs and ext4;
# the pipeline with and without its preallocation (CLSORT_CLI_STREAM_SYNC=0 turns it off), mapped
# and not; strace -T of the mapped 16 GiB sort where strace exists.
. .gpu/env.sh; S0=$SECONDS
make -j16 all > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
gcc -O2 -o /tmp/rus .gpu/rus.c && gcc -O2 -pthread -o /tmp/gen .gpu/gen.c && gcc -O2 -pthread -o /tmp/wb2 .gpu/wb2.c || exit 1
C=build/clsort; D=/dev/shm/f; mkdir -p $D /tmp/f; R=/tmp/rus; L=$OUT/v.log
settle() { sync; sleep 0.3; }
for pm in "8 n p" "8 f p" "8 t m" "8 f m" "8 t d" "8 f d" "16 n p" "16 t m" "16 f m" "16 t d"; do set -- $pm; /tmp/wb2 $D/x 8 $1 $2 $3; done | tee $OUT/wb2.txt
for pm in "8 n p" "8 f p" "8 f m" "8 t m"; do set -- $pm; /tmp/wb2 /tmp/f/x 4 $1 $2 $3; done | tee -a $OUT/wb2.txt
echo "wb2 done at $((SECONDS-S0)) s"
/tmp/gen $D/in1 1024 0 1; settle; $C -d gpu -t u32 -o $D/w $D/in1; rm -f $D/w
for r in 1 2 3; do for v in "0 1" "d 1" "0 0" "d 0"; do set -- $v
  $R 1g-map$1-stream$2 env CLSORT_CLI_MAP_OUTPUT=${1/d/} CLSORT_CLI_STREAM_SYNC=$2 $C -v -d gpu -t u32 -o $D/o1 $D/in1 2>>$L | tee -a $OUT/rus.txt; rm -f $D/o1; settle; done; done
rm -f $D/in1; echo "1g done at $((SECONDS-S0)) s"
/tmp/gen $D/in16 16384 0 2; settle
for r in 1 2; do for v in "0 1" "d 1" "0 0" "d 0"; do set -- $v
  timeout 60 $R 16g-map$1-stream$2 env CLSORT_CLI_MAP_OUTPUT=${1/d/} CLSORT_CLI_STREAM_SYNC=$2 $C -v -d gpu -t u32 -o $D/o16 $D/in16 2>>$L | tee -a $OUT/rus.txt; rm -f $D/o16; settle; done
  [ $((SECONDS-S0)) -gt 330 ] && break; done
if command -v strace >/dev/null; then strace -f -T -o $OUT/strace16.txt -e trace=fallocate,mmap,munmap,close,ftruncate,rename,fsync,fdatasync,sync_file_range,openat $C -d gpu -t u32 -o $D/o16 $D/in16
  awk -F'<' '{t=$NF; sub(/>.*/,"",t); if (t+0 > 0.05) print}' $OUT/strace16.txt | head -30; else echo "no strace"; fi
rm -rf $D /tmp/f; echo "all done at $((SECONDS-S0)) s"
echo "== table"; awk '{print $2, $4, $6, $8}' $OUT/rus.txt | sort | awk '{a[$1]=a[$1]" "$2"("$3"/"$4")"} END{for(k in a) printf "%-26s %s\n", k, a[k]}' | sort
grep -E "^clsort: +(write|overlap)" $L | paste - - | awk '{print $4, $7, $13, $17}' | head -30
