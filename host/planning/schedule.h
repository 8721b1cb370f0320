/* schedule.h - the sequence of launches of each plan (schedule.c): pure arithmetic on the plan,
 * no OpenCL calls. */
#ifndef CLSORT_SCHEDULE_H
#define CLSORT_SCHEDULE_H

#include "clsort.h"
#include "plan_types.h"

/* Calls emit for every step of plan (plan.h: a network's sort of `count` arrays of n keys, or a
 * segmented sort), in order. Stops and returns emit's status if it is not CLSORT_OK. The
 * schedule depends only on the plan's network, n and parameters, or on its segmented shape:
 * never on key values (docs/security.md). */
int clsort__schedule(const clsort__plan *plan, clsort__emit_fn emit, void *user);
/* The overlapped upload (dispatch_path.c) runs a network plan's schedule in two parts. The first step
 * of every network is a tile pass in place (bitonic_sort_tile, oem_sort_tile, oet_sort_tile)
 * that sorts each tile on its own, so it can run per chunk of whole tiles as each chunk arrives:
 * clsort__schedule_first_step gives that step for the plan's n keys, limited to the tiles of the
 * first `keys` keys (its kernel arguments stay those of the whole sort); clsort__schedule_rest
 * emits every step after it. Together they emit exactly what clsort__schedule emits. */
int clsort__schedule_first_step(const clsort__plan *plan, uint64_t keys, clsort__step *out);
int clsort__schedule_rest(const clsort__plan *plan, clsort__emit_fn emit, void *user);
uint64_t clsort__next_pow2(uint64_t x);
unsigned clsort__log2(uint64_t x);

#endif /* CLSORT_SCHEDULE_H */
