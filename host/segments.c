/* segments.c - enqueues the segmented sort of kernels/segmented.cl: zeroes the bin counters,
 * bins the segments by length on the device (so that device-resident offsets need no trip to
 * the host), then launches each bin once: tiny segments one per work-item, the rest one per
 * work-group. The launch sequence depends only on (nseg, the bounds given, the parameters). */
#include "segments.h"

#include "program.h"
#include "scratch.h"

#include <string.h>

#define ITEM_GROUP 64u /* work-items per group of the one-per-item passes */
#ifndef TINY_CPU
#define TINY_CPU 128u
#endif

unsigned clsort__seg_tile(const clsort_ctx *ctx, clsort_type type, size_t value_size, int stable)
{
    const size_t per_key = clsort_type_size(type) + value_size + (stable ? 2 : 0);
    unsigned tile = 4096;
    /* Half the local memory at most, so that the kernel's own locals and a second resident
     * group still fit on GPUs. */
    while (tile > 64 && (size_t)tile * per_key > ctx->dev.local_mem / 2)
        tile >>= 1;
    return tile;
}

unsigned clsort__seg_tiny(const clsort_ctx *ctx)
{
    /* GPUs keep a tiny segment's keys and values in registers: 32 of each at most. PoCL
     * vectorises work-items across SIMD lanes and loses far more per work-group barrier than to
     * spilled private arrays, so one work-item per segment pays up to TINY_CPU keys
     * (docs/perf.md). */
    return (ctx->dev.type & CL_DEVICE_TYPE_GPU) ? 32u : TINY_CPU;
}

uint64_t clsort__seg_large_max(const clsort_ctx *ctx, unsigned tile, int stable)
{
    /* Measured on PoCL (docs/perf.md): segments of 2-4 tiles sorted by one work-group in global
     * memory took longer than a normal sort each (uniform 1..8192: 94 ms against 80 ms at 2^20),
     * so there the bound stays at the tile. On the H200 it is the other way round by far: 2^24
     * keys in segments uniform in 1..8192 took 74 ms as one clsort_sort per long segment and
     * 1.6 ms in the group pass; a power-law mix up to 2^16, 33 ms against 7 ms. So GPUs keep
     * segments up to 16 tiles in the group pass (beyond that one sort per segment has enough
     * parallelism of its own). Stable pairs keep the tile bound: the host variant has no
     * scratch slot left for the positions that stable long segments need in the group pass. */
    if ((ctx->dev.type & CL_DEVICE_TYPE_GPU) && !stable)
        return (uint64_t)tile * 16;
    return tile;
}

/* Work-items per group of seg_sort_group: enough lanes for the tile's comparators on GPUs;
 * on CPUs (PoCL runs a group's items in one thread, vectorised) fewer keep the loops short. */
static unsigned seg_wg(const clsort_ctx *ctx, unsigned tile)
{
    const int gpu = (ctx->dev.type & CL_DEVICE_TYPE_GPU) != 0;
    unsigned wg = gpu ? 256 : 64;
    while (wg > 1 && (wg > ctx->dev.max_wg || wg > tile / 2))
        wg >>= 1;
    return wg;
}

uint64_t clsort__seg_default_groups(const clsort_ctx *ctx, uint64_t nseg)
{
    const uint64_t most = (uint64_t)(ctx->dev.compute_units ? ctx->dev.compute_units : 1) * 32;
    return nseg < most ? nseg : most;
}

/* The events of one segmented sort so far. */
typedef struct seg_run {
    clsort_ctx *ctx;
    const clsort__seg_job *job;
    cl_event first, last;
    int want_events;
    unsigned launches;
} seg_run;

static void keep_event(seg_run *r, cl_event ev)
{
    if (!ev)
        return;
    if (!r->first)
        r->first = ev;
    else if (r->last && r->last != r->first)
        clReleaseEvent(r->last);
    r->last = ev;
}

static int set_args(clsort_ctx *ctx, cl_kernel k, const char *name, int nargs, const size_t *sizes,
                    const void *const *vals)
{
    for (int i = 0; i < nargs; ++i) {
        const cl_int err = clSetKernelArg(k, (cl_uint)i, sizes[i], vals[i]);
        if (err != CL_SUCCESS)
            return clsort__cl_fail(ctx, err, "clSetKernelArg", name);
    }
    return CLSORT_OK;
}

static int launch(seg_run *r, cl_kernel k, const char *name, size_t global, size_t local,
                  cl_uint a0, cl_uint a1)
{
    clsort_ctx *ctx = r->ctx;
    cl_event ev = NULL;
    const int first = !r->launches && !r->first;
    const cl_int err = clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &global, &local,
                                              first ? r->job->num_wait : 0,
                                              first ? r->job->wait : NULL,
                                              r->want_events ? &ev : NULL);
    if (err != CL_SUCCESS)
        return clsort__cl_fail(ctx, err, "clEnqueueNDRangeKernel", name);
    if (ev && ctx->debug >= 2 && ctx->profiling) {
        /* The same trace line as run.c, so tests/test_oblivious.c reads both. */
        clWaitForEvents(1, &ev);
        cl_ulong s = 0, e = 0;
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof s, &s, NULL);
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof e, &e, NULL);
        clsort__trace(ctx, "  %-20s items %-10llu args %u,%u  %8.1f us", name,
                      (unsigned long long)global, a0, a1, e > s ? (e - s) / 1e3 : 0.0);
    }
    keep_event(r, ev);
    ++r->launches;
    return CLSORT_OK;
}

static size_t round_up(uint64_t x, size_t to)
{
    return (size_t)((x + to - 1) / to * to);
}

int clsort__seg_enqueue(clsort_ctx *ctx, const clsort__seg_job *job)
{
    int rc = CLSORT_OK;
    seg_run r;
    memset(&r, 0, sizeof r);
    r.ctx = ctx;
    r.job = job;
    r.want_events = job->done != NULL || ctx->profiling;
    const int stable = (job->flags & CLSORT_STABLE) && job->value_size;
    const int net = job->algo == CLSORT_ODD_EVEN_MERGE ? 1
                    : job->algo == CLSORT_ODD_EVEN_TRANSPOSITION ? 2 : 0;
    const unsigned tile = clsort__seg_tile(ctx, job->type, job->value_size, stable);
    const unsigned wg = seg_wg(ctx, tile), tiny = clsort__seg_tiny(ctx);
    const unsigned tiny_log = tiny == 128 ? 7 : tiny == 64 ? 6 : 5, group_bin = tiny_log - 1;
    const cl_uint xf = (job->type == CLSORT_I32 || job->type == CLSORT_I64 ? 1u : 0u) |
                       (job->type == CLSORT_F32 || job->type == CLSORT_F64 ? 2u : 0u) |
                       (job->flags & CLSORT_DESCENDING ? 4u : 0u);
    char options[512];
    snprintf(options, sizeof options,
             "-DCLSORT_SEG=1 -DSEG_NET=%d -DKEY_BITS=%d -DVAL_BYTES=%zu -DSEG_TILE=%u "
             "-DSEG_WG=%u -DSEG_STABLE=%d -DSEG_TINY_LOG=%u",
             net, (int)clsort_type_size(job->type) * 8, job->value_size, tile, wg, stable,
             tiny_log);
    clsort__program *prog;
    CLSORT__CHECK(clsort__get_program(ctx, CLSORT__NET_SEGMENTED, 64, options, &prog));

    CLSORT__CHECK(clsort__ensure_scratch(ctx, job->meta_slot,
                                         (CLSORT__SEG_META + (size_t)job->nseg) * sizeof(cl_uint)));
    cl_mem meta = ctx->scratch[job->meta_slot], gpos = meta;
    const int large_here = job->groups && (!job->skip_large || job->large_max > tile);
    if (stable && large_here) {
        CLSORT__CHECK(clsort__ensure_scratch(ctx, job->gpos_slot,
                                             (size_t)(job->cap ? job->cap : 1) * sizeof(cl_uint)));
        gpos = ctx->scratch[job->gpos_slot];
    }

    /* Zero the counters (after the caller's wait list). */
    const cl_uint zero = 0;
    cl_event ev = NULL;
    cl_int err = clEnqueueFillBuffer(ctx->queue, meta, &zero, sizeof zero, 0,
                                     CLSORT__SEG_META * sizeof(cl_uint), job->num_wait, job->wait,
                                     r.want_events ? &ev : NULL);
    CLSORT__CL_CHECK(ctx, err, "clEnqueueFillBuffer", "segment bins");
    keep_event(&r, ev);

    const cl_ulong nseg = job->nseg, cap = job->cap;
    cl_kernel k;
    size_t kmax;
    static const char *const bin_kernels[2] = {"seg_count", "seg_scatter"};
    for (int i = 0; i < 2; ++i) {
        CLSORT__CHECK(clsort__get_kernel(ctx, prog, bin_kernels[i], &k, &kmax));
        const size_t sz[4] = {sizeof(cl_mem), sizeof nseg, sizeof cap, sizeof(cl_mem)};
        const void *const v[4] = {&job->offsets, &nseg, &cap, &meta};
        CLSORT__CHECK(set_args(ctx, k, bin_kernels[i], 4, sz, v));
        const size_t local = kmax < ITEM_GROUP ? kmax : ITEM_GROUP;
        CLSORT__CHECK(launch(&r, k, bin_kernels[i], round_up(nseg, local), local, 0, 0));
    }

    const cl_mem vals = job->vals;
    const int nb = job->value_size ? 1 : 0; /* the values argument shifts the rest */
    if (job->tiny_items) {
        CLSORT__CHECK(clsort__get_kernel(ctx, prog, "seg_sort_tiny", &k, &kmax));
        const size_t sz[7] = {sizeof(cl_mem), sizeof(cl_mem), sizeof(cl_mem), sizeof nseg,
                              sizeof cap, sizeof(cl_mem), sizeof xf};
        const void *const v[7] = {&job->keys, &vals, &job->offsets, &nseg, &cap, &meta, &xf};
        const size_t *szp = sz;
        const void *const *vp = v;
        if (!nb) { /* no values argument: skip slot 1 */
            const size_t sz2[6] = {sz[0], sz[2], sz[3], sz[4], sz[5], sz[6]};
            const void *const v2[6] = {v[0], v[2], v[3], v[4], v[5], v[6]};
            CLSORT__CHECK(set_args(ctx, k, "seg_sort_tiny", 6, sz2, v2));
        } else {
            CLSORT__CHECK(set_args(ctx, k, "seg_sort_tiny", 7, szp, vp));
        }
        const size_t local = kmax < ITEM_GROUP ? kmax : ITEM_GROUP;
        CLSORT__CHECK(launch(&r, k, "seg_sort_tiny", round_up(job->tiny_items, local), local,
                             0, 0));
    }
    if (job->groups) {
        CLSORT__CHECK(clsort__get_kernel(ctx, prog, "seg_sort_group", &k, &kmax));
        if (kmax < wg) {
            rc = clsort__fail(ctx, CLSORT_ERR_UNSUPPORTED,
                              "kernel seg_sort_group allows %zu work-items per group "
                              "(CL_KERNEL_WORK_GROUP_SIZE), fewer than SEG_WG=%u",
                              kmax, wg);
            goto fail;
        }
        const cl_uint bin_first = group_bin, bin_last = group_bin + 1;
        const cl_ulong max_len = job->skip_large ? job->large_max : (cl_ulong)1 << 31;
        const size_t sz[11] = {sizeof(cl_mem), sizeof(cl_mem), sizeof(cl_mem), sizeof nseg,
                               sizeof cap, sizeof(cl_mem), sizeof xf, sizeof bin_first,
                               sizeof bin_last, sizeof(cl_mem), sizeof max_len};
        const void *const v[11] = {&job->keys, &vals, &job->offsets, &nseg, &cap,
                                   &meta, &xf, &bin_first, &bin_last, &gpos, &max_len};
        if (!nb) {
            const size_t sz2[10] = {sz[0], sz[2], sz[3], sz[4], sz[5], sz[6], sz[7], sz[8], sz[9],
                                    sz[10]};
            const void *const v2[10] = {v[0], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9],
                                        v[10]};
            CLSORT__CHECK(set_args(ctx, k, "seg_sort_group", 10, sz2, v2));
        } else {
            CLSORT__CHECK(set_args(ctx, k, "seg_sort_group", 11, sz, v));
        }
        CLSORT__CHECK(launch(&r, k, "seg_sort_group", (size_t)job->groups * wg, wg, bin_first,
                             bin_last));
    }
    clsort__trace(ctx, "segmented %s nseg=%llu: %u launches (tile %u, wg %u)",
                  clsort_algorithm_name(job->algo), (unsigned long long)nseg, r.launches, tile, wg);
    ctx->stats.algorithm = job->algo;
    ctx->stats.launches = r.launches;
    ctx->stats.global_passes = r.launches;
    if (job->done) {
        *job->done = r.last;
        if (r.last)
            clRetainEvent(r.last);
    }
    if (ctx->profiling && r.first) {
        if (ctx->stat_first)
            clReleaseEvent(ctx->stat_first);
        if (ctx->stat_last)
            clReleaseEvent(ctx->stat_last);
        ctx->stat_first = r.first;
        ctx->stat_last = r.last;
        if (r.first == r.last)
            clRetainEvent(r.last);
        r.first = r.last = NULL;
    }
fail:
    if (r.first)
        clReleaseEvent(r.first);
    if (r.last && r.last != r.first)
        clReleaseEvent(r.last);
    return rc;
}
