/* narrow_keys.c - what the sorts the networks do not take as they are share (narrow_keys.h): the
 * composites of keys of 1 and 2 bytes, input order among keys that compare equal under
 * CLSORT_NAN_LARGEST, the keys' classes for top-k, and buffers through host memory. */
#include "narrow_keys.h"

#include "dispatch.h"
#include "keytype.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

int clsort__narrow_needed(clsort_type type, unsigned flags)
{
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

void clsort__narrow_back(void *keys, const void *wide, size_t n, clsort_type type, int with_pos)
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

int clsort__narrow_widen(clsort_ctx *ctx, const char *fn, const void *keys, size_t n,
                         clsort_type type, unsigned flags, int pairs, void **wide,
                         clsort_type *wtype, int *positions)
{
    const unsigned w = clsort__keytype_of(type).bits;
    const int with_pos = needs_positions(type, flags, pairs);
    *positions = with_pos;
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
void clsort__restore_order(unsigned char *sorted, uint64_t *pos, size_t n, size_t ks, unsigned xf,
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

int clsort__by_position_alloc(clsort_ctx *ctx, clsort__by_position *bp, const void *keys,
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

void clsort__by_position_free(clsort__by_position *bp)
{
    free(bp->kcopy);
    free(bp->pos);
    free(bp->vcopy);
}

/* ---- Classes -------------------------------------------------------------------------------- */
int clsort__narrow_classes(clsort_ctx *ctx, const char *fn, const void *keys, size_t total,
                           clsort_type type, unsigned flags, void **cls, clsort_type *ctype)
{
    const clsort__keytype t = clsort__keytype_of(type);
    const unsigned xf = clsort__type_xf(type, flags & ~CLSORT_DESCENDING);
    const size_t ks = t.bits / 8, cs = t.bits == 64 ? 8 : 4;
    unsigned char *c = malloc(total * cs + 1);
    *cls = c;
    *ctype = cs == 8 ? CLSORT_U64 : CLSORT_U32;
    if (!c)
        return clsort__fail(ctx, CLSORT_ERR_OUT_OF_MEMORY, "%s: out of host memory (%zu keys' "
                            "classes)", fn, total);
    const unsigned char *kb = keys;
    for (size_t i = 0; i < total; ++i) {
        if (t.bits == 64) {
            uint64_t x;
            memcpy(&x, kb + 8 * i, 8);
            const uint64_t y = CLSORT_KT_CLASS(uint64_t, 64, x, xf);
            memcpy(c + 8 * i, &y, 8);
        } else {
            uint32_t x = 0;
            if (t.bits == 32)
                memcpy(&x, kb + 4 * i, 4);
            else
                x = load_narrow(kb + ks * i, t.bits);
            const uint32_t y = CLSORT_KT_CLASS(uint32_t, t.bits, x, xf);
            memcpy(c + 4 * i, &y, 4);
        }
    }
    return CLSORT_OK;
}

/* ---- Device buffers, through host memory ---------------------------------------------------- */

int clsort__read_into(clsort_ctx *ctx, cl_mem buf, size_t offset, size_t bytes, void **host,
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

int clsort__write_from(clsort_ctx *ctx, cl_mem buf, size_t offset, size_t bytes,
                       const void *host)
{
    if (!bytes)
        return CLSORT_OK;
    const cl_int err =
        clEnqueueWriteBuffer(ctx->queue, buf, CL_TRUE, offset, bytes, host, 0, NULL, NULL);
    return err == CL_SUCCESS ? CLSORT_OK
                             : clsort__cl_fail(ctx, err, "clEnqueueWriteBuffer", "narrow keys");
}
