"""_args.py - the argument checks and result types that the NumPy calls (api.py) and the pyopencl
calls (_opencl.py) share: axis, k, kind, algorithm, segment offsets, and what the library lacks.
"""
import collections
import ctypes
import operator

import numpy as np

from ._lib import lib

try:
    from numpy.exceptions import AxisError  # NumPy >= 1.25
except ImportError:
    AxisError = np.AxisError

ALGORITHMS = ("auto", "bitonic", "odd-even-merge", "odd-even-transposition", "radix")


class TopK(collections.namedtuple("TopK", ["values", "indices"])):
    """What topk returns: (values, indices), also by name, like torch.topk's result."""
    __slots__ = ()


# numpy.sort's kinds: the first two leave equal keys in any order, the last two keep input order.
_KINDS = {None: False, "quicksort": False, "heapsort": False, "stable": True, "mergesort": True}


def stable_of(kind, stable):
    """Whether a sort must be stable, from numpy's kind= and clsort's stable=; ValueError for a
    kind that numpy.sort does not name."""
    if not isinstance(kind, (str, type(None))) or kind not in _KINDS:
        raise ValueError("kind must be None, 'quicksort', 'heapsort', 'stable' or 'mergesort' "
                         "(as numpy.sort takes it); got %r" % (kind,))
    return bool(stable) or _KINDS[kind]


def algorithm_number(name):
    """Parses "auto", "bitonic", "odd-even-merge", "odd-even-transposition" or "radix" ("_"
    works for "-"); raises ValueError for anything else or one the loaded library lacks."""
    if not isinstance(name, str):
        raise TypeError("algorithm must be a string, got %r" % (name,))
    out = ctypes.c_int()
    if lib().algorithm_parse(name.lower().replace("_", "-").encode(), ctypes.byref(out)) != 0:
        raise ValueError("unknown algorithm %r: use %s (the loaded library takes those it "
                         "has)" % (name, ", ".join(ALGORITHMS)))
    return out.value


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


def check_k(k, n):
    if isinstance(k, (bool, np.bool_)):
        raise TypeError("k must be an integer, got %r" % (k,))
    try:
        k = operator.index(k)
    except TypeError:
        raise TypeError("k must be an integer, got %r" % (k,)) from None
    if not 0 <= k <= n:
        raise ValueError("k = %d: it must lie in 0..%d (the length of the axis)" % (k, n))
    return k


def topk_axis(axis, ndim):
    """topk's axis: as normalize_axis, and for a 0-d array (torch.topk's scalar, one element)
    0, -1 or None."""
    if ndim == 0:
        if axis is not None and normalize_axis(axis, 1) != 0:
            raise AxisError(axis, 0)
        return None
    return normalize_axis(axis, ndim)


def segment_offsets(offsets, n):
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


def check_values_dtype(dtype):
    """Values travel as raw bytes: any dtype of 4 or 8 bytes without Python objects."""
    if dtype.itemsize not in (4, 8) or dtype.hasobject:
        raise TypeError("values must have 4 or 8 bytes per element (and no Python objects); "
                        "got %s" % dtype)


def check_out_shape(out, shape, dtype, what="out"):
    """An output array's shape and dtype against the result's (ValueError), for host and
    OpenCL arrays alike."""
    if out.shape != tuple(shape):
        raise ValueError("%s has shape %s; the result has shape %s" % (what, out.shape,
                                                                     tuple(shape)))
    if out.dtype != dtype:
        raise ValueError("%s has dtype %s; the result has dtype %s" % (what, out.dtype,
                                                                     np.dtype(dtype)))


def need_segments():
    if lib().sort_segments is None:
        L = lib()
        raise NotImplementedError(
            "the loaded libclsort (%s, version %s) has no clsort_sort_segments; sorting many "
            "rows with values needs a newer library" % (L.path, L.version_string().decode()))


def need_topk(buffer=False):
    name = "topk_buffer" if buffer else "topk"
    L = lib()
    if getattr(L, name, None) is None:
        raise NotImplementedError(
            "the loaded libclsort (%s, version %s) has no clsort_%s; top-k needs a newer "
            "library" % (L.path, L.version_string().decode(), name))
    return name
