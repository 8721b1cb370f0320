/* api_tuning.c - the public calls the tuner needs beyond the sorting API: where the runtime looks
 * first for a device's config, and the host-fallback size (docs/tuning.md). */
#include "config.h"

#include <pthread.h>
#include <string.h>

int clsort_config_path(const clsort_ctx *ctx, char *buf, size_t size)
{
    char dir[1024], file[400];
    if (!ctx || !buf || size == 0 || clsort__user_config_dir(dir, sizeof dir) != 0)
        return CLSORT_ERR_INVALID_ARG;
    clsort__config_file_name(&ctx->dev, file, sizeof file);
    const int n = snprintf(buf, size, "%s/%s", dir, file);
    if (n < 0 || (size_t)n >= size) {
        buf[0] = 0;
        return CLSORT_ERR_INVALID_ARG;
    }
    return CLSORT_OK;
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
    if (!ctx || !max_n)
        return CLSORT_ERR_INVALID_ARG;
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
    if (!ctx || !max_n)
        return CLSORT_ERR_INVALID_ARG;
    pthread_mutex_lock((pthread_mutex_t *)&ctx->lock);
    *max_n = ctx->host_path_max;
    pthread_mutex_unlock((pthread_mutex_t *)&ctx->lock);
    return CLSORT_OK;
}
