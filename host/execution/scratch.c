/* scratch.c - the context's scratch device buffers, grown on demand and reused across calls
 * (scratch.h names them). clsort_destroy releases them. */
#include "scratch.h"

#include "transfer.h"

int clsort__ensure_scratch(clsort_ctx *ctx, int i, size_t size)
{
    if (ctx->scratch_size[i] >= size && ctx->scratch[i])
        return CLSORT_OK;
    if (ctx->scratch[i])
        clReleaseMemObject(ctx->scratch[i]);
    ctx->scratch[i] = NULL;
    ctx->scratch_size[i] = 0;
    if (size > ctx->dev.max_alloc)
        return clsort__fail(ctx, CLSORT_ERR_OUT_OF_MEMORY,
                            "clCreateBuffer(%zu bytes): larger than CL_DEVICE_MAX_MEM_ALLOC_SIZE "
                            "(%llu bytes) of %s",
                            size, (unsigned long long)ctx->dev.max_alloc, ctx->dev.name);
    /* Every scratch buffer (sorts, segments, top-k): a driver that shares host memory may abort
     * where it cannot back one (transfer.h), so the address space is asked first. */
    const int rc = clsort__check_memory(ctx, size, "a scratch buffer");
    if (rc != CLSORT_OK)
        return rc;
    cl_int err;
    cl_mem m = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, size, NULL, &err);
    if (err != CL_SUCCESS)
        return clsort__cl_fail(ctx, err, "clCreateBuffer", "scratch");
    ctx->scratch[i] = m;
    ctx->scratch_size[i] = size;
    /* Place the new buffer on the device now, with no content to copy. Host-array sorts first
     * touch it through sub-buffers written on the transfer queue; NVIDIA's driver (580, H200)
     * then moved the whole parent for each chunk: the first sort of a process took 1.5 s at
     * 2^28 u32 against 0.1 s warm, 60 ms of it after this call (docs/perf.md, "First sort"). */
    err = clEnqueueMigrateMemObjects(ctx->queue, 1, &m, CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED,
                                     0, NULL, NULL);
    if (err != CL_SUCCESS)
        return clsort__cl_fail(ctx, err, "clEnqueueMigrateMemObjects", "scratch");
    return CLSORT_OK;
}
