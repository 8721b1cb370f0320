/* test_overflow.c - sizes whose byte counts wrap around size_t, or that no buffer can hold, at
 * every entry point: clsort_sort, clsort_sort_pairs (stable too),
 * clsort_sort_batch (n * count, and n * count * key size), clsort_sort_buffer,
 * clsort_sort_segments(_buffer), clsort_topk(_buffer), clsort_host_alloc and clsort_prepare.
 * Each must come back with CLSORT_ERR_INVALID_ARG (the size cannot be addressed) or
 * CLSORT_ERR_OUT_OF_MEMORY (it can, but no device buffer holds it), with a message, before
 * anything is allocated or written: the small arrays passed stand for the huge ones and must
 * stay as they were, and no buffer may be left behind (test_clhooks.h). Explicit networks, so that no host sort is asked to touch memory the
 * caller does not have. */
#include "test_clhooks.h"
#include "test_util.h"

#define N 64

static clsort_ctx *ctx;
static uint32_t keys[N], keys0[N];
static uint64_t vals[N], vals0[N];

static void reset_data(void)
{
    t_rng r = t_rng_for(7, 7, 7, 7);
    for (size_t i = 0; i < N; ++i) {
        keys[i] = keys0[i] = (uint32_t)t_rand64(&r);
        vals[i] = vals0[i] = i;
    }
}

static int untouched(void)
{
    return !memcmp(keys, keys0, sizeof keys) && !memcmp(vals, vals0, sizeof vals);
}

/* A call on the small arrays that must fail with `want` and change nothing. */
#define EXPECT(want, call, ...)                                                                   \
    do {                                                                                          \
        reset_data();                                                                             \
        const h_counts before_ = h_now();                                                         \
        const int rc_ = (call);                                                                   \
        if (!t_is_status(rc_, (want), __VA_ARGS__))                                               \
            t_diag("clsort_last_error: %s", clsort_last_error(ctx));                             \
        t_ok(untouched() && *clsort_last_error(ctx) &&                                            \
                 h_now().buffers <= before_.buffers,                                              \
             "... data untouched, no buffer made, and a message: %s", clsort_last_error(ctx));    \
    } while (0)

static const size_t two32 = (size_t)1 << 32;

static void test_host_arrays(void)
{
    const clsort_algorithm bit = CLSORT_BITONIC;
    const unsigned nf = CLSORT_NO_HOST_FALLBACK;
    const size_t tb = (size_t)1 << 40; /* addressable, but far above any device's one buffer */

    EXPECT(CLSORT_ERR_INVALID_ARG, clsort_sort(ctx, keys, SIZE_MAX / 4 + 1, CLSORT_U32, bit, nf),
           "clsort_sort: n * 4 wraps");
    EXPECT(CLSORT_ERR_INVALID_ARG, clsort_sort(ctx, keys, SIZE_MAX, CLSORT_U64, bit, nf),
           "clsort_sort: n = SIZE_MAX");
    EXPECT(CLSORT_ERR_OUT_OF_MEMORY, clsort_sort(ctx, keys, tb, CLSORT_U32, bit, nf),
           "clsort_sort: 2^40 keys");

    EXPECT(CLSORT_ERR_INVALID_ARG,
           clsort_sort_pairs(ctx, keys, vals, 8, SIZE_MAX / 8, CLSORT_U32, bit, nf),
           "clsort_sort_pairs: n * (4 + 8) wraps, n * 8 does not");
    EXPECT(CLSORT_ERR_OUT_OF_MEMORY, clsort_sort_pairs(ctx, keys, vals, 8, tb, CLSORT_U32, bit, nf),
           "clsort_sort_pairs: 2^40 pairs");
    EXPECT(CLSORT_ERR_OUT_OF_MEMORY,
           clsort_sort_pairs(ctx, keys, vals, 4, tb, CLSORT_U32, bit, nf | CLSORT_STABLE),
           "clsort_sort_pairs: 2^40 stable pairs (positions of 8 bytes)");

    /* n * count fits, n * count * 4 does not. */
    EXPECT(CLSORT_ERR_INVALID_ARG,
           clsort_sort_batch(ctx, keys, (size_t)922337203685477581ull, 5, CLSORT_U32, bit, 0),
           "clsort_sort_batch(n 922337203685477581, count 5)");
    EXPECT(CLSORT_ERR_INVALID_ARG,
           clsort_sort_batch(ctx, keys, two32 + 1, two32 - 1, CLSORT_U32, bit, 0),
           "clsort_sort_batch(n 2^32 + 1, count 2^32 - 1)");
    EXPECT(CLSORT_ERR_INVALID_ARG, clsort_sort_batch(ctx, keys, SIZE_MAX, 2, CLSORT_U64, bit, 0),
           "clsort_sort_batch: n * count wraps");
    EXPECT(CLSORT_ERR_INVALID_ARG, clsort_sort_batch(ctx, keys, 2, SIZE_MAX, CLSORT_U32, bit, 0),
           "clsort_sort_batch: count SIZE_MAX");
    EXPECT(CLSORT_ERR_OUT_OF_MEMORY,
           clsort_sort_batch(ctx, keys, (size_t)1 << 20, (size_t)1 << 20, CLSORT_U32, bit, 0),
           "clsort_sort_batch: 2^20 arrays of 2^20 keys");

    /* Segments: the range end, the range's bytes, one huge segment. */
    const uint64_t wrap[2] = {0, (uint64_t)(SIZE_MAX / 4 + 1)};
    EXPECT(CLSORT_ERR_INVALID_ARG,
           clsort_sort_segments(ctx, keys, NULL, 0, wrap, 1, CLSORT_U32, bit, nf),
           "clsort_sort_segments: offsets[nseg] * 4 wraps");
    const uint64_t far[3] = {(uint64_t)1 << 62, ((uint64_t)1 << 62) + 10,
                             ((uint64_t)1 << 62) + 20};
    EXPECT(CLSORT_ERR_INVALID_ARG,
           clsort_sort_segments(ctx, keys, vals, 8, far, 2, CLSORT_U32, bit, nf),
           "clsort_sort_segments: short segments past 2^62 (the end's bytes wrap)");
    const uint64_t big[2] = {0, (uint64_t)tb};
    EXPECT(CLSORT_ERR_OUT_OF_MEMORY,
           clsort_sort_segments(ctx, keys, NULL, 0, big, 1, CLSORT_U32, bit, nf),
           "clsort_sort_segments: one segment of 2^40 keys");
    const uint64_t zero[2] = {0, 0};
    EXPECT(CLSORT_ERR_UNSUPPORTED,
           clsort_sort_segments(ctx, keys, NULL, 0, zero, SIZE_MAX, CLSORT_U32, bit, nf),
           "clsort_sort_segments: nseg SIZE_MAX (nseg + 1 wraps)");
}

static void test_buffers(void)
{
    const clsort_algorithm bit = CLSORT_BITONIC;
    cl_command_queue q = clsort_get_queue(ctx);
    cl_context cc = NULL;
    clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof cc, &cc, NULL);
    cl_int err;
    cl_mem kb = clCreateBuffer(cc, CL_MEM_READ_WRITE, N * 8, NULL, &err);
    cl_mem ob = clCreateBuffer(cc, CL_MEM_READ_WRITE, 2 * 8, NULL, &err);
    if (!kb || !ob) {
        t_bail("clCreateBuffer failed (%d)", err);
        return;
    }
    EXPECT(CLSORT_ERR_INVALID_ARG,
           clsort_sort_buffer(ctx, kb, NULL, 0, SIZE_MAX / 4 + 1, CLSORT_U32, bit, 0, 0, NULL,
                              NULL),
           "clsort_sort_buffer: n * 4 wraps");
    EXPECT(CLSORT_ERR_INVALID_ARG,
           clsort_sort_buffer(ctx, kb, kb, 8, SIZE_MAX / 8, CLSORT_U32, bit, 0, 0, NULL, NULL),
           "clsort_sort_buffer: n * (4 + 8) wraps");
    EXPECT(CLSORT_ERR_INVALID_ARG,
           clsort_sort_buffer(ctx, kb, NULL, 0, (size_t)1 << 40, CLSORT_U64, bit, 0, 0, NULL,
                              NULL),
           "clsort_sort_buffer: 2^40 keys in a buffer of 64");
    EXPECT(CLSORT_ERR_INVALID_ARG,
           clsort_sort_segments_buffer(ctx, kb, NULL, 0, ob, two32 - 18, CLSORT_U32, bit, 0, 0,
                                       NULL, NULL),
           "clsort_sort_segments_buffer: nseg + 1 above the offsets buffer");
    EXPECT(CLSORT_ERR_UNSUPPORTED,
           clsort_sort_segments_buffer(ctx, kb, NULL, 0, ob, SIZE_MAX, CLSORT_U32, bit, 0, 0,
                                       NULL, NULL),
           "clsort_sort_segments_buffer: nseg SIZE_MAX");
    clReleaseMemObject(kb);
    clReleaseMemObject(ob);
}

/* Top-k: rows * n keys (and values or indices), rows * k outputs. */
static void test_topk(void)
{
    static uint32_t out[N];
    static uint64_t outv[N];
    EXPECT(CLSORT_ERR_INVALID_ARG,
           clsort_topk(ctx, keys, NULL, 0, SIZE_MAX / 4, 2, 1, CLSORT_U32, 0, out, NULL),
           "clsort_topk: rows * n * 4 wraps");
    EXPECT(CLSORT_ERR_INVALID_ARG,
           clsort_topk(ctx, keys, NULL, 8, two32 + 1, two32 - 1, 1, CLSORT_U32, 0, out, outv),
           "clsort_topk(n 2^32 + 1, rows 2^32 - 1) with indices");
    EXPECT(CLSORT_ERR_INVALID_ARG,
           clsort_topk(ctx, keys, vals, 8, SIZE_MAX / 8, 1, 1, CLSORT_U32, 0, out, outv),
           "clsort_topk: n * (4 + 8) wraps");
    EXPECT(CLSORT_ERR_OUT_OF_MEMORY,
           clsort_topk(ctx, keys, NULL, 0, (size_t)1 << 20, (size_t)1 << 20, 4, CLSORT_U32, 0, out,
                       NULL),
           "clsort_topk: 2^20 rows of 2^20 keys");
    cl_command_queue q = clsort_get_queue(ctx);
    cl_context cc = NULL;
    clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof cc, &cc, NULL);
    cl_int err;
    cl_mem kb = clCreateBuffer(cc, CL_MEM_READ_WRITE, N * 8, NULL, &err);
    cl_mem ob = clCreateBuffer(cc, CL_MEM_READ_WRITE, N * 8, NULL, &err);
    if (kb && ob)
        EXPECT(CLSORT_ERR_INVALID_ARG,
               clsort_topk_buffer(ctx, kb, NULL, 0, two32 + 1, two32 - 1, 1, CLSORT_U32, 0, ob,
                                  NULL, 0, NULL, NULL),
               "clsort_topk_buffer(n 2^32 + 1, rows 2^32 - 1)");
    if (kb)
        clReleaseMemObject(kb);
    if (ob)
        clReleaseMemObject(ob);
}

static void test_alloc_and_prepare(void)
{
    const h_counts before = h_now();
    t_ok(clsort_host_alloc(ctx, SIZE_MAX) == NULL, "clsort_host_alloc(SIZE_MAX) is NULL");
    t_ok(strstr(clsort_last_error(ctx), "CL_DEVICE_MAX_MEM_ALLOC_SIZE") != NULL,
         "... and says why: %s", clsort_last_error(ctx));
    t_ok(clsort_host_alloc(ctx, SIZE_MAX / 2 + 1) == NULL, "clsort_host_alloc(2^63) is NULL");
    t_ok(h_now().buffers == before.buffers, "... and made no buffer");
    EXPECT(CLSORT_ERR_INVALID_ARG, clsort_prepare(ctx, CLSORT_U64, 8, SIZE_MAX / 16 + 1, 0),
           "clsort_prepare: max_n * 16 wraps");
    EXPECT(CLSORT_ERR_OUT_OF_MEMORY,
           clsort_prepare(ctx, CLSORT_U32, 4, (size_t)1 << 40, CLSORT_NO_HOST_FALLBACK),
           "clsort_prepare: 2^40 pairs");
    EXPECT(CLSORT_ERR_OUT_OF_MEMORY, clsort_prepare(ctx, CLSORT_U32, 0, SIZE_MAX / 4, 0),
           "clsort_prepare: SIZE_MAX / 4 keys (their bytes do not wrap: memory, not argument)");
    EXPECT(CLSORT_ERR_INVALID_ARG,
           clsort_prepare(ctx, CLSORT_U32, 4, SIZE_MAX / 8 + 1, CLSORT_STABLE),
           "clsort_prepare: stable pairs, max_n * (4 + 8-byte positions) wraps");
}

int main(void)
{
    t_init("test_overflow");
    ctx = t_create_ctx();
    test_host_arrays();
    test_buffers();
    test_topk();
    test_alloc_and_prepare();
    /* The context still sorts after all of that. */
    reset_data();
    memcpy(keys0, keys, sizeof keys);
    t_ref_sort(CLSORT_U32, keys0, N, 0);
    const int rc = clsort_sort(ctx, keys, N, CLSORT_U32, CLSORT_BITONIC, CLSORT_NO_HOST_FALLBACK);
    t_ok(t_check_sorted(ctx, rc, "after the failures", 1, CLSORT_U32, keys, keys0, N),
         "the context still sorts");
    clsort_destroy(ctx);
    return t_done();
}
