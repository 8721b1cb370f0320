"""api.py - the Python interface: Context, Error, and the sorts of NumPy arrays.

NumPy's conventions: every call returns its result (a new array, or `out`), and sorts along an
axis in NumPy's order. The rows along the axis are made one C-contiguous block (a copy, which is
also the output; with `out` laid out that way, `out` itself) and sorted with one library call:
clsort_sort or clsort_sort_pairs for one row, clsort_sort_batch or clsort_sort_segments for many.

pyopencl.array.Array arguments are handed to _opencl.py, which is imported only when one is seen,
so NumPy users never import PyOpenCL. The modules import one way: this one uses _opencl,
_hostarrays, _args, _keytypes and _lib, and none of them uses it.
"""
import atexit
import ctypes
import dataclasses
import os
import threading
import weakref

import numpy as np

from ._args import (AxisError, TopK, algorithm_number, check_k, need_segments, need_topk,
                    normalize_axis, segment_offsets, stable_of, topk_axis)
from ._hostarrays import (check_out, host_values, keys_in, keys_out, moved, pair_workspaces,
                          plain, row_indices, split_out, target, workspace, wrap)
from ._keytypes import KEY_DTYPES, NAN_LARGEST, STABLE, key_type, order_flags
from ._lib import DeviceInfoStruct, LIST_DEVICES_FN, StatsStruct, lib

__all__ = ["AxisError", "KEY_DTYPES", "TopK"]  # re-exported by the package

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
    programs_compiled: int = 0  # of those, made by the compiler, not the disk cache (0.4)


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


def _masked_filled(m, descending, total_order):
    """numpy.ma's fill before a sort (MaskedArray.argsort): masked entries become a key that
    sorts last, NaN for floats (above +inf in NumPy's order) and the type's largest value for the
    rest; in descending order the type's smallest. Returns a plain ndarray."""
    kt = key_type(m.dtype)
    if kt.is_float and total_order:
        raise TypeError("a masked array sorts in numpy.ma's order (NaNs and masked entries "
                        "last): total_order=True is not available for it")
    if descending:
        fill = np.ma.maximum_fill_value(m)
    elif kt.is_float:
        fill = np.nan
    else:
        fill = np.ma.minimum_fill_value(m)
    return np.asarray(m.filled(fill))


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
                     s.pinned_bytes, bool(s.zero_copy), bool(s.pinned_source), s.build_ns,
                     s.programs_compiled)

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

    def _accepts_flags(self, flags):
        """Whether the loaded library takes `flags`: a sort of no keys checks its arguments and
        does nothing else, and unknown flag bits are refused."""
        with self._lock:
            if self._ptr is None:
                raise ValueError("clsort.Context is closed")
            return lib().sort(self._ptr, None, 0, 2, 0, flags) == 0

    def _sort_rows(self, w, values, t, algo, flags):
        """Sorts every row (last axis) of the C-contiguous array w in place, values (same shape,
        C-contiguous) following, with one library call."""
        n = w.shape[-1]
        if w.size == 0 or n <= 1:
            return
        rows = w.size // n
        kp = ctypes.c_void_p(w.ctypes.data)
        if values is None and flags & STABLE and flags & NAN_LARGEST:
            # In NumPy's order keys that compare equal may differ in their bits (-0.0 and +0.0,
            # NaN payloads): a stable sort of keys alone is one of pairs whose values are dropped.
            values = np.zeros(w.shape, np.uint32)
        if values is None:
            if rows == 1:
                self._call("sort", kp, n, t, algo, flags)
            else:
                # Keys alone that compare equal have identical bits here (totalOrder, integers):
                # stable anyway, and clsort_sort_batch refuses the flag.
                self._call("sort_batch", kp, n, rows, t, algo, flags & ~STABLE)
            return
        vp, vsize = ctypes.c_void_p(values.ctypes.data), values.dtype.itemsize
        if rows == 1:
            self._call("sort_pairs", kp, vp, vsize, n, t, algo, flags)
            return
        need_segments()
        off = np.arange(0, rows * n + 1, n, dtype=np.uint64)
        self._call("sort_segments", kp, vp, vsize, ctypes.c_void_p(off.ctypes.data), rows, t,
                   algo, flags)

    def sort(self, a, axis=-1, *, kind=None, descending=False, stable=False, total_order=False,
             algorithm="auto", out=None):
        """The sorted array; see clsort.sort."""
        stable = stable_of(kind, stable)
        if _any_cl(a, out):
            from . import _opencl
            return _opencl.sort(self, a, axis, descending, stable, total_order, algorithm, out)
        if isinstance(a, np.ma.MaskedArray):
            return self._sort_masked(a, axis, descending, stable, total_order, algorithm, out)
        a, like = plain(a)
        kt = key_type(a.dtype)
        algo = algorithm_number(algorithm)
        flags = order_flags(self, kt, descending, stable, total_order)
        ax = normalize_axis(axis, a.ndim)
        keys, copied = keys_in(a, kt)
        src = moved(keys, ax)
        dst = tgt = None
        if out is not None:
            check_out(out, a.shape if ax is not None else (a.size,), a.dtype)
            dst = moved(out, ax)
            tgt = target(dst, kt)
        if copied and tgt is None and src.flags.c_contiguous:
            w, in_place = src, False  # the byte-swapped copy is this call's own
        else:
            w, in_place = workspace(src, tgt)
        self._sort_rows(w, None, kt.number, algo, flags)
        if out is not None:
            if not in_place:
                np.copyto(dst if tgt is None else tgt, w)
            return out
        res = keys_out(w, a.dtype)
        return wrap(res if ax is None else np.moveaxis(res, -1, ax), like)

    def argsort(self, a, axis=-1, *, kind=None, descending=False, stable=False,
                total_order=False, algorithm="auto"):
        """The int64 indices that sort `a` along `axis`; see clsort.argsort."""
        stable = stable_of(kind, stable)
        if _any_cl(a):
            from . import _opencl
            return _opencl.argsort(self, a, axis, descending, stable, total_order, algorithm)
        if isinstance(a, np.ma.MaskedArray):
            filled = _masked_filled(a, descending, total_order)
            return self.argsort(filled, axis, descending=descending, stable=stable,
                                algorithm=algorithm)
        a, like = plain(a)
        kt = key_type(a.dtype)
        algo = algorithm_number(algorithm)
        flags = order_flags(self, kt, descending, stable, total_order)
        ax = normalize_axis(axis, a.ndim)
        keys, copied = keys_in(a, kt)
        src = moved(keys, ax)
        w = src if copied and src.flags.c_contiguous else workspace(src, None)[0]
        idx = row_indices(w.shape)
        self._sort_rows(w, idx, kt.number, algo, flags)
        return wrap(idx if ax is None else np.moveaxis(idx, -1, ax), like)

    def _sort_masked(self, m, axis, descending, stable, total_order, algorithm, out):
        """numpy.ma.sort: the data and the mask in the order of the filled data, where masked
        entries sort last (_masked_filled)."""
        if out is not None:
            raise TypeError("out= is not taken with a masked array: its mask is part of the "
                            "result")
        res = np.array(m, copy=True, subok=True)
        if axis is None:
            res, axis = res.flatten(), 0
        idx = self.argsort(res, axis, descending=descending, stable=stable,
                           total_order=total_order, algorithm=algorithm)
        res[...] = np.take_along_axis(res, idx, axis=axis)
        return res

    def sort_pairs(self, keys, values, axis=-1, *, kind=None, descending=False, stable=False,
                   total_order=False, algorithm="auto", out=None):
        """(sorted keys, values in the same order); see clsort.sort_pairs."""
        stable = stable_of(kind, stable)
        if _any_cl(keys, values, out):
            from . import _opencl
            return _opencl.sort_pairs(self, keys, values, axis, descending, stable, total_order,
                                      algorithm, out)
        keys, klike = plain(keys, "keys")
        values, vlike = host_values(values, keys.shape)
        kt = key_type(keys.dtype)
        algo = algorithm_number(algorithm)
        flags = order_flags(self, kt, descending, stable, total_order)
        ax = normalize_axis(axis, keys.ndim)
        ko, vo = split_out(out, "sort_pairs")
        kd = vd = ktgt = None
        if out is not None:
            shape = keys.shape if ax is not None else (keys.size,)
            check_out(ko, shape, keys.dtype, "out[0]")
            check_out(vo, shape, values.dtype, "out[1]")
            if ko.size and np.may_share_memory(ko, vo):
                raise ValueError("out[0] and out[1] overlap in memory")
            kd, vd = moved(ko, ax), moved(vo, ax)
            ktgt = target(kd, kt)
        kw, vw, in_place = pair_workspaces(moved(keys_in(keys, kt)[0], ax), moved(values, ax),
                                           ktgt, vd if ktgt is not None else None)
        self._sort_rows(kw, vw, kt.number, algo, flags)
        if out is not None:
            if not in_place:
                np.copyto(kd if ktgt is None else ktgt, kw)
                np.copyto(vd, vw)
            return ko, vo
        kw = keys_out(kw, keys.dtype)
        if ax is not None:
            kw, vw = np.moveaxis(kw, -1, ax), np.moveaxis(vw, -1, ax)
        return wrap(kw, klike), wrap(vw, vlike)

    def sort_segments(self, a, offsets, values=None, *, kind=None, descending=False,
                      stable=False, total_order=False, algorithm="auto", out=None):
        """A copy of the 1-D `a` with each segment sorted; see clsort.sort_segments."""
        stable = stable_of(kind, stable)
        if _any_cl(a, values, out):
            from . import _opencl
            return _opencl.sort_segments(self, a, offsets, values, descending, stable,
                                         total_order, algorithm, out)
        need_segments()
        a, like = plain(a)
        kt = key_type(a.dtype)
        algo = algorithm_number(algorithm)
        flags = order_flags(self, kt, descending, stable, total_order)
        if a.ndim != 1:
            raise ValueError("sort_segments sorts a 1-D array (got shape %s)" % (a.shape,))
        if values is not None:
            values, vlike = host_values(values, a.shape)
        off = segment_offsets(offsets, a.size)
        keys = keys_in(a, kt)[0]
        if values is None:
            if out is not None:
                check_out(out, a.shape, a.dtype)
            ktgt = target(out, kt) if out is not None else None
            kw, in_place = workspace(keys, ktgt)
            vw = ko = vo = None
            if flags & STABLE and flags & NAN_LARGEST:
                vw = np.zeros(a.shape, np.uint32)  # as in _sort_rows: stable keys are pairs
        else:
            ko, vo = split_out(out, "sort_segments")
            ktgt = None
            if out is not None:
                check_out(ko, a.shape, a.dtype, "out[0]")
                check_out(vo, a.shape, values.dtype, "out[1]")
                if ko.size and np.may_share_memory(ko, vo):
                    raise ValueError("out[0] and out[1] overlap in memory")
                ktgt = target(ko, kt)
            kw, vw, in_place = pair_workspaces(keys, values, ktgt,
                                               vo if ktgt is not None else None)
        vp = ctypes.c_void_p(vw.ctypes.data) if vw is not None else None
        vsize = vw.dtype.itemsize if vw is not None else 0
        self._call("sort_segments", ctypes.c_void_p(kw.ctypes.data), vp, vsize,
                   ctypes.c_void_p(off.ctypes.data), off.size - 1, kt.number, algo, flags)
        if values is None:
            if out is None:
                return wrap(keys_out(kw, a.dtype), like)
            if not in_place:
                np.copyto(out if ktgt is None else ktgt, kw)
            return out
        if out is None:
            return wrap(keys_out(kw, a.dtype), like), wrap(vw, vlike)
        if not in_place:
            np.copyto(ko if ktgt is None else ktgt, kw)
            np.copyto(vo, vw)
        return ko, vo

    def topk(self, a, k, axis=-1, *, largest=True, sorted=True, total_order=False):
        """(values, int64 indices) of the k largest (or smallest) along `axis`; see clsort.topk."""
        if _any_cl(a):
            from . import _opencl
            return _opencl.topk(self, a, k, axis, largest, sorted, total_order)
        a, like = plain(a)
        kt = key_type(a.dtype)
        ax = topk_axis(axis, a.ndim)
        if a.ndim == 0:
            # torch.topk of a scalar: its one element, whose index is 0 (k is 0 or 1).
            check_k(k, 1)
            return TopK(wrap(np.array(a, copy=True), like), wrap(np.zeros((), np.int64), like))
        flags = order_flags(self, kt, largest, False, total_order)
        src = moved(a, ax)
        n = src.shape[-1]
        k = check_k(k, n)
        kv = np.empty(src.shape[:-1] + (k,), dtype=kt.work)
        ki = np.empty(src.shape[:-1] + (k,), dtype=np.int64)
        if kv.size:
            topk_fn = need_topk()
            src = keys_in(src, kt)[0]
            if not (src.flags.c_contiguous and src.flags.aligned):
                src = np.array(src, order="C", copy=True)
            # Indices come back as uint64 (value_size 8); below 2^63 their bits are the int64's.
            self._call(topk_fn, ctypes.c_void_p(src.ctypes.data), None, 8, n, src.size // n, k,
                       kt.number, flags, ctypes.c_void_p(kv.ctypes.data),
                       ctypes.c_void_p(ki.ctypes.data))
        kv = keys_out(kv, a.dtype)
        if ax is not None:
            kv, ki = np.moveaxis(kv, -1, ax), np.moveaxis(ki, -1, ax)
        return TopK(wrap(kv, like), wrap(ki, like))

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


def sort(a, axis=-1, *, kind=None, descending=False, stable=False, total_order=False,
         algorithm="auto", out=None, device=None):
    """Returns `a` sorted along `axis`, like numpy.sort: a new array, or `out` when given
    (out=a sorts in place). The input is never modified otherwise.

    a: a NumPy array (or array-like) or a pyopencl.array.Array of dtype uint8, int8, uint16,
    int16, uint32, int32, uint64, int64, float16, float32, float64, bool, or ml_dtypes' bfloat16
    (of any byte order: the result keeps the input's dtype; pyopencl arrays native only);
    anything else raises TypeError. The order is NumPy's: floats compare by value, -0.0 == +0.0,
    and every NaN (either sign, any payload) equals every other and is larger than +inf, so NaNs
    come last (CLSORT_NAN_LARGEST). total_order=True sorts floats by IEEE totalOrder instead
    (-NaN < -inf < -0.0 < +0.0 < +inf < +NaN). Either way every output bit pattern is an input
    bit pattern. axis: an integer, or None to sort the flattened array (the result is 1-D).
    Every 1-D slice along the axis is sorted on its own, all in one library call.
    kind: as numpy.sort's: None, "quicksort" or "heapsort" (equal keys in any order), "stable"
    or "mergesort" (stable); anything else raises ValueError. stable=True is kind="stable".
    descending: the exact reverse order (NaNs first). algorithm: "auto", "bitonic",
    "odd-even-merge", "odd-even-transposition" or "radix". out: an array of the result's shape
    and dtype (ValueError otherwise); when its rows along the axis are C-contiguous it is sorted
    where it lies, else the result is copied into it. device: None (the module's default device:
    CLSORT_DEVICE, else the best one), a device spec string as for Context, or a Context;
    pyopencl arrays sort on their queue's device.

    A masked array is sorted as numpy.ma.sort sorts it (masked entries last, the mask carried
    along; out= is refused). Another ndarray subclass comes back as that subclass; np.matrix is
    refused (TypeError).

    Copies: the rows along the axis are gathered into one C-contiguous block (that copy is the
    result); an axis other than the last, a non-contiguous view or a Fortran-ordered array costs
    nothing more than that copy, but the result then keeps the sorted axis innermost in memory
    (np.moveaxis of the sorted block). pyopencl arrays come back C-contiguous, with the event of
    the work attached."""
    return _context_for(device, [a, out]).sort(
        a, axis, kind=kind, descending=descending, stable=stable, total_order=total_order,
        algorithm=algorithm, out=out)


def argsort(a, axis=-1, *, kind=None, descending=False, stable=False, total_order=False,
            algorithm="auto", device=None):
    """Returns the int64 indices that sort `a` along `axis` (numpy.argsort): for axis=None,
    indices into the flattened array. Keys, order, kind and total_order as for clsort.sort.
    A stable sort (stable=True, kind="stable" or "mergesort") keeps equal keys in their input
    order (in both directions), so that clsort.argsort(a, stable=True) equals
    numpy.argsort(a, kind="stable") for every key dtype, NaNs and signed zeros included.
    Otherwise the order of equal keys is unspecified. A masked array gives numpy.ma.argsort's
    indices (a plain array). The keys travel with their positions in one clsort_sort_pairs /
    clsort_sort_segments call."""
    return _context_for(device, [a]).argsort(
        a, axis, kind=kind, descending=descending, stable=stable, total_order=total_order,
        algorithm=algorithm)


def sort_pairs(keys, values, axis=-1, *, kind=None, descending=False, stable=False,
               total_order=False, algorithm="auto", out=None, device=None):
    """Returns (sorted keys, values in the same order): values[i] (any dtype of 4 or 8 bytes,
    the keys' shape) follows keys[i] along `axis` (None: both flattened). Keys and order as for
    clsort.sort; a stable sort keeps equal keys in their input order. out=(keys_out,
    values_out) receives the result (out=(keys, values) sorts in place). Masked arrays raise
    TypeError."""
    return _context_for(device, [keys, values, out]).sort_pairs(
        keys, values, axis, kind=kind, descending=descending, stable=stable,
        total_order=total_order, algorithm=algorithm, out=out)


def sort_segments(a, offsets, values=None, *, kind=None, descending=False, stable=False,
                  total_order=False, algorithm="auto", out=None, device=None):
    """Returns a copy of the 1-D array `a` in which each segment a[offsets[i]:offsets[i+1]]
    (i < len(offsets) - 1) is sorted on its own; elements outside [offsets[0], offsets[-1]) are
    copied unchanged. offsets: nseg + 1 non-decreasing integers (ValueError otherwise). Keys and
    order as for clsort.sort. With `values` the result is (keys, values). out: an array (a pair
    with values) for the result; out=a sorts in place. Masked arrays raise TypeError. Raises
    NotImplementedError when the loaded library predates clsort_sort_segments."""
    return _context_for(device, [a, values, out]).sort_segments(
        a, offsets, values, kind=kind, descending=descending, stable=stable,
        total_order=total_order, algorithm=algorithm, out=out)


def topk(a, k, axis=-1, *, largest=True, sorted=True, total_order=False, device=None):
    """Returns (values, indices) of the k largest (largest=False: smallest) elements of every
    1-D slice along `axis`, like torch.topk: both of the input's shape with that axis cut to k,
    the values in sorted order (largest first, or smallest first), indices int64 positions along
    the axis. Keys and order as for clsort.sort: NaNs rank largest, as torch.topk ranks them
    (total_order=True: IEEE totalOrder). Among equal keys the one with the lower index is taken
    and comes first, so the result is a stable sort of each slice cut after k. sorted=False is
    accepted; the result is sorted anyway. 0 <= k <= the axis' length (ValueError otherwise); a
    0-d array is one element, as torch.topk takes it: its value and index 0, both 0-d.
    One clsort_topk call (or clsort_topk_buffer for pyopencl arrays); NotImplementedError when
    the loaded library lacks it. Masked arrays raise TypeError."""
    return _context_for(device, [a]).topk(a, k, axis, largest=largest, sorted=sorted,
                                          total_order=total_order)


def sort_copy(a, descending=False, algorithm="auto", device=None, stable=False):
    """clsort.sort(a) with 0.3's signature, for its callers: 0.3's sort sorted in place, sort_copy
    returned the sorted copy that sort returns now."""
    return sort(a, descending=descending, stable=stable, algorithm=algorithm, device=device)


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
