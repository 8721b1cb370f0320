#!/bin/bash
# session 2026-11-27c, call 6: why `clsort` of a 16 GiB u32 file (2^32 keys, one run) failed with
# -9999 at its first upload: clsort_prepare(2^32) traced, then a sort of 2^32 keys without prepare.
. .gpu/env.sh; S0=$SECONDS
make -j16 all > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
gcc -O2 -Iinclude -o /tmp/prep .gpu/prep.c -Lbuild -lclsort -Wl,-rpath,$PWD/build || exit 1
echo "built at $((SECONDS-S0)) s"
CLSORT_DEBUG=2 timeout 100 /tmp/prep 32 0 > $OUT/prep32.log 2>&1; echo "prep 32 0 rc=$? at $((SECONDS-S0)) s"
grep -v "^clsort:   " $OUT/prep32.log | tail -5; grep "^clsort:   " $OUT/prep32.log | tail -12
[ $((SECONDS-S0)) -lt 150 ] && { CLSORT_DEBUG=1 timeout 90 /tmp/prep 32 1 > $OUT/sort32.log 2>&1; echo "prep 32 1 rc=$? at $((SECONDS-S0)) s"; tail -4 $OUT/sort32.log; }
