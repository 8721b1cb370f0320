"""clsort - sorting networks on any OpenCL device, for NumPy and PyOpenCL arrays.

    import numpy as np, clsort
    a = np.random.rand(1_000_000).astype(np.float32)
    clsort.sort(a)                       # in place, IEEE totalOrder
    b = clsort.sort_copy(a, descending=True)
    clsort.sort_pairs(keys, values, stable=True)

A thin ctypes layer over libclsort (include/clsort.h); the library is found through
CLSORT_LIBRARY, next to this package, the system's library path, or the build tree.
"""
from .api import (KEY_DTYPES, Context, DeviceInfo, Error, Stats, default_context, device_info,
                  empty_pinned,
                  get_stats, library_path, library_version, list_devices, queue_context, sort,
                  sort_copy, sort_pairs, sort_segments)

__version__ = "0.3.0"

# numpy.sort's name for the copying sort; inside this package only, it shadows the builtin.
sorted = sort_copy

__all__ = ["Context", "DeviceInfo", "Error", "Stats", "KEY_DTYPES", "sort", "sort_copy", "sorted",
           "sort_pairs", "sort_segments", "empty_pinned", "default_context", "queue_context", "device_info",
           "get_stats", "list_devices", "library_version", "library_path", "__version__"]
