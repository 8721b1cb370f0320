/* lifetime2.c - what ending a clsort process costs: after create, prepare and one sort of n u32
 * keys, mode 0 calls clsort_destroy and returns from main, mode 1 returns without destroying,
 * mode 2 calls _exit(0) without destroying. The shell's clock around the process gives the rest. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "clsort.h"
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], 0, 0) : (1u << 28);
    int mode = argc > 2 ? atoi(argv[2]) : 0;
    double t0 = now();
    clsort_ctx *ctx;
    if (clsort_create(&ctx, "gpu") != CLSORT_OK) return 1;
    double t1 = now();
    int rc = clsort_prepare(ctx, CLSORT_U32, 0, n, 0);
    unsigned *a = clsort_host_alloc(ctx, n * 4);
    if (!a) return 2;
    for (size_t i = 0; i < n; ++i) a[i] = (unsigned)(i * 2654435761u);
    double t3 = now();
    rc |= clsort_sort(ctx, a, n, CLSORT_U32, CLSORT_AUTO, 0);
    double t4 = now();
    if (mode == 0) { clsort_host_free(ctx, a); clsort_destroy(ctx); }
    double t5 = now();
    printf("mode %d create %.3f sort %.3f destroy %.3f (rc %d)\n", mode, t1 - t0, t4 - t3, t5 - t4, rc);
    fflush(stdout);
    if (mode == 2) _exit(0);
    return 0;
}
