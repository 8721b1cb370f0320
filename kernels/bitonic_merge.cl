/* bitonic_merge.cl - (c) of bitonic_sort.cl: the half-cleaner levels below TILE of a merge, on
 * the tile machinery of tile.cl; also the second half of the transposition network's block
 * merge-split, so the bitonic and transposition programs both hold it (manifest.h). */

/* Lane exchange (the warp-shuffle experiment; CLSORT_LANES, set through
 * $CLSORT_BUILD_OPTIONS): bitonic_merge_tile's last five levels (strides 16 .. 1) run between
 * the 32 lanes of a warp, with each lane holding positions whose bits 0..4 are its lane number,
 * instead of in registers after a trip through local memory; the keys then go to global memory
 * straight from registers, coalesced, and the final trip through local memory goes too. One
 * REGROUP instead of three trips, but a shuffle per key per level (80 at 16 keys a work-item)
 * instead of 64 local accesses. Measured slower a launch than the default path on NVIDIA GPUs,
 * so nothing sets it (docs/kernels.md, "Warp shuffles", has the prediction and why).
 * CLSORT_LANES 1: NVIDIA's shfl.sync.bfly by inline PTX (32 consecutive work-items form a warp
 * there). 2: the same exchange through local memory, any device, so that PoCL tests the
 * layouts and the comparators. 0 (default): not built. */
#ifndef CLSORT_LANES
#define CLSORT_LANES 0
#endif
#define LANE_MID (TILE_LOG - LOCAL_LOG - 5) /* register levels between the first group and the lanes */
#define LANE_PATH                                                                       \
    (CLSORT_LANES && FULL_PATHS && WG_SIZE % 32 == 0 && LANE_MID >= 0 && LANE_MID <= LOCAL_LOG)
#if LANE_PATH && CLSORT_LANES == 1
inline uint lane_xor_u32(const uint a, const uint x)
{
    uint r;
    __asm__ volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(a), "r"(x));
    return r;
}
inline ulong lane_xor_u64(const ulong a, const uint x)
{
    const uint2 h = as_uint2(a);
    return as_ulong((uint2)(lane_xor_u32(h.x, x), lane_xor_u32(h.y, x)));
}
#if KEY_BITS == 64
#define LANE_XOR_KEY lane_xor_u64
#else
#define LANE_XOR_KEY lane_xor_u32
#endif
#if VAL_BYTES == 8
#define LANE_XOR_VAL lane_xor_u64
#else
#define LANE_XOR_VAL lane_xor_u32
#endif
#define LANE_EXCHANGE(x)
#define LANE_PARTNER(m, x, ok, ov)                                                      \
    ok = LANE_XOR_KEY(k[m], x);                                                         \
    IF_VALS(ov = LANE_XOR_VAL(v[m], x);)
#elif LANE_PATH
/* Slot m of work-item t at lk[m * WG_SIZE + t]: the barrier before lets every work-item finish
 * reading the previous contents. */
#define LANE_EXCHANGE(x)                                                                \
    barrier(CLK_LOCAL_MEM_FENCE);                                                       \
    _Pragma("unroll") for (uint m_ = 0; m_ < LOCAL_KEYS; ++m_) {                        \
        lk[m_ * WG_SIZE + t] = k[m_];                                                   \
        IF_VALS(lv[m_ * WG_SIZE + t] = v[m_];)                                          \
    }                                                                                   \
    barrier(CLK_LOCAL_MEM_FENCE);
#define LANE_PARTNER(m, x, ok, ov)                                                      \
    ok = lk[(m) * WG_SIZE + (t ^ (x))];                                                 \
    IF_VALS(ov = lv[(m) * WG_SIZE + (t ^ (x))];)
#endif
#if LANE_PATH
/* One level of stride x < 32 between lanes: the comparator's lower position is the lane with
 * bit x clear; both lanes test the same K[lo] > K[hi] and swap (take the partner's key and
 * value) when it holds. */
#define LANE_LEVEL(x)                                                                   \
    do {                                                                                \
        LANE_EXCHANGE(x)                                                                \
        const int up_ = (t & (x)) != 0;                                                 \
        _Pragma("unroll") for (uint m_ = 0; m_ < LOCAL_KEYS; ++m_) {                    \
            key_type ok_;                                                               \
            IF_VALS(val_type ov_;)                                                      \
            LANE_PARTNER(m_, x, ok_, ov_);                                              \
            if (up_ ? ok_ > k[m_] : k[m_] > ok_) {                                      \
                k[m_] = ok_;                                                            \
                IF_VALS(v[m_] = ov_;)                                                   \
            }                                                                           \
        }                                                                               \
    } while (0)
#endif

/* (c) Half-cleaner levels jmax, jmax/2, ..., 1 on each tile (jmax < TILE, a power of two). Also
 * the second half of the transposition network's block merge-split (transposition.cl). The
 * first group's keys come straight from global memory (coalesced: its lowest stride is large). */
__kernel CLSORT_SHAPE_TILE void bitonic_merge_tile(CLSORT_ARGS_SORT1(jmax))
{
    TILE_PROLOGUE();
    int jlog = 0;
    while ((1u << jlog) < jmax)
        ++jlog;
    const uint nl0 = (uint)min(jlog + 1, LOCAL_LOG);
    layout cur = make_layout(t, (uint)jlog + 1 - nl0, nl0, 0);
#if SOLO_TILE
    SOLO_LOAD();
    /* Every level below TILE <= 32 fits one group; the usual case (all of them) with a
     * compile-time level count, which lets a CPU compiler drop the run-time predicates. */
    if (nl0 == LOCAL_LOG)
        GROUP_APPLY(k, v, LOCAL_LOG, 0u);
    else
        GROUP_APPLY(k, v, nl0, 0u);
    SOLO_STORE();
#else
#if FULL_PATHS
    if (jmax == TILE / 2) {
#if LANE_PATH
        /* The first group from global memory; then, if any, the levels down to stride 32 with
         * the slots on position bits 5.. and the lanes on bits 0..4; then the five lane levels;
         * then straight back to global memory (the lanes' positions are consecutive). */
        cur = make_layout_c(t, TILE_LOG - LOCAL_LOG, LOCAL_LOG, 0);
        REG_LOAD();
        GROUP_APPLY(k, v, LOCAL_LOG, 0u);
#if LANE_MID > 0
        REGROUP(make_layout, 5u, (uint)LOCAL_LOG, 0u);
        GROUP_APPLY(k, v, (uint)LANE_MID, 0u);
#endif
        LANE_LEVEL(16u);
        LANE_LEVEL(8u);
        LANE_LEVEL(4u);
        LANE_LEVEL(2u);
        LANE_LEVEL(1u);
        REG_STORE();
        return;
#endif
        /* Levels TILE/2 .. 1 in groups, top down, as RUN_LEVELS groups them. */
        HALF_CLEANERS_C();
        LDS_STORE();
    } else
#endif
    {
        if (jlog + 1 - (int)nl0 >= 5) {
            REG_LOAD();
        } else {
            LDS_LOAD();
        }
        GROUP_APPLY(k, v, nl0, 0u);
        RUN_LEVELS(jlog - (int)nl0, 0u);
        LDS_STORE();
    }
#endif
}
