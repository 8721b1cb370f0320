/* hostsort.c - the CPU path: an LSD radix sort with the documented order, used for inputs too
 * small to be worth a device round trip (the crossover comes from the tuner), and the host side
 * of CLSORT_STABLE. Radix sort is stable, which keeps the fallback's pairs in input order. */
#include "hostsort.h"

#include <stdlib.h>
#include <string.h>

uint32_t clsort__order32(uint32_t x, clsort_type type, unsigned flags)
{
    if (type == CLSORT_F32)
        x ^= (x & 0x80000000u) ? 0xffffffffu : 0x80000000u;
    else if (type == CLSORT_I32)
        x ^= 0x80000000u;
    return (flags & CLSORT_DESCENDING) ? ~x : x;
}

uint64_t clsort__order64(uint64_t x, clsort_type type, unsigned flags)
{
    const uint64_t sign = (uint64_t)1 << 63;
    if (type == CLSORT_F64)
        x ^= (x & sign) ? ~(uint64_t)0 : sign;
    else if (type == CLSORT_I64)
        x ^= sign;
    return (flags & CLSORT_DESCENDING) ? ~x : x;
}

/* Sorts n order-space keys (width 4 or 8 bytes) with values, 8 bits per pass. */
static int radix(void *keys, void *vals, size_t ks, size_t vs, size_t n)
{
    unsigned char *tk = malloc(n * ks), *tv = vs ? malloc(n * vs) : NULL;
    if (!tk || (vs && !tv)) {
        free(tk);
        free(tv);
        return CLSORT_ERR_OUT_OF_MEMORY;
    }
    unsigned char *sk = keys, *sv = vals, *dk = tk, *dv = tv;
    for (unsigned shift = 0; shift < ks * 8; shift += 8) {
        size_t count[257] = {0};
        for (size_t i = 0; i < n; ++i) {
            uint64_t k = 0;
            memcpy(&k, sk + i * ks, ks);
            ++count[((k >> shift) & 0xff) + 1];
        }
        int skip = 0; /* every key has the same digit: nothing moves in this pass */
        for (int d = 1; d <= 256; ++d)
            if (count[d] == n)
                skip = 1;
        if (skip)
            continue;
        for (int d = 0; d < 256; ++d)
            count[d + 1] += count[d];
        for (size_t i = 0; i < n; ++i) {
            uint64_t k = 0;
            memcpy(&k, sk + i * ks, ks);
            const size_t at = count[(k >> shift) & 0xff]++;
            memcpy(dk + at * ks, sk + i * ks, ks);
            if (vs)
                memcpy(dv + at * vs, sv + i * vs, vs);
        }
        unsigned char *t = sk;
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
    free(tk);
    free(tv);
    return CLSORT_OK;
}

int clsort__host_sort(void *keys, void *values, size_t value_size, size_t n, clsort_type type,
                      unsigned flags)
{
    const size_t ks = clsort_type_size(type);
    /* Transform to order space in place, sort, transform back: bijective, so bits survive. */
    if (ks == 4) {
        uint32_t *k = keys;
        for (size_t i = 0; i < n; ++i)
            k[i] = clsort__order32(k[i], type, flags);
    } else {
        uint64_t *k = keys;
        for (size_t i = 0; i < n; ++i)
            k[i] = clsort__order64(k[i], type, flags);
    }
    const int rc = radix(keys, values, ks, values ? value_size : 0, n);
    /* The inverse: order32 is an involution for integers; floats need the other mask. */
    if (ks == 4) {
        uint32_t *k = keys;
        for (size_t i = 0; i < n; ++i) {
            uint32_t y = (flags & CLSORT_DESCENDING) ? ~k[i] : k[i];
            if (type == CLSORT_F32)
                y ^= (y & 0x80000000u) ? 0x80000000u : 0xffffffffu;
            else if (type == CLSORT_I32)
                y ^= 0x80000000u;
            k[i] = y;
        }
    } else {
        uint64_t *k = keys;
        const uint64_t sign = (uint64_t)1 << 63;
        for (size_t i = 0; i < n; ++i) {
            uint64_t y = (flags & CLSORT_DESCENDING) ? ~k[i] : k[i];
            if (type == CLSORT_F64)
                y ^= (y & sign) ? sign : ~(uint64_t)0;
            else if (type == CLSORT_I64)
                y ^= sign;
            k[i] = y;
        }
    }
    return rc;
}
