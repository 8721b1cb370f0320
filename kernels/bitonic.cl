/* bitonic.cl - bitonic sort in its "flip" form: every merge compares position i of a block with
 * its mirror image first, then runs half-cleaners; every comparator puts the minimum at the lower
 * position, so every block sorts ascending and any n works without padding (docs/kernels.md).
 *
 * Passes (one launch each, scheduled by host/schedule.c):
 *   bitonic_sort_tile     (a) each work-group sorts TILE keys in local memory
 *   bitonic_global_rN     (b) strides >= TILE: each work-item runs N fused levels on 2^N keys in
 *                             private memory (N = 1..log2(KEYS_PER_ITEM))
 *   bitonic_merge_tile    (c) strides below TILE of a merge, in local memory
 */
#ifndef CLSORT_BITONIC_CL
#define CLSORT_BITONIC_CL
#ifndef CLSORT_COMMON_CL
#include "common.cl"
#endif

/* (a) Sorts each tile of TILE keys: merges of block size 2..kmax (kmax <= TILE, a power of two;
 * smaller when the whole input is smaller than a tile). */
__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1)))
void bitonic_sort_tile(__global key_type *restrict keys VALS_PARAM, const idx_t n, const uint xf,
                       const uint kmax)
{
    __local key_type lk[TILE];
    LOCAL_VALS(lv, TILE);
    keys += SEGMENT_BASE();
#if VAL_BYTES
    vals += SEGMENT_BASE();
#endif
    const idx_t first = (idx_t)get_group_id(0) * TILE;
    LOAD_TILE(first, TILE);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 2; k <= kmax; k <<= 1) {
        for (uint j = k >> 1; j > 0; j >>= 1) {
            const uint mask = (j == k >> 1) ? 2 * j - 1 : j; /* flip first, then half-cleaners */
            FOR_EACH_COMPARATOR(c, TILE / 2) {
                const uint i = ((c & ~(j - 1)) << 1) | (c & (j - 1));
                CMPX(lk, lv, i, i ^ mask);
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
    STORE_TILE(first, 0, TILE);
}

/* (c) Half-cleaner levels jmax, jmax/2, ..., 1 on each tile (jmax < TILE). Also the second half of
 * the transposition network's block merge-split (transposition.cl). */
__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1)))
void bitonic_merge_tile(__global key_type *restrict keys VALS_PARAM, const idx_t n, const uint xf,
                        const uint jmax)
{
    __local key_type lk[TILE];
    LOCAL_VALS(lv, TILE);
    keys += SEGMENT_BASE();
#if VAL_BYTES
    vals += SEGMENT_BASE();
#endif
    const idx_t first = (idx_t)get_group_id(0) * TILE;
    LOAD_TILE(first, TILE);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = jmax; j > 0; j >>= 1) {
        FOR_EACH_COMPARATOR(c, TILE / 2) {
            const uint i = ((c & ~(j - 1)) << 1) | (c & (j - 1));
            CMPX(lk, lv, i, i + j);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    STORE_TILE(first, 0, TILE);
}

/* (b) R fused levels with strides jlow << (R-1), ..., jlow, the first one a flip when `flip`.
 *
 * Work-item t owns 2^R keys, kept in private memory in ascending order of position. Without a
 * flip they sit at base + m*jlow (base = t with R zero bits inserted at bit log2(jlow)), and the
 * levels are half-cleaners on slot strides 2^(R-1), ..., 1. With a flip (merge block 2*jhigh),
 * the lower half sits at base + m*jlow and the upper half at the mirror images, which in ascending
 * order are mirror(base) - (2^R-1-m)*jlow; the flip then pairs slot m with slot 2^R-1-m, and the
 * half-cleaners pair slots by xor as before. The set is closed under all R levels, so one load and
 * one store serve R levels. */
inline void bitonic_global(const uint R, __global key_type *restrict keys
#if VAL_BYTES
                           , __global val_type *restrict vals
#endif
                           , const idx_t n, const uint xf, const uint log_jlow, const uint flip)
{
    key_type k[KEYS_PER_ITEM];
#if VAL_BYTES
    val_type v[KEYS_PER_ITEM];
#endif
    const uint cnt = 1u << R, hcnt = cnt >> 1;
    const idx_t t = get_global_id(0);
    const idx_t jlow = (idx_t)1 << log_jlow;
    const idx_t base = ((t >> log_jlow) << (log_jlow + R)) | (t & (jlow - 1));
    if (base >= n)
        return;
    const idx_t mirror = base ^ ((jlow << R) - 1);
    keys += SEGMENT_BASE();
#if VAL_BYTES
    vals += SEGMENT_BASE();
#endif
#define POS_(m) ((flip && (m) >= hcnt) ? mirror - (idx_t)(cnt - 1 - (m)) * jlow : base + (idx_t)(m) * jlow)
    for (uint m = 0; m < cnt; ++m) {
        const idx_t p = POS_(m);
        k[m] = p < n ? to_order(keys[p], xf) : KEY_VIRTUAL;
#if VAL_BYTES
        v[m] = p < n ? vals[p] : 0;
#endif
    }
    uint s = hcnt;
    if (flip) {
        for (uint m = 0; m < hcnt; ++m)
            CMPX(k, v, m, cnt - 1 - m);
        s >>= 1;
    }
    for (; s > 0; s >>= 1)
        for (uint m = 0; m < cnt; ++m)
            if (!(m & s))
                CMPX(k, v, m, m | s);
    for (uint m = 0; m < cnt; ++m) {
        const idx_t p = POS_(m);
        if (p < n) {
            keys[p] = from_order(k[m], xf);
#if VAL_BYTES
            vals[p] = v[m];
#endif
        }
    }
#undef POS_
}

#define BITONIC_GLOBAL_KERNEL(R)                                                                  \
    __kernel void bitonic_global_r##R(__global key_type *restrict keys VALS_PARAM, const idx_t n, \
                                      const uint xf, const uint log_jlow, const uint flip)        \
    {                                                                                             \
        bitonic_global(R, keys VALS_ARG, n, xf, log_jlow, flip);                                  \
    }

BITONIC_GLOBAL_KERNEL(1)
#if KEYS_PER_ITEM >= 4
BITONIC_GLOBAL_KERNEL(2)
#endif
#if KEYS_PER_ITEM >= 8
BITONIC_GLOBAL_KERNEL(3)
#endif
#if KEYS_PER_ITEM >= 16
BITONIC_GLOBAL_KERNEL(4)
#endif
#if KEYS_PER_ITEM >= 32
BITONIC_GLOBAL_KERNEL(5)
#endif

#endif /* CLSORT_BITONIC_CL */
