/* topk_radix.cl - the top-k of long rows by radix select (clsort_topk; docs/kernels.md, "Top-k by
 * radix select"): digit histograms narrow down each row's k-th key, the keys before it (and as
 * many of the keys equal to it as the k need, lowest index first) are compacted to k items a
 * row, and topk.cl's network sorts those.
 *
 * Keys are read in order space (to_order: the documented order, direction included), so "the k
 * smallest" is the top-k in every type and direction. Digits are RS_BITS wide, most significant
 * first: pass p looks at bits [shift_p, shift_p + bits_p) of the keys whose higher bits equal the
 * prefix chosen so far. After each pass the row's state is (prefix, shift, kleft): the keys whose
 * bits above `shift` equal the prefix hold the kleft items still wanted; keys whose bits above
 * shift are below the prefix are all taken. A row is done early when the chosen bucket holds
 * exactly kleft keys (all of them are taken), else after the last digit, when the prefix is the
 * k-th key itself and the first kleft keys equal to it (by index) are taken.
 *
 * Passes (one launch each: planned by host/planning/plan.c, scheduled by schedule.c, enqueued by
 * run.c; arguments and shapes are kernels/manifest.h's TOPK_RADIX rows). Every launch covers all
 * rows: a work-group takes a chunk of `chunk` keys of one row, `chunks` chunks a row.
 *   topk_radix_zero     zeroes the histograms (RS_PASSES x rows x RS_BINS counters).
 *   topk_radix_hist     pass p: the row's state after pass p - 1 (from the state after p - 2 and
 *                       histogram p - 1; chunk 0 stores it), then the histogram of digit p of
 *                       the matching keys, in local memory, added to the row's with atomics.
 *   topk_radix_count    the final state (chunk 0 stores it), then per chunk the keys before the
 *                       prefix (`less`) and equal to it (`eq`).
 *   topk_radix_scan     one work-group a row: the chunks' exclusive sums of both counts.
 *   topk_radix_compact  writes each row's k items (key in order space, index, value) to the
 *                       item buffer: the less keys from 0, the first kleft equal keys from
 *                       k - kleft, each in index order within its chunk (a scan in local memory).
 * Counts are 32-bit: the host takes this path only for rows of fewer than 2^32 keys. Unlike
 * topk.cl's network, which launches and loads depend on the keys: not oblivious. */
#ifndef CLSORT_TOPK_RADIX_CL
#define CLSORT_TOPK_RADIX_CL
#ifndef CLSORT_TOPK_CL
#include "topk.cl"
#endif

#ifndef RS_WG
#define RS_WG 64             /* work-items of the radix passes; a power of two, <= RS_BINS */
#endif
#ifndef RS_BITS
#define RS_BITS 8            /* bits a digit */
#endif
#define RS_BINS (1u << RS_BITS)
#if RS_WG > (1 << RS_BITS)
#error "RS_WG must be at most the bins of a digit"
#endif
#define RS_PASSES ((KEY_BITS + RS_BITS - 1) / RS_BITS)
/* The state of a row after pass p: two ulongs at state[(row * (RS_PASSES + 1) + p) * 2]. */
#define RS_STATE_AT(row, p) (((row) * (RS_PASSES + 1) + (p)) * 2)

typedef struct rs_state {
    ulong prefix;            /* order-space bits above shift (the rest zero) */
    uint shift;              /* bits below it are not decided yet */
    uint kleft;              /* items still wanted among the keys matching the prefix */
    uint done;               /* the matching keys are all taken: no further digit matters */
} rs_state;

/* The bits of x above s (s may be 64: none). */
inline ulong rs_hi(const ulong x, const uint s)
{
    return s >= 64u ? 0ul : x >> s;
}

inline uint rs_shift_of(const uint p)
{
    return KEY_BITS > (p + 1u) * RS_BITS ? KEY_BITS - (p + 1u) * RS_BITS : 0u;
}

inline rs_state rs_initial(const ulong k)
{
    rs_state s;
    s.prefix = 0;
    s.shift = KEY_BITS;
    s.kleft = (uint)k;
    s.done = 0;
    return s;
}

inline rs_state rs_load(__global const ulong *state, const ulong row, const uint p, const ulong k)
{
    if (p == 0)
        return rs_initial(k);
    const ulong at = RS_STATE_AT(row, p), w = state[at + 1];
    rs_state s;
    s.prefix = state[at];
    s.kleft = (uint)w;
    s.shift = (uint)(w >> 32) & 0xFFu;
    s.done = (uint)(w >> 40) & 1u;
    return s;
}

inline void rs_store(__global ulong *state, const ulong row, const uint p, const rs_state s)
{
    const ulong at = RS_STATE_AT(row, p);
    state[at] = s.prefix;
    state[at + 1] = (ulong)s.kleft | (ulong)s.shift << 32 | (ulong)s.done << 40;
}

/* Exclusive sum over the work-group of one value per work-item (x), through local memory
 * (RS_WG words): returns the sum of the values of the lower work-items, *total the sum of all.
 * Every work-item of the group must call it (barriers). */
inline uint rs_scan(const uint x, __local uint *l, uint *total)
{
    const uint t = get_local_id(0);
#if RS_WG == 1
    (void)l;
    *total = x;
    return 0;
#else
    l[t] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = 1; d < RS_WG; d <<= 1) {
        const uint add = t >= d ? l[t - d] : 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
        l[t] += add;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const uint incl = l[t];
    *total = l[RS_WG - 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    return incl - x;
#endif
}

/* The state after pass p from the state s before it and the row's histogram h of digit p: the
 * bucket b where the kleft-th matching key falls (fewer than kleft keys in the buckets below b,
 * at least kleft with b). Work-group wide (every work-item gets the same state); l: RS_WG + 2
 * words of local memory. */
inline rs_state rs_pick(rs_state s, __global const uint *h, const uint p, __local uint *l)
{
    if (s.done) /* uniform */
        return s;
    /* Each work-item sums a run of RS_BINS / RS_WG bins. */
    const uint t = get_local_id(0);
    const uint per = RS_BINS / RS_WG;
    const uint first = t * per;
    uint mine = 0;
    for (uint i = 0; i < per; ++i)
        mine += h[first + i];
    uint total;
    uint below = rs_scan(mine, l, &total);
    if (below < s.kleft && s.kleft <= below + mine) {
        uint b = first;
        while (below + h[b] < s.kleft)
            below += h[b++];
        l[RS_WG] = b;
        l[RS_WG + 1] = below;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint b = l[RS_WG];
    below = l[RS_WG + 1];
    const uint count = h[b];
    barrier(CLK_LOCAL_MEM_FENCE);
    s.shift = rs_shift_of(p);
    s.prefix |= (ulong)b << s.shift;
    s.kleft -= below;
    s.done = count == s.kleft;
    return s;
}

/* Whether key (order space) is before the prefix, or matches it. */
#define RS_BEFORE(key, s) (rs_hi((ulong)(key), (s).shift) < rs_hi((s).prefix, (s).shift))
#define RS_MATCH(key, s) (rs_hi((ulong)(key), (s).shift) == rs_hi((s).prefix, (s).shift))

/* The work-group's row, chunk and the chunk's first key and key count. */
#define RS_CHUNK()                                                                      \
    const ulong grp_ = get_group_id(0), row = grp_ / chunks, c = grp_ - row * chunks;   \
    const ulong start = c * chunk;                                                      \
    const uint len = (uint)(m - start < chunk ? m - start : chunk);                     \
    __global const key_type *src = keys + row * m + start

__kernel CLSORT_SHAPE_GLOBAL void topk_radix_zero(CLSORT_ARGS_TOPK_RADIX)
{
    (void)keys; (void)vals; (void)counts; (void)state; (void)ok; (void)oi; (void)ov;
    (void)m; (void)k; (void)chunk; (void)chunks; (void)xf; (void)pass;
    const ulong i = get_global_id(0);
    if (i < rows * RS_PASSES * RS_BINS)
        hist[i] = 0;
}

__kernel CLSORT_SHAPE_TOPK_RADIX void topk_radix_hist(CLSORT_ARGS_TOPK_RADIX)
{
    (void)vals; (void)counts; (void)ok; (void)oi; (void)ov;
    __local uint lh[RS_BINS];
    __local uint l[RS_WG + 2];
    RS_CHUNK();
    rs_state s = rs_load(state, row, pass ? pass - 1u : 0u, k);
    if (pass >= 1u) {
        s = rs_pick(s, hist + ((ulong)(pass - 1u) * rows + row) * RS_BINS, pass - 1u, l);
        if (c == 0 && get_local_id(0) == 0)
            rs_store(state, row, pass, s);
    }
    if (s.done) /* uniform: the row needs no more digits */
        return;
    for (uint b = get_local_id(0); b < RS_BINS; b += RS_WG)
        lh[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint sh = rs_shift_of(pass);
    const uint mask = (1u << (s.shift - sh)) - 1u;
    for (uint i = get_local_id(0); i < len; i += RS_WG) {
        const key_type key = to_order(src[i], xf);
        if (RS_MATCH(key, s))
            atomic_inc(&lh[(uint)((ulong)key >> sh) & mask]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    __global uint *h = hist + ((ulong)pass * rows + row) * RS_BINS;
    for (uint b = get_local_id(0); b < RS_BINS; b += RS_WG)
        if (lh[b])
            atomic_add(&h[b], lh[b]);
}

/* counts: four words a chunk, at (row * chunks + c) * 4: less, eq (here), and their exclusive
 * sums over the row's chunks (topk_radix_scan). */
__kernel CLSORT_SHAPE_TOPK_RADIX void topk_radix_count(CLSORT_ARGS_TOPK_RADIX)
{
    (void)vals; (void)ok; (void)oi; (void)ov; (void)pass;
    __local uint l[RS_WG + 2];
    RS_CHUNK();
    rs_state s = rs_load(state, row, RS_PASSES - 1u, k);
    s = rs_pick(s, hist + ((ulong)(RS_PASSES - 1u) * rows + row) * RS_BINS, RS_PASSES - 1u, l);
    if (c == 0 && get_local_id(0) == 0)
        rs_store(state, row, RS_PASSES, s);
    uint less = 0, eq = 0;
    for (uint i = get_local_id(0); i < len; i += RS_WG) {
        const key_type key = to_order(src[i], xf);
        less += RS_BEFORE(key, s);
        eq += RS_MATCH(key, s);
    }
    uint total_less, total_eq;
    (void)rs_scan(less, l, &total_less);
    (void)rs_scan(eq, l, &total_eq);
    if (get_local_id(0) == 0) {
        counts[grp_ * 4] = total_less;
        counts[grp_ * 4 + 1] = total_eq;
    }
}

/* One work-group a row: each work-item sums a run of the row's chunks, then the runs' sums are
 * scanned and each run written with its offsets. */
__kernel CLSORT_SHAPE_TOPK_RADIX void topk_radix_scan(CLSORT_ARGS_TOPK_RADIX)
{
    (void)keys; (void)vals; (void)hist; (void)state; (void)ok; (void)oi; (void)ov;
    (void)m; (void)k; (void)chunk; (void)xf; (void)pass;
    __local uint l[RS_WG + 2];
    const ulong row = get_group_id(0);
    const ulong per = (chunks + RS_WG - 1) / RS_WG, first = get_local_id(0) * per;
    const ulong end = first + per < chunks ? first + per : chunks;
    __global uint *cnt = counts + row * chunks * 4;
    uint less = 0, eq = 0;
    for (ulong c = first; c < end; ++c) {
        less += cnt[c * 4];
        eq += cnt[c * 4 + 1];
    }
    uint total;
    uint off_less = rs_scan(less, l, &total);
    uint off_eq = rs_scan(eq, l, &total);
    for (ulong c = first; c < end; ++c) {
        const uint a = cnt[c * 4], b = cnt[c * 4 + 1];
        cnt[c * 4 + 2] = off_less;
        cnt[c * 4 + 3] = off_eq;
        off_less += a;
        off_eq += b;
    }
}

/* The items of the row's k survivors into (ok, oi, ov) at row * k: a chunk without any returns
 * at once. The keys are taken RS_WG at a time; a scan of (less, eq) flags, packed in one word
 * (16 bits each, which hold RS_WG <= RS_BINS), gives each its place in index order. */
__kernel CLSORT_SHAPE_TOPK_RADIX void topk_radix_compact(CLSORT_ARGS_TOPK_RADIX)
{
    (void)hist; (void)pass;
    __local uint l[RS_WG + 2];
    RS_CHUNK();
    const rs_state s = rs_load(state, row, RS_PASSES, k);
    __global const uint *cnt = counts + grp_ * 4;
    const uint less_n = cnt[0], eq_n = cnt[1], less_at = cnt[2], eq_at = cnt[3];
    const uint eq_want = eq_at < s.kleft ? min(eq_n, s.kleft - eq_at) : 0u;
    if (less_n == 0 && eq_want == 0) /* uniform */
        return;
    const ulong out = row * k;
    const ulong eq_base = k - s.kleft;
    uint less_seen = 0, eq_seen = 0;
    for (uint i0 = 0; i0 < len && (less_seen < less_n || eq_seen < eq_want); i0 += RS_WG) {
        const uint i = i0 + get_local_id(0);
        key_type key = 0;
        uint flags = 0;
        if (i < len) {
            key = to_order(src[i], xf);
            flags = RS_BEFORE(key, s) ? 1u : RS_MATCH(key, s) ? 0x10000u : 0u;
        }
        /* Most runs of a long row hold no survivor: one flag in local memory says so, at three
         * barriers instead of the scan's. */
#if RS_WG > 1
        if (get_local_id(0) == 0)
            l[RS_WG] = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (flags)
            l[RS_WG] = 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint any = l[RS_WG];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (!any) /* uniform */
            continue;
#endif
        uint total;
        const uint before = rs_scan(flags, l, &total);
        ulong at = ~0ul;
        if (flags == 1u)
            at = out + less_at + less_seen + (before & 0xFFFFu);
        else if (flags && eq_seen + (before >> 16) < eq_want)
            at = out + eq_base + eq_at + eq_seen + (before >> 16);
        if (at != ~0ul) {
            ok[at] = key;
            oi[at] = (tk_idx)(start + i);
            IF_VALS(ov[at] = vals[row * m + start + i];)
        }
        less_seen += total & 0xFFFFu;
        eq_seen += total >> 16;
    }
}

#endif /* CLSORT_TOPK_RADIX_CL */
