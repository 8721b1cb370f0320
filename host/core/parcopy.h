/* parcopy.h - memcpy spread over a few threads (parcopy.c): one thread's copy into pinned memory
 * reaches only a fraction of what the memory system gives. A leaf: depends on nothing. */
#ifndef CLSORT_PARCOPY_H
#define CLSORT_PARCOPY_H

#include <stddef.h>

/* Copies bytes from src to dst (not overlapping) with up to the number of online cores (at most
 * 8) threads, the calling one included; small copies stay on the calling thread. Falls back to
 * fewer threads, down to the caller alone, when threads cannot be started. */
void clsort__copy_parallel(void *dst, const void *src, size_t bytes);

#endif /* CLSORT_PARCOPY_H */
