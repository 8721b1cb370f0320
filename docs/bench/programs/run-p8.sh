#!/bin/bash
# session 2026-11-27b, call 6: registers of seg_sort_packed (ptxas -v on the cached PTX), main
# (d5a6f2e) against the span path's third form (444b267), u32 keys and u32 pairs.
. .gpu/env.sh; S0=$SECONDS
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u; } > $OUT/card.txt
for v in old form3; do rm -rf /tmp/$v && mkdir -p /tmp/$v && chmod 755 /tmp/$v; done
tar xf .gpu/head-src.tar -C /tmp/old; tar xf .gpu/form3-src.tar -C /tmp/form3; chmod -R go-w /tmp/old /tmp/form3
( cd /tmp/old && make -j8 all > /tmp/b-old.log 2>&1 ) & ( cd /tmp/form3 && make -j8 all > /tmp/b-f3.log 2>&1 ) & wait
echo "built at $((SECONDS-S0)) s"
for v in old form3; do
  ( export CLSORT_CACHE_DIR=/tmp/cc-$v; timeout 120 /tmp/$v/build/clsort-bench -d gpu --no-cpu -q --segments --seg-log 20 -t u32,pairs32 -r 1 --seg-mixes equal --seg-sizes 16 2>&1 | grep -E "^segments" | cut -d, -f3,4,5,8,9 ) &
done; wait
echo "ran at $((SECONDS-S0)) s"
for v in old form3; do echo "== $v"; python3 - $v <<'PY'
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
    vals = 'pairs' if b'vals' in ptx and b'.param .u64 seg_sort_packed_param_1' in ptx else ''
    name = None
    for l in (r.stdout + r.stderr).splitlines():
        m = re.search(r"Compiling entry function '(\w+)'", l)
        if m: name = m.group(1)
        m = re.search(r'Used (\d+) registers', l)
        if m and name == 'seg_sort_packed': print(os.path.basename(f)[:10], len(ptx), name, l.split('ptxas info    :')[-1].strip())
        if name == 'seg_sort_packed' and 'spill' in l: print('   ', l.strip())
PY
done
cat $OUT/card.txt
