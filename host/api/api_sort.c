/* api_sort.c - the public sort calls: argument checks, the host fallback for small inputs,
 * transfers between host arrays and the context's scratch buffers, and CLSORT_STABLE. */
#include "api_sort.h"
#include "api_common.h"
#include "api_narrow.h"
#include "hostsort.h"
#include "keytype.h"
#include "kernels.h"
#include "params.h"
#include "parcopy.h"
#include "plan.h"
#include "program.h"
#include "run.h"
#include "schedule.h"
#include "scratch.h"
#include "transfer.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* Checks shared by every entry point; records the reason on ctx. */
static int check_args(clsort_ctx *ctx, const char *fn, int have_keys, size_t n, clsort_type type,
                      clsort_algorithm algo, unsigned flags, size_t value_size, int need_values,
                      int have_values)
{
    if (!ctx)
        return CLSORT_ERR_INVALID_ARG;
    const int rc = clsort__check_sort_kind(ctx, fn, type, algo, flags, value_size, need_values);
    if (rc != CLSORT_OK)
        return rc;
    if (n > 0 && !have_keys)
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG, "%s: keys is NULL with n = %zu", fn, n);
    if (need_values && n > 0 && !have_values)
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG, "%s: values is NULL with n = %zu", fn, n);
    /* n keys and values must fit in memory at all: n * size may not wrap around size_t. */
    const size_t elem = clsort_type_size(type) + (need_values ? value_size : 0);
    if (n > SIZE_MAX / elem / 2)
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG,
                            "%s: n = %zu keys of %zu bytes cannot be addressed", fn, n, elem);
    return clsort__check_fp64(ctx, fn, type);
}

/* What a device sort of `count` arrays of n keys runs, into *algo, and the radix sort's second
 * buffers reserved where it runs, before any data moves: explicit algorithms stay (explicit
 * RADIX fails here with CLSORT_ERR_OUT_OF_MEMORY where its buffers cannot be had); AUTO takes
 * the radix sort where clsort__auto_choice says so and its buffers can be had, else sorts in
 * place with AUTO's network. */
static int resolve_device_algo(clsort_ctx *ctx, uint64_t n, uint64_t count, clsort_type type,
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
 * NULL) gets the last event. The API drives the layers one way: it makes the plan (plan.c),
 * starts the run (run.c), feeds it the schedule's steps (schedule.c) and ends the run. */
static int enqueue_sort(clsort_ctx *ctx, cl_mem keys, cl_mem vals, size_t value_size, uint64_t n,
                        uint64_t count, clsort_type type, clsort_algorithm algo, unsigned flags,
                        cl_uint num_wait, const cl_event *wait, cl_event *done)
{
    clsort__plan plan;
    int rc = resolve_device_algo(ctx, n, count, type, value_size, flags, &algo);
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
    CLSORT__CHECK(enqueue_sort(ctx, kb, vb, values ? value_size : 0, n, count, type, algo, flags,
                               0, NULL, NULL));
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
static int device_sort(clsort_ctx *ctx, void *keys, void *values, size_t value_size, size_t n,
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
        resolve_device_algo(ctx, n, count, type, values ? value_size : 0, flags, &algo));
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
static int use_host(const clsort_ctx *ctx, size_t n, clsort_algorithm algo, unsigned flags)
{
    return !(flags & CLSORT_NO_HOST_FALLBACK) &&
           (n <= ctx->host_fallback_max || (algo == CLSORT_AUTO && n <= ctx->host_path_max));
}

static int sort_any(clsort_ctx *ctx, void *keys, void *values, size_t value_size, size_t n,
                    clsort_type type, clsort_algorithm algo, unsigned flags)
{
    const uint64_t t0 = clsort__now_ns();
    clsort__reset_stats(ctx);
    int rc;
    if (n < 2) {
        rc = CLSORT_OK;
    } else if (use_host(ctx, n, algo, flags)) {
        rc = clsort__host_sort(keys, values, value_size, n, type, flags);
        ctx->stats.host_fallback = 1;
        ctx->stats.algorithm = algo == CLSORT_AUTO ? clsort__resolve_auto(ctx, n) : algo;
    } else {
        rc = device_sort(ctx, keys, values, value_size, n, 1, type, algo, flags);
    }
    ctx->stats.total_ns = clsort__now_ns() - t0;
    ctx->stats.pinned_bytes = clsort__staging_bytes(ctx);
    return rc;
}

static int narrow_sort_buffer(clsort_ctx *ctx, cl_mem keys, cl_mem values, size_t value_size,
                              size_t n, clsort_type type, clsort_algorithm algo,
                              unsigned flags, cl_uint num_wait, const cl_event *wait,
                              cl_event *done);

/* Unstable narrow keys of a host array on the device: they travel as they are (1 or 2 bytes a
 * key, not the composites' 4) into scratch 0 (values into scratch 1), narrow_sort_buffer widens,
 * sorts and narrows them there, and they come back. Blocking; on failure the arrays are as
 * they were unless the read-back itself failed part-way (clsort_sort's exception). */
static int narrow_device_sort(clsort_ctx *ctx, void *keys, void *values, size_t vs, size_t n,
                              clsort_type type, clsort_algorithm algo, unsigned flags)
{
    const size_t kbytes = n * clsort_type_size(type), vbytes = values ? n * vs : 0;
    const uint64_t t0 = clsort__now_ns();
    clsort__reset_stats(ctx);
    int rc = CLSORT_OK, touched = 0;
    const size_t wbytes = n * 4, slot = CLSORT__SCRATCH_COMPOSED;
    /* Buffers still to be made: a driver may abort where it cannot back them (transfer.h). */
    CLSORT__CHECK(clsort__check_memory(
        ctx, (kbytes > ctx->scratch_size[0] ? kbytes : 0) +
                 (vbytes > ctx->scratch_size[1] ? vbytes : 0) +
                 (wbytes > ctx->scratch_size[slot] ? wbytes : 0),
        "the sort's device buffers"));
    CLSORT__CHECK(clsort__ensure_scratch(ctx, 0, kbytes));
    if (values)
        CLSORT__CHECK(clsort__ensure_scratch(ctx, 1, vbytes));
    CLSORT__CHECK(clsort__upload(ctx, ctx->scratch[0], 0, keys, kbytes));
    if (values)
        CLSORT__CHECK(clsort__upload(ctx, ctx->scratch[1], 0, values, vbytes));
    CLSORT__CHECK(narrow_sort_buffer(ctx, ctx->scratch[0], values ? ctx->scratch[1] : NULL, vs,
                                     n, type, algo, flags, 0, NULL, NULL));
    const cl_int err = clFinish(ctx->queue);
    CLSORT__CL_CHECK(ctx, err, "clFinish", "narrow keys' sort");
    CLSORT__CHECK(clsort__transfer_settle(ctx));
    CLSORT__CHECK(clsort__download(ctx, ctx->scratch[0], 0, keys, kbytes, &touched));
    if (values)
        CLSORT__CHECK(clsort__download(ctx, ctx->scratch[1], 0, values, vbytes, &touched));
    rc = clsort__transfer_settle(ctx);
fail:
    if (rc != CLSORT_OK) {
        clFinish(ctx->queue);
        clsort__transfer_settle(ctx);
    }
    ctx->stats.total_ns = clsort__now_ns() - t0;
    return rc;
}

/* Narrow keys (api_narrow.c's composites, sorted as u32 or u64), and CLSORT_STABLE where
 * CLSORT_NAN_LARGEST makes different bits equal: the keys with their positions, unstable, then
 * each run of equal keys put back in input order. `count` arrays of n keys (count > 1: keys
 * alone, not stable). Arguments checked. */
static int narrow_sort(clsort_ctx *ctx, void *keys, void *values, size_t value_size, size_t n,
                       size_t count, clsort_type type, clsort_algorithm algo, unsigned flags)
{
    static const char fn[] = "clsort_sort";
    const size_t vs = values ? value_size : 0, ks = clsort_type_size(type);
    const unsigned inner = flags & CLSORT_NO_HOST_FALLBACK;
    int rc;
    if (clsort__type_narrow(type) && count == 1 && !(flags & CLSORT_STABLE) &&
        !use_host(ctx, n, algo, flags))
        return narrow_device_sort(ctx, keys, values, vs, n, type, algo, flags);
    if (clsort__type_narrow(type)) {
        int with_pos = 0;
        void *wide = NULL;
        clsort_type wtype;
        rc = clsort__narrow_widen(ctx, fn, keys, n * count, type, flags, values != NULL, &wide,
                                  &wtype, &with_pos);
        if (rc != CLSORT_OK)
            return rc;
        if (count > 1)
            rc = clsort__sort_batch_locked(ctx, wide, n, count, wtype, algo, inner);
        else if (values)
            rc = clsort__sort_pairs_locked(ctx, wide, values, vs, n, wtype, algo, inner);
        else
            rc = clsort__sort_locked(ctx, wide, n, wtype, algo, inner);
        if (rc == CLSORT_OK)
            clsort__narrow_back(keys, wide, n * count, type, with_pos);
        free(wide);
        return rc;
    }
    /* The device holds the keys and 8-byte positions: sizes no buffer can hold fail before the
     * host copies are made. */
    if (n * ks > ctx->dev.max_alloc || n * sizeof(uint64_t) > ctx->dev.max_alloc)
        return clsort__fail(ctx, CLSORT_ERR_OUT_OF_MEMORY,
                            "%s: %zu keys with positions need %zu bytes in one buffer, more "
                            "than CL_DEVICE_MAX_MEM_ALLOC_SIZE (%llu bytes) of %s",
                            fn, n, n * sizeof(uint64_t), (unsigned long long)ctx->dev.max_alloc,
                            ctx->dev.name);
    clsort__by_position bp;
    rc = clsort__by_position_alloc(ctx, &bp, keys, values, n, ks, vs);
    if (rc != CLSORT_OK)
        return rc;
    rc = clsort__sort_pairs_locked(ctx, bp.kcopy, bp.pos, 8, n, type, algo,
                                   flags & ~CLSORT_STABLE);
    if (rc == CLSORT_OK)
        clsort__restore_order(bp.kcopy, bp.pos, n, ks, clsort__type_xf(type, flags), keys, values,
                      bp.vcopy, vs);
    clsort__by_position_free(&bp);
    return rc;
}


int clsort__sort_locked(clsort_ctx *ctx, void *keys, size_t n, clsort_type type, clsort_algorithm algo,
                unsigned flags)
{
    int rc = check_args(ctx, "clsort_sort", keys != NULL, n, type, algo, flags, 0, 0, 0);
    if (rc)
        return rc;
    /* Narrow keys, and CLSORT_STABLE where CLSORT_NAN_LARGEST makes different bits equal. */
    if (n > 1 && clsort__narrow_needed(type, flags))
        return narrow_sort(ctx, keys, NULL, 0, n, 1, type, algo, flags);
    /* Otherwise keys that compare equal have identical bits (totalOrder for floats), so a
     * keys-only sort is stable by construction: CLSORT_STABLE needs no work here. */
    return sort_any(ctx, keys, NULL, 0, n, type, algo, flags);
}

/* CLSORT_STABLE for pairs: sort (key, position) pairs, restore input order inside each run of
 * equal keys on the host, then move the values by the positions. */
static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int stable_pairs(clsort_ctx *ctx, void *keys, void *values, size_t value_size, size_t n,
                        clsort_type type, clsort_algorithm algo, unsigned flags)
{
    const size_t ks = clsort_type_size(type);
    /* The device sorts the keys with 8-byte positions: sizes no buffer can hold fail here,
     * before three host copies of that size are asked for. */
    if (n * ks > ctx->dev.max_alloc || n * sizeof(uint64_t) > ctx->dev.max_alloc)
        return clsort__fail(ctx, CLSORT_ERR_OUT_OF_MEMORY,
                            "clsort_sort_pairs: %zu keys with positions need %zu bytes in one "
                            "buffer, more than CL_DEVICE_MAX_MEM_ALLOC_SIZE (%llu bytes) of %s",
                            n, n * sizeof(uint64_t), (unsigned long long)ctx->dev.max_alloc,
                            ctx->dev.name);
    uint64_t *pos = malloc(n * sizeof *pos);
    unsigned char *vcopy = malloc(n * value_size);
    if (!pos || !vcopy) {
        free(pos);
        free(vcopy);
        return clsort__fail(ctx, CLSORT_ERR_OUT_OF_MEMORY, "out of host memory (stable sort)");
    }
    unsigned char *kcopy = malloc(n * ks);
    if (!kcopy) {
        free(pos);
        free(vcopy);
        return clsort__fail(ctx, CLSORT_ERR_OUT_OF_MEMORY, "out of host memory (stable sort)");
    }
    memcpy(kcopy, keys, n * ks);
    for (size_t i = 0; i < n; ++i)
        pos[i] = i;
    int rc = sort_any(ctx, kcopy, pos, 8, n, type, algo, flags & ~CLSORT_STABLE);
    if (rc == CLSORT_OK) {
        for (size_t a = 0; a < n;) {
            size_t b = a + 1;
            while (b < n && !memcmp(kcopy + b * ks, kcopy + a * ks, ks))
                ++b;
            if (b - a > 1)
                qsort(pos + a, b - a, sizeof *pos, cmp_u64);
            a = b;
        }
        memcpy(vcopy, values, n * value_size);
        unsigned char *v = values;
        for (size_t i = 0; i < n; ++i)
            memcpy(v + i * value_size, vcopy + pos[i] * value_size, value_size);
        memcpy(keys, kcopy, n * ks);
    }
    free(pos);
    free(vcopy);
    free(kcopy);
    return rc;
}

int clsort__sort_pairs_locked(clsort_ctx *ctx, void *keys, void *values, size_t value_size, size_t n,
                      clsort_type type, clsort_algorithm algo, unsigned flags)
{
    int rc = check_args(ctx, "clsort_sort_pairs", keys != NULL, n, type, algo, flags, value_size,
                        1, values != NULL);
    if (rc)
        return rc;
    if (n > 1 && clsort__narrow_needed(type, flags))
        return narrow_sort(ctx, keys, values, value_size, n, 1, type, algo, flags);
    /* The host sort keeps CLSORT_STABLE itself (hostsort.h), and so does the radix sort
     * (explicit, or AUTO's where its buffers can be had): only the networks need the
     * positions. */
    if ((flags & CLSORT_STABLE) && n > 1 && !use_host(ctx, n, algo, flags)) {
        clsort_algorithm resolved = algo;
        rc = resolve_device_algo(ctx, n, 1, type, value_size, flags, &resolved);
        if (rc != CLSORT_OK)
            return rc;
        if (resolved != CLSORT_RADIX)
            return stable_pairs(ctx, keys, values, value_size, n, type, algo, flags);
        algo = resolved;
    }
    return sort_any(ctx, keys, values, value_size, n, type, algo, flags);
}

int clsort__sort_batch_locked(clsort_ctx *ctx, void *keys, size_t n, size_t count,
                              clsort_type type, clsort_algorithm algo, unsigned flags)
{
    int rc = check_args(ctx, "clsort_sort_batch", keys != NULL || count == 0, n, type, algo,
                        flags, 0, 0, 0);
    if (rc)
        return rc;
    if (flags & CLSORT_STABLE)
        return clsort__fail(ctx, CLSORT_ERR_UNSUPPORTED, "clsort_sort_batch: CLSORT_STABLE");
    /* count * n keys, and their bytes, must not wrap around size_t (check_args saw n alone):
     * every size below (buffers, transfers, the in-place copy) is a multiple of it. */
    const size_t ks = clsort_type_size(type);
    if (count && (n > SIZE_MAX / count || n * count > SIZE_MAX / ks / 2))
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG,
                            "clsort_sort_batch: %zu arrays of %zu keys of %zu bytes cannot be "
                            "addressed",
                            count, n, ks);
    if (n >= 2 && count > 0 && clsort__narrow_needed(type, flags))
        return narrow_sort(ctx, keys, NULL, 0, n, count, type, algo, flags);
    const uint64_t t0 = clsort__now_ns();
    clsort__reset_stats(ctx);
    if (n >= 2 && count > 0)
        rc = device_sort(ctx, keys, NULL, 0, n, count, type, algo, flags);
    ctx->stats.total_ns = clsort__now_ns() - t0;
    ctx->stats.pinned_bytes = clsort__staging_bytes(ctx);
    return rc;
}

/* Narrow keys in the caller's buffer, unstable, on the device: the network's plan for u32 keys
 * with the widening and narrowing steps (narrow.cl) around it, on composites in the context's
 * scratch slot for composites. */
static int narrow_sort_buffer(clsort_ctx *ctx, cl_mem keys, cl_mem values, size_t value_size,
                              size_t n, clsort_type type, clsort_algorithm algo,
                              unsigned flags, cl_uint num_wait, const cl_event *wait,
                              cl_event *done)
{
    if (n < 2)
        return clsort__enqueue_nothing(ctx, num_wait, wait, done);
    if ((uint64_t)n * 4 > ctx->dev.max_alloc)
        return clsort__fail(ctx, CLSORT_ERR_OUT_OF_MEMORY,
                            "clsort_sort_buffer: %zu %s keys widen to %zu bytes, more than "
                            "CL_DEVICE_MAX_MEM_ALLOC_SIZE (%llu bytes) of %s",
                            n, clsort_type_name(type), n * 4,
                            (unsigned long long)ctx->dev.max_alloc, ctx->dev.name);
    /* The composites' slot: every user of it enqueues on the context's queue, in order. */
    int rc = clsort__ensure_scratch(ctx, CLSORT__SCRATCH_COMPOSED, n * 4);
    if (rc != CLSORT_OK)
        return rc;
    cl_mem wide = ctx->scratch[CLSORT__SCRATCH_COMPOSED];
    clsort__plan plan;
    clsort__plan_sort(ctx, n, 1, CLSORT_U32, algo, 0, values ? value_size : 0, &plan);
    clsort__plan_narrow(&plan, clsort__keytype_of(type).bits, clsort__type_xf(type, flags));
    clsort__run run;
    rc = clsort__run_begin(ctx, &plan, wide, values, num_wait, wait, done, NULL, &run);
    run.narrow = keys;
    if (rc == CLSORT_OK && !plan.empty)
        rc = clsort__run_schedule(&run, clsort__schedule);
    return clsort__run_end(&run, rc);
}

static int clsort_sort_buffer_locked(clsort_ctx *ctx, cl_mem keys, cl_mem values, size_t value_size, size_t n,
                       clsort_type type, clsort_algorithm algo, unsigned flags, cl_uint num_wait,
                       const cl_event *wait, cl_event *done)
{
    if (done)
        *done = NULL;
    int rc = check_args(ctx, "clsort_sort_buffer", keys != NULL, n, type, algo, flags,
                        values ? value_size : 0, values != NULL, 1);
    if (rc)
        return rc;
    /* The radix sort is stable on the device; the networks' stable path needs the host. */
    if ((flags & CLSORT_STABLE) && algo != CLSORT_RADIX)
        return clsort__fail(ctx, CLSORT_ERR_UNSUPPORTED,
                            "clsort_sort_buffer: CLSORT_STABLE needs host memory (or "
                            "CLSORT_RADIX)");
    if ((num_wait && !wait) || (!num_wait && wait))
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG, "clsort_sort_buffer: bad wait list");
    size_t have = 0;
    if (n > 0 && (clGetMemObjectInfo(keys, CL_MEM_SIZE, sizeof have, &have, NULL) != CL_SUCCESS ||
                  have / clsort_type_size(type) < n))
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG,
                            "clsort_sort_buffer: keys buffer holds fewer than n = %zu keys", n);
    if (n > 0 && values &&
        (clGetMemObjectInfo(values, CL_MEM_SIZE, sizeof have, &have, NULL) != CL_SUCCESS ||
         have / value_size < n))
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG,
                            "clsort_sort_buffer: values buffer holds fewer than n = %zu values", n);
    const uint64_t t0 = clsort__now_ns();
    clsort__reset_stats(ctx);
    if (clsort__type_narrow(type))
        rc = narrow_sort_buffer(ctx, keys, values, value_size, n, type, algo, flags, num_wait,
                                wait, done);
    else
        rc = enqueue_sort(ctx, keys, values, values ? value_size : 0, n, 1, type, algo, flags,
                          num_wait, wait, done);
    ctx->stats.total_ns = clsort__now_ns() - t0;
    return rc;
}

/* ---- clsort_prepare ---- */

/* Creates the kernel of each step of a schedule (an emit function over the program). */
typedef struct prep_kernels {
    clsort_ctx *ctx;
    clsort__program *prog;
} prep_kernels;

static int make_kernel(const clsort__step *step, void *user)
{
    prep_kernels *pk = user;
    cl_kernel k;
    size_t wg;
    return clsort__get_kernel(pk->ctx, pk->prog, clsort__kernels[step->kernel].name, &k, &wg);
}

/* The program and kernels a sort of n keys with algo (AUTO or not) would use; narrow: with the
 * widening and narrowing steps of narrow keys (of any width: the kernels are the same). */
static int prepare_size(clsort_ctx *ctx, uint64_t n, clsort_type type, clsort_algorithm algo,
                        unsigned flags, size_t value_size, int narrow)
{
    clsort__plan plan;
    clsort__plan_sort(ctx, n, 1, type, algo, flags, value_size, &plan);
    if (plan.empty)
        return CLSORT_OK;
    if (narrow)
        clsort__plan_narrow(&plan, (unsigned)narrow, 0);
    prep_kernels pk = {ctx, NULL};
    int rc = clsort__get_program(ctx, plan.program, plan.index_bits, plan.options, &pk.prog);
    if (rc == CLSORT_OK)
        rc = clsort__schedule(&plan, make_kernel, &pk);
    return rc;
}

#define MAX_PREP_SIZES (2 * (CLSORT__MAX_AUTO_RULES + CLSORT__NETWORKS * CLSORT__MAX_SIZE_RANGES) + 4)

static void add_size(uint64_t *sizes, int *nsizes, uint64_t n, uint64_t lo, uint64_t hi)
{
    if (n >= lo && n <= hi && *nsizes < MAX_PREP_SIZES)
        sizes[(*nsizes)++] = n;
}

/* Builds what every sort of lo..hi keys needs. What a plan holds (network, parameters, index
 * width) changes only where an AUTO rule or a size range of the config ends, and the index width
 * only once, upwards, between two such ends: the first and last size of every stretch between
 * ends cover every program. */
static int prepare_programs(clsort_ctx *ctx, uint64_t lo, uint64_t hi, clsort_type type,
                            unsigned flags, size_t value_size, int narrow)
{
    uint64_t sizes[MAX_PREP_SIZES];
    int nsizes = 0;
    add_size(sizes, &nsizes, lo, lo, hi);
    add_size(sizes, &nsizes, hi, lo, hi);
    for (int i = 0; i < ctx->nauto_rules; ++i) {
        const uint64_t m = ctx->auto_rules[i].max_n;
        add_size(sizes, &nsizes, m, lo, hi);
        if (m < UINT64_MAX)
            add_size(sizes, &nsizes, m + 1, lo, hi);
    }
    /* Where AUTO turns to the radix sort. */
    const uint64_t radix_min = clsort__radix_min_n(ctx, type, value_size);
    if (radix_min < UINT64_MAX) {
        add_size(sizes, &nsizes, radix_min, lo, hi);
        if (radix_min > 0)
            add_size(sizes, &nsizes, radix_min - 1, lo, hi);
    }
    const int width = clsort__width_index(type), valkind = clsort__valkind_index(value_size);
    for (int net = 0; net < CLSORT__NETWORKS; ++net)
        for (int i = 0; i < ctx->nranges[net][width][valkind]; ++i) {
            const uint64_t m = ctx->ranges[net][width][valkind][i].max_n;
            add_size(sizes, &nsizes, m, lo, hi);
            if (m < UINT64_MAX)
                add_size(sizes, &nsizes, m + 1, lo, hi);
        }
    int rc = CLSORT_OK;
    for (int i = 0; i < nsizes && rc == CLSORT_OK; ++i) {
        /* AUTO's host path (a CPU device) needs no program at that size. */
        if ((flags & CLSORT_NO_HOST_FALLBACK) || sizes[i] > ctx->host_path_max)
            rc = prepare_size(ctx, sizes[i], type, CLSORT_AUTO, flags, value_size, narrow);
        if (rc == CLSORT_OK)
            rc = prepare_size(ctx, sizes[i], type, CLSORT_BITONIC, flags, value_size, narrow);
    }
    return rc;
}

/* How much of a scratch buffer reserve_scratch fills: its first GiB at most, at offset 0. Filling
 * it is what makes drivers that allocate at first use (NVIDIA's) allocate it here, where a
 * failure can be reported, and touching it anywhere does that; the contents do not matter (the
 * warm-up passes below run on whatever it holds). NVIDIA's OpenCL driver (580.159.04, H200) got
 * larger fills wrong: one clEnqueueFillBuffer of exactly 2^31 bytes with a one-byte pattern never
 * finished (clsort_prepare of 2^29 u32 keys and `clsort -S 2G` spun a core, 2026-11-26), and
 * 16 GiB in pieces of 1 GiB (clsort_prepare of 2^32 u32 keys, which `clsort` calls for a 16 GiB
 * file) failed after 10 s with CL_INVALID_COMMAND_QUEUE and left the queue unusable, while a sort
 * of the same 2^32 keys without clsort_prepare ran (2026-11-27). Fills of 1 GiB at offset 0
 * worked in every case seen. */
#define FILL_FIRST ((size_t)1 << 30)

/* Makes sure scratch buffer i holds bytes and that the device really allocated it: drivers
 * allocate on first use, where an allocation failure would otherwise show. */
static int reserve_scratch(clsort_ctx *ctx, int i, size_t bytes)
{
    const int had = ctx->scratch[i] && ctx->scratch_size[i] >= bytes;
    int rc = had ? CLSORT_OK : clsort__check_memory(ctx, bytes, "clsort_prepare's buffers");
    if (rc == CLSORT_OK)
        rc = clsort__ensure_scratch(ctx, i, bytes);
    if (rc != CLSORT_OK || had || !bytes)
        return rc;
    const cl_uchar zero = 0;
    cl_int err = clEnqueueFillBuffer(ctx->queue, ctx->scratch[i], &zero, sizeof zero, 0,
                                     bytes < FILL_FIRST ? bytes : FILL_FIRST, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clFinish(ctx->queue);
    return err == CL_SUCCESS ? CLSORT_OK : clsort__cl_fail(ctx, err, "clEnqueueFillBuffer", "scratch");
}

/* The first launch of each kernel of a schedule, passed on to the run; the later launches of
 * the same kernel are left out. Kernels are told apart by the step's kernel field. */
typedef struct first_launches {
    clsort__run *run;
    clsort__step seen[CLSORT__MAX_KERNELS];
    int nseen;
} first_launches;

static int first_launch_only(const clsort__step *step, void *user)
{
    first_launches *fl = user;
    for (int i = 0; i < fl->nseen; ++i)
        if (!memcmp(&fl->seen[i].kernel, &step->kernel, sizeof step->kernel))
            return CLSORT_OK;
    if (fl->nseen < CLSORT__MAX_KERNELS)
        fl->seen[fl->nseen++] = *step;
    return clsort__run_step(step, fl->run);
}

/* Launches each kernel of the plan a first sort of max_n would use once, on the reserved
 * buffers (whatever they hold: any pass of a network over any keys is safe):
 * drivers set a kernel up at its first launch (measured on PoCL: 4-8 ms over the 76 launches of
 * 2^20 keys), which would otherwise land in that sort. Once per kernel rather than the whole
 * schedule: a handful of passes instead of a whole sort (the CLI prepares while it reads, and on
 * a CPU a sort of max_n would cost seconds). The statistics of these launches are dropped. */
static int warm_up(clsort_ctx *ctx, size_t n, clsort_type type, size_t vs, clsort_algorithm algo)
{
    clsort__plan plan;
    int rc = resolve_device_algo(ctx, n, 1, type, vs, 0, &algo);
    if (rc != CLSORT_OK)
        return rc;
    clsort__plan_sort(ctx, n, 1, type, algo, 0, vs, &plan);
    clsort__run run;
    first_launches fl;
    memset(&fl, 0, sizeof fl);
    fl.run = &run;
    rc = clsort__run_begin(ctx, &plan, ctx->scratch[0], vs ? ctx->scratch[1] : NULL, 0, NULL,
                               NULL, NULL, &run);
    if (rc == CLSORT_OK && !plan.empty)
        rc = clsort__schedule(&plan, first_launch_only, &fl);
    rc = clsort__run_end(&run, rc);
    const cl_int err = clFinish(ctx->queue);
    if (rc == CLSORT_OK && err != CL_SUCCESS)
        rc = clsort__cl_fail(ctx, err, "clFinish", "clsort_prepare's first launches");
    const uint64_t build_ns = ctx->stats.build_ns;
    clsort__reset_stats(ctx);
    ctx->stats.build_ns = build_ns;
    return rc;
}

static int clsort_prepare_locked(clsort_ctx *ctx, clsort_type type, size_t value_size,
                                 size_t max_n, unsigned flags)
{
    if (value_size != 0 && value_size != 4 && value_size != 8)
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG,
                            "clsort_prepare: value_size %zu is not 0, 4 or 8", value_size);
    /* n 0: the size is checked here, less strictly than a sort's (which wants its arrays to fit
     * in half the address space): a max_n whose bytes do not wrap is a size that cannot be
     * reserved, CLSORT_ERR_OUT_OF_MEMORY below, not a bad argument. */
    int rc = check_args(ctx, "clsort_prepare", 1, 0, type, CLSORT_AUTO, flags, value_size,
                        value_size != 0, 1);
    if (rc)
        return rc;
    /* What the sorts run on the device (api_narrow.c): narrow keys as 32-bit composites, or
     * 64-bit ones with their positions where stable; keys that CLSORT_NAN_LARGEST makes equal
     * with their positions where stable. */
    int narrow = 0; /* the narrow keys' bits where widened on the device (narrow_device_sort) */
    if (clsort__type_narrow(type)) {
        const int pos = (flags & CLSORT_STABLE) &&
                        (value_size || clsort__type_collapses(type, flags));
        narrow = pos ? 0 : (int)clsort__keytype_of(type).bits;
        type = pos ? CLSORT_U64 : CLSORT_U32;
        flags &= CLSORT_NO_HOST_FALLBACK;
    } else if ((flags & CLSORT_STABLE) && clsort__type_collapses(type, flags) && !value_size) {
        value_size = 8;
    }
    /* Stable pairs sort the keys with their 8-byte positions (stable_pairs), unless AUTO gives
     * them to the radix sort, which is stable with the values as they are. */
    const int radix_stable = !narrow && value_size && (flags & CLSORT_STABLE) &&
                             clsort__auto_choice(ctx, max_n, 1, type, value_size, 1) ==
                                 CLSORT_RADIX;
    const size_t vs = value_size && (flags & CLSORT_STABLE) && !radix_stable ? 8 : value_size;
    if (max_n > SIZE_MAX / (clsort_type_size(type) + vs))
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG,
                            "clsort_prepare: max_n = %zu keys of %zu bytes (and values of %zu) "
                            "cannot be addressed",
                            max_n, clsort_type_size(type), vs);
    const uint64_t t0 = clsort__now_ns();
    clsort__reset_stats(ctx);
    /* Sizes the host fallback takes need nothing from the device. */
    const int device = (flags & CLSORT_NO_HOST_FALLBACK) || max_n > ctx->host_fallback_max;
    if (max_n >= 2 && device) {
        const size_t ks = clsort_type_size(type);
        const uint64_t lo = (flags & CLSORT_NO_HOST_FALLBACK) ? 2 : ctx->host_fallback_max + 1;
        const size_t kbytes = max_n * ks, vbytes = max_n * vs;
        /* Before any build: a size no buffer can hold fails at once. */
        if (kbytes > ctx->dev.max_alloc || vbytes > ctx->dev.max_alloc)
            CLSORT__CHECK(clsort__fail(
                ctx, CLSORT_ERR_OUT_OF_MEMORY,
                "clsort_prepare: %zu keys need %zu bytes in one buffer, more than "
                "CL_DEVICE_MAX_MEM_ALLOC_SIZE (%llu bytes) of %s",
                max_n, kbytes > vbytes ? kbytes : vbytes, (unsigned long long)ctx->dev.max_alloc,
                ctx->dev.name));
        CLSORT__CHECK(prepare_programs(ctx, lo < 2 ? 2 : lo, max_n, type,
                                       radix_stable ? flags : flags & ~CLSORT_STABLE, vs, narrow));
        CLSORT__CHECK(reserve_scratch(ctx, 0, kbytes));
        if (narrow)
            CLSORT__CHECK(reserve_scratch(ctx, CLSORT__SCRATCH_COMPOSED, kbytes));
        if (vs)
            CLSORT__CHECK(reserve_scratch(ctx, 1, vbytes));
        CLSORT__CHECK(clsort__transfer_reserve(ctx, kbytes + vbytes));
        /* Where AUTO takes the radix sort at max_n, its second buffers and digit counts too. */
        if (clsort__auto_choice(ctx, max_n, 1, type, vs, radix_stable) == CLSORT_RADIX) {
            clsort__plan rp;
            clsort__plan_sort(ctx, max_n, 1, type, CLSORT_RADIX, 0, vs, &rp);
            if (narrow)
                clsort__plan_narrow(&rp, (unsigned)narrow, 0);
            CLSORT__CHECK(clsort__run_reserve_radix(ctx, &rp));
        }
        if (((flags & CLSORT_NO_HOST_FALLBACK) || max_n > ctx->host_path_max) &&
            clsort__auto_choice(ctx, max_n, 1, type, vs, 0) != CLSORT_BITONIC)
            CLSORT__CHECK(warm_up(ctx, max_n, type, vs, CLSORT_AUTO));
        CLSORT__CHECK(warm_up(ctx, max_n, type, vs, CLSORT_BITONIC));
    }
fail:
    if (rc == CLSORT_ERR_OUT_OF_MEMORY) {
        /* A buffer the driver could not back would fail every later sort that reuses it. */
        for (int i = 0; i < CLSORT__NSCRATCH; ++i)
            if (ctx->scratch[i] && (i < 2 || i == CLSORT__SCRATCH_COMPOSED)) {
                clReleaseMemObject(ctx->scratch[i]);
                ctx->scratch[i] = NULL;
                ctx->scratch_size[i] = 0;
            }
    }
    ctx->stats.total_ns = clsort__now_ns() - t0;
    ctx->stats.pinned_bytes = clsort__staging_bytes(ctx);
    return rc;
}

/* Public entry points: the per-context lock around the work (core.h). */
int clsort_prepare(clsort_ctx *ctx, clsort_type type, size_t value_size, size_t max_n,
                   unsigned flags)
{
    if (!ctx)
        return CLSORT_ERR_INVALID_ARG;
    pthread_mutex_lock(&ctx->lock);
    const int rc = clsort_prepare_locked(ctx, type, value_size, max_n, flags);
    pthread_mutex_unlock(&ctx->lock);
    return rc;
}

int clsort_sort(clsort_ctx *ctx, void *keys, size_t n, clsort_type type, clsort_algorithm algo,
                unsigned flags)
{
    if (!ctx)
        return CLSORT_ERR_INVALID_ARG;
    pthread_mutex_lock(&ctx->lock);
    const int rc = clsort__sort_locked(ctx, keys, n, type, algo, flags);
    pthread_mutex_unlock(&ctx->lock);
    return rc;
}

int clsort_sort_pairs(clsort_ctx *ctx, void *keys, void *values, size_t value_size, size_t n,
                      clsort_type type, clsort_algorithm algo, unsigned flags)
{
    if (!ctx)
        return CLSORT_ERR_INVALID_ARG;
    pthread_mutex_lock(&ctx->lock);
    const int rc = clsort__sort_pairs_locked(ctx, keys, values, value_size, n, type, algo, flags);
    pthread_mutex_unlock(&ctx->lock);
    return rc;
}

int clsort_sort_batch(clsort_ctx *ctx, void *keys, size_t n, size_t count, clsort_type type,
                      clsort_algorithm algo, unsigned flags)
{
    if (!ctx)
        return CLSORT_ERR_INVALID_ARG;
    pthread_mutex_lock(&ctx->lock);
    const int rc = clsort__sort_batch_locked(ctx, keys, n, count, type, algo, flags);
    pthread_mutex_unlock(&ctx->lock);
    return rc;
}

int clsort_sort_buffer(clsort_ctx *ctx, cl_mem keys, cl_mem values, size_t value_size, size_t n,
                       clsort_type type, clsort_algorithm algo, unsigned flags, cl_uint num_wait,
                       const cl_event *wait, cl_event *done)
{
    if (done)
        *done = NULL;
    if (!ctx)
        return CLSORT_ERR_INVALID_ARG;
    pthread_mutex_lock(&ctx->lock);
    const int rc = clsort_sort_buffer_locked(ctx, keys, values, value_size, n, type, algo, flags,
                                             num_wait, wait, done);
    pthread_mutex_unlock(&ctx->lock);
    return rc;
}
