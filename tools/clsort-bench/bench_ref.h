/* bench_ref.h - what clsort-bench's files share: the CPU reference sorts (qsort in bench_ref.c,
 * std::sort in bench_stdsort.cpp, Highway's vqsort in bench_vqsort.cpp), the random data, and the
 * checks of a device result. */
#ifndef CLSORT_BENCH_REF_H
#define CLSORT_BENCH_REF_H

#include <stddef.h>
#include <stdint.h>

#include <clsort.h>

#include "../kernels/key_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A (key, value) pair as the CPU references sort it: the key's bits, then the value. Pairs are only
 * benchmarked with values as wide as their keys, so these two layouts cover every case and have no
 * padding on any ABI. The key field holds the bits of a key of any clsort_type of that width. */
typedef struct bench_pair32 {
    uint32_t key, value;
} bench_pair32;
typedef struct bench_pair64 {
    uint64_t key, value;
} bench_pair64;

/* Sorts n keys of `type` in place in clsort's documented ascending order (integers numerically,
 * floats by IEEE totalOrder) with std::sort. With value_size 0, `data` is an array of keys; with
 * value_size equal to the key size it is an array of bench_pair32 / bench_pair64, sorted by key.
 * Returns 0, or -1 for a combination it does not know (nothing is touched then). */
int bench_stdsort(void *data, size_t n, clsort_type type, size_t value_size);

/* The same contract with Highway's vqsort (bench_vqsort.cpp), where clsort-bench was built with
 * libhwy: floats through their totalOrder bits, pairs packed key above value (equal keys then end
 * up ordered by value). Returns -1 without libhwy (bench_have_vqsort() is 0). */
int bench_vqsort(void *data, size_t n, clsort_type type, size_t value_size);
int bench_have_vqsort(void);

/* The same contract with the C library's qsort. */
int bench_qsort(void *data, size_t n, clsort_type type, size_t value_size);

/* Maps the bits of a key of `type` to an unsigned integer whose numeric order is clsort's order,
 * by the transform of the key-type table (kernels/key_types.h): unsigned keys as they are, signed
 * keys with the sign bit flipped, floats by totalOrder. */
static inline unsigned bench_xf(clsort_type type)
{
#define BENCH_ROW_(E, name, bits, kind, mant) \
    if (type == CLSORT_##E)                   \
        return CLSORT_XF(kind, mant, 0, 0);
    CLSORT_KEY_TYPES(BENCH_ROW_)
#undef BENCH_ROW_
    return 0;
}
static inline uint32_t bench_order32(uint32_t bits, clsort_type type)
{
    const unsigned xf = bench_xf(type);
    return CLSORT_KT_TO_ORDER(uint32_t, uint32_t, 32, bits, xf);
}
static inline uint64_t bench_order64(uint64_t bits, clsort_type type)
{
    const unsigned xf = bench_xf(type);
    return CLSORT_KT_TO_ORDER(uint64_t, uint64_t, 64, bits, xf);
}
/* The same for a key of any width (the bits of a 1- or 2-byte key in the low bits). */
static inline uint64_t bench_order_any(uint64_t bits, clsort_type type)
{
    const unsigned xf = bench_xf(type), w = (unsigned)clsort_type_size(type) * 8;
    return CLSORT_KT_TO_ORDER(uint64_t, uint64_t, w, bits, xf);
}

/* Fills `bytes` bytes (a multiple of 4) with uniformly random bits derived from `seed`. The bytes
 * depend on the seed alone, not on the number of threads that fill them. */
void bench_fill_random(uint64_t seed, void *dst, size_t bytes);

/* The helpers below split large arrays over the host's cores (results do not depend on how). */

/* An order-independent checksum of n keys (and values, when `values` is not NULL): the sum of a
 * strong hash of each element, so a permutation keeps it and a lost, duplicated or changed key (or a
 * value parted from its key) changes it with overwhelming probability. */
uint64_t bench_checksum(const void *keys, const void *values, size_t n, size_t key_size,
                        size_t value_size);
/* The same sum over an interleaved array of bench_pair32 / bench_pair64 (or of keys alone when
 * value_size is 0), so that a reference result can be checked against the device's arrays. */
uint64_t bench_checksum_packed(const void *data, size_t n, size_t key_size, size_t value_size);

/* Returns n if keys[0..n) are in ascending clsort order, else the first i with keys[i] < keys[i-1]. */
size_t bench_find_unsorted(const void *keys, size_t n, clsort_type type);

/* Copies split key and value arrays into an interleaved pair array (value_size 0: keys only). */
void bench_pack(void *dst, const void *keys, const void *values, size_t n, size_t key_size,
                size_t value_size);

/* Returns n if the keys of the split array equal, bit for bit, the keys of the interleaved (or
 * plain, value_size 0) reference array, else the first index where they differ. */
size_t bench_find_key_mismatch(const void *keys, const void *ref, size_t n, size_t key_size,
                               size_t value_size);

#ifdef __cplusplus
}
#endif
#endif /* CLSORT_BENCH_REF_H */
