/* test_radix.c - what the radix sort (CLSORT_RADIX) adds beyond sorting, which test_sort_keys,
 * test_sort_pairs, test_queue_buffers and test_zero_one check for every type, size class and
 * direction: its second device buffers. Where they cannot be had (an injected clCreateBuffer
 * failure, test_clhooks.h) explicit RADIX returns CLSORT_ERR_OUT_OF_MEMORY with the data
 * untouched, for host arrays and for the caller's buffers, and AUTO sorts in place with a
 * network instead. AUTO takes the radix sort where the config's crossover says so (a config in
 * a temporary CLSORT_CONFIG_DIR gives one to this CPU device, whose default is never), and
 * CLSORT_STABLE pairs go to it directly (no 8-byte positions), at any size where the device
 * takes it at all. Nothing leaks. */
#include "test_clhooks.h"
#include "test_util.h"

#include <ctype.h>
#include <sys/stat.h>
#include <unistd.h>

#define N_BIG 120000 /* larger than any sort before it: every scratch buffer is new */


/* Random u32 keys (and 4-byte values: their positions) and the reference order. */
typedef struct data {
    size_t n;
    uint32_t *keys, *orig, *ref, *vals;
} data;

static void data_make(data *d, size_t n, unsigned seed, t_dist dist)
{
    d->n = n;
    d->keys = t_xmalloc(n * 4);
    d->orig = t_xmalloc(n * 4);
    d->ref = t_xmalloc(n * 4);
    d->vals = t_xmalloc(n * 4);
    t_rng r = t_rng_for(seed, n, 0, 0);
    t_fill(CLSORT_U32, dist, d->orig, n, &r);
    memcpy(d->keys, d->orig, n * 4);
    memcpy(d->ref, d->orig, n * 4);
    t_ref_sort(CLSORT_U32, d->ref, n, 0);
    for (size_t i = 0; i < n; ++i)
        d->vals[i] = (uint32_t)i;
}

static void data_free(data *d)
{
    free(d->keys);
    free(d->orig);
    free(d->ref);
    free(d->vals);
}

/* The keys are sorted, and with values each came with its key, equal keys in input order. */
static int data_sorted(const data *d, int pairs)
{
    if (t_first_diff(CLSORT_U32, d->keys, d->ref, d->n) != d->n)
        return 0;
    for (size_t i = 0; pairs && i < d->n; ++i)
        if (d->vals[i] >= d->n || d->orig[d->vals[i]] != d->keys[i] ||
            (i && d->keys[i] == d->keys[i - 1] && d->vals[i] < d->vals[i - 1]))
            return 0;
    return 1;
}

static clsort_algorithm ran(clsort_ctx *ctx)
{
    clsort_stats st;
    return clsort_get_stats(ctx, &st) == CLSORT_OK ? st.algorithm : (clsort_algorithm)-1;
}

/* Explicit RADIX without its second buffer: CLSORT_ERR_OUT_OF_MEMORY, data untouched; then it
 * sorts. The scratch buffer of the keys is grown first by a network's sort of the same size, so
 * that the next clCreateBuffer is the radix sort's own. */
static void test_explicit_oom(clsort_ctx *ctx)
{
    const unsigned nf = CLSORT_NO_HOST_FALLBACK;
    data d;
    data_make(&d, N_BIG, 1, T_RANDOM);
    t_is_status(clsort_sort_pairs(ctx, d.keys, d.vals, 4, d.n, CLSORT_U32, CLSORT_BITONIC, nf),
                CLSORT_OK, "bitonic sorts %zu pairs (the keys' and values' buffers)", d.n);
    memcpy(d.keys, d.orig, d.n * 4);
    for (size_t i = 0; i < d.n; ++i)
        d.vals[i] = (uint32_t)i;
    const h_counts before = h_now();
    atomic_store(&h_fail_buffer_, CL_MEM_OBJECT_ALLOCATION_FAILURE);
    int rc = clsort_sort_pairs(ctx, d.keys, d.vals, 4, d.n, CLSORT_U32, CLSORT_RADIX, nf);
    atomic_store(&h_fail_buffer_, 0);
    t_is_status(rc, CLSORT_ERR_OUT_OF_MEMORY,
                "explicit RADIX, its second buffer refused: CLSORT_ERR_OUT_OF_MEMORY");
    if (!t_ok(strstr(clsort_last_error(ctx), "CL_MEM_OBJECT_ALLOCATION_FAILURE") != NULL,
              "... the error names the failed allocation"))
        t_diag("last error: %s", clsort_last_error(ctx));
    int same = memcmp(d.keys, d.orig, d.n * 4) == 0;
    for (size_t i = 0; same && i < d.n; ++i)
        same = d.vals[i] == i;
    t_ok(same, "... keys and values untouched");
    t_ok(h_now().buffers <= before.buffers, "... no buffer leaked");
    rc = clsort_sort_pairs(ctx, d.keys, d.vals, 4, d.n, CLSORT_U32, CLSORT_RADIX, nf);
    t_ok(rc == CLSORT_OK && data_sorted(&d, 1) && ran(ctx) == CLSORT_RADIX,
         "... then RADIX sorts the same pairs (stable)");

    /* The caller's buffers: the radix sort's own are the only ones made. */
    cl_command_queue q = clsort_get_queue(ctx);
    cl_context cl = NULL;
    clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof cl, &cl, NULL);
    const size_t n2 = 2 * N_BIG;
    data e;
    data_make(&e, n2, 2, T_FEW);
    cl_int err;
    cl_mem kb = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n2 * 4, e.keys, &err);
    t_ok(err == CL_SUCCESS, "a buffer of %zu keys", n2);
    atomic_store(&h_fail_buffer_, CL_MEM_OBJECT_ALLOCATION_FAILURE);
    rc = clsort_sort_buffer(ctx, kb, NULL, 0, n2, CLSORT_U32, CLSORT_RADIX, 0, 0, NULL, NULL);
    atomic_store(&h_fail_buffer_, 0);
    t_is_status(rc, CLSORT_ERR_OUT_OF_MEMORY,
                "clsort_sort_buffer, explicit RADIX without its second buffer");
    clEnqueueReadBuffer(q, kb, CL_TRUE, 0, n2 * 4, e.keys, 0, NULL, NULL);
    t_ok(memcmp(e.keys, e.orig, n2 * 4) == 0, "... the caller's buffer untouched");
    rc = clsort_sort_buffer(ctx, kb, NULL, 0, n2, CLSORT_U32, CLSORT_RADIX, 0, 0, NULL, NULL);
    clEnqueueReadBuffer(q, kb, CL_TRUE, 0, n2 * 4, e.keys, 0, NULL, NULL);
    t_ok(rc == CLSORT_OK && data_sorted(&e, 0), "... then it sorts there");
    clReleaseMemObject(kb);
    data_free(&e);
    data_free(&d);
}

/* clsort_sort_buffer takes CLSORT_STABLE with RADIX (the networks need host memory for it). */
static void test_buffer_stable(clsort_ctx *ctx)
{
    cl_command_queue q = clsort_get_queue(ctx);
    cl_context cl = NULL;
    clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof cl, &cl, NULL);
    data d;
    data_make(&d, 50001, 8, T_FEW);
    cl_int e1, e2;
    cl_mem kb = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, d.n * 4, d.keys, &e1);
    cl_mem vb = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, d.n * 4, d.vals, &e2);
    t_ok(e1 == CL_SUCCESS && e2 == CL_SUCCESS, "buffers of %zu pairs", d.n);
    t_is_status(clsort_sort_buffer(ctx, kb, vb, 4, d.n, CLSORT_U32, CLSORT_BITONIC, CLSORT_STABLE,
                                   0, NULL, NULL),
                CLSORT_ERR_UNSUPPORTED, "clsort_sort_buffer: CLSORT_STABLE with bitonic");
    const int rc = clsort_sort_buffer(ctx, kb, vb, 4, d.n, CLSORT_U32, CLSORT_RADIX,
                                      CLSORT_STABLE, 0, NULL, NULL);
    clEnqueueReadBuffer(q, kb, CL_TRUE, 0, d.n * 4, d.keys, 0, NULL, NULL);
    clEnqueueReadBuffer(q, vb, CL_TRUE, 0, d.n * 4, d.vals, 0, NULL, NULL);
    t_ok(rc == CLSORT_OK && data_sorted(&d, 1),
         "clsort_sort_buffer: CLSORT_STABLE with RADIX, stable pairs (%s)",
         clsort_status_name(rc));
    clReleaseMemObject(kb);
    clReleaseMemObject(vb);
    data_free(&d);
}

/* The warp multisplit ranking (radix.cl, RX_MATCH): NVIDIA GPUs run it through PTX; here its
 * emulated form (CLSORT_RADIX_MATCH=2) checks the scheme on any device: u32 pairs stable around
 * the tile sizes, few distinct keys and random ones, 32 keys a work-item, and 8-byte keys. */
static void test_multisplit(clsort_ctx *ctx)
{
    setenv("CLSORT_RADIX_MATCH", "2", 1);
    static const size_t sizes[] = {31, 1000, 4097, 70001};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; ++i)
        for (int few = 0; few < 2; ++few) {
            data d;
            data_make(&d, sizes[i], 20 + (unsigned)i, few ? T_FEW : T_RANDOM);
            const int rc = clsort_sort_pairs(ctx, d.keys, d.vals, 4, d.n, CLSORT_U32,
                                             CLSORT_RADIX, 0);
            t_ok(rc == CLSORT_OK && data_sorted(&d, 1) && ran(ctx) == CLSORT_RADIX,
                 "multisplit ranking: %zu u32 pairs (%s), sorted and stable (%s)", d.n,
                 few ? "few keys" : "random", clsort_status_name(rc));
            data_free(&d);
        }
    /* 32 keys a work-item: the multisplit's largest tile. */
    setenv("CLSORT_RADIX_ITEMS", "32", 1);
    data d;
    data_make(&d, 9001, 30, T_FEW);
    int rc = clsort_sort_pairs(ctx, d.keys, d.vals, 4, d.n, CLSORT_U32, CLSORT_RADIX, 0);
    t_ok(rc == CLSORT_OK && data_sorted(&d, 1),
         "multisplit ranking, 32 keys a work-item: %zu u32 pairs sorted and stable (%s)", d.n,
         clsort_status_name(rc));
    data_free(&d);
    unsetenv("CLSORT_RADIX_ITEMS");
    const size_t n = 50001;
    uint64_t *k = t_xmalloc(n * 8), *ref = t_xmalloc(n * 8);
    t_rng r = t_rng_for(31, n, 0, 0);
    t_fill(CLSORT_U64, T_RANDOM, k, n, &r);
    memcpy(ref, k, n * 8);
    t_ref_sort(CLSORT_U64, ref, n, 1);
    rc = clsort_sort(ctx, k, n, CLSORT_U64, CLSORT_RADIX, CLSORT_DESCENDING);
    t_ok(rc == CLSORT_OK && t_first_diff(CLSORT_U64, k, ref, n) == n,
         "multisplit ranking: %zu u64 keys descending (%s)", n, clsort_status_name(rc));
    free(k);
    free(ref);
    unsetenv("CLSORT_RADIX_MATCH");
}

/* Batches and segments take RADIX and run the bitonic network (their segments are short). */
static void test_batch_segments(clsort_ctx *ctx)
{
    data d;
    data_make(&d, 64 * 100, 9, T_RANDOM);
    int rc = clsort_sort_batch(ctx, d.keys, 100, 64, CLSORT_U32, CLSORT_RADIX, 0);
    int ok = rc == CLSORT_OK && ran(ctx) == CLSORT_BITONIC;
    for (size_t a = 0; ok && a < 64; ++a)
        for (size_t i = 1; i < 100; ++i)
            ok &= d.keys[a * 100 + i - 1] <= d.keys[a * 100 + i];
    t_ok(ok, "clsort_sort_batch with RADIX: sorted by bitonic (%s)",
         clsort_algorithm_name(ran(ctx)));
    memcpy(d.keys, d.orig, d.n * 4);
    const uint64_t off[4] = {0, 10, 3000, 6400};
    rc = clsort_sort_segments(ctx, d.keys, NULL, 0, off, 3, CLSORT_U32, CLSORT_RADIX,
                              CLSORT_NO_HOST_FALLBACK);
    ok = rc == CLSORT_OK;
    for (size_t sgm = 0; ok && sgm < 3; ++sgm)
        for (uint64_t i = off[sgm] + 1; i < off[sgm + 1]; ++i)
            ok &= d.keys[i - 1] <= d.keys[i];
    t_ok(ok, "clsort_sort_segments with RADIX: every segment sorted (%s)",
         clsort_status_name(rc));
    data_free(&d);
}

/* A context whose config gives AUTO the radix sort from 50000 keys of u32 (alone and with
 * 4-byte values) and no host path. */
static clsort_ctx *radix_ctx(char *dir, size_t dir_size)
{
    clsort_ctx *probe = t_create_ctx();
    clsort_device_info info;
    clsort_get_device_info(probe, &info);
    char vendor[200], name[200], path[1400];
    t_normalise(info.vendor, vendor, sizeof vendor);
    t_normalise(info.name, name, sizeof name);
    clsort_destroy(probe);
    snprintf(dir, dir_size, "/tmp/clsort-test-radix-%ld", (long)getpid());
    mkdir(dir, 0700);
    snprintf(path, sizeof path, "%s/%s--%s.ini", dir, vendor[0] ? vendor : "unknown",
             name[0] ? name : "unknown");
    FILE *f = fopen(path, "w");
    if (!f)
        t_bail("cannot write %s", path);
    fputs("[auto]\nhost_path_max = 0\nradix_min_n_k4 = 50000\nradix_min_n_k4_v4 = 50000\n", f);
    fclose(f);
    setenv("CLSORT_CONFIG_DIR", dir, 1);
    clsort_ctx *ctx = t_create_ctx();
    unsetenv("CLSORT_CONFIG_DIR");
    unlink(path);
    rmdir(dir);
    return ctx;
}

/* AUTO by the config's crossover: radix above it, a network below it and where the second
 * buffer is refused (in place, sorted); stable pairs to the radix sort directly. */
static void test_auto(clsort_ctx *ctx)
{
    clsort_device_info info;
    clsort_get_device_info(ctx, &info);
    t_ok(strstr(info.config_source, "clsort-test-radix") != NULL, "the test config is used (%s)",
         info.config_source);
    data d;
    data_make(&d, 40000, 3, T_RANDOM);
    int rc = clsort_sort(ctx, d.keys, d.n, CLSORT_U32, CLSORT_AUTO, 0);
    t_ok(rc == CLSORT_OK && data_sorted(&d, 0) && ran(ctx) != CLSORT_RADIX,
         "AUTO below the crossover: a network (%s)", clsort_algorithm_name(ran(ctx)));
    data_free(&d);

    data_make(&d, N_BIG, 4, T_RANDOM);
    rc = clsort_sort(ctx, d.keys, d.n, CLSORT_U32, CLSORT_BITONIC, 0);
    memcpy(d.keys, d.orig, d.n * 4);
    atomic_store(&h_fail_buffer_, CL_MEM_OBJECT_ALLOCATION_FAILURE);
    rc = clsort_sort(ctx, d.keys, d.n, CLSORT_U32, CLSORT_AUTO, 0);
    const int refused = atomic_exchange(&h_fail_buffer_, 0) == 0;
    t_ok(refused, "AUTO above the crossover asked for the radix sort's buffer (and was refused)");
    t_ok(rc == CLSORT_OK && data_sorted(&d, 0) && ran(ctx) == CLSORT_BITONIC,
         "... and sorted in place with bitonic instead (%s, %s)", clsort_status_name(rc),
         clsort_algorithm_name(ran(ctx)));
    memcpy(d.keys, d.orig, d.n * 4);
    rc = clsort_sort(ctx, d.keys, d.n, CLSORT_U32, CLSORT_AUTO, 0);
    t_ok(rc == CLSORT_OK && data_sorted(&d, 0) && ran(ctx) == CLSORT_RADIX,
         "AUTO above the crossover with room: the radix sort (%s)",
         clsort_algorithm_name(ran(ctx)));
    data_free(&d);

    /* Stable pairs: to the radix sort directly. The networks' stable path would sort the keys
     * with 8-byte positions, for which this config has no crossover (radix_min_n_k4_v8): the
     * statistics would then name bitonic. */
    data_make(&d, 2 * N_BIG, 5, T_FEW);
    rc = clsort_sort_pairs(ctx, d.keys, d.vals, 4, d.n, CLSORT_U32, CLSORT_AUTO, CLSORT_STABLE);
    t_ok(rc == CLSORT_OK && data_sorted(&d, 1) && ran(ctx) == CLSORT_RADIX,
         "AUTO stable pairs above the crossover: the radix sort, stable (%s)",
         clsort_algorithm_name(ran(ctx)));
    data_free(&d);
    /* ... and below it too: stable at the radix sort's usual cost beats the positions. */
    data_make(&d, 30000, 6, T_FEW);
    rc = clsort_sort_pairs(ctx, d.keys, d.vals, 4, d.n, CLSORT_U32, CLSORT_AUTO, CLSORT_STABLE);
    t_ok(rc == CLSORT_OK && data_sorted(&d, 1) && ran(ctx) == CLSORT_RADIX,
         "AUTO stable pairs below the crossover: the radix sort too, stable (%s)",
         clsort_algorithm_name(ran(ctx)));
    data_free(&d);
}

int main(void)
{
    t_init("test_radix");
    const h_counts start = h_now();
    clsort_ctx *ctx = t_create_ctx();
    clsort_params p;
    t_is_status(clsort_get_params(ctx, CLSORT_RADIX, CLSORT_U32, 0, &p), CLSORT_ERR_INVALID_ARG,
                "clsort_get_params: the radix sort has no clsort_params");
    t_is_str(clsort_algorithm_name(CLSORT_RADIX), "radix", "clsort_algorithm_name(CLSORT_RADIX)");
    clsort_algorithm parsed = CLSORT_AUTO;
    t_ok(clsort_algorithm_parse("radix", &parsed) == 0 && parsed == CLSORT_RADIX,
         "clsort_algorithm_parse(\"radix\")");
    test_explicit_oom(ctx);
    test_buffer_stable(ctx);
    test_batch_segments(ctx);
    test_multisplit(ctx);
    clsort_destroy(ctx);
    char dir[256];
    ctx = radix_ctx(dir, sizeof dir);
    test_auto(ctx);
    clsort_destroy(ctx);
    const h_counts end = h_now();
    t_ok(end.buffers == start.buffers && end.programs == start.programs &&
             end.kernels == start.kernels && end.events == start.events,
         "everything released (%ld buffers, %ld programs left)", end.buffers - start.buffers,
         end.programs - start.programs);
    return t_done();
}
