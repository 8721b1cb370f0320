"""clsort - sorting networks on any OpenCL device, for NumPy and PyOpenCL arrays.

    import numpy as np, clsort
    a = np.random.rand(1_000_000).astype(np.float32)
    b = clsort.sort(a)                          # a sorted copy, = numpy.sort(a) (NaNs last)
    i = clsort.argsort(a, kind="stable")        # int64, = numpy.argsort(a, kind="stable")
    m = clsort.sort(np.random.rand(1000, 64), axis=0)   # every column on its own, in one call
    values, indices = clsort.topk(m, 8, axis=1) # the 8 largest of every row, like torch.topk
    clsort.sort(a, out=a)                       # in place

A thin ctypes layer over libclsort (include/clsort.h). `pip install ./python` builds the library
into the package; CLSORT_LIBRARY overrides it (then an installed one or the build tree is used).
"""
from .api import (KEY_DTYPES, AxisError, Context, DeviceInfo, Error, Stats, TopK, argsort,
                  default_context, device_info, empty_pinned, get_stats, library_path,
                  library_version, list_devices, queue_context, sort, sort_copy, sort_pairs,
                  sort_segments, topk)

# 0.3's name for the copying sort; inside this package only, it shadows the builtin.
sorted = sort_copy

__all__ = ["Context", "DeviceInfo", "Error", "Stats", "TopK", "KEY_DTYPES", "AxisError", "sort",
           "argsort", "topk", "sort_copy", "sorted", "sort_pairs", "sort_segments",
           "empty_pinned", "default_context", "queue_context", "device_info", "get_stats",
           "list_devices", "library_version", "library_path", "__version__"]


def __getattr__(name):
    # The version of the library actually loaded (clsort_version_string), which is the package's
    # when it uses the library it carries; read on first use, so `import clsort` needs no library.
    if name == "__version__":
        return library_version()
    raise AttributeError("module 'clsort' has no attribute %r" % name)
