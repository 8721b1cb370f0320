#!/bin/bash
# session 2026-11-28 (tenth), call 1: a first timing of the odd-even merge's finish in one pass
# (oem_finish_fused) WRITTEN IN PLACE, which races with its neighbours' halos (wrong results
# expected: timing only), against the two passes (CLSORT_OEM_FINISH=2), same build; bitonic for
# the ratio. Registers. Stable pairs of 33..64 keys: group pass (default) against the staged pass.
. .gpu/env.sh; S0=$SECONDS
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u; } > $OUT/card.txt
chmod -R go-w .gpu
make -j16 all > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
echo "built at $((SECONDS-S0)) s"
one() { env $1 CLSORT_CACHE_DIR=/tmp/cc-$2 timeout 120 build/clsort-bench -d gpu --no-cpu -q -t $3 -a $4 --min-log 16 --max-log 24 -r 5 2>&1 | grep -E "^ +[0-9]+ +(odd|bit)|rror" | awk '{print $1, $2, $6, $12, $NF}'; }
for v in two fused two fused; do e=CLSORT_X=1; [ $v = two ] && e=CLSORT_OEM_FINISH=2
  echo "== $v"; one $e $v u32 odd-even-merge; one $e $v pairs32 odd-even-merge
  echo "at $((SECONDS-S0)) s"
done > $OUT/ab.txt 2>&1
one CLSORT_X=1 bit u32 bitonic > $OUT/bitonic.txt 2>&1
for v in two fused; do e=CLSORT_X=1; [ $v = two ] && e=CLSORT_OEM_FINISH=2
  echo "== trace $v"; env $e CLSORT_DEBUG=2 CLSORT_CACHE_DIR=/tmp/cc-$v timeout 60 build/clsort-bench -d gpu --no-cpu -q -t u32 -a odd-even-merge --min-log 24 --max-log 24 -r 1 2>&1 | grep -E "^clsort:  " | tail -40
done > $OUT/trace.txt 2>&1
python3 .gpu/regs.py /tmp/cc-fused oem_finish > $OUT/regs.txt 2>&1
seg() { env $1 CLSORT_CACHE_DIR=/tmp/cc-$2 timeout 60 build/clsort-bench -d gpu --no-cpu -q --segments --stable --seg-log 24 -t pairs32 -r 5 --seg-mixes $3 --seg-sizes $4 2>&1 | grep -E "^segments|rror|FAIL|mismatch" | cut -d, -f2,4,5,8,9,16; }
for v in grp stg; do e=CLSORT_X=1; [ $v = stg ] && e="CLSORT_SEG_TINY=64 CLSORT_SEG_STAGE=1"
  echo "== stable $v"; seg "$e" s$v equal 32,48,64; seg "$e" s$v uniform 32
done > $OUT/stable.txt 2>&1
echo "end at $((SECONDS-S0)) s"
cat $OUT/card.txt $OUT/ab.txt $OUT/bitonic.txt $OUT/stable.txt $OUT/regs.txt
awk '/^== /{v=$3} /^clsort: +[a-z_0-9]+ +items/{k=v" "$2; n[k]++; s[k]+=$(NF-1)} END {for (k in n) printf "%s x%d avg %.1f us\n", k, n[k], s[k]/n[k]}' $OUT/trace.txt | sort
