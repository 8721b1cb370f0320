#!/bin/bash
# session 2026-11-27c, call 2: the scatter writes the identity list when one bin holds every segment, and the group pass launches 16 groups a compute unit
# against main 5031055, alternating, CUB beside; registers of seg_sort_packed; per-kernel times at
# s = 16.
. .gpu/env.sh; S0=$SECONDS
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u; } > $OUT/card.txt
rm -rf /tmp/old && mkdir -p /tmp/old && tar xf .gpu/head-src.tar -C /tmp/old && chmod -R go-w /tmp/old
( make -j8 all > /tmp/build.log 2>&1 ) & ( cd /tmp/old && make -j8 all > /tmp/build-old.log 2>&1 ) & wait
[ -x build/clsort-bench ] && [ -x /tmp/old/build/clsort-bench ] || { tail -20 /tmp/build.log /tmp/build-old.log; exit 1; }
( nvcc -O3 -arch=sm_90 -o /tmp/cubseg .gpu/cub_segsort_args.cu ) > /tmp/nvcc.log 2>&1 &
echo "built at $((SECONDS-S0)) s"
seg() { CLSORT_CACHE_DIR=/tmp/cc-$(basename $1) timeout 150 $1/build/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t $2 -r 5 --seg-mixes $3 --seg-sizes $4 2>&1 | grep -E "^segments|rror|FAIL|mismatch" | cut -d, -f3,4,5,8,9; }
for round in 1 2; do for tree in /tmp/old $PWD; do
  echo "== round $round $tree u32"; seg $tree u32 equal 16,32,64,256,1024,4096; seg $tree u32 uniform 16,256,4096
  echo "== round $round $tree pairs32"; seg $tree pairs32 equal 16,256,4096
  echo "round $round $tree at $((SECONDS-S0)) s" >&2
  [ $((SECONDS-S0)) -gt 400 ] && break 2
done; done > $OUT/segments.txt 2>&1
wait; timeout 60 /tmp/cubseg 16 32 64 256 1024 4096 > $OUT/cub.txt 2>&1
echo "segments at $((SECONDS-S0)) s"
for tree in /tmp/old $PWD; do echo "== $tree"; CLSORT_CACHE_DIR=/tmp/cc-$(basename $tree) CLSORT_DEBUG=2 timeout 30 $tree/build/clsort-bench -d gpu --no-cpu -q --segments --seg-log 24 -t u32 -r 1 --seg-mixes equal --seg-sizes 16 2>&1 | grep -E "us$" | tail -10; done > $OUT/trace.txt 2>&1
for v in old main; do echo "== $v"; python3 - $v <<'PY'
import glob, os, subprocess, re, sys
v = sys.argv[1]
for f in sorted(glob.glob('/tmp/cc-%s/*.clbin' % v)):
    b = open(f, 'rb').read()
    i = b.find(b'.version')
    if i < 0: continue
    j = b.find(b'\0', i); ptx = b[i: j if j > 0 else len(b)]
    if b'seg_sort_packed' not in ptx: continue
    p = '/tmp/' + os.path.basename(f) + '.ptx'; open(p, 'wb').write(ptx)
    r = subprocess.run(['ptxas', '-arch=sm_90', '-v', p, '-o', '/dev/null'], capture_output=True, text=True)
    name = None
    for l in (r.stdout + r.stderr).splitlines():
        m = re.search(r"Compiling entry function '(\w+)'", l)
        if m: name = m.group(1)
        m = re.search(r'Used (\d+) registers', l)
        if m and name in ('seg_sort_packed', 'seg_scatter'): print(os.path.basename(f)[:10], len(ptx), name, l.split('ptxas info    :')[-1].strip())
PY
done > $OUT/regs.txt 2>&1
echo "regs at $((SECONDS-S0)) s"
echo "all at $((SECONDS-S0)) s"
cat $OUT/card.txt $OUT/segments.txt; grep -E "DeviceSegmentedSort" $OUT/cub.txt; cat $OUT/trace.txt $OUT/regs.txt
