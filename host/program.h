/* program.h - built programs and their kernels, kept on the context (program.c). */
#ifndef CLSORT_PROGRAM_H
#define CLSORT_PROGRAM_H

#include "core.h"

/* The program number of kernels/segmented.cl (the networks are 0..CLSORT__NETWORKS-1). */
#define CLSORT__NET_SEGMENTED CLSORT__NETWORKS

/* Returns (building and caching on first use) the program of network `net` built with these -D
 * options (clsort__build_options; $CLSORT_BUILD_OPTIONS is appended here). index_bits is
 * recorded with the program. */
int clsort__get_program(clsort_ctx *ctx, int net, int index_bits, const char *options,
                        clsort__program **out);
/* Returns a kernel of a program by name (created on first use). */
int clsort__get_kernel(clsort_ctx *ctx, clsort__program *prog, const char *name, cl_kernel *out,
                       size_t *max_wg);
void clsort__release_programs(clsort_ctx *ctx);
/* The concatenated source of a network or CLSORT__NET_SEGMENTED (common.cl + its files), malloc'ed; NULL if out of memory. */
char *clsort__network_source(int net, size_t *len);

#endif /* CLSORT_PROGRAM_H */
