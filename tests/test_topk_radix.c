/* test_topk_radix.c - clsort_topk's radix select (kernels/topk_radix.cl), forced with
 * CLSORT_TOPK_RADIX=1, against the reference: a stable sort of each row (qsort by the documented
 * order, then by index) cut after k, compared bit for bit with the keys, values and indices.
 * Every key type, both directions; k = 1, small, k = n, k past the network's reach (the survivors'
 * full sort); k at the digit buckets' edges (the early stop when the k-th key's bucket is taken
 * whole, at the first digit and a middle one, and the split of equal keys after the last digit);
 * ties (all keys equal, a few distinct, each value three times); NaNs and +-0; one row and many;
 * both shapes of the passes (one work-item a group, and groups with local scans and barriers:
 * CLSORT_TOPK_RADIX_WG) and many chunks a row (CLSORT_TOPK_RADIX_CHUNK); the _buffer form. Also
 * that the knob takes the path (its launches), that CLSORT_TOPK_RADIX=0 leaves it, and the
 * [auto] topk_radix.<bits> config key. */
#include "test_topk_ref.h"
#include "test_util.h"

#include <sys/stat.h>

/* Key layouts of order-space values that put the k-th key where the digits change: each row a
 * shuffle of RAMP 0 .. n-1 (the low digits: a bucket of 256 a step), TRIPLES i / 3 (each value
 * three times: equal keys split after the last digit), TOP i << (bits - 8) (a key a bucket of
 * the first digit: the selection ends after one pass). Set in the direction asked, so that the
 * k smallest (or largest) of the order are these. */
enum { L_RAMP = T_NDIST, L_TRIPLES, L_TOP };

static void fill_layout(clsort_type type, int layout, int desc, void *keys, size_t n, size_t rows,
                        t_rng *rng)
{
    const unsigned bits = (unsigned)t_size(type) * 8;
    const uint64_t flip = desc ? (bits == 32 ? 0xFFFFFFFFull : ~0ull) : 0;
    for (size_t r = 0; r < rows; ++r) {
        for (size_t i = 0; i < n; ++i) {
            const uint64_t ord = layout == L_RAMP      ? i
                                 : layout == L_TRIPLES ? i / 3
                                                       : (uint64_t)i << (bits - 8);
            t_set_bits(type, keys, r * n + i, t_unord(type, ord ^ flip));
        }
        for (size_t i = n; i > 1; --i) {
            const size_t j = (size_t)t_rand_below(rng, i);
            const uint64_t a = t_get_bits(type, keys, r * n + i - 1);
            t_set_bits(type, keys, r * n + i - 1, t_get_bits(type, keys, r * n + j));
            t_set_bits(type, keys, r * n + j, a);
        }
    }
}

static clsort_ctx *ctx;

/* One case through clsort_topk (or clsort_topk_buffer), checked; one test point. dist: a t_dist
 * or an L_ layout. */
static void run_case(clsort_type type, int dist, int desc, size_t n, size_t rows, size_t k,
                     int out_kind, size_t vs, int buffer)
{
    t_rng rng = t_rng_for(((uint64_t)n << 20) ^ rows, k, (uint64_t)type * 16 + (uint64_t)dist,
                          (uint64_t)desc * 64 + (uint64_t)out_kind * 16 + vs + 128u * buffer);
    const size_t ks = t_size(type), total = n * rows;
    void *keys = t_xmalloc(total * ks);
    if (dist < T_NDIST)
        t_fill(type, (t_dist)dist, keys, total, &rng);
    else
        fill_layout(type, dist, desc, keys, n, rows, &rng);
    void *vals = NULL;
    if (out_kind == OUT_VALUES) {
        vals = t_xmalloc(total * vs);
        for (size_t i = 0; i < total; ++i)
            set_val(vals, vs, i, t_rand64(&rng));
    }
    void *got_k = t_xmalloc(rows * k * ks), *want_k = t_xmalloc(rows * k * ks);
    void *got_v = out_kind ? t_xmalloc(rows * k * vs) : NULL;
    void *want_v = out_kind ? t_xmalloc(rows * k * vs) : NULL;
    memset(got_k, 0xA5, rows * k * ks);
    if (got_v)
        memset(got_v, 0xA5, rows * k * vs);
    reference(type, desc, keys, vals, vs, out_kind, n, rows, k, want_k, want_v);
    const unsigned flags = desc ? CLSORT_DESCENDING : 0;
    int rc;
    if (!buffer) {
        rc = clsort_topk(ctx, keys, vals, out_kind ? vs : 0, n, rows, k, type, flags, got_k,
                         got_v);
    } else {
        cl_command_queue q = clsort_get_queue(ctx);
        cl_context cl;
        clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof cl, &cl, NULL);
        cl_int err;
        cl_mem bk = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, total * ks,
                                   keys, &err);
        cl_mem bv = vals ? clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                          total * vs, vals, &err)
                         : NULL;
        cl_mem ok = clCreateBuffer(cl, CL_MEM_READ_WRITE, rows * k * ks, NULL, &err);
        cl_mem ov = got_v ? clCreateBuffer(cl, CL_MEM_READ_WRITE, rows * k * vs, NULL, &err)
                          : NULL;
        cl_event done = NULL;
        rc = clsort_topk_buffer(ctx, bk, bv, out_kind ? vs : 0, n, rows, k, type, flags, ok, ov,
                                0, NULL, &done);
        if (done) {
            clWaitForEvents(1, &done);
            clReleaseEvent(done);
        }
        clEnqueueReadBuffer(q, ok, CL_TRUE, 0, rows * k * ks, got_k, 0, NULL, NULL);
        if (ov)
            clEnqueueReadBuffer(q, ov, CL_TRUE, 0, rows * k * vs, got_v, 0, NULL, NULL);
        clReleaseMemObject(bk);
        clReleaseMemObject(ok);
        if (bv)
            clReleaseMemObject(bv);
        if (ov)
            clReleaseMemObject(ov);
    }
    static const char *const layouts[] = {"ramp", "triples", "top"};
    char what[256];
    snprintf(what, sizeof what, "radix %s%s %s %s rows=%zu n=%zu k=%zu out=%s%zu",
             buffer ? "buffer " : "", t_type_name(type),
             dist < T_NDIST ? t_dist_name((t_dist)dist) : layouts[dist - T_NDIST],
             desc ? "desc" : "asc", rows, n, k,
             out_kind == OUT_NONE ? "keys" : out_kind == OUT_VALUES ? "values" : "idx",
             out_kind ? vs * 8 : 0);
    int pass = t_check_sorted(ctx, rc, what, 1, type, got_k, want_k, rows * k);
    if (pass && got_v && memcmp(got_v, want_v, rows * k * vs) != 0) {
        size_t at = 0;
        while (get_val(got_v, vs, at) == get_val(want_v, vs, at))
            ++at;
        t_diag("%s: %s differ at %zu: got %llu want %llu", what,
               out_kind == OUT_INDEX ? "indices" : "values", at,
               (unsigned long long)get_val(got_v, vs, at),
               (unsigned long long)get_val(want_v, vs, at));
        pass = 0;
    }
    t_ok(pass, "%s", what);
    free(keys);
    free(vals);
    free(got_k);
    free(want_k);
    free(got_v);
    free(want_v);
}

/* The launches of the last call (its statistics). */
static unsigned last_launches(void)
{
    clsort_stats st;
    memset(&st, 0, sizeof st);
    return clsort_get_stats(ctx, &st) == CLSORT_OK ? st.launches : 0;
}

/* The knob takes the path and 0 leaves it: the radix select launches a zeroing, a histogram a
 * digit, the counts, their scan and the compaction before the survivors' sort; the network of
 * one row of 3000 keys and k = 5 is one launch. Then [auto] topk_radix.32 in a config: "1 1"
 * takes the path for every k, "off" never. */
static void path_taken(void)
{
    uint32_t keys[3000], out[5];
    for (unsigned i = 0; i < 3000; ++i)
        keys[i] = i * 2654435761u;
    setenv("CLSORT_TOPK_RADIX", "1", 1);
    int rc = clsort_topk(ctx, keys, NULL, 0, 3000, 1, 5, CLSORT_U32, 0, out, NULL);
    const unsigned radix = last_launches();
    t_ok(rc == CLSORT_OK && radix >= 4 + 4, "CLSORT_TOPK_RADIX=1 takes the radix select (%u "
         "launches)", radix);
    setenv("CLSORT_TOPK_RADIX", "0", 1);
    rc = clsort_topk(ctx, keys, NULL, 0, 3000, 1, 5, CLSORT_U32, 0, out, NULL);
    const unsigned net = last_launches();
    t_ok(rc == CLSORT_OK && net < 4, "CLSORT_TOPK_RADIX=0 takes the network (%u launches)", net);
    unsetenv("CLSORT_TOPK_RADIX");

    /* The config key: a private config directory with a file for this device. */
    char dir[] = "/tmp/clsort_topk_radix_XXXXXX";
    if (!mkdtemp(dir)) {
        t_ok(0, "mkdtemp");
        return;
    }
    static const struct {
        const char *text;
        int radix;
    } cfg[] = {{"[auto]\ntopk_radix.32 = 1 1\n", 1},
               {"[auto]\ntopk_radix.32 = off\ntopk_radix.64 = 1 1\n", 0}};
    const char *old = getenv("CLSORT_CONFIG_DIR");
    char *saved = old ? strdup(old) : NULL;
    setenv("CLSORT_CONFIG_DIR", dir, 1);
    char path[2048];
    if (clsort_config_path(ctx, path, sizeof path) != CLSORT_OK) {
        t_ok(0, "clsort_config_path");
        return;
    }
    for (int c = 0; c < 2; ++c) {
        FILE *f = fopen(path, "w");
        if (f) {
            fputs(cfg[c].text, f);
            fclose(f);
        }
        chmod(path, 0600);
        clsort_ctx *c2 = NULL;
        rc = clsort_create(&c2, NULL);
        unsigned launches = 0;
        if (rc == CLSORT_OK)
            rc = clsort_topk(c2, keys, NULL, 0, 3000, 1, 5, CLSORT_U32, 0, out, NULL);
        clsort_stats st;
        memset(&st, 0, sizeof st);
        if (rc == CLSORT_OK && clsort_get_stats(c2, &st) == CLSORT_OK)
            launches = st.launches;
        t_ok(rc == CLSORT_OK && (launches >= 8) == cfg[c].radix,
             "[auto] %s: the radix select %s (%u launches)",
             cfg[c].radix ? "topk_radix.32 = 1 1" : "topk_radix.32 = off",
             cfg[c].radix ? "taken" : "not taken", launches);
        clsort_destroy(c2);
    }
    if (saved) {
        setenv("CLSORT_CONFIG_DIR", saved, 1);
        free(saved);
    } else {
        unsetenv("CLSORT_CONFIG_DIR");
    }
    remove(path);
    rmdir(dir);
}

int main(void)
{
    t_init("test_topk_radix");
    ctx = t_create_ctx();
    path_taken();
    setenv("CLSORT_TOPK_RADIX", "1", 1);
    const int level = t_level();

    /* Every type, both directions: (rows, n, k) with k = 1, small, k past half the tile (the
     * survivors' full sort) and k = n; distributions and outputs rotate over the cases. */
    static const size_t shapes[][3] = {
        {1, 1, 1},     {2, 9000, 1},     {3, 5000, 37},   {1, 20000, 300},
        {2, 3000, 3000}, {1, 6000, 2500}, {200, 300, 40},
    };
    static const int dists[] = {T_RANDOM, T_FEW, T_SPECIAL, T_EQUAL, T_SORTED, T_REVERSED};
    static const int outs[][2] = {{OUT_INDEX, 4}, {OUT_NONE, 0}, {OUT_VALUES, 4},
                                  {OUT_INDEX, 8}, {OUT_VALUES, 8}};
    const size_t nshapes = sizeof shapes / sizeof *shapes;
    unsigned turn = 0;
    for (int ti = 0; ti < T_NTYPES; ++ti)
        for (size_t si = 0; si < nshapes; ++si)
            for (int desc = 0; desc < 2; ++desc) {
                if (level == 0 && (si + (size_t)desc + (size_t)ti) % 3)
                    continue;
                const int d = dists[(turn + si) % (sizeof dists / sizeof *dists)];
                const int *o = outs[(turn / 2 + (unsigned)ti) % (sizeof outs / sizeof *outs)];
                ++turn;
                run_case(t_types[ti], d, desc, shapes[si][1], shapes[si][0], shapes[si][2], o[0],
                         (size_t)o[1], 0);
            }

    /* k at the digits' edges, each type and direction once: a bucket of the second-lowest digit
     * taken whole (k = 256, 512: the early stop) or not (255, 257); equal keys split after the
     * last digit (triples, k = 3 x 256 +- 1); a key a bucket of the first digit (the stop after
     * one pass). */
    for (int ti = 0; ti < T_NTYPES; ++ti)
        for (int desc = 0; desc < 2; ++desc) {
            const clsort_type type = t_types[ti];
            run_case(type, L_RAMP, desc, 3000, 2, 256, OUT_INDEX, 4, 0);
            run_case(type, L_RAMP, desc, 3000, 2, 257 - 2 * (size_t)desc, OUT_INDEX, 4, 0);
            run_case(type, L_TRIPLES, desc, 2000, 2, 767 + 2 * (size_t)desc, OUT_INDEX, 8, 0);
            run_case(type, L_TOP, desc, 200, 3, 1 + 99 * (size_t)desc, OUT_VALUES, 4, 0);
            if (level > 0) {
                run_case(type, L_RAMP, desc, 1500, 1, 512, OUT_NONE, 0, 0);
                run_case(type, L_TRIPLES, desc, 900, 3, 3, OUT_INDEX, 4, 0);
            }
        }
    /* Ties everywhere and the special floats, with indices, many rows. */
    for (int ti = 0; ti < T_NTYPES; ++ti) {
        run_case(t_types[ti], T_EQUAL, ti & 1, 5000, 3, 1000, OUT_INDEX, 8, 0);
        run_case(t_types[ti], T_SPECIAL, 1 - (ti & 1), 777, 40, 129, OUT_INDEX, 4, 0);
        run_case(t_types[ti], T_FEW, 0, 4000, 2, 3999, OUT_VALUES, 8, 0);
    }

    /* The GPUs' shape: groups with local scans and barriers, and many chunks a row. */
    static const struct {
        const char *wg, *chunk;
        clsort_type type;
        int dist, desc;
        size_t n, rows, k;
        int out;
        size_t vs;
    } shaped[] = {
        {"16", "64", CLSORT_U32, T_RANDOM, 0, 5000, 3, 300, OUT_INDEX, 4},
        {"16", "128", CLSORT_F32, T_SPECIAL, 1, 3000, 2, 1000, OUT_VALUES, 8},
        {"32", "32", CLSORT_I32, L_TRIPLES, 0, 2000, 2, 700, OUT_INDEX, 4},
        {"8", "64", CLSORT_U64, T_FEW, 1, 3000, 2, 129, OUT_INDEX, 8},
        {"64", "64", CLSORT_F64, T_EQUAL, 0, 1000, 4, 100, OUT_VALUES, 4},
        {"16", "256", CLSORT_I64, L_RAMP, 1, 4000, 1, 256, OUT_NONE, 0},
        {"256", "1024", CLSORT_F32, T_RANDOM, 0, 3000, 2, 64, OUT_INDEX, 4},
        {"1", "16", CLSORT_U32, L_RAMP, 1, 2000, 2, 255, OUT_INDEX, 4},
    };
    for (size_t i = 0; i < sizeof shaped / sizeof *shaped; ++i) {
        setenv("CLSORT_TOPK_RADIX_WG", shaped[i].wg, 1);
        setenv("CLSORT_TOPK_RADIX_CHUNK", shaped[i].chunk, 1);
        run_case(shaped[i].type, shaped[i].dist, shaped[i].desc, shaped[i].n, shaped[i].rows,
                 shaped[i].k, shaped[i].out, shaped[i].vs, 0);
    }
    unsetenv("CLSORT_TOPK_RADIX_WG");
    unsetenv("CLSORT_TOPK_RADIX_CHUNK");

    /* The _buffer form. */
    run_case(CLSORT_U32, T_RANDOM, 0, 10000, 3, 200, OUT_INDEX, 4, 1);
    run_case(CLSORT_F64, T_SPECIAL, 1, 3000, 2, 2500, OUT_VALUES, 8, 1);
    unsetenv("CLSORT_TOPK_RADIX");
    clsort_destroy(ctx);
    return t_done();
}
