/* dispatch_stable.h - CLSORT_STABLE for pairs that a network sorts (dispatch_stable.c): the keys
 * with their positions, each run of equal keys put back in input order, the values moved. */
#ifndef CLSORT_DISPATCH_STABLE_H
#define CLSORT_DISPATCH_STABLE_H

#include "core.h"

int clsort__stable_pairs(clsort_ctx *ctx, void *keys, void *values, size_t value_size, size_t n,
                         clsort_type type, clsort_algorithm algo, unsigned flags);

#endif /* CLSORT_DISPATCH_STABLE_H */
