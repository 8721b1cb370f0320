"""api.py - the Python interface: Context, Error, and the sorts of NumPy arrays.

pyopencl.array.Array arguments are handed to _opencl.py, which is imported only when one is seen,
so NumPy users never import PyOpenCL.
"""
import atexit
import ctypes
import dataclasses
import threading
import weakref

import numpy as np

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
    """Parses "auto", "bitonic", "odd-even-merge" or "odd-even-transposition" ("_" works for
    "-"); raises ValueError for anything else."""
    if not isinstance(name, str):
        raise TypeError("algorithm must be a string, got %r" % (name,))
    out = ctypes.c_int()
    if lib().algorithm_parse(name.lower().replace("_", "-").encode(), ctypes.byref(out)) != 0:
        raise ValueError("unknown algorithm %r: use auto, bitonic, odd-even-merge or "
                         "odd-even-transposition" % name)
    return out.value


def _flags(descending, stable):
    return (DESCENDING if descending else 0) | (STABLE if stable else 0)


def _check_host_array(a, what):
    if not isinstance(a, np.ndarray):
        raise TypeError("%s must be a numpy.ndarray or a pyopencl.array.Array (sorted in place), "
                        "got %s; sort_copy accepts any array-like" % (what, type(a).__name__))
    if not a.flags.c_contiguous:
        raise ValueError("%s is not C-contiguous; sort a copy (numpy.ascontiguousarray or "
                         "clsort.sort_copy)" % what)
    if not a.flags.writeable:
        raise ValueError("%s is read-only; clsort sorts in place (use clsort.sort_copy)" % what)
    if not a.flags.aligned:
        raise ValueError("%s is not aligned to its dtype; sort a copy" % what)


def _check_values(keys, values):
    """Checks host values for sort_pairs/sort_segments; returns value_size."""
    _check_host_array(values, "values")
    if values.shape != keys.shape:
        raise ValueError("values has shape %s, keys %s: they must match" % (values.shape,
                                                                             keys.shape))
    if values.dtype.itemsize not in (4, 8) or values.dtype.hasobject:
        raise TypeError("values must have 4 or 8 bytes per element (and no Python objects); "
                        "got %s" % values.dtype)
    if keys.size and np.may_share_memory(keys, values):
        raise ValueError("keys and values overlap in memory")
    return values.dtype.itemsize


def _is_cl_array(a):
    # Look at the type's module before importing PyOpenCL: NumPy users never load it.
    if not type(a).__module__.startswith("pyopencl"):
        return False
    import pyopencl.array
    return isinstance(a, pyopencl.array.Array)


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
            raise Error(rc, "clsort_create(%r)" % (device or ""), lib().last_error(None).decode())
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
                     s.pinned_bytes, bool(s.zero_copy), bool(s.pinned_source))

    @property
    def host_fallback_max(self):
        """Host arrays up to this many keys are sorted on the host (0: always the device)."""
        n = ctypes.c_uint64()
        self._call("get_host_fallback_max", ctypes.byref(n))
        return n.value

    @host_fallback_max.setter
    def host_fallback_max(self, n):
        self._call("set_host_fallback_max", ctypes.c_uint64(int(n)))

    # ---- sorts ---------------------------------------------------------------------------

    def sort(self, a, descending=False, algorithm="auto", stable=False):
        """Sorts `a` in place; see clsort.sort."""
        if _is_cl_array(a):
            from . import _opencl
            return _opencl.sort(self, a, None, descending, algorithm, stable)
        _check_host_array(a, "a")
        t, algo = key_type(a.dtype), algorithm_number(algorithm)
        if a.ndim == 0:
            raise ValueError("cannot sort a 0-d array")
        ptr = ctypes.c_void_p(a.ctypes.data)
        if a.ndim == 1:
            self._call("sort", ptr, a.size, t, algo, _flags(descending, stable))
        elif a.size:
            # Every row along the last axis on its own, as numpy.sort(axis=-1). Keys that compare
            # equal have identical bits, so a keys-only sort is stable anyway; clsort_sort_batch
            # refuses the flag, so it is dropped here.
            n = a.shape[-1]
            self._call("sort_batch", ptr, n, a.size // n, t, algo, _flags(descending, False))
        return None

    def sort_copy(self, a, descending=False, algorithm="auto", stable=False):
        """A sorted copy of `a`; see clsort.sort_copy."""
        if _is_cl_array(a):
            b = a.copy()
        else:
            b = np.array(a, order="C", copy=True)
        self.sort(b, descending=descending, algorithm=algorithm, stable=stable)
        return b

    def sort_pairs(self, keys, values, stable=False, descending=False, algorithm="auto"):
        """Sorts keys in place with values following them; see clsort.sort_pairs."""
        if _is_cl_array(keys) or _is_cl_array(values):
            from . import _opencl
            return _opencl.sort(self, keys, values, descending, algorithm, stable)
        _check_host_array(keys, "keys")
        t, algo = key_type(keys.dtype), algorithm_number(algorithm)
        if keys.ndim != 1:
            raise ValueError("sort_pairs sorts 1-D arrays (keys has shape %s); rows of a 2-D "
                             "array are segments for sort_segments" % (keys.shape,))
        vsize = _check_values(keys, values)
        self._call("sort_pairs", ctypes.c_void_p(keys.ctypes.data),
                   ctypes.c_void_p(values.ctypes.data), vsize, keys.size, t, algo,
                   _flags(descending, stable))
        return None

    def sort_segments(self, a, offsets, values=None, stable=False, descending=False,
                      algorithm="auto"):
        """Sorts each a[offsets[i]:offsets[i+1]] in place; see clsort.sort_segments."""
        if _is_cl_array(a):
            from . import _opencl
            return _opencl.sort_segments(self, a, offsets, values, descending, algorithm, stable)
        if lib().sort_segments is None:
            raise NotImplementedError(
                "the loaded libclsort (%s, version %s) has no clsort_sort_segments; the "
                "segmented sort needs a newer library" % (library_path(), library_version()))
        _check_host_array(a, "a")
        t, algo = key_type(a.dtype), algorithm_number(algorithm)
        if a.ndim != 1:
            raise ValueError("sort_segments sorts a 1-D array (got shape %s)" % (a.shape,))
        vsize, vptr = 0, None
        if values is not None:
            vsize = _check_values(a, values)
            vptr = ctypes.c_void_p(values.ctypes.data)
        off = _segment_offsets(offsets, a.size)
        self._call("sort_segments", ctypes.c_void_p(a.ctypes.data), vptr, vsize,
                   ctypes.c_void_p(off.ctypes.data), off.size - 1, t, algo,
                   _flags(descending, stable))
        return None


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
    if any(_is_cl_array(x) for x in arrays if x is not None):
        if device is not None:
            raise ValueError("device=%r: pyopencl arrays sort on their own queue's device "
                             "(pass a clsort.Context to choose the context)" % (device,))
        queue = next(x for x in arrays if _is_cl_array(x)).queue
        if queue is None:
            raise ValueError("the pyopencl array has no queue; give it one with .with_queue(q)")
        return queue_context(queue)
    return default_context(device)


def sort(a, descending=False, algorithm="auto", device=None, stable=False):
    """Sorts `a` in place in ascending (or descending) order and returns None; for a
    pyopencl.array.Array, enqueues the sort on the array's queue and returns its pyopencl.Event.

    NumPy arrays: C-contiguous, writeable, of dtype uint32, int32, float32, uint64, int64 or
    float64. A 1-D array is sorted whole; an N-D array row by row along its last axis (as
    numpy.sort(a, axis=-1)). Floats sort by IEEE totalOrder (-NaN < -inf < -0.0 < +0.0 < +inf <
    +NaN); every output bit pattern is an input bit pattern. Keys alone are stable anyway.

    algorithm: "auto", "bitonic", "odd-even-merge" or "odd-even-transposition".
    device: None (the default device), a device spec string as for Context, or a Context."""
    return _context_for(device, [a]).sort(a, descending, algorithm, stable)


def sort_copy(a, descending=False, algorithm="auto", device=None, stable=False):
    """Returns a sorted copy of `a` (any array-like, or a pyopencl.array.Array), like
    numpy.sort(a, axis=-1)."""
    ctx = _context_for(device, [a])
    return ctx.sort_copy(a, descending, algorithm, stable)


def sort_pairs(keys, values, stable=False, descending=False, algorithm="auto", device=None):
    """Sorts 1-D `keys` in place; values[i] (any dtype of 4 or 8 bytes, same length) follows
    keys[i]. stable=True keeps equal keys in their input order (host arrays only: the library
    does the reordering on the host). Returns None, or the pyopencl.Event for device arrays."""
    return _context_for(device, [keys, values]).sort_pairs(keys, values, stable, descending,
                                                           algorithm)


def sort_segments(a, offsets, values=None, stable=False, descending=False, algorithm="auto",
                  device=None):
    """Sorts each segment a[offsets[i]:offsets[i+1]] (i < len(offsets) - 1) of the 1-D array `a`
    in place, values following keys if given; elements outside [offsets[0], offsets[-1]) are not
    touched. offsets: nseg + 1 non-decreasing integers. Raises NotImplementedError when the loaded
    library predates clsort_sort_segments."""
    return _context_for(device, [a, values]).sort_segments(a, offsets, values, stable,
                                                           descending, algorithm)


def get_stats(device=None):
    """Stats of the last sort on the default context for `device` (or on a Context)."""
    return _context_for(device, []).stats()


def device_info(device=None):
    """DeviceInfo of the default context for `device` (or of a Context)."""
    return _context_for(device, []).device_info


_queue_contexts = {}  # cl_command_queue address -> Context made with Context.from_queue


def queue_context(queue):
    """The Context that sorts device arrays of a pyopencl.CommandQueue: one per queue, made on
    first use with clsort_create_with_queue and closed when the queue object is collected."""
    key = queue.int_ptr
    with _defaults_lock:
        ctx = _queue_contexts.get(key)
        if ctx is None or ctx.closed:
            ctx = _queue_contexts[key] = Context.from_queue(queue)
            # The library retains the queue, so its address cannot be reused while ctx lives.
            weakref.finalize(queue, _forget_queue, key)
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
