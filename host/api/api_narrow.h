/* api_narrow.h - the keys the networks do not sort as they are (api_narrow.c): keys of 1 and 2
 * bytes, sorted as 32-bit (or, with their positions, 64-bit) composites of their order and their
 * bits; and stable sorts under CLSORT_NAN_LARGEST, where keys with different bits compare equal,
 * sorted with their positions and put back in input order among equals. The public calls hand
 * such sorts here after their argument checks; the calls here use the ordinary ones with other
 * types, so nothing below the API sees a narrow type. */
#ifndef CLSORT_API_NARROW_H
#define CLSORT_API_NARROW_H

#include "core.h"

/* 1 where the sort of type under flags (pairs: with values) goes through this file. */
int clsort__narrow_needed(clsort_type type, unsigned flags, int pairs);
/* 1 where a top-k of type under flags goes through this file. */
int clsort__narrow_topk_needed(clsort_type type, unsigned flags);

/* The sorts of host arrays: `count` arrays of n keys (count > 1: keys alone, no CLSORT_STABLE),
 * values (value_size 4 or 8) or NULL. Arguments already checked. */
int clsort__narrow_sort(clsort_ctx *ctx, void *keys, void *values, size_t value_size, size_t n,
                        size_t count, clsort_type type, clsort_algorithm algo, unsigned flags);
/* clsort_sort_segments's host variant for such sorts (offsets checked and non-decreasing). */
int clsort__narrow_segments(clsort_ctx *ctx, void *keys, void *values, size_t value_size,
                            const uint64_t *offsets, size_t nseg, clsort_type type,
                            clsort_algorithm algo, unsigned flags);
/* clsort_topk for such keys (arguments checked; rows > 0; values NULL unless out_values). */
int clsort__narrow_topk(clsort_ctx *ctx, const void *keys, const void *values, size_t value_size,
                        size_t n, size_t rows, size_t k, clsort_type type, unsigned flags,
                        void *out_keys, void *out_values);

/* The _buffer calls for such sorts: the buffers' contents through host memory (after the wait
 * list), the host-array call above, and back; *done (if not NULL) completes with the writes.
 * Arguments checked. */
int clsort__narrow_sort_buffer(clsort_ctx *ctx, cl_mem keys, cl_mem values, size_t value_size,
                               size_t n, clsort_type type, clsort_algorithm algo, unsigned flags,
                               cl_uint num_wait, const cl_event *wait, cl_event *done);
int clsort__narrow_segments_buffer(clsort_ctx *ctx, cl_mem keys, cl_mem values,
                                   size_t value_size, cl_mem offsets, size_t nseg, uint64_t cap,
                                   clsort_type type, clsort_algorithm algo, unsigned flags,
                                   cl_uint num_wait, const cl_event *wait, cl_event *done);
int clsort__narrow_topk_buffer(clsort_ctx *ctx, cl_mem keys, cl_mem values, size_t value_size,
                               size_t n, size_t rows, size_t k, clsort_type type, unsigned flags,
                               cl_mem out_keys, cl_mem out_values, cl_uint num_wait,
                               const cl_event *wait, cl_event *done);

/* The internal calls this file drives (api_segments.c, api_topk.c), under the context's lock. */
int clsort__sort_segments_locked(clsort_ctx *ctx, void *keys, void *values, size_t value_size,
                                 const uint64_t *offsets, size_t nseg, clsort_type type,
                                 clsort_algorithm algo, unsigned flags);
int clsort__topk_locked(clsort_ctx *ctx, const void *keys, const void *values, size_t value_size,
                        size_t n, size_t rows, size_t k, clsort_type type, unsigned flags,
                        void *out_keys, void *out_values);

#endif /* CLSORT_API_NARROW_H */
