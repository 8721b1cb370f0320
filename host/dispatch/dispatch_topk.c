/* dispatch_topk.c - the top-k calls once the API has checked their arguments (dispatch.h): the
 * transfers of host rows and results, narrow keys and CLSORT_NAN_LARGEST through the keys'
 * classes, and the device work as for every sort: a top-k plan (plan.c), its schedule
 * (schedule.c), run.c's launches. */
#include "dispatch.h"

#include "narrow_keys.h"
#include "plan.h"
#include "run.h"
#include "schedule.h"
#include "scratch.h"
#include "transfer.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* Enqueues the top-k of rows of n keys in `keys` (and the values in `values`, NULL for none)
 * after the wait list, the first k of each row to out_keys (and out_values, NULL for none):
 * its plan, its schedule, its run, as for every sort. *done (if not NULL) gets the last event. */
static int enqueue_topk(clsort_ctx *ctx, cl_mem keys, cl_mem values, size_t value_size, size_t n,
                        size_t rows, size_t k, clsort_type type, unsigned flags, cl_mem out_keys,
                        cl_mem out_values, cl_uint num_wait, const cl_event *wait,
                        cl_event *done)
{
    clsort__topk_desc d;
    memset(&d, 0, sizeof d);
    d.type = type;
    d.flags = flags;
    d.value_size = values ? value_size : 0; /* the values carried with the items */
    d.out = !out_values ? 0 : values ? 1 : (int)value_size;
    d.n = n;
    d.rows = rows;
    d.k = k;
    clsort__plan plan;
    clsort__plan_topk(ctx, &d, &plan);
    clsort__run run;
    int rc = clsort__run_begin_topk(ctx, &plan, keys, values, out_keys, out_values, num_wait,
                                    wait, done, &run);
    if (rc == CLSORT_OK)
        rc = clsort__run_schedule(&run, clsort__schedule);
    return clsort__run_end(&run, rc);
}

static int narrow_topk(clsort_ctx *ctx, const void *keys, const void *values, size_t value_size,
                       size_t n, size_t rows, size_t k, clsort_type type, unsigned flags,
                       void *out_keys, void *out_values);

/* Rows checked, at least one. */
int clsort__dispatch_topk(clsort_ctx *ctx, const void *keys, const void *values, size_t value_size,
                          size_t n, size_t rows, size_t k, clsort_type type, unsigned flags,
                          void *out_keys, void *out_values)
{
    int rc = CLSORT_OK;
    const size_t ks = clsort_type_size(type);
    /* Values are read only when they have somewhere to go. */
    if (!out_values)
        values = NULL;
    if (clsort__narrow_topk_needed(type, flags))
        return narrow_topk(ctx, keys, values, value_size, n, rows, k, type, flags,
                                   out_keys, out_values);
    const size_t vs = value_size;
    cl_mem outk = NULL, outv = NULL;
    cl_int err;
    CLSORT__CHECK(clsort__ensure_scratch(ctx, 0, rows * n * ks));
    if (values)
        CLSORT__CHECK(clsort__ensure_scratch(ctx, 1, rows * n * vs));
    outk = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, rows * k * ks, NULL, &err);
    CLSORT__CL_CHECK(ctx, err, "clCreateBuffer", "top-k keys");
    if (out_values) {
        outv = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, rows * k * vs, NULL, &err);
        CLSORT__CL_CHECK(ctx, err, "clCreateBuffer", "top-k values");
    }
    ctx->stats.pinned_source = clsort__in_pinned(ctx, keys, rows * n * ks) &&
                               (!values || clsort__in_pinned(ctx, values, rows * n * vs));
    CLSORT__CHECK(clsort__upload(ctx, ctx->scratch[0], 0, keys, rows * n * ks));
    if (values)
        CLSORT__CHECK(clsort__upload(ctx, ctx->scratch[1], 0, values, rows * n * vs));
    CLSORT__CHECK(enqueue_topk(ctx, ctx->scratch[0], values ? ctx->scratch[1] : NULL,
                               value_size, n, rows, k, type, flags, outk, outv, 0, NULL, NULL));
    err = clFinish(ctx->queue);
    CLSORT__CL_CHECK(ctx, err, "clFinish", "top-k kernels");
    CLSORT__CHECK(clsort__transfer_settle(ctx));
    int touched = 0;
    CLSORT__CHECK(clsort__download(ctx, outk, 0, out_keys, rows * k * ks, &touched));
    if (out_values)
        CLSORT__CHECK(clsort__download(ctx, outv, 0, out_values, rows * k * vs, &touched));
    rc = clsort__transfer_settle(ctx);
fail:
    if (rc != CLSORT_OK) {
        clFinish(ctx->queue);
        clsort__transfer_settle(ctx);
    }
    if (outk)
        clReleaseMemObject(outk);
    if (outv)
        clReleaseMemObject(outv);
    return rc;
}

/* Top-k through the keys' classes (narrow_keys.c; CLSORT_KT_CLASS, ascending): keys that compare
 * equal have equal classes, so the top-k of the classes with their indices (lower index first
 * among equals) selects exactly the keys, which come from the input by index, bits and all.
 * Arguments checked; values NULL unless out_values. */
static int narrow_topk(clsort_ctx *ctx, const void *keys, const void *values, size_t value_size,
                       size_t n, size_t rows, size_t k, clsort_type type, unsigned flags,
                       void *out_keys, void *out_values)
{
    const size_t ks = clsort_type_size(type), total = rows * n;
    void *cls = NULL;
    clsort_type ctype;
    unsigned char *ocls = malloc(rows * k * 8 + 1);
    uint64_t *idx = malloc(rows * k * sizeof *idx + 1);
    int rc = CLSORT_OK;
    if (!ocls || !idx)
        CLSORT__CHECK(clsort__fail(ctx, CLSORT_ERR_OUT_OF_MEMORY, "clsort_topk: out of host "
                                   "memory (%zu indices)", rows * k));
    CLSORT__CHECK(clsort__narrow_classes(ctx, "clsort_topk", keys, total, type, flags, &cls,
                                         &ctype));
    CLSORT__CHECK(clsort__dispatch_topk(ctx, cls, NULL, 8, n, rows, k, ctype,
                                        flags & (CLSORT_DESCENDING | CLSORT_NO_HOST_FALLBACK),
                                        ocls, idx));
    const unsigned char *kb = keys;
    for (size_t r = 0; r < rows; ++r)
        for (size_t j = 0; j < k; ++j) {
            const size_t o = r * k + j, from = r * n + (size_t)idx[o];
            memcpy((unsigned char *)out_keys + o * ks, kb + from * ks, ks);
            if (out_values && values) {
                memcpy((unsigned char *)out_values + o * value_size,
                       (const unsigned char *)values + from * value_size, value_size);
            } else if (out_values && value_size == 4) {
                const uint32_t x = (uint32_t)idx[o];
                memcpy((unsigned char *)out_values + o * 4, &x, 4);
            } else if (out_values) {
                memcpy((unsigned char *)out_values + o * 8, &idx[o], 8);
            }
        }
fail:
    free(cls);
    free(ocls);
    free(idx);
    return rc;
}

/* The same for the caller's buffers, through host memory (after the wait list); *done completes
 * with the writes. */
static int narrow_topk_buffer(clsort_ctx *ctx, cl_mem keys, cl_mem values, size_t value_size,
                              size_t n, size_t rows, size_t k, clsort_type type, unsigned flags,
                              cl_mem out_keys, cl_mem out_values, cl_uint num_wait,
                              const cl_event *wait, cl_event *done)
{
    const size_t ks = clsort_type_size(type);
    void *hk = NULL, *hv = NULL, *ok = malloc(rows * k * ks + 1),
         *ov = out_values ? malloc(rows * k * value_size + 1) : NULL;
    int rc = !ok || (out_values && !ov)
                 ? clsort__fail(ctx, CLSORT_ERR_OUT_OF_MEMORY, "clsort_topk_buffer: out of host "
                                "memory")
                 : clsort__read_into(ctx, keys, 0, rows * n * ks, &hk, num_wait, wait);
    if (rc == CLSORT_OK && values)
        rc = clsort__read_into(ctx, values, 0, rows * n * value_size, &hv, 0, NULL);
    if (rc == CLSORT_OK)
        rc = narrow_topk(ctx, hk, hv, value_size, n, rows, k, type, flags, ok, ov);
    if (rc == CLSORT_OK)
        rc = clsort__write_from(ctx, out_keys, 0, rows * k * ks, ok);
    if (rc == CLSORT_OK && out_values)
        rc = clsort__write_from(ctx, out_values, 0, rows * k * value_size, ov);
    if (rc == CLSORT_OK)
        rc = clsort__enqueue_nothing(ctx, 0, NULL, done);
    free(hk);
    free(hv);
    free(ok);
    free(ov);
    return rc;
}

int clsort__dispatch_topk_buffer(clsort_ctx *ctx, cl_mem keys, cl_mem values, size_t value_size,
                                 size_t n, size_t rows, size_t k, clsort_type type, unsigned flags,
                                 cl_mem out_keys, cl_mem out_values, cl_uint num_wait,
                                 const cl_event *wait, cl_event *done)
{
    if (rows == 0) /* nothing to select */
        return clsort__enqueue_nothing(ctx, num_wait, wait, done);
    if (clsort__narrow_topk_needed(type, flags))
        return narrow_topk_buffer(ctx, keys, values, value_size, n, rows, k, type, flags,
                                          out_keys, out_values, num_wait, wait, done);
    return enqueue_topk(ctx, keys, values, value_size, n, rows, k, type, flags, out_keys,
                        out_values, num_wait, wait, done);
}

