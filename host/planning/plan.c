/* plan.c - how one sort runs, decided before anything is enqueued: the network AUTO picks, the
 * variant and its parameters (or the segmented sort's or the top-k's shape), the index width,
 * the key transform and the program's build options. The dispatch layer hands the plan to run.c
 * and the schedule. */
#include "plan.h"

#include "keytype.h"

#include "params.h"
#include "schedule.h"
#include "seg_shape.h"

#include <stdlib.h>
#include <string.h>

/* The key transform of the kernels (common.cl, from kernels/key_types.h). */
static cl_uint key_transform(clsort_type type, unsigned flags)
{
    return clsort__type_xf(type, flags);
}

clsort_algorithm clsort__resolve_auto(const clsort_ctx *ctx, uint64_t n)
{
    for (int i = 0; i < ctx->nauto_rules; ++i)
        if (n <= ctx->auto_rules[i].max_n)
            return ctx->auto_rules[i].algo;
    return CLSORT_BITONIC;
}

const clsort_params *clsort__params_for(const clsort_ctx *ctx, const clsort__variant *v,
                                        uint64_t n)
{
    const int net = v->net, width = v->width, valkind = v->valkind;
    if (!ctx->overridden[net][width][valkind])
        for (int i = 0; i < ctx->nranges[net][width][valkind]; ++i)
            if (n <= ctx->ranges[net][width][valkind][i].max_n)
                return &ctx->ranges[net][width][valkind][i].params;
    return &ctx->params[net][width][valkind];
}

/* log2 of a key's bytes: the first index of the radix crossovers (core.h). */
static int key_size_index(clsort_type type)
{
    const size_t s = clsort_type_size(type);
    return s <= 1 ? 0 : s == 2 ? 1 : s == 4 ? 2 : 3;
}

uint64_t clsort__radix_min_n(const clsort_ctx *ctx, clsort_type type, size_t value_size)
{
    const int vk = clsort__valkind_index(value_size);
    return vk < 0 ? UINT64_MAX : ctx->radix_min_n[key_size_index(type)][vk];
}

clsort_algorithm clsort__auto_choice(const clsort_ctx *ctx, uint64_t n, uint64_t count,
                                     clsort_type type, size_t value_size, int stable)
{
    const uint64_t min_n = clsort__radix_min_n(ctx, type, value_size);
    /* Stable pairs: the radix sort is stable at its usual cost, the networks need a host pass
     * over positions besides (several times the sort), so any device that takes the radix sort
     * at all takes it for them at every size. */
    if (count == 1 && n >= 2 && (n >= min_n || (stable && value_size && min_n < UINT64_MAX)))
        return CLSORT_RADIX;
    return clsort__resolve_auto(ctx, n);
}

/* Work-groups of the radix sort's count and scatter passes per compute unit, at most: each
 * works through its share of tiles one after another, so a GPU wants several resident per
 * compute unit to hide the latency of the barriers; CPUs (PoCL) run one group a thread. */
#define RADIX_GROUPS_PER_CU_GPU 8u
#define RADIX_GROUPS_PER_CU_MATCH 16u
#define RADIX_GROUPS_PER_CU_CPU 2u

/* Local memory of radix_scatter (kernels/radix.cl) with these parameters, in bytes. */
static uint64_t radix_local_bytes(const clsort__radix_plan *rp, size_t key_bytes, int pairs,
                                  int index_bytes)
{
    const uint64_t tile = (uint64_t)rp->wg * rp->items, digits = 1u << rp->bits;
    /* The splits' counters, or the multisplit's per-warp counters (and its emulated match's
     * slots). */
    const uint64_t counters = rp->match ? (rp->wg / 32u) * digits * 4u + (rp->match == 2 ? rp->wg * 4u : 0u)
                                        : (16u + (rp->pad ? 1u : 0u)) * rp->wg * 4u;
    return tile * key_bytes + (pairs ? 2 * tile : 0) + counters +
           (rp->wg + 17u) * (uint64_t)index_bytes + digits * ((uint64_t)index_bytes + 4u);
}

/* The radix sort's shape for plan->n keys of plan->type (docs/kernels.md, "Radix sort"). */
static void plan_radix(const clsort_ctx *ctx, clsort__plan *plan)
{
    clsort__radix_plan *rp = &plan->radix;
    const int gpu = (ctx->dev.type & CL_DEVICE_TYPE_GPU) != 0;
    const size_t kb = clsort_type_size(plan->type);
    rp->key_bits = (unsigned)(8 * kb);
    /* 8-bit digits (256 counters a work-group, two local splits a pass); 1-byte keys take two
     * 4-bit digits, so that every key width has an even number of passes. */
    rp->bits = kb == 1 ? 4u : 8u;
    rp->passes = rp->key_bits / rp->bits;
    rp->first_shift = 0;
    /* The scatter's ranking: NVIDIA's compiler takes inline PTX, so its GPUs from Volta on rank
     * a warp's keys at once (match.any.sync); every other device splits in local memory.
     * CLSORT_RADIX_MATCH (tests, experiments, read at each call): 0 the splits, 1 the PTX
     * (NVIDIA only), 2 the multisplit with an emulated match (any device). */
    rp->match = ctx->dev.warp_match ? 1 : 0;
    const char *env = getenv("CLSORT_RADIX_MATCH");
    if (env && *env && env[0] >= '0' && env[0] <= '2' && !env[1])
        rp->match = env[0] - '0';
    /* GPUs: 256 work-items. The splits rank 8 keys each (4 for 8-byte keys, whose tile would
     * otherwise crowd local memory): 2048 or 1024 keys a tile. The multisplit's cost is a few
     * barriers a tile whatever its size, so it takes 16 keys each (4096 a tile), and more
     * groups, each through fewer tiles. PoCL runs a work-group's items as a loop between
     * barriers, so fewer items with more keys each cost fewer trips. */
    rp->wg = gpu ? 256u : 64u;
    while (rp->wg > 1 && rp->wg > ctx->dev.max_wg)
        rp->wg >>= 1;
    rp->items = !gpu || rp->match ? 16u : kb >= 8 ? 4u : 8u;
    unsigned per_cu = !gpu ? RADIX_GROUPS_PER_CU_CPU
                      : rp->match ? RADIX_GROUPS_PER_CU_MATCH : RADIX_GROUPS_PER_CU_GPU;
    /* CLSORT_RADIX_WG, CLSORT_RADIX_ITEMS, CLSORT_RADIX_GROUPS_PER_CU (experiments, read at each
     * call): other shapes, powers of two within the kernel's limits (the splits' private
     * counters take at most 16 keys a work-item, the multisplit 32); CLSORT_RADIX_PAD=0 the
     * split counters without their padding; CLSORT_RADIX_RAKE=0 or 1 the scans' form. */
    env = getenv("CLSORT_RADIX_WG");
    unsigned long v = env && *env ? strtoul(env, NULL, 10) : 0;
    if (v >= 16 && v <= ctx->dev.max_wg && !(v & (v - 1)))
        rp->wg = (unsigned)v;
    if (rp->wg % 32u) /* the multisplit needs whole warps */
        rp->match = 0;
    env = getenv("CLSORT_RADIX_ITEMS");
    v = env && *env ? strtoul(env, NULL, 10) : 0;
    if (v >= 1 && v <= (rp->match ? 32u : 16u) && !(v & (v - 1)))
        rp->items = (unsigned)v;
    rp->pad = 1;
    env = getenv("CLSORT_RADIX_PAD");
    if (env && *env)
        rp->pad = strtoul(env, NULL, 10) != 0;
    /* The multisplit scans once a tile, where the raking scan's 4 barriers beat Hillis-Steele's
     * 16 (H200, 2^24 u32: 0.82 ms against 0.88). */
    rp->rake = rp->match != 0;
    env = getenv("CLSORT_RADIX_RAKE");
    if (env && *env)
        rp->rake = strtoul(env, NULL, 10) != 0;
    env = getenv("CLSORT_RADIX_GROUPS_PER_CU");
    v = env && *env ? strtoul(env, NULL, 10) : 0;
    if (v >= 1 && v <= 1024)
        per_cu = (unsigned)v;
    const uint64_t N = plan->n;
    plan->index_bits = gpu && N + (uint64_t)rp->wg * 32 <= ((uint64_t)1 << 31) ? 32 : 64;
    while (rp->items > 1 && radix_local_bytes(rp, kb, plan->value_size != 0,
                                              plan->index_bits / 8) > ctx->dev.local_mem)
        rp->items >>= 1;
    const uint64_t tile = (uint64_t)rp->wg * rp->items, tiles = (N + tile - 1) / tile;
    const uint64_t most = (uint64_t)(ctx->dev.compute_units ? ctx->dev.compute_units : 1) * per_cu;
    const uint64_t groups = tiles < most ? tiles : most;
    const uint64_t per = (tiles + groups - 1) / groups;
    rp->groups = (unsigned)((tiles + per - 1) / per);
    rp->hist_words = ((uint64_t)rp->groups + 1) << rp->bits;
}

void clsort__plan_narrow(clsort__plan *plan, unsigned bits, cl_uint xf)
{
    plan->narrow_bits = bits;
    plan->narrow_xf = xf;
    if (plan->program != CLSORT__PROGRAM_RADIX || plan->empty)
        return;
    /* A composite holds the narrow key's order class in the `bits` bits above its own
     * (narrow.cl): the radix sort needs only those, in two digits so that the keys end where
     * they started; keys of one class keep their input order. */
    clsort__radix_plan *rp = &plan->radix;
    rp->bits = bits / 2;
    rp->passes = 2;
    rp->first_shift = bits;
    rp->hist_words = ((uint64_t)rp->groups + 1) << rp->bits;
    clsort__build_options(plan);
}

void clsort__plan_sort(const clsort_ctx *ctx, uint64_t n, uint64_t count, clsort_type type,
                       clsort_algorithm algo, unsigned flags, size_t value_size,
                       clsort__plan *plan)
{
    memset(plan, 0, sizeof *plan);
    if (algo == CLSORT_AUTO)
        algo = clsort__auto_choice(ctx, n, count, type, value_size,
                                   (flags & CLSORT_STABLE) != 0);
    /* Batches run a network: the radix sort takes one array. */
    if (algo == CLSORT_RADIX && count != 1)
        algo = CLSORT_BITONIC;
    plan->n = n;
    plan->count = count;
    plan->type = type;
    plan->value_size = value_size;
    plan->algo = algo;
    plan->xf = key_transform(type, flags);
    plan->empty = n < 2 || count == 0;
    if (algo == CLSORT_RADIX) {
        plan->program = CLSORT__PROGRAM_RADIX;
        plan->var.width = clsort__width_index(type);
        plan->var.valkind = clsort__valkind_index(value_size);
        if (plan->empty)
            return;
        plan_radix(ctx, plan);
        clsort__build_options(plan);
        return;
    }
    /* The API checked algo, type and value_size. */
    (void)clsort__variant_of(algo, type, value_size, &plan->var);
    plan->program = (clsort__program_id)plan->var.net; /* a network's program has its number */
    const clsort_params *p = clsort__params_for(ctx, &plan->var, n);
    plan->params = p;
    /* 32-bit indices are cheaper on GPUs; safe while every position, every batch offset and
     * every wrapped window start stays apart from the real positions below 2^31. On CPUs they
     * are 10-20x slower (PoCL cannot vectorise addresses that may wrap; docs/perf.md). */
    const uint64_t N = clsort__next_pow2(n);
    const int gpu = (ctx->dev.type & CL_DEVICE_TYPE_GPU) != 0;
    plan->index_bits = (gpu && N + 4 * (uint64_t)p->tile <= ((uint64_t)1 << 31) &&
                        n * count <= ((uint64_t)1 << 31))
                           ? 32
                           : 64;
    if (plan->empty)
        return;
    clsort__build_options(plan);
}

/* log2 of a power of two. */
static unsigned log2_floor(unsigned x)
{
    unsigned l = 0;
    while (x > 1) {
        x >>= 1;
        ++l;
    }
    return l;
}

/* What the segmented and top-k plans share: one launch dimension (count 1; their kernels find
 * their segments or rows themselves), 64-bit indices, and the variant of an explicit network
 * (the API checked algo, type and value_size). */
static void plan_program(clsort__program_id program, clsort_algorithm algo, clsort_type type,
                         size_t value_size, unsigned flags, uint64_t n, clsort__plan *plan)
{
    memset(plan, 0, sizeof *plan);
    plan->program = program;
    (void)clsort__variant_of(algo, type, value_size, &plan->var);
    plan->n = n;
    plan->count = 1;
    plan->type = type;
    plan->value_size = value_size;
    plan->algo = algo;
    plan->index_bits = 64;
    plan->xf = key_transform(type, flags);
}

/* Work-groups of each large launch per compute unit (each group takes units g, g + groups, ...):
 * enough to fill a GPU (H100: 8 groups of 256 resident per SM), and few enough that the buffer
 * variant's launches for merges no segment needs (it cannot know the lengths) cost little. */
#define LARGE_GROUPS_PER_CU 16u

void clsort__plan_segments(const clsort_ctx *ctx, const clsort__seg_desc *desc,
                           clsort__plan *plan)
{
    const int stable = (desc->flags & CLSORT_STABLE) && desc->value_size;
    plan_program(CLSORT__PROGRAM_SEGMENTED, desc->algo, desc->type, desc->value_size,
                 desc->flags, desc->cap, plan);
    clsort__seg_plan *sg = &plan->seg;
    sg->nseg = desc->nseg;
    sg->cap = desc->cap;
    sg->tile = clsort__seg_tile(ctx, desc->type, desc->value_size, stable);
    sg->wg = clsort__seg_wg(ctx, sg->tile);
    int staged = 0;
    unsigned tiny = clsort__seg_tiny(ctx, desc->type, desc->value_size, &staged);
    if (staged == 1 && desc->pack_tiny &&
        clsort__seg_pack_tile(ctx, desc->type, desc->value_size, 0, stable,
                              desc->algo == CLSORT_BITONIC)) {
        tiny = 0; /* the API's split: every segment up to the packed tile packed */
        staged = 0;
    } else if (staged == 1 && desc->stage_wide) {
        tiny = 64; /* the API's split: staged up to 64 keys */
    }
    sg->tiny_log = tiny == 128 ? 7 : tiny == 64 ? 6 : tiny == 32 ? 5 : 0;
    sg->tiny_staged = staged != 0;
    sg->pack_tile = clsort__seg_pack_tile(ctx, desc->type, desc->value_size, tiny, stable,
                                          desc->algo == CLSORT_BITONIC);
    sg->pack_log = sg->pack_tile ? log2_floor(sg->pack_tile) : 0;
    sg->stable = stable;
    sg->max_len = desc->max_len ? desc->max_len : (uint64_t)1 << 31;
    /* The staged pass takes the segments by index: a work-item each, tiny or not. */
    sg->tiny_items = staged && desc->tiny_items ? desc->nseg : desc->tiny_items;
    sg->pack_groups = sg->pack_tile ? desc->pack_groups : 0;
    sg->groups = desc->groups;
    /* The large passes: up to the power of two of the longest segment they may meet. */
    if (desc->large_len > CLSORT__SEG_GROUP_MAX && !stable &&
        clsort__seg_large_on(ctx, sg->pack_tile)) {
        const uint64_t longest = desc->large_len < sg->max_len ? desc->large_len : sg->max_len;
        sg->large_log = log2_floor(longest - 1) + 1;
        sg->large_units = clsort__seg_large_units(sg->cap, sg->pack_tile);
        const uint64_t most = (uint64_t)(ctx->dev.compute_units ? ctx->dev.compute_units : 1) *
                              LARGE_GROUPS_PER_CU;
        sg->large_groups = sg->large_units < most ? sg->large_units : most;
    }
    sg->meta_slot = desc->meta_slot;
    sg->gpos_slot = desc->gpos_slot;
    sg->composed = desc->composed;
    sg->xf32 = desc->composed ? key_transform(desc->key32_type, desc->key32_flags) : 0;
    sg->vwords = desc->composed ? (cl_uint)(desc->key32_value_size / 4) : 0;
    /* Stable pairs need a position per key in global memory once a segment is longer than the
     * tile and the group pass sorts it there. */
    sg->need_gpos = stable && sg->groups && sg->max_len > sg->tile;
    plan->empty = desc->nseg == 0;
    clsort__build_options(plan);
}

#define TOPK_TILE_MAX 4096u

/* Index width of the top-k items: 32 bits while every index of a row and the virtual one (all
 * ones) stay apart. */
static int topk_idx_bytes(uint64_t n)
{
    return n <= 0xFFFFFFFFull ? 4 : 8;
}

/* Items one work-group holds in local memory (TK_TILE, a power of two, at most 4096). The
 * network path takes k up to half of it; above that each row is sorted in full. */
static unsigned topk_tile(const clsort_ctx *ctx, clsort_type type, size_t item_value_size,
                          uint64_t n)
{
    const int gpu = (ctx->dev.type & CL_DEVICE_TYPE_GPU) != 0;
    /* CPUs hold a tile twice (topk.cl: the halvings write to a second buffer). */
    const size_t item =
        (clsort_type_size(type) + (size_t)topk_idx_bytes(n) + item_value_size) * (gpu ? 1 : 2);
    /* Half the local memory on GPUs, so that two work-groups fit on a compute unit (as the
     * sorts' tiles, docs/design.md); CPUs (PoCL) have plenty and run one group at a time per
     * thread. */
    const uint64_t budget = gpu ? ctx->dev.local_mem / 2 : ctx->dev.local_mem;
    unsigned tile = TOPK_TILE_MAX;
    while (tile > 2 && (uint64_t)tile * item > budget)
        tile >>= 1;
    /* CLSORT_TOPK_TILE (experiments, read at each call): another tile, if it fits all of the
     * local memory. */
    const char *env = getenv("CLSORT_TOPK_TILE");
    if (env && *env) {
        const unsigned long v = strtoul(env, NULL, 10);
        if (v >= 2 && v <= 65536 && !(v & (v - 1)) && v * item <= ctx->dev.local_mem)
            tile = (unsigned)v;
    }
    return tile;
}

/* Work-items of topk_tile (TK_WG) for tiles of T items. */
static unsigned topk_wg(const clsort_ctx *ctx, unsigned T)
{
    const int gpu = (ctx->dev.type & CL_DEVICE_TYPE_GPU) != 0;
    /* GPUs: enough lanes for a level's T/2 comparators a few at a time. CPUs: one work-item a
     * tile, so that no barrier splits the levels into loops over work-items (PoCL runs a group's
     * work-items in one thread); measured on PoCL at 2^20 keys against 16, 64 and 256 work-items
     * and tiles of 1024 (docs/bench/topk-pocl-2026-11-24.md). */
    unsigned wg = gpu ? 256 : 1;
    /* CLSORT_TOPK_WG (tests, experiments): another group size, e.g. the GPUs' round-robin
     * shape on PoCL (tests/test_topk.c), read at each call. */
    const char *env_wg = getenv("CLSORT_TOPK_WG");
    if (env_wg && *env_wg) {
        const unsigned long v = strtoul(env_wg, NULL, 10);
        if (v >= 1 && v <= 1024 && !(v & (v - 1)))
            wg = (unsigned)v;
    }
    while (wg > 1 && (wg > T / 2 || wg > ctx->dev.max_wg))
        wg >>= 1;
    return wg;
}

/* The stream pass of long rows (kernels/topk.cl topk_stream): keys a work-item reads (P) and
 * work-items a group, or none (stream 0). The pass keeps K items in registers twice over (the
 * block and the keys just read), so it is for the GPU shape (TK_WG > 1), K up to 32 (16 with
 * values carried or 64-bit items), and rows longer than a tile, whose first topk_tile pass would
 * otherwise sort and halve every key in local memory with a barrier a level. P = 16 K (at least
 * 128, at most 1024): the fastest in a sweep of P = 32 .. 2048 on the H200 for k = 1, 8 and 32
 * on 1 x 2^24 and 2^6 x 2^18 keys (docs/perf.md, "Top-k"); the group is TK_WG work-items, or
 * fewer where a row is shorter than TK_WG * P (down to 32), and P is cut to what a row needs.
 * Below 4 K keys a work-item (each writes one item for every 4 it reads) the pass is skipped.
 * CLSORT_TOPK_STREAM (tests, experiments, read at each call): 0 no stream pass, else that P (a
 * power of two >= K) on any shape where K fits, in groups of TK_WG. */
static void topk_stream(const clsort__topk_desc *desc, clsort__topk_plan *tp)
{
    const uint64_t K = clsort__next_pow2(desc->k), n = desc->n;
    const int narrow = tp->idx_bits == 32 && clsort_type_size(desc->type) == 4 &&
                       desc->value_size == 0;
    tp->stream = 0;
    tp->stream_k = (unsigned)K;
    tp->stream_wg = tp->wg;
    if (!tp->network || K > (narrow ? 32u : 16u) || desc->rows == 0)
        return;
    const char *env = getenv("CLSORT_TOPK_STREAM");
    if (env && *env) {
        const unsigned long v = strtoul(env, NULL, 10);
        tp->stream = v >= K && v <= 65536 && !(v & (v - 1)) ? (unsigned)v : 0;
        return;
    }
    if (tp->wg == 1 || n <= tp->tile)
        return;
    uint64_t p = 16 * K < 128 ? 128 : 16 * K;
    if (p > 1024)
        p = 1024;
    unsigned wg = tp->wg;
    while (wg > 32 && (uint64_t)wg * p > n)
        wg >>= 1;
    const uint64_t per_item = clsort__next_pow2((n + wg - 1) / wg);
    if (p > per_item)
        p = per_item;
    if (p >= 4 * K) {
        tp->stream = (unsigned)p;
        tp->stream_wg = wg;
    }
}

/* The radix select (kernels/topk_radix.cl): its geometry, and whether this top-k takes it.
 * Digits of 8 bits (a 256-bin histogram in local memory; 4 passes for 32-bit keys, 8 for 64,
 * from the key width). A work-group of the radix passes takes a chunk of 8192 keys of a row
 * (fewer for shorter rows): 2048 groups for 1 x 2^24 and 64 x 2^18, a chunk a row for rows of up
 * to 8192 keys. GPUs: groups of 256 work-items; CPUs: one work-item a group (PoCL runs a group's
 * work-items in one thread, and no barrier then splits its loops). The counts are 32-bit, so rows
 * of 2^32 keys or more stay on the network. AUTO takes the path for k and n at least the
 * device's crossovers ([auto] topk_radix.<bits> in its config, ctx->topk_radix_min_*);
 * CLSORT_TOPK_RADIX (tests, experiments, read at each call) forces it: 1 wherever it can run,
 * 0 never. */
static void topk_radix(const clsort_ctx *ctx, const clsort__topk_desc *desc, int width,
                       clsort__topk_plan *tp)
{
    const int gpu = (ctx->dev.type & CL_DEVICE_TYPE_GPU) != 0;
    const unsigned key_bits = (unsigned)clsort_type_size(desc->type) * 8;
    tp->rs_bits = 8;
    tp->rs_passes = (key_bits + tp->rs_bits - 1) / tp->rs_bits;
    tp->rs_wg = gpu ? 256 : 1;
    uint64_t chunk = 8192;
    /* CLSORT_TOPK_RADIX_WG and CLSORT_TOPK_RADIX_CHUNK (tests, experiments, read at each call):
     * another group size (the GPUs' shape on PoCL) and chunk (many chunks in short rows). */
    const char *env_wg = getenv("CLSORT_TOPK_RADIX_WG");
    const char *env_chunk = getenv("CLSORT_TOPK_RADIX_CHUNK");
    if (env_wg && *env_wg) {
        const unsigned long v = strtoul(env_wg, NULL, 10);
        if (v >= 1 && v <= 1024 && !(v & (v - 1)))
            tp->rs_wg = (unsigned)v;
    }
    /* At most a work-item a bin (topk_radix.cl's bucket search deals the bins out). */
    while (tp->rs_wg > 1 && (tp->rs_wg > ctx->dev.max_wg || tp->rs_wg > (1u << tp->rs_bits)))
        tp->rs_wg >>= 1;
    if (env_chunk && *env_chunk) {
        const unsigned long v = strtoul(env_chunk, NULL, 10);
        if (v >= 1 && v <= 65536 && !(v & (v - 1)))
            chunk = v;
    }
    if (chunk < tp->rs_wg)
        chunk = tp->rs_wg;
    const uint64_t row = clsort__next_pow2(desc->n);
    if (chunk > row)
        chunk = row < tp->rs_wg ? tp->rs_wg : row;
    tp->rs_chunk = chunk;
    tp->rs_chunks = desc->n ? (desc->n + chunk - 1) / chunk : 0;
    tp->radix = 0;
    if (tp->idx_bits != 32 || desc->n == 0)
        return;
    const char *env = getenv("CLSORT_TOPK_RADIX");
    if (env && (!strcmp(env, "0") || !strcmp(env, "1"))) {
        tp->radix = env[0] == '1';
        return;
    }
    tp->radix = desc->k >= ctx->topk_radix_min_k[width] && desc->n >= ctx->topk_radix_min_n[width];
}

/* Records in the plan how many items each item buffer must hold: the most any launch writes
 * there (rows x its items a row). */
static int count_topk_items(const clsort__step *s, void *user)
{
    clsort__plan *plan = user;
    const int to = s->tk.to;
    const uint64_t need = plan->topk.rows * s->tk.m_out;
    if ((to == 1 || to == 2) && plan->topk.items[to] < need)
        plan->topk.items[to] = need;
    return CLSORT_OK;
}

void clsort__plan_topk(const clsort_ctx *ctx, const clsort__topk_desc *desc, clsort__plan *plan)
{
    /* The variant's key width and the values carried with the items; the network is bitonic's
     * (topk.cl's merges), which the statistics report. The rows are in the top-k's own
     * arguments (clsort__topk_plan), so each step is one 1-D launch. */
    plan_program(CLSORT__PROGRAM_TOPK, CLSORT_BITONIC, desc->type, desc->value_size,
                 desc->flags, desc->n, plan);
    clsort__topk_plan *tp = &plan->topk;
    tp->rows = desc->rows;
    tp->k = desc->k;
    tp->idx_bits = topk_idx_bytes(desc->n) * 8;
    tp->out = desc->out;
    tp->tile = topk_tile(ctx, desc->type, desc->value_size, desc->n);
    tp->wg = topk_wg(ctx, tp->tile);
    tp->network = clsort__next_pow2(desc->k) <= tp->tile / 2;
    topk_radix(ctx, desc, plan->var.width, tp);
    if (tp->radix)
        tp->stream = 0, tp->stream_k = 1, tp->stream_wg = 1;
    else
        topk_stream(desc, tp);
    plan->empty = desc->rows == 0;
    if (plan->empty)
        return;
    (void)clsort__schedule(plan, count_topk_items, plan);
    clsort__build_options(plan);
}
