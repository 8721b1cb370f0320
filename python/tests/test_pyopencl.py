"""clsort on pyopencl.array.Array objects: sorted in device memory on the caller's queue."""
import os

import numpy as np
import pytest

import clsort
from conftest import DTYPES, SIZES, assert_same_bits, make_keys, reference_sort

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


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
def test_sort_device_keys(rng, queue, dtype, n, descending):
    if dtype == np.float64 and not queue.device.double_fp_config:
        pytest.skip("device has no fp64")
    h = make_keys(rng, dtype, n)
    a = cla.to_device(queue, h)
    event = clsort.sort(a, descending=descending)
    if n == 0:
        assert event is None
    else:
        assert isinstance(event, cl.Event) and event in a.events
        event.wait()
    assert_same_bits(a.get(), reference_sort(h, descending))


@pytest.mark.parametrize("vtype", [np.int32, np.uint64], ids=["v4", "v8"])
@pytest.mark.parametrize("n", [1, 1025, 100000])
@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
def test_sort_device_pairs(rng, queue, vtype, n, descending):
    h = make_keys(rng, np.float32, n, distinct=n // 3 + 1)
    k = cla.to_device(queue, h)
    v = cla.to_device(queue, np.arange(n).astype(vtype))
    event = clsort.sort_pairs(k, v, descending=descending)
    assert event in k.events and event in v.events
    kk, pos = k.get(), v.get().astype(np.int64)
    assert_same_bits(kk, reference_sort(h, descending))
    assert np.array_equal(np.sort(pos), np.arange(n))
    assert_same_bits(h[pos], kk)


def test_follows_earlier_work_and_attaches_event(rng, queue):
    # The sort waits for the array's pending events and later PyOpenCL work waits for the sort.
    h = make_keys(rng, np.int32, 50000) // 2
    a = cla.to_device(queue, h)
    a += 1
    clsort.sort(a)
    b = a * 2
    assert np.array_equal(b.get(), np.sort(h + 1) * 2)


def test_sort_copy_device(rng, queue):
    h = make_keys(rng, np.uint64, 3000)
    a = cla.to_device(queue, h)
    c = clsort.sort_copy(a, descending=True)
    assert isinstance(c, cla.Array)
    assert np.array_equal(c.get(), np.sort(h)[::-1])
    assert np.array_equal(a.get(), h)  # the original is untouched


def test_offset_views(rng, queue):
    # A view that starts at the device's base alignment becomes a sub-buffer; others are refused.
    align = queue.device.mem_base_addr_align // 8
    per = align // 4
    h = make_keys(rng, np.uint32, 4 * per + 100)
    a = cla.to_device(queue, h)
    clsort.sort(a[per:])
    got = a.get()
    assert np.array_equal(got[:per], h[:per])
    assert np.array_equal(got[per:], np.sort(h[per:]))
    with pytest.raises(ValueError, match="starts 4 bytes into its buffer"):
        clsort.sort(a[1:])


def test_contexts_per_queue(queue):
    assert clsort.queue_context(queue) is clsort.queue_context(queue)
    other = cl.CommandQueue(queue.context)
    c = clsort.queue_context(other)
    assert c is not clsort.queue_context(queue)
    a = cla.to_device(other, np.arange(5000, 0, -1, dtype=np.int64))
    clsort.sort(a)
    assert np.array_equal(a.get(), np.arange(1, 5001))
    st = c.stats()  # waits for the sort
    assert not st.host_fallback and st.launches > 0
    # An explicit Context on the same queue works too.
    with clsort.Context.from_queue(queue) as mine:
        b = cla.to_device(queue, np.array([3.0, -0.0, 0.0, -1.0], np.float32))
        clsort.sort(b, device=mine)
        assert list(b.get().view(np.uint32)) == [0xBF800000, 0x80000000, 0, 0x40400000]


def test_device_errors(queue):
    a = cla.to_device(queue, np.arange(64, dtype=np.uint32))
    with pytest.raises(ValueError, match="contiguous"):
        clsort.sort(a[::2])
    with pytest.raises(ValueError, match="1-D"):
        clsort.sort(a.reshape(8, 8))
    with pytest.raises(TypeError, match="uint32, int32"):
        clsort.sort(cla.to_device(queue, np.arange(8, dtype=np.int16)))
    with pytest.raises(ValueError, match="unknown algorithm"):
        clsort.sort(a, algorithm="radix")
    with pytest.raises(ValueError, match="own queue"):
        clsort.sort(a, device="cpu")
    with pytest.raises(TypeError, match="both in device memory"):
        clsort.sort_pairs(a, np.arange(64, dtype=np.uint32))
    with pytest.raises(ValueError, match="shape"):
        clsort.sort_pairs(a, cla.to_device(queue, np.arange(63, dtype=np.uint32)))
    # Stable pairs need host memory: the library says so, and nothing is enqueued.
    v = cla.to_device(queue, np.arange(64, dtype=np.uint32))
    with pytest.raises(clsort.Error) as info:
        clsort.sort_pairs(a, v, stable=True)
    assert info.value.name == "ERR_UNSUPPORTED" and "STABLE" in info.value.detail
    # Keys alone are stable anyway: the flag is accepted there.
    clsort.sort(a, stable=True, descending=True)
    assert np.array_equal(a.get(), np.arange(63, -1, -1))

