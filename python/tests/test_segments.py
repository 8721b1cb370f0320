"""clsort.sort_segments (clsort_sort_segments): skipped, with the reason, while the
loaded library does not have it yet."""
import ctypes

import numpy as np
import pytest

import clsort
from clsort import _lib
from clsort._lib import lib
from clsort._args import segment_offsets as _segment_offsets
from conftest import DTYPES, assert_same_bits, make_keys, reference_order, reference_sort

HAVE = lib().sort_segments is not None
needs_segments = pytest.mark.skipif(
    not HAVE, reason="the loaded libclsort (%s) has no clsort_sort_segments yet" % lib().path)


def random_offsets(rng, n, nseg):
    cuts = np.sort(rng.integers(0, n + 1, nseg + 1))
    return cuts


@pytest.mark.skipif(HAVE, reason="the library has clsort_sort_segments")
def test_missing_symbol_is_not_implemented():
    with pytest.raises(NotImplementedError, match="clsort_sort_segments"):
        clsort.sort_segments(np.zeros(4, np.uint32), [0, 4], total_order=True)


@needs_segments
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
@pytest.mark.parametrize("nseg", [0, 1, 7, 1000])
def test_segments_keys(rng, ctx, dtype, descending, nseg):
    n = 20000
    h = make_keys(rng, dtype, n)
    off = random_offsets(rng, n, nseg)
    a = ctx.sort_segments(h, off, descending=descending, total_order=True)
    want = h.copy()
    for lo, hi in zip(off[:-1], off[1:]):
        want[lo:hi] = reference_sort(h[lo:hi], descending)
    assert_same_bits(a, want)  # also: nothing outside [off[0], off[-1]) moved
    b = h.copy()
    # in place
    assert ctx.sort_segments(b, off, descending=descending, out=b, total_order=True) is b
    assert_same_bits(b, want)


@needs_segments
@pytest.mark.parametrize("stable", [False, True])
def test_segments_pairs(rng, ctx, stable):
    n = 30000
    h = make_keys(rng, np.int32, n, distinct=9)
    off = np.concatenate([[0, 0, 1], rng.integers(1, n, 50), [n, n]])
    off.sort()
    vals = np.arange(n, dtype=np.int64)
    k, v = clsort.sort_segments(h, off, values=vals, stable=stable, device=ctx, total_order=True)
    assert np.array_equal(vals, np.arange(n))  # inputs untouched
    k2, v2 = h.copy(), vals.copy()
    r = clsort.sort_segments(k2, off, values=v2, stable=True, device=ctx, out=(k2, v2),
                             total_order=True)
    assert r[0] is k2 and r[1] is v2
    assert_same_bits(k2, k)
    for lo, hi in zip(off[:-1], off[1:]):
        assert_same_bits(k[lo:hi], reference_sort(h[lo:hi]))
        if stable:
            assert np.array_equal(v[lo:hi], lo + reference_order(h[lo:hi]))
    assert_same_bits(h[v], k)


@needs_segments
def test_segments_errors_touch_nothing(ctx):
    a = np.arange(10, 0, -1, dtype=np.int32)
    out = np.zeros(10, np.int32)
    for bad in ([0, 11], [5, 3], [[0, 4]]):
        with pytest.raises(ValueError):
            ctx.sort_segments(a, bad, out=out, total_order=True)
    with pytest.raises(ValueError, match="1-D"):
        ctx.sort_segments(a.reshape(2, 5), [0, 5], out=out, total_order=True)
    with pytest.raises(ValueError):
        ctx.sort_segments(a, [0, 10], out=np.zeros(9, np.int32), total_order=True)
    with pytest.raises(ValueError):
        ctx.sort_segments(a, [0, 10], values=a.copy(), out=out, total_order=True)
    assert not out.any() and a.tolist() == list(range(10, 0, -1))


@pytest.mark.parametrize("bad, kind", [([0, 11], ValueError), ([5, 3], ValueError),
                                       ([-1, 4], ValueError), ([], ValueError),
                                       ([0.0, 4.0], TypeError), ([[0, 4]], ValueError)])
def test_segments_offsets_checked(bad, kind):
    # The C call does not know n: the wrapper checks the bounds before any call.
    with pytest.raises(kind):
        _segment_offsets(bad, 10)


def test_wrapper_passes_the_c_arguments(rng, ctx, monkeypatch):
    # Runs without the C function too: a Python stand-in with clsort_sort_segments' signature
    # records what the wrapper passes and sorts keys-only segments itself.
    seen = []
    sig = lib().sort_segments or _lib._OPTIONAL["clsort_sort_segments"]

    def fake(c, keys, values, value_size, offsets, nseg, type_, algo, flags):
        off = np.ctypeslib.as_array(ctypes.cast(offsets, ctypes.POINTER(ctypes.c_uint64)),
                                    (nseg + 1,)).copy()
        seen.append((values, value_size, nseg, type_, algo, flags, off))
        k = np.ctypeslib.as_array(ctypes.cast(keys, ctypes.POINTER(ctypes.c_int64)),
                                  (int(off[-1]),))
        for lo, hi in zip(off[:-1], off[1:]):
            k[lo:hi] = np.sort(k[lo:hi])[::-1] if flags & 1 else np.sort(k[lo:hi])
        return 0

    restype, argtypes = sig if isinstance(sig, tuple) else (sig.restype, sig.argtypes)
    proto = ctypes.CFUNCTYPE(restype, *argtypes)(fake)
    monkeypatch.setattr(lib(), "sort_segments", proto)
    h = make_keys(rng, np.int64, 100)
    a = ctx.sort_segments(h, [3, 10, 10, 60], descending=True, algorithm="bitonic")
    values, value_size, nseg, type_, algo, flags, off = seen[0]
    assert (values, value_size, nseg, type_, algo, flags) == (None, 0, 3, 4, 1, 1)
    assert list(off) == [3, 10, 10, 60]
    want = h.copy()
    want[3:10] = np.sort(h[3:10])[::-1]
    want[10:60] = np.sort(h[10:60])[::-1]
    assert np.array_equal(a, want)
