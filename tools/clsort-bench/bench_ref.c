/* bench_ref.c - clsort-bench's qsort reference, random data and result checks.
 * The order is clsort's documented one, applied through bench_order32/64 so that qsort, std::sort and
 * the checks can never disagree about what "sorted" means. */
#include "bench_ref.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- Parallel loops ------------------------------------------------------------------------------ */

/* The checks and the data generation touch every element several times per run; at 2^28 elements
 * that is seconds on one core against milliseconds of device time, so they use every core. */
typedef struct bench_part {
    void (*fn)(struct bench_part *part);
    const void *arg;
    size_t begin, end;
    uint64_t result;
    pthread_t thread;
    int started;
} bench_part;

static void *run_part(void *p)
{
    bench_part *part = p;
    part->fn(part);
    return NULL;
}

static int bench_cores(void)
{
    static int cores;
    if (!cores) {
        const long c = sysconf(_SC_NPROCESSORS_ONLN);
        cores = c < 1 ? 1 : c > 64 ? 64 : (int)c;
    }
    return cores;
}

/* Runs fn over [0, n) in up to one part per core, parts no smaller than `grain` (so small inputs stay
 * on this thread), and returns the number of parts, each with its range and result. */
static int parallel_for(size_t n, size_t grain, void (*fn)(bench_part *), const void *arg,
                        bench_part *parts)
{
    int np = bench_cores();
    if ((size_t)np > n / grain) np = (int)(n / grain);
    if (np < 1) np = 1;
    for (int i = 0; i < np; i++) {
        parts[i].fn = fn;
        parts[i].arg = arg;
        parts[i].begin = n / (size_t)np * (size_t)i;
        parts[i].end = i == np - 1 ? n : n / (size_t)np * (size_t)(i + 1);
        parts[i].result = 0;
        parts[i].started = 0;
    }
    for (int i = 1; i < np; i++)
        parts[i].started = pthread_create(&parts[i].thread, NULL, run_part, &parts[i]) == 0;
    for (int i = 0; i < np; i++)
        if (i == 0 || !parts[i].started) fn(&parts[i]); /* this thread, or no thread to be had */
    for (int i = 1; i < np; i++)
        if (parts[i].started) pthread_join(parts[i].thread, NULL);
    return np;
}

#define BENCH_GRAIN ((size_t)1 << 16)

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

/* Keys of 1 and 2 bytes (keys alone): one comparator over the type in qsort_type_, which the
 * references set before each sort (they run one at a time). */
static clsort_type qsort_type_;
static int cmp_narrow(const void *a, const void *b)
{
    const size_t ks = clsort_type_size(qsort_type_);
    uint64_t x = 0, y = 0;
    memcpy(&x, a, ks); /* little-endian hosts: the low bytes are the key */
    memcpy(&y, b, ks);
    x = bench_order_any(x, qsort_type_);
    y = bench_order_any(y, qsort_type_);
    return (x > y) - (x < y);
}

int bench_qsort(void *data, size_t n, clsort_type type, size_t value_size)
{
    if (clsort_type_size(type) == 1 || clsort_type_size(type) == 2) {
        if (value_size != 0) return -1;
        qsort_type_ = type;
        qsort(data, n, clsort_type_size(type), cmp_narrow);
        return 0;
    }
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

typedef struct bench_rng {
    uint64_t s[4];
} bench_rng;

static void rng_seed(bench_rng *rng, uint64_t seed)
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

/* Random bits come in blocks of 64 KiB, each from its own generator seeded by (seed, block), so any
 * split over threads gives the same bytes. */
#define BENCH_RANDOM_BLOCK ((size_t)1 << 16)

typedef struct fill_arg {
    uint64_t seed;
    unsigned char *dst;
    size_t bytes;
} fill_arg;

static void fill_part(bench_part *part)
{
    const fill_arg *a = part->arg;
    for (size_t b = part->begin; b < part->end; b++) {
        bench_rng rng;
        uint64_t x = a->seed ^ (b * 0xd1b54a32d192ed03u);
        rng_seed(&rng, splitmix64(&x));
        unsigned char *p = a->dst + b * BENCH_RANDOM_BLOCK;
        const size_t len = a->bytes - b * BENCH_RANDOM_BLOCK < BENCH_RANDOM_BLOCK
                               ? a->bytes - b * BENCH_RANDOM_BLOCK
                               : BENCH_RANDOM_BLOCK;
        size_t i = 0;
        for (; i + 8 <= len; i += 8) {
            const uint64_t r = rng_next(&rng);
            memcpy(p + i, &r, 8);
        }
        if (i < len) {
            const uint64_t r = rng_next(&rng);
            memcpy(p + i, &r, len - i);
        }
    }
}

void bench_fill_random(uint64_t seed, void *dst, size_t bytes)
{
    bench_part parts[64];
    const fill_arg a = { seed, dst, bytes };
    const size_t blocks = (bytes + BENCH_RANDOM_BLOCK - 1) / BENCH_RANDOM_BLOCK;
    parallel_for(blocks, 16, fill_part, &a, parts);
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
    if (size < 4) {
        uint64_t v = 0;
        memcpy(&v, p, size); /* little-endian hosts */
        return v;
    }
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

typedef struct check_arg {
    const unsigned char *keys, *values, *ref;
    size_t key_size, value_size;
    clsort_type type;
    size_t n;
} check_arg;

static void checksum_part(bench_part *part)
{
    const check_arg *a = part->arg;
    uint64_t sum = 0;
    for (size_t i = part->begin; i < part->end; i++) {
        const uint64_t kv = load_bits(a->keys + i * a->key_size, a->key_size);
        const uint64_t vv = a->values ? load_bits(a->values + i * a->value_size, a->value_size) : 0;
        sum += element_hash(kv, vv, a->values != NULL);
    }
    part->result = sum;
}

uint64_t bench_checksum(const void *keys, const void *values, size_t n, size_t key_size,
                        size_t value_size)
{
    bench_part parts[64];
    const check_arg a = { keys, values, NULL, key_size, value_size, CLSORT_U32, n };
    const int np = parallel_for(n, BENCH_GRAIN, checksum_part, &a, parts);
    uint64_t sum = 0;
    for (int i = 0; i < np; i++) sum += parts[i].result;
    return sum;
}

static void checksum_packed_part(bench_part *part)
{
    const check_arg *a = part->arg;
    const size_t stride = a->key_size + a->value_size;
    uint64_t sum = 0;
    for (size_t i = part->begin; i < part->end; i++) {
        const unsigned char *p = a->ref + i * stride;
        const uint64_t kv = load_bits(p, a->key_size);
        const uint64_t vv = a->value_size ? load_bits(p + a->key_size, a->value_size) : 0;
        sum += element_hash(kv, vv, a->value_size != 0);
    }
    part->result = sum;
}

uint64_t bench_checksum_packed(const void *data, size_t n, size_t key_size, size_t value_size)
{
    bench_part parts[64];
    const check_arg a = { NULL, NULL, data, key_size, value_size, CLSORT_U32, n };
    const int np = parallel_for(n, BENCH_GRAIN, checksum_packed_part, &a, parts);
    uint64_t sum = 0;
    for (int i = 0; i < np; i++) sum += parts[i].result;
    return sum;
}

/* Each part looks at the pairs (i - 1, i) for i in its range, so the seams are covered too; a part
 * reports n when it finds nothing, and the first finding of all parts wins. */
static void unsorted_part(bench_part *part)
{
    const check_arg *a = part->arg;
    const size_t from = part->begin ? part->begin : 1;
    part->result = a->n;
    if (a->key_size < 4) {
        for (size_t i = from; i < part->end; i++)
            if (bench_order_any(load_bits(a->keys + i * a->key_size, a->key_size), a->type) <
                bench_order_any(load_bits(a->keys + (i - 1) * a->key_size, a->key_size),
                                a->type)) {
                part->result = i;
                return;
            }
    } else if (a->key_size == 4) {
        const uint32_t *k = (const uint32_t *)(const void *)a->keys;
        for (size_t i = from; i < part->end; i++)
            if (bench_order32(k[i], a->type) < bench_order32(k[i - 1], a->type)) {
                part->result = i;
                return;
            }
    } else {
        const uint64_t *k = (const uint64_t *)(const void *)a->keys;
        for (size_t i = from; i < part->end; i++)
            if (bench_order64(k[i], a->type) < bench_order64(k[i - 1], a->type)) {
                part->result = i;
                return;
            }
    }
}

static size_t first_result(const bench_part *parts, int np, size_t n)
{
    size_t first = n;
    for (int i = 0; i < np; i++)
        if (parts[i].result < first) first = (size_t)parts[i].result;
    return first;
}

size_t bench_find_unsorted(const void *keys, size_t n, clsort_type type)
{
    bench_part parts[64];
    const check_arg a = { keys, NULL, NULL, clsort_type_size(type), 0, type, n };
    const int np = parallel_for(n, BENCH_GRAIN, unsorted_part, &a, parts);
    return first_result(parts, np, n);
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

static void mismatch_part(bench_part *part)
{
    const check_arg *a = part->arg;
    const size_t stride = a->key_size + a->value_size;
    part->result = a->n;
    for (size_t i = part->begin; i < part->end; i++)
        if (memcmp(a->keys + i * a->key_size, a->ref + i * stride, a->key_size) != 0) {
            part->result = i;
            return;
        }
}

size_t bench_find_key_mismatch(const void *keys, const void *ref, size_t n, size_t key_size,
                               size_t value_size)
{
    bench_part parts[64];
    const check_arg a = { keys, NULL, ref, key_size, value_size, CLSORT_U32, n };
    const int np = parallel_for(n, BENCH_GRAIN, mismatch_part, &a, parts);
    return first_result(parts, np, n);
}
