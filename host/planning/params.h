/* params.h - the variant of a sort and its kernel parameters (params.c): built-in defaults,
 * checks, local memory, and the one function that turns a plan into -D build options. */
#ifndef CLSORT_PARAMS_H
#define CLSORT_PARAMS_H

#include "core.h"
#include "plan_types.h"

/* The variant of a sort with this algorithm (not AUTO), key type and value size (0, 4 or 8);
 * -1 when one of them is invalid. */
int clsort__variant_of(clsort_algorithm algo, clsort_type type, size_t value_size,
                       clsort__variant *out);
/* The network of an explicit algorithm; -1 for AUTO or an invalid one. */
int clsort__network_index(clsort_algorithm algo);
int clsort__width_index(clsort_type type);              /* 0 (32-bit) or 1 (64-bit) */
int clsort__valkind_index(size_t value_size);           /* 0, 1 (4 bytes), 2 (8 bytes); -1 bad */
unsigned clsort__key_bits(const clsort__variant *v);    /* 32 or 64 */
unsigned clsort__val_bytes(const clsort__variant *v);   /* 0, 4 or 8 */
/* Built-in defaults from the device's limits. */
void clsort__default_params(const clsort__device *dev, const clsort__variant *v,
                            clsort_params *out);
/* Checks p against the device's limits; on failure writes the reason into why. */
int clsort__check_params(const clsort__device *dev, const clsort__variant *v,
                         const clsort_params *p, char *why, size_t why_size);
/* Local memory in bytes that the network's tile kernels need with these parameters. */
size_t clsort__local_bytes(const clsort__variant *v, const clsort_params *p);
/* The one place that turns a plan (its program, variant, index width and parameters, or its
 * segmented or top-k shape) into the program's -D build options, into plan->options. */
void clsort__build_options(clsort__plan *plan);
/* The network parameters' part of those options, " -DWG_SIZE=... -DKEYS_PER_ITEM=...": one
 * option a row of CLSORT_PARAM_TABLE (include/clsort.h), in its order. */
/* The table's rows by index k (0 .. CLSORT_NPARAMS - 1): the config key, and the field of p. */
extern const char *const clsort__param_keys[CLSORT_NPARAMS];
unsigned *clsort__param_field(clsort_params *p, int k);
void clsort__param_options(const clsort_params *p, char *out, size_t out_size);

#endif /* CLSORT_PARAMS_H */
