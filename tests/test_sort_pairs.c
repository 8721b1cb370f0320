/* test_sort_pairs.c - clsort_sort_pairs: keys sorted as clsort_sort sorts them, and every value
 * still beside its key. Each value encodes the original index of its key (8-byte values also carry
 * the index's complement in the high half, to catch lost or swapped halves), so the checks are:
 * keys equal the reference byte for byte, values form a permutation, and keys[i] equals the
 * original key at index values[i]. With CLSORT_STABLE, equal keys also keep their input order.
 *
 * Environment: CLSORT_TEST_SEED replays a run; CLSORT_TEST_LEVEL=0/1/2 scales the sizes. */
#include "test_util.h"

#define MAX_SHOWN 4

static clsort_ctx *ctx;
static int level = 1;
static unsigned char *orig, *keys, *ref, *vals, *seen;
static size_t cap;

typedef struct group {
    unsigned cases, failed;
    double ms;
} group;

static void ensure_capacity(size_t n)
{
    if (n + 1 <= cap)
        return;
    free(orig);
    free(keys);
    free(ref);
    free(vals);
    free(seen);
    cap = n + 1;
    orig = t_xmalloc(cap * 8);
    keys = t_xmalloc(cap * 8);
    ref = t_xmalloc(cap * 8);
    vals = t_xmalloc(cap * 8);
    seen = t_xmalloc(cap);
}

static void set_value(size_t vsize, size_t i, uint64_t index)
{
    if (vsize == 4) {
        const uint32_t v = (uint32_t)index;
        memcpy(vals + 4 * i, &v, 4);
    } else {
        const uint64_t v = ((uint64_t)(~(uint32_t)index) << 32) | (uint32_t)index;
        memcpy(vals + 8 * i, &v, 8);
    }
}

/* Decodes the original index a value carries; returns -1 if the value is not a valid encoding. */
static int64_t get_index(size_t vsize, size_t i)
{
    if (vsize == 4) {
        uint32_t v;
        memcpy(&v, vals + 4 * i, 4);
        return v;
    }
    uint64_t v;
    memcpy(&v, vals + 8 * i, 8);
    if ((uint32_t)(v >> 32) != (uint32_t)~(uint32_t)v)
        return -1;
    return (uint32_t)v;
}

/* One case. Returns 1 on success; on failure describes it (the first few per group). */
static int run_case(group *g, clsort_type type, size_t vsize, clsort_algorithm algo,
                    unsigned flags, t_dist dist, size_t n)
{
    const size_t sz = t_size(type);
    ensure_capacity(n);
    t_rng r = t_rng_for(type | (vsize << 8), algo | (flags << 8), dist, n);
    t_fill(type, dist, orig, n, &r);
    memcpy(keys, orig, n * sz);
    memcpy(ref, orig, n * sz);
    for (size_t i = 0; i < n; ++i)
        set_value(vsize, i, i);
    t_ref_sort(type, ref, n, (flags & CLSORT_DESCENDING) != 0);

    const double t0 = t_now_ms();
    const int rc = clsort_sort_pairs(ctx, n ? keys : NULL, n ? vals : NULL, vsize, n, type, algo,
                                     flags);
    g->ms += t_now_ms() - t0;
    ++g->cases;

    char what[160];
    snprintf(what, sizeof what, "%s keys, %zu-byte values, %s flags=%u dist=%s n=%zu",
             t_type_name(type), vsize, t_algo_name(algo), flags, t_dist_name(dist), n);
    const int show = g->failed < MAX_SHOWN;
    int ok = 1;
    if (!t_check_sorted(ctx, rc, what, show, type, keys, ref, n))
        ok = 0;
    if (rc == CLSORT_OK) {
        memset(seen, 0, n);
        int64_t prev = -1;
        for (size_t i = 0; ok && i < n; ++i) {
            const int64_t idx = get_index(vsize, i);
            if (idx < 0 || (size_t)idx >= n || seen[idx]) {
                ok = 0;
                if (show)
                    t_diag("%s: value at %zu is not a fresh original index (%" PRId64 "%s)", what,
                           i, idx, idx >= 0 && (size_t)idx < n ? ", repeated" : "");
                break;
            }
            seen[idx] = 1;
            if (t_get_bits(type, keys, i) != t_get_bits(type, orig, (size_t)idx)) {
                ok = 0;
                if (show)
                    t_diag("%s: value at %zu came with key 0x%" PRIx64 " but sits beside 0x%" PRIx64,
                           what, i, t_get_bits(type, orig, (size_t)idx),
                           t_get_bits(type, keys, i));
                break;
            }
            /* The radix sort is stable whether asked or not. */
            if (((flags & CLSORT_STABLE) || algo == CLSORT_RADIX) && i > 0 &&
                t_get_bits(type, keys, i) == t_get_bits(type, keys, i - 1) && idx < prev) {
                ok = 0;
                if (show)
                    t_diag("%s: not stable: equal keys at %zu and %zu came from input positions "
                           "%" PRId64 " and %" PRId64,
                           what, i - 1, i, prev, idx);
                break;
            }
            prev = idx;
        }
    }
    if (!ok) {
        if (show)
            t_diag("  replay with CLSORT_TEST_SEED=%" PRIu64, t_seed_);
        ++g->failed;
    }
    return ok;
}

static void report(const group *g, clsort_type type, size_t vsize, const char *algo,
                   unsigned flags, const char *what)
{
    t_ok(g->failed == 0, "%s keys + %zu-byte values %s %s%s: %s: %u cases (%.0f ms)",
         t_type_name(type), vsize, algo, (flags & CLSORT_DESCENDING) ? "desc" : "asc",
         (flags & CLSORT_STABLE) ? " stable" : "", what, g->cases, g->ms);
    if (g->failed)
        t_diag("%u of %u cases failed", g->failed, g->cases);
}

/* Sizes: all up to 40, then a stride (offset per group) to 1025, then boundaries of the params
 * in use, then powers of two +-1 up to 2^hi (one size per power beyond 2^12). */
static void test_sizes(clsort_type type, size_t vsize, clsort_algorithm algo, unsigned flags,
                       unsigned every, unsigned offset, unsigned hi)
{
    group g = {0, 0, 0};
    unsigned i = 0;
    for (size_t n = 0; n <= 1025; ++n)
        if (n <= 40 || n >= 1023 || n % every == offset % every)
            run_case(&g, type, vsize, algo, flags, (t_dist)(i++ % T_NDIST), n);
    clsort_params p;
    if (algo != CLSORT_AUTO && clsort_get_params(ctx, algo, type, vsize, &p) == CLSORT_OK &&
        p.tile) {
        const size_t tile = p.tile, kpi = p.keys_per_item ? p.keys_per_item : 2;
        const size_t bases[] = {p.wg_size, 2 * (size_t)p.wg_size, tile, 2 * tile, 3 * tile,
                                tile * kpi, tile * kpi * 2};
        for (size_t b = 0; b < sizeof bases / sizeof *bases; ++b)
            for (int d = -1; d <= 1; ++d)
                if (bases[b] > 1 && bases[b] <= ((size_t)1 << hi))
                    run_case(&g, type, vsize, algo, flags, (t_dist)(i++ % T_NDIST),
                             bases[b] + (size_t)(ptrdiff_t)d);
    }
    for (unsigned k = 11; k <= hi; ++k) {
        const size_t p2 = (size_t)1 << k;
        if (k <= 12) {
            for (int d = -1; d <= 1; ++d)
                run_case(&g, type, vsize, algo, flags, (t_dist)(i++ % T_NDIST),
                         p2 + (size_t)(ptrdiff_t)d);
        } else {
            run_case(&g, type, vsize, algo, flags, (t_dist)(i++ % T_NDIST),
                     p2 + (size_t)(ptrdiff_t)((int)((k + offset) % 3) - 1));
        }
    }
    char what[96];
    snprintf(what, sizeof what, "n 0..1025 (stride %u), boundaries, 2^11..2^%u +-1", every, hi);
    report(&g, type, vsize, t_algo_name(algo), flags, what);
}

/* Stability: many equal keys (equal, few distinct and special distributions, plus random keys
 * squeezed into a handful of values by the distributions' rotation). */
static void test_stable(clsort_type type, size_t vsize, clsort_algorithm algo, unsigned flags,
                        unsigned hi)
{
    static const t_dist dists[] = {T_FEW, T_EQUAL, T_SPECIAL, T_RANDOM, T_SORTED, T_REVERSED};
    group g = {0, 0, 0};
    unsigned i = 0;
    for (size_t n = 0; n <= 70; ++n)
        run_case(&g, type, vsize, algo, flags, dists[i++ % 3], n);
    for (unsigned k = 7; k <= hi; ++k) {
        const size_t p2 = (size_t)1 << k;
        for (int d = -1; d <= 1; ++d)
            run_case(&g, type, vsize, algo, flags, dists[i++ % 6], p2 + (size_t)(ptrdiff_t)d);
    }
    report(&g, type, vsize, t_algo_name(algo), flags, "equal-key runs keep input order");
}

/* The narrow key types and CLSORT_NAN_LARGEST with values: stable pairs are
 * numpy.argsort(kind="stable") (t_ref_stable's positions), unstable ones keep each value with
 * its key. A few sizes, 4- and 8-byte values, two networks, the radix sort and AUTO. */
static void test_new_types(int fp64)
{
    static const clsort_type types[] = {CLSORT_U8,  CLSORT_I8,   CLSORT_U16, CLSORT_I16,
                                        CLSORT_F16, CLSORT_BF16, CLSORT_F32, CLSORT_F64};
    static const size_t sizes[] = {3, 100, 5000, 70001};
    static const clsort_algorithm algos[] = {CLSORT_AUTO, CLSORT_BITONIC, CLSORT_ODD_EVEN_MERGE,
                                             CLSORT_RADIX};
    const size_t nsizes = level == 0 ? 3 : 4, maxn = 70001;
    unsigned char *in = t_xmalloc(maxn * 8), *got = t_xmalloc(maxn * 8), *want = t_xmalloc(maxn * 8);
    uint64_t *perm = t_xmalloc(maxn * 8), *vals = t_xmalloc(maxn * 8);
    for (size_t ti = 0; ti < sizeof types / sizeof *types; ++ti) {
        const clsort_type type = types[ti];
        if (type == CLSORT_F64 && !fp64)
            continue;
        unsigned cases = 0, failed = 0;
        for (size_t ai = 0; ai < sizeof algos / sizeof *algos; ++ai)
            for (unsigned v = 0; v < 8; ++v) {
                const unsigned flags = (v & 1 ? CLSORT_DESCENDING : 0) |
                                       (v & 2 ? CLSORT_NAN_LARGEST : 0) |
                                       (v & 4 ? CLSORT_STABLE : 0) |
                                       (ai ? CLSORT_NO_HOST_FALLBACK : 0);
                const int wide = (v + ai) & 1;
                for (size_t si = 0; si < nsizes; ++si) {
                    const size_t n = sizes[si];
                    t_rng r = t_rng_for(ti, ai * 8 + v, n, 91);
                    t_fill(type, si & 1 ? T_SPECIAL : T_FEW, in, n, &r);
                    memcpy(want, in, n * t_size(type));
                    t_ref_stable(type, want, n, flags, perm);
                    memcpy(got, in, n * t_size(type));
                    for (size_t i = 0; i < n; ++i) {
                        if (wide)
                            vals[i] = i;
                        else
                            ((uint32_t *)(void *)vals)[i] = (uint32_t)i;
                    }
                    const int rc = clsort_sort_pairs(ctx, got, vals, wide ? 8 : 4, n, type,
                                                     algos[ai], flags);
                    ++cases;
                    if ((rc != CLSORT_OK ||
                         !t_check_pairs(type, in, got, vals, wide, want, perm, n, flags)) &&
                        failed++ < 4)
                        t_diag("%s %s flags %u n %zu values %d: rc %d %s", t_type_name(type),
                               t_algo_name(algos[ai]), flags, n, wide ? 8 : 4, rc,
                               rc ? clsort_last_error(ctx) : "wrong result");
                }
            }
        t_ok(!failed, "%s pairs: both directions, with and without CLSORT_NAN_LARGEST and "
                      "CLSORT_STABLE (stable: numpy.argsort's order) (%u cases, %u failed)",
             t_type_name(type), cases, failed);
    }
    free(in);
    free(got);
    free(want);
    free(perm);
    free(vals);
}

int main(void)
{
    t_init("test_sort_pairs");
    level = t_level();
    ctx = t_create_ctx();
    clsort_device_info info;
    const int fp64 = clsort_get_device_info(ctx, &info) == CLSORT_OK && info.has_fp64;
    const unsigned nf = CLSORT_NO_HOST_FALLBACK;
    test_new_types(fp64);
    /* Values travel the same way whatever the key's type (the type only selects the key's bit
     * transform, which test_sort_keys covers): u32, u64 and f64 keys get the most sizes, i32,
     * f32 and i64 keys a lighter set. */
    unsigned groupno = 0;
    for (unsigned ti = 0; ti < T_NTYPES; ++ti) {
        const clsort_type type = t_types[ti];
        if (type == CLSORT_F64 && !fp64) {
            t_skip("f64: the device has no fp64");
            continue;
        }
        const int main_type = type == CLSORT_U32 || type == CLSORT_U64 || type == CLSORT_F64;
        const unsigned every = level >= 2 ? 3 : level == 0 ? 61 : main_type ? 13 : 29;
        for (size_t vsize = 4; vsize <= 8; vsize += 4)
            for (unsigned ai = 0; ai < T_NSORTS; ++ai)
                for (unsigned dir = 0; dir < 2; ++dir) {
                    const clsort_algorithm algo = t_algos[ai];
                    const int slow = algo == CLSORT_ODD_EVEN_TRANSPOSITION;
                    unsigned hi = type == CLSORT_U32 ? 18 : type == CLSORT_F64 ? 17 : 16;
                    if (!main_type)
                        hi = 13;
                    if (slow)
                        hi = main_type ? 14 : 12;
                    if (level >= 2)
                        hi = slow ? 16 : 20;
                    else if (level == 0)
                        hi = slow ? 12 : 14;
                    test_sizes(type, vsize, algo, nf | (dir ? CLSORT_DESCENDING : 0), every,
                               groupno++, hi);
                }
    }

    /* Stability, for 32- and 64-bit keys, both directions, every network. */
    static const clsort_type stable_types[] = {CLSORT_U32, CLSORT_I32, CLSORT_F32,
                                               CLSORT_U64, CLSORT_I64, CLSORT_F64};
    for (size_t t = 0; t < sizeof stable_types / sizeof *stable_types; ++t) {
        const clsort_type type = stable_types[t];
        if (type == CLSORT_F64 && !fp64)
            continue;
        for (unsigned ai = 0; ai < T_NSORTS; ++ai)
            for (unsigned dir = 0; dir < 2; ++dir) {
                const clsort_algorithm algo = t_algos[ai];
                const int slow = algo == CLSORT_ODD_EVEN_TRANSPOSITION;
                /* Full coverage for u32 and u64; the other types with AUTO and the radix sort
                 * (whose stability is its own, per key type) only. */
                if (type != CLSORT_U32 && type != CLSORT_U64 && algo != CLSORT_AUTO &&
                    algo != CLSORT_RADIX)
                    continue;
                const size_t vsize = ((t + ai + dir) & 1) ? 8 : 4;
                const unsigned hi = slow ? 12 : (level >= 2 ? 17 : level == 1 ? 15 : 13);
                test_stable(type, vsize, algo,
                            CLSORT_STABLE | nf | (dir ? CLSORT_DESCENDING : 0), hi);
            }
    }
    /* The radix sort without CLSORT_STABLE: stable anyway (run_case checks it), with runs of
     * equal keys that span tiles and work-groups. */
    for (unsigned dir = 0; dir < 2; ++dir) {
        group g = {0, 0, 0};
        static const t_dist ties[] = {T_FEW, T_EQUAL, T_SPECIAL};
        static const size_t sizes[] = {1000, 4097, 33000, 100003};
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; ++s)
            for (size_t d = 0; d < 3; ++d)
                run_case(&g, s & 1 ? CLSORT_F32 : CLSORT_U64, 4 + 4 * (d & 1), CLSORT_RADIX,
                         nf | (dir ? CLSORT_DESCENDING : 0), ties[d], sizes[s]);
        report(&g, CLSORT_U64, 0, "radix", nf | (dir ? CLSORT_DESCENDING : 0),
               "f32 and u64 keys with many ties, without CLSORT_STABLE: stable anyway");
    }
    /* Stable without the no-fallback flag, and stable keys alone (accepted, sorted). */
    for (unsigned dir = 0; dir < 2; ++dir) {
        test_stable(CLSORT_U32, 4, CLSORT_AUTO, CLSORT_STABLE | (dir ? CLSORT_DESCENDING : 0), 12);
        test_stable(CLSORT_I64, 8, CLSORT_AUTO, CLSORT_STABLE | (dir ? CLSORT_DESCENDING : 0), 12);
    }
    {
        uint32_t k[1000], want[1000];
        t_rng r = t_rng_for(99, 0, 0, 0);
        t_fill(CLSORT_U32, T_FEW, k, 1000, &r);
        memcpy(want, k, sizeof k);
        t_ref_sort(CLSORT_U32, want, 1000, 0);
        const int rc = clsort_sort(ctx, k, 1000, CLSORT_U32, CLSORT_AUTO,
                                   CLSORT_STABLE | CLSORT_NO_HOST_FALLBACK);
        t_is_status(rc, CLSORT_OK, "clsort_sort accepts CLSORT_STABLE for keys alone");
        t_ok(rc == CLSORT_OK && memcmp(k, want, sizeof k) == 0, "... and sorts them");
    }

    clsort_destroy(ctx);
    free(orig);
    free(keys);
    free(ref);
    free(vals);
    free(seen);
    return t_done();
}
