"""api.py - the Python interface: Context, Error, and the sorts of NumPy arrays.

NumPy's conventions: every call returns its result (a new array, or `out`), and sorts along an
axis. The rows along the axis are made one C-contiguous block (a copy, which is also the output;
with `out` laid out that way, `out` itself) and sorted with one library call: clsort_sort or
clsort_sort_pairs for one row, clsort_sort_batch or clsort_sort_segments for many.

pyopencl.array.Array arguments are handed to _opencl.py, which is imported only when one is seen,
so NumPy users never import PyOpenCL.
"""
import atexit
import collections
import ctypes
import dataclasses
import operator
import os
import threading
import weakref

import numpy as np

try:
    from numpy.exceptions import AxisError  # NumPy >= 1.25
except ImportError:
    AxisError = np.AxisError

from ._lib import DeviceInfoStruct, LIST_DEVICES_FN, StatsStruct, lib

# Flags of include/clsort.h.
DESCENDING = 1
STABLE = 2
NO_HOST_FALLBACK = 4

# (dtype kind, itemsize) -> clsort_type. Native byte order only: the library's keys are native.
_KEY_TYPES = {("u", 4): 0, ("i", 4): 1, ("f", 4): 2, ("u", 8): 3, ("i", 8): 4, ("f", 8): 5}
KEY_DTYPES = ("uint32", "int32", "float32", "uint64", "int64", "float64")


class Error(RuntimeError):
    """A libclsort call failed. `status` is the clsort_status code (negative), `name` its name
    ("ERR_BUILD"), `message` the library's short text for it, `function` the C function called and
    `detail` what clsort_last_error said (the failing OpenCL call, a build log...)."""

    def __init__(self, status, function, detail=""):
        L = lib()
        self.status = status
        self.name = L.status_name(status).decode()
        self.message = L.strerror(status).decode()
        self.function = function
        self.detail = detail
        # clsort_last_error names the failing call itself; without it, name the C function.
        text = "%s (%s): " % (self.name, self.message)
        super().__init__(text + (detail if detail else "in " + function))


@dataclasses.dataclass(frozen=True)
class DeviceInfo:
    """clsort_device_info: the device a context sorts on and the tuned config it uses."""
    name: str
    vendor: str
    driver: str
    platform: str
    type: str
    platform_index: int
    device_index: int
    compute_units: int
    global_mem: int
    max_alloc: int
    local_mem: int
    max_work_group: int
    has_fp64: bool
    config_source: str

    @property
    def spec(self):
        """The "P:D" string that selects this device in Context(device=...)."""
        return "%d:%d" % (self.platform_index, self.device_index)

    @classmethod
    def _from_struct(cls, s):
        def text(b):
            return b.decode(errors="replace") if b is not None else ""
        return cls(text(s.name), text(s.vendor), text(s.driver), text(s.platform), text(s.type),
                   s.platform_index, s.device_index, s.compute_units, s.global_mem, s.max_alloc,
                   s.local_mem, s.max_work_group, bool(s.has_fp64), text(s.config_source))


@dataclasses.dataclass(frozen=True)
class Stats:
    """clsort_stats: what the last sort on a context did (times in nanoseconds)."""
    algorithm: str
    host_fallback: bool
    launches: int
    global_passes: int
    device_ns: int
    total_ns: int
    upload_ns: int = 0       # host-to-device transfer time (host arrays)
    download_ns: int = 0     # device-to-host transfer time
    staging_ns: int = 0      # host copies into and out of pinned staging
    upload_bytes: int = 0
    download_bytes: int = 0
    pinned_bytes: int = 0    # pinned staging held by the context
    zero_copy: bool = False  # sorted in the caller's memory (unified-memory devices)
    pinned_source: bool = False  # the array came from clsort_host_alloc memory
    build_ns: int = 0        # compiling or cache-loading the programs the call needed (0.4)


def library_version():
    """The version string of the libclsort actually loaded (clsort_version_string)."""
    return lib().version_string().decode()


def library_path():
    """Where the loaded libclsort came from."""
    return lib().path


def list_devices():
    """Every OpenCL device present, as (DeviceInfo, is_default) pairs (clsort_list_devices);
    is_default marks the one Context() would pick."""
    found = []

    def collect(info, is_default, _user):
        found.append((DeviceInfo._from_struct(info.contents), bool(is_default)))

    rc = lib().list_devices(LIST_DEVICES_FN(collect), None)
    if rc < 0:
        raise Error(rc, "clsort_list_devices", lib().last_error(None).decode())
    return found


def key_type(dtype):
    """Returns the clsort_type number for a NumPy dtype, or raises TypeError naming the six."""
    dt = np.dtype(dtype)
    t = _KEY_TYPES.get((dt.kind, dt.itemsize)) if dt.isnative else None
    if t is None:
        raise TypeError("clsort sorts keys of dtype %s or %s (native byte order); got %s"
                        % (", ".join(KEY_DTYPES[:-1]), KEY_DTYPES[-1], dt))
    return t


def algorithm_number(name):
    """Parses "auto", "bitonic", "odd-even-merge", "odd-even-transposition" or "radix" ("_"
    works for "-"); raises ValueError for anything else."""
    if not isinstance(name, str):
        raise TypeError("algorithm must be a string, got %r" % (name,))
    out = ctypes.c_int()
    if lib().algorithm_parse(name.lower().replace("_", "-").encode(), ctypes.byref(out)) != 0:
        raise ValueError("unknown algorithm %r: use auto, bitonic, odd-even-merge, "
                         "odd-even-transposition or radix" % name)
    return out.value


def _flags(descending, stable):
    return (DESCENDING if descending else 0) | (STABLE if stable else 0)


class TopK(collections.namedtuple("TopK", ["values", "indices"])):
    """What topk returns: (values, indices), also by name, like torch.topk's result."""
    __slots__ = ()


def _is_cl_array(a):
    # Look at the type's module before importing PyOpenCL: NumPy users never load it.
    if not type(a).__module__.startswith("pyopencl"):
        return False
    import pyopencl.array
    return isinstance(a, pyopencl.array.Array)


def _any_cl(*arrays):
    for x in arrays:
        if isinstance(x, tuple):
            if _any_cl(*x):
                return True
        elif x is not None and _is_cl_array(x):
            return True
    return False


def normalize_axis(axis, ndim):
    """axis as an index in [0, ndim), or None (the flattened array); TypeError for what is not an
    integer, numpy's AxisError (a ValueError) for one out of range."""
    if axis is None:
        return None
    if isinstance(axis, (bool, np.bool_)):
        raise TypeError("axis must be an integer or None, got %r" % (axis,))
    try:
        ax = operator.index(axis)
    except TypeError:
        raise TypeError("axis must be an integer or None, got %r" % (axis,)) from None
    if not -ndim <= ax < ndim:
        raise AxisError(ax, ndim)
    return ax % ndim


def _check_k(k, n):
    if isinstance(k, (bool, np.bool_)):
        raise TypeError("k must be an integer, got %r" % (k,))
    try:
        k = operator.index(k)
    except TypeError:
        raise TypeError("k must be an integer, got %r" % (k,)) from None
    if not 0 <= k <= n:
        raise ValueError("k = %d: it must lie in 0..%d (the length of the axis)" % (k, n))
    return k


def _host_keys(a, what="a"):
    """`a` as a NumPy array of a key dtype (array-likes are converted, nothing is copied yet)."""
    arr = a if isinstance(a, np.ndarray) else np.asarray(a)
    key_type(arr.dtype)
    return arr


def _host_values(values, shape):
    v = values if isinstance(values, np.ndarray) else np.asarray(values)
    if v.shape != shape:
        raise ValueError("values has shape %s, keys %s: they must match" % (v.shape, shape))
    if v.dtype.itemsize not in (4, 8) or v.dtype.hasobject:
        raise TypeError("values must have 4 or 8 bytes per element (and no Python objects); "
                        "got %s" % v.dtype)
    return v


def _moved(a, axis):
    """A view (or, for axis None on a non-contiguous array, a copy) of `a` with the sorted axis
    last: the rows to sort."""
    if axis is None:
        return a.reshape(-1)
    return np.moveaxis(a, axis, -1)


def _check_out(out, shape, dtype, what="out"):
    """Checks an output array; ValueError for anything wrong with it (it is not touched)."""
    if not isinstance(out, np.ndarray):
        raise ValueError("%s must be a numpy.ndarray (got %s)" % (what, type(out).__name__))
    if out.shape != tuple(shape):
        raise ValueError("%s has shape %s; the result has shape %s" % (what, out.shape,
                                                                     tuple(shape)))
    if out.dtype != dtype:
        raise ValueError("%s has dtype %s; the result has dtype %s" % (what, out.dtype,
                                                                     np.dtype(dtype)))
    if not out.flags.writeable:
        raise ValueError("%s is read-only" % what)
    return out


def _same_view(x, y):
    return (x.__array_interface__["data"][0] == y.__array_interface__["data"][0]
            and x.shape == y.shape and x.strides == y.strides and x.dtype == y.dtype)


_COPY_THREADS = min(8, os.cpu_count() or 1)
_PARALLEL_COPY_MIN = 8 << 20  # bytes
_copy_pool = None
_copy_pool_lock = threading.Lock()


def _copy(src):
    """A C-contiguous copy of src. A large contiguous array is copied by several threads
    (np.copyto drops the GIL): one thread's memcpy, page faults of the new memory included, is a
    large part of a GPU sort's end-to-end time (2^24 keys: 64 MiB)."""
    global _copy_pool
    if src.nbytes < _PARALLEL_COPY_MIN or _COPY_THREADS < 2 or not src.flags.c_contiguous:
        return np.array(src, order="C", copy=True)
    with _copy_pool_lock:
        if _copy_pool is None:
            from concurrent.futures import ThreadPoolExecutor
            _copy_pool = ThreadPoolExecutor(_COPY_THREADS, thread_name_prefix="clsort-copy")
    dst = np.empty(src.shape, src.dtype)
    s, d = src.reshape(-1), dst.reshape(-1)
    step = -(-s.size // _COPY_THREADS)
    parts = [(lo, min(lo + step, s.size)) for lo in range(0, s.size, step)]
    list(_copy_pool.map(lambda r: np.copyto(d[r[0]:r[1]], s[r[0]:r[1]]), parts))
    return dst


def _workspace(src, dst):
    """A C-contiguous array with src's contents to sort in place: dst itself where its layout
    allows (then the result needs no copy), else a new array. Returns (array, is_dst)."""
    if dst is not None and dst.flags.c_contiguous and dst.flags.aligned:
        if not _same_view(src, dst):
            np.copyto(dst, src)  # numpy buffers overlapping copies itself
        return dst, True
    return _copy(src), False


def _pair_workspaces(src_k, src_v, dst_k, dst_v):
    """_workspace for keys and values together: both sorted in their outputs, or both in new
    arrays. Returns (keys array, values array, in the outputs)."""
    if dst_k is None or not all(x.flags.c_contiguous and x.flags.aligned for x in (dst_k, dst_v)):
        return (np.array(src_k, order="C", copy=True), np.array(src_v, order="C", copy=True),
                False)
    # Filling one output must not overwrite the other input before it is read.
    if dst_k.size and np.may_share_memory(dst_k, src_v) and not _same_view(dst_v, src_v):
        src_v = src_v.copy()
    if dst_v.size and np.may_share_memory(dst_v, src_k) and not _same_view(dst_k, src_k):
        src_k = src_k.copy()
    kw, _ = _workspace(src_k, dst_k)
    vw, _ = _workspace(src_v, dst_v)
    return kw, vw, True


def _row_indices(shape):
    """int64 array of `shape` holding each element's position along the last axis."""
    idx = np.empty(shape, dtype=np.int64)
    if idx.size:
        idx[...] = np.arange(shape[-1], dtype=np.int64)
    return idx


def _segment_offsets(offsets, n):
    """Host offsets as a C-contiguous uint64 array after the checks the C call cannot make (it
    does not know n)."""
    off = np.asarray(offsets)
    if off.ndim != 1 or off.size < 1:
        raise ValueError("offsets must be 1-D with nseg + 1 entries (at least one)")
    if off.dtype.kind not in "iu":
        raise TypeError("offsets must be integers, got %s" % off.dtype)
    if off.dtype.kind == "i" and off.min() < 0:
        raise ValueError("offsets must not be negative")
    off = np.ascontiguousarray(off, dtype=np.uint64)
    if np.any(off[1:] < off[:-1]):
        raise ValueError("offsets must not decrease")
    if off[-1] > n:
        raise ValueError("offsets[-1] = %d lies beyond the %d keys" % (off[-1], n))
    return off


def _split_out(out, what):
    """out for a call with values: None or a (keys, values) pair."""
    if out is None:
        return None, None
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise ValueError("%s with values takes out=(keys_out, values_out)" % what)
    return out[0], out[1]


def _opencl_platform_count():
    """How many OpenCL platforms the ICD loader finds (0 when none), or None if unknown."""
    try:
        cl = ctypes.CDLL("libOpenCL.so.1")
        count = ctypes.c_uint(0)
        rc = cl.clGetPlatformIDs(ctypes.c_uint(0), None, ctypes.byref(count))
    except (OSError, AttributeError):
        return None
    return count.value if rc == 0 else 0


INSTALL_HINT = ("Install an OpenCL ICD loader (Debian: ocl-icd-libopencl1) and a driver "
                "registered with it in /etc/OpenCL/vendors: PoCL for CPUs (Debian: "
                "pocl-opencl-icd), or your GPU vendor's (NVIDIA's driver with its OpenCL ICD, "
                "AMD ROCm, Intel's intel-opencl-icd); `clinfo -l` lists what OpenCL sees.")


def _create_error(rc, device):
    """The Error for a failed clsort_create: for ERR_NO_DEVICE it names the spec, where it came
    from, and the devices present (or says that there are none, and what to install)."""
    name = lib().status_name(rc).decode()
    if device:
        spec, source = device, "the argument (device=%r)" % device
    elif os.environ.get("CLSORT_DEVICE"):
        spec = os.environ["CLSORT_DEVICE"]
        source = "the environment (CLSORT_DEVICE=%r)" % spec
    else:
        spec, source = "", "the default (the first GPU, else the first CPU)"
    if name != "ERR_NO_DEVICE":
        return Error(rc, "clsort_create(%r)" % spec, "cannot create a context for device %r "
                     "(from %s): %s" % (spec, source, lib().last_error(None).decode()))
    try:
        present = list_devices()
    except Error:
        present = []
    if not present:
        platforms = _opencl_platform_count()
        if not platforms:
            what = "no OpenCL platform is installed (the ICD loader found no driver)"
        else:
            what = "%d OpenCL platform(s) but no OpenCL device on them" % platforms
        detail = "%s, so there is no device for %r (from %s). %s" % (what, spec, source,
                                                                  INSTALL_HINT)
    else:
        listing = "; ".join("%s %s (%s, %s)" % (d.spec, d.name, d.type, d.platform)
                            for d, _ in present)
        detail = ("no OpenCL device matches %r (from %s). Devices present: %s. A spec is 'gpu', "
                  "'cpu', 'P:D' (platform, device) or part of a device's name"
                  % (spec, source, listing))
    return Error(rc, "clsort_create(%r)" % spec, detail)


class Context:
    """One clsort context (clsort_create): a device with its own OpenCL context and queue, the
    compiled kernels and scratch buffers. Use it as a context manager or call close(); calls on
    one Context run one at a time (the library locks), so use one per thread for parallel sorts.

    device: None or "" for the best device (CLSORT_DEVICE if set, else the first GPU, else the
    first CPU), "gpu", "cpu", "P:D" (platform P, device D), or part of a device's name."""

    def __init__(self, device=None):
        if device is not None and not isinstance(device, str):
            raise TypeError("device must be None or a string, got %r" % (device,))
        self._lock = threading.Lock()
        self._ptr = None
        ptr = ctypes.c_void_p()
        rc = lib().create(ctypes.byref(ptr), device.encode() if device else None)
        if rc != 0:
            raise _create_error(rc, device)
        self._ptr = ptr
        self.spec = device or ""

    @classmethod
    def from_queue(cls, queue):
        """A context that enqueues on the caller's queue (clsort_create_with_queue): a
        pyopencl.CommandQueue or a raw cl_command_queue address. The library retains the queue."""
        self = cls.__new__(cls)
        self._lock = threading.Lock()
        self._ptr = None
        ptr = ctypes.c_void_p()
        raw = getattr(queue, "int_ptr", queue)
        rc = lib().create_with_queue(ctypes.byref(ptr), ctypes.c_void_p(raw))
        if rc != 0:
            raise Error(rc, "clsort_create_with_queue", lib().last_error(None).decode())
        self._ptr = ptr
        self.spec = "queue 0x%x" % raw
        return self

    def close(self):
        """Releases the context (clsort_destroy, which finishes its enqueued work first)."""
        lock = getattr(self, "_lock", None)
        if lock is None:
            return
        with lock:
            if self._ptr is not None:
                lib().destroy(self._ptr)
                self._ptr = None

    def empty_pinned(self, shape, dtype=np.float32):
        """A new uninitialised NumPy array in page-locked memory of this context
        (clsort_host_alloc): host-array sorts of it move at full bus speed with no staging copy,
        like cudaMallocHost memory. The memory is freed when the array (and every view of it) is
        gone; the array keeps this Context alive until then."""
        dtype = np.dtype(dtype)
        count = int(np.prod(shape, dtype=np.int64)) if np.ndim(shape) else int(shape)
        if count < 0:
            raise ValueError("negative size")
        nbytes = max(count * dtype.itemsize, 1)
        with self._lock:
            if self._ptr is None:
                raise ValueError("the clsort Context is closed")
            ptr = lib().host_alloc(self._ptr, nbytes)
            if not ptr:
                raise Error(-3, "clsort_host_alloc(%d bytes)" % nbytes,
                            lib().last_error(self._ptr).decode())
        owner = _PinnedBlock(self, ptr, nbytes)
        buf = (ctypes.c_char * nbytes).from_address(ptr)
        buf._clsort_owner = owner  # the ctypes buffer keeps the block (and the context) alive
        return np.frombuffer(buf, dtype=dtype, count=count).reshape(shape)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown: modules may already be gone
            pass

    @property
    def closed(self):
        return self._ptr is None

    def __repr__(self):
        if self.closed:
            return "<clsort.Context closed>"
        return "<clsort.Context %r on %s>" % (self.spec, self.device_info.name)

    def _call(self, fn_name, *args):
        """Calls lib().<fn_name>(ctx, *args) under the lock; raises Error on failure."""
        with self._lock:
            if self._ptr is None:
                raise ValueError("clsort.Context is closed")
            rc = getattr(lib(), fn_name)(self._ptr, *args)
            if rc != 0:
                raise Error(rc, "clsort_" + fn_name, lib().last_error(self._ptr).decode())

    @property
    def device_info(self):
        info = DeviceInfoStruct()
        self._call("get_device_info", ctypes.byref(info))
        return DeviceInfo._from_struct(info)

    @property
    def warnings(self):
        """Warnings gathered since creation (clsort_warnings), one per line; "" if none."""
        with self._lock:
            if self._ptr is None:
                raise ValueError("clsort.Context is closed")
            return lib().warnings(self._ptr).decode(errors="replace")

    def stats(self):
        """What the last sort on this context did (clsort_get_stats); for a sort of device
        arrays this waits until that sort has finished."""
        s = StatsStruct()
        self._call("get_stats", ctypes.byref(s))
        return Stats(lib().algorithm_name(s.algorithm).decode(), bool(s.host_fallback),
                     s.launches, s.global_passes, s.device_ns, s.total_ns, s.upload_ns,
                     s.download_ns, s.staging_ns, s.upload_bytes, s.download_bytes,
                     s.pinned_bytes, bool(s.zero_copy), bool(s.pinned_source), s.build_ns)

    @property
    def host_fallback_max(self):
        """Host arrays up to this many keys are sorted on the host (0: always the device)."""
        n = ctypes.c_uint64()
        self._call("get_host_fallback_max", ctypes.byref(n))
        return n.value

    @host_fallback_max.setter
    def host_fallback_max(self, n):
        self._call("set_host_fallback_max", ctypes.c_uint64(int(n)))

    @property
    def host_path_max(self):
        """AUTO sorts host arrays up to this many keys with the host's own sort (AUTO's host
        path: every size on a CPU device by default, 0 elsewhere); 0 makes AUTO run the device
        networks above the fallback. NotImplementedError with a library older than 0.4."""
        if lib().get_host_path_max is None:
            raise NotImplementedError("the loaded libclsort has no clsort_get_host_path_max")
        n = ctypes.c_uint64()
        self._call("get_host_path_max", ctypes.byref(n))
        return n.value

    @host_path_max.setter
    def host_path_max(self, n):
        if lib().set_host_path_max is None:
            raise NotImplementedError("the loaded libclsort has no clsort_set_host_path_max")
        self._call("set_host_path_max", ctypes.c_uint64(int(n)))

    # ---- sorts ---------------------------------------------------------------------------

    def _sort_rows(self, w, values, t, algo, flags):
        """Sorts every row (last axis) of the C-contiguous array w in place, values (same shape,
        C-contiguous) following, with one library call."""
        n = w.shape[-1]
        if w.size == 0 or n <= 1:
            return
        rows = w.size // n
        kp = ctypes.c_void_p(w.ctypes.data)
        if values is None:
            if rows == 1:
                self._call("sort", kp, n, t, algo, flags)
            else:
                # Keys that compare equal have identical bits: keys alone are stable anyway, and
                # clsort_sort_batch refuses the flag, which only matters for pairs.
                self._call("sort_batch", kp, n, rows, t, algo, flags & ~STABLE)
            return
        vp, vsize = ctypes.c_void_p(values.ctypes.data), values.dtype.itemsize
        if rows == 1:
            self._call("sort_pairs", kp, vp, vsize, n, t, algo, flags)
            return
        _need_segments()
        off = np.arange(0, rows * n + 1, n, dtype=np.uint64)
        self._call("sort_segments", kp, vp, vsize, ctypes.c_void_p(off.ctypes.data), rows, t,
                   algo, flags)

    def sort(self, a, axis=-1, *, descending=False, stable=False, algorithm="auto", out=None):
        """The sorted array; see clsort.sort."""
        if _any_cl(a, out):
            from . import _opencl
            return _opencl.sort(self, a, axis, descending, stable, algorithm, out)
        a = _host_keys(a)
        t, algo, flags = key_type(a.dtype), algorithm_number(algorithm), _flags(descending, stable)
        ax = normalize_axis(axis, a.ndim)
        src = _moved(a, ax)
        dst = None
        if out is not None:
            _check_out(out, a.shape if ax is not None else (a.size,), a.dtype)
            dst = _moved(out, ax)
        w, in_place = _workspace(src, dst)
        self._sort_rows(w, None, t, algo, flags)
        if out is not None:
            if not in_place:
                np.copyto(dst, w)
            return out
        return w if ax is None else np.moveaxis(w, -1, ax)

    def argsort(self, a, axis=-1, *, descending=False, stable=False, algorithm="auto"):
        """The int64 indices that sort `a` along `axis`; see clsort.argsort."""
        if _any_cl(a):
            from . import _opencl
            return _opencl.argsort(self, a, axis, descending, stable, algorithm)
        a = _host_keys(a)
        t, algo, flags = key_type(a.dtype), algorithm_number(algorithm), _flags(descending, stable)
        ax = normalize_axis(axis, a.ndim)
        w, _ = _workspace(_moved(a, ax), None)
        idx = _row_indices(w.shape)
        self._sort_rows(w, idx, t, algo, flags)
        return idx if ax is None else np.moveaxis(idx, -1, ax)

    def sort_pairs(self, keys, values, axis=-1, *, descending=False, stable=False,
                   algorithm="auto", out=None):
        """(sorted keys, values in the same order); see clsort.sort_pairs."""
        if _any_cl(keys, values, out):
            from . import _opencl
            return _opencl.sort_pairs(self, keys, values, axis, descending, stable, algorithm,
                                      out)
        keys = _host_keys(keys, "keys")
        values = _host_values(values, keys.shape)
        t, algo, flags = key_type(keys.dtype), algorithm_number(algorithm), _flags(descending,
                                                                                   stable)
        ax = normalize_axis(axis, keys.ndim)
        ko, vo = _split_out(out, "sort_pairs")
        kd = vd = None
        if out is not None:
            shape = keys.shape if ax is not None else (keys.size,)
            _check_out(ko, shape, keys.dtype, "out[0]")
            _check_out(vo, shape, values.dtype, "out[1]")
            if ko.size and np.may_share_memory(ko, vo):
                raise ValueError("out[0] and out[1] overlap in memory")
            kd, vd = _moved(ko, ax), _moved(vo, ax)
        kw, vw, in_place = _pair_workspaces(_moved(keys, ax), _moved(values, ax), kd, vd)
        self._sort_rows(kw, vw, t, algo, flags)
        if out is not None:
            if not in_place:
                np.copyto(kd, kw)
                np.copyto(vd, vw)
            return ko, vo
        if ax is None:
            return kw, vw
        return np.moveaxis(kw, -1, ax), np.moveaxis(vw, -1, ax)

    def sort_segments(self, a, offsets, values=None, *, descending=False, stable=False,
                      algorithm="auto", out=None):
        """A copy of the 1-D `a` with each segment sorted; see clsort.sort_segments."""
        if _any_cl(a, values, out):
            from . import _opencl
            return _opencl.sort_segments(self, a, offsets, values, descending, stable,
                                         algorithm, out)
        _need_segments()
        a = _host_keys(a)
        t, algo, flags = key_type(a.dtype), algorithm_number(algorithm), _flags(descending, stable)
        if a.ndim != 1:
            raise ValueError("sort_segments sorts a 1-D array (got shape %s)" % (a.shape,))
        if values is not None:
            values = _host_values(values, a.shape)
        off = _segment_offsets(offsets, a.size)
        if values is None:
            if out is not None:
                _check_out(out, a.shape, a.dtype)
            kw, in_place = _workspace(a, out)
            vw = ko = vo = None
        else:
            ko, vo = _split_out(out, "sort_segments")
            if out is not None:
                _check_out(ko, a.shape, a.dtype, "out[0]")
                _check_out(vo, a.shape, values.dtype, "out[1]")
                if ko.size and np.may_share_memory(ko, vo):
                    raise ValueError("out[0] and out[1] overlap in memory")
            kw, vw, in_place = _pair_workspaces(a, values, ko, vo)
        vp = ctypes.c_void_p(vw.ctypes.data) if vw is not None else None
        vsize = vw.dtype.itemsize if vw is not None else 0
        self._call("sort_segments", ctypes.c_void_p(kw.ctypes.data), vp, vsize,
                   ctypes.c_void_p(off.ctypes.data), off.size - 1, t, algo, flags)
        if values is None:
            if out is None:
                return kw
            if not in_place:
                np.copyto(out, kw)
            return out
        if out is None:
            return kw, vw
        if not in_place:
            np.copyto(ko, kw)
            np.copyto(vo, vw)
        return ko, vo

    def topk(self, a, k, axis=-1, *, largest=True, sorted=True):
        """(values, int64 indices) of the k largest (or smallest) along `axis`; see clsort.topk."""
        if _any_cl(a):
            from . import _opencl
            return _opencl.topk(self, a, k, axis, largest, sorted)
        a = _host_keys(a)
        t = key_type(a.dtype)
        if a.ndim == 0:
            raise ValueError("topk needs an array of at least one dimension")
        ax = normalize_axis(axis, a.ndim)
        src = _moved(a, ax)
        n = src.shape[-1]
        k = _check_k(k, n)
        kv = np.empty(src.shape[:-1] + (k,), dtype=a.dtype)
        ki = np.empty(src.shape[:-1] + (k,), dtype=np.int64)
        if kv.size:
            topk_fn = _need_topk()
            if not (src.flags.c_contiguous and src.flags.aligned):
                src = np.array(src, order="C", copy=True)
            # Indices come back as uint64 (value_size 8); below 2^63 their bits are the int64's.
            self._call(topk_fn, ctypes.c_void_p(src.ctypes.data), None, 8, n, src.size // n, k,
                       t, DESCENDING if largest else 0, ctypes.c_void_p(kv.ctypes.data),
                       ctypes.c_void_p(ki.ctypes.data))
        if ax is None:
            return TopK(kv, ki)
        return TopK(np.moveaxis(kv, -1, ax), np.moveaxis(ki, -1, ax))

    def sort_copy(self, a, descending=False, algorithm="auto", stable=False):
        """Alias of sort (axis -1), kept for callers of 0.3: sort returns a new array now."""
        return self.sort(a, descending=descending, stable=stable, algorithm=algorithm)


class _PinnedBlock:
    """Owns one clsort_host_alloc block; frees it when the last array using it is gone."""

    def __init__(self, ctx, ptr, nbytes):
        self.ctx, self.ptr, self.nbytes = ctx, ptr, nbytes

    def __del__(self):
        try:
            with self.ctx._lock:
                if self.ctx._ptr is not None:
                    lib().host_free(self.ctx._ptr, self.ptr)
        except Exception:  # interpreter shutdown
            pass


def empty_pinned(shape, dtype=np.float32, device=None):
    """A page-locked NumPy array from the default context of `device` (Context.empty_pinned)."""
    return _context_for(device, []).empty_pinned(shape, dtype)


# ---- module-level functions on lazily created default contexts ---------------------------

_defaults = {}
_defaults_lock = threading.Lock()


def default_context(device=None):
    """The shared Context for a device spec (created on first use and kept until exit)."""
    key = device or ""
    with _defaults_lock:
        ctx = _defaults.get(key)
        if ctx is None or ctx.closed:
            ctx = _defaults[key] = Context(device)
        return ctx


def _context_for(device, arrays):
    """The Context to sort `arrays` with: `device` itself when it is a Context; for device arrays
    the context cached for their queue; else the default context of the device spec."""
    if isinstance(device, Context):
        return device
    flat = []
    for x in arrays:
        flat.extend(x if isinstance(x, tuple) else [x])
    if any(_is_cl_array(x) for x in flat if x is not None):
        if device is not None:
            raise ValueError("device=%r: pyopencl arrays sort on their own queue's device "
                             "(pass a clsort.Context to choose the context)" % (device,))
        queue = next(x for x in flat if x is not None and _is_cl_array(x)).queue
        if queue is None:
            raise ValueError("the pyopencl array has no queue; give it one with .with_queue(q)")
        return queue_context(queue)
    return default_context(device)


def sort(a, axis=-1, *, descending=False, stable=False, algorithm="auto", out=None, device=None):
    """Returns `a` sorted along `axis`, like numpy.sort: a new array, or `out` when given
    (out=a sorts in place). The input is never modified otherwise.

    a: a NumPy array (or array-like) or a pyopencl.array.Array of dtype uint32, int32, float32,
    uint64, int64 or float64 (native byte order); anything else raises TypeError. Floats sort by
    IEEE totalOrder (-NaN < -inf < -0.0 < +0.0 < +inf < +NaN), and every output bit pattern is an
    input bit pattern. axis: an integer, or None to sort the flattened array (the result is
    1-D). Every 1-D slice along the axis is sorted on its own, all in one library call.
    descending: the exact reverse order. stable: accepted for numpy's sake; keys alone are stable
    anyway (equal keys have identical bits). algorithm: "auto", "bitonic", "odd-even-merge" or
    "odd-even-transposition". out: an array of the result's shape and dtype (ValueError
    otherwise); when its rows along the axis are C-contiguous it is sorted where it lies, else
    the result is copied into it. device: None (the module's default device: CLSORT_DEVICE, else
    the best one), a device spec string as for Context, or a Context; pyopencl arrays sort on
    their queue's device.

    Copies: the rows along the axis are gathered into one C-contiguous block (that copy is the
    result); an axis other than the last, a non-contiguous view or a Fortran-ordered array costs
    nothing more than that copy, but the result then keeps the sorted axis innermost in memory
    (np.moveaxis of the sorted block). pyopencl arrays come back C-contiguous, with the event of
    the work attached."""
    return _context_for(device, [a, out]).sort(a, axis, descending=descending, stable=stable,
                                               algorithm=algorithm, out=out)


def argsort(a, axis=-1, *, descending=False, stable=False, algorithm="auto", device=None):
    """Returns the int64 indices that sort `a` along `axis` (numpy.argsort): for axis=None,
    indices into the flattened array. stable=True keeps equal keys in their input order (in both
    directions), so that in ascending order the result equals numpy.argsort(a, kind="stable")
    wherever numpy's order is the header's (numpy puts NaNs last and does not order -0.0 before
    +0.0; clsort uses totalOrder). Without stable the order of equal keys is unspecified. The
    keys travel with their positions in one clsort_sort_pairs / clsort_sort_segments call."""
    return _context_for(device, [a]).argsort(a, axis, descending=descending, stable=stable,
                                             algorithm=algorithm)


def sort_pairs(keys, values, axis=-1, *, descending=False, stable=False, algorithm="auto",
               out=None, device=None):
    """Returns (sorted keys, values in the same order): values[i] (any dtype of 4 or 8 bytes,
    the keys' shape) follows keys[i] along `axis` (None: both flattened). stable=True keeps equal
    keys in their input order. out=(keys_out, values_out) receives the result (out=(keys, values)
    sorts in place)."""
    return _context_for(device, [keys, values, out]).sort_pairs(
        keys, values, axis, descending=descending, stable=stable, algorithm=algorithm, out=out)


def sort_segments(a, offsets, values=None, *, descending=False, stable=False, algorithm="auto",
                  out=None, device=None):
    """Returns a copy of the 1-D array `a` in which each segment a[offsets[i]:offsets[i+1]]
    (i < len(offsets) - 1) is sorted on its own; elements outside [offsets[0], offsets[-1]) are
    copied unchanged. offsets: nseg + 1 non-decreasing integers (ValueError otherwise). With
    `values` the result is (keys, values). out: an array (a pair with values) for the result;
    out=a sorts in place. Raises NotImplementedError when the loaded library predates
    clsort_sort_segments."""
    return _context_for(device, [a, values, out]).sort_segments(
        a, offsets, values, descending=descending, stable=stable, algorithm=algorithm, out=out)


def topk(a, k, axis=-1, *, largest=True, sorted=True, device=None):
    """Returns (values, indices) of the k largest (largest=False: smallest) elements of every
    1-D slice along `axis`, like torch.topk: both of the input's shape with that axis cut to k,
    the values in sorted order (largest first, or smallest first), indices int64 positions along
    the axis. Among equal keys the one with the lower index is taken and comes first, so the
    result is a stable sort of each slice cut after k. sorted=False is accepted; the result is
    sorted anyway. 0 <= k <= the axis' length (ValueError otherwise). One clsort_topk call (or
    clsort_topk_buffer for pyopencl arrays); NotImplementedError when the loaded library lacks
    it."""
    return _context_for(device, [a]).topk(a, k, axis, largest=largest, sorted=sorted)


def sort_copy(a, descending=False, algorithm="auto", device=None, stable=False):
    """clsort.sort(a) with 0.3's signature, for its callers: 0.3's sort sorted in place, sort_copy
    returned the sorted copy that sort returns now."""
    return sort(a, descending=descending, stable=stable, algorithm=algorithm, device=device)


def _need_segments():
    if lib().sort_segments is None:
        raise NotImplementedError(
            "the loaded libclsort (%s, version %s) has no clsort_sort_segments; sorting many "
            "rows with values needs a newer library" % (library_path(), library_version()))


def _need_topk(buffer=False):
    name = "topk_buffer" if buffer else "topk"
    if getattr(lib(), name, None) is None:
        raise NotImplementedError(
            "the loaded libclsort (%s, version %s) has no clsort_%s; top-k needs a newer "
            "library" % (library_path(), library_version(), name))
    return name


def get_stats(device=None):
    """Stats of the last sort on the default context for `device` (or on a Context)."""
    return _context_for(device, []).stats()


def device_info(device=None):
    """DeviceInfo of the default context for `device` (or of a Context)."""
    return _context_for(device, []).device_info


_queue_contexts = {}  # cl_command_queue address -> Context made with Context.from_queue


def queue_context(queue):
    """The Context that sorts device arrays of a pyopencl.CommandQueue: one per queue, made on
    first use with clsort_create_with_queue and closed when the queue object is collected (with
    PyOpenCL 2025 and later, whose queues take no weak references: at exit)."""
    key = queue.int_ptr
    with _defaults_lock:
        ctx = _queue_contexts.get(key)
        if ctx is None or ctx.closed:
            ctx = _queue_contexts[key] = Context.from_queue(queue)
            # The library retains the queue, so its address cannot be reused while ctx lives.
            try:
                weakref.finalize(queue, _forget_queue, key)
            except TypeError:
                # PyOpenCL 2025 and later (nanobind) make queues that take no weak references:
                # the context then lives until exit, one per queue ever used.
                pass
        return ctx


def _forget_queue(key):
    with _defaults_lock:
        ctx = _queue_contexts.pop(key, None)
    if ctx is not None:
        ctx.close()


@atexit.register
def _close_all():
    # At exit, while the library and PyOpenCL can still release what the contexts hold.
    with _defaults_lock:
        every = list(_queue_contexts.values()) + list(_defaults.values())
        _queue_contexts.clear()
        _defaults.clear()
    for ctx in every:
        ctx.close()
