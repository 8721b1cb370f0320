/* api_topk.c - the public top-k calls: the context's lock and clock, the argument checks (all
 * before anything is written), then the call handed on to the dispatch layer (dispatch_topk.c). */
#include "api_common.h"
#include "dispatch.h"

/* Checks shared by both entry points; records the reason on ctx. have_* say which pointers
 * (or buffers) were given. */
static int check_args(clsort_ctx *ctx, const char *fn, int have_keys, int have_values,
                      size_t value_size, size_t n, size_t rows, size_t k, clsort_type type,
                      unsigned flags, int have_out_keys, int have_out_values)
{
    if (!clsort_type_size(type))
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG, "%s: invalid key type %d", fn, (int)type);
    if (flags & ~CLSORT__KNOWN_FLAGS)
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG, "%s: unknown flag bits 0x%x", fn,
                            flags & ~CLSORT__KNOWN_FLAGS);
    if (k == 0)
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG, "%s: k is 0", fn);
    if (k > n)
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG, "%s: k = %zu is larger than n = %zu",
                            fn, k, n);
    if ((have_values || have_out_values) && value_size != 4 && value_size != 8)
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG, "%s: value_size %zu is not 4 or 8", fn,
                            value_size);
    const size_t ks = clsort_type_size(type);
    const size_t vs = have_values || have_out_values ? value_size : 0;
    /* rows * n keys and values, and rows * k of each, must have byte counts that fit. */
    if (rows && (n > SIZE_MAX / (ks + vs) / rows || n > SIZE_MAX / 2 / rows))
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG,
                            "%s: rows = %zu of n = %zu keys cannot be addressed", fn, rows, n);
    if (rows && (!have_keys || !have_out_keys))
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG, "%s: %s is NULL with rows = %zu", fn,
                            !have_keys ? "keys" : "out_keys", rows);
    return clsort__check_fp64(ctx, fn, type);
}

static int topk_locked(clsort_ctx *ctx, const void *keys, const void *values, size_t value_size,
                       size_t n, size_t rows, size_t k, clsort_type type, unsigned flags,
                       void *out_keys, void *out_values)
{
    static const char fn[] = "clsort_topk";
    int rc = check_args(ctx, fn, keys != NULL, values != NULL, value_size, n, rows, k, type, flags,
                        out_keys != NULL, out_values != NULL);
    if (rc != CLSORT_OK || rows == 0)
        return rc;
    return clsort__dispatch_topk(ctx, keys, values, value_size, n, rows, k, type, flags, out_keys,
                                 out_values);
}

int clsort_topk(clsort_ctx *ctx, const void *keys, const void *values, size_t value_size,
                size_t n, size_t rows, size_t k, clsort_type type, unsigned flags, void *out_keys,
                void *out_values)
{
    if (!ctx)
        return CLSORT_ERR_INVALID_ARG;
    const uint64_t t0 = clsort__enter_timed(ctx);
    return clsort__leave_timed(ctx, t0,
                               topk_locked(ctx, keys, values, value_size, n, rows, k, type, flags,
                                                   out_keys, out_values));
}

/* Fails unless buf holds at least `elems` elements of `size` bytes. */
static int check_buffer(clsort_ctx *ctx, const char *fn, const char *what, cl_mem buf,
                        uint64_t elems, size_t size)
{
    size_t have = 0;
    if (clGetMemObjectInfo(buf, CL_MEM_SIZE, sizeof have, &have, NULL) != CL_SUCCESS)
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG, "%s: %s is not a buffer", fn, what);
    if (have / size < elems)
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG,
                            "%s: %s holds %zu bytes, fewer than %llu elements of %zu bytes", fn,
                            what, have, (unsigned long long)elems, size);
    return CLSORT_OK;
}

static int topk_buffer_locked(clsort_ctx *ctx, cl_mem keys, cl_mem values, size_t value_size,
                              size_t n, size_t rows, size_t k, clsort_type type, unsigned flags,
                              cl_mem out_keys, cl_mem out_values, cl_uint num_wait,
                              const cl_event *wait, cl_event *done)
{
    static const char fn[] = "clsort_topk_buffer";
    int rc = check_args(ctx, fn, keys != NULL, values != NULL, value_size, n, rows, k, type, flags,
                        out_keys != NULL, out_values != NULL);
    if (rc != CLSORT_OK)
        return rc;
    if ((num_wait && !wait) || (!num_wait && wait))
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG, "%s: bad wait list", fn);
    if (!out_values)
        values = NULL;
    const size_t ks = clsort_type_size(type);
    if (rows) {
        if ((rc = check_buffer(ctx, fn, "keys", keys, (uint64_t)rows * n, ks)) != CLSORT_OK ||
            (rc = check_buffer(ctx, fn, "out_keys", out_keys, (uint64_t)rows * k, ks)) !=
                CLSORT_OK ||
            (values && (rc = check_buffer(ctx, fn, "values", values, (uint64_t)rows * n,
                                          value_size)) != CLSORT_OK) ||
            (out_values && (rc = check_buffer(ctx, fn, "out_values", out_values,
                                              (uint64_t)rows * k, value_size)) != CLSORT_OK))
            return rc;
    }
    return clsort__dispatch_topk_buffer(ctx, keys, values, value_size, n, rows, k, type, flags,
                                        out_keys, out_values, num_wait, wait, done);
}

int clsort_topk_buffer(clsort_ctx *ctx, cl_mem keys, cl_mem values, size_t value_size, size_t n,
                       size_t rows, size_t k, clsort_type type, unsigned flags, cl_mem out_keys,
                       cl_mem out_values, cl_uint num_wait, const cl_event *wait, cl_event *done)
{
    if (done)
        *done = NULL;
    if (!ctx)
        return CLSORT_ERR_INVALID_ARG;
    const uint64_t t0 = clsort__enter_timed(ctx);
    return clsort__leave_timed(ctx, t0,
                               topk_buffer_locked(ctx, keys, values, value_size, n, rows, k, type,
                                                  flags, out_keys, out_values, num_wait, wait,
                                                  done));
}
