/* tile.cl - the register-blocked tile machinery that bitonic's tile passes (bitonic_sort.cl,
 * bitonic_merge.cl) and the odd-even merge's finish (oddeven_merge.cl) run on: layouts of a tile
 * over work-items and registers, the comparator networks on registers, the trips through local
 * memory between groups of levels, and the loads and stores of a tile. Defines only; no kernel.
 * Follows common.cl and rows.cl in every program that holds it (manifest.h, CLSORT_PARTS_*). */

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
#define SOLO_TILE CLSORT_WHEN_SOLO
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

/* This work-item's slots of the layout `cur`: from local memory into its registers, and back. */
#define SLOTS_FROM_LDS()                                                                \
    _Pragma("unroll") for (uint m_ = 0; m_ < LOCAL_KEYS; ++m_) {                        \
        const uint q_ = LAYOUT_LPOS(cur, m_);                                           \
        k[m_] = lk[q_];                                                                 \
        IF_VALS(v[m_] = lv[q_];)                                                        \
    }
#define SLOTS_TO_LDS()                                                                  \
    _Pragma("unroll") for (uint m_ = 0; m_ < LOCAL_KEYS; ++m_) {                        \
        const uint q_ = LAYOUT_LPOS(cur, m_);                                           \
        lk[q_] = k[m_];                                                                 \
        IF_VALS(lv[q_] = v[m_];)                                                        \
    }

/* Moves this work-item's keys from the layout `cur` to the layout of the next group, made by
 * MAKE (make_layout or make_layout_c). One barrier: each work-item stores to exactly the slots it
 * loaded in the previous trip, so no other work-item can still be reading them. */
#define REGROUP(MAKE, lay, nlev, flip)                                                  \
    do {                                                                                \
        SLOTS_TO_LDS();                                                                 \
        cur = MAKE(t, lay, nlev, flip);                                                 \
        barrier(CLK_LOCAL_MEM_FENCE);                                                   \
        SLOTS_FROM_LDS();                                                               \
    } while (0)

/* Direct loads from global memory into this work-item's registers in the layout `cur`: used
 * where the layout's lowest stride is at least 32, so that neighbouring work-items read
 * neighbouring keys (coalesced). The contiguous layout (work-item t holding t*LOCAL_KEYS + m) is
 * not coalesced; it goes through local memory instead (LDS_LOAD / LDS_STORE): on GPUs, direct
 * contiguous loads and stores measured slower in every tile pass. */
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
    SLOTS_FROM_LDS()
/* The tile in local memory (after a barrier) to global memory, coalesced. */
#define LDS_TO_GLOBAL()                                                                 \
    for (uint s_ = t; s_ < TILE; s_ += WG_SIZE) {                                       \
        const idx_t p_ = first + s_;                                                    \
        if (p_ < n) {                                                                   \
            keys[p_] = from_order(lk[LPAD(s_)], xf);                                    \
            IF_VALS(vals[p_] = lv[LPAD(s_)];)                                           \
        }                                                                               \
    }
#define LDS_STORE()                                                                     \
    SLOTS_TO_LDS();                                                                     \
    barrier(CLK_LOCAL_MEM_FENCE);                                                       \
    LDS_TO_GLOBAL()

/* A solo tile's keys are contiguous: plain addressing that a CPU compiler vectorises (the
 * layout arithmetic of LAYOUT_POS, with its run-time shifts, made PoCL an order of magnitude
 * slower). */
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
/* The half-cleaners TILE/2 .. 1 of a merge (bitonic_merge_tile, seg_large_merge), in groups:
 * the first group's keys straight from global memory where its lowest stride is at least 32
 * (coalesced), else through local memory; ends with the keys in registers in the layout `cur`,
 * for LDS_STORE. */
#if TILE_LOG - LOCAL_LOG >= 5
#define HALF_CLEANERS_LOAD_C() REG_LOAD()
#else
#define HALF_CLEANERS_LOAD_C() LDS_LOAD()
#endif
#define HALF_CLEANERS_C()                                                               \
    cur = make_layout_c(t, TILE_LOG - LOCAL_LOG, LOCAL_LOG, 0);                         \
    HALF_CLEANERS_LOAD_C();                                                             \
    GROUP_APPLY(k, v, LOCAL_LOG, 0u);                                                   \
    GROUPS_AFTER_C(TILE_LOG - 1)
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

