/* topk.cl - the k smallest (or, through the descending key transform, largest) keys of many rows
 * with a bitonic top-k network (clsort_topk; docs/kernels.md, "Top-k").
 *
 * Items are (key in order space, index within its row[, value]) and compare by key, then index:
 * a strict total order, so every network here gives the stable result and the output is unique.
 * Positions past a row's end hold a virtual item (all-ones key and index) above every real one.
 *
 * Passes (one launch each: planned by host/planning/plan.c, scheduled by schedule.c, enqueued by
 * host/execution/run.c; their arguments and shapes are kernels/manifest.h's TOPK rows):
 *   topk_tile    one work-group per tile of TK_TILE items: loads them (from the input rows, or
 *                from the items of the previous pass), optionally sorts blocks of K (the power of
 *                two >= k) or finishes a merge, then halves pairs of sorted blocks to the K
 *                smallest, min(A[i], B[K-1-i]) followed by a bitonic merge, until one block per
 *                row span of P items is left; writes that block to the output (first k) or to
 *                the next pass's items.
 *   topk_stream  (GPUs, long rows, K <= 32) the first pass: each work-item keeps the K smallest
 *                of the keys it reads as a sorted block in registers, and writes that block.
 *   topk_global  one comparator per work-item in global memory: a level of a bitonic sort of
 *                whole rows, for the full-sort path of k above TK_TILE / 2.
 * Every comparator, load and store depends only on (n, rows, k, the pass's arguments), never
 * on key values: the network is data-oblivious (docs/security.md). */
#ifndef CLSORT_TOPK_CL
#define CLSORT_TOPK_CL
#ifndef CLSORT_COMMON_CL
#include "common.cl"
#endif

#ifndef TK_TILE
#define TK_TILE 2048         /* items one work-group holds in local memory; power of two */
#endif
#ifndef TK_WG
#define TK_WG 64             /* work-items per work-group of topk_tile, at most TK_TILE / 2 */
#endif
#ifndef TK_IDX_BITS
#define TK_IDX_BITS 32       /* 32 when every row index and the virtual one fit in 32 bits */
#endif
#ifndef TK_OUT
#define TK_OUT 0             /* out_vals: 0 none, 1 the values (VAL_BYTES), 4 / 8 indices */
#endif

#if TK_IDX_BITS == 32
typedef uint tk_idx;
#else
typedef ulong tk_idx;
#endif
#define TK_IDX_VIRTUAL (~(tk_idx)0)

/* The buffers a pass does not use are NULL; their types only have to exist. */
#if VAL_BYTES
typedef val_type tk_val;
#else
typedef uint tk_val;
#endif
#if TK_OUT == 8
typedef ulong tk_out;
#elif TK_OUT == 1
typedef tk_val tk_out;
#else
typedef uint tk_out;
#endif

/* mode bits of topk_tile */
#define TK_FROM_INPUT 1u     /* load the caller's rows (else the previous pass's items) */
#define TK_SORT 2u           /* sort each block of K first (the input's blocks are unsorted) */
#define TK_MERGE 4u          /* finish a merge: half-cleaners TK_TILE/2 .. 1 over the tile */
#define TK_FINAL 8u          /* write the first k of each row to the output */

/* Item b before item a (strictly): key, then index. */
#define TK_LESS(kb, ib, ka, ia) ((kb) < (ka) || ((kb) == (ka) && (ib) < (ia)))

#if KEY_BITS == 32 && TK_IDX_BITS == 32
/* 32-bit keys and indices: an item is one ulong, key above index, so that the item order is
 * the integer order and a comparator is a min and a max (vectorised on CPUs). The virtual item
 * is all ones either way. */
#define TK_PACKED 1
#define TK_LOCALS() __local ulong lt[TK_TILE]
#define TK_SET_IN(X, s, key, idx) (X##t[s] = ((ulong)(key) << 32) | (ulong)(idx))
#define TK_KEY_IN(X, s) ((key_type)(X##t[s] >> 32))
#define TK_IDX_IN(X, s) ((tk_idx)X##t[s])
/* The items of an array set X: X##t (packed items) and X##v (values): the local tile `l`
 * (lt, lv) or a register block of topk_stream. TK_CX: compare-exchange of slots a < b, the
 * smaller item to a. TK_MIN_OF: the smaller of X[a] and Y[b] to X[a] (the halving step). */
#define TK_CX(X, a, b)                                                 \
    do {                                                               \
        const ulong x_ = X##t[a], y_ = X##t[b];                        \
        IF_VALS(const val_type va_ = X##v[a], vb_ = X##v[b];           \
                const bool sw_ = y_ < x_;                              \
                X##v[a] = sw_ ? vb_ : va_; X##v[b] = sw_ ? va_ : vb_;) \
        X##t[a] = min(x_, y_);                                         \
        X##t[b] = max(x_, y_);                                         \
    } while (0)
#define TK_MIN_OF(X, a, Y, b)                                          \
    do {                                                               \
        const ulong x_ = X##t[a], y_ = Y##t[b];                        \
        IF_VALS(X##v[a] = y_ < x_ ? Y##v[b] : X##v[a];)                \
        X##t[a] = min(x_, y_);                                         \
    } while (0)
#define TK_CMPX(a, b) TK_CX(l, a, b)
#define TK_MIN(a, b) TK_MIN_OF(l, a, l, b)
#define TK_SET(s, key, idx) TK_SET_IN(l, s, key, idx)
#define TK_KEY(s) TK_KEY_IN(l, s)
#define TK_IDX(s) TK_IDX_IN(l, s)
/* The smaller of slots a and b of this buffer to slot d of the other (lt2, lv2). */
#define TK_MIN_TO(d, a, b)                                             \
    do {                                                               \
        const ulong x_ = lt[a], y_ = lt[b];                            \
        IF_VALS(lv2[d] = y_ < x_ ? lv[b] : lv[a];)                     \
        lt2[d] = min(x_, y_);                                          \
    } while (0)
#define TK_BUFFERS()                                                   \
    __local ulong ta_[TK_TILE], tb_[TK_TILE];                          \
    __local ulong *lt = ta_, *lt2 = tb_
#define TK_SWAP()                                                      \
    do {                                                               \
        __local ulong *t_ = lt;                                        \
        lt = lt2;                                                      \
        lt2 = t_;                                                      \
        IF_VALS(__local val_type *u_ = lv; lv = lv2; lv2 = u_;)        \
    } while (0)
#else
#define TK_PACKED 0
#define TK_LOCALS() __local key_type lk[TK_TILE]; __local tk_idx li[TK_TILE]
#define TK_SET_IN(X, s, key, idx) (X##k[s] = (key), X##i[s] = (idx))
#define TK_KEY_IN(X, s) X##k[s]
#define TK_IDX_IN(X, s) X##i[s]
/* The items of an array set X: X##k (keys), X##i (indices), X##v (values): the local tile `l`
 * (lk, li, lv) or a register block of topk_stream. TK_CX: compare-exchange of slots a < b, the
 * smaller item to a; selects only, no branch on keys. TK_MIN_OF: the smaller of X[a] and Y[b]
 * to X[a] (the halving step). */
#define TK_CX(X, a, b)                                                 \
    do {                                                               \
        const key_type ka_ = X##k[a], kb_ = X##k[b];                   \
        const tk_idx ia_ = X##i[a], ib_ = X##i[b];                     \
        const bool sw_ = TK_LESS(kb_, ib_, ka_, ia_);                  \
        X##k[a] = sw_ ? kb_ : ka_;                                     \
        X##k[b] = sw_ ? ka_ : kb_;                                     \
        X##i[a] = sw_ ? ib_ : ia_;                                     \
        X##i[b] = sw_ ? ia_ : ib_;                                     \
        IF_VALS(const val_type va_ = X##v[a], vb_ = X##v[b];           \
                X##v[a] = sw_ ? vb_ : va_; X##v[b] = sw_ ? va_ : vb_;) \
    } while (0)
#define TK_MIN_OF(X, a, Y, b)                                          \
    do {                                                               \
        const key_type ka_ = X##k[a], kb_ = Y##k[b];                   \
        const tk_idx ia_ = X##i[a], ib_ = Y##i[b];                     \
        const bool sw_ = TK_LESS(kb_, ib_, ka_, ia_);                  \
        X##k[a] = sw_ ? kb_ : ka_;                                     \
        X##i[a] = sw_ ? ib_ : ia_;                                     \
        IF_VALS(X##v[a] = sw_ ? Y##v[b] : X##v[a];)                    \
    } while (0)
#define TK_CMPX(a, b) TK_CX(l, a, b)
#define TK_MIN(a, b) TK_MIN_OF(l, a, l, b)
#define TK_SET(s, key, idx) TK_SET_IN(l, s, key, idx)
#define TK_KEY(s) TK_KEY_IN(l, s)
#define TK_IDX(s) TK_IDX_IN(l, s)
#define TK_MIN_TO(d, a, b)                                             \
    do {                                                               \
        const key_type ka_ = lk[a], kb_ = lk[b];                       \
        const tk_idx ia_ = li[a], ib_ = li[b];                         \
        const bool sw_ = TK_LESS(kb_, ib_, ka_, ia_);                  \
        lk2[d] = sw_ ? kb_ : ka_;                                      \
        li2[d] = sw_ ? ib_ : ia_;                                      \
        IF_VALS(lv2[d] = sw_ ? lv[b] : lv[a];)                         \
    } while (0)
#define TK_BUFFERS()                                                   \
    __local key_type ka_[TK_TILE], kb_[TK_TILE];                       \
    __local tk_idx ia_[TK_TILE], ib_[TK_TILE];                         \
    __local key_type *lk = ka_, *lk2 = kb_;                            \
    __local tk_idx *li = ia_, *li2 = ib_
#define TK_SWAP()                                                      \
    do {                                                               \
        __local key_type *t_ = lk;                                     \
        lk = lk2;                                                      \
        lk2 = t_;                                                      \
        __local tk_idx *s_ = li;                                       \
        li = li2;                                                      \
        li2 = s_;                                                      \
        IF_VALS(__local val_type *u_ = lv; lv = lv2; lv2 = u_;)        \
    } while (0)
#endif

inline uint tk_log2(const uint x)
{
    return 31u - clz(x);
}


/* The levels, as loops over their comparators. A work-group of one work-item (CPUs) walks each
 * level as nested loops whose inner loop runs over consecutive slots, which the compiler
 * vectorises; larger groups deal the comparators out round-robin, neighbouring work-items on
 * neighbouring slots, with a barrier after each level. */
#if TK_WG == 1
#define TK_BARRIER()
/* The flip of every group of sz slots: slot g + i against g + sz - 1 - i. */
#define TK_FLIP(sz)                                                                    \
    for (uint g_ = 0; g_ < TK_TILE; g_ += (sz))                                        \
        for (uint i_ = 0; i_ < (sz) / 2; ++i_)                                         \
            TK_CMPX(g_ + i_, g_ + (sz) - 1u - i_)
/* Half-cleaners j = from .. 1 of blocks of `span` slots, the blocks `stride` apart, `count`
 * comparators a level. */
#define TK_HALF_CLEANERS(from, span, stride, count)                                   \
    for (uint j_ = (from); j_ > 0; j_ >>= 1)                                           \
        for (uint b_ = 0; b_ < (count) / ((span) / 2) * (stride); b_ += (stride))      \
            for (uint g_ = b_; g_ < b_ + (span); g_ += 2 * j_)                         \
                for (uint i_ = g_; i_ < g_ + j_; ++i_)                                 \
                    TK_CMPX(i_, i_ + j_)
/* Halving level r: live blocks of K `sp` slots apart, pairs 2 sp apart. */
#define TK_HALVE(K, sp)                                                                \
    for (uint g_ = 0; g_ < TK_TILE; g_ += 2 * (sp))                                    \
        for (uint i_ = 0; i_ < (K); ++i_)                                              \
            TK_MIN(g_ + i_, g_ + (sp) + (K) - 1u - i_)
#else
#define TK_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#define TK_FLIP(sz)                                                                    \
    do {                                                                               \
        const uint h_ = (sz) >> 1, hl_ = tk_log2(h_);                                  \
        for (uint c_ = get_local_id(0); c_ < TK_TILE / 2; c_ += TK_WG) {               \
            const uint g_ = c_ >> hl_, i_ = c_ & (h_ - 1u);                            \
            TK_CMPX(g_ * (sz) + i_, g_ * (sz) + (sz) - 1u - i_);                       \
        }                                                                              \
        barrier(CLK_LOCAL_MEM_FENCE);                                                  \
    } while (0)
#define TK_HALF_CLEANERS(from, span, stride, count)                                   \
    for (uint j_ = (from); j_ > 0; j_ >>= 1) {                                         \
        const uint hl_ = tk_log2((span) >> 1);                                         \
        for (uint c_ = get_local_id(0); c_ < (count); c_ += TK_WG) {                   \
            const uint blk_ = c_ >> hl_, w_ = c_ & (((span) >> 1) - 1u);               \
            const uint a_ = blk_ * (stride) + insert_zero_u32(w_, j_);                  \
            TK_CMPX(a_, a_ + j_);                                                      \
        }                                                                              \
        barrier(CLK_LOCAL_MEM_FENCE);                                                  \
    }
#define TK_HALVE(K, sp)                                                                \
    do {                                                                               \
        const uint kl_ = tk_log2(K);                                                   \
        for (uint c_ = get_local_id(0); c_ < TK_TILE / (2 * (sp)) * (K); c_ += TK_WG) {  \
            const uint p_ = c_ >> kl_, i_ = c_ & ((K) - 1u);                           \
            TK_MIN(2u * p_ * (sp) + i_, (2u * p_ + 1u) * (sp) + (K) - 1u - i_);        \
        }                                                                              \
        barrier(CLK_LOCAL_MEM_FENCE);                                                  \
    } while (0)
#endif

/* One tile of TK_TILE items. The tile covers TK_TILE / P rows of at most P items each (P < TK_TILE,
 * a whole row in one tile: that pass is the last), or TK_TILE items of one row (P == TK_TILE),
 * `tiles_per_row` tiles a row. In: m items a row (the caller's n keys, or the previous pass's
 * blocks). The tile's blocks of K (sorted here under TK_SORT) are halved log2(P / K) times, which
 * leaves one block of K per span of P: under TK_FINAL its first k items go to row r's place in
 * out_keys / out_vals (at position pos0 + i, pos0 the tile's first position in its row: nonzero
 * only in the full-sort path, where K == TK_TILE), else all K to the items (ok, oi, ov) at
 * row * m_out + (tile within row) * K. */
__kernel CLSORT_SHAPE_TOPK void topk_tile(CLSORT_ARGS_TOPK_TILE)
{
    const ulong t = get_group_id(0);
    const uint lp = tk_log2(P), lk_ = tk_log2(K);
    ulong row0, pos0 = 0, tile_in_row = 0;
    if (P < TK_TILE) {
        row0 = t << (tk_log2(TK_TILE) - lp);
    } else {
        row0 = t / tiles_per_row;
        tile_in_row = t - row0 * tiles_per_row;
        pos0 = tile_in_row * TK_TILE;
    }

#if TK_WG == 1
    /* One work-item a tile (CPUs). The tile is held transposed: item i of block b (of nb) at
     * slot i * nb + b, so that one comparator of a block network applied to every block is a
     * run of nb consecutive slots, and a half-cleaner of stride j a run of j * nb: the inner
     * loops below are contiguous at every level, which the compiler vectorises. A halving
     * writes its blocks to the other buffer, dense again (nb / 2 blocks). */
    TK_BUFFERS();
#if VAL_BYTES
    __local val_type va_[TK_TILE], vb_[TK_TILE];
    __local val_type *lv = va_, *lv2 = vb_;
#endif
    uint nb = TK_TILE >> lk_;
    /* A tile of whole rows, all inside the input (the common case): its items lie back to back
     * from row0 * m + pos0, and a loop without conditions loads them. */
    const int whole = row0 + (TK_TILE >> lp) <= rows &&
                      (P == TK_TILE ? pos0 + TK_TILE <= m : m == P);
    if (whole && (mode & TK_FROM_INPUT)) {
        __global const key_type *src = keys + (row0 * m + pos0);
        IF_VALS(__global const tk_val *vsrc = vals + (row0 * m + pos0);)
        for (uint s = 0; s < TK_TILE; ++s) {
            const uint slot = (s & (K - 1u)) * nb + (s >> lk_);
            TK_SET(slot, to_order(src[s], xf), (tk_idx)(pos0 + (s & (P - 1u))));
            IF_VALS(lv[slot] = vsrc[s];)
        }
    } else
    for (uint s = 0; s < TK_TILE; ++s) {
        const ulong row = row0 + (s >> lp), pos = pos0 + (s & (P - 1u));
        const uint slot = (s & (K - 1u)) * nb + (s >> lk_);
        key_type key = KEY_VIRTUAL;
        tk_idx idx = TK_IDX_VIRTUAL;
        IF_VALS(val_type val = 0;)
        if (row < rows && pos < m) {
            const ulong at = row * m + pos;
            if (mode & TK_FROM_INPUT) {
                key = to_order(keys[at], xf);
                idx = (tk_idx)pos;
                IF_VALS(val = vals[at];)
            } else {
                key = ik[at];
                idx = ii[at];
                IF_VALS(val = iv[at];)
            }
        }
        TK_SET(slot, key, idx);
        IF_VALS(lv[slot] = val;)
    }
    if (mode & TK_SORT)
        for (uint sz = 2; sz <= K; sz <<= 1) {
            for (uint g = 0; g < K; g += sz)
                for (uint i = 0; i < sz / 2; ++i) {
                    const uint a = (g + i) * nb, b = (g + sz - 1u - i) * nb;
                    for (uint x = 0; x < nb; ++x)
                        TK_CMPX(a + x, b + x);
                }
            for (uint j = sz / 4 * nb; j >= nb && j > 0; j >>= 1)
                for (uint g = 0; g < K * nb; g += 2 * j)
                    for (uint x = g; x < g + j; ++x)
                        TK_CMPX(x, x + j);
        }
    if (mode & TK_MERGE) /* K == TK_TILE, nb == 1 */
        for (uint j = TK_TILE / 2; j > 0; j >>= 1)
            for (uint g = 0; g < TK_TILE; g += 2 * j)
                for (uint x = g; x < g + j; ++x)
                    TK_CMPX(x, x + j);
    for (uint r = lp - lk_; r > 0; --r) {
        const uint nh = nb / 2;
        for (uint i = 0; i < K; ++i) {
            const uint a = i * nb, b = (K - 1u - i) * nb + 1u, d = i * nh;
            for (uint p = 0; p < nh; ++p)
                TK_MIN_TO(d + p, a + 2u * p, b + 2u * p);
        }
        TK_SWAP();
        nb = nh;
        for (uint j = K / 2 * nb; j >= nb && j > 0; j >>= 1)
            for (uint g = 0; g < K * nb; g += 2 * j)
                for (uint x = g; x < g + j; ++x)
                    TK_CMPX(x, x + j);
    }
    /* nb blocks left: one per row of the tile (TK_TILE / P), or one (P == TK_TILE). */
    if (mode & TK_FINAL) {
        for (uint q = 0; q < nb; ++q)
            for (uint i = 0; i < K; ++i) {
                const uint slot = i * nb + q;
                const ulong row = row0 + q, pos = pos0 + i;
                if (row < rows && pos < k) {
                    out_keys[row * k + pos] = from_order(TK_KEY(slot), xf);
#if TK_OUT == 1
                    out_vals[row * k + pos] = lv[slot];
#elif TK_OUT == 4 || TK_OUT == 8
                    out_vals[row * k + pos] = (tk_out)TK_IDX(slot);
#endif
                }
            }
    } else {
        for (uint i = 0; i < K; ++i) {
            const ulong at = row0 * m_out + tile_in_row * K + i;
            ok[at] = TK_KEY(i);
            oi[at] = TK_IDX(i);
            IF_VALS(ov[at] = lv[i];)
        }
    }
#else
    TK_LOCALS();
#if VAL_BYTES
    __local val_type lv[TK_TILE];
#endif
    for (uint s = get_local_id(0); s < TK_TILE; s += TK_WG) {
        const ulong row = row0 + (s >> lp), pos = pos0 + (s & (P - 1u));
        key_type key = KEY_VIRTUAL;
        tk_idx idx = TK_IDX_VIRTUAL;
        IF_VALS(val_type val = 0;)
        if (row < rows && pos < m) {
            const ulong at = row * m + pos;
            if (mode & TK_FROM_INPUT) {
                key = to_order(keys[at], xf);
                idx = (tk_idx)pos;
                IF_VALS(val = vals[at];)
            } else {
                key = ik[at];
                idx = ii[at];
                IF_VALS(val = iv[at];)
            }
        }
        TK_SET(s, key, idx);
        IF_VALS(lv[s] = val;)
    }
    TK_BARRIER();

    if (mode & TK_SORT) {
        /* Bitonic sort of every block of K, all ascending: each merge of size sz opens with the
         * flip (slot i against sz-1-i of its group), then half-cleaners. */
        for (uint sz = 2; sz <= K; sz <<= 1) {
            TK_FLIP(sz);
            TK_HALF_CLEANERS(sz >> 2, sz, sz, TK_TILE / 2);
        }
    }
    if (mode & TK_MERGE) {
        /* The full-sort path: the levels of a merge above the tile ran in topk_global. */
        TK_HALF_CLEANERS(TK_TILE / 2, TK_TILE, TK_TILE, TK_TILE / 2);
    }

    /* Halving: live blocks of K sit `sp` slots apart; pair them, keep min(A[i], B[K-1-i]) in A
     * (a bitonic sequence holding the K smallest of both, since A ascends and B reversed
     * descends), merge it. */
    const uint levels = lp - lk_;
    for (uint r = 1; r <= levels; ++r) {
        const uint sp = K << (r - 1);
        TK_HALVE(K, sp);
        if (K > 1)
            TK_HALF_CLEANERS(K >> 1, K, sp << 1, TK_TILE >> (r + 1));
    }

    /* One live block of K at each multiple of P. */
    const uint live = (TK_TILE / P) << lk_;
    if (mode & TK_FINAL) {
        for (uint s = get_local_id(0); s < live; s += TK_WG) {
            const uint q = s >> lk_, i = s & (K - 1u), slot = q * P + i;
            const ulong row = row0 + q, pos = pos0 + i;
            if (row < rows && pos < k) {
                out_keys[row * k + pos] = from_order(TK_KEY(slot), xf);
#if TK_OUT == 1
                out_vals[row * k + pos] = lv[slot];
#elif TK_OUT == 4 || TK_OUT == 8
                out_vals[row * k + pos] = (tk_out)TK_IDX(slot);
#endif
            }
        }
    } else {
        for (uint s = get_local_id(0); s < K; s += TK_WG) {
            const ulong at = row0 * m_out + tile_in_row * K + s;
            ok[at] = TK_KEY(s);
            oi[at] = TK_IDX(s);
            IF_VALS(ov[at] = lv[s];)
        }
    }
#endif
}

/* ---- topk_stream: the first pass over long rows, in registers (GPU shape) ----------------------
 * A work-group takes a span of TK_STREAM_WG * P keys of one row (P, the keys a work-item takes,
 * a multiple of K); work-item t reads positions span + (c + s) * TK_STREAM_WG + t, coalesced across the
 * group. It keeps the K smallest items it has seen as a sorted block in registers: every K keys
 * read are sorted by the flip-form bitonic network (section 1) and halved against the block,
 * min(R[i], W[K-1-i]) followed by the block's half-cleaners, as topk_tile halves in local
 * memory. No barrier and no local memory: the pass runs at the speed of the reads, and writes
 * one sorted block of K per work-item (m_out = tiles_per_row * TK_STREAM_WG * K items a row) for
 * topk_tile's halving passes. K is the build's TK_STREAM_K, so every register index is a
 * constant after unrolling (a private array indexed at run time would live in memory); the
 * host builds the program with TK_STREAM_K = K and its group size TK_STREAM_WG when it
 * schedules this pass, 1 otherwise. */
#ifndef TK_STREAM_K
#define TK_STREAM_K 1
#endif
#ifndef TK_STREAM_WG
#define TK_STREAM_WG 1       /* work-items of topk_stream (the host sets it with TK_STREAM_K) */
#endif
#if TK_PACKED
/* A register block of TK_STREAM_K items, the array set X of TK_CX and TK_SET_IN. */
#define TS_DECL(X) ulong X##t[TK_STREAM_K]; IF_VALS(val_type X##v[TK_STREAM_K];)
#else
#define TS_DECL(X) key_type X##k[TK_STREAM_K]; tk_idx X##i[TK_STREAM_K]; \
    IF_VALS(val_type X##v[TK_STREAM_K];)
#endif

/* The levels on a block of TK_STREAM_K registers, each written out with constant arguments: every
 * loop below has a constant trip count and constant bounds, so the compiler unrolls it and every
 * register index is a constant. (Loops over sz <<= 1 were not unrolled by NVIDIA's compiler: the
 * arrays went to memory and the pass ran several times slower than topk_tile.) */
#define TS_FLIP(X, sz)                                                 \
    _Pragma("unroll") for (uint c_ = 0; c_ < TK_STREAM_K / 2; ++c_) {  \
        const uint g_ = c_ / ((sz) / 2u), i_ = c_ % ((sz) / 2u);       \
        TK_CX(X, g_ * (sz) + i_, g_ * (sz) + (sz) - 1u - i_);          \
    }
#define TS_HALF(X, j)                                                  \
    _Pragma("unroll") for (uint c_ = 0; c_ < TK_STREAM_K / 2; ++c_) {  \
        const uint a_ = insert_zero_u32(c_, (j));                      \
        TK_CX(X, a_, a_ + (j));                                        \
    }
/* Half-cleaners TK_STREAM_K / 2 .. 1: sorts a bitonic block. */
#if TK_STREAM_K >= 32
#define TS_CLEAN(X) TS_HALF(X, 16u) TS_HALF(X, 8u) TS_HALF(X, 4u) TS_HALF(X, 2u) TS_HALF(X, 1u)
#elif TK_STREAM_K >= 16
#define TS_CLEAN(X) TS_HALF(X, 8u) TS_HALF(X, 4u) TS_HALF(X, 2u) TS_HALF(X, 1u)
#elif TK_STREAM_K >= 8
#define TS_CLEAN(X) TS_HALF(X, 4u) TS_HALF(X, 2u) TS_HALF(X, 1u)
#elif TK_STREAM_K >= 4
#define TS_CLEAN(X) TS_HALF(X, 2u) TS_HALF(X, 1u)
#elif TK_STREAM_K >= 2
#define TS_CLEAN(X) TS_HALF(X, 1u)
#else
#define TS_CLEAN(X)
#endif
#ifndef TK_STREAM_SORT
#define TK_STREAM_SORT 1     /* the block sort: 1 Batcher's odd-even merge sort, 0 bitonic */
#endif
/* Batcher's odd-even merge sort of a block (the iterative form: merges of 2p from runs of p,
 * strides k = p .. 1; a comparator only inside one 2p-block). 191 comparators for 32 keys
 * against bitonic's 240, 63 against 80 for 16, 19 against 24 for 8: the sort of the keys read is
 * most of the pass's work. Checked against every 0/1 input up to 16 keys and random inputs of 32
 * when written; tests/test_topk.c runs it on every stream case. */
#define TS_OEM(X, p, k)                                                                    \
    _Pragma("unroll") for (uint j_ = (k) % (p); j_ + (k) < TK_STREAM_K; j_ += 2u * (k))   \
        _Pragma("unroll") for (uint i_ = 0; i_ < (k); ++i_)                               \
            if (i_ + j_ + (k) < TK_STREAM_K &&                                            \
                (i_ + j_) / (2u * (p)) == (i_ + j_ + (k)) / (2u * (p)))                   \
                TK_CX(X, i_ + j_, i_ + j_ + (k));
#define TS_OEM2(X) TS_OEM(X, 1u, 1u)
#define TS_OEM4(X) TS_OEM2(X) TS_OEM(X, 2u, 2u) TS_OEM(X, 2u, 1u)
#define TS_OEM8(X) TS_OEM4(X) TS_OEM(X, 4u, 4u) TS_OEM(X, 4u, 2u) TS_OEM(X, 4u, 1u)
#define TS_OEM16(X) \
    TS_OEM8(X) TS_OEM(X, 8u, 8u) TS_OEM(X, 8u, 4u) TS_OEM(X, 8u, 2u) TS_OEM(X, 8u, 1u)
#define TS_OEM32(X)                                                                          \
    TS_OEM16(X) TS_OEM(X, 16u, 16u) TS_OEM(X, 16u, 8u) TS_OEM(X, 16u, 4u) TS_OEM(X, 16u, 2u) \
        TS_OEM(X, 16u, 1u)
/* The flip-form bitonic sort of a block: merges of 2, 4, .., TK_STREAM_K. */
#define TS_SORT2(X) TS_FLIP(X, 2u)
#define TS_SORT4(X) TS_SORT2(X) TS_FLIP(X, 4u) TS_HALF(X, 1u)
#define TS_SORT8(X) TS_SORT4(X) TS_FLIP(X, 8u) TS_HALF(X, 2u) TS_HALF(X, 1u)
#define TS_SORT16(X) TS_SORT8(X) TS_FLIP(X, 16u) TS_HALF(X, 4u) TS_HALF(X, 2u) TS_HALF(X, 1u)
#define TS_SORT32(X) \
    TS_SORT16(X) TS_FLIP(X, 32u) TS_HALF(X, 8u) TS_HALF(X, 4u) TS_HALF(X, 2u) TS_HALF(X, 1u)
#if TK_STREAM_SORT
#define TS_NET_(n, X) TS_OEM##n(X)
#else
#define TS_NET_(n, X) TS_SORT##n(X)
#endif
#if TK_STREAM_K == 32
#define TS_SORT(X) TS_NET_(32, X)
#elif TK_STREAM_K == 16
#define TS_SORT(X) TS_NET_(16, X)
#elif TK_STREAM_K == 8
#define TS_SORT(X) TS_NET_(8, X)
#elif TK_STREAM_K == 4
#define TS_SORT(X) TS_NET_(4, X)
#elif TK_STREAM_K == 2
#define TS_SORT(X) TS_NET_(2, X)
#elif TK_STREAM_K == 1
#define TS_SORT(X)
#else
#error "TK_STREAM_K must be a power of two up to 32"
#endif

/* In: the caller's rows (m keys each). P: keys a work-item reads (a multiple of K);
 * tiles_per_row: spans of TK_STREAM_WG * P a row. Out: the items at row * m_out + (span *
 * TK_STREAM_WG + t) * K, sorted blocks of K. */
__kernel CLSORT_SHAPE_TOPK_STREAM void topk_stream(CLSORT_ARGS_TOPK_TILE)
{
    (void)ik; (void)ii; (void)iv; (void)out_keys; (void)out_vals; (void)k; (void)mode;
    if (K != TK_STREAM_K) /* the host builds with TK_STREAM_K = K; never taken */
        return;
    const ulong g = get_group_id(0), row = g / tiles_per_row, span = g - row * tiles_per_row;
    const uint t = get_local_id(0);
    const ulong first = span * (ulong)TK_STREAM_WG * P;
    const int whole = first + (ulong)TK_STREAM_WG * P <= m; /* uniform: no position past the row */
    __global const key_type *src = keys + row * m;
    IF_VALS(__global const tk_val *vsrc = vals + row * m;)
    TS_DECL(R_)
    TS_DECL(W_)
#pragma unroll
    for (uint s = 0; s < TK_STREAM_K; ++s) {
        TK_SET_IN(R_, s, KEY_VIRTUAL, TK_IDX_VIRTUAL);
        IF_VALS(R_v[s] = 0;)
    }
    for (uint c = 0; c < P; c += TK_STREAM_K) {
#pragma unroll
        for (uint s = 0; s < TK_STREAM_K; ++s) {
            const ulong pos = first + (ulong)(c + s) * TK_STREAM_WG + t;
            key_type key = KEY_VIRTUAL;
            tk_idx idx = TK_IDX_VIRTUAL;
            IF_VALS(val_type val = 0;)
            if (whole || pos < m) {
                key = to_order(src[pos], xf);
                idx = (tk_idx)pos;
                IF_VALS(val = vsrc[pos];)
            }
            TK_SET_IN(W_, s, key, idx);
            IF_VALS(W_v[s] = val;)
        }
        /* Sort the K keys read (Batcher's odd-even merge sort), then halve them against the
         * block kept so far and merge the bitonic result. */
        TS_SORT(W_);
#pragma unroll
        for (uint i = 0; i < TK_STREAM_K; ++i)
            TK_MIN_OF(R_, i, W_, TK_STREAM_K - 1u - i);
        TS_CLEAN(R_);
    }
    const ulong at = row * m_out + (span * TK_STREAM_WG + t) * TK_STREAM_K;
#pragma unroll
    for (uint i = 0; i < TK_STREAM_K; ++i) {
        ok[at + i] = TK_KEY_IN(R_, i);
        oi[at + i] = TK_IDX_IN(R_, i);
        IF_VALS(ov[at + i] = R_v[i];)
    }
}

/* One level of a bitonic sort of every row of m items (m a power of two) in global memory:
 * the flip of a merge of size sz (j == sz / 2) or its half-cleaner at stride j. One comparator
 * per work-item, rows * m / 2 of them. */
__kernel CLSORT_SHAPE_GLOBAL void topk_global(CLSORT_ARGS_TOPK_GLOBAL)
{
    const ulong gid = get_global_id(0), nc = m >> 1;
    if (gid >= rows * nc)
        return;
    const ulong row = gid / nc, c = gid - row * nc;
    ulong a, b;
    if (j == sz >> 1) {
        const ulong g = c / j, i = c - g * j;
        a = g * sz + i;
        b = g * sz + sz - 1 - i;
    } else {
        a = insert_zero(c, j);
        b = a + j;
    }
    a += row * m;
    b += row * m;
    const key_type ka = ik[a], kb = ik[b];
    const tk_idx ia = ii[a], ib = ii[b];
    const bool sw = TK_LESS(kb, ib, ka, ia);
    ik[a] = sw ? kb : ka;
    ik[b] = sw ? ka : kb;
    ii[a] = sw ? ib : ia;
    ii[b] = sw ? ia : ib;
#if VAL_BYTES
    const val_type va = iv[a], vb = iv[b];
    iv[a] = sw ? vb : va;
    iv[b] = sw ? va : vb;
#else
    (void)iv;
#endif
}

#endif /* CLSORT_TOPK_CL */
