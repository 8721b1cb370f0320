/* oddeven_merge.cl - Batcher's odd-even merge sort. A merge of two sorted blocks of size p
 * (block 2p) runs levels k = p, p/2, ..., 1. Level p compares x with x+p (x in the lower half);
 * level k < p compares x with x+k for every x whose bit k is set, unless x+k leaves the 2p block.
 * Every comparator puts the minimum at the lower position (docs/kernels.md).
 *
 * Unlike bitonic sort, the levels below p shift their pairs by k, so no tile of any alignment is
 * closed under two consecutive such levels. Passes (scheduled by host/planning/schedule.c):
 *   oem_sort_tile      (a) each work-group runs every merge with 2p <= TILE in local memory
 *   oem_global_top_rN  (b) the first N levels p, ..., p/2^(N-1) of a merge, fused in private
 *                          memory (that set is closed: x + k only carries into bits of the set)
 *   oem_wide_top       (b) the first levels of a merge, up to log2(TILE/16), through local
 *                          memory: the same closed set over a virtual tile of rows
 *   oem_global_level   (b) one level k with TILE <= k < p/2^(N-1), one comparator per work-item
 *   oem_finish_tile    (c) the end of a merge with p >= TILE, in two passes over tiles: after
 *                          levels p .. TILE/2 the merge is sorted but for at most two adjacent,
 *                          each sorted, blocks of TILE/2 keys, so merging the pairs of blocks at
 *                          odd offsets (with level TILE/2, which those windows close) and then
 *                          the pairs at even offsets finishes it (docs/kernels.md has the proof)
 */
/* Follows tile.cl (the register-blocked tile machinery, for oem_finish_tile) in its program
 * (manifest.h). */

/* True when level k (< p) of a 2p-block merge has a comparator whose lower element is x
 * (bit k of x set): the partner x+k stays in x's 2p block. Works on wrapped (negative) x too. */
#define OEM_PAIR_OK(x, k, p) ((((x) & (2 * (p) - 1)) + (k)) < 2 * (p))

/* (a), register-blocked: the shapes of tile.cl's compile-time paths (FULL_PATHS: a shared tile
 * of WG_SIZE x LOCAL_KEYS keys, 8 to 32 a work-item) with kmax == TILE (every n > TILE/2), unless
 * the build asks for the run-time path (-DCLSORT_OEM_RUNTIME_TILE=1 through
 * $CLSORT_BUILD_OPTIONS, which tests use to compare the two). The same comparators as the
 * run-time path below, in the same order within each level, but fewer trips through local
 * memory: the merges inside LOCAL_KEYS consecutive keys run in registers (one work-item's keys,
 * no barrier), and every larger merge runs its top LOCAL_LOG levels p .. p / 2^(LOCAL_LOG-1) in
 * registers on the set oem_global_top fuses (slot field = the top LOCAL_LOG bits of the offset
 * in the 2p block), then each level below as one step over local memory with a barrier (no set
 * of positions is closed under two of those; docs/kernels.md). At TILE 4096 with 16 keys a
 * work-item: 46 barriers instead of 79. */
#ifndef CLSORT_OEM_RUNTIME_TILE
#define CLSORT_OEM_RUNTIME_TILE 0
#endif
#define OEM_REG_TILE (FULL_PATHS && !CLSORT_OEM_RUNTIME_TILE)
/* Batcher's merges p = 1 .. LOCAL_KEYS/2 on this work-item's slots (consecutive positions). */
#define OEM_SLOTS_SORT()                                                                \
    _Pragma("unroll") for (uint lp_ = 0; lp_ < LOCAL_LOG; ++lp_)                        \
        _Pragma("unroll") for (uint lk_ = 0; lk_ <= lp_; ++lk_)                         \
            _Pragma("unroll") for (uint m_ = 0; m_ < LOCAL_KEYS; ++m_) {                \
                const uint p_ = 1u << lp_, k_ = p_ >> lk_;                              \
                if (k_ == p_ ? !(m_ & p_)                                               \
                             : (m_ & k_) && (m_ & (2 * p_ - 1)) + k_ < 2 * p_)          \
                    CMPX(k, v, m_, m_ + k_);                                            \
            }
/* The top LOCAL_LOG levels of a merge on its fused set (oem_global_top's slot pattern). */
#define OEM_SLOTS_TOP()                                                                 \
    _Pragma("unroll") for (uint m_ = 0; m_ < LOCAL_KEYS / 2; ++m_)                      \
        CMPX(k, v, m_, m_ + LOCAL_KEYS / 2);                                            \
    _Pragma("unroll") for (int b_ = LOCAL_LOG - 2; b_ >= 0; --b_)                       \
        _Pragma("unroll") for (uint m_ = 0; m_ < LOCAL_KEYS; ++m_)                      \
            if (((m_ >> b_) & 1u) && m_ + (1u << b_) < LOCAL_KEYS)                      \
                CMPX(k, v, m_, m_ + (1u << b_));

/* (a) All merges with block size up to kmax (<= TILE) inside each tile. */
__kernel CLSORT_SHAPE_GROUP void oem_sort_tile(CLSORT_ARGS_SORT1(kmax))
{
#if OEM_REG_TILE
    TILE_LDS_DECL /* padded (LPAD); the run-time path below uses its first TILE slots */
    keys += SEGMENT_BASE();
    IF_VALS(vals += SEGMENT_BASE();)
    const idx_t first = (idx_t)get_group_id(0) * TILE;
    if (kmax == TILE) {
        key_type k[LOCAL_KEYS];
        IF_VALS(val_type v[LOCAL_KEYS];)
        const uint t = get_local_id(0);
        layout cur = make_layout_c(t, 0u, LOCAL_LOG, 0u); /* LOCAL_KEYS consecutive keys */
        LDS_LOAD();
        OEM_SLOTS_SORT();
        SLOTS_TO_LDS();
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint lp = LOCAL_LOG; lp < TILE_LOG; ++lp) { /* the merge with p = 2^lp */
            const uint p = 1u << lp;
            cur = make_layout_c(t, lp + 1 - LOCAL_LOG, LOCAL_LOG, 0u);
            SLOTS_FROM_LDS(); /* each work-item touches only its own slots */
            OEM_SLOTS_TOP();
            SLOTS_TO_LDS();
            barrier(CLK_LOCAL_MEM_FENCE);
            for (uint kk = p >> LOCAL_LOG; kk > 0; kk >>= 1) {
                _Pragma("unroll") for (uint i = 0; i < LOCAL_KEYS / 2; ++i) {
                    const uint c = t + i * WG_SIZE;
                    const uint lo = (((c & ~(kk - 1)) << 1) | (c & (kk - 1))) + kk;
                    if (OEM_PAIR_OK(lo, kk, p))
                        CMPX(lk, lv, LPAD(lo), LPAD(lo + kk));
                }
                barrier(CLK_LOCAL_MEM_FENCE);
            }
        }
        LDS_TO_GLOBAL();
        return;
    }
    LOAD_TILE(first, TILE);
    barrier(CLK_LOCAL_MEM_FENCE);
#else
    LOCAL_TILE_PROLOGUE();
#endif
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

/* (b) The first R levels of the merge with half-size p = jlow << (R-1), in place: keys at
 * base + m*jlow. In slot space the levels are those of an odd-even merge of 2^R slots: slot
 * stride 2^(R-1) compares m with m + 2^(R-1); smaller strides s compare m (bit s set) with m + s
 * if in range. */
static inline __attribute__((always_inline)) void oem_global_top(const uint R,
                           __global key_type *restrict keys VALS_PARAM, const idx_t n,
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
    keys += SEGMENT_BASE();
    IF_VALS(vals += SEGMENT_BASE();)
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
            keys[p] = from_order(k[m], xf);
            IF_VALS(vals[p] = v[m];)
        }
    }
}

#define OEM_GLOBAL_TOP_KERNEL(R)                                                                 \
    __kernel CLSORT_SHAPE_GLOBAL void oem_global_top_r##R(CLSORT_ARGS_SORT1(log_jlow))           \
    {                                                                                            \
        oem_global_top(R, keys VALS_ARG, n, xf, log_jlow);                                       \
    }

OEM_GLOBAL_TOP_KERNEL(1)
#if CLSORT_WHEN_R2
OEM_GLOBAL_TOP_KERNEL(2)
#endif
#if CLSORT_WHEN_R3
OEM_GLOBAL_TOP_KERNEL(3)
#endif
#if CLSORT_WHEN_R4
OEM_GLOBAL_TOP_KERNEL(4)
#endif
#if CLSORT_WHEN_R5
OEM_GLOBAL_TOP_KERNEL(5)
#endif

/* (b) The wide top pass: the first nrow levels p, ..., jlow of the merge with half-size
 * p = jlow << (nrow-1) in one pass, through local memory, where oem_global_top_rN runs
 * log2(KEYS_PER_ITEM) in registers (up to log2(TILE / 16) levels: 8 at TILE 4096, 7 at 2048).
 * A work-group holds a virtual tile of TILE keys, 2^nrow rows spaced by jlow of
 * cols = TILE >> nrow contiguous keys, laid out as bitonic_wide's (bitonic.cl). Its row bits are
 * the field of oem_global_top's closed set (the top nrow bits of the offset inside the 2p block),
 * so the tile is closed under all nrow levels: level p pairs row r with r + rows/2; level
 * jlow << i pairs row r (bit i set) with r + 2^i when that row exists, since a carry out of the
 * row bits leaves the 2p block. In local memory (row r, column c at r * cols + c) these are
 * offsets TILE/2 and d = cols << i, and the existence test is lo + d < TILE. Below the first
 * levels a register group would not be closed (a carry out of its slot bits lands in another
 * work-item's rows), so every level is one step over the tile with a barrier: the 2^nrow-fold
 * fewer global passes, not the local steps, are the point (docs/kernels.md). */
#if CLSORT_WHEN_WIDE
__kernel CLSORT_SHAPE_GROUP void oem_wide_top(CLSORT_ARGS_SORT2(log_jlow, nrow))
{
    __local key_type lk[TILE];
    LOCAL_VALS(lv, TILE);
    const uint t = get_local_id(0);
    const uint log_cols = TILE_LOG - nrow, cmask = (1u << log_cols) - 1;
    /* Group g: column block g mod (jlow / cols) of 2^nrow rows block g / (jlow / cols); a group
     * wholly in the virtual tail returns (uniformly, before any barrier). */
    const idx_t g = get_group_id(0);
    const uint log_blocks = log_jlow - log_cols;
    const idx_t base = ((g >> log_blocks) << (log_jlow + nrow)) |
                       ((g & (((idx_t)1 << log_blocks) - 1)) << log_cols);
    if (base >= n)
        return;
    keys += SEGMENT_BASE();
    IF_VALS(vals += SEGMENT_BASE();)
    for (uint s = t; s < TILE; s += WG_SIZE) {
        const idx_t p = base + ((idx_t)(s >> log_cols) << log_jlow) + (s & cmask);
        lk[s] = p < n ? to_order(keys[p], xf) : KEY_VIRTUAL;
        IF_VALS(lv[s] = p < n ? vals[p] : 0;)
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint c = t; c < TILE / 2; c += WG_SIZE)
        CMPX(lk, lv, c, c + TILE / 2); /* level p */
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = TILE / 4; d > cmask; d >>= 1) {
        for (uint c = t; c < TILE / 2; c += WG_SIZE) {
            const uint lo = (((c & ~(d - 1)) << 1) | (c & (d - 1))) + d; /* bit d set */
            if (lo + d < TILE)
                CMPX(lk, lv, lo, lo + d);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (uint s = t; s < TILE; s += WG_SIZE) {
        const idx_t p = base + ((idx_t)(s >> log_cols) << log_jlow) + (s & cmask);
        if (p < n) {
            keys[p] = from_order(lk[s], xf);
            IF_VALS(vals[p] = lv[s];)
        }
    }
}
#endif

/* (b) One level k < p of the merge with half-size p = 1 << log_p; work-item c is comparator c. */
__kernel CLSORT_SHAPE_GLOBAL void oem_global_level(CLSORT_ARGS_SORT2(log_k, log_p))
{
    const idx_t k = (idx_t)1 << log_k, p = (idx_t)1 << log_p;
    const idx_t lo = insert_zero(get_global_id(0), k) + k, hi = lo + k;
    if (hi >= n || !OEM_PAIR_OK(lo, k, p))
        return;
    global_cmpx(keys + SEGMENT_BASE() VALS_SEGMENT_ARG, lo, hi, xf);
}

/* (c) The end of the merge with half-size p = 2^log_p >= TILE, whose levels p .. TILE have run.
 * Let b = TILE/2. Each residue class mod TILE of the merge block is then sorted (Batcher's merge
 * sorts the classes mod k after its level k). For 0-1 keys, with z_r the zeros of class r:
 * z_r falls with r by at most 2, so the block is sorted except at most two adjacent blocks of b
 * keys, and after level b (classes mod b sorted) the same holds with each of those blocks sorted
 * on its own. Merging every pair of blocks (2i+1, 2i+2), then every pair (2i, 2i+1), therefore
 * sorts the merge block, in either order (docs/kernels.md, "The finish"); the 0-1 tests check it.
 *
 * shifted = 1: windows [b + g*TILE, b + (g+1)*TILE): level b of the odd-even merge, whose
 * comparators x (bit b set) -> x+b all lie in these windows, then a bitonic flip merge of the
 * window's two sorted halves. A window centred on a multiple of 2p straddles two merge blocks:
 * it has no level-b comparator and must not be merged, so it returns (uniformly).
 * shifted = 0: windows [g*TILE, (g+1)*TILE), a flip merge of each.
 * The flip merge is bitonic sort's (docs/kernels.md): minimum below, so any n works as before. */
#define OEM_REG_FINISH FULL_PATHS /* bitonic.cl's register-blocked tile shapes */
__kernel CLSORT_SHAPE_GROUP void oem_finish_tile(CLSORT_ARGS_SORT2(log_p, shifted))
{
    const idx_t first = (idx_t)get_group_id(0) * TILE + (shifted ? TILE / 2 : 0);
    if (shifted && ((first + TILE / 2) & ((((idx_t)2) << log_p) - 1)) == 0)
        return; /* straddles two merge blocks: nothing to do here */
    keys += SEGMENT_BASE();
    IF_VALS(vals += SEGMENT_BASE();)
#if OEM_REG_FINISH
    TILE_LDS_DECL
    key_type k[LOCAL_KEYS];
    IF_VALS(val_type v[LOCAL_KEYS];)
    const uint t = get_local_id(0);
    /* Slots m at base + (m << lay): the top slot bit is position bit TILE/2. */
    layout cur = make_layout_c(t, TILE_LOG - LOCAL_LOG, LOCAL_LOG, shifted ? 0u : 1u);
#if TILE_LOG - LOCAL_LOG >= 5
    REG_LOAD();
#else
    LDS_LOAD();
#endif
    if (shifted) {
        _Pragma("unroll") for (uint m = 0; m < LOCAL_KEYS / 2; ++m)
            CMPX(k, v, m, m + LOCAL_KEYS / 2); /* level TILE/2 of the odd-even merge */
        GROUP_C(TILE_LOG - 1, 1u)              /* into the flip layout, the first group */
    } else {
        GROUP_APPLY(k, v, LOCAL_LOG, 1u);
    }
    GROUPS_AFTER_C(TILE_LOG - 1)
    LDS_STORE();
#else
    /* Any other shape: one comparator per work-item per step in local memory. */
    __local key_type lk[TILE];
    LOCAL_VALS(lv, TILE);
    LOAD_TILE(first, TILE);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (shifted) {
        FOR_EACH_COMPARATOR(c, TILE / 2)
            CMPX(lk, lv, c, c + TILE / 2);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    FOR_EACH_COMPARATOR(c, TILE / 2)
        CMPX(lk, lv, c, TILE - 1 - c);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = TILE / 4; j > 0; j >>= 1) {
        FOR_EACH_COMPARATOR(c, TILE / 2) {
            const uint y = ((c & ~(j - 1)) << 1) | (c & (j - 1));
            CMPX(lk, lv, y, y + j);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    STORE_TILE(first, 0, TILE);
#endif
}
