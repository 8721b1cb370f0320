/* api_sort.h - the sorts of host arrays without the context's lock (api_sort.c), for the other
 * public calls that hold it already: the segmented sort's long segments (api_segments.c) run
 * through them so that one clsort_sort_segments call holds the lock once, from start to end. */
#ifndef CLSORT_API_SORT_H
#define CLSORT_API_SORT_H

#include "core.h"

/* clsort_sort and clsort_sort_pairs, for a caller that holds ctx->lock. */
int clsort__sort_locked(clsort_ctx *ctx, void *keys, size_t n, clsort_type type,
                        clsort_algorithm algo, unsigned flags);
int clsort__sort_pairs_locked(clsort_ctx *ctx, void *keys, void *values, size_t value_size,
                              size_t n, clsort_type type, clsort_algorithm algo, unsigned flags);
/* clsort_sort_batch, for a caller that holds ctx->lock (api_narrow.c). */
int clsort__sort_batch_locked(clsort_ctx *ctx, void *keys, size_t n, size_t count,
                              clsort_type type, clsort_algorithm algo, unsigned flags);

#endif /* CLSORT_API_SORT_H */
