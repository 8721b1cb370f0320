/* device.c - OpenCL platform and device discovery, the device facts clsort needs, and the
 * selection rules of clsort_create ("", "gpu", "cpu", "P:D", or part of a name). */
#include "device.h"

#include "util.h"

#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PLATFORMS 16
#define MAX_DEVICES 64

const char *clsort__device_type_name(cl_device_type type)
{
    if (type & CL_DEVICE_TYPE_GPU)
        return "gpu";
    if (type & CL_DEVICE_TYPE_CPU)
        return "cpu";
    if (type & CL_DEVICE_TYPE_ACCELERATOR)
        return "accelerator";
    return "other";
}

static void get_string(cl_device_id d, cl_device_info what, char *out, size_t size)
{
    out[0] = 0;
    if (clGetDeviceInfo(d, what, size, out, NULL) != CL_SUCCESS)
        out[0] = 0;
    out[size - 1] = 0;
}

int clsort__query_device(clsort__device *dev)
{
    const cl_device_id d = dev->id;
    get_string(d, CL_DEVICE_NAME, dev->name, sizeof dev->name);
    get_string(d, CL_DEVICE_VENDOR, dev->vendor, sizeof dev->vendor);
    get_string(d, CL_DRIVER_VERSION, dev->driver, sizeof dev->driver);
    cl_int err = clGetDeviceInfo(d, CL_DEVICE_PLATFORM, sizeof dev->platform, &dev->platform, NULL);
    if (err != CL_SUCCESS)
        return CLSORT_ERR_OPENCL;
    clGetPlatformInfo(dev->platform, CL_PLATFORM_NAME, sizeof dev->platform_name,
                      dev->platform_name, NULL);
    clGetPlatformInfo(dev->platform, CL_PLATFORM_VERSION, sizeof dev->platform_version,
                      dev->platform_version, NULL);
    dev->platform_name[sizeof dev->platform_name - 1] = 0;
    dev->platform_version[sizeof dev->platform_version - 1] = 0;
    cl_uint cu = 1;
    err |= clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof dev->type, &dev->type, NULL);
    err |= clGetDeviceInfo(d, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
    err |= clGetDeviceInfo(d, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof dev->global_mem, &dev->global_mem,
                           NULL);
    err |= clGetDeviceInfo(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof dev->max_alloc,
                           &dev->max_alloc, NULL);
    err |= clGetDeviceInfo(d, CL_DEVICE_LOCAL_MEM_SIZE, sizeof dev->local_mem, &dev->local_mem,
                           NULL);
    err |= clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof dev->max_wg, &dev->max_wg,
                           NULL);
    err |= clGetDeviceInfo(d, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof dev->mem_align_bits,
                           &dev->mem_align_bits, NULL);
    if (err != CL_SUCCESS)
        return CLSORT_ERR_OPENCL;
    dev->compute_units = cu;
    cl_device_fp_config fp = 0;
    if (clGetDeviceInfo(d, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp, &fp, NULL) != CL_SUCCESS)
        fp = 0;
    char ext[4096];
    get_string(d, CL_DEVICE_EXTENSIONS, ext, sizeof ext);
    dev->fp64 = fp != 0 || strstr(ext, "cl_khr_fp64") != NULL;
    /* CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV of cl_nv_device_attribute_query. */
    cl_uint cc_major = 0;
    if (!(dev->type & CL_DEVICE_TYPE_GPU) || !strstr(dev->vendor, "NVIDIA") ||
        !strstr(ext, "cl_nv_device_attribute_query") ||
        clGetDeviceInfo(d, 0x4000, sizeof cc_major, &cc_major, NULL) != CL_SUCCESS)
        cc_major = 0;
    dev->warp_match = cc_major >= 7;
    return CLSORT_OK;
}

/* The ICD loader's variables as the process started with them. Seen with CUDA's Khronos
 * ICD loader, PoCL and NVIDIA's driver (OCL_ICD_FILENAMES="libpocl.so.2:libnvidia-opencl.so.1"
 * set by the image): loading the platforms rewrote
 * OCL_ICD_FILENAMES in the process's environment to "libpocl.so.2", so every program that
 * process started afterwards (a child sorting on the same GPU, mpirun's ranks, the race test of
 * test_cache) saw no GPU at all. A library must not leave the caller's environment changed: the
 * first enumeration, once per process, loads every platform and its devices (which is when the
 * drivers initialise), then puts back any of these variables a driver changed. */
static const char *const icd_vars[] = {"OCL_ICD_FILENAMES", "OCL_ICD_VENDORS"};
#define ICD_VARS (sizeof icd_vars / sizeof *icd_vars)
static pthread_once_t icd_once = PTHREAD_ONCE_INIT;

static void icd_first_load(void)
{
    char *saved[ICD_VARS];
    int had[ICD_VARS];
    for (size_t i = 0; i < ICD_VARS; ++i) {
        const char *v = getenv(icd_vars[i]);
        had[i] = v != NULL;
        saved[i] = v ? strdup(v) : NULL;
    }
    cl_platform_id plats[MAX_PLATFORMS];
    cl_uint np = 0;
    if (clGetPlatformIDs(MAX_PLATFORMS, plats, &np) == CL_SUCCESS) {
        for (cl_uint p = 0; p < np && p < MAX_PLATFORMS; ++p) {
            cl_uint nd = 0;
            clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd);
        }
    }
    for (size_t i = 0; i < ICD_VARS; ++i) {
        const char *now = getenv(icd_vars[i]);
        /* had without saved: the copy failed (out of memory); leave the variable as it is
         * rather than unset what the caller had set. */
        if (saved[i] && (!now || strcmp(now, saved[i]) != 0))
            setenv(icd_vars[i], saved[i], 1);
        else if (!had[i] && now)
            unsetenv(icd_vars[i]);
        free(saved[i]);
    }
}

static int for_each_device(int (*fn)(const clsort__device *dev, void *user), void *user);

/* Address space an OpenCL driver needs to load: PoCL maps about 300 MiB of libraries (LLVM);
 * the GPU drivers measured need more. Under `ulimit -v 200000` the ICD loader's dlopen of the
 * driver fails with ENOMEM, and the loader reports no platform at all, with errno cleared. */
#define DRIVER_LOAD_BYTES ((size_t)256 << 20)

int clsort__for_each_device(int (*fn)(const clsort__device *dev, void *user), void *user)
{
    pthread_once(&icd_once, icd_first_load);
    const int count = for_each_device(fn, user);
    /* No device at all: if memory is what is missing, say so rather than "no device". */
    if (count == 0 && !clsort__address_space_ok(DRIVER_LOAD_BYTES))
        return CLSORT_ERR_OUT_OF_MEMORY;
    return count;
}

static int for_each_device(int (*fn)(const clsort__device *dev, void *user), void *user)
{
    cl_platform_id plats[MAX_PLATFORMS];
    cl_uint np = 0;
    cl_int err = clGetPlatformIDs(MAX_PLATFORMS, plats, &np);
    if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR: the ICD loader found no platform */ ||
        (err == CL_SUCCESS && np == 0))
        return 0;
    if (err != CL_SUCCESS)
        return CLSORT_ERR_OPENCL;
    if (np > MAX_PLATFORMS)
        np = MAX_PLATFORMS;
    int count = 0;
    for (cl_uint p = 0; p < np; ++p) {
        cl_device_id devs[MAX_DEVICES];
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, MAX_DEVICES, devs, &nd) != CL_SUCCESS)
            continue; /* a platform without devices is not an error */
        if (nd > MAX_DEVICES)
            nd = MAX_DEVICES;
        for (cl_uint d = 0; d < nd; ++d) {
            clsort__device dev;
            memset(&dev, 0, sizeof dev);
            dev.id = devs[d];
            dev.platform_index = p;
            dev.device_index = d;
            if (clsort__query_device(&dev) != CLSORT_OK)
                continue;
            ++count;
            if (fn && fn(&dev, user))
                return count;
        }
    }
    return count;
}

/* Selection: the first device that matches, with preference ranks for the default. */
typedef struct select_state {
    const char *spec;
    int kind;             /* 0 default, 1 gpu, 2 cpu, 3 P:D, 4 name */
    unsigned p, d;
    clsort__device best;
    int best_rank;        /* lower is better; 99 none */
} select_state;

static int contains_icase(const char *hay, const char *needle)
{
    const size_t n = strlen(needle);
    for (; *hay; ++hay) {
        size_t i = 0;
        while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            ++i;
        if (i == n)
            return 1;
    }
    return n == 0;
}

static int consider(const clsort__device *dev, void *user)
{
    select_state *s = user;
    int rank = 99;
    switch (s->kind) {
    case 0:
        rank = (dev->type & CL_DEVICE_TYPE_GPU) ? 0 : (dev->type & CL_DEVICE_TYPE_CPU) ? 1 : 2;
        break;
    case 1:
        rank = (dev->type & CL_DEVICE_TYPE_GPU) ? 0 : 99;
        break;
    case 2:
        rank = (dev->type & CL_DEVICE_TYPE_CPU) ? 0 : 99;
        break;
    case 3:
        rank = (dev->platform_index == s->p && dev->device_index == s->d) ? 0 : 99;
        break;
    default:
        rank = contains_icase(dev->name, s->spec) ? 0 : 99;
        break;
    }
    if (rank < s->best_rank) {
        s->best_rank = rank;
        s->best = *dev;
    }
    return 0;
}

int clsort__select_device(const char *spec, clsort__device *dev, char *why, size_t why_size)
{
    if (!spec || !*spec) {
        const char *env = getenv("CLSORT_DEVICE");
        spec = (env && *env) ? env : "";
    }
    select_state s;
    memset(&s, 0, sizeof s);
    s.spec = spec;
    s.best_rank = 99;
    char tail;
    if (!*spec)
        s.kind = 0;
    else if (!strcmp(spec, "gpu") || !strcmp(spec, "GPU"))
        s.kind = 1;
    else if (!strcmp(spec, "cpu") || !strcmp(spec, "CPU"))
        s.kind = 2;
    else if (sscanf(spec, "%u:%u%c", &s.p, &s.d, &tail) == 2)
        s.kind = 3;
    else
        s.kind = 4;
    const int count = clsort__for_each_device(consider, &s);
    if (count == CLSORT_ERR_OUT_OF_MEMORY) {
        snprintf(why, why_size, "no OpenCL device could be loaded: out of memory (%zu MiB of address "
                                "space cannot be mapped; a limit such as ulimit -v may be too "
                                "low for the driver)", DRIVER_LOAD_BYTES >> 20);
        return CLSORT_ERR_OUT_OF_MEMORY;
    }
    if (count < 0) {
        snprintf(why, why_size, "clGetPlatformIDs/clGetDeviceIDs failed");
        return CLSORT_ERR_OPENCL;
    }
    if (s.best_rank == 99) {
        if (count == 0)
            snprintf(why, why_size, "no OpenCL device found (is an ICD such as PoCL installed?)");
        else
            snprintf(why, why_size, "no OpenCL device matches \"%s\" (%d device%s present)", spec,
                     count, count == 1 ? "" : "s");
        return CLSORT_ERR_NO_DEVICE;
    }
    *dev = s.best;
    return CLSORT_OK;
}
