/* seg_shape.c - the shape of a segmented sort on this device (kernels/segmented.cl): the tile of
 * the group pass, its work-group, the longest tiny segment, the longest segment the host variant
 * sorts in these passes, the groups worth launching. plan.c makes the plan from them, schedule.c
 * its steps (zero the bin counters, bin the segments on the device, then each bin once), run.c
 * launches them like every other sort's. */
#include "seg_shape.h"

#include "kernels.h"

#include <stdlib.h>
#include <string.h>

#ifndef TINY_CPU
#define TINY_CPU 128u
#endif

unsigned clsort__seg_tile(const clsort_ctx *ctx, clsort_type type, size_t value_size, int stable)
{
    const size_t per_key = clsort_type_size(type) + value_size + (stable ? 2 : 0);
    unsigned tile = 4096;
    /* Half the local memory at most, so that the kernel's own locals and a second resident
     * group still fit on GPUs. */
    while (tile > 64 && (size_t)tile * per_key > ctx->dev.local_mem / 2)
        tile >>= 1;
    return tile;
}

/* The staged tiny pass's local memory (kernels/segmented.cl, seg_sort_tiny with
 * SEG_TINY_STAGE): CLSORT_SEG_ITEM_WG segments of `tiny` slots with tile.cl's padding, and each
 * segment's bounds. */
static size_t stage_bytes(clsort_type type, size_t value_size, unsigned tiny)
{
    const size_t slots = (size_t)CLSORT_SEG_ITEM_WG * tiny;
    return (slots + slots / 32) * (clsort_type_size(type) + value_size) +
           CLSORT_SEG_ITEM_WG * 12 + 16;
}

unsigned clsort__seg_tiny(const clsort_ctx *ctx, clsort_type type, size_t value_size,
                          int *staged)
{
    /* CLSORT_SEG_TINY (0, 32, 64 or 128) overrides, for measurements; CLSORT_SEG_STAGE (0, 1
     * or auto) turns the staged form off, on, or on where it pays (the GPUs' default, and with
     * auto the GPUs' length of 32 on any device), where the length is 32 or 64 and it fits.
     * GPUs sort the segments up to 32 keys one a work-item through local memory, the group
     * copying each segment's keys coalesced (one work-item reading its own segment strides
     * across the warp), and longer ones up to the packed tile in packed tiles. PoCL vectorises
     * work-items across SIMD lanes and loses far more per work-group barrier than to spilled
     * private arrays, so there one work-item per segment reads its own keys, up to TINY_CPU of
     * them (docs/perf.md). */
    const char *st = getenv("CLSORT_SEG_STAGE");
    const int like_gpu = (ctx->dev.type & CL_DEVICE_TYPE_GPU) || (st && !strcmp(st, "auto"));
    const int fits = stage_bytes(type, value_size, 32) <= ctx->dev.local_mem;
    unsigned tiny = like_gpu ? (fits ? 32u : 0u) : TINY_CPU;
    const char *env = getenv("CLSORT_SEG_TINY");
    if (env && (!strcmp(env, "0") || !strcmp(env, "32") || !strcmp(env, "64") ||
                !strcmp(env, "128")))
        tiny = (unsigned)atoi(env);
    const int want = !st || !*st ? like_gpu : !strcmp(st, "0") ? 0 : !strcmp(st, "auto") ? 1 : 2;
    if (staged)
        *staged = (tiny == 32 || tiny == 64) &&
                          stage_bytes(type, value_size, tiny) <= ctx->dev.local_mem
                      ? want
                      : 0;
    return tiny;
}

int clsort__seg_stage_pays(uint64_t tiny, uint64_t all)
{
    /* Measured on a GPU (docs/perf.md, segments on the GPU): lengths uniform in 1..32 (all
     * tiny) sort much faster staged than packed, lengths uniform in 1..64 (half tiny) slower.
     * The line between the two, drawn straight, crosses at about 70% tiny: three quarters. */
    return tiny >= all - all / 4;
}

int clsort__seg_stage_blind(uint64_t cap, uint64_t nseg)
{
    /* The mean at which lengths uniform in 1..2s have three quarters at most 32 keys (the rule
     * above): 2s = 32 / 0.75, s = 21. Measured on a GPU (the buffer variant): uniform 1..32
     * faster staged than packed; 1..64 (mean 32.5, which a first form of this test, cap / nseg
     * <= 32, rounded down to 32) slower; equal lengths of 32 alike either way, so equal lengths
     * lose nothing. Written without a division: nseg * 21 cannot overflow (nseg < 2^32). */
    return nseg && cap <= nseg * 21;
}

int clsort__seg_stage_wide(const clsort_ctx *ctx, clsort_type type, size_t value_size)
{
    /* Asked only where clsort__seg_tiny gave staged == 1 (a GPU, or CLSORT_SEG_STAGE=auto); a
     * length set by CLSORT_SEG_TINY stays as set. */
    const char *tiny = getenv("CLSORT_SEG_TINY");
    return !(tiny && *tiny) && stage_bytes(type, value_size, 64) <= ctx->dev.local_mem;
}

int clsort__seg_stage_blind_wide(uint64_t cap, uint64_t nseg)
{
    /* clsort__seg_stage_blind's rule at 64 keys: 2s = 64 / 0.75, s = 42. */
    return nseg && cap <= nseg * 42;
}

unsigned clsort__seg_pack_tile(const clsort_ctx *ctx, clsort_type type, size_t value_size,
                               unsigned tiny, int stable, int bitonic)
{
    if (stable || !bitonic)
        return 0;
    /* CLSORT_SEG_PACK overrides, for tests and measurements: 0 for no packed pass, else the
     * largest packed tile wanted (a power of two; any device). Measured on PoCL: segments of
     * 512-2048 keys took longer packed than one a work-group (the group pass's loops vectorise
     * there), so CPUs keep the group pass. */
    const char *env = getenv("CLSORT_SEG_PACK");
    const unsigned long want = env && *env ? strtoul(env, NULL, 10) : 0;
    if (env && *env && want == 0)
        return 0;
    if (!want && !(ctx->dev.type & CL_DEVICE_TYPE_GPU))
        return 0;
    /* The whole local memory but a margin (one group a time is enough: the tile's levels run
     * in registers between the trips): the keys and values with tile.cl's padding
     * (LOCAL_SLOTS), and the bounds of up to pack / 8 segments (PACK_SEGS: 8 + 4 bytes each);
     * at most 32 and at least 2 keys a work-item (tile.cl's LOCAL_LOG 1..5); at most the
     * largest bin. */
    const size_t per_key = clsort_type_size(type) + value_size;
    const unsigned wg = clsort__seg_wg(ctx, clsort__seg_tile(ctx, type, value_size, 0));
    unsigned pack = 1u << CLSORT__SEG_LARGE_BIN;
#define PACK_LOCAL(p) (((size_t)(p) + (p) / 32 + 1) * per_key + (size_t)(p) / 8 * 12 + 1024)
    while (pack > 2 * wg && (pack / wg > 32 || (want && pack > want) ||
                             PACK_LOCAL(pack) > ctx->dev.local_mem))
        pack >>= 1;
    if (pack / wg > 32 || pack < 2 * wg || pack <= tiny || PACK_LOCAL(pack) > ctx->dev.local_mem)
        return 0;
#undef PACK_LOCAL
    return pack;
}

uint64_t clsort__seg_large_max(const clsort_ctx *ctx, unsigned tile, int stable)
{
    /* Measured on PoCL: segments of 2-4 tiles sorted by one work-group in global memory took
     * longer than a normal sort each, so there the bound stays at the tile. On GPUs it is the
     * other way round by far: segments uniform in 1..8192 keys sorted tens of times faster in
     * the group pass than with one clsort_sort per long segment, and a power-law mix up to 2^16
     * several times faster (docs/perf.md, segments on the GPU). So GPUs keep
     * segments up to 16 tiles in the group pass (beyond that one sort per segment has enough
     * parallelism of its own). Stable pairs keep the tile bound: the host variant has no
     * scratch slot left for the positions that stable long segments need in the group pass. */
    if ((ctx->dev.type & CL_DEVICE_TYPE_GPU) && !stable)
        return (uint64_t)tile * 16;
    return tile;
}

/* Work-items per group of seg_sort_group: enough lanes for the tile's comparators on GPUs;
 * on CPUs (PoCL runs a group's items in one thread, vectorised) fewer keep the loops short. */
unsigned clsort__seg_wg(const clsort_ctx *ctx, unsigned tile)
{
    const int gpu = (ctx->dev.type & CL_DEVICE_TYPE_GPU) != 0;
    unsigned wg = gpu ? 256 : 64;
    while (wg > 1 && (wg > ctx->dev.max_wg || wg > tile / 2))
        wg >>= 1;
    return wg;
}

/* per_cu work-groups a compute unit, at most one a segment. */
static uint64_t groups_per_cu(const clsort_ctx *ctx, uint64_t nseg, unsigned per_cu)
{
    const uint64_t most = (uint64_t)(ctx->dev.compute_units ? ctx->dev.compute_units : 1) * per_cu;
    return nseg < most ? nseg : most;
}

uint64_t clsort__seg_default_groups(const clsort_ctx *ctx, uint64_t nseg)
{
    return groups_per_cu(ctx, nseg, 32);
}

uint64_t clsort__seg_few_groups(const clsort_ctx *ctx, uint64_t nseg)
{
    /* An empty pass costs about in proportion to its groups: on a GPU an empty packed pass of
     * 32 groups a compute unit took about twice as long as the group pass's 16 a compute unit.
     * Mostly tiny segments leave the other passes nearly empty, so they get 8. */
    return groups_per_cu(ctx, nseg, 8);
}

uint64_t clsort__seg_group_groups(const clsort_ctx *ctx, uint64_t nseg)
{
    /* As many as a compute unit holds at once (an H100's or H200's: 8 to 14 of seg_sort_group's
     * groups of 256), each looping over its segments: the buffer variant launches this pass for
     * segments above the packed tile whether or not there are any, and with 32 groups per
     * compute unit a launch that found nothing still took 4 rounds of groups that each read the
     * counts and ended. */
    return groups_per_cu(ctx, nseg, 16);
}

int clsort__seg_large_on(const clsort_ctx *ctx, unsigned pack_tile)
{
    /* CLSORT_SEG_LARGE=0 or 1 overrides, for tests and measurements. CPUs have no packed pass
     * by default and keep the group pass (PoCL runs a work-group's barriers as loops; not
     * measured there yet). The passes need a tile shared by a work-group (tile.cl: more than
     * 32 slots). */
    if (pack_tile <= 32)
        return 0;
    const char *env = getenv("CLSORT_SEG_LARGE");
    if (env && *env)
        return strcmp(env, "0") != 0;
    return (ctx->dev.type & CL_DEVICE_TYPE_GPU) != 0;
}

uint64_t clsort__seg_large_units(uint64_t cap, unsigned pack_tile)
{
    return pack_tile ? 2 * (cap / pack_tile) + 2 : 0;
}

int clsort__seg_large_blind(uint64_t cap, uint64_t nseg)
{
    /* The large passes are launched for the longest segment the buffers could hold: about 3
     * launches per doubling above 4096 elements, 37 for 2^24, whether or not a segment needs
     * them (each ends at once on the device, but costs the host an enqueue: with them segments
     * of 4096 keys took twice as long on a GPU). So they are planned
     * when the mean length, the buffers shared among the segments, is above the group pass's 4096
     * keys: then long segments must be there. Otherwise any segment above 4096 keys goes to the
     * group pass, one work-group each. CLSORT_SEG_LARGE=1 plans them always (tests). */
    const char *env = getenv("CLSORT_SEG_LARGE");
    if (cap <= CLSORT__SEG_GROUP_MAX || nseg == 0)
        return 0;
    if (env && !strcmp(env, "1"))
        return 1;
    return cap / nseg > CLSORT__SEG_GROUP_MAX;
}

int clsort__seg_compose(const clsort_ctx *ctx, clsort_type type, size_t value_size,
                        unsigned flags, uint64_t cap, int pays)
{
    if (!(flags & CLSORT_STABLE) || !value_size || clsort_type_size(type) != 4 || !cap ||
        cap > ctx->dev.max_alloc / sizeof(cl_ulong))
        return 0;
    const char *env = getenv("CLSORT_SEG_COMPOSE");
    const int like_gpu = env && !strcmp(env, "auto");
    if (env && *env && !like_gpu)
        return strcmp(env, "0") != 0;
    return ((ctx->dev.type & CL_DEVICE_TYPE_GPU) || like_gpu) && pays;
}
