#!/bin/bash
# session 2026-11-28 (tenth), call 2: the odd-even merge's tile sort from registers (default)
# against its run-time path (-DCLSORT_OEM_RUNTIME_TILE=1), same build; bitonic for the ratio;
# per-kernel times at 2^16, 2^20 and 2^24; registers. Stable pairs by the new rule against
# the group pass (CLSORT_SEG_TINY=32), and stable pairs above 64 keys (group pass).
. .gpu/env.sh; S0=$SECONDS
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u; } > $OUT/card.txt
chmod -R go-w .gpu
make -j16 all tests > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
echo "built at $((SECONDS-S0)) s"
one() { env $1 CLSORT_CACHE_DIR=/tmp/cc-$2 timeout 120 build/clsort-bench -d gpu --no-cpu -q -t $3 -a $4 --min-log 12 --max-log 24 -r 5 2>&1 | grep -E "^ +[0-9]+ +(odd|bit)|rror" | awk '{print $1, $2, $6, $12, $NF}'; }
for v in rt reg rt reg; do e=CLSORT_X=1; [ $v = rt ] && e=CLSORT_BUILD_OPTIONS=-DCLSORT_OEM_RUNTIME_TILE=1
  echo "== $v"; one $e $v u32 odd-even-merge; one $e $v pairs32 odd-even-merge; one $e $v u64 odd-even-merge
  echo "at $((SECONDS-S0)) s"
done > $OUT/ab.txt 2>&1
{ one CLSORT_X=1 bit u32 bitonic; one CLSORT_X=1 bit pairs32 bitonic; one CLSORT_X=1 bit u64 bitonic; } > $OUT/bitonic.txt 2>&1
for lg in 16 20 24; do for v in rt reg; do e=CLSORT_X=1; [ $v = rt ] && e=CLSORT_BUILD_OPTIONS=-DCLSORT_OEM_RUNTIME_TILE=1
  echo "== trace $lg $v"; env $e CLSORT_DEBUG=2 CLSORT_CACHE_DIR=/tmp/cc-$v timeout 60 build/clsort-bench -d gpu --no-cpu -q -t u32 -a odd-even-merge --min-log $lg --max-log $lg -r 1 2>&1 | grep -E "^clsort: +[a-z_0-9]+ +items"
done; done > $OUT/trace.txt 2>&1
{ python3 .gpu/regs.py /tmp/cc-reg oem_sort; python3 .gpu/regs.py /tmp/cc-rt oem_sort; } > $OUT/regs.txt 2>&1
seg() { env $1 CLSORT_CACHE_DIR=/tmp/cc-$2 timeout 60 build/clsort-bench -d gpu --no-cpu -q --segments --stable --seg-log 24 -t pairs32 -r 5 --seg-mixes $3 --seg-sizes $4 2>&1 | grep -E "^segments|rror|FAIL|mismatch" | cut -d, -f2,3,4,5,8,9,16; }
for v in new t32; do e=CLSORT_X=1; [ $v = t32 ] && e="CLSORT_SEG_TINY=32"
  echo "== stable $v"; seg "$e" s$v equal 16,32,48,64; seg "$e" s$v uniform 16,32
done > $OUT/stable.txt 2>&1
seg CLSORT_X=1 snew equal 128,256,1024,4096 >> $OUT/stable.txt 2>&1
seg CLSORT_X=1 snew uniform 128,1024 >> $OUT/stable.txt 2>&1
echo "end at $((SECONDS-S0)) s"
cat $OUT/card.txt $OUT/ab.txt $OUT/bitonic.txt $OUT/stable.txt $OUT/regs.txt
awk '/^== /{v=$3" "$4} /^clsort: +[a-z_0-9]+ +items/{k=v" "$2; n[k]++; s[k]+=$(NF-1)} END {for (k in n) printf "%s x%d sum %.1f avg %.1f us\n", k, n[k], s[k], s[k]/n[k]}' $OUT/trace.txt | sort -k1,1n -k2,2 -k3,3
