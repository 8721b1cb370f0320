/* internal.h - what the library's modules share: the context, device facts, parameters, the
 * schedule of passes, and error recording. Never installed; tools use only clsort.h.
 *
 * Module dependencies run one way (docs/design.md):
 *   api_sort.c -> run.c -> schedule.c, program.c -> params.c, config.c, cache.c -> device.c,
 *   errors.c; context.c ties a context together; hostsort.c is the CPU fallback. */
#ifndef CLSORT_INTERNAL_H
#define CLSORT_INTERNAL_H

#include "clsort.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#define CLSORT__NETWORKS 3   /* bitonic, odd-even merge, odd-even transposition */
#define CLSORT__WIDTHS 2     /* 32- and 64-bit keys */
#define CLSORT__VALKINDS 3   /* keys alone, 4-byte values, 8-byte values */

/* Facts about one device, queried once. */
typedef struct clsort__device {
    cl_platform_id platform;
    cl_device_id id;
    unsigned platform_index, device_index;
    char name[256], vendor[256], driver[128], platform_name[256], platform_version[256];
    cl_device_type type;
    unsigned compute_units;
    cl_ulong global_mem, max_alloc, local_mem;
    size_t max_wg;
    cl_uint mem_align_bits;
    int fp64;
} clsort__device;

/* A built program and the kernels made from it so far. */
#define CLSORT__MAX_KERNELS 16
typedef struct clsort__program {
    struct clsort__program *next;
    char *options;                 /* the full build options: the cache key */
    int network;
    int index_bits;                /* 32 or 64: the width of idx_t in the kernels */
    cl_program program;
    struct {
        const char *name;
        cl_kernel kernel;
        size_t max_wg;             /* CL_KERNEL_WORK_GROUP_SIZE */
    } kernels[CLSORT__MAX_KERNELS];
    int nkernels;
} clsort__program;

/* Which network AUTO uses up to a size (rules sorted by max_n; the last covers the rest). */
typedef struct clsort__auto_rule {
    uint64_t max_n;
    clsort_algorithm algo;
} clsort__auto_rule;
#define CLSORT__MAX_AUTO_RULES 8

struct clsort_ctx {
    /* Serialises the calls on one context, so a context shared by threads is safe (calls on
     * different contexts run in parallel). Taken by every public function that uses the state
     * below; clsort_last_error's text may then describe another thread's call. */
    pthread_mutex_t lock;
    clsort__device dev;
    cl_context context;
    cl_command_queue queue;
    int profiling;                 /* the queue records profiling events */

    clsort__program *programs;     /* in-memory program cache, keyed by build options */

    /* Parameters in use: configured (tuned file or built-in defaults) and overrides. */
    clsort_params params[CLSORT__NETWORKS][CLSORT__WIDTHS][CLSORT__VALKINDS];
    clsort_params configured[CLSORT__NETWORKS][CLSORT__WIDTHS][CLSORT__VALKINDS];
    clsort__auto_rule auto_rules[CLSORT__MAX_AUTO_RULES];
    int nauto_rules;
    uint64_t host_fallback_max;    /* clsort_sort sorts n <= this on the host */
    char config_source[1024];      /* path of the tuned config, or "built-in defaults" */

    /* Scratch device buffers, reused across calls: 0 and 1 hold host-array sorts' keys and
     * values, 2 and 3 are the auxiliary keys and values of out-of-place passes. */
    cl_mem scratch[4];
    size_t scratch_size[4];

    clsort_stats stats;
    cl_event stat_first, stat_last; /* profiled first and last launch of the last sort */
    char *last_error;              /* heap, grows for build logs */
    char *warnings;                /* heap, one warning per line */
    int debug;                     /* CLSORT_DEBUG set */
};

/* ---- errors.c ---- */
const char *clsort__cl_error_name(cl_int err);
/* Records a failure on ctx (printf-style) and returns status. */
int clsort__fail(clsort_ctx *ctx, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Records a failed OpenCL call ("clFoo(what): CL_ERROR_NAME (-N)") and returns the status it maps
 * to: out-of-memory errors to CLSORT_ERR_OUT_OF_MEMORY, build failures to CLSORT_ERR_BUILD, the
 * rest to CLSORT_ERR_OPENCL. */
int clsort__cl_fail(clsort_ctx *ctx, cl_int err, const char *call, const char *what);
/* Appends a line to the failure text (e.g. a build log). */
void clsort__append_error(clsort_ctx *ctx, const char *text);
void clsort__warn(clsort_ctx *ctx, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void clsort__trace(const clsort_ctx *ctx, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Checks an OpenCL status inside a function with a `fail:` label and an `int rc`. */
#define CLSORT__CL_CHECK(ctx, err, call, what)                \
    do {                                                      \
        if ((err) != CL_SUCCESS) {                            \
            rc = clsort__cl_fail((ctx), (err), (call), (what)); \
            goto fail;                                        \
        }                                                     \
    } while (0)
#define CLSORT__CHECK(expr)         \
    do {                            \
        if ((rc = (expr)) != CLSORT_OK) \
            goto fail;              \
    } while (0)

/* ---- device.c ---- */
/* Fills dev for the device chosen by spec (see clsort_create). Returns CLSORT_OK,
 * CLSORT_ERR_NO_DEVICE or CLSORT_ERR_OPENCL; `why` receives a message on failure. */
int clsort__select_device(const char *spec, clsort__device *dev, char *why, size_t why_size);
/* Queries every fact of dev->id (and its platform). */
int clsort__query_device(clsort__device *dev);
/* Enumerates all devices: fn(dev, user) for each; returns the count or a negative status. */
int clsort__for_each_device(int (*fn)(const clsort__device *dev, void *user), void *user);
const char *clsort__device_type_name(cl_device_type type);

/* ---- params.c ---- */
int clsort__network_index(clsort_algorithm algo);      /* 0..2, or -1 for AUTO / invalid */
int clsort__width_index(clsort_type type);              /* 0 (32-bit) or 1 (64-bit) */
int clsort__valkind_index(size_t value_size);           /* 0, 1 (4 bytes), 2 (8 bytes); -1 bad */
/* Built-in defaults from the device's limits. */
void clsort__default_params(const clsort__device *dev, int net, int width, int valkind,
                            clsort_params *out);
/* Checks p against the device's limits; on failure writes the reason into why. */
int clsort__check_params(const clsort__device *dev, int net, int width, int valkind,
                         const clsort_params *p, char *why, size_t why_size);
/* Local memory in bytes that the network's tile kernels need with these parameters. */
size_t clsort__local_bytes(int net, int width, int valkind, const clsort_params *p);
/* The one place that turns parameters into -D build options. */
void clsort__build_options(int net, int width, int valkind, int index_bits,
                           const clsort_params *p, char *out, size_t out_size);

/* ---- config.c ---- */
/* Loads the tuned config for ctx->dev (lookup chain in docs/tuning.md) into ctx->configured,
 * ctx->auto_rules and ctx->host_fallback_max, falling back to built-in defaults with a warning
 * when a file is unusable. Never fails. */
void clsort__load_config(clsort_ctx *ctx);
/* The config file that would be used for dev, or "built-in defaults". */
void clsort__config_source_for(const clsort__device *dev, char *out, size_t out_size);

/* ---- cache.c ---- */
/* On-disk cache of program binaries (docs/tuning.md). Both are best-effort and never fatal. */
cl_program clsort__cache_load(clsort_ctx *ctx, const char *source, size_t source_len,
                              const char *options);
void clsort__cache_store(clsort_ctx *ctx, cl_program program, const char *source,
                         size_t source_len, const char *options);

/* ---- program.c ---- */
/* Returns (building and caching on first use) the program for a network with these parameters. */
int clsort__get_program(clsort_ctx *ctx, int net, int width, int valkind, int index_bits,
                        const clsort_params *p, clsort__program **out);
/* Returns a kernel of a program by name (created on first use). */
int clsort__get_kernel(clsort_ctx *ctx, clsort__program *prog, const char *name, cl_kernel *out,
                       size_t *max_wg);
void clsort__release_programs(clsort_ctx *ctx);
/* The concatenated source of a network (common.cl + its files), malloc'ed; NULL if out of memory. */
char *clsort__network_source(int net, size_t *len);

/* ---- schedule.c ---- */
/* One launch of the schedule: kernel name, work-items in dimension 0, the kernel's extra
 * arguments after (keys, [vals,] n, xf), and whether it reads and writes every key once. */
typedef struct clsort__step {
    const char *kernel;
    uint64_t items;         /* global work-items (dimension 0), before rounding to the group */
    int tile_kernel;        /* 1: runs with exactly WG_SIZE work-items per group */
    cl_uint args[2];
    int nargs;
    int global_pass;
    int io;                 /* CLSORT__IO_*: which buffers the kernel reads and writes */
} clsort__step;
#define CLSORT__IO_KEYS 0        /* in place on the sort's buffers */
#define CLSORT__IO_AUX 1         /* in place on the auxiliary buffers */
#define CLSORT__IO_KEYS_TO_AUX 2 /* reads the sort's buffers, writes the auxiliary ones */
#define CLSORT__IO_AUX_TO_KEYS 3
/* Whether a schedule uses auxiliary buffers (as large as the data) for this n. */
int clsort__schedule_needs_aux(int net, uint64_t n, const clsort_params *p);
/* Calls emit for every launch that sorts n keys with network `net` and parameters p, in order.
 * Stops and returns emit's status if it is not CLSORT_OK. The schedule depends only on
 * (net, n, p): never on key values (docs/security.md). */
typedef int (*clsort__emit_fn)(const clsort__step *step, void *user);
int clsort__schedule(int net, uint64_t n, const clsort_params *p, clsort__emit_fn emit,
                     void *user);
uint64_t clsort__next_pow2(uint64_t x);
unsigned clsort__log2(uint64_t x);

/* ---- run.c ---- */
/* Enqueues the sort of `count` arrays of n keys in buffers on ctx->queue after the wait list;
 * *done (if not NULL) gets the last event. Updates ctx->stats (launches, passes, algorithm). */
int clsort__enqueue_sort(clsort_ctx *ctx, cl_mem keys, cl_mem vals, size_t value_size,
                         uint64_t n, uint64_t count, clsort_type type, clsort_algorithm algo,
                         unsigned flags, cl_uint num_wait, const cl_event *wait, cl_event *done,
                         cl_event *first);
clsort_algorithm clsort__resolve_auto(const clsort_ctx *ctx, uint64_t n);
/* Device time between two profiled events (first start to last end), 0 if unavailable. */
uint64_t clsort__event_span_ns(cl_event first, cl_event last);

/* ---- hostsort.c ---- */
/* Sorts on the host with the documented order (LSD radix sort: stable). values may be NULL. */
int clsort__host_sort(void *keys, void *values, size_t value_size, size_t n, clsort_type type,
                      unsigned flags);
/* The key transform of kernels/common.cl, on the host. */
uint32_t clsort__order32(uint32_t x, clsort_type type, unsigned flags);
uint64_t clsort__order64(uint64_t x, clsort_type type, unsigned flags);

/* ---- context.c ---- */
/* Makes sure scratch buffer i holds at least size bytes. */
int clsort__ensure_scratch(clsort_ctx *ctx, int i, size_t size);
uint64_t clsort__now_ns(void);

#endif /* CLSORT_INTERNAL_H */
