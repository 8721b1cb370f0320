"""_lib.py - finds and loads libclsort and declares the C functions of include/clsort.h for ctypes.

Nothing here knows about NumPy or PyOpenCL; api.py builds the Python interface on top.
"""
import ctypes
import ctypes.util
import os
import sys
import sysconfig
import threading

# The major version of the library's soname (libclsort.so.0): the ABI these bindings declare.
SONAME_MAJOR = "0"

# Mirrors of the structs in include/clsort.h (0.4.x). Field order and types must match the header.


class DeviceInfoStruct(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("vendor", ctypes.c_char_p),
        ("driver", ctypes.c_char_p),
        ("platform", ctypes.c_char_p),
        ("type", ctypes.c_char_p),
        ("platform_index", ctypes.c_uint),
        ("device_index", ctypes.c_uint),
        ("compute_units", ctypes.c_uint),
        ("global_mem", ctypes.c_uint64),
        ("max_alloc", ctypes.c_uint64),
        ("local_mem", ctypes.c_uint64),
        ("max_work_group", ctypes.c_size_t),
        ("has_fp64", ctypes.c_int),
        ("config_source", ctypes.c_char_p),
    ]


class StatsStruct(ctypes.Structure):
    _fields_ = [
        ("algorithm", ctypes.c_int),
        ("host_fallback", ctypes.c_int),
        ("launches", ctypes.c_uint),
        ("global_passes", ctypes.c_uint),
        ("device_ns", ctypes.c_uint64),
        ("total_ns", ctypes.c_uint64),
        # Host-array transfers, appended at the end of the C struct.
        ("upload_ns", ctypes.c_uint64),
        ("download_ns", ctypes.c_uint64),
        ("staging_ns", ctypes.c_uint64),
        ("upload_bytes", ctypes.c_uint64),
        ("download_bytes", ctypes.c_uint64),
        ("pinned_bytes", ctypes.c_uint64),
        ("zero_copy", ctypes.c_int),
        ("pinned_source", ctypes.c_int),
        ("build_ns", ctypes.c_uint64),  # 0.4.0: compile or cache-load time of the call
        ("programs_compiled", ctypes.c_uint),  # 0.4.0: of those, made by the compiler
    ]


LIST_DEVICES_FN = ctypes.CFUNCTYPE(None, ctypes.POINTER(DeviceInfoStruct), ctypes.c_int,
                                   ctypes.c_void_p)

_p = ctypes.c_void_p  # clsort_ctx *, cl_mem, cl_command_queue and cl_event are all pointers
_i, _u, _sz = ctypes.c_int, ctypes.c_uint, ctypes.c_size_t

# name: (restype, argtypes). Every sort call takes (type, algorithm, flags) as (int, int, unsigned).
_REQUIRED = {
    "clsort_version_number": (_u, []),
    "clsort_version_string": (ctypes.c_char_p, []),
    "clsort_strerror": (ctypes.c_char_p, [_i]),
    "clsort_status_name": (ctypes.c_char_p, [_i]),
    "clsort_type_name": (ctypes.c_char_p, [_i]),
    "clsort_type_size": (_sz, [_i]),
    "clsort_type_parse": (_i, [ctypes.c_char_p, ctypes.POINTER(_i)]),
    "clsort_algorithm_name": (ctypes.c_char_p, [_i]),
    "clsort_algorithm_parse": (_i, [ctypes.c_char_p, ctypes.POINTER(_i)]),
    "clsort_create": (_i, [ctypes.POINTER(_p), ctypes.c_char_p]),
    "clsort_create_with_queue": (_i, [ctypes.POINTER(_p), _p]),
    "clsort_destroy": (None, [_p]),
    "clsort_last_error": (ctypes.c_char_p, [_p]),
    "clsort_warnings": (ctypes.c_char_p, [_p]),
    "clsort_sort": (_i, [_p, _p, _sz, _i, _i, _u]),
    "clsort_sort_pairs": (_i, [_p, _p, _p, _sz, _sz, _i, _i, _u]),
    "clsort_sort_buffer": (_i, [_p, _p, _p, _sz, _sz, _i, _i, _u, ctypes.c_uint32, _p,
                                ctypes.POINTER(_p)]),
    "clsort_sort_batch": (_i, [_p, _p, _sz, _sz, _i, _i, _u]),
    "clsort_get_device_info": (_i, [_p, ctypes.POINTER(DeviceInfoStruct)]),
    "clsort_list_devices": (_i, [LIST_DEVICES_FN, _p]),
    "clsort_get_stats": (_i, [_p, ctypes.POINTER(StatsStruct)]),
    "clsort_set_host_fallback_max": (_i, [_p, ctypes.c_uint64]),
    "clsort_host_alloc": (_p, [_p, _sz]),
    "clsort_host_free": (None, [_p, _p]),
    "clsort_get_host_fallback_max": (_i, [_p, ctypes.POINTER(ctypes.c_uint64)]),
}

# Functions newer than 0.3.0 (the segmented sort, top-k, AUTO's host path): bound when
# present, else left None.
_OPTIONAL = {
    "clsort_sort_segments": (_i, [_p, _p, _p, _sz, _p, _sz, _i, _i, _u]),
    "clsort_sort_segments_buffer": (_i, [_p, _p, _p, _sz, _p, _sz, _i, _i, _u, ctypes.c_uint32,
                                         _p, ctypes.POINTER(_p)]),
    # 0.4.0: AUTO's host path (on CPU devices the host's own sort, every size by default).
    "clsort_set_host_path_max": (_i, [_p, ctypes.c_uint64]),
    "clsort_get_host_path_max": (_i, [_p, ctypes.POINTER(ctypes.c_uint64)]),
    # 0.4.0: (ctx, keys, values, value_size, n, rows, k, type, flags, out_keys,
    # out_values [, num_wait, wait, done]).
    "clsort_topk": (_i, [_p, _p, _p, _sz, _sz, _sz, _sz, _i, _u, _p, _p]),
    "clsort_topk_buffer": (_i, [_p, _p, _p, _sz, _sz, _sz, _sz, _i, _u, _p, _p, ctypes.c_uint32,
                                _p, ctypes.POINTER(_p)]),
}


def _prefix_lib_dirs():
    """Library directories of the prefixes where `make install` may have put libclsort: the one
    this package was installed under (pip --prefix, a virtual environment), then /usr/local and
    /usr, each as PREFIX/lib, its multiarch directory and lib64. The loader finds a library there
    only once ldconfig has run (or with LD_LIBRARY_PATH), so they are tried by path."""
    here = os.path.dirname(os.path.abspath(__file__))
    prefixes = []
    # .../PREFIX/lib/pythonX.Y/site-packages/clsort (or local/lib/python3/dist-packages on Debian)
    parts = here.split(os.sep)
    for i in range(len(parts) - 1, 0, -1):
        if parts[i] in ("lib", "lib64") and i + 1 < len(parts) and parts[i + 1].startswith("python"):
            prefixes.append(os.sep.join(parts[:i]) or os.sep)
            break
    prefixes += [sys.prefix, "/usr/local", "/usr"]
    multiarch = sysconfig.get_config_var("MULTIARCH")
    out = []
    for prefix in prefixes:
        for sub in ["lib"] + (["lib/" + multiarch] if multiarch else []) + ["lib64"]:
            d = os.path.join(prefix, sub)
            if d not in out:
                out.append(d)
    return out


def _candidates():
    """Where to look for the library, in order, as (description, path or name)."""
    env = os.environ.get("CLSORT_LIBRARY")
    if env:
        # An explicit choice is the only candidate: silently falling back would hide a typo.
        # A directory means the libclsort.so.0 in it.
        if os.path.isdir(env):
            env = os.path.join(env, "libclsort.so." + SONAME_MAJOR)
        return [("CLSORT_LIBRARY", env)]
    here = os.path.dirname(os.path.abspath(__file__))
    # The wheel's own build (backend/clsort_backend.py puts it in lib/, so that the library finds
    # the shipped configs in share/clsort/devices/ beside it), then one a packager put here.
    out = [("bundled", os.path.join(here, "lib", "libclsort.so." + SONAME_MAJOR))]
    out += [("bundled", os.path.join(here, name))
            for name in ("libclsort.so." + SONAME_MAJOR, "libclsort.so")]
    # The dynamic loader's own search (LD_LIBRARY_PATH, its cache of ldconfig's directories).
    out.append(("soname", "libclsort.so." + SONAME_MAJOR))
    found = ctypes.util.find_library("clsort")
    if found and found != "libclsort.so." + SONAME_MAJOR:
        out.append(("find_library", found))
    for d in _prefix_lib_dirs():
        out.append(("installed", os.path.join(d, "libclsort.so." + SONAME_MAJOR)))
    # Run from a checkout (python/clsort/ inside the repository): the tree's own build.
    out.append(("build tree", os.path.join(here, os.pardir, os.pardir, "build", "libclsort.so")))
    return out


class Library:
    """The loaded shared library: `fn` holds the bound functions, `path` where it came from."""

    def __init__(self):
        tried = []
        self.cdll = None
        for how, where in _candidates():
            if os.sep in where and not os.path.exists(where):
                if how != "installed":  # many guesses; only those that exist are worth naming
                    tried.append("%s (%s): no such file" % (where, how))
                continue
            try:
                self.cdll = ctypes.CDLL(where)
                self.path = os.path.abspath(where) if os.sep in where else where
                break
            except OSError as e:
                tried.append("%s (%s): %s" % (where, how, e))
        if self.cdll is None:
            raise OSError("clsort: cannot load libclsort. `pip install ./python` from a clsort "
                          "checkout builds it into the package; else `make` (or `make install`) "
                          "it and set CLSORT_LIBRARY to its path. Tried:\n  "
                          + "\n  ".join(tried))
        for name, (restype, argtypes) in _REQUIRED.items():
            try:
                f = getattr(self.cdll, name)
            except AttributeError:
                raise OSError("clsort: %s lacks %s; it is older than this package expects"
                              % (self.path, name)) from None
            f.restype, f.argtypes = restype, argtypes
            setattr(self, name[len("clsort_"):], f)
        for name, (restype, argtypes) in _OPTIONAL.items():
            f = getattr(self.cdll, name, None)
            if f is not None:
                f.restype, f.argtypes = restype, argtypes
            setattr(self, name[len("clsort_"):], f)


_loaded = None
_load_lock = threading.Lock()


def lib():
    """Returns the Library, loading it on first use (so `import clsort` works without it)."""
    global _loaded
    if _loaded is None:
        with _load_lock:
            if _loaded is None:
                _loaded = Library()
    return _loaded
