/* plan_types.h - what the planning layer hands to the execution layer: the plan of one sort
 * (plan.c) and the steps of its schedule (schedule.c), which run.c turns into launches. Types
 * only, so that execution can take them without reaching up to the modules that make them. */
#ifndef CLSORT_PLAN_TYPES_H
#define CLSORT_PLAN_TYPES_H

#include "clsort.h"

#include <stdint.h>

/* One launch of the schedule: kernel name, work-items in dimension 0, the kernel's extra
 * arguments after (keys, [vals,] n, xf), and whether it reads and writes every key once. */
typedef struct clsort__step {
    const char *kernel;
    uint64_t items;         /* global work-items (dimension 0), before rounding to the group */
    int tile_kernel;        /* 1: runs with exactly WG_SIZE work-items per group */
    cl_uint args[2];
    int nargs;
    int global_pass;
} clsort__step;

/* Receives the steps of a schedule in order; a status other than CLSORT_OK stops it. */
typedef int (*clsort__emit_fn)(const clsort__step *step, void *user);

/* Everything decided about one sort of `count` arrays of n keys before anything is enqueued. */
typedef struct clsort__plan {
    uint64_t n, count;
    clsort_type type;
    size_t value_size;              /* 0: keys alone */
    clsort_algorithm algo;          /* AUTO already resolved */
    int net, width, valkind;        /* the parameter slot (params.h) */
    const clsort_params *params;    /* the context's parameters of that slot */
    int index_bits;                 /* 32 or 64: the width of idx_t in the kernels */
    cl_uint xf;                     /* key transform: 1 signed, 2 float, 4 descending */
    int empty;                      /* n < 2 or count == 0: nothing to launch */
    char options[1024];             /* the -D build options of the program (params.c) */
} clsort__plan;

#endif /* CLSORT_PLAN_TYPES_H */
