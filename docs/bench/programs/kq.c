/* kq: build one clsort program from kernels/ with -cl-nv-verbose; print the build log's ptxas
 * lines and each kernel's CL_KERNEL_WORK_GROUP_SIZE, private and local memory. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static char *slurp(const char *p, size_t *n) { FILE *f = fopen(p, "rb"); if (!f) { perror(p); exit(1); } fseek(f, 0, SEEK_END); *n = ftell(f); rewind(f); char *b = malloc(*n + 1); fread(b, 1, *n, f); b[*n] = 0; fclose(f); return b; }
int main(int argc, char **argv) {
    /* argv[1] = options, argv[2..] = source files in order */
    size_t total = 0; char *src = calloc(1, 1);
    for (int i = 2; i < argc; ++i) { size_t n; char *b = slurp(argv[i], &n); src = realloc(src, total + n + 2); memcpy(src + total, b, n); total += n; src[total++] = '\n'; src[total] = 0; free(b); }
    cl_platform_id pl; cl_device_id d; cl_int e;
    cl_platform_id pls[8]; cl_uint np = 0; clGetPlatformIDs(8, pls, &np); int found = 0;
    for (cl_uint i = 0; i < np && !found; ++i) if (clGetDeviceIDs(pls[i], getenv("NV") ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_ALL, 1, &d, NULL) == CL_SUCCESS) { pl = pls[i]; found = 1; }
    if (!found) { fprintf(stderr, "no device\n"); return 1; }
    char dn[256]; clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof dn, dn, NULL); printf("device %s\n", dn); (void)pl;
    cl_context c = clCreateContext(NULL, 1, &d, NULL, NULL, &e);
    const char *s = src; cl_program p = clCreateProgramWithSource(c, 1, &s, &total, &e);
    char opts[4096]; snprintf(opts, sizeof opts, "%s %s", argv[1], getenv("NV") && strcmp(getenv("NV"), "1") == 0 ? "-cl-nv-verbose" : "");
    e = clBuildProgram(p, 1, &d, opts, NULL, NULL);
    size_t ln; clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, 0, NULL, &ln); char *log = malloc(ln + 1); clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, ln, log, NULL); log[ln] = 0;
    printf("build %d\n%s\n", e, log);
    if (e) return 1;
    cl_kernel ks[64]; cl_uint nk; clCreateKernelsInProgram(p, 64, ks, &nk);
    for (cl_uint i = 0; i < nk; ++i) { char name[128]; size_t wg; cl_ulong pm, lm; size_t cwg[3];
        clGetKernelInfo(ks[i], CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL);
        clGetKernelWorkGroupInfo(ks[i], d, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
        clGetKernelWorkGroupInfo(ks[i], d, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof pm, &pm, NULL);
        clGetKernelWorkGroupInfo(ks[i], d, CL_KERNEL_LOCAL_MEM_SIZE, sizeof lm, &lm, NULL);
        clGetKernelWorkGroupInfo(ks[i], d, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof cwg, cwg, NULL);
        printf("%-22s wg_max %4zu private %6llu local %6llu reqd %zu\n", name, wg, (unsigned long long)pm, (unsigned long long)lm, cwg[0]); }
    /* Launch bitonic_sort_tile at reqd size over 2^20 random u32 (argv: TILE, WG from env). */
    const char *te = getenv("TILE"), *we = getenv("WG");
    if (!te || !we) return 0;
    const unsigned tile = atoi(te), wg = atoi(we), n = 1u << 20, xf = 0, kmax = tile;
    cl_command_queue q = clCreateCommandQueue(c, d, 0, &e);
    unsigned *h = malloc(n * 4); for (unsigned i = 0; i < n; ++i) h[i] = (i * 2654435761u) ^ (i >> 7);
    cl_mem b = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, h, &e);
    for (cl_uint i = 0; i < nk; ++i) { char name[128]; clGetKernelInfo(ks[i], CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL);
        if (strcmp(name, "bitonic_sort_tile")) continue;
        clSetKernelArg(ks[i], 0, sizeof b, &b); clSetKernelArg(ks[i], 1, 4, &n); clSetKernelArg(ks[i], 2, 4, &xf); clSetKernelArg(ks[i], 3, 4, &kmax);
        size_t gl = (size_t)n / tile * wg, lo = wg;
        cl_int r1 = clEnqueueNDRangeKernel(q, ks[i], 1, NULL, &gl, &lo, 0, NULL, NULL), r2 = clFinish(q);
        clEnqueueReadBuffer(q, b, CL_TRUE, 0, n * 4, h, 0, NULL, NULL);
        size_t bad = 0; for (unsigned j = 1; j < n; ++j) if (j % tile && h[j - 1] > h[j]) ++bad;
        printf("launch sort_tile local %zu: enqueue %d finish %d, out-of-order pairs %zu\n", lo, r1, r2, bad); }
    return 0;
}
