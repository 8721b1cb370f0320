/* plan.h - deciding how one sort runs (plan.c): AUTO, the parameter slot, the index width, the
 * key transform and the build options, from the context's configuration. */
#ifndef CLSORT_PLAN_H
#define CLSORT_PLAN_H

#include "core.h"
#include "plan_types.h"

/* The network AUTO picks for n keys (ctx->auto_rules; bitonic past the last rule). */
clsort_algorithm clsort__resolve_auto(const clsort_ctx *ctx, uint64_t n);
/* The parameters of slot (net, width, valkind) for inputs of n keys: the config's size range
 * that covers n, else the slot's parameters for all larger inputs; clsort_set_params overrides
 * both. */
const clsort_params *clsort__params_for(const clsort_ctx *ctx, int net, int width, int valkind,
                                        uint64_t n);
/* Fills plan for sorting `count` arrays of n keys (value_size 0: keys alone). */
void clsort__plan_sort(const clsort_ctx *ctx, uint64_t n, uint64_t count, clsort_type type,
                       clsort_algorithm algo, unsigned flags, size_t value_size,
                       clsort__plan *plan);

#endif /* CLSORT_PLAN_H */
