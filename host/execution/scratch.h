/* scratch.h - the context's scratch device buffers, reused across calls (scratch.c). */
#ifndef CLSORT_SCRATCH_H
#define CLSORT_SCRATCH_H

#include "core.h"

/* The slots (core.h, CLSORT__NSCRATCH of them): 0 and 1 hold host-array sorts' keys and values;
 * 2 the segmented sort's bin list (host variant; the buffer variant's is in 0) or its stable
 * positions (buffer variant); 3 its offsets (host variant); 4 the 64-bit composites of a
 * composed segmented sort (seg_shape.h, clsort__seg_compose) and 5 its values' copy; 6 and 7 the
 * radix sort's second buffers of keys and values (its odd passes write there) and 8 its digit
 * counts. */
#define CLSORT__SCRATCH_COMPOSED 4
#define CLSORT__SCRATCH_VCOPY 5
#define CLSORT__SCRATCH_RADIX_KEYS 6
#define CLSORT__SCRATCH_RADIX_VALS 7
#define CLSORT__SCRATCH_RADIX_HIST 8

/* Makes sure scratch buffer i holds at least size bytes. */
int clsort__ensure_scratch(clsort_ctx *ctx, int i, size_t size);

#endif /* CLSORT_SCRATCH_H */
