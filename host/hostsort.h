/* hostsort.h - the CPU sort with the documented order (hostsort.c). */
#ifndef CLSORT_HOSTSORT_H
#define CLSORT_HOSTSORT_H

#include "clsort.h"

#include <stdint.h>

/* Sorts on the host with the documented order (LSD radix sort: stable). values may be NULL. */
int clsort__host_sort(void *keys, void *values, size_t value_size, size_t n, clsort_type type,
                      unsigned flags);
/* The key transform of kernels/common.cl, on the host. */
uint32_t clsort__order32(uint32_t x, clsort_type type, unsigned flags);
uint64_t clsort__order64(uint64_t x, clsort_type type, unsigned flags);

#endif /* CLSORT_HOSTSORT_H */
