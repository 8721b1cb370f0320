/* api_tuning.c - the public calls the tuner needs beyond the sorting API: where the runtime looks
 * first for a device's config, and the host-fallback size (docs/tuning.md). */
#include "api_common.h"
#include "cache.h"
#include "config.h"
#include "hostsort.h"

#include <pthread.h>
#include <string.h>

/* A getter's bad argument, with the size the caller gave. */
#define FAIL_CONST(ctx, fn, why, size) \
    clsort__fail_const(ctx, CLSORT_ERR_INVALID_ARG, "%s: %s (size %zu)", fn, why, (size_t)(size))

int clsort_config_path(const clsort_ctx *ctx, char *buf, size_t size)
{
    static const char fn[] = "clsort_config_path";
    char dir[1024], file[400];
    if (!ctx)
        return CLSORT_ERR_INVALID_ARG;
    if (!buf || size == 0)
        return FAIL_CONST(ctx, fn, "buf is NULL or its size 0", size);
    if (clsort__user_config_dir(dir, sizeof dir) != 0)
        return FAIL_CONST(ctx, fn,
                          "no config directory can be formed (none of CLSORT_CONFIG_DIR, an "
                          "absolute XDG_CONFIG_HOME or HOME is set, or the path is too long)",
                          size);
    clsort__config_file_name(&ctx->dev, file, sizeof file);
    const int n = snprintf(buf, size, "%s/%s", dir, file);
    if (n < 0 || (size_t)n >= size) {
        buf[0] = 0;
        return FAIL_CONST(ctx, fn, "buf is too small for the path", size);
    }
    return CLSORT_OK;
}

int clsort_cache_path(char *buf, size_t size)
{
    if (!buf || size == 0)
        return CLSORT_ERR_INVALID_ARG;
    /* Formed in a buffer of its own, so that a buf too small is left "" rather than cut. */
    char dir[1024];
    const int ok = clsort__cache_dir(dir, sizeof dir) == 0 && strlen(dir) < size;
    snprintf(buf, size, "%s", ok ? dir : "");
    return ok ? CLSORT_OK : CLSORT_ERR_INVALID_ARG;
}

int clsort_clear_cache(unsigned *removed)
{
    unsigned n = 0;
    const int rc = clsort__cache_clear(&n);
    if (removed)
        *removed = n;
    return rc;
}

int clsort_set_host_fallback_max(clsort_ctx *ctx, uint64_t max_n)
{
    if (!ctx)
        return CLSORT_ERR_INVALID_ARG;
    pthread_mutex_lock(&ctx->lock); /* the per-context lock of every public call (core.h) */
    ctx->host_fallback_max = max_n;
    pthread_mutex_unlock(&ctx->lock);
    return CLSORT_OK;
}

int clsort_get_host_fallback_max(const clsort_ctx *ctx, uint64_t *max_n)
{
    if (!ctx)
        return CLSORT_ERR_INVALID_ARG;
    if (!max_n)
        return FAIL_CONST(ctx, "clsort_get_host_fallback_max", "max_n is NULL", 0);
    pthread_mutex_lock((pthread_mutex_t *)&ctx->lock); /* const ctx, but the lock is state */
    *max_n = ctx->host_fallback_max;
    pthread_mutex_unlock((pthread_mutex_t *)&ctx->lock);
    return CLSORT_OK;
}

int clsort_set_host_path_max(clsort_ctx *ctx, uint64_t max_n)
{
    if (!ctx)
        return CLSORT_ERR_INVALID_ARG;
    pthread_mutex_lock(&ctx->lock);
    ctx->host_path_max = max_n;
    pthread_mutex_unlock(&ctx->lock);
    return CLSORT_OK;
}

int clsort_get_host_path_max(const clsort_ctx *ctx, uint64_t *max_n)
{
    if (!ctx)
        return CLSORT_ERR_INVALID_ARG;
    if (!max_n)
        return FAIL_CONST(ctx, "clsort_get_host_path_max", "max_n is NULL", 0);
    pthread_mutex_lock((pthread_mutex_t *)&ctx->lock);
    *max_n = ctx->host_path_max;
    pthread_mutex_unlock((pthread_mutex_t *)&ctx->lock);
    return CLSORT_OK;
}

const char *clsort_host_sort_name(void)
{
    return clsort__host_sort_name();
}
