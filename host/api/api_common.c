/* api_common.c - what the public calls share: the checks of a sort's kind (api_sort.c,
 * api_segments.c), the fp64 check (and api_topk.c) and the lock and clock around a call that
 * times itself (api_segments.c, api_topk.c), a getter's failure on a const context
 * (api_context.c, api_tuning.c), written once so that their messages and behaviour
 * stay the same across the calls. */
#include "api_common.h"

#include "run.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>

int clsort__check_sort_kind(clsort_ctx *ctx, const char *fn, clsort_type type,
                            clsort_algorithm algo, unsigned flags, size_t value_size,
                            int need_values)
{
    if (!clsort_type_size(type))
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG, "%s: invalid key type %d", fn, (int)type);
    if ((unsigned)algo > CLSORT_RADIX)
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG, "%s: invalid algorithm %d", fn,
                            (int)algo);
    if (flags & ~CLSORT__KNOWN_FLAGS)
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG, "%s: unknown flag bits 0x%x", fn,
                            flags & ~CLSORT__KNOWN_FLAGS);
    if (need_values && value_size != 4 && value_size != 8)
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG, "%s: value_size %zu is not 4 or 8", fn,
                            value_size);
    return CLSORT_OK;
}

int clsort__check_fp64(clsort_ctx *ctx, const char *fn, clsort_type type)
{
    if (type == CLSORT_F64 && !ctx->dev.fp64)
        return clsort__fail(ctx, CLSORT_ERR_UNSUPPORTED,
                            "%s: f64 keys need a device with fp64 (cl_khr_fp64); %s has none", fn,
                            ctx->dev.name);
    return CLSORT_OK;
}

uint64_t clsort__enter_timed(clsort_ctx *ctx)
{
    const uint64_t t0 = clsort__now_ns();
    pthread_mutex_lock(&ctx->lock);
    clsort__reset_stats(ctx);
    return t0;
}

uint64_t clsort__begin_call(clsort_ctx *ctx)
{
    const uint64_t t0 = clsort__now_ns();
    clsort__reset_stats(ctx);
    return t0;
}

int clsort__leave_timed(clsort_ctx *ctx, uint64_t t0, int rc)
{
    ctx->stats.total_ns = clsort__now_ns() - t0;
    pthread_mutex_unlock(&ctx->lock);
    return rc;
}

int clsort__fail_const(const clsort_ctx *ctx, int status, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    clsort_ctx *c = (clsort_ctx *)ctx;
    pthread_mutex_lock(&c->lock);
    clsort__fail(c, status, "%s", buf);
    pthread_mutex_unlock(&c->lock);
    return status;
}
