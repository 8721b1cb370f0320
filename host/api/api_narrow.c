/* api_narrow.c - the sorts the networks do not take as they are (api_narrow.h): keys of 1 and 2
 * bytes as composites of their order and their bits, and stable sorts in which keys with
 * different bits compare equal (CLSORT_NAN_LARGEST) through their positions. */
#include "api_narrow.h"

#include "api_common.h"
#include "api_sort.h"
#include "keytype.h"
#include "plan.h"
#include "run.h"
#include "schedule.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

int clsort__narrow_needed(clsort_type type, unsigned flags, int pairs)
{
    (void)pairs;
    return clsort__type_narrow(type) ||
           ((flags & CLSORT_STABLE) && clsort__type_collapses(type, flags));
}

int clsort__narrow_topk_needed(clsort_type type, unsigned flags)
{
    return clsort__type_narrow(type) || clsort__type_collapses(type, flags);
}

/* ---- Composites of narrow keys -------------------------------------------------------------
 * A key x of w bits (8 or 16) becomes class << w | x in 32 bits, or with its position p
 * class << (64 - w) | p << w | x in 64 bits, where class is CLSORT_KT_CLASS under the sort's
 * flags (its order, descending folded in, NaNs and zeros collapsed under CLSORT_NAN_LARGEST).
 * Ascending order of the composites is the sort's order, then (64 bits) input order among
 * equal keys, so an unstable sort of them is stable; the low w bits give the key back. */
static uint32_t load_narrow(const unsigned char *p, unsigned w)
{
    if (w == 8)
        return *p;
    uint16_t x;
    memcpy(&x, p, 2);
    return x;
}

static void store_narrow(unsigned char *p, unsigned w, uint64_t x)
{
    if (w == 8) {
        *p = (unsigned char)x;
    } else {
        const uint16_t y = (uint16_t)x;
        memcpy(p, &y, 2);
    }
}

static void widen(const void *keys, size_t n, clsort_type type, unsigned flags, int with_pos,
                  void *out)
{
    const unsigned w = clsort__keytype_of(type).bits, xf = clsort__type_xf(type, flags);
    const unsigned char *b = keys;
    if (with_pos) {
        uint64_t *o = out;
        for (size_t i = 0; i < n; ++i) {
            const uint32_t x = load_narrow(b + i * (w / 8), w);
            const uint64_t c = CLSORT_KT_CLASS(uint32_t, w, x, xf);
            o[i] = c << (64 - w) | (uint64_t)i << w | x;
        }
    } else {
        uint32_t *o = out;
        for (size_t i = 0; i < n; ++i) {
            const uint32_t x = load_narrow(b + i * (w / 8), w);
            o[i] = CLSORT_KT_CLASS(uint32_t, w, x, xf) << w | x;
        }
    }
}

static void narrow_back(void *keys, const void *wide, size_t n, clsort_type type, int with_pos)
{
    const unsigned w = clsort__keytype_of(type).bits;
    unsigned char *b = keys;
    for (size_t i = 0; i < n; ++i)
        store_narrow(b + i * (w / 8), w,
                     with_pos ? ((const uint64_t *)wide)[i] : ((const uint32_t *)wide)[i]);
}

/* Whether the composites need positions: stable pairs, or stable keys whose equal keys may
 * differ in their bits. */
static int needs_positions(clsort_type type, unsigned flags, int pairs)
{
    return (flags & CLSORT_STABLE) && (pairs || clsort__type_collapses(type, flags));
}

/* Composites of n narrow keys in a new array (*wide, *wtype); positions need n within the
 * composite's bits. */
static int make_wide(clsort_ctx *ctx, const char *fn, const void *keys, size_t n,
                     clsort_type type, unsigned flags, int with_pos, void **wide,
                     clsort_type *wtype)
{
    const unsigned w = clsort__keytype_of(type).bits;
    if (with_pos && (uint64_t)n > (UINT64_MAX >> (2 * w)))
        return clsort__fail(ctx, CLSORT_ERR_UNSUPPORTED,
                            "%s: stable sorts of %zu %s keys (at most 2^%u)", fn, n,
                            clsort_type_name(type), 64 - 2 * w);
    *wtype = with_pos ? CLSORT_U64 : CLSORT_U32;
    *wide = malloc((n ? n : 1) * (with_pos ? 8 : 4));
    if (!*wide)
        return clsort__fail(ctx, CLSORT_ERR_OUT_OF_MEMORY, "%s: out of host memory (%zu %s keys "
                            "widened)", fn, n, clsort_type_name(type));
    widen(keys, n, type, flags, with_pos, *wide);
    return CLSORT_OK;
}

/* ---- Input order among keys that compare equal ---------------------------------------------- */
static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int same_key(const unsigned char *a, const unsigned char *b, size_t ks, unsigned xf)
{
    if (ks == 4) {
        uint32_t x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        return CLSORT_KT_SAME(uint32_t, 32, x, y, xf);
    }
    uint64_t x, y;
    memcpy(&x, a, 8);
    memcpy(&y, b, 8);
    return CLSORT_KT_SAME(uint64_t, 64, x, y, xf);
}

/* sorted: n keys sorted by a refinement of the order xf gives (the NaN-largest rotation, in which
 * keys that compare equal lie next to each other), pos their input positions. Puts each run of
 * keys that compare equal back in input order, then writes keys (and values, vs bytes each, or
 * none) from the unsorted copies in that order. A run that crosses from one segment into the
 * next keeps each segment's keys in it: every position of the first lies below every one of the
 * second. */
static void restore_order(unsigned char *sorted, uint64_t *pos, size_t n, size_t ks, unsigned xf,
                          unsigned char *keys, unsigned char *values, const unsigned char *vcopy,
                          size_t vs)
{
    for (size_t a = 0; a < n;) {
        size_t b = a + 1;
        while (b < n && same_key(sorted + b * ks, sorted + a * ks, ks, xf))
            ++b;
        if (b - a > 1)
            qsort(pos + a, b - a, sizeof *pos, cmp_u64);
        a = b;
    }
    for (size_t i = 0; i < n; ++i)
        memcpy(sorted + i * ks, keys + pos[i] * ks, ks);
    memcpy(keys, sorted, n * ks);
    for (size_t i = 0; vs && i < n; ++i)
        memcpy(values + i * vs, vcopy + pos[i] * vs, vs);
}

/* The copies stable sorts by position need: the keys to sort, their positions (0 .. n-1) and
 * the values. */
typedef struct by_position {
    unsigned char *kcopy, *vcopy;
    uint64_t *pos;
} by_position;

static int by_position_alloc(clsort_ctx *ctx, by_position *bp, const void *keys,
                             const void *values, size_t n, size_t ks, size_t vs)
{
    bp->kcopy = malloc(n * ks + 1);
    bp->pos = malloc(n * sizeof *bp->pos + 1);
    bp->vcopy = vs ? malloc(n * vs) : NULL;
    if (!bp->kcopy || !bp->pos || (vs && !bp->vcopy)) {
        free(bp->kcopy);
        free(bp->pos);
        free(bp->vcopy);
        return clsort__fail(ctx, CLSORT_ERR_OUT_OF_MEMORY, "out of host memory (stable sort)");
    }
    memcpy(bp->kcopy, keys, n * ks);
    if (vs)
        memcpy(bp->vcopy, values, n * vs);
    for (size_t i = 0; i < n; ++i)
        bp->pos[i] = i;
    return CLSORT_OK;
}

static void by_position_free(by_position *bp)
{
    free(bp->kcopy);
    free(bp->pos);
    free(bp->vcopy);
}

/* ---- Host arrays ---------------------------------------------------------------------------- */
int clsort__narrow_sort(clsort_ctx *ctx, void *keys, void *values, size_t value_size, size_t n,
                        size_t count, clsort_type type, clsort_algorithm algo, unsigned flags)
{
    static const char fn[] = "clsort_sort";
    const size_t vs = values ? value_size : 0, ks = clsort_type_size(type);
    const unsigned inner = flags & CLSORT_NO_HOST_FALLBACK;
    int rc;
    if (clsort__type_narrow(type)) {
        const int with_pos = needs_positions(type, flags, values != NULL);
        void *wide = NULL;
        clsort_type wtype;
        rc = make_wide(ctx, fn, keys, n * count, type, flags, with_pos, &wide, &wtype);
        if (rc != CLSORT_OK)
            return rc;
        if (count > 1)
            rc = clsort__sort_batch_locked(ctx, wide, n, count, wtype, algo, inner);
        else if (values)
            rc = clsort__sort_pairs_locked(ctx, wide, values, vs, n, wtype, algo, inner);
        else
            rc = clsort__sort_locked(ctx, wide, n, wtype, algo, inner);
        if (rc == CLSORT_OK)
            narrow_back(keys, wide, n * count, type, with_pos);
        free(wide);
        return rc;
    }
    /* Stable under CLSORT_NAN_LARGEST: the keys with their positions, unstable, then each run
     * of equal keys back in input order. The device holds the keys and 8-byte positions:
     * sizes no buffer can hold fail before the host copies are made. */
    if (n * ks > ctx->dev.max_alloc || n * sizeof(uint64_t) > ctx->dev.max_alloc)
        return clsort__fail(ctx, CLSORT_ERR_OUT_OF_MEMORY,
                            "%s: %zu keys with positions need %zu bytes in one buffer, more "
                            "than CL_DEVICE_MAX_MEM_ALLOC_SIZE (%llu bytes) of %s",
                            fn, n, n * sizeof(uint64_t), (unsigned long long)ctx->dev.max_alloc,
                            ctx->dev.name);
    by_position bp;
    rc = by_position_alloc(ctx, &bp, keys, values, n, ks, vs);
    if (rc != CLSORT_OK)
        return rc;
    rc = clsort__sort_pairs_locked(ctx, bp.kcopy, bp.pos, 8, n, type, algo,
                                   flags & ~CLSORT_STABLE);
    if (rc == CLSORT_OK)
        restore_order(bp.kcopy, bp.pos, n, ks, clsort__type_xf(type, flags), keys, values,
                      bp.vcopy, vs);
    by_position_free(&bp);
    return rc;
}

int clsort__narrow_segments(clsort_ctx *ctx, void *keys, void *values, size_t value_size,
                            const uint64_t *offsets, size_t nseg, clsort_type type,
                            clsort_algorithm algo, unsigned flags)
{
    static const char fn[] = "clsort_sort_segments";
    const uint64_t lo = offsets[0], total = offsets[nseg] - lo;
    const size_t ks = clsort_type_size(type), vs = values ? value_size : 0;
    unsigned char *k = (unsigned char *)keys + lo * ks;
    unsigned char *v = values ? (unsigned char *)values + lo * vs : NULL;
    uint64_t *off = malloc((nseg + 1) * sizeof *off);
    if (!off)
        return clsort__fail(ctx, CLSORT_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    for (size_t i = 0; i <= nseg; ++i)
        off[i] = offsets[i] - lo;
    int rc;
    if (clsort__type_narrow(type)) {
        const int with_pos = needs_positions(type, flags, values != NULL);
        void *wide = NULL;
        clsort_type wtype;
        rc = make_wide(ctx, fn, k, total, type, flags, with_pos, &wide, &wtype);
        if (rc == CLSORT_OK)
            rc = clsort__sort_segments_locked(ctx, wide, v, vs, off, nseg, wtype, algo,
                                              flags & CLSORT_NO_HOST_FALLBACK);
        if (rc == CLSORT_OK)
            narrow_back(k, wide, total, type, with_pos);
        free(wide);
    } else {
        by_position bp;
        rc = by_position_alloc(ctx, &bp, k, v, total, ks, vs);
        if (rc == CLSORT_OK) {
            rc = clsort__sort_segments_locked(ctx, bp.kcopy, bp.pos, 8, off, nseg, type, algo,
                                              flags & ~CLSORT_STABLE);
            if (rc == CLSORT_OK)
                restore_order(bp.kcopy, bp.pos, total, ks, clsort__type_xf(type, flags), k, v,
                              bp.vcopy, vs);
            by_position_free(&bp);
        }
    }
    free(off);
    return rc;
}

/* Top-k through the keys' classes (CLSORT_KT_CLASS, ascending; 32 bits for keys up to 32 bits,
 * else 64): keys that compare equal have equal classes, so the top-k of the classes with their
 * indices (lower index first among equals) selects exactly the keys, which come from the input
 * by index, bits and all. */
int clsort__narrow_topk(clsort_ctx *ctx, const void *keys, const void *values, size_t value_size,
                        size_t n, size_t rows, size_t k, clsort_type type, unsigned flags,
                        void *out_keys, void *out_values)
{
    const clsort__keytype t = clsort__keytype_of(type);
    const unsigned xf = clsort__type_xf(type, flags & ~CLSORT_DESCENDING);
    const size_t ks = t.bits / 8, cs = t.bits == 64 ? 8 : 4, total = rows * n;
    unsigned char *cls = malloc(total * cs + 1), *ocls = malloc(rows * k * cs + 1);
    uint64_t *idx = malloc(rows * k * sizeof *idx + 1);
    int rc = CLSORT_OK;
    if (!cls || !ocls || !idx)
        CLSORT__CHECK(clsort__fail(ctx, CLSORT_ERR_OUT_OF_MEMORY, "clsort_topk: out of host "
                                   "memory (%zu keys' classes)", total));
    const unsigned char *kb = keys;
    for (size_t i = 0; i < total; ++i) {
        if (t.bits == 64) {
            uint64_t x;
            memcpy(&x, kb + 8 * i, 8);
            const uint64_t c = CLSORT_KT_CLASS(uint64_t, 64, x, xf);
            memcpy(cls + 8 * i, &c, 8);
        } else {
            uint32_t x = 0;
            if (t.bits == 32)
                memcpy(&x, kb + 4 * i, 4);
            else
                x = load_narrow(kb + ks * i, t.bits);
            const uint32_t c = CLSORT_KT_CLASS(uint32_t, t.bits, x, xf);
            memcpy(cls + 4 * i, &c, 4);
        }
    }
    CLSORT__CHECK(clsort__topk_locked(ctx, cls, NULL, 8, n, rows, k,
                                      cs == 8 ? CLSORT_U64 : CLSORT_U32,
                                      flags & (CLSORT_DESCENDING | CLSORT_NO_HOST_FALLBACK), ocls,
                                      idx));
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

/* ---- Device buffers, through host memory ---------------------------------------------------- */

/* Reads bytes of buf from offset into a new host array (*host), after the wait list. */
static int read_into(clsort_ctx *ctx, cl_mem buf, size_t offset, size_t bytes, void **host,
                     cl_uint num_wait, const cl_event *wait)
{
    *host = malloc(bytes ? bytes : 1);
    if (!*host)
        return clsort__fail(ctx, CLSORT_ERR_OUT_OF_MEMORY, "out of host memory (%zu bytes of a "
                            "buffer)", bytes);
    if (!bytes)
        return clsort__enqueue_nothing(ctx, num_wait, wait, NULL);
    const cl_int err = clEnqueueReadBuffer(ctx->queue, buf, CL_TRUE, offset, bytes, *host,
                                           num_wait, wait, NULL);
    return err == CL_SUCCESS ? CLSORT_OK
                             : clsort__cl_fail(ctx, err, "clEnqueueReadBuffer", "narrow keys");
}

static int write_from(clsort_ctx *ctx, cl_mem buf, size_t offset, size_t bytes, const void *host)
{
    if (!bytes)
        return CLSORT_OK;
    const cl_int err =
        clEnqueueWriteBuffer(ctx->queue, buf, CL_TRUE, offset, bytes, host, 0, NULL, NULL);
    return err == CL_SUCCESS ? CLSORT_OK
                             : clsort__cl_fail(ctx, err, "clEnqueueWriteBuffer", "narrow keys");
}

/* Narrow keys in the caller's buffer, unstable, on the device: the network's plan for u32 keys
 * with the widening and narrowing steps (narrow.cl) around it, on composites in a buffer of
 * the run's own (released at once: OpenCL frees it when the launches that use it complete). */
static int sort_buffer_on_device(clsort_ctx *ctx, cl_mem keys, cl_mem values, size_t value_size,
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
    cl_int err;
    cl_mem wide = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, n * 4, NULL, &err);
    if (err != CL_SUCCESS)
        return clsort__cl_fail(ctx, err, "clCreateBuffer", "widened keys");
    clsort__plan plan;
    clsort__plan_sort(ctx, n, 1, CLSORT_U32, algo, 0, values ? value_size : 0, &plan);
    plan.narrow_bits = clsort__keytype_of(type).bits;
    plan.narrow_xf = clsort__type_xf(type, flags);
    clsort__run run;
    int rc = clsort__run_begin(ctx, &plan, wide, values, num_wait, wait, done, NULL, &run);
    run.narrow = keys;
    if (rc == CLSORT_OK && !plan.empty)
        rc = clsort__run_schedule(&run, clsort__schedule);
    rc = clsort__run_end(&run, rc);
    clReleaseMemObject(wide);
    return rc;
}

int clsort__narrow_sort_buffer(clsort_ctx *ctx, cl_mem keys, cl_mem values, size_t value_size,
                               size_t n, clsort_type type, clsort_algorithm algo, unsigned flags,
                               cl_uint num_wait, const cl_event *wait, cl_event *done)
{
    if (clsort__type_narrow(type) && !(flags & CLSORT_STABLE))
        return sort_buffer_on_device(ctx, keys, values, value_size, n, type, algo, flags,
                                     num_wait, wait, done);
    const size_t ks = clsort_type_size(type), vs = values ? value_size : 0;
    void *hk = NULL, *hv = NULL;
    int rc = read_into(ctx, keys, 0, n * ks, &hk, num_wait, wait);
    if (rc == CLSORT_OK && values)
        rc = read_into(ctx, values, 0, n * vs, &hv, 0, NULL);
    if (rc == CLSORT_OK && n > 1)
        rc = clsort__narrow_sort(ctx, hk, hv, vs, n, 1, type, algo, flags);
    if (rc == CLSORT_OK)
        rc = write_from(ctx, keys, 0, n * ks, hk);
    if (rc == CLSORT_OK && values)
        rc = write_from(ctx, values, 0, n * vs, hv);
    if (rc == CLSORT_OK)
        rc = clsort__enqueue_nothing(ctx, 0, NULL, done);
    free(hk);
    free(hv);
    return rc;
}

int clsort__narrow_segments_buffer(clsort_ctx *ctx, cl_mem keys, cl_mem values,
                                   size_t value_size, cl_mem offsets, size_t nseg, uint64_t cap,
                                   clsort_type type, clsort_algorithm algo, unsigned flags,
                                   cl_uint num_wait, const cl_event *wait, cl_event *done)
{
    const size_t ks = clsort_type_size(type), vs = values ? value_size : 0;
    void *ho = NULL, *hk = NULL, *hv = NULL;
    int rc = read_into(ctx, offsets, 0, (nseg + 1) * sizeof(uint64_t), &ho, num_wait, wait);
    uint64_t *off = ho;
    if (rc == CLSORT_OK) {
        /* The kernels' clamping (clsort.h): bounds within [off[0], min(off[nseg], cap)); a
         * segment that ends below its start is empty (here: the bounds made non-decreasing). */
        const uint64_t lo = off[0] < cap ? off[0] : cap;
        const uint64_t hi = off[nseg] < lo ? lo : off[nseg] > cap ? cap : off[nseg];
        for (size_t i = 0; i <= nseg; ++i) {
            uint64_t b = off[i] < lo ? lo : off[i] > hi ? hi : off[i];
            off[i] = i == 0 ? lo : i == nseg ? hi : b < off[i - 1] ? off[i - 1] : b;
        }
        rc = read_into(ctx, keys, lo * ks, (hi - lo) * ks, &hk, 0, NULL);
        if (rc == CLSORT_OK && values)
            rc = read_into(ctx, values, lo * vs, (hi - lo) * vs, &hv, 0, NULL);
        for (size_t i = 0; rc == CLSORT_OK && i <= nseg; ++i)
            off[i] -= lo;
        if (rc == CLSORT_OK)
            rc = clsort__narrow_segments(ctx, hk, hv, vs, off, nseg, type, algo, flags);
        if (rc == CLSORT_OK)
            rc = write_from(ctx, keys, lo * ks, (hi - lo) * ks, hk);
        if (rc == CLSORT_OK && values)
            rc = write_from(ctx, values, lo * vs, (hi - lo) * vs, hv);
    }
    if (rc == CLSORT_OK)
        rc = clsort__enqueue_nothing(ctx, 0, NULL, done);
    free(ho);
    free(hk);
    free(hv);
    return rc;
}

int clsort__narrow_topk_buffer(clsort_ctx *ctx, cl_mem keys, cl_mem values, size_t value_size,
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
                 : read_into(ctx, keys, 0, rows * n * ks, &hk, num_wait, wait);
    if (rc == CLSORT_OK && values)
        rc = read_into(ctx, values, 0, rows * n * value_size, &hv, 0, NULL);
    if (rc == CLSORT_OK)
        rc = clsort__narrow_topk(ctx, hk, hv, value_size, n, rows, k, type, flags, ok, ov);
    if (rc == CLSORT_OK)
        rc = write_from(ctx, out_keys, 0, rows * k * ks, ok);
    if (rc == CLSORT_OK && out_values)
        rc = write_from(ctx, out_values, 0, rows * k * value_size, ov);
    if (rc == CLSORT_OK)
        rc = clsort__enqueue_nothing(ctx, 0, NULL, done);
    free(hk);
    free(hv);
    free(ok);
    free(ov);
    return rc;
}
