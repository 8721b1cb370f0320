/* program.c - builds a program of the manifest (kernels/manifest.h: its parts in order) for given
 * parameters, keeps it in a per-context in-memory cache keyed by the build options, and hands
 * out its kernels. The disk cache
 * (cache.c) sits under this: a hit there skips the compiler. */
#include "program.h"

#include "cache.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* Embedded at build time from the kernels/ sources by mk/embed.c: clsort__src_<base> and its
 * length for every part that kernels/manifest.h names. */
#define CLSORT__PART(base)                  \
    extern const char clsort__src_##base[]; \
    extern const size_t clsort__src_##base##_len;
#define CLSORT__X(name, parts) parts(CLSORT__PART)
CLSORT_PROGRAMS(CLSORT__X)
#undef CLSORT__X
#undef CLSORT__PART

char *clsort__program_source(clsort__program_id program, size_t *len)
{
    /* The parts of each program in the manifest's order (CLSORT_PARTS_*), one newline after
     * each. (The lengths are not constant expressions: their addresses are.) */
    typedef struct part {
        const char *src;
        const size_t *len;
    } part;
#define CLSORT__PART(base) {clsort__src_##base, &clsort__src_##base##_len},
#define CLSORT__X(name, parts) static const part name##_parts[] = {parts(CLSORT__PART)};
    CLSORT_PROGRAMS(CLSORT__X)
#undef CLSORT__X
#undef CLSORT__PART
    const part *parts = NULL;
    size_t nparts = 0;
    switch (program) {
#define CLSORT__X(name, p)                                     \
    case CLSORT__PROGRAM_##name:                               \
        parts = name##_parts;                                  \
        nparts = sizeof name##_parts / sizeof name##_parts[0]; \
        break;
        CLSORT_PROGRAMS(CLSORT__X)
#undef CLSORT__X
    default:
        return NULL;
    }
    size_t total = 0;
    for (size_t i = 0; i < nparts; ++i)
        total += *parts[i].len + 1;
    char *src = malloc(total + 1);
    if (!src)
        return NULL;
    size_t at = 0;
    for (size_t i = 0; i < nparts; ++i) {
        memcpy(src + at, parts[i].src, *parts[i].len);
        at += *parts[i].len;
        src[at++] = '\n';
    }
    src[at] = 0;
    *len = at;
    return src;
}

static int build(clsort_ctx *ctx, const char *src, size_t len, const char *options,
                 cl_program *out)
{
    int rc = CLSORT_OK;
    cl_int err;
    cl_program prog = clsort__cache_load(ctx, src, len, options);
    if (prog) {
        *out = prog;
        return CLSORT_OK;
    }
    prog = clCreateProgramWithSource(ctx->context, 1, &src, &len, &err);
    CLSORT__CL_CHECK(ctx, err, "clCreateProgramWithSource", "");
    const uint64_t t0 = clsort__now_ns();
    err = clBuildProgram(prog, 1, &ctx->dev.id, options, NULL, NULL);
    clsort__trace(ctx, "built program in %.1f ms: %s", (clsort__now_ns() - t0) / 1e6, options);
    if (err != CL_SUCCESS) {
        rc = clsort__cl_fail(ctx, err, "clBuildProgram", "");
        if (rc != CLSORT_ERR_OUT_OF_MEMORY)
            rc = CLSORT_ERR_BUILD;
        clsort__append_error(ctx, "\nbuild options: ");
        clsort__append_error(ctx, options);
        size_t log_size = 0;
        clGetProgramBuildInfo(prog, ctx->dev.id, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_size);
        char *log = log_size ? malloc(log_size + 1) : NULL;
        if (log && clGetProgramBuildInfo(prog, ctx->dev.id, CL_PROGRAM_BUILD_LOG, log_size, log,
                                         NULL) == CL_SUCCESS) {
            log[log_size] = 0;
            clsort__append_error(ctx, "\nbuild log:\n");
            clsort__append_error(ctx, log);
        }
        free(log);
        goto fail;
    }
    ctx->stats.programs_compiled++;
    clsort__cache_store(ctx, prog, src, len, options);
    *out = prog;
    return CLSORT_OK;
fail:
    if (prog)
        clReleaseProgram(prog);
    return rc;
}

int clsort__get_program(clsort_ctx *ctx, clsort__program_id net, int index_bits,
                        const char *build_options, clsort__program **out)
{
    char options[1024];
    snprintf(options, sizeof options, "%s", build_options);
    const char *extra = getenv("CLSORT_BUILD_OPTIONS"); /* fault injection and experiments */
    if (extra && *extra) {
        strncat(options, " ", sizeof options - strlen(options) - 1);
        strncat(options, extra, sizeof options - strlen(options) - 1);
    }
    for (clsort__program *q = ctx->programs; q; q = q->next)
        if (q->network == (int)net && !strcmp(q->options, options)) {
            *out = q;
            return CLSORT_OK;
        }
    int rc = CLSORT_OK;
    size_t len = 0;
    /* Counted whether it ends in the compiler or the disk cache: clsort_stats.build_ns is what
     * a sort paid for programs it did not have (clsort_prepare pays it beforehand). */
    const uint64_t t0 = clsort__now_ns();
    char *src = clsort__program_source(net, &len);
    clsort__program *q = calloc(1, sizeof *q);
    char *opt = malloc(strlen(options) + 1);
    if (!src || !q || !opt) {
        rc = clsort__fail(ctx, CLSORT_ERR_OUT_OF_MEMORY, "out of host memory building a program");
        goto fail;
    }
    strcpy(opt, options);
    rc = build(ctx, src, len, options, &q->program);
    ctx->stats.build_ns += clsort__now_ns() - t0;
    if (rc != CLSORT_OK)
        goto fail;
    free(src);
    q->options = opt;
    q->network = net;
    q->index_bits = index_bits;
    q->next = ctx->programs;
    ctx->programs = q;
    *out = q;
    return CLSORT_OK;
fail:
    free(src);
    free(q);
    free(opt);
    return rc;
}

int clsort__get_kernel(clsort_ctx *ctx, clsort__program *prog, const char *name, cl_kernel *out,
                       size_t *max_wg)
{
    for (int i = 0; i < prog->nkernels; ++i)
        if (!strcmp(prog->kernels[i].name, name)) {
            *out = prog->kernels[i].kernel;
            *max_wg = prog->kernels[i].max_wg;
            return CLSORT_OK;
        }
    if (prog->nkernels == CLSORT__MAX_KERNELS)
        return clsort__fail(ctx, CLSORT_ERR_OPENCL, "too many kernels in one program");
    cl_int err;
    const uint64_t t0 = clsort__now_ns();
    cl_kernel k = clCreateKernel(prog->program, name, &err);
    if (err != CL_SUCCESS)
        return clsort__cl_fail(ctx, err, "clCreateKernel", name);
    size_t wg = 0, reqd[3] = {0, 0, 0};
    err = clGetKernelWorkGroupInfo(k, ctx->dev.id, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
    if (err == CL_SUCCESS)
        err = clGetKernelWorkGroupInfo(k, ctx->dev.id, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                                       sizeof reqd, reqd, NULL);
    ctx->stats.build_ns += clsort__now_ns() - t0;
    if (err != CL_SUCCESS) {
        clReleaseKernel(k);
        return clsort__cl_fail(ctx, err, "clGetKernelWorkGroupInfo", name);
    }
    /* A kernel built with reqd_work_group_size (the tile shapes) runs at that size: the
     * compiler took it. NVIDIA's driver reports CL_KERNEL_WORK_GROUP_SIZE 256 for every kernel
     * of these programs, 16 registers or 72, yet bitonic_sort_tile built for 512 and for 1024
     * work-items launches and sorts at those sizes there; the smaller figure made run.c refuse
     * every config above 256 work-items. Where a device really cannot run the size, the launch
     * fails with the OpenCL call's error. */
    if (reqd[0] > wg)
        wg = reqd[0];
    prog->kernels[prog->nkernels].name = name; /* string literals: the manifest's (kernels.c) */
    prog->kernels[prog->nkernels].kernel = k;
    prog->kernels[prog->nkernels].max_wg = wg;
    ++prog->nkernels;
    *out = k;
    *max_wg = wg;
    return CLSORT_OK;
}

void clsort__release_programs(clsort_ctx *ctx)
{
    clsort__program *q = ctx->programs;
    while (q) {
        clsort__program *next = q->next;
        for (int i = 0; i < q->nkernels; ++i)
            clReleaseKernel(q->kernels[i].kernel);
        clReleaseProgram(q->program);
        free(q->options);
        free(q);
        q = next;
    }
    ctx->programs = NULL;
}
