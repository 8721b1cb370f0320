"""clsort.topk (clsort_topk / clsort_topk_buffer) against a stable sort of each slice cut
after k: every key type, both directions, every axis, k = 1, k = n, k not a power of two, ties,
NaNs and -0.0; on NumPy and pyopencl arrays. Skipped, with the reason, while the loaded library
lacks clsort_topk."""
import os

import numpy as np
import pytest

import clsort
from clsort._lib import lib
from conftest import DTYPES, assert_same_bits, make_keys, reference_argsort_axis

HAVE = lib().topk is not None
needs_topk = pytest.mark.skipif(
    not HAVE, reason="the loaded libclsort (%s) has no clsort_topk yet" % lib().path)


def reference_topk(a, k, axis, largest):
    idx = reference_argsort_axis(a, axis, descending=largest)
    idx = np.take(idx, np.arange(k), axis=axis)
    return np.take_along_axis(a, idx, axis), idx


@pytest.mark.skipif(HAVE, reason="the library has clsort_topk")
def test_missing_symbol_is_not_implemented():
    with pytest.raises(NotImplementedError, match="clsort_topk"):
        clsort.topk(np.zeros(4, np.uint32), 2, total_order=True)


@needs_topk
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(1,), (37,), (6, 50), (3, 5, 9)], ids=str)
def test_topk_every_axis(rng, ctx, dtype, shape):
    a = make_keys(rng, dtype, int(np.prod(shape)), distinct=max(1, int(np.prod(shape)) // 4))
    a = a.reshape(shape)
    for axis in range(-1, a.ndim):
        n = a.shape[axis]
        for k in sorted({1, 2, 3, n // 2 + 1, n} - {0}):
            if k > n:
                continue
            for largest in (True, False):
                what = "%s axis=%d k=%d largest=%s" % (shape, axis, k, largest)
                v, i = ctx.topk(a, k, axis, largest=largest, total_order=True)
                wv, wi = reference_topk(a, k, axis, largest)
                assert i.dtype == np.int64, what
                assert np.array_equal(i, wi), what
                assert_same_bits(v, wv, what)


@needs_topk
def test_topk_module_call_and_views(rng):
    a = make_keys(rng, np.float32, 40 * 30, distinct=50).reshape(40, 30)
    f = np.asfortranarray(a)
    for arr in (a, f, a[::2, 1::2]):
        for axis in (0, 1):
            v, i = clsort.topk(arr, 5, axis=axis, sorted=False, total_order=True)
            wv, wi = reference_topk(arr, 5, axis, True)
            assert np.array_equal(i, wi)
            assert_same_bits(v, wv)
    v, i = clsort.topk(a, 0, total_order=True)
    assert v.shape == (40, 0) and i.shape == (40, 0)
    # A named tuple, like torch.topk's.
    r = clsort.topk(a, 3, axis=0, largest=False, total_order=True)
    assert isinstance(r, tuple) and r.values is r[0] and r.indices is r[1]
    assert r.values.shape == (3, 30) and r.indices.shape == (3, 30)


def test_topk_errors(ctx):
    a = np.arange(20, dtype=np.int32).reshape(4, 5)
    for k in (-1, 6):
        with pytest.raises(ValueError):
            ctx.topk(a, k, total_order=True)
    with pytest.raises(ValueError):
        ctx.topk(a, 2, axis=2, total_order=True)
    with pytest.raises(TypeError):
        ctx.topk(a, 2.0, total_order=True)
    with pytest.raises(TypeError, match="uint32"):
        ctx.topk(a.astype(np.complex64), 2, total_order=True)


@needs_topk
def test_topk_pyopencl(rng):
    cl = pytest.importorskip("pyopencl")
    cla = pytest.importorskip("pyopencl.array")
    want = {"cpu": cl.device_type.CPU, "gpu": cl.device_type.GPU}.get(
        (os.environ.get("CLSORT_DEVICE") or "").lower())
    devices = [d for p in cl.get_platforms() for d in p.get_devices()
               if want is None or d.type & want]
    if not devices:
        pytest.skip("pyopencl finds no such device")
    q = cl.CommandQueue(cl.Context([devices[0]]))
    h = make_keys(rng, np.int64, 8 * 300, distinct=40).reshape(8, 300)
    a = cla.to_device(q, h)
    for axis, k in ((1, 1), (1, 17), (0, 8), (1, 300)):
        for largest in (True, False):
            v, i = clsort.topk(a, k, axis, largest=largest, total_order=True)
            assert isinstance(v, cla.Array) and i.dtype == np.int64
            wv, wi = reference_topk(h, k, axis, largest)
            assert np.array_equal(i.get(), wi)
            assert_same_bits(v.get(), wv)
    assert np.array_equal(a.get(), h)
