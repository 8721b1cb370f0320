"""clsort on pyopencl.array.Array objects: the NumPy calls in device memory on the caller's
queue, every axis and layout, out=, and the errors."""
import os

import numpy as np
import pytest

import clsort
from conftest import (DTYPES, NEW_DTYPES, SIZES, assert_same_bits, make_keys,
                      reference_argsort_axis, reference_sort, reference_sort_axis,
                      skip_unless_numpy_order)

cl = pytest.importorskip("pyopencl", reason="pyopencl is not importable (Debian: python3-pyopencl)")
cla = pytest.importorskip("pyopencl.array")


def _pick_device():
    # The device CLSORT_DEVICE names by type ("cpu": PoCL here), else the first one.
    want = {"cpu": cl.device_type.CPU, "gpu": cl.device_type.GPU}.get(
        (os.environ.get("CLSORT_DEVICE") or "").lower())
    devices = [d for p in cl.get_platforms() for d in p.get_devices()]
    for d in devices:
        if want is None or d.type & want:
            return d
    return None


@pytest.fixture(scope="module")
def queue():
    try:
        device = _pick_device()
    except cl.Error as e:
        pytest.skip("pyopencl finds no OpenCL platform: %s" % e)
    if device is None:
        pytest.skip("pyopencl finds no device of type CLSORT_DEVICE=%s"
                    % os.environ.get("CLSORT_DEVICE"))
    context = cl.Context([device])
    return cl.CommandQueue(context)


def skip_fp64(queue, dtype):
    if np.dtype(dtype) == np.float64 and not queue.device.double_fp_config:
        pytest.skip("device has no fp64")


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
def test_sort_1d(rng, queue, dtype, n, descending):
    skip_fp64(queue, dtype)
    h = make_keys(rng, dtype, n)
    a = cla.to_device(queue, h)
    r = clsort.sort(a, descending=descending, total_order=True)
    assert isinstance(r, cla.Array) and r is not a
    assert_same_bits(r.get(), reference_sort(h, descending))
    assert_same_bits(a.get(), h)  # the input is untouched
    idx = clsort.argsort(a, descending=descending, stable=True, total_order=True)
    assert idx.dtype == np.int64
    assert np.array_equal(idx.get(), reference_argsort_axis(h, -1, descending))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(1,), (5, 7), (3, 4, 5), (2, 0, 3)], ids=str)
def test_every_axis_and_layout(rng, queue, dtype, shape):
    skip_fp64(queue, dtype)
    h = make_keys(rng, dtype, int(np.prod(shape)), distinct=7).reshape(shape)
    base = cla.to_device(queue, h)
    # C order, the transposed view (Fortran order) and a sliced (non-contiguous) view.
    big = np.zeros(tuple(2 * s for s in shape), dtype)
    big[tuple(slice(0, None, 2) for _ in shape)] = h
    dbig = cla.to_device(queue, big)
    views = [("C", base, h), ("T", base.transpose(), h.T),
             ("strided", dbig[tuple(slice(0, None, 2) for _ in shape)], h)]
    for name, a, ref in views:
        for axis in list(range(a.ndim)) + [-1, None]:
            if axis is None and not a.flags.c_contiguous and a.ndim > 1:
                with pytest.raises(ValueError, match="contiguous"):
                    clsort.sort(a, None, total_order=True)
                continue
            what = "%s axis=%s" % (name, axis)
            r = clsort.sort(a, axis, total_order=True)
            assert r.flags.c_contiguous, what
            assert_same_bits(r.get(), reference_sort_axis(ref, axis), what)
            i = clsort.argsort(a, axis, descending=True, stable=True, total_order=True)
            assert np.array_equal(i.get(), reference_argsort_axis(ref, axis, True)), what
    assert_same_bits(base.get(), h)


def test_out_and_in_place(rng, queue):
    h = make_keys(rng, np.float32, 60).reshape(6, 10)
    a = cla.to_device(queue, h)
    for axis in (0, 1):
        out = cla.empty_like(a)
        assert clsort.sort(a, axis, out=out, total_order=True) is out
        assert_same_bits(out.get(), reference_sort_axis(h, axis))
        b = a.copy()
        assert clsort.sort(b, axis, out=b, total_order=True) is b
        assert_same_bits(b.get(), reference_sort_axis(h, axis))
    with pytest.raises(ValueError, match="shape"):
        clsort.sort(a, out=cla.empty(queue, (10, 6), np.float32), total_order=True)
    with pytest.raises(ValueError, match="dtype"):
        clsort.sort(a, out=cla.empty(queue, (6, 10), np.float64), total_order=True)
    with pytest.raises(ValueError):
        # host and device do not mix
        clsort.sort(a, out=np.empty((6, 10), np.float32), total_order=True)


@pytest.mark.parametrize("vtype", [np.int32, np.uint64], ids=["v4", "v8"])
@pytest.mark.parametrize("n", [1, 1025, 100000])
@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
def test_sort_pairs(rng, queue, vtype, n, descending):
    h = make_keys(rng, np.float32, n, distinct=n // 3 + 1)
    k = cla.to_device(queue, h)
    v = cla.to_device(queue, np.arange(n).astype(vtype))
    ks, vs = clsort.sort_pairs(k, v, descending=descending, total_order=True)
    kk, pos = ks.get(), vs.get().astype(np.int64)
    assert_same_bits(kk, reference_sort(h, descending))
    assert np.array_equal(np.sort(pos), np.arange(n))
    assert_same_bits(h[pos], kk)
    # Stable pairs on the device (through the segmented sort), in place.
    r = clsort.sort_pairs(k, v, stable=True, descending=descending, out=(k, v), total_order=True)
    assert r[0] is k and r[1] is v
    assert np.array_equal(v.get().astype(np.int64), reference_argsort_axis(h, -1, descending))


def test_follows_earlier_work_and_attaches_event(rng, queue):
    # The sort waits for the array's pending events and later PyOpenCL work waits for the sort.
    h = make_keys(rng, np.int32, 50000) // 2
    a = cla.to_device(queue, h)
    a += 1
    r = clsort.sort(a, total_order=True)
    assert r.events
    b = r * 2
    assert np.array_equal(b.get(), np.sort(h + 1) * 2)


def test_sort_copy_device(rng, queue):
    h = make_keys(rng, np.uint64, 3000)
    a = cla.to_device(queue, h)
    c = clsort.sort_copy(a, descending=True)
    assert isinstance(c, cla.Array)
    assert np.array_equal(c.get(), np.sort(h)[::-1])
    assert np.array_equal(a.get(), h)


def test_offset_views(rng, queue):
    # Views that start inside their buffer, at the device's base alignment or not.
    align = queue.device.mem_base_addr_align // 8
    per = align // 4
    h = make_keys(rng, np.uint32, 4 * per + 100)
    a = cla.to_device(queue, h)
    for start in (per, 1):
        assert np.array_equal(clsort.sort(a[start:], total_order=True).get(), np.sort(h[start:]))
    b = a.copy()
    clsort.sort(b[per:], out=b[per:], total_order=True)
    got = b.get()
    assert np.array_equal(got[:per], h[:per]) and np.array_equal(got[per:], np.sort(h[per:]))
    b = a.copy()
    # an unaligned out: sorted in a copy, then copied in
    clsort.sort(b[1:], out=b[1:], total_order=True)
    assert np.array_equal(b.get()[1:], np.sort(h[1:])) and b.get()[0] == h[0]


def test_contexts_per_queue(queue):
    assert clsort.queue_context(queue) is clsort.queue_context(queue)
    other = cl.CommandQueue(queue.context)
    c = clsort.queue_context(other)
    assert c is not clsort.queue_context(queue)
    a = cla.to_device(other, np.arange(5000, 0, -1, dtype=np.int64))
    assert np.array_equal(clsort.sort(a, total_order=True).get(), np.arange(1, 5001))
    st = c.stats()  # waits for the sort
    assert not st.host_fallback and st.launches > 0
    # An explicit Context on the same queue works too.
    with clsort.Context.from_queue(queue) as mine:
        b = cla.to_device(queue, np.array([3.0, -0.0, 0.0, -1.0], np.float32))
        r = mine.sort(b, total_order=True)
        assert list(r.get().view(np.uint32)) == [0xBF800000, 0x80000000, 0, 0x40400000]


def test_device_errors(queue):
    a = cla.to_device(queue, np.arange(64, dtype=np.uint32))
    with pytest.raises(TypeError, match="uint32, int32"):
        clsort.sort(cla.to_device(queue, np.arange(8, dtype=np.complex64)), total_order=True)
    with pytest.raises(ValueError, match="unknown algorithm"):
        clsort.sort(a, algorithm="shell", total_order=True)
    with pytest.raises(ValueError, match="own queue"):
        clsort.sort(a, device="cpu", total_order=True)
    with pytest.raises(ValueError):
        clsort.sort(a, axis=1, total_order=True)
    with pytest.raises(ValueError, match="host and device"):
        clsort.sort_pairs(a, np.arange(64, dtype=np.uint32), total_order=True)
    with pytest.raises(ValueError, match="shape"):
        clsort.sort_pairs(a, cla.to_device(queue, np.arange(63, dtype=np.uint32)), total_order=True)
    assert np.array_equal(a.get(), np.arange(64))


@pytest.mark.parametrize("dtype", DTYPES + NEW_DTYPES, ids=lambda d: np.dtype(d).name)
def test_numpys_order_on_device(rng, queue, dtype):
    # The default order on device arrays: numpy.sort and numpy.argsort(kind="stable") exactly,
    # every axis and a strided layout; 1- and 2-byte keys move through the strided copies too.
    skip_fp64(queue, dtype)
    skip_unless_numpy_order(dtype)
    if np.dtype(dtype).name == "bfloat16":
        pytest.skip("pyopencl arrays of ml_dtypes' bfloat16 are not tested")
    h = make_keys(rng, dtype, 6 * 70, distinct=25).reshape(6, 70)
    for a, ref in ((cla.to_device(queue, h), h), (cla.to_device(queue, h).transpose(), h.T)):
        for axis in (0, 1):
            assert_same_bits(clsort.sort(a, axis, kind="stable").get(),
                             np.sort(ref, axis, kind="stable"))
            assert np.array_equal(clsort.argsort(a, axis, stable=True).get(),
                                  np.argsort(ref, axis, kind="stable"))
            assert np.array_equal(clsort.argsort(a, axis, descending=True, stable=True).get(),
                                  reference_argsort_axis(ref, axis, True, numpy_order=True))
    d = cla.to_device(queue, h)
    pos = np.arange(h.size).reshape(h.shape)
    k, v = clsort.sort_pairs(d, cla.to_device(queue, pos), stable=True)
    assert np.array_equal(v.get(), np.take_along_axis(pos, np.argsort(h, 1, kind="stable"), 1))
    assert_same_bits(k.get(), np.sort(h, 1, kind="stable"))
    tv, ti = clsort.topk(d, 5)
    assert np.array_equal(ti.get(), reference_argsort_axis(h, 1, True, numpy_order=True)[:, :5])


def test_device_scalar_topk_and_kind(queue):
    v, i = clsort.topk(cla.to_device(queue, np.array(3, np.int32)), 1)
    assert v.shape == () and i.shape == () and v.get() == 3 and i.get() == 0
    with pytest.raises(ValueError):
        clsort.topk(cla.to_device(queue, np.array(3, np.int32)), 2)
    with pytest.raises(ValueError, match="kind"):
        clsort.sort(cla.to_device(queue, np.arange(4, dtype=np.int32)), kind="bogus")
