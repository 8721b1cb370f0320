/* dispatch.h - what the API layer hands its calls to once their arguments are checked
 * (host/api/ checks, takes the lock and forwards; this layer chooses): the host sort or the
 * device, how the arrays travel, the narrow keys' composites, the stable compositions, what
 * clsort_prepare builds and reserves, and a context's lifetime. Each call records its failure on ctx like the public call
 * it serves, with the same messages. */
#ifndef CLSORT_DISPATCH_H
#define CLSORT_DISPATCH_H

#include "core.h"

/* clsort_sort (values NULL) and clsort_sort_pairs, arguments checked (dispatch_sort.c). */
int clsort__dispatch_sort(clsort_ctx *ctx, void *keys, void *values, size_t value_size, size_t n,
                          clsort_type type, clsort_algorithm algo, unsigned flags);
/* clsort_sort_batch, arguments checked (no CLSORT_STABLE; n * count addressable). */
int clsort__dispatch_sort_batch(clsort_ctx *ctx, void *keys, size_t n, size_t count,
                                clsort_type type, clsort_algorithm algo, unsigned flags);
/* clsort_sort_buffer, arguments, wait list and buffer sizes checked; *done as the header says. */
int clsort__dispatch_sort_buffer(clsort_ctx *ctx, cl_mem keys, cl_mem values, size_t value_size,
                                 size_t n, clsort_type type, clsort_algorithm algo,
                                 unsigned flags, cl_uint num_wait, const cl_event *wait,
                                 cl_event *done);
/* clsort_prepare (one_sort 0: every size up to max_n, AUTO's and bitonic's programs) and
 * clsort_prepare_sort (one_sort 1: the one sort of max_n keys with algo), kind checked
 * (dispatch_prepare.c): the size check that depends on what the sorts will run, then the
 * programs, buffers and first launches. */
int clsort__dispatch_prepare(clsort_ctx *ctx, clsort_type type, size_t value_size, size_t max_n,
                             unsigned flags, int one_sort, clsort_algorithm algo);

/* clsort_sort_segments, arguments checked (kind, offsets non-decreasing and addressable), the
 * call's statistics reset at t0, when it started (dispatch_segments.c). */
int clsort__dispatch_segments(clsort_ctx *ctx, void *keys, void *values, size_t value_size,
                              const uint64_t *offsets, size_t nseg, clsort_type type,
                              clsort_algorithm algo, unsigned flags, uint64_t t0);
/* clsort_sort_segments_buffer, arguments, wait list and buffers checked: cap, the elements the
 * buffers hold (at most 2^31; 0 for nseg 0). */
int clsort__dispatch_segments_buffer(clsort_ctx *ctx, cl_mem keys, cl_mem values,
                                     size_t value_size, cl_mem offsets, size_t nseg, uint64_t cap,
                                     clsort_type type, clsort_algorithm algo, unsigned flags,
                                     cl_uint num_wait, const cl_event *wait, cl_event *done);

/* clsort_topk, arguments checked, rows > 0 (dispatch_topk.c). */
int clsort__dispatch_topk(clsort_ctx *ctx, const void *keys, const void *values, size_t value_size,
                          size_t n, size_t rows, size_t k, clsort_type type, unsigned flags,
                          void *out_keys, void *out_values);
/* clsort_topk_buffer, arguments, wait list and buffers checked; values NULL unless out_values. */
int clsort__dispatch_topk_buffer(clsort_ctx *ctx, cl_mem keys, cl_mem values, size_t value_size,
                                 size_t n, size_t rows, size_t k, clsort_type type, unsigned flags,
                                 cl_mem out_keys, cl_mem out_values, cl_uint num_wait,
                                 const cl_event *wait, cl_event *done);

/* A context's lifetime and state (dispatch_context.c), for api_context.c. clsort__context_open
 * (clsort_create: the device DEVICE names, a context and a profiling queue) and
 * clsort__context_adopt (clsort_create_with_queue: the caller's queue, retained) fill a zeroed
 * ctx; whatever they return, clsort__context_close then releases what the context holds (the
 * caller frees ctx itself). */
int clsort__context_open(clsort_ctx *ctx, const char *device);
int clsort__context_adopt(clsort_ctx *ctx, cl_command_queue queue);
void clsort__context_close(clsort_ctx *ctx);
/* clsort_get_params (for_size 0) and clsort_get_params_for_size (the parameters a sort of n
 * keys uses); clsort_set_params. params not NULL; CLSORT_ERR_INVALID_ARG for a bad variant. */
int clsort__context_get_params(clsort_ctx *ctx, clsort_algorithm algo, clsort_type type,
                               size_t value_size, uint64_t n, int for_size,
                               clsort_params *params);
int clsort__context_set_params(clsort_ctx *ctx, clsort_algorithm algo, clsort_type type,
                               size_t value_size, const clsort_params *params);
/* clsort_get_stats (waits for a running clsort_sort_buffer's end), clsort_get_device_info,
 * clsort_list_devices. */
void clsort__context_stats(clsort_ctx *ctx, clsort_stats *stats);
void clsort__context_device_info(const clsort_ctx *ctx, clsort_device_info *info);
int clsort__list_devices(void (*fn)(const clsort_device_info *, int, void *), void *user);

/* A _buffer call with nothing to do: still honours the wait list and hands back an event in
 * *done (when done is not NULL) that completes when the wait list has (dispatch_empty.c). */
int clsort__enqueue_nothing(clsort_ctx *ctx, cl_uint num_wait, const cl_event *wait,
                            cl_event *done);

#endif /* CLSORT_DISPATCH_H */
