/* test_tile_shapes.c - the bitonic tile passes with GPU-shaped parameters, on whatever device runs
 * the suite, the odd-even merge's finish (oem_finish_tile), which uses the same machinery, and
 * bitonic's CPU shapes with rows as vectors (rows.cl) on every device. The CPU defaults use 16-key
 * tiles that one work-item sorts alone, so without this the shared-tile paths of
 * bitonic_sort_tile and bitonic_merge_tile (local memory, barriers, the compile-time paths and
 * their bank-conflict-free layouts) would run only on GPUs, and the vector rows of 2, 4 and 8
 * lanes nowhere. Each shape is forced with clsort_set_params; keys and pairs of 32- and 64-bit
 * keys, at sizes TILE * 2^k +- small and below one tile (the run-time path), and a batch, are
 * compared with qsort.
 *
 * On PoCL nearly all the time goes into building the programs (15-150 s each for the shared-tile
 * shapes, the compile-time paths being long straight code; a few seconds for the CPU shapes), so
 * the levels choose how many are built.
 * Environment: CLSORT_TEST_SEED replays a run; CLSORT_TEST_LEVEL=0/1/2 (see `runs`). */
#include "test_util.h"

static clsort_ctx *ctx;
static clsort_algorithm algo; /* the network under test */

/* wg_size, vec_step, tile, keys_per_item; TILE / WG_SIZE keys per work-item in the tile passes. */
static const struct shape {
    clsort_params p;
    const char *what;
} shapes[] = {
    {{256, 1, 4096, 16}, "the GPU default: 16 keys a work-item"},
    {{256, 1, 8192, 32}, "32 keys a work-item (5 levels a trip)"},
    {{256, 1, 2048, 8}, "8 keys a work-item"},
    {{128, 1, 1024, 4}, "8 keys a work-item, smallest swizzled tile"},
    {{16, 1, 512, 8}, "32 keys a work-item, plain layouts (WG_SIZE < 32)"},
    {{32, 1, 128, 4}, "4 keys a work-item, plain layouts (TILE < 1024)"},
    /* CPU shapes (vec_step > 1): solo tiles, rows as vectors; sizes up to 4096 tiles. */
    {{64, 16, 16, 4}, "the CPU default: 16-lane rows, lane sort and lane half-cleaners"},
    {{64, 16, 16, 16}, "16-lane rows, 16 rows a work-item"},
    {{64, 8, 8, 8}, "8-lane rows"},
    {{64, 4, 16, 32}, "4-lane rows under 16-key tiles (no lane levels), 32 rows"},
    {{64, 2, 8, 4}, "2-lane rows under 8-key tiles"},
};
#define NSHAPES (sizeof shapes / sizeof *shapes)

/* Key type and value size; the key transform is a run-time argument, so f32 and i64 (both
 * directions) share the programs of u32 and u64 and cost no extra build. */
static const struct kind {
    clsort_type type;
    size_t vsize;
    unsigned flags;
} kinds[] = {
    {CLSORT_U32, 0, 0}, {CLSORT_F32, 0, CLSORT_DESCENDING}, {CLSORT_U64, 0, 0},
    {CLSORT_I64, 0, CLSORT_DESCENDING}, {CLSORT_U32, 4, 0}, {CLSORT_U64, 8, CLSORT_DESCENDING},
};
#define NKINDS (sizeof kinds / sizeof *kinds)

/* Whether shape si runs kind ki at this level. Level 0: the GPU default and the CPU default with
 * 32-bit keys and the widest pairs (four builds). Level 1: every kind with both defaults; 32-bit
 * keys and 64-bit pairs with the others, but 32-bit keys alone with 32 keys a work-item and with
 * 16 rows (the slowest builds, 25-65 s each on PoCL). Level 2: everything. */
static int runs(size_t si, size_t ki, int level)
{
    const int narrow = kinds[ki].type == CLSORT_U32 || kinds[ki].type == CLSORT_F32;
    const int keys32 = narrow && kinds[ki].vsize == 0, widest = kinds[ki].vsize == 8;
    if (shapes[si].p.vec_step > 1) { /* CPU shapes: builds of 5-45 s on PoCL */
        const int cpu_default = shapes[si].p.vec_step == 16 && shapes[si].p.keys_per_item == 4;
        if (level >= 2 || (level == 1 && cpu_default))
            return 1;
        if (level == 0)
            return cpu_default && (keys32 || widest);
        return keys32 || (widest && shapes[si].p.keys_per_item < 16);
    }
    if (level >= 2 || (level == 1 && si == 0))
        return 1;
    if (level == 0)
        return si == 0 && (keys32 || widest);
    return keys32 || (widest && shapes[si].p.tile / shapes[si].p.wg_size < 32);
}

/* The odd-even merge's finish takes bitonic's register-blocked path with these shapes: its three
 * layouts (swizzled with direct loads, smallest swizzled tile, plain with loads through local
 * memory). Level 0: the GPU default with 32-bit keys; level 1: also the widest pairs and the other
 * two shapes' 32-bit keys; level 2: every kind. */
static int oem_runs(size_t si, size_t ki, int level)
{
    const int keys32 = kinds[ki].type == CLSORT_U32 && kinds[ki].vsize == 0;
    const int widest = kinds[ki].vsize == 8;
    if (si != 0 && si != 3 && si != 4)
        return 0;
    if (level >= 2)
        return 1;
    if (level == 0)
        return si == 0 && keys32;
    return keys32 || (si == 0 && widest);
}

/* Sorts n keys (and values) of kind k with the current parameters; returns 1 if the keys equal the
 * reference and every value still sits beside its own key. */
static int sort_one(const struct kind *k, size_t n, t_rng *r, int show)
{
    const size_t sz = t_size(k->type);
    unsigned char *keys = t_xmalloc(n * sz), *want = t_xmalloc(n * sz), *orig = t_xmalloc(n * sz);
    unsigned char *vals = k->vsize ? t_xmalloc(n * k->vsize) : NULL;
    t_fill(k->type, (t_dist)(n % 3 == 0 ? T_FEW : T_RANDOM), keys, n, r);
    memcpy(want, keys, n * sz);
    memcpy(orig, keys, n * sz);
    t_ref_sort(k->type, want, n, (k->flags & CLSORT_DESCENDING) != 0);
    /* Each value is its key's original index, so the pairing can be checked. */
    for (size_t i = 0; vals && i < n; ++i) {
        if (k->vsize == 4) {
            const uint32_t x = (uint32_t)i;
            memcpy(vals + i * 4, &x, 4);
        } else {
            const uint64_t x = (uint64_t)i | ((uint64_t)0xa5u << 56);
            memcpy(vals + i * 8, &x, 8);
        }
    }
    const unsigned flags = k->flags | CLSORT_NO_HOST_FALLBACK;
    const int rc = vals ? clsort_sort_pairs(ctx, keys, vals, k->vsize, n, k->type, algo, flags)
                        : clsort_sort(ctx, keys, n, k->type, algo, flags);
    char what[96];
    snprintf(what, sizeof what, "%s%s n=%zu", t_type_name(k->type),
             k->vsize == 4 ? "+u32" : k->vsize == 8 ? "+u64" : "", n);
    int ok = t_check_sorted(ctx, rc, what, show, k->type, keys, want, n);
    if (ok && vals) {
        unsigned char *seen = calloc(n ? n : 1, 1);
        if (!seen)
            t_bail("out of host memory");
        for (size_t i = 0; ok && i < n; ++i) {
            uint64_t idx = 0;
            if (k->vsize == 4) {
                uint32_t x;
                memcpy(&x, vals + i * 4, 4);
                idx = x;
            } else {
                memcpy(&idx, vals + i * 8, 8);
                if (idx >> 56 != 0xa5u)
                    idx = n; /* a value's upper half was lost */
                idx &= ((uint64_t)1 << 56) - 1;
            }
            if (idx >= n || seen[idx] || memcmp(orig + idx * sz, keys + i * sz, sz)) {
                if (show)
                    t_diag("%s: the value at %zu (%" PRIu64 ") is not its key's", what, i, idx);
                ok = 0;
            } else {
                seen[idx] = 1;
            }
        }
        free(seen);
    }
    free(keys);
    free(want);
    free(orig);
    free(vals);
    return ok;
}

/* A batch of 3 arrays of n u32 keys: the tile passes' second launch dimension. */
static int sort_batch(size_t n, t_rng *r)
{
    const size_t count = 3;
    uint32_t *keys = t_xmalloc(n * count * 4), *want = t_xmalloc(n * count * 4);
    t_fill(CLSORT_U32, T_RANDOM, keys, n * count, r);
    memcpy(want, keys, n * count * 4);
    for (size_t c = 0; c < count; ++c)
        t_ref_sort(CLSORT_U32, want + c * n, n, 0);
    const int rc = clsort_sort_batch(ctx, keys, n, count, CLSORT_U32, algo, 0);
    const int ok = t_check_sorted(ctx, rc, "batch of 3", 1, CLSORT_U32, keys, want, n * count);
    free(keys);
    free(want);
    return ok;
}

/* Sets $CLSORT_BUILD_OPTIONS (read at each program build) to opts; returns what it held, for
 * restore_build_options. */
static char *set_build_options(const char *opts)
{
    const char *old = getenv("CLSORT_BUILD_OPTIONS");
    char *saved = old ? strdup(old) : NULL;
    setenv("CLSORT_BUILD_OPTIONS", opts, 1);
    return saved;
}

static void restore_build_options(char *saved)
{
    if (saved) {
        setenv("CLSORT_BUILD_OPTIONS", saved, 1);
        free(saved);
    } else {
        unsetenv("CLSORT_BUILD_OPTIONS");
    }
}

/* The odd-even merge's tile sort with these shapes runs Batcher's levels from registers where a
 * set of positions is closed under them (oddeven_merge.cl, OEM_REG_TILE); its run-time path,
 * built with -DCLSORT_OEM_RUNTIME_TILE=1, runs the same comparators one level at a time in local
 * memory. The same network must give the same bytes, values included, even where equal keys
 * leave their values' order to the network: keys with long runs of ties and random ones, one
 * tile (the tile sort alone) and several (with the merges above it), sorted both ways. Returns
 * 1 when every byte matches. */
static int same_runtime_tile(const struct kind *k, size_t n, t_rng *r, int show)
{
    const size_t sz = t_size(k->type);
    unsigned char *keys = t_xmalloc(n * sz), *keys2 = t_xmalloc(n * sz);
    unsigned char *vals = k->vsize ? t_xmalloc(n * k->vsize) : NULL;
    unsigned char *vals2 = k->vsize ? t_xmalloc(n * k->vsize) : NULL;
    t_fill(k->type, (t_dist)(n & 1 ? T_FEW : T_RANDOM), keys, n, r);
    for (size_t i = 0; vals && i < n * k->vsize; ++i)
        vals[i] = (unsigned char)(i * 7 + i / k->vsize);
    memcpy(keys2, keys, n * sz);
    if (vals)
        memcpy(vals2, vals, n * k->vsize);
    const unsigned flags = k->flags | CLSORT_NO_HOST_FALLBACK;
    char *saved = NULL;
    int rc[2];
    for (int rt = 0; rt < 2; ++rt) {
        unsigned char *kk = rt ? keys2 : keys, *vv = rt ? vals2 : vals;
        if (rt)
            saved = set_build_options("-DCLSORT_OEM_RUNTIME_TILE=1");
        rc[rt] = vv ? clsort_sort_pairs(ctx, kk, vv, k->vsize, n, k->type, algo, flags)
                    : clsort_sort(ctx, kk, n, k->type, algo, flags);
    }
    restore_build_options(saved);
    size_t at = n;
    for (size_t i = 0; at == n && i < n; ++i)
        if (memcmp(keys + i * sz, keys2 + i * sz, sz) ||
            (vals && memcmp(vals + i * k->vsize, vals2 + i * k->vsize, k->vsize)))
            at = i;
    const int ok = rc[0] == CLSORT_OK && rc[1] == CLSORT_OK && at == n;
    if (!ok && show)
        t_diag("n=%zu: status %d / %d, first difference at %zu: %s", n, rc[0], rc[1], at,
               clsort_last_error(ctx));
    free(keys);
    free(keys2);
    free(vals);
    free(vals2);
    return ok;
}

/* bitonic_merge_tile's lane-exchange path (bitonic_merge.cl, CLSORT_LANES), built through
 * $CLSORT_BUILD_OPTIONS with the portable local-memory exchange (CLSORT_LANES=2), so that any
 * device checks its layouts and comparators; NVIDIA runs the same path with shuffles
 * (CLSORT_LANES=1) when that is set. Shapes with 0, 2 and 3 register levels between the first
 * group and the lanes; 32- and 64-bit keys and pairs; sizes where merge_tile runs. */
static void lanes_pass(int level)
{
    static const clsort_params lane_shapes[] = {
        {32, 1, 256, 4}, {128, 1, 1024, 4}, {256, 1, 4096, 16}};
    char *saved = set_build_options("-DCLSORT_LANES=2");
    algo = CLSORT_BITONIC;
    for (size_t si = 0; si < sizeof lane_shapes / sizeof *lane_shapes; ++si) {
        const clsort_params *p = &lane_shapes[si];
        const size_t T = p->tile;
        const size_t sizes[] = {2 * T, 2 * T + 5, 4 * T + 1, 16 * T + 7, 64 * T - 3};
        for (size_t ki = 0; ki < NKINDS; ++ki) {
            const struct kind *k = &kinds[ki];
            /* The 4096-key shape builds slowly on PoCL: 32-bit keys alone below level 2. */
            if (si == 2 && level < 2 && !(k->type == CLSORT_U32 && k->vsize == 0))
                continue;
            if (level == 0 && si != 0)
                continue;
            const int rc = clsort_set_params(ctx, algo, k->type, k->vsize, p);
            if (rc != CLSORT_OK) {
                t_skip("lanes {wg %u, tile %u}, %s%s: refused by this device: %s", p->wg_size,
                       p->tile, t_type_name(k->type), k->vsize ? " pairs" : "",
                       clsort_last_error(ctx));
                continue;
            }
            t_rng r = t_rng_for(si, ki, 29, 0);
            unsigned failed = 0;
            for (size_t i = 0; i < sizeof sizes / sizeof *sizes; ++i)
                failed += !sort_one(k, sizes[i], &r, !failed);
            t_ok(!failed, "lane exchange (CLSORT_LANES=2) {wg %u, tile %u, kpi %u}, %s%s%s: %zu..%zu",
                 p->wg_size, p->tile, p->keys_per_item, t_type_name(k->type),
                 k->vsize == 4 ? "+u32" : k->vsize == 8 ? "+u64" : "",
                 (k->flags & CLSORT_DESCENDING) ? " desc" : "", sizes[0],
                 sizes[sizeof sizes / sizeof *sizes - 1]);
            const clsort_params zero = {0, 0, 0, 0};
            clsort_set_params(ctx, algo, k->type, k->vsize, &zero);
        }
    }
    restore_build_options(saved);
}

int main(void)
{
    t_init("test_tile_shapes");
    const int level = t_level();
    ctx = t_create_ctx();
    static const clsort_algorithm algos[] = {CLSORT_BITONIC, CLSORT_ODD_EVEN_MERGE};
    for (size_t ai = 0; ai < 2; ++ai) {
        algo = algos[ai];
        const char *net = ai ? "odd-even merge " : "";
        for (size_t si = 0; si < NSHAPES; ++si) {
            const clsort_params *p = &shapes[si].p;
            const size_t T = p->tile;
            /* At most half a tile (kmax < TILE: the run-time path of bitonic_sort_tile), one
             * tile (kmax == TILE from T/2 + 1 on), and TILE * 2^k +- a little (the compile-time
             * paths, merge_tile, partial last tiles). */
            const size_t sizes[] = {T / 2 - 3, T / 2 + 3, T - 1,     T + 1,     2 * T - 3,
                                    2 * T,     2 * T + 5, 4 * T + 1, 8 * T - 1, 16 * T + 7,
                                    /* CPU shapes: many merges, flips and tails, partial rows */
                                    256 * T - 5, 4096 * T + 3};
            const size_t nsizes = sizeof sizes / sizeof *sizes - (p->vec_step > 1 ? 0 : 2) -
                                  (T >= 8192 && level < 2 ? 1 : 0);
            for (size_t ki = 0; ki < NKINDS; ++ki) {
                const struct kind *k = &kinds[ki];
                if (ai ? !oem_runs(si, ki, level) : !runs(si, ki, level))
                    continue;
                const int rc = clsort_set_params(ctx, algo, k->type, k->vsize, p);
                if (rc != CLSORT_OK) {
                    /* A device whose limits refuse the shape (local memory, work-group size). */
                    t_skip("%s%s, %s%s: refused by this device: %s", net, shapes[si].what,
                           t_type_name(k->type), k->vsize ? " pairs" : "", clsort_last_error(ctx));
                    continue;
                }
                t_rng r = t_rng_for(si, ki, 11 + (unsigned)ai, 0);
                unsigned failed = 0;
                const double t0 = t_now_ms();
                for (size_t i = 0; i < nsizes; ++i)
                    failed += !sort_one(k, sizes[i], &r, !failed);
                t_ok(!failed, "%s{wg %u, vec %u, tile %u, kpi %u} (%s), %s%s%s: %zu sizes %zu..%zu (%.0f ms)",
                     net, p->wg_size, p->vec_step, p->tile, p->keys_per_item, shapes[si].what,
                     t_type_name(k->type), k->vsize == 4 ? "+u32" : k->vsize == 8 ? "+u64" : "",
                     (k->flags & CLSORT_DESCENDING) ? " desc" : "", nsizes, sizes[0],
                     sizes[nsizes - 1], t_now_ms() - t0);
                if (ki == 0)
                    t_ok(sort_batch(T + 1, &r), "%s{wg %u, tile %u}: a batch of 3 arrays of TILE+1",
                         net, p->wg_size, p->tile);
                /* Each such comparison builds the run-time program of the shape too (PoCL: up
                 * to a minute): 32-bit keys wherever oem_runs takes them and, from level 1, the
                 * widest pairs wherever it takes those. */
                if (ai && (ki == 0 || (level >= 1 && k->vsize == 8))) {
                    const size_t both[] = {T / 2 + 3, T - 1, T + 1, 4 * T - 3, 8 * T + 5};
                    unsigned bad = 0;
                    for (size_t i = 0; i < sizeof both / sizeof *both; ++i)
                        bad += !same_runtime_tile(k, both[i], &r, !bad);
                    t_ok(!bad, "odd-even merge {wg %u, tile %u, kpi %u}, %s%s%s: the tile sort "
                         "from registers and its run-time path give the same bytes (%zu sizes)",
                         p->wg_size, p->tile, p->keys_per_item, t_type_name(k->type),
                         k->vsize == 4 ? "+u32" : k->vsize == 8 ? "+u64" : "",
                         (k->flags & CLSORT_DESCENDING) ? " desc" : "", sizeof both / sizeof *both);
                }
                const clsort_params zero = {0, 0, 0, 0};
                clsort_set_params(ctx, algo, k->type, k->vsize, &zero);
            }
        }
    }
    lanes_pass(level);
    clsort_destroy(ctx);
    return t_done();
}
