"""clsort on NumPy arrays: keys, pairs, N-D rows, the contexts, and every error path."""
import re
import threading

import numpy as np
import pytest

import clsort
from conftest import (DEVICE, DTYPES, SIZES, assert_same_bits, make_keys, reference_order,
                      reference_sort)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
def test_sort_keys(rng, ctx, dev_ctx, dtype, n, descending):
    a = make_keys(rng, dtype, n)
    want = reference_sort(a, descending)
    for c in (ctx, dev_ctx):
        got = a.copy()
        assert c.sort(got, descending=descending) is None
        assert_same_bits(got, want, "%s n=%d desc=%s" % (np.dtype(dtype).name, n, descending))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_sort_matches_numpy(rng, dtype):
    # Without NaNs and signed zeros, totalOrder is numpy's order: the module-level call on the
    # default context agrees with numpy.sort exactly.
    a = make_keys(rng, dtype, 30000)
    if a.dtype.kind == "f":
        a = a[np.isfinite(a) & (a != 0)]
    got = a.copy()
    clsort.sort(got, device=DEVICE)
    assert_same_bits(got, np.sort(a))
    assert_same_bits(clsort.sort_copy(a, descending=True, device=DEVICE), np.sort(a)[::-1])
    assert_same_bits(clsort.sorted(a, device=DEVICE), np.sort(a))


def test_float_total_order_explicit(ctx):
    v = np.array([np.nan, -np.nan, 1.0, -0.0, 0.0, -np.inf, np.inf, -1.0], dtype=np.float64)
    got = clsort.sort_copy(v, device=ctx)
    signs = np.signbit(got)
    # -NaN < -inf < -1 < -0.0 < +0.0 < 1 < +inf < +NaN
    assert np.isnan(got[0]) and signs[0]
    assert list(got[1:7]) == [-np.inf, -1.0, 0.0, 0.0, 1.0, np.inf]
    assert list(signs[1:7]) == [True, True, True, False, False, False]
    assert np.isnan(got[7]) and not signs[7]


@pytest.mark.parametrize("algorithm", ["auto", "bitonic", "odd-even-merge",
                                       "odd_even_transposition", "BITONIC"])
@pytest.mark.parametrize("n", [1025, 4096])
def test_algorithms(rng, dev_ctx, algorithm, n):
    a = make_keys(rng, np.float32, n)
    got = a.copy()
    dev_ctx.sort(got, algorithm=algorithm)
    assert_same_bits(got, reference_sort(a))
    st = dev_ctx.stats()
    assert not st.host_fallback and st.launches > 0
    if algorithm != "auto":
        assert st.algorithm == algorithm.lower().replace("_", "-")


@pytest.mark.parametrize("shape", [(37, 100), (3, 4, 5), (1, 1025), (5, 0), (0, 5), (4, 1)])
@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
def test_sort_rows(rng, ctx, shape, descending):
    # N-D arrays sort along the last axis, as numpy.sort(axis=-1), through clsort_sort_batch.
    a = make_keys(rng, np.int64, int(np.prod(shape))).reshape(shape)
    got = a.copy()
    ctx.sort(got, descending=descending)
    want = np.sort(a, axis=-1)
    assert np.array_equal(got, want[..., ::-1] if descending else want)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("vtype", [np.uint32, np.float64], ids=["v4", "v8"])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
def test_sort_pairs(rng, dev_ctx, dtype, vtype, n, descending):
    # Values are the keys' input positions: each output pair must be an input pair.
    keys = make_keys(rng, dtype, n, distinct=n // 4 + 1)
    k, v = keys.copy(), np.arange(n).astype(vtype)
    assert dev_ctx.sort_pairs(k, v, descending=descending) is None
    assert_same_bits(k, reference_sort(keys, descending), "keys")
    pos = v.astype(np.int64)
    assert np.array_equal(np.sort(pos), np.arange(n)), "values are not a permutation"
    assert_same_bits(keys[pos], k, "values do not follow their keys")


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", [2, 1025, 100000])
@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
def test_sort_pairs_stable(rng, ctx, dtype, n, descending):
    # Few distinct keys (floats: -0.0 and +0.0 and NaNs among them are distinct): equal keys
    # keep their input order, in both directions.
    keys = make_keys(rng, dtype, n, distinct=7)
    k, v = keys.copy(), np.arange(n, dtype=np.int64)
    clsort.sort_pairs(k, v, stable=True, descending=descending, device=ctx)
    assert np.array_equal(v, reference_order(keys, descending))
    assert_same_bits(k, keys[v])


def test_stats_and_fallback(rng):
    with clsort.Context(DEVICE) as c:
        limit = c.host_fallback_max
        if limit >= 2:
            c.sort(make_keys(rng, np.uint32, 2))
            assert c.stats().host_fallback
        c.host_fallback_max = 0
        assert c.host_fallback_max == 0
        c.sort(make_keys(rng, np.uint32, 100))
        st = c.stats()
        assert not st.host_fallback and st.launches >= 1 and st.total_ns > 0
        assert st.algorithm in ("bitonic", "odd-even-merge", "odd-even-transposition")


def test_context_lifecycle_and_info():
    with clsort.Context(DEVICE) as c:
        info = c.device_info
        assert info.name and info.type in ("gpu", "cpu", "accelerator", "other")
        assert re.fullmatch(r"\d+:\d+", info.spec)
        assert isinstance(c.warnings, str)
        assert "Context" in repr(c)
        # The same device by its "P:D" spec.
        with clsort.Context(info.spec) as again:
            assert again.device_info.name == info.name
    assert c.closed and "closed" in repr(c)
    with pytest.raises(ValueError, match="closed"):
        c.sort(np.zeros(4, np.uint32))
    c.close()  # twice is fine
    devices = clsort.list_devices()
    assert any(d.name == info.name for d, _ in devices)
    assert sum(is_default for _, is_default in devices) <= 1


def test_versions():
    assert re.fullmatch(r"\d+\.\d+\.\d+", clsort.library_version())
    assert clsort.__version__.split(".")[0] == clsort.library_version().split(".")[0]


def test_default_contexts_are_shared():
    assert clsort.default_context(DEVICE) is clsort.default_context(DEVICE)
    assert clsort.device_info(DEVICE).name == clsort.default_context(DEVICE).device_info.name
    clsort.sort(np.arange(10, 0, -1, dtype=np.int32), device=DEVICE)
    assert isinstance(clsort.get_stats(DEVICE), clsort.Stats)


def test_threads_share_nothing_wrong(rng):
    # ctypes drops the GIL around the C call; the library's lock serialises one context.
    arrays = [make_keys(rng, np.float32, 20000) for _ in range(6)]
    want = [reference_sort(a) for a in arrays]
    got = [a.copy() for a in arrays]
    errors = []

    def work(i):
        try:
            clsort.sort(got[i], device=DEVICE)
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


def test_stable_pairs_host_reference(rng):
    # The reference itself, on a case small enough to check by eye.
    keys = np.array([2, 1, 2, 1], np.uint32)
    assert list(reference_order(keys)) == [1, 3, 0, 2]
    assert list(reference_order(keys, descending=True)) == [0, 2, 1, 3]


# ---- errors -------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float16, np.int16, np.uint8, np.bool_, np.complex64,
                                   np.object_, ">u4", "<M8[s]", "V8"])
def test_wrong_dtype_is_type_error(ctx, dtype):
    a = np.zeros(8, dtype=dtype)
    with pytest.raises(TypeError, match="uint32, int32, float32, uint64, int64 or float64"):
        ctx.sort(a)
    with pytest.raises(TypeError):
        ctx.sort_pairs(a, np.zeros(8, np.uint32))


def test_bad_arrays_are_value_errors(ctx):
    a = np.arange(100, dtype=np.uint32)
    with pytest.raises(ValueError, match="contiguous"):
        ctx.sort(a[::2])
    with pytest.raises(ValueError, match="contiguous"):
        ctx.sort(np.zeros((4, 4), np.uint32).T)
    ro = a.copy()
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        ctx.sort(ro)
    assert np.array_equal(clsort.sort_copy(ro[::-1], device=ctx), a)  # copies accept both
    with pytest.raises(ValueError, match="0-d"):
        ctx.sort(np.array(5, np.uint32))
    unaligned = np.frombuffer(bytearray(4 * 10 + 1), dtype=np.uint8)[1:].view(np.uint32)
    with pytest.raises(ValueError):
        ctx.sort(unaligned)
    with pytest.raises(TypeError, match="sort_copy"):
        ctx.sort([3, 2, 1])
    assert list(clsort.sort_copy([3, 2, 1], device=ctx)) == [1, 2, 3]


def test_bad_algorithm(ctx):
    a = np.arange(10, dtype=np.uint32)
    with pytest.raises(ValueError, match="unknown algorithm"):
        ctx.sort(a, algorithm="quicksort")
    with pytest.raises(ValueError, match="unknown algorithm"):
        clsort.sort_pairs(a, a.copy(), algorithm="", device=ctx)
    with pytest.raises(TypeError):
        ctx.sort(a, algorithm=1)


def test_bad_pairs(ctx):
    k = np.arange(10, dtype=np.float32)
    with pytest.raises(ValueError, match="shape"):
        ctx.sort_pairs(k, np.arange(9, dtype=np.uint32))
    with pytest.raises(TypeError, match="4 or 8 bytes"):
        ctx.sort_pairs(k, np.arange(10, dtype=np.uint16))
    with pytest.raises(TypeError, match="4 or 8 bytes"):
        ctx.sort_pairs(k, np.empty(10, dtype=object))
    with pytest.raises(ValueError, match="overlap"):
        ctx.sort_pairs(k, k.view(np.uint32))
    with pytest.raises(ValueError, match="contiguous"):
        ctx.sort_pairs(k, np.arange(20, dtype=np.uint32)[::2])
    with pytest.raises(ValueError, match="1-D"):
        ctx.sort_pairs(k.reshape(2, 5), np.zeros((2, 5), np.uint32))


def test_library_errors_carry_status_and_text():
    with pytest.raises(clsort.Error) as info:
        clsort.Context("no device is called this 7c1e")
    e = info.value
    assert isinstance(e, RuntimeError)
    assert e.status == -2 and e.name == "ERR_NO_DEVICE"
    assert e.message == "no matching OpenCL device"
    assert e.function.startswith("clsort_create")
    assert "ERR_NO_DEVICE" in str(e)


@pytest.mark.parametrize("dtype", [np.uint32, np.float64])
def test_empty_pinned(rng, ctx, dtype):
    # Page-locked arrays from clsort_host_alloc sort like any other array, and the library sees
    # that they are its own (stats.pinned_source) on devices that stage host arrays.
    a = ctx.empty_pinned((3000,), dtype)
    assert a.dtype == np.dtype(dtype) and a.shape == (3000,) and a.flags.c_contiguous
    a[:] = make_keys(rng, np.dtype(dtype), 3000)
    want = a[reference_order(a, False)]
    ctx.sort(a, algorithm="bitonic")
    assert_same_bits(a, want)
    view = a[10:20]
    del a  # the view keeps the block alive
    assert view.size == 10
    b = ctx.empty_pinned((2, 0), np.int32)
    assert b.shape == (2, 0)
    with pytest.raises(ValueError):
        ctx.empty_pinned(-1, np.int32)
