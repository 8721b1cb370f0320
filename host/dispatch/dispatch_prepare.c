/* dispatch_prepare.c - clsort_prepare and clsort_prepare_sort once their kind is checked
 * (dispatch.h): what the sorts of up to max_n keys (or the one sort of max_n keys) will run
 * (narrow composites, positions of stable sorts, the radix sort where AUTO takes it), the
 * programs and kernels of every plan in the size range (or of that one plan), the scratch
 * buffers reserved and touched, and each kernel launched once. */
#include "dispatch.h"

#include "dispatch_path.h"
#include "kernels.h"
#include "keytype.h"
#include "params.h"
#include "plan.h"
#include "program.h"
#include "run.h"
#include "schedule.h"
#include "scratch.h"
#include "transfer.h"
#include "util.h"

#include <string.h>

/* Creates the kernel of each step of a schedule (an emit function over the program). */
typedef struct prep_kernels {
    clsort_ctx *ctx;
    clsort__program *prog;
} prep_kernels;

static int make_kernel(const clsort__step *step, void *user)
{
    prep_kernels *pk = user;
    cl_kernel k;
    size_t wg;
    return clsort__get_kernel(pk->ctx, pk->prog, clsort__kernels[step->kernel].name, &k, &wg);
}

/* The program and kernels a sort of n keys with algo (AUTO or not) would use; narrow: with the
 * widening and narrowing steps of narrow keys (of any width: the kernels are the same). */
static int prepare_size(clsort_ctx *ctx, uint64_t n, clsort_type type, clsort_algorithm algo,
                        unsigned flags, size_t value_size, int narrow)
{
    clsort__plan plan;
    clsort__plan_sort(ctx, n, 1, type, algo, flags, value_size, &plan);
    if (plan.empty)
        return CLSORT_OK;
    if (narrow)
        clsort__plan_narrow(&plan, (unsigned)narrow, 0);
    prep_kernels pk = {ctx, NULL};
    int rc = clsort__get_program(ctx, plan.program, plan.index_bits, plan.options, &pk.prog);
    if (rc == CLSORT_OK)
        rc = clsort__schedule(&plan, make_kernel, &pk);
    return rc;
}

#define MAX_PREP_SIZES (2 * (CLSORT__MAX_AUTO_RULES + CLSORT__NETWORKS * CLSORT__MAX_SIZE_RANGES) + 4)

static void add_size(uint64_t *sizes, int *nsizes, uint64_t n, uint64_t lo, uint64_t hi)
{
    if (n >= lo && n <= hi && *nsizes < MAX_PREP_SIZES)
        sizes[(*nsizes)++] = n;
}

/* Builds what every sort of lo..hi keys needs. What a plan holds (network, parameters, index
 * width) changes only where an AUTO rule or a size range of the config ends, and the index width
 * only once, upwards, between two such ends: the first and last size of every stretch between
 * ends cover every program. */
static int prepare_programs(clsort_ctx *ctx, uint64_t lo, uint64_t hi, clsort_type type,
                            unsigned flags, size_t value_size, int narrow)
{
    uint64_t sizes[MAX_PREP_SIZES];
    int nsizes = 0;
    /* The largest first: a caller's first sort is usually of max_n keys (a tool's first run),
     * and a failure to build it shows before the others are paid for. */
    add_size(sizes, &nsizes, hi, lo, hi);
    add_size(sizes, &nsizes, lo, lo, hi);
    for (int i = 0; i < ctx->nauto_rules; ++i) {
        const uint64_t m = ctx->auto_rules[i].max_n;
        add_size(sizes, &nsizes, m, lo, hi);
        if (m < UINT64_MAX)
            add_size(sizes, &nsizes, m + 1, lo, hi);
    }
    /* Where AUTO turns to the radix sort. */
    const uint64_t radix_min = clsort__radix_min_n(ctx, type, value_size);
    if (radix_min < UINT64_MAX) {
        add_size(sizes, &nsizes, radix_min, lo, hi);
        if (radix_min > 0)
            add_size(sizes, &nsizes, radix_min - 1, lo, hi);
    }
    const int width = clsort__width_index(type), valkind = clsort__valkind_index(value_size);
    for (int net = 0; net < CLSORT__NETWORKS; ++net)
        for (int i = 0; i < ctx->nranges[net][width][valkind]; ++i) {
            const uint64_t m = ctx->ranges[net][width][valkind][i].max_n;
            add_size(sizes, &nsizes, m, lo, hi);
            if (m < UINT64_MAX)
                add_size(sizes, &nsizes, m + 1, lo, hi);
        }
    int rc = CLSORT_OK;
    for (int i = 0; i < nsizes && rc == CLSORT_OK; ++i) {
        /* AUTO's host path (a CPU device) needs no program at that size. */
        if ((flags & CLSORT_NO_HOST_FALLBACK) || sizes[i] > ctx->host_path_max)
            rc = prepare_size(ctx, sizes[i], type, CLSORT_AUTO, flags, value_size, narrow);
        if (rc == CLSORT_OK)
            rc = prepare_size(ctx, sizes[i], type, CLSORT_BITONIC, flags, value_size, narrow);
    }
    return rc;
}

/* How much of a scratch buffer reserve_scratch fills: its first GiB at most, at offset 0. Filling
 * it is what makes drivers that allocate at first use (NVIDIA's) allocate it here, where a
 * failure can be reported, and touching it anywhere does that; the contents do not matter (the
 * warm-up passes below run on whatever it holds). NVIDIA's OpenCL driver (580.159.04, H200) got
 * larger fills wrong: one clEnqueueFillBuffer of exactly 2^31 bytes with a one-byte pattern never
 * finished (clsort_prepare of 2^29 u32 keys and `clsort -S 2G` spun a core, 2026-11-26), and
 * 16 GiB in pieces of 1 GiB (clsort_prepare of 2^32 u32 keys, which `clsort` calls for a 16 GiB
 * file) failed after 10 s with CL_INVALID_COMMAND_QUEUE and left the queue unusable, while a sort
 * of the same 2^32 keys without clsort_prepare ran (2026-11-27). Fills of 1 GiB at offset 0
 * worked in every case seen. */
#define FILL_FIRST ((size_t)1 << 30)

/* Makes sure scratch buffer i holds bytes and that the device really allocated it: drivers
 * allocate on first use, where an allocation failure would otherwise show. */
static int reserve_scratch(clsort_ctx *ctx, int i, size_t bytes)
{
    const int had = ctx->scratch[i] && ctx->scratch_size[i] >= bytes;
    int rc = had ? CLSORT_OK : clsort__check_memory(ctx, bytes, "clsort_prepare's buffers");
    if (rc == CLSORT_OK)
        rc = clsort__ensure_scratch(ctx, i, bytes);
    if (rc != CLSORT_OK || had || !bytes)
        return rc;
    const cl_uchar zero = 0;
    cl_int err = clEnqueueFillBuffer(ctx->queue, ctx->scratch[i], &zero, sizeof zero, 0,
                                     bytes < FILL_FIRST ? bytes : FILL_FIRST, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clFinish(ctx->queue);
    return err == CL_SUCCESS ? CLSORT_OK : clsort__cl_fail(ctx, err, "clEnqueueFillBuffer", "scratch");
}

/* The first launch of each kernel of a schedule, passed on to the run; the later launches of
 * the same kernel are left out. Kernels are told apart by the step's kernel field. */
typedef struct first_launches {
    clsort__run *run;
    clsort__step seen[CLSORT__MAX_KERNELS];
    int nseen;
} first_launches;

static int first_launch_only(const clsort__step *step, void *user)
{
    first_launches *fl = user;
    for (int i = 0; i < fl->nseen; ++i)
        if (!memcmp(&fl->seen[i].kernel, &step->kernel, sizeof step->kernel))
            return CLSORT_OK;
    if (fl->nseen < CLSORT__MAX_KERNELS)
        fl->seen[fl->nseen++] = *step;
    return clsort__run_step(step, fl->run);
}

/* Launches each kernel of the plan a first sort of max_n would use once, on the reserved
 * buffers (whatever they hold: any pass of a network over any keys is safe):
 * drivers set a kernel up at its first launch (measured on PoCL: 4-8 ms over the 76 launches of
 * 2^20 keys), which would otherwise land in that sort. Once per kernel rather than the whole
 * schedule: a handful of passes instead of a whole sort (the CLI prepares while it reads, and on
 * a CPU a sort of max_n would cost seconds). The statistics of these launches are dropped. */
static int warm_up(clsort_ctx *ctx, size_t n, clsort_type type, size_t vs, clsort_algorithm algo)
{
    clsort__plan plan;
    int rc = clsort__resolve_device_algo(ctx, n, 1, type, vs, 0, &algo);
    if (rc != CLSORT_OK)
        return rc;
    clsort__plan_sort(ctx, n, 1, type, algo, 0, vs, &plan);
    clsort__run run;
    first_launches fl;
    memset(&fl, 0, sizeof fl);
    fl.run = &run;
    rc = clsort__run_begin(ctx, &plan, ctx->scratch[0], vs ? ctx->scratch[1] : NULL, 0, NULL,
                               NULL, NULL, &run);
    if (rc == CLSORT_OK && !plan.empty)
        rc = clsort__schedule(&plan, first_launch_only, &fl);
    rc = clsort__run_end(&run, rc);
    const cl_int err = clFinish(ctx->queue);
    if (rc == CLSORT_OK && err != CL_SUCCESS)
        rc = clsort__cl_fail(ctx, err, "clFinish", "clsort_prepare's first launches");
    const uint64_t build_ns = ctx->stats.build_ns;
    const unsigned compiled = ctx->stats.programs_compiled;
    clsort__reset_stats(ctx);
    ctx->stats.build_ns = build_ns;
    ctx->stats.programs_compiled = compiled;
    return rc;
}

int clsort__dispatch_prepare(clsort_ctx *ctx, clsort_type type, size_t value_size, size_t max_n,
                             unsigned flags, int one_sort, clsort_algorithm algo)
{
    if (!one_sort)
        algo = CLSORT_AUTO;
    int rc = CLSORT_OK;
    /* What the sorts run on the device (dispatch_narrow.c): narrow keys as 32-bit composites,
     * or 64-bit ones with their positions where stable; keys that CLSORT_NAN_LARGEST makes equal
     * with their positions where stable. */
    int narrow = 0; /* the narrow keys' bits where widened on the device (dispatch_narrow.c) */
    if (clsort__type_narrow(type)) {
        const int pos = (flags & CLSORT_STABLE) &&
                        (value_size || clsort__type_collapses(type, flags));
        narrow = pos ? 0 : (int)clsort__keytype_of(type).bits;
        type = pos ? CLSORT_U64 : CLSORT_U32;
        flags &= CLSORT_NO_HOST_FALLBACK;
    } else if ((flags & CLSORT_STABLE) && clsort__type_collapses(type, flags) && !value_size) {
        value_size = 8;
    }
    /* Stable pairs sort the keys with their 8-byte positions (dispatch_stable.c), unless AUTO gives
     * them to the radix sort, which is stable with the values as they are. */
    const int radix_stable = !narrow && value_size && (flags & CLSORT_STABLE) &&
                             (algo == CLSORT_RADIX ||
                              (algo == CLSORT_AUTO &&
                               clsort__auto_choice(ctx, max_n, 1, type, value_size, 1) ==
                                   CLSORT_RADIX));
    const size_t vs = value_size && (flags & CLSORT_STABLE) && !radix_stable ? 8 : value_size;
    if (max_n > SIZE_MAX / (clsort_type_size(type) + vs))
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG,
                            "clsort_prepare: max_n = %zu keys of %zu bytes (and values of %zu) "
                            "cannot be addressed",
                            max_n, clsort_type_size(type), vs);
    const uint64_t t0 = clsort__now_ns();
    clsort__reset_stats(ctx);
    /* Sizes the host fallback takes need nothing from the device. */
    int device = (flags & CLSORT_NO_HOST_FALLBACK) || max_n > ctx->host_fallback_max;
    /* One sort that AUTO gives to the host's own sort needs nothing from the device either. */
    const int host_path = !(flags & CLSORT_NO_HOST_FALLBACK) && max_n <= ctx->host_path_max;
    if (one_sort && algo == CLSORT_AUTO && host_path)
        device = 0;
    /* What a sort of max_n keys runs on the device (AUTO resolved as the sort resolves it). */
    const clsort_algorithm chosen =
        algo == CLSORT_AUTO ? clsort__auto_choice(ctx, max_n, 1, type, vs, radix_stable) : algo;
    if (max_n >= 2 && device) {
        const size_t ks = clsort_type_size(type);
        const uint64_t lo = (flags & CLSORT_NO_HOST_FALLBACK) ? 2 : ctx->host_fallback_max + 1;
        const size_t kbytes = max_n * ks, vbytes = max_n * vs;
        /* Before any build: a size no buffer can hold fails at once. */
        if (kbytes > ctx->dev.max_alloc || vbytes > ctx->dev.max_alloc)
            CLSORT__CHECK(clsort__fail(
                ctx, CLSORT_ERR_OUT_OF_MEMORY,
                "clsort_prepare: %zu keys need %zu bytes in one buffer, more than "
                "CL_DEVICE_MAX_MEM_ALLOC_SIZE (%llu bytes) of %s",
                max_n, kbytes > vbytes ? kbytes : vbytes, (unsigned long long)ctx->dev.max_alloc,
                ctx->dev.name));
        const unsigned pflags = radix_stable ? flags : flags & ~CLSORT_STABLE;
        if (one_sort)
            CLSORT__CHECK(prepare_size(ctx, max_n, type, algo, pflags, vs, narrow));
        else
            CLSORT__CHECK(prepare_programs(ctx, lo < 2 ? 2 : lo, max_n, type, pflags, vs, narrow));
        CLSORT__CHECK(reserve_scratch(ctx, 0, kbytes));
        if (narrow)
            CLSORT__CHECK(reserve_scratch(ctx, CLSORT__SCRATCH_COMPOSED, kbytes));
        if (vs)
            CLSORT__CHECK(reserve_scratch(ctx, 1, vbytes));
        CLSORT__CHECK(clsort__transfer_reserve(ctx, kbytes + vbytes));
        /* Where the sort of max_n is the radix sort, its second buffers and digit counts too. */
        if (chosen == CLSORT_RADIX) {
            clsort__plan rp;
            clsort__plan_sort(ctx, max_n, 1, type, CLSORT_RADIX, 0, vs, &rp);
            if (narrow)
                clsort__plan_narrow(&rp, (unsigned)narrow, 0);
            CLSORT__CHECK(clsort__run_reserve_radix(ctx, &rp));
        }
        if (one_sort)
            CLSORT__CHECK(warm_up(ctx, max_n, type, vs, algo));
        else {
            if (!host_path && clsort__auto_choice(ctx, max_n, 1, type, vs, 0) != CLSORT_BITONIC)
                CLSORT__CHECK(warm_up(ctx, max_n, type, vs, CLSORT_AUTO));
            CLSORT__CHECK(warm_up(ctx, max_n, type, vs, CLSORT_BITONIC));
        }
    }
fail:
    if (rc == CLSORT_ERR_OUT_OF_MEMORY) {
        /* A buffer the driver could not back would fail every later sort that reuses it. */
        for (int i = 0; i < CLSORT__NSCRATCH; ++i)
            if (ctx->scratch[i] && (i < 2 || i == CLSORT__SCRATCH_COMPOSED)) {
                clReleaseMemObject(ctx->scratch[i]);
                ctx->scratch[i] = NULL;
                ctx->scratch_size[i] = 0;
            }
    }
    ctx->stats.total_ns = clsort__now_ns() - t0;
    ctx->stats.pinned_bytes = clsort__staging_bytes(ctx);
    return rc;
}
