/* run.c - turns a plan and its schedule's steps into OpenCL launches on the context's queue:
 * gets the plan's program, sets each kernel's arguments and group size as the manifest says
 * (kernels/manifest.h: its argument list and launch shape), sizes the work, chains events, and
 * records statistics. The dispatch layer (dispatch_path.c, dispatch_segments.c,
 * dispatch_topk.c) drives the schedule (schedule.c) into clsort__run_step. */
#include "run.h"

#include "kernels.h"
#include "program.h"
#include "scratch.h"
#include "seg_layout.h"

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

/* Sets argument i to a count of type idx_t: a uint in 32-bit index programs, else a ulong. */
static int set_idx_arg(clsort_ctx *ctx, cl_kernel k, cl_uint i, int index_bits, uint64_t n,
                       const char *name)
{
    if (index_bits == 32) {
        const cl_uint n32 = (cl_uint)n;
        return set_arg(ctx, k, i, sizeof n32, &n32, name);
    }
    const cl_ulong n64 = n;
    return set_arg(ctx, k, i, sizeof n64, &n64, name);
}

/* The top-k kernels' arguments (CLSORT_ARGS_TOPK_*): buffers by the step's from/to (0 the input,
 * 1 and 2 the run's item buffers, 3 the output), NULL where the launch does not use one. */
static int set_topk_args(clsort__run *st, cl_kernel k, const clsort__step *s, const char *name)
{
    clsort_ctx *ctx = st->ctx;
    const clsort__topk_plan *tp = &st->plan->topk;
    const clsort__topk_args *t = &s->tk;
    const cl_mem none = NULL;
    int rc = CLSORT_OK;
    cl_uint a = 0;
    if (s->kernel == CLSORT__K_topk_global) {
        for (int i = 0; i < 3 && rc == CLSORT_OK; ++i)
            rc = set_arg(ctx, k, a++, sizeof(cl_mem), st->items[1][i] ? &st->items[1][i] : &none,
                         name);
        const cl_ulong u[4] = {t->m, tp->rows, t->sz, t->j};
        for (int i = 0; i < 4 && rc == CLSORT_OK; ++i)
            rc = set_arg(ctx, k, a++, sizeof u[i], &u[i], name);
        return rc;
    }
    if (clsort__kernels[s->kernel].args == CLSORT__ARGS_TOPK_RADIX) {
        /* keys, vals, hist, counts, state, ok, oi, ov (item buffer 2), then the sizes. */
        const cl_mem bufs[8] = {st->keys,          st->vals,          st->radix[0],
                                st->radix[1],      st->radix[2],      st->items[2][0],
                                st->items[2][1],   st->items[2][2]};
        for (int i = 0; i < 8 && rc == CLSORT_OK; ++i)
            rc = set_arg(ctx, k, a++, sizeof(cl_mem), bufs[i] ? &bufs[i] : &none, name);
        const cl_ulong u[5] = {t->m, tp->rows, tp->k, t->P, t->tiles_per_row};
        for (int i = 0; i < 5 && rc == CLSORT_OK; ++i)
            rc = set_arg(ctx, k, a++, sizeof u[i], &u[i], name);
        const cl_uint w[2] = {st->plan->xf, t->mode};
        for (int i = 0; i < 2 && rc == CLSORT_OK; ++i)
            rc = set_arg(ctx, k, a++, sizeof w[i], &w[i], name);
        return rc;
    }
    /* keys, vals, ik, ii, iv, ok, oi, ov, out_keys, out_vals, then the sizes. */
    const cl_mem *in = t->from == 0 ? NULL : st->items[t->from];
    const cl_mem *out = t->to == 3 ? NULL : st->items[t->to];
    const cl_mem bufs[10] = {t->from == 0 ? st->keys : NULL,
                             t->from == 0 ? st->vals : NULL,
                             in ? in[0] : NULL,
                             in ? in[1] : NULL,
                             in ? in[2] : NULL,
                             out ? out[0] : NULL,
                             out ? out[1] : NULL,
                             out ? out[2] : NULL,
                             t->to == 3 ? st->out_keys : NULL,
                             t->to == 3 ? st->out_vals : NULL};
    for (int i = 0; i < 10 && rc == CLSORT_OK; ++i)
        rc = set_arg(ctx, k, a++, sizeof(cl_mem), bufs[i] ? &bufs[i] : &none, name);
    const cl_ulong u[5] = {t->m, tp->rows, t->m_out, tp->k, t->tiles_per_row};
    for (int i = 0; i < 5 && rc == CLSORT_OK; ++i)
        rc = set_arg(ctx, k, a++, sizeof u[i], &u[i], name);
    const cl_uint w[4] = {st->plan->xf, t->P, t->K, t->mode};
    for (int i = 0; i < 4 && rc == CLSORT_OK; ++i)
        rc = set_arg(ctx, k, a++, sizeof w[i], &w[i], name);
    return rc;
}

/* The radix passes' arguments (CLSORT_ARGS_RADIX): pass p = shift / bits reads the caller's
 * buffers when even and the second buffers when odd, and writes the others. */
static int set_radix_args(clsort__run *st, cl_kernel k, const clsort__step *s, const char *name)
{
    clsort_ctx *ctx = st->ctx;
    const clsort__plan *plan = st->plan;
    const int odd = (s->args[0] / plan->radix.bits) & 1;
    const cl_mem bufs[5] = {odd ? st->alt_keys : st->keys, odd ? st->keys : st->alt_keys,
                            odd ? st->alt_vals : st->vals, odd ? st->vals : st->alt_vals,
                            st->hist};
    int rc = CLSORT_OK;
    cl_uint a = 0;
    for (int i = 0; i < 5 && rc == CLSORT_OK; ++i)
        if (i != 2 && i != 3 ? 1 : plan->value_size != 0)
            rc = set_arg(ctx, k, a++, sizeof(cl_mem), &bufs[i], name);
    if (rc == CLSORT_OK)
        rc = set_idx_arg(ctx, k, a++, plan->index_bits, plan->n, name);
    if (rc == CLSORT_OK)
        rc = set_arg(ctx, k, a++, sizeof plan->xf, &plan->xf, name);
    for (int i = 0; i < 2 && rc == CLSORT_OK; ++i)
        rc = set_arg(ctx, k, a++, sizeof(cl_uint), &s->args[i], name);
    return rc;
}

/* Sets the arguments of step s's kernel, in the order of its argument list in the manifest
 * (CLSORT_ARGS_*): the buffers keys/vals hold `n` keys of each array. */
static int set_args(clsort__run *st, cl_kernel k, const clsort__step *s, cl_mem keys, cl_mem vals,
                    uint64_t n)
{
    clsort_ctx *ctx = st->ctx;
    const clsort__plan *plan = st->plan;
    const clsort__kernel_info *info = &clsort__kernels[s->kernel];
    const char *name = info->name;
    const clsort__seg_plan *sg = &plan->seg;
    const cl_ulong nseg = sg->nseg, cap = sg->cap, max_len = sg->max_len;
    cl_uint a = 0;
    int rc = CLSORT_OK;
    if (info->args == CLSORT__ARGS_TOPK_TILE || info->args == CLSORT__ARGS_TOPK_GLOBAL ||
        info->args == CLSORT__ARGS_TOPK_RADIX)
        return set_topk_args(st, k, s, name);
    if (info->args == CLSORT__ARGS_NARROW) {
        /* (composites, the caller's narrow keys, n, their transform, their width) */
        const cl_uint w = plan->narrow_bits;
        rc = set_arg(ctx, k, a++, sizeof(cl_mem), &keys, name);
        if (!rc)
            rc = set_arg(ctx, k, a++, sizeof(cl_mem), &st->narrow, name);
        if (!rc)
            rc = set_idx_arg(ctx, k, a++, st->prog->index_bits, n, name);
        if (!rc)
            rc = set_arg(ctx, k, a++, sizeof plan->narrow_xf, &plan->narrow_xf, name);
        if (!rc)
            rc = set_arg(ctx, k, a++, sizeof w, &w, name);
        return rc;
    }
    if (info->args == CLSORT__ARGS_RADIX)
        return set_radix_args(st, k, s, name);
    if (info->args == CLSORT__ARGS_SEG_KEYS32) {
        /* (composites, the caller's keys and values, the values' copy, off, nseg, cap, xf32,
         * vwords) */
        const cl_mem bufs[5] = {keys, st->keys32, st->vals32, st->vcopy, st->offsets};
        for (int i = 0; i < 5 && rc == CLSORT_OK; ++i)
            rc = set_arg(ctx, k, a++, sizeof(cl_mem), &bufs[i], name);
        if (!rc)
            rc = set_arg(ctx, k, a++, sizeof nseg, &nseg, name);
        if (!rc)
            rc = set_arg(ctx, k, a++, sizeof cap, &cap, name);
        if (!rc)
            rc = set_arg(ctx, k, a++, sizeof sg->xf32, &sg->xf32, name);
        if (!rc)
            rc = set_arg(ctx, k, a++, sizeof sg->vwords, &sg->vwords, name);
        return rc;
    }
    /* Every other list but the bins' opens with the keys and, in pair programs, the values. */
    if (info->args != CLSORT__ARGS_SEG_BIN) {
        rc = set_arg(ctx, k, a++, sizeof(cl_mem), &keys, name);
        if (!rc && vals)
            rc = set_arg(ctx, k, a++, sizeof(cl_mem), &vals, name);
    }
    switch (info->args) {
    case CLSORT__ARGS_SORT1:
    case CLSORT__ARGS_SORT2:
        /* (n, xf, the step's uints) */
        if (!rc)
            rc = set_idx_arg(ctx, k, a++, st->prog->index_bits, n, name);
        if (!rc)
            rc = set_arg(ctx, k, a++, sizeof plan->xf, &plan->xf, name);
        for (int i = 0; !rc && i < s->nargs; ++i)
            rc = set_arg(ctx, k, a++, sizeof(cl_uint), &s->args[i], name);
        break;
    case CLSORT__ARGS_SEG_BIN:
    case CLSORT__ARGS_SEG_TINY:
    case CLSORT__ARGS_SEG_GROUP:
        /* (off, nseg, cap, meta[, xf[, bin_first, bin_last, gpos, max_len]]) */
        if (!rc)
            rc = set_arg(ctx, k, a++, sizeof(cl_mem), &st->offsets, name);
        if (!rc)
            rc = set_arg(ctx, k, a++, sizeof nseg, &nseg, name);
        if (!rc)
            rc = set_arg(ctx, k, a++, sizeof cap, &cap, name);
        if (!rc)
            rc = set_arg(ctx, k, a++, sizeof(cl_mem), &st->meta, name);
        if (!rc && info->args != CLSORT__ARGS_SEG_BIN)
            rc = set_arg(ctx, k, a++, sizeof plan->xf, &plan->xf, name);
        if (info->args == CLSORT__ARGS_SEG_GROUP) {
            for (int i = 0; !rc && i < s->nargs; ++i)
                rc = set_arg(ctx, k, a++, sizeof(cl_uint), &s->args[i], name);
            if (!rc)
                rc = set_arg(ctx, k, a++, sizeof(cl_mem), &st->gpos, name);
            if (!rc)
                rc = set_arg(ctx, k, a++, sizeof max_len, &max_len, name);
        }
        break;
    case CLSORT__ARGS_TOPK_TILE:
    case CLSORT__ARGS_TOPK_GLOBAL:
    case CLSORT__ARGS_TOPK_RADIX:
    case CLSORT__ARGS_SEG_KEYS32:
    case CLSORT__ARGS_NARROW:
    case CLSORT__ARGS_RADIX:
        break; /* above */
    }
    return rc;
}

/* Work-items per group for a kernel of this shape, given what the kernel allows (kmax), into
 * *local; fails when the kernel needs more than that. */
static int group_size(clsort__run *st, const clsort__kernel_info *info, size_t kmax,
                      size_t *local)
{
    switch (info->shape) {
    case CLSORT__SHAPE_TILE:
    case CLSORT__SHAPE_GROUP:
    case CLSORT__SHAPE_SEG_GROUP:
    case CLSORT__SHAPE_TOPK:
    case CLSORT__SHAPE_TOPK_STREAM:
    case CLSORT__SHAPE_TOPK_RADIX:
    case CLSORT__SHAPE_RADIX: {
        /* reqd_work_group_size: exactly WG_SIZE (SEG_WG, TK_WG, TK_STREAM_WG, RS_WG, RX_WG)
         * work-items. */
        const int seg = info->shape == CLSORT__SHAPE_SEG_GROUP;
        const int topk = info->shape == CLSORT__SHAPE_TOPK ||
                         info->shape == CLSORT__SHAPE_TOPK_STREAM ||
                         info->shape == CLSORT__SHAPE_TOPK_RADIX;
        const int radix = info->shape == CLSORT__SHAPE_RADIX;
        const unsigned wg = radix ? st->plan->radix.wg
                            : seg ? st->plan->seg.wg
                            : info->shape == CLSORT__SHAPE_TOPK_STREAM ? st->plan->topk.stream_wg
                            : info->shape == CLSORT__SHAPE_TOPK_RADIX ? st->plan->topk.rs_wg
                            : topk ? st->plan->topk.wg
                                   : st->plan->params->wg_size;
        if (kmax < wg)
            return clsort__fail(st->ctx, CLSORT_ERR_UNSUPPORTED,
                                "kernel %s allows %zu work-items per group "
                                "(CL_KERNEL_WORK_GROUP_SIZE), fewer than %s=%u%s",
                                info->name, kmax,
                                radix ? "RX_WG" : seg ? "SEG_WG" : topk ? "TK_WG/RS_WG" : "WG_SIZE", wg,
                                seg || topk || radix ? "" : "; lower wg_size");
        *local = wg;
        return CLSORT_OK;
    }
    case CLSORT__SHAPE_SEG_ITEM:
        *local = kmax < CLSORT_SEG_ITEM_WG ? kmax : CLSORT_SEG_ITEM_WG;
        return CLSORT_OK;
    case CLSORT__SHAPE_GLOBAL:
        break;
    }
    /* The global passes do not depend on the group size, and 256 keeps per-group overhead low
     * everywhere (on PoCL a group of WG_SIZE=1 would cost a scheduling step per work-item). */
    *local = GLOBAL_PASS_GROUP;
    while (*local > kmax)
        *local >>= 1;
    return CLSORT_OK;
}

static void keep_event(clsort__run *st, cl_event ev)
{
    st->tail_has_event = ev != NULL;
    if (!ev)
        return;
    if (!st->first)
        st->first = ev;
    else if (st->last && st->last != st->first)
        clReleaseEvent(st->last);
    st->last = ev;
}

/* Whether a command gets an event. Only those whose events are used: the run's first launch (the
 * statistics' start, clsort_sort_*'s first_out) and its last (the statistics' end, done), every
 * one for CLSORT_DEBUG=2's per-launch times, and every one while the run does not know which
 * command is its last (steps_total 0: the chunked first passes, clsort_prepare's warm-up).
 * An event is not free: NVIDIA's driver (580, H200, 2026-11-26) took 13-15 us to enqueue a kernel
 * with one on a profiling queue against 5-6 us without, and a run of 15 launches spent 235 us in
 * clEnqueueNDRangeKernel, more than its kernels' time (docs/perf.md, "Launches"). last_command:
 * the step's final command. */
static int want_event(const clsort__run *st, int last_command)
{
    if (!st->want_events)
        return 0;
    if (st->ctx->debug >= 2 || !st->steps_total || !st->first)
        return 1;
    return last_command && st->steps_done >= st->steps_total;
}

/* The segmented sort's first step: zero the bin counters after the run's wait list. Without an
 * event but for CLSORT_DEBUG=2: the statistics' span starts at the first kernel, and as the first
 * command after a large upload the fill took NVIDIA's driver 38 us to enqueue with an event
 * against 16 us without (H200, 2026-11-26). */
static int zero_counters(clsort__run *st)
{
    const cl_uint zero = 0;
    cl_event ev = NULL;
    const int event = st->want_events && st->ctx->debug >= 2;
    const cl_int err = clEnqueueFillBuffer(st->ctx->queue, st->meta, &zero, sizeof zero, 0,
                                           CLSORT__SEG_META * sizeof(cl_uint),
                                           st->started ? 0 : st->num_wait,
                                           st->started ? NULL : st->wait,
                                           event ? &ev : NULL);
    if (err != CL_SUCCESS)
        return clsort__cl_fail(st->ctx, err, "clEnqueueFillBuffer", "segment bins");
    st->started = 1;
    keep_event(st, ev);
    return CLSORT_OK;
}

/* Enqueues step s on buffers keys/vals (the run's, or sub-buffers of one chunk) holding `count`
 * arrays of n keys. wait: the step's own wait list (a chunk's uploads), or NULL for the run's,
 * which only the run's first command carries. */
static int enqueue_step(clsort__run *st, const clsort__step *s, cl_mem keys, cl_mem vals,
                        uint64_t n, uint64_t count, cl_uint num_wait, const cl_event *wait)
{
    clsort_ctx *ctx = st->ctx;
    if (s->op == CLSORT__OP_ZERO_COUNTERS)
        return zero_counters(st);
    const clsort__kernel_info *info = &clsort__kernels[s->kernel];
    /* The schedule follows the manifest: a kernel of another program, or one this build leaves
     * out, is a bug on the host's side. */
    if (!(info->programs & (1u << st->plan->program)) ||
        (st->plan->params && !clsort__kernel_built(s->kernel, st->plan->params)))
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG,
                            "internal: the schedule names %s, which this program does not hold "
                            "(kernels/manifest.h)",
                            info->name);
    cl_kernel k;
    size_t kmax;
    int rc = clsort__get_kernel(ctx, st->prog, info->name, &k, &kmax);
    if (rc)
        return rc;
    size_t local = 0;
    rc = group_size(st, info, kmax, &local);
    if (!rc)
        rc = set_args(st, k, s, keys, vals, n);
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
            own ? num_wait : st->started ? 0 : st->num_wait,
            own ? wait : st->started ? NULL : st->wait,
            want_event(st, seg + BATCH_CHUNK >= count) ? &ev : NULL);
        if (err != CL_SUCCESS)
            return clsort__cl_fail(ctx, err, "clEnqueueNDRangeKernel", info->name);
        st->started = 1;
        if (ev && ctx->debug >= 2 && ctx->profiling) {
            /* CLSORT_DEBUG=2: per-launch device time (serialises the queue; for profiling;
             * tests/test_oblivious.c reads these lines). */
            clWaitForEvents(1, &ev);
            clsort__trace(ctx, "  %-20s items %-10llu args %u,%u  %8.1f us", info->name,
                          (unsigned long long)items, s->nargs > 0 ? s->args[0] : 0,
                          s->nargs > 1 ? s->args[1] : 0, clsort__event_span_ns(ev, ev) / 1e3);
        }
        keep_event(st, ev);
        ++st->launches;
    }
    return CLSORT_OK;
}

int clsort__run_step(const clsort__step *s, void *user)
{
    clsort__run *st = user;
    ++st->steps_done;
    return enqueue_step(st, s, st->keys, st->vals, st->plan->n, st->plan->count, 0, NULL);
}

static int count_step(const clsort__step *s, void *user)
{
    (void)s;
    ++*(unsigned *)user;
    return CLSORT_OK;
}

int clsort__run_schedule(clsort__run *run, clsort__schedule_fn schedule)
{
    unsigned total = 0;
    int rc = schedule(run->plan, count_step, &total);
    if (rc != CLSORT_OK)
        return rc;
    run->steps_total = total;
    run->steps_done = 0;
    return schedule(run->plan, clsort__run_step, run);
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

static void run_init(clsort_ctx *ctx, const clsort__plan *plan, cl_mem keys, cl_mem vals,
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
}

int clsort__run_reserve_radix(clsort_ctx *ctx, const clsort__plan *plan)
{
    if (plan->empty || plan->program != CLSORT__PROGRAM_RADIX)
        return CLSORT_OK;
    const uint64_t n = plan->n, ks = clsort_type_size(plan->type), vs = plan->value_size;
    const uint64_t hist = plan->radix.hist_words * (uint64_t)(plan->index_bits / 8);
    /* The caller's keys and values are on the device too: a sort whose two copies cannot fit
     * in the device's memory is refused here rather than by a driver that allocates late. */
    if ((ks + vs) * n > ctx->dev.global_mem / 2 || (ks + vs) * n + hist > SIZE_MAX / 2)
        return clsort__fail(ctx, CLSORT_ERR_OUT_OF_MEMORY,
                            "the radix sort of %llu keys needs %llu bytes for its second buffers "
                            "besides the data, more than %s's memory (%llu bytes) holds",
                            (unsigned long long)n, (unsigned long long)((ks + vs) * n),
                            ctx->dev.name, (unsigned long long)ctx->dev.global_mem);
    int rc = clsort__ensure_scratch(ctx, CLSORT__SCRATCH_RADIX_KEYS, (size_t)(ks * n));
    if (rc == CLSORT_OK && vs)
        rc = clsort__ensure_scratch(ctx, CLSORT__SCRATCH_RADIX_VALS, (size_t)(vs * n));
    if (rc == CLSORT_OK)
        rc = clsort__ensure_scratch(ctx, CLSORT__SCRATCH_RADIX_HIST, (size_t)hist);
    return rc;
}

int clsort__run_begin(clsort_ctx *ctx, const clsort__plan *plan, cl_mem keys, cl_mem vals,
                      cl_uint num_wait, const cl_event *wait, cl_event *done, cl_event *first,
                      clsort__run *run)
{
    run_init(ctx, plan, keys, vals, num_wait, wait, done, first, run);
    if (plan->empty)
        return CLSORT_OK;
    int rc = CLSORT_OK;
    CLSORT__CHECK(clsort__get_program(ctx, plan->program, plan->index_bits, plan->options,
                                      &run->prog));
    if (plan->program == CLSORT__PROGRAM_RADIX) {
        CLSORT__CHECK(clsort__run_reserve_radix(ctx, plan));
        run->alt_keys = ctx->scratch[CLSORT__SCRATCH_RADIX_KEYS];
        run->alt_vals = plan->value_size ? ctx->scratch[CLSORT__SCRATCH_RADIX_VALS] : NULL;
        run->hist = ctx->scratch[CLSORT__SCRATCH_RADIX_HIST];
    }
fail:
    return rc;
}

int clsort__run_begin_segments(clsort_ctx *ctx, const clsort__plan *plan, cl_mem keys,
                               cl_mem vals, cl_mem offsets, const clsort__composed *composed,
                               cl_uint num_wait, const cl_event *wait, cl_event *done,
                               clsort__run *run)
{
    int rc = clsort__run_begin(ctx, plan, keys, vals, num_wait, wait, done, NULL, run);
    run->offsets = offsets;
    if (composed) {
        run->keys32 = composed->keys32;
        run->vals32 = composed->vals32;
        run->vcopy = composed->vcopy;
    }
    if (rc != CLSORT_OK || plan->empty)
        return rc;
    const clsort__seg_plan *sg = &plan->seg;
    const uint64_t words = clsort__seg_meta_words(sg->nseg, sg->large_log ? sg->large_units : 0);
    if (words > SIZE_MAX / sizeof(cl_uint))
        return clsort__fail(ctx, CLSORT_ERR_OUT_OF_MEMORY, "segment list of %llu words",
                            (unsigned long long)words);
    CLSORT__CHECK(clsort__ensure_scratch(ctx, sg->meta_slot, (size_t)words * sizeof(cl_uint)));
    run->meta = run->gpos = ctx->scratch[sg->meta_slot];
    if (sg->need_gpos) {
        CLSORT__CHECK(clsort__ensure_scratch(ctx, sg->gpos_slot,
                                             (size_t)(sg->cap ? sg->cap : 1) * sizeof(cl_uint)));
        run->gpos = ctx->scratch[sg->gpos_slot];
    }
fail:
    return rc;
}

int clsort__run_begin_topk(clsort_ctx *ctx, const clsort__plan *plan, cl_mem keys, cl_mem vals,
                           cl_mem out_keys, cl_mem out_vals, cl_uint num_wait,
                           const cl_event *wait, cl_event *done, clsort__run *run)
{
    int rc = clsort__run_begin(ctx, plan, keys, vals, num_wait, wait, done, NULL, run);
    run->out_keys = out_keys;
    run->out_vals = out_vals;
    if (rc != CLSORT_OK || plan->empty)
        return rc;
    const clsort__topk_plan *tp = &plan->topk;
    const size_t sizes[3] = {clsort_type_size(plan->type), (size_t)tp->idx_bits / 8,
                             plan->value_size};
    for (int b = 1; b <= 2; ++b)
        for (int i = 0; i < 3; ++i) {
            if (!tp->items[b] || !sizes[i])
                continue;
            if (tp->items[b] > ctx->dev.max_alloc / sizes[i]) {
                rc = clsort__fail(ctx, CLSORT_ERR_OUT_OF_MEMORY,
                                  "clsort_topk: %llu items of %zu bytes exceed "
                                  "CL_DEVICE_MAX_MEM_ALLOC_SIZE of %s",
                                  (unsigned long long)tp->items[b], sizes[i], ctx->dev.name);
                goto fail;
            }
            cl_int err;
            run->items[b][i] = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE,
                                              (size_t)tp->items[b] * sizes[i], NULL, &err);
            CLSORT__CL_CHECK(ctx, err, "clCreateBuffer", "top-k items");
        }
    if (tp->radix) {
        /* The histograms (a digit's bins per pass and row), the chunks' four counts, the rows'
         * states after each pass (two 64-bit words). */
        const uint64_t bytes[3] = {tp->rows * tp->rs_passes * ((uint64_t)1 << tp->rs_bits) * 4,
                                   tp->rows * tp->rs_chunks * 4 * 4,
                                   tp->rows * (tp->rs_passes + 1) * 2 * 8};
        static const char *const what[3] = {"radix select histograms", "radix select counts",
                                            "radix select states"};
        for (int i = 0; i < 3; ++i) {
            if (bytes[i] > ctx->dev.max_alloc) {
                rc = clsort__fail(ctx, CLSORT_ERR_OUT_OF_MEMORY,
                                  "clsort_topk: %s of %llu bytes exceed "
                                  "CL_DEVICE_MAX_MEM_ALLOC_SIZE of %s",
                                  what[i], (unsigned long long)bytes[i], ctx->dev.name);
                goto fail;
            }
            cl_int err;
            run->radix[i] = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, (size_t)bytes[i],
                                           NULL, &err);
            CLSORT__CL_CHECK(ctx, err, "clCreateBuffer", what[i]);
        }
    }
fail:
    return rc;
}

int clsort__run_end(clsort__run *run, int rc)
{
    clsort_ctx *ctx = run->ctx;
    const clsort__plan *plan = run->plan;
    if (rc != CLSORT_OK)
        goto fail;
    if (!run->started && (run->num_wait || run->done_out || run->first_out)) {
        /* Nothing to sort: still honour the wait list and hand back a completed-when-ready event. */
        cl_event ev = NULL;
        const cl_int err = clEnqueueMarkerWithWaitList(ctx->queue, run->num_wait, run->wait, &ev);
        CLSORT__CL_CHECK(ctx, err, "clEnqueueMarkerWithWaitList", "");
        run->first = run->last = ev;
    } else if (run->started && !run->tail_has_event && (run->done_out || ctx->profiling)) {
        /* The last command went without an event (a schedule that emitted more or fewer steps
         * than it counted would do that): a marker stands for it, so that done and the
         * statistics never end early. */
        cl_event ev = NULL;
        const cl_int err = clEnqueueMarkerWithWaitList(ctx->queue, 0, NULL, &ev);
        CLSORT__CL_CHECK(ctx, err, "clEnqueueMarkerWithWaitList", "the run's last event");
        keep_event(run, ev);
    }
    ctx->stats.launches = run->launches;
    ctx->stats.global_passes = run->launches;
    if (plan->program == CLSORT__PROGRAM_TOPK)
        clsort__trace(ctx, "topk n=%llu rows=%llu k=%llu: %u launches (tile %u, wg %u, %s%s)",
                      (unsigned long long)plan->n, (unsigned long long)plan->topk.rows,
                      (unsigned long long)plan->topk.k, run->launches, plan->topk.tile,
                      plan->topk.wg, plan->topk.radix ? "radix select, then " : "",
                      plan->topk.network ? "network" : "full sort");
    else if (plan->program == CLSORT__PROGRAM_SEGMENTED)
        clsort__trace(ctx, "segmented %s nseg=%llu: %u launches (tile %u, wg %u)",
                      clsort_algorithm_name(plan->algo), (unsigned long long)plan->seg.nseg,
                      run->launches, plan->seg.tile, plan->seg.wg);
    else
        clsort__trace(ctx, "%s n=%llu x%llu: %u launches", clsort_algorithm_name(plan->algo),
                      (unsigned long long)plan->n, (unsigned long long)plan->count,
                      run->launches);
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
    for (int b = 1; b <= 2; ++b)
        for (int i = 0; i < 3; ++i)
            if (run->items[b][i]) {
                clReleaseMemObject(run->items[b][i]);
                run->items[b][i] = NULL;
            }
    for (int i = 0; i < 3; ++i)
        if (run->radix[i]) {
            clReleaseMemObject(run->radix[i]);
            run->radix[i] = NULL;
        }
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
