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

/* The conditions are written over the kernels' parameter names: bound here to the p of the
 * functions below. */
#define TILE (p->tile)
#define WG_SIZE (p->wg_size)
#define VEC_STEP (p->vec_step)
#define KEYS_PER_ITEM (p->keys_per_item)

int clsort__kernel_built(clsort__kernel_id k, const clsort_params *p)
{
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
    return CLSORT_WHEN_SOLO;
}

#undef TILE
#undef WG_SIZE
#undef VEC_STEP
#undef KEYS_PER_ITEM
