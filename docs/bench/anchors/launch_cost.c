/* launch_cost: what one kernel launch costs the host on this OpenCL driver, and the device's gap between
 * chained kernels, by how the launch is made; and cl_khr_command_buffer where the driver has it.
 * Host time per clEnqueueNDRangeKernel: batches of 16 launches, median of 31 batches. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CK(x) do { cl_int e_ = (x); if (e_) { printf("error %d at line %d: %s\n", e_, __LINE__, #x); exit(1); } } while (0)
static double now_us(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec / 1e3; }
static int cmpd(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
static double median(double *v, int n) { qsort(v, n, sizeof *v, cmpd); return v[n / 2]; }

static const char *src1 =
    "__kernel void k(__global uint *a, uint n, uint s, uint t) { size_t i = get_global_id(0);"
    " if (i < n) a[i] = a[i] * s + t; }\n";

static cl_context ctx; static cl_device_id dev; static cl_mem buf; static cl_uint n = 1u << 15;

static cl_program build(const char *s)
{
    cl_int e; cl_program p = clCreateProgramWithSource(ctx, 1, &s, NULL, &e); CK(e);
    CK(clBuildProgram(p, 1, &dev, "", NULL, NULL)); return p;
}

/* mode: 0 args once, 1 two args each launch, 2 all args each launch, 3 16 kernels preset */
static double host_cost(cl_command_queue q, cl_kernel *ks, int mode, size_t global, const size_t *local)
{
    double v[31];
    cl_uint s = 3, t = 1;
    for (int i = 0; i < 16; ++i) {
        CK(clSetKernelArg(ks[i], 0, sizeof buf, &buf)); CK(clSetKernelArg(ks[i], 1, 4, &n));
        CK(clSetKernelArg(ks[i], 2, 4, &s)); CK(clSetKernelArg(ks[i], 3, 4, &t));
    }
    for (int b = 0; b < 31 + 2; ++b) {
        clFinish(q);
        double t0 = now_us();
        for (int i = 0; i < 16; ++i) {
            cl_kernel k = mode == 3 ? ks[i] : ks[0];
            if (mode >= 1 && mode <= 2) {
                cl_uint s2 = 3 + i, t2 = i;
                if (mode == 2) { CK(clSetKernelArg(k, 0, sizeof buf, &buf)); CK(clSetKernelArg(k, 1, 4, &n)); }
                CK(clSetKernelArg(k, 2, 4, &s2)); CK(clSetKernelArg(k, 3, 4, &t2));
            }
            CK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, local, 0, NULL, NULL));
        }
        double t1 = now_us();
        if (b >= 2) v[b - 2] = (t1 - t0) / 16;
    }
    clFinish(q);
    return median(v, 31);
}

/* Device span of 16 chained launches on a profiling queue: normally, and gated behind a user
 * event so that the host is ahead of the device (the device's own gap). */
static void spans(cl_command_queue q, cl_kernel k, size_t global)
{
    const size_t local = 256;
    for (int gated = 0; gated < 2; ++gated) {
        double v[15], kt[15];
        for (int r = 0; r < 15 + 2; ++r) {
            clFinish(q);
            cl_int e; cl_event gate = gated ? clCreateUserEvent(ctx, &e) : NULL;
            cl_event first, last;
            for (int i = 0; i < 16; ++i)
                CK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, gated && i == 0 ? 1 : 0,
                                          gated && i == 0 ? &gate : NULL,
                                          i == 0 ? &first : i == 15 ? &last : NULL));
            if (gated) CK(clSetUserEventStatus(gate, CL_COMPLETE));
            clFinish(q);
            cl_ulong a, b, c, d;
            clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, 8, &a, NULL);
            clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_END, 8, &c, NULL);
            clGetEventProfilingInfo(last, CL_PROFILING_COMMAND_START, 8, &d, NULL);
            clGetEventProfilingInfo(last, CL_PROFILING_COMMAND_END, 8, &b, NULL);
            if (r >= 2) { v[r - 2] = (b - a) / 1e3; kt[r - 2] = (c - a) / 1e3; }
            clReleaseEvent(first); clReleaseEvent(last); if (gate) clReleaseEvent(gate);
            (void)d;
        }
        printf("  16 chained launches, global %zu, %s: span %.1f us (one kernel %.1f us)\n", global,
               gated ? "gated (host ahead)" : "as enqueued", median(v, 15), median(kt, 15));
    }
}

/* The device's own pace on a queue without profiling: 16 (or 64) chained launches gated behind a
 * user event, the host clock from the gate's release to clFinish's return. */
static void gated_host_clock(cl_command_queue q, cl_kernel k, size_t global, int count, const char *what)
{
    const size_t local = 256;
    double v[15];
    for (int r = 0; r < 15 + 2; ++r) {
        clFinish(q);
        cl_int e; cl_event gate = clCreateUserEvent(ctx, &e);
        for (int i = 0; i < count; ++i)
            CK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, i == 0, i == 0 ? &gate : NULL, NULL));
        clFlush(q);
        double t0 = now_us();
        CK(clSetUserEventStatus(gate, CL_COMPLETE));
        clFinish(q);
        double t1 = now_us();
        if (r >= 2) v[r - 2] = t1 - t0;
        clReleaseEvent(gate);
    }
    printf("  %d chained launches, global %zu, gated, %s queue: release to finish %.1f us (%.2f a launch)\n",
           count, global, what, median(v, 15), median(v, 15) / count);
}

int main(void)
{
    cl_platform_id pls[8]; cl_uint np = 0; CK(clGetPlatformIDs(8, pls, &np));
    cl_platform_id pl = NULL;
    for (cl_uint i = 0; i < np && !pl; ++i)
        if (clGetDeviceIDs(pls[i], CL_DEVICE_TYPE_GPU, 1, &dev, NULL) == CL_SUCCESS) pl = pls[i];
    if (!pl) { CK(clGetDeviceIDs(pls[0], CL_DEVICE_TYPE_ALL, 1, &dev, NULL)); pl = pls[0]; }
    char name[256], drv[64], ver[128]; clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
    clGetDeviceInfo(dev, CL_DRIVER_VERSION, sizeof drv, drv, NULL); clGetDeviceInfo(dev, CL_DEVICE_VERSION, sizeof ver, ver, NULL);
    printf("device %s, driver %s, %s\n", name, drv, ver);
    size_t el = 0; clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, 0, NULL, &el);
    char *ext = malloc(el + 1); clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, el, ext, NULL); ext[el] = 0;
    printf("extensions: %s\n", ext);
    size_t wl = 0;
    if (clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS_WITH_VERSION, 0, NULL, &wl) == CL_SUCCESS && wl) {
        cl_name_version *nv = malloc(wl); clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS_WITH_VERSION, wl, nv, NULL);
        for (size_t i = 0; i < wl / sizeof *nv; ++i)
            if (strstr(nv[i].name, "command_buffer") || strstr(nv[i].name, "subgroup"))
                printf("  %s %u.%u.%u\n", nv[i].name, CL_VERSION_MAJOR(nv[i].version), CL_VERSION_MINOR(nv[i].version), CL_VERSION_PATCH(nv[i].version));
    }
    cl_int e; ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &e); CK(e);
    cl_command_queue plain = clCreateCommandQueue(ctx, dev, 0, &e); CK(e);
    cl_command_queue prof = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &e); CK(e);
    buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, (size_t)4 << 20, NULL, &e); CK(e);
    cl_program p1 = build(src1);
    /* A program of 40 kernels, as clsort's are. */
    char *big = malloc(40 * 256); big[0] = 0;
    for (int i = 0; i < 40; ++i) {
        char line[256];
        snprintf(line, sizeof line, "__kernel void k%d(__global uint *a, uint n, uint s, uint t) { size_t i = get_global_id(0); if (i < n) a[i] = a[i] * s + t + %d; }\n", i, i);
        strcat(big, line);
    }
    cl_program p40 = build(big);
    cl_kernel ks[16], kb[16];
    for (int i = 0; i < 16; ++i) { ks[i] = clCreateKernel(p1, "k", &e); CK(e); char kn[8]; snprintf(kn, sizeof kn, "k%d", i); kb[i] = clCreateKernel(p40, kn, &e); CK(e); }
    const size_t l256 = 256;
    const size_t g = n;
    printf("host us per launch (16 in a row, median of 31):\n");
    const char *modes[4] = {"args set once", "2 args set each launch", "4 args set each launch", "16 kernel objects, args preset"};
    for (int qi = 0; qi < 2; ++qi)
        for (int m = 0; m < 4; ++m)
            printf("  %-9s %-32s local 256: %5.2f  local NULL: %5.2f\n", qi ? "profiling" : "plain", modes[m],
                   host_cost(qi ? prof : plain, ks, m, g, &l256), host_cost(qi ? prof : plain, ks, m, g, NULL));
    printf("  plain     2 args each, 40-kernel program     local 256: %5.2f\n", host_cost(plain, kb, 1, g, &l256));
    printf("  plain     2 args each, global 2^20           local 256: %5.2f\n", host_cost(plain, ks, 1, (size_t)1 << 20, &l256));
    spans(prof, ks[0], g);
    spans(prof, ks[0], (size_t)1 << 20);
    for (int c = 16; c <= 64; c *= 4)
        for (int gi = 0; gi < 2; ++gi) {
            gated_host_clock(plain, ks[0], gi ? (size_t)1 << 20 : g, c, "plain");
            gated_host_clock(prof, ks[0], gi ? (size_t)1 << 20 : g, c, "profiling");
        }

    /* cl_khr_command_buffer */
    if (!strstr(ext, "cl_khr_command_buffer")) { printf("no cl_khr_command_buffer\n"); return 0; }
    cl_command_queue_properties req = 0;
    clGetDeviceInfo(dev, CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR, sizeof req, &req, NULL);
    cl_device_command_buffer_capabilities_khr caps = 0;
    clGetDeviceInfo(dev, CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR, sizeof caps, &caps, NULL);
    printf("command buffer: required queue properties 0x%llx, capabilities 0x%llx\n", (unsigned long long)req, (unsigned long long)caps);
    clCreateCommandBufferKHR_fn create = (clCreateCommandBufferKHR_fn)clGetExtensionFunctionAddressForPlatform(pl, "clCreateCommandBufferKHR");
    clCommandNDRangeKernelKHR_fn ndr = (clCommandNDRangeKernelKHR_fn)clGetExtensionFunctionAddressForPlatform(pl, "clCommandNDRangeKernelKHR");
    clFinalizeCommandBufferKHR_fn fin = (clFinalizeCommandBufferKHR_fn)clGetExtensionFunctionAddressForPlatform(pl, "clFinalizeCommandBufferKHR");
    clEnqueueCommandBufferKHR_fn enq = (clEnqueueCommandBufferKHR_fn)clGetExtensionFunctionAddressForPlatform(pl, "clEnqueueCommandBufferKHR");
    if (!create || !ndr || !fin || !enq) { printf("command buffer functions missing\n"); return 0; }
    cl_command_queue q = (req & CL_QUEUE_PROFILING_ENABLE) || 1 ? prof : plain;
    for (int gi = 0; gi < 2; ++gi) {
        const size_t gg = gi ? (size_t)1 << 20 : g;
        double t0 = now_us();
        cl_command_buffer_khr cb = create(1, &q, NULL, &e); CK(e);
        cl_sync_point_khr sp = 0, prev = 0;
        for (int i = 0; i < 16; ++i) {
            CK(ndr(cb, NULL, NULL, ks[0], 1, NULL, &gg, &l256, i ? 1 : 0, i ? &prev : NULL, &sp, NULL));
            prev = sp;
        }
        CK(fin(cb));
        double t1 = now_us();
        double hv[31], dv[31];
        for (int r = 0; r < 31 + 2; ++r) {
            clFinish(q);
            cl_event ev;
            double a0 = now_us();
            CK(enq(1, &q, cb, 0, NULL, &ev));
            double a1 = now_us();
            clFinish(q);
            cl_ulong s0, s1;
            clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, 8, &s0, NULL);
            clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, 8, &s1, NULL);
            if (r >= 2) { hv[r - 2] = a1 - a0; dv[r - 2] = (s1 - s0) / 1e3; }
            clReleaseEvent(ev);
        }
        printf("  command buffer of 16 launches, global %zu: recorded in %.1f us; enqueue %.1f us host, span %.1f us\n",
               gg, t1 - t0, median(hv, 31), median(dv, 31));
        /* The same 16 as launches with an event on the last, on the same queue: host clock to finish. */
        double wv[31], cv[31];
        for (int r = 0; r < 31 + 2; ++r) {
            clFinish(q);
            double a0 = now_us();
            for (int i = 0; i < 16; ++i) CK(clEnqueueNDRangeKernel(q, ks[0], 1, NULL, &gg, &l256, 0, NULL, NULL));
            clFinish(q);
            double a1 = now_us();
            CK(enq(1, &q, cb, 0, NULL, NULL));
            clFinish(q);
            double a2 = now_us();
            if (r >= 2) { wv[r - 2] = a1 - a0; cv[r - 2] = a2 - a1; }
        }
        printf("  host clock, enqueue to finish: 16 launches %.1f us, the command buffer %.1f us\n", median(wv, 31), median(cv, 31));
    }
    return 0;
}
