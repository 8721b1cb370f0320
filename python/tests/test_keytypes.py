"""The package's key-type table (clsort/_keytypes.py) against the loaded library, row by row:
names, sizes and parsing agree, the library has no type the table lacks, and each row sorts its
boundary values as NumPy does. Then the dtype plumbing against a stand-in for the C calls, which
runs on any library: which clsort_type and flags each dtype is passed as, and the bytes the
library is handed (bool as u8, other byte orders swapped to native)."""
import ctypes

import numpy as np
import pytest

import clsort
from clsort import _keytypes, _lib
from clsort._lib import lib
from conftest import (ALL_DTYPES, BFLOAT16, assert_same_bits, has_nan_largest, is_float,
                      np_sort, reference_sort, skip_unless_dtype)

name = lambda d: np.dtype(d).name  # noqa: E731


@pytest.mark.parametrize("row", _keytypes.TABLE, ids=lambda r: r[1])
def test_table_row_matches_the_library(row):
    number, lib_name, dtype_name = row
    if not _keytypes.library_has(lib_name):
        pytest.skip("the loaded libclsort has no key type %s yet" % lib_name)
    L = lib()
    assert L.type_name(number).decode() == lib_name
    parsed = ctypes.c_int(-1)
    assert L.type_parse(lib_name.encode(), ctypes.byref(parsed)) == 0 and parsed.value == number
    assert L.type_size(number) == (2 if dtype_name == "bfloat16" else np.dtype(dtype_name).itemsize)


def test_table_covers_the_library():
    L = lib()
    assert [r[0] for r in _keytypes.TABLE] == list(range(len(_keytypes.TABLE)))
    # The first six exist in every library these bindings load; none beyond the table.
    assert all(_keytypes.library_has(r[1]) for r in _keytypes.TABLE[:6])
    assert L.type_name(len(_keytypes.TABLE)).decode() == "unknown"
    assert L.type_size(len(_keytypes.TABLE)) == 0
    assert set(clsort.KEY_DTYPES) == {r[2] for r in _keytypes.TABLE} | {"bool"}


def boundary_values(dtype):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return np.array([True, False, True, False], dt)
    if dt.kind in "ui":
        info = np.iinfo(dt)
        return np.array([info.max, info.min, 0, 1, info.max - 1, info.min + 1, 0, info.max], dt)
    info = np.finfo(dt) if dtype is not BFLOAT16 else __import__("ml_dtypes").finfo(dt)
    vals = [info.max, -info.max, info.tiny, -info.tiny, info.smallest_subnormal,
            -info.smallest_subnormal, 0.0, -0.0, np.inf, -np.inf, 1.0, -1.0]
    a = np.array(vals, dt)
    u = np.dtype("u%d" % dt.itemsize)
    top = u.type(1) << u.type(8 * dt.itemsize - 1)
    nan, inf = (np.array(x, dt).view(u)[()] for x in (np.nan, np.inf))
    one, three = u.type(1), u.type(3)
    nans = np.array([nan, nan | top, inf + one, (inf + three) | top], u).view(dt)
    return np.concatenate([a, nans, a[::-1]])


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
@pytest.mark.parametrize("total_order", [False, True], ids=["numpy", "total"])
def test_boundary_values_of_every_row(dev_ctx, dtype, total_order):
    skip_unless_dtype(dtype)
    if is_float(dtype) and not total_order and not has_nan_largest():
        pytest.skip("the loaded libclsort has no CLSORT_NAN_LARGEST yet")
    a = boundary_values(dtype)
    for ctx in (clsort.default_context(), dev_ctx):
        got = ctx.sort(a, stable=True, total_order=total_order)
        want = reference_sort(a) if total_order else np_sort(a)
        assert_same_bits(got, want)
        got = ctx.sort(a, descending=True, stable=True, total_order=total_order)
        assert_same_bits(got, reference_sort(a, True, numpy_order=not total_order))


# ---- the plumbing, against a stand-in -------------------------------------------------------

STANDIN = {0: "u4", 1: "i4", 2: "f4", 3: "u8", 4: "i8", 5: "f8", 6: "u1", 7: "i1", 8: "u2",
           9: "i2", 10: "f2"}


@pytest.fixture
def standin(monkeypatch):
    """clsort_sort, clsort_sort_pairs and clsort_topk replaced by Python that records (type,
    flags, the raw key bytes) and sorts with numpy; the library made to report every key type
    of the table and CLSORT_NAN_LARGEST."""
    seen = []

    def as_array(ptr, type_, n):
        dt = np.dtype(STANDIN[type_])
        buf = (ctypes.c_char * (n * dt.itemsize)).from_address(ptr)
        return np.frombuffer(buf, dt)

    def fake_sort(ctx, keys, n, type_, algo, flags):
        if n == 0:
            return 0
        k = as_array(keys, type_, n)
        seen.append(("sort", type_, flags, k.tobytes()))
        k[...] = np.sort(k, kind="stable")[::-1] if flags & 1 else np.sort(k, kind="stable")
        return 0

    def fake_pairs(ctx, keys, values, vsize, n, type_, algo, flags):
        k = as_array(keys, type_, n)
        seen.append(("pairs", type_, flags, k.tobytes()))
        v = np.frombuffer((ctypes.c_char * (n * vsize)).from_address(values), "u%d" % vsize)
        order = np.argsort(k, kind="stable")
        k[...], v[...] = k[order], v[order]
        return 0

    def fake_topk(ctx, keys, values, vsize, n, rows, k, type_, flags, out_keys, out_values):
        a = as_array(keys, type_, n * rows).reshape(rows, n)
        seen.append(("topk", type_, flags, a.tobytes()))
        if flags & 1:  # descending, the lower index first among equal keys
            order = (n - 1) - np.argsort(a[:, ::-1], 1, kind="stable")[:, ::-1][:, :k]
        else:
            order = np.argsort(a, 1, kind="stable")[:, :k]
        as_array(out_keys, type_, rows * k)[...] = np.take_along_axis(a, order, 1).reshape(-1)
        np.frombuffer((ctypes.c_char * (rows * k * 8)).from_address(out_values),
                      np.int64)[...] = order.reshape(-1)
        return 0

    L = lib()
    sigs = dict(_lib._REQUIRED, **_lib._OPTIONAL)
    for fn, fake in (("sort", fake_sort), ("sort_pairs", fake_pairs), ("topk", fake_topk)):
        restype, argtypes = sigs["clsort_" + fn]
        monkeypatch.setattr(L, fn, ctypes.CFUNCTYPE(restype, *argtypes)(fake))
    monkeypatch.setattr(L, "_clsort_type_names", {r[0]: r[1] for r in _keytypes.TABLE},
                        raising=False)
    monkeypatch.setattr(L, "_clsort_nan_largest", True, raising=False)
    return seen


@pytest.mark.parametrize("dtype, number", [(np.uint8, 6), (np.int8, 7), (np.uint16, 8),
                                           (np.int16, 9), (np.float16, 10), (np.bool_, 6),
                                           (np.float32, 2), (np.int64, 4)], ids=str)
@pytest.mark.parametrize("order", ["=", "S"])
def test_dtypes_reach_the_library_as_their_key_type(ctx, standin, dtype, number, order):
    native = np.array([3, 0, 1, 2, 1], dtype)
    a = native.astype(native.dtype.newbyteorder(order))
    got = ctx.sort(a)
    assert got.dtype == a.dtype and got.tolist() == sorted(native.tolist())
    call, type_, flags, raw = standin[-1]
    assert (call, type_) == ("sort", number)
    assert raw == native.view("u%d" % native.dtype.itemsize).tobytes()  # native bytes
    assert bool(flags & 8) == is_float(dtype)  # NumPy's order for floats only
    ctx.sort(a, total_order=True)
    assert not standin[-1][2] & 8
    assert ctx.argsort(a, stable=True).tolist() == np.argsort(native, kind="stable").tolist()
    assert standin[-1][:3] == ("pairs", number, 2 | (8 if is_float(dtype) else 0))
    v, i = ctx.topk(a, 2)
    assert v.dtype == a.dtype
    assert i.tolist() == np.argsort(-native.astype(np.int64), kind="stable")[:2].tolist()
    assert standin[-1][:3] == ("topk", number, 1 | (8 if is_float(dtype) else 0))
    # A stable sort of float keys alone in NumPy's order goes as pairs (equal keys may differ
    # in their bits); in totalOrder, and for integers, as keys alone.
    ctx.sort(a, kind="stable")
    assert standin[-1][0] == ("pairs" if is_float(dtype) else "sort")
    ctx.sort(a, kind="stable", total_order=True)
    assert standin[-1][0] == "sort"


def test_bfloat16_where_ml_dtypes_is_installed(ctx, standin):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    STANDIN[11] = "u2"  # the stand-in only checks the plumbing for bf16
    try:
        a = np.array([3.0, -1.0, 2.0], ml_dtypes.bfloat16)
        ctx.sort(a)
        assert standin[-1][:3] == ("sort", 11, 8)
        assert _keytypes.key_type(a.dtype).is_float
    finally:
        del STANDIN[11]
