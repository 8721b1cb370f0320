/* cache.h - the on-disk cache of program binaries (cache.c, docs/tuning.md). */
#ifndef CLSORT_CACHE_H
#define CLSORT_CACHE_H

#include "core.h"

/* Both are best-effort and never fatal: a miss returns NULL, a failed store is only traced. */
cl_program clsort__cache_load(clsort_ctx *ctx, const char *source, size_t source_len,
                              const char *options);
void clsort__cache_store(clsort_ctx *ctx, cl_program program, const char *source,
                         size_t source_len, const char *options);
/* The program cache directory: $CLSORT_CACHE_DIR, else $XDG_CACHE_HOME/clsort (absolute values
 * only), else $HOME/.cache/clsort. Returns 0, or -1 if none can be formed. */
int clsort__cache_dir(char *out, size_t out_size);
/* clsort_clear_cache: removes this user's entries and temporary files from the directory;
 * *removed counts them. CLSORT_OK, or CLSORT_ERR_INVALID_ARG with errno 0 (no directory) or
 * errno set (it cannot be read, or a file cannot be removed; the others still are). */
int clsort__cache_clear(unsigned *removed);

#endif /* CLSORT_CACHE_H */
