"""NumPy's order and NumPy's conventions: clsort.sort(a) equals numpy.sort(a) and
clsort.argsort(a, stable=True) equals numpy.argsort(a, kind="stable") for every key dtype (NaNs
of either sign and +-0 included), kind=, byte order, bool, masked arrays and other ndarray
subclasses, and topk of a 0-d array. Float keys in NumPy's order and the 8- and 16-bit key types
skip, with the reason, while the loaded library lacks CLSORT_NAN_LARGEST or those types."""
import numpy as np
import pytest

import clsort
from conftest import (ALL_DTYPES, BFLOAT16, DEVICE, DTYPES, assert_same_bits, bits, is_float,
                      make_keys, np_argsort, np_sort, numpy_order_key, reference_argsort_axis,
                      reference_sort_axis, skip_unless_dtype, skip_unless_numpy_order)

SHAPES = [(0,), (1,), (2,), (37,), (5, 7), (3, 4, 5), (2, 1, 300)]
name = lambda d: np.dtype(d).name  # noqa: E731


def sorted_like_numpy(got, a, axis):
    """got is numpy.sort(a, axis) up to the order of equal keys (numpy's default sort is not
    stable, and its AVX-512 sort writes every NaN back as the positive quiet NaN): the same keys
    in NumPy's order, and per row the input's bit patterns."""
    want = np_sort(a, axis)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(numpy_order_key(got), numpy_order_key(want))
    ax = -1 if axis is None else axis
    src = a.reshape(-1) if axis is None else a
    assert np.array_equal(np.sort(bits(got), ax), np.sort(bits(src), ax))


@pytest.mark.parametrize("which", ["default", "networks"])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_default_order_is_numpys(rng, dev_ctx, which, dtype, shape):
    skip_unless_numpy_order(dtype)
    device = DEVICE if which == "default" else dev_ctx
    n = int(np.prod(shape))
    a = make_keys(rng, dtype, n, distinct=max(1, n // 3)).reshape(shape)
    for axis in list(range(a.ndim)) + [None]:
        what = "%s axis=%s" % (shape, axis)
        sorted_like_numpy(clsort.sort(a, axis, device=device), a, axis)
        for kw in (dict(stable=True), dict(kind="stable"), dict(kind="mergesort")):
            assert_same_bits(clsort.sort(a, axis, device=device, **kw), np_sort(a, axis), what)
            assert np.array_equal(clsort.argsort(a, axis, device=device, **kw),
                                  np_argsort(a, axis)), what
        # Descending: the reverse order, NaNs first, equal keys still in input order.
        assert np.array_equal(clsort.argsort(a, axis, descending=True, stable=True,
                                             device=device),
                              reference_argsort_axis(a, axis, True, numpy_order=True)), what
        for kind in ("quicksort", "heapsort", None):
            idx = clsort.argsort(a, axis, kind=kind, device=device)
            taken = a.reshape(-1)[idx] if axis is None else np.take_along_axis(a, idx, axis)
            assert np.array_equal(numpy_order_key(taken),
                                  numpy_order_key(np_sort(a, axis))), what


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_pairs_segments_topk_in_numpys_order(rng, ctx, dtype):
    skip_unless_numpy_order(dtype)
    a = make_keys(rng, dtype, 4 * 300, distinct=40).reshape(4, 300)
    vals = np.arange(a.size, dtype=np.int64).reshape(a.shape)
    k, v = clsort.sort_pairs(a, vals, 1, stable=True, device=ctx)
    idx = np_argsort(a, 1)
    assert np.array_equal(v, np.take_along_axis(vals, idx, 1))
    assert_same_bits(k, np.take_along_axis(a, idx, 1))
    flat = a.reshape(-1)
    off = [0, 5, 5, 700, 1200]
    k, v = clsort.sort_segments(flat, off, values=vals.reshape(-1), stable=True, device=ctx)
    for lo, hi in zip(off[:-1], off[1:]):
        assert_same_bits(k[lo:hi], np_sort(flat[lo:hi]))
        assert np.array_equal(v[lo:hi], lo + np_argsort(flat[lo:hi]))
    assert_same_bits(clsort.sort_segments(flat, off, stable=True, device=ctx), k)
    for largest in (True, False):
        tv, ti = clsort.topk(a, 7, largest=largest, device=ctx)
        want = reference_argsort_axis(a, 1, largest, numpy_order=True)[:, :7]
        assert np.array_equal(ti, want)
        assert_same_bits(tv, np.take_along_axis(a, want, 1))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64], ids=name)
def test_the_issues_cases(ctx, dtype):
    skip_unless_numpy_order(dtype)
    with np.errstate(invalid="ignore"):
        nan = np.array(np.inf, dtype) - np.array(np.inf, dtype)  # x86 gives the sign-bit NaN
    a = np.array([1.0, nan, 0.0], dtype)
    sorted_like_numpy(clsort.sort(a, device=ctx), a, -1)
    assert_same_bits(clsort.sort(a, device=ctx), a[[2, 0, 1]])  # the NaN's own bits
    z = np.array([0.0, -0.0], dtype)
    assert clsort.argsort(z, stable=True, device=ctx).tolist() == [0, 1]
    assert_same_bits(clsort.sort(z, stable=True, device=ctx), z)  # input bits, input order
    # topk ranks every NaN largest, as torch.topk does; descending puts NaNs first.
    v, i = clsort.topk(np.array([1.0, -np.nan, 3.0, np.inf], dtype), 2, device=ctx)
    assert i.tolist() == [1, 3] and np.isnan(v[0]) and v[1] == np.inf
    d = clsort.sort(np.array([1.0, -np.nan, -np.inf, np.nan], dtype), descending=True,
                    device=ctx)
    assert np.isnan(d[:2]).all() and d[2:].tolist() == [1.0, -np.inf]
    # total_order=True still gives IEEE totalOrder.
    t = clsort.sort(np.array([1.0, -np.nan, -0.0, 0.0], dtype), total_order=True, device=ctx)
    assert np.isnan(t[0]) and np.signbit(t[1:3]).tolist() == [True, False] and t[3] == 1.0


# ---- kind= ------------------------------------------------------------------------------------


def test_kind(rng, dev_ctx):
    # Integer keys need no NaN order: these run on every library.
    a = make_keys(rng, np.int32, 3000, distinct=20)
    stable = np.argsort(a, kind="stable")
    for kind in ("stable", "mergesort"):
        assert np.array_equal(dev_ctx.argsort(a, kind=kind), stable)
        assert np.array_equal(clsort.argsort(a, kind=kind, device=dev_ctx), stable)
        k, v = dev_ctx.sort_pairs(a, np.arange(a.size), kind=kind)
        assert np.array_equal(v, stable)
    for kind in (None, "quicksort", "heapsort", "stable", "mergesort"):
        assert_same_bits(clsort.sort(a, kind=kind, device=dev_ctx), np.sort(a))
        idx = dev_ctx.argsort(a, kind=kind)
        assert_same_bits(a[idx], np.sort(a))
    for bad in ("quick", "Stable", "radix", "", "q", 1, ["stable"], b"stable"):
        for call in (lambda: dev_ctx.sort(a, kind=bad), lambda: clsort.argsort(a, kind=bad),
                     lambda: clsort.sort_pairs(a, a, kind=bad),
                     lambda: clsort.sort_segments(a, [0, 3], kind=bad)):
            with pytest.raises(ValueError, match="kind"):
                call()


# ---- byte order and bool ----------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_non_native_byte_order(rng, ctx, dtype):
    skip_unless_dtype(dtype)
    if dtype is BFLOAT16:
        pytest.skip("bfloat16 sorts in native byte order only")
    total = is_float(dtype)  # totalOrder runs on every library; NumPy's order is tested above
    native = make_keys(rng, dtype, 6 * 40, distinct=30).reshape(6, 40)
    swapped = native.astype(native.dtype.newbyteorder("S"))
    kw = dict(total_order=True) if total else {}
    for axis in (0, 1, None):
        got = ctx.sort(swapped, axis, **kw)
        assert got.dtype == swapped.dtype
        assert_same_bits(got.astype(native.dtype), reference_sort_axis(native, axis))
        assert np.array_equal(ctx.argsort(swapped, axis, stable=True, **kw),
                              reference_argsort_axis(native, axis))
    out = np.empty_like(swapped)
    assert ctx.sort(swapped, 1, out=out, **kw) is out
    assert_same_bits(out.astype(native.dtype), reference_sort_axis(native, 1))
    out = np.empty(native.shape, native.dtype.newbyteorder("S"))
    assert ctx.sort(native[:, ::-1].astype(out.dtype), out=out, **kw) is out
    assert_same_bits(out.astype(native.dtype), reference_sort_axis(native, 1))
    k, v = ctx.sort_pairs(swapped, np.arange(native.size).reshape(native.shape), stable=True,
                          **kw)
    assert k.dtype == swapped.dtype
    assert np.array_equal(v, np.take_along_axis(np.arange(native.size).reshape(native.shape),
                                                reference_argsort_axis(native, 1), 1))
    tv, ti = ctx.topk(swapped, 5, **kw)
    assert tv.dtype == swapped.dtype
    assert np.array_equal(ti, reference_argsort_axis(native, 1, True)[:, :5])
    flat = swapped.reshape(-1)
    seg = ctx.sort_segments(flat, [0, 100, 240], **kw)
    assert seg.dtype == swapped.dtype
    assert_same_bits(seg[:100].astype(native.dtype), reference_sort_axis(native.reshape(-1)[:100],
                                                                         None))


def test_bool_sorts_as_u8(rng, ctx):
    skip_unless_dtype(np.bool_)
    a = make_keys(rng, np.bool_, 2000).reshape(4, 500)
    got = ctx.sort(a)
    assert got.dtype == np.bool_
    assert np.array_equal(got, np.sort(a))
    assert np.array_equal(ctx.argsort(a, stable=True), np.argsort(a, kind="stable"))
    out = np.empty_like(a)
    assert ctx.sort(a, out=out) is out and np.array_equal(out, np.sort(a))
    v, i = ctx.topk(a, 3, largest=False)
    assert v.dtype == np.bool_ and not v.any()


# ---- masked arrays and other subclasses -------------------------------------------------------


def masked_case(rng, dtype, shape):
    n = int(np.prod(shape))
    data = make_keys(rng, dtype, n, distinct=max(1, n // 4)).reshape(shape)
    return np.ma.array(data, mask=rng.random(shape) < 0.3, fill_value=data.reshape(-1)[0])


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_masked_arrays_sort_as_numpy_ma(rng, ctx, dtype):
    skip_unless_numpy_order(dtype)
    if dtype is BFLOAT16:
        pytest.skip("numpy.ma has no fill values for bfloat16")
    m = masked_case(rng, dtype, (6, 50))
    for axis in (0, 1, -1, None):
        got = clsort.sort(m, axis, stable=True, device=ctx)
        want = np.ma.sort(m, axis, kind="stable")
        assert isinstance(got, np.ma.MaskedArray), "returned without its mask"
        assert np.array_equal(np.ma.getmaskarray(got), np.ma.getmaskarray(want))
        assert_same_bits(got.data, want.data)
        assert_same_bits(np.asarray(got.fill_value), np.asarray(want.fill_value))
        assert np.array_equal(clsort.argsort(m, axis, stable=True, device=ctx),
                              np.ma.argsort(m, axis, kind="stable"))
        # Unstable: the same filled keys in order (masked entries tie with NaNs and, for other
        # types, with the largest value).
        got = clsort.sort(m, axis, device=ctx)
        fill = np.nan if is_float(dtype) else np.ma.minimum_fill_value(m)
        assert np.array_equal(numpy_order_key(got.filled(fill)),
                              numpy_order_key(want.filled(fill)))
        assert got.mask.sum() == want.mask.sum()
    # No mask at all; the input untouched.
    plain = np.ma.array(m.data.copy())
    got = clsort.sort(plain, stable=True, device=ctx)
    assert isinstance(got, np.ma.MaskedArray)
    assert_same_bits(got.data, np.sort(m.data, kind="stable"))
    assert not np.ma.getmaskarray(got).any()


@pytest.mark.parametrize("dtype", [np.int32, np.uint64], ids=name)
def test_masked_descending_and_refusals(rng, ctx, dtype):
    # Away from the type's smallest value, which masked entries tie with in descending order
    # (as they tie with its largest in numpy.ma's ascending order).
    m = np.ma.array(rng.integers(1, 1000, 200).astype(dtype), mask=rng.random(200) < 0.3)
    got = clsort.sort(m, descending=True, stable=True, device=ctx)
    nmask = int(m.mask.sum())
    assert np.ma.getmaskarray(got)[got.size - nmask:].all()
    assert_same_bits(got.data[:got.size - nmask], np.sort(m.compressed())[::-1])
    for call in (lambda: clsort.sort(m, out=np.empty(m.shape, m.dtype), device=ctx),
                 lambda: clsort.sort_pairs(m, np.arange(m.size), device=ctx),
                 lambda: clsort.sort_pairs(m.data, np.ma.array(np.arange(m.size)), device=ctx),
                 lambda: clsort.sort_segments(m, [0, 10], device=ctx),
                 lambda: clsort.topk(m, 2, device=ctx),
                 lambda: clsort.sort(m.data, out=np.ma.array(np.empty(m.shape, m.dtype)),
                                     device=ctx)):
        with pytest.raises(TypeError):
            call()
    f = np.ma.array([1.0, 2.0], mask=[0, 1])
    with pytest.raises(TypeError, match="total_order"):
        clsort.sort(f, total_order=True, device=ctx)


class Tagged(np.ndarray):
    """An ndarray subclass with an attribute that copies carry (as numpy's docs show)."""

    def __array_finalize__(self, obj):
        self.tag = getattr(obj, "tag", None)


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # np.matrix's own warning
def test_subclasses_come_back_as_themselves(rng, ctx, tmp_path):
    a = make_keys(rng, np.int64, 300).reshape(3, 100).view(Tagged)
    a.tag = "t"
    results = [clsort.sort(a, device=ctx), clsort.sort(a, None, device=ctx),
               clsort.argsort(a, stable=True, device=ctx),
               *clsort.sort_pairs(a, a.copy(), device=ctx),
               *clsort.topk(a, 4, device=ctx), clsort.sort_segments(a[0], [0, 50], device=ctx)]
    for r in results:
        assert type(r) is Tagged and r.tag == "t"
    assert np.array_equal(results[0], np.sort(a))
    assert np.array_equal(results[2], np.argsort(a, kind="stable"))
    mm = np.memmap(tmp_path / "keys", dtype=np.uint32, mode="w+", shape=(1000,))
    mm[:] = make_keys(rng, np.uint32, 1000)
    got = clsort.sort(mm, device=ctx)
    assert isinstance(got, np.memmap) and np.array_equal(got, np.sort(mm))
    with pytest.raises(TypeError, match="matrix"):
        clsort.sort(np.matrix([[3, 1], [2, 0]], dtype=np.int32), device=ctx)


# ---- topk of a 0-d array ---------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES, ids=name)
def test_topk_of_a_scalar(ctx, dtype):
    # torch.topk(torch.tensor(x), 1): the element itself and index 0, both 0-d.
    a = np.array(7, dtype)
    for axis in (-1, 0, None):
        for largest in (True, False):
            v, i = clsort.topk(a, 1, axis, largest=largest, device=ctx)
            assert v.shape == () and i.shape == () and i.dtype == np.int64
            assert v.dtype == a.dtype and v == 7 and i == 0
    for k in (2, -1):
        with pytest.raises(ValueError):
            clsort.topk(a, k, device=ctx)
    with pytest.raises(clsort.AxisError):
        clsort.topk(a, 1, axis=1, device=ctx)
