/* bench_ref.c - clsort-bench's qsort reference, random data and result checks.
 * The order is clsort's documented one, applied through bench_order32/64 so that qsort, std::sort and
 * the checks can never disagree about what "sorted" means. */
#include "bench_ref.h"

#include <stdlib.h>
#include <string.h>

/* ---- qsort reference --------------------------------------------------------------------------- */

/* One comparator per (width, type, layout). The mapping costs a few instructions per comparison,
 * as it would in any user's qsort comparator for these orders. */
#define BENCH_CMP_(name, T, order, type, get)                               \
    static int name(const void *a, const void *b)                           \
    {                                                                       \
        const T x = order(get((const void *)a), type);                      \
        const T y = order(get((const void *)b), type);                      \
        return (x > y) - (x < y);                                           \
    }
#define BENCH_KEY32_(p) (*(const uint32_t *)(p))
#define BENCH_KEY64_(p) (*(const uint64_t *)(p))
#define BENCH_PKEY32_(p) (((const bench_pair32 *)(p))->key)
#define BENCH_PKEY64_(p) (((const bench_pair64 *)(p))->key)

BENCH_CMP_(cmp_u32, uint32_t, bench_order32, CLSORT_U32, BENCH_KEY32_)
BENCH_CMP_(cmp_i32, uint32_t, bench_order32, CLSORT_I32, BENCH_KEY32_)
BENCH_CMP_(cmp_f32, uint32_t, bench_order32, CLSORT_F32, BENCH_KEY32_)
BENCH_CMP_(cmp_u64, uint64_t, bench_order64, CLSORT_U64, BENCH_KEY64_)
BENCH_CMP_(cmp_i64, uint64_t, bench_order64, CLSORT_I64, BENCH_KEY64_)
BENCH_CMP_(cmp_f64, uint64_t, bench_order64, CLSORT_F64, BENCH_KEY64_)
BENCH_CMP_(cmp_pu32, uint32_t, bench_order32, CLSORT_U32, BENCH_PKEY32_)
BENCH_CMP_(cmp_pi32, uint32_t, bench_order32, CLSORT_I32, BENCH_PKEY32_)
BENCH_CMP_(cmp_pf32, uint32_t, bench_order32, CLSORT_F32, BENCH_PKEY32_)
BENCH_CMP_(cmp_pu64, uint64_t, bench_order64, CLSORT_U64, BENCH_PKEY64_)
BENCH_CMP_(cmp_pi64, uint64_t, bench_order64, CLSORT_I64, BENCH_PKEY64_)
BENCH_CMP_(cmp_pf64, uint64_t, bench_order64, CLSORT_F64, BENCH_PKEY64_)

int bench_qsort(void *data, size_t n, clsort_type type, size_t value_size)
{
    static int (*const keys[])(const void *, const void *) = {
        [CLSORT_U32] = cmp_u32, [CLSORT_I32] = cmp_i32, [CLSORT_F32] = cmp_f32,
        [CLSORT_U64] = cmp_u64, [CLSORT_I64] = cmp_i64, [CLSORT_F64] = cmp_f64,
    };
    static int (*const pairs[])(const void *, const void *) = {
        [CLSORT_U32] = cmp_pu32, [CLSORT_I32] = cmp_pi32, [CLSORT_F32] = cmp_pf32,
        [CLSORT_U64] = cmp_pu64, [CLSORT_I64] = cmp_pi64, [CLSORT_F64] = cmp_pf64,
    };
    const size_t ks = clsort_type_size(type);
    if (ks == 0 || (value_size != 0 && value_size != ks)) return -1;
    if (value_size == 0)
        qsort(data, n, ks, keys[type]);
    else
        qsort(data, n, 2 * ks, pairs[type]);
    return 0;
}

/* ---- Random data --------------------------------------------------------------------------------- */

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

void bench_rng_seed(bench_rng *rng, uint64_t seed)
{
    for (int i = 0; i < 4; i++) rng->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl64(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t rng_next(bench_rng *rng)
{
    uint64_t *s = rng->s;
    const uint64_t result = rotl64(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl64(s[3], 45);
    return result;
}

void bench_rng_fill(bench_rng *rng, void *dst, size_t bytes)
{
    unsigned char *p = dst;
    size_t i = 0;
    for (; i + 8 <= bytes; i += 8) {
        const uint64_t r = rng_next(rng);
        memcpy(p + i, &r, 8);
    }
    if (i < bytes) {
        const uint64_t r = rng_next(rng);
        memcpy(p + i, &r, bytes - i);
    }
}

/* ---- Checks -------------------------------------------------------------------------------------- */

/* A bijective 64-bit mixer (the murmur3 finalizer): distinct inputs give distinct hashes. */
static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 33)) * 0xff51afd7ed558ccdu;
    z = (z ^ (z >> 33)) * 0xc4ceb9fe1a85ec53u;
    return z ^ (z >> 33);
}

static inline uint64_t load_bits(const unsigned char *p, size_t size)
{
    if (size == 4) {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* The hash of one element: the key's and the value's hashes are combined asymmetrically so that
 * swapping values between keys changes the sum. */
static inline uint64_t element_hash(uint64_t key, uint64_t value, int has_value)
{
    const uint64_t hk = mix64(key + 0x51ed27a1u);
    return has_value ? mix64(hk ^ (value * 0x9e3779b97f4a7c15u + 0x2545f4914f6cdd1du)) : hk;
}

uint64_t bench_checksum(const void *keys, const void *values, size_t n, size_t key_size,
                        size_t value_size)
{
    const unsigned char *k = keys, *v = values;
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        const uint64_t kv = load_bits(k + i * key_size, key_size);
        const uint64_t vv = v ? load_bits(v + i * value_size, value_size) : 0;
        sum += element_hash(kv, vv, v != NULL);
    }
    return sum;
}

uint64_t bench_checksum_packed(const void *data, size_t n, size_t key_size, size_t value_size)
{
    const unsigned char *p = data;
    const size_t stride = key_size + value_size;
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        const uint64_t kv = load_bits(p + i * stride, key_size);
        const uint64_t vv = value_size ? load_bits(p + i * stride + key_size, value_size) : 0;
        sum += element_hash(kv, vv, value_size != 0);
    }
    return sum;
}

size_t bench_find_unsorted(const void *keys, size_t n, clsort_type type)
{
    if (clsort_type_size(type) == 4) {
        const uint32_t *k = keys;
        for (size_t i = 1; i < n; i++)
            if (bench_order32(k[i], type) < bench_order32(k[i - 1], type)) return i;
    } else {
        const uint64_t *k = keys;
        for (size_t i = 1; i < n; i++)
            if (bench_order64(k[i], type) < bench_order64(k[i - 1], type)) return i;
    }
    return n;
}

void bench_pack(void *dst, const void *keys, const void *values, size_t n, size_t key_size,
                size_t value_size)
{
    if (value_size == 0) {
        memcpy(dst, keys, n * key_size);
        return;
    }
    unsigned char *d = dst;
    const unsigned char *k = keys, *v = values;
    for (size_t i = 0; i < n; i++) {
        memcpy(d, k + i * key_size, key_size);
        memcpy(d + key_size, v + i * value_size, value_size);
        d += key_size + value_size;
    }
}

size_t bench_find_key_mismatch(const void *keys, const void *ref, size_t n, size_t key_size,
                               size_t value_size)
{
    const unsigned char *k = keys, *r = ref;
    const size_t stride = key_size + value_size;
    for (size_t i = 0; i < n; i++)
        if (memcmp(k + i * key_size, r + i * stride, key_size) != 0) return i;
    return n;
}
