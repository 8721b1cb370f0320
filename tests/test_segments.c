/* test_segments.c - clsort_sort_segments and clsort_sort_segments_buffer against a per-segment
 * qsort reference: length mixes (random, equal, empty, one-key, huge, adversarial around the
 * bins' edges), all six types, both directions, keys alone and pairs with 4- and 8-byte values,
 * CLSORT_STABLE, every network, nseg == 0; decreasing offsets refused with the data untouched;
 * canaries around [offsets[0], offsets[nseg]); the buffer variant with garbage offsets never
 * touching outside the clamped range. CLSORT_TEST_LEVEL=0 runs a smaller set. */
#include "test_util.h"

/* Reference element: the key's order value (descending: complemented), its input index. */
typedef struct ref_el {
    uint64_t ord, idx;
} ref_el;

static int cmp_el(const void *a, const void *b)
{
    const ref_el *x = a, *y = b;
    if (x->ord != y->ord)
        return x->ord < y->ord ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

static uint64_t get_val(const unsigned char *v, size_t vs, size_t i)
{
    if (vs == 4) {
        uint32_t x;
        memcpy(&x, v + 4 * i, 4);
        return x;
    }
    uint64_t x;
    memcpy(&x, v + 8 * i, 8);
    return x;
}

static void set_val(unsigned char *v, size_t vs, size_t i, uint64_t x)
{
    if (vs == 4) {
        const uint32_t y = (uint32_t)x;
        memcpy(v + 4 * i, &y, 4);
    } else {
        memcpy(v + 8 * i, &x, 8);
    }
}

/* The value stored at index i: unique, so it names its key's input position. */
static uint64_t val_of(size_t vs, size_t i)
{
    return vs == 4 ? (uint64_t)(uint32_t)(i * 2654435761u + 7) : (uint64_t)i * 0x9E3779B97F4A7C15ull;
}

/* Checks got (keys, values) against the input (in_k, in_v) segment by segment. Keys must equal
 * the reference; values must be the reference's (stable) or any arrangement that keeps every
 * (key, value) pair (not stable). Elements outside [off[0], off[nseg]) must be the input's. */
static int check_result(clsort_type type, const void *in_k, const void *got_k, size_t vs,
                        const unsigned char *in_v, const unsigned char *got_v, size_t n,
                        const uint64_t *off, size_t nseg, int desc, int stable, char *why,
                        size_t why_size)
{
    const size_t ks = t_size(type);
    const uint64_t lo = nseg ? off[0] : 0, hi = nseg ? off[nseg] : 0;
    for (size_t i = 0; i < n; ++i)
        if ((i < lo || i >= hi) &&
            (t_get_bits(type, in_k, i) != t_get_bits(type, got_k, i) ||
             (vs && get_val(in_v, vs, i) != get_val(got_v, vs, i)))) {
            snprintf(why, why_size, "element %zu outside [%llu, %llu) changed", i,
                     (unsigned long long)lo, (unsigned long long)hi);
            return 0;
        }
    for (size_t s = 0; s < nseg; ++s) {
        const size_t a = off[s], len = off[s + 1] - off[s];
        ref_el *want = t_xmalloc(len * sizeof *want), *have = t_xmalloc(len * sizeof *have);
        for (size_t i = 0; i < len; ++i) {
            const uint64_t o = t_ord(type, t_get_bits(type, in_k, a + i));
            want[i].ord = desc ? ~o : o;
            want[i].idx = i;
        }
        qsort(want, len, sizeof *want, cmp_el);
        int ok = 1;
        for (size_t i = 0; i < len && ok; ++i) {
            const uint64_t wbits = t_get_bits(type, in_k, a + want[i].idx);
            if (t_get_bits(type, got_k, a + i) != wbits) {
                snprintf(why, why_size, "segment %zu (%zu keys at %zu): key %zu differs", s, len,
                         a, i);
                ok = 0;
            } else if (vs && stable && get_val(got_v, vs, a + i) != get_val(in_v, vs, a + want[i].idx)) {
                snprintf(why, why_size, "segment %zu (%zu keys at %zu): value %zu not stable", s,
                         len, a, i);
                ok = 0;
            }
        }
        if (ok && vs && !stable) {
            /* The (key, value) pairs of the segment, as multisets. */
            for (size_t i = 0; i < len; ++i) {
                want[i].ord = t_get_bits(type, in_k, a + i);
                want[i].idx = get_val(in_v, vs, a + i);
                have[i].ord = t_get_bits(type, got_k, a + i);
                have[i].idx = get_val(got_v, vs, a + i);
            }
            qsort(want, len, sizeof *want, cmp_el);
            qsort(have, len, sizeof *have, cmp_el);
            if (len && memcmp(want, have, len * sizeof *want)) {
                snprintf(why, why_size, "segment %zu: (key, value) pairs not kept", s);
                ok = 0;
            }
        }
        free(want);
        free(have);
        if (!ok)
            return 0;
    }
    (void)ks;
    return 1;
}

typedef enum mix {
    M_RANDOM, M_EQUAL, M_EMPTY, M_ONE, M_HUGE, M_EDGES, M_POWER, M_FULL, M_ALMOST, M_ONEBIN,
    M_NMIX
} mix;
static const char *const mix_names[M_NMIX] = {"random", "equal", "empty", "one-key", "huge",
                                              "bin edges", "power-law", "full, gaps",
                                              "equal but two", "one bin"};

/* Fills off[0..nseg] for a mix with typical length s, starting at `first`; returns the end. */
static uint64_t make_offsets(mix m, size_t nseg, size_t s, uint64_t first, uint64_t *off, t_rng *r)
{
    static const unsigned edges[] = {0, 1, 2, 3, 4, 5, 8, 9, 16, 17, 31, 32, 33, 63, 64, 65,
                                     511, 512, 513, 1023, 1024, 1025, 2047, 2048, 2049, 4095,
                                     4096, 4097, 8193};
    off[0] = first;
    for (size_t i = 0; i < nseg; ++i) {
        uint64_t len;
        switch (m) {
        case M_EQUAL: len = s; break;
        case M_EMPTY: len = 0; break;
        case M_ONE: len = 1; break;
        case M_HUGE: len = i == nseg / 2 ? 20000 + t_rand_below(r, 5000) : t_rand_below(r, 40); break;
        case M_EDGES: len = edges[(i + t_rand_below(r, 3)) % (sizeof edges / sizeof *edges)]; break;
        case M_POWER: len = (uint64_t)1 << t_rand_below(r, 14); len += t_rand_below(r, len); break;
        /* Segments that fill their bin's slots (the power of two at or above s), in runs broken
         * now and then by one of 3 keys: seg_sort_packed's tiles without gaps (one span of
         * memory) and tiles whose full segments are not neighbours. */
        case M_FULL:
            for (len = 2; len < s; len <<= 1) {
            }
            if (t_rand_below(r, 9) == 0)
                len = 3;
            break;
        /* Equal lengths but one segment of 1 key and one of twice s (another bin): one bin
         * holds nearly all, so the list must be written and read (segmented.cl, seg_scatter). */
        case M_ALMOST: len = i == nseg / 2 ? 1 : i == nseg / 3 ? 2 * s : s; break;
        /* All in one bin (s a power of two: lengths s/2+1 .. s) but not all equal: the list is
         * the identity, yet the tiles are not one span (segmented.cl, lequal: the clamped range
         * is short of nseg * s). */
        case M_ONEBIN: len = i % 5 == 2 ? s - 1 - t_rand_below(r, s / 2 - 1) : s; break;
        default: len = t_rand_below(r, 2 * s + 1); break;
        }
        off[i + 1] = off[i] + len;
    }
    return off[nseg];
}

/* One host-variant case: canaries of `pad` elements on each side of the segments. */
static void host_case(clsort_ctx *ctx, clsort_type type, size_t vs, mix m, size_t nseg, size_t s,
                      clsort_algorithm algo, unsigned flags, t_dist dist)
{
    t_rng r = t_rng_for(type * 131 + vs, m * 17 + nseg, s * 7 + algo, flags * 3 + dist);
    uint64_t *off = t_xmalloc((nseg + 1) * sizeof *off);
    const size_t pad = 5 + t_rand_below(&r, 20);
    const uint64_t end = make_offsets(m, nseg, s, pad, off, &r);
    const size_t n = end + pad, ks = t_size(type);
    void *in_k = t_xmalloc(n * ks), *k = t_xmalloc(n * ks);
    unsigned char *in_v = vs ? t_xmalloc(n * vs) : NULL, *v = vs ? t_xmalloc(n * vs) : NULL;
    t_fill(type, dist, in_k, n, &r);
    memcpy(k, in_k, n * ks);
    for (size_t i = 0; vs && i < n; ++i)
        set_val(in_v, vs, i, val_of(vs, i));
    if (vs)
        memcpy(v, in_v, n * vs);
    const int rc = clsort_sort_segments(ctx, k, v, vs, off, nseg, type, algo, flags);
    char why[256] = "";
    const int ok = rc == CLSORT_OK &&
                   check_result(type, in_k, k, vs, in_v, v, n, off, nseg,
                                (flags & CLSORT_DESCENDING) != 0, (flags & CLSORT_STABLE) != 0,
                                why, sizeof why);
    if (!t_ok(ok, "host %s %s%s %s nseg=%zu s=%zu %s %s%s%s", t_type_name(type),
              vs == 0 ? "keys" : vs == 4 ? "pairs4" : "pairs8", "", mix_names[m], nseg, s,
              t_algo_name(algo), t_dist_name(dist), flags & CLSORT_DESCENDING ? " desc" : "",
              flags & CLSORT_STABLE ? " stable" : ""))
        t_diag("rc %d (%s): %s", rc, clsort_last_error(ctx), why);
    free(off);
    free(in_k);
    free(k);
    free(in_v);
    free(v);
}

/* The buffer variant on well-formed offsets: the same results as the host variant. */
static void buffer_case(clsort_ctx *ctx, cl_context clc, cl_command_queue q, clsort_type type,
                        size_t vs, mix m, size_t nseg, size_t s, clsort_algorithm algo,
                        unsigned flags)
{
    t_rng r = t_rng_for(type * 11 + vs, m, nseg + s, algo * 5 + flags + 99);
    uint64_t *off = t_xmalloc((nseg + 1) * sizeof *off);
    const size_t pad = 3 + t_rand_below(&r, 10);
    const uint64_t end = make_offsets(m, nseg, s, pad, off, &r);
    const size_t n = end + pad, ks = t_size(type);
    void *in_k = t_xmalloc(n * ks), *k = t_xmalloc(n * ks);
    unsigned char *in_v = vs ? t_xmalloc(n * vs) : NULL, *v = vs ? t_xmalloc(n * vs) : NULL;
    t_fill(type, T_FEW, in_k, n, &r);
    for (size_t i = 0; vs && i < n; ++i)
        set_val(in_v, vs, i, val_of(vs, i));
    cl_int err;
    cl_mem bk = clCreateBuffer(clc, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * ks, in_k, &err);
    cl_mem bv = vs ? clCreateBuffer(clc, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * vs, in_v,
                                    &err)
                   : NULL;
    cl_mem bo = clCreateBuffer(clc, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               (nseg + 1) * sizeof *off, off, &err);
    cl_event done = NULL;
    int rc = clsort_sort_segments_buffer(ctx, bk, bv, vs, bo, nseg, type, algo, flags, 0, NULL,
                                         &done);
    if (rc == CLSORT_OK && done) {
        clWaitForEvents(1, &done);
        clReleaseEvent(done);
    }
    clEnqueueReadBuffer(q, bk, CL_TRUE, 0, n * ks, k, 0, NULL, NULL);
    if (vs)
        clEnqueueReadBuffer(q, bv, CL_TRUE, 0, n * vs, v, 0, NULL, NULL);
    char why[256] = "";
    const int ok = rc == CLSORT_OK &&
                   check_result(type, in_k, k, vs, in_v, v, n, off, nseg,
                                (flags & CLSORT_DESCENDING) != 0, (flags & CLSORT_STABLE) != 0,
                                why, sizeof why);
    if (!t_ok(ok, "buffer %s %s %s nseg=%zu s=%zu %s%s%s", t_type_name(type),
              vs == 0 ? "keys" : vs == 4 ? "pairs4" : "pairs8", mix_names[m], nseg, s,
              t_algo_name(algo), flags & CLSORT_DESCENDING ? " desc" : "",
              flags & CLSORT_STABLE ? " stable" : ""))
        t_diag("rc %d (%s): %s", rc, clsort_last_error(ctx), why);
    clReleaseMemObject(bk);
    if (bv)
        clReleaseMemObject(bv);
    clReleaseMemObject(bo);
    free(off);
    free(in_k);
    free(k);
    free(in_v);
    free(v);
}

static int cmp_u32(const void *a, const void *b)
{
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* 130 u32 segments of each length in lens with every explicit network (at level 0 bitonic
 * alone, and every network at the length `every`). */
static void equal_every_network(clsort_ctx *ctx, const size_t *lens, size_t nlens, size_t every,
                                int level)
{
    for (size_t e = 0; e < nlens; ++e)
        for (int ai = 1; ai < T_NALGOS; ++ai)
            if (level > 0 || ai == 1 || lens[e] == every)
                host_case(ctx, CLSORT_U32, 0, M_EQUAL, 130, lens[e], t_algos[ai],
                          CLSORT_NO_HOST_FALLBACK, T_RANDOM);
}

/* Garbage offsets on the device: nothing outside [off[0], min(off[nseg], n)) may change, and
 * the keys inside stay a permutation (of the clamped range). */
static void garbage_case(clsort_ctx *ctx, cl_context clc, cl_command_queue q, unsigned trial)
{
    t_rng r = t_rng_for(trial, 4242, 0, 0);
    const size_t n = 3000 + t_rand_below(&r, 6000), vs = 4,
                 nseg = 1 + t_rand_below(&r, trial >= 200 ? 600 : 60);
    uint32_t *in_k = t_xmalloc(n * 4), *k = t_xmalloc(n * 4), *in_v = t_xmalloc(n * 4),
             *v = t_xmalloc(n * 4);
    uint64_t *off = t_xmalloc((nseg + 1) * sizeof *off);
    for (size_t i = 0; i < n; ++i) {
        in_k[i] = (uint32_t)t_rand64(&r);
        in_v[i] = (uint32_t)i;
    }
    for (size_t i = 0; i <= nseg; ++i) {
        const unsigned kind = (unsigned)t_rand_below(&r, 4);
        off[i] = kind == 0 ? t_rand64(&r) : kind == 1 ? n + t_rand_below(&r, 100)
                                                      : t_rand_below(&r, n);
    }
    /* Sometimes a sane window, sometimes an inverted or out-of-buffer one. */
    if (trial % 3 == 0) {
        off[0] = n / 4;
        off[nseg] = n - n / 4;
    }
    if (trial % 6 == 3) { /* a sane window and ordered inner offsets: disjoint segments */
        off[0] = n / 5;
        off[nseg] = n - n / 5;
        for (size_t i = 1; i < nseg; ++i)
            off[i] = off[0] + (off[nseg] - off[0]) * i / nseg;
    }
    if (trial >= 200 && trial % 2 == 0) {
        /* Short segments (the staged tiny pass; from trial 300, up to 64 keys), now and then
         * going back: some overlap. */
        off[0] = t_rand_below(&r, n / 2);
        for (size_t i = 1; i < nseg; ++i) {
            const uint64_t step = t_rand_below(&r, trial >= 300 ? 88 : 48);
            off[i] = step < 12 && off[i - 1] >= 12 ? off[i - 1] - step : off[i - 1] + step - 12;
        }
    }
    const uint64_t lo = off[0], hi = off[nseg] < n ? off[nseg] : n;
    cl_int err;
    cl_mem bk = clCreateBuffer(clc, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, in_k, &err);
    cl_mem bv = clCreateBuffer(clc, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, in_v, &err);
    cl_mem bo = clCreateBuffer(clc, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               (nseg + 1) * sizeof *off, off, &err);
    /* From trial 400: stable (the composed sort's compose and decompose passes must keep to
     * the clamped range too). */
    const int rc = clsort_sort_segments_buffer(ctx, bk, bv, vs, bo, nseg, CLSORT_U32,
                                               CLSORT_BITONIC, trial >= 400 ? CLSORT_STABLE : 0,
                                               0, NULL, NULL);
    clFinish(q);
    clEnqueueReadBuffer(q, bk, CL_TRUE, 0, n * 4, k, 0, NULL, NULL);
    clEnqueueReadBuffer(q, bv, CL_TRUE, 0, n * 4, v, 0, NULL, NULL);
    /* The contract for garbage offsets is safety: nothing outside the clamped window is read or
     * written. Segments that overlap (inner offsets out of order) are sorted by different
     * work-items at once, so inside the window only "every key and every value comes from
     * inside" holds; with inner offsets in order (clamped to the window) the segments are
     * disjoint and every pair must survive. */
    int ordered = 1;
    for (size_t i = 1; i < nseg; ++i)
        if (off[i] < off[i - 1] || off[i] < lo || off[i] > hi)
            ordered = 0;
    if (nseg > 1 && off[nseg - 1] > off[nseg])
        ordered = 0;
    uint32_t *inside = t_xmalloc((lo < hi ? hi - lo : 1) * 4);
    for (uint64_t i = lo; i < hi; ++i)
        inside[i - lo] = in_k[i];
    qsort(inside, lo < hi ? hi - lo : 0, 4, cmp_u32);
    int outside = 1, from_inside = 1, perm = 1;
    for (size_t i = 0; i < n; ++i) {
        const int in_range = lo < hi && i >= lo && i < hi;
        if (!in_range && (k[i] != in_k[i] || v[i] != in_v[i]))
            outside = 0;
        if (in_range && (v[i] < lo || v[i] >= hi ||
                         !bsearch(&k[i], inside, hi - lo, 4, cmp_u32)))
            from_inside = 0;
        if (in_range && (v[i] < lo || v[i] >= hi || in_k[v[i]] != k[i]))
            perm = 0; /* every value names an input position inside, with its key */
    }
    free(inside);
    t_ok(rc == CLSORT_OK && outside && from_inside,
         "buffer, garbage offsets #%u (nseg %zu, range [%llu, %llu) of %zu, inner offsets %s): "
         "nothing outside touched, nothing from outside inside",
         trial, nseg, (unsigned long long)lo, (unsigned long long)hi, n,
         ordered ? "in order" : "out of order");
    if (ordered)
        t_ok(perm, "... segments disjoint: every (key, value) pair kept");
    clReleaseMemObject(bk);
    clReleaseMemObject(bv);
    clReleaseMemObject(bo);
    free(in_k);
    free(k);
    free(in_v);
    free(v);
    free(off);
}

/* The narrow key types and CLSORT_NAN_LARGEST: segments of mixed lengths (empty, tiny, a
 * tile, longer), keys alone and pairs of positions, stable and not, on host arrays and through
 * clsort_sort_segments_buffer, each segment against t_ref_stable. Lean: a handful of cases a
 * type. */
static void new_types(clsort_ctx *ctx, int fp64)
{
    static const clsort_type types[] = {CLSORT_U8, CLSORT_I16, CLSORT_F16, CLSORT_BF16,
                                        CLSORT_F32, CLSORT_F64};
    static const unsigned lens[] = {0, 1, 5, 31, 64, 300, 0, 2, 4100, 17};
    enum { NSEG = sizeof lens / sizeof *lens };
    uint64_t off[NSEG + 1];
    off[0] = 2; /* two keys before the first segment stay out */
    for (int i = 0; i < NSEG; ++i)
        off[i + 1] = off[i] + lens[i];
    const size_t total = off[NSEG] + 3;
    unsigned char *in = t_xmalloc(total * 8), *got = t_xmalloc(total * 8),
                  *want = t_xmalloc(total * 8);
    uint64_t *vals = t_xmalloc(total * 8), *perm = t_xmalloc(total * 8);
    cl_command_queue q = clsort_get_queue(ctx);
    cl_context cc;
    clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof cc, &cc, NULL);
    for (size_t ti = 0; ti < sizeof types / sizeof *types; ++ti) {
        const clsort_type type = types[ti];
        if (type == CLSORT_F64 && !fp64)
            continue;
        const size_t ks = t_size(type);
        unsigned cases = 0, failed = 0;
        for (unsigned v = 0; v < 16; ++v) {
            const unsigned flags = (v & 1 ? CLSORT_DESCENDING : 0) |
                                   (v & 2 ? CLSORT_NAN_LARGEST : 0) |
                                   (v & 4 ? CLSORT_STABLE : 0);
            const int pairs = (v & 8) != 0;
            const clsort_algorithm algo = v & 1 ? CLSORT_BITONIC : CLSORT_AUTO;
            t_rng r = t_rng_for(ti, v, total, 61);
            t_fill(type, v & 2 ? T_SPECIAL : T_FEW, in, total, &r);
            for (int buffer = 0; buffer < 2; ++buffer) {
                memcpy(got, in, total * ks);
                for (size_t i = 0; i < total; ++i)
                    vals[i] = i;
                int rc;
                if (!buffer) {
                    rc = clsort_sort_segments(ctx, got, pairs ? vals : NULL, pairs ? 8 : 0, off,
                                              NSEG, type, algo, flags);
                } else {
                    cl_int err;
                    cl_mem kb = clCreateBuffer(cc, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                               total * ks, got, &err);
                    cl_mem vb = clCreateBuffer(cc, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                               total * 8, vals, &err);
                    cl_mem ob = clCreateBuffer(cc, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                               sizeof off, off, &err);
                    cl_event done = NULL;
                    rc = clsort_sort_segments_buffer(ctx, kb, pairs ? vb : NULL, pairs ? 8 : 0,
                                                     ob, NSEG, type, algo, flags, 0, NULL, &done);
                    if (done) {
                        clWaitForEvents(1, &done);
                        clReleaseEvent(done);
                    }
                    clEnqueueReadBuffer(q, kb, CL_TRUE, 0, total * ks, got, 0, NULL, NULL);
                    clEnqueueReadBuffer(q, vb, CL_TRUE, 0, total * 8, vals, 0, NULL, NULL);
                    clReleaseMemObject(kb);
                    clReleaseMemObject(vb);
                    clReleaseMemObject(ob);
                }
                int ok = rc == CLSORT_OK &&
                         !memcmp(got, in, off[0] * ks) &&
                         !memcmp(got + off[NSEG] * ks, in + off[NSEG] * ks, 3 * ks);
                for (int sgi = 0; ok && sgi < NSEG; ++sgi) {
                    const size_t a = off[sgi], n = lens[sgi];
                    memcpy(want + a * ks, in + a * ks, n * ks);
                    t_ref_stable(type, want + a * ks, n, flags, perm + a);
                    for (size_t i = 0; i < n; ++i)
                        perm[a + i] += a;
                    if (pairs) {
                        uint64_t *sv = vals + a;
                        for (size_t i = 0; i < n; ++i)
                            sv[i] -= a; /* positions within the segment */
                        for (size_t i = 0; i < n; ++i)
                            perm[a + i] -= a;
                        ok = t_check_pairs(type, in + a * ks, got + a * ks, sv, 1, want + a * ks,
                                           perm + a, n, flags);
                    } else {
                        ok = t_check_order(type, in + a * ks, got + a * ks, want + a * ks, n,
                                           flags) == n;
                    }
                }
                ++cases;
                if (!ok && failed++ < 4)
                    t_diag("%s %s flags %u %s: rc %d %s", t_type_name(type),
                           buffer ? "buffer" : "host", flags, pairs ? "pairs" : "keys", rc,
                           rc ? clsort_last_error(ctx) : "wrong result");
            }
        }
        t_ok(!failed, "%s segments: keys and pairs, both directions, with and without "
                      "CLSORT_NAN_LARGEST and CLSORT_STABLE, host arrays and buffers (%u cases)",
             t_type_name(type), cases);
    }
    free(in);
    free(got);
    free(want);
    free(vals);
    free(perm);
}

int main(void)
{
    t_init("test_segments");
    const char *lv = getenv("CLSORT_TEST_LEVEL");
    const int level = lv && *lv ? atoi(lv) : 1;
    clsort_ctx *ctx = t_create_ctx();
    clsort_device_info info;
    clsort_get_device_info(ctx, &info);
    new_types(ctx, info.has_fp64);

    /* nseg == 0, NULL pointers allowed. */
    t_is_status(clsort_sort_segments(ctx, NULL, NULL, 0, NULL, 0, CLSORT_U32, CLSORT_AUTO, 0),
                CLSORT_OK, "nseg == 0 with NULL arrays");
    {
        uint32_t k[6] = {9, 8, 7, 6, 5, 4}, orig[6];
        memcpy(orig, k, sizeof k);
        const uint64_t bad[4] = {0, 4, 2, 6};
        t_is_status(clsort_sort_segments(ctx, k, NULL, 0, bad, 3, CLSORT_U32, CLSORT_AUTO, 0),
                    CLSORT_ERR_INVALID_ARG, "decreasing offsets refused");
        t_ok(!memcmp(k, orig, sizeof k), "... and the keys are untouched");
        const uint64_t good[3] = {1, 3, 5};
        t_is_status(clsort_sort_segments(ctx, k, k, 3, good, 2, CLSORT_U32, CLSORT_AUTO, 0),
                    CLSORT_ERR_INVALID_ARG, "value_size 3 refused");
        t_is_status(clsort_sort_segments(ctx, k, NULL, 0, NULL, 2, CLSORT_U32, CLSORT_AUTO, 0),
                    CLSORT_ERR_INVALID_ARG, "NULL offsets refused");
        t_is_status(clsort_sort_segments(NULL, k, NULL, 0, good, 2, CLSORT_U32, CLSORT_AUTO, 0),
                    CLSORT_ERR_INVALID_ARG, "NULL context refused");
        t_is_status(clsort_sort_segments(ctx, k, NULL, 0, good, 2, CLSORT_U32, CLSORT_AUTO,
                                         CLSORT_NO_HOST_FALLBACK),
                    CLSORT_OK, "two segments of two keys");
        const uint32_t want[6] = {9, 7, 8, 5, 6, 4};
        t_ok(!memcmp(k, want, sizeof k), "... sorted each, the ends untouched");
    }

    static const size_t vsizes[3] = {0, 4, 8};
    /* Every type, direction, value size and network on a random mix, on the device. Each
     * (type, value size, network) is a program of its own, and on PoCL from a cold cache the
     * compiles are nearly all of this program's time; level 0 (make test) builds one of each
     * type, value size and network rather than their product, the product is level 1's. */
    for (int ti = 0; ti < T_NTYPES; ++ti) {
        if (t_types[ti] == CLSORT_F64 && !info.has_fp64)
            continue;
        for (int vi = 0; vi < 3; ++vi)
            for (int ai = 0; ai < T_NALGOS; ++ai)
                for (unsigned desc = 0; desc < 2; ++desc) {
                    if (level == 0 && ai > 1 && desc)
                        continue;
                    if (level == 0 && ai > 1 && (ti != 0 || vi > 1))
                        continue;
                    if (level == 0 && ti > 0 && vi > 0)
                        continue;
                    host_case(ctx, t_types[ti], vsizes[vi], M_EDGES, 60, 0, t_algos[ai],
                              CLSORT_NO_HOST_FALLBACK | (desc ? CLSORT_DESCENDING : 0),
                              T_SPECIAL);
                }
    }
    /* Every mix, keys and pairs, stable or not. */
    for (int m = 0; m < M_NMIX; ++m)
        for (int vi = 0; vi < 3; ++vi)
            for (unsigned st = 0; st < 2; ++st) {
                const size_t nseg = m == M_POWER ? 40 : m == M_HUGE ? 50 : 300;
                host_case(ctx, CLSORT_I32, vsizes[vi], (mix)m, nseg, 24, CLSORT_AUTO,
                          CLSORT_NO_HOST_FALLBACK | (st ? CLSORT_STABLE : 0), T_FEW);
                if (level > 0)
                    host_case(ctx, CLSORT_F64, vsizes[vi], (mix)m, nseg, 200, CLSORT_BITONIC,
                              CLSORT_NO_HOST_FALLBACK | CLSORT_DESCENDING |
                                  (st ? CLSORT_STABLE : 0),
                              T_EQUAL);
            }
    /* Equal lengths at every bin size, every network, stable pairs (ties everywhere). */
    static const size_t eq[] = {2, 3, 4, 7, 16, 32, 33, 100, 256, 1000, 4096, 5000};
    for (size_t e = 0; e < sizeof eq / sizeof *eq; ++e)
        for (int ai = 1; ai < T_NALGOS; ++ai)
            host_case(ctx, CLSORT_U64, 8, M_EQUAL, eq[e] > 1000 ? 4 : 50, eq[e], t_algos[ai],
                      CLSORT_NO_HOST_FALLBACK | CLSORT_STABLE, T_FEW);
    /* The host fallback (tiny totals) gives the same answers. */
    host_case(ctx, CLSORT_F32, 4, M_RANDOM, 10, 5, CLSORT_AUTO, CLSORT_STABLE, T_FEW);
    host_case(ctx, CLSORT_U32, 0, M_RANDOM, 10, 5, CLSORT_AUTO, CLSORT_DESCENDING, T_RANDOM);

    /* The buffer variant. */
    cl_command_queue q = NULL;
    cl_context clc = NULL;
    {
        cl_platform_id plats[8];
        cl_uint np = 0;
        clGetPlatformIDs(8, plats, &np);
        cl_device_id dev = NULL;
        for (cl_uint p = 0; p < np && !dev; ++p) {
            cl_device_id ds[16];
            cl_uint nd = 0;
            if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 16, ds, &nd) != CL_SUCCESS)
                continue;
            for (cl_uint d = 0; d < nd && !dev; ++d) {
                char name[256] = "";
                clGetDeviceInfo(ds[d], CL_DEVICE_NAME, sizeof name, name, NULL);
                if (!strcmp(name, info.name))
                    dev = ds[d];
            }
        }
        cl_int err;
        clc = dev ? clCreateContext(NULL, 1, &dev, NULL, NULL, &err) : NULL;
        q = clc ? clCreateCommandQueue(clc, dev, CL_QUEUE_PROFILING_ENABLE, &err) : NULL;
    }
    if (!q)
        t_bail("cannot make a queue on %s", info.name);
    clsort_ctx *bctx = NULL;
    if (clsort_create_with_queue(&bctx, q) != CLSORT_OK)
        t_bail("clsort_create_with_queue failed");
    for (int m = 0; m < M_NMIX; ++m)
        for (int vi = 0; vi < 3; ++vi) {
            const size_t nseg = m == M_POWER ? 12 : m == M_HUGE ? 20 : 200;
            buffer_case(bctx, clc, q, CLSORT_U32, vsizes[vi], (mix)m, nseg, 40,
                        (clsort_algorithm)(m % 4), vi == 2 ? CLSORT_STABLE : 0);
        }
    buffer_case(bctx, clc, q, CLSORT_F32, 4, M_EDGES, 60, 0, CLSORT_ODD_EVEN_MERGE,
                CLSORT_DESCENDING | CLSORT_STABLE);
    buffer_case(bctx, clc, q, CLSORT_I64, 0, M_RANDOM, 0, 5, CLSORT_AUTO, 0);
    /* More segments than the binning passes have work-items (2^18: schedule.c, seg_bin_items),
     * so that each work-item bins several, round by round (segmented.cl, seg_group_block):
     * lengths of one bin and of mixed bins, empty and one-key segments among them. */
    buffer_case(bctx, clc, q, CLSORT_U32, 0, M_RANDOM, 600000, 3, CLSORT_AUTO, 0);
    host_case(ctx, CLSORT_U32, 4, M_EQUAL, 1100000, 2, CLSORT_AUTO, CLSORT_NO_HOST_FALLBACK,
              T_RANDOM);
    for (unsigned trial = 0; trial < (level > 0 ? 12u : 4u); ++trial)
        garbage_case(bctx, clc, q, trial);
    /* The staged tiny pass (seg_sort_tiny with SEG_TINY_STAGE), which GPUs take for every
     * segment up to 32 keys, forced on whatever device this is: a work-group's segments by
     * index, copied through local memory; the list then holds no tiny bin, and the scatter
     * writes nothing when every segment is tiny. Tiny segments beside longer ones (the group
     * pass, then the packed pass), every length around 4, 8, 16 and 32, every network, stable
     * pairs with ties, more work-groups than one round, garbage offsets. */
    setenv("CLSORT_SEG_TINY", "32", 1);
    setenv("CLSORT_SEG_STAGE", "1", 1);
    t_diag("staged tiny pass");
    for (int m = 0; m < M_NMIX; ++m)
        host_case(ctx, CLSORT_U32, m % 3 == 1 ? 4 : 0, (mix)m, m == M_HUGE ? 30 : 200,
                  m == M_FULL || m == M_ONEBIN ? 16 : 12, CLSORT_AUTO, CLSORT_NO_HOST_FALLBACK,
                  T_RANDOM);
    static const size_t tiny_eq[] = {2, 3, 4, 5, 8, 9, 15, 16, 17, 24, 25, 31, 32, 33};
    equal_every_network(ctx, tiny_eq, sizeof tiny_eq / sizeof *tiny_eq, 31, level);
    host_case(ctx, CLSORT_U64, 8, M_RANDOM, 300, 12, CLSORT_AUTO,
              CLSORT_NO_HOST_FALLBACK | CLSORT_STABLE, T_FEW);
    host_case(ctx, CLSORT_F32, 4, M_EDGES, 90, 0, CLSORT_AUTO,
              CLSORT_NO_HOST_FALLBACK | CLSORT_DESCENDING, T_SPECIAL);
    buffer_case(bctx, clc, q, CLSORT_U32, 4, M_RANDOM, 100000, 9, CLSORT_AUTO, 0);
    buffer_case(bctx, clc, q, CLSORT_I32, 0, M_EQUAL, 5000, 32, CLSORT_AUTO, CLSORT_DESCENDING);
    buffer_case(bctx, clc, q, CLSORT_U32, 0, M_HUGE, 20, 0, CLSORT_AUTO, 0);
    for (unsigned trial = 0; trial < 4; ++trial)
        garbage_case(bctx, clc, q, 200 + trial);
    /* The staged pass of up to 64 keys (GPUs, where most segments are 33..64 keys): lengths
     * around 32, 48 and 64 with every network, short and long ones in one work-group (its
     * network the longest's), keys, pairs and stable pairs, the buffer variant, garbage
     * offsets. */
    setenv("CLSORT_SEG_TINY", "64", 1);
    t_diag("staged tiny pass of up to 64 keys");
    static const size_t wide_eq[] = {31, 33, 48, 63, 64, 65};
    equal_every_network(ctx, wide_eq, sizeof wide_eq / sizeof *wide_eq, 63, level);
    host_case(ctx, CLSORT_U32, 0, M_RANDOM, 300, 30, CLSORT_AUTO, CLSORT_NO_HOST_FALLBACK,
              T_RANDOM);
    host_case(ctx, CLSORT_F32, 4, M_EDGES, 90, 0, CLSORT_AUTO,
              CLSORT_NO_HOST_FALLBACK | CLSORT_DESCENDING, T_SPECIAL);
    host_case(ctx, CLSORT_U64, 0, M_RANDOM, 300, 30, CLSORT_AUTO, CLSORT_NO_HOST_FALLBACK,
              T_FEW);
    host_case(ctx, CLSORT_U32, 4, M_RANDOM, 300, 30, CLSORT_AUTO,
              CLSORT_NO_HOST_FALLBACK | CLSORT_STABLE, T_FEW);
    buffer_case(bctx, clc, q, CLSORT_U32, 4, M_RANDOM, 50000, 30, CLSORT_AUTO, 0);
    buffer_case(bctx, clc, q, CLSORT_U32, 0, M_HUGE, 20, 0, CLSORT_AUTO, 0);
    for (unsigned trial = 0; trial < 4; ++trial)
        garbage_case(bctx, clc, q, 300 + trial);
    setenv("CLSORT_SEG_TINY", "32", 1);
    /* With the packed pass beside it (bins from 64 keys up), tiny bins absent from its list. */
    setenv("CLSORT_SEG_PACK", "128", 1);
    host_case(ctx, CLSORT_U32, 0, M_RANDOM, 300, 40, CLSORT_AUTO, CLSORT_NO_HOST_FALLBACK,
              T_RANDOM);
    host_case(ctx, CLSORT_U32, 0, M_EDGES, 90, 0, CLSORT_AUTO, CLSORT_NO_HOST_FALLBACK,
              T_RANDOM);
    buffer_case(bctx, clc, q, CLSORT_U32, 0, M_ALMOST, 300, 32, CLSORT_AUTO, 0);
    buffer_case(bctx, clc, q, CLSORT_U32, 0, M_FULL, 200, 64, CLSORT_AUTO, 0);
    /* Where it pays, as GPUs choose (seg_shape.c): mostly tiny (staged, the rest packed), mostly
     * up to 64 keys (staged up to 64), mostly longer (every one packed), by the lengths (host
     * variant) or by the mean (buffer). */
    unsetenv("CLSORT_SEG_TINY");
    setenv("CLSORT_SEG_STAGE", "auto", 1);
    host_case(ctx, CLSORT_U32, 0, M_RANDOM, 300, 24, CLSORT_AUTO, CLSORT_NO_HOST_FALLBACK,
              T_RANDOM);
    host_case(ctx, CLSORT_U64, 8, M_EQUAL, 300, 48, CLSORT_AUTO, CLSORT_NO_HOST_FALLBACK,
              T_FEW);
    buffer_case(bctx, clc, q, CLSORT_U32, 0, M_RANDOM, 300, 30, CLSORT_AUTO, 0);
    buffer_case(bctx, clc, q, CLSORT_U32, 4, M_RANDOM, 300, 30, CLSORT_AUTO, CLSORT_STABLE);
    /* Stable pairs (no packed pass) stage up to 64 keys where one in 64 is 33..64 keys (host
     * variant) or the mean is above 21 (buffer variant), ties everywhere. */
    host_case(ctx, CLSORT_U32, 4, M_EQUAL, 300, 48, CLSORT_AUTO,
              CLSORT_NO_HOST_FALLBACK | CLSORT_STABLE, T_FEW);
    host_case(ctx, CLSORT_F32, 4, M_RANDOM, 300, 40, CLSORT_AUTO,
              CLSORT_NO_HOST_FALLBACK | CLSORT_STABLE | CLSORT_DESCENDING, T_FEW);
    buffer_case(bctx, clc, q, CLSORT_U32, 4, M_RANDOM, 300, 20, CLSORT_AUTO, CLSORT_STABLE);
    /* The odd-even networks (no packed pass) stage up to 64 keys wherever some are 33..64. */
    host_case(ctx, CLSORT_U32, 4, M_RANDOM, 300, 40, CLSORT_ODD_EVEN_MERGE,
              CLSORT_NO_HOST_FALLBACK, T_RANDOM);
    host_case(ctx, CLSORT_I32, 0, M_EDGES, 90, 0, CLSORT_ODD_EVEN_TRANSPOSITION,
              CLSORT_NO_HOST_FALLBACK | CLSORT_DESCENDING, T_SPECIAL);
    buffer_case(bctx, clc, q, CLSORT_U32, 0, M_RANDOM, 300, 60, CLSORT_ODD_EVEN_MERGE, 0);
    host_case(ctx, CLSORT_U32, 0, M_RANDOM, 300, 70, CLSORT_AUTO, CLSORT_NO_HOST_FALLBACK,
              T_RANDOM);
    host_case(ctx, CLSORT_U32, 0, M_RANDOM, 300, 9, CLSORT_AUTO, CLSORT_NO_HOST_FALLBACK,
              T_RANDOM);
    host_case(ctx, CLSORT_U32, 4, M_RANDOM, 300, 40, CLSORT_AUTO, CLSORT_NO_HOST_FALLBACK,
              T_RANDOM);
    host_case(ctx, CLSORT_U32, 0, M_EQUAL, 300, 32, CLSORT_AUTO, CLSORT_NO_HOST_FALLBACK,
              T_RANDOM);
    buffer_case(bctx, clc, q, CLSORT_U32, 0, M_RANDOM, 300, 14, CLSORT_AUTO, 0);
    buffer_case(bctx, clc, q, CLSORT_U32, 4, M_RANDOM, 300, 40, CLSORT_AUTO, 0);
    unsetenv("CLSORT_SEG_PACK");
    unsetenv("CLSORT_SEG_STAGE");

    /* Stable pairs of 32-bit keys composed (seg_compose and seg_decompose around an unstable
     * sort of 64-bit composites: seg_shape.c, clsort__seg_compose), which GPUs take where long
     * segments hold an eighth of the keys, forced on whatever device this is: every mix, u32,
     * i32 and f32 keys (special values) both ways with 4- and 8-byte values and long runs of
     * ties, host and buffer variants, every network, garbage offsets (the passes must keep to
     * the clamped range); 64-bit keys, which it leaves to the stable passes. */
    setenv("CLSORT_SEG_COMPOSE", "1", 1);
    t_diag("stable pairs composed");
    static const clsort_type key32[3] = {CLSORT_U32, CLSORT_I32, CLSORT_F32};
    for (int m = 0; m < M_NMIX; ++m)
        host_case(ctx, key32[m % 3], m % 2 ? 8 : 4, (mix)m, m == M_HUGE ? 20 : 120,
                  m == M_FULL || m == M_ONEBIN ? 64 : 50, CLSORT_AUTO,
                  CLSORT_NO_HOST_FALLBACK | CLSORT_STABLE | (m % 4 == 1 ? CLSORT_DESCENDING : 0),
                  m % 3 == 2 ? T_SPECIAL : T_FEW);
    buffer_case(bctx, clc, q, CLSORT_U32, 4, M_RANDOM, 300, 100, CLSORT_AUTO, CLSORT_STABLE);
    buffer_case(bctx, clc, q, CLSORT_F32, 8, M_HUGE, 20, 40, CLSORT_AUTO,
                CLSORT_STABLE | CLSORT_DESCENDING);
    buffer_case(bctx, clc, q, CLSORT_I32, 4, M_EQUAL, 40, 700, CLSORT_ODD_EVEN_MERGE,
                CLSORT_STABLE);
    host_case(ctx, CLSORT_U32, 4, M_POWER, 12, 0, CLSORT_ODD_EVEN_TRANSPOSITION,
              CLSORT_NO_HOST_FALLBACK | CLSORT_STABLE, T_FEW);
    host_case(ctx, CLSORT_U64, 4, M_RANDOM, 100, 50, CLSORT_AUTO,
              CLSORT_NO_HOST_FALLBACK | CLSORT_STABLE, T_FEW);
    for (unsigned trial = 0; trial < 4; ++trial)
        garbage_case(bctx, clc, q, 400 + trial);
    unsetenv("CLSORT_SEG_COMPOSE");

    /* The packed pass (seg_sort_packed), which GPUs take for every segment up to the packed
     * tile, forced on whatever device this is and with no tiny pass: 2, 16 and 32 keys a
     * work-item in registers (a packed tile of 2, 16 or 32 times the group size; the largest
     * the device allows where smaller), so that PoCL checks the register and local-memory
     * groups of levels the GPU runs. The large passes (kernels/seg_large.cl: segments above
     * 4096 keys, many work-groups each), which GPUs take by default, are forced on with it: they
     * run on the packed tile. */
    setenv("CLSORT_SEG_TINY", "0", 1);
    setenv("CLSORT_SEG_LARGE", "1", 1);
    static const unsigned per_item[3] = {2, 16, 32};
    const int gpu = !strcmp(info.type, "gpu");
    /* Level 0 takes the smallest shape alone: the written-out merges of 16 and 32 keys a
     * work-item are PoCL's longest compiles. */
    for (int pi = 0; pi < (level > 0 ? 3 : 1); ++pi) {
        char want[32];
        snprintf(want, sizeof want, "%u", per_item[pi] * (gpu ? 256 : 64));
        setenv("CLSORT_SEG_PACK", want, 1);
        t_diag("packed tile up to %s keys", want);
        /* 16 keys a work-item is the shape whose merges are written out (SEG_PACK_C), as on
         * GPUs: PoCL takes 100-300 s to compile each such program, so on a CPU the 64-bit
         * program with values (4.5 min) is left to the GPU runs (make check-gpu), where every
         * type takes that shape by default. */
        const int wide_too = gpu || per_item[pi] != 16;
        host_case(ctx, CLSORT_U32, 0, M_EDGES, 60, 0, CLSORT_AUTO, CLSORT_NO_HOST_FALLBACK,
                  T_SPECIAL);
        host_case(ctx, CLSORT_F32, 4, M_POWER, 30, 0, CLSORT_BITONIC,
                  CLSORT_NO_HOST_FALLBACK | CLSORT_DESCENDING, T_SPECIAL);
        if (wide_too)
            host_case(ctx, CLSORT_I64, 8, M_RANDOM, 300, 24, CLSORT_AUTO,
                      CLSORT_NO_HOST_FALLBACK, T_FEW);
        host_case(ctx, CLSORT_U32, 4, M_EQUAL, 40, 100, CLSORT_AUTO,
                  CLSORT_NO_HOST_FALLBACK | CLSORT_DESCENDING, T_EQUAL);
        /* Full segments (no virtual slot) back to back, and with gaps between them, long and
         * short, keys and pairs: the tiles a load of the whole tile as one span of memory would
         * take (tried on the GPU and not kept: docs/perf.md), and those it must not. */
        host_case(ctx, CLSORT_U32, 0, M_EQUAL, 31, 1024, CLSORT_AUTO, CLSORT_NO_HOST_FALLBACK,
                  T_RANDOM);
        buffer_case(bctx, clc, q, CLSORT_U32, 4, M_EQUAL, 13, 2048, CLSORT_AUTO, 0);
        buffer_case(bctx, clc, q, CLSORT_U32, 0, M_FULL, 40, 1024, CLSORT_AUTO, 0);
        host_case(ctx, CLSORT_I32, 4, M_FULL, 30, 2048, CLSORT_AUTO,
                  CLSORT_NO_HOST_FALLBACK | CLSORT_DESCENDING, T_FEW);
        host_case(ctx, CLSORT_U32, 0, M_EQUAL, 700, 16, CLSORT_AUTO, CLSORT_NO_HOST_FALLBACK,
                  T_RANDOM);
        buffer_case(bctx, clc, q, CLSORT_U32, 0, M_FULL, 900, 16, CLSORT_AUTO, 0);
        buffer_case(bctx, clc, q, CLSORT_U32, 0, M_ALMOST, 700, 16, CLSORT_AUTO, 0);
        /* Equal lengths of a power of two are one span of memory per tile (lequal); all in one
         * bin but not all equal must not be taken for that. */
        host_case(ctx, CLSORT_U32, 0, M_ONEBIN, 700, 16, CLSORT_AUTO, CLSORT_NO_HOST_FALLBACK,
                  T_RANDOM);
        buffer_case(bctx, clc, q, CLSORT_U32, 4, M_ONEBIN, 60, 256, CLSORT_AUTO, 0);
        buffer_case(bctx, clc, q, CLSORT_U32, 0, M_RANDOM, 200, 40, CLSORT_AUTO, 0);
        buffer_case(bctx, clc, q, CLSORT_U32, 0, M_RANDOM, 400000, 6, CLSORT_AUTO, 0);
        if (wide_too)
            buffer_case(bctx, clc, q, info.has_fp64 ? CLSORT_F64 : CLSORT_U64, 8, M_HUGE, 20,
                        40, CLSORT_BITONIC, CLSORT_DESCENDING);
        /* Large segments: powers of two and not, above the old one-work-group bound of 16
         * tiles, keys and pairs, both directions; garbage offsets (overlapping segments make
         * more units than the map holds). */
        host_case(ctx, CLSORT_U32, 0, M_EQUAL, 3, 70001, CLSORT_AUTO, CLSORT_NO_HOST_FALLBACK,
                  T_RANDOM);
        buffer_case(bctx, clc, q, CLSORT_I32, 4, M_EQUAL, 3, 16384, CLSORT_BITONIC,
                    CLSORT_DESCENDING);
        buffer_case(bctx, clc, q, CLSORT_U32, 0, M_POWER, 40, 0, CLSORT_AUTO, 0);
        for (unsigned trial = 0; trial < 6; ++trial)
            garbage_case(bctx, clc, q, 100 + trial);
        if (level > 0)
            for (size_t e = 0; e < sizeof eq / sizeof *eq; ++e)
                host_case(ctx, CLSORT_U32, 0, M_EQUAL, eq[e] > 1000 ? 4 : 50, eq[e],
                          CLSORT_AUTO, CLSORT_NO_HOST_FALLBACK, T_RANDOM);
    }
    unsetenv("CLSORT_SEG_LARGE");
    unsetenv("CLSORT_SEG_PACK");
    unsetenv("CLSORT_SEG_TINY");
    unsetenv("CLSORT_SEG_STAGE");
    clsort_destroy(bctx);
    clReleaseCommandQueue(q);
    clReleaseContext(clc);
    clsort_destroy(ctx);
    return t_done();
}
