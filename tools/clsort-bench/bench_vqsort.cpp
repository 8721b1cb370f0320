// bench_vqsort.cpp - clsort-bench's Highway vqsort reference (built with libhwy: Makefile,
// HAVE_HWY): an extern "C" wrapper that sorts each key type, and key-value pairs, with vqsort in
// clsort's documented order, doing what a user of vqsort would do for that order. Unsigned and
// signed keys go to vqsort as they are; floats are mapped to their totalOrder bits, sorted as
// unsigned and mapped back (vqsort orders floats as numbers: -0 = +0, NaNs unordered); pairs are
// packed key above value into one u64 (32-bit) or u128 (64-bit), sorted and unpacked. The mapping
// and packing are inside the timed call.
#include <cstdint>
#include <cstdlib>

#include "bench_ref.h"

#ifdef CLSORT_HAVE_HWY
#include <hwy/contrib/sort/vqsort.h>

namespace {

template <typename U> U order_of(U bits, clsort_type t)
{
    if constexpr (sizeof(U) == 4)
        return bench_order32(bits, t);
    else
        return bench_order64(bits, t);
}

// The inverse of order_of for floats (the only types mapped here).
template <typename U> U unorder_float(U y)
{
    const U sign = U(1) << (8 * sizeof(U) - 1);
    return (y & sign) ? (y ^ sign) : ~y;
}

template <typename U> void sort_float_keys(void *data, size_t n, clsort_type t)
{
    U *k = static_cast<U *>(data);
    for (size_t i = 0; i < n; i++) k[i] = order_of<U>(k[i], t);
    hwy::Sorter()(k, n, hwy::SortAscending());
    for (size_t i = 0; i < n; i++) k[i] = unorder_float<U>(k[i]);
}

template <typename S> void sort_native(void *data, size_t n)
{
    hwy::Sorter()(static_cast<S *>(data), n, hwy::SortAscending());
}

// The inverse of order_of for any type: floats as above, signed keys flip the sign bit back.
template <typename U> U unorder(U y, clsort_type t)
{
    const U sign = U(1) << (8 * sizeof(U) - 1);
    if (t == CLSORT_F32 || t == CLSORT_F64) return unorder_float<U>(y);
    if (t == CLSORT_I32 || t == CLSORT_I64) return y ^ sign;
    return y;
}

int sort_pairs32(void *data, size_t n, clsort_type t)
{
    bench_pair32 *p = static_cast<bench_pair32 *>(data);
    uint64_t *w = static_cast<uint64_t *>(std::malloc(n * sizeof *w + 1));
    if (!w) return -1;
    for (size_t i = 0; i < n; i++) w[i] = uint64_t(order_of<uint32_t>(p[i].key, t)) << 32 | p[i].value;
    hwy::Sorter()(w, n, hwy::SortAscending());
    for (size_t i = 0; i < n; i++) {
        p[i].key = unorder<uint32_t>(uint32_t(w[i] >> 32), t);
        p[i].value = uint32_t(w[i]);
    }
    std::free(w);
    return 0;
}

int sort_pairs64(void *data, size_t n, clsort_type t)
{
    bench_pair64 *p = static_cast<bench_pair64 *>(data);
    hwy::uint128_t *w = static_cast<hwy::uint128_t *>(std::aligned_alloc(16, n * sizeof *w + 16));
    if (!w) return -1;
    for (size_t i = 0; i < n; i++) {
        w[i].hi = order_of<uint64_t>(p[i].key, t);
        w[i].lo = p[i].value;
    }
    hwy::Sorter()(w, n, hwy::SortAscending());
    for (size_t i = 0; i < n; i++) {
        p[i].key = unorder<uint64_t>(w[i].hi, t);
        p[i].value = w[i].lo;
    }
    std::free(w);
    return 0;
}

} // namespace

extern "C" int bench_have_vqsort(void) { return 1; }

extern "C" int bench_vqsort(void *data, size_t n, clsort_type type, size_t value_size)
{
    const size_t ks = clsort_type_size(type);
    if (ks == 0 || (value_size != 0 && value_size != ks)) return -1;
    if (value_size) return ks == 4 ? sort_pairs32(data, n, type) : sort_pairs64(data, n, type);
    switch (type) {
    case CLSORT_U32: sort_native<uint32_t>(data, n); break;
    case CLSORT_I32: sort_native<int32_t>(data, n); break;
    case CLSORT_U64: sort_native<uint64_t>(data, n); break;
    case CLSORT_I64: sort_native<int64_t>(data, n); break;
    case CLSORT_F32: sort_float_keys<uint32_t>(data, n, type); break;
    case CLSORT_F64: sort_float_keys<uint64_t>(data, n, type); break;
    default: return -1;
    }
    return 0;
}

#else /* built without libhwy */

extern "C" int bench_have_vqsort(void) { return 0; }

extern "C" int bench_vqsort(void *, size_t, clsort_type, size_t) { return -1; }

#endif
