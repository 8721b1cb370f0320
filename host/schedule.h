/* schedule.h - the sequence of launches of each network (schedule.c): pure arithmetic on
 * (network, n, parameters), no OpenCL calls. */
#ifndef CLSORT_SCHEDULE_H
#define CLSORT_SCHEDULE_H

#include "clsort.h"
#include "plan_types.h"

/* Calls emit for every launch that sorts n keys with network `net` and parameters p, in order.
 * Stops and returns emit's status if it is not CLSORT_OK. The schedule depends only on
 * (net, n, p): never on key values (docs/security.md). */
int clsort__schedule(int net, uint64_t n, const clsort_params *p, clsort__emit_fn emit,
                     void *user);
/* The overlapped upload (api_sort.c) runs the schedule in two parts. The first step of every
 * network is a tile pass in place (bitonic_sort_tile, oem_sort_tile, oet_sort_tile) that sorts
 * each tile on its own, so it can run per chunk of whole tiles as each chunk arrives:
 * clsort__schedule_first_step gives that step for n keys, limited to the tiles of the first
 * `keys` keys (its kernel arguments stay those of the whole sort); clsort__schedule_rest emits
 * every step after it. Together they emit exactly what clsort__schedule emits. */
int clsort__schedule_first_step(int net, uint64_t n, const clsort_params *p, uint64_t keys,
                                clsort__step *out);
int clsort__schedule_rest(int net, uint64_t n, const clsort_params *p, clsort__emit_fn emit,
                          void *user);
uint64_t clsort__next_pow2(uint64_t x);
unsigned clsort__log2(uint64_t x);

#endif /* CLSORT_SCHEDULE_H */
