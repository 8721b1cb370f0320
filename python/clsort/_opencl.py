"""_opencl.py - the calls on pyopencl.array.Array objects, in device memory on the array's own
queue (clsort_sort_buffer, clsort_sort_segments_buffer, clsort_topk_buffer). Imported only when
such an array is seen.

Like the NumPy calls, each returns a new array (C-contiguous) or `out`, with the event of the
work attached (so later PyOpenCL work on it waits). The rows along the axis are first copied into
one C-contiguous buffer on the device (a buffer copy, or for other layouts a small strided-copy
kernel of this module), sorted there with one library call, and copied back out in the result's
layout where that differs. It uses _args, _keytypes and _lib; api.py calls it with the Context,
never the other way round.
"""
import ctypes

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

from ._args import (TopK, algorithm_number, check_k, check_out_shape, check_values_dtype,
                    need_segments, need_topk, normalize_axis, segment_offsets, topk_axis)
from ._keytypes import NAN_LARGEST, STABLE, key_type, order_flags
from ._lib import lib

# One program per OpenCL context: copy_strided moves the elements of an N-D strided view into
# another view of the same shape (both described in bytes), iota_rows writes each element's
# position within its row.
_SOURCE = r"""
#define CLSORT_COPY(NAME, T)                                                                    \
kernel void NAME(global uchar *dst, ulong dst_off, global const uchar *src, ulong src_off,      \
                 ulong total, uint ndim, global const long *dims)                              \
{                                                                                              \
    /* dims: shape[ndim], then the source's byte strides, then the destination's. */          \
    ulong i = get_global_id(0);                                                                \
    if (i >= total)                                                                            \
        return;                                                                                \
    long s = (long)src_off, d = (long)dst_off;                                                 \
    ulong r = i;                                                                               \
    for (int k = (int)ndim - 1; k >= 0; --k) {                                                 \
        ulong n = (ulong)dims[k];                                                              \
        long idx = (long)(r % n);                                                              \
        r /= n;                                                                                \
        s += idx * dims[ndim + k];                                                             \
        d += idx * dims[2 * ndim + k];                                                         \
    }                                                                                          \
    *(global T *)(dst + d) = *(global const T *)(src + s);                                     \
}
CLSORT_COPY(copy_strided1, uchar)
CLSORT_COPY(copy_strided2, ushort)
CLSORT_COPY(copy_strided4, uint)
CLSORT_COPY(copy_strided8, ulong)

kernel void iota_rows(global long *out, ulong total, ulong n)
{
    ulong i = get_global_id(0);
    if (i < total)
        out[i] = (long)(i % n);
}

/* Stable argsort of 32-bit keys: each key's order-preserving bits (kind 0 unsigned, 1 signed,
 * 2 float by totalOrder; inverted for descending) above its position in the row, as one ulong
 * key whose plain sort is the stable order. */
kernel void compose32(global ulong *out, global const uint *keys, ulong total, ulong n,
                      uint kind, uint descending)
{
    ulong i = get_global_id(0);
    if (i >= total)
        return;
    uint u = keys[i];
    if (kind == 1)
        u ^= 0x80000000u;
    else if (kind == 2)
        u = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
    if (descending)
        u = ~u;
    out[i] = ((ulong)u << 32) | (i % n);
}

kernel void low32(global long *out, global const ulong *composite, ulong total)
{
    ulong i = get_global_id(0);
    if (i < total)
        out[i] = (long)(composite[i] & 0xffffffffUL);
}
"""
_programs = {}


def _program(context):
    key = context.int_ptr
    prg = _programs.get(key)
    if prg is None:
        prg = _programs[key] = cl.Program(context, _SOURCE).build()
    return prg


def _is_c_contiguous(shape, strides, itemsize):
    expect = itemsize
    for n, st in zip(reversed(shape), reversed(strides)):
        if n != 1 and st != expect:
            return False
        expect *= n
    return True


class _View:
    """An N-D view of a pyopencl array's buffer: shape, byte strides and byte offset."""

    def __init__(self, arr, shape, strides):
        self.arr, self.shape, self.strides = arr, tuple(shape), tuple(strides)

    @property
    def contiguous(self):
        return _is_c_contiguous(self.shape, self.strides, self.arr.dtype.itemsize)


def _moved(a, axis):
    """The view of `a` with `axis` last (None: `a` flattened, which must then be contiguous)."""
    if axis is None:
        if not (a.flags.c_contiguous or a.ndim <= 1):
            raise ValueError("axis=None on a non-contiguous pyopencl array: sort a contiguous "
                             "copy (or give an axis)")
        if a.ndim == 1:
            return _View(a, a.shape, a.strides)
        return _View(a, (a.size,), (a.dtype.itemsize,))
    perm = [i for i in range(a.ndim) if i != axis] + [axis]
    return _View(a, [a.shape[i] for i in perm], [a.strides[i] for i in perm])


def _key(a):
    """The KeyType of a device array; TypeError for what the library cannot read in place."""
    kt = key_type(a.dtype)
    if a.dtype != kt.work and a.dtype.kind != "b":
        raise TypeError("pyopencl arrays sort in native byte order only; got %s" % a.dtype)
    return kt


def _check_cl(a, what, queue=None):
    if not isinstance(a, cla.Array):
        raise ValueError("%s must be a pyopencl.array.Array like the keys (host and device "
                         "arrays do not mix), got %s" % (what, type(a).__name__))
    if a.queue is None:
        raise ValueError("%s has no queue; give it one with .with_queue(q)" % what)
    if queue is not None and a.context != queue.context:
        raise ValueError("%s belongs to another OpenCL context" % what)
    return a


def _check_out(out, shape, dtype, queue, what="out"):
    _check_cl(out, what, queue)
    check_out_shape(out, shape, dtype, what)


def _copy(queue, dst, src):
    """Copies the elements of _View src into _View dst (same shape); returns the event."""
    total = int(np.prod(src.shape, dtype=np.int64))
    size = src.arr.dtype.itemsize
    wait = list(src.arr.events) + list(dst.arr.events)
    if total == 0:
        return None
    if src.contiguous and dst.contiguous:
        return cl.enqueue_copy(queue, dst.arr.base_data, src.arr.base_data,
                               byte_count=total * size, src_offset=src.arr.offset,
                               dst_offset=dst.arr.offset, wait_for=wait or None)
    ndim = len(src.shape)
    dims = np.array(list(src.shape) + list(src.strides) + list(dst.strides), dtype=np.int64)
    dbuf = cl.Buffer(queue.context, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR,
                     hostbuf=dims)
    kernel = getattr(_program(queue.context), "copy_strided%d" % size)
    return kernel(queue, (total,), None, dst.arr.base_data, np.uint64(dst.arr.offset),
                  src.arr.base_data, np.uint64(src.arr.offset), np.uint64(total),
                  np.uint32(ndim), dbuf, wait_for=wait or None)


def _attach(event, *arrays):
    if event is not None:
        for a in arrays:
            if a is not None:
                a.add_event(event)
    return event


def _buffer(a, what):
    """The cl_mem that starts at a's first element, and the Python object that owns it.

    clsort takes whole buffers: an array that starts `offset` bytes into its buffer is passed as
    a sub-buffer, which OpenCL allows only at multiples of the device's base address alignment."""
    base, off = a.base_data, a.offset
    if off == 0:
        return base.int_ptr, base
    align = a.queue.device.mem_base_addr_align // 8
    if off % align:
        raise ValueError("%s starts %d bytes into its buffer; clsort can use it only from a "
                         "multiple of %d bytes on this device" % (what, off, align))
    sub = base.get_sub_region(off, a.nbytes)
    return sub.int_ptr, sub


def _aligned(a):
    return a.offset % (a.queue.device.mem_base_addr_align // 8) == 0


def _wait_list(arrays):
    events = [e for a in arrays if a is not None for e in a.events]
    if not events:
        return 0, None
    return len(events), (ctypes.c_void_p * len(events))(*[e.int_ptr for e in events])


def _enqueue(ctx, fn_name, arrays, *args):
    """Calls clsort_<fn_name>(ctx, *args, wait list, &done) after every event of `arrays`, and
    attaches the done event to each array (so later PyOpenCL work on them waits for it)."""
    nwait, wait = _wait_list(arrays)
    done = ctypes.c_void_p()
    ctx._call(fn_name, *args, nwait, wait, ctypes.byref(done))
    # The library hands over one reference to `done`: PyOpenCL takes it (retain=False).
    event = cl.Event.from_int_ptr(done.value, retain=False) if done.value else None
    return _attach(event, *arrays)


def _workspace(queue, src, dst):
    """A C-contiguous device array holding src's elements (shape of src), to sort in place:
    dst's array itself when dst is a contiguous view at an alignment clsort can use, else a new
    one. Returns (array, is_dst)."""
    if dst is not None and dst.contiguous and _aligned(dst.arr):
        if not (src.arr.base_data.int_ptr == dst.arr.base_data.int_ptr
                and src.arr.offset == dst.arr.offset and src.strides == dst.strides):
            if _overlap(src.arr, dst.arr):
                tmp = cla.empty(queue, src.shape, src.arr.dtype)
                _attach(_copy(queue, _View(tmp, tmp.shape, tmp.strides), src), tmp)
                src = _View(tmp, tmp.shape, tmp.strides)
            _attach(_copy(queue, dst, src), dst.arr)
        return dst.arr, True
    w = cla.empty(queue, src.shape, src.arr.dtype)
    _attach(_copy(queue, _View(w, w.shape, w.strides), src), w)
    return w, False


def _overlap(x, y):
    if x.base_data.int_ptr != y.base_data.int_ptr:
        return False
    return x.offset < y.offset + y.nbytes and y.offset < x.offset + x.nbytes


def _sort_rows(ctx, w, values, t, algo, flags):
    """Sorts every row (last axis) of the C-contiguous device array w in place, values (same
    shape) following, with one library call."""
    n = w.shape[-1] if w.ndim else 1
    if w.size == 0 or n <= 1:
        return None
    rows = w.size // n
    if values is None and flags & STABLE and flags & NAN_LARGEST:
        # In NumPy's order keys that compare equal may differ in their bits (-0.0 and +0.0, NaN
        # payloads): a stable sort of keys alone is one of pairs whose values are dropped.
        values = cla.zeros(w.queue, w.shape, np.uint32)
    kmem, kkeep = _buffer(w, "keys")
    vmem, vkeep = _buffer(values, "values") if values is not None else (None, None)
    vsize = values.dtype.itemsize if values is not None else 0
    if rows == 1 and not (values is not None and flags & STABLE):
        # clsort_sort_buffer refuses CLSORT_STABLE, which only matters for pairs.
        return _enqueue(ctx, "sort_buffer", [w, values], ctypes.c_void_p(kmem),
                        ctypes.c_void_p(vmem), vsize, w.size, t, algo, flags & ~STABLE)
    need_segments()
    if lib().sort_segments_buffer is None:
        raise NotImplementedError("the loaded libclsort has no clsort_sort_segments_buffer")
    off = cla.to_device(w.queue, np.arange(0, rows * n + 1, n, dtype=np.uint64))
    omem, okeep = _buffer(off, "offsets")
    return _enqueue(ctx, "sort_segments_buffer", [w, values, off], ctypes.c_void_p(kmem),
                    ctypes.c_void_p(vmem), vsize, ctypes.c_void_p(omem), rows, t, algo, flags)


def _result(queue, w, axis, shape):
    """The C-contiguous result of `shape` from the sorted block w (the axis last)."""
    if axis is None or axis == len(shape) - 1:
        return w
    res = cla.empty(queue, shape, w.dtype)
    _attach(_copy(queue, _moved(res, axis), _View(w, w.shape, w.strides)), res)
    return res


def _row_indices(queue, shape):
    idx = cla.empty(queue, shape, np.int64)
    if idx.size:
        n = shape[-1]
        ev = _program(queue.context).iota_rows(queue, (idx.size,), None, idx.base_data,
                                               np.uint64(idx.size), np.uint64(n))
        _attach(ev, idx)
    return idx


def sort(ctx, a, axis, descending, stable, total_order, algorithm, out):
    a = _check_cl(a, "a")
    q = a.queue
    kt = _key(a)
    t, algo = kt.number, algorithm_number(algorithm)
    flags = order_flags(ctx, kt, descending, stable, total_order)
    ax = normalize_axis(axis, a.ndim)
    src = _moved(a, ax)
    dst = None
    shape = a.shape if ax is not None else (a.size,)
    if out is not None:
        _check_out(out, shape, a.dtype, q)
        dst = _moved(out, ax)
    w, in_place = _workspace(q, src, dst)
    _sort_rows(ctx, w, None, t, algo, flags)
    if out is not None:
        if not in_place:
            _attach(_copy(q, dst, _View(w, w.shape, w.strides)), out)
        return out
    return _result(q, w, ax, shape)


def argsort(ctx, a, axis, descending, stable, total_order, algorithm):
    a = _check_cl(a, "a")
    q = a.queue
    kt = _key(a)
    t, algo = kt.number, algorithm_number(algorithm)
    flags = order_flags(ctx, kt, descending, stable, total_order)
    ax = normalize_axis(axis, a.ndim)
    w, _ = _workspace(q, _moved(a, ax), None)
    n = w.shape[-1] if w.ndim else 1
    if a.dtype.itemsize == 4 and w.size and n < (1 << 32) and not flags & NAN_LARGEST:
        # 32-bit keys and their positions fit one 64-bit key, whose plain sort is stable:
        # clsort_sort_buffer has no stable mode and the segmented sort of long rows is slow,
        # and even unstable, 8-byte keys alone beat 4-byte keys with 8-byte values (PoCL, f32
        # 2^22: 0.76 s against 1.2 s).
        prg = _program(q.context)
        comp = cla.empty(q, w.shape, np.uint64)
        _attach(prg.compose32(q, (w.size,), None, comp.base_data, w.base_data,
                              np.uint64(w.size), np.uint64(n), np.uint32("uif".index(a.dtype.kind)),
                              np.uint32(bool(descending)),
                              wait_for=w.events or None), comp)
        _sort_rows(ctx, comp, None, key_type(np.uint64).number, algo, 0)
        idx = cla.empty(q, w.shape, np.int64)
        _attach(prg.low32(q, (w.size,), None, idx.base_data, comp.base_data,
                          np.uint64(w.size), wait_for=comp.events or None), idx)
    else:
        idx = _row_indices(q, w.shape)
        _sort_rows(ctx, w, idx, t, algo, flags)
    return _result(q, idx, ax, a.shape if ax is not None else (a.size,))


def sort_pairs(ctx, keys, values, axis, descending, stable, total_order, algorithm, out):
    keys = _check_cl(keys, "keys")
    q = keys.queue
    values = _check_cl(values, "values", q)
    kt = _key(keys)
    t, algo = kt.number, algorithm_number(algorithm)
    flags = order_flags(ctx, kt, descending, stable, total_order)
    if values.shape != keys.shape:
        raise ValueError("values has shape %s, keys %s: they must match" % (values.shape,
                                                                             keys.shape))
    check_values_dtype(values.dtype)
    ax = normalize_axis(axis, keys.ndim)
    shape = keys.shape if ax is not None else (keys.size,)
    kd = vd = None
    if out is not None:
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise ValueError("sort_pairs takes out=(keys_out, values_out)")
        _check_out(out[0], shape, keys.dtype, q, "out[0]")
        _check_out(out[1], shape, values.dtype, q, "out[1]")
        kd, vd = _moved(out[0], ax), _moved(out[1], ax)
        if not (kd.contiguous and vd.contiguous):
            kd = vd = None  # both sorted in copies, then copied out
    ksrc, vsrc = _moved(keys, ax), _moved(values, ax)
    if kd is not None and _overlap(vsrc.arr, kd.arr):
        vw, _ = _workspace(q, vsrc, None)
        vsrc = _View(vw, vw.shape, vw.strides)
    kw, k_in = _workspace(q, ksrc, kd)
    vw, v_in = _workspace(q, vsrc, vd)
    _sort_rows(ctx, kw, vw, t, algo, flags)
    if out is not None:
        if not k_in:
            _attach(_copy(q, _moved(out[0], ax), _View(kw, kw.shape, kw.strides)), out[0])
        if not v_in:
            _attach(_copy(q, _moved(out[1], ax), _View(vw, vw.shape, vw.strides)), out[1])
        return out[0], out[1]
    return _result(q, kw, ax, shape), _result(q, vw, ax, shape)


def sort_segments(ctx, keys, offsets, values, descending, stable, total_order, algorithm, out):
    """Host offsets are checked and copied to the device; device offsets (a uint64 pyopencl
    array) are trusted as the C contract allows (the kernels stay inside the buffers)."""
    if lib().sort_segments_buffer is None:
        raise NotImplementedError(
            "the loaded libclsort (%s, version %s) has no clsort_sort_segments_buffer; the "
            "segmented sort of device arrays needs a newer library"
            % (lib().path, lib().version_string().decode()))
    keys = _check_cl(keys, "a")
    q = keys.queue
    kt = _key(keys)
    t, algo = kt.number, algorithm_number(algorithm)
    flags = order_flags(ctx, kt, descending, stable, total_order)
    if keys.ndim != 1:
        raise ValueError("sort_segments sorts a 1-D array (got shape %s)" % (keys.shape,))
    if values is not None:
        values = _check_cl(values, "values", q)
        if values.shape != keys.shape or values.dtype.itemsize not in (4, 8):
            raise ValueError("values must match the keys' shape with 4 or 8 bytes per element")
    if isinstance(offsets, cla.Array):
        _check_cl(offsets, "offsets", q)
        if offsets.dtype != np.uint64 or offsets.ndim != 1 or offsets.size < 1:
            raise TypeError("device offsets must be a 1-D uint64 array of nseg + 1 entries")
        doff = offsets
    else:
        doff = cla.to_device(q, segment_offsets(offsets, keys.size))
    outs = [None, None]
    if out is not None:
        if values is None:
            _check_out(out, keys.shape, keys.dtype, q)
            outs[0] = out
        else:
            if not isinstance(out, (tuple, list)) or len(out) != 2:
                raise ValueError("sort_segments with values takes out=(keys_out, values_out)")
            _check_out(out[0], keys.shape, keys.dtype, q, "out[0]")
            _check_out(out[1], keys.shape, values.dtype, q, "out[1]")
            outs = list(out)
    kd = _moved(outs[0], 0) if outs[0] is not None else None
    vd = _moved(outs[1], 0) if outs[1] is not None else None
    kw, k_in = _workspace(q, _moved(keys, 0), kd)
    vw, v_in = (_workspace(q, _moved(values, 0), vd) if values is not None else (None, True))
    if values is None and flags & STABLE and flags & NAN_LARGEST:
        vw = cla.zeros(q, keys.shape, np.uint32)  # as in _sort_rows: stable keys are pairs
    if keys.size:
        kmem, kkeep = _buffer(kw, "keys")
        vmem, vkeep = _buffer(vw, "values") if vw is not None else (None, None)
        omem, okeep = _buffer(doff, "offsets")
        _enqueue(ctx, "sort_segments_buffer", [kw, vw, doff], ctypes.c_void_p(kmem),
                 ctypes.c_void_p(vmem), vw.dtype.itemsize if vw is not None else 0,
                 ctypes.c_void_p(omem), doff.size - 1, t, algo, flags)
    if outs[0] is not None and not k_in:
        _attach(_copy(q, kd, _View(kw, kw.shape, kw.strides)), outs[0])
    if outs[1] is not None and not v_in:
        _attach(_copy(q, vd, _View(vw, vw.shape, vw.strides)), outs[1])
    kr = outs[0] if outs[0] is not None else kw
    if values is None:
        return kr
    return kr, (outs[1] if outs[1] is not None else vw)


def topk(ctx, a, k, axis, largest, sorted, total_order):
    a = _check_cl(a, "a")
    q = a.queue
    kt = _key(a)
    ax = topk_axis(axis, a.ndim)
    if a.ndim == 0:
        # torch.topk of a scalar: its one element, whose index is 0 (k is 0 or 1).
        check_k(k, 1)
        return TopK(a.copy(), cla.zeros(q, (), np.int64))
    t, flags = kt.number, order_flags(ctx, kt, largest, False, total_order)
    src = _moved(a, ax)
    n = src.shape[-1]
    k = check_k(k, n)
    oshape = src.shape[:-1] + (k,)
    kv = cla.empty(q, oshape, a.dtype)
    ki = cla.empty(q, oshape, np.int64)
    if kv.size:
        fn = need_topk(buffer=True)
        if src.contiguous and _aligned(a):
            w = a
        else:
            w, _ = _workspace(q, src, None)
        kmem, kkeep = _buffer(w, "a")
        vmem, vkeep = _buffer(kv, "values")
        imem, ikeep = _buffer(ki, "indices")
        rows = int(np.prod(src.shape[:-1], dtype=np.int64))
        # Indices come back as uint64 (value_size 8), the bits of the int64 positions.
        _enqueue(ctx, fn, [w, kv, ki], ctypes.c_void_p(kmem), None, 8, n, rows, k, t, flags,
                 ctypes.c_void_p(vmem), ctypes.c_void_p(imem))
    if ax is None or ax == a.ndim - 1:
        return TopK(kv, ki)
    shape = list(a.shape)
    shape[ax] = k
    return TopK(_result(q, kv, ax, tuple(shape)), _result(q, ki, ax, tuple(shape)))
