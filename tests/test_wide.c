/* test_wide.c - the wide global passes: bitonic's (bitonic_wide, bitonic_wide_flip in
 * bitonic_wide.cl) and the odd-even merge's (oem_wide_top in oddeven_merge.cl). PoCL's default
 * bitonic parameters never use them (16-key solo tiles), so this test forces the GPU-shaped
 * parameters that do
 * (TILE 4096 / WG_SIZE 256 / KEYS_PER_ITEM 16 for 32-bit keys, 2048 / 128 / 8 for 64-bit keys and
 * pairs) and small shapes that take many trips through local memory per pass, then sorts keys and
 * pairs of u32 and u64 with both networks, both directions, sizes where the wide pass runs (powers
 * of two and their neighbours) and batches, against qsort. Each case also checks the number of
 * launches against the pass count the wide schedule implies, so that a schedule that stopped
 * using the wide pass fails here too.
 *
 * Environment: CLSORT_TEST_SEED replays a run; CLSORT_TEST_LEVEL=0/1/2 scales the sizes. */
#include "test_util.h"

static clsort_ctx *ctx;
static clsort_algorithm algo; /* the network under test */

/* One parameter shape and the largest log2(n) it is tried at (level 1). */
typedef struct shape {
    clsort_params p; /* wg_size, vec_step, tile, keys_per_item */
    unsigned max_log; /* 32-bit keys alone: the largest log2(n) at level 1 */
    const char *name;
} shape;

static unsigned log2_of(uint64_t x)
{
    unsigned l = 0;
    while (((uint64_t)1 << l) < x)
        ++l;
    return l;
}

/* The launches of one sort of n keys with parameters p, restated from docs/kernels.md. Bitonic:
 * one tile sort, then for each merge block 2^k above the tile its levels above the tile (k -
 * log2 TILE) in passes, and one tile merge. A pass is wide (up to log2(TILE / 16) levels, at
 * least log2(TILE / WG_SIZE)) where that fuses more levels than a register pass
 * (log2 KEYS_PER_ITEM levels). Odd-even merge: one tile sort, then for each merge with L levels
 * at or above the tile one top pass (wide, of min(L, log2(TILE / 16)) levels, where that is more
 * than the register pass's min(L, log2 KEYS_PER_ITEM)), one launch per level left, and the two
 * finish passes. */
static unsigned expected_launches(uint64_t n, const clsort_params *p, unsigned *wide_out)
{
    const unsigned T = log2_of(p->tile), N = log2_of(n), R = log2_of(p->keys_per_item);
    const unsigned wl = (p->tile > 32 && p->wg_size >= 16) ? log2_of(p->tile / 16) : 0;
    const unsigned wmin = log2_of(p->tile / p->wg_size);
    unsigned launches = 1, wide = 0;
    if (algo == CLSORT_ODD_EVEN_MERGE) {
        /* Not with more than 16 keys of a tile a work-item (the CPU shape). */
        const unsigned owl = p->tile / p->wg_size <= 16 ? wl : 0;
        for (unsigned k = T + 1; k <= N; ++k) {
            const unsigned levels = k - T, w = levels < owl ? levels : owl;
            const unsigned top = w > R ? w : (levels < R ? levels : R);
            wide += w > R;
            launches += 1 + (levels - top) + 2;
        }
        *wide_out = wide;
        return launches;
    }
    for (unsigned k = T + 1; k <= N; ++k) {
        unsigned levels = k - T;
        while (levels) {
            const unsigned w = levels < wl ? levels : wl;
            const unsigned take = (w > R && w >= wmin) ? w : (levels < R ? levels : R);
            wide += take == w && w > R && w >= wmin;
            levels -= take;
            ++launches;
        }
        ++launches; /* bitonic_merge_tile */
    }
    *wide_out = wide;
    return launches;
}

/* Sorts `count` arrays of n keys (with values: their indices, when vsize is 4 or 8) and checks
 * them against qsort, the values against the keys they came with, and the launch count.
 * Returns 1 when right. */
static int run_case(const shape *sh, clsort_type type, size_t vsize, size_t n, size_t count,
                    unsigned flags, t_dist dist, unsigned *wide_seen)
{
    const size_t ks = t_size(type), total = n * count;
    unsigned char *keys = t_xmalloc(total * ks), *orig = t_xmalloc(total * ks),
                  *want = t_xmalloc(total * ks);
    unsigned char *vals = vsize ? t_xmalloc(total * vsize) : NULL;
    t_rng r = t_rng_for(type, vsize * 1000003u + n, count, flags * 16u + (unsigned)dist);
    for (size_t c = 0; c < count; ++c) {
        unsigned char *a = keys + c * n * ks;
        if (dist == T_NDIST) { /* 0/1 keys: the 0-1 principle at sizes where the wide pass runs */
            const uint64_t density = 1 + t_rand_below(&r, 15);
            for (size_t i = 0; i < n; ++i)
                t_set_bits(type, a, i, t_rand_below(&r, 16) < density);
        } else {
            t_fill(type, dist, a, n, &r);
        }
    }
    for (size_t i = 0; vals && i < n; ++i) /* value i: the key's index within its array */
        for (size_t c = 0; c < count; ++c) {
            if (vsize == 4) {
                const uint32_t v = (uint32_t)i;
                memcpy(vals + (c * n + i) * 4, &v, 4);
            } else {
                const uint64_t v = (uint64_t)i | ((uint64_t)c << 40);
                memcpy(vals + (c * n + i) * 8, &v, 8);
            }
        }
    memcpy(orig, keys, total * ks);
    memcpy(want, keys, total * ks);
    for (size_t c = 0; c < count; ++c)
        t_ref_sort(type, want + c * n * ks, n, (flags & CLSORT_DESCENDING) != 0);

    int rc;
    const unsigned nf = flags | CLSORT_NO_HOST_FALLBACK;
    if (count > 1)
        rc = clsort_sort_batch(ctx, keys, n, count, type, algo, flags);
    else if (vsize)
        rc = clsort_sort_pairs(ctx, keys, vals, vsize, n, type, algo, nf);
    else
        rc = clsort_sort(ctx, keys, n, type, algo, nf);

    char what[160];
    snprintf(what, sizeof what, "%s%s %s%s%s n=%zu x%zu %s %s",
             algo == CLSORT_ODD_EVEN_MERGE ? "odd-even merge " : "", sh->name, t_type_name(type),
             vsize == 4 ? "+u32" : vsize == 8 ? "+u64" : "", "", n, count,
             (flags & CLSORT_DESCENDING) ? "desc" : "asc",
             dist == T_NDIST ? "zero-one" : t_dist_name(dist));
    int ok = t_check_sorted(ctx, rc, what, 1, type, keys, want, total);
    /* Each value must come back next to the key it went in with, each exactly once. */
    if (ok && vals) {
        unsigned char *seen = calloc(n, 1);
        if (!seen)
            t_bail("out of memory");
        for (size_t i = 0; ok && i < n; ++i) {
            uint64_t v = 0;
            memcpy(&v, vals + i * vsize, vsize);
            v &= vsize == 4 ? 0xFFFFFFFFull : (((uint64_t)1 << 40) - 1);
            if (v >= n || seen[v] || t_get_bits(type, orig, v) != t_get_bits(type, keys, i)) {
                t_diag("%s: value at %zu is %llu, which %s", what, i, (unsigned long long)v,
                       v >= n ? "is out of range" : seen[v] ? "came back twice"
                                                          : "went in with another key");
                ok = 0;
            }
            if (v < n)
                seen[v] = 1;
        }
        free(seen);
    }
    clsort_stats st;
    unsigned wide = 0;
    const unsigned want_launches = expected_launches(n, &sh->p, &wide);
    if (ok && clsort_get_stats(ctx, &st) == CLSORT_OK &&
        st.launches != want_launches) {
        t_diag("%s: %u launches, expected %u (%u of them wide)", what, st.launches,
               want_launches, wide);
        ok = 0;
    }
    *wide_seen += wide;
    free(keys);
    free(orig);
    free(want);
    free(vals);
    return ok;
}

int main(void)
{
    t_init("test_wide");
    /* Whole uploads: the overlapped one splits the first pass into per-chunk launches, which
     * would blur the launch count this test checks. */
    setenv("CLSORT_OVERLAP", "0", 1);
    const int level = t_level();
    ctx = t_create_ctx();
    /* 32-bit keys alone: the GPU defaults, then shapes with 2 or 1 slot bits per work-item
     * (two to six trips through local memory per pass) and one with 32 keys per work-item. */
    static const shape shapes32[] = {
        {{256, 1, 4096, 16}, 21, "gpu"},
        {{64, 1, 256, 2}, 16, "tile256/wg64"},
        {{256, 1, 512, 2}, 17, "tile512/wg256"},
        {{16, 1, 512, 4}, 15, "tile512/wg16"},
    };
    /* 64-bit keys and pairs: the GPU defaults for 8-byte elements, and a small shape. */
    static const shape shapes64[] = {
        {{128, 1, 2048, 8}, 0, "gpu"},
        {{32, 1, 128, 4}, 0, "tile128/wg32"},
    };
    static const struct {
        clsort_type type;
        size_t vsize;
    } kinds[] = {{CLSORT_U32, 0}, {CLSORT_U64, 0}, {CLSORT_U32, 4}, {CLSORT_U64, 8}};

    static const clsort_algorithm algos[] = {CLSORT_BITONIC, CLSORT_ODD_EVEN_MERGE};
    for (size_t ai = 0; ai < sizeof algos / sizeof *algos; ++ai)
    for (size_t ki = 0; ki < sizeof kinds / sizeof *kinds; ++ki) {
        algo = algos[ai];
        const int oem = algo == CLSORT_ODD_EVEN_MERGE;
        const char *net = oem ? "odd-even merge " : "";
        const clsort_type type = kinds[ki].type;
        const size_t vsize = kinds[ki].vsize;
        const int small = type == CLSORT_U32 && vsize == 0;
        const shape *shapes = small ? shapes32 : shapes64;
        const size_t nshapes = small ? sizeof shapes32 / sizeof *shapes32
                                     : sizeof shapes64 / sizeof *shapes64;
        for (size_t si = 0; si < nshapes; ++si) {
            const shape *sh = &shapes[si];
            const int rc = clsort_set_params(ctx, algo, type, vsize, &sh->p);
            if (!t_is_status(rc, CLSORT_OK, "%s%s %s+%zu: clsort_set_params accepts {%u, %u, %u, %u}",
                             net, sh->name, t_type_name(type), vsize, sh->p.wg_size, sh->p.vec_step,
                             sh->p.tile, sh->p.keys_per_item)) {
                t_diag("%s", clsort_last_error(ctx));
                continue;
            }
            /* From the first size where a wide pass runs (the tile times 2^(levels)) up. */
            unsigned lo = log2_of(sh->p.tile) + 1;
            unsigned dummy = 0;
            while (lo < 40 && (expected_launches((uint64_t)1 << lo, &sh->p, &dummy), !dummy))
                ++lo;
            /* The odd-even merge leaves its wide pass out with 32 keys a work-item: the sizes
             * just above the tile then check that it does. */
            const int none_expected = lo == 40;
            if (none_expected)
                lo = log2_of(sh->p.tile) + 1;
            /* Level 0: the first two sizes that use it; level 1: up to max_log for 32-bit keys
             * alone (2^21 with the GPU shape: one pass of 8 wide levels and one of 9), the first
             * three sizes otherwise; level 2: one more. PoCL runs these shapes slowly. */
            unsigned hi = level == 0 ? lo + 1 : small && !oem ? sh->max_log : lo + 2;
            if (level >= 2)
                hi = (small && !oem ? sh->max_log : lo + 2) + 1;
            unsigned cases = 0, failed = 0, wide = 0, i = 0;
            const double t0 = t_now_ms();
            for (unsigned lg = lo; lg <= hi; ++lg)
                for (int d = -1; d <= 1; ++d) {
                    /* 2^lg - 1, 2^lg, and a size above (its virtual tail reaches into
                     * the flip's mirrored rows). */
                    const size_t n = ((size_t)1 << lg) + (d < 0 ? (size_t)-1 : d > 0 ? 37u * lg : 0);
                    const unsigned flags = (i & 1) ? CLSORT_DESCENDING : 0;
                    const t_dist dist = (t_dist)(i % (T_NDIST + 1)); /* T_NDIST: zero-one */
                    ++i;
                    ++cases;
                    failed += !run_case(sh, type, vsize, n, 1, flags, dist, &wide);
                }
            /* Batches: get_global_id(1) numbers the arrays (keys alone: clsort_sort_batch). */
            if (!vsize) {
                const size_t n = ((size_t)1 << lo) + 5;
                failed += !run_case(sh, type, 0, n, 3, CLSORT_DESCENDING, T_RANDOM, &wide);
                failed += !run_case(sh, type, 0, n - 10, 2, 0, T_NDIST, &wide);
                cases += 2;
            }
            t_ok(!failed && (wide > 0) != none_expected,
                 "%s%s %s+%zu: %u cases, n 2^%u..2^%u and neighbours, batches; %u wide passes "
                 "(%.0f ms)",
                 net, sh->name, t_type_name(type), vsize, cases, lo, hi, wide, t_now_ms() - t0);
            if (failed)
                t_diag("%u of %u cases failed", failed, cases);
        }
        const clsort_params zero = {0, 0, 0, 0};
        clsort_set_params(ctx, algo, type, vsize, &zero);
    }
    clsort_destroy(ctx);
    return t_done();
}
