/* test_sort_keys.c - clsort_sort against the qsort reference: every key type, both directions,
 * every algorithm, sizes 0..1025, sizes around each tile and work-group boundary, powers of two
 * +-1 up to a few million, and every input distribution. Outputs are compared byte for byte, so
 * float bit patterns (NaN payloads, -0.0) must survive, and guard zones around the array catch
 * writes outside it.
 *
 * Environment: CLSORT_TEST_SEED replays a run; CLSORT_TEST_LEVEL=0/1/2 (quick/default/thorough)
 * scales the sizes; CLSORT_TEST_CASE=type:algo:flags:dist:n runs one case alone, verbosely, e.g.
 * CLSORT_TEST_CASE=f32:bitonic:5:special:1000 (algo: auto, bitonic, oem, transposition; flags as
 * the number: 1 descending, 4 no host fallback). */
#include "test_util.h"

#define GUARD 8 /* keys of guard zone before and after the array */
#define GUARD_BYTE 0xA5
#define MAX_SHOWN 4 /* failing cases described per test point */

static clsort_ctx *ctx;
static int level = 1;
static unsigned char *in_buf, *work_buf, *ref_buf; /* input, what the library sorts, reference */
static size_t buf_keys;                            /* capacity of each, in 8-byte keys */

/* One group of cases reported as one test point. */
typedef struct group {
    unsigned cases, failed;
    double ms;
} group;

static void ensure_capacity(size_t n)
{
    const size_t need = n + 2 * GUARD + 2;
    if (need <= buf_keys)
        return;
    free(in_buf);
    free(work_buf);
    free(ref_buf);
    in_buf = t_xmalloc(need * 8);
    work_buf = t_xmalloc(need * 8);
    ref_buf = t_xmalloc(need * 8);
    buf_keys = need;
}

static const char *algo_short(clsort_algorithm a)
{
    static const char *const names[] = {"auto", "bitonic", "oem", "transposition", "radix"};
    return (unsigned)a < 5 ? names[a] : "?";
}

/* Runs one case: fills the input, sorts it with the library, compares with the reference and
 * checks the guard zones and the statistics. Returns 1 on success; on failure describes it (the
 * first few per group) with a line that replays it alone. */
static int run_case(group *g, clsort_type type, clsort_algorithm algo, unsigned flags, t_dist dist,
                    size_t n, int verbose)
{
    const size_t sz = t_size(type);
    ensure_capacity(n);
    t_rng r = t_rng_for(type, algo, dist, n);
    t_fill(type, dist, in_buf, n, &r);

    /* The array starts after a guard zone, at an offset that alternates with n so that both
     * 8-byte aligned and misaligned (by one 4-byte key) host pointers are used. */
    const size_t front = GUARD + (sz == 4 ? (n & 1) : 0);
    memset(work_buf, GUARD_BYTE, (n + front + GUARD) * sz);
    unsigned char *keys = work_buf + front * sz;
    if (n)
        memcpy(keys, in_buf, n * sz);
    memcpy(ref_buf, in_buf, n * sz);
    t_ref_sort(type, ref_buf, n, (flags & CLSORT_DESCENDING) != 0);

    const double t0 = t_now_ms();
    const int rc = clsort_sort(ctx, n ? (void *)keys : NULL, n, type, algo, flags);
    g->ms += t_now_ms() - t0;
    ++g->cases;

    char what[160];
    int ok = 1;
    snprintf(what, sizeof what, "%s %s flags=%u dist=%s n=%zu", t_type_name(type),
             t_algo_name(algo), flags, t_dist_name(dist), n);
    const int show = verbose || g->failed < MAX_SHOWN;
    if (!t_check_sorted(ctx, rc, what, show, type, keys, ref_buf, n))
        ok = 0;
    if (rc == CLSORT_OK) {
        for (size_t i = 0; i < front * sz; ++i)
            if (work_buf[i] != GUARD_BYTE) {
                ok = 0;
                if (show)
                    t_diag("%s: guard before the array overwritten at byte %zu", what, i);
                break;
            }
        for (size_t i = 0; i < GUARD * sz; ++i)
            if (keys[n * sz + i] != GUARD_BYTE) {
                ok = 0;
                if (show)
                    t_diag("%s: guard after the array overwritten at byte %zu", what, i);
                break;
            }
        clsort_stats st;
        if ((flags & CLSORT_NO_HOST_FALLBACK) && n >= 2 &&
            clsort_get_stats(ctx, &st) == CLSORT_OK) {
            if (st.host_fallback || st.algorithm == CLSORT_AUTO ||
                (algo != CLSORT_AUTO && st.algorithm != algo) || st.launches == 0) {
                ok = 0;
                if (show)
                    t_diag("%s: stats say host_fallback=%d algorithm=%s launches=%u", what,
                           st.host_fallback, t_algo_name(st.algorithm), st.launches);
            }
        }
    }
    if (!ok) {
        if (show)
            t_diag("  replay: CLSORT_TEST_SEED=%" PRIu64 " CLSORT_TEST_CASE=%s:%s:%u:%s:%zu", t_seed_,
                   t_type_name(type), algo_short(algo), flags, t_dist_name(dist), n);
        ++g->failed;
    }
    return ok;
}

static void report(const group *g, const char *fmt, const char *a, const char *b, unsigned flags,
                   const char *what)
{
    char name[256];
    snprintf(name, sizeof name, fmt, a, b, (flags & CLSORT_DESCENDING) ? "desc" : "asc", what);
    t_ok(g->failed == 0, "%s: %u cases (%.0f ms)", name, g->cases, g->ms);
    if (g->failed)
        t_diag("%u of %u cases failed", g->failed, g->cases);
}

/* ---- The size plans ------------------------------------------------------------------------- */

/* Adds n to a small set (kept sorted and without duplicates). */
static size_t add_size(size_t *set, size_t count, size_t cap, size_t n)
{
    for (size_t i = 0; i < count; ++i)
        if (set[i] == n)
            return count;
    if (count == cap)
        return count;
    size_t i = count;
    while (i > 0 && set[i - 1] > n) {
        set[i] = set[i - 1];
        --i;
    }
    set[i] = n;
    return count + 1;
}

/* Sizes around the boundaries of the parameters the context really uses for (algo, type): tiles
 * and multiples, work-groups' worth of comparators, and the spans of the fused global passes. */
static size_t boundary_sizes(clsort_algorithm algo, clsort_type type, size_t *set, size_t cap,
                             size_t max_n)
{
    clsort_params p;
    size_t count = 0;
    if (clsort_get_params(ctx, algo, type, 0, &p) != CLSORT_OK || !p.tile || !p.wg_size)
        return 0;
    const size_t tile = p.tile, wg = p.wg_size, vec = p.vec_step ? p.vec_step : 1;
    const size_t kpi = p.keys_per_item ? p.keys_per_item : 2;
    size_t bases[40], nb = 0;
    bases[nb++] = wg;
    bases[nb++] = 2 * wg;
    bases[nb++] = 2 * wg * vec;
    bases[nb++] = 4 * wg * vec;
    bases[nb++] = tile / 2;
    for (size_t k = 1; k <= 5; ++k)
        bases[nb++] = k * tile;
    bases[nb++] = 7 * tile;
    bases[nb++] = 8 * tile;
    bases[nb++] = tile * kpi / 2;
    bases[nb++] = tile * kpi;
    bases[nb++] = tile * kpi * 2;
    bases[nb++] = tile * kpi * kpi;
    bases[nb++] = tile * kpi * kpi * 2;
    for (size_t i = 0; i < nb; ++i)
        for (int d = -1; d <= 1; ++d) {
            const size_t n = bases[i] + (size_t)(ptrdiff_t)d;
            if (bases[i] >= 1 && n <= max_n)
                count = add_size(set, count, cap, n);
        }
    return count;
}

/* Dense sizes: every n in 0..1025 when `every` is 1, else every n up to 40 and a stride of
 * `every` beyond, starting at an offset so that different groups cover different sizes. */
static int dense_wanted(size_t n, unsigned every, unsigned offset)
{
    return every <= 1 || n <= 40 || n >= 1020 || (n % every) == offset % every;
}

/* The distribution for case number i of a group: rotates so that every size class sees all. */
static t_dist dist_for(size_t i, unsigned salt)
{
    return (t_dist)((i + salt) % T_NDIST);
}

static void test_dense(clsort_type type, clsort_algorithm algo, unsigned flags, unsigned every,
                       unsigned offset)
{
    group g = {0, 0, 0};
    unsigned i = 0;
    for (size_t n = 0; n <= 1025; ++n)
        if (dense_wanted(n, every, offset))
            run_case(&g, type, algo, flags, dist_for(i++, flags + type), n, 0);
    char what[64];
    if (every <= 1)
        snprintf(what, sizeof what, "every n in 0..1025");
    else
        snprintf(what, sizeof what, "n in 0..1025 (all <= 40, then every %u)", every);
    report(&g, "%s %s %s: %s", t_type_name(type), t_algo_name(algo), flags, what);
}

static void test_boundaries(clsort_type type, clsort_algorithm algo, unsigned flags,
                            size_t max_n)
{
    size_t set[128];
    const size_t count = boundary_sizes(algo, type, set, 128, max_n);
    group g = {0, 0, 0};
    for (size_t i = 0; i < count; ++i)
        run_case(&g, type, algo, flags, dist_for(i, flags + type + 1), set[i], 0);
    clsort_params p = {0, 0, 0, 0};
    clsort_get_params(ctx, algo, type, 0, &p);
    char what[96];
    snprintf(what, sizeof what, "tile/work-group boundaries +-1 (tile %u, wg %u, vec %u, kpi %u)",
             p.tile, p.wg_size, p.vec_step, p.keys_per_item);
    report(&g, "%s %s %s: %s", t_type_name(type), t_algo_name(algo), flags, what);
}

/* The radix sort's size classes: around its tiles (a work-group ranks 256 to 4096 keys at a
 * time, by device and key width), one group with several tiles, several groups, and groups with
 * uneven shares of tiles (the last group shorter, n not a multiple of anything). */
static void test_radix_sizes(clsort_type type, unsigned flags, size_t max_n)
{
    static const size_t tiles[] = {256, 512, 1024, 2048, 4096};
    static const size_t mult[] = {1, 2, 3, 5, 8, 17, 33, 100, 257};
    size_t set[128];
    size_t count = 0;
    for (size_t t = 0; t < sizeof tiles / sizeof *tiles; ++t)
        for (size_t m = 0; m < sizeof mult / sizeof *mult; ++m)
            for (int d = -1; d <= 1; ++d) {
                const size_t n = tiles[t] * mult[m] + (size_t)(ptrdiff_t)d;
                if (n <= max_n && (level > 0 || (m + t + (size_t)(d + 1)) % 3 == 0))
                    count = add_size(set, count, 128, n);
            }
    group g = {0, 0, 0};
    for (size_t i = 0; i < count; ++i)
        run_case(&g, type, CLSORT_RADIX, flags, dist_for(i, flags + type + 1), set[i], 0);
    report(&g, "%s %s %s: %s", t_type_name(type), "radix", flags,
           "tiles +-1, several tiles a group, several groups");
}

/* Powers of two +-1 from 2^lo to 2^hi: all three sizes up to 2^full_hi, beyond that one size per
 * power (rotating between -1, 0, +1); the distribution rotates from case to case. */
static void test_pow2(clsort_type type, clsort_algorithm algo, unsigned flags, unsigned lo,
                      unsigned full_hi, unsigned hi)
{
    group g = {0, 0, 0};
    unsigned i = 0;
    for (unsigned k = lo; k <= hi; ++k) {
        const size_t p = (size_t)1 << k;
        if (k <= full_hi) {
            for (int d = -1; d <= 1; ++d)
                run_case(&g, type, algo, flags, dist_for(i++, type), p + (size_t)(ptrdiff_t)d, 0);
        } else {
            const int d = (int)((k + type + flags) % 3) - 1;
            run_case(&g, type, algo, flags, dist_for(i++, type + flags), p + (size_t)(ptrdiff_t)d,
                     0);
        }
    }
    char what[64];
    snprintf(what, sizeof what, "powers of two +-1, 2^%u..2^%u", lo, hi);
    report(&g, "%s %s %s: %s", t_type_name(type), t_algo_name(algo), flags, what);
}

/* Every distribution at a few sizes, sorted by the library's own choice (host fallback allowed). */
/* The narrow key types and CLSORT_NAN_LARGEST: a few sizes and distributions for each network
 * and the radix sort (which sorts narrow keys' composites by their class bits alone),
 * both directions, with and without the flag (and stable, which keeps NaN payloads and zero signs
 * in input order), against t_ref_stable; the same keys through clsort_sort_buffer (unstable)
 * and clsort_sort_batch. Lean: the full matrix above runs the 32- and 64-bit types. */
static void sort_buffer_case(clsort_type type, clsort_algorithm algo, unsigned flags, void *keys,
                             size_t n, int *rc)
{
    cl_command_queue q = clsort_get_queue(ctx);
    cl_context cc;
    clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof cc, &cc, NULL);
    cl_int err;
    const size_t bytes = n * t_size(type);
    cl_mem m = clCreateBuffer(cc, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, keys, &err);
    if (err != CL_SUCCESS)
        t_bail("clCreateBuffer: %d", err);
    cl_event done = NULL;
    *rc = clsort_sort_buffer(ctx, m, NULL, 0, n, type, algo, flags, 0, NULL, &done);
    if (done) {
        clWaitForEvents(1, &done);
        clReleaseEvent(done);
    }
    clEnqueueReadBuffer(q, m, CL_TRUE, 0, bytes, keys, 0, NULL, NULL);
    clReleaseMemObject(m);
}

static int algo_slow(clsort_algorithm algo)
{
    return algo == CLSORT_ODD_EVEN_TRANSPOSITION;
}

static void test_new_types(int fp64)
{
    static const clsort_type types[] = {CLSORT_U8,  CLSORT_I8,   CLSORT_U16, CLSORT_I16,
                                        CLSORT_F16, CLSORT_BF16, CLSORT_F32, CLSORT_F64};
    static const size_t sizes[] = {2, 33, 1000, 4097, 70001};
    const size_t nsizes = level == 0 ? 4 : 5, maxn = 70001 * 3;
    unsigned char *in = t_xmalloc(maxn * 8), *got = t_xmalloc(maxn * 8),
                  *want = t_xmalloc(maxn * 8);
    for (size_t ti = 0; ti < sizeof types / sizeof *types; ++ti) {
        const clsort_type type = types[ti];
        if (type == CLSORT_F64 && !fp64)
            continue;
        const int fl = t_is_float(type);
        unsigned cases = 0, failed = 0;
        for (unsigned ai = 0; ai < T_NSORTS; ++ai)
            for (unsigned v = 0; v < 6; ++v) {
                const unsigned flags = CLSORT_NO_HOST_FALLBACK |
                                       (v & 1 ? CLSORT_DESCENDING : 0) |
                                       (v >= 2 ? CLSORT_NAN_LARGEST : 0) |
                                       (v >= 4 ? CLSORT_STABLE : 0);
                if (!fl && (v == 2 || v == 3))
                    continue; /* integers ignore the flag: v 4, 5 run it once */
                for (size_t si = 0; si < nsizes; ++si) {
                    const size_t n = sizes[si];
                    if (algo_slow(t_algos[ai]) && n > 5000)
                        continue;
                    t_rng r = t_rng_for(ti, ai * 8 + v, n, 77);
                    t_fill(type, si & 1 ? T_SPECIAL : si == 2 ? T_FEW : T_RANDOM, in, n, &r);
                    memcpy(want, in, n * t_size(type));
                    t_ref_stable(type, want, n, flags, NULL);
                    memcpy(got, in, n * t_size(type));
                    int rc = clsort_sort(ctx, got, n, type, t_algos[ai], flags);
                    size_t at = rc == CLSORT_OK ? t_check_order(type, in, got, want, n, flags) : 0;
                    cases++;
                    if (at != n && failed++ < MAX_SHOWN)
                        t_diag("clsort_sort %s %s flags %u n %zu: rc %d, first difference at %zu",
                               t_type_name(type), t_algo_name(t_algos[ai]), flags, n, rc, at);
                    if (flags & CLSORT_STABLE)
                        continue;
                    memcpy(got, in, n * t_size(type));
                    sort_buffer_case(type, t_algos[ai], flags, got, n, &rc);
                    at = rc == CLSORT_OK ? t_check_order(type, in, got, want, n, flags) : 0;
                    cases++;
                    if (at != n && failed++ < MAX_SHOWN)
                        t_diag("clsort_sort_buffer %s %s flags %u n %zu: rc %d, first difference "
                               "at %zu",
                               t_type_name(type), t_algo_name(t_algos[ai]), flags, n, rc, at);
                }
            }
        /* A batch of three arrays. */
        const size_t n = 1000;
        t_rng r = t_rng_for(ti, 99, n, 78);
        t_fill(type, T_SPECIAL, in, 3 * n, &r);
        memcpy(got, in, 3 * n * t_size(type));
        const unsigned bflags = CLSORT_NO_HOST_FALLBACK | CLSORT_NAN_LARGEST | CLSORT_DESCENDING;
        int rc = clsort_sort_batch(ctx, got, n, 3, type, CLSORT_BITONIC, bflags);
        for (size_t b = 0; b < 3; ++b) {
            const size_t off = b * n * t_size(type);
            memcpy(want + off, in + off, n * t_size(type));
            t_ref_stable(type, want + off, n, bflags, NULL);
            cases++;
            if (rc != CLSORT_OK ||
                t_check_order(type, in + off, got + off, want + off, n, bflags) != n)
                if (failed++ < MAX_SHOWN)
                    t_diag("clsort_sort_batch %s array %zu: rc %d", t_type_name(type), b, rc);
        }
        t_ok(!failed, "%s: every network, both directions, with and without CLSORT_NAN_LARGEST "
                      "and CLSORT_STABLE, clsort_sort_buffer and clsort_sort_batch (%u cases, "
                      "%u failed)",
             t_type_name(type), cases, failed);
    }
    free(in);
    free(got);
    free(want);
}

static void test_with_fallback(clsort_type type)
{
    static const size_t sizes[] = {0, 1, 2, 3, 5, 16, 17, 100, 255, 1000, 4097, 70000};
    for (unsigned f = 0; f < 2; ++f) {
        group g = {0, 0, 0};
        for (unsigned a = 0; a < T_NSORTS; ++a)
            for (size_t s = 0; s < sizeof sizes / sizeof *sizes; ++s)
                for (unsigned d = 0; d < T_NDIST; ++d)
                    if (sizes[s] <= 4097 || d == (s + a) % T_NDIST)
                        run_case(&g, type, t_algos[a], f ? CLSORT_DESCENDING : 0, (t_dist)d,
                                 sizes[s], 0);
        report(&g, "%s %s %s: %s", t_type_name(type), "all algorithms", f,
               "without CLSORT_NO_HOST_FALLBACK, sizes 0..70000");
    }
}

/* The groups that go beyond 2^19 keys (to 2^big_log2, 64-bit keys one power less): each fast network in one direction for
 * 32-bit and for 64-bit keys, as the networks depend on the key's width and not its type (the
 * type only selects the bit transform, which the smaller sizes cover). Everything at level 2. */
static unsigned big_log2 = 22;
static int big_group(clsort_type type, clsort_algorithm algo, unsigned dir)
{
    if (level >= 2)
        return 1;
    switch (algo) {
    case CLSORT_BITONIC:
        return (type == CLSORT_U32 && dir == 0) || (type == CLSORT_F64 && dir == 1);
    case CLSORT_ODD_EVEN_MERGE:
        return (type == CLSORT_U32 && dir == 1) || (type == CLSORT_I64 && dir == 0);
    case CLSORT_AUTO:
        return (type == CLSORT_F32 && dir == 1) || (type == CLSORT_U64 && dir == 0);
    case CLSORT_RADIX:
        return (type == CLSORT_I32 && dir == 0) || (type == CLSORT_F64 && dir == 1);
    default:
        return 0;
    }
}

/* CLSORT_TEST_CASE=type:algo:flags:dist:n */
static int replay_one(const char *spec)
{
    char tname[16], aname[32], dname[16];
    unsigned flags;
    size_t n;
    if (sscanf(spec, "%15[^:]:%31[^:]:%u:%15[^:]:%zu", tname, aname, &flags, dname, &n) != 5)
        t_bail("CLSORT_TEST_CASE=%s: want type:algo:flags:dist:n", spec);
    int type = -1, algo = -1, dist = -1;
    for (int i = 0; i < T_NTYPES; ++i)
        if (!strcmp(tname, t_type_name((clsort_type)i)))
            type = i;
    for (int i = 0; i < T_NSORTS; ++i)
        if (!strcmp(aname, algo_short((clsort_algorithm)i)) ||
            !strcmp(aname, t_algo_name((clsort_algorithm)i)))
            algo = i;
    for (int i = 0; i < T_NDIST; ++i)
        if (!strcmp(dname, t_dist_name((t_dist)i)))
            dist = i;
    if (type < 0 || algo < 0 || dist < 0)
        t_bail("CLSORT_TEST_CASE=%s: unknown type, algorithm or distribution", spec);
    group g = {0, 0, 0};
    run_case(&g, (clsort_type)type, (clsort_algorithm)algo, flags, (t_dist)dist, n, 1);
    t_ok(g.failed == 0, "replay %s (%.1f ms)", spec, g.ms);
    return t_done();
}

int main(void)
{
    t_init("test_sort_keys");
    level = t_level();
    ctx = t_create_ctx();
    const char *one = getenv("CLSORT_TEST_CASE");
    if (one && *one) {
        const int rc = replay_one(one);
        clsort_destroy(ctx);
        return rc;
    }

    clsort_device_info info;
    const int fp64 = clsort_get_device_info(ctx, &info) == CLSORT_OK && info.has_fp64;
    const unsigned nf = CLSORT_NO_HOST_FALLBACK;
    /* Largest power of two for the fast networks: 2^22 (4M keys) by default. */
    big_log2 = level >= 2 ? 23 : level == 1 ? 22 : 18;
    test_new_types(fp64);

    for (unsigned ti = 0; ti < T_NTYPES; ++ti) {
        const clsort_type type = t_types[ti];
        if (type == CLSORT_F64 && !fp64) {
            double d[2] = {2.0, 1.0};
            t_is_status(clsort_sort(ctx, d, 2, type, CLSORT_BITONIC, nf), CLSORT_ERR_UNSUPPORTED,
                        "f64 on a device without fp64 is unsupported");
            t_skip("f64: the device has no fp64");
            continue;
        }
        for (unsigned ai = 0; ai < T_NSORTS; ++ai) {
            const clsort_algorithm algo = t_algos[ai];
            const int slow = algo == CLSORT_ODD_EVEN_TRANSPOSITION;
            for (unsigned dir = 0; dir < 2; ++dir) {
                const unsigned flags = nf | (dir ? CLSORT_DESCENDING : 0);
                /* Every n in 0..1025 for every combination (small sorts are cheap), but for the
                 * transposition network of i32, f32, i64 and f64 every other n, and at level 0
                 * only for the u32 fast networks and a stride elsewhere, with an offset per
                 * group so that the groups together still cover most sizes. */
                unsigned every = 1;
                if (level == 0 &&
                    !(type == CLSORT_U32 &&
                      (algo == CLSORT_BITONIC || algo == CLSORT_ODD_EVEN_MERGE)))
                    every = 29;
                else if (level == 1 && slow && type != CLSORT_U32 && type != CLSORT_U64)
                    every = 2;
                test_dense(type, algo, flags, every, ti * 8 + ai * 2 + dir);
                /* Sizes beyond 2^19 only in a few groups (see big_group); the rest stop there.
                 * The transposition network stops at 2^16 (it needs O(n / TILE) rounds), and
                 * its boundaries at 2^15 + 1 except for u32. */
                const int big = big_group(type, algo, dir);
                if (algo == CLSORT_RADIX)
                    test_radix_sizes(type, flags, big ? 1u << 22 : (1u << 19) + 1);
                else if (algo != CLSORT_AUTO)
                    test_boundaries(type, algo, flags,
                                    slow ? (type == CLSORT_U32 ? (1u << 16) + 1 : (1u << 15) + 1)
                                    : big ? 1u << 22
                                          : (1u << 19) + 1);
                unsigned hi = slow ? 16 : big ? big_log2 - (t_size(type) == 8 && level < 2) : 19;
                if (level == 0)
                    hi = slow ? 13 : 18;
                test_pow2(type, algo, flags, 1, slow ? 12 : 16, hi);
            }
        }
        test_with_fallback(type);
    }
    clsort_destroy(ctx);
    free(in_buf);
    free(work_buf);
    free(ref_buf);
    return t_done();
}
