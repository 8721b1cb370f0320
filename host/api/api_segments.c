/* api_segments.c - the public segmented sorts: the context's lock, the argument checks (the
 * kind, the segment count, the offsets' order and range, the buffers), then the call handed on
 * to the dispatch layer (dispatch_segments.c), which splits and runs the work. */
#include "api_common.h"
#include "dispatch.h"
#include "seg_layout.h"

static int check_args(clsort_ctx *ctx, const char *fn, size_t value_size, int have_values,
                      clsort_type type, clsort_algorithm algo, unsigned flags, size_t nseg)
{
    const int rc = clsort__check_sort_kind(ctx, fn, type, algo, flags, value_size, have_values);
    if (rc != CLSORT_OK)
        return rc;
    if ((uint64_t)nseg >= CLSORT__SEG_NSEG_LIMIT)
        return clsort__fail(ctx, CLSORT_ERR_UNSUPPORTED, "%s: nseg = %zu segments (at most 2^32 - 17)",
                            fn, nseg);
    return clsort__check_fp64(ctx, fn, type);
}

/* The host variant's checks of the segments' range: non-decreasing offsets, keys (and values)
 * where there is something to sort, and sizes that can be addressed. */
static int check_range(clsort_ctx *ctx, const char *fn, const void *keys, const void *values,
                       size_t value_size, const uint64_t *offsets, size_t nseg, clsort_type type)
{
    for (size_t i = 0; i < nseg; ++i)
        if (offsets[i + 1] < offsets[i])
            return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG,
                                "%s: offsets decrease at %zu (%llu > %llu)", fn, i + 1,
                                (unsigned long long)offsets[i],
                                (unsigned long long)offsets[i + 1]);
    const uint64_t total = offsets[nseg] - offsets[0];
    if (total > 0 && !keys)
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG, "%s: keys is NULL", fn);
    if (total > 0 && value_size && !values)
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG, "%s: values is NULL", fn);
    const size_t ks = clsort_type_size(type), vs = values ? value_size : 0;
    if (total > SIZE_MAX / (ks + vs) / 2 || offsets[nseg] > SIZE_MAX / (ks + vs))
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG, "%s: offsets up to %llu cannot be addressed",
                            fn, (unsigned long long)offsets[nseg]);
    return CLSORT_OK;
}

/* The host variant, all of it under one hold of the context's lock, so that no other thread's
 * call on the context runs between its parts. */
static int sort_segments_locked(clsort_ctx *ctx, void *keys, void *values, size_t value_size,
                                const uint64_t *offsets, size_t nseg, clsort_type type,
                                clsort_algorithm algo, unsigned flags)
{
    static const char fn[] = "clsort_sort_segments";
    const uint64_t t0 = clsort__begin_call(ctx);
    int rc = check_args(ctx, fn, value_size, values != NULL, type, algo, flags, nseg);
    if (rc)
        return rc;
    if (nseg > 0 && !offsets)
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG, "%s: offsets is NULL with nseg = %zu",
                            fn, nseg);
    if (nseg > 0 &&
        (rc = check_range(ctx, fn, keys, values, value_size, offsets, nseg, type)) != CLSORT_OK)
        return rc;
    return clsort__dispatch_segments(ctx, keys, values, value_size, offsets, nseg, type, algo,
                                     flags, t0);
}

int clsort_sort_segments(clsort_ctx *ctx, void *keys, void *values, size_t value_size,
                         const uint64_t *offsets, size_t nseg, clsort_type type,
                         clsort_algorithm algo, unsigned flags)
{
    if (!ctx)
        return CLSORT_ERR_INVALID_ARG;
    pthread_mutex_lock(&ctx->lock);
    const int rc = sort_segments_locked(ctx, keys, values, value_size, offsets, nseg, type, algo,
                                        flags);
    pthread_mutex_unlock(&ctx->lock);
    return rc;
}

static int segments_buffer_locked(clsort_ctx *ctx, cl_mem keys, cl_mem values, size_t value_size,
                                  cl_mem offsets, size_t nseg, clsort_type type,
                                  clsort_algorithm algo, unsigned flags, cl_uint num_wait,
                                  const cl_event *wait, cl_event *done)
{
    static const char fn[] = "clsort_sort_segments_buffer";
    int rc = check_args(ctx, fn, value_size, values != NULL, type, algo, flags, nseg);
    if (rc)
        return rc;
    if ((num_wait && !wait) || (!num_wait && wait))
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG, "%s: bad wait list", fn);
    if (nseg > 0 && (!keys || !offsets))
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG, "%s: keys or offsets is NULL", fn);
    const size_t ks = clsort_type_size(type);
    const size_t vs = values ? value_size : 0;
    size_t have = 0;
    uint64_t cap = 0;
    if (nseg > 0) {
        if (clGetMemObjectInfo(offsets, CL_MEM_SIZE, sizeof have, &have, NULL) != CL_SUCCESS ||
            have / sizeof(cl_ulong) < (uint64_t)nseg + 1)
            return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG,
                                "%s: offsets buffer holds fewer than nseg + 1 = %zu entries", fn,
                                nseg + 1);
        if (clGetMemObjectInfo(keys, CL_MEM_SIZE, sizeof have, &have, NULL) != CL_SUCCESS)
            return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG, "%s: keys is not a buffer", fn);
        cap = have / ks;
        if (values) {
            if (clGetMemObjectInfo(values, CL_MEM_SIZE, sizeof have, &have, NULL) != CL_SUCCESS)
                return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG, "%s: values is not a buffer",
                                    fn);
            if (have / vs < cap)
                cap = have / vs;
        }
        /* Segment slots in the kernels are 32-bit. */
        if (cap > ((uint64_t)1 << 31))
            return clsort__fail(ctx, CLSORT_ERR_UNSUPPORTED,
                                "%s: buffers of more than 2^31 keys (use clsort_sort_buffer for "
                                "one large array)",
                                fn);
    }
    return clsort__dispatch_segments_buffer(ctx, keys, values, value_size, offsets, nseg, cap, type,
                                            algo, flags, num_wait, wait, done);
}

int clsort_sort_segments_buffer(clsort_ctx *ctx, cl_mem keys, cl_mem values, size_t value_size,
                                cl_mem offsets, size_t nseg, clsort_type type,
                                clsort_algorithm algo, unsigned flags, cl_uint num_wait,
                                const cl_event *wait, cl_event *done)
{
    if (done)
        *done = NULL;
    if (!ctx)
        return CLSORT_ERR_INVALID_ARG;
    const uint64_t t0 = clsort__enter_timed(ctx);
    return clsort__leave_timed(ctx, t0,
                               segments_buffer_locked(ctx, keys, values, value_size, offsets,
                                                      nseg, type, algo, flags, num_wait, wait,
                                                      done));
}
