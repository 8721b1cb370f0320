/* run.h - the execution of a plan on the context's queue (run.c): the caller makes the plan
 * (plan.h), starts a run, feeds it the schedule's steps (schedule.h) and ends it. Every sort
 * runs this way: a network's sort of one array or a batch, the segmented sort, and the top-k. */
#ifndef CLSORT_RUN_H
#define CLSORT_RUN_H

#include "core.h"
#include "plan_types.h"

/* One sort being enqueued: its buffers, program, wait list and events so far. */
typedef struct clsort__run {
    clsort_ctx *ctx;
    const clsort__plan *plan;
    clsort__program *prog;
    cl_mem keys, vals;
    cl_mem offsets, meta, gpos;         /* the segmented sort's list and scratch */
    cl_mem keys32, vals32, vcopy;       /* a composed segmented sort's (clsort__composed) */
    cl_mem out_keys, out_vals;          /* the top-k's outputs */
    cl_mem narrow;                      /* the caller's narrow keys (plan->narrow_bits) */
    cl_mem alt_keys, alt_vals, hist;    /* the radix sort's second buffers and digit counts
                                           (the context's scratch) */
    cl_mem items[3][3];                 /* the top-k's item buffers [1], [2]: keys, indices,
                                           values; the run's own, released at its end */
    cl_mem radix[3];                    /* the radix select's histograms, chunk counts and
                                           row states; the run's own, released at its end */
    cl_uint num_wait;
    const cl_event *wait;
    cl_event *done_out, *first_out;     /* the caller's event pointers, filled by clsort__run_end */
    cl_event first, last;
    int want_events;                    /* events wanted at all (run.c, want_event: which) */
    int tail_has_event;                 /* the last command enqueued got an event */
    unsigned steps_total, steps_done;   /* clsort__run_schedule's count (0: not known), and
                                           the steps enqueued so far */
    int started;                        /* something enqueued: the wait list is spent */
    unsigned launches;
} clsort__run;

/* Makes sure the context holds the second buffers and digit counts of a radix plan's sort
 * (scratch.h: CLSORT__SCRATCH_RADIX_*). CLSORT_ERR_OUT_OF_MEMORY where they cannot be had:
 * larger than CL_DEVICE_MAX_MEM_ALLOC_SIZE, the sort's two copies of its keys and values larger
 * than the device's memory, or refused by the driver. */
int clsort__run_reserve_radix(clsort_ctx *ctx, const clsort__plan *plan);
/* Starts the run of a network or radix plan on keys (and vals, NULL for keys alone) after the wait list:
 * resets the statistics and gets its program (and a radix plan's buffers,
 * clsort__run_reserve_radix). done and first (either may be NULL) receive the
 * last and first events at the end. On failure the run must still be ended with
 * clsort__run_end. */
int clsort__run_begin(clsort_ctx *ctx, const clsort__plan *plan, cl_mem keys, cl_mem vals,
                      cl_uint num_wait, const cl_event *wait, cl_event *done, cl_event *first,
                      clsort__run *run);
/* The caller's buffers of a composed segmented sort (clsort__seg_plan.composed): its 32-bit keys
 * and its values, which the run reads and writes, and a copy of the values for the run. */
typedef struct clsort__composed {
    cl_mem keys32, vals32, vcopy;
} clsort__composed;
/* The same for a segmented plan on keys (vals) and the segment offsets: also makes sure the
 * plan's scratch buffers (bin list, stable positions) are large enough. A composed plan sorts
 * the composites in keys (vals NULL) for the buffers in composed (else NULL). */
int clsort__run_begin_segments(clsort_ctx *ctx, const clsort__plan *plan, cl_mem keys,
                               cl_mem vals, cl_mem offsets, const clsort__composed *composed,
                               cl_uint num_wait,
                               const cl_event *wait, cl_event *done, clsort__run *run);
/* The same for a top-k plan: rows in keys (and the values to carry in vals, NULL for none), the
 * first k of each to out_keys (and out_vals, NULL for none). Also creates the plan's item
 * buffers, which live for this run only: released at its end, and freed by OpenCL once the
 * launches that use them have completed. */
int clsort__run_begin_topk(clsort_ctx *ctx, const clsort__plan *plan, cl_mem keys, cl_mem vals,
                           cl_mem out_keys, cl_mem out_vals, cl_uint num_wait,
                           const cl_event *wait, cl_event *done, clsort__run *run);
/* A schedule of schedule.h (clsort__schedule, clsort__schedule_rest). */
typedef int (*clsort__schedule_fn)(const clsort__plan *plan, clsort__emit_fn emit, void *user);
/* Enqueues every step that `schedule` emits for the run's plan. It counts them first (a schedule
 * is arithmetic on the plan), so that only the run's first and last commands carry events. */
int clsort__run_schedule(clsort__run *run, clsort__schedule_fn schedule);
/* Enqueues one step (a clsort__emit_fn: user is the clsort__run). */
int clsort__run_step(const clsort__step *step, void *user);
/* Enqueues one tile step of the schedule (clsort__schedule_first_step) on one chunk of the input
 * after the wait list (that chunk's uploads): keys (and vals, NULL for keys alone) are
 * sub-buffers holding `count` arrays of n keys (a batch's whole arrays, or count 1 and the
 * chunk's n keys of one array). Flushes the queue. The run must have no wait list of its own. */
int clsort__run_chunk_step(clsort__run *run, const clsort__step *step, cl_mem keys, cl_mem vals,
                           uint64_t n, uint64_t count, cl_uint num_wait, const cl_event *wait);
/* Ends the run: rc is the status so far. On success it honours an empty run's wait list, records
 * the statistics and hands out the events; either way it releases what the run holds. Returns rc. */
int clsort__run_end(clsort__run *run, int rc);
/* Device time between two profiled events (first start to last end), 0 if unavailable. */
uint64_t clsort__event_span_ns(cl_event first, cl_event last);
/* Forgets the last sort's statistics and its profiled events, before a new sort. */
void clsort__reset_stats(clsort_ctx *ctx);

#endif /* CLSORT_RUN_H */
