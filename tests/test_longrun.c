/* test_longrun.c - thousands of sorts in one process, as a long-running program embedding the
 * library would do them: random sizes (up to 5000 keys), all six types, keys and pairs, every
 * network and both directions, host fallback on and off, and now and then an error call.
 * After a warm-up that reaches every program and the largest size, resident host memory
 * (/proc/self/statm) stays within a small bound, and the device buffers the library holds
 * (counted through test_clhooks.h) neither grow in number nor in bytes.
 * CLSORT_TEST_LEVEL=0 runs 600 sorts, 1 (default) 3000, 2 10000. */
#include "test_clhooks.h"
#include "test_util.h"

#include <unistd.h>

#define MAX_N 5000

/* One sort of the given shape, checked against the reference. Returns 1 if correct. */
static int one_sort(clsort_ctx *ctx, t_rng *r, size_t n, clsort_type type,
                    clsort_algorithm algo, int pairs, unsigned flags)
{
    const size_t sz = t_size(type);
    static unsigned char keys[MAX_N * 8], want[MAX_N * 8], orig[MAX_N * 8];
    static uint32_t vals[MAX_N];
    t_fill(type, (t_dist)t_rand_below(r, T_NDIST), keys, n, r);
    memcpy(want, keys, n * sz);
    memcpy(orig, keys, n * sz);
    t_ref_sort(type, want, n, (flags & CLSORT_DESCENDING) != 0);
    int rc;
    if (pairs) {
        for (size_t i = 0; i < n; ++i)
            vals[i] = (uint32_t)i;
        rc = clsort_sort_pairs(ctx, keys, vals, 4, n, type, algo, flags);
        for (size_t i = 0; rc == CLSORT_OK && i < n; ++i)
            if (vals[i] >= n || memcmp(orig + vals[i] * sz, keys + i * sz, sz))
                return 0;
    } else {
        rc = clsort_sort(ctx, keys, n, type, algo, flags);
    }
    if (rc != CLSORT_OK) {
        t_diag("%s %s n=%zu pairs=%d flags=%u: %s: %s", t_type_name(type), t_algo_name(algo), n,
               pairs, flags, clsort_status_name(rc), clsort_last_error(ctx));
        return 0;
    }
    return t_first_diff(type, keys, want, n) == n;
}

int main(void)
{
    t_init("test_longrun");
    const int level = t_level();
    const int total = level <= 0 ? 600 : level == 1 ? 3000 : 10000;
    clsort_ctx *ctx = t_create_ctx();
    const double t0 = t_now_ms();

    /* Warm-up: every network, width and value kind at the largest size, so that every program
     * is built and every scratch buffer has its final size. */
    int bad = 0;
    t_rng r = t_rng_for(0x10, 0, 0, 0);
    static const size_t warm_sizes[] = {MAX_N, 2500, 600, 33, 2};
    for (int a = 0; a < T_NALGOS; ++a) /* AUTO too: on GPUs its stable pairs take the radix sort */
        for (int t = 0; t < T_NTYPES; ++t)
            for (int kind = 0; kind < 3; ++kind) /* keys, pairs, stable pairs (8-byte values) */
                for (size_t s = 0; s < sizeof warm_sizes / sizeof *warm_sizes; ++s)
                    bad += !one_sort(ctx, &r, warm_sizes[s], t_types[t], t_algos[a], kind > 0,
                                     CLSORT_NO_HOST_FALLBACK | (kind == 2 ? CLSORT_STABLE : 0));
    t_ok(bad == 0, "warm-up: every network, type, keys, pairs and stable pairs, up to %d keys",
         MAX_N);
    for (int i = 0; i < 200; ++i) /* settle the allocator */
        bad += !one_sort(ctx, &r, 1 + t_rand_below(&r, MAX_N), t_types[i % T_NTYPES],
                         t_algos[i % T_NALGOS], i & 1, (i & 2) ? CLSORT_NO_HOST_FALLBACK : 0);
    const size_t rss0 = t_rss_bytes();
    const h_counts c0 = h_now();
    t_diag("after warm-up: resident %zu KiB, %ld device buffers of %lld bytes, %ld programs, "
           "%ld kernels", rss0 >> 10, c0.buffers, c0.buffer_bytes, c0.programs, c0.kernels);

    size_t rss_max = rss0;
    int failures = 0, device = 0;
    for (int i = 0; i < total; ++i) {
        const size_t n = t_rand_below(&r, 8) == 0 ? t_rand_below(&r, 4) : 1 + t_rand_below(&r, MAX_N);
        const clsort_type type = t_types[t_rand_below(&r, T_NTYPES)];
        const clsort_algorithm algo = t_algos[t_rand_below(&r, T_NALGOS)];
        const int pairs = (int)t_rand_below(&r, 3) == 0;
        unsigned flags = (t_rand64(&r) & 1) ? CLSORT_DESCENDING : 0;
        if (t_rand64(&r) & 1)
            flags |= CLSORT_NO_HOST_FALLBACK, ++device;
        if (pairs && (t_rand64(&r) & 3) == 0)
            flags |= CLSORT_STABLE;
        if (!one_sort(ctx, &r, n, type, algo, pairs, flags) && failures++ < 5)
            t_diag("sort %d wrong: %s %s n=%zu pairs=%d flags=%u", i, t_type_name(type),
                   t_algo_name(algo), n, pairs, flags);
        if (i % 50 == 0) {
            /* An error now and then: it must not leave anything behind either. */
            uint32_t k[4] = {3, 2, 1, 0};
            (void)clsort_sort(ctx, k, 4, (clsort_type)99, algo, 0);
            const size_t now = t_rss_bytes();
            if (now > rss_max)
                rss_max = now;
        }
    }
    const size_t rss1 = t_rss_bytes();
    const h_counts c1 = h_now();
    t_ok(failures == 0, "%d sorts of random sizes and types correct (%d on the device, %.1f s)",
         total, device, (t_now_ms() - t0) / 1e3);
    const size_t bound = (size_t)2 << 20;
    if (H_ASAN)
        t_ok(1, "# SKIP host memory bound under AddressSanitizer (its quarantine keeps freed "
                "memory; LeakSanitizer checks leaks at exit): %zu KiB -> %zu KiB",
             rss0 >> 10, rss1 >> 10);
    else
        t_ok(rss_max <= rss0 + bound,
             "host memory: resident %zu KiB after warm-up, at most %zu KiB later, %zu KiB at the "
             "end (bound +%zu KiB)",
             rss0 >> 10, rss_max >> 10, rss1 >> 10, bound >> 10);
    t_ok(c1.buffers <= c0.buffers && c1.buffer_bytes <= c0.buffer_bytes,
         "device buffers: %ld of %lld bytes after warm-up, %ld of %lld bytes at the end", c0.buffers,
         c0.buffer_bytes, c1.buffers, c1.buffer_bytes);
    t_ok(c0.buffer_bytes <= 4LL * MAX_N * 8,
         "device buffers are bounded by the largest request (%lld <= 4 x %d keys x 8 bytes)",
         c0.buffer_bytes, MAX_N);
    t_ok(c1.programs == c0.programs && c1.kernels == c0.kernels,
         "no program or kernel built after warm-up (%ld programs, %ld kernels)", c1.programs,
         c1.kernels);
    t_ok(c1.events <= c0.events + 2, "events held: %ld after warm-up, %ld at the end", c0.events,
         c1.events);
    clsort_destroy(ctx);
    const h_counts c2 = h_now();
    t_ok(c2.buffers == 0 && c2.programs == 0 && c2.kernels == 0 && c2.events == 0,
         "clsort_destroy released everything (%ld buffers, %ld programs, %ld kernels, %ld events)",
         c2.buffers, c2.programs, c2.kernels, c2.events);
    return t_done();
}
