/* transfer.c - host arrays to and from device buffers. Three paths, all on the context's queue:
 *   - arrays inside a clsort_host_alloc block: the driver moves page-locked memory at bus speed,
 *     so they go straight to clEnqueueWrite/ReadBuffer;
 *   - other arrays above SMALL_BYTES: through two halves ("slots") of one pinned staging buffer,
 *     in chunks; several threads copy chunk i + 1 into one slot while the device reads chunk i
 *     from the other (pageable transfers run at a fraction of the bus: the driver stages them
 *     through its own small pinned buffer with one thread);
 *   - small arrays, and any array on a device that shares memory with the host (where the
 *     driver's transfer is a memcpy already): a plain transfer, cheaper than any staging.
 * Devices that share memory with the host can also use host memory in place (wrap_host). */
#include "transfer.h"

#include "parcopy.h"
#include "util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_STAGING ((size_t)64 << 20)
/* Arrays up to this size travel without staging: the copy would not pay for itself. */
#define SMALL_BYTES ((size_t)64 << 10)
/* Chunks: about an eighth of the array, so that copies and transfers overlap, but at least
 * 1 MiB (per-transfer overheads) and at most half the staging. */
#define MIN_CHUNK ((size_t)1 << 20)
#define PAGE ((size_t)4096)

static int shares_memory(clsort_ctx *ctx);

/* A block of page-locked host memory handed out by clsort_host_alloc: a CL_MEM_ALLOC_HOST_PTR
 * buffer, mapped for as long as the block lives. */
typedef struct clsort__pinned_block {
    struct clsort__pinned_block *next;
    cl_mem buf;
    unsigned char *host;           /* the mapping: what clsort_host_alloc returned */
    size_t size;
} clsort__pinned_block;

/* Transfers still running (transfer.c): waited on before their staging slot is reused, and their
 * profiled durations added to the statistics then. */
#define CLSORT__MAX_PENDING 32
typedef struct clsort__staging {
    cl_mem buf;                    /* CL_MEM_ALLOC_HOST_PTR, mapped while it lives; NULL: none */
    unsigned char *host;           /* its mapping */
    size_t size;                   /* bytes of buf (two slots of size / 2) */
    size_t limit;                  /* upper bound on size (CLSORT_STAGING_MAX, device memory) */
    cl_event slot_event[2];        /* the last transfer through each slot, NULL when idle */
    int slot_upload[2];            /* 1: that transfer was an upload, 0: a download */
    cl_event pending[CLSORT__MAX_PENDING]; /* transfers not from staging (pinned, small) */
    int pending_upload[CLSORT__MAX_PENDING];
    int npending;
    cl_command_queue queue;        /* the transfer queue of overlapped uploads (transfer.c), made
                                    * on first use on the context's context and device; NULL: none */
    int unified;                   /* -1 unknown, else CL_DEVICE_HOST_UNIFIED_MEMORY */
} clsort__staging;

/* A context's transfer state (core.h holds only the pointer). */
struct clsort__transfer {
    clsort__pinned_block *pinned;  /* clsort_host_alloc's blocks */
    clsort__staging staging;
};

/* CLSORT_STAGING_MAX: a size (util.h: bytes with an optional K, M, G or T suffix); 0 or
 * garbage: the default. */
static size_t parse_size(const char *s)
{
    uint64_t v = 0;
    if (clsort__parse_size(s, 1, &v) != 0 || v > SIZE_MAX)
        return 0;
    return (size_t)v;
}

int clsort__transfer_init(clsort_ctx *ctx)
{
    ctx->transfer = calloc(1, sizeof *ctx->transfer);
    if (!ctx->transfer)
        return clsort__fail(ctx, CLSORT_ERR_OUT_OF_MEMORY, "out of host memory for the transfer state");
    size_t limit = parse_size(getenv("CLSORT_STAGING_MAX"));
    if (!limit)
        limit = DEFAULT_STAGING;
    /* Never more than an eighth of the device's memory: staging must not crowd the sort out
     * (on shared-memory devices it is the same memory). */
    if (ctx->dev.global_mem && limit > ctx->dev.global_mem / 8)
        limit = (size_t)(ctx->dev.global_mem / 8);
    limit &= ~(2 * PAGE - 1);
    ctx->transfer->staging.limit = limit < 2 * PAGE ? 2 * PAGE : limit;
    ctx->transfer->staging.unified = -1;
    return CLSORT_OK;
}

/* Profiled duration of one finished command, 0 without profiling. */
static uint64_t event_ns(const clsort_ctx *ctx, cl_event ev)
{
    cl_ulong start = 0, end = 0;
    if (!ctx->profiling ||
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL) ||
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL))
        return 0;
    return end > start ? end - start : 0;
}

/* Waits for one transfer, adds its time and releases it; *ev becomes NULL. */
static int finish_event(clsort_ctx *ctx, cl_event *ev, int upload)
{
    if (!*ev)
        return CLSORT_OK;
    int rc = CLSORT_OK;
    cl_int err = clWaitForEvents(1, ev);
    cl_int status = CL_COMPLETE;
    if (err == CL_SUCCESS)
        err = clGetEventInfo(*ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
    if (err == CL_SUCCESS && status < 0)
        err = status;
    if (err != CL_SUCCESS)
        rc = clsort__cl_fail(ctx, err, upload ? "clEnqueueWriteBuffer" : "clEnqueueReadBuffer",
                             "transfer did not complete");
    else if (upload)
        ctx->stats.upload_ns += event_ns(ctx, *ev);
    else
        ctx->stats.download_ns += event_ns(ctx, *ev);
    clReleaseEvent(*ev);
    *ev = NULL;
    return rc;
}

int clsort__transfer_settle(clsort_ctx *ctx)
{
    clsort__staging *st = &ctx->transfer->staging;
    int rc = CLSORT_OK, r;
    /* Overlapped writes whose events were not kept may still read host memory. */
    if (st->queue)
        clFinish(st->queue);
    for (int i = 0; i < 2; ++i)
        if ((r = finish_event(ctx, &st->slot_event[i], st->slot_upload[i])) && !rc)
            rc = r;
    for (int i = 0; i < st->npending; ++i)
        if ((r = finish_event(ctx, &st->pending[i], st->pending_upload[i])) && !rc)
            rc = r;
    st->npending = 0;
    return rc;
}

/* Keeps a direct transfer's event for its time (profiling only). */
static int add_pending(clsort_ctx *ctx, cl_event ev, int upload)
{
    clsort__staging *st = &ctx->transfer->staging;
    int rc = CLSORT_OK;
    if (st->npending == CLSORT__MAX_PENDING) {
        rc = finish_event(ctx, &st->pending[0], st->pending_upload[0]);
        memmove(st->pending, st->pending + 1, (CLSORT__MAX_PENDING - 1) * sizeof *st->pending);
        memmove(st->pending_upload, st->pending_upload + 1,
                (CLSORT__MAX_PENDING - 1) * sizeof *st->pending_upload);
        --st->npending;
    }
    st->pending[st->npending] = ev;
    st->pending_upload[st->npending++] = upload;
    return rc;
}

static void free_staging(clsort_ctx *ctx)
{
    clsort__staging *st = &ctx->transfer->staging;
    if (!st->buf)
        return;
    clEnqueueUnmapMemObject(ctx->queue, st->buf, st->host, 0, NULL, NULL);
    clFinish(ctx->queue);
    clReleaseMemObject(st->buf);
    st->buf = NULL;
    st->host = NULL;
    st->size = 0;
}

/* Room left in the address space for the driver's own allocations around a buffer (its
 * bookkeeping, a kernel compiled at first launch): measured on PoCL under ulimit -v, a probe of
 * the buffer alone passed and the driver then aborted. */
#define DRIVER_MARGIN ((size_t)64 << 20)

static int probe_host_memory(clsort_ctx *ctx, size_t bytes, const char *what)
{
    const size_t want = bytes > SIZE_MAX - DRIVER_MARGIN ? SIZE_MAX : bytes + DRIVER_MARGIN;
    if (clsort__address_space_ok(want))
        return CLSORT_OK;
    return clsort__fail(ctx, CLSORT_ERR_OUT_OF_MEMORY,
                        "out of host memory: %zu bytes for %s (and room for the driver) cannot "
                        "be mapped; a limit such as ulimit -v may be too low",
                        bytes, what);
}

int clsort__check_memory(clsort_ctx *ctx, size_t bytes, const char *what)
{
    return shares_memory(ctx) ? probe_host_memory(ctx, bytes, what) : CLSORT_OK;
}

/* A CL_MEM_ALLOC_HOST_PTR buffer of bytes, mapped: the page-locked memory of staging and
 * clsort_host_alloc alike. */
static int make_pinned(clsort_ctx *ctx, size_t bytes, const char *what, cl_mem *buf,
                       unsigned char **host)
{
    *buf = NULL;
    *host = NULL;
    if (bytes > ctx->dev.max_alloc)
        return clsort__fail(ctx, CLSORT_ERR_OUT_OF_MEMORY,
                            "clCreateBuffer(%zu bytes, %s): larger than CL_DEVICE_MAX_MEM_ALLOC_SIZE "
                            "(%llu bytes) of %s",
                            bytes, what, (unsigned long long)ctx->dev.max_alloc, ctx->dev.name);
    /* Host memory on every device: the driver allocates it at once. */
    const int rc = probe_host_memory(ctx, bytes, what);
    if (rc != CLSORT_OK)
        return rc;
    cl_int err;
    cl_mem m = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL,
                              &err);
    if (err != CL_SUCCESS)
        return clsort__cl_fail(ctx, err, "clCreateBuffer", what);
    void *p = clEnqueueMapBuffer(ctx->queue, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0,
                                 NULL, NULL, &err);
    if (err != CL_SUCCESS || !p) {
        clReleaseMemObject(m);
        return clsort__cl_fail(ctx, err != CL_SUCCESS ? err : CL_MAP_FAILURE, "clEnqueueMapBuffer",
                               what);
    }
    *buf = m;
    *host = p;
    return CLSORT_OK;
}

/* Grows the staging to at least bytes (two slots of bytes / 2), within the bound. */
static int ensure_staging(clsort_ctx *ctx, size_t bytes)
{
    clsort__staging *st = &ctx->transfer->staging;
    if (st->buf && st->size >= bytes)
        return CLSORT_OK;
    int rc = clsort__transfer_settle(ctx);
    free_staging(ctx);
    if (rc)
        return rc;
    CLSORT__CHECK(make_pinned(ctx, bytes, "pinned staging", &st->buf, &st->host));
    st->size = bytes;
    clsort__trace(ctx, "pinned staging: %zu bytes", bytes);
fail:
    return rc;
}

static size_t chunk_for(const clsort_ctx *ctx, size_t bytes)
{
    size_t c = (bytes / 8 + PAGE - 1) & ~(PAGE - 1);
    if (c < MIN_CHUNK)
        c = MIN_CHUNK;
    if (c > ctx->transfer->staging.limit / 2)
        c = ctx->transfer->staging.limit / 2;
    return c;
}

static int transfer_queue(clsort_ctx *ctx, cl_command_queue *q);

int clsort__transfer_reserve(clsort_ctx *ctx, size_t bytes)
{
    if (bytes <= SMALL_BYTES)
        return CLSORT_OK;
    /* Arrays above SMALL_BYTES go up through the transfer queue on every device (the overlapped
     * upload), staged or not. */
    const char *env = getenv("CLSORT_OVERLAP");
    cl_command_queue q;
    int rc = env && !strcmp(env, "0") ? CLSORT_OK : transfer_queue(ctx, &q);
    if (rc != CLSORT_OK || shares_memory(ctx))
        return rc;
    /* The most any transfer of these arrays takes: two slots of chunk_for(all of it) (an
     * overlapped upload's slots hold a chunk of every array, a download's one array's chunk). */
    const size_t need = 2 * chunk_for(ctx, bytes);
    const int had = ctx->transfer->staging.buf && ctx->transfer->staging.size >= need;
    rc = ensure_staging(ctx, need);
    /* A driver may map pages only when first written: write new staging once here. */
    if (rc == CLSORT_OK && !had)
        memset(ctx->transfer->staging.host, 0, ctx->transfer->staging.size);
    return rc;
}

int clsort__in_pinned(const clsort_ctx *ctx, const void *ptr, size_t bytes)
{
    const uintptr_t p = (uintptr_t)ptr;
    for (const clsort__pinned_block *b = ctx->transfer->pinned; b; b = b->next) {
        const uintptr_t h = (uintptr_t)b->host;
        if (p >= h && p - h <= b->size && bytes <= b->size - (p - h))
            return 1;
    }
    return 0;
}

int clsort__upload(clsort_ctx *ctx, cl_mem buf, size_t offset, const void *src, size_t bytes)
{
    int rc = CLSORT_OK;
    cl_int err;
    if (!bytes)
        return CLSORT_OK;
    ctx->stats.upload_bytes += bytes;
    if (bytes <= SMALL_BYTES || clsort__in_pinned(ctx, src, bytes) || shares_memory(ctx)) {
        cl_event ev = NULL;
        err = clEnqueueWriteBuffer(ctx->queue, buf, CL_FALSE, offset, bytes, src, 0, NULL,
                                   ctx->profiling ? &ev : NULL);
        CLSORT__CL_CHECK(ctx, err, "clEnqueueWriteBuffer", "host array");
        return ev ? add_pending(ctx, ev, 1) : CLSORT_OK;
    }
    clsort__staging *st = &ctx->transfer->staging;
    const size_t chunk = chunk_for(ctx, bytes);
    CLSORT__CHECK(ensure_staging(ctx, 2 * chunk));
    const unsigned char *s = src;
    int slot = 0;
    for (size_t off = 0; off < bytes; off += chunk, slot ^= 1) {
        const size_t len = bytes - off < chunk ? bytes - off : chunk;
        CLSORT__CHECK(finish_event(ctx, &st->slot_event[slot], st->slot_upload[slot]));
        unsigned char *dst = st->host + (size_t)slot * chunk;
        const uint64_t t0 = clsort__now_ns();
        clsort__copy_parallel(dst, s + off, len);
        ctx->stats.staging_ns += clsort__now_ns() - t0;
        err = clEnqueueWriteBuffer(ctx->queue, buf, CL_FALSE, offset + off, len, dst, 0, NULL,
                                   &st->slot_event[slot]);
        CLSORT__CL_CHECK(ctx, err, "clEnqueueWriteBuffer", "staged chunk");
        st->slot_upload[slot] = 1;
        /* Start the transfer now, while the next chunk is copied. */
        clFlush(ctx->queue);
    }
fail:
    return rc;
}

/* ---- The overlapped upload ---- */

static size_t gcd_size(size_t a, size_t b)
{
    while (b) {
        const size_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* lcm(a, b), or 0 past limit. */
static size_t lcm_size(size_t a, size_t b, size_t limit)
{
    const size_t m = a / gcd_size(a, b);
    return m > limit / b ? 0 : m * b;
}

/* The array does not sit in a clsort_host_alloc block, nor on a device that shares memory: it
 * goes through the staging slots. */
static int staged(clsort_ctx *ctx, const clsort__upload_part *p, size_t bytes)
{
    return !clsort__in_pinned(ctx, p->src, bytes) && !shares_memory(ctx);
}

size_t clsort__overlap_chunk(clsort_ctx *ctx, const clsort__upload_part *parts, int nparts,
                             size_t elems, size_t unit)
{
    const char *env = getenv("CLSORT_OVERLAP");
    if ((env && !strcmp(env, "0")) || !unit || !elems)
        return 0;
    size_t per = 0, staged_per = 0;
    for (int i = 0; i < nparts; ++i) {
        per += parts[i].elem;
        if (staged(ctx, &parts[i], elems * parts[i].elem))
            staged_per += parts[i].elem;
    }
    if (elems * per <= SMALL_BYTES)
        return 0;
    /* Sub-buffers start at multiples of CL_DEVICE_MEM_BASE_ADDR_ALIGN (bits). */
    const size_t align = ctx->dev.mem_align_bits >= 8 ? ctx->dev.mem_align_bits / 8 : 128;
    size_t u = unit;
    for (int i = 0; i < nparts && u; ++i)
        u = lcm_size(u, align / gcd_size(align, parts[i].elem), elems);
    if (!u || u >= elems)
        return 0;
    /* About an eighth of the arrays (chunk_for), in whole units, within a slot. */
    size_t c = chunk_for(ctx, elems * per) / per / u * u;
    if (!c)
        c = u;
    if (staged_per && c > ctx->transfer->staging.limit / 2 / staged_per)
        return 0;
    return c < elems ? c : 0;
}

/* The transfer queue: an in-order queue of its own on the context's device, so that chunk i + 1
 * travels while the context's queue runs chunk i's tile pass (a copy engine works beside the
 * compute units; one in-order queue would run them one after the other). */
static int transfer_queue(clsort_ctx *ctx, cl_command_queue *q)
{
    clsort__staging *st = &ctx->transfer->staging;
    if (!st->queue) {
        cl_int err;
        st->queue = clCreateCommandQueue(ctx->context, ctx->dev.id,
                                         ctx->profiling ? CL_QUEUE_PROFILING_ENABLE : 0, &err);
        if (err != CL_SUCCESS || !st->queue) {
            st->queue = NULL;
            return clsort__cl_fail(ctx, err != CL_SUCCESS ? err : CL_INVALID_VALUE,
                                   "clCreateCommandQueue", "transfer queue");
        }
    }
    *q = st->queue;
    return CLSORT_OK;
}

int clsort__upload_overlapped(clsort_ctx *ctx, const clsort__upload_part *parts, int nparts,
                              size_t elems, size_t chunk, clsort__chunk_fn fn, void *user)
{
    enum { MAXP = 2 };
    clsort__staging *st = &ctx->transfer->staging;
    int rc = CLSORT_OK, stg[MAXP];
    size_t staged_per = 0;
    cl_mem sub[MAXP] = {NULL, NULL};
    cl_event ev[MAXP] = {NULL, NULL};
    cl_int err;
    cl_command_queue q = NULL;
    if (nparts < 1 || nparts > MAXP || !chunk)
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG, "internal: overlapped upload of %d parts",
                            nparts);
    CLSORT__CHECK(transfer_queue(ctx, &q));
    for (int i = 0; i < nparts; ++i) {
        stg[i] = staged(ctx, &parts[i], elems * parts[i].elem);
        staged_per += stg[i] ? parts[i].elem : 0;
    }
    const size_t slot_bytes = chunk * staged_per;
    if (staged_per)
        CLSORT__CHECK(ensure_staging(ctx, 2 * slot_bytes));
    int slot = 0;
    for (size_t first = 0; first < elems; first += chunk, slot ^= 1) {
        const size_t count = elems - first < chunk ? elems - first : chunk;
        if (staged_per)
            CLSORT__CHECK(finish_event(ctx, &st->slot_event[slot], st->slot_upload[slot]));
        size_t used = 0;
        for (int i = 0; i < nparts; ++i) {
            const size_t off = first * parts[i].elem, len = count * parts[i].elem;
            const cl_buffer_region region = {off, len};
            sub[i] = clCreateSubBuffer(parts[i].buf, CL_MEM_READ_WRITE,
                                       CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
            CLSORT__CL_CHECK(ctx, err, "clCreateSubBuffer", "upload chunk");
            const unsigned char *from = (const unsigned char *)parts[i].src + off;
            if (stg[i]) {
                unsigned char *dst = st->host + (size_t)slot * slot_bytes + used;
                const uint64_t t0 = clsort__now_ns();
                clsort__copy_parallel(dst, from, len);
                ctx->stats.staging_ns += clsort__now_ns() - t0;
                from = dst;
                used += len;
            }
            /* Written through the chunk's sub-buffer: writing the parent while a kernel uses a
             * sub-buffer of it is undefined in OpenCL, disjoint sub-buffers are not. */
            err = clEnqueueWriteBuffer(q, sub[i], CL_FALSE, 0, len, from, 0, NULL, &ev[i]);
            CLSORT__CL_CHECK(ctx, err, "clEnqueueWriteBuffer", "overlapped chunk");
            ctx->stats.upload_bytes += len;
        }
        clFlush(q);
        CLSORT__CHECK(fn(user, first, count, sub, (cl_uint)nparts, ev));
        for (int i = 0; i < nparts; ++i) {
            clReleaseMemObject(sub[i]);
            sub[i] = NULL;
        }
        /* The slot's last write decides when it is free again (the queue is in order); the
         * others are kept for their profiled time, or released. */
        int kept = 0;
        for (int i = nparts - 1; i >= 0; --i) {
            cl_event e = ev[i];
            ev[i] = NULL;
            if (stg[i] && !kept) {
                st->slot_event[slot] = e;
                st->slot_upload[slot] = 1;
                kept = 1;
            } else if (ctx->profiling) {
                CLSORT__CHECK(add_pending(ctx, e, 1));
            } else {
                clReleaseEvent(e);
            }
        }
    }
fail:
    for (int i = 0; i < MAXP; ++i) {
        if (sub[i])
            clReleaseMemObject(sub[i]);
        if (ev[i])
            clReleaseEvent(ev[i]);
    }
    return rc;
}

int clsort__download(clsort_ctx *ctx, cl_mem buf, size_t offset, void *dst, size_t bytes,
                     int *touched)
{
    int rc = CLSORT_OK;
    cl_int err;
    if (!bytes)
        return CLSORT_OK;
    ctx->stats.download_bytes += bytes;
    if (bytes <= SMALL_BYTES || clsort__in_pinned(ctx, dst, bytes) || shares_memory(ctx)) {
        cl_event ev = NULL;
        err = clEnqueueReadBuffer(ctx->queue, buf, CL_TRUE, offset, bytes, dst, 0, NULL,
                                  ctx->profiling ? &ev : NULL);
        CLSORT__CL_CHECK(ctx, err, "clEnqueueReadBuffer", "host array");
        *touched = 1;
        return ev ? finish_event(ctx, &ev, 0) : CLSORT_OK;
    }
    clsort__staging *st = &ctx->transfer->staging;
    const size_t chunk = chunk_for(ctx, bytes);
    CLSORT__CHECK(ensure_staging(ctx, 2 * chunk));
    CLSORT__CHECK(clsort__transfer_settle(ctx));
    unsigned char *d = dst;
    const size_t nchunks = (bytes + chunk - 1) / chunk;
    /* Two reads in flight; chunk k is copied out of its slot while chunk k + 1 travels. */
    for (size_t k = 0; k < nchunks + 1; ++k) {
        if (k < nchunks) {
            const int slot = (int)(k & 1);
            const size_t off = k * chunk, len = bytes - off < chunk ? bytes - off : chunk;
            err = clEnqueueReadBuffer(ctx->queue, buf, CL_FALSE, offset + off, len,
                                      st->host + (size_t)slot * chunk, 0, NULL,
                                      &st->slot_event[slot]);
            CLSORT__CL_CHECK(ctx, err, "clEnqueueReadBuffer", "staged chunk");
            st->slot_upload[slot] = 0;
            clFlush(ctx->queue);
        }
        if (k >= 1) {
            const size_t j = k - 1;
            const int slot = (int)(j & 1);
            const size_t off = j * chunk, len = bytes - off < chunk ? bytes - off : chunk;
            CLSORT__CHECK(finish_event(ctx, &st->slot_event[slot], 0));
            const uint64_t t0 = clsort__now_ns();
            *touched = 1;
            clsort__copy_parallel(d + off, st->host + (size_t)slot * chunk, len);
            ctx->stats.staging_ns += clsort__now_ns() - t0;
        }
    }
fail:
    return rc;
}

void *clsort__pinned_alloc(clsort_ctx *ctx, size_t bytes)
{
    if (!bytes) {
        clsort__fail(ctx, CLSORT_ERR_INVALID_ARG, "clsort_host_alloc: 0 bytes");
        return NULL;
    }
    clsort__pinned_block *b = calloc(1, sizeof *b);
    if (!b) {
        clsort__fail(ctx, CLSORT_ERR_OUT_OF_MEMORY, "clsort_host_alloc: out of host memory");
        return NULL;
    }
    if (make_pinned(ctx, bytes, "clsort_host_alloc", &b->buf, &b->host) != CLSORT_OK) {
        free(b);
        return NULL;
    }
    b->size = bytes;
    b->next = ctx->transfer->pinned;
    ctx->transfer->pinned = b;
    return b->host;
}

static void release_block(clsort_ctx *ctx, clsort__pinned_block *b)
{
    clEnqueueUnmapMemObject(ctx->queue, b->buf, b->host, 0, NULL, NULL);
    clFinish(ctx->queue);
    clReleaseMemObject(b->buf);
    free(b);
}

void clsort__pinned_free(clsort_ctx *ctx, void *ptr)
{
    for (clsort__pinned_block **pp = &ctx->transfer->pinned; *pp; pp = &(*pp)->next) {
        if ((*pp)->host == ptr) {
            clsort__pinned_block *b = *pp;
            *pp = b->next;
            /* Transfers from the block may still be queued. */
            clFinish(ctx->queue);
            clsort__transfer_settle(ctx);
            release_block(ctx, b);
            return;
        }
    }
}

void clsort__transfer_release(clsort_ctx *ctx)
{
    if (!ctx->transfer)
        return;
    if (!ctx->queue) {
        free(ctx->transfer);
        ctx->transfer = NULL;
        return;
    }
    clFinish(ctx->queue);
    clsort__transfer_settle(ctx);
    free_staging(ctx);
    if (ctx->transfer->staging.queue) {
        clReleaseCommandQueue(ctx->transfer->staging.queue);
        ctx->transfer->staging.queue = NULL;
    }
    while (ctx->transfer->pinned) {
        clsort__pinned_block *b = ctx->transfer->pinned;
        ctx->transfer->pinned = b->next;
        release_block(ctx, b);
    }
    free(ctx->transfer);
    ctx->transfer = NULL;
}

/* 1 if the device shares memory with the host and CLSORT_ZERO_COPY=0 does not ask to treat it
 * as a discrete one. There a transfer is a memcpy by the driver: staging would only add one. */
static int shares_memory(clsort_ctx *ctx)
{
    if (ctx->transfer->staging.unified < 0) {
        cl_bool u = CL_FALSE;
        if (clGetDeviceInfo(ctx->dev.id, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof u, &u, NULL))
            u = CL_FALSE;
        ctx->transfer->staging.unified = u == CL_TRUE;
    }
    const char *env = getenv("CLSORT_ZERO_COPY");
    return ctx->transfer->staging.unified && !(env && !strcmp(env, "0"));
}

int clsort__zero_copy_usable(clsort_ctx *ctx, const void *ptr)
{
    /* Opt-in: measured on PoCL (docs/perf.md), the host copy that keeps the header's promise
     * costs more than the driver's two plain transfers it saves. */
    const char *env = getenv("CLSORT_ZERO_COPY");
    if (!shares_memory(ctx) || !env || strcmp(env, "1") != 0)
        return 0;
    /* CL_DEVICE_MEM_BASE_ADDR_ALIGN is in bits; a device may copy unaligned host memory behind
     * the buffer, which would cost more than the transfer it replaces. */
    const size_t align = ctx->dev.mem_align_bits >= 8 ? ctx->dev.mem_align_bits / 8 : 128;
    return ((uintptr_t)ptr % align) == 0;
}

int clsort__wrap_host(clsort_ctx *ctx, void *ptr, size_t bytes, cl_mem *out)
{
    cl_int err;
    *out = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, ptr, &err);
    if (err != CL_SUCCESS) {
        *out = NULL;
        return clsort__cl_fail(ctx, err, "clCreateBuffer", "CL_MEM_USE_HOST_PTR over the host array");
    }
    return CLSORT_OK;
}

int clsort__sync_wrapped(clsort_ctx *ctx, cl_mem buf, size_t bytes)
{
    cl_int err;
    void *p = clEnqueueMapBuffer(ctx->queue, buf, CL_TRUE, CL_MAP_READ, 0, bytes, 0, NULL, NULL,
                                 &err);
    if (err != CL_SUCCESS)
        return clsort__cl_fail(ctx, err, "clEnqueueMapBuffer", "the sorted host array");
    err = clEnqueueUnmapMemObject(ctx->queue, buf, p, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clFinish(ctx->queue);
    if (err != CL_SUCCESS)
        return clsort__cl_fail(ctx, err, "clEnqueueUnmapMemObject", "the sorted host array");
    return CLSORT_OK;
}

size_t clsort__staging_bytes(const clsort_ctx *ctx)
{
    return ctx->transfer ? ctx->transfer->staging.size : 0;
}
