/* dispatch_narrow.h - the sorts of narrow keys and the stable sorts under CLSORT_NAN_LARGEST
 * (dispatch_narrow.c), for dispatch_sort.c. */
#ifndef CLSORT_DISPATCH_NARROW_H
#define CLSORT_DISPATCH_NARROW_H

#include "core.h"

/* Narrow keys, and CLSORT_STABLE where CLSORT_NAN_LARGEST makes different bits equal, of
 * `count` arrays of n keys (count > 1: keys alone, not stable). */
int clsort__narrow_sort(clsort_ctx *ctx, void *keys, void *values, size_t value_size, size_t n,
                        size_t count, clsort_type type, clsort_algorithm algo, unsigned flags);
/* Narrow keys in the caller's buffer, unstable, on the device. */
int clsort__narrow_sort_buffer(clsort_ctx *ctx, cl_mem keys, cl_mem values, size_t value_size,
                               size_t n, clsort_type type, clsort_algorithm algo, unsigned flags,
                               cl_uint num_wait, const cl_event *wait, cl_event *done);

#endif /* CLSORT_DISPATCH_NARROW_H */
