# cpu-path-2026-11-24.py - NumPy's sort at the sizes of cpu-path-2026-11-24.cc (median of 5, wall and CPU ms).
import sys, time, numpy as np
g = np.random.default_rng(1)
for lg in map(int, sys.argv[1:]):
    n = 1 << lg
    for name, make in (("u32", lambda: g.integers(0, 2**32, n, dtype=np.uint32)),
                       ("f32", lambda: (g.integers(-2**31, 2**31, n, dtype=np.int64) / 65536.0).astype(np.float32)),
                       ("u64", lambda: g.integers(0, 2**64, n, dtype=np.uint64))):
        w, c = [], []
        for r in range(6):
            a = make()
            w0, c0 = time.perf_counter(), time.process_time()
            a.sort()
            w1, c1 = time.perf_counter(), time.process_time()
            if r:
                w.append((w1 - w0) * 1e3); c.append((c1 - c0) * 1e3)
        print("| %s | 2^%d | NumPy %s sort | %.1f | %.1f |" % (name, lg, np.__version__, sorted(w)[2], sorted(c)[2]))
