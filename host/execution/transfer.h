/* transfer.h - host memory to and from device buffers (transfer.c): clsort_host_alloc's pinned
 * blocks, the pinned staging of other host arrays (chunked, copied by several threads and
 * overlapped with the transfers), and the zero-copy wrapping of host memory on devices that share
 * it. Everything is enqueued on the context's queue, except the overlapped upload's writes, which
 * go to a second queue on the same device. The interface for any host-array entry point
 * (sort, pairs, batch, segments): upload, sort, clsort__transfer_settle, download. */
#ifndef CLSORT_TRANSFER_H
#define CLSORT_TRANSFER_H

#include "core.h"

/* Sets the staging bound and the unknown unified-memory flag on a new context (reads
 * CLSORT_STAGING_MAX). */
int clsort__transfer_init(clsort_ctx *ctx);
/* Waits for every transfer still running, frees the staging and every clsort_host_alloc block. */
void clsort__transfer_release(clsort_ctx *ctx);
/* Bytes of pinned staging the context holds (clsort_stats.pinned_bytes). */
size_t clsort__staging_bytes(const clsort_ctx *ctx);

/* Makes ready what host arrays of `bytes` in all (keys and values) will travel through: the
 * pinned staging and the transfer queue, where the device needs them (clsort_prepare). */
int clsort__transfer_reserve(clsort_ctx *ctx, size_t bytes);

/* Before buffers of `bytes` in all are asked of the driver: on a device that shares memory with
 * the host they are host memory, and a driver that cannot back them may abort (PoCL asserts in
 * pocl_create_migration_commands) instead of failing. There the address space is probed first
 * (util.h); CLSORT_ERR_OUT_OF_MEMORY with a message if it is not there, else CLSORT_OK. */
int clsort__check_memory(clsort_ctx *ctx, size_t bytes, const char *what);

/* A new pinned block of bytes (clsort_host_alloc), or NULL with the failure recorded. */
void *clsort__pinned_alloc(clsort_ctx *ctx, size_t bytes);
/* Frees the block that starts at ptr; anything else is ignored. */
void clsort__pinned_free(clsort_ctx *ctx, void *ptr);
/* 1 if [ptr, ptr + bytes) lies inside one pinned block of the context. */
int clsort__in_pinned(const clsort_ctx *ctx, const void *ptr, size_t bytes);

/* Enqueues the copy of bytes from host src to buf at offset. Returns once src may change again
 * only for staged arrays; pinned and small arrays are read by the device until the queue has
 * finished them, so keep src unchanged until clsort__transfer_settle or clFinish. */
int clsort__upload(clsort_ctx *ctx, cl_mem buf, size_t offset, const void *src, size_t bytes);
/* Copies bytes from buf at offset to host dst after all work enqueued before it; blocking.
 * *touched is set to 1 once any byte of dst was written (a failure then leaves dst mixed). */
int clsort__download(clsort_ctx *ctx, cl_mem buf, size_t offset, void *dst, size_t bytes,
                     int *touched);
/* Waits for the transfers still running (the transfer queue finished), adds their profiled times to the statistics and
 * releases their events. Returns CLSORT_OK or the failure of one of them. */
int clsort__transfer_settle(clsort_ctx *ctx);

/* The overlapped upload (docs/design.md, "Host arrays"): host arrays of the same number of
 * elements (keys, and values for pairs) travel together in chunks on a second in-order queue,
 * the transfer queue, and each chunk is handed to a callback that enqueues work on it (the first
 * tile pass, on the context's queue) behind the chunk's writes. */
typedef struct clsort__upload_part {
    cl_mem buf;                    /* the device buffer, written from offset 0 */
    const void *src;               /* the host array */
    size_t elem;                   /* bytes per element */
} clsort__upload_part;
/* Called once per chunk, in order, with elements [first, first + count) of every part just
 * enqueued: sub[i] is a sub-buffer of parts[i].buf over exactly those elements (valid during the
 * call; an enqueue retains it), and the wait list holds the chunk's write events. */
typedef int (*clsort__chunk_fn)(void *user, size_t first, size_t count, const cl_mem *sub,
                                cl_uint num_wait, const cl_event *wait);
/* Elements per chunk for an overlapped upload of `elems` elements of each part: a multiple of
 * unit (whole tiles, or whole arrays of a batch) whose byte offsets suit sub-buffers
 * (CL_DEVICE_MEM_BASE_ADDR_ALIGN) and which fits a staging slot. 0 when the arrays should not
 * travel in chunks: CLSORT_OVERLAP=0, at most 64 KiB in all, or one chunk would hold them. */
size_t clsort__overlap_chunk(clsort_ctx *ctx, const clsort__upload_part *parts, int nparts,
                             size_t elems, size_t unit);
/* Uploads the parts in chunks of `chunk` elements (from clsort__overlap_chunk) on the transfer
 * queue and calls fn after each chunk's writes were enqueued. The host arrays must stay unchanged
 * until clsort__transfer_settle. Stops at the first failure (of a write or of fn). */
int clsort__upload_overlapped(clsort_ctx *ctx, const clsort__upload_part *parts, int nparts,
                              size_t elems, size_t chunk, clsort__chunk_fn fn, void *user);

/* 1 if the device shares memory with the host, the zero-copy path is not switched off
 * (CLSORT_ZERO_COPY=0), and ptr is aligned so that the device can use it in place. */
int clsort__zero_copy_usable(clsort_ctx *ctx, const void *ptr);
/* A buffer over host memory (CL_MEM_USE_HOST_PTR), for clsort__zero_copy_usable memory. */
int clsort__wrap_host(clsort_ctx *ctx, void *ptr, size_t bytes, cl_mem *out);
/* Makes the device's writes to a wrapped buffer visible in host memory (map, unmap). */
int clsort__sync_wrapped(clsort_ctx *ctx, cl_mem buf, size_t bytes);

#endif /* CLSORT_TRANSFER_H */
