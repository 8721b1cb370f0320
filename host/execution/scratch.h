/* scratch.h - the context's scratch device buffers, reused across calls (scratch.c). */
#ifndef CLSORT_SCRATCH_H
#define CLSORT_SCRATCH_H

#include "core.h"

/* Makes sure scratch buffer i holds at least size bytes. */
int clsort__ensure_scratch(clsort_ctx *ctx, int i, size_t size);

#endif /* CLSORT_SCRATCH_H */
