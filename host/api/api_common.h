/* api_common.h - what the public calls share (api_common.c): the checks of a key type,
 * algorithm, flags and value size, the fp64 check, and the lock and clock around a call that
 * times itself. */
#ifndef CLSORT_API_COMMON_H
#define CLSORT_API_COMMON_H

#include "core.h"

/* The flags every public sort and top-k accepts. */
#define CLSORT__KNOWN_FLAGS \
    (CLSORT_DESCENDING | CLSORT_STABLE | CLSORT_NO_HOST_FALLBACK | CLSORT_NAN_LARGEST)

/* The checks of a sort's kind, in this order: the key type, the algorithm, the flags, and
 * value_size (4 or 8) where need_values. Records the reason on ctx, naming fn. */
int clsort__check_sort_kind(clsort_ctx *ctx, const char *fn, clsort_type type,
                            clsort_algorithm algo, unsigned flags, size_t value_size,
                            int need_values);
/* CLSORT_ERR_UNSUPPORTED for f64 keys on a device without fp64, naming fn. */
int clsort__check_fp64(clsort_ctx *ctx, const char *fn, clsort_type type);
/* Around a call that reports its own total time (clsort_topk, clsort_topk_buffer,
 * clsort_sort_segments_buffer): clsort__enter_timed takes the context's lock, forgets the last
 * call's statistics and returns the call's start; clsort__leave_timed records the total time
 * since t0, releases the lock and returns rc. */
uint64_t clsort__enter_timed(clsort_ctx *ctx);
int clsort__leave_timed(clsort_ctx *ctx, uint64_t t0, int rc);
/* The start of a call that holds the lock already and hands its start on (clsort_sort_segments):
 * the last call's statistics forgotten, the clock read. */
uint64_t clsort__begin_call(clsort_ctx *ctx);
/* Records a failed call on a context the caller passed as const (a getter) under its lock and
 * returns status: the failure text is the context's mutable state, like its lock, and a
 * failure that left the previous call's text in clsort_last_error would describe the wrong
 * call. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
int clsort__fail_const(const clsort_ctx *ctx, int status, const char *fmt, ...);

#endif /* CLSORT_API_COMMON_H */
