/* topk_time.c - clsort_topk_buffer on device-resident data, issue 27's cells: host clock around
 * enqueue + finish, median of 11 after a warm-up. usage: topk_time [u32|f32] [scale_log2] */
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
static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    const int f32 = argc > 1 && !strcmp(argv[1], "f32");
    const int scale = argc > 2 ? atoi(argv[2]) : 0;
    clsort_ctx *ctx;
    if (clsort_create(&ctx, getenv("CLSORT_DEVICE")) != CLSORT_OK)
        return 1;
    cl_command_queue q = clsort_get_queue(ctx);
    cl_context c;
    clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof c, &c, NULL);
    const size_t cells[5][2] = {{1, 1 << 24}, {1 << 6, 1 << 18}, {1 << 10, 1 << 14}, {1 << 14, 1 << 10}, {1 << 16, 1 << 8}};
    const size_t ks[5] = {1, 8, 32, 128, 1024};
    printf("# clsort_topk_buffer %s largest (CLSORT_DESCENDING), indices u32, device-resident, host clock, median of 11\n", f32 ? "f32" : "u32");
    for (int ci = 0; ci < 5; ++ci) {
        size_t rows = cells[ci][0], n = cells[ci][1];
        if (rows >> scale) rows >>= scale; /* scaled down for small devices */
        const size_t total = rows * n;
        unsigned *h = malloc(total * 4);
        unsigned s = 12345;
        for (size_t i = 0; i < total; ++i) {
            s = s * 1664525u + 1013904223u;
            if (f32) { float v = (float)(s >> 8) / 16777216.0f; memcpy(&h[i], &v, 4); } else h[i] = s ^ (s >> 15);
        }
        cl_int err;
        cl_mem keys = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, total * 4, h, &err);
        cl_mem ok = clCreateBuffer(c, CL_MEM_READ_WRITE, rows * 1024 * 4, NULL, &err);
        cl_mem ov = clCreateBuffer(c, CL_MEM_READ_WRITE, rows * 1024 * 4, NULL, &err);
        printf("%zux%zu", rows, n);
        for (int ki = 0; ki < 5; ++ki) {
            const size_t k = ks[ki];
            if (k > n) { printf(" | -"); continue; }
            double t[11];
            int rc = 0;
            for (int r = -1; r < 11; ++r) {
                double t0 = now_ms();
                cl_event done = NULL;
                rc = clsort_topk_buffer(ctx, keys, NULL, 4, n, rows, k, f32 ? CLSORT_F32 : CLSORT_U32,
                                        CLSORT_DESCENDING, ok, ov, 0, NULL, &done);
                if (rc) break;
                clWaitForEvents(1, &done);
                clReleaseEvent(done);
                if (r >= 0) t[r] = now_ms() - t0;
            }
            if (rc) { printf(" | ERR %s", clsort_status_name(rc)); continue; }
            qsort(t, 11, sizeof t[0], cmpd);
            printf(" | %.3f", t[5]);
        }
        printf("\n");
        fflush(stdout);
        clReleaseMemObject(keys); clReleaseMemObject(ok); clReleaseMemObject(ov);
        free(h);
    }
    clsort_destroy(ctx);
    return 0;
}
