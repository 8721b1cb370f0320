/* first_sort_parts.c - where the first host-array sorts of a fresh process spend their time
 * (docs/bench/first-sort-pocl-2026-11-24.md): times create, an optional clsort_prepare and four
 * sorts of n u32 keys, with the host time of the OpenCL calls the library makes (the library is
 * linked statically, so its calls land in the wrappers here, which pass them on through
 * dlsym(RTLD_NEXT)).
 * Build: cc -O2 -std=c11 -Iinclude -o first_sort_parts docs/bench/programs/first_sort_parts.c \
 *        build/libclsort.a -lOpenCL -lpthread -lm -linih -ldl (plus -lhwy -lhwy_contrib -lstdc++
 *        where the library was built with Highway)
 * Run:   CLSORT_DEVICE=cpu ./first_sort_parts N [bitonic|auto] [prepare] */
#define _GNU_SOURCE /* RTLD_NEXT */
#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <dlfcn.h>
#include <CL/cl.h>
#include <string.h>
#include <time.h>
static double hk_ms(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }
double hk_queue, hk_buffer, hk_sub, hk_launch, hk_write, hk_read, hk_kernel, hk_finish, hk_first_launch_max; int hk_launches;
#define REAL(name) static __typeof__(&name) real_; if (!real_) { void *p_ = dlsym(RTLD_NEXT, #name); memcpy(&real_, &p_, sizeof real_); }
cl_command_queue clCreateCommandQueue(cl_context c, cl_device_id d, cl_command_queue_properties p, cl_int *e)
{ REAL(clCreateCommandQueue); double a = hk_ms(); cl_command_queue q = real_(c, d, p, e); hk_queue += hk_ms() - a; return q; }
cl_mem clCreateBuffer(cl_context c, cl_mem_flags f, size_t s, void *h, cl_int *e)
{ REAL(clCreateBuffer); double a = hk_ms(); cl_mem m = real_(c, f, s, h, e); hk_buffer += hk_ms() - a; return m; }
cl_mem clCreateSubBuffer(cl_mem b, cl_mem_flags f, cl_buffer_create_type t, const void *i, cl_int *e)
{ REAL(clCreateSubBuffer); double a = hk_ms(); cl_mem m = real_(b, f, t, i, e); hk_sub += hk_ms() - a; return m; }
cl_kernel clCreateKernel(cl_program p, const char *n, cl_int *e)
{ REAL(clCreateKernel); double a = hk_ms(); cl_kernel k = real_(p, n, e); hk_kernel += hk_ms() - a; return k; }
cl_int clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint d, const size_t *o, const size_t *g, const size_t *l, cl_uint n, const cl_event *w, cl_event *ev)
{ REAL(clEnqueueNDRangeKernel); double a = hk_ms(); cl_int r = real_(q, k, d, o, g, l, n, w, ev); double t = hk_ms() - a; hk_launch += t; if (t > hk_first_launch_max) hk_first_launch_max = t; ++hk_launches; return r; }
cl_int clEnqueueWriteBuffer(cl_command_queue q, cl_mem b, cl_bool bl, size_t o, size_t s, const void *p, cl_uint n, const cl_event *w, cl_event *ev)
{ REAL(clEnqueueWriteBuffer); double a = hk_ms(); cl_int r = real_(q, b, bl, o, s, p, n, w, ev); hk_write += hk_ms() - a; return r; }
cl_int clEnqueueReadBuffer(cl_command_queue q, cl_mem b, cl_bool bl, size_t o, size_t s, void *p, cl_uint n, const cl_event *w, cl_event *ev)
{ REAL(clEnqueueReadBuffer); double a = hk_ms(); cl_int r = real_(q, b, bl, o, s, p, n, w, ev); hk_read += hk_ms() - a; return r; }
cl_int clFinish(cl_command_queue q)
{ REAL(clFinish); double a = hk_ms(); cl_int r = real_(q); hk_finish += hk_ms() - a; return r; }
#define HK_PRINT(tag) do { printf("  %s: queue %.1f buffer %.1f sub %.1f kernel %.1f launch %.1f (max %.1f, %d) write %.1f read %.1f finish %.1f\n", tag, hk_queue, hk_buffer, hk_sub, hk_kernel, hk_launch, hk_first_launch_max, hk_launches, hk_write, hk_read, hk_finish); hk_queue = hk_buffer = hk_sub = hk_kernel = hk_launch = hk_write = hk_read = hk_finish = hk_first_launch_max = 0; hk_launches = 0; } while (0)
#include <clsort.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now_ms(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }
int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], 0, 0) : 1 << 20;
    clsort_algorithm algo = argc > 2 && !strcmp(argv[2], "auto") ? CLSORT_AUTO : CLSORT_BITONIC;
    int prep = argc > 3 && !strcmp(argv[3], "prepare");
    double t0 = now_ms();
    clsort_ctx *ctx; if (clsort_create(&ctx, NULL)) return 1;
    double t1 = now_ms();
    printf("create %.1f ms\n", t1 - t0);
    if (prep) {
        double a = now_ms();
        int rc = clsort_prepare(ctx, CLSORT_U32, 0, n, CLSORT_NO_HOST_FALLBACK);
        clsort_stats s; clsort_get_stats(ctx, &s);
        printf("prepare rc %d %.1f ms (build %.1f)\n", rc, now_ms() - a, s.build_ns / 1e6);
    }
    HK_PRINT("create+prepare");
    unsigned *k = malloc(n * 4);
    for (int call = 1; call <= 4; ++call) {
        srand(call);
        for (size_t i = 0; i < n; ++i) k[i] = (unsigned)rand() * 2654435761u;
        double a = now_ms();
        int rc = clsort_sort(ctx, k, n, CLSORT_U32, algo, CLSORT_NO_HOST_FALLBACK * (algo != CLSORT_AUTO));
        double b = now_ms();
        clsort_stats s; clsort_get_stats(ctx, &s);
        HK_PRINT("hooks");
        printf("call %d rc %d: %.1f ms: build %.1f device %.1f upload %.1f download %.1f staging %.1f launches %u host %d\n",
               call, rc, b - a, s.build_ns / 1e6, s.device_ns / 1e6, s.upload_ns / 1e6, s.download_ns / 1e6, s.staging_ns / 1e6, s.launches, s.host_fallback);
    }
    clsort_destroy(ctx);
    return 0;
}
