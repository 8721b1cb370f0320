/* test_threads.c - contexts and threads: two contexts sorting at once in two threads, and one
 * context shared by several threads (the per-context lock serialises the calls; every result
 * must be correct and every call must succeed). Each thread checks its own results against the
 * reference, with its own data. */
#include "test_util.h"

#include <pthread.h>

#define ROUNDS 6

typedef struct worker {
    clsort_ctx *ctx;
    int id;
    int rounds;
    int failures;
    char first_error[256];
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    for (int r = 0; r < w->rounds; ++r) {
        const clsort_type type = t_types[(w->id + r) % T_NTYPES];
        const clsort_algorithm algo = t_algos[1 + (w->id + r) % 3];
        t_rng rng = t_rng_for(0x7468, (uint64_t)w->id, (uint64_t)r, 0);
        /* Above the host fallback size; the quadratic transposition network stays small. */
        const size_t n = 2100 + (size_t)t_rand_below(
                                    &rng, algo == CLSORT_ODD_EVEN_TRANSPOSITION ? 4000 : 16000);
        const size_t sz = t_size(type);
        void *keys = t_xmalloc(n * sz), *want = t_xmalloc(n * sz);
        t_fill(type, (t_dist)(r % T_NDIST), keys, n, &rng);
        memcpy(want, keys, n * sz);
        t_ref_sort(type, want, n, r & 1);
        int rc;
        if (r % 3 == 2) {
            /* pairs: values are the keys' original positions */
            uint64_t *vals = t_xmalloc(n * 8);
            for (size_t i = 0; i < n; ++i)
                vals[i] = i;
            void *orig = t_xmalloc(n * sz);
            memcpy(orig, keys, n * sz);
            rc = clsort_sort_pairs(w->ctx, keys, vals, 8, n, type, algo,
                                   (r & 1 ? CLSORT_DESCENDING : 0) | CLSORT_NO_HOST_FALLBACK);
            for (size_t i = 0; rc == CLSORT_OK && i < n; ++i)
                if (vals[i] >= n || memcmp((char *)orig + vals[i] * sz, (char *)keys + i * sz, sz)) {
                    rc = -100;
                    break;
                }
            free(orig);
            free(vals);
        } else {
            rc = clsort_sort(w->ctx, keys, n, type, algo,
                             (r & 1 ? CLSORT_DESCENDING : 0) | CLSORT_NO_HOST_FALLBACK);
        }
        const int good = rc == CLSORT_OK && t_first_diff(type, keys, want, n) == n;
        if (!good && w->failures++ == 0)
            snprintf(w->first_error, sizeof w->first_error,
                     "thread %d round %d: %s %s n=%zu: %s", w->id, r, t_type_name(type),
                     t_algo_name(algo), n, rc == -100 ? "values do not follow keys"
                                       : rc ? clsort_status_name(rc) : "wrong order");
        free(keys);
        free(want);
    }
    return NULL;
}

static void run_threads(const char *what, clsort_ctx **ctxs, int nthreads, int rounds)
{
    pthread_t th[8];
    worker w[8];
    const double t0 = t_now_ms();
    for (int i = 0; i < nthreads; ++i) {
        memset(&w[i], 0, sizeof w[i]);
        w[i].ctx = ctxs[i];
        w[i].id = i;
        w[i].rounds = rounds;
        if (pthread_create(&th[i], NULL, work, &w[i]) != 0)
            t_bail("pthread_create failed");
    }
    int failures = 0;
    for (int i = 0; i < nthreads; ++i) {
        pthread_join(th[i], NULL);
        failures += w[i].failures;
        if (w[i].failures)
            t_diag("%s", w[i].first_error);
    }
    t_ok(failures == 0, "%s: %d threads x %d sorts all correct (%.0f ms)", what, nthreads,
         rounds, t_now_ms() - t0);
}

int main(void)
{
    t_init("test_threads");
    clsort_ctx *a = t_create_ctx(), *b = t_create_ctx();

    clsort_ctx *two[2] = {a, b};
    run_threads("two contexts, one thread each", two, 2, ROUNDS);

    clsort_ctx *shared[4] = {a, a, a, a};
    run_threads("one context shared by four threads", shared, 4, ROUNDS);

    /* Errors stay per call: a thread whose call fails does not disturb the others. */
    clsort_ctx *mixed[3] = {a, a, b};
    run_threads("a shared context and a private one", mixed, 3, ROUNDS / 2);

    /* Statistics and the error text remain readable after concurrent use. */
    clsort_stats st;
    t_is_status(clsort_get_stats(a, &st), CLSORT_OK, "clsort_get_stats after shared use");
    clsort_destroy(a);
    clsort_destroy(b);
    return t_done();
}
