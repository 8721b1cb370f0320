/* dispatch_stable.c - CLSORT_STABLE for pairs where a network sorts them (dispatch_stable.h). */
#include "dispatch_stable.h"

#include "dispatch_path.h"

#include <stdlib.h>
#include <string.h>

/* CLSORT_STABLE for pairs: sort (key, position) pairs, restore input order inside each run of
 * equal keys on the host, then move the values by the positions. */
static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

int clsort__stable_pairs(clsort_ctx *ctx, void *keys, void *values, size_t value_size, size_t n,
                         clsort_type type, clsort_algorithm algo, unsigned flags)
{
    const size_t ks = clsort_type_size(type);
    /* The device sorts the keys with 8-byte positions: sizes no buffer can hold fail here,
     * before three host copies of that size are asked for. */
    if (n * ks > ctx->dev.max_alloc || n * sizeof(uint64_t) > ctx->dev.max_alloc)
        return clsort__fail(ctx, CLSORT_ERR_OUT_OF_MEMORY,
                            "clsort_sort_pairs: %zu keys with positions need %zu bytes in one "
                            "buffer, more than CL_DEVICE_MAX_MEM_ALLOC_SIZE (%llu bytes) of %s",
                            n, n * sizeof(uint64_t), (unsigned long long)ctx->dev.max_alloc,
                            ctx->dev.name);
    uint64_t *pos = malloc(n * sizeof *pos);
    unsigned char *vcopy = malloc(n * value_size);
    if (!pos || !vcopy) {
        free(pos);
        free(vcopy);
        return clsort__fail(ctx, CLSORT_ERR_OUT_OF_MEMORY, "out of host memory (stable sort)");
    }
    unsigned char *kcopy = malloc(n * ks);
    if (!kcopy) {
        free(pos);
        free(vcopy);
        return clsort__fail(ctx, CLSORT_ERR_OUT_OF_MEMORY, "out of host memory (stable sort)");
    }
    memcpy(kcopy, keys, n * ks);
    for (size_t i = 0; i < n; ++i)
        pos[i] = i;
    int rc = clsort__sort_any(ctx, kcopy, pos, 8, n, type, algo, flags & ~CLSORT_STABLE);
    if (rc == CLSORT_OK) {
        for (size_t a = 0; a < n;) {
            size_t b = a + 1;
            while (b < n && !memcmp(kcopy + b * ks, kcopy + a * ks, ks))
                ++b;
            if (b - a > 1)
                qsort(pos + a, b - a, sizeof *pos, cmp_u64);
            a = b;
        }
        memcpy(vcopy, values, n * value_size);
        unsigned char *v = values;
        for (size_t i = 0; i < n; ++i)
            memcpy(v + i * value_size, vcopy + pos[i] * value_size, value_size);
        memcpy(keys, kcopy, n * ks);
    }
    free(pos);
    free(vcopy);
    free(kcopy);
    return rc;
}
