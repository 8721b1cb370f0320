/* schedule.c - the sequence of launches of each plan: a network's (docs/kernels.md has the
 * diagrams) or the segmented sort's. Pure arithmetic on the plan: no OpenCL here, so the tests,
 * the benchmark's pass counts and the data-obliviousness check all see exactly what run.c
 * enqueues. Kernels are named by the manifest's identifiers (CLSORT__K_*, kernels/manifest.h),
 * and whether a kernel exists for the parameters is the manifest's condition
 * (clsort__kernel_built), the one the kernels' #if guards test. */
#include "schedule.h"

#include "kernels.h"
#include "seg_layout.h"

#include <string.h>

uint64_t clsort__next_pow2(uint64_t x)
{
    uint64_t p = 1;
    while (p < x)
        p <<= 1;
    return p;
}

unsigned clsort__log2(uint64_t x)
{
    unsigned l = 0;
    while (((uint64_t)1 << l) < x)
        ++l;
    return l;
}

/* The R-level variants of the global passes, by R = 1..5 (the manifest's CLSORT_WHEN_Rn). */
#define BY_R(name) {CLSORT__NKERNELS, CLSORT__K_##name##1, CLSORT__K_##name##2, \
                    CLSORT__K_##name##3, CLSORT__K_##name##4, CLSORT__K_##name##5}
static const clsort__kernel_id bitonic_global[] = BY_R(bitonic_global_r);
static const clsort__kernel_id bitonic_flip[] = BY_R(bitonic_flip_r);
static const clsort__kernel_id bitonic_global_tail[] = BY_R(bitonic_global_tail_r);
static const clsort__kernel_id bitonic_flip_tail[] = BY_R(bitonic_flip_tail_r);
static const clsort__kernel_id oem_global_top[] = BY_R(oem_global_top_r);

/* The launch of one kernel: its step arguments are the uints of its argument list. */
static clsort__step step(clsort__kernel_id kernel, uint64_t items, int nargs, cl_uint a0,
                         cl_uint a1)
{
    clsort__step s = {.kernel = kernel, .items = items, .args = {a0, a1}, .nargs = nargs,
                      .op = CLSORT__OP_LAUNCH};
    return s;
}

/* A launch of a tile kernel over `tiles` tiles: a work-group of WG_SIZE work-items shares each
 * tile, or a work-item has one alone where the kernel's shape allows (the manifest's TILE
 * shape with CLSORT_WHEN_SOLO). */
static clsort__step tile_step(clsort__kernel_id kernel, uint64_t tiles, const clsort_params *p,
                              int nargs, cl_uint a0, cl_uint a1)
{
    const int solo = clsort__kernels[kernel].shape == CLSORT__SHAPE_TILE && clsort__solo_tile(p);
    return step(kernel, solo ? tiles : tiles * p->wg_size, nargs, a0, a1);
}

#define EMIT(step)                          \
    do {                                    \
        const clsort__step s_ = (step);     \
        const int rc_ = emit(&s_, user);    \
        if (rc_ != CLSORT_OK)               \
            return rc_;                     \
    } while (0)

/* The wide passes (bitonic_wide, bitonic_wide.cl; oem_wide_top, oddeven_merge.cl): a work-group
 * runs up to log2(TILE / 16) levels on a virtual tile of TILE keys (rows at least 16 keys wide)
 * through local memory, where the register passes run log2(KEYS_PER_ITEM). Bitonic's takes
 * WIDE_LOG = log2(TILE / WG_SIZE) of them per trip. Built where the manifest's CLSORT_WHEN_WIDE
 * holds (tiles shared by a work-group, WG_SIZE >= 16); so never with PoCL's default bitonic solo
 * tiles, where the register passes over adjacent columns are the fast shape (docs/perf.md).
 * 0: no wide pass. */
static unsigned wide_max_levels(clsort__kernel_id wide, const clsort_params *p)
{
    if (!clsort__kernel_built(wide, p))
        return 0;
    return clsort__log2(p->tile / 16);
}

/* The odd-even merge's wide pass (oem_wide_top) runs its levels below the first group one step
 * over the tile at a time, each a barrier. Left out where a work-item holds more than 16 keys of
 * a tile, which is the CPU shape (params.c: 32): PoCL runs a group's work-items as a loop, where
 * a local step costs as much as a global level (PoCL-2c, 2^21 u32: 13.4 ms for an 8-level wide
 * pass, against a 3-level register pass of 3.1 ms and 1.5 ms a single level; docs/perf.md). */
static unsigned oem_wide_max_levels(const clsort_params *p)
{
    return p->tile / p->wg_size <= 16 ? wide_max_levels(CLSORT__K_oem_wide_top, p) : 0;
}

static int schedule_bitonic(uint64_t n, const clsort_params *p, clsort__emit_fn emit, void *user)
{
    const uint64_t N = clsort__next_pow2(n), tile = p->tile;
    const uint64_t groups = (n + tile - 1) / tile;
    const unsigned R = clsort__log2(p->keys_per_item);
    const unsigned wide_max = wide_max_levels(CLSORT__K_bitonic_wide, p);
    const unsigned wide_min = wide_max ? clsort__log2(p->tile / p->wg_size) : 0;
    /* With VEC_STEP == TILE (<= 32) every row of the last group is a whole tile, and the tile's
     * half-cleaners run in the same pass (the _tail kernels, bitonic_global.cl). */
    const int tail = clsort__kernel_built(CLSORT__K_bitonic_global_tail_r1, p);
    EMIT(tile_step(CLSORT__K_bitonic_sort_tile, groups, p, 1, (cl_uint)(N < tile ? N : tile), 0));
    for (uint64_t k = 2 * tile; k <= N; k <<= 1) {
        /* Strides k/2 (the flip) down to tile, in groups of up to R fused levels. */
        unsigned levels = clsort__log2(k / 2) - clsort__log2(tile) + 1;
        uint64_t jhigh = k / 2;
        int flip = 1;
        while (levels) {
            /* A wide pass where it fuses more levels than a register pass; greedy, so each
             * merge takes ceil(levels / wide_max) passes or fewer (docs/kernels.md). */
            const unsigned w = levels < wide_max ? levels : wide_max;
            if (w > R && w >= wide_min) {
                const uint64_t jlow = jhigh >> (w - 1);
                EMIT(tile_step(flip ? CLSORT__K_bitonic_wide_flip : CLSORT__K_bitonic_wide,
                               N / tile, p, 2, clsort__log2(jlow), (cl_uint)w));
                flip = 0;
                jhigh = jlow >> 1;
                levels -= w;
                continue;
            }
            const unsigned r = levels < R ? levels : R;
            const uint64_t jlow = jhigh >> (r - 1);
            const int last = levels == r;
            const clsort__kernel_id k =
                flip ? (tail && last ? bitonic_flip_tail[r] : bitonic_flip[r])
                     : (tail && last ? bitonic_global_tail[r] : bitonic_global[r]);
            /* VEC_STEP adjacent columns per work-item; N >> r >= jlow >= TILE >= VEC_STEP. */
            EMIT(step(k, (N >> r) / p->vec_step, 1, clsort__log2(jlow), 0));
            flip = 0;
            jhigh = jlow >> 1;
            levels -= r;
        }
        if (!tail)
            EMIT(tile_step(CLSORT__K_bitonic_merge_tile, groups, p, 1, (cl_uint)(tile / 2), 0));
    }
    return CLSORT_OK;
}

static int schedule_oddeven_merge(uint64_t n, const clsort_params *p, clsort__emit_fn emit,
                                  void *user)
{
    const uint64_t N = clsort__next_pow2(n), tile = p->tile;
    const uint64_t groups = (n + tile - 1) / tile;
    const unsigned R = clsort__log2(p->keys_per_item);
    const unsigned wide_max = oem_wide_max_levels(p);
    EMIT(tile_step(CLSORT__K_oem_sort_tile, groups, p, 1, (cl_uint)(N < tile ? N : tile), 0));
    /* Tiles shifted by TILE/2 (oem_finish_tile): those that start below n. */
    const uint64_t shifted = n > tile / 2 ? (n - tile / 2 + tile - 1) / tile : 0;
    for (uint64_t half = tile; half < N; half <<= 1) {
        /* Merge of blocks of `half` into 2*half: levels half .. tile fused at the top where the
         * set is closed (the wide pass where it fuses more levels than registers do), one
         * launch per level below that, then the finish (level tile/2 and two passes of tile
         * merges; docs/kernels.md). All in place. */
        const unsigned levels = clsort__log2(half) - clsort__log2(tile) + 1;
        const unsigned w = levels < wide_max ? levels : wide_max;
        const unsigned r = levels < R ? levels : R;
        const uint64_t jlow = half >> ((w > R ? w : r) - 1);
        if (w > R)
            EMIT(tile_step(CLSORT__K_oem_wide_top, N / tile, p, 2, clsort__log2(jlow), (cl_uint)w));
        else
            EMIT(step(oem_global_top[r], N >> r, 1, clsort__log2(jlow), 0));
        for (uint64_t k = jlow / 2; k >= tile; k >>= 1)
            EMIT(step(CLSORT__K_oem_global_level, N / 2, 2, clsort__log2(k), clsort__log2(half)));
        for (int sh = 1; sh >= 0; --sh)
            EMIT(tile_step(CLSORT__K_oem_finish_tile, sh ? shifted : groups, p, 2,
                           (cl_uint)clsort__log2(half), (cl_uint)sh));
    }
    return CLSORT_OK;
}

static int schedule_transposition(uint64_t n, const clsort_params *p, clsort__emit_fn emit,
                                  void *user)
{
    const uint64_t tile = p->tile;
    const uint64_t blocks = (n + tile - 1) / tile;
    const uint64_t in_tile = n < tile ? n : tile;
    /* One loop iteration of oet_sort_tile is two steps; m keys need m steps. */
    EMIT(tile_step(CLSORT__K_oet_sort_tile, blocks, p, 1, (cl_uint)((in_tile + 1) / 2), 0));
    if (blocks < 2)
        return CLSORT_OK;
    for (uint64_t round = 0; round < blocks; ++round) {
        const cl_uint parity = (cl_uint)(round & 1);
        const uint64_t pairs = (blocks - parity) / 2;
        if (!pairs)
            continue;
        EMIT(step(CLSORT__K_oet_merge_pairs, pairs * tile, 1, parity, 0));
        EMIT(tile_step(CLSORT__K_bitonic_merge_tile, blocks, p, 1, (cl_uint)(tile / 2), 0));
    }
    return CLSORT_OK;
}

/* Work-items of the two binning passes: one per segment up to 2^18, then 2^18 (4096 groups of
 * 64), each group binning a block of consecutive segments (segmented.cl, seg_group_block): one
 * global atomic per bin and group, at most 4096 on a shared counter. For 2^20 segments of 16
 * keys on an H100 the two passes took 21 + 32 us with one work-item per segment, 14 + 19 us
 * with 2^18, 18 + 23 with 2^16 and 43 + 46 with 2^14 (fewer items, less latency hidden). */
#define SEG_BIN_ITEMS_MAX 262144u

static uint64_t seg_bin_items(uint64_t nseg)
{
    return nseg < SEG_BIN_ITEMS_MAX ? nseg : SEG_BIN_ITEMS_MAX;
}

/* seg_large_global's first argument (kernels/manifest.h, CLSORT_LARGE_ARG). */
static cl_uint large_arg(unsigned log_jlow, unsigned r, int flip)
{
    return (cl_uint)CLSORT_LARGE_ARG(log_jlow, r, (unsigned)(flip != 0));
}

/* The segmented sort (kernels/segmented.cl): zero the bin counters, bin the segments by length
 * (count, then scatter into the list), then each range of bins once: the tiny segments (bins
 * below tiny_log) one a work-item, those up to the packed tile (bins tiny_log .. pack_log - 1)
 * packed into tiles, the rest (up to the bin of those above 4096 keys) one a work-group. With
 * the large passes (kernels/seg_large.cl) the segments above 4096 keys leave the group pass:
 * after the binning their units are numbered, the packed pass sorts each unit whole, and then
 * bitonic_sort's merges above the tile follow on all of them at once (schedule_bitonic's order:
 * the levels of strides K/2 .. TILE in register passes of up to CLSORT_LARGE_R_MAX levels, then the
 * tile's half-cleaners), for every K up to 2^large_log. Depends only on (nseg, the bounds given,
 * the shape). */
static int schedule_segmented(const clsort__seg_plan *sg, clsort__emit_fn emit, void *user)
{
    const clsort__step zero = {.kernel = CLSORT__NKERNELS, .op = CLSORT__OP_ZERO_COUNTERS};
    const int large = sg->large_log != 0;
    const uint64_t pack_groups = large && sg->large_groups > sg->pack_groups ? sg->large_groups
                                                                              : sg->pack_groups;
    /* The staged tiny pass finds its segments by index: when it is the only pass (the host
     * variant saw nothing longer), nothing is binned (2^20 segments of 16 keys: the count and
     * the scatter took 20-25 us of 78 on an H200). */
    const int binned = !(sg->tiny_staged && !pack_groups && !sg->groups && !large);
    if (sg->composed)
        EMIT(step(CLSORT__K_seg_compose, sg->cap, 0, 0, 0));
    if (binned) {
        EMIT(zero);
        EMIT(step(CLSORT__K_seg_count, seg_bin_items(sg->nseg), 0, 0, 0));
        EMIT(step(CLSORT__K_seg_scatter, seg_bin_items(sg->nseg), 0, 0, 0));
    }
    if (large)
        EMIT(step(CLSORT__K_seg_large_scan, sg->wg, 2, 0, 0));
    if (sg->tiny_items && sg->tiny_log)
        EMIT(step(CLSORT__K_seg_sort_tiny, sg->tiny_items, 0, 0, 0));
    if (pack_groups && (sg->pack_log > sg->tiny_log || large))
        EMIT(step(CLSORT__K_seg_sort_packed, pack_groups * sg->wg, 2, sg->tiny_log,
                  (sg->pack_log - 1) | (large ? CLSORT_SEG_PACK_LARGE : 0u)));
    const cl_uint group_bin = sg->pack_tile ? sg->pack_log : sg->tiny_log;
    const cl_uint group_last = large ? CLSORT__SEG_LARGE_BIN - 1 : CLSORT__SEG_LARGE_BIN;
    if (sg->groups && group_bin <= group_last)
        EMIT(step(CLSORT__K_seg_sort_group, sg->groups * sg->wg, 2, group_bin, group_last));
    const unsigned tile_log = sg->pack_log;
    const uint64_t items = sg->large_groups * sg->wg;
    for (unsigned klog = tile_log + 1; large && klog <= sg->large_log; ++klog) {
        unsigned levels = klog - tile_log; /* strides 2^(klog-1) .. TILE */
        unsigned top = klog - 1;           /* log2 of the highest stride left */
        int flip = 1;
        while (levels) {
            const unsigned r = levels < CLSORT_LARGE_R_MAX ? levels : CLSORT_LARGE_R_MAX;
            EMIT(step(CLSORT__K_seg_large_global, items, 2, large_arg(top + 1 - r, r, flip),
                      klog));
            levels -= r;
            top -= r;
            flip = 0;
        }
        EMIT(step(CLSORT__K_seg_large_merge, items, 2, klog, 0));
    }
    if (sg->composed)
        EMIT(step(CLSORT__K_seg_decompose, sg->cap, 0, 0, 0));
    return CLSORT_OK;
}

static int schedule_network(clsort__network net, uint64_t n, const clsort_params *p,
                            clsort__emit_fn emit, void *user)
{
    if (n < 2)
        return CLSORT_OK;
    switch (net) {
    case CLSORT__NET_BITONIC:
        return schedule_bitonic(n, p, emit, user);
    case CLSORT__NET_ODD_EVEN_MERGE:
        return schedule_oddeven_merge(n, p, emit, user);
    case CLSORT__NET_TRANSPOSITION:
        return schedule_transposition(n, p, emit, user);
    }
    return CLSORT_ERR_INVALID_ARG;
}

/* Mode bits of topk_tile (kernels/topk.cl). */
#define TK_FROM_INPUT 1u
#define TK_SORT 2u
#define TK_MERGE 4u
#define TK_FINAL 8u

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

/* A topk_tile launch on `groups` work-groups of TK_WG, from/to as in clsort__topk_args; traced
 * with its K and mode. */
static clsort__step topk_tile_step(const clsort__topk_plan *tp, uint64_t groups,
                                   const clsort__topk_args *a)
{
    clsort__step s = step(CLSORT__K_topk_tile, groups * tp->wg, 2, a->K, a->mode);
    s.tk = *a;
    return s;
}

/* A topk_global level of a bitonic sort of every row of m items in item buffer 1: the flip of a
 * merge of size sz (j == sz / 2) or its half-cleaner at stride j, one comparator a work-item;
 * traced with log2(sz), log2(j). */
static clsort__step topk_global_step(const clsort__topk_plan *tp, uint64_t m, uint64_t sz,
                                     uint64_t j)
{
    clsort__step s = step(CLSORT__K_topk_global, tp->rows * (m / 2), 2, clsort__log2(sz),
                          clsort__log2(j));
    s.tk.from = s.tk.to = 1;
    s.tk.m = m;
    s.tk.sz = sz;
    s.tk.j = j;
    return s;
}

/* Top-k's network (kernels/topk.cl, docs/kernels.md "Top-k"), K (k rounded up to a power of two)
 * at most half the tile: each topk_tile pass halves every tile's blocks of K to one, until a row
 * fits a tile. Rows of m items come from `src` (0 the input, 2 the radix select's survivors). */
static int schedule_topk_network(const clsort__plan *plan, int src, uint64_t m,
                                 clsort__emit_fn emit, void *user)
{
    const clsort__topk_plan *tp = &plan->topk;
    const uint64_t K = clsort__next_pow2(tp->k), rows = tp->rows, n = plan->n;
    const unsigned T = tp->tile;
    clsort__topk_args a;
    int from = src, to = src == 1 ? 2 : 1;
    unsigned mode = (src == 0 ? TK_FROM_INPUT : 0) | TK_SORT;
    if (tp->stream && src == 0) {
        /* topk_stream: each work-item's K smallest of the tp->stream keys it reads, as
         * sorted blocks of K for the halving passes below. */
        memset(&a, 0, sizeof a);
        a.from = 0;
        a.to = 1;
        a.P = tp->stream;
        a.K = (cl_uint)K;
        a.m = n;
        a.tiles_per_row = ceil_div(n, (uint64_t)tp->stream_wg * tp->stream);
        a.m_out = a.tiles_per_row * tp->stream_wg * K;
        a.mode = TK_FROM_INPUT;
        clsort__step s = step(CLSORT__K_topk_stream, rows * a.tiles_per_row * tp->stream_wg, 2,
                              a.K, a.P);
        s.tk = a;
        EMIT(s);
        m = a.m_out;
        from = 1;
        to = 2;
        mode = 0;
    }
    for (;;) {
        const uint64_t N = clsort__next_pow2(m);
        const int final = N <= T;
        memset(&a, 0, sizeof a);
        a.from = from;
        a.P = (cl_uint)(final ? N : T);
        a.K = (cl_uint)K;
        a.m = m;
        a.tiles_per_row = final ? 1 : ceil_div(m, T);
        a.m_out = a.tiles_per_row * K;
        a.mode = mode | (final ? TK_FINAL : 0);
        a.to = final ? 3 : to;
        EMIT(topk_tile_step(tp, final ? ceil_div(rows, T / a.P) : rows * a.tiles_per_row, &a));
        if (final)
            return CLSORT_OK;
        m = a.m_out;
        from = to;
        to = to == 1 ? 2 : 1;
        mode = 0; /* the items come in sorted blocks of K */
    }
}

/* Top-k's full sort, k above half the tile: a bitonic sort of each row of m items from `src` (0
 * the input, 2 the survivors) padded to N with the same comparator (so stable): tiles in local
 * memory, the wider levels in global memory (buffer 1); the first k of each row go out. */
static int schedule_topk_full(const clsort__plan *plan, int src, uint64_t m,
                              clsort__emit_fn emit, void *user)
{
    const clsort__topk_plan *tp = &plan->topk;
    const uint64_t rows = tp->rows, N = clsort__next_pow2(m);
    const unsigned T = tp->tile;
    const unsigned from_input = src == 0 ? TK_FROM_INPUT : 0;
    clsort__topk_args a;
    memset(&a, 0, sizeof a);
    a.from = src;
    a.m = m;
    if (N <= T) {
        a.to = 3;
        a.P = a.K = (cl_uint)N;
        a.tiles_per_row = 1;
        a.m_out = N;
        a.mode = from_input | TK_SORT | TK_FINAL;
        EMIT(topk_tile_step(tp, ceil_div(rows, T / N), &a));
        return CLSORT_OK;
    }
    a.to = 1;
    a.P = a.K = T;
    a.tiles_per_row = N / T;
    a.m_out = N;
    a.mode = from_input | TK_SORT;
    EMIT(topk_tile_step(tp, rows * a.tiles_per_row, &a));
    for (uint64_t sz = 2 * (uint64_t)T; sz <= N; sz <<= 1) {
        for (uint64_t j = sz / 2; j >= T; j >>= 1)
            EMIT(topk_global_step(tp, N, sz, j));
        memset(&a, 0, sizeof a);
        a.from = 1;
        a.to = sz == N ? 3 : 1;
        a.P = a.K = T;
        a.m = a.m_out = N;
        a.tiles_per_row = N / T;
        a.mode = TK_MERGE | (sz == N ? TK_FINAL : 0);
        EMIT(topk_tile_step(tp, rows * a.tiles_per_row, &a));
    }
    return CLSORT_OK;
}

/* A launch of a radix select pass (kernels/topk_radix.cl) on `groups` work-groups of RS_WG
 * (GLOBAL for the zeroing: `groups` work-items); traced with the pass and the chunk. */
static clsort__step topk_radix_step(const clsort__plan *plan, clsort__kernel_id kernel,
                                    uint64_t groups, unsigned pass)
{
    const clsort__topk_plan *tp = &plan->topk;
    const int global = kernel == CLSORT__K_topk_radix_zero;
    clsort__step s = step(kernel, global ? groups : groups * tp->rs_wg, 2, pass,
                          (cl_uint)tp->rs_chunk);
    s.tk.from = 0;
    s.tk.to = kernel == CLSORT__K_topk_radix_compact ? 2 : 0;
    s.tk.m = plan->n;
    s.tk.m_out = kernel == CLSORT__K_topk_radix_compact ? tp->k : 0;
    s.tk.P = (cl_uint)tp->rs_chunk;
    s.tk.tiles_per_row = tp->rs_chunks;
    s.tk.mode = pass;
    return s;
}

/* Top-k by radix select (kernels/topk_radix.cl, docs/kernels.md "Top-k by radix select"): the
 * histograms zeroed, a histogram pass a digit, the chunks' counts, their scan, the compaction of
 * each row's k survivors to item buffer 2; then the network (or the full sort) of those k items a
 * row. The launches depend only on (n, rows, k, the key width); which keys they touch does not. */
static int schedule_topk_radix(const clsort__plan *plan, clsort__emit_fn emit, void *user)
{
    const clsort__topk_plan *tp = &plan->topk;
    const uint64_t groups = tp->rows * tp->rs_chunks;
    EMIT(topk_radix_step(plan, CLSORT__K_topk_radix_zero,
                         tp->rows * tp->rs_passes * ((uint64_t)1 << tp->rs_bits), 0));
    for (unsigned p = 0; p < tp->rs_passes; ++p)
        EMIT(topk_radix_step(plan, CLSORT__K_topk_radix_hist, groups, p));
    EMIT(topk_radix_step(plan, CLSORT__K_topk_radix_count, groups, tp->rs_passes));
    EMIT(topk_radix_step(plan, CLSORT__K_topk_radix_scan, tp->rows, tp->rs_passes));
    EMIT(topk_radix_step(plan, CLSORT__K_topk_radix_compact, groups, tp->rs_passes));
    return tp->network ? schedule_topk_network(plan, 2, tp->k, emit, user)
                       : schedule_topk_full(plan, 2, tp->k, emit, user);
}

/* Top-k: the radix select where the plan chose it, else the network (k at most half the tile)
 * or the full sort of every row. Depends only on (n, rows, k, the plan's sizes). */
static int schedule_topk(const clsort__plan *plan, clsort__emit_fn emit, void *user)
{
    const clsort__topk_plan *tp = &plan->topk;
    if (tp->radix)
        return schedule_topk_radix(plan, emit, user);
    return tp->network ? schedule_topk_network(plan, 0, plan->n, emit, user)
                       : schedule_topk_full(plan, 0, plan->n, emit, user);
}

/* The radix sort (kernels/radix.cl): per digit, least significant first, the counts of each
 * work-group's range, their scan (a work-group a digit) and the stable scatter into the other
 * buffer. The step arguments are the digit's shift and the number of groups; which buffer a
 * pass reads follows from the shift (run.c). */
static int schedule_radix(const clsort__radix_plan *rp, clsort__emit_fn emit, void *user)
{
    const uint64_t digits = (uint64_t)1 << rp->bits, groups = rp->groups;
    for (unsigned pass = 0; pass < rp->passes; ++pass) {
        const cl_uint shift = rp->first_shift + pass * rp->bits;
        EMIT(step(CLSORT__K_radix_count, groups * rp->wg, 2, shift, rp->groups));
        EMIT(step(CLSORT__K_radix_scan, digits * rp->wg, 2, shift, rp->groups));
        EMIT(step(CLSORT__K_radix_scatter, groups * rp->wg, 2, shift, rp->groups));
    }
    return CLSORT_OK;
}

/* One array's (or a batch's) sort: the radix sort's passes or the network's. */
static int schedule_sort(const clsort__plan *plan, clsort__emit_fn emit, void *user)
{
    if (plan->program == CLSORT__PROGRAM_RADIX)
        return schedule_radix(&plan->radix, emit, user);
    return schedule_network(plan->var.net, plan->n, plan->params, emit, user);
}

int clsort__schedule(const clsort__plan *plan, clsort__emit_fn emit, void *user)
{
    if (plan->empty)
        return CLSORT_OK;
    if (plan->program == CLSORT__PROGRAM_SEGMENTED)
        return schedule_segmented(&plan->seg, emit, user);
    if (plan->program == CLSORT__PROGRAM_TOPK)
        return schedule_topk(plan, emit, user);
    if (!plan->narrow_bits)
        return schedule_sort(plan, emit, user);
    /* Narrow keys: widened into the run's composites, sorted, narrowed back (narrow.cl). */
    clsort__step s;
    memset(&s, 0, sizeof s);
    s.kernel = CLSORT__K_keys_widen;
    s.items = plan->n;
    int rc = emit(&s, user);
    if (rc == CLSORT_OK)
        rc = schedule_sort(plan, emit, user);
    s.kernel = CLSORT__K_keys_narrow;
    return rc == CLSORT_OK ? emit(&s, user) : rc;
}

/* The split for the overlapped upload (schedule.h): a filter over the one schedule, so that the
 * two parts can never drift from what clsort__schedule emits. */
typedef struct split {
    clsort__emit_fn emit;
    void *user;
    unsigned index;
    clsort__step first;
} split;

static int keep_first(const clsort__step *s, void *user)
{
    split *sp = user;
    if (sp->index++ == 0)
        sp->first = *s;
    return CLSORT_OK;
}

static int skip_first(const clsort__step *s, void *user)
{
    split *sp = user;
    return sp->index++ == 0 ? CLSORT_OK : sp->emit(s, sp->user);
}

int clsort__schedule_first_step(const clsort__plan *plan, uint64_t keys, clsort__step *out)
{
    split sp = {NULL, NULL, 0, {0}};
    if (plan->program == CLSORT__PROGRAM_SEGMENTED || plan->program == CLSORT__PROGRAM_TOPK ||
        plan->program == CLSORT__PROGRAM_RADIX)
        return CLSORT_ERR_INVALID_ARG;
    const clsort_params *p = plan->params;
    const uint64_t n = plan->n;
    const int rc = clsort__schedule(plan, keep_first, &sp);
    if (rc != CLSORT_OK)
        return rc;
    const clsort__shape shape = sp.index ? clsort__kernels[sp.first.kernel].shape
                                         : CLSORT__SHAPE_GLOBAL;
    if (shape != CLSORT__SHAPE_TILE && shape != CLSORT__SHAPE_GROUP)
        return CLSORT_ERR_INVALID_ARG; /* every network opens with a tile pass */
    /* A tile pass has the same number of work-items per tile (one, or a work-group) in every
     * tile: scale it to the tiles of the first `keys` keys. */
    const uint64_t tiles = (n + p->tile - 1) / p->tile, part = (keys + p->tile - 1) / p->tile;
    sp.first.items = sp.first.items / tiles * (part < tiles ? part : tiles);
    *out = sp.first;
    return CLSORT_OK;
}

int clsort__schedule_rest(const clsort__plan *plan, clsort__emit_fn emit, void *user)
{
    split sp = {emit, user, 0, {0}};
    return clsort__schedule(plan, skip_first, &sp);
}
