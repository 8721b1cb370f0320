/* seg_shape.h - the shape of a segmented sort on this device (seg_shape.c): the numbers plan.c
 * makes a segmented plan from, and those the dispatch layer splits the segments by. */
#ifndef CLSORT_SEG_SHAPE_H
#define CLSORT_SEG_SHAPE_H

#include "core.h"
#include "seg_layout.h"

/* Keys that one work-group sorts in local memory for this key type, value size and stability:
 * at most 4096, a power of two that fits the device's local memory. */
unsigned clsort__seg_tile(const clsort_ctx *ctx, clsort_type type, size_t value_size, int stable);
/* Work-items of a group of the group pass (SEG_WG) for that tile. */
unsigned clsort__seg_wg(const clsort_ctx *ctx, unsigned tile);
/* Segments up to this many keys are sorted by one work-item each (SEG_TINY: 0 for none, or 32
 * to 128) for this key type and value size; *staged (unless NULL) receives whether through
 * local memory (SEG_TINY_STAGE: GPUs, 32 or 64 keys), where the pass takes the segments by index
 * and the list holds none of them: 0 no, 1 where it pays (clsort__seg_stage_pays), 2 always
 * (CLSORT_SEG_STAGE=1, for tests; =auto gives 1 on any device). */
unsigned clsort__seg_tiny(const clsort_ctx *ctx, clsort_type type, size_t value_size,
                          int *staged);
/* Whether the staged tiny pass pays for a call with `tiny` segments of 2..32 keys among `all`
 * that the segmented passes sort, where a packed pass could take them instead: when most are
 * tiny. Mixed with longer ones, a work-group's segments are no longer one span, and the longer
 * ones need the bins' list anyway (docs/perf.md). The buffer variant, which cannot see the
 * lengths, goes by the mean: cap elements in nseg segments, at most 21 (seg_shape.c). */
int clsort__seg_stage_pays(uint64_t tiny, uint64_t all);
int clsort__seg_stage_blind(uint64_t cap, uint64_t nseg);
/* Where the staged pass would not pay at 32 keys: whether it may take segments of up to 64
 * (SEG_TINY_LOG 6: a 64-slot network a work-item), for this key type and value size on this
 * device, where clsort__seg_tiny's *staged is 1 (callers check that), no CLSORT_SEG_TINY is set
 * and the stage fits; then the same rules with 64 in place of 32 (the buffer variant: a mean of
 * at most 42, clsort__seg_stage_blind_wide). */
int clsort__seg_stage_wide(const clsort_ctx *ctx, clsort_type type, size_t value_size);
int clsort__seg_stage_blind_wide(uint64_t cap, uint64_t nseg);
/* The packed tile (TILE of seg_sort_packed): segments longer than tiny and up to this many keys
 * are packed several to a work-group's tile; 0 when the packed pass is not used (stable pairs,
 * networks other than bitonic, or no tile shape for this group size). */
unsigned clsort__seg_pack_tile(const clsort_ctx *ctx, clsort_type type, size_t value_size,
                               unsigned tiny, int stable, int bitonic);
/* The longest segment the host variant sorts in the segmented passes (above: the normal path):
 * the tile today. Longer ones here would run in global memory (and, with CLSORT_STABLE pairs,
 * need global positions: a fifth scratch buffer). */
uint64_t clsort__seg_large_max(const clsort_ctx *ctx, unsigned tile, int stable);
/* Work-groups of the packed pass: 32 a compute unit, at most one a segment. */
uint64_t clsort__seg_default_groups(const clsort_ctx *ctx, uint64_t nseg);
/* Work-groups of the packed and group passes where the buffer variant expects the staged
 * tiny pass to do nearly all the work (clsort__seg_stage_blind): 8 a compute unit, still as
 * many as a GPU holds at once of either (H200: 6 of the packed pass's groups of 256). */
uint64_t clsort__seg_few_groups(const clsort_ctx *ctx, uint64_t nseg);
/* Work-groups of seg_sort_group: at most what the device holds at once. */
uint64_t clsort__seg_group_groups(const clsort_ctx *ctx, uint64_t nseg);
/* Whether segments above 4096 keys go through the large passes (kernels/seg_large.cl: many
 * work-groups a segment) rather than one work-group each in the group pass, given the packed
 * tile (0: no packed pass, then never). */
int clsort__seg_large_on(const clsort_ctx *ctx, unsigned pack_tile);
/* The units of pack_tile slots that segments within cap elements can make in the large passes
 * (each segment padded to its power of two: fewer than 2 * cap / pack_tile); the meta buffer's
 * words for them: seg_layout.h. */
uint64_t clsort__seg_large_units(uint64_t cap, unsigned pack_tile);
/* Whether the buffer variant, which cannot see the lengths, plans the large passes for nseg
 * segments in buffers of cap elements (where clsort__seg_large_on allows them at all). */
int clsort__seg_large_blind(uint64_t cap, uint64_t nseg);
/* Whether a stable sort of pairs with 32-bit keys (type, value_size, flags) on cap elements
 * is composed (kernels/segmented.cl, seg_compose): sorted as 64-bit keys alone, each the key in
 * its order space above its position, in a scratch buffer of cap x 8 bytes, the values fetched
 * afterwards from a copy (cap x value_size bytes) by those positions, where the group pass would
 * otherwise take the long segments one a work-group. `pays`
 * is the caller's measure of that (CLSORT_AUTO, whose bitonic packed and large passes then take
 * them, and long segments hold an eighth of the keys, or the mean is above 64 keys; never an
 * explicit network: the values' fetch by position reads addresses that follow the keys' order,
 * docs/security.md). GPUs; CLSORT_SEG_COMPOSE=1 composes wherever it can (any device, any
 * lengths, any network: tests), =0 never, =auto by the GPUs' rule on any device. */
int clsort__seg_compose(const clsort_ctx *ctx, clsort_type type, size_t value_size,
                        unsigned flags, uint64_t cap, int pays);

#endif /* CLSORT_SEG_SHAPE_H */
