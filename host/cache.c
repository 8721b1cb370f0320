/* cache.c - on-disk cache of compiled program binaries. Placeholder until the cache lands: every
 * lookup misses and nothing is stored, which is always correct (just slower on first calls). */
#include "internal.h"

cl_program clsort__cache_load(clsort_ctx *ctx, const char *source, size_t source_len,
                              const char *options)
{
    (void)ctx, (void)source, (void)source_len, (void)options;
    return NULL;
}

void clsort__cache_store(clsort_ctx *ctx, cl_program program, const char *source,
                         size_t source_len, const char *options)
{
    (void)ctx, (void)program, (void)source, (void)source_len, (void)options;
}
