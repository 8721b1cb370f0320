/* params.h - kernel parameters (params.c): the slot indices, built-in defaults, checks, local
 * memory, and the one function that turns parameters into -D build options. */
#ifndef CLSORT_PARAMS_H
#define CLSORT_PARAMS_H

#include "core.h"

int clsort__network_index(clsort_algorithm algo);      /* 0..2, or -1 for AUTO / invalid */
int clsort__width_index(clsort_type type);              /* 0 (32-bit) or 1 (64-bit) */
int clsort__valkind_index(size_t value_size);           /* 0, 1 (4 bytes), 2 (8 bytes); -1 bad */
/* Built-in defaults from the device's limits. */
void clsort__default_params(const clsort__device *dev, int net, int width, int valkind,
                            clsort_params *out);
/* Checks p against the device's limits; on failure writes the reason into why. */
int clsort__check_params(const clsort__device *dev, int net, int width, int valkind,
                         const clsort_params *p, char *why, size_t why_size);
/* Local memory in bytes that the network's tile kernels need with these parameters. */
size_t clsort__local_bytes(int net, int width, int valkind, const clsort_params *p);
/* The one place that turns parameters into -D build options. */
void clsort__build_options(int net, int width, int valkind, int index_bits,
                           const clsort_params *p, char *out, size_t out_size);

#endif /* CLSORT_PARAMS_H */
