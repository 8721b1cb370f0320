/* dispatch_path.h - the path of a sort of host arrays (dispatch_path.c), shared by the dispatch
 * files that compose sorts from it (dispatch_sort.c, dispatch_narrow.c, dispatch_stable.c,
 * dispatch_prepare.c). Arguments are checked before any of these runs. */
#ifndef CLSORT_DISPATCH_PATH_H
#define CLSORT_DISPATCH_PATH_H

#include "core.h"

/* The host fallback for small inputs, whatever the algorithm; and AUTO's host path. */
int clsort__use_host(const clsort_ctx *ctx, size_t n, clsort_algorithm algo, unsigned flags);
/* What a device sort of `count` arrays of n keys runs, into *algo, with the radix sort's second
 * buffers reserved where it runs, before any data moves. */
int clsort__resolve_device_algo(clsort_ctx *ctx, uint64_t n, uint64_t count, clsort_type type,
                                size_t value_size, unsigned flags, clsort_algorithm *algo);
/* Enqueues the sort of `count` arrays of n keys in device buffers after the wait list (plan,
 * run, schedule); *done (if not NULL) gets the last event. */
int clsort__enqueue_sort(clsort_ctx *ctx, cl_mem keys, cl_mem vals, size_t value_size, uint64_t n,
                         uint64_t count, clsort_type type, clsort_algorithm algo, unsigned flags,
                         cl_uint num_wait, const cl_event *wait, cl_event *done);
/* Host arrays -> device -> host arrays, blocking, by the transfer strategy that fits. */
int clsort__device_sort(clsort_ctx *ctx, void *keys, void *values, size_t value_size, size_t n,
                        size_t count, clsort_type type, clsort_algorithm algo, unsigned flags);
/* One array, on the host or the device, with the call's statistics. */
int clsort__sort_any(clsort_ctx *ctx, void *keys, void *values, size_t value_size, size_t n,
                     clsort_type type, clsort_algorithm algo, unsigned flags);
/* `count` arrays of n keys on the device, with the call's statistics. */
int clsort__sort_batch_timed(clsort_ctx *ctx, void *keys, size_t n, size_t count,
                             clsort_type type, clsort_algorithm algo, unsigned flags);

#endif /* CLSORT_DISPATCH_PATH_H */
