/* api_context.c - the public calls around a context: creating and destroying it, parameters
 * and statistics access, device facts and listing, and the version. The lock and the argument
 * checks are here; the work is the dispatch layer's (dispatch_context.c). */
#include "api_common.h"
#include "dispatch.h"

#include <stdlib.h>

unsigned clsort_version_number(void)
{
    return CLSORT_VERSION_NUMBER;
}

const char *clsort_version_string(void)
{
    return CLSORT_VERSION_STRING;
}

/* A zeroed context with its lock, or NULL. */
static clsort_ctx *new_ctx(void)
{
    clsort_ctx *ctx = calloc(1, sizeof *ctx);
    if (ctx)
        pthread_mutex_init(&ctx->lock, NULL);
    return ctx;
}

/* A new context opened by open_rc's call: handed out, or destroyed with its error returned. */
static int hand_out(clsort_ctx **out, clsort_ctx *ctx, int open_rc)
{
    if (open_rc != CLSORT_OK) {
        clsort_destroy(ctx);
        return open_rc;
    }
    *out = ctx;
    return CLSORT_OK;
}

int clsort_create(clsort_ctx **out, const char *device)
{
    if (!out)
        return CLSORT_ERR_INVALID_ARG;
    *out = NULL;
    clsort_ctx *ctx = new_ctx();
    if (!ctx)
        return CLSORT_ERR_OUT_OF_MEMORY;
    return hand_out(out, ctx, clsort__context_open(ctx, device));
}

int clsort_create_with_queue(clsort_ctx **out, cl_command_queue queue)
{
    if (!out)
        return CLSORT_ERR_INVALID_ARG;
    *out = NULL;
    if (!queue)
        return CLSORT_ERR_INVALID_ARG;
    clsort_ctx *ctx = new_ctx();
    if (!ctx)
        return CLSORT_ERR_OUT_OF_MEMORY;
    return hand_out(out, ctx, clsort__context_adopt(ctx, queue));
}

cl_command_queue clsort_get_queue(const clsort_ctx *ctx)
{
    /* Set once when the context is made and never changed, so no lock is needed. */
    return ctx ? ctx->queue : NULL;
}

void clsort_destroy(clsort_ctx *ctx)
{
    if (!ctx)
        return;
    clsort__context_close(ctx);
    pthread_mutex_destroy(&ctx->lock);
    free(ctx);
}

int clsort_get_device_info(const clsort_ctx *ctx, clsort_device_info *info)
{
    if (!ctx)
        return CLSORT_ERR_INVALID_ARG;
    if (!info)
        return clsort__fail_const(ctx, CLSORT_ERR_INVALID_ARG,
                                  "clsort_get_device_info: info is NULL");
    clsort__context_device_info(ctx, info);
    return CLSORT_OK;
}

int clsort_list_devices(void (*fn)(const clsort_device_info *, int, void *), void *user)
{
    return clsort__list_devices(fn, user);
}

/* get_params and get_params_for_size: a NULL params or a bad variant named in one message. */
static int get_params(clsort_ctx *ctx, const char *fn, clsort_algorithm algo, clsort_type type,
                      size_t value_size, uint64_t n, int for_size, clsort_params *params)
{
    if (!ctx)
        return CLSORT_ERR_INVALID_ARG;
    pthread_mutex_lock(&ctx->lock);
    int rc = params ? clsort__context_get_params(ctx, algo, type, value_size, n, for_size, params)
                    : CLSORT_ERR_INVALID_ARG;
    if (rc != CLSORT_OK)
        clsort__fail(ctx, rc, "%s: %s", fn,
                     params ? "bad algorithm (AUTO has no parameters), type or value_size"
                            : "params is NULL");
    pthread_mutex_unlock(&ctx->lock);
    return rc;
}

int clsort_get_params(clsort_ctx *ctx, clsort_algorithm algo, clsort_type type, size_t value_size,
                      clsort_params *params)
{
    return get_params(ctx, "clsort_get_params", algo, type, value_size, 0, 0, params);
}

int clsort_get_params_for_size(clsort_ctx *ctx, clsort_algorithm algo, clsort_type type,
                               size_t value_size, uint64_t n, clsort_params *params)
{
    return get_params(ctx, "clsort_get_params_for_size", algo, type, value_size, n, 1, params);
}

int clsort_set_params(clsort_ctx *ctx, clsort_algorithm algo, clsort_type type, size_t value_size,
                      const clsort_params *params)
{
    if (!ctx)
        return CLSORT_ERR_INVALID_ARG;
    pthread_mutex_lock(&ctx->lock);
    const int rc = params ? clsort__context_set_params(ctx, algo, type, value_size, params)
                          : clsort__fail(ctx, CLSORT_ERR_INVALID_ARG,
                                         "clsort_set_params: bad argument");
    pthread_mutex_unlock(&ctx->lock);
    return rc;
}

int clsort_get_stats(clsort_ctx *ctx, clsort_stats *stats)
{
    if (!ctx)
        return CLSORT_ERR_INVALID_ARG;
    pthread_mutex_lock(&ctx->lock);
    int rc = CLSORT_OK;
    if (stats)
        clsort__context_stats(ctx, stats);
    else
        rc = clsort__fail(ctx, CLSORT_ERR_INVALID_ARG, "clsort_get_stats: stats is NULL");
    pthread_mutex_unlock(&ctx->lock);
    return rc;
}
