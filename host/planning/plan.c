/* plan.c - how one sort runs, decided before anything is enqueued: the network AUTO picks, the
 * variant and its parameters (or the segmented sort's shape), the index width, the key transform
 * and the program's build options. The API hands the plan to run.c and the schedule. */
#include "plan.h"

#include "params.h"
#include "schedule.h"
#include "segments.h"

#include <string.h>

/* The key transform of the kernels (common.cl): 1 signed, 2 float, 4 descending. */
static cl_uint key_transform(clsort_type type, unsigned flags)
{
    return (type == CLSORT_I32 || type == CLSORT_I64 ? 1u : 0u) |
           (type == CLSORT_F32 || type == CLSORT_F64 ? 2u : 0u) |
           (flags & CLSORT_DESCENDING ? 4u : 0u);
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

void clsort__plan_sort(const clsort_ctx *ctx, uint64_t n, uint64_t count, clsort_type type,
                       clsort_algorithm algo, unsigned flags, size_t value_size,
                       clsort__plan *plan)
{
    memset(plan, 0, sizeof *plan);
    if (algo == CLSORT_AUTO)
        algo = clsort__resolve_auto(ctx, n);
    plan->n = n;
    plan->count = count;
    plan->type = type;
    plan->value_size = value_size;
    plan->algo = algo;
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
    plan->xf = key_transform(type, flags);
    plan->empty = n < 2 || count == 0;
    if (plan->empty)
        return;
    clsort__build_options(plan);
}

void clsort__plan_segments(const clsort_ctx *ctx, const clsort__seg_desc *desc,
                           clsort__plan *plan)
{
    memset(plan, 0, sizeof *plan);
    const int stable = (desc->flags & CLSORT_STABLE) && desc->value_size;
    plan->program = CLSORT__PROGRAM_SEGMENTED;
    (void)clsort__variant_of(desc->algo, desc->type, desc->value_size, &plan->var);
    plan->n = desc->cap;
    plan->count = 1;
    plan->type = desc->type;
    plan->value_size = desc->value_size;
    plan->algo = desc->algo;
    plan->index_bits = 64;
    plan->xf = key_transform(desc->type, desc->flags);
    clsort__seg_plan *sg = &plan->seg;
    sg->nseg = desc->nseg;
    sg->cap = desc->cap;
    sg->tile = clsort__seg_tile(ctx, desc->type, desc->value_size, stable);
    sg->wg = clsort__seg_wg(ctx, sg->tile);
    const unsigned tiny = clsort__seg_tiny(ctx);
    sg->tiny_log = tiny == 128 ? 7 : tiny == 64 ? 6 : 5;
    sg->stable = stable;
    sg->max_len = desc->max_len ? desc->max_len : (uint64_t)1 << 31;
    sg->tiny_items = desc->tiny_items;
    sg->groups = desc->groups;
    sg->meta_slot = desc->meta_slot;
    sg->gpos_slot = desc->gpos_slot;
    /* Stable pairs need a position per key in global memory once a segment is longer than the
     * tile and the group pass sorts it there. */
    sg->need_gpos = stable && sg->groups && sg->max_len > sg->tile;
    plan->empty = desc->nseg == 0;
    clsort__build_options(plan);
}
