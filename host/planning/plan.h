/* plan.h - deciding how one sort runs (plan.c): AUTO, the variant and its parameters, the index
 * width, the key transform and the build options, from the context's configuration; for a
 * network's sort of `count` arrays or for a segmented sort. */
#ifndef CLSORT_PLAN_H
#define CLSORT_PLAN_H

#include "core.h"
#include "plan_types.h"

/* The network AUTO picks for n keys (ctx->auto_rules; bitonic past the last rule). */
clsort_algorithm clsort__resolve_auto(const clsort_ctx *ctx, uint64_t n);
/* The smallest one-array sort that AUTO gives the radix sort, for keys of this type with values
 * of value_size bytes (ctx->radix_min_n; UINT64_MAX: never). */
uint64_t clsort__radix_min_n(const clsort_ctx *ctx, clsort_type type, size_t value_size);
/* What AUTO runs on the device for `count` arrays of n keys: the radix sort (one array, at least
 * clsort__radix_min_n keys; stable pairs at any size where that is not UINT64_MAX), else the
 * network of clsort__resolve_auto. Dispatch falls back to that network itself where the radix
 * sort's second buffers cannot be had. */
clsort_algorithm clsort__auto_choice(const clsort_ctx *ctx, uint64_t n, uint64_t count,
                                     clsort_type type, size_t value_size, int stable);
/* The parameters of variant v for inputs of n keys: the config's size range that covers n, else
 * the slot's parameters for all larger inputs; clsort_set_params overrides both. */
const clsort_params *clsort__params_for(const clsort_ctx *ctx, const clsort__variant *v,
                                        uint64_t n);
/* Marks plan as the sort of narrow keys' 32-bit composites (narrow.cl): `bits` (8 or 16) of
 * order above the original bits, their transform xf. A radix plan then sorts only those bits. */
void clsort__plan_narrow(clsort__plan *plan, unsigned bits, cl_uint xf);

/* Fills plan for sorting `count` arrays of n keys (value_size 0: keys alone): a network, or
 * the radix sort for CLSORT_RADIX (one array; a batch with CLSORT_RADIX runs bitonic). AUTO is
 * resolved by clsort__auto_choice. */
void clsort__plan_sort(const clsort_ctx *ctx, uint64_t n, uint64_t count, clsort_type type,
                       clsort_algorithm algo, unsigned flags, size_t value_size,
                       clsort__plan *plan);

/* What a segmented sort's plan is made from (the API's side of it). */
typedef struct clsort__seg_desc {
    clsort_type type;
    size_t value_size;          /* 0: keys alone */
    clsort_algorithm algo;      /* an explicit network (AUTO resolved by the caller) */
    unsigned flags;             /* CLSORT_DESCENDING, CLSORT_STABLE */
    uint64_t nseg, cap;         /* segments, and the elements the buffers hold */
    uint64_t max_len;           /* the longest segment sorted here; 0: every length */
    uint64_t tiny_items;        /* upper bound on the tiny segments, 0: none */
    int pack_tiny;              /* the packed pass takes the tiny segments too, where the
                                 * device would stage them (mostly longer ones: seg_shape.h) */
    int stage_wide;             /* the staged pass takes segments of up to 64 keys, where the
                                 * device stages (clsort__seg_stage_wide) */
    uint64_t pack_groups;       /* work-groups for the packed pass, 0: none */
    uint64_t groups;            /* work-groups for the group pass, 0: none */
    uint64_t large_len;         /* at least the longest segment above 4096 keys (at most
                                 * max_len), for the large passes; 0: none */
    int meta_slot, gpos_slot;   /* scratch buffers for the bin list and stable positions */
    int composed;               /* type and flags are the composites' (CLSORT_U64, neither
                                 * CLSORT_STABLE nor CLSORT_DESCENDING, value_size 0);
                                 * key32_type, key32_flags and key32_value_size the caller's
                                 * (seg_shape.h, clsort__seg_compose) */
    clsort_type key32_type;
    unsigned key32_flags;
    size_t key32_value_size;
} clsort__seg_desc;
/* Fills plan for the segmented sort of desc (kernels/segmented.cl, schedule.c). */
void clsort__plan_segments(const clsort_ctx *ctx, const clsort__seg_desc *desc,
                           clsort__plan *plan);

/* What a top-k's plan is made from (the API's side of it): rows of n keys, the first k of each. */
typedef struct clsort__topk_desc {
    clsort_type type;
    unsigned flags;             /* CLSORT_DESCENDING */
    size_t value_size;          /* values carried with the items: 4, 8, or 0 for none */
    int out;                    /* out_vals gets 0 nothing, 1 the values, 4 / 8 indices */
    uint64_t n, rows, k;
} clsort__topk_desc;
/* Fills plan for the top-k of desc (kernels/topk.cl, schedule.c): the tile and group size, the
 * index width, the sizes of the item buffers and the build options. */
void clsort__plan_topk(const clsort_ctx *ctx, const clsort__topk_desc *desc, clsort__plan *plan);

#endif /* CLSORT_PLAN_H */
