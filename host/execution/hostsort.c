/* hostsort.c - the CPU path: the host's own sort with the documented order. It sorts the inputs
 * too small to be worth a device round trip, every input AUTO gives the host on a CPU device
 * (where the OpenCL "device" is the same cores, and a sort written for them wins), and the host
 * side of CLSORT_STABLE. Highway's vqsort (hostsort_hwy.cc) does the sorting where the build
 * found libhwy; otherwise an LSD radix sort here. Keys alone need no stability (equal keys have
 * equal bits); pairs with CLSORT_STABLE go through the radix sort, which keeps equal keys in
 * input order, and so do u32 keys with 8-byte values (clsort__host_sort says why). */
#include "hostsort.h"

#include "keytype.h"

#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

uint32_t clsort__order32(uint32_t x, clsort_type type, unsigned flags)
{
    const unsigned xf = clsort__type_xf(type, flags);
    return CLSORT_KT_TO_ORDER(uint32_t, uint32_t, 32, x, xf);
}

uint64_t clsort__order64(uint64_t x, clsort_type type, unsigned flags)
{
    const unsigned xf = clsort__type_xf(type, flags);
    return CLSORT_KT_TO_ORDER(uint64_t, uint64_t, 64, x, xf);
}

/* The transforms of kernels/key_types.h over whole arrays: branch-free loops (the masks depend
 * only on xf), so that the compiler vectorises them. */
static void to_order(void *keys, size_t n, size_t ks, clsort_type type, unsigned flags)
{
    const unsigned xf = clsort__type_xf(type, flags);
    if (ks == 4) {
        uint32_t *k = keys;
        for (size_t i = 0; i < n; ++i)
            k[i] = CLSORT_KT_TO_ORDER(uint32_t, uint32_t, 32, k[i], xf);
    } else {
        uint64_t *k = keys;
        for (size_t i = 0; i < n; ++i)
            k[i] = CLSORT_KT_TO_ORDER(uint64_t, uint64_t, 64, k[i], xf);
    }
}

static void from_order(void *keys, size_t n, size_t ks, clsort_type type, unsigned flags)
{
    const unsigned xf = clsort__type_xf(type, flags);
    if (ks == 4) {
        uint32_t *k = keys;
        for (size_t i = 0; i < n; ++i)
            k[i] = CLSORT_KT_FROM_ORDER(uint32_t, uint32_t, 32, k[i], xf);
    } else {
        uint64_t *k = keys;
        for (size_t i = 0; i < n; ++i)
            k[i] = CLSORT_KT_FROM_ORDER(uint64_t, uint64_t, 64, k[i], xf);
    }
}

/* ---- LSD radix sort ------------------------------------------------------------------------ */

/* One scatter pass of 8-bit digits at `shift`: keys (and values of vs bytes, 0, 4 or 8) from s
 * to d, each to the next free place of its digit's bucket (off). Typed loops, one per key and
 * value width: the generic memcpy of a runtime size costs about twice as much per key. */
#define CLSORT__SCATTER(KT, VT)                                                                    \
    do {                                                                                           \
        const KT *sk_ = sk;                                                                        \
        KT *dk_ = dk;                                                                              \
        const VT *sv_ = sv;                                                                        \
        VT *dv_ = dv;                                                                              \
        for (size_t i = 0; i < n; ++i) {                                                           \
            const size_t at = off[(sk_[i] >> shift) & 0xff]++;                                     \
            dk_[at] = sk_[i];                                                                      \
            dv_[at] = sv_[i];                                                                      \
        }                                                                                          \
    } while (0)
#define CLSORT__SCATTER_KEYS(KT)                                                                   \
    do {                                                                                           \
        const KT *sk_ = sk;                                                                        \
        KT *dk_ = dk;                                                                              \
        for (size_t i = 0; i < n; ++i)                                                             \
            dk_[off[(sk_[i] >> shift) & 0xff]++] = sk_[i];                                         \
    } while (0)

static void scatter(const void *sk, void *dk, const void *sv, void *dv, size_t ks, size_t vs,
                    size_t n, unsigned shift, size_t off[256])
{
    if (ks == 4) {
        if (vs == 0)
            CLSORT__SCATTER_KEYS(uint32_t);
        else if (vs == 4)
            CLSORT__SCATTER(uint32_t, uint32_t);
        else
            CLSORT__SCATTER(uint32_t, uint64_t);
    } else {
        if (vs == 0)
            CLSORT__SCATTER_KEYS(uint64_t);
        else if (vs == 4)
            CLSORT__SCATTER(uint64_t, uint32_t);
        else
            CLSORT__SCATTER(uint64_t, uint64_t);
    }
}

/* Sorts n order-space keys (ks 4 or 8 bytes) with their values (vs 0, 4 or 8 bytes) by 8-bit
 * digits, least significant first; stable. One read counts every digit's histogram at once, and
 * a digit that is the same in every key costs no pass (sorted small ranges, narrow values). */
static int radix(void *keys, void *vals, size_t ks, size_t vs, size_t n)
{
    const unsigned digits = (unsigned)ks;
    size_t(*count)[256] = calloc(digits, sizeof *count);
    unsigned char *tk = malloc(n * ks), *tv = vs ? malloc(n * vs) : NULL;
    if (!count || !tk || (vs && !tv)) {
        free(count);
        free(tk);
        free(tv);
        return CLSORT_ERR_OUT_OF_MEMORY;
    }
    if (ks == 4) {
        const uint32_t *k = keys;
        for (size_t i = 0; i < n; ++i) {
            const uint32_t x = k[i];
            ++count[0][x & 0xff];
            ++count[1][(x >> 8) & 0xff];
            ++count[2][(x >> 16) & 0xff];
            ++count[3][x >> 24];
        }
    } else {
        const uint64_t *k = keys;
        for (size_t i = 0; i < n; ++i) {
            const uint64_t x = k[i];
            for (unsigned d = 0; d < 8; ++d)
                ++count[d][(x >> (8 * d)) & 0xff];
        }
    }
    void *sk = keys, *sv = vals, *dk = tk, *dv = tv;
    for (unsigned d = 0; d < digits; ++d) {
        size_t *off = count[d], sum = 0;
        int trivial = 0;
        for (int b = 0; b < 256; ++b) {
            const size_t c = off[b];
            trivial |= c == n;
            off[b] = sum;
            sum += c;
        }
        if (trivial)
            continue;
        scatter(sk, dk, sv, dv, ks, vs, n, 8 * d, off);
        void *t = sk;
        sk = dk;
        dk = t;
        t = sv;
        sv = dv;
        dv = t;
    }
    if (sk != keys) {
        memcpy(keys, sk, n * ks);
        if (vs)
            memcpy(vals, sv, n * vs);
    }
    free(count);
    free(tk);
    free(tv);
    return CLSORT_OK;
}

/* ---- Highway's vqsort (hostsort_hwy.cc) ----------------------------------------------------- */

#ifdef CLSORT_HAVE_HWY
/* Keys alone, in place; 0 or -1 (out of memory). Integers and the order space need no more. */
int clsort__hwy_sort_u32(uint32_t *keys, size_t n, int descending);
int clsort__hwy_sort_i32(int32_t *keys, size_t n, int descending);
int clsort__hwy_sort_u64(uint64_t *keys, size_t n, int descending);
int clsort__hwy_sort_i64(int64_t *keys, size_t n, int descending);
int clsort__hwy_sort_f32(float *keys, size_t n, int descending);
/* Returns 1 (nothing done) where vqsort has no f64 sort for this CPU. */
int clsort__hwy_sort_f64(double *keys, size_t n, int descending);
/* n 128-bit numbers, two uint64_t each (low half first), ascending. */
int clsort__hwy_sort_u128(uint64_t *lo_hi, size_t n);

/* Pairs without CLSORT_STABLE: each order-space key goes with its value into one number, the key
 * above the value (4 + 4 bytes in a u64, else in a u128), vqsort sorts those, and keys and values
 * come back out. No gather by position: about twice as fast as the radix sort's pairs, and equal
 * keys come out in the order of their values' bits, the same for every run. Returns CLSORT_OK or
 * CLSORT_ERR_OUT_OF_MEMORY. */
static int hwy_pairs(void *keys, void *vals, size_t ks, size_t vs, size_t n)
{
    const int narrow = ks == 4 && vs == 4;
    /* vqsort's uint128_t is alignas(16). */
    uint64_t *p = narrow ? malloc(n * 8) : aligned_alloc(16, n * 16);
    if (!p)
        return CLSORT_ERR_OUT_OF_MEMORY;
    int rc = CLSORT_OK;
    if (narrow) {
        uint32_t *k = keys, *v = vals;
        for (size_t i = 0; i < n; ++i)
            p[i] = (uint64_t)k[i] << 32 | v[i];
        if (clsort__hwy_sort_u64(p, n, 0))
            rc = CLSORT_ERR_OUT_OF_MEMORY;
        else
            for (size_t i = 0; i < n; ++i) {
                k[i] = (uint32_t)(p[i] >> 32);
                v[i] = (uint32_t)p[i];
            }
        free(p);
        return rc;
    }
    unsigned char *k = keys, *v = vals;
    for (size_t i = 0; i < n; ++i) {
        uint64_t key = 0, val = 0;
        if (ks == 4) {
            uint32_t x;
            memcpy(&x, k + 4 * i, 4);
            key = x;
        } else {
            memcpy(&key, k + 8 * i, 8);
        }
        if (vs == 4) {
            uint32_t x;
            memcpy(&x, v + 4 * i, 4);
            val = x;
        } else {
            memcpy(&val, v + 8 * i, 8);
        }
        p[2 * i] = val;
        p[2 * i + 1] = key;
    }
    if (clsort__hwy_sort_u128(p, n)) {
        free(p);
        return CLSORT_ERR_OUT_OF_MEMORY;
    }
    for (size_t i = 0; i < n; ++i) {
        if (ks == 4) {
            const uint32_t x = (uint32_t)p[2 * i + 1];
            memcpy(k + 4 * i, &x, 4);
        } else {
            memcpy(k + 8 * i, &p[2 * i + 1], 8);
        }
        if (vs == 4) {
            const uint32_t x = (uint32_t)p[2 * i];
            memcpy(v + 4 * i, &x, 4);
        } else {
            memcpy(v + 8 * i, &p[2 * i], 8);
        }
    }
    free(p);
    return CLSORT_OK;
}

/* 1 if any float is a NaN, an infinity or -0: there vqsort's numeric order (-0 equal to +0,
 * NaNs unordered) is not totalOrder, and Highway 1.0.3's vqsort returns infinities as the
 * largest finite floats (17 keys of -inf came back as -FLT_MAX: test_sort_keys). One read; each
 * test is arithmetic whose top bit says yes (a magnitude above the largest finite float's bits
 * wraps the subtraction; (v - 1) & ~v has its top bit set only for v = 0, -0's bits with the
 * sign flipped), ORed over the array. 32-bit floats four at a time with SSE2 where
 * the compiler targets it: the scalar loop took half as long as the sort itself (2^24 f32: 27-38
 * ms against 70), since -O2 does not vectorise it. */
static int has_nan_or_negzero(const void *keys, size_t n, size_t ks)
{
    if (ks == 4) {
        const uint32_t *k = keys, sign = 0x80000000u;
        uint32_t acc = 0;
        size_t i = 0;
#if defined(__SSE2__)
        /* Magnitudes are below 2^31, so the signed compare orders them as unsigned. */
        const __m128i mag = _mm_set1_epi32(0x7fffffff), max = _mm_set1_epi32(0x7f7fffff),
                      negzero = _mm_set1_epi32((int)0x80000000u);
        __m128i any = _mm_setzero_si128();
        for (; i + 4 <= n; i += 4) {
            const __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(k + i));
            any = _mm_or_si128(any, _mm_cmpgt_epi32(_mm_and_si128(x, mag), max));
            any = _mm_or_si128(any, _mm_cmpeq_epi32(x, negzero));
        }
        acc = _mm_movemask_epi8(any) ? sign : 0;
#endif
        for (; i < n; ++i) {
            const uint32_t x = k[i], v = x ^ sign;
            acc |= (0x7f7fffffu - (x & ~sign)) | ((v - 1u) & ~v);
        }
        return acc >> 31;
    }
    const uint64_t *k = keys, sign = (uint64_t)1 << 63;
    uint64_t acc = 0;
    for (size_t i = 0; i < n; ++i) {
        const uint64_t x = k[i], v = x ^ sign;
        acc |= (0x7fefffffffffffffu - (x & ~sign)) | ((v - 1u) & ~v);
    }
    return (int)(acc >> 63);
}

/* Keys alone: integers by vqsort's own integer order; floats by its float order where that is
 * totalOrder and vqsort keeps them (finite, no -0: the common case, and the mapping's two passes
 * cost half the sort again), else through the order space. Returns CLSORT_OK or
 * CLSORT_ERR_OUT_OF_MEMORY. */
static int hwy_keys(void *keys, size_t n, clsort_type type, unsigned flags)
{
    const int desc = (flags & CLSORT_DESCENDING) != 0;
    int rc;
    switch (type) {
    case CLSORT_U32:
        return clsort__hwy_sort_u32(keys, n, desc) ? CLSORT_ERR_OUT_OF_MEMORY : CLSORT_OK;
    case CLSORT_I32:
        return clsort__hwy_sort_i32(keys, n, desc) ? CLSORT_ERR_OUT_OF_MEMORY : CLSORT_OK;
    case CLSORT_U64:
        return clsort__hwy_sort_u64(keys, n, desc) ? CLSORT_ERR_OUT_OF_MEMORY : CLSORT_OK;
    case CLSORT_I64:
        return clsort__hwy_sort_i64(keys, n, desc) ? CLSORT_ERR_OUT_OF_MEMORY : CLSORT_OK;
    case CLSORT_F32:
        if (!has_nan_or_negzero(keys, n, 4))
            return clsort__hwy_sort_f32(keys, n, desc) ? CLSORT_ERR_OUT_OF_MEMORY : CLSORT_OK;
        to_order(keys, n, 4, type, flags & CLSORT_NAN_LARGEST);
        rc = clsort__hwy_sort_u32(keys, n, desc);
        from_order(keys, n, 4, type, flags & CLSORT_NAN_LARGEST);
        return rc ? CLSORT_ERR_OUT_OF_MEMORY : CLSORT_OK;
    default:
        if (!has_nan_or_negzero(keys, n, 8)) {
            rc = clsort__hwy_sort_f64(keys, n, desc);
            if (rc != 1) /* 1: no f64 sort on this CPU, the mapping below does it */
                return rc ? CLSORT_ERR_OUT_OF_MEMORY : CLSORT_OK;
        }
        to_order(keys, n, 8, type, flags & CLSORT_NAN_LARGEST);
        rc = clsort__hwy_sort_u64(keys, n, desc);
        from_order(keys, n, 8, type, flags & CLSORT_NAN_LARGEST);
        return rc ? CLSORT_ERR_OUT_OF_MEMORY : CLSORT_OK;
    }
}
#endif

const char *clsort__host_sort_name(void)
{
#ifdef CLSORT_HAVE_HWY
    return "vqsort";
#else
    return "radix";
#endif
}

int clsort__host_sort(void *keys, void *values, size_t value_size, size_t n, clsort_type type,
                      unsigned flags)
{
    const size_t ks = clsort_type_size(type), vs = values ? value_size : 0;
    if (vs != 0 && vs != 4 && vs != 8)
        return CLSORT_ERR_INVALID_ARG;
    if (n < 2)
        return CLSORT_OK;
#ifdef CLSORT_HAVE_HWY
    if (!vs)
        return hwy_keys(keys, n, type, flags);
#endif
    /* Transform to order space in place, sort, transform back: bijective, so bits survive. */
    to_order(keys, n, ks, type, flags);
    int rc;
#ifdef CLSORT_HAVE_HWY
    /* u32 keys with 8-byte values: a u128 per pair costs vqsort more than the radix sort's
     * passes over 12 bytes (measured slower on a CPU at millions of pairs). */
    if (!(flags & CLSORT_STABLE) && !(ks == 4 && vs == 8))
        rc = hwy_pairs(keys, values, ks, vs, n);
    else
#endif
        rc = radix(keys, values, ks, vs, n);
    from_order(keys, n, ks, type, flags);
    return rc;
}
