/* test_topk_ref.h - the top-k reference shared by test_topk.c and test_topk_radix.c: a stable
 * sort of each row by the documented order (the key in direction-adjusted order space, then the
 * index), cut after k. */
#ifndef TEST_TOPK_REF_H
#define TEST_TOPK_REF_H

#include "test_util.h"

/* One reference entry: the key in (direction-adjusted) order space and its index. */
typedef struct ref_item {
    uint64_t ord;
    uint64_t idx;
} ref_item;

static int cmp_item(const void *a, const void *b)
{
    const ref_item *x = a, *y = b;
    if (x->ord != y->ord)
        return x->ord < y->ord ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* kind of out_values: 0 none, 1 values of vs bytes, 2 indices of vs bytes. */
enum { OUT_NONE, OUT_VALUES, OUT_INDEX };

static uint64_t get_val(const void *v, size_t vs, size_t i)
{
    if (vs == 4) {
        uint32_t x;
        memcpy(&x, (const unsigned char *)v + 4 * i, 4);
        return x;
    }
    uint64_t x;
    memcpy(&x, (const unsigned char *)v + 8 * i, 8);
    return x;
}

static void set_val(void *v, size_t vs, size_t i, uint64_t x)
{
    if (vs == 4) {
        const uint32_t y = (uint32_t)x;
        memcpy((unsigned char *)v + 4 * i, &y, 4);
    } else {
        memcpy((unsigned char *)v + 8 * i, &x, 8);
    }
}

/* The expected keys (and values or indices) of a top-k. */
static void reference(clsort_type type, int desc, const void *keys, const void *vals, size_t vs,
                      int out_kind, size_t n, size_t rows, size_t k, void *want_keys,
                      void *want_vals)
{
    ref_item *it = t_xmalloc(n * sizeof *it);
    const uint64_t flip = desc ? (t_size(type) == 4 ? 0xFFFFFFFFull : ~0ull) : 0;
    for (size_t r = 0; r < rows; ++r) {
        for (size_t i = 0; i < n; ++i) {
            it[i].ord = t_ord(type, t_get_bits(type, keys, r * n + i)) ^ flip;
            it[i].idx = i;
        }
        qsort(it, n, sizeof *it, cmp_item);
        for (size_t j = 0; j < k; ++j) {
            const size_t src = r * n + it[j].idx;
            t_set_bits(type, want_keys, r * k + j, t_get_bits(type, keys, src));
            if (out_kind == OUT_VALUES)
                set_val(want_vals, vs, r * k + j, get_val(vals, vs, src));
            else if (out_kind == OUT_INDEX)
                set_val(want_vals, vs, r * k + j, it[j].idx);
        }
    }
    free(it);
}

#endif
