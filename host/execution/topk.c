/* topk.c - enqueues the top-k of kernels/topk.cl (docs/kernels.md, "Top-k"): the schedule of
 * passes for a shape (pure arithmetic), the program's options, the item buffers between passes,
 * and the launches with their events and statistics. */
#include "topk.h"

#include "cache.h"
#include "util.h"

#include <stdlib.h>

#include <string.h>

/* Embedded at build time from the kernels/ sources by mk/embed.c. */
extern const char clsort__src_common[], clsort__src_topk[];
extern const size_t clsort__src_common_len, clsort__src_topk_len;

/* The top-k programs' mark in the context's program list (clsort__program.network): no network,
 * no other program, has a negative number. */
#define TOPK_PROGRAM (-27)

#define GLOBAL_GROUP 256u /* work-items per group of topk_global */
#define TILE_MAX 4096u

/* Mode bits of topk_tile (kernels/topk.cl). */
#define TK_FROM_INPUT 1u
#define TK_SORT 2u
#define TK_MERGE 4u
#define TK_FINAL 8u

static uint64_t next_pow2(uint64_t x)
{
    uint64_t p = 1;
    while (p < x)
        p <<= 1;
    return p;
}

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

/* Index width of the items: 32 bits while every index of a row and the virtual one (all ones)
 * stay apart. */
static int idx_bytes(uint64_t n)
{
    return n <= 0xFFFFFFFFull ? 4 : 8;
}

unsigned clsort__topk_tile(const clsort_ctx *ctx, clsort_type type, size_t item_value_size,
                           uint64_t n)
{
    const int gpu = (ctx->dev.type & CL_DEVICE_TYPE_GPU) != 0;
    /* CPUs hold a tile twice (topk.cl: the halvings write to a second buffer). */
    const size_t item =
        (clsort_type_size(type) + (size_t)idx_bytes(n) + item_value_size) * (gpu ? 1 : 2);
    /* Half the local memory on GPUs, so that two work-groups fit on a compute unit (as the
     * sorts' tiles, docs/design.md); CPUs (PoCL) have plenty and run one group at a time per
     * thread. */
    const uint64_t budget = gpu ? ctx->dev.local_mem / 2 : ctx->dev.local_mem;
    unsigned tile = TILE_MAX;
    while (tile > 2 && (uint64_t)tile * item > budget)
        tile >>= 1;
    /* CLSORT_TOPK_TILE (experiments, read at each call): another tile, if it fits all of the
     * local memory. */
    const char *env = getenv("CLSORT_TOPK_TILE");
    if (env && *env) {
        const unsigned long v = strtoul(env, NULL, 10);
        if (v >= 2 && v <= 65536 && !(v & (v - 1)) && v * item <= ctx->dev.local_mem)
            tile = (unsigned)v;
    }
    return tile;
}

static void set_items(uint64_t *items, uint64_t want)
{
    if (*items < want)
        *items = want;
}

int clsort__topk_schedule(uint64_t n, uint64_t rows, uint64_t k, unsigned T,
                          clsort__topk_emit_fn emit, void *user, uint64_t *items_a,
                          uint64_t *items_b)
{
    const uint64_t K = next_pow2(k);
    *items_a = *items_b = 0;
    clsort__topk_step s;
    int rc;
    if (K <= T / 2) {
        /* The network: each pass halves every tile's blocks to one, until a row fits a tile. */
        uint64_t m = n;
        int from = 0, to = 1;
        unsigned mode = TK_FROM_INPUT | TK_SORT;
        for (;;) {
            const uint64_t N = next_pow2(m);
            const int final = N <= T;
            memset(&s, 0, sizeof s);
            s.tile = 1;
            s.from = from;
            s.P = (unsigned)(final ? N : T);
            s.K = (unsigned)K;
            s.m = m;
            s.tiles_per_row = final ? 1 : ceil_div(m, T);
            s.m_out = s.tiles_per_row * K;
            s.groups = final ? ceil_div(rows, T / s.P) : rows * s.tiles_per_row;
            s.mode = mode | (final ? TK_FINAL : 0);
            s.to = final ? 3 : to;
            if (!final)
                set_items(to == 1 ? items_a : items_b, rows * s.m_out);
            if ((rc = emit(&s, user)) != CLSORT_OK)
                return rc;
            if (final)
                return CLSORT_OK;
            m = s.m_out;
            from = to;
            to = to == 1 ? 2 : 1;
            mode = 0; /* the items come in sorted blocks of K */
        }
    }
    /* k above the network's reach: a bitonic sort of each row padded to N, with the same
     * comparator (so stable), tiles of T in local memory and the wider levels in global memory;
     * the first k of each row go out. */
    const uint64_t N = next_pow2(n);
    memset(&s, 0, sizeof s);
    s.tile = 1;
    s.from = 0;
    s.m = n;
    if (N <= T) {
        s.to = 3;
        s.P = s.K = (unsigned)N;
        s.tiles_per_row = 1;
        s.m_out = N;
        s.groups = ceil_div(rows, T / N);
        s.mode = TK_FROM_INPUT | TK_SORT | TK_FINAL;
        return emit(&s, user);
    }
    s.to = 1;
    s.P = s.K = T;
    s.tiles_per_row = N / T;
    s.m_out = N;
    s.groups = rows * s.tiles_per_row;
    s.mode = TK_FROM_INPUT | TK_SORT;
    *items_a = rows * N;
    if ((rc = emit(&s, user)) != CLSORT_OK)
        return rc;
    for (uint64_t sz = 2 * (uint64_t)T; sz <= N; sz <<= 1) {
        for (uint64_t j = sz / 2; j >= T; j >>= 1) {
            memset(&s, 0, sizeof s);
            s.from = s.to = 1;
            s.m = N;
            s.sz = sz;
            s.j = j;
            if ((rc = emit(&s, user)) != CLSORT_OK)
                return rc;
        }
        memset(&s, 0, sizeof s);
        s.tile = 1;
        s.from = 1;
        s.to = sz == N ? 3 : 1;
        s.P = s.K = T;
        s.m = s.m_out = N;
        s.tiles_per_row = N / T;
        s.groups = rows * s.tiles_per_row;
        s.mode = TK_MERGE | (sz == N ? TK_FINAL : 0);
        if ((rc = emit(&s, user)) != CLSORT_OK)
            return rc;
    }
    return CLSORT_OK;
}

/* One top-k being enqueued. */
typedef struct topk_run {
    clsort_ctx *ctx;
    const clsort__topk_job *job;
    clsort__program *prog;
    unsigned wg;
    cl_uint xf;
    cl_mem items[3][3];            /* [1], [2]: keys, indices, values of the item buffers */
    cl_event first, last;
    int want_events;
    unsigned launches;
} topk_run;

static int set_arg(clsort_ctx *ctx, cl_kernel kern, cl_uint i, size_t size, const void *v,
                   const char *name)
{
    const cl_int err = clSetKernelArg(kern, i, size, v);
    return err == CL_SUCCESS ? CLSORT_OK : clsort__cl_fail(ctx, err, "clSetKernelArg", name);
}

static int launch(topk_run *r, cl_kernel kern, const char *name, size_t global, size_t local,
                  unsigned a0, unsigned a1)
{
    clsort_ctx *ctx = r->ctx;
    cl_event ev = NULL;
    const int first = !r->launches;
    const cl_int err = clEnqueueNDRangeKernel(ctx->queue, kern, 1, NULL, &global, &local,
                                              first ? r->job->num_wait : 0,
                                              first ? r->job->wait : NULL,
                                              r->want_events ? &ev : NULL);
    if (err != CL_SUCCESS)
        return clsort__cl_fail(ctx, err, "clEnqueueNDRangeKernel", name);
    if (ev && ctx->debug >= 2 && ctx->profiling) {
        /* The same trace line as run.c, so tests/test_oblivious.c reads all of them. */
        clWaitForEvents(1, &ev);
        cl_ulong s = 0, e = 0;
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof s, &s, NULL);
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof e, &e, NULL);
        clsort__trace(ctx, "  %-20s items %-10llu args %u,%u  %8.1f us", name,
                      (unsigned long long)global, a0, a1, e > s ? (e - s) / 1e3 : 0.0);
    }
    if (ev) {
        if (!r->first)
            r->first = ev;
        else if (r->last && r->last != r->first)
            clReleaseEvent(r->last);
        r->last = ev;
    }
    ++r->launches;
    return CLSORT_OK;
}

/* Builds (or finds) the top-k program for these -D options: common.cl and topk.cl, through the
 * disk cache like every program (cache.c), kept on the context's program list under its own mark
 * until clsort_destroy. The top-k kernels take argument lists of their own, so they keep their
 * build and launch code here, as the segmented sort once did. */
static int get_program(clsort_ctx *ctx, const char *build_options, clsort__program **out)
{
    char options[1024];
    snprintf(options, sizeof options, "%s", build_options);
    const char *extra = getenv("CLSORT_BUILD_OPTIONS"); /* fault injection and experiments */
    if (extra && *extra) {
        strncat(options, " ", sizeof options - strlen(options) - 1);
        strncat(options, extra, sizeof options - strlen(options) - 1);
    }
    for (clsort__program *q = ctx->programs; q; q = q->next)
        if (q->network == TOPK_PROGRAM && !strcmp(q->options, options)) {
            *out = q;
            return CLSORT_OK;
        }
    int rc = CLSORT_OK;
    cl_int err;
    cl_program prog = NULL;
    const uint64_t t0 = clsort__now_ns();
    size_t len = clsort__src_common_len + 1 + clsort__src_topk_len + 1;
    char *src = malloc(len + 1);
    clsort__program *q = calloc(1, sizeof *q);
    char *opt = malloc(strlen(options) + 1);
    if (!src || !q || !opt) {
        rc = clsort__fail(ctx, CLSORT_ERR_OUT_OF_MEMORY, "out of host memory building a program");
        goto fail;
    }
    strcpy(opt, options);
    memcpy(src, clsort__src_common, clsort__src_common_len);
    src[clsort__src_common_len] = '\n';
    memcpy(src + clsort__src_common_len + 1, clsort__src_topk, clsort__src_topk_len);
    src[len - 1] = '\n';
    src[len] = 0;
    prog = clsort__cache_load(ctx, src, len, options);
    if (!prog) {
        const char *s = src;
        prog = clCreateProgramWithSource(ctx->context, 1, &s, &len, &err);
        CLSORT__CL_CHECK(ctx, err, "clCreateProgramWithSource", "top-k");
        err = clBuildProgram(prog, 1, &ctx->dev.id, options, NULL, NULL);
        clsort__trace(ctx, "built program in %.1f ms: %s", (clsort__now_ns() - t0) / 1e6,
                      options);
        if (err != CL_SUCCESS) {
            rc = clsort__cl_fail(ctx, err, "clBuildProgram", "top-k");
            if (rc != CLSORT_ERR_OUT_OF_MEMORY)
                rc = CLSORT_ERR_BUILD;
            clsort__append_error(ctx, "\nbuild options: ");
            clsort__append_error(ctx, options);
            size_t log_size = 0;
            clGetProgramBuildInfo(prog, ctx->dev.id, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_size);
            char *log = log_size ? malloc(log_size + 1) : NULL;
            if (log && clGetProgramBuildInfo(prog, ctx->dev.id, CL_PROGRAM_BUILD_LOG, log_size,
                                             log, NULL) == CL_SUCCESS) {
                log[log_size] = 0;
                clsort__append_error(ctx, "\nbuild log:\n");
                clsort__append_error(ctx, log);
            }
            free(log);
            goto fail;
        }
        clsort__cache_store(ctx, prog, src, len, options);
    }
    free(src);
    q->program = prog;
    q->options = opt;
    q->network = TOPK_PROGRAM;
    q->index_bits = 64;
    q->next = ctx->programs;
    ctx->programs = q;
    ctx->stats.build_ns += clsort__now_ns() - t0;
    *out = q;
    return CLSORT_OK;
fail:
    if (prog)
        clReleaseProgram(prog);
    free(src);
    free(q);
    free(opt);
    ctx->stats.build_ns += clsort__now_ns() - t0;
    return rc;
}

/* The program's kernel of that name, created on first use and kept with the program (the same
 * bookkeeping as clsort__get_kernel, by name: the top-k kernels are not in the sorts' tables). */
static int get_kernel(clsort_ctx *ctx, clsort__program *prog, const char *name, cl_kernel *out,
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
    cl_kernel kern = clCreateKernel(prog->program, name, &err);
    if (err != CL_SUCCESS)
        return clsort__cl_fail(ctx, err, "clCreateKernel", name);
    size_t wg = 0;
    err = clGetKernelWorkGroupInfo(kern, ctx->dev.id, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg,
                                   NULL);
    if (err != CL_SUCCESS) {
        clReleaseKernel(kern);
        return clsort__cl_fail(ctx, err, "clGetKernelWorkGroupInfo", name);
    }
    prog->kernels[prog->nkernels].name = name; /* string literals of this file */
    prog->kernels[prog->nkernels].kernel = kern;
    prog->kernels[prog->nkernels].max_wg = wg;
    ++prog->nkernels;
    *out = kern;
    *max_wg = wg;
    return CLSORT_OK;
}

static unsigned log2_of(uint64_t x)
{
    unsigned l = 0;
    while (x > 1) {
        x >>= 1;
        ++l;
    }
    return l;
}

static int run_step(const clsort__topk_step *s, void *user)
{
    topk_run *r = user;
    clsort_ctx *ctx = r->ctx;
    const clsort__topk_job *job = r->job;
    const cl_mem none = NULL;
    cl_kernel kern;
    size_t kmax;
    int rc;
    if (!s->tile) {
        static const char name[] = "topk_global";
        if ((rc = get_kernel(ctx, r->prog, name, &kern, &kmax)) != CLSORT_OK)
            return rc;
        const cl_ulong m = s->m, rows = job->rows, sz = s->sz, j = s->j;
        cl_uint a = 0;
        for (int i = 0; i < 3 && rc == CLSORT_OK; ++i)
            rc = set_arg(ctx, kern, a++, sizeof(cl_mem), r->items[1][i] ? &r->items[1][i] : &none,
                         name);
        const cl_ulong u[4] = {m, rows, sz, j};
        for (int i = 0; i < 4 && rc == CLSORT_OK; ++i)
            rc = set_arg(ctx, kern, a++, sizeof u[i], &u[i], name);
        if (rc != CLSORT_OK)
            return rc;
        size_t local = GLOBAL_GROUP;
        while (local > kmax)
            local >>= 1;
        const uint64_t items = job->rows * (s->m / 2);
        const size_t global = (size_t)((items + local - 1) / local * local);
        return launch(r, kern, name, global, local, log2_of(s->sz), log2_of(s->j));
    }
    static const char name[] = "topk_tile";
    if ((rc = get_kernel(ctx, r->prog, name, &kern, &kmax)) != CLSORT_OK)
        return rc;
    if (kmax < r->wg)
        return clsort__fail(ctx, CLSORT_ERR_UNSUPPORTED,
                            "kernel %s allows %zu work-items per group (CL_KERNEL_WORK_GROUP_SIZE), "
                            "fewer than TK_WG=%u",
                            name, kmax, r->wg);
    /* Arguments: keys, vals, ik, ii, iv, ok, oi, ov, out_keys, out_vals, then the sizes. */
    const cl_mem *in = s->from == 0 ? NULL : r->items[s->from];
    const cl_mem *out = s->to == 3 ? NULL : r->items[s->to];
    const cl_mem bufs[10] = {s->from == 0 ? job->keys : NULL,
                             s->from == 0 ? job->vals : NULL,
                             in ? in[0] : NULL,
                             in ? in[1] : NULL,
                             in ? in[2] : NULL,
                             out ? out[0] : NULL,
                             out ? out[1] : NULL,
                             out ? out[2] : NULL,
                             s->to == 3 ? job->out_keys : NULL,
                             s->to == 3 ? job->out_vals : NULL};
    cl_uint a = 0;
    rc = CLSORT_OK;
    for (int i = 0; i < 10 && rc == CLSORT_OK; ++i)
        rc = set_arg(ctx, kern, a++, sizeof(cl_mem), bufs[i] ? &bufs[i] : &none, name);
    const cl_ulong u[5] = {s->m, job->rows, s->m_out, job->k, s->tiles_per_row};
    for (int i = 0; i < 5 && rc == CLSORT_OK; ++i)
        rc = set_arg(ctx, kern, a++, sizeof u[i], &u[i], name);
    const cl_uint w[4] = {r->xf, s->P, s->K, s->mode};
    for (int i = 0; i < 4 && rc == CLSORT_OK; ++i)
        rc = set_arg(ctx, kern, a++, sizeof w[i], &w[i], name);
    if (rc != CLSORT_OK)
        return rc;
    return launch(r, kern, name, (size_t)s->groups * r->wg, r->wg, s->K, s->mode);
}

/* Counts what the schedule needs without enqueueing anything. */
static int count_step(const clsort__topk_step *s, void *user)
{
    (void)s;
    ++*(unsigned *)user;
    return CLSORT_OK;
}

int clsort__topk_enqueue(clsort_ctx *ctx, const clsort__topk_job *job)
{
    int rc = CLSORT_OK;
    topk_run r;
    memset(&r, 0, sizeof r);
    r.ctx = ctx;
    r.job = job;
    r.want_events = job->done != NULL || ctx->profiling;
    const size_t ks = clsort_type_size(job->type);
    const size_t item_vs = job->vals ? job->value_size : 0;
    const int ib = idx_bytes(job->n);
    const unsigned T = clsort__topk_tile(ctx, job->type, item_vs, job->n);
    const int gpu = (ctx->dev.type & CL_DEVICE_TYPE_GPU) != 0;
    /* GPUs: enough lanes for a level's T/2 comparators a few at a time. CPUs: one work-item a
     * tile, so that no barrier splits the levels into loops over work-items (PoCL runs a group's
     * work-items in one thread); measured on PoCL at 2^20 keys against 16, 64 and 256 work-items
     * and tiles of 1024 (docs/bench/topk-pocl-2026-11-24.md). */
    unsigned wg = gpu ? 256 : 1;
    /* CLSORT_TOPK_WG (tests, experiments): another group size, e.g. the GPUs' round-robin
     * shape on PoCL (tests/test_topk.c), read at each call. */
    const char *env_wg = getenv("CLSORT_TOPK_WG");
    if (env_wg && *env_wg) {
        const unsigned long v = strtoul(env_wg, NULL, 10);
        if (v >= 1 && v <= 1024 && !(v & (v - 1)))
            wg = (unsigned)v;
    }
    while (wg > 1 && (wg > T / 2 || wg > ctx->dev.max_wg))
        wg >>= 1;
    r.wg = wg;
    r.xf = (job->type == CLSORT_I32 || job->type == CLSORT_I64 ? 1u : 0u) |
           (job->type == CLSORT_F32 || job->type == CLSORT_F64 ? 2u : 0u) |
           (job->flags & CLSORT_DESCENDING ? 4u : 0u);
    const int out_kind = !job->out_vals ? 0 : job->vals ? 1 : (int)job->value_size;
    char options[512];
    snprintf(options, sizeof options,
             "-DCLSORT_TOPK=1 -DKEY_BITS=%d -DVAL_BYTES=%zu -DTK_OUT=%d -DTK_IDX_BITS=%d "
             "-DTK_TILE=%u -DTK_WG=%u",
             (int)ks * 8, item_vs, out_kind, ib * 8, T, wg);
    CLSORT__CHECK(get_program(ctx, options, &r.prog));

    uint64_t items[3] = {0, 0, 0};
    unsigned steps = 0;
    CLSORT__CHECK(clsort__topk_schedule(job->n, job->rows, job->k, T, count_step, &steps,
                                        &items[1], &items[2]));
    /* The item buffers live for this call only: released below, and freed by OpenCL once the
     * launches that use them have completed, so a _buffer call holds nothing afterwards. */
    const size_t sizes[3] = {ks, (size_t)ib, item_vs};
    for (int b = 1; b <= 2; ++b)
        for (int i = 0; i < 3; ++i) {
            if (!items[b] || !sizes[i])
                continue;
            if (items[b] > ctx->dev.max_alloc / sizes[i]) {
                rc = clsort__fail(ctx, CLSORT_ERR_OUT_OF_MEMORY,
                                  "clsort_topk: %llu items of %zu bytes exceed "
                                  "CL_DEVICE_MAX_MEM_ALLOC_SIZE of %s",
                                  (unsigned long long)items[b], sizes[i], ctx->dev.name);
                goto fail;
            }
            cl_int err;
            r.items[b][i] = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE,
                                           (size_t)items[b] * sizes[i], NULL, &err);
            CLSORT__CL_CHECK(ctx, err, "clCreateBuffer", "top-k items");
        }
    CLSORT__CHECK(clsort__topk_schedule(job->n, job->rows, job->k, T, run_step, &r, &items[1],
                                        &items[2]));
    clsort__trace(ctx, "topk n=%llu rows=%llu k=%llu: %u launches (tile %u, wg %u, %s)",
                  (unsigned long long)job->n, (unsigned long long)job->rows,
                  (unsigned long long)job->k, r.launches, T, wg,
                  next_pow2(job->k) <= T / 2 ? "network" : "full sort");
    ctx->stats.algorithm = CLSORT_BITONIC;
    ctx->stats.launches = r.launches;
    ctx->stats.global_passes = r.launches;
    if (job->done) {
        *job->done = r.last;
        if (r.last)
            clRetainEvent(r.last);
    }
    if (ctx->profiling && r.first) {
        if (ctx->stat_first)
            clReleaseEvent(ctx->stat_first);
        if (ctx->stat_last)
            clReleaseEvent(ctx->stat_last);
        ctx->stat_first = r.first;
        ctx->stat_last = r.last;
        if (r.first == r.last)
            clRetainEvent(r.last);
        r.first = r.last = NULL;
    }
fail:
    for (int b = 1; b <= 2; ++b)
        for (int i = 0; i < 3; ++i)
            if (r.items[b][i])
                clReleaseMemObject(r.items[b][i]);
    if (r.first)
        clReleaseEvent(r.first);
    if (r.last && r.last != r.first)
        clReleaseEvent(r.last);
    return rc;
}
