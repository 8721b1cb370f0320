/* kernels.h - the kernel manifest (kernels/manifest.h) as the host reads it (kernels.c): each
 * kernel's name, programs, argument list and launch shape, and whether a build with given
 * parameters holds it. */
#ifndef CLSORT_KERNELS_H
#define CLSORT_KERNELS_H

#include "plan_types.h"

/* The manifest's kernel table, indexed by clsort__kernel_id. */
extern const clsort__kernel_info clsort__kernels[CLSORT__NKERNELS];
/* 1 when a network program built with parameters p holds kernel k: the manifest's CLSORT_WHEN_*
 * condition of k, the same expression the kernels' #if guards test, evaluated on p. */
int clsort__kernel_built(clsort__kernel_id k, const clsort_params *p);
/* 1 when a tile of p->tile keys belongs to one work-item alone (CLSORT_WHEN_SOLO). */
int clsort__solo_tile(const clsort_params *p);

#endif /* CLSORT_KERNELS_H */
