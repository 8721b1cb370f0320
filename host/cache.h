/* cache.h - the on-disk cache of program binaries (cache.c, docs/tuning.md). */
#ifndef CLSORT_CACHE_H
#define CLSORT_CACHE_H

#include "core.h"

/* Both are best-effort and never fatal: a miss returns NULL, a failed store is only traced. */
cl_program clsort__cache_load(clsort_ctx *ctx, const char *source, size_t source_len,
                              const char *options);
void clsort__cache_store(clsort_ctx *ctx, cl_program program, const char *source,
                         size_t source_len, const char *options);
/* The program cache directory: $CLSORT_CACHE_DIR, else $XDG_CACHE_HOME/clsort, else
 * $HOME/.cache/clsort. Returns 0, or -1 if none can be formed. */
int clsort__cache_dir(char *out, size_t out_size);

#endif /* CLSORT_CACHE_H */
