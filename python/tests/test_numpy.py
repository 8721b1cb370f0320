"""clsort on NumPy arrays: sort, argsort and sort_pairs along every axis against NumPy in the
header's order (total_order=True: floats by totalOrder, compared bit for bit), out=, the
contexts, every error. NumPy's order, the default, is test_numpy_order.py's."""
import ctypes
import re
import threading

import numpy as np
import pytest

import clsort
import clsort._lib
from conftest import (DEVICE, DTYPES, SIZES, assert_same_bits, has_nan_largest, make_keys,
                      reference_argsort_axis, reference_order, reference_sort,
                      reference_sort_axis)

SHAPES = [(0,), (1,), (37,), (5, 7), (0, 4), (4, 0), (1, 1), (3, 4, 5), (2, 1, 33)]


def layouts(rng, dtype, shape):
    """The same values as a C array, a Fortran array and a non-contiguous view."""
    n = int(np.prod(shape))
    # Few distinct values (floats: ±0.0 and NaNs of both signs among them): ties everywhere.
    c = make_keys(rng, dtype, n, distinct=max(1, n // 3)).reshape(shape)
    f = np.asfortranarray(c)
    big = np.empty(tuple(2 * s + 1 for s in shape), dtype)
    view = big[tuple(slice(1, None, 2) for _ in shape)]
    view[...] = c
    return [("C", c), ("F", f), ("strided", view)]


def check_permutation(idx, a, axis):
    """idx sorts each slice: a permutation of 0..n-1 along the axis."""
    if axis is None:
        assert np.array_equal(np.sort(idx), np.arange(a.size))
    else:
        axis %= a.ndim
        want = np.broadcast_to(np.arange(a.shape[axis]).reshape(
            [-1 if i == axis else 1 for i in range(a.ndim)]), a.shape)
        assert np.array_equal(np.sort(idx, axis=axis), want)


@pytest.mark.parametrize("which", ["default", "networks"])
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_every_axis_and_layout(rng, dev_ctx, which, dtype, shape):
    # "default": the module's calls on the default device, as a user makes them (on a CPU
    # device AUTO may sort on the host); "networks": a context that always runs the device.
    device = DEVICE if which == "default" else dev_ctx
    for name, a in layouts(rng, dtype, shape):
        before = a.copy()
        for axis in list(range(-a.ndim, a.ndim)) + [None]:
            for desc in (False, True):
                what = "%s %s axis=%s desc=%s" % (name, shape, axis, desc)
                want = reference_sort_axis(a, axis, desc)
                got = clsort.sort(a, axis, descending=desc, device=device, total_order=True)
                assert isinstance(got, np.ndarray)
                assert_same_bits(got, want, "sort " + what)
                idx = clsort.argsort(a, axis, descending=desc, stable=True, device=device,
                                     total_order=True)
                assert idx.dtype == np.int64, what
                assert np.array_equal(idx, reference_argsort_axis(a, axis, desc)), what
                # Without stable: a permutation that sorts (ties in any order).
                idx = clsort.argsort(a, axis, descending=desc, device=device, total_order=True)
                check_permutation(idx, a, axis)
                taken = (a.reshape(-1)[idx] if axis is None
                         else np.take_along_axis(a, idx, axis))
                assert_same_bits(taken, want, "argsort " + what)
        assert_same_bits(a, before, "the input changed")


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
def test_sort_1d_sizes(rng, ctx, dev_ctx, dtype, n, descending):
    # The host fallback (ctx, small n) and the device networks (dev_ctx) alike.
    a = make_keys(rng, dtype, n)
    want = reference_sort(a, descending)
    for c in (ctx, dev_ctx):
        assert_same_bits(c.sort(a, descending=descending, total_order=True), want, "n=%d" % n)
        idx = c.argsort(a, descending=descending, stable=True, total_order=True)
        assert np.array_equal(idx, reference_order(a, descending))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_matches_numpy_exactly(rng, dtype):
    # Without NaNs and signed zeros totalOrder is numpy's order: the module-level calls on the
    # default context equal numpy.sort and numpy.argsort(kind="stable") exactly.
    a = make_keys(rng, dtype, 6000, distinct=500).reshape(20, 300)
    if a.dtype.kind == "f":
        a[~np.isfinite(a) | (a == 0)] = 1.5
    for axis in (0, 1, -1, None):
        assert_same_bits(clsort.sort(a, axis, total_order=True), np.sort(a, axis))
        assert np.array_equal(clsort.argsort(a, axis, stable=True, total_order=True),
                              np.argsort(a, axis, kind="stable"))
    assert_same_bits(clsort.sort(a[0], descending=True, total_order=True), np.sort(a[0])[::-1])
    if a.dtype.kind != "f" or has_nan_largest():  # 0.3's calls take the default order
        assert_same_bits(clsort.sort_copy(a[0]), np.sort(a[0]))
        assert_same_bits(clsort.sorted(a[0], True), np.sort(a[0])[::-1])


def test_float_total_order_explicit(ctx):
    v = np.array([np.nan, -np.nan, 1.0, -0.0, 0.0, -np.inf, np.inf, -1.0], dtype=np.float64)
    got = ctx.sort(v, total_order=True)
    signs = np.signbit(got)
    # -NaN < -inf < -1 < -0.0 < +0.0 < 1 < +inf < +NaN
    assert np.isnan(got[0]) and signs[0]
    assert list(got[1:7]) == [-np.inf, -1.0, 0.0, 0.0, 1.0, np.inf]
    assert list(signs[1:7]) == [True, True, True, False, False, False]
    assert np.isnan(got[7]) and not signs[7]
    assert list(ctx.argsort(v, total_order=True)) == [1, 5, 7, 3, 4, 2, 6, 0]
    assert list(ctx.argsort(v, descending=True, total_order=True)) == [0, 6, 2, 4, 3, 7, 5, 1]


def test_out(rng, ctx):
    a = make_keys(rng, np.float32, 60).reshape(6, 10)
    want0, want1 = reference_sort_axis(a, 0), reference_sort_axis(a, 1)
    # out=a: in place, along either axis; the call returns out itself.
    b = a.copy()
    assert ctx.sort(b, out=b, total_order=True) is b
    assert_same_bits(b, want1)
    b = a.copy()
    assert ctx.sort(b, 0, out=b, total_order=True) is b
    assert_same_bits(b, want0)
    # A separate out, C or Fortran ordered or a strided view; the input stays as it was.
    for out in (np.empty_like(a), np.empty(a.shape, a.dtype, order="F"),
                np.empty((12, 10), a.dtype)[::2]):
        for axis, want in ((0, want0), (1, want1)):
            assert ctx.sort(a, axis, out=out, total_order=True) is out
            assert_same_bits(out, want)
    flat = np.empty(60, a.dtype)
    assert ctx.sort(a, None, out=flat, total_order=True) is flat
    assert_same_bits(flat, reference_sort_axis(a, None))
    # An out overlapping the input: the reversed view of the same memory.
    b = a[0].copy()
    ctx.sort(b, out=b[::-1], total_order=True)
    assert_same_bits(b, reference_sort(a[0])[::-1])


def test_out_errors_touch_nothing(ctx):
    a = np.arange(12, 0, -1, dtype=np.int32).reshape(3, 4)
    keep = a.copy()
    for out in (np.zeros((4, 3), np.int32), np.zeros((3, 4), np.int64), np.zeros(12, np.int32),
                [0] * 12):
        o = out.copy() if isinstance(out, np.ndarray) else out
        with pytest.raises(ValueError):
            ctx.sort(a, out=o, total_order=True)
        if isinstance(out, np.ndarray):
            assert np.array_equal(o, out)
    ro = np.zeros((3, 4), np.int32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        ctx.sort(a, out=ro, total_order=True)
    o = np.zeros((3, 4), np.int32)
    with pytest.raises(clsort.AxisError):  # np.AxisError is gone in NumPy 2 (np.exceptions)
        ctx.sort(a, 2, out=o, total_order=True)
    with pytest.raises(TypeError, match="uint32"):
        ctx.sort(a.astype(np.complex64), out=o, total_order=True)
    with pytest.raises(ValueError, match="unknown algorithm"):
        ctx.sort(a, out=o, algorithm="shell", total_order=True)
    assert not o.any() and np.array_equal(a, keep)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("vtype", [np.uint32, np.float64], ids=["v4", "v8"])
@pytest.mark.parametrize("n", [0, 1, 2, 1025, 100000])
@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
def test_sort_pairs(rng, dev_ctx, dtype, vtype, n, descending):
    # Values are the keys' input positions: each output pair must be an input pair.
    keys = make_keys(rng, dtype, n, distinct=n // 4 + 1)
    vals = np.arange(n).astype(vtype)
    k, v = dev_ctx.sort_pairs(keys, vals, descending=descending, total_order=True)
    assert_same_bits(k, reference_sort(keys, descending), "keys")
    pos = v.astype(np.int64)
    assert np.array_equal(np.sort(pos), np.arange(n)), "values are not a permutation"
    assert_same_bits(keys[pos], k, "values do not follow their keys")
    assert np.array_equal(vals, np.arange(n).astype(vtype))  # inputs untouched


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
def test_sort_pairs_stable_axes(rng, ctx, dtype, descending):
    keys = make_keys(rng, dtype, 3 * 40 * 5, distinct=7).reshape(3, 40, 5)
    vals = np.arange(keys.size, dtype=np.int64).reshape(keys.shape)
    for axis in (0, 1, 2, None):
        k, v = clsort.sort_pairs(keys, vals, axis, stable=True, descending=descending,
                                 device=ctx, total_order=True)
        idx = reference_argsort_axis(keys, axis, descending)
        if axis is None:
            assert np.array_equal(v, idx)
        else:
            assert np.array_equal(v, np.take_along_axis(vals, idx, axis))
        assert_same_bits(k, reference_sort_axis(keys, axis, descending))
    # out=(keys, values): in place; a separate pair; a bad pair.
    k2, v2 = keys.copy(), vals.copy()
    r = ctx.sort_pairs(k2, v2, 1, stable=True, out=(k2, v2), total_order=True)
    assert r[0] is k2 and r[1] is v2
    assert np.array_equal(v2, np.take_along_axis(vals, reference_argsort_axis(keys, 1), 1))
    ko, vo = np.empty_like(keys, order="F"), np.empty_like(vals)
    ctx.sort_pairs(keys, vals, 0, stable=True, out=(ko, vo), total_order=True)
    assert np.array_equal(vo, np.take_along_axis(vals, reference_argsort_axis(keys, 0), 0))
    with pytest.raises(ValueError):
        ctx.sort_pairs(keys, vals, out=ko, total_order=True)
    if ko.dtype.itemsize == 8:
        with pytest.raises(ValueError, match="overlap"):
            ctx.sort_pairs(keys, vals, out=(ko, ko.view(np.int64)), total_order=True)


def test_stats_and_fallback(rng):
    with clsort.Context(DEVICE) as c:
        limit = c.host_fallback_max
        if limit >= 2:
            c.sort(make_keys(rng, np.uint32, 2), total_order=True)
            assert c.stats().host_fallback
        c.host_fallback_max = 0
        assert c.host_fallback_max == 0
        if clsort._lib.lib().set_host_path_max is not None:
            c.host_path_max = 0
            assert c.host_path_max == 0
        c.sort(make_keys(rng, np.uint32, 100), total_order=True)
        st = c.stats()
        assert not st.host_fallback and st.launches >= 1 and st.total_ns > 0
        assert st.algorithm in ("bitonic", "odd-even-merge", "odd-even-transposition")


@pytest.mark.parametrize("algorithm", ["auto", "bitonic", "odd-even-merge",
                                       "odd_even_transposition", "BITONIC", "radix"])
def test_algorithms(rng, dev_ctx, algorithm):
    if algorithm == "radix" and clsort._lib.lib().algorithm_parse(b"radix", ctypes.byref(
            ctypes.c_int())) != 0:
        with pytest.raises(ValueError, match="unknown algorithm 'radix'"):
            dev_ctx.sort(np.arange(4, dtype=np.uint32), algorithm="radix")
        pytest.skip("the loaded libclsort has no radix sort yet")
    a = make_keys(rng, np.float32, 1025)
    assert_same_bits(dev_ctx.sort(a, algorithm=algorithm, total_order=True), reference_sort(a))
    st = dev_ctx.stats()
    assert not st.host_fallback and st.launches > 0
    if algorithm != "auto":
        assert st.algorithm == algorithm.lower().replace("_", "-")
    m = make_keys(rng, np.int32, 6 * 50).reshape(6, 50)
    assert_same_bits(dev_ctx.sort(m, 0, algorithm=algorithm, total_order=True),
                     reference_sort_axis(m, 0))


def test_context_lifecycle_and_info():
    with clsort.Context(DEVICE) as c:
        info = c.device_info
        assert info.name and info.type in ("gpu", "cpu", "accelerator", "other")
        assert re.fullmatch(r"\d+:\d+", info.spec)
        assert isinstance(c.warnings, str)
        assert "Context" in repr(c)
        # The same device by its "P:D" spec; the Context has the module's calls.
        with clsort.Context(info.spec) as again:
            assert again.device_info.name == info.name
            a = np.array([[3, 1, 2], [9, 8, 7]], np.uint64)
            assert again.sort(a, 0, total_order=True).tolist() == [[3, 1, 2], [9, 8, 7]]
            assert again.argsort(a, total_order=True).tolist() == [[1, 2, 0], [2, 1, 0]]
            assert [x.tolist() for x in again.sort_pairs(a[0], a[1])] == [[1, 2, 3], [8, 7, 9]]
    assert c.closed and "closed" in repr(c)
    with pytest.raises(ValueError, match="closed"):
        c.sort(np.arange(4, 0, -1, dtype=np.uint32), total_order=True)
    c.close()  # twice is fine
    devices = clsort.list_devices()
    assert any(d.name == info.name for d, _ in devices)
    assert sum(is_default for _, is_default in devices) <= 1


def test_versions():
    assert re.fullmatch(r"\d+\.\d+\.\d+", clsort.library_version())
    assert clsort.__version__ == clsort.library_version()


def test_default_contexts_are_shared():
    assert clsort.default_context(DEVICE) is clsort.default_context(DEVICE)
    assert clsort.device_info(DEVICE).name == clsort.default_context(DEVICE).device_info.name
    clsort.sort(np.arange(10, 0, -1, dtype=np.int32), device=DEVICE, total_order=True)
    assert isinstance(clsort.get_stats(DEVICE), clsort.Stats)


def test_threads_share_nothing_wrong(rng):
    # ctypes drops the GIL around the C call; the library's lock serialises one context.
    arrays = [make_keys(rng, np.float32, 20000) for _ in range(6)]
    want = [reference_sort(a) for a in arrays]
    got = [None] * len(arrays)
    errors = []

    def work(i):
        try:
            got[i] = clsort.sort(arrays[i], device=DEVICE, total_order=True)
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(arrays))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for g, w in zip(got, want):
        assert_same_bits(g, w)


def test_reference_itself():
    # The reference, on cases small enough to check by eye.
    keys = np.array([2, 1, 2, 1], np.uint32)
    assert list(reference_order(keys)) == [1, 3, 0, 2]
    assert list(reference_order(keys, descending=True)) == [0, 2, 1, 3]
    m = np.array([[2, 1], [1, 2]], np.int32)
    assert reference_sort_axis(m, 0).tolist() == [[1, 1], [2, 2]]
    assert reference_argsort_axis(m, None).tolist() == [1, 2, 0, 3]


# ---- errors -------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.complex64, np.object_, np.longdouble, "<M8[s]", "V8",
                                   "U2", [("a", np.int32)]], ids=str)
def test_wrong_dtype_is_type_error(ctx, dtype):
    a = np.zeros(8, dtype=dtype)
    for call in (ctx.sort, ctx.argsort, lambda x: ctx.sort_pairs(x, np.zeros(8, np.uint32)),
                 lambda x: ctx.topk(x, 2), lambda x: ctx.sort_segments(x, [0, 8])):
        with pytest.raises(TypeError, match="uint32, int32, float32, uint64, int64, float64, "
                                            "uint8, int8, uint16, int16, float16, bfloat16"):
            call(a)


def test_bad_axes(ctx):
    a = np.arange(24, dtype=np.uint32).reshape(2, 3, 4)
    # clsort.AxisError is numpy's own (np.AxisError before NumPy 2, np.exceptions.AxisError since).
    with pytest.raises(clsort.AxisError):
        np.sort(a, 3)
    assert issubclass(clsort.AxisError, ValueError)
    for axis in (3, -4, 100):
        with pytest.raises(clsort.AxisError):  # a ValueError, as numpy's
            ctx.sort(a, axis, total_order=True)
        with pytest.raises(ValueError):
            ctx.argsort(a, axis, total_order=True)
    for axis in (1.0, "0", True):
        with pytest.raises(TypeError):
            ctx.sort(a, axis, total_order=True)
    with pytest.raises(ValueError):
        ctx.sort(np.array(5, np.uint32), total_order=True)  # a 0-d array has no axis -1
    assert ctx.sort(np.array(5, np.uint32), None, total_order=True).tolist() == [5]


def test_array_likes_and_views(ctx):
    assert ctx.sort([3, 2, 1], total_order=True).tolist() == [1, 2, 3]
    assert ctx.argsort((3.0, 2.0, 1.0), total_order=True).tolist() == [2, 1, 0]
    ro = np.arange(100, dtype=np.uint32)[::-1]
    ro.flags.writeable = False
    assert np.array_equal(ctx.sort(ro, total_order=True), np.arange(100))
    unaligned = np.frombuffer(bytearray(4 * 10 + 1), dtype=np.uint8)[1:].view(np.uint32)
    assert np.array_equal(ctx.sort(unaligned, total_order=True), np.zeros(10))


def test_bad_algorithm(ctx):
    a = np.arange(10, dtype=np.uint32)
    with pytest.raises(ValueError, match="unknown algorithm"):
        ctx.sort(a, algorithm="quicksort", total_order=True)
    with pytest.raises(ValueError, match="unknown algorithm"):
        clsort.sort_pairs(a, a.copy(), algorithm="", device=ctx, total_order=True)
    with pytest.raises(TypeError):
        ctx.argsort(a, algorithm=1, total_order=True)


def test_bad_pairs(ctx):
    k = np.arange(10, dtype=np.float32)
    with pytest.raises(ValueError, match="shape"):
        ctx.sort_pairs(k, np.arange(9, dtype=np.uint32), total_order=True)
    with pytest.raises(TypeError, match="4 or 8 bytes"):
        ctx.sort_pairs(k, np.arange(10, dtype=np.uint16), total_order=True)
    with pytest.raises(TypeError, match="4 or 8 bytes"):
        ctx.sort_pairs(k, np.empty(10, dtype=object), total_order=True)
    # Keys and values that share memory are fine now: both are copied.
    k2, v2 = ctx.sort_pairs(k[::-1], k[::-1].view(np.uint32), total_order=True)
    assert np.array_equal(k2, k) and np.array_equal(v2, k.view(np.uint32))


def test_no_device_errors_name_the_spec_and_the_devices(monkeypatch):
    with pytest.raises(clsort.Error) as info:
        clsort.Context("no device is called this 7c1e")
    e = info.value
    assert isinstance(e, RuntimeError)
    assert e.status == -2 and e.name == "ERR_NO_DEVICE"
    assert e.function.startswith("clsort_create")
    text = str(e)
    assert "'no device is called this 7c1e'" in text and "argument" in text
    for d, _ in clsort.list_devices():
        assert d.name in text and d.spec in text
    monkeypatch.setenv("CLSORT_DEVICE", "nothing like this 7c1e")
    with pytest.raises(clsort.Error, match=r"CLSORT_DEVICE='nothing like this 7c1e'"):
        clsort.Context()


@pytest.mark.parametrize("dtype", [np.uint32, np.float64])
def test_empty_pinned(rng, ctx, dtype):
    # Page-locked arrays from clsort_host_alloc sort like any other array (out=a: in place), and
    # the library sees that they are its own (stats.pinned_source) on devices that stage.
    a = ctx.empty_pinned((3000,), dtype)
    assert a.dtype == np.dtype(dtype) and a.shape == (3000,) and a.flags.c_contiguous
    a[:] = make_keys(rng, np.dtype(dtype), 3000)
    want = a[reference_order(a, False)]
    assert ctx.sort(a, algorithm="bitonic", out=a, total_order=True) is a
    assert_same_bits(a, want)
    view = a[10:20]
    del a  # the view keeps the block alive
    assert view.size == 10
    b = ctx.empty_pinned((2, 0), np.int32)
    assert b.shape == (2, 0)
    with pytest.raises(ValueError):
        ctx.empty_pinned(-1, np.int32)
