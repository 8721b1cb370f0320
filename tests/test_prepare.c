/* test_prepare.c - clsort_prepare and clsort_prepare_sort: after them, the first sort of up to max_n keys of
 * that kind builds nothing (no program or kernel is made, clsort_stats.build_ns is 0) and makes
 * no new device buffer, and sorts correctly; without it, the first sort of a fresh context does
 * pay build_ns (so the check can fail). Its errors: bad arguments give CLSORT_ERR_INVALID_ARG,
 * a max_n no buffer can hold and an injected allocation failure give CLSORT_ERR_OUT_OF_MEMORY,
 * and the context sorts afterwards. test_clhooks.h counts programs, kernels and buffers. */
#include "test_clhooks.h"
#include "test_util.h"

static uint64_t seed;

/* Sorts a fresh random array of n keys (and values) and checks it against the reference. */
static int sort_ok(clsort_ctx *ctx, clsort_type type, size_t value_size, size_t n,
                   clsort_algorithm algo, unsigned flags, const char *what)
{
    const size_t ks = t_size(type);
    unsigned char *keys = t_xmalloc(n * ks), *want = t_xmalloc(n * ks);
    unsigned char *vals = value_size ? t_xmalloc(n * value_size) : NULL;
    t_rng r = t_rng_for(seed, n, type, algo);
    t_fill(type, T_RANDOM, keys, n, &r);
    memcpy(want, keys, n * ks);
    t_ref_sort(type, want, n, (flags & CLSORT_DESCENDING) != 0);
    for (size_t i = 0; vals && i < n; ++i)
        memcpy(vals + i * value_size, &i, value_size); /* little-endian position */
    const int rc = vals ? clsort_sort_pairs(ctx, keys, vals, value_size, n, type, algo, flags)
                        : clsort_sort(ctx, keys, n, type, algo, flags);
    int good = t_check_sorted(ctx, rc, what, 1, type, keys, want, n);
    free(keys);
    free(want);
    free(vals);
    return good;
}

typedef struct kind {
    clsort_type type;
    size_t value_size;
    unsigned flags;
    size_t max_n;
} kind;

static void test_first_sort_builds_nothing(void)
{
    const size_t big = t_level() >= 2 ? (size_t)1 << 22 : (size_t)1 << 20;
    const kind kinds[] = {
        {CLSORT_U32, 0, 0, big},
        {CLSORT_F32, 0, CLSORT_DESCENDING | CLSORT_NO_HOST_FALLBACK, 100000},
        {CLSORT_U64, 4, 0, 70000},
        {CLSORT_I32, 8, CLSORT_STABLE, 50000},
        /* Narrow keys: widened on the device (unstable), or as 64-bit composites with their
         * positions (stable pairs). */
        {CLSORT_U16, 0, CLSORT_NO_HOST_FALLBACK, 100000},
        {CLSORT_F16, 4, CLSORT_STABLE, 50000},
    };
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; ++k) {
        const kind *c = &kinds[k];
        clsort_ctx *ctx = t_create_ctx();
        /* On a CPU device AUTO takes the host's sort (its host path); the first kind makes AUTO
         * run the networks there too, so that AUTO's programs are checked on every device. */
        if (k == 0)
            clsort_set_host_path_max(ctx, 0);
        char what[160];
        snprintf(what, sizeof what, "%s, values %zu, flags %u, max_n %zu", t_type_name(c->type),
                 c->value_size, c->flags, c->max_n);
        int rc = clsort_prepare(ctx, c->type, c->value_size, c->max_n, c->flags);
        if (!t_is_status(rc, CLSORT_OK, "clsort_prepare(%s)", what)) {
            t_diag("%s", clsort_last_error(ctx));
            clsort_destroy(ctx);
            continue;
        }
        clsort_stats st;
        clsort_get_stats(ctx, &st);
        t_ok(st.build_ns > 0, "... its stats report the build or cache-load time (%.1f ms)",
             st.build_ns / 1e6);
        const h_counts before = h_now();
        uint64_t fallback = 0;
        clsort_get_host_fallback_max(ctx, &fallback);
        /* The largest size first (the one whose buffers were reserved), then smaller ones down
         * to just above the host fallback, with AUTO and with explicit bitonic. */
        const size_t sizes[] = {c->max_n, c->max_n / 2 + 3, c->max_n / 7, (size_t)fallback + 1};
        int built = 0, wrong = 0;
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; ++i)
            for (int a = 0; a < 2; ++a) {
                const size_t n = sizes[i];
                if (n < 2 || n > c->max_n)
                    continue;
                const clsort_algorithm algo = a ? CLSORT_BITONIC : CLSORT_AUTO;
                char one[200];
                snprintf(one, sizeof one, "%s: n %zu %s", what, n, t_algo_name(algo));
                if (!sort_ok(ctx, c->type, c->value_size, n, algo, c->flags, one))
                    ++wrong;
                clsort_get_stats(ctx, &st);
                const h_counts now = h_now();
                if (st.build_ns || now.programs != before.programs ||
                    now.kernels != before.kernels) {
                    ++built;
                    t_diag("%s: build_ns %llu, programs %ld -> %ld, kernels %ld -> %ld", one,
                           (unsigned long long)st.build_ns, before.programs, now.programs,
                           before.kernels, now.kernels);
                }
                if (i == 0 && a == 0)
                    t_ok(now.buffers == before.buffers,
                         "%s: the first sort of max_n made no buffer (%ld -> %ld)", what,
                         before.buffers, now.buffers);
            }
        t_ok(!wrong, "%s: every sort after clsort_prepare is right", what);
        t_ok(!built, "%s: no sort after clsort_prepare built a program or kernel", what);
        clsort_destroy(ctx);
    }
}

/* The control: without clsort_prepare a fresh context's first device sort builds (or loads)
 * its program, and the field says so. */
static void test_without_prepare(void)
{
    clsort_ctx *ctx = t_create_ctx();
    const h_counts before = h_now();
    sort_ok(ctx, CLSORT_U32, 0, 5000, CLSORT_BITONIC, CLSORT_NO_HOST_FALLBACK,
            "first sort without prepare");
    clsort_stats st;
    clsort_get_stats(ctx, &st);
    t_ok(st.build_ns > 0 && h_now().programs > before.programs,
         "without clsort_prepare the first sort builds: build_ns %.1f ms, programs %ld -> %ld",
         st.build_ns / 1e6, before.programs, h_now().programs);
    sort_ok(ctx, CLSORT_U32, 0, 5000, CLSORT_BITONIC, CLSORT_NO_HOST_FALLBACK, "second sort");
    clsort_get_stats(ctx, &st);
    t_is_int((long long)st.build_ns, 0, "... and the second sort of that size builds nothing");
    clsort_destroy(ctx);
}

/* clsort_prepare_sort: one sort's program and nothing else. After it the sort of that size and
 * algorithm builds nothing; it made exactly one program, and not the bitonic network's that
 * clsort_prepare also builds. */
static void test_prepare_sort(void)
{
    typedef struct one {
        clsort_type type;
        size_t value_size;
        clsort_algorithm algo;
        unsigned flags;
        size_t n;
    } one;
    const one cases[] = {
        {CLSORT_U32, 0, CLSORT_AUTO, CLSORT_NO_HOST_FALLBACK, 100000},
        {CLSORT_U32, 0, CLSORT_RADIX, 0, 70000},
        {CLSORT_U64, 4, CLSORT_ODD_EVEN_MERGE, CLSORT_DESCENDING, 30000},
        {CLSORT_I32, 8, CLSORT_RADIX, CLSORT_STABLE, 50000},
        {CLSORT_U16, 0, CLSORT_BITONIC, CLSORT_NO_HOST_FALLBACK, 40000},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; ++k) {
        const one *c = &cases[k];
        char what[160];
        snprintf(what, sizeof what, "clsort_prepare_sort(%s, values %zu, %s, flags %u, n %zu)",
                 t_type_name(c->type), c->value_size, t_algo_name(c->algo), c->flags, c->n);
        clsort_ctx *ctx = t_create_ctx();
        h_counts before = h_now();
        int rc = clsort_prepare_sort(ctx, c->type, c->value_size, c->n, c->algo, c->flags);
        if (!t_is_status(rc, CLSORT_OK, "%s", what)) {
            t_diag("%s", clsort_last_error(ctx));
            clsort_destroy(ctx);
            continue;
        }
        const long made = h_now().programs - before.programs;
        t_is_int(made, 1, "%s: made exactly one program", what);
        before = h_now();
        const int good = sort_ok(ctx, c->type, c->value_size, c->n, c->algo, c->flags, what);
        clsort_stats st;
        clsort_get_stats(ctx, &st);
        const h_counts now = h_now();
        t_ok(good && st.build_ns == 0 && now.programs == before.programs &&
                 now.kernels == before.kernels,
             "%s: the sort of that size is right and builds nothing (build_ns %llu, kernels "
             "%ld -> %ld)",
             what, (unsigned long long)st.build_ns, before.kernels, now.kernels);
        /* The control: what clsort_prepare would also have built (the bitonic network's program)
         * was left out, so a bitonic sort of that kind builds it now. */
        if (c->algo != CLSORT_BITONIC && c->algo != CLSORT_AUTO) {
            before = h_now();
            sort_ok(ctx, c->type, c->value_size, c->n, CLSORT_BITONIC, c->flags, what);
            t_ok(h_now().programs > before.programs,
                 "%s: a bitonic sort afterwards builds its own program (%ld -> %ld)", what,
                 before.programs, h_now().programs);
        }
        clsort_destroy(ctx);
    }
    /* AUTO at a size it gives to the host's own sort (a CPU device's host path): nothing. */
    clsort_ctx *ctx = t_create_ctx();
    clsort_set_host_path_max(ctx, 1u << 20);
    const h_counts before = h_now();
    t_is_status(clsort_prepare_sort(ctx, CLSORT_U32, 0, 1000, CLSORT_AUTO, 0), CLSORT_OK,
                "clsort_prepare_sort of a size AUTO sorts on the host");
    t_is_int(h_now().programs - before.programs, 0, "... makes no program");
    t_is_status(clsort_prepare_sort(ctx, CLSORT_U32, 0, 1000, (clsort_algorithm)99, 0),
                CLSORT_ERR_INVALID_ARG, "clsort_prepare_sort with algorithm 99");
    t_is_status(clsort_prepare_sort(NULL, CLSORT_U32, 0, 1000, CLSORT_AUTO, 0),
                CLSORT_ERR_INVALID_ARG, "clsort_prepare_sort(NULL)");
    clsort_destroy(ctx);
}

/* clsort_stats.programs_compiled tells a compile from a load out of the disk cache: 1 for the
 * first prepare into an empty cache directory, 0 for the same on a new context (a load). */
static void test_programs_compiled(void)
{
    char dir[] = "/tmp/clsort-test-prepare-XXXXXX";
    if (!mkdtemp(dir))
        t_bail("mkdtemp failed");
    const char *old_dir = getenv("CLSORT_CACHE_DIR"), *old_no = getenv("CLSORT_NO_CACHE");
    char *keep_dir = old_dir ? strdup(old_dir) : NULL, *keep_no = old_no ? strdup(old_no) : NULL;
    setenv("CLSORT_CACHE_DIR", dir, 1);
    unsetenv("CLSORT_NO_CACHE");
    unsigned compiled[2] = {0, 0};
    uint64_t build[2] = {0, 0};
    for (int i = 0; i < 2; ++i) {
        clsort_ctx *ctx = t_create_ctx();
        const int rc = clsort_prepare_sort(ctx, CLSORT_I32, 0, 20000, CLSORT_BITONIC,
                                           CLSORT_NO_HOST_FALLBACK);
        clsort_stats st;
        clsort_get_stats(ctx, &st);
        if (rc != CLSORT_OK)
            t_diag("%s", clsort_last_error(ctx));
        compiled[i] = st.programs_compiled;
        build[i] = st.build_ns;
        clsort_destroy(ctx);
    }
    t_is_int(compiled[0], 1, "programs_compiled: 1 for the first prepare into an empty cache");
    t_ok(compiled[1] == 0 && build[1] > 0,
         "programs_compiled: 0 for the second, loaded from the cache (%u; build_ns %llu)",
         compiled[1], (unsigned long long)build[1]);
    if (keep_dir)
        setenv("CLSORT_CACHE_DIR", keep_dir, 1);
    else
        unsetenv("CLSORT_CACHE_DIR");
    if (keep_no)
        setenv("CLSORT_NO_CACHE", keep_no, 1);
    free(keep_dir);
    free(keep_no);
    t_remove_tree(dir);
}

static void test_errors(void)
{
    clsort_ctx *ctx = t_create_ctx();
    t_is_status(clsort_prepare(NULL, CLSORT_U32, 0, 1000, 0), CLSORT_ERR_INVALID_ARG,
                "clsort_prepare(NULL ctx)");
    t_is_status(clsort_prepare(ctx, (clsort_type)99, 0, 1000, 0), CLSORT_ERR_INVALID_ARG,
                "clsort_prepare: bad type");
    t_ok(strstr(clsort_last_error(ctx), "clsort_prepare") != NULL, "... the error names the call");
    t_is_status(clsort_prepare(ctx, CLSORT_U32, 3, 1000, 0), CLSORT_ERR_INVALID_ARG,
                "clsort_prepare: value_size 3");
    t_is_status(clsort_prepare(ctx, CLSORT_U32, 16, 1000, 0), CLSORT_ERR_INVALID_ARG,
                "clsort_prepare: value_size 16");
    t_is_status(clsort_prepare(ctx, CLSORT_U32, 0, 1000, 0x80), CLSORT_ERR_INVALID_ARG,
                "clsort_prepare: unknown flag");
    t_is_status(clsort_prepare(ctx, CLSORT_U64, 8, SIZE_MAX, 0), CLSORT_ERR_INVALID_ARG,
                "clsort_prepare: max_n SIZE_MAX");
    t_is_status(clsort_prepare(ctx, CLSORT_U64, 8, SIZE_MAX / 16 + 1, 0), CLSORT_ERR_INVALID_ARG,
                "clsort_prepare: max_n * 16 bytes wraps");
    t_is_status(clsort_prepare(ctx, CLSORT_U32, 0, 0, 0), CLSORT_OK, "clsort_prepare: max_n 0");
    t_is_status(clsort_prepare(ctx, CLSORT_U32, 4, 1, 0), CLSORT_OK, "clsort_prepare: max_n 1");

    clsort_device_info info;
    clsort_get_device_info(ctx, &info);
    const h_counts before = h_now();
    const size_t too_big = (size_t)(info.max_alloc / 4 + 1);
    t_is_status(clsort_prepare(ctx, CLSORT_U32, 0, too_big, CLSORT_NO_HOST_FALLBACK),
                CLSORT_ERR_OUT_OF_MEMORY, "clsort_prepare above CL_DEVICE_MAX_MEM_ALLOC_SIZE");
    t_ok(strstr(clsort_last_error(ctx), "CL_DEVICE_MAX_MEM_ALLOC_SIZE") != NULL,
         "... the error says why: %s", clsort_last_error(ctx));
    t_ok(h_now().programs == before.programs, "... and built nothing first");
    t_ok(sort_ok(ctx, CLSORT_U32, 0, 20000, CLSORT_AUTO, CLSORT_NO_HOST_FALLBACK, "after OOM"),
         "... the context still sorts");

    /* The driver refuses the buffer: reported as memory, nothing kept, the context usable. */
    clsort_ctx *fresh = t_create_ctx();
    const h_counts b2 = h_now();
    atomic_store(&h_fail_buffer_, CL_MEM_OBJECT_ALLOCATION_FAILURE);
    t_is_status(clsort_prepare(fresh, CLSORT_U32, 0, 300000, 0), CLSORT_ERR_OUT_OF_MEMORY,
                "clsort_prepare with clCreateBuffer failing");
    atomic_store(&h_fail_buffer_, 0);
    t_ok(h_now().buffers == b2.buffers, "... no buffer is kept (%ld -> %ld)", b2.buffers,
         h_now().buffers);
    t_ok(sort_ok(fresh, CLSORT_U32, 0, 300000, CLSORT_AUTO, 0, "after injected failure"),
         "... the context still sorts");
    clsort_destroy(fresh);
    clsort_destroy(ctx);
}

/* The scratch is filled in its first GiB only, at offset 0: NVIDIA's driver never finished a fill
 * of exactly 2^31 bytes (clsort_prepare of 2^29 u32 keys, `clsort -S 2G`), and 16 GiB in pieces
 * of 1 GiB (clsort_prepare of 2^32 u32 keys, `clsort` of a 16 GiB file) failed and broke the
 * queue (api_sort.c, FILL_FIRST). 2^27 + 1024 u64 keys: 1 GiB and 8 KiB. */
static void test_large_fill(void)
{
    clsort_ctx *ctx = t_create_ctx();
    clsort_device_info info;
    clsort_get_device_info(ctx, &info);
    const size_t n = ((size_t)1 << 27) + 1024;
    if (info.max_alloc < n * 8 || info.global_mem < 4 * n * 8) {
        t_skip("the device holds less than 4 GiB (%llu bytes)",
               (unsigned long long)info.global_mem);
        clsort_destroy(ctx);
        return;
    }
    atomic_store(&h_fill_end_max_, 0);
    t_is_status(clsort_prepare(ctx, CLSORT_U64, 0, n, CLSORT_NO_HOST_FALLBACK), CLSORT_OK,
                "clsort_prepare of 1 GiB and 8 KiB of keys");
    t_ok(atomic_load(&h_fill_end_max_) == ((long long)1 << 30),
         "... fills its scratch's first GiB and nothing beyond (fills end at %lld bytes)",
         (long long)atomic_load(&h_fill_end_max_));
    clsort_destroy(ctx);
}

int main(void)
{
    seed = t_init("test_prepare");
    const h_counts start = h_now();
    test_without_prepare();
    test_first_sort_builds_nothing();
    test_prepare_sort();
    test_programs_compiled();
    test_errors();
    test_large_fill();
    const h_counts end = h_now();
    t_ok(end.buffers == start.buffers && end.programs == start.programs &&
             end.kernels == start.kernels,
         "clsort_destroy released every buffer, program and kernel");
    return t_done();
}
