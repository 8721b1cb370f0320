/* dispatch_narrow.c - the sorts the networks do not take as they are (narrow_keys.h): keys of 1
 * and 2 bytes widened to composites, on the device where unstable (the widening and narrowing
 * steps around the network's plan) or through host composites, and CLSORT_STABLE where
 * CLSORT_NAN_LARGEST makes different bits equal (the keys with their positions). */
#include "dispatch_narrow.h"

#include "dispatch.h"
#include "dispatch_path.h"
#include "keytype.h"
#include "narrow_keys.h"
#include "plan.h"
#include "run.h"
#include "schedule.h"
#include "scratch.h"
#include "transfer.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* Unstable narrow keys of a host array on the device: they travel as they are (1 or 2 bytes a
 * key, not the composites' 4) into scratch 0 (values into scratch 1),
 * clsort__narrow_sort_buffer widens, sorts and narrows them there, and they come back.
 * Blocking; on failure the arrays are as they were unless the read-back itself failed part-way
 * (clsort_sort's exception). */
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
    CLSORT__CHECK(clsort__narrow_sort_buffer(ctx, ctx->scratch[0],
                                             values ? ctx->scratch[1] : NULL, vs, n, type, algo,
                                             flags, 0, NULL, NULL));
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

/* Narrow keys (narrow_keys.c's composites, sorted as u32 or u64), and CLSORT_STABLE where
 * CLSORT_NAN_LARGEST makes different bits equal: the keys with their positions, unstable, then
 * each run of equal keys put back in input order. `count` arrays of n keys (count > 1: keys
 * alone, not stable). Arguments checked. */
int clsort__narrow_sort(clsort_ctx *ctx, void *keys, void *values, size_t value_size, size_t n,
                        size_t count, clsort_type type, clsort_algorithm algo, unsigned flags)
{
    static const char fn[] = "clsort_sort";
    const size_t vs = values ? value_size : 0, ks = clsort_type_size(type);
    const unsigned inner = flags & CLSORT_NO_HOST_FALLBACK;
    int rc;
    if (clsort__type_narrow(type) && count == 1 && !(flags & CLSORT_STABLE) &&
        !clsort__use_host(ctx, n, algo, flags))
        return narrow_device_sort(ctx, keys, values, vs, n, type, algo, flags);
    if (clsort__type_narrow(type)) {
        int with_pos = 0;
        void *wide = NULL;
        clsort_type wtype;
        rc = clsort__narrow_widen(ctx, fn, keys, n * count, type, flags, values != NULL, &wide,
                                  &wtype, &with_pos);
        if (rc != CLSORT_OK)
            return rc;
        /* The composites need neither composites nor positions of their own: the plain paths. */
        if (count > 1)
            rc = clsort__sort_batch_timed(ctx, wide, n, count, wtype, algo, inner);
        else
            rc = clsort__sort_any(ctx, wide, values, vs, n, wtype, algo, inner);
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
    rc = clsort__sort_any(ctx, bp.kcopy, bp.pos, 8, n, type, algo, flags & ~CLSORT_STABLE);
    if (rc == CLSORT_OK)
        clsort__restore_order(bp.kcopy, bp.pos, n, ks, clsort__type_xf(type, flags), keys, values,
                      bp.vcopy, vs);
    clsort__by_position_free(&bp);
    return rc;
}

/* Narrow keys in the caller's buffer, unstable, on the device: the network's plan for u32 keys
 * with the widening and narrowing steps (narrow.cl) around it, on composites in the context's
 * scratch slot for composites. */
int clsort__narrow_sort_buffer(clsort_ctx *ctx, cl_mem keys, cl_mem values, size_t value_size,
                               size_t n, clsort_type type, clsort_algorithm algo, unsigned flags,
                               cl_uint num_wait, const cl_event *wait, cl_event *done)
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
