/* bench_setup.c - what clsort-bench runs on: the OpenCL device with our own profiling queue and a
 * clsort context on it, and the facts about the host that the header and the size limits need. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

const char *bench_cl_error_name(cl_int err)
{
    switch (err) {
    case CL_SUCCESS: return "CL_SUCCESS";
    case CL_DEVICE_NOT_FOUND: return "CL_DEVICE_NOT_FOUND";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case CL_OUT_OF_RESOURCES: return "CL_OUT_OF_RESOURCES";
    case CL_OUT_OF_HOST_MEMORY: return "CL_OUT_OF_HOST_MEMORY";
    case CL_PROFILING_INFO_NOT_AVAILABLE: return "CL_PROFILING_INFO_NOT_AVAILABLE";
    case CL_INVALID_VALUE: return "CL_INVALID_VALUE";
    case CL_INVALID_PLATFORM: return "CL_INVALID_PLATFORM";
    case CL_INVALID_DEVICE: return "CL_INVALID_DEVICE";
    case CL_INVALID_CONTEXT: return "CL_INVALID_CONTEXT";
    case CL_INVALID_COMMAND_QUEUE: return "CL_INVALID_COMMAND_QUEUE";
    case CL_INVALID_MEM_OBJECT: return "CL_INVALID_MEM_OBJECT";
    case CL_INVALID_EVENT: return "CL_INVALID_EVENT";
    case CL_INVALID_BUFFER_SIZE: return "CL_INVALID_BUFFER_SIZE";
    default: return "CL error";
    }
}

/* ---- Device ------------------------------------------------------------------------------------- */

void bench_print_device(const clsort_device_info *info, int is_default, void *user)
{
    (void)user;
    printf("%u:%u  %-40s %-5s %s%s\n", info->platform_index, info->device_index, info->name,
           info->type, info->platform, is_default ? "  (default)" : "");
}

/* Finds the device clsort would pick for `name` (so -d means exactly what it means to clsort),
 * then makes our own context and profiling queue on it and a clsort context on that queue. */
int bench_open_device(bench_env *env, const char *name)
{
    clsort_ctx *probe = NULL;
    cl_platform_id *platforms = NULL;
    cl_device_id *devices = NULL;
    cl_int err = CL_SUCCESS;
    int rc = clsort_create(&probe, name);
    if (rc != CLSORT_OK) {
        fprintf(stderr, "clsort-bench: device '%s': %s\n", name ? name : "(default)",
                clsort_strerror(rc));
        goto fail;
    }
    clsort_device_info info;
    clsort_get_device_info(probe, &info);
    const unsigned p = info.platform_index, d = info.device_index;
    clsort_destroy(probe);

    cl_uint np = 0, nd = 0;
    if ((err = clGetPlatformIDs(0, NULL, &np)) != CL_SUCCESS || p >= np) goto cl_fail;
    platforms = malloc(np * sizeof *platforms);
    if (!platforms || (err = clGetPlatformIDs(np, platforms, NULL)) != CL_SUCCESS) goto cl_fail;
    if ((err = clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd)) != CL_SUCCESS ||
        d >= nd)
        goto cl_fail;
    devices = malloc(nd * sizeof *devices);
    if (!devices ||
        (err = clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, nd, devices, NULL)) != CL_SUCCESS)
        goto cl_fail;
    env->device = devices[d];
    const cl_context_properties props[] = { CL_CONTEXT_PLATFORM,
                                            (cl_context_properties)platforms[p], 0 };
    env->context = clCreateContext(props, 1, &env->device, NULL, NULL, &err);
    if (err != CL_SUCCESS) goto cl_fail;
    env->queue = clCreateCommandQueue(env->context, env->device, CL_QUEUE_PROFILING_ENABLE, &err);
    if (err != CL_SUCCESS) goto cl_fail;
    rc = clsort_create_with_queue(&env->ctx, env->queue);
    if (rc != CLSORT_OK) {
        fprintf(stderr, "clsort-bench: clsort_create_with_queue: %s\n", clsort_strerror(rc));
        goto fail;
    }
    clsort_get_device_info(env->ctx, &env->info);
    env->device_is_cpu = strcmp(env->info.type, "cpu") == 0;
    free(platforms);
    free(devices);
    return 0;
cl_fail:
    fprintf(stderr, "clsort-bench: OpenCL setup on device %u:%u failed: %s (%d)\n", p, d,
            bench_cl_error_name(err), (int)err);
fail:
    free(platforms);
    free(devices);
    return -1;
}

void bench_close_device(bench_env *env)
{
    clsort_destroy(env->ctx);
    if (env->queue) clReleaseCommandQueue(env->queue);
    if (env->context) clReleaseContext(env->context);
}

/* ---- Host facts --------------------------------------------------------------------------------- */

uint64_t bench_host_available_bytes(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    uint64_t kb = 0;
    if (!f) return 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", (unsigned long long *)&kb) == 1) break;
    fclose(f);
    return kb * 1024;
}

void bench_read_host_cpu(char *out, size_t size)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[256];
    snprintf(out, size, "unknown CPU");
    if (!f) return;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            const char *c = strchr(line, ':');
            if (c) {
                c++;
                while (*c == ' ') c++;
                snprintf(out, size, "%s", c);
                out[strcspn(out, "\n")] = '\0';
            }
            break;
        }
    }
    fclose(f);
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores > 0) {
        const size_t len = strlen(out);
        snprintf(out + len, size - len, ", %ld threads", cores);
    }
}
