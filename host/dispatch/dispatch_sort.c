/* dispatch_sort.c - the choices of clsort_sort, clsort_sort_pairs, clsort_sort_batch and
 * clsort_sort_buffer once the API has checked their arguments (dispatch.h): narrow keys and
 * NaN-largest stable sorts to their composites, stable pairs on a network to their positions,
 * the rest to the host-or-device path. */
#include "dispatch.h"

#include "dispatch_narrow.h"
#include "dispatch_path.h"
#include "dispatch_stable.h"
#include "keytype.h"
#include "narrow_keys.h"
#include "run.h"
#include "util.h"

int clsort__dispatch_sort(clsort_ctx *ctx, void *keys, void *values, size_t value_size, size_t n,
                          clsort_type type, clsort_algorithm algo, unsigned flags)
{
    /* Narrow keys, and CLSORT_STABLE where CLSORT_NAN_LARGEST makes different bits equal. */
    if (n > 1 && clsort__narrow_needed(type, flags))
        return clsort__narrow_sort(ctx, keys, values, value_size, n, 1, type, algo, flags);
    /* Otherwise keys that compare equal have identical bits (totalOrder for floats), so a
     * keys-only sort is stable by construction: CLSORT_STABLE needs no work here. */
    if (!values)
        return clsort__sort_any(ctx, keys, NULL, 0, n, type, algo, flags);
    /* The host sort keeps CLSORT_STABLE itself (hostsort.h), and so does the radix sort
     * (explicit, or AUTO's where its buffers can be had): only the networks need the
     * positions. */
    if ((flags & CLSORT_STABLE) && n > 1 && !clsort__use_host(ctx, n, algo, flags)) {
        clsort_algorithm resolved = algo;
        const int rc = clsort__resolve_device_algo(ctx, n, 1, type, value_size, flags, &resolved);
        if (rc != CLSORT_OK)
            return rc;
        if (resolved != CLSORT_RADIX)
            return clsort__stable_pairs(ctx, keys, values, value_size, n, type, algo, flags);
        algo = resolved;
    }
    return clsort__sort_any(ctx, keys, values, value_size, n, type, algo, flags);
}

int clsort__dispatch_sort_batch(clsort_ctx *ctx, void *keys, size_t n, size_t count,
                                clsort_type type, clsort_algorithm algo, unsigned flags)
{
    if (n >= 2 && count > 0 && clsort__narrow_needed(type, flags))
        return clsort__narrow_sort(ctx, keys, NULL, 0, n, count, type, algo, flags);
    return clsort__sort_batch_timed(ctx, keys, n, count, type, algo, flags);
}

int clsort__dispatch_sort_buffer(clsort_ctx *ctx, cl_mem keys, cl_mem values, size_t value_size,
                                 size_t n, clsort_type type, clsort_algorithm algo,
                                 unsigned flags, cl_uint num_wait, const cl_event *wait,
                                 cl_event *done)
{
    int rc;
    const uint64_t t0 = clsort__now_ns();
    clsort__reset_stats(ctx);
    if (clsort__type_narrow(type))
        rc = clsort__narrow_sort_buffer(ctx, keys, values, value_size, n, type, algo, flags,
                                        num_wait, wait, done);
    else
        rc = clsort__enqueue_sort(ctx, keys, values, values ? value_size : 0, n, 1, type, algo,
                                  flags, num_wait, wait, done);
    ctx->stats.total_ns = clsort__now_ns() - t0;
    return rc;
}
