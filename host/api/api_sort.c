/* api_sort.c - the public sort calls and clsort_prepare: the context's lock, the argument
 * checks, then the call handed on to the dispatch layer (dispatch.h), which chooses how it runs. */
#include "api_common.h"
#include "dispatch.h"

/* Checks shared by every entry point; records the reason on ctx. */
static int check_args(clsort_ctx *ctx, const char *fn, int have_keys, size_t n, clsort_type type,
                      clsort_algorithm algo, unsigned flags, size_t value_size, int need_values,
                      int have_values)
{
    if (!ctx)
        return CLSORT_ERR_INVALID_ARG;
    const int rc = clsort__check_sort_kind(ctx, fn, type, algo, flags, value_size, need_values);
    if (rc != CLSORT_OK)
        return rc;
    if (n > 0 && !have_keys)
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG, "%s: keys is NULL with n = %zu", fn, n);
    if (need_values && n > 0 && !have_values)
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG, "%s: values is NULL with n = %zu", fn, n);
    /* n keys and values must fit in memory at all: n * size may not wrap around size_t. */
    const size_t elem = clsort_type_size(type) + (need_values ? value_size : 0);
    if (n > SIZE_MAX / elem / 2)
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG,
                            "%s: n = %zu keys of %zu bytes cannot be addressed", fn, n, elem);
    return clsort__check_fp64(ctx, fn, type);
}

static int sort_locked(clsort_ctx *ctx, void *keys, size_t n, clsort_type type,
                       clsort_algorithm algo, unsigned flags)
{
    int rc = check_args(ctx, "clsort_sort", keys != NULL, n, type, algo, flags, 0, 0, 0);
    if (rc)
        return rc;
    return clsort__dispatch_sort(ctx, keys, NULL, 0, n, type, algo, flags);
}

static int sort_pairs_locked(clsort_ctx *ctx, void *keys, void *values, size_t value_size,
                             size_t n, clsort_type type, clsort_algorithm algo, unsigned flags)
{
    int rc = check_args(ctx, "clsort_sort_pairs", keys != NULL, n, type, algo, flags, value_size,
                        1, values != NULL);
    if (rc)
        return rc;
    return clsort__dispatch_sort(ctx, keys, values, value_size, n, type, algo, flags);
}

static int sort_batch_locked(clsort_ctx *ctx, void *keys, size_t n, size_t count,
                             clsort_type type, clsort_algorithm algo, unsigned flags)
{
    int rc = check_args(ctx, "clsort_sort_batch", keys != NULL || count == 0, n, type, algo,
                        flags, 0, 0, 0);
    if (rc)
        return rc;
    if (flags & CLSORT_STABLE)
        return clsort__fail(ctx, CLSORT_ERR_UNSUPPORTED, "clsort_sort_batch: CLSORT_STABLE");
    /* count * n keys, and their bytes, must not wrap around size_t (check_args saw n alone):
     * every size below (buffers, transfers, the in-place copy) is a multiple of it. */
    const size_t ks = clsort_type_size(type);
    if (count && (n > SIZE_MAX / count || n * count > SIZE_MAX / ks / 2))
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG,
                            "clsort_sort_batch: %zu arrays of %zu keys of %zu bytes cannot be "
                            "addressed",
                            count, n, ks);
    return clsort__dispatch_sort_batch(ctx, keys, n, count, type, algo, flags);
}

static int sort_buffer_locked(clsort_ctx *ctx, cl_mem keys, cl_mem values, size_t value_size,
                              size_t n, clsort_type type, clsort_algorithm algo, unsigned flags,
                              cl_uint num_wait, const cl_event *wait, cl_event *done)
{
    if (done)
        *done = NULL;
    int rc = check_args(ctx, "clsort_sort_buffer", keys != NULL, n, type, algo, flags,
                        values ? value_size : 0, values != NULL, 1);
    if (rc)
        return rc;
    /* The radix sort is stable on the device; the networks' stable path needs the host. */
    if ((flags & CLSORT_STABLE) && algo != CLSORT_RADIX)
        return clsort__fail(ctx, CLSORT_ERR_UNSUPPORTED,
                            "clsort_sort_buffer: CLSORT_STABLE needs host memory (or "
                            "CLSORT_RADIX)");
    if ((num_wait && !wait) || (!num_wait && wait))
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG, "clsort_sort_buffer: bad wait list");
    size_t have = 0;
    if (n > 0 && (clGetMemObjectInfo(keys, CL_MEM_SIZE, sizeof have, &have, NULL) != CL_SUCCESS ||
                  have / clsort_type_size(type) < n))
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG,
                            "clsort_sort_buffer: keys buffer holds fewer than n = %zu keys", n);
    if (n > 0 && values &&
        (clGetMemObjectInfo(values, CL_MEM_SIZE, sizeof have, &have, NULL) != CL_SUCCESS ||
         have / value_size < n))
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG,
                            "clsort_sort_buffer: values buffer holds fewer than n = %zu values", n);
    return clsort__dispatch_sort_buffer(ctx, keys, values, value_size, n, type, algo, flags,
                                        num_wait, wait, done);
}

/* clsort_prepare (one_sort 0, algo AUTO) and clsort_prepare_sort (one_sort 1). */
static int clsort_prepare_locked(clsort_ctx *ctx, clsort_type type, size_t value_size,
                                 size_t max_n, unsigned flags, int one_sort, clsort_algorithm algo)
{
    const char *fn = one_sort ? "clsort_prepare_sort" : "clsort_prepare";
    if (value_size != 0 && value_size != 4 && value_size != 8)
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG, "%s: value_size %zu is not 0, 4 or 8",
                            fn, value_size);
    /* n 0: the size is checked here, less strictly than a sort's (which wants its arrays to fit
     * in half the address space): a max_n whose bytes do not wrap is a size that cannot be
     * reserved, CLSORT_ERR_OUT_OF_MEMORY, not a bad argument. The size check itself
     * depends on what the sorts will run: the dispatch layer makes it. */
    const int rc = check_args(ctx, fn, 1, 0, type, algo, flags, value_size, value_size != 0, 1);
    if (rc)
        return rc;
    return clsort__dispatch_prepare(ctx, type, value_size, max_n, flags, one_sort, algo);
}

/* Public entry points: the per-context lock around the work (core.h). */
int clsort_prepare(clsort_ctx *ctx, clsort_type type, size_t value_size, size_t max_n,
                   unsigned flags)
{
    if (!ctx)
        return CLSORT_ERR_INVALID_ARG;
    pthread_mutex_lock(&ctx->lock);
    const int rc = clsort_prepare_locked(ctx, type, value_size, max_n, flags, 0, CLSORT_AUTO);
    pthread_mutex_unlock(&ctx->lock);
    return rc;
}

int clsort_prepare_sort(clsort_ctx *ctx, clsort_type type, size_t value_size, size_t n,
                        clsort_algorithm algo, unsigned flags)
{
    if (!ctx)
        return CLSORT_ERR_INVALID_ARG;
    pthread_mutex_lock(&ctx->lock);
    const int rc = clsort_prepare_locked(ctx, type, value_size, n, flags, 1, algo);
    pthread_mutex_unlock(&ctx->lock);
    return rc;
}

int clsort_sort(clsort_ctx *ctx, void *keys, size_t n, clsort_type type, clsort_algorithm algo,
                unsigned flags)
{
    if (!ctx)
        return CLSORT_ERR_INVALID_ARG;
    pthread_mutex_lock(&ctx->lock);
    const int rc = sort_locked(ctx, keys, n, type, algo, flags);
    pthread_mutex_unlock(&ctx->lock);
    return rc;
}

int clsort_sort_pairs(clsort_ctx *ctx, void *keys, void *values, size_t value_size, size_t n,
                      clsort_type type, clsort_algorithm algo, unsigned flags)
{
    if (!ctx)
        return CLSORT_ERR_INVALID_ARG;
    pthread_mutex_lock(&ctx->lock);
    const int rc = sort_pairs_locked(ctx, keys, values, value_size, n, type, algo, flags);
    pthread_mutex_unlock(&ctx->lock);
    return rc;
}

int clsort_sort_batch(clsort_ctx *ctx, void *keys, size_t n, size_t count, clsort_type type,
                      clsort_algorithm algo, unsigned flags)
{
    if (!ctx)
        return CLSORT_ERR_INVALID_ARG;
    pthread_mutex_lock(&ctx->lock);
    const int rc = sort_batch_locked(ctx, keys, n, count, type, algo, flags);
    pthread_mutex_unlock(&ctx->lock);
    return rc;
}

int clsort_sort_buffer(clsort_ctx *ctx, cl_mem keys, cl_mem values, size_t value_size, size_t n,
                       clsort_type type, clsort_algorithm algo, unsigned flags, cl_uint num_wait,
                       const cl_event *wait, cl_event *done)
{
    if (done)
        *done = NULL;
    if (!ctx)
        return CLSORT_ERR_INVALID_ARG;
    pthread_mutex_lock(&ctx->lock);
    const int rc = sort_buffer_locked(ctx, keys, values, value_size, n, type, algo, flags,
                                             num_wait, wait, done);
    pthread_mutex_unlock(&ctx->lock);
    return rc;
}