"""_opencl.py - sorts of pyopencl.array.Array objects in device memory, on the array's own queue
(clsort_sort_buffer / clsort_sort_segments_buffer). Imported only when such an array is seen."""
import ctypes

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

from ._lib import lib
from .api import (_flags, _segment_offsets, algorithm_number, key_type)


def _check_cl_array(a, what):
    if not isinstance(a, cla.Array):
        raise TypeError("%s must be a pyopencl.array.Array (keys and values both in host or both "
                        "in device memory), got %s"
                        % (what, type(a).__name__))
    if a.ndim != 1:
        raise ValueError("%s: device arrays are sorted as 1-D arrays (got shape %s)"
                         % (what, a.shape))
    if not a.flags.forc:
        raise ValueError("%s is not contiguous; sort a copy" % what)


def _buffer(a, what):
    """The cl_mem that starts at a's first element, and the Python object that owns it.

    clsort takes whole buffers: an array that starts `offset` bytes into its buffer is passed as
    a sub-buffer, which OpenCL allows only at multiples of the device's base address alignment."""
    base, off = a.base_data, a.offset
    if off == 0:
        return base.int_ptr, base
    align = a.queue.device.mem_base_addr_align // 8
    if off % align:
        raise ValueError("%s starts %d bytes into its buffer; clsort can sort it only from a "
                         "multiple of %d bytes on this device (sort a copy)" % (what, off, align))
    sub = base.get_sub_region(off, a.nbytes)
    return sub.int_ptr, sub


def _wait_list(arrays):
    events = [e for a in arrays if a is not None for e in a.events]
    if not events:
        return 0, None
    return len(events), (ctypes.c_void_p * len(events))(*[e.int_ptr for e in events])


def _enqueue(ctx, fn_name, arrays, *args):
    """Calls clsort_<fn_name>(ctx, *args, wait list, &done) after every event of `arrays`, and
    attaches the done event to each array (so later PyOpenCL work on them waits for the sort)."""
    nwait, wait = _wait_list(arrays)
    done = ctypes.c_void_p()
    ctx._call(fn_name, *args, nwait, wait, ctypes.byref(done))
    # The library hands over one reference to `done`: PyOpenCL takes it (retain=False).
    event = cl.Event.from_int_ptr(done.value, retain=False) if done.value else None
    if event is not None:
        for a in arrays:
            if a is not None:
                a.add_event(event)
    return event


def sort(ctx, keys, values, descending, algorithm, stable):
    """clsort_sort_buffer on device arrays; returns the pyopencl.Event of the sort (None when
    the array is empty: nothing was enqueued)."""
    _check_cl_array(keys, "keys")
    t, algo = key_type(keys.dtype), algorithm_number(algorithm)
    vsize = 0
    if values is not None:
        _check_cl_array(values, "values")
        if values.shape != keys.shape:
            raise ValueError("values has shape %s, keys %s: they must match"
                             % (values.shape, keys.shape))
        if values.dtype.itemsize not in (4, 8):
            raise TypeError("values must have 4 or 8 bytes per element; got %s" % values.dtype)
        if values.context != keys.context:
            raise ValueError("keys and values belong to different OpenCL contexts")
        vsize = values.dtype.itemsize
    else:
        # Keys that compare equal have identical bits: keys alone are stable anyway, and
        # clsort_sort_buffer refuses the flag, which only matters for pairs.
        stable = False
    if keys.size == 0:
        return None
    # kkeep/vkeep hold any sub-buffer until the call has enqueued its work (OpenCL then keeps
    # the memory alive until that work is done).
    kmem, kkeep = _buffer(keys, "keys")
    vmem, vkeep = _buffer(values, "values") if values is not None else (None, None)
    return _enqueue(ctx, "sort_buffer", [keys, values], ctypes.c_void_p(kmem),
                    ctypes.c_void_p(vmem), vsize, keys.size, t, algo, _flags(descending, stable))


def sort_segments(ctx, keys, offsets, values, descending, algorithm, stable):
    """clsort_sort_segments_buffer on device arrays. Host offsets are checked and copied to the
    device; device offsets (a uint64 pyopencl array) are trusted as the C contract allows."""
    if lib().sort_segments_buffer is None:
        raise NotImplementedError(
            "the loaded libclsort (%s, version %s) has no clsort_sort_segments_buffer; the "
            "segmented sort of device arrays needs a newer library"
            % (lib().path, lib().version_string().decode()))
    _check_cl_array(keys, "keys")
    t, algo = key_type(keys.dtype), algorithm_number(algorithm)
    vsize = 0
    if values is not None:
        _check_cl_array(values, "values")
        if values.shape != keys.shape or values.dtype.itemsize not in (4, 8):
            raise ValueError("values must match the keys' shape with 4 or 8 bytes per element")
        vsize = values.dtype.itemsize
    if isinstance(offsets, cla.Array):
        _check_cl_array(offsets, "offsets")
        if offsets.dtype != np.uint64 or offsets.size < 1:
            raise TypeError("device offsets must be a uint64 array of nseg + 1 entries")
        doff = offsets
    else:
        doff = cla.to_device(keys.queue, _segment_offsets(offsets, keys.size))
    if keys.size == 0:
        return None
    kmem, kkeep = _buffer(keys, "keys")
    vmem, vkeep = _buffer(values, "values") if values is not None else (None, None)
    omem, okeep = _buffer(doff, "offsets")
    return _enqueue(ctx, "sort_segments_buffer", [keys, values, doff], ctypes.c_void_p(kmem),
                    ctypes.c_void_p(vmem), vsize, ctypes.c_void_p(omem), doff.size - 1, t,
                    algo, _flags(descending, stable))
