// bench_stdsort.cpp - clsort-bench's std::sort reference: an extern "C" wrapper that sorts each key
// type (and key-value pairs) with std::sort in clsort's documented order.
#include <algorithm>
#include <cstdint>

#include "bench_ref.h"

namespace {

// Sorts the raw bits of keys of clsort type T (U is the unsigned type of its width) through the
// order mapping, which is the identity for unsigned keys and so costs nothing there.
template <typename U, clsort_type T> U order_of(U bits)
{
    if constexpr (sizeof(U) < 4)
        return static_cast<U>(bench_order_any(bits, T));
    else if constexpr (sizeof(U) == 4)
        return bench_order32(bits, T);
    else
        return bench_order64(bits, T);
}

template <typename U, clsort_type T> void sort_keys(void *data, size_t n)
{
    U *k = static_cast<U *>(data);
    std::sort(k, k + n, [](U a, U b) { return order_of<U, T>(a) < order_of<U, T>(b); });
}

template <typename P, clsort_type T> void sort_pairs(void *data, size_t n)
{
    using U = decltype(P::key);
    P *p = static_cast<P *>(data);
    std::sort(p, p + n, [](const P &a, const P &b) {
        return order_of<U, T>(a.key) < order_of<U, T>(b.key);
    });
}

} // namespace

extern "C" int bench_stdsort(void *data, size_t n, clsort_type type, size_t value_size)
{
    const size_t ks = clsort_type_size(type);
    if (ks == 0 || (value_size != 0 && value_size != ks)) return -1;
    const bool pairs = value_size != 0;
    switch (type) {
    case CLSORT_U32:
        pairs ? sort_pairs<bench_pair32, CLSORT_U32>(data, n) : sort_keys<uint32_t, CLSORT_U32>(data, n);
        break;
    case CLSORT_I32:
        pairs ? sort_pairs<bench_pair32, CLSORT_I32>(data, n) : sort_keys<uint32_t, CLSORT_I32>(data, n);
        break;
    case CLSORT_F32:
        pairs ? sort_pairs<bench_pair32, CLSORT_F32>(data, n) : sort_keys<uint32_t, CLSORT_F32>(data, n);
        break;
    case CLSORT_U64:
        pairs ? sort_pairs<bench_pair64, CLSORT_U64>(data, n) : sort_keys<uint64_t, CLSORT_U64>(data, n);
        break;
    case CLSORT_I64:
        pairs ? sort_pairs<bench_pair64, CLSORT_I64>(data, n) : sort_keys<uint64_t, CLSORT_I64>(data, n);
        break;
    case CLSORT_F64:
        pairs ? sort_pairs<bench_pair64, CLSORT_F64>(data, n) : sort_keys<uint64_t, CLSORT_F64>(data, n);
        break;
    case CLSORT_U8: if (pairs) return -1; sort_keys<uint8_t, CLSORT_U8>(data, n); break;
    case CLSORT_I8: if (pairs) return -1; sort_keys<uint8_t, CLSORT_I8>(data, n); break;
    case CLSORT_U16: if (pairs) return -1; sort_keys<uint16_t, CLSORT_U16>(data, n); break;
    case CLSORT_I16: if (pairs) return -1; sort_keys<uint16_t, CLSORT_I16>(data, n); break;
    case CLSORT_F16: if (pairs) return -1; sort_keys<uint16_t, CLSORT_F16>(data, n); break;
    case CLSORT_BF16: if (pairs) return -1; sort_keys<uint16_t, CLSORT_BF16>(data, n); break;
    default:
        return -1;
    }
    return 0;
}
