/* api_memory.c - the public calls for pinned host memory: clsort_host_alloc and clsort_host_free,
 * under the context's lock. The blocks themselves live in transfer.c, which recognises them. */
#include "transfer.h"

void *clsort_host_alloc(clsort_ctx *ctx, size_t bytes)
{
    if (!ctx)
        return NULL;
    pthread_mutex_lock(&ctx->lock);
    void *p = clsort__pinned_alloc(ctx, bytes);
    pthread_mutex_unlock(&ctx->lock);
    return p;
}

void clsort_host_free(clsort_ctx *ctx, void *ptr)
{
    if (!ctx || !ptr)
        return;
    pthread_mutex_lock(&ctx->lock);
    clsort__pinned_free(ctx, ptr);
    pthread_mutex_unlock(&ctx->lock);
}
