/* dispatch.h - what the API layer hands its calls to once their arguments are checked
 * (host/api/ checks, takes the lock and forwards; this layer chooses): the host sort or the
 * device, how the arrays travel, the narrow keys' composites, the stable compositions and what
 * clsort_prepare builds and reserves. Each call records its failure on ctx like the public call
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
/* clsort_prepare, its kind checked (dispatch_prepare.c): the size check that depends on what the
 * sorts will run, then the programs, buffers and first launches. */
int clsort__dispatch_prepare(clsort_ctx *ctx, clsort_type type, size_t value_size, size_t max_n,
                             unsigned flags);

/* A _buffer call with nothing to do: still honours the wait list and hands back an event in
 * *done (when done is not NULL) that completes when the wait list has (dispatch_empty.c). */
int clsort__enqueue_nothing(clsort_ctx *ctx, cl_uint num_wait, const cl_event *wait,
                            cl_event *done);

#endif /* CLSORT_DISPATCH_H */
