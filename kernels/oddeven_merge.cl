/* oddeven_merge.cl - Batcher's odd-even merge sort. A merge of two sorted blocks of size p
 * (block 2p) runs levels k = p, p/2, ..., 1. Level p compares x with x+p (x in the lower half);
 * level k < p compares x with x+k for every x whose bit k is set, unless x+k leaves the 2p block.
 * Every comparator puts the minimum at the lower position (docs/kernels.md).
 *
 * Unlike bitonic sort, the levels below p shift their pairs by k, so no tile of any alignment is
 * closed under two consecutive such levels. Passes (scheduled by host/schedule.c):
 *   oem_sort_tile      (a) each work-group runs every merge with 2p <= TILE in local memory
 *   oem_global_top_rN  (b) the first N levels p, ..., p/2^(N-1) of a merge, fused in private
 *                          memory (that set is closed: x + k only carries into bits of the set)
 *   oem_global_level   (b) one level k with TILE <= k < p/2^(N-1), one comparator per work-item
 *   oem_merge_halo     (c) levels TILE/2, ..., 1 of a merge with p >= TILE: each work-group
 *                          keeps a window of 3*TILE keys in local memory and writes its middle
 *                          TILE, which depend only on keys within TILE-1 positions of it
 */
#ifndef CLSORT_COMMON_CL
#include "common.cl"
#endif

/* True when level k (< p) of a 2p-block merge has a comparator whose lower element is x
 * (bit k of x set): the partner x+k stays in x's 2p block. Works on wrapped (negative) x too. */
#define OEM_PAIR_OK(x, k, p) ((((x) & (2 * (p) - 1)) + (k)) < 2 * (p))

/* (a) All merges with block size up to kmax (<= TILE) inside each tile. */
__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1)))
void oem_sort_tile(__global key_type *restrict keys VALS_PARAM, const idx_t n, const uint xf,
                   const uint kmax)
{
    LOCAL_TILE_PROLOGUE();
    for (uint p = 1; p < kmax; p <<= 1) {
        for (uint k = p; k > 0; k >>= 1) {
            FOR_EACH_COMPARATOR(c, TILE / 2) {
                const uint y = ((c & ~(k - 1)) << 1) | (c & (k - 1));
                if (k == p)
                    CMPX(lk, lv, y, y + p);
                else if (OEM_PAIR_OK(y + k, k, p))
                    CMPX(lk, lv, y + k, y + 2 * k);
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
    STORE_TILE(first, 0, TILE);
}

/* (b) The first R levels of the merge with half-size p = jlow << (R-1): keys at base + m*jlow,
 * read from src and written to dst (the auxiliary buffer: see oem_merge_halo for why).
 * In slot space the levels are those of an odd-even merge of 2^R slots: slot stride 2^(R-1)
 * compares m with m + 2^(R-1); smaller strides s compare m (bit s set) with m + s if in range. */
#if VAL_BYTES
#define OEM_TOP_VALS , __global const val_type *restrict vals, __global val_type *restrict dvals
#define OEM_TOP_VALS_ARG , vals, dvals
#else
#define OEM_TOP_VALS
#define OEM_TOP_VALS_ARG
#endif
/* The out-of-place passes (oem_global_top_rR, oem_merge_halo) move all four buffers to the
 * segment (batch) this work-item belongs to. */
#define OEM_SEGMENT_BUFFERS()                                                           \
    do {                                                                                \
        keys += SEGMENT_BASE();                                                         \
        dkeys += SEGMENT_BASE();                                                        \
        IF_VALS(vals += SEGMENT_BASE(); dvals += SEGMENT_BASE();)                       \
    } while (0)
static inline __attribute__((always_inline)) void oem_global_top(const uint R, __global const key_type *restrict keys,
                           __global key_type *restrict dkeys OEM_TOP_VALS, const idx_t n,
                           const uint xf, const uint log_jlow)
{
    key_type k[KEYS_PER_ITEM];
    IF_VALS(val_type v[KEYS_PER_ITEM];)
    const uint cnt = 1u << R, hcnt = cnt >> 1;
    const idx_t t = get_global_id(0);
    const idx_t jlow = (idx_t)1 << log_jlow;
    const idx_t base = ((t >> log_jlow) << (log_jlow + R)) | (t & (jlow - 1));
    if (base >= n)
        return;
    OEM_SEGMENT_BUFFERS();
    for (uint m = 0; m < cnt; ++m) {
        const idx_t p = base + (idx_t)m * jlow;
        k[m] = p < n ? to_order(keys[p], xf) : KEY_VIRTUAL;
        IF_VALS(v[m] = p < n ? vals[p] : 0;)
    }
    for (uint m = 0; m < hcnt; ++m)
        CMPX(k, v, m, m + hcnt);
    for (uint s = hcnt >> 1; s > 0; s >>= 1)
        for (uint m = 0; m + s < cnt; ++m)
            if (m & s)
                CMPX(k, v, m, m + s);
    for (uint m = 0; m < cnt; ++m) {
        const idx_t p = base + (idx_t)m * jlow;
        if (p < n) {
            dkeys[p] = from_order(k[m], xf);
            IF_VALS(dvals[p] = v[m];)
        }
    }
}

#define OEM_GLOBAL_TOP_KERNEL(R)                                                                 \
    __kernel void oem_global_top_r##R(__global const key_type *restrict keys,                    \
                                      __global key_type *restrict dkeys OEM_TOP_VALS,            \
                                      const idx_t n, const uint xf, const uint log_jlow)         \
    {                                                                                            \
        oem_global_top(R, keys, dkeys OEM_TOP_VALS_ARG, n, xf, log_jlow);                        \
    }

OEM_GLOBAL_TOP_KERNEL(1)
#if KEYS_PER_ITEM >= 4
OEM_GLOBAL_TOP_KERNEL(2)
#endif
#if KEYS_PER_ITEM >= 8
OEM_GLOBAL_TOP_KERNEL(3)
#endif
#if KEYS_PER_ITEM >= 16
OEM_GLOBAL_TOP_KERNEL(4)
#endif
#if KEYS_PER_ITEM >= 32
OEM_GLOBAL_TOP_KERNEL(5)
#endif

/* (b) One level k < p of the merge with half-size p = 1 << log_p; work-item c is comparator c. */
__kernel void oem_global_level(__global key_type *restrict keys VALS_PARAM, const idx_t n,
                               const uint xf, const uint log_k, const uint log_p)
{
    const idx_t k = (idx_t)1 << log_k, p = (idx_t)1 << log_p;
    const idx_t lo = insert_zero(get_global_id(0), k) + k, hi = lo + k;
    if (hi >= n || !OEM_PAIR_OK(lo, k, p))
        return;
    global_cmpx(keys + SEGMENT_BASE() VALS_SEGMENT_ARG, lo, hi, xf);
}

/* (c) Levels TILE/2, ..., 1 of the merge with half-size p = 1 << log_p >= TILE, from keys (the
 * auxiliary buffer) into dkeys. Work-group w owns output positions [w*TILE, (w+1)*TILE) and loads
 * the window starting TILE earlier: after the levels, a key's value depends only on keys within
 * TILE/2 + ... + 1 = TILE-1 positions, so the middle third is exact even though the window's
 * edges are not. Windows overlap, which is why this pass cannot work in place: a neighbour would
 * read keys this group already wrote. The window start is a multiple of TILE, so bit k of a slot
 * equals bit k of its position. */
__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1)))
void oem_merge_halo(__global const key_type *restrict keys, __global key_type *restrict dkeys
                    OEM_TOP_VALS
                    , const idx_t n, const uint xf, const uint log_p)
{
    __local key_type lk[3 * TILE];
    LOCAL_VALS(lv, 3 * TILE);
    OEM_SEGMENT_BUFFERS();
    const idx_t p = (idx_t)1 << log_p;
    const idx_t first = (idx_t)get_group_id(0) * TILE - TILE; /* wraps for group 0: virtual */
    load_local(lk, keys, first, 3 * TILE, n, xf);
    IF_VALS(load_local_vals(lv, vals, first, 3 * TILE, n);)
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = TILE / 2; k > 0; k >>= 1) {
        FOR_EACH_COMPARATOR(c, 3 * TILE / 2) {
            const uint lo = (((c & ~(k - 1)) << 1) | (c & (k - 1))) + k;
            if (lo + k < 3 * TILE && OEM_PAIR_OK(first + lo, k, p))
                CMPX(lk, lv, lo, lo + k);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    store_local(dkeys, lk, first, TILE, 2 * TILE, n, xf);
    IF_VALS(store_local_vals(dvals, lv, first, TILE, 2 * TILE, n);)
}
