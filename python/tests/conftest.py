"""Shared fixtures and the reference orders for the clsort Python tests.

Two references: the header's order (integers numerically, floats by IEEE totalOrder, what
total_order=True gives) and NumPy's (floats by value, -0.0 == +0.0, every NaN equal and above
+inf: the default), both as stable orders compared bit for bit. NumPy's is checked against
numpy.argsort(kind="stable") itself (test_numpy_order.py). Tests of what the loaded library lacks
(the 8- and 16-bit key types, CLSORT_NAN_LARGEST) skip with the reason.
Set CLSORT_TEST_SEED to replay a run; the seed is printed in the header of the report.
"""
import os
import random
import zlib

import numpy as np
import pytest

import clsort
import clsort._keytypes
import clsort._lib

DTYPES = [np.uint32, np.int32, np.float32, np.uint64, np.int64, np.float64]
# The key types after the first six (library names), and bool, which sorts as u8.
NEW_DTYPES = [np.uint8, np.int8, np.uint16, np.int16, np.float16, np.bool_]
try:
    import ml_dtypes
    BFLOAT16 = ml_dtypes.bfloat16
    NEW_DTYPES.append(BFLOAT16)
except ImportError:
    BFLOAT16 = None
ALL_DTYPES = DTYPES + NEW_DTYPES
SIZES = [0, 1, 2, 1023, 1025, 100000]
SEED = int(os.environ.get("CLSORT_TEST_SEED") or random.SystemRandom().randrange(1 << 32))
DEVICE = os.environ.get("CLSORT_DEVICE") or None


def pytest_report_header(config):
    return ["clsort: library %s (%s), seed %d (CLSORT_TEST_SEED to replay), device %r"
            % (clsort.library_version(), clsort.library_path(), SEED, DEVICE)]


def library_has_dtype(dtype):
    """Whether the loaded library has the key type `dtype` sorts as."""
    return clsort._keytypes.library_has(clsort._keytypes.key_type_name(dtype))


def sortable(a):
    """`a` as NumPy itself sorts it right: bfloat16 as float32 (exact, NaN signs and -0.0 kept;
    ml_dtypes' own comparison leaves NaNs unordered), anything else as it is."""
    return a.astype(np.float32) if BFLOAT16 is not None and a.dtype == BFLOAT16 else a


def np_argsort(a, axis=-1):
    """numpy.argsort(a, axis, kind="stable"), also for bfloat16."""
    return np.argsort(sortable(a), axis, kind="stable")


def np_sort(a, axis=-1):
    """numpy.sort(a, axis, kind="stable") by the input's elements, also for bfloat16."""
    if axis is None:
        a, axis = a.reshape(-1), -1
    return np.take_along_axis(a, np_argsort(a, axis), axis)


def skip_unless_dtype(dtype):
    if not library_has_dtype(dtype):
        pytest.skip("the loaded libclsort (%s) has no key type for %s yet"
                    % (clsort.library_path(), np.dtype(dtype)))


def has_nan_largest():
    return clsort._keytypes.nan_largest_available(clsort.default_context(DEVICE))


def skip_unless_numpy_order(dtype):
    """Skips a test of NumPy's order of float keys while the library lacks CLSORT_NAN_LARGEST."""
    skip_unless_dtype(dtype)
    if is_float(dtype) and not has_nan_largest():
        pytest.skip("the loaded libclsort (%s) has no CLSORT_NAN_LARGEST yet"
                    % clsort.library_path())


def is_float(dtype):
    return np.dtype(dtype).kind == "f" or np.dtype(dtype).name == "bfloat16"


@pytest.fixture
def rng(request):
    # One stream per test, so a test's data does not depend on which tests ran before it.
    return np.random.default_rng([SEED, zlib.crc32(request.node.nodeid.encode())])


@pytest.fixture(scope="session")
def ctx():
    """A context with the library's defaults (small inputs take the host fallback)."""
    with clsort.Context(DEVICE) as c:
        yield c


@pytest.fixture(scope="session")
def dev_ctx():
    """A context that always runs the device networks, so small sizes test the kernels too."""
    with clsort.Context(DEVICE) as c:
        c.host_fallback_max = 0
        if clsort._lib.lib().set_host_path_max is not None:
            c.host_path_max = 0  # AUTO on a CPU device would sort on the host at every size
        yield c


def unsigned(dtype):
    return np.dtype("u%d" % np.dtype(dtype).itemsize)


def bits(a):
    a = np.asarray(a)
    return np.ascontiguousarray(a).view(unsigned(a.dtype)).reshape(a.shape)


def order_key(a):
    """Unsigned keys whose numeric order is the header's order of `a`'s values."""
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    u = bits(a)
    width = u.dtype.itemsize * 8
    sign = u.dtype.type(1) << u.dtype.type(width - 1)
    kind = a.dtype.kind
    if kind in "ub":
        return u
    if kind == "i":
        return u ^ sign
    # totalOrder: negative floats (sign bit set) reverse, positive ones go above them all.
    return np.where(u & sign, ~u, u | sign)


def numpy_order_key(a):
    """Unsigned keys whose numeric order is NumPy's order of `a`'s values: floats with every NaN
    made the positive quiet NaN and -0.0 made +0.0, then totalOrder."""
    if not is_float(a.dtype):
        return order_key(a)
    with np.errstate(invalid="ignore"):  # signalling NaNs
        c = np.where(np.isnan(a), np.array(np.nan, a.dtype), a)
    return order_key(np.where(c == 0, np.zeros((), a.dtype), c))


def _key(a, numpy_order):
    return numpy_order_key(a) if numpy_order else order_key(a)


def reference_order(a, descending=False, numpy_order=False):
    """Positions that sort `a` stably in the header's order (numpy_order: NumPy's); descending:
    equal keys still keep their input order, as CLSORT_STABLE does in both directions."""
    k = _key(a, numpy_order)
    return np.argsort(~k if descending else k, kind="stable")


def reference_sort(a, descending=False, numpy_order=False):
    return a[reference_order(a, descending, numpy_order)]


def reference_argsort_axis(a, axis, descending=False, numpy_order=False):
    """Stable argsort along `axis` (None: flattened) in the header's order (or NumPy's)."""
    if axis is None:
        return reference_order(a.reshape(-1), descending, numpy_order)
    k = _key(a, numpy_order)
    return np.argsort(~k if descending else k, axis=axis, kind="stable")


def reference_sort_axis(a, axis, descending=False, numpy_order=False):
    idx = reference_argsort_axis(a, axis, descending, numpy_order)
    if axis is None:
        return a.reshape(-1)[idx]
    return np.take_along_axis(a, idx, axis)


FLOAT_SPECIALS = {
    "bfloat16": [0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x7FC1, 0x7F81, 0xFF83, 0x0001,
                 0x8001, 0x7F7F],
    np.float16: [0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7E01, 0x7C01, 0xFC23, 0x0001,
                 0x8001, 0x7BFF],
    np.float32: [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000,
                 0x7FC00001, 0x7F800001, 0xFF800123, 0x00000001, 0x80000001, 0x7F7FFFFF],
    np.float64: [0x0, 0x8000000000000000, 0x7FF0000000000000, 0xFFF0000000000000,
                 0x7FF8000000000000, 0xFFF8000000000000, 0x7FF8000000000001,
                 0x7FF0000000000001, 0xFFF0000000000123, 0x1, 0x8000000000000001,
                 0x7FEFFFFFFFFFFFFF],
}


def make_keys(rng, dtype, n, distinct=None):
    """n keys of dtype: the full range, duplicates, extremes; floats with ±0, ±inf, NaNs of both
    signs and several payloads (quiet and signalling), subnormals. distinct=k draws from k
    values only (many equal keys)."""
    if np.dtype(dtype).name in FLOAT_SPECIALS:  # bfloat16, by name (ml_dtypes may be absent)
        dtype = np.dtype(dtype).name
    else:
        dtype = np.dtype(dtype).type
    if dtype is np.bool_:
        return rng.integers(0, 2, n).astype(np.bool_)
    if dtype in FLOAT_SPECIALS:
        a = (rng.standard_normal(n) * 1e3).astype(dtype)
        specials = np.array(FLOAT_SPECIALS[dtype], dtype=unsigned(dtype)).view(dtype)
        if n:
            pick = rng.random(n) < 0.1
            a[pick] = rng.choice(specials, pick.sum())
    else:
        info = np.iinfo(dtype)
        a = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        if n:
            pick = rng.random(n) < 0.25  # a quarter drawn from a small range: duplicates
            a[pick] = rng.integers(0, 16, pick.sum()).astype(dtype)
            a[rng.integers(0, n, 2)] = [info.min, info.max]
    if distinct is not None and n:
        pool = a[:distinct]
        if dtype in FLOAT_SPECIALS:  # ±0.0 and NaNs are distinct keys: make them collide too
            pool = np.concatenate([pool, np.array(FLOAT_SPECIALS[dtype][:6],
                                                  dtype=unsigned(dtype)).view(dtype)])
        a = rng.choice(pool, n)  # by position: -0.0 and +0.0, NaNs stay distinct
    return a


def assert_same_bits(got, want, msg=""):
    assert got.dtype == want.dtype, "%s: dtype %s, want %s" % (msg, got.dtype, want.dtype)
    assert got.shape == want.shape, "%s: shape %s, want %s" % (msg, got.shape, want.shape)
    g, w = bits(got).reshape(-1), bits(want).reshape(-1)
    if not np.array_equal(g, w):
        bad = np.flatnonzero(g != w)
        i = bad[0]
        raise AssertionError("%s: %d of %d elements differ; first at flat %d: got %r want %r "
                             "(seed %d)" % (msg, bad.size, g.size, i, got.reshape(-1)[i],
                                            want.reshape(-1)[i], SEED))
