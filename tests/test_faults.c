/* test_faults.c - OpenCL faults: a broken program build (CLSORT_BUILD_OPTIONS) returns
 * CLSORT_ERR_BUILD with the options and the build log; an allocation above
 * CL_DEVICE_MAX_MEM_ALLOC_SIZE fails cleanly with CLSORT_ERR_OUT_OF_MEMORY before touching the
 * data; injected failures of clCreateBuffer, of a kernel launch at several points of a schedule,
 * of the read back, and of the overlapped upload's writes and per-chunk first passes return a clear
 * error. After every failure the keys are unchanged, the
 * context still sorts, and no OpenCL object or host memory is leaked (test_clhooks.h counts
 * buffers, programs, kernels and events). */
#include "test_clhooks.h"
#include "test_util.h"

#include <sys/mman.h>
#include <unistd.h>

static clsort_ctx *ctx;

/* A failure may release what a success keeps (scratch buffers, the last sort's profiling
 * events) but never hold more: compare with the counts after a good sort of the same shape. */
static int no_more_than(h_counts now, h_counts good)
{
    return now.buffers <= good.buffers && now.programs <= good.programs &&
           now.kernels <= good.kernels && now.events <= good.events;
}

static void diag_counts(const char *what, h_counts c)
{
    t_diag("%s: %ld buffers (%lld bytes), %ld programs, %ld kernels, %ld events", what, c.buffers,
           c.buffer_bytes, c.programs, c.kernels, c.events);
}

/* Sorts a fresh random array with `algo` and checks it against the reference. */
static int sort_ok(clsort_algorithm algo, size_t n, unsigned seed)
{
    uint32_t *keys = t_xmalloc(n * 4), *want = t_xmalloc(n * 4);
    t_rng r = t_rng_for(seed, n, algo, 0);
    t_fill(CLSORT_U32, T_RANDOM, keys, n, &r);
    memcpy(want, keys, n * 4);
    t_ref_sort(CLSORT_U32, want, n, 0);
    const int rc = clsort_sort(ctx, keys, n, CLSORT_U32, algo, CLSORT_NO_HOST_FALLBACK);
    const int good = rc == CLSORT_OK && t_first_diff(CLSORT_U32, keys, want, n) == n;
    if (!good)
        t_diag("sort failed: %s: %s", clsort_status_name(rc), clsort_last_error(ctx));
    free(keys);
    free(want);
    return good;
}

/* Runs one sort expected to fail with `want`; checks the status, that the keys are unchanged and
 * that the error text contains `needle`. */
static void expect_failure(const char *what, clsort_algorithm algo, size_t n, int want,
                           const char *needle)
{
    uint32_t *keys = t_xmalloc(n * 4), *orig = t_xmalloc(n * 4);
    t_rng r = t_rng_for(7, n, algo, 1);
    t_fill(CLSORT_U32, T_RANDOM, keys, n, &r);
    memcpy(orig, keys, n * 4);
    const int rc = clsort_sort(ctx, keys, n, CLSORT_U32, algo, CLSORT_NO_HOST_FALLBACK);
    t_is_status(rc, want, "%s (%s, n = %zu): %s", what, t_algo_name(algo), n,
                clsort_status_name(want));
    const char *err = clsort_last_error(ctx);
    if (!t_ok(needle == NULL || strstr(err, needle) != NULL, "... the error names %s",
              needle ? needle : "something"))
        t_diag("last error: %s", err);
    else
        t_diag("last error: %.200s", err);
    t_ok(memcmp(keys, orig, n * 4) == 0, "... the keys are unchanged");
    free(keys);
    free(orig);
}

static void test_build_failure(void)
{
    static const char *const bad[] = {"-DKEY_BITS=7", "-DVAL_BYTES=3", "-cl-no-such-option-xyz"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        t_ok(sort_ok(CLSORT_BITONIC, 5000, 1), "a good sort of 5000 keys");
        const h_counts before = h_now();
        setenv("CLSORT_BUILD_OPTIONS", bad[i], 1);
        char what[128];
        snprintf(what, sizeof what, "CLSORT_BUILD_OPTIONS=\"%s\"", bad[i]);
        uint32_t keys[5000], orig[5000];
        t_rng r = t_rng_for(11, i, 0, 0);
        t_fill(CLSORT_U32, T_RANDOM, keys, 5000, &r);
        memcpy(orig, keys, sizeof keys);
        const int rc = clsort_sort(ctx, keys, 5000, CLSORT_U32, CLSORT_BITONIC,
                                   CLSORT_NO_HOST_FALLBACK);
        unsetenv("CLSORT_BUILD_OPTIONS");
        t_is_status(rc, CLSORT_ERR_BUILD, "%s: the sort returns ERR_BUILD", what);
        const char *err = clsort_last_error(ctx);
        t_ok(strstr(err, "clBuildProgram") != NULL, "... the error names clBuildProgram");
        t_ok(strstr(err, "build options:") && strstr(err, bad[i]),
             "... and the build options, with the injected one");
        const char *log = strstr(err, "build log:");
        if (!t_ok(log && strlen(log) > strlen("build log:\n") + 8, "... and a non-empty build log"))
            t_diag("last error: %.400s", err);
        else if (i == 0)
            t_ok(strstr(log, "KEY_BITS") != NULL, "... which says what is wrong (KEY_BITS)");
        t_ok(memcmp(keys, orig, sizeof keys) == 0, "... the keys are unchanged");
        t_ok(no_more_than(h_now(), before), "... no program, kernel, buffer or event leaked");
        t_ok(sort_ok(CLSORT_BITONIC, 5000, 1), "... and without the option the context sorts");
    }
}

static void test_max_alloc(void)
{
    clsort_device_info info;
    if (clsort_get_device_info(ctx, &info) != CLSORT_OK) {
        t_ok(0, "clsort_get_device_info");
        return;
    }
    t_diag("CL_DEVICE_MAX_MEM_ALLOC_SIZE %llu bytes, CL_DEVICE_GLOBAL_MEM_SIZE %llu bytes",
           (unsigned long long)info.max_alloc, (unsigned long long)info.global_mem);
    /* A host array just above the limit, mapped without backing: the library must refuse
     * before reading it, so no page of it is ever touched. */
    const size_t bytes = (size_t)info.max_alloc + ((size_t)1 << 20);
    void *keys = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (keys == MAP_FAILED) {
        t_ok(1, "# SKIP cannot map %zu bytes of address space", bytes);
        return;
    }
    const size_t n32 = bytes / 4, n64 = bytes / 8;
    const h_counts before = h_now();
    const size_t rss0 = t_rss_bytes();

    int rc = clsort_sort(ctx, keys, n32, CLSORT_U32, CLSORT_BITONIC, 0);
    t_is_status(rc, CLSORT_ERR_OUT_OF_MEMORY, "clsort_sort of %zu u32 keys (above max alloc)",
                n32);
    const char *err = clsort_last_error(ctx);
    if (!t_ok(strstr(err, "CL_DEVICE_MAX_MEM_ALLOC_SIZE") != NULL,
              "... the error names CL_DEVICE_MAX_MEM_ALLOC_SIZE"))
        t_diag("last error: %s", err);
    rc = clsort_sort(ctx, keys, n64, CLSORT_F64, CLSORT_ODD_EVEN_MERGE, 0);
    t_ok(rc == CLSORT_ERR_OUT_OF_MEMORY || (rc == CLSORT_ERR_UNSUPPORTED && !info.has_fp64),
         "clsort_sort of %zu f64 keys, odd-even merge: %s", n64, clsort_status_name(rc));
    const size_t n = 4096, count = bytes / 4 / n;
    rc = clsort_sort_batch(ctx, keys, n, count, CLSORT_U32, CLSORT_BITONIC, 0);
    t_is_status(rc, CLSORT_ERR_OUT_OF_MEMORY, "clsort_sort_batch of %zu x %zu u32 keys", count, n);
    const size_t rss1 = t_rss_bytes();
    t_ok(rss1 < rss0 + ((size_t)64 << 20),
         "... no host memory was touched (resident %zu MiB before, %zu MiB after)", rss0 >> 20,
         rss1 >> 20);
    const h_counts after = h_now();
    t_ok(no_more_than(after, before),
         "... no OpenCL object leaked (%ld -> %ld buffers)", before.buffers, after.buffers);
    munmap(keys, bytes);
    t_ok(sort_ok(CLSORT_BITONIC, 10000, 2), "... and the context still sorts");
}

static void test_injected(void)
{
    /* Warm up every network so that programs and scratch buffers exist; then any failure must
     * leave the counts exactly where a success leaves them. */
    for (int a = 1; a < T_NSORTS; ++a)
        t_ok(sort_ok(t_algos[a], 20000, 3), "warm-up: %s sorts 20000 keys", t_algo_name(t_algos[a]));
    h_counts base = h_now();
    diag_counts("after warm-up", base);

    /* clCreateBuffer fails: a bigger n forces a new scratch buffer. */
    atomic_store(&h_fail_buffer_, CL_MEM_OBJECT_ALLOCATION_FAILURE);
    expect_failure("injected clCreateBuffer failure", CLSORT_BITONIC, 40000,
                   CLSORT_ERR_OUT_OF_MEMORY, "CL_MEM_OBJECT_ALLOCATION_FAILURE");
    atomic_store(&h_fail_buffer_, 0);
    t_ok(sort_ok(CLSORT_BITONIC, 40000, 4), "... and then the context sorts 40000 keys");
    base = h_now();

    /* A launch fails at the first, second, a middle and a late launch of each network and of
     * the radix sort. */
    for (int a = 1; a < T_NSORTS; ++a) {
        const clsort_algorithm algo = t_algos[a];
        const long before = atomic_load(&h_launches_);
        t_ok(sort_ok(algo, 40000, 5), "%s: a good sort of 40000 keys", t_algo_name(algo));
        const long launches = atomic_load(&h_launches_) - before;
        base = h_now();
        const long at[4] = {0, 1, launches / 2, launches - 1};
        for (int i = 0; i < 4; ++i) {
            const cl_int err = i % 2 ? CL_INVALID_WORK_GROUP_SIZE : CL_OUT_OF_RESOURCES;
            char what[160];
            snprintf(what, sizeof what, "launch %ld of %ld fails with %s", at[i] + 1, launches,
                     i % 2 ? "CL_INVALID_WORK_GROUP_SIZE" : "CL_OUT_OF_RESOURCES");
            atomic_store(&h_fail_launch_after_, at[i]);
            atomic_store(&h_fail_launch_, err);
            expect_failure(what, algo, 40000,
                           i % 2 ? CLSORT_ERR_OPENCL : CLSORT_ERR_OUT_OF_MEMORY,
                           "clEnqueueNDRangeKernel");
            atomic_store(&h_fail_launch_, 0);
            const h_counts now = h_now();
            if (!t_ok(no_more_than(now, base), "... nothing leaked"))
                diag_counts("now", now), diag_counts("expected", base);
        }
        t_ok(sort_ok(algo, 40000, 6), "%s: the context sorts after the failures", t_algo_name(algo));
    }

    /* The read back fails: the keys stay as they were (the one read is the keys'). */
    atomic_store(&h_fail_read_, CL_OUT_OF_HOST_MEMORY);
    expect_failure("injected clEnqueueReadBuffer failure", CLSORT_BITONIC, 40000,
                   CLSORT_ERR_OUT_OF_MEMORY, "clEnqueueReadBuffer");
    atomic_store(&h_fail_read_, 0);
    t_ok(no_more_than(h_now(), base), "... nothing leaked");

    /* clsort_sort_buffer: a failed launch hands back no event and leaks none. */
    cl_int err;
    cl_context cl_ctx = NULL;
    cl_command_queue q = NULL;
    clsort_ctx *own = NULL;
    cl_device_id dev = NULL;
    (void)dev;
    /* Reuse the library's queue through a second context on a queue we make ourselves. */
    cl_platform_id plat;
    cl_device_id devs[1];
    if (clGetPlatformIDs(1, &plat, NULL) == CL_SUCCESS &&
        clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, devs, NULL) == CL_SUCCESS &&
        (cl_ctx = clCreateContext(NULL, 1, devs, NULL, NULL, &err)) != NULL &&
        (q = clCreateCommandQueue(cl_ctx, devs[0], 0, &err)) != NULL &&
        clsort_create_with_queue(&own, q) == CLSORT_OK) {
        const size_t n = 30000;
        cl_mem buf = clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE, n * 4, NULL, &err);
        const h_counts b0 = h_now();
        cl_event done = (cl_event)1;
        atomic_store(&h_fail_launch_after_, 2);
        atomic_store(&h_fail_launch_, CL_INVALID_KERNEL_ARGS);
        const int rc = clsort_sort_buffer(own, buf, NULL, 0, n, CLSORT_U32, CLSORT_BITONIC, 0, 0,
                                          NULL, &done);
        atomic_store(&h_fail_launch_, 0);
        clFinish(q);
        t_is_status(rc, CLSORT_ERR_OPENCL, "clsort_sort_buffer with an injected launch failure");
        t_ok(done == NULL, "... *done is NULL");
        const h_counts b1 = h_now();
        t_ok(b1.events == b0.events && b1.buffers == b0.buffers,
             "... no event or buffer leaked (%ld -> %ld events)", b0.events, b1.events);
        clReleaseMemObject(buf);
        clsort_destroy(own);
    } else {
        t_ok(0, "a context of our own for clsort_sort_buffer");
    }
    if (q)
        clReleaseCommandQueue(q);
    if (cl_ctx)
        clReleaseContext(cl_ctx);
}

/* Host-array transfers: the staged path (forced by CLSORT_ZERO_COPY=0 and a small
 * CLSORT_STAGING_MAX) and the zero-copy path of devices that share memory with the host. */
static void test_transfers(void)
{
    setenv("CLSORT_STAGING_MAX", "256K", 1);
    setenv("CLSORT_ZERO_COPY", "0", 1);
    clsort_ctx *saved = ctx;
    ctx = t_create_ctx();
    unsetenv("CLSORT_STAGING_MAX");
    const size_t n = 200001; /* 800 KB: seven 128 KiB chunks each way */
    t_ok(sort_ok(CLSORT_BITONIC, n, 21), "staged: a good sort of %zu keys", n);
    atomic_store(&h_fail_launch_after_, 5);
    atomic_store(&h_fail_launch_, CL_OUT_OF_RESOURCES);
    expect_failure("staged: launch 6 fails", CLSORT_BITONIC, n, CLSORT_ERR_OUT_OF_MEMORY,
                   "clEnqueueNDRangeKernel");
    atomic_store(&h_fail_launch_, 0);
    /* The overlapped upload (seven chunks here): the first tile pass runs per chunk on the
     * context's queue while later chunks are written on the transfer queue. A failure of a
     * chunk's pass or of a chunk's write, early or with earlier chunks' passes already running,
     * leaves the keys unchanged and the context usable, and holds nothing more afterwards. */
    t_ok(sort_ok(CLSORT_BITONIC, n, 27), "overlapped: a good sort of %zu keys", n);
    const h_counts good = h_now();
    static const long at[] = {0, 3};
    for (int i = 0; i < 2; ++i) {
        char what[96];
        atomic_store(&h_fail_launch_after_, at[i]);
        atomic_store(&h_fail_launch_, CL_INVALID_VALUE);
        snprintf(what, sizeof what, "overlapped: chunk %ld's first pass fails", at[i] + 1);
        expect_failure(what, CLSORT_BITONIC, n, CLSORT_ERR_OPENCL, "clEnqueueNDRangeKernel");
        atomic_store(&h_fail_launch_, 0);
        atomic_store(&h_fail_write_after_, at[i]);
        atomic_store(&h_fail_write_, CL_OUT_OF_RESOURCES);
        snprintf(what, sizeof what, "overlapped: chunk %ld's write fails", at[i] + 1);
        expect_failure(what, CLSORT_BITONIC, n, CLSORT_ERR_OUT_OF_MEMORY, "clEnqueueWriteBuffer");
        atomic_store(&h_fail_write_, 0);
        atomic_store(&h_fail_write_after_, 0);
    }
    t_ok(sort_ok(CLSORT_BITONIC, n, 26), "overlapped: the context sorts after the failures");
    if (!t_ok(no_more_than(h_now(), good), "... and holds no more OpenCL objects than before")) {
        diag_counts("before", good);
        diag_counts("after", h_now());
    }
    /* Pairs: the values' write of the third chunk (the sixth write) fails. */
    {
        uint32_t *keys = t_xmalloc(n * 4), *vals = t_xmalloc(n * 4), *orig = t_xmalloc(n * 4);
        t_rng r = t_rng_for(25, n, 0, 0);
        t_fill(CLSORT_U32, T_RANDOM, keys, n, &r);
        memcpy(orig, keys, n * 4);
        for (size_t i = 0; i < n; ++i)
            vals[i] = (uint32_t)i;
        atomic_store(&h_fail_write_after_, 5);
        atomic_store(&h_fail_write_, CL_INVALID_VALUE);
        const int rc = clsort_sort_pairs(ctx, keys, vals, 4, n, CLSORT_U32,
                                         CLSORT_ODD_EVEN_TRANSPOSITION, CLSORT_NO_HOST_FALLBACK);
        atomic_store(&h_fail_write_, 0);
        atomic_store(&h_fail_write_after_, 0);
        t_is_status(rc, CLSORT_ERR_OPENCL, "overlapped pairs: the third chunk's values fail");
        size_t moved = n;
        for (size_t i = 0; i < n && moved == n; ++i)
            if (vals[i] != i)
                moved = i;
        t_ok(memcmp(keys, orig, n * 4) == 0 && moved == n,
             "... keys and values unchanged (first moved value %zu)", moved);
        free(keys);
        free(vals);
        free(orig);
    }
    atomic_store(&h_fail_read_after_, 0);
    atomic_store(&h_fail_read_, CL_OUT_OF_RESOURCES);
    expect_failure("staged: the read of the first chunk fails", CLSORT_BITONIC, n,
                   CLSORT_ERR_OUT_OF_MEMORY, "clEnqueueReadBuffer");
    atomic_store(&h_fail_read_, 0);
    /* The documented exception: a later chunk's read fails after earlier chunks came back. The
     * status must still say so, and the keys are at least not all unchanged. */
    {
        uint32_t *keys = t_xmalloc(n * 4), *orig = t_xmalloc(n * 4);
        t_rng r = t_rng_for(22, n, 0, 0);
        t_fill(CLSORT_U32, T_RANDOM, keys, n, &r);
        memcpy(orig, keys, n * 4);
        atomic_store(&h_fail_read_after_, 3);
        atomic_store(&h_fail_read_, CL_OUT_OF_RESOURCES);
        const int rc = clsort_sort(ctx, keys, n, CLSORT_U32, CLSORT_BITONIC,
                                   CLSORT_NO_HOST_FALLBACK);
        atomic_store(&h_fail_read_, 0);
        t_is_status(rc, CLSORT_ERR_OUT_OF_MEMORY,
                    "staged: the read of the fourth chunk fails: the status says so");
        t_ok(strstr(clsort_last_error(ctx), "clEnqueueReadBuffer") != NULL,
             "... the error names clEnqueueReadBuffer");
        free(keys);
        free(orig);
    }
    t_ok(sort_ok(CLSORT_BITONIC, n, 23), "staged: the context sorts after the failures");
    clsort_destroy(ctx);

    /* Zero-copy: an aligned array sorted in place; a failed launch must put the input back. */
    setenv("CLSORT_ZERO_COPY", "1", 1);
    ctx = t_create_ctx();
    uint32_t *keys = NULL, *orig = t_xmalloc(n * 4);
    if (posix_memalign((void **)&keys, 4096, n * 4))
        t_bail("posix_memalign");
    t_rng r = t_rng_for(24, n, 0, 0);
    t_fill(CLSORT_U32, T_RANDOM, keys, n, &r);
    memcpy(orig, keys, n * 4);
    /* The first, a middle and the last launch of this sort's schedule on this device. */
    long launches = 1;
    {
        uint32_t *probe = NULL;
        clsort_stats ps;
        if (posix_memalign((void **)&probe, 4096, n * 4))
            t_bail("posix_memalign");
        memcpy(probe, keys, n * 4);
        if (clsort_sort(ctx, probe, n, CLSORT_U32, CLSORT_BITONIC, CLSORT_NO_HOST_FALLBACK) ==
                CLSORT_OK &&
            clsort_get_stats(ctx, &ps) == CLSORT_OK && ps.launches > 0)
            launches = ps.launches;
        free(probe);
    }
    for (int i = 0; i < 3; ++i) {
        const long at = i == 0 ? 0 : i == 1 ? launches / 2 : launches - 1;
        atomic_store(&h_fail_launch_after_, at);
        atomic_store(&h_fail_launch_, CL_INVALID_WORK_GROUP_SIZE);
        const int rc = clsort_sort(ctx, keys, n, CLSORT_U32, CLSORT_BITONIC,
                                   CLSORT_NO_HOST_FALLBACK);
        atomic_store(&h_fail_launch_, 0);
        t_is_status(rc, CLSORT_ERR_OPENCL, "in place: launch %ld fails", at + 1);
        t_ok(memcmp(keys, orig, n * 4) == 0, "... the keys are unchanged");
    }
    clsort_stats s;
    t_ok(clsort_sort(ctx, keys, n, CLSORT_U32, CLSORT_BITONIC, CLSORT_NO_HOST_FALLBACK) ==
                 CLSORT_OK &&
             clsort_get_stats(ctx, &s) == CLSORT_OK,
         "in place: then a good sort");
    t_ref_sort(CLSORT_U32, orig, n, 0);
    t_ok(memcmp(keys, orig, n * 4) == 0, "... is right (zero_copy = %d)", s.zero_copy);
    free(keys);
    free(orig);
    clsort_destroy(ctx);
    unsetenv("CLSORT_ZERO_COPY");
    ctx = saved;
}

/* Many failures in a row must not grow host memory either. */
static void test_repeated(void)
{
    const size_t n = 40000;
    uint32_t *keys = t_xmalloc(n * 4);
    t_rng r = t_rng_for(9, 0, 0, 0);
    t_fill(CLSORT_U32, T_RANDOM, keys, n, &r);
    size_t rss0 = 0;
    t_ok(sort_ok(CLSORT_ODD_EVEN_MERGE, n, 8), "a good sort of %zu keys before", n);
    const h_counts base = h_now();
    int bad = 0;
    for (int i = 0; i < 300; ++i) {
        if (i == 50)
            rss0 = t_rss_bytes();
        atomic_store(&h_fail_launch_after_, i % 7);
        atomic_store(&h_fail_launch_, CL_OUT_OF_RESOURCES);
        bad += clsort_sort(ctx, keys, n, CLSORT_U32, t_algos[1 + i % 3], CLSORT_NO_HOST_FALLBACK) ==
               CLSORT_OK;
        atomic_store(&h_fail_launch_, 0);
    }
    const size_t rss1 = t_rss_bytes();
    t_ok(bad == 0, "300 injected launch failures all reported");
    t_ok(no_more_than(h_now(), base), "... no OpenCL object leaked");
    if (H_ASAN)
        t_ok(1, "# SKIP resident memory bound under AddressSanitizer (quarantine): %zu KiB -> "
                "%zu KiB", rss0 >> 10, rss1 >> 10);
    else
        t_ok(rss1 <= rss0 + ((size_t)4 << 20),
             "... resident memory %zu KiB -> %zu KiB (bound 4 MiB)", rss0 >> 10, rss1 >> 10);
    free(keys);
}

/* A kernel whose reported CL_KERNEL_WORK_GROUP_SIZE is below the reqd_work_group_size it was
 * built with still runs at that size (NVIDIA's driver reports 256 for every kernel and runs
 * tile kernels built for 512 and 1024); without a compile size the same report refuses the
 * shape with CLSORT_ERR_UNSUPPORTED. Kernels are created on first use in a context, so each
 * case makes its own. */
static void test_kernel_wg_report(void)
{
    clsort_ctx *saved = ctx;
    clsort_params p;
    atomic_store(&h_kernel_wg_cap_, 16);
    ctx = t_create_ctx();
    const int have =
        clsort_get_params_for_size(ctx, CLSORT_BITONIC, CLSORT_U32, 0, 4096, &p) == CLSORT_OK;
    t_ok(have && p.wg_size > 16, "bitonic's tile kernels run more than 16 work-items (wg_size %u)",
         have ? p.wg_size : 0);
    t_ok(sort_ok(CLSORT_BITONIC, 4096, 31),
         "every kernel reported at 16 work-items: bitonic sorts at its reqd size all the same");
    clsort_destroy(ctx);
    atomic_store(&h_hide_compile_wg_, 1);
    ctx = t_create_ctx();
    expect_failure("reported at 16 work-items, no compile size", CLSORT_BITONIC, 4096,
                   CLSORT_ERR_UNSUPPORTED, "lower wg_size");
    clsort_destroy(ctx);
    atomic_store(&h_hide_compile_wg_, 0);
    atomic_store(&h_kernel_wg_cap_, 0);
    ctx = saved;
}

int main(void)
{
    t_init("test_faults");
    const h_counts start = h_now();
    ctx = t_create_ctx();
    test_build_failure();
    test_max_alloc();
    test_injected();
    test_repeated();
    test_transfers();
    test_kernel_wg_report();
    clsort_destroy(ctx);
    const h_counts end = h_now();
    if (!t_ok(end.buffers == start.buffers && end.programs == start.programs &&
                  end.kernels == start.kernels && end.events == start.events,
              "clsort_destroy released every buffer, program, kernel and event"))
        diag_counts("left", end);
    return t_done();
}
