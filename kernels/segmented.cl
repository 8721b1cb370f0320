/* segmented.cl - segmented sort: many independent segments keys[off[i] .. off[i+1]) of any
 * lengths, sorted in one set of launches (clsort_sort_segments; docs/kernels.md, "Segmented").
 *
 * Passes (one launch each, scheduled by host/planning/schedule.c):
 *   seg_count       a block of consecutive segments per work-group: counts the segments of
 *                   each length bin (bin b holds lengths in (2^b, 2^(b+1)]; the last, longer
 *                   than 4096), a work-group's counts summed in local memory first
 *   seg_scatter     the same blocks: writes each segment's index into its bin's part of the
 *                   list
 *   seg_sort_tiny   one work-item per segment of 2..SEG_TINY keys: the whole network in
 *                   registers, padded to 4, 8, ..., SEG_TINY slots with virtual keys; staged
 *                   (SEG_TINY_STAGE, GPUs): the segments by index, 64 a work-group, their
 *                   keys copied through local memory
 *   seg_sort_packed one work-group per tile of TILE slots packed with the segments of one bin,
 *                   each padded to its power of two P: the tile machinery of tile.cl (keys in
 *                   registers, local memory between groups of levels) sorts every P-block of
 *                   the tile at once; loads and stores are coalesced through local memory
 *   seg_sort_group  one work-group per longer segment: in local memory up to
 *                   SEG_TILE keys, else in global memory with work-group barriers
 * Every bound comes from the offsets clamped to [off[0], min(off[nseg], cap)), where cap is the
 * number of elements the buffers hold, and a segment whose end is below its start is empty: no
 * offsets, however wrong, make a kernel touch memory outside that range.
 *
 * Every comparator puts the minimum at the lower position, so a virtual key (all ones in order
 * space, common.cl) never moves and comparators whose upper slot is virtual may be skipped. The
 * comparators run depend only on the segment lengths, never on key values. */

#ifndef SEG_NET
#define SEG_NET 0            /* 0 bitonic, 1 odd-even merge, 2 odd-even transposition */
#endif
#ifndef SEG_TILE
#define SEG_TILE 1024        /* keys of one segment sorted in local memory; power of two */
#endif
#ifndef SEG_WG
#define SEG_WG 128           /* work-items per group in seg_sort_group; power of two */
#endif
#ifndef SEG_STABLE
#define SEG_STABLE 0         /* 1: equal keys keep their input order (pairs) */
#endif
#ifndef SEG_TINY_LOG
#define SEG_TINY_LOG 5       /* log2 of the longest segment sorted by one work-item: 0 (none), 5..7 */
#endif
#define SEG_TINY (1u << SEG_TINY_LOG)
#ifndef SEG_TINY_STAGE
#define SEG_TINY_STAGE 0     /* 1: seg_sort_tiny through local memory (GPUs; SEG_TINY_LOG 5, 6) */
#endif
#if SEG_TINY_STAGE && SEG_TINY_LOG != 5 && SEG_TINY_LOG != 6
#error "the staged tiny pass is written for segments of up to 32 or 64 keys"
#endif
#if VAL_BYTES
#define STAGE_VALS_PARAM , __local val_type *sv
#else
#define STAGE_VALS_PARAM
#endif
/* Bins by length: bin b < SEG_LARGE_BIN holds the segments of (2^b, 2^(b+1)] keys (padded to
 * P = 2^(b+1) slots), bin SEG_LARGE_BIN those longer than 4096 (the largest tile of any pass).
 * The host launches each kernel on a range of bins (tiny: b < SEG_TINY_LOG; packed and group:
 * the arguments). The meta buffer holds SEG_META counters (16 counts, then 16 scatter cursors)
 * and then the list of segment indices, bin after bin (host/core/seg_layout.h). */
#define SEG_LARGE_BIN 12
#define SEG_BINS (SEG_LARGE_BIN + 1)
#define SEG_CURSORS 16
#define SEG_META 32
/* List entry e (ulong arithmetic: nseg may come within SEG_META of 2^32). */
#define SEG_LIST(e) meta[(ulong)SEG_META + (e)]
/* With the large passes (seg_large.cl) two tables follow the list: LARGE_UNITS(e), the first
 * unit of the large bin's entry e (e = 0 .. count, the last the total), a unit being TILE slots
 * of a segment padded to its power of two; and LARGE_MAP(u), the entry that unit u belongs to
 * (host/core/seg_layout.h sizes them). */
#define LARGE_UNITS(e) meta[(ulong)SEG_META + nseg + (e)]
#define LARGE_MAP(u) meta[(ulong)SEG_META + 2 * nseg + 1 + (u)]
/* The counter after the bins': log2 of the largest P of the large bin (seg_large_scan), so that
 * the merges no segment needs end at once (the buffer variant launches them up to its buffer's
 * size, not knowing the lengths). */
#define LARGE_TOP_LOG meta[SEG_LARGE_BIN + 1]

/* Offset i clamped to [off[0], max(off[0], min(off[nseg], cap))]. */
inline ulong seg_edge(__global const ulong *off, const ulong nseg, const ulong cap,
                      const ulong i)
{
    const ulong lo = off[0], hi = min(off[nseg], cap);
    return clamp(off[i], lo, max(lo, hi));
}

/* The clamped bounds of segment i; returns its length (0 for an empty or inverted segment). */
inline ulong seg_bounds(__global const ulong *off, const ulong nseg, const ulong cap,
                        const ulong i, ulong *start)
{
    const ulong s = seg_edge(off, nseg, cap, i), e = seg_edge(off, nseg, cap, i + 1);
    *start = s;
    return e > s ? e - s : 0;
}

inline int seg_bin(const ulong len)
{
    if (len < 2)
        return -1;
    int b = 0;
    while ((2ul << b) < len && b < SEG_LARGE_BIN)
        ++b;
    return b;
}

/* The segments this work-group bins: a block of consecutive ones, a whole number of rounds of
 * the group's size long, the blocks in group order. The host launches fewer work-items than
 * segments (schedule.c, seg_bin_items) so that each group bins many: the one global atomic per
 * bin and group is then on a shared counter a few hundred times, not once per 64 segments (2^20
 * segments of 16 keys made 16384 of them on one address, and the two binning passes took a
 * third of the sort on a GPU). */
inline void seg_group_block(const ulong nseg, ulong *lo, ulong *hi)
{
    const ulong size = get_local_size(0), groups = get_num_groups(0);
    const ulong per = ((nseg + groups - 1) / groups + size - 1) / size * size;
    *lo = min(nseg, (ulong)get_group_id(0) * per);
    *hi = min(nseg, *lo + per);
}

/* The list index of the large bin's first entry. */
inline uint large_first(__global const uint *meta)
{
    uint f = 0;
    for (uint b = 0; b < SEG_LARGE_BIN; ++b)
        f += meta[b];
    return f;
}

/* The bin of segment i (-1: fewer than 2 keys). */
inline int seg_bin_of(__global const ulong *off, const ulong nseg, const ulong cap, const ulong i)
{
    ulong s;
    return seg_bin(seg_bounds(off, nseg, cap, i, &s));
}

/* The work-group's counts per bin in lh[] (local atomics; every work-item reaches the
 * barriers). */
inline void seg_count_local(__global const ulong *off, const ulong nseg, const ulong cap,
                            const ulong lo, const ulong hi, __local uint *lh)
{
    const uint t = get_local_id(0);
    for (uint j = t; j < SEG_BINS; j += get_local_size(0))
        lh[j] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (ulong i = lo + t; i < hi; i += get_local_size(0)) {
        const int b = seg_bin_of(off, nseg, cap, i);
        if (b >= 0)
            atomic_inc(&lh[b]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

__kernel CLSORT_SHAPE_SEG_ITEM void seg_count(CLSORT_ARGS_SEG_BIN)
{
    __local uint lh[SEG_BINS];
    ulong lo, hi;
    seg_group_block(nseg, &lo, &hi);
    seg_count_local(off, nseg, cap, lo, hi, lh);
    for (uint j = get_local_id(0); j < SEG_BINS; j += get_local_size(0))
        if (lh[j])
            atomic_add(&meta[j], lh[j]);
}

/* The first bin the list holds: the staged tiny pass finds its segments by index. */
#define SEG_LISTED_FIRST (SEG_TINY_STAGE ? SEG_TINY_LOG : 0)

/* The order inside a bin follows the atomics; it changes which work-item or work-group sorts
 * which segment, never what is sorted. A work-group's segments of one bin stay together and
 * come round by round, so neighbours in the list are mostly neighbours in memory. The bounds
 * are read twice (count, then place): the second time from the cache. */
__kernel CLSORT_SHAPE_SEG_ITEM void seg_scatter(CLSORT_ARGS_SEG_BIN)
{
    __local uint lh[SEG_BINS], lbase[SEG_BINS];
    ulong lo, hi;
    seg_group_block(nseg, &lo, &hi);
    /* One bin holding every segment (equal lengths: the rows of a matrix, batches of one size)
     * makes the list the identity, entry i segment i: written without reading the offsets or
     * counting. The counts are final here (seg_count ran before) and the same for every
     * work-item, read in parallel (a loop that stopped at the bin found waited for one load
     * after the other: measurably slower for mixed short lengths). On a GPU the general scatter
     * is a sixth of a sort of equal short segments (docs/perf.md, segments on the GPU). The
     * readers stay as they are: a flag telling them to take entry i for segment i put
     * seg_sort_packed at 40 registers instead of 32 and cost more than the scatter. */
    uint lone = 0, listed = 0;
    _Pragma("unroll") for (uint b = SEG_LISTED_FIRST; b < SEG_BINS; ++b) {
        const uint c = meta[b];
        lone |= (ulong)c == nseg;
        listed |= c;
    }
    if (!listed)
        return; /* every segment staged or trivial: an empty list */
    if (lone) {
        for (ulong i = lo + get_local_id(0); i < hi; i += get_local_size(0))
            SEG_LIST(i) = (uint)i;
        return;
    }
    seg_count_local(off, nseg, cap, lo, hi, lh);
    for (uint j = get_local_id(0); j < SEG_BINS; j += get_local_size(0)) {
        if (!lh[j] || j < SEG_LISTED_FIRST)
            continue;
        uint base = 0;
        for (uint i = 0; i < j; ++i)
            base += meta[i];
        lbase[j] = base + atomic_add(&meta[SEG_CURSORS + j], lh[j]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (ulong i = lo + get_local_id(0); i < hi; i += get_local_size(0)) {
        const int b = seg_bin_of(off, nseg, cap, i);
        if (b >= SEG_LISTED_FIRST)
            SEG_LIST(atomic_inc(&lbase[b])) = (uint)i;
    }
}

/* ---- Compare-exchange with the stable tiebreak --------------------------------------------
 * SWAPS(ka, kb, pa, pb): whether slots holding (ka, pa) < (kb, pb) by position must trade. With
 * SEG_STABLE the in-segment position breaks ties, so equal keys keep their input order; virtual
 * slots have positions past every real one. */
#if SEG_STABLE
#define SWAPS(ka, kb, pa, pb) ((ka) > (kb) || ((ka) == (kb) && (pa) > (pb)))
#else
#define SWAPS(ka, kb, pa, pb) ((ka) > (kb))
#endif

/* Exchanges slots a < b of arrays K, V, Q (keys, values, positions) when SWAPS says so. */
#define SEG_CMPX(K, V, Q, a, b)                                                         \
    do {                                                                                \
        const key_type ka_ = K[a], kb_ = K[b];                                          \
        const uint pa_ = SEG_POS(Q, a), pb_ = SEG_POS(Q, b);                            \
        const bool sw_ = SWAPS(ka_, kb_, pa_, pb_);                                     \
        K[a] = sw_ ? kb_ : ka_;                                                         \
        K[b] = sw_ ? ka_ : kb_;                                                         \
        SEG_SWAP_VAL(V, a, b, sw_);                                                     \
        SEG_SWAP_POS(Q, a, b, sw_, pa_, pb_);                                           \
    } while (0)
#if VAL_BYTES
#define SEG_SWAP_VAL(V, a, b, sw)                                                       \
    do {                                                                                \
        const val_type va_ = V[a], vb_ = V[b];                                          \
        V[a] = (sw) ? vb_ : va_;                                                        \
        V[b] = (sw) ? va_ : vb_;                                                        \
    } while (0)
#else
#define SEG_SWAP_VAL(V, a, b, sw) (void)0
#endif
#if SEG_STABLE
#define SEG_POS(Q, a) ((uint)Q[a])
#define SEG_SWAP_POS(Q, a, b, sw, pa, pb)                                               \
    do {                                                                                \
        Q[a] = (sw) ? (pb) : (pa);                                                      \
        Q[b] = (sw) ? (pa) : (pb);                                                      \
    } while (0)
#else
#define SEG_POS(Q, a) 0u
#define SEG_SWAP_POS(Q, a, b, sw, pa, pb) (void)0
#endif

/* ---- The networks, as levels of comparators (a, b), a < b ---------------------------------
 * SEG_LEVELS(P, C0, CSTEP, OP, SYNC) runs the network on P (a power of two) slots: in each level
 * comparator c = C0, C0 + CSTEP, ... < P/2 calls OP(a, b); SYNC runs after each level.
 * Bitonic: the flip form of bitonic_sort.cl (mirror first, then half-cleaners). Odd-even merge:
 * Batcher's, numbered as in oddeven_merge.cl. Odd-even transposition: P rounds of neighbour
 * pairs in registers (seg_sort_tiny); in work-groups it uses the bitonic levels, as the library's
 * transposition network does inside its tiles' merges (docs/kernels.md). */
#define SEG_BITONIC_LEVELS(P, C0, CSTEP, OP, SYNC)                                      \
    for (uint sz_ = 2; sz_ <= (P); sz_ <<= 1)                                           \
        for (uint st_ = sz_ >> 1; st_ > 0; st_ >>= 1) {                                 \
            for (uint c_ = (C0); c_ < (P) / 2; c_ += (CSTEP)) {                         \
                const uint a_ = insert_zero_u32(c_, st_);                               \
                const uint b_ = st_ == sz_ >> 1 ? a_ ^ (sz_ - 1) : a_ + st_;            \
                OP(a_, b_);                                                             \
            }                                                                           \
            SYNC;                                                                       \
        }
#define SEG_OEM_LEVELS(P, C0, CSTEP, OP, SYNC)                                          \
    for (uint sz_ = 2; sz_ <= (P); sz_ <<= 1)                                           \
        for (uint st_ = sz_ >> 1; st_ > 0; st_ >>= 1) {                                 \
            for (uint c_ = (C0); c_ < (P) / 2; c_ += (CSTEP)) {                         \
                const uint pos_ = 2 * c_ - (c_ & (st_ - 1));                            \
                if (st_ == sz_ >> 1)                                                    \
                    OP(pos_, pos_ + st_);                                               \
                else if ((c_ & ((sz_ >> 1) - 1)) >= st_)                                \
                    OP(pos_ - st_, pos_);                                               \
            }                                                                           \
            SYNC;                                                                       \
        }
#define SEG_OET_ROUNDS(P, OP)                                                           \
    for (uint r_ = 0; r_ < (P); ++r_)                                                   \
        for (uint a_ = r_ & 1; a_ + 1 < (P); a_ += 2)                                   \
            OP(a_, a_ + 1);

#if SEG_NET == 1
#define SEG_GROUP_LEVELS SEG_OEM_LEVELS
#else
#define SEG_GROUP_LEVELS SEG_BITONIC_LEVELS
#endif

/* ---- seg_sort_tiny: one work-item, one segment of 2..SEG_TINY keys, in registers --------- */
#if VAL_BYTES || SEG_STABLE
#define TINY_OP(a, b) SEG_CMPX(k, v, q, a, b)
#else
/* Keys alone: the exchange is a min and a max. */
#define TINY_OP(a, b)                                                                   \
    do {                                                                                \
        const key_type ka_ = k[a], kb_ = k[b];                                          \
        k[a] = min(ka_, kb_);                                                           \
        k[b] = max(ka_, kb_);                                                           \
    } while (0)
#endif
#define NO_SYNC (void)0
/* The network on the P slots of k (v, q); P a literal, so the loops unroll and the arrays stay
 * in registers. */
#if SEG_NET == 2
#define TINY_NETWORK(P) SEG_OET_ROUNDS(P, TINY_OP)
#elif SEG_NET == 1
#define TINY_NETWORK(P) SEG_OEM_LEVELS(P, 0, 1, TINY_OP, NO_SYNC)
#else
#define TINY_NETWORK(P) SEG_BITONIC_LEVELS(P, 0, 1, TINY_OP, NO_SYNC)
#endif
/* IF_VALS's twin for the in-segment positions of SEG_STABLE. */
#if SEG_STABLE
#define IF_STABLE(...) __VA_ARGS__
#else
#define IF_STABLE(...)
#endif

/* Sorts the len (2..P) keys at keys[0..len) padded to P slots. Loads and stores depend only on
 * len. */
inline void tiny_sort(__global key_type *keys VALS_PARAM, const uint len, const uint xf,
                      const uint P)
{
    key_type k[SEG_TINY];
    IF_VALS(val_type v[SEG_TINY];)
    IF_STABLE(uint q[SEG_TINY];)
    _Pragma("unroll") for (uint m = 0; m < P; ++m) {
        k[m] = m < len ? to_order(keys[m], xf) : KEY_VIRTUAL;
        IF_VALS(v[m] = m < len ? vals[m] : 0;)
        IF_STABLE(q[m] = m;)
    }
    TINY_NETWORK(P)
    _Pragma("unroll") for (uint m = 0; m < P; ++m) {
        if (m < len) {
            keys[m] = from_order(k[m], xf);
            IF_VALS(vals[m] = v[m];)
        }
    }
}

#if !SEG_TINY_STAGE
/* Segment after segment of the list's tiny bins, each read and written by its own work-item
 * (CPUs: PoCL runs a work-group's items one after the other in SIMD lanes, and a work-group
 * barrier costs it more than the strided reads). */
__kernel CLSORT_SHAPE_SEG_ITEM void seg_sort_tiny(CLSORT_ARGS_SEG_TINY)
{
    uint count = 0;
    for (int b = 0; b < SEG_TINY_LOG; ++b)
        count += meta[b];
    const uint g = get_global_id(0);
    if (g >= count)
        return;
    ulong s;
    const uint len = (uint)seg_bounds(off, nseg, cap, SEG_LIST(g), &s);
#if VAL_BYTES
#define TINY_ARGS keys + s, vals + s, len, xf
#else
#define TINY_ARGS keys + s, len, xf
#endif
    if (len <= 4)
        tiny_sort(TINY_ARGS, 4);
    else if (len <= 8)
        tiny_sort(TINY_ARGS, 8);
    else if (len <= 16)
        tiny_sort(TINY_ARGS, 16);
#if SEG_TINY_LOG == 5
    else
        tiny_sort(TINY_ARGS, 32);
#else
    else if (len <= 32)
        tiny_sort(TINY_ARGS, 32);
#if SEG_TINY_LOG == 6
    else
        tiny_sort(TINY_ARGS, 64);
#else
    else if (len <= 64)
        tiny_sort(TINY_ARGS, 64);
    else
        tiny_sort(TINY_ARGS, 128);
#endif
#endif
#undef TINY_ARGS
}
#else
/* Staged (GPUs, SEG_TINY_STAGE): work-group g takes segments g*W .. g*W + W - 1 by index (W its
 * work-items, at most CLSORT_SEG_ITEM_WG), whatever their bins; the list holds no tiny bins
 * (seg_scatter). The group copies its tiny segments' keys into local memory coalesced (one
 * work-item reading its own segment would stride across the warp): as one span where they lie
 * back to back, else segment j into SEG_TINY slots of its own at j * SEG_TINY, copied by
 * SEG_TINY consecutive work-items. Work-item j then sorts its segment in registers (SPAD puts
 * the 32 work-items' k-th keys in 32 different banks where the starts are 32 or a power of two
 * apart) and stores it back, and the group copies the keys out. The network's size is the
 * group's longest tiny segment rounded up to 4, 8, 16, 24, 32 or 64 slots: one branch for the
 * whole group, where one per work-item would run each size the warp holds. Any offsets, however
 * wrong, stay safe: every copy stays inside a segment's clamped bounds and the stage. */
#define STAGE_SLOTS (CLSORT_SEG_ITEM_WG * SEG_TINY)
/* Slot x's place in the stage: tile.cl's LPAD with one padding slot in 2^psh (psh 5 or 6, the
 * group's choice below), never past LPAD(STAGE_SLOTS). */
#define SPAD(x) ((x) + ((x) >> psh))
/* The network on 2^PLOG slots of k (v, q), PLOG a literal, with constant trip counts only, so
 * that every loop unrolls and every index into k is a constant. (Through the level loops of
 * SEG_BITONIC_LEVELS, whose trip counts clang 15 did not see through, its PTX kept k on the
 * stack; NVIDIA's driver 580 unrolled either form alike: same registers, same times.) Level d
 * of merge z has stride 2^(z-1-d), the first the flip (bitonic_sort.cl's form). */
#define UNROLLED_LEVELS(PLOG, BODY)                                                     \
    _Pragma("unroll") for (uint z_ = 1; z_ <= (PLOG); ++z_)                             \
        _Pragma("unroll") for (uint d_ = 0; d_ < (PLOG); ++d_)                          \
            if (d_ < z_) {                                                              \
                const uint sz_ = 1u << z_, st_ = 1u << (z_ - 1 - d_);                   \
                _Pragma("unroll") for (uint c_ = 0; c_ < (1u << (PLOG)) / 2; ++c_) {    \
                    BODY                                                                \
                }                                                                       \
            }
/* TINY_OP on slots a < b where b < L: the slots from L up hold virtual keys from the start
 * (L is at least the length), and a comparator puts its minimum low, so one with its upper slot
 * there never moves a key; with L a literal the test goes at compile time. */
#define STAGED_OP(L, a, b)                                                              \
    if ((b) < (L))                                                                      \
        TINY_OP(a, b);
/* The network on the first L of 2^PLOG slots of k (v, q). The transposition network needs L
 * rounds for L slots. */
#if SEG_NET == 2
#define STAGED_NETWORK(PLOG, L)                                                         \
    _Pragma("unroll") for (uint r_ = 0; r_ < (L); ++r_)                                 \
        _Pragma("unroll") for (uint c_ = 0; c_ < (1u << (PLOG)) / 2; ++c_)              \
            STAGED_OP(L, 2 * c_ + (r_ & 1), 2 * c_ + (r_ & 1) + 1)
#elif SEG_NET == 1
#define STAGED_NETWORK(PLOG, L)                                                         \
    UNROLLED_LEVELS(PLOG, const uint pos_ = 2 * c_ - (c_ & (st_ - 1));                  \
                    if (d_ == 0) { STAGED_OP(L, pos_, pos_ + st_) }                     \
                    else if ((c_ & ((sz_ >> 1) - 1)) >= st_) { STAGED_OP(L, pos_ - st_, pos_) })
#else
#define STAGED_NETWORK(PLOG, L)                                                         \
    UNROLLED_LEVELS(PLOG, const uint a_ = insert_zero_u32(c_, st_);                     \
                    STAGED_OP(L, a_, d_ == 0 ? a_ ^ (sz_ - 1) : a_ + st_))
#endif

/* Sorts the len (<= L) keys at slots at .. at + len - 1 of the stage, padded to L slots, with
 * the network of 2^PLOG slots cut to its first L (L = 24 keeps 168 of the 32-slot bitonic
 * network's 240 comparators). One function per size, each with its
 * literals in its body: clang 15 compiled the loops of a function taking PLOG as an argument
 * (partly unrolled, then marked not to unroll) before inlining gave it the constant, and k went
 * to the stack again. */
#define DEFINE_TINY_STAGED(PLOG, L)                                                     \
    static inline __attribute__((always_inline)) void tiny_sort_staged_##L(            \
        __local key_type *sk STAGE_VALS_PARAM, const uint at, const uint len,           \
        const uint psh)                                                                 \
    {                                                                                   \
        key_type k[L];                                                                  \
        IF_VALS(val_type v[L];)                                                         \
        IF_STABLE(uint q[L];)                                                           \
        _Pragma("unroll") for (uint m = 0; m < (L); ++m) {                              \
            k[m] = m < len ? sk[SPAD(at + m)] : KEY_VIRTUAL;                            \
            IF_VALS(v[m] = m < len ? sv[SPAD(at + m)] : 0;)                             \
            IF_STABLE(q[m] = m;)                                                        \
        }                                                                               \
        STAGED_NETWORK(PLOG, L)                                                         \
        _Pragma("unroll") for (uint m = 0; m < (L); ++m) {                              \
            if (m < len) {                                                              \
                sk[SPAD(at + m)] = k[m];                                                \
                IF_VALS(sv[SPAD(at + m)] = v[m];)                                       \
            }                                                                           \
        }                                                                               \
    }
DEFINE_TINY_STAGED(2, 4)
DEFINE_TINY_STAGED(3, 8)
DEFINE_TINY_STAGED(4, 16)
DEFINE_TINY_STAGED(5, 24)
DEFINE_TINY_STAGED(5, 32)
#if SEG_TINY_LOG == 6
DEFINE_TINY_STAGED(6, 64)
#endif

/* Copies NSLOTS slots of the stage in from global memory: slot x from element SRC where KEEP
 * (both in terms of x), work-item t taking x = t, t + W, ...; STAGE_BATCH loads issued before
 * their stores. (One load at a time left the work-group's two warps waiting on memory, and
 * short segments on a GPU took several times longer.) */
#define STAGE_BATCH 8
#define STAGE_IN(NSLOTS, SRC, KEEP)                                                     \
    for (uint x0_ = t; x0_ < (NSLOTS); x0_ += STAGE_BATCH * W) {                        \
        key_type bk_[STAGE_BATCH];                                                      \
        IF_VALS(val_type bv_[STAGE_BATCH];)                                             \
        _Pragma("unroll") for (uint u_ = 0; u_ < STAGE_BATCH; ++u_) {                   \
            const uint x = x0_ + u_ * W;                                                \
            if (x < (NSLOTS) && (KEEP)) {                                               \
                bk_[u_] = keys[SRC];                                                    \
                IF_VALS(bv_[u_] = vals[SRC];)                                           \
            }                                                                           \
        }                                                                               \
        _Pragma("unroll") for (uint u_ = 0; u_ < STAGE_BATCH; ++u_) {                   \
            const uint x = x0_ + u_ * W;                                                \
            if (x < (NSLOTS) && (KEEP)) {                                               \
                sk[SPAD(x)] = to_order(bk_[u_], xf);                                    \
                IF_VALS(sv[SPAD(x)] = bv_[u_];)                                         \
            }                                                                           \
        }                                                                               \
    }
#define STAGE_OUT(NSLOTS, DST, KEEP)                                                    \
    for (uint x = t; x < (NSLOTS); x += W)                                              \
        if (KEEP) {                                                                     \
            keys[DST] = from_order(sk[SPAD(x)], xf);                                    \
            IF_VALS(vals[DST] = sv[SPAD(x)];)                                           \
        }
/* The fixed layout: slot x is key x % SEG_TINY of the group's segment x / SEG_TINY. */
#define FIXED_KEEP (x % SEG_TINY < llen[x / SEG_TINY])
#define FIXED_ELEM (lstart[x / SEG_TINY] + x % SEG_TINY)

__kernel CLSORT_SHAPE_SEG_ITEM void seg_sort_tiny(CLSORT_ARGS_SEG_TINY)
{
    __local key_type sk[LPAD(STAGE_SLOTS)];
    LOCAL_VALS(sv, LPAD(STAGE_SLOTS));
    __local ulong lstart[CLSORT_SEG_ITEM_WG];
    __local uint llen[CLSORT_SEG_ITEM_WG], lmax, lspan;
    (void)meta;
    const uint t = get_local_id(0), W = get_local_size(0);
    const ulong first = (ulong)get_group_id(0) * W, i = first + t;
    ulong s = 0, len = 0;
    if (i < nseg)
        len = seg_bounds(off, nseg, cap, i, &s);
    const uint mine = len >= 2 && len <= SEG_TINY ? (uint)len : 0u;
    /* The group's segments are one span [lo, hi) when each lies inside it and none is longer
     * than SEG_TINY (with non-decreasing offsets they then tile it): the span is copied as it
     * lies, every work-item's load useful, and each segment sorted where it lies in the stage
     * (its keys' banks then follow its start). Otherwise (longer segments among them, or
     * offsets out of order) each tiny segment is copied to the fixed layout. */
    const ulong lo = seg_edge(off, nseg, cap, first),
                hi = seg_edge(off, nseg, cap, min(nseg, first + W));
    const int inside = i >= nseg || (len <= SEG_TINY && s >= lo && s + len <= hi);
    if (t == 0) {
        lmax = 0;
        /* Offsets out of order can put hi below lo: the difference wraps, no span. */
        lspan = hi - lo <= STAGE_SLOTS ? (uint)(hi - lo) : 0u;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    lstart[t] = s;
    llen[t] = mine;
    if (mine)
        atomic_max(&lmax, mine);
    if (!inside)
        lspan = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint most = lmax, span = lspan;
    if (!most)
        return; /* no tiny segment here: the same answer for every work-item */
    /* The stage's padding: one slot in 2^psh, so that where the starts are 2^psh apart the 32
     * work-items' k-th keys fall in 32 different banks (with one in 32, starts 64 apart would
     * share banks two by two). Uniform over the group: every copy agrees. */
    const uint psh = SEG_TINY_LOG == 6 && most > 32 ? 6u : 5u;
    if (span) {
        STAGE_IN(span, lo + x, 1)
    } else {
        STAGE_IN(W * SEG_TINY, FIXED_ELEM, FIXED_KEEP)
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint at = span ? (uint)(s - lo) : t * SEG_TINY;
#if VAL_BYTES
#define STAGED_ARGS sk, sv, at, mine, psh
#else
#define STAGED_ARGS sk, at, mine, psh
#endif
    /* One network for the group, its longest segment's. Work-items reordered by length, so
     * that each warp ran its own longest's network (with networks cut to 40, 48 and 56 slots
     * too), measured slower on GPUs for every mix of lengths up to 64, the more the wider the
     * mix and most for pairs: the warps of a multiprocessor then ran up to nine networks' code
     * at once. */
    if (mine) {
        if (most <= 4)
            tiny_sort_staged_4(STAGED_ARGS);
        else if (most <= 8)
            tiny_sort_staged_8(STAGED_ARGS);
        else if (most <= 16)
            tiny_sort_staged_16(STAGED_ARGS);
        else if (most <= 24)
            tiny_sort_staged_24(STAGED_ARGS);
#if SEG_TINY_LOG == 6
        else if (most <= 32)
            tiny_sort_staged_32(STAGED_ARGS);
        else
            tiny_sort_staged_64(STAGED_ARGS);
#else
        else
            tiny_sort_staged_32(STAGED_ARGS);
#endif
    }
#undef STAGED_ARGS
    barrier(CLK_LOCAL_MEM_FENCE);
    if (span) {
        STAGE_OUT(span, lo + x, 1)
    } else {
        STAGE_OUT(W * SEG_TINY, FIXED_ELEM, FIXED_KEEP)
    }
}
#endif

/* ---- seg_sort_packed: the segments of bins [bin_first, bin_last], packed into tiles -------
 * A tile of TILE slots (tile.cl's parameters: TILE = the packed tile, WG_SIZE = SEG_WG) holds
 * up to TILE / P segments of one bin (at most PACK_SEGS), segment j of the tile in slots
 * [j*P, (j+1)*P), its keys first and
 * virtual keys after them. The first log2(P) merges of bitonic_sort_tile's flip network sort
 * every P-block of a tile independently, so one pass of the tile machinery sorts them all:
 * merges up to LOCAL_KEYS in registers without a barrier, larger ones in groups of levels with
 * a trip through local memory between groups. Tiles are numbered bin after bin; group g takes
 * tiles g, g + groups, ... Only for bitonic without SEG_STABLE (the host's choice; the kernel
 * exists in every segmented program). max_len and gpos are not used. */

/* Segments a tile holds at most: TILE / 8, so that their bounds fit beside the keys in local
 * memory (host/planning/seg_shape.c counts them in); bins of 2 and 4 keys fill a tile only in
 * part. */
#define PACK_SEGS (TILE / 8)

/* Segments of the bin with P = 2^(b+1) slots in one tile. */
inline uint pack_per_tile(const uint b)
{
    return min((uint)TILE >> (b + 1), (uint)PACK_SEGS);
}

/* The merges that sort every 2^plog-block of a packed tile: bitonic_sort_tile's first plog
 * merges. With SEG_PACK_C every merge's groups are written out with constant strides and
 * bank-conflict-free layouts (tile.cl's MERGE_C), each behind a uniform test of plog, so the code
 * is that of one tile sort however many bins the pass serves; otherwise the run-time groups of
 * RUN_LEVELS, whose predicates and two-way bank conflicts stay since plog is a run-time value.
 * Measured faster on GPUs than the run-time groups, a little for segments of 16 keys and up to
 * twice as fast for thousands. Only up to 16 keys a work-item, which is what GPUs get
 * (segments.c: 4096 slots for 256 work-items): with 32, PoCL's compiles of the program were
 * its longest by far. -DSEG_PACK_C=0 (CLSORT_BUILD_OPTIONS) gives the run-time groups, to compare.
 * Starts and ends with the keys in the layout `cur`, which the caller made. */
#ifndef SEG_PACK_C
#define SEG_PACK_C (FULL_PATHS && LOCAL_LOG <= 4)
#endif
#if SEG_PACK_C
#define PACK_MERGE_C(kk)                                                                \
    if (LOCAL_LOG < (kk) && TILE_LOG >= (kk) && plog >= (kk)) {                         \
        MERGE_C(kk)                                                                     \
    }
#define PACK_SORT_BLOCKS()                                                              \
    do {                                                                                \
        _Pragma("unroll") for (uint kk = 1; kk <= LOCAL_LOG; ++kk)                      \
            if (kk <= plog)                                                             \
                GROUP_APPLY(k, v, kk, 1u);                                              \
        /* FULL_PATHS: LOCAL_LOG >= 3, so merges from 4 up are the ones left. */        \
        PACK_MERGE_C(4) PACK_MERGE_C(5) PACK_MERGE_C(6) PACK_MERGE_C(7)                 \
        PACK_MERGE_C(8) PACK_MERGE_C(9) PACK_MERGE_C(10) PACK_MERGE_C(11)               \
        PACK_MERGE_C(12) PACK_MERGE_C(13) PACK_MERGE_C(14) PACK_MERGE_C(15)             \
        PACK_MERGE_C(16)                                                                \
    } while (0)
#define PACK_LAYOUT make_layout_c
#else
#define PACK_SORT_BLOCKS()                                                              \
    do {                                                                                \
        const uint kin_ = min(plog, (uint)LOCAL_LOG);                                   \
        for (uint kk = 1; kk <= kin_; ++kk)                                             \
            GROUP_APPLY(k, v, kk, 1u);                                                  \
        for (uint kk = LOCAL_LOG + 1; kk <= plog; ++kk)                                 \
            RUN_LEVELS(kk - 1, 1u);                                                     \
    } while (0)
#define PACK_LAYOUT make_layout
#endif

/* A tile is one span of memory when slot s is element base + s of the buffers for every slot up
 * to nt * P, its segments full and each right after the one before: then the loads and stores
 * need no bounds and no lookups (lspan_used != 0, lspan_base). Two cases, both decided without
 * reading the tile's bounds:
 * - Equal lengths of exactly P = 2^(b+1) keys: every segment in bin b (its count is nseg; the
 *   list is then the identity, seg_scatter) and the clamped range [lo, hi) holding nseg * P keys.
 *   Every length in bin b is at most P and the clamped lengths add up to hi - lo, so each is P,
 *   and segment i starts at lo + i * P. Work-item 0 tests this once per work-group (lequal);
 *   every tile then only reads the answer: no per-segment check, and the tile's bounds are
 *   never loaded.
 * - A large bin's unit that its segment fills (llen[0] == TILE, read after the bounds barrier).
 * On GPUs this made equal lengths of 16-4096 keys, and pairs, clearly faster, and lengths
 * uniform in 1..2s-1 a little slower, not for the test (once per work-group) but because the
 * pass's u32 program went from 32 registers to 40 (8 work-groups a multiprocessor to 6): the
 * span's second form of the loads costs them (the driver's ptxas report). Computing equal
 * lengths' bounds instead and keeping one lookup path (32 registers) made uniform lengths
 * faster but equal ones slower by more, so the lookup-free span stays. A per-segment form of
 * the test (a flag in local memory that each segment's work-item cleared) cost uniform lengths
 * about as much as the span. */
__kernel CLSORT_SHAPE_SEG_GROUP void seg_sort_packed(CLSORT_ARGS_SEG_GROUP)
{
    __local key_type lk[LOCAL_SLOTS];
    LOCAL_VALS(lv, LOCAL_SLOTS);
    /* The bounds of the tile's segments, each computed once: every slot's load and store then
     * reads them from here, not the list and two offsets from global memory. */
    __local ulong lstart[PACK_SEGS];
    __local uint llen[PACK_SEGS];
    /* The bins' counts, read from global memory once per work-group, in parallel: the loops
     * below that find the tiles and a tile's bin read them one after the other, and from global
     * memory each read waited for the one before (up to 12 cache round trips per loop, 3 loops
     * per tile). */
    __local uint lcount[SEG_BINS];
    /* The span of the current tile (see above): its first element and its slots in use; 0 when
     * the tile is not one span. With equal lengths (lequal), lspan_lo is where all segments
     * start. All in local memory, not in registers across the tile loop and the sort: the
     * pass's registers decide how many work-groups a multiprocessor holds (the same test with
     * these kept in registers took seg_sort_packed from 32 registers to 48, and lengths uniform
     * in 1..2s-1 measured slower on a GPU). */
    __local ulong lspan_base, lspan_lo;
    __local uint lspan_used, lequal;
    key_type k[LOCAL_KEYS];
    IF_VALS(val_type v[LOCAL_KEYS];)
    (void)gpos;
    (void)max_len;
    const uint t = get_local_id(0);
    for (uint j = t; j < SEG_BINS; j += WG_SIZE)
        lcount[j] = meta[j];
    barrier(CLK_LOCAL_MEM_FENCE);
    /* The packed bins, then (CLSORT_SEG_PACK_LARGE, manifest.h) the large bin's units: TILE
     * slots of one segment each, sorted whole (bitonic_sort_tile's work, the first pass of
     * seg_large.cl's sort). */
    const uint blast = bin_last & ~CLSORT_SEG_PACK_LARGE;
    uint bin0 = 0, ntiles = 0; /* the list index of bin_first's first entry; tiles in all */
    for (uint b = 0; b < bin_first; ++b)
        bin0 += lcount[b];
    for (uint b = bin_first; b <= blast; ++b)
        ntiles += (lcount[b] + pack_per_tile(b) - 1) / pack_per_tile(b);
    uint lfirst = 0; /* the large bin's first list entry, read once */
    if (bin_last & CLSORT_SEG_PACK_LARGE) {
        ntiles += LARGE_UNITS(lcount[SEG_LARGE_BIN]);
        for (uint b = 0; b < SEG_LARGE_BIN; ++b)
            lfirst += lcount[b];
    }
    /* Nothing in these bins (the buffer variant launches every pass): every work-item knows
     * it before the barrier below. */
    if (!ntiles)
        return;
    /* Equal lengths: the clamped range of all segments (seg_bounds) holds nseg * P keys, P the
     * slots of the bin that holds them all. Written by work-item 0, read after the barrier. */
    if (t == 0) {
        const ulong lo = off[0], hi = min(off[nseg], cap);
        uint lone = SEG_BINS;
        for (uint b = bin_first; b <= blast; ++b)
            if ((ulong)lcount[b] == nseg)
                lone = b;
        lequal = lone < SEG_BINS && hi > lo && hi - lo == (ulong)nseg << (lone + 1);
        lspan_lo = lo;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint tix = get_group_id(0); tix < ntiles; tix += get_num_groups(0)) {
        /* Find the tile's bin: uniform over the work-group. */
        uint b = bin_first, e0 = bin0, rest = tix;
        while (b <= blast) {
            const uint tb = (lcount[b] + pack_per_tile(b) - 1) / pack_per_tile(b);
            if (rest < tb)
                break;
            rest -= tb;
            e0 += lcount[b];
            ++b;
        }
        uint plog, nt;
        if (b <= blast) {
            const uint per = pack_per_tile(b), first = e0 + rest * per;
            plog = b + 1;
            nt = min(lcount[b] - rest * per, per);
            if (t == 0) {
                lspan_used = lequal ? nt << plog : 0u;
                lspan_base = lspan_lo + ((ulong)first << plog);
            }
            /* A span needs no bounds (lequal is final since the barrier after it). */
            for (uint j = lequal ? nt : t; j < nt; j += WG_SIZE) {
                ulong st;
                /* Bins hold lengths up to 4096 here: a uint is enough. */
                llen[j] = (uint)seg_bounds(off, nseg, cap, SEG_LIST(first + j), &st);
                lstart[j] = st;
            }
        } else {
            /* Unit `rest` of the large bin: slots [i*TILE, (i+1)*TILE) of its segment, the
             * keys past the segment's end virtual. */
            plog = TILE_LOG;
            nt = 1;
            if (t == 0) {
                const uint e = LARGE_MAP(rest);
                ulong st;
                const ulong len = seg_bounds(off, nseg, cap, SEG_LIST(lfirst + e), &st);
                const ulong lo = (ulong)(rest - LARGE_UNITS(e)) * TILE;
                llen[0] = len > lo ? (uint)min(len - lo, (ulong)TILE) : 0u;
                lstart[0] = st + lo;
                lspan_used = llen[0] == TILE ? TILE : 0u;
                lspan_base = st + lo;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* Each slot straight from global to local memory. (Loading all of a work-item's slots
         * into registers first, fully unrolled, measured much slower on a GPU.) A span loads
         * with one bound and no lookups. */
        if (lspan_used) {
            const ulong base = lspan_base;
            const uint used = lspan_used;
            for (uint s = t; s < TILE; s += WG_SIZE) {
                key_type x = KEY_VIRTUAL;
                IF_VALS(val_type y = 0;)
                if (s < used) {
                    x = to_order(keys[base + s], xf);
                    IF_VALS(y = vals[base + s];)
                }
                lk[LPAD(s)] = x;
                IF_VALS(lv[LPAD(s)] = y;)
            }
        } else {
            for (uint s = t; s < TILE; s += WG_SIZE) {
                const uint j = s >> plog, r = s & ((1u << plog) - 1);
                key_type x = KEY_VIRTUAL;
                IF_VALS(val_type y = 0;)
                if (j < nt && r < llen[j]) {
                    x = to_order(keys[lstart[j] + r], xf);
                    IF_VALS(y = vals[lstart[j] + r];)
                }
                lk[LPAD(s)] = x;
                IF_VALS(lv[LPAD(s)] = y;)
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        layout cur = PACK_LAYOUT(t, 0, LOCAL_LOG, 0); /* contiguous: slot m at base + m */
        SLOTS_FROM_LDS();
        PACK_SORT_BLOCKS();
        /* Each work-item stores to the slots it last loaded: no barrier needed before. */
        SLOTS_TO_LDS();
        barrier(CLK_LOCAL_MEM_FENCE);
        /* The span and the bounds are still those the loads read (rewritten only after the
         * barrier that ends the tile). */
        if (lspan_used) {
            const ulong base = lspan_base;
            const uint used = lspan_used;
            for (uint s = t; s < used; s += WG_SIZE) {
                keys[base + s] = from_order(lk[LPAD(s)], xf);
                IF_VALS(vals[base + s] = lv[LPAD(s)];)
            }
        } else {
            for (uint s = t; s < TILE; s += WG_SIZE) {
                const uint j = s >> plog, r = s & ((1u << plog) - 1);
                if (j < nt && r < llen[j]) {
                    keys[lstart[j] + r] = from_order(lk[LPAD(s)], xf);
                    IF_VALS(vals[lstart[j] + r] = lv[LPAD(s)];)
                }
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE); /* the next tile reuses the local arrays */
    }
}

/* ---- seg_sort_group: one work-group per segment of more than SEG_TINY keys ---------------- */
/* Comparators whose upper slot b is virtual (b >= len) would not swap: skip them. */
#define LOCAL_OP(a, b)                                                                  \
    do {                                                                                \
        if ((b) < len)                                                                  \
            SEG_CMPX(lk, lv, lq, a, b);                                                 \
    } while (0)
#define GLOBAL_OP(a, b)                                                                 \
    do {                                                                                \
        if ((b) < len)                                                                  \
            global_seg_cmpx(gk, GV_ARG gq, a, b, xf);                                   \
    } while (0)

#if VAL_BYTES
#define GV_ARG gv,
#define GV_PARAM __global val_type *gv,
#else
#define GV_ARG
#define GV_PARAM
#endif

/* One compare-exchange of a large segment in global memory (keys in memory order). */
inline void global_seg_cmpx(__global key_type *gk, GV_PARAM __global uint *gq, const uint a,
                            const uint b, const uint xf)
{
    const key_type ka = to_order(gk[a], xf), kb = to_order(gk[b], xf);
#if SEG_STABLE
    const uint pa = gq[a], pb = gq[b];
#else
    const uint pa = 0, pb = 0;
#endif
    if (SWAPS(ka, kb, pa, pb)) {
        gk[a] = from_order(kb, xf);
        gk[b] = from_order(ka, xf);
#if VAL_BYTES
        const val_type t = gv[a];
        gv[a] = gv[b];
        gv[b] = t;
#endif
#if SEG_STABLE
        gq[a] = pb;
        gq[b] = pa;
#endif
    }
}

#if VAL_BYTES
#define LV_ARG , lv
#define LV_PARAM , __local val_type *lv
#else
#define LV_ARG
#define LV_PARAM
#endif

/* For each aligned chunk of SEG_TILE slots of a large segment (keys in memory order at gk,
 * len of them): with sort, the bitonic merges of sizes 2..SEG_TILE; else the half-cleaner levels
 * of strides top..1 (the tail of a larger merge). In local memory, the slots past len virtual;
 * the comparators depend on len alone. The caller's barriers order the global levels around.
 * Bitonic without SEG_STABLE only (the positions of stable large segments live in global
 * memory). */
#if SEG_NET != 1 && !SEG_STABLE
inline void large_chunks(__global key_type *gk, GV_PARAM const uint len, const uint xf,
                         __local key_type *lk LV_PARAM, const uint top, const int sort)
{
    const uint t = get_local_id(0);
    for (uint c0 = 0; c0 < len; c0 += SEG_TILE) {
        const uint clen = min((uint)SEG_TILE, len - c0);
        for (uint m = t; m < SEG_TILE; m += SEG_WG) {
            lk[m] = m < clen ? to_order(gk[c0 + m], xf) : KEY_VIRTUAL;
#if VAL_BYTES
            lv[m] = m < clen ? gv[c0 + m] : 0;
#endif
        }
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        const uint len = clen; /* LOCAL_OP skips comparators past the chunk's keys */
        if (sort) {
            SEG_BITONIC_LEVELS(SEG_TILE, t, SEG_WG, LOCAL_OP, barrier(CLK_LOCAL_MEM_FENCE))
        } else {
            for (uint st = top; st > 0; st >>= 1) {
                for (uint c = t; c < SEG_TILE / 2; c += SEG_WG) {
                    const uint a = insert_zero_u32(c, st);
                    LOCAL_OP(a, a + st);
                }
                barrier(CLK_LOCAL_MEM_FENCE);
            }
        }
        for (uint m = t; m < clen; m += SEG_WG) {
            gk[c0 + m] = from_order(lk[m], xf);
#if VAL_BYTES
            gv[c0 + m] = lv[m];
#endif
        }
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    }
}
#endif

/* Sorts the segments of bins [bin_first, bin_last] of the list that hold at most max_len keys;
 * group g takes entries g, g + groups, ... so that any number of groups covers the bins. gpos (SEG_STABLE, large
 * segments) holds one position per key of the buffers; otherwise it is not touched. */
__kernel CLSORT_SHAPE_SEG_GROUP void seg_sort_group(CLSORT_ARGS_SEG_GROUP)
{
    __local key_type lk[SEG_TILE];
#if VAL_BYTES
    __local val_type lv[SEG_TILE];
#endif
#if SEG_STABLE
    __local ushort lq[SEG_TILE];
#endif
    uint first = 0, last = 0;
    for (uint b = 0; b < SEG_BINS; ++b) {
        if (b < bin_first)
            first += meta[b];
        if (b <= bin_last)
            last += meta[b];
    }
    const uint t = get_local_id(0);
    for (uint e = first + get_group_id(0); e < last; e += get_num_groups(0)) {
        ulong s;
        const ulong len64 = seg_bounds(off, nseg, cap, SEG_LIST(e), &s);
        if (len64 > max_len)
            continue; /* sorted elsewhere (host variant); max_len <= 2^31 keeps uint slots */
        const uint len = (uint)len64;
        uint P = 2;
        while (P < len)
            P <<= 1;
        if (len <= SEG_TILE) {
            for (uint m = t; m < P; m += SEG_WG) {
                lk[m] = m < len ? to_order(keys[s + m], xf) : KEY_VIRTUAL;
#if VAL_BYTES
                lv[m] = m < len ? vals[s + m] : 0;
#endif
#if SEG_STABLE
                lq[m] = (ushort)m;
#endif
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            SEG_GROUP_LEVELS(P, t, SEG_WG, LOCAL_OP, barrier(CLK_LOCAL_MEM_FENCE))
            for (uint m = t; m < len; m += SEG_WG) {
                keys[s + m] = from_order(lk[m], xf);
#if VAL_BYTES
                vals[s + m] = lv[m];
#endif
            }
            barrier(CLK_LOCAL_MEM_FENCE); /* the next segment reuses the local arrays */
        } else {
            /* Larger than a tile: the same levels in global memory. A segment of 2^32 keys or
             * more would overflow the uint slots; the host sends those elsewhere. */
            __global key_type *gk = keys + s;
#if VAL_BYTES
            __global val_type *gv = vals + s;
#endif
            __global uint *gq = gpos + s;
#if SEG_STABLE
            for (uint m = t; m < len; m += SEG_WG)
                gq[m] = m;
            barrier(CLK_GLOBAL_MEM_FENCE);
#endif
#if SEG_NET == 1 || SEG_STABLE
            SEG_GROUP_LEVELS(P, t, SEG_WG, GLOBAL_OP, barrier(CLK_GLOBAL_MEM_FENCE))
#else
            /* Bitonic, not stable: only the levels with strides of SEG_TILE and more run in
             * global memory. The merges up to SEG_TILE and the strides below SEG_TILE of every
             * larger merge stay inside aligned chunks of SEG_TILE slots, so they run chunk by
             * chunk in local memory (the flip form's later levels pair a with a + stride): one
             * global pass per large stride instead of one per level. */
            (void)gq;
            large_chunks(gk, GV_ARG len, xf, lk LV_ARG, SEG_TILE, 1);
            for (uint sz = 2 * SEG_TILE; sz <= P; sz <<= 1) {
                for (uint st = sz >> 1; st >= SEG_TILE; st >>= 1) {
                    for (uint c = t; c < P / 2; c += SEG_WG) {
                        const uint a = insert_zero_u32(c, st);
                        const uint b = st == sz >> 1 ? a ^ (sz - 1) : a + st;
                        GLOBAL_OP(a, b);
                    }
                    barrier(CLK_GLOBAL_MEM_FENCE);
                }
                large_chunks(gk, GV_ARG len, xf, lk LV_ARG, SEG_TILE >> 1, 0);
            }
#endif
        }
    }
}


/* ---- Stable pairs of 32-bit keys, composed --------------------------------------------------
 * GPUs sort stable pairs of 32-bit keys whose segments are mostly long (segments.c,
 * clsort__seg_compose) as 64-bit keys alone, in this program's 64-bit build without values: each
 * a composite of the key in its order space above and its position in the buffer below.
 * Positions rise within a segment, so equal keys come out in input order; every composite is
 * distinct and never the virtual key (positions are below 2^31). seg_compose writes the
 * composites of the clamped range (seg_edge) from the caller's keys and copies its values;
 * seg_decompose writes each key back from its composite and fetches its value from the copy at
 * the position the composite carries. Nothing outside the range is read or written. In a 32-bit
 * build the kernels exist (the manifest's ALWAYS) but do nothing. */
inline uint order32(const uint x, const uint xf)
{
    TO_ORDER_OF(uint, uint, 32, x, xf);
}

inline uint unorder32(uint y, const uint xf)
{
    FROM_ORDER_OF(uint, uint, 32, y, xf);
}

__kernel void seg_compose(CLSORT_ARGS_SEG_KEYS32)
{
#if KEY_BITS == 64
    const ulong i = get_global_id(0);
    if (!nseg || i < off[0] || i >= seg_edge(off, nseg, cap, nseg))
        return;
    keys[i] = ((ulong)order32(keys32[i], xf32) << 32) | i;
    for (uint w = 0; w < vwords; ++w)
        vcopy[i * vwords + w] = vals32[i * vwords + w];
#endif
}

__kernel void seg_decompose(CLSORT_ARGS_SEG_KEYS32)
{
#if KEY_BITS == 64
    const ulong i = get_global_id(0);
    if (!nseg || i < off[0] || i >= seg_edge(off, nseg, cap, nseg))
        return;
    const ulong c = keys[i], from = c & 0xFFFFFFFFul;
    keys32[i] = unorder32((uint)(c >> 32), xf32);
    for (uint w = 0; w < vwords; ++w)
        vals32[i * vwords + w] = vcopy[from * vwords + w];
#endif
}
