/* dispatch_path.c - the path of a sort of host arrays, once its arguments are checked: the host
 * sort or the device (clsort__use_host), AUTO resolved before any data moves, and how the arrays
 * travel (in place on memory shared with the host, an upload overlapped with the first passes,
 * or whole uploads), then plan -> schedule -> run on the device. */
#include "dispatch_path.h"

#include "hostsort.h"
#include "parcopy.h"
#include "plan.h"
#include "run.h"
#include "schedule.h"
#include "scratch.h"
#include "transfer.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* What a device sort of `count` arrays of n keys runs, into *algo, and the radix sort's second
 * buffers reserved where it runs, before any data moves: explicit algorithms stay (explicit
 * RADIX fails here with CLSORT_ERR_OUT_OF_MEMORY where its buffers cannot be had); AUTO takes
 * the radix sort where clsort__auto_choice says so and its buffers can be had, else sorts in
 * place with AUTO's network. */
int clsort__resolve_device_algo(clsort_ctx *ctx, uint64_t n, uint64_t count, clsort_type type,
                                size_t value_size, unsigned flags, clsort_algorithm *algo)
{
    const clsort_algorithm a =
        *algo == CLSORT_AUTO
            ? clsort__auto_choice(ctx, n, count, type, value_size, (flags & CLSORT_STABLE) != 0)
            : *algo;
    if (a == CLSORT_RADIX && count == 1) {
        clsort__plan plan;
        clsort__plan_sort(ctx, n, count, type, CLSORT_RADIX, 0, value_size, &plan);
        const int rc = clsort__run_reserve_radix(ctx, &plan);
        if (rc == CLSORT_ERR_OUT_OF_MEMORY && *algo == CLSORT_AUTO) {
            clsort__trace(ctx, "AUTO: no room for the radix sort's second buffers (%s); a network "
                               "sorts in place",
                          clsort_last_error(ctx));
            *algo = clsort__resolve_auto(ctx, n);
            return CLSORT_OK;
        }
        if (rc != CLSORT_OK)
            return rc;
    }
    *algo = a;
    return CLSORT_OK;
}

/* Enqueues the sort of `count` arrays of n keys in buffers after the wait list; *done (if not
 * NULL) gets the last event. Dispatch drives the layers one way: it makes the plan (plan.c),
 * starts the run (run.c), feeds it the schedule's steps (schedule.c) and ends the run. */
int clsort__enqueue_sort(clsort_ctx *ctx, cl_mem keys, cl_mem vals, size_t value_size, uint64_t n,
                         uint64_t count, clsort_type type, clsort_algorithm algo, unsigned flags,
                         cl_uint num_wait, const cl_event *wait, cl_event *done)
{
    clsort__plan plan;
    int rc = clsort__resolve_device_algo(ctx, n, count, type, value_size, flags, &algo);
    if (rc != CLSORT_OK)
        return rc;
    clsort__plan_sort(ctx, n, count, type, algo, flags, value_size, &plan);
    clsort__run run;
    rc = clsort__run_begin(ctx, &plan, keys, vals, num_wait, wait, done, NULL, &run);
    if (rc == CLSORT_OK && !plan.empty)
        rc = clsort__run_schedule(&run, clsort__schedule);
    return clsort__run_end(&run, rc);
}

/* On a device that shares memory with the host: the sort runs in the caller's arrays (wrapped
 * with CL_MEM_USE_HOST_PTR), with a host copy of the input kept while it runs so that a failure
 * can put the input back (the header's promise). Returns 1 in *used when it ran (or failed), 0
 * when this path is not possible (the copy could not be allocated). */
static int sort_in_place(clsort_ctx *ctx, void *keys, void *values, size_t value_size, size_t n,
                         size_t count, clsort_type type, clsort_algorithm algo, unsigned flags,
                         int *used)
{
    const size_t kbytes = n * count * clsort_type_size(type);
    const size_t vbytes = values ? n * count * value_size : 0;
    int rc = CLSORT_OK;
    cl_mem kb = NULL, vb = NULL;
    unsigned char *backup = malloc(kbytes + vbytes);
    *used = backup != NULL;
    if (!backup)
        return CLSORT_OK;
    uint64_t t0 = clsort__now_ns();
    clsort__copy_parallel(backup, keys, kbytes);
    if (values)
        clsort__copy_parallel(backup + kbytes, values, vbytes);
    ctx->stats.staging_ns += clsort__now_ns() - t0;
    CLSORT__CHECK(clsort__wrap_host(ctx, keys, kbytes, &kb));
    if (values)
        CLSORT__CHECK(clsort__wrap_host(ctx, values, vbytes, &vb));
    CLSORT__CHECK(clsort__enqueue_sort(ctx, kb, vb, values ? value_size : 0, n, count, type,
                                       algo, flags, 0, NULL, NULL));
    const cl_int err = clFinish(ctx->queue);
    CLSORT__CL_CHECK(ctx, err, "clFinish", "sort kernels");
    CLSORT__CHECK(clsort__sync_wrapped(ctx, kb, kbytes));
    if (vb)
        CLSORT__CHECK(clsort__sync_wrapped(ctx, vb, vbytes));
    ctx->stats.zero_copy = 1;
fail:
    clFinish(ctx->queue);
    if (kb)
        clReleaseMemObject(kb);
    if (vb)
        clReleaseMemObject(vb);
    if (rc != CLSORT_OK) {
        t0 = clsort__now_ns();
        clsort__copy_parallel(keys, backup, kbytes);
        if (values)
            clsort__copy_parallel(values, backup + kbytes, vbytes);
        ctx->stats.staging_ns += clsort__now_ns() - t0;
    }
    free(backup);
    return rc;
}

/* The overlapped upload's callback: the first tile pass on the chunk that just went up. */
typedef struct chunk_pass {
    clsort__run *run;
    clsort__step step;             /* the first step for a whole chunk (or a batch's arrays) */
    const clsort__plan *plan;
    int batch;
} chunk_pass;

static int first_pass_on_chunk(void *user, size_t first, size_t count, const cl_mem *sub,
                               cl_uint num_wait, const cl_event *wait)
{
    chunk_pass *cp = user;
    const clsort__plan *plan = cp->plan;
    (void)first;
    clsort__step step = cp->step;
    uint64_t n = count, arrays = 1;
    if (cp->batch) {
        n = plan->n;
        arrays = count / plan->n;
    } else {
        /* Only the last chunk may be shorter: scale the step to its tiles. */
        int rc = clsort__schedule_first_step(plan, count, &step);
        if (rc != CLSORT_OK)
            return clsort__fail(cp->run->ctx, rc, "internal: no first step for a chunk");
    }
    return clsort__run_chunk_step(cp->run, &step, sub[0], plan->value_size ? sub[1] : NULL, n,
                                  arrays, num_wait, wait);
}

/* Uploads the host arrays to scratch 0 (and 1) and enqueues the sort. Where the arrays travel in
 * chunks (clsort__overlap_chunk), the first tile pass of each chunk is enqueued on the context's
 * queue behind that chunk's writes on the transfer queue, so that chunk i is sorted while chunk
 * i + 1 travels; the rest of the schedule follows on the context's queue (in order, so after
 * every chunk's pass). Otherwise: the whole upload, then the whole schedule. */
static int upload_and_sort(clsort_ctx *ctx, const void *keys, const void *values,
                           size_t value_size, size_t n, size_t count, clsort_type type,
                           clsort_algorithm algo, unsigned flags)
{
    const size_t total = n * count;
    clsort__plan plan;
    clsort__plan_sort(ctx, n, count, type, algo, flags, values ? value_size : 0, &plan);
    clsort__run run;
    int rc = clsort__run_begin(ctx, &plan, ctx->scratch[0], values ? ctx->scratch[1] : NULL, 0,
                               NULL, NULL, NULL, &run);
    const clsort__upload_part parts[2] = {{ctx->scratch[0], keys, clsort_type_size(type)},
                                          {values ? ctx->scratch[1] : NULL, values, value_size}};
    const int nparts = values ? 2 : 1;
    /* A chunk holds whole tiles of one array, or whole arrays of a batch (each array's tiles
     * start at its own first key). The radix sort has no pass that a chunk could start alone. */
    const size_t chunk = rc == CLSORT_OK && !plan.empty && plan.program != CLSORT__PROGRAM_RADIX
                             ? clsort__overlap_chunk(ctx, parts, nparts, total,
                                                     count > 1 ? n : plan.params->tile)
                             : 0;
    if (rc == CLSORT_OK && chunk) {
        chunk_pass cp = {&run, {0}, &plan, count > 1};
        rc = clsort__schedule_first_step(&plan, count > 1 ? n : chunk, &cp.step);
        if (rc != CLSORT_OK)
            rc = clsort__fail(ctx, rc, "internal: no first step");
        if (rc == CLSORT_OK)
            rc = clsort__upload_overlapped(ctx, parts, nparts, total, chunk, first_pass_on_chunk,
                                           &cp);
        if (rc == CLSORT_OK)
            rc = clsort__run_schedule(&run, clsort__schedule_rest);
        clsort__trace(ctx, "overlapped upload: chunks of %zu elements", chunk);
    } else if (rc == CLSORT_OK) {
        rc = clsort__upload(ctx, ctx->scratch[0], 0, keys, total * clsort_type_size(type));
        if (rc == CLSORT_OK && values)
            rc = clsort__upload(ctx, ctx->scratch[1], 0, values, total * value_size);
        if (rc == CLSORT_OK && !plan.empty)
            rc = clsort__run_schedule(&run, clsort__schedule);
    }
    return clsort__run_end(&run, rc);
}

/* Host arrays -> scratch buffers -> sort -> host arrays, blocking, through transfer.c. On
 * failure the host arrays are untouched unless a chunk of the read back failed after an earlier
 * one had been written (the case the header names). */
int clsort__device_sort(clsort_ctx *ctx, void *keys, void *values, size_t value_size, size_t n,
                        size_t count, clsort_type type, clsort_algorithm algo, unsigned flags)
{
    int rc = CLSORT_OK;
    const size_t ks = clsort_type_size(type), total = n * count;
    if (count && total / count != n)
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG, "n * count overflows");
    const size_t kbytes = total * ks, vbytes = values ? total * value_size : 0;
    if (kbytes > ctx->dev.max_alloc || vbytes > ctx->dev.max_alloc)
        return clsort__ensure_scratch(ctx, 0, kbytes > vbytes ? kbytes : vbytes);
    /* AUTO resolved (and the radix sort's buffers reserved) before the data moves. */
    CLSORT__CHECK(
        clsort__resolve_device_algo(ctx, n, count, type, values ? value_size : 0, flags, &algo));
    if (clsort__zero_copy_usable(ctx, keys) && (!values || clsort__zero_copy_usable(ctx, values))) {
        int used = 0;
        rc = sort_in_place(ctx, keys, values, value_size, n, count, type, algo, flags, &used);
        if (used)
            return rc;
    }
    ctx->stats.pinned_source = clsort__in_pinned(ctx, keys, kbytes) &&
                               (!values || clsort__in_pinned(ctx, values, vbytes));
    /* Buffers still to be made: a driver may abort where it cannot back them (transfer.h). */
    CLSORT__CHECK(clsort__check_memory(
        ctx, (kbytes > ctx->scratch_size[0] ? kbytes : 0) + (vbytes > ctx->scratch_size[1] ? vbytes : 0),
        "the sort's device buffers"));
    CLSORT__CHECK(clsort__ensure_scratch(ctx, 0, kbytes));
    if (values)
        CLSORT__CHECK(clsort__ensure_scratch(ctx, 1, vbytes));
    CLSORT__CHECK(upload_and_sort(ctx, keys, values, value_size, n, count, type, algo, flags));
    cl_int err = clFinish(ctx->queue);
    CLSORT__CL_CHECK(ctx, err, "clFinish", "sort kernels");
    CLSORT__CHECK(clsort__transfer_settle(ctx));
    int touched = 0;
    CLSORT__CHECK(clsort__download(ctx, ctx->scratch[0], 0, keys, kbytes, &touched));
    if (values)
        CLSORT__CHECK(clsort__download(ctx, ctx->scratch[1], 0, values, vbytes, &touched));
    return clsort__transfer_settle(ctx);
fail:
    clFinish(ctx->queue);
    clsort__transfer_settle(ctx);
    return rc;
}

/* The host fallback for small inputs, whatever the algorithm; and AUTO's host path, where the
 * config (or a CPU device's default) says the host's own sort wins. Explicit networks keep
 * running the networks above the fallback: they are what the data-oblivious guarantee covers. */
int clsort__use_host(const clsort_ctx *ctx, size_t n, clsort_algorithm algo, unsigned flags)
{
    return !(flags & CLSORT_NO_HOST_FALLBACK) &&
           (n <= ctx->host_fallback_max || (algo == CLSORT_AUTO && n <= ctx->host_path_max));
}

int clsort__sort_any(clsort_ctx *ctx, void *keys, void *values, size_t value_size, size_t n,
                     clsort_type type, clsort_algorithm algo, unsigned flags)
{
    const uint64_t t0 = clsort__now_ns();
    clsort__reset_stats(ctx);
    int rc;
    if (n < 2) {
        rc = CLSORT_OK;
    } else if (clsort__use_host(ctx, n, algo, flags)) {
        rc = clsort__host_sort(keys, values, value_size, n, type, flags);
        ctx->stats.host_fallback = 1;
        ctx->stats.algorithm = algo == CLSORT_AUTO ? clsort__resolve_auto(ctx, n) : algo;
    } else {
        rc = clsort__device_sort(ctx, keys, values, value_size, n, 1, type, algo, flags);
    }
    ctx->stats.total_ns = clsort__now_ns() - t0;
    ctx->stats.pinned_bytes = clsort__staging_bytes(ctx);
    return rc;
}

int clsort__sort_batch_timed(clsort_ctx *ctx, void *keys, size_t n, size_t count,
                             clsort_type type, clsort_algorithm algo, unsigned flags)
{
    int rc = CLSORT_OK;
    const uint64_t t0 = clsort__now_ns();
    clsort__reset_stats(ctx);
    if (n >= 2 && count > 0)
        rc = clsort__device_sort(ctx, keys, NULL, 0, n, count, type, algo, flags);
    ctx->stats.total_ns = clsort__now_ns() - t0;
    ctx->stats.pinned_bytes = clsort__staging_bytes(ctx);
    return rc;
}
