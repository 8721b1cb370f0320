/* touch.c - what the first use of a fresh device buffer costs on this driver (issue 23). */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
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

static const char *src =
    "__kernel void wr(__global uint *a) { size_t i = get_global_id(0); a[i] = (uint)i * 2654435761u; }\n"
    "__kernel void rw(__global uint *a) { size_t i = get_global_id(0); a[i] = a[i] + 1u; }\n";

int main(int argc, char **argv)
{
    size_t bytes = (size_t)(argc > 1 ? atol(argv[1]) : 1024) << 20;
    cl_platform_id plats[4];
    cl_uint np;
    clGetPlatformIDs(4, plats, &np);
    cl_device_id dev = NULL;
    for (cl_uint p = 0; p < np && !dev; ++p)
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_GPU, 1, &dev, NULL) != CL_SUCCESS)
            dev = NULL;
    if (!dev) { puts("no gpu"); return 1; }
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    clBuildProgram(prog, 1, &dev, "", NULL, NULL);
    cl_kernel kwr = clCreateKernel(prog, "wr", &err), krw = clCreateKernel(prog, "rw", &err);
    unsigned *host = malloc(bytes);
    memset(host, 1, bytes);
    size_t gsz = bytes / 4;
    const char *names[] = {"write", "fill", "kernel-wr", "kernel-rw", "partial-write+kernel", "create-only"};
    for (int v = 0; v < 6; ++v) {
        for (int rep = 0; rep < 2; ++rep) {
            double t0 = now_ms();
            cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
            double tc = now_ms() - t0;
            double t1 = now_ms();
            unsigned zero = 0;
            for (int pass = 0; pass < 2; ++pass) {
                double s = now_ms();
                switch (v) {
                case 0: clEnqueueWriteBuffer(q, m, CL_TRUE, 0, bytes, host, 0, NULL, NULL); break;
                case 1: clEnqueueFillBuffer(q, m, &zero, 4, 0, bytes, 0, NULL, NULL); break;
                case 2: clSetKernelArg(kwr, 0, sizeof m, &m); clEnqueueNDRangeKernel(q, kwr, 1, NULL, &gsz, NULL, 0, NULL, NULL); break;
                case 3: clSetKernelArg(krw, 0, sizeof m, &m); clEnqueueNDRangeKernel(q, krw, 1, NULL, &gsz, NULL, 0, NULL, NULL); break;
                case 4: if (pass == 0) clEnqueueWriteBuffer(q, m, CL_TRUE, 0, 1 << 20, host, 0, NULL, NULL);
                        clSetKernelArg(krw, 0, sizeof m, &m); clEnqueueNDRangeKernel(q, krw, 1, NULL, &gsz, NULL, 0, NULL, NULL); break;
                case 5: break;
                }
                clFinish(q);
                printf("%-22s rep %d create %7.2f ms  pass %d %8.2f ms\n", names[v], rep, tc, pass, now_ms() - s);
            }
            (void)t1;
            clReleaseMemObject(m);
            clFinish(q);
        }
    }
    return 0;
}
