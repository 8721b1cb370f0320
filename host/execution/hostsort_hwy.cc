/* hostsort_hwy.cc - Highway's vqsort behind a C interface for hostsort.c, built only where the
 * build found libhwy (Makefile, HAVE_HWY). vqsort picks the widest vector instructions of the
 * CPU at run time; it is the fastest CPU sort we know of (docs/perf.md, the CPU path). Nothing
 * here throws to C: a failure (the Sorter's small buffer) comes back as -1. */
#include <hwy/contrib/sort/vqsort.h>

#include <cstddef>
#include <cstdint>
#include <new>

namespace {

template <typename T> int sort_keys(T *keys, size_t n, int descending)
{
    try {
        /* A Sorter per call: it owns a few KiB of scratch and is not safe to share between
         * threads, while contexts may sort from several threads at once. */
        const hwy::Sorter sorter;
        if (descending)
            sorter(keys, n, hwy::SortDescending());
        else
            sorter(keys, n, hwy::SortAscending());
        return 0;
    } catch (...) {
        return -1;
    }
}

} // namespace

extern "C" {

int clsort__hwy_sort_u32(uint32_t *keys, size_t n, int descending)
{
    return sort_keys(keys, n, descending);
}

int clsort__hwy_sort_i32(int32_t *keys, size_t n, int descending)
{
    return sort_keys(keys, n, descending);
}

int clsort__hwy_sort_u64(uint64_t *keys, size_t n, int descending)
{
    return sort_keys(keys, n, descending);
}

int clsort__hwy_sort_i64(int64_t *keys, size_t n, int descending)
{
    return sort_keys(keys, n, descending);
}

int clsort__hwy_sort_f32(float *keys, size_t n, int descending)
{
    return sort_keys(keys, n, descending);
}

int clsort__hwy_sort_f64(double *keys, size_t n, int descending)
{
    if (!hwy::Sorter::HaveFloat64())
        return 1;
    return sort_keys(keys, n, descending);
}

/* lo_hi: n hwy::uint128_t (low half first, 16-byte aligned by malloc on x86-64 and AArch64). */
int clsort__hwy_sort_u128(uint64_t *lo_hi, size_t n)
{
    static_assert(sizeof(hwy::uint128_t) == 16, "two uint64_t");
    return sort_keys(reinterpret_cast<hwy::uint128_t *>(lo_hi), n, 0);
}

} // extern "C"
