/* topk.h - the device side of top-k (topk.c): the tile, the cut-over between the top-k network
 * and the full sort of each row, the schedule of passes, and their enqueueing on the context's
 * queue. */
#ifndef CLSORT_TOPK_H
#define CLSORT_TOPK_H

#include "core.h"

/* One top-k to enqueue: rows of n keys in `keys` (and values in `vals`, NULL for none), the k
 * first of each row in stable order to out_keys (and out_vals, NULL for none). */
typedef struct clsort__topk_job {
    clsort_type type;
    unsigned flags;             /* CLSORT_DESCENDING */
    size_t value_size;          /* 4 or 8 when vals or out_vals is given, else 0 */
    cl_mem keys, vals, out_keys, out_vals;
    uint64_t n, rows, k;
    cl_uint num_wait;
    const cl_event *wait;
    cl_event *done;             /* may be NULL */
} clsort__topk_job;

/* Items one work-group holds in local memory for this job (a power of two, at most 4096). The
 * network path takes k up to half of it; above that each row is sorted in full. */
unsigned clsort__topk_tile(const clsort_ctx *ctx, clsort_type type, size_t item_value_size,
                           uint64_t n);

/* One launch of a top-k: topk_tile (tile 1) on `groups` work-groups, or a topk_global level
 * (tile 0) over every row's m items. Buffers: 0 the input, 1 and 2 the items, 3 the output. */
typedef struct clsort__topk_step {
    int tile;
    int from, to;               /* topk_tile: where it reads and writes */
    uint64_t groups;            /* topk_tile: work-groups */
    uint64_t m, m_out, tiles_per_row, sz, j;
    unsigned P, K, mode;
} clsort__topk_step;
typedef int (*clsort__topk_emit_fn)(const clsort__topk_step *step, void *user);

/* Emits the launches of a top-k of rows x n keys, k of each, with tile T, in order: pure
 * arithmetic, the same for every input of that shape (docs/security.md). *items_a and *items_b
 * receive the number of items the two item buffers must hold. Returns emit's first failure. */
int clsort__topk_schedule(uint64_t n, uint64_t rows, uint64_t k, unsigned T,
                          clsort__topk_emit_fn emit, void *user, uint64_t *items_a,
                          uint64_t *items_b);

/* Enqueues job on the context's queue after its wait list, without blocking; records the
 * statistics and the first and last events like a sort. */
int clsort__topk_enqueue(clsort_ctx *ctx, const clsort__topk_job *job);

#endif /* CLSORT_TOPK_H */
