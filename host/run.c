/* run.c - turns a schedule into OpenCL launches on the context's queue: picks the program for
 * the parameters, sets the arguments, sizes the work, chains events, and records statistics. */
#include "internal.h"

#include <string.h>

/* NVIDIA maps dimension 1 to a grid dimension of at most 65535 groups: batches go in chunks. */
#define BATCH_CHUNK 32768u
#define GLOBAL_PASS_GROUP 256u

clsort_algorithm clsort__resolve_auto(const clsort_ctx *ctx, uint64_t n)
{
    for (int i = 0; i < ctx->nauto_rules; ++i)
        if (n <= ctx->auto_rules[i].max_n)
            return ctx->auto_rules[i].algo;
    return CLSORT_BITONIC;
}

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

typedef struct run_state {
    clsort_ctx *ctx;
    clsort__program *prog;
    const clsort_params *params;
    cl_mem keys, vals, aux_keys, aux_vals;
    uint64_t n, count;
    cl_uint xf;
    cl_uint num_wait;
    const cl_event *wait;
    cl_event first, last;
    int want_events;
    unsigned launches;
} run_state;

static int set_arg(clsort_ctx *ctx, cl_kernel k, cl_uint i, size_t size, const void *v,
                   const char *name)
{
    const cl_int err = clSetKernelArg(k, i, size, v);
    return err == CL_SUCCESS ? CLSORT_OK : clsort__cl_fail(ctx, err, "clSetKernelArg", name);
}

static int launch(const clsort__step *s, void *user)
{
    run_state *st = user;
    clsort_ctx *ctx = st->ctx;
    cl_kernel k;
    size_t kmax;
    int rc = clsort__get_kernel(ctx, st->prog, s->kernel, &k, &kmax);
    if (rc)
        return rc;
    const unsigned wg = st->params->wg_size;
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
    /* Buffer arguments: (keys[, vals]) in place, or (src keys, dst keys[, src vals, dst vals]). */
    cl_mem bufs[4];
    int nbufs = 0;
    const int from_aux = s->io == CLSORT__IO_AUX || s->io == CLSORT__IO_AUX_TO_KEYS;
    bufs[nbufs++] = from_aux ? st->aux_keys : st->keys;
    if (s->io >= CLSORT__IO_KEYS_TO_AUX)
        bufs[nbufs++] = from_aux ? st->keys : st->aux_keys;
    if (st->vals) {
        bufs[nbufs++] = from_aux ? st->aux_vals : st->vals;
        if (s->io >= CLSORT__IO_KEYS_TO_AUX)
            bufs[nbufs++] = from_aux ? st->vals : st->aux_vals;
    }
    cl_uint a = 0;
    for (int i = 0; !rc && i < nbufs; ++i)
        rc = set_arg(ctx, k, a++, sizeof(cl_mem), &bufs[i], s->kernel);
    if (!rc && st->prog->index_bits == 32) {
        const cl_uint n32 = (cl_uint)st->n;
        rc = set_arg(ctx, k, a++, sizeof n32, &n32, s->kernel);
    } else if (!rc) {
        const cl_ulong n64 = st->n;
        rc = set_arg(ctx, k, a++, sizeof n64, &n64, s->kernel);
    }
    if (!rc)
        rc = set_arg(ctx, k, a++, sizeof st->xf, &st->xf, s->kernel);
    for (int i = 0; !rc && i < s->nargs; ++i)
        rc = set_arg(ctx, k, a++, sizeof(cl_uint), &s->args[i], s->kernel);
    if (rc)
        return rc;
    const size_t items = (size_t)((s->items + local - 1) / local * local);
    for (uint64_t seg = 0; seg < st->count; seg += BATCH_CHUNK) {
        const uint64_t segs = st->count - seg < BATCH_CHUNK ? st->count - seg : BATCH_CHUNK;
        const size_t offset[2] = {0, (size_t)seg}, global[2] = {items, (size_t)segs},
                     lsize[2] = {local, 1};
        cl_event ev = NULL;
        /* One array: a 1-D launch (a 2-D one costs PoCL twice the time per pass). */
        const cl_uint dims = st->count > 1 ? 2 : 1;
        const cl_int err = clEnqueueNDRangeKernel(ctx->queue, k, dims, dims > 1 ? offset : NULL,
                                                  global, lsize,
                                                  st->launches ? 0 : st->num_wait,
                                                  st->launches ? NULL : st->wait,
                                                  st->want_events ? &ev : NULL);
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

int clsort__enqueue_sort(clsort_ctx *ctx, cl_mem keys, cl_mem vals, size_t value_size,
                         uint64_t n, uint64_t count, clsort_type type, clsort_algorithm algo,
                         unsigned flags, cl_uint num_wait, const cl_event *wait, cl_event *done,
                         cl_event *first)
{
    if (algo == CLSORT_AUTO)
        algo = clsort__resolve_auto(ctx, n);
    const int net = clsort__network_index(algo);
    const int width = clsort__width_index(type), valkind = clsort__valkind_index(value_size);
    const clsort_params *p = &ctx->params[net][width][valkind];
    ctx->stats.algorithm = algo;
    ctx->stats.host_fallback = 0;
    ctx->stats.launches = 0;
    ctx->stats.global_passes = 0;
    /* 32-bit indices are cheaper on GPUs; safe while every position, every batch offset and
     * every wrapped window start stays apart from the real positions below 2^31. On CPUs they
     * are 10-20x slower (PoCL cannot vectorise addresses that may wrap; docs/perf.md). */
    const uint64_t N = clsort__next_pow2(n);
    const int gpu = (ctx->dev.type & CL_DEVICE_TYPE_GPU) != 0;
    const int index_bits = (gpu && N + 4 * (uint64_t)p->tile <= ((uint64_t)1 << 31) &&
                            n * count <= ((uint64_t)1 << 31))
                               ? 32
                               : 64;
    run_state st;
    memset(&st, 0, sizeof st);
    st.ctx = ctx;
    st.params = p;
    st.keys = keys;
    st.vals = vals;
    st.n = n;
    st.count = count;
    st.xf = (type == CLSORT_I32 || type == CLSORT_I64 ? 1u : 0u) |
            (type == CLSORT_F32 || type == CLSORT_F64 ? 2u : 0u) |
            (flags & CLSORT_DESCENDING ? 4u : 0u);
    st.num_wait = num_wait;
    st.wait = wait;
    st.want_events = done || first || ctx->profiling;
    int rc = CLSORT_OK;
    if (n >= 2 && count > 0) {
        if (clsort__schedule_needs_aux(net, n, p)) {
            CLSORT__CHECK(clsort__ensure_scratch(ctx, 2, n * count * clsort_type_size(type)));
            st.aux_keys = ctx->scratch[2];
            if (vals) {
                CLSORT__CHECK(clsort__ensure_scratch(ctx, 3, n * count * value_size));
                st.aux_vals = ctx->scratch[3];
            }
        }
        CLSORT__CHECK(clsort__get_program(ctx, net, width, valkind, index_bits, p, &st.prog));
        CLSORT__CHECK(clsort__schedule(net, n, p, launch, &st));
    }
    if (!st.launches && (num_wait || done || first)) {
        /* Nothing to sort: still honour the wait list and hand back a completed-when-ready event. */
        cl_event ev = NULL;
        const cl_int err = clEnqueueMarkerWithWaitList(ctx->queue, num_wait, wait, &ev);
        CLSORT__CL_CHECK(ctx, err, "clEnqueueMarkerWithWaitList", "");
        st.first = st.last = ev;
    }
    ctx->stats.launches = st.launches;
    ctx->stats.global_passes = st.launches;
    clsort__trace(ctx, "%s n=%llu x%llu: %u launches", clsort_algorithm_name(algo),
                  (unsigned long long)n, (unsigned long long)count, st.launches);
    if (first) {
        *first = st.first;
        if (st.first)
            clRetainEvent(st.first);
    }
    if (done) {
        *done = st.last;
        if (st.last)
            clRetainEvent(st.last);
    }
    /* Keep the pair for clsort_get_stats' device time. */
    if (ctx->profiling && st.first) {
        if (ctx->stat_first)
            clReleaseEvent(ctx->stat_first);
        if (ctx->stat_last)
            clReleaseEvent(ctx->stat_last);
        ctx->stat_first = st.first;
        ctx->stat_last = st.last;
        if (st.first == st.last)
            clRetainEvent(st.last);
        st.first = st.last = NULL;
    }
fail:
    if (st.first)
        clReleaseEvent(st.first);
    if (st.last && st.last != st.first)
        clReleaseEvent(st.last);
    return rc;
}
