/* hostsort.h - the CPU sort with the documented order (hostsort.c; Highway's vqsort through
 * hostsort_hwy.cc where the build found libhwy, else an LSD radix sort). */
#ifndef CLSORT_HOSTSORT_H
#define CLSORT_HOSTSORT_H

#include "clsort.h"

#include <stdint.h>

/* Sorts on the host with the documented order (clsort_sort's; flags CLSORT_DESCENDING and
 * CLSORT_STABLE, others ignored). values may be NULL; else value_size is 4 or 8 and values travel
 * with their keys. With CLSORT_STABLE (or in a build without libhwy) equal keys keep their input
 * order, so CLSORT_STABLE pairs need no more; without it, pairs of equal keys come out ordered by
 * their values' bits (so values that are positions in increasing order stay so). Returns
 * CLSORT_OK, CLSORT_ERR_OUT_OF_MEMORY (the arrays as they were: all memory is taken before
 * anything moves) or CLSORT_ERR_INVALID_ARG for another value_size. */
int clsort__host_sort(void *keys, void *values, size_t value_size, size_t n, clsort_type type,
                      unsigned flags);
/* "vqsort" or "radix": which sort clsort__host_sort runs in this build. */
const char *clsort__host_sort_name(void);
/* The key transform of kernels/common.cl, on the host. */
uint32_t clsort__order32(uint32_t x, clsort_type type, unsigned flags);
uint64_t clsort__order64(uint64_t x, clsort_type type, unsigned flags);

#endif /* CLSORT_HOSTSORT_H */
