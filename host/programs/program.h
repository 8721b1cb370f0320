/* program.h - built programs and their kernels, kept on the context (program.c). */
#ifndef CLSORT_PROGRAM_H
#define CLSORT_PROGRAM_H

#include "core.h"
#include "plan_types.h"

/* Returns (building and caching on first use) program `net` of the manifest (a network's, or the
 * segmented sort's) built with these -D options (clsort__build_options; $CLSORT_BUILD_OPTIONS is
 * appended here). index_bits is recorded with the program. */
int clsort__get_program(clsort_ctx *ctx, clsort__program_id net, int index_bits,
                        const char *options, clsort__program **out);
/* Returns a kernel of a program by name (created on first use): a name of the manifest's table
 * (kernels.h: clsort__kernels[id].name), a string that outlives the program. */
int clsort__get_kernel(clsort_ctx *ctx, clsort__program *prog, const char *name, cl_kernel *out,
                       size_t *max_wg);
void clsort__release_programs(clsort_ctx *ctx);
/* The source of a program: its parts in the manifest's order (CLSORT_PARTS_*), concatenated;
 * malloc'ed, NULL if out of memory. */
char *clsort__program_source(clsort__program_id program, size_t *len);

#endif /* CLSORT_PROGRAM_H */
