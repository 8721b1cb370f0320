/* lifetime.c - where a short clsort process spends its time besides sorting: clsort_create,
 * clsort_prepare (programs from the cache, pinned staging, device buffer), one sort, and
 * clsort_destroy; the shell's clock around the process gives start and exit. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "clsort.h"
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], 0, 0) : (1u << 28);
    double t0 = now();
    clsort_ctx *ctx;
    if (clsort_create(&ctx, "gpu") != CLSORT_OK) return 1;
    double t1 = now();
    int rc = clsort_prepare(ctx, CLSORT_U32, 0, n, 0);
    double t2 = now();
    unsigned *a = malloc(n * 4);
    for (size_t i = 0; i < n; ++i) a[i] = (unsigned)(i * 2654435761u);
    double t3 = now();
    rc |= clsort_sort(ctx, a, n, CLSORT_U32, CLSORT_AUTO, 0);
    double t4 = now();
    clsort_destroy(ctx);
    double t5 = now();
    printf("create %.3f prepare %.3f (rc %d) sort %.3f destroy %.3f\n", t1 - t0, t2 - t1, rc, t4 - t3, t5 - t4);
    return 0;
}
