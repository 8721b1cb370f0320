/* plan.c - how one sort runs, decided before anything is enqueued: the network AUTO picks, the
 * parameter slot, the index width, the key transform and the program's build
 * options. The API hands the plan to run.c and the schedule. */
#include "plan.h"

#include "params.h"
#include "schedule.h"

#include <string.h>

clsort_algorithm clsort__resolve_auto(const clsort_ctx *ctx, uint64_t n)
{
    for (int i = 0; i < ctx->nauto_rules; ++i)
        if (n <= ctx->auto_rules[i].max_n)
            return ctx->auto_rules[i].algo;
    return CLSORT_BITONIC;
}

const clsort_params *clsort__params_for(const clsort_ctx *ctx, int net, int width, int valkind,
                                        uint64_t n)
{
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
    plan->net = clsort__network_index(algo);
    plan->width = clsort__width_index(type);
    plan->valkind = clsort__valkind_index(value_size);
    const clsort_params *p = clsort__params_for(ctx, plan->net, plan->width, plan->valkind, n);
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
    plan->xf = (type == CLSORT_I32 || type == CLSORT_I64 ? 1u : 0u) |
               (type == CLSORT_F32 || type == CLSORT_F64 ? 2u : 0u) |
               (flags & CLSORT_DESCENDING ? 4u : 0u);
    plan->empty = n < 2 || count == 0;
    if (plan->empty)
        return;
    clsort__build_options(plan->net, plan->width, plan->valkind, plan->index_bits, p,
                          plan->options, sizeof plan->options);
}
