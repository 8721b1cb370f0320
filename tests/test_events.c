/* test_events.c - which of a sort's device commands carry an OpenCL event. Only the first and
 * the last do (the statistics' span, `done`), not every launch: an event costs NVIDIA's driver
 * time on every launch of a profiling queue, more than many of the launches themselves take
 * (docs/perf.md, what one launch costs). Checked for each kind of run (one array, a batch,
 * segments on buffers and from host arrays, top-k, the chunked host-array sort): the number of
 * commands and of those that asked for an event (test_clhooks.h), that `done` is the last
 * command's event, that the result read through another queue after waiting on `done` alone is
 * sorted, and that clsort_get_stats still has a device time. With CLSORT_DEBUG=2 (per-launch
 * times) every launch asks for one. */
#include "test_clhooks.h"
#include "test_util.h"

static uint64_t seed;
static cl_context cl_ctx;
static cl_command_queue other; /* a second queue: nothing orders it after the sort but `done` */

static cl_mem make_buffer(const void *data, size_t bytes)
{
    cl_int err;
    cl_mem m = clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes,
                              (void *)data, &err);
    if (err != CL_SUCCESS)
        t_bail("clCreateBuffer of %zu bytes: %d", bytes, err);
    return m;
}

static void read_other(cl_mem m, void *data, size_t bytes)
{
    if (clEnqueueReadBuffer(other, m, CL_TRUE, 0, bytes, data, 0, NULL, NULL) != CL_SUCCESS)
        t_bail("clEnqueueReadBuffer on the second queue");
}

typedef struct counts {
    long commands, with_event;
} counts;

static counts counts_now(void)
{
    counts c = {atomic_load(&h_commands_), atomic_load(&h_command_events_)};
    return c;
}

/* The run between `before` and now: at least `min_commands` commands, of which exactly the first
 * and the last asked for an event (every one when all_events), `done` (if given) being the last
 * one's. */
static void check_run(const char *what, counts before, long min_commands, cl_event done,
                      int all_events)
{
    const counts after = counts_now();
    const long c = after.commands - before.commands, e = after.with_event - before.with_event;
    t_ok(c >= min_commands, "%s: %ld device commands (at least %ld)", what, c, min_commands);
    if (all_events)
        t_is_int(e, c, "... every one of them asked for an event");
    else
        t_is_int(e, c < 2 ? c : 2,
                 "... of which two (the first launch and the last command) asked for an event");
    if (done)
        t_ok(done == atomic_load(&h_last_command_event_),
             "... and done is the last command's event");
}

static void check_stats(clsort_ctx *ctx, const char *what)
{
    clsort_stats st;
    const int rc = clsort_get_stats(ctx, &st);
    t_ok(rc == CLSORT_OK && st.device_ns > 0 && st.launches > 0,
         "%s: clsort_get_stats has a device time (%llu ns over %u launches)", what,
         (unsigned long long)st.device_ns, st.launches);
}

/* One array of u32 keys on a buffer: keys alone with and without done, and with values. */
static void test_sort_buffer(clsort_ctx *ctx, int all_events)
{
    const size_t n = (size_t)1 << 16;
    uint32_t *keys = t_xmalloc(n * 4), *want = t_xmalloc(n * 4), *vals = t_xmalloc(n * 4);
    for (int mode = 0; mode < 3; ++mode) {
        const int with_done = mode != 0, pairs = mode == 2;
        t_rng r = t_rng_for(seed, n, (uint64_t)mode, (uint64_t)all_events);
        t_fill(CLSORT_U32, T_RANDOM, keys, n, &r);
        memcpy(want, keys, n * 4);
        t_ref_sort(CLSORT_U32, want, n, 0);
        for (size_t i = 0; i < n; ++i)
            vals[i] = keys[i] ^ 0x5a5a5a5au; /* each value follows its key */
        cl_mem m = make_buffer(keys, n * 4), v = pairs ? make_buffer(vals, n * 4) : NULL;
        char what[112];
        snprintf(what, sizeof what, "one array of 2^16 u32 %s on a buffer, %s done%s",
                 pairs ? "pairs" : "keys", with_done ? "with" : "without",
                 all_events ? " (CLSORT_DEBUG=2)" : "");
        cl_event done = NULL;
        const counts before = counts_now();
        const int rc = clsort_sort_buffer(ctx, m, v, pairs ? 4 : 0, n, CLSORT_U32, CLSORT_BITONIC,
                                          0, 0, NULL, with_done ? &done : NULL);
        if (t_is_status(rc, CLSORT_OK, "%s", what)) {
            check_run(what, before, 3, done, all_events);
            if (done) {
                t_ok(clWaitForEvents(1, &done) == CL_SUCCESS, "... done completes");
                clReleaseEvent(done);
            } else {
                clFinish(clsort_get_queue(ctx));
            }
            read_other(m, keys, n * 4);
            int good = memcmp(keys, want, n * 4) == 0;
            if (pairs) {
                read_other(v, vals, n * 4);
                for (size_t i = 0; i < n && good; ++i)
                    good = vals[i] == (keys[i] ^ 0x5a5a5a5au);
            }
            t_ok(good, "... sorted when read through another queue");
            check_stats(ctx, what);
        }
        clReleaseMemObject(m);
        if (v)
            clReleaseMemObject(v);
    }
    free(keys);
    free(want);
    free(vals);
}

/* Segments of 16 and of 300 keys on buffers, with done. */
static void test_segments_buffer(clsort_ctx *ctx)
{
    const size_t n = (size_t)1 << 15, lens[2] = {16, 300};
    uint32_t *keys = t_xmalloc(n * 4), *want = t_xmalloc(n * 4);
    uint64_t *off = t_xmalloc((n + 1) * sizeof *off);
    for (int l = 0; l < 2; ++l) {
        size_t nseg = 0;
        for (size_t at = 0; at < n; at += lens[l])
            off[nseg++] = at;
        off[nseg] = n;
        t_rng r = t_rng_for(seed, n, lens[l], 7);
        t_fill(CLSORT_U32, T_RANDOM, keys, n, &r);
        memcpy(want, keys, n * 4);
        for (size_t i = 0; i < nseg; ++i)
            t_ref_sort(CLSORT_U32, want + off[i], off[i + 1] - off[i], 0);
        cl_mem m = make_buffer(keys, n * 4), o = make_buffer(off, (nseg + 1) * sizeof *off);
        char what[96];
        snprintf(what, sizeof what, "segments of %zu u32 keys on buffers, with done", lens[l]);
        cl_event done = NULL;
        const counts before = counts_now();
        const int rc = clsort_sort_segments_buffer(ctx, m, NULL, 0, o, nseg, CLSORT_U32,
                                                   CLSORT_AUTO, 0, 0, NULL, &done);
        if (t_is_status(rc, CLSORT_OK, "%s", what)) {
            check_run(what, before, 3, done, 0);
            t_ok(done && clWaitForEvents(1, &done) == CL_SUCCESS, "... done completes");
            if (done)
                clReleaseEvent(done);
            read_other(m, keys, n * 4);
            t_ok(memcmp(keys, want, n * 4) == 0, "... sorted when read through another queue");
            check_stats(ctx, what);
        }
        clReleaseMemObject(m);
        clReleaseMemObject(o);
    }
    free(keys);
    free(want);
    free(off);
}

/* The 8 smallest of each of 64 rows of 4096 keys, on buffers, with done. */
static void test_topk_buffer(clsort_ctx *ctx)
{
    const size_t n = 4096, rows = 64, k = 8;
    uint32_t *keys = t_xmalloc(n * rows * 4), *want = t_xmalloc(n * rows * 4);
    uint32_t *got = t_xmalloc(k * rows * 4);
    t_rng r = t_rng_for(seed, n, rows, k);
    t_fill(CLSORT_U32, T_RANDOM, keys, n * rows, &r);
    memcpy(want, keys, n * rows * 4);
    for (size_t i = 0; i < rows; ++i)
        t_ref_sort(CLSORT_U32, want + i * n, n, 0);
    cl_mem m = make_buffer(keys, n * rows * 4), out = make_buffer(got, k * rows * 4);
    const char *what = "top 8 of 64 rows of 4096 u32 keys on buffers, with done";
    cl_event done = NULL;
    const counts before = counts_now();
    const int rc = clsort_topk_buffer(ctx, m, NULL, 0, n, rows, k, CLSORT_U32, 0, out, NULL, 0,
                                      NULL, &done);
    if (t_is_status(rc, CLSORT_OK, "%s", what)) {
        check_run(what, before, 1, done, 0);
        t_ok(done && clWaitForEvents(1, &done) == CL_SUCCESS, "... done completes");
        if (done)
            clReleaseEvent(done);
        read_other(out, got, k * rows * 4);
        int good = 1;
        for (size_t i = 0; i < rows && good; ++i)
            good = memcmp(got + i * k, want + i * n, k * 4) == 0;
        t_ok(good, "... every row's 8 smallest when read through another queue");
        check_stats(ctx, what);
    }
    clReleaseMemObject(m);
    clReleaseMemObject(out);
    free(keys);
    free(want);
    free(got);
}

/* Host arrays: one array large enough to travel in chunks (the chunked first passes ask for
 * events, the rest of the run for its last only), a batch, and segments. These block, so only
 * the results and the statistics are checked, and that fewer commands than all asked. */
static void test_host_arrays(clsort_ctx *ctx)
{
    const size_t n = (size_t)1 << 20;
    uint32_t *keys = t_xmalloc(n * 4), *want = t_xmalloc(n * 4);
    uint64_t off[3] = {0, 5000, n};
    for (int mode = 0; mode < 3; ++mode) {
        static const char *const names[3] = {"clsort_sort of 2^20 u32 keys",
                                             "clsort_sort_batch of 16 arrays of 2^16 u32 keys",
                                             "clsort_sort_segments of 5000 and 2^20 - 5000 keys"};
        t_rng r = t_rng_for(seed, n, (uint64_t)mode, 11);
        t_fill(CLSORT_U32, T_RANDOM, keys, n, &r);
        memcpy(want, keys, n * 4);
        if (mode == 0)
            t_ref_sort(CLSORT_U32, want, n, 0);
        for (size_t i = 0; mode == 1 && i < 16; ++i)
            t_ref_sort(CLSORT_U32, want + i * (n / 16), n / 16, 0);
        for (size_t i = 0; mode == 2 && i < 2; ++i)
            t_ref_sort(CLSORT_U32, want + off[i], off[i + 1] - off[i], 0);
        const counts before = counts_now();
        const unsigned nf = CLSORT_NO_HOST_FALLBACK;
        const int rc =
            mode == 0   ? clsort_sort(ctx, keys, n, CLSORT_U32, CLSORT_BITONIC, nf)
            : mode == 1 ? clsort_sort_batch(ctx, keys, n / 16, 16, CLSORT_U32, CLSORT_BITONIC, 0)
                        : clsort_sort_segments(ctx, keys, NULL, 0, off, 2, CLSORT_U32,
                                               CLSORT_BITONIC, nf);
        const counts after = counts_now();
        if (!t_is_status(rc, CLSORT_OK, "%s", names[mode]))
            continue;
        t_ok(memcmp(keys, want, n * 4) == 0, "... sorted");
        t_ok(after.with_event - before.with_event < after.commands - before.commands,
             "... %ld of its %ld device commands asked for an event",
             after.with_event - before.with_event, after.commands - before.commands);
        check_stats(ctx, names[mode]);
    }
    free(keys);
    free(want);
}

/* Buffers and the second queue belong to ctx's OpenCL context. */
static void attach(clsort_ctx *ctx)
{
    if (other)
        clReleaseCommandQueue(other);
    cl_command_queue q = clsort_get_queue(ctx);
    cl_device_id dev;
    if (clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof cl_ctx, &cl_ctx, NULL) != CL_SUCCESS ||
        clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL) != CL_SUCCESS)
        t_bail("the context's OpenCL context and device");
    cl_int err;
    other = clCreateCommandQueue(cl_ctx, dev, 0, &err);
    if (err != CL_SUCCESS)
        t_bail("a second queue: %d", err);
}

int main(void)
{
    seed = t_init("test_events");
    clsort_ctx *ctx = t_create_ctx();
    attach(ctx);
    test_sort_buffer(ctx, 0);
    test_segments_buffer(ctx);
    test_topk_buffer(ctx);
    test_host_arrays(ctx);
    clsort_destroy(ctx);
    /* Per-launch times want every launch's event. */
    setenv("CLSORT_DEBUG", "2", 1);
    clsort_ctx *dbg = NULL;
    if (clsort_create(&dbg, NULL) == CLSORT_OK) {
        attach(dbg);
        test_sort_buffer(dbg, 1);
        clsort_destroy(dbg);
    } else {
        t_ok(0, "a context with CLSORT_DEBUG=2");
    }
    unsetenv("CLSORT_DEBUG");
    clReleaseCommandQueue(other);
    return t_done();
}
