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
#ifndef CLSORT_ROWS_CL
#include "rows.cl" /* VEC_STEP-key rows as vectors: the CPU shapes below (ROWS_VEC) */
#endif

/* ---- Tile passes, register-blocked --------------------------------------------------------
 * Each work-item holds LOCAL_KEYS = TILE / WG_SIZE keys in registers. A group of up to
 * LOCAL_LOG levels runs on them without a barrier; between groups the keys go through local
 * memory to the positions of the next group. The positions of a group with lowest stride
 * 2^lay and nlev levels are those of bitonic_global below, with the slot bits above nlev
 * numbering independent sub-sets; the comparator pattern is unrolled over compile-time slots and
 * selected by uniform run-time conditions, so the key arrays stay in registers. */
/* A tile of at most 32 keys is sorted by one work-item alone, in registers and without any
 * barrier (SOLO_TILE); WG_SIZE then only says how many such tiles share a work-group. This is
 * the fast shape on CPUs (docs/perf.md). Larger tiles are shared by the WG_SIZE work-items. */
#define SOLO_TILE (TILE <= 32)
#if SOLO_TILE
#define LOCAL_KEYS TILE
#else
#define LOCAL_KEYS (TILE / WG_SIZE)
#endif
#if LOCAL_KEYS >= 32
#define LOCAL_LOG 5
#elif LOCAL_KEYS >= 16
#define LOCAL_LOG 4
#elif LOCAL_KEYS >= 8
#define LOCAL_LOG 3
#elif LOCAL_KEYS >= 4
#define LOCAL_LOG 2
#else
#define LOCAL_LOG 1
#endif
/* Local slots are padded by one word per 32 (LPAD). Work-item t's slot positions are always a
 * base with zero bits where the slot index goes plus (m << lay) (see layout below): the two have
 * no bit in common, so LPAD(base + (m << lay)) = LPAD(base) + LPAD(m << lay), a per-work-item
 * value plus a constant once lay is known at compile time (LAYOUT_LPOS). */
#define LPAD(i) ((i) + ((i) >> 5))
#define LOCAL_SLOTS (TILE + TILE / 32 + 1)
/* log2(TILE), usable in #if. */
#define TILE_LOG                                                                        \
    ((TILE >= 2) + (TILE >= 4) + (TILE >= 8) + (TILE >= 16) + (TILE >= 32) + (TILE >= 64) + \
     (TILE >= 128) + (TILE >= 256) + (TILE >= 512) + (TILE >= 1024) + (TILE >= 2048) +    \
     (TILE >= 4096) + (TILE >= 8192) + (TILE >= 16384) + (TILE >= 32768) + (TILE >= 65536))

/* A group's layout: the positions (within the tile) of work-item t's slots for a group of nlev
 * levels with lowest stride 2^lay, the first of them a flip when flip != 0. Slot m sits at
 * base + (m << lay); with a flip, the upper half of each sub-set sits at the mirror images of the
 * lower half, which in ascending order is the same expression plus a per-work-item constant:
 * mirror(bh) - ((2^nlev-1-l) << lay) = bh + (l << lay) + (2^lay - 1 - 2*low), low being the
 * position bits of base below lay. pbase and pmbase are the padded bases of the two halves. */
typedef struct layout {
    uint base, lay, upper_bit, mirror_add, pbase, pmbase;
} layout;

inline layout finish_layout(const uint base, const uint lay, const uint nlev, const uint flip)
{
    layout L;
    const uint low = base & ((1u << lay) - 1);
    L.base = base;
    L.lay = lay;
    L.upper_bit = flip ? nlev - 1 : 31; /* slot bit that selects the mirrored half; 31: none */
    L.mirror_add = (1u << lay) - 1 - 2 * low;
    L.pbase = LPAD(base);
    L.pmbase = LPAD(base + L.mirror_add);
    return L;
}

/* The plain layout: t's bits below lay at the bottom, the rest above the slot bits. */
inline layout make_layout(const uint t, const uint lay, const uint nlev, const uint flip)
{
    const uint low = t & ((1u << lay) - 1);
    return finish_layout(((t >> lay) << (lay + LOCAL_LOG)) | low, lay, nlev, flip);
}

/* Bank-conflict-free layouts for the compile-time paths (FULL_PATHS below). With LPAD, position
 * bit e < 5 moves a word 2^e banks over, bit e + 5 (< 10) moves it 2^e banks too (through the
 * padding), and bits from 10 up move it by multiples of 32 banks. The
 * plain layout puts the 32 lanes of a warp on bits 0..lay-1 and lay+LOCAL_LOG.., which for
 * 1 <= lay <= 4 gives two lanes the same bank (2-way conflicts on every access of such a
 * trip). Here lane bit e goes to position bit e where that is not a slot bit, else to bit e + 5
 * (never a slot bit when LOCAL_LOG <= 5), so the lanes cover the 32 banks once for every slot m;
 * t's remaining bits fill the free position bits upwards. For 64-bit words the 16 lanes of each
 * half-warp cover 16 word banks the same way. Needs TILE >= 1024 and WG_SIZE >= 32; with lay >= 5
 * the lanes stay on bits 0..4, so direct global loads stay coalesced. */
#define SWIZZLE_LAYOUT (TILE_LOG >= 10 && WG_SIZE >= 32)
inline uint is_slot_bit(const uint j, const uint lay)
{
    return j >= lay && j < lay + LOCAL_LOG;
}

inline layout make_layout_c(const uint t, const uint lay, const uint nlev, const uint flip)
{
#if SWIZZLE_LAYOUT
    uint base = 0;
    _Pragma("unroll") for (uint e = 0; e < 5; ++e)
        base |= ((t >> e) & 1u) << (is_slot_bit(e, lay) ? e + 5 : e);
    uint next = 5; /* the next bit of t to place */
    _Pragma("unroll") for (uint j = 0; j < TILE_LOG; ++j) {
        const uint lane = j < 5 ? !is_slot_bit(j, lay) : (j < 10 && is_slot_bit(j - 5, lay));
        if (!is_slot_bit(j, lay) && !lane) {
            base |= ((t >> next) & 1u) << j;
            ++next;
        }
    }
    return finish_layout(base, lay, nlev, flip);
#else
    return make_layout(t, lay, nlev, flip);
#endif
}

#define LAYOUT_POS(L, m) \
    ((L).base + ((uint)(m) << (L).lay) + ((((uint)(m) >> (L).upper_bit) & 1u) ? (L).mirror_add : 0u))
/* LPAD(LAYOUT_POS(L, m)), as a per-work-item base plus a constant per slot (see LPAD). */
#define LAYOUT_LPOS(L, m) \
    (((((uint)(m) >> (L).upper_bit) & 1u) ? (L).pmbase : (L).pbase) + LPAD((uint)(m) << (L).lay))

/* Runs levels with slot strides 2^(nlev-1) .. 1 on every sub-set of an array of CNT = 2^LG
 * keys, the first level a flip if asked. All loops have compile-time bounds and are unrolled, so
 * every array index is a constant and K, V stay in registers; nlev and flip are uniform. */
#define NET_APPLY_OP(OP, LG, CNT, nlev, flip)                                          \
    do {                                                                                \
        _Pragma("unroll") for (int b_ = (LG) - 1; b_ >= 0; --b_) {                      \
            const uint sb_ = 1u << b_;                                                  \
            if ((uint)b_ < (nlev) && (flip) && (uint)b_ == (nlev) - 1) {                \
                _Pragma("unroll") for (uint m_ = 0; m_ < (CNT); ++m_)                   \
                    if (!(m_ & sb_))                                                    \
                        OP(m_, m_ ^ (2 * sb_ - 1));                                     \
            } else if ((uint)b_ < (nlev)) {                                             \
                _Pragma("unroll") for (uint m_ = 0; m_ < (CNT); ++m_)                   \
                    if (!(m_ & sb_))                                                    \
                        OP(m_, m_ | sb_);                                               \
            }                                                                           \
        }                                                                               \
    } while (0)
/* The operations: slots of the arrays k and v, or whole rows of VEC_STEP columns. */
#define CMPX_SLOTS(a, b) CMPX(k, v, a, b)
#define CMPX_ROWS(a, b)                                                                 \
    _Pragma("unroll") for (uint c_ = 0; c_ < VEC_STEP; ++c_)                            \
        CMPX_LV(k[a][c_], k[b][c_], v[a][c_], v[b][c_])
#define NET_APPLY(K, V, LG, CNT, nlev, flip) NET_APPLY_OP(CMPX_SLOTS, LG, CNT, nlev, flip)
#define GROUP_APPLY(K, V, nlev, flip) NET_APPLY(K, V, LOCAL_LOG, LOCAL_KEYS, nlev, flip)

/* Moves this work-item's keys from the layout `cur` to the layout of the next group, made by
 * MAKE (make_layout or make_layout_c). One barrier: each work-item stores to exactly the slots it
 * loaded in the previous trip, so no other work-item can still be reading them. */
#define REGROUP(MAKE, lay, nlev, flip)                                                  \
    do {                                                                                \
        _Pragma("unroll") for (uint m_ = 0; m_ < LOCAL_KEYS; ++m_) {                    \
            const uint q_ = LAYOUT_LPOS(cur, m_);                                       \
            lk[q_] = k[m_];                                                             \
            IF_VALS(lv[q_] = v[m_];)                                                    \
        }                                                                               \
        cur = MAKE(t, lay, nlev, flip);                                                 \
        barrier(CLK_LOCAL_MEM_FENCE);                                                   \
        _Pragma("unroll") for (uint m_ = 0; m_ < LOCAL_KEYS; ++m_) {                    \
            const uint q_ = LAYOUT_LPOS(cur, m_);                                       \
            k[m_] = lk[q_];                                                             \
            IF_VALS(v[m_] = lv[q_];)                                                    \
        }                                                                               \
    } while (0)

/* Direct loads from global memory into this work-item's registers in the layout `cur`: used
 * where the layout's lowest stride is at least 32, so that neighbouring work-items read
 * neighbouring keys (coalesced). The contiguous layout (work-item t holding t*LOCAL_KEYS + m) is
 * not coalesced; it goes through local memory instead (LDS_LOAD / LDS_STORE): measured on an
 * H200, direct contiguous loads and stores made the tile passes 1.2-2.4x slower. */
#define REG_LOAD()                                                                      \
    _Pragma("unroll") for (uint m_ = 0; m_ < LOCAL_KEYS; ++m_) {                        \
        const idx_t p_ = first + LAYOUT_POS(cur, m_);                                   \
        k[m_] = p_ < n ? to_order(keys[p_], xf) : KEY_VIRTUAL;                          \
        IF_VALS(v[m_] = p_ < n ? vals[p_] : 0;)                                         \
    }
#define REG_STORE()                                                                     \
    _Pragma("unroll") for (uint m_ = 0; m_ < LOCAL_KEYS; ++m_) {                        \
        const idx_t p_ = first + LAYOUT_POS(cur, m_);                                   \
        if (p_ < n) {                                                                   \
            keys[p_] = from_order(k[m_], xf);                                           \
            IF_VALS(vals[p_] = v[m_];)                                                  \
        }                                                                               \
    }
#define LDS_LOAD()                                                                      \
    for (uint s_ = t; s_ < TILE; s_ += WG_SIZE) {                                       \
        const idx_t p_ = first + s_;                                                    \
        lk[LPAD(s_)] = p_ < n ? to_order(keys[p_], xf) : KEY_VIRTUAL;                   \
        IF_VALS(lv[LPAD(s_)] = p_ < n ? vals[p_] : 0;)                                  \
    }                                                                                   \
    barrier(CLK_LOCAL_MEM_FENCE);                                                       \
    _Pragma("unroll") for (uint m_ = 0; m_ < LOCAL_KEYS; ++m_) {                        \
        k[m_] = lk[LAYOUT_LPOS(cur, m_)];                                               \
        IF_VALS(v[m_] = lv[LAYOUT_LPOS(cur, m_)];)                                      \
    }
#define LDS_STORE()                                                                     \
    _Pragma("unroll") for (uint m_ = 0; m_ < LOCAL_KEYS; ++m_) {                        \
        lk[LAYOUT_LPOS(cur, m_)] = k[m_];                                               \
        IF_VALS(lv[LAYOUT_LPOS(cur, m_)] = v[m_];)                                      \
    }                                                                                   \
    barrier(CLK_LOCAL_MEM_FENCE);                                                       \
    for (uint s_ = t; s_ < TILE; s_ += WG_SIZE) {                                       \
        const idx_t p_ = first + s_;                                                    \
        if (p_ < n) {                                                                   \
            keys[p_] = from_order(lk[LPAD(s_)], xf);                                    \
            IF_VALS(vals[p_] = lv[LPAD(s_)];)                                           \
        }                                                                               \
    }

/* A solo tile's keys are contiguous: plain addressing that a CPU compiler vectorises (the
 * layout arithmetic of LAYOUT_POS, with its run-time shifts, made PoCL 10x slower). */
#define SOLO_LOAD()                                                                     \
    const bool all_in_ = first + TILE <= n;                                             \
    _Pragma("unroll") for (uint m_ = 0; m_ < TILE; ++m_) {                              \
        const idx_t p_ = first + m_;                                                    \
        k[m_] = (all_in_ || p_ < n) ? to_order(keys[p_], xf) : KEY_VIRTUAL;             \
        IF_VALS(v[m_] = (all_in_ || p_ < n) ? vals[p_] : 0;)                            \
    }
#define SOLO_STORE()                                                                    \
    _Pragma("unroll") for (uint m_ = 0; m_ < TILE; ++m_) {                              \
        const idx_t p_ = first + m_;                                                    \
        if (all_in_ || p_ < n) {                                                        \
            keys[p_] = from_order(k[m_], xf);                                           \
            IF_VALS(vals[p_] = v[m_];)                                                  \
        }                                                                               \
    }

/* Runs the levels with strides jtop, jtop/2, ..., 1 of one merge (a flip first when flip), in
 * groups of up to LOCAL_LOG levels; the keys start in the layout `cur`. */
#define RUN_LEVELS(jtop_log, flip0)                                                     \
    do {                                                                                \
        int lvl_ = (int)(jtop_log);         /* log2 of the next stride to run */        \
        uint fl_ = (flip0);                                                             \
        while (lvl_ >= 0) {                                                             \
            const uint nl_ = (uint)min(lvl_ + 1, LOCAL_LOG);                            \
            const uint lay_ = (uint)lvl_ + 1 - nl_;                                     \
            REGROUP(make_layout, lay_, nl_, fl_);                                       \
            GROUP_APPLY(k, v, nl_, fl_);                                                \
            fl_ = 0;                                                                    \
            lvl_ -= (int)nl_;                                                           \
        }                                                                               \
    } while (0)

/* The compile-time paths. In practice bitonic_sort_tile runs with kmax == TILE (whenever n >= TILE)
 * and bitonic_merge_tile always with jmax == TILE/2. For those the kernels take a uniform branch
 * in which the preprocessor writes out every group: each group's lay, level count and flip are
 * then constants, each local access is a per-work-item base plus a constant (LAYOUT_LPOS), no
 * predicate of NET_APPLY_OP survives, and the layouts are the bank-conflict-free ones
 * (make_layout_c). (A loop over the groups with compile-time bounds is not enough: clang refuses
 * to unroll it fully, "unrolled size is too large", before the constants have shrunk its body.)
 * The run-time path stays for the other cases (n < TILE). These need WG_SIZE * LOCAL_KEYS ==
 * TILE (a WG_SIZE that is not a power of two breaks it) and at least 8 keys per work-item, so that
 * a merge has at most 6 groups (TILE_LOG <= 16). */
#define FULL_PATHS (!SOLO_TILE && LOCAL_LOG >= 3 && (WG_SIZE << LOCAL_LOG) == TILE)
/* The group whose highest level has stride 2^lvl: its level count and lowest stride, as RUN_LEVELS
 * picks them. GROUP_C runs it, or nothing when lvl < 0 (a merge with fewer groups; the clamped
 * values only keep the dead branch well-formed). */
#define LVL_C_(lvl) ((lvl) < 0 ? 0 : (lvl))
#define NL_C(lvl) (LVL_C_(lvl) + 1 < LOCAL_LOG ? LVL_C_(lvl) + 1 : LOCAL_LOG)
#define LAY_C(lvl) (LVL_C_(lvl) + 1 - NL_C(lvl))
#define GROUP_C(lvl, flip)                                                              \
    if ((lvl) >= 0) {                                                                   \
        REGROUP(make_layout_c, (uint)LAY_C(lvl), (uint)NL_C(lvl), flip);                \
        GROUP_APPLY(k, v, (uint)NL_C(lvl), flip);                                       \
    }
/* Groups 2..6 of a merge whose first group has its highest level at stride 2^top. */
#define GROUPS_AFTER_C(top)                                                             \
    GROUP_C((top) - LOCAL_LOG, 0u)                                                      \
    GROUP_C((top) - 2 * LOCAL_LOG, 0u)                                                  \
    GROUP_C((top) - 3 * LOCAL_LOG, 0u)                                                  \
    GROUP_C((top) - 4 * LOCAL_LOG, 0u)                                                  \
    GROUP_C((top) - 5 * LOCAL_LOG, 0u)
/* The merge of blocks of 2^kk keys (strides 2^(kk-1) .. 1, the first a flip), in groups. */
#define MERGE_C(kk)                                                                     \
    GROUP_C((kk) - 1, 1u)                                                               \
    GROUPS_AFTER_C((kk) - 1)

#if SOLO_TILE
#define TILE_LDS_DECL
#else
#define TILE_LDS_DECL                                                                   \
    __local key_type lk[LOCAL_SLOTS];                                                   \
    LOCAL_VALS(lv, LOCAL_SLOTS);
#endif
#define TILE_PROLOGUE()                                                                 \
    TILE_LDS_DECL                                                                       \
    key_type k[LOCAL_KEYS];                                                             \
    IF_VALS(val_type v[LOCAL_KEYS];)                                                    \
    const uint t = SOLO_TILE ? 0 : get_local_id(0);                                     \
    keys += SEGMENT_BASE();                                                             \
    IF_VALS(vals += SEGMENT_BASE();)                                                    \
    const idx_t first = (idx_t)(SOLO_TILE ? get_global_id(0) : get_group_id(0)) * TILE

/* The transposition network's program needs only bitonic_merge_tile (CLSORT_NET 2: the host
 * passes the network; leaving the rest out saves PoCL seconds of compiling), and the odd-even
 * merge's program only the tile machinery above, for oem_finish_tile (CLSORT_NET 1). */
#if !defined(CLSORT_NET) || CLSORT_NET == 0
/* (a) Sorts each tile of TILE keys: merges of block size 2..kmax (kmax <= TILE, a power of two;
 * smaller when the whole input is smaller than a tile). Merges up to LOCAL_KEYS run inside
 * each work-item's contiguous keys without any barrier. */
__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1)))
void bitonic_sort_tile(__global key_type *restrict keys VALS_PARAM, const idx_t n, const uint xf,
                       const uint kmax)
{
    TILE_PROLOGUE();
    layout cur = make_layout(t, 0, LOCAL_LOG, 0); /* contiguous: t*LOCAL_KEYS + m */
    const uint kin = min(kmax, (uint)LOCAL_KEYS);
#if SOLO_TILE
#if ROWS_VEC && VEC_STEP == TILE
    /* The CPU shape: the tile is one vector row, sorted by a network between its lanes. */
    if (kmax == TILE) {
        key_row kr;
        IF_VALS(val_row vr;)
        if (first + TILE <= n) {
            ROW_LOAD(kr, vr, first, 1);
            ROW_SORT(kr, vr);
            ROW_STORE(kr, vr, first, 1);
        } else {
            ROW_LOAD(kr, vr, first, 0);
            ROW_SORT(kr, vr);
            ROW_STORE(kr, vr, first, 0);
        }
        return;
    }
#endif
    /* The whole tile is in this work-item's registers: no local memory, no barrier (and no
     * dead barrier code for PoCL to compile). */
    SOLO_LOAD();
    for (uint kk = 1; (1u << kk) <= kin; ++kk)
        GROUP_APPLY(k, v, kk, 1u);
    SOLO_STORE();
#else
#if FULL_PATHS
    if (kmax == TILE) {
        /* Every merge of the tile, each group written out (MERGE_C). */
        cur = make_layout_c(t, 0, LOCAL_LOG, 0);
        LDS_LOAD();
        _Pragma("unroll") for (uint kk = 1; kk <= LOCAL_LOG; ++kk)
            GROUP_APPLY(k, v, kk, 1u);
#if LOCAL_LOG < 4 && TILE_LOG >= 4
        MERGE_C(4)
#endif
#if LOCAL_LOG < 5 && TILE_LOG >= 5
        MERGE_C(5)
#endif
#if LOCAL_LOG < 6 && TILE_LOG >= 6
        MERGE_C(6)
#endif
#if LOCAL_LOG < 7 && TILE_LOG >= 7
        MERGE_C(7)
#endif
#if LOCAL_LOG < 8 && TILE_LOG >= 8
        MERGE_C(8)
#endif
#if LOCAL_LOG < 9 && TILE_LOG >= 9
        MERGE_C(9)
#endif
#if LOCAL_LOG < 10 && TILE_LOG >= 10
        MERGE_C(10)
#endif
#if LOCAL_LOG < 11 && TILE_LOG >= 11
        MERGE_C(11)
#endif
#if LOCAL_LOG < 12 && TILE_LOG >= 12
        MERGE_C(12)
#endif
#if LOCAL_LOG < 13 && TILE_LOG >= 13
        MERGE_C(13)
#endif
#if LOCAL_LOG < 14 && TILE_LOG >= 14
        MERGE_C(14)
#endif
#if LOCAL_LOG < 15 && TILE_LOG >= 15
        MERGE_C(15)
#endif
#if LOCAL_LOG < 16 && TILE_LOG >= 16
        MERGE_C(16)
#endif
        LDS_STORE();
    } else
#endif
    {
        LDS_LOAD();
        for (uint kk = 1; (1u << kk) <= kin; ++kk)
            GROUP_APPLY(k, v, kk, 1u);
        for (uint kk = LOCAL_LOG + 1; (1u << kk) <= kmax; ++kk)
            RUN_LEVELS(kk - 1, 1u);
        LDS_STORE();
    }
#endif
}

#endif /* CLSORT_NET == 0 */

#if !defined(CLSORT_NET) || CLSORT_NET != 1
/* Lane exchange (issue 11's warp-shuffle experiment; CLSORT_LANES, set through
 * $CLSORT_BUILD_OPTIONS): bitonic_merge_tile's last five levels (strides 16 .. 1) run between
 * the 32 lanes of a warp, with each lane holding positions whose bits 0..4 are its lane number,
 * instead of in registers after a trip through local memory; the keys then go to global memory
 * straight from registers, coalesced, and the final trip through local memory goes too. One
 * REGROUP instead of three trips, but a shuffle per key per level (80 at 16 keys a work-item)
 * instead of 64 local accesses. Measured on the H200: 1.5-2.2x slower a launch than the default
 * path, so nothing sets it (docs/perf.md, "Warp shuffles", has the prediction and the numbers).
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
__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1)))
void bitonic_merge_tile(__global key_type *restrict keys VALS_PARAM, const idx_t n, const uint xf,
                        const uint jmax)
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
        cur = make_layout_c(t, TILE_LOG - LOCAL_LOG, LOCAL_LOG, 0);
#if TILE_LOG - LOCAL_LOG >= 5
        REG_LOAD();
#else
        LDS_LOAD();
#endif
        GROUP_APPLY(k, v, LOCAL_LOG, 0u);
        GROUPS_AFTER_C(TILE_LOG - 1)
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

#endif /* CLSORT_NET != 1 */

/* (b) R fused levels with strides jlow << (R-1), ..., jlow, the first one a flip when `flip`.
 *
 * Work-item t owns 2^R keys, kept in private memory in ascending order of position. Without a
 * flip they sit at base + m*jlow (base = t with R zero bits inserted at bit log2(jlow)), and the
 * levels are half-cleaners on slot strides 2^(R-1), ..., 1. With a flip (merge block 2*jhigh),
 * the lower half sits at base + m*jlow and the upper half at the mirror images, which in ascending
 * order are mirror(base) - (2^R-1-m)*jlow; the flip then pairs slot m with slot 2^R-1-m, and the
 * half-cleaners pair slots by xor as before. The set is closed under all R levels, so one load and
 * one store serve R levels. */
#if !defined(CLSORT_NET) || CLSORT_NET == 0
/* Loads and stores of a global pass's rows; ALL_IN: every position is known to be below n. */
#define GLOBAL_ROWS_LOAD(ALL_IN)                                                        \
    _Pragma("unroll") for (uint m = 0; m < KEYS_PER_ITEM; ++m) {                        \
        if (m >= cnt)                                                                   \
            break;                                                                      \
        _Pragma("unroll") for (uint c = 0; c < VEC_STEP; ++c) {                         \
            const idx_t p = POS_(m, c);                                                 \
            k[m][c] = (ALL_IN || p < n) ? to_order(keys[p], xf) : KEY_VIRTUAL;         \
            IF_VALS(v[m][c] = (ALL_IN || p < n) ? vals[p] : 0;)                         \
        }                                                                               \
    }
#define GLOBAL_ROWS_STORE(ALL_IN)                                                       \
    _Pragma("unroll") for (uint m = 0; m < KEYS_PER_ITEM; ++m) {                        \
        if (m >= cnt)                                                                   \
            break;                                                                      \
        _Pragma("unroll") for (uint c = 0; c < VEC_STEP; ++c) {                         \
            const idx_t p = POS_(m, c);                                                 \
            if (ALL_IN || p < n) {                                                      \
                keys[p] = from_order(k[m][c], xf);                                      \
                IF_VALS(vals[p] = v[m][c];)                                             \
            }                                                                           \
        }                                                                               \
    }

/* With VEC_STEP == TILE (<= 32) and lowest stride TILE, each row a work-item holds is a whole
 * tile: the tile's half-cleaners (TILE/2 .. 1) can follow in registers, and the merge needs no
 * bitonic_merge_tile launch (TAIL). */
#define CMPX_COLS(m, a, b) CMPX_LV(k[m][a], k[m][b], v[m][a], v[m][b])
/* A flip's upper rows hold their tile in reverse (column c at position P0 - c), so there the
 * higher column is the lower position. */
#define ROW_HALF_CLEANERS()                                                             \
    _Pragma("unroll") for (uint s_ = VEC_STEP / 2; s_ > 0; s_ >>= 1)                    \
        _Pragma("unroll") for (uint m_ = 0; m_ < KEYS_PER_ITEM; ++m_)                   \
            if (m_ < cnt)                                                               \
                _Pragma("unroll") for (uint c_ = 0; c_ < VEC_STEP; ++c_)                \
                    if (!(c_ & s_)) {                                                   \
                        if (FLIP && m_ >= hcnt)                                         \
                            CMPX_COLS(m_, c_ | s_, c_);                                 \
                        else                                                            \
                            CMPX_COLS(m_, c_, c_ | s_);                                 \
                    }

#if ROWS_VEC
/* The CPU shape (VEC_STEP >= 2): each of a work-item's 2^R rows is one vector of VEC_STEP
 * adjacent keys (rows.cl). A flip's upper rows run downwards (column c at the row's top minus c),
 * so they are loaded from their lowest position and reversed, which keeps lane c = column c in
 * every row, and the row levels compare whole vectors. Before the store they are turned back, so
 * that the tail's half-cleaners (TAIL) run on every row in position order. */
static inline __attribute__((always_inline)) void bitonic_global(const uint R, const uint FLIP,
                                                                 const uint TAIL,
                                                                 __global key_type *restrict keys
                                                                 VALS_PARAM, const idx_t n, const uint xf, const uint log_jlow)
{
    key_row k[KEYS_PER_ITEM];
    IF_VALS(val_row v[KEYS_PER_ITEM];)
    const uint cnt = 1u << R, hcnt = cnt >> 1;
    const idx_t t = (idx_t)get_global_id(0) * VEC_STEP;
    const idx_t jlow = (idx_t)1 << log_jlow;
    const idx_t base = ((t >> log_jlow) << (log_jlow + R)) | (t & (jlow - 1));
    const idx_t mirror = base ^ ((jlow << R) - 1);
    keys += SEGMENT_BASE();
    IF_VALS(vals += SEGMENT_BASE();)
    /* Row m's lowest position. */
#define ROW_AT_(m) ((FLIP && (m) >= hcnt) ? mirror - (idx_t)(cnt - 1 - (m)) * jlow - (VEC_STEP - 1) : base + (idx_t)(m) * jlow)
#define ROWS_PASS_(ALL_IN)                                                              \
    do {                                                                                \
        _Pragma("unroll") for (uint m = 0; m < KEYS_PER_ITEM; ++m) {                    \
            if (m >= cnt)                                                               \
                break;                                                                  \
            ROW_LOAD(k[m], v[m], ROW_AT_(m), ALL_IN);                                   \
            if (FLIP && m >= hcnt) {                                                    \
                k[m] = ROW_REVERSE(k[m]);                                               \
                IF_VALS(v[m] = ROW_REVERSE(v[m]);)                                      \
            }                                                                           \
        }                                                                               \
        NET_APPLY_OP(CMPX_VROWS, R, (1u << R), R, FLIP);                                \
        _Pragma("unroll") for (uint m = 0; m < KEYS_PER_ITEM; ++m) {                    \
            if (m >= cnt)                                                               \
                break;                                                                  \
            if (FLIP && m >= hcnt) {                                                    \
                k[m] = ROW_REVERSE(k[m]);                                               \
                IF_VALS(v[m] = ROW_REVERSE(v[m]);)                                      \
            }                                                                           \
            if (TAIL) {                                                                 \
                ROW_CLEAN(k[m], v[m]);                                                  \
            }                                                                           \
            ROW_STORE(k[m], v[m], ROW_AT_(m), ALL_IN);                                  \
        }                                                                               \
    } while (0)
#define CMPX_VROWS(a, b) ROW_CMPX(k[a], k[b], v[a], v[b])
    /* The largest position: the last row's last column, or with a flip the mirror of base. */
    const idx_t maxpos = FLIP ? mirror : base + (idx_t)(cnt - 1) * jlow + (VEC_STEP - 1);
    if (maxpos < n)
        ROWS_PASS_(1);
    else
        ROWS_PASS_(0);
#undef CMPX_VROWS
#undef ROWS_PASS_
#undef ROW_AT_
}
#else
static inline __attribute__((always_inline)) void bitonic_global(const uint R, const uint FLIP,
                                                                 const uint TAIL,
                                                                 __global key_type *restrict keys
                                                                 VALS_PARAM, const idx_t n, const uint xf, const uint log_jlow)
{
    /* VEC_STEP adjacent columns per work-item: the same slot of neighbouring columns sits at
     * neighbouring positions (reversed in a flip's upper half), which a CPU vectorises. */
    key_type k[KEYS_PER_ITEM][VEC_STEP];
    IF_VALS(val_type v[KEYS_PER_ITEM][VEC_STEP];)
    const uint cnt = 1u << R, hcnt = cnt >> 1;
    const idx_t t = (idx_t)get_global_id(0) * VEC_STEP;
    const idx_t jlow = (idx_t)1 << log_jlow;
    const idx_t base = ((t >> log_jlow) << (log_jlow + R)) | (t & (jlow - 1));
#if VEC_STEP == 1
    /* Work-items wholly in the virtual tail have nothing to do. (With several columns per
     * work-item the per-key checks below suffice, and a CPU vectorises better without it.) */
    if (base >= n)
        return;
#endif
    const idx_t mirror = base ^ ((jlow << R) - 1);
    keys += SEGMENT_BASE();
    IF_VALS(vals += SEGMENT_BASE();)
#define POS_(m, c) ((FLIP && (m) >= hcnt) ? mirror - (idx_t)(cnt - 1 - (m)) * jlow - (c) : base + (idx_t)(m) * jlow + (c))
    /* Work-items whose keys all lie below n (all but the tail) skip the per-key checks, which
     * cost PoCL 3-6x per pass (docs/perf.md). The largest position is the last row's last
     * column, or with a flip the mirror of base. */
    const idx_t maxpos = FLIP ? mirror : base + (idx_t)(cnt - 1) * jlow + (VEC_STEP - 1);
    if (maxpos < n) {
        GLOBAL_ROWS_LOAD(1);
        NET_APPLY_OP(CMPX_ROWS, R, (1u << R), R, FLIP);
        if (TAIL)
            ROW_HALF_CLEANERS();
        GLOBAL_ROWS_STORE(1);
    } else {
        GLOBAL_ROWS_LOAD(0);
        NET_APPLY_OP(CMPX_ROWS, R, (1u << R), R, FLIP);
        if (TAIL)
            ROW_HALF_CLEANERS();
        GLOBAL_ROWS_STORE(0);
    }
#undef POS_
}
#endif /* ROWS_VEC */

#undef GLOBAL_ROWS_LOAD
#undef GLOBAL_ROWS_STORE

/* bitonic_global_rR: R half-cleaner levels; bitonic_flip_rR: a flip level and R-1 half-cleaners;
 * the _tail_ variants also run the tile's half-cleaners. The flip is a compile-time choice so
 * that each kernel's addressing is fixed. */
#define BITONIC_GLOBAL_KERNEL_(name, R, FLIP, TAIL)                                              \
    __kernel void name(__global key_type *restrict keys VALS_PARAM, const idx_t n, const uint xf,  \
                       const uint log_jlow)                                                        \
    {                                                                                              \
        bitonic_global(R, FLIP, TAIL, keys VALS_ARG, n, xf, log_jlow);                             \
    }
#if VEC_STEP == TILE && TILE <= 32
#define BITONIC_GLOBAL_KERNEL(R)                                                                   \
    BITONIC_GLOBAL_KERNEL_(bitonic_global_r##R, R, 0, 0)                                           \
    BITONIC_GLOBAL_KERNEL_(bitonic_flip_r##R, R, 1, 0)                                             \
    BITONIC_GLOBAL_KERNEL_(bitonic_global_tail_r##R, R, 0, 1)                                      \
    BITONIC_GLOBAL_KERNEL_(bitonic_flip_tail_r##R, R, 1, 1)
#else
#define BITONIC_GLOBAL_KERNEL(R)                                                                   \
    BITONIC_GLOBAL_KERNEL_(bitonic_global_r##R, R, 0, 0)                                           \
    BITONIC_GLOBAL_KERNEL_(bitonic_flip_r##R, R, 1, 0)
#endif

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

#endif /* CLSORT_NET == 0 */

/* ---- Wide global passes: a work-group merges a virtual tile through local memory ------------
 * bitonic_wide / bitonic_wide_flip run `nrow` levels with strides jlow << (nrow-1), ..., jlow
 * (jlow >= TILE) in one pass, the first a flip in bitonic_wide_flip: up to log2(TILE / 16)
 * levels (8 at TILE 4096) where bitonic_global_rN runs log2(KEYS_PER_ITEM) (docs/kernels.md).
 *
 * A work-group holds a virtual tile of TILE keys: 2^nrow rows spaced by jlow, each of
 * cols = TILE >> nrow contiguous columns (at least 16 keys: whole 64-byte runs in every load).
 * Row bits are exactly the stride bits of the pass, so its half-cleaners pair row r with row
 * r | 2^i, and a flip (merge block jlow << nrow) pairs row r with row 2^nrow-1-r when the upper
 * half's rows sit at the mirror positions, as in bitonic_global (their columns then run in
 * reverse, which does not matter: no comparator crosses columns). In these logical rows every
 * comparator puts the minimum in the lower row, which is always the lower position.
 *
 * Work-item t owns one column (t mod cols) and WIDE_KEYS rows, selected by its slot bits m: the
 * first group takes the top WIDE_LOG row bits straight from global memory (neighbouring
 * work-items read neighbouring columns) and runs its levels in registers; each later group
 * exchanges the keys through local memory so that the slots cover the next lower row bits. The
 * keys are stored to global memory from the last group's registers. Kept apart from the tile
 * macros above (which are rewritten independently): the same technique, over rows. */
#if (!defined(CLSORT_NET) || CLSORT_NET == 0) && TILE > 32 && WG_SIZE >= 16
#define WIDE_KEYS (TILE / WG_SIZE) /* keys per work-item: 2..32 (checked by params.c) */
#if WIDE_KEYS >= 32
#define WIDE_LOG 5
#elif WIDE_KEYS >= 16
#define WIDE_LOG 4
#elif WIDE_KEYS >= 8
#define WIDE_LOG 3
#elif WIDE_KEYS >= 4
#define WIDE_LOG 2
#else
#define WIDE_LOG 1
#endif
/* One padding word per 32, as the tile passes: later groups' slots are WIDE_KEYS rows apart. */
#define WIDE_PAD(i) ((i) + ((i) >> 5))
#define WIDE_SLOTS (TILE + TILE / 32 + 1)

/* The rows of work-item u's slots (u: its index among the work-items of one column) for a group
 * whose lowest row bit is `lay`: slot m is row base | (m << lay). In a flip group the upper half's
 * slots hold the complement rows, so that a row and its flip partner 2^nrow-1-row share a
 * work-item (slot m and slot m ^ (WIDE_KEYS-1)). */
typedef struct wide_layout {
    uint base, lay, flipmask;
} wide_layout;

inline wide_layout make_wide_layout(const uint u, const uint lay, const uint flip)
{
    wide_layout W;
    W.base = ((u >> lay) << (lay + WIDE_LOG)) | (u & ((1u << lay) - 1));
    W.lay = lay;
    W.flipmask = flip ? (1u << lay) - 1 : 0;
    return W;
}

#define WIDE_ROW(W, m) \
    (((W).base | ((uint)(m) << (W).lay)) ^ ((((uint)(m) >> (WIDE_LOG - 1)) & 1u) ? (W).flipmask : 0u))

/* Levels with slot strides 2^(nlev-1) .. 1 of the WIDE_KEYS slots, the first a flip if asked;
 * compile-time slot indices (unrolled), so k and v stay in registers. */
#define WIDE_APPLY(nlev, flip)                                                          \
    do {                                                                                \
        _Pragma("unroll") for (int b_ = WIDE_LOG - 1; b_ >= 0; --b_) {                  \
            const uint sb_ = 1u << b_;                                                  \
            if ((uint)b_ < (nlev) && (flip) && (uint)b_ == (nlev) - 1) {                \
                _Pragma("unroll") for (uint m_ = 0; m_ < WIDE_KEYS; ++m_)               \
                    if (!(m_ & sb_))                                                    \
                        CMPX(k, v, m_, m_ ^ (2 * sb_ - 1));                             \
            } else if ((uint)b_ < (nlev)) {                                             \
                _Pragma("unroll") for (uint m_ = 0; m_ < WIDE_KEYS; ++m_)               \
                    if (!(m_ & sb_))                                                    \
                        CMPX(k, v, m_, m_ | sb_);                                       \
            }                                                                           \
        }                                                                               \
    } while (0)

/* The global position of logical row r, this work-item's column. */
#define WIDE_POS(r)                                                                     \
    ((FLIP && (r) >= upper) ? (base + (idx_t)(rows - 1 - (r)) * jlow + col) ^ mirror     \
                           : base + (idx_t)(r) * jlow + col)

#if VAL_BYTES
#define WIDE_LV_PARAM , __local val_type *lv
#define WIDE_LV_ARG , lv
#else
#define WIDE_LV_PARAM
#define WIDE_LV_ARG
#endif
static inline __attribute__((always_inline)) void
bitonic_wide_body(const uint FLIP, __local key_type *lk WIDE_LV_PARAM,
                  __global key_type *restrict keys VALS_PARAM, const idx_t n, const uint xf,
                  const uint log_jlow, const uint nrow)
{
    key_type k[WIDE_KEYS];
    IF_VALS(val_type v[WIDE_KEYS];)
    const uint t = get_local_id(0);
    /* TILE = cols * 2^nrow; log2(TILE) from the compile-time constant. */
    const uint log_cols = (31 - clz((uint)TILE)) - nrow;
    const uint col = t & ((1u << log_cols) - 1), u = t >> log_cols;
    /* Group g: column block g mod (jlow / cols) of the strided rows, block of 2^nrow rows
     * g / (jlow / cols). Its lowest position is row 0, column 0: a group wholly in the virtual
     * tail has nothing to do (uniform, before any barrier). */
    const idx_t g = get_group_id(0);
    const uint log_blocks = log_jlow - log_cols;
    const idx_t base = ((g >> log_blocks) << (log_jlow + nrow)) |
                       ((g & (((idx_t)1 << log_blocks) - 1)) << log_cols);
    if (base >= n)
        return;
    keys += SEGMENT_BASE();
    IF_VALS(vals += SEGMENT_BASE();)
    const idx_t jlow = (idx_t)1 << log_jlow;
    const idx_t mirror = (jlow << nrow) - 1;
    const uint rows = 1u << nrow, upper = rows >> 1; /* the first row of the upper half */

    /* First group: the top WIDE_LOG row bits, the flip among them. */
    wide_layout cur = make_wide_layout(u, nrow - WIDE_LOG, FLIP);
    _Pragma("unroll") for (uint m = 0; m < WIDE_KEYS; ++m) {
        const uint r = WIDE_ROW(cur, m);
        const idx_t p = WIDE_POS(r);
        k[m] = p < n ? to_order(keys[p], xf) : KEY_VIRTUAL;
        IF_VALS(v[m] = p < n ? vals[p] : 0;)
    }
    WIDE_APPLY(WIDE_LOG, FLIP);
    /* The remaining nrow - WIDE_LOG levels, up to WIDE_LOG per trip through local memory. A
     * local slot (row, col) is written and later read by the one work-item that holds it, so one
     * barrier per trip suffices. */
    int lvl = (int)nrow - WIDE_LOG - 1; /* log2 of the next row stride to run */
    while (lvl >= 0) {
        const uint nl = (uint)min(lvl + 1, WIDE_LOG);
        _Pragma("unroll") for (uint m = 0; m < WIDE_KEYS; ++m) {
            const uint q = WIDE_PAD((WIDE_ROW(cur, m) << log_cols) | col);
            lk[q] = k[m];
            IF_VALS(lv[q] = v[m];)
        }
        cur = make_wide_layout(u, (uint)lvl + 1 - nl, 0);
        barrier(CLK_LOCAL_MEM_FENCE);
        _Pragma("unroll") for (uint m = 0; m < WIDE_KEYS; ++m) {
            const uint q = WIDE_PAD((WIDE_ROW(cur, m) << log_cols) | col);
            k[m] = lk[q];
            IF_VALS(v[m] = lv[q];)
        }
        WIDE_APPLY(nl, 0u);
        lvl -= (int)nl;
    }
    _Pragma("unroll") for (uint m = 0; m < WIDE_KEYS; ++m) {
        const uint r = WIDE_ROW(cur, m);
        const idx_t p = WIDE_POS(r);
        if (p < n) {
            keys[p] = from_order(k[m], xf);
            IF_VALS(vals[p] = v[m];)
        }
    }
}
#undef WIDE_POS

/* One work-group of WG_SIZE work-items per virtual tile: N / TILE groups per array, jlow >= TILE,
 * nrow in [WIDE_LOG, log2(TILE / 16)] (host/schedule.c). Local memory is declared here: OpenCL C
 * allows __local variables only at kernel scope. */
#define BITONIC_WIDE_KERNEL_(name, FLIP)                                                    \
    __kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1)))                           \
    void name(__global key_type *restrict keys VALS_PARAM, const idx_t n, const uint xf,      \
              const uint log_jlow, const uint nrow)                                         \
    {                                                                                       \
        __local key_type lk[WIDE_SLOTS];                                                    \
        LOCAL_VALS(lv, WIDE_SLOTS);                                                         \
        bitonic_wide_body(FLIP, lk WIDE_LV_ARG, keys VALS_ARG, n, xf, log_jlow, nrow);      \
    }
BITONIC_WIDE_KERNEL_(bitonic_wide, 0u)
BITONIC_WIDE_KERNEL_(bitonic_wide_flip, 1u)
#endif /* wide passes */

#endif /* CLSORT_BITONIC_CL */
