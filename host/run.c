/* run.c - turns a plan and its schedule's steps into OpenCL launches on the context's queue:
 * gets the plan's program, sets the arguments, sizes the work, chains events, and records
 * statistics. The caller (api_sort.c) drives the schedule (schedule.c) into clsort__run_step. */
#include "run.h"

#include "program.h"
#include "scratch.h"

#include <string.h>

/* NVIDIA maps dimension 1 to a grid dimension of at most 65535 groups: batches go in chunks. */
#define BATCH_CHUNK 32768u
#define GLOBAL_PASS_GROUP 256u

uint64_t clsort__event_span_ns(cl_event first, cl_event last)
{
    cl_ulong start = 0, end = 0;
    if (!first || !last)
        return 0;
    if (clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL) !=
            CL_SUCCESS ||
        clGetEventProfilingInfo(last, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) !=
            CL_SUCCESS)
        return 0;
    return end > start ? end - start : 0;
}

static int set_arg(clsort_ctx *ctx, cl_kernel k, cl_uint i, size_t size, const void *v,
                   const char *name)
{
    const cl_int err = clSetKernelArg(k, i, size, v);
    return err == CL_SUCCESS ? CLSORT_OK : clsort__cl_fail(ctx, err, "clSetKernelArg", name);
}

/* Enqueues step s on buffers keys/vals (the run's, or sub-buffers of one chunk) holding `count`
 * arrays of n keys. wait: the step's own wait list (a chunk's uploads), or NULL for the run's,
 * which only the run's first launch carries. */
static int enqueue_step(clsort__run *st, const clsort__step *s, cl_mem keys, cl_mem vals,
                        uint64_t n, uint64_t count, cl_uint num_wait, const cl_event *wait)
{
    clsort_ctx *ctx = st->ctx;
    cl_kernel k;
    size_t kmax;
    int rc = clsort__get_kernel(ctx, st->prog, s->kernel, &k, &kmax);
    if (rc)
        return rc;
    const unsigned wg = st->plan->params->wg_size;
    /* Tile kernels run with exactly WG_SIZE work-items; the global passes do not depend on the
     * group size, and 256 keeps per-group overhead low everywhere (on PoCL a group of WG_SIZE=1
     * would cost a scheduling step per work-item). */
    size_t local = s->tile_kernel ? wg : GLOBAL_PASS_GROUP;
    if (s->tile_kernel && kmax < wg)
        return clsort__fail(ctx, CLSORT_ERR_UNSUPPORTED,
                            "kernel %s allows %zu work-items per group (CL_KERNEL_WORK_GROUP_SIZE), "
                            "fewer than WG_SIZE=%u; lower wg_size",
                            s->kernel, kmax, wg);
    while (local > kmax)
        local >>= 1;
    /* Buffer arguments: every pass works in place on (keys[, vals]). */
    cl_mem bufs[2];
    int nbufs = 0;
    bufs[nbufs++] = keys;
    if (vals)
        bufs[nbufs++] = vals;
    cl_uint a = 0;
    for (int i = 0; !rc && i < nbufs; ++i)
        rc = set_arg(ctx, k, a++, sizeof(cl_mem), &bufs[i], s->kernel);
    if (!rc && st->prog->index_bits == 32) {
        const cl_uint n32 = (cl_uint)n;
        rc = set_arg(ctx, k, a++, sizeof n32, &n32, s->kernel);
    } else if (!rc) {
        const cl_ulong n64 = n;
        rc = set_arg(ctx, k, a++, sizeof n64, &n64, s->kernel);
    }
    if (!rc)
        rc = set_arg(ctx, k, a++, sizeof st->plan->xf, &st->plan->xf, s->kernel);
    for (int i = 0; !rc && i < s->nargs; ++i)
        rc = set_arg(ctx, k, a++, sizeof(cl_uint), &s->args[i], s->kernel);
    if (rc)
        return rc;
    const size_t items = (size_t)((s->items + local - 1) / local * local);
    for (uint64_t seg = 0; seg < count; seg += BATCH_CHUNK) {
        const uint64_t segs = count - seg < BATCH_CHUNK ? count - seg : BATCH_CHUNK;
        const size_t offset[2] = {0, (size_t)seg}, global[2] = {items, (size_t)segs},
                     lsize[2] = {local, 1};
        cl_event ev = NULL;
        /* One array: a 1-D launch (a 2-D one costs PoCL twice the time per pass). */
        const cl_uint dims = count > 1 ? 2 : 1;
        const int own = wait != NULL && seg == 0;
        const cl_int err = clEnqueueNDRangeKernel(
            ctx->queue, k, dims, dims > 1 ? offset : NULL, global, lsize,
            own ? num_wait : st->launches ? 0 : st->num_wait,
            own ? wait : st->launches ? NULL : st->wait, st->want_events ? &ev : NULL);
        if (err != CL_SUCCESS)
            return clsort__cl_fail(ctx, err, "clEnqueueNDRangeKernel", s->kernel);
        if (ev && ctx->debug >= 2 && ctx->profiling) {
            /* CLSORT_DEBUG=2: per-launch device time (serialises the queue; for profiling). */
            clWaitForEvents(1, &ev);
            clsort__trace(ctx, "  %-20s items %-10llu args %u,%u  %8.1f us", s->kernel,
                          (unsigned long long)items, s->nargs > 0 ? s->args[0] : 0,
                          s->nargs > 1 ? s->args[1] : 0, clsort__event_span_ns(ev, ev) / 1e3);
        }
        if (ev) {
            if (!st->first)
                st->first = ev;
            else if (st->last && st->last != st->first)
                clReleaseEvent(st->last);
            st->last = ev;
        }
        ++st->launches;
    }
    return CLSORT_OK;
}

int clsort__run_step(const clsort__step *s, void *user)
{
    clsort__run *st = user;
    return enqueue_step(st, s, st->keys, st->vals, st->plan->n, st->plan->count, 0, NULL);
}

int clsort__run_chunk_step(clsort__run *run, const clsort__step *step, cl_mem keys, cl_mem vals,
                           uint64_t n, uint64_t count, cl_uint num_wait, const cl_event *wait)
{
    /* Only the run's first launch may carry the run's wait list, and an overlapped upload has
     * none: the chunk's uploads are the whole wait list. */
    if (run->num_wait)
        return clsort__fail(run->ctx, CLSORT_ERR_INVALID_ARG,
                            "internal: a chunked first pass with a wait list");
    const int rc = enqueue_step(run, step, keys, vals, n, count, num_wait, wait);
    /* Start it now: the next chunk's upload runs on the transfer queue meanwhile. */
    if (rc == CLSORT_OK)
        clFlush(run->ctx->queue);
    return rc;
}

int clsort__run_begin(clsort_ctx *ctx, const clsort__plan *plan, cl_mem keys, cl_mem vals,
                      cl_uint num_wait, const cl_event *wait, cl_event *done, cl_event *first,
                      clsort__run *run)
{
    ctx->stats.algorithm = plan->algo;
    ctx->stats.host_fallback = 0;
    ctx->stats.launches = 0;
    ctx->stats.global_passes = 0;
    memset(run, 0, sizeof *run);
    run->ctx = ctx;
    run->plan = plan;
    run->keys = keys;
    run->vals = vals;
    run->num_wait = num_wait;
    run->wait = wait;
    run->done_out = done;
    run->first_out = first;
    run->want_events = done || first || ctx->profiling;
    if (plan->empty)
        return CLSORT_OK;
    int rc = CLSORT_OK;
    CLSORT__CHECK(clsort__get_program(ctx, plan->net, plan->index_bits, plan->options, &run->prog));
fail:
    return rc;
}

int clsort__run_end(clsort__run *run, int rc)
{
    clsort_ctx *ctx = run->ctx;
    const clsort__plan *plan = run->plan;
    if (rc != CLSORT_OK)
        goto fail;
    if (!run->launches && (run->num_wait || run->done_out || run->first_out)) {
        /* Nothing to sort: still honour the wait list and hand back a completed-when-ready event. */
        cl_event ev = NULL;
        const cl_int err = clEnqueueMarkerWithWaitList(ctx->queue, run->num_wait, run->wait, &ev);
        CLSORT__CL_CHECK(ctx, err, "clEnqueueMarkerWithWaitList", "");
        run->first = run->last = ev;
    }
    ctx->stats.launches = run->launches;
    ctx->stats.global_passes = run->launches;
    clsort__trace(ctx, "%s n=%llu x%llu: %u launches", clsort_algorithm_name(plan->algo),
                  (unsigned long long)plan->n, (unsigned long long)plan->count, run->launches);
    if (run->first_out) {
        *run->first_out = run->first;
        if (run->first)
            clRetainEvent(run->first);
    }
    if (run->done_out) {
        *run->done_out = run->last;
        if (run->last)
            clRetainEvent(run->last);
    }
    /* Keep the pair for clsort_get_stats' device time. */
    if (ctx->profiling && run->first) {
        if (ctx->stat_first)
            clReleaseEvent(ctx->stat_first);
        if (ctx->stat_last)
            clReleaseEvent(ctx->stat_last);
        ctx->stat_first = run->first;
        ctx->stat_last = run->last;
        if (run->first == run->last)
            clRetainEvent(run->last);
        run->first = run->last = NULL;
    }
fail:
    if (run->first)
        clReleaseEvent(run->first);
    if (run->last && run->last != run->first)
        clReleaseEvent(run->last);
    run->first = run->last = NULL;
    return rc;
}

void clsort__reset_stats(clsort_ctx *ctx)
{
    if (ctx->stat_first)
        clReleaseEvent(ctx->stat_first);
    if (ctx->stat_last)
        clReleaseEvent(ctx->stat_last);
    ctx->stat_first = ctx->stat_last = NULL;
    memset(&ctx->stats, 0, sizeof ctx->stats);
}
