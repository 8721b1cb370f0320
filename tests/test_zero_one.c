/* test_zero_one.c - the 0-1 principle: a comparator network sorts every input if it sorts every
 * input of 0s and 1s. For each network, each n from 1 to 16 (18 at CLSORT_TEST_LEVEL=2) and both
 * directions, all 2^n 0/1 inputs of length n are sorted in one clsort_sort_batch call and checked.
 * This runs with the default parameters and with tiny ones (set with clsort_set_params), so that
 * even n <= 16 spans many tiles and every kind of pass runs: the local tile sort, fused global
 * passes, local merge passes, and the transposition's block merge-split across work-groups.
 * Random 0/1 inputs at larger n, and batches of random keys, complete the picture.
 *
 * Environment: CLSORT_TEST_SEED replays a run; CLSORT_TEST_LEVEL=0/1/2 scales the sizes. */
#include "test_util.h"

static clsort_ctx *ctx;
static int level = 1;

static const clsort_algorithm networks[] = {CLSORT_BITONIC, CLSORT_ODD_EVEN_MERGE,
                                            CLSORT_ODD_EVEN_TRANSPOSITION};

/* Parameter sets: the defaults (all zeros) and tiny ones that split 16 keys into many tiles; the
 * last two share each tile among work-items, as on GPUs (16 keys a work-item in a 64-key tile,
 * and 32 keys a work-item in a 1024-key tile, which uses the bank-conflict-free layouts): on a CPU
 * the defaults never do, and only the random 0/1 inputs (n > TILE) reach the compile-time paths
 * of bitonic_sort_tile and bitonic_merge_tile. The sets with vec_step 2..16 run bitonic's rows as
 * vectors (rows.cl): with vec_step == tile the solo tile's lane sort and the tail kernels' lane
 * half-cleaners, with vec_step < tile the row passes alone. */
static const clsort_params param_sets[] = {
    {0, 0, 0, 0},    {1, 1, 2, 2},  {2, 1, 4, 4},  {2, 2, 8, 2},   {1, 1, 4, 2},
    {4, 1, 8, 8},    {4, 1, 64, 8}, {32, 1, 1024, 8}, {2, 4, 4, 4}, {2, 8, 8, 2},
    {2, 16, 16, 8},  {2, 4, 16, 4}, {2, 2, 2, 2},  {16, 1, 128, 2},
};
#define NSETS (sizeof param_sets / sizeof *param_sets)

static const char *params_str(const clsort_params *p, char *buf, size_t size)
{
    if (!p->wg_size && !p->vec_step && !p->tile && !p->keys_per_item)
        snprintf(buf, size, "default params");
    else
        snprintf(buf, size, "params {wg %u, vec %u, tile %u, kpi %u}", p->wg_size, p->vec_step,
                 p->tile, p->keys_per_item);
    return buf;
}

static int popcount32(uint32_t x)
{
    int c = 0;
    for (; x; x &= x - 1)
        ++c;
    return c;
}

/* All 2^n inputs of length n at once; returns the number of wrong outputs (and describes the
 * first), or -1 if the call failed. */
static long exhaustive(clsort_algorithm algo, unsigned n, unsigned flags, uint32_t *keys)
{
    const size_t count = (size_t)1 << n;
    for (size_t j = 0; j < count; ++j)
        for (unsigned i = 0; i < n; ++i)
            keys[j * n + i] = (uint32_t)(j >> i) & 1;
    const int rc = clsort_sort_batch(ctx, keys, n, count, CLSORT_U32, algo, flags);
    if (rc != CLSORT_OK) {
        t_diag("n=%u: clsort_sort_batch returned %s: %s", n, clsort_status_name(rc),
               clsort_last_error(ctx));
        return -1;
    }
    long bad = 0;
    const int desc = (flags & CLSORT_DESCENDING) != 0;
    for (size_t j = 0; j < count; ++j) {
        const unsigned ones = (unsigned)popcount32((uint32_t)j);
        const uint32_t *out = keys + j * n;
        int ok = 1;
        for (unsigned i = 0; i < n; ++i) {
            const uint32_t want = desc ? (i < ones) : (i >= n - ones);
            if (out[i] != want)
                ok = 0;
        }
        if (!ok && bad++ == 0) {
            char in_s[40], out_s[40];
            for (unsigned i = 0; i < n; ++i) {
                in_s[i] = (char)('0' + ((j >> i) & 1));
                out_s[i] = out[i] <= 1 ? (char)('0' + out[i]) : '?';
            }
            in_s[n] = out_s[n] = 0;
            t_diag("n=%u: input %s sorted to %s", n, in_s, out_s);
        }
    }
    return bad;
}

/* The segmented sort's networks (tiny, packed and group passes, by length): every 0/1 input of
 * every length 1..max_n as its own segment, all in one clsort_sort_segments call, so that one
 * launch of each pass holds every bin up to 2^max_n. With wide > 16, every 64th segment is
 * instead one of 17 .. wide 0/1 keys (in turn; random bits, densities from sparse to dense):
 * the staged tiny pass then runs every segment of that work-group through the network for the
 * group's longest (24, 32 or 64 slots), so the short inputs go through those networks too, and
 * each of them meets 0/1 inputs of its full length. Returns the wrong segments, -1 on
 * failure. */
static long exhaustive_segments(clsort_algorithm algo, unsigned max_n, unsigned flags,
                                unsigned wide)
{
    size_t nseg = 0, total = 0;
    for (unsigned n = 1; n <= max_n; ++n) {
        nseg += (size_t)1 << n;
        total += ((size_t)1 << n) * n;
    }
    if (wide) {
        nseg += nseg / 63 + 1;
        total += (nseg / 64 + 1) * wide;
    }
    uint32_t *keys = t_xmalloc(total * sizeof *keys);
    uint64_t *off = t_xmalloc((nseg + 1) * sizeof *off);
    uint32_t *ones = t_xmalloc(nseg * sizeof *ones);
    t_rng r = t_rng_for(algo, flags, wide, max_n);
    size_t s = 0, at = 0;
    off[0] = 0;
    for (unsigned n = 1; n <= max_n; ++n)
        for (size_t j = 0; j < ((size_t)1 << n); ++j) {
            if (wide && s % 64 == 63) {
                const uint64_t density = 1 + t_rand_below(&r, 15);
                const unsigned w = 17 + (unsigned)(s / 64) % (wide - 16);
                ones[s] = 0;
                for (unsigned i = 0; i < w; ++i) {
                    keys[at + i] = t_rand_below(&r, 16) < density;
                    ones[s] += keys[at + i];
                }
                at += w;
                off[++s] = at;
            }
            for (unsigned i = 0; i < n; ++i)
                keys[at + i] = (uint32_t)(j >> i) & 1;
            ones[s] = (uint32_t)popcount32((uint32_t)j);
            at += n;
            off[++s] = at;
        }
    nseg = s;
    const int rc = clsort_sort_segments(ctx, keys, NULL, 0, off, nseg, CLSORT_U32, algo,
                                        flags | CLSORT_NO_HOST_FALLBACK);
    long bad = 0;
    if (rc != CLSORT_OK) {
        t_diag("clsort_sort_segments returned %s: %s", clsort_status_name(rc),
               clsort_last_error(ctx));
        bad = -1;
    }
    const int desc = (flags & CLSORT_DESCENDING) != 0;
    for (s = 0; s < nseg && bad >= 0; ++s) {
        const size_t n = off[s + 1] - off[s];
        const uint32_t *out = keys + off[s];
        int ok = 1;
        for (size_t i = 0; i < n; ++i)
            if (out[i] != (uint32_t)(desc ? (i < ones[s]) : (i >= n - ones[s])))
                ok = 0;
        if (!ok && bad++ == 0)
            t_diag("segment %zu (%zu keys, %u ones) sorted wrong", s, n, ones[s]);
    }
    free(keys);
    free(off);
    free(ones);
    return bad;
}

/* Random 0/1 inputs at larger n with clsort_sort; returns the number of failed cases. */
static unsigned random_zero_one(clsort_algorithm algo, unsigned flags, size_t max_n,
                                unsigned salt)
{
    static const size_t sizes[] = {17, 31, 33, 63, 100, 127, 129, 255, 257, 600, 1000, 1025,
                                   2047, 4099, 10007, 65537, 300001};
    unsigned failed = 0;
    uint32_t *k = NULL;
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes && sizes[s] <= max_n; ++s) {
        const size_t n = sizes[s];
        k = realloc(k, n * sizeof *k);
        if (!k)
            t_bail("out of memory");
        t_rng r = t_rng_for(algo, flags, salt, n);
        /* Densities from sparse to dense ones. */
        const uint64_t density = 1 + t_rand_below(&r, 15);
        size_t ones = 0;
        for (size_t i = 0; i < n; ++i) {
            k[i] = t_rand_below(&r, 16) < density;
            ones += k[i];
        }
        const int rc = clsort_sort(ctx, k, n, CLSORT_U32, algo, flags | CLSORT_NO_HOST_FALLBACK);
        int ok = rc == CLSORT_OK;
        for (size_t i = 0; ok && i < n; ++i) {
            const uint32_t want =
                (flags & CLSORT_DESCENDING) ? (i < ones) : (i >= n - ones);
            if (k[i] != want) {
                ok = 0;
                if (!failed)
                    t_diag("random 0/1, n=%zu, %zu ones: wrong at index %zu (got %u)", n, ones, i,
                           k[i]);
            }
        }
        if (rc != CLSORT_OK && !failed)
            t_diag("random 0/1, n=%zu: returned %s: %s", n, clsort_status_name(rc),
                   clsort_last_error(ctx));
        failed += !ok;
    }
    free(k);
    return failed;
}

/* The 0-1 principle for the narrow types and CLSORT_NAN_LARGEST: every 0/1 input of every
 * n up to max_n, where a 0 is a key of the low class and a 1 one of the high class, each in
 * several bit patterns (NAN_LARGEST: a 0 is +0 or -0 and a 1 a NaN of either sign and various
 * payloads, all of which must compare equal; integers: their minimum and maximum), sorted by one
 * clsort_sort_batch per n; the output's
 * classes must be the sorted 0/1 sequence. */
static unsigned zero_one_types(unsigned max_n)
{
    static const clsort_type types[] = {CLSORT_U8, CLSORT_I16, CLSORT_F16, CLSORT_BF16,
                                        CLSORT_F32, CLSORT_F64};
    clsort_device_info info;
    const int fp64 = clsort_get_device_info(ctx, &info) == CLSORT_OK && info.has_fp64;
    unsigned failed_all = 0;
    for (size_t ti = 0; ti < sizeof types / sizeof *types; ++ti) {
        const clsort_type type = types[ti];
        if (type == CLSORT_F64 && !fp64)
            continue;
        const t_keytype t = t_row(type);
        const unsigned nl = t.kind == CLSORT_KIND_FLOAT ? CLSORT_NAN_LARGEST : 0;
        const uint64_t sign = (uint64_t)1 << (t.bits - 1);
        const uint64_t exp_all = (sign - 1) >> t.mant << t.mant;
        /* Low and high keys in four spellings each. */
        uint64_t lo[4], hi[4];
        for (int i = 0; i < 4; ++i) {
            if (nl) {
                lo[i] = i & 1 ? sign : 0;
                hi[i] = (i & 2 ? sign : 0) | exp_all | (i == 0 ? 1 : ((uint64_t)i << (t.mant - 2)) | i);
            } else {
                /* Integers: equal keys have equal bits, so one spelling each, at the extremes. */
                lo[i] = t.kind == CLSORT_KIND_INT ? sign : 0;
                hi[i] = t.kind == CLSORT_KIND_INT ? sign - 1 : (sign << 1) - 1;
            }
        }
        for (size_t ni = 0; ni < sizeof networks / sizeof *networks; ++ni)
            for (unsigned dir = 0; dir < 2; ++dir) {
                const unsigned flags = (dir ? CLSORT_DESCENDING : 0) | nl | CLSORT_NO_HOST_FALLBACK;
                unsigned failed = 0;
                for (unsigned n = 1; n <= max_n; ++n) {
                    const size_t count = (size_t)1 << n;
                    unsigned char *k = t_xmalloc(count * n * t_size(type));
                    for (size_t j = 0; j < count; ++j)
                        for (unsigned i = 0; i < n; ++i)
                            t_set_bits(type, k, j * n + i,
                                       (j >> i) & 1 ? hi[(i + j) & 3] : lo[(i * 3 + j) & 3]);
                    const int rc = clsort_sort_batch(ctx, k, n, count, type, networks[ni], flags);
                    const uint64_t clo = t_class(type, lo[0], nl), chi = t_class(type, hi[0], nl);
                    for (size_t j = 0; j < count && rc == CLSORT_OK; ++j) {
                        const unsigned ones = (unsigned)popcount32((uint32_t)j);
                        int ok = 1;
                        for (unsigned i = 0; i < n; ++i) {
                            const int one = dir ? i < ones : i >= n - ones;
                            ok &= t_class(type, t_get_bits(type, k, j * n + i), nl) ==
                                  (one ? chi : clo);
                        }
                        failed += !ok;
                    }
                    failed += rc != CLSORT_OK;
                    free(k);
                }
                t_ok(!failed, "%s%s %s %s: every 0/1 input of every n in 1..%u, each class in "
                              "four bit patterns",
                     t_type_name(type), nl ? " NAN_LARGEST" : "", t_algo_name(networks[ni]),
                     dir ? "desc" : "asc", max_n);
                failed_all += failed;
            }
    }
    return failed_all;
}

/* Batches of random keys of every width: each array sorted on its own. */
static void test_random_batches(void)
{
    static const size_t shapes[][2] = {{0, 5}, {5, 0}, {1, 7}, {2, 1000}, {3, 333}, {7, 100},
                                       {16, 64}, {100, 10}, {129, 9}, {1000, 3}, {1025, 2},
                                       {4096, 2}, {5000, 1}, {70001, 2}};
    for (unsigned ti = 0; ti < T_NTYPES; ++ti) {
        const clsort_type type = t_types[ti];
        clsort_device_info info;
        if (type == CLSORT_F64 &&
            (clsort_get_device_info(ctx, &info) != CLSORT_OK || !info.has_fp64))
            continue;
        for (unsigned ai = 0; ai < T_NALGOS; ++ai) {
            unsigned failed = 0, cases = 0;
            for (size_t s = 0; s < sizeof shapes / sizeof *shapes; ++s) {
                const size_t n = shapes[s][0], count = shapes[s][1], sz = t_size(type);
                const unsigned flags = (unsigned)(s & 1) ? CLSORT_DESCENDING : 0;
                unsigned char *k = t_xmalloc(n * count * sz + 1);
                unsigned char *want = t_xmalloc(n * count * sz + 1);
                t_rng r = t_rng_for(type, ai, n, count);
                for (size_t c = 0; c < count; ++c)
                    t_fill(type, (t_dist)((c + s) % T_NDIST), k + c * n * sz, n, &r);
                memcpy(want, k, n * count * sz);
                for (size_t c = 0; c < count; ++c)
                    t_ref_sort(type, want + c * n * sz, n, flags != 0);
                const int rc = clsort_sort_batch(ctx, k, n, count, type, t_algos[ai], flags);
                ++cases;
                const size_t at = t_first_diff(type, k, want, n * count);
                if (rc != CLSORT_OK || at < n * count) {
                    if (!failed) {
                        t_diag("%s %s n=%zu count=%zu flags=%u: %s", t_type_name(type),
                               t_algo_name(t_algos[ai]), n, count, flags,
                               rc != CLSORT_OK ? clsort_last_error(ctx) : "wrong output");
                        if (rc == CLSORT_OK)
                            t_diag_diff(type, k, want, n * count, at);
                    }
                    ++failed;
                }
                free(k);
                free(want);
            }
            t_ok(!failed, "clsort_sort_batch of random %s arrays, %s: %u shapes", t_type_name(type),
                 t_algo_name(t_algos[ai]), cases);
        }
    }
}

int main(void)
{
    t_init("test_zero_one");
    level = t_level();
    ctx = t_create_ctx();
    const unsigned max_n = level >= 2 ? 18 : 16;
    zero_one_types(level >= 2 ? 14 : 10);
    uint32_t *keys = t_xmalloc(((size_t)1 << max_n) * max_n * sizeof *keys);

    for (size_t ni = 0; ni < sizeof networks / sizeof *networks; ++ni) {
        const clsort_algorithm algo = networks[ni];
        for (size_t ps = 0; ps < NSETS; ++ps) {
            const clsort_params *p = &param_sets[ps];
            char pstr[96];
            params_str(p, pstr, sizeof pstr);
            const int rc = clsort_set_params(ctx, algo, CLSORT_U32, 0, p);
            if (!t_is_status(rc, CLSORT_OK, "%s: clsort_set_params accepts %s",
                             t_algo_name(algo), pstr)) {
                t_diag("%s", clsort_last_error(ctx));
                continue;
            }
            clsort_params used;
            if (ps > 0 && clsort_get_params(ctx, algo, CLSORT_U32, 0, &used) == CLSORT_OK)
                t_ok(used.wg_size == p->wg_size && used.vec_step == p->vec_step &&
                         used.tile == p->tile && used.keys_per_item == p->keys_per_item,
                     "%s: clsort_get_params returns the %s set (got {%u, %u, %u, %u})",
                     t_algo_name(algo), pstr, used.wg_size, used.vec_step, used.tile,
                     used.keys_per_item);
            for (unsigned dir = 0; dir < 2; ++dir) {
                const unsigned flags = dir ? CLSORT_DESCENDING : CLSORT_NO_HOST_FALLBACK;
                long bad = 0;
                unsigned failed_n = 0;
                const double t0 = t_now_ms();
                for (unsigned n = 1; n <= max_n; ++n) {
                    const long b = exhaustive(algo, n, flags, keys);
                    if (b) {
                        ++failed_n;
                        bad += b > 0 ? b : 0;
                    }
                }
                t_ok(failed_n == 0,
                     "%s %s %s: every 0/1 input of every n in 1..%u (%.0f ms)", t_algo_name(algo),
                     pstr, dir ? "desc" : "asc", max_n, t_now_ms() - t0);
                if (failed_n)
                    t_diag("%u sizes failed, %ld wrong outputs in all", failed_n, bad);
                /* The transposition network needs O(n / TILE) rounds: keep it small. */
                const int slow = algo == CLSORT_ODD_EVEN_TRANSPOSITION;
                const size_t rmax = ps > 0 ? (slow ? 1025 : level >= 2 ? 65537 : 10007)
                                           : (slow ? 65537 : 300001);
                const unsigned rf = random_zero_one(algo, flags & CLSORT_DESCENDING, rmax,
                                                    (unsigned)ps);
                t_ok(rf == 0, "%s %s %s: random 0/1 inputs, n 17..%zu", t_algo_name(algo), pstr,
                     dir ? "desc" : "asc", rmax);
            }
        }
        t_is_status(clsort_set_params(ctx, algo, CLSORT_U32, 0, &param_sets[0]), CLSORT_OK,
                    "%s: all-zero params restore the defaults", t_algo_name(algo));
    }
    /* AUTO with the defaults, for completeness. */
    for (unsigned dir = 0; dir < 2; ++dir) {
        unsigned failed_n = 0;
        for (unsigned n = 1; n <= max_n; ++n)
            failed_n += exhaustive(CLSORT_AUTO, n, dir ? CLSORT_DESCENDING : 0, keys) != 0;
        t_ok(failed_n == 0, "auto %s: every 0/1 input of every n in 1..%u",
             dir ? "desc" : "asc", max_n);
    }
    /* The radix sort (not a comparator network, so the 0-1 principle proves nothing about it;
     * its digit passes see 0/1 keys as one nonzero digit and three zero ones): every 0/1 input
     * up to 8 keys, one clsort_sort each (a batch would run bitonic), and random ones up to
     * 300001 keys. */
    for (unsigned dir = 0; dir < 2; ++dir) {
        const unsigned flags = CLSORT_NO_HOST_FALLBACK | (dir ? CLSORT_DESCENDING : 0);
        unsigned failed = 0, cases = 0;
        for (unsigned n = 1; n <= (level >= 1 ? 10u : 8u); ++n)
            for (uint32_t bits = 0; bits < (1u << n); ++bits) {
                uint32_t k[16];
                unsigned ones = 0;
                for (unsigned i = 0; i < n; ++i)
                    ones += k[i] = (bits >> i) & 1;
                int ok = clsort_sort(ctx, k, n, CLSORT_U32, CLSORT_RADIX, flags) == CLSORT_OK;
                for (unsigned i = 0; ok && i < n; ++i)
                    ok = k[i] == (dir ? i < ones : i >= n - ones);
                failed += !ok;
                ++cases;
            }
        t_ok(failed == 0, "radix %s: every 0/1 input of n 1..%u (%u cases)", dir ? "desc" : "asc",
             level >= 1 ? 10u : 8u, cases);
        t_ok(random_zero_one(CLSORT_RADIX, flags & CLSORT_DESCENDING, 300001, 7) == 0,
             "radix %s: random 0/1 inputs, n 17..300001", dir ? "desc" : "asc");
    }
    free(keys);
    /* The segmented passes: each network as the device picks its passes, then each with the
     * staged tiny pass forced (one work-item a segment through local memory, as GPUs run
     * segments up to 32 keys; and up to 64, with a segment of 17..64 keys in every work-group so
     * that short inputs run through the networks of 24, 32 and 64 slots too), then bitonic with
     * the packed pass forced (no tiny pass; 2, 16 and 32 keys a work-item on a CPU's group of 64
     * or a GPU's of 256), as GPUs run it. */
    {
        clsort_device_info info;
        clsort_get_device_info(ctx, &info);
        const unsigned wg = strcmp(info.type, "gpu") ? 64 : 256;
        static const unsigned per_item[6] = {0, 0, 0, 2, 16, 32};
        for (int pi = 0; pi < 6; ++pi)
            for (size_t ni = 0; ni < (pi > 2 ? 1 : sizeof networks / sizeof *networks); ++ni)
                for (unsigned dir = 0; dir < 2; ++dir) {
                    char pack[32];
                    snprintf(pack, sizeof pack, "%u", per_item[pi] * wg);
                    if (pi == 1 || pi == 2) {
                        setenv("CLSORT_SEG_TINY", pi == 1 ? "32" : "64", 1);
                        setenv("CLSORT_SEG_STAGE", "1", 1);
                    } else if (pi) {
                        setenv("CLSORT_SEG_TINY", "0", 1);
                        setenv("CLSORT_SEG_PACK", pack, 1);
                    }
                    const long b = exhaustive_segments(networks[ni], max_n,
                                                       dir ? CLSORT_DESCENDING : 0,
                                                       pi == 2 ? 64 : 0);
                    unsetenv("CLSORT_SEG_TINY");
                    unsetenv("CLSORT_SEG_STAGE");
                    unsetenv("CLSORT_SEG_PACK");
                    t_ok(b == 0, "segments, %s%s%s %s: every 0/1 input of every length 1..%u",
                         t_algo_name(networks[ni]),
                         pi == 1   ? ", staged tiny pass"
                         : pi == 2 ? ", staged tiny pass of 64 (a 17..64-key segment a group)"
                         : pi      ? ", packed tile up to "
                                   : "",
                         pi > 2 ? pack : "", dir ? "desc" : "asc", max_n);
                }
    }
    test_random_batches();
    clsort_destroy(ctx);
    return t_done();
}
