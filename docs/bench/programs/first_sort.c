/* first_sort.c - where the first sort of a fresh process spends its time (issue 23).
 * usage: first_sort MODE LOG2N   MODE: plain | warmprog | buffer */
#include <clsort.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void fill(unsigned *a, size_t n, unsigned s)
{
    for (size_t i = 0; i < n; ++i) {
        s = s * 1664525u + 1013904223u;
        a[i] = s ^ (s >> 13);
    }
}

static void report(const char *what, clsort_ctx *ctx, double ms)
{
    clsort_stats st;
    memset(&st, 0, sizeof st);
    clsort_get_stats(ctx, &st);
    printf("%-10s total %8.2f ms  lib_total %8.2f device %7.2f up %7.2f down %7.2f staging %7.2f launches %u\n",
           what, ms, st.total_ns / 1e6, st.device_ns / 1e6, st.upload_ns / 1e6, st.download_ns / 1e6,
           st.staging_ns / 1e6, st.launches);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "plain";
    const size_t n = (size_t)1 << (argc > 2 ? atoi(argv[2]) : 20);
    double t0 = now_ms();
    clsort_ctx *ctx;
    if (clsort_create(&ctx, "gpu") != CLSORT_OK && clsort_create(&ctx, NULL) != CLSORT_OK)
        return 1;
    printf("# mode %s n %zu create %.1f ms\n", mode, n, now_ms() - t0);
    unsigned *a = malloc(n * 4);
    if (!strcmp(mode, "warmprog")) {
        unsigned small[1024];
        fill(small, 1024, 7);
        t0 = now_ms();
        clsort_sort(ctx, small, 1024, CLSORT_U32, CLSORT_AUTO, 0);
        report("small", ctx, now_ms() - t0);
    }
#ifdef CLSORT_HAS_PREPARE
    if (!strcmp(mode, "prepare")) {
        t0 = now_ms();
        int rc = clsort_prepare(ctx, CLSORT_U32, 0, n, 0);
        printf("prepare    total %8.2f ms rc %d\n", now_ms() - t0, rc);
    }
#endif
    if (!strcmp(mode, "buffer")) {
        cl_command_queue q = clsort_get_queue(ctx);
        cl_context c;
        clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof c, &c, NULL);
        cl_int err;
        cl_mem b = clCreateBuffer(c, CL_MEM_READ_WRITE, n * 4, NULL, &err);
        for (int i = 0; i < 4; ++i) {
            fill(a, n, 1 + i);
            clEnqueueWriteBuffer(q, b, CL_TRUE, 0, n * 4, a, 0, NULL, NULL);
            t0 = now_ms();
            cl_event done;
            clsort_sort_buffer(ctx, b, NULL, 0, n, CLSORT_U32, CLSORT_AUTO, 0, 0, NULL, &done);
            clWaitForEvents(1, &done);
            clReleaseEvent(done);
            char w[16];
            snprintf(w, sizeof w, "buf%d", i + 1);
            report(w, ctx, now_ms() - t0);
        }
        clReleaseMemObject(b);
    } else {
        for (int i = 0; i < 4; ++i) {
            fill(a, n, 1 + i);
            t0 = now_ms();
            int rc = clsort_sort(ctx, a, n, CLSORT_U32, CLSORT_AUTO, 0);
            char w[16];
            snprintf(w, sizeof w, "call%d%s", i + 1, rc ? "ERR" : "");
            report(w, ctx, now_ms() - t0);
        }
    }
    free(a);
    clsort_destroy(ctx);
    return 0;
}
