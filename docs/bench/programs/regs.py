# Registers of every kernel in the cached programs of a cache dir (ptxas -v on their PTX).
import glob, os, subprocess, re, sys
d, pat = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else '')
for f in sorted(glob.glob(d + '/*.clbin')):
    b = open(f, 'rb').read()
    i = b.find(b'.version')
    if i < 0: continue
    j = b.find(b'\0', i); ptx = b[i: j if j > 0 else len(b)]
    if pat.encode() not in ptx: continue
    p = '/tmp/' + os.path.basename(f) + '.ptx'; open(p, 'wb').write(ptx)
    r = subprocess.run(['ptxas', '-arch=sm_90', '-v', p, '-o', '/dev/null'], capture_output=True, text=True)
    name, out = None, []
    for l in (r.stdout + r.stderr).splitlines():
        m = re.search(r"Compiling entry function '(\w+)'", l)
        if m: name = m.group(1)
        m = re.search(r'(\d+) bytes spill stores', l)
        if m and name and m.group(1) != '0': out.append('%s:spill%s' % (name, m.group(1)))
        m = re.search(r'Used (\d+) registers', l)
        if m and name: out.append('%s:%s' % (name, m.group(1)))
    print(os.path.basename(f)[:10], ' '.join(out))
