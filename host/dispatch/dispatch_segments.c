/* dispatch_segments.c - the segmented sorts once the API has checked their arguments
 * (dispatch.h): the host fallback for tiny totals, transfers of the host range, and the split of
 * the work: segments up to the tile size go through the segmented passes in one set of launches
 * (a segmented plan: plan.c, schedule.c, run.c, like every sort); larger ones (host variant) are
 * each as large as a normal sort, so they take the normal path (clsort__dispatch_sort), under
 * the API's one hold of the context's lock. Narrow keys and NaN-largest stable sorts go through
 * composites or positions (narrow_keys.h). */
#include "dispatch.h"

#include "hostsort.h"
#include "keytype.h"
#include "narrow_keys.h"
#include "plan.h"
#include "run.h"
#include "schedule.h"
#include "scratch.h"
#include "seg_shape.h"
#include "transfer.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* AUTO inside the segmented passes: bitonic, the fastest of the three at every tile size
 * measured (docs/perf.md); larger segments resolve AUTO by their own size on the normal path. */
static clsort_algorithm seg_algo(clsort_algorithm algo)
{
    return algo == CLSORT_AUTO || algo == CLSORT_RADIX ? CLSORT_BITONIC : algo;
}

/* Enqueues the segmented sort of d on the device buffers after the wait list: its plan, its
 * schedule, its run, as for every sort. Where d is composed (seg_shape.h), the run sorts the
 * composites in scratch 4, with the values' copy in scratch 5, for the caller's keys and vals. */
static int enqueue_segments(clsort_ctx *ctx, const clsort__seg_desc *d, cl_mem keys, cl_mem vals,
                            cl_mem offsets, cl_uint num_wait, const cl_event *wait,
                            cl_event *done)
{
    int rc = CLSORT_OK;
    clsort__composed comp = {keys, vals, NULL};
    if (d->composed) {
        /* cap * 8 fits one allocation (clsort__seg_compose), and value sizes are 4 or 8. */
        rc = clsort__ensure_scratch(ctx, CLSORT__SCRATCH_COMPOSED,
                                    (size_t)d->cap * sizeof(cl_ulong));
        if (rc == CLSORT_OK)
            rc = clsort__ensure_scratch(ctx, CLSORT__SCRATCH_VCOPY,
                                        (size_t)d->cap * d->key32_value_size);
        if (rc != CLSORT_OK)
            return rc;
        comp.vcopy = ctx->scratch[CLSORT__SCRATCH_VCOPY];
        keys = ctx->scratch[CLSORT__SCRATCH_COMPOSED];
        vals = NULL;
    }
    clsort__plan plan;
    clsort__plan_segments(ctx, d, &plan);
    clsort__run run;
    rc = clsort__run_begin_segments(ctx, &plan, keys, vals, offsets,
                                    d->composed ? &comp : NULL, num_wait, wait, done, &run);
    if (rc == CLSORT_OK)
        rc = clsort__run_schedule(&run, clsort__schedule);
    return clsort__run_end(&run, rc);
}

/* Segments of the host variant for each pass of the segmented plan. */
typedef struct seg_counts {
    uint64_t tiny, packed, group, large;
    uint64_t wide;    /* those of 33..64 keys (counted with the packed, or the group) */
    int all64;        /* every segment exactly 64 keys */
    uint64_t longest; /* the longest of the large ones */
    int pack_tiny;    /* the tiny ones counted with the packed (clsort__seg_stage_pays) */
    int stage_wide;   /* the wide ones counted with the tiny (clsort__seg_stage_wide) */
} seg_counts;

/* Uploads [off[0], off[nseg]) and sorts its segments of 2..large_max keys on the device,
 * blocking; writes the range back only when every launch succeeded. Where composed, type and
 * flags are the composites' and key32_type, key32_flags the caller's (seg_shape.h). */
static int device_small(clsort_ctx *ctx, unsigned char *keys, unsigned char *values,
                        size_t value_size, const uint64_t *offsets, size_t nseg, clsort_type type,
                        clsort_algorithm algo, unsigned flags, const seg_counts *c,
                        uint64_t large_max, int composed, clsort_type key32_type,
                        unsigned key32_flags)
{
    int rc = CLSORT_OK;
    const size_t ks = clsort_type_size(composed ? key32_type : type);
    const uint64_t base = offsets[0], total = offsets[nseg] - base;
    uint64_t *rel = malloc((nseg + 1) * sizeof *rel);
    if (!rel)
        return clsort__fail(ctx, CLSORT_ERR_OUT_OF_MEMORY, "out of host memory (segment offsets)");
    for (size_t i = 0; i <= nseg; ++i)
        rel[i] = offsets[i] - base;
    CLSORT__CHECK(clsort__ensure_scratch(ctx, 0, total * ks));
    if (values)
        CLSORT__CHECK(clsort__ensure_scratch(ctx, 1, total * value_size));
    CLSORT__CHECK(clsort__ensure_scratch(ctx, 3, (nseg + 1) * sizeof *rel));
    /* Keys and values travel like clsort_sort's (transfer.h: pinned blocks, pinned staging);
     * the offsets are small and go with one plain write. */
    ctx->stats.pinned_source =
        clsort__in_pinned(ctx, keys + base * ks, total * ks) &&
        (!values || clsort__in_pinned(ctx, values + base * value_size, total * value_size));
    CLSORT__CHECK(clsort__upload(ctx, ctx->scratch[0], 0, keys + base * ks, total * ks));
    if (values)
        CLSORT__CHECK(clsort__upload(ctx, ctx->scratch[1], 0, values + base * value_size,
                                     total * value_size));
    cl_int err = clEnqueueWriteBuffer(ctx->queue, ctx->scratch[3], CL_FALSE, 0,
                                      (nseg + 1) * sizeof *rel, rel, 0, NULL, NULL);
    CLSORT__CL_CHECK(ctx, err, "clEnqueueWriteBuffer", "offsets");
    clsort__seg_desc d;
    memset(&d, 0, sizeof d);
    d.type = type;
    d.value_size = values && !composed ? value_size : 0;
    d.algo = seg_algo(algo);
    d.flags = flags;
    d.nseg = nseg;
    d.cap = total;
    d.max_len = large_max;
    d.tiny_items = c->tiny;
    d.pack_tiny = c->pack_tiny;
    d.stage_wide = c->stage_wide;
    d.pack_groups = c->packed ? clsort__seg_default_groups(ctx, c->packed) : 0;
    d.groups = c->group ? clsort__seg_group_groups(ctx, c->group) : 0;
    d.large_len = c->large ? c->longest : 0;
    d.meta_slot = 2;
    d.gpos_slot = 2; /* unused: stable long segments are not sorted here (seg_large_max) */
    d.composed = composed;
    d.key32_type = key32_type;
    d.key32_flags = key32_flags;
    d.key32_value_size = value_size;
    CLSORT__CHECK(enqueue_segments(ctx, &d, ctx->scratch[0], values ? ctx->scratch[1] : NULL,
                                   ctx->scratch[3], 0, NULL, NULL));
    err = clFinish(ctx->queue);
    CLSORT__CL_CHECK(ctx, err, "clFinish", "segmented sort kernels");
    CLSORT__CHECK(clsort__transfer_settle(ctx));
    int touched = 0;
    CLSORT__CHECK(clsort__download(ctx, ctx->scratch[0], 0, keys + base * ks, total * ks,
                                   &touched));
    if (values)
        CLSORT__CHECK(clsort__download(ctx, ctx->scratch[1], 0, values + base * value_size,
                                       total * value_size, &touched));
    free(rel);
    return clsort__transfer_settle(ctx);
fail:
    clFinish(ctx->queue);
    clsort__transfer_settle(ctx);
    free(rel);
    return rc;
}


/* The ordinary segmented sort of composites or positions, its statistics its own as the
 * public call's were. */
static int segments_timed(clsort_ctx *ctx, void *keys, void *values, size_t value_size,
                          const uint64_t *offsets, size_t nseg, clsort_type type,
                          clsort_algorithm algo, unsigned flags)
{
    const uint64_t t0 = clsort__now_ns();
    clsort__reset_stats(ctx);
    return clsort__dispatch_segments(ctx, keys, values, value_size, offsets, nseg, type, algo,
                                     flags, t0);
}

/* Narrow keys (narrow_keys.c's composites) and CLSORT_STABLE where CLSORT_NAN_LARGEST makes
 * different bits equal (positions, then input order among equals), on the range the offsets
 * cover, through the ordinary segmented sort. Offsets checked and non-decreasing. */
static int narrow_segments(clsort_ctx *ctx, void *keys, void *values, size_t value_size,
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
        int with_pos = 0;
        void *wide = NULL;
        clsort_type wtype;
        rc = clsort__narrow_widen(ctx, fn, k, total, type, flags, values != NULL, &wide, &wtype,
                                  &with_pos);
        if (rc == CLSORT_OK)
            rc = segments_timed(ctx, wide, v, vs, off, nseg, wtype, algo,
                                flags & CLSORT_NO_HOST_FALLBACK);
        if (rc == CLSORT_OK)
            clsort__narrow_back(k, wide, total, type, with_pos);
        free(wide);
    } else {
        clsort__by_position bp;
        rc = clsort__by_position_alloc(ctx, &bp, k, v, total, ks, vs);
        if (rc == CLSORT_OK) {
            rc = segments_timed(ctx, bp.kcopy, bp.pos, 8, off, nseg, type, algo,
                                flags & ~CLSORT_STABLE);
            if (rc == CLSORT_OK)
                clsort__restore_order(bp.kcopy, bp.pos, total, ks, clsort__type_xf(type, flags), k, v,
                              bp.vcopy, vs);
            clsort__by_position_free(&bp);
        }
    }
    free(off);
    return rc;
}


/* The same for the caller's buffers, through host memory (after the wait list), with the
 * kernels' clamping of the offsets; *done completes with the writes. */
static int narrow_segments_buffer(clsort_ctx *ctx, cl_mem keys, cl_mem values, size_t value_size,
                                  cl_mem offsets, size_t nseg, uint64_t cap, clsort_type type,
                                  clsort_algorithm algo, unsigned flags, cl_uint num_wait,
                                  const cl_event *wait, cl_event *done)
{
    const size_t ks = clsort_type_size(type), vs = values ? value_size : 0;
    void *ho = NULL, *hk = NULL, *hv = NULL;
    int rc = clsort__read_into(ctx, offsets, 0, (nseg + 1) * sizeof(uint64_t), &ho, num_wait, wait);
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
        rc = clsort__read_into(ctx, keys, lo * ks, (hi - lo) * ks, &hk, 0, NULL);
        if (rc == CLSORT_OK && values)
            rc = clsort__read_into(ctx, values, lo * vs, (hi - lo) * vs, &hv, 0, NULL);
        for (size_t i = 0; rc == CLSORT_OK && i <= nseg; ++i)
            off[i] -= lo;
        if (rc == CLSORT_OK)
            rc = narrow_segments(ctx, hk, hv, vs, off, nseg, type, algo, flags);
        if (rc == CLSORT_OK)
            rc = clsort__write_from(ctx, keys, lo * ks, (hi - lo) * ks, hk);
        if (rc == CLSORT_OK && values)
            rc = clsort__write_from(ctx, values, lo * vs, (hi - lo) * vs, hv);
    }
    if (rc == CLSORT_OK)
        rc = clsort__enqueue_nothing(ctx, 0, NULL, done);
    free(ho);
    free(hk);
    free(hv);
    return rc;
}


/* The host variant's short segments, arguments checked: the host fallback and the segments up to
 * clsort__seg_large_max. *large_out receives that length when longer remain for the caller,
 * else 0. */
static int segments_small(clsort_ctx *ctx, void *keys, void *values, size_t value_size,
                          const uint64_t *offsets, size_t nseg, clsort_type type,
                          clsort_algorithm algo, unsigned flags, unsigned *large_out)
{
    int rc = CLSORT_OK;
    *large_out = 0;
    if (nseg == 0)
        return CLSORT_OK;
    const uint64_t total = offsets[nseg] - offsets[0];
    const size_t ks = clsort_type_size(type), vs = values ? value_size : 0;
    if (total > 1 && clsort__narrow_needed(type, flags))
        return narrow_segments(ctx, keys, values, value_size, offsets, nseg, type, algo, flags);
    if (!values)
        flags &= ~CLSORT_STABLE; /* keys that compare equal have identical bits */
    unsigned char *k = keys, *v = values;
    if (!(flags & CLSORT_NO_HOST_FALLBACK) &&
        (total <= ctx->host_fallback_max || (algo == CLSORT_AUTO && total <= ctx->host_path_max))) {
        /* A tiny total, or AUTO where the host's own sort wins (clsort__use_host): the host
         * sort per segment beats any launch. */
        for (size_t i = 0; i < nseg && rc == CLSORT_OK; ++i)
            if (offsets[i + 1] - offsets[i] > 1)
                rc = clsort__host_sort(k + offsets[i] * ks, v ? v + offsets[i] * vs : NULL, vs,
                                       offsets[i + 1] - offsets[i], type, flags);
        ctx->stats.host_fallback = 1;
        ctx->stats.algorithm = seg_algo(algo);
        return rc;
    }
    /* Stable pairs of 32-bit keys with AUTO (bitonic here), whose long segments (above 64 keys)
     * hold an eighth of the keys or more: sorted as 64-bit composites alone (seg_shape.h), so
     * every choice below is the composites' (svs: the value size the passes see). Not with an
     * explicit network: the values' fetch by position reads addresses that follow the keys'
     * order, which docs/security.md promises explicit networks never do. */
    uint64_t long_keys = 0;
    for (size_t i = 0; (flags & CLSORT_STABLE) && i < nseg; ++i)
        long_keys += offsets[i + 1] - offsets[i] > 64 ? offsets[i + 1] - offsets[i] : 0;
    const unsigned key32_flags = flags;
    const clsort_type key32_type = type;
    const int composed =
        clsort__seg_compose(ctx, type, vs, flags, total,
                            algo == CLSORT_AUTO && long_keys && long_keys >= total / 8);
    if (composed) {
        type = CLSORT_U64;
        flags &= ~(CLSORT_STABLE | CLSORT_DESCENDING);
    }
    const size_t svs = composed ? 0 : vs;
    const unsigned tile = clsort__seg_tile(ctx, type, svs, (flags & CLSORT_STABLE) != 0);
    int staged = 0;
    const unsigned tiny = clsort__seg_tiny(ctx, type, svs, &staged);
    const int stable = (flags & CLSORT_STABLE) != 0;
    /* The passes' split (plan.c makes the same from the same functions): tiny segments one a
     * work-item, up to the packed tile packed, up to 4096 keys (or, without the large passes,
     * up to large_max) one a work-group, the rest up to large_max in the large passes. */
    const unsigned pack =
        clsort__seg_pack_tile(ctx, type, svs, tiny, stable, seg_algo(algo) == CLSORT_BITONIC);
    const int large_on = !stable && clsort__seg_large_on(ctx, pack);
    const uint64_t large_max =
        large_on ? CLSORT__SEG_LARGE_PASS_MAX : clsort__seg_large_max(ctx, tile, stable);
    const uint64_t group_max = large_on ? CLSORT__SEG_GROUP_MAX : large_max;
    seg_counts c = {.all64 = 1};
    uint64_t nlarge = 0;
    for (size_t i = 0; i < nseg; ++i) {
        const uint64_t len = offsets[i + 1] - offsets[i];
        c.all64 &= len == 64;
        c.tiny += len >= 2 && len <= tiny;
        c.packed += len >= 2 && len > tiny && len <= pack;
        c.wide += len > tiny && len <= 64; /* packed where pack (> 32, so >= 64), else group */
        c.group += len > tiny && len > pack && len <= group_max;
        if (len > group_max && len <= large_max) {
            c.large += 1;
            c.longest = len > c.longest ? len : c.longest;
        }
        nlarge += len > large_max;
    }
    const uint64_t sorted = c.tiny + c.packed + c.group + c.large;
    if (staged == 1 && pack && !clsort__seg_stage_pays(c.tiny, sorted)) {
        /* Except 8-byte elements in segments of exactly 64 keys: the packed pass copies its
         * tiles as spans there (no lookups), and measured a little faster than staged for u32+u32
         * pairs on a GPU, and alike for u64 keys; u32 keys alone are faster staged. */
        const int span64 = c.all64 && clsort_type_size(type) + svs > 4;
        if (tiny == 32 && !span64 && clsort__seg_stage_wide(ctx, type, svs) &&
            clsort__seg_stage_pays(c.tiny + c.wide, sorted)) {
            c.tiny += c.wide; /* staged up to 64 keys; the packed tile is above 64 either way */
            c.packed -= c.wide;
            c.stage_wide = 1;
        } else {
            c.packed += c.tiny; /* the same packed tile: it is above 32 keys either way */
            c.tiny = 0;
            c.pack_tiny = 1;
        }
    } else if (staged == 1 && !pack && tiny == 32 && c.wide &&
               c.wide * (stable ? 64 : 256) >= c.tiny && clsort__seg_stage_wide(ctx, type, svs)) {
        /* The odd-even networks and stable pairs have no packed pass: their segments of 33..64
         * keys would go to the group pass, a work-group each, measured on a GPU ten to thirty
         * times slower than staged for both networks, in segments of 48 and uniform in 1..64.
         * A segment there costs hundreds of times what the 64-slot program's registers cost
         * each shorter one, so from one in 256 on. Stable u32+u32 pairs (keys, values and
         * positions in registers) sort segments of 33..64 keys many times faster staged but
         * segments of 32 slower with 64 slots: a long segment costs tens of times what a short
         * one loses, so from one in 64. */
        c.tiny += c.wide;
        c.group -= c.wide;
        c.stage_wide = 1;
    }
    if (c.tiny || c.packed || c.group || c.large)
        rc = device_small(ctx, k, v, vs, offsets, nseg, type, algo, flags, &c, large_max,
                          composed, key32_type, key32_flags);
    if (rc == CLSORT_OK && nlarge)
        *large_out = (unsigned)large_max;
    return rc;
}

/* The statistics so far, with the device time of the last sort's events. */
static clsort_stats stats_now(clsort_ctx *ctx)
{
    clsort_stats s = ctx->stats;
    if (ctx->stat_last) {
        clWaitForEvents(1, &ctx->stat_last);
        s.device_ns = clsort__event_span_ns(ctx->stat_first, ctx->stat_last);
    }
    return s;
}

int clsort__dispatch_segments(clsort_ctx *ctx, void *keys, void *values, size_t value_size,
                              const uint64_t *offsets, size_t nseg, clsort_type type,
                              clsort_algorithm algo, unsigned flags, uint64_t t0)
{
    unsigned tile = 0;
    int rc = segments_small(ctx, keys, values, value_size, offsets, nseg, type, algo, flags,
                            &tile);
    clsort_stats sum = stats_now(ctx);
    if (rc != CLSORT_OK || !tile) {
        if (rc == CLSORT_OK || ctx->stats.launches)
            ctx->stats.total_ns = clsort__now_ns() - t0;
        return rc;
    }
    /* Segments above the tile: each is a sort of its own, as fast as clsort_sort makes it (one
     * segment covering everything is exactly clsort_sort), through the same internal calls. */
    const size_t ks = clsort_type_size(type);
    unsigned char *k = keys, *v = values;
    for (size_t i = 0; i < nseg && rc == CLSORT_OK; ++i) {
        const uint64_t len = offsets[i + 1] - offsets[i];
        if (len <= tile)
            continue;
        rc = v ? clsort__dispatch_sort(ctx, k + offsets[i] * ks, v + offsets[i] * value_size,
                                       value_size, len, type, algo, flags)
               : clsort__dispatch_sort(ctx, k + offsets[i] * ks, NULL, 0, len, type, algo,
                                       flags & ~CLSORT_STABLE);
        if (rc == CLSORT_OK) {
            const clsort_stats one = stats_now(ctx);
            sum.launches += one.launches;
            sum.global_passes += one.global_passes;
            sum.device_ns += one.device_ns;
            sum.host_fallback |= one.host_fallback;
        }
    }
    if (rc == CLSORT_OK) {
        clsort__reset_stats(ctx);
        ctx->stats = sum;
        ctx->stats.algorithm = seg_algo(algo);
    }
    ctx->stats.total_ns = clsort__now_ns() - t0;
    return rc;
}

int clsort__dispatch_segments_buffer(clsort_ctx *ctx, cl_mem keys, cl_mem values,
                                     size_t value_size, cl_mem offsets, size_t nseg, uint64_t cap,
                                     clsort_type type, clsort_algorithm algo, unsigned flags,
                                     cl_uint num_wait, const cl_event *wait, cl_event *done)
{
    size_t vs = values ? value_size : 0; /* 0 where composed */
    if (nseg == 0) /* nothing to sort */
        return clsort__enqueue_nothing(ctx, num_wait, wait, done);
    if (clsort__narrow_needed(type, flags))
        return narrow_segments_buffer(ctx, keys, values, value_size, offsets, nseg, cap,
                                              type, algo, flags, num_wait, wait, done);
    if (!values)
        flags &= ~CLSORT_STABLE;
    clsort__seg_desc d;
    memset(&d, 0, sizeof d);
    /* Stable pairs of 32-bit keys with AUTO at a mean above 64 keys: composed, as in the host
     * variant (which counts the keys in long segments; here only the mean is known). */
    d.composed = clsort__seg_compose(ctx, type, vs, flags, cap,
                                     algo == CLSORT_AUTO && cap > (uint64_t)nseg * 64);
    d.key32_type = type;
    d.key32_flags = flags;
    d.key32_value_size = vs;
    if (d.composed) {
        type = CLSORT_U64;
        flags &= ~(CLSORT_STABLE | CLSORT_DESCENDING);
        vs = 0;
    }
    d.type = type;
    d.value_size = vs;
    d.algo = seg_algo(algo);
    d.flags = flags;
    d.nseg = nseg;
    d.cap = cap;
    d.max_len = 0; /* every length: nothing is sorted elsewhere */
    d.tiny_items = nseg;
    int staged = 0;
    clsort__seg_tiny(ctx, type, vs, &staged);
    /* Up to 64 keys staged as in the host variant: with bitonic where the mean says most are
     * that short; with the odd-even networks (no packed pass: a work-group each otherwise, tens of
     * times slower) always; stable pairs (no packed pass either) where the mean is above the
     * 32-key program's (clsort__seg_stage_blind): their 64-slot program costs segments of 32
     * half as much again, a long segment left to the group pass an order of magnitude more. */
    const int stable = (flags & CLSORT_STABLE) != 0,
              bitonic = d.algo == CLSORT_BITONIC,
              packs = clsort__seg_pack_tile(ctx, type, vs, 0, stable, bitonic) != 0,
              blind_wide = clsort__seg_stage_blind_wide(cap, nseg),
              blind = clsort__seg_stage_blind(cap, nseg);
    d.stage_wide = staged == 1 && clsort__seg_stage_wide(ctx, type, vs) &&
                   (stable ? !blind : packs ? !blind && blind_wide : 1);
    const int mostly_tiny =
        staged && (blind || (d.stage_wide && blind_wide));
    d.pack_tiny = !mostly_tiny;
    /* Mostly tiny segments: the packed and group passes will mostly find nothing to do, and
     * fewer groups find that sooner (seg_shape.h). */
    d.pack_groups = mostly_tiny ? clsort__seg_few_groups(ctx, nseg)
                                : clsort__seg_default_groups(ctx, nseg);
    d.groups = mostly_tiny ? clsort__seg_few_groups(ctx, nseg)
                           : clsort__seg_group_groups(ctx, nseg);
    d.large_len = clsort__seg_large_blind(cap, nseg) ? cap : 0; /* lengths unknown here */
    d.meta_slot = 0; /* the host-array scratch: unused by buffer sorts */
    d.gpos_slot = 2;
    return enqueue_segments(ctx, &d, keys, values, offsets, num_wait, wait, done);
}

