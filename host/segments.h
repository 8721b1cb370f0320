/* segments.h - the device side of the segmented sort (segments.c): the tile size, the program
 * of kernels/segmented.cl, and the enqueueing of its passes over segments in buffers. */
#ifndef CLSORT_SEGMENTS_H
#define CLSORT_SEGMENTS_H

#include "core.h"

/* Counters ahead of the bin list in the meta buffer (kernels/segmented.cl, SEG_META). */
#define CLSORT__SEG_META 16

/* One segmented sort to enqueue. keys/vals/offsets are device buffers; segment bounds are the
 * offsets clamped to [off[0], min(off[nseg], cap)) (docs/kernels.md). */
typedef struct clsort__seg_job {
    clsort_type type;
    size_t value_size;          /* 0: keys alone */
    clsort_algorithm algo;      /* an explicit network (AUTO resolved by the caller) */
    unsigned flags;             /* CLSORT_DESCENDING, CLSORT_STABLE */
    cl_mem keys, vals, offsets;
    uint64_t nseg, cap;
    int skip_large;             /* 1: segments above large_max are sorted elsewhere (host API) */
    uint64_t large_max;         /* with skip_large: the longest segment sorted here */
    uint64_t tiny_items;        /* upper bound on the tiny segments (work-items to launch) */
    uint64_t groups;            /* work-groups for the group pass, 0: none */
    int meta_slot, gpos_slot;   /* scratch buffers for the bin list and stable positions */
    cl_uint num_wait;
    const cl_event *wait;
    cl_event *done;             /* may be NULL */
} clsort__seg_job;

/* Keys that one work-group sorts in local memory for this key type, value size and stability:
 * at most 4096, a power of two that fits the device's local memory. */
unsigned clsort__seg_tile(const clsort_ctx *ctx, clsort_type type, size_t value_size, int stable);
/* Segments up to this many keys are sorted by one work-item each (SEG_TINY, 32 to 128). */
unsigned clsort__seg_tiny(const clsort_ctx *ctx);
/* The longest segment the host variant sorts in the segmented passes (above: the normal path):
 * the tile today. Longer ones here would run in global memory (and, with CLSORT_STABLE pairs,
 * need global positions: a fifth scratch buffer). */
uint64_t clsort__seg_large_max(const clsort_ctx *ctx, unsigned tile, int stable);
/* Work-groups worth launching for the group pass when the number of segments is unknown. */
uint64_t clsort__seg_default_groups(const clsort_ctx *ctx, uint64_t nseg);
/* Enqueues the passes of job on the context's queue (fills ctx->stats' launches and keeps the
 * first and last events for the device time). */
int clsort__seg_enqueue(clsort_ctx *ctx, const clsort__seg_job *job);

#endif /* CLSORT_SEGMENTS_H */
