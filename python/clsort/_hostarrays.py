"""_hostarrays.py - NumPy arrays into and out of the library: what a key array is read as (a
view, or a copy in native byte order), the C-contiguous blocks the library sorts in place, and
results handed back as the caller's ndarray subclass. Masked arrays are api.py's (numpy.ma's
order needs a sort of its own).
"""
import os
import threading

import numpy as np

from ._args import check_out_shape, check_values_dtype


def plain(a, what="a"):
    """(a as a plain ndarray, the array to make results like, or None). Array-likes are
    converted; an ndarray subclass is viewed as ndarray and its results are made that subclass
    again (wrap); np.matrix (always 2-D) and masked arrays raise TypeError."""
    if type(a) is np.ndarray:
        return a, None
    if isinstance(a, np.ma.MaskedArray):
        raise TypeError("%s is a masked array: clsort.sort and clsort.argsort sort one as "
                        "numpy.ma.sort does; here pass a.filled(...) or a.data" % what)
    if isinstance(a, np.matrix):
        raise TypeError("%s is a numpy.matrix, which is always 2-D: pass numpy.asarray(%s)"
                        % (what, what))
    if isinstance(a, np.ndarray):
        return a.view(np.ndarray), a
    return np.asarray(a), None


def wrap(result, like):
    """result as the subclass of `like` (None: as it is), finalized from `like` as numpy.sort's
    copy of it would be, so that the subclass's attributes carry over."""
    if like is None:
        return result
    out = result.view(type(like))
    finalize = getattr(out, "__array_finalize__", None)
    if callable(finalize):
        finalize(like)
    return out


def keys_in(a, kt):
    """a's keys as the library reads them (dtype kt.work): a itself, a view (bool as uint8), or
    for a non-native byte order a native copy of the same layout. Returns (array, is_copy)."""
    if a.dtype == kt.work:
        return a, False
    if a.dtype.kind == "b":
        return a.view(kt.work), False
    return a.astype(kt.work), True


def keys_out(w, dtype):
    """The sorted block w (kt.work, C-contiguous, this call's own) as `dtype`, the input's: bool
    and a non-native byte order (swapped in place) are views of it."""
    if w.dtype == dtype:
        return w
    if dtype.kind != "b":
        w.byteswap(inplace=True)
    return w.view(dtype)


def target(view, kt):
    """A view of the output `view` (the input's dtype) that the library can sort in, or None
    when it cannot (another byte order: the result is converted into it instead)."""
    if view.dtype == kt.work:
        return view
    if view.dtype.kind == "b":
        return view.view(kt.work)
    return None


def host_values(values, shape):
    v, like = plain(values, "values")
    if v.shape != shape:
        raise ValueError("values has shape %s, keys %s: they must match" % (v.shape, shape))
    check_values_dtype(v.dtype)
    return v, like


def moved(a, axis):
    """A view (or, for axis None on a non-contiguous array, a copy) of `a` with the sorted axis
    last: the rows to sort."""
    if axis is None:
        return a.reshape(-1)
    return np.moveaxis(a, axis, -1)


def check_out(out, shape, dtype, what="out"):
    """Checks an output array; ValueError for anything wrong with it, TypeError for a masked one
    (it is not touched)."""
    if not isinstance(out, np.ndarray):
        raise ValueError("%s must be a numpy.ndarray (got %s)" % (what, type(out).__name__))
    if isinstance(out, np.ma.MaskedArray):
        raise TypeError("%s is a masked array: its mask would not follow the sort" % what)
    check_out_shape(out, shape, dtype, what)
    if not out.flags.writeable:
        raise ValueError("%s is read-only" % what)
    return out


def same_view(x, y):
    return (x.__array_interface__["data"][0] == y.__array_interface__["data"][0]
            and x.shape == y.shape and x.strides == y.strides and x.dtype == y.dtype)


_COPY_THREADS = min(8, os.cpu_count() or 1)
_PARALLEL_COPY_MIN = 8 << 20  # bytes
_copy_pool = None
_copy_pool_lock = threading.Lock()


def c_copy(src):
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


def workspace(src, dst):
    """A C-contiguous array with src's contents to sort in place: dst itself where its layout
    allows (then the result needs no copy), else a new array. Returns (array, is_dst)."""
    if dst is not None and dst.flags.c_contiguous and dst.flags.aligned:
        if not same_view(src, dst):
            np.copyto(dst, src)  # numpy buffers overlapping copies itself
        return dst, True
    return c_copy(src), False


def pair_workspaces(src_k, src_v, dst_k, dst_v):
    """_workspace for keys and values together: both sorted in their outputs, or both in new
    arrays. Returns (keys array, values array, in the outputs)."""
    if dst_k is None or not all(x.flags.c_contiguous and x.flags.aligned for x in (dst_k, dst_v)):
        return (np.array(src_k, order="C", copy=True), np.array(src_v, order="C", copy=True),
                False)
    # Filling one output must not overwrite the other input before it is read.
    if dst_k.size and np.may_share_memory(dst_k, src_v) and not same_view(dst_v, src_v):
        src_v = src_v.copy()
    if dst_v.size and np.may_share_memory(dst_v, src_k) and not same_view(dst_k, src_k):
        src_k = src_k.copy()
    kw, _ = workspace(src_k, dst_k)
    vw, _ = workspace(src_v, dst_v)
    return kw, vw, True


def row_indices(shape):
    """int64 array of `shape` holding each element's position along the last axis."""
    idx = np.empty(shape, dtype=np.int64)
    if idx.size:
        idx[...] = np.arange(shape[-1], dtype=np.int64)
    return idx


def split_out(out, what):
    """out for a call with values: None or a (keys, values) pair."""
    if out is None:
        return None, None
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise ValueError("%s with values takes out=(keys_out, values_out)" % what)
    return out[0], out[1]
