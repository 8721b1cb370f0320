/* test_host_memory.c - host arrays on their way to the device and back:
 * clsort_host_alloc / clsort_host_free (NULL, sizes, pointers inside blocks, foreign pointers),
 * sorts of pinned memory, of unaligned and odd-sized arrays through a small pinned staging (many
 * chunks, n not a multiple of the chunk), pairs and batches, the zero-copy path of devices that
 * share memory with the host, the transfer statistics, no pinned memory before the first
 * host-array sort, the staging bound, and the overlapped upload (every network, keys, pairs and
 * batches, both directions, staged, plain and pinned). Buffers are counted through test_clhooks.h. */
#include "test_clhooks.h"
#include "test_util.h"

#define STAGING_MAX (256u << 10) /* small, so that a few MiB travel in many chunks */

static int sorted_ok(clsort_type type, const void *got, const void *input, size_t n)
{
    const size_t ks = t_size(type);
    void *want = t_xmalloc(n * ks);
    memcpy(want, input, n * ks);
    t_ref_sort(type, want, n, 0);
    const size_t d = t_first_diff(type, got, want, n);
    if (d != n)
        t_diag_diff(type, got, want, n, d);
    free(want);
    return d == n;
}

static clsort_stats stats_of(clsort_ctx *ctx)
{
    clsort_stats s;
    memset(&s, 0, sizeof s);
    clsort_get_stats(ctx, &s);
    return s;
}

static void test_alloc_free(clsort_ctx *ctx)
{
    t_ok(clsort_host_alloc(NULL, 100) == NULL, "clsort_host_alloc(NULL ctx) is NULL");
    t_ok(clsort_host_alloc(ctx, 0) == NULL, "clsort_host_alloc of 0 bytes is NULL");
    t_ok(strstr(clsort_last_error(ctx), "clsort_host_alloc") != NULL,
         "... and the error names clsort_host_alloc");
    clsort_device_info info;
    clsort_get_device_info(ctx, &info);
    t_ok(clsort_host_alloc(ctx, (size_t)info.max_alloc + 1) == NULL,
         "a block above CL_DEVICE_MAX_MEM_ALLOC_SIZE is NULL");
    t_ok(strstr(clsort_last_error(ctx), "CL_DEVICE_MAX_MEM_ALLOC_SIZE") != NULL,
         "... and the error says why");
    clsort_host_free(ctx, NULL);
    clsort_host_free(NULL, NULL);
    t_ok(1, "clsort_host_free of NULL is a no-op");
    const long b0 = h_now().buffers;
    static const size_t sizes[] = {1, 3, 4096, 4097, 1u << 20, (3u << 20) + 5};
    void *blocks[6];
    for (int i = 0; i < 6; ++i) {
        blocks[i] = clsort_host_alloc(ctx, sizes[i]);
        if (t_ok(blocks[i] != NULL, "clsort_host_alloc(%zu)", sizes[i]))
            memset(blocks[i], 0xA5, sizes[i]); /* every byte is ours to write */
    }
    t_is_int(h_now().buffers - b0, 6, "... each block is one OpenCL buffer");
    void *foreign = malloc(64);
    clsort_host_free(ctx, foreign);
    free(foreign);
    clsort_host_free(ctx, (char *)blocks[4] + 8);
    t_is_int(h_now().buffers - b0, 6, "freeing malloc memory or a pointer inside a block frees nothing");
    for (int i = 0; i < 6; i += 2)
        clsort_host_free(ctx, blocks[i]);
    clsort_host_free(ctx, blocks[0]); /* twice: the second is a foreign pointer */
    t_is_int(h_now().buffers - b0, 3, "clsort_host_free releases its block (and only once)");
    /* The other three are left to clsort_destroy (checked by the buffer count in main). */
}

/* A context with small staging and, unless zero_copy, no zero-copy path. */
static clsort_ctx *make_ctx(int zero_copy)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%u", STAGING_MAX);
    setenv("CLSORT_STAGING_MAX", buf, 1);
    setenv("CLSORT_ZERO_COPY", zero_copy ? "1" : "0", 1);
    clsort_ctx *ctx = t_create_ctx();
    unsetenv("CLSORT_STAGING_MAX");
    return ctx;
}

static void test_staged(void)
{
    const long b0 = h_now().buffers;
    clsort_ctx *ctx = make_ctx(0);
    t_is_int(h_now().buffers - b0, 0, "a new context holds no buffer (no pinned memory)");
    uint32_t small[100];
    t_rng r = t_rng_for(1, 0, 0, 0);
    t_fill(CLSORT_U32, T_RANDOM, small, 100, &r);
    t_is_status(clsort_sort(ctx, small, 100, CLSORT_U32, CLSORT_AUTO, 0), CLSORT_OK,
                "a host-fallback sort of 100 keys");
    t_is_int((long long)stats_of(ctx).pinned_bytes, 0, "... holds no pinned staging");

    /* Unaligned (one key past a malloc block), n not a multiple of any chunk. */
    const size_t n = ((size_t)1 << 20) + 12345;
    uint32_t *mem = t_xmalloc((n + 1) * 4), *keys = mem + 1, *input = t_xmalloc(n * 4);
    r = t_rng_for(2, n, 0, 0);
    t_fill(CLSORT_U32, T_RANDOM, input, n, &r);
    memcpy(keys, input, n * 4);
    t_is_status(clsort_sort(ctx, keys, n, CLSORT_U32, CLSORT_BITONIC, CLSORT_NO_HOST_FALLBACK),
                CLSORT_OK, "an unaligned u32 array of %zu keys, staged", n);
    t_ok(sorted_ok(CLSORT_U32, keys, input, n), "... is sorted");
    clsort_stats s = stats_of(ctx);
    t_ok(s.pinned_bytes > 0 && s.pinned_bytes <= STAGING_MAX,
         "... through pinned staging within the bound (%llu bytes, bound %u)",
         (unsigned long long)s.pinned_bytes, STAGING_MAX);
    t_is_int((long long)s.upload_bytes, (long long)(n * 4), "... upload_bytes");
    t_is_int((long long)s.download_bytes, (long long)(n * 4), "... download_bytes");
    t_ok(s.upload_ns > 0 && s.download_ns > 0 && s.staging_ns > 0,
         "... upload_ns %llu, download_ns %llu, staging_ns %llu, all non-zero",
         (unsigned long long)s.upload_ns, (unsigned long long)s.download_ns,
         (unsigned long long)s.staging_ns);
    t_ok(!s.zero_copy && !s.pinned_source, "... neither zero-copy nor pinned source");
    t_ok(s.upload_ns + s.download_ns <= s.total_ns, "... transfers within total_ns");
    t_ok(h_now().buffer_bytes > 0, "buffers held after the sort");

    /* Pairs, i64 keys and 4-byte values, odd n; values are the input positions. */
    const size_t np = 300001;
    int64_t *pk = t_xmalloc(np * 8), *pin = t_xmalloc(np * 8);
    uint32_t *pv = (uint32_t *)t_xmalloc(np * 4 + 4) + 1;
    r = t_rng_for(3, np, 0, 0);
    t_fill(CLSORT_I64, T_FEW, pin, np, &r);
    memcpy(pk, pin, np * 8);
    for (size_t i = 0; i < np; ++i)
        pv[i] = (uint32_t)i;
    t_is_status(clsort_sort_pairs(ctx, pk, pv, 4, np, CLSORT_I64, CLSORT_ODD_EVEN_MERGE,
                                  CLSORT_NO_HOST_FALLBACK),
                CLSORT_OK, "pairs i64+u32, %zu, staged", np);
    int pairs_ok = sorted_ok(CLSORT_I64, pk, pin, np);
    size_t bad = np;
    for (size_t i = 0; i < np && bad == np; ++i)
        if (pv[i] >= np || pin[pv[i]] != pk[i])
            bad = i;
    t_ok(pairs_ok && bad == np, "... keys sorted and every value with its key (first bad %zu)", bad);
    s = stats_of(ctx);
    t_is_int((long long)s.upload_bytes, (long long)(np * 12), "... upload_bytes keys + values");
    free(pk);
    free(pin);
    free(pv - 1);

    /* Batch: 37 arrays of 10007 keys. */
    const size_t bn = 10007, bc = 37;
    float *bk = t_xmalloc(bn * bc * 4 + 8), *bin = t_xmalloc(bn * bc * 4);
    bk = (float *)((char *)bk + 8);
    r = t_rng_for(4, bn, bc, 0);
    t_fill(CLSORT_F32, T_RANDOM, bin, bn * bc, &r);
    memcpy(bk, bin, bn * bc * 4);
    t_is_status(clsort_sort_batch(ctx, bk, bn, bc, CLSORT_F32, CLSORT_BITONIC, 0), CLSORT_OK,
                "batch of %zu x %zu f32, staged", bc, bn);
    int all = 1;
    for (size_t c = 0; c < bc; ++c)
        all &= sorted_ok(CLSORT_F32, bk + c * bn, bin + c * bn, bn);
    t_ok(all, "... every array sorted");
    free((char *)bk - 8);
    free(bin);

    /* Pinned memory: a block, and arrays at an offset inside it. */
    uint32_t *block = clsort_host_alloc(ctx, (n + 16) * 4);
    uint32_t *vblock = clsort_host_alloc(ctx, (n + 16) * 4);
    if (t_ok(block && vblock, "clsort_host_alloc of two %zu-byte blocks", (n + 16) * 4)) {
        memcpy(block + 3, input, n * 4);
        t_is_status(clsort_sort(ctx, block + 3, n, CLSORT_U32, CLSORT_AUTO,
                                CLSORT_NO_HOST_FALLBACK),
                    CLSORT_OK, "a sort inside a pinned block (offset 12 bytes)");
        t_ok(sorted_ok(CLSORT_U32, block + 3, input, n), "... is sorted");
        s = stats_of(ctx);
        t_ok(s.pinned_source == 1, "... moved as pinned memory (pinned_source)");
        t_ok(s.upload_ns > 0 && s.download_ns > 0, "... with upload and download times");
        memcpy(block, input, n * 4);
        for (size_t i = 0; i < n; ++i)
            vblock[i] = (uint32_t)i;
        t_is_status(clsort_sort_pairs(ctx, block, vblock, 4, n, CLSORT_U32, CLSORT_BITONIC,
                                      CLSORT_NO_HOST_FALLBACK),
                    CLSORT_OK, "pairs in two pinned blocks");
        bad = n;
        for (size_t i = 0; i < n && bad == n; ++i)
            if (vblock[i] >= n || input[vblock[i]] != block[i] || (i && block[i - 1] > block[i]))
                bad = i;
        t_ok(bad == n && stats_of(ctx).pinned_source, "... sorted, paired, pinned (first bad %zu)",
             bad);
        /* Only part of the keys inside a block: staged, still right. */
        memcpy(keys, input, n * 4);
        clsort_host_free(ctx, vblock);
        t_ok(stats_of(ctx).pinned_source == 1, "stats stay until the next sort");
    }
    clsort_destroy(ctx);
    t_is_int(h_now().buffers - b0, 0, "clsort_destroy releases staging and the blocks left");
    free(mem);
    free(input);
}

static void test_zero_copy(void)
{
    clsort_ctx *ctx = make_ctx(1);
    const size_t n = ((size_t)1 << 18) + 77;
    uint32_t *keys = NULL, *input = t_xmalloc(n * 4);
    if (posix_memalign((void **)&keys, 4096, n * 4 + 4096))
        t_bail("posix_memalign");
    t_rng r = t_rng_for(5, n, 0, 0);
    t_fill(CLSORT_U32, T_RANDOM, input, n, &r);
    memcpy(keys, input, n * 4);
    cl_bool unified = CL_FALSE;
    /* The device's own answer, through the public queue-free path: ask OpenCL directly. */
    cl_platform_id plat;
    cl_device_id dev;
    clsort_device_info info;
    clsort_get_device_info(ctx, &info);
    if (clGetPlatformIDs(1, &plat, NULL) == CL_SUCCESS &&
        clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL) == CL_SUCCESS)
        clGetDeviceInfo(dev, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, NULL);
    t_is_status(clsort_sort(ctx, keys, n, CLSORT_U32, CLSORT_AUTO, CLSORT_NO_HOST_FALLBACK),
                CLSORT_OK, "an aligned array of %zu keys", n);
    t_ok(sorted_ok(CLSORT_U32, keys, input, n), "... is sorted");
    clsort_stats s = stats_of(ctx);
    if (unified && strcmp(info.type, "cpu") == 0) {
        t_ok(s.zero_copy == 1, "... in place on a device that shares memory with the host");
        t_ok(s.upload_bytes == 0 && s.download_bytes == 0 && s.pinned_bytes == 0,
             "... with no transfer and no staging");
    } else {
        t_skip("the device does not share memory with the host");
        t_skip("the device does not share memory with the host");
    }
    memcpy(keys + 1, input, (n - 1) * 4);
    t_is_status(clsort_sort(ctx, keys + 1, n - 1, CLSORT_U32, CLSORT_AUTO,
                            CLSORT_NO_HOST_FALLBACK),
                CLSORT_OK, "an unaligned array");
    t_ok(sorted_ok(CLSORT_U32, keys + 1, input, n - 1), "... is sorted");
    t_ok(stats_of(ctx).zero_copy == 0, "... not in place (staged)");
    free(keys);
    free(input);
    clsort_destroy(ctx);
}

/* The overlapped upload: chunks of whole tiles travel on the transfer queue and each chunk's
 * first tile pass runs behind its writes. Every sort is checked against the reference, and its
 * launch count against the same sort with CLSORT_OVERLAP=0 (one more launch per extra chunk),
 * which shows that the chunked path ran. */
static unsigned launches_of(clsort_ctx *ctx)
{
    return stats_of(ctx).launches;
}

/* Sorts keys (and, if vals, 8-byte values holding the input positions) of `count` arrays of n
 * with and without overlap; 1 if both are right and the overlapped one used more launches. */
static int overlap_case(clsort_ctx *ctx, clsort_type type, clsort_algorithm algo, int desc,
                        size_t n, size_t count, int pairs, void *kmem, uint64_t *vmem)
{
    const size_t ks = t_size(type), total = n * count;
    const unsigned flags = CLSORT_NO_HOST_FALLBACK | (desc ? CLSORT_DESCENDING : 0);
    unsigned char *input = t_xmalloc(total * ks), *want = t_xmalloc(total * ks);
    t_rng r = t_rng_for(31, n, count, (uint64_t)algo * 4 + (unsigned)desc * 2 + (unsigned)pairs);
    t_fill(type, T_RANDOM, input, total, &r);
    memcpy(want, input, total * ks);
    for (size_t c = 0; c < count; ++c)
        t_ref_sort(type, want + c * n * ks, n, desc);
    unsigned launches[2] = {0, 0};
    int good = 1;
    for (int pass = 0; pass < 2; ++pass) {
        if (pass == 1)
            setenv("CLSORT_OVERLAP", "0", 1);
        memcpy(kmem, input, total * ks);
        for (size_t i = 0; pairs && i < total; ++i)
            vmem[i] = i;
        const int rc = pairs ? clsort_sort_pairs(ctx, kmem, vmem, 8, n, type, algo, flags)
                       : count > 1 ? clsort_sort_batch(ctx, kmem, n, count, type, algo, flags)
                                   : clsort_sort(ctx, kmem, n, type, algo, flags);
        unsetenv("CLSORT_OVERLAP");
        launches[pass] = launches_of(ctx);
        size_t d = t_first_diff(type, kmem, want, total);
        if (rc != CLSORT_OK || d != total) {
            t_diag("%s %s n=%zu x%zu%s, overlap %s: %s, first difference at %zu (%s)",
                   t_type_name(type), t_algo_name(algo), n, count, desc ? " desc" : "",
                   pass ? "off" : "on", clsort_status_name(rc), d, clsort_last_error(ctx));
            good = 0;
        }
        for (size_t i = 0; pairs && good && i < total; ++i)
            if (vmem[i] >= total || memcmp(input + vmem[i] * ks, (unsigned char *)kmem + i * ks,
                                          ks) != 0) {
                t_diag("value %zu does not belong to its key", i);
                good = 0;
            }
    }
    if (good && launches[0] <= launches[1]) {
        t_diag("%s %s n=%zu x%zu: %u launches overlapped, %u not: no chunked first pass",
               t_type_name(type), t_algo_name(algo), n, count, launches[0], launches[1]);
        good = 0;
    }
    free(input);
    free(want);
    return good;
}

static void test_overlap(int zero_copy_env)
{
    /* 128 KiB of staging: chunks of at most 64 KiB (one slot), so that arrays of tens of KiB
     * travel in several chunks, and the odd-even merge's large CPU tiles still fit a slot. */
    setenv("CLSORT_STAGING_MAX", "128K", 1);
    if (zero_copy_env)
        unsetenv("CLSORT_ZERO_COPY"); /* the device's default path (plain transfers on PoCL) */
    else
        setenv("CLSORT_ZERO_COPY", "0", 1); /* staged */
    clsort_ctx *ctx = t_create_ctx();
    unsetenv("CLSORT_STAGING_MAX");
    const char *path = zero_copy_env ? "default path" : "staged";
    static const clsort_algorithm algos[] = {CLSORT_BITONIC, CLSORT_ODD_EVEN_MERGE,
                                             CLSORT_ODD_EVEN_TRANSPOSITION};
    /* Odd sizes: not a multiple of any chunk nor of any tile. */
    const size_t nk = 20011, np = 15013, bn = 496, bc = 101;
    void *kmem = t_xmalloc(bn * bc * 8 + 8); /* the largest case: the batch */
    uint64_t *vmem = t_xmalloc(nk * 8);
    for (int a = 0; a < 3; ++a) {
        const clsort_algorithm algo = algos[a];
        for (int desc = 0; desc < 2; ++desc) {
            t_ok(overlap_case(ctx, CLSORT_U32, algo, desc, nk, 1, 0, (char *)kmem + 4, vmem),
                 "%s, overlapped: u32 keys, %s, n = %zu%s", path, t_algo_name(algo), nk,
                 desc ? ", descending" : "");
            t_ok(overlap_case(ctx, CLSORT_F32, algo, desc, np, 1, 1, kmem, vmem),
                 "%s, overlapped: f32 keys + u64 values, %s, n = %zu%s", path,
                 t_algo_name(algo), np, desc ? ", descending" : "");
        }
        t_ok(overlap_case(ctx, CLSORT_I32, algo, a == 1, bn, bc, 0, kmem, vmem),
             "%s, overlapped: batch of %zu x %zu i32, %s%s", path, bc, bn, t_algo_name(algo),
             a == 1 ? ", descending" : "");
    }
    /* clsort_host_alloc memory: written to the device straight from the block, chunk by chunk. */
    void *pk = clsort_host_alloc(ctx, np * 8), *pv = clsort_host_alloc(ctx, np * 8);
    if (t_ok(pk && pv, "%s: two pinned blocks", path)) {
        t_ok(overlap_case(ctx, CLSORT_I64, CLSORT_BITONIC, 0, np, 1, 1, pk, pv),
             "%s, overlapped: i64 keys + u64 values in pinned blocks, n = %zu", path, np);
        t_ok(stats_of(ctx).pinned_source == 1, "... moved as pinned memory");
    }
    clsort_stats s;
    memcpy(kmem, vmem, nk * 4);
    t_is_status(clsort_sort(ctx, kmem, nk, CLSORT_U32, CLSORT_BITONIC, CLSORT_NO_HOST_FALLBACK),
                CLSORT_OK, "%s: an overlapped sort for the statistics", path);
    s = stats_of(ctx);
    t_is_int((long long)s.upload_bytes, (long long)(nk * 4), "... upload_bytes");
    t_ok(s.upload_ns > 0 && s.device_ns > 0 && s.device_ns <= s.total_ns &&
             s.upload_ns <= s.total_ns,
         "... upload_ns %llu and device_ns %llu, non-zero and within total_ns %llu",
         (unsigned long long)s.upload_ns, (unsigned long long)s.device_ns,
         (unsigned long long)s.total_ns);
    free(kmem);
    free(vmem);
    const long b = h_now().buffers;
    clsort_destroy(ctx);
    t_ok(h_now().buffers < b, "clsort_destroy after overlapped sorts releases buffers");
}

int main(void)
{
    t_init("test_host_memory");
    const h_counts start = h_now();
    clsort_ctx *ctx = t_create_ctx();
    test_alloc_free(ctx);
    clsort_destroy(ctx);
    t_is_int(h_now().buffers, start.buffers, "clsort_destroy frees the blocks left to it");
    test_staged();
    test_zero_copy();
    test_overlap(0);
    test_overlap(1);
    unsetenv("CLSORT_ZERO_COPY");
    t_is_int(h_now().buffers, start.buffers, "every buffer and sub-buffer was released");
    t_is_int(h_now().events, start.events, "every event was released");
    return t_done();
}
