#!/usr/bin/env python3
"""bench.py - times clsort's Python calls against NumPy and, where installed, CuPy and PyTorch.

    python3 python/bench.py --device gpu --out FILE.md
    python3 python/bench.py --device cpu --quick          # a short run, table on stdout

Three tables, each the median of --repeat runs after one warm-up run (which builds or loads the
kernels), in milliseconds of wall-clock time:

  1. host arrays, end to end: a NumPy array in, the sorted NumPy array out. clsort.sort(a) (a new
     array), clsort.sort(b, out=b) (in place), the same from clsort.empty_pinned memory,
     clsort.argsort; numpy.sort / numpy.argsort(kind="stable"); CuPy (asarray + sort + asnumpy)
     and PyTorch (from_numpy + .to(device) + sort + .cpu()) on the GPU when they have one,
     PyTorch on the CPU when the clsort device is a CPU.
  2. device arrays: the data already on the device, the time until the result is there
     (clsort on pyopencl.array.Array with queue.finish(); CuPy / PyTorch with a synchronize).
  3. top-k of rows x n keys: clsort.topk (host arrays and device arrays) against
     numpy.argpartition + a sort of the k selected, and torch.topk (device arrays).

Sizes default to 2^16..2^26 keys and top-k rows x n from 1 x 2^24 to 2^16 x 2^8 (a CPU device
gets them scaled down). The script needs only NumPy and clsort: it imports the clsort package
next to it unless one is installed (the library from CLSORT_LIBRARY, the package's own, or the
checkout's build/). Every result is checked against NumPy once before it is timed.
"""
import argparse
import datetime
import os
import platform
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
try:
    import clsort
except ImportError:
    sys.path.insert(0, HERE)
    import clsort

DTYPES = {"uint32": np.uint32, "int32": np.int32, "float32": np.float32, "uint64": np.uint64,
          "int64": np.int64, "float64": np.float64}


def optional(name):
    try:
        return __import__(name)
    except Exception:  # ImportError, or a broken CUDA install
        return None


def keys(rng, dtype, shape):
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return rng.standard_normal(shape).astype(dt)
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, shape, dtype=dt, endpoint=True)


BUDGET_S = 5.0  # --budget


def timed(fn, repeat, setup=None):
    """Median milliseconds of fn() over `repeat` runs after one warm-up, fewer once the timed runs
    took BUDGET_S seconds (at least one; NumPy's argsort of 2^26 keys takes seconds); setup() runs
    before each call, outside the timing. Returns (ms, the warm-up's result)."""
    if setup:
        setup()
    result = fn()
    times = []
    for _ in range(repeat):
        if setup:
            setup()
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
        if sum(times) > BUDGET_S * 1e3:
            break
    return statistics.median(times), result


class Row:
    def __init__(self, table, label):
        self.table, self.label, self.cells = table, label, {}

    def put(self, column, value):
        if column not in self.table.columns:
            self.table.columns.append(column)
        self.cells[column] = value


class Table:
    def __init__(self, title, key_columns, note=""):
        self.title, self.key_columns, self.note = title, key_columns, note
        self.columns, self.rows = [], []

    def row(self, *label):
        r = Row(self, label)
        self.rows.append(r)
        return r

    def markdown(self):
        out = ["## " + self.title, ""]
        if self.note:
            out += [self.note, ""]
        head = list(self.key_columns) + self.columns
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "---|" * len(head))
        for r in self.rows:
            cells = [str(x) for x in r.label]
            for c in self.columns:
                v = r.cells.get(c)
                cells.append("-" if v is None else v if isinstance(v, str) else "%.3g" % v)
            out.append("| " + " | ".join(cells) + " |")
        return "\n".join(out) + "\n"


def same(got, want, what):
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape or not np.array_equal(got, want):
        raise AssertionError("%s: wrong result" % what)


def torch_dtype(torch, dtype):
    # PyTorch sorts no uint32/uint64 on every version: those run as int32/int64 (same timing
    # class; the table says so).
    name = {"uint32": "int32", "uint64": "int64"}.get(np.dtype(dtype).name, np.dtype(dtype).name)
    return getattr(torch, name), np.dtype(name)


def bench_host(args, ctx, rng, info, cupy, torch, torch_dev):
    sort_t = Table("sort, host arrays (end to end, ms)", ["n", "dtype"],
                   "NumPy array in, sorted NumPy array out. `out=b`: sorted in place (no copy); "
                   "pinned: `b` from clsort.empty_pinned; bitonic: algorithm=\"bitonic\", the "
                   "device network where AUTO would take the host path (CPU devices).")
    arg_t = Table("argsort, host arrays (end to end, ms)", ["n", "dtype"],
                  "int64 indices out. numpy: kind=\"stable\" (and the default quicksort).")
    for dtype in args.dtypes:
        for lg in args.sizes:
            n = 1 << lg
            a = keys(rng, dtype, n)
            want = np.sort(a)
            r, q = sort_t.row("2^%d" % lg, dtype), arg_t.row("2^%d" % lg, dtype)
            ms, _ = timed(lambda: np.sort(a), args.repeat)
            r.put("numpy.sort", ms)
            ms, got = timed(lambda: ctx.sort(a), args.repeat)
            same(got, want, "clsort.sort")
            r.put("clsort.sort", ms)
            if info.type != "gpu":
                # AUTO on a CPU device sorts host arrays with the host's own sort (its host
                # path); the network on the same cores, for comparison:
                ms, got = timed(lambda: ctx.sort(a, algorithm="bitonic"), args.repeat)
                same(got, want, "clsort.sort bitonic")
                r.put("clsort.sort bitonic", ms)
            b = np.empty_like(a)
            ms, _ = timed(lambda: ctx.sort(b, out=b), args.repeat, lambda: np.copyto(b, a))
            same(b, want, "clsort.sort(out=b)")
            r.put("clsort.sort(out=b)", ms)
            try:
                p = ctx.empty_pinned(a.shape, a.dtype)
                ms, _ = timed(lambda: ctx.sort(p, out=p), args.repeat, lambda: np.copyto(p, a))
                same(p, want, "pinned")
                r.put("clsort pinned", ms)
                p = None  # frees the pinned block before the next size
            except clsort.Error as e:
                r.put("clsort pinned", "n/a (%s)" % e.name)
            ms, _ = timed(lambda: np.argsort(a, kind="stable"), args.repeat)
            q.put("numpy.argsort stable", ms)
            ms, _ = timed(lambda: np.argsort(a), args.repeat)
            q.put("numpy.argsort", ms)
            ms, got = timed(lambda: ctx.argsort(a, stable=True), args.repeat)
            same(a[got], want, "clsort.argsort stable")
            q.put("clsort.argsort stable", ms)
            ms, got = timed(lambda: ctx.argsort(a), args.repeat)
            same(a[got], want, "clsort.argsort")
            q.put("clsort.argsort", ms)
            if info.type != "gpu":
                ms, got = timed(lambda: ctx.argsort(a, algorithm="bitonic"), args.repeat)
                same(a[got], want, "clsort.argsort bitonic")
                q.put("clsort.argsort bitonic", ms)
            if cupy is not None:
                ms, got = timed(lambda: cupy.asnumpy(cupy.sort(cupy.asarray(a))), args.repeat)
                same(got, want, "cupy")
                r.put("cupy", ms)
                ms, _ = timed(lambda: cupy.asnumpy(cupy.argsort(cupy.asarray(a))), args.repeat)
                q.put("cupy.argsort", ms)
            if torch is not None:
                tdt, ndt = torch_dtype(torch, dtype)
                at = a.view(ndt) if ndt != a.dtype else a
                if ndt == a.dtype or np.dtype(dtype).kind == "f":
                    label = "torch (%s)" % torch_dev
                else:
                    label = "torch (%s, as %s)" % (torch_dev, ndt.name)

                def tsort(stable=False):
                    t = torch.from_numpy(at).to(torch_dev)
                    return torch.sort(t, stable=stable)

                ms, _ = timed(lambda: tsort()[0].cpu().numpy(), args.repeat)
                r.put(label, ms)
                ms, _ = timed(lambda: tsort(True)[1].cpu().numpy(), args.repeat)
                q.put(label + " stable", ms)
            print("host %s 2^%d done" % (dtype, lg), file=sys.stderr)
    return [sort_t, arg_t]


def pyopencl_queue(info):
    cl = optional("pyopencl")
    if cl is None:
        return None, None
    import pyopencl.array as cla
    # The clsort device by name: PyOpenCL may carry its own ICD loader, whose platform order can
    # differ from the system loader's that libclsort uses.
    try:
        devs = [d for p in cl.get_platforms() for d in p.get_devices()]
    except cl.Error:
        return None, None
    match = [d for d in devs if d.name.strip() == info.name.strip()]
    if not match:
        print("pyopencl sees no device named %r: no pyopencl columns" % info.name,
              file=sys.stderr)
        return None, None
    return cl.CommandQueue(cl.Context([match[0]])), cla


def bench_device(args, rng, info, cupy, torch, torch_dev):
    t = Table("sort and argsort, device arrays (ms until the result is there)", ["n", "dtype"],
              "clsort: pyopencl.array.Array on the clsort device, a new array out (the input "
              "is copied on the device first), queue.finish(); CuPy / PyTorch: their arrays, "
              "synchronize.")
    q, cla = pyopencl_queue(info)
    if q is None and cupy is None and (torch is None or torch_dev == "cpu"):
        return []
    for dtype in args.dtypes:
        for lg in args.sizes:
            n = 1 << lg
            a = keys(rng, dtype, n)
            want = np.sort(a)
            r = t.row("2^%d" % lg, dtype)
            if q is not None:
                d = cla.to_device(q, a)

                def run(fn):
                    res = fn()
                    q.finish()
                    return res

                ms, got = timed(lambda: run(lambda: clsort.sort(d)), args.repeat)
                same(got.get(), want, "clsort device")
                r.put("clsort.sort", ms)
                ms, got = timed(lambda: run(lambda: clsort.argsort(d)), args.repeat)
                r.put("clsort.argsort", ms)
                ms, got = timed(lambda: run(lambda: clsort.argsort(d, stable=True)), args.repeat)
                r.put("clsort.argsort stable", ms)
                del d
            if cupy is not None:
                dc = cupy.asarray(a)

                def crun(fn):
                    res = fn()
                    cupy.cuda.Device().synchronize()
                    return res

                ms, got = timed(lambda: crun(lambda: cupy.sort(dc)), args.repeat)
                same(cupy.asnumpy(got), want, "cupy device")
                r.put("cupy.sort", ms)
                ms, _ = timed(lambda: crun(lambda: cupy.argsort(dc)), args.repeat)
                r.put("cupy.argsort", ms)
                del dc
            if torch is not None and torch_dev != "cpu":
                tdt, ndt = torch_dtype(torch, dtype)
                dt = torch.from_numpy(a.view(ndt) if ndt != a.dtype else a).to(torch_dev)

                def trun(fn):
                    res = fn()
                    torch.cuda.synchronize()
                    return res

                ms, _ = timed(lambda: trun(lambda: torch.sort(dt)), args.repeat)
                r.put("torch.sort", ms)
                ms, _ = timed(lambda: trun(lambda: torch.sort(dt, stable=True)), args.repeat)
                r.put("torch.sort stable (argsort)", ms)
                del dt
            print("device %s 2^%d done" % (dtype, lg), file=sys.stderr)
    return [t]


def topk_reference(a, k):
    """numpy.argpartition + a sort of the k selected: the k largest of every row, largest first."""
    part = np.argpartition(a, a.shape[1] - k, axis=1)[:, a.shape[1] - k:]
    vals = np.take_along_axis(a, part, 1)
    order = np.argsort(-vals if vals.dtype.kind == "f" else vals, axis=1, kind="stable")
    if vals.dtype.kind != "f":
        order = order[:, ::-1]
    return np.take_along_axis(vals, order, 1), np.take_along_axis(part, order, 1)


def bench_topk(args, ctx, rng, info, torch, torch_dev):
    t = Table("top-k, the k largest of every row (ms)", ["rows x n", "k", "dtype"],
              "clsort host: NumPy array in, (values, indices) out; clsort device: "
              "pyopencl arrays, queue.finish(); numpy: argpartition + sort of the k selected; "
              "torch.topk on its device's arrays, synchronize.")
    q, cla = pyopencl_queue(info)
    for dtype in args.topk_dtypes:
        for lr, ln in args.topk_cells:
            rows, n = 1 << lr, 1 << ln
            a = keys(rng, dtype, (rows, n))
            dq = cla.to_device(q, a) if q is not None else None
            tt = None
            if torch is not None:
                tdt, ndt = torch_dtype(torch, dtype)
                tt = torch.from_numpy(a.view(ndt) if ndt != a.dtype else a).to(torch_dev)
            for k in args.topk_k:
                if k > n:
                    continue
                r = t.row("2^%d x 2^%d" % (lr, ln), k, dtype)
                ms, (wv, wi) = timed(lambda: topk_reference(a, k), args.repeat)
                r.put("numpy argpartition+sort", ms)
                try:
                    ms, (v, i) = timed(lambda: ctx.topk(a, k), args.repeat)
                    same(v, wv, "clsort.topk values")
                    r.put("clsort.topk host", ms)
                    if dq is not None:
                        def run():
                            res = clsort.topk(dq, k)
                            q.finish()
                            return res
                        ms, (v, i) = timed(run, args.repeat)
                        same(v.get(), wv, "clsort.topk device values")
                        r.put("clsort.topk device", ms)
                except NotImplementedError:
                    r.put("clsort.topk host", "n/a (library without clsort_topk)")
                if tt is not None:
                    def trun():
                        res = torch.topk(tt, k, dim=1, largest=True, sorted=True)
                        if torch_dev != "cpu":
                            torch.cuda.synchronize()
                        return res
                    ms, _ = timed(trun, args.repeat)
                    r.put("torch.topk (%s)" % torch_dev, ms)
            print("topk %s 2^%d x 2^%d done" % (dtype, lr, ln), file=sys.stderr)
    return [t]


def main():
    global BUDGET_S
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default=os.environ.get("CLSORT_DEVICE") or None,
                    help="clsort device spec: gpu, cpu, P:D, or part of a name "
                         "(default: CLSORT_DEVICE, else the best device)")
    ap.add_argument("--out", help="write the Markdown tables to this file (else stdout)")
    ap.add_argument("--sizes", help="log2 sizes, comma-separated (default: GPU 16,20,24,26; "
                    "CPU 16,20,22)")
    ap.add_argument("--dtypes", default="uint32,float32", help="key dtypes (default %(default)s)")
    ap.add_argument("--repeat", type=int, default=5, help="timed runs (median; default 5)")
    ap.add_argument("--budget", type=float, default=BUDGET_S,
                    help="seconds of timed runs per cell, after which fewer runs are taken "
                         "(default %(default)s)")
    ap.add_argument("--topk-k", default="1,8,32,128,1024", help="k values (default %(default)s)")
    ap.add_argument("--topk-dtypes", default="float32", help="top-k dtypes (default %(default)s)")
    ap.add_argument("--no-host", action="store_true", help="skip the host-array tables")
    ap.add_argument("--no-device", action="store_true", help="skip the device-array table")
    ap.add_argument("--no-topk", action="store_true", help="skip the top-k table")
    ap.add_argument("--no-cupy", action="store_true", help="do not use CuPy")
    ap.add_argument("--no-torch", action="store_true", help="do not use PyTorch")
    ap.add_argument("--quick", action="store_true", help="small sizes, 3 runs (a smoke test)")
    args = ap.parse_args()
    BUDGET_S = args.budget

    ctx = clsort.Context(args.device)
    info = ctx.device_info
    gpu = info.type == "gpu"
    if args.sizes:
        args.sizes = [int(x) for x in args.sizes.split(",")]
    else:
        args.sizes = [16, 20, 24, 26] if gpu else [16, 20, 22]
    # The top-k cells (rows x n, log2), one array to many short rows; a CPU gets each scaled
    # down 16x (rows first).
    cells = [(0, 24), (6, 18), (10, 14), (14, 10), (16, 8)]
    if not gpu:
        cells = [(r - 4, n) if r >= 4 else (r, n - 4 + r) for r, n in cells]
    args.topk_cells = cells
    args.topk_k = [int(x) for x in args.topk_k.split(",")]
    if args.quick:
        args.sizes, args.repeat = [12, 16], 3
        args.topk_cells, args.topk_k = [(0, 14), (6, 8)], [1, 8, 32]
    args.dtypes = args.dtypes.split(",")
    args.topk_dtypes = args.topk_dtypes.split(",")
    for d in args.dtypes + args.topk_dtypes:
        if d not in DTYPES:
            ap.error("unknown dtype %r (one of %s)" % (d, ", ".join(DTYPES)))

    cupy = None if args.no_cupy or not gpu else optional("cupy")
    torch = None if args.no_torch else optional("torch")
    torch_dev = "cpu"
    if torch is not None:
        if gpu and torch.cuda.is_available():
            torch_dev = "cuda"
        elif gpu:
            torch = None  # a CPU torch is no comparison for a GPU
    rng = np.random.default_rng(1)
    load_before = os.getloadavg()

    tables = []
    if not args.no_host:
        tables += bench_host(args, ctx, rng, info, cupy, torch, torch_dev)
    if not args.no_device:
        tables += bench_device(args, rng, info, cupy if gpu else None, torch, torch_dev)
    if not args.no_topk:
        tables += bench_topk(args, ctx, rng, info, torch, torch_dev)

    versions = ["numpy %s" % np.__version__, "clsort %s (library %s)"
                % (clsort.library_version(), clsort.library_path())]
    for name, mod in (("cupy", cupy), ("torch", torch), ("pyopencl", optional("pyopencl"))):
        if mod is not None:
            versions.append("%s %s" % (name, getattr(mod, "__version__", None)
                                        or getattr(mod, "VERSION_TEXT", "?")))
    head = ["# clsort from Python against NumPy%s" % (", CuPy and PyTorch" if gpu else ""), "",
            "- date: %s" % datetime.datetime.now(datetime.timezone.utc).strftime(
                "%Y-%m-%d %H:%M UTC"),
            "- device: %s (%s, %s, %d compute units; config: %s)"
            % (info.name, info.platform, info.driver, info.compute_units, info.config_source),
            "- host: %s, %s, %d CPUs; Python %s" % (platform.node(), platform.machine(),
                                                    os.cpu_count() or 0,
                                                    platform.python_version()),
            "- versions: " + ", ".join(versions),
            "- load average (1 min) at the start and the end: %.2f, %.2f (other work on the "
            "machine makes the times noisier)" % (load_before[0], os.getloadavg()[0]),
            "- method: median of %d timed runs (fewer once a cell's runs took %g s) after a "
            "warm-up run, wall-clock ms; every result checked against NumPy. Command: "
            "`python3 python/bench.py %s`" % (args.repeat, BUDGET_S, " ".join(sys.argv[1:])),
            ""]
    text = "\n".join(head) + "\n" + "\n".join(t.markdown() for t in tables)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
        print("wrote %s" % args.out, file=sys.stderr)
    else:
        sys.stdout.write(text)
    ctx.close()


if __name__ == "__main__":
    main()
