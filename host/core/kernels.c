/* kernels.c - the kernel manifest (kernels/manifest.h) as a table for the host: the same
 * X-macro rows the kernels follow, so a kernel's name, programs, arguments, launch shape and
 * existence are written once for both sides. */
#include "kernels.h"

/* The manifest's program sets are bits of the program ids. */
#define CLSORT__X(name, parts)                                                   \
    _Static_assert(CLSORT_IN_##name == 1 << CLSORT__PROGRAM_##name,               \
                   "manifest.h: CLSORT_IN_" #name " is not 1 << its program's number");
CLSORT_PROGRAMS(CLSORT__X)
#undef CLSORT__X

const clsort__kernel_info clsort__kernels[CLSORT__NKERNELS] = {
#define CLSORT__X(name, programs, args, shape, when) \
    [CLSORT__K_##name] = {#name, programs, CLSORT__ARGS_##args, CLSORT__SHAPE_##shape},
    CLSORT_KERNELS(CLSORT__X)
#undef CLSORT__X
};

/* The conditions are written over the kernels' parameter names (the -D names of
 * CLSORT_PARAM_TABLE): bound here, row by row, to the fields of the p of the functions below. */
#define CLSORT__BIND(name, DNAME, min, max, pow2, tune_lo, tune_hi, key, what) \
    const unsigned DNAME = p->name;                                          \
    (void)DNAME;

int clsort__kernel_built(clsort__kernel_id k, const clsort_params *p)
{
    CLSORT_PARAM_TABLE(CLSORT__BIND)
    switch (k) {
#define CLSORT__X(name, programs, args, shape, when) \
    case CLSORT__K_##name:                           \
        return (CLSORT_WHEN_##when) != 0;
        CLSORT_KERNELS(CLSORT__X)
#undef CLSORT__X
    default:
        return 0;
    }
}

int clsort__solo_tile(const clsort_params *p)
{
    CLSORT_PARAM_TABLE(CLSORT__BIND)
    return CLSORT_WHEN_SOLO;
}
#undef CLSORT__BIND
