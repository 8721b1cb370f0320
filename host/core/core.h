/* core.h - what every host module shares: the context and the facts it holds (device, programs,
 * AUTO rules), and the recording of failures, warnings and traces (errors.c). The lowest header
 * of the library after the leaves; never installed (tools use only clsort.h). The layers above it
 * and what each file may include are in docs/design.md ("Modules"). */
#ifndef CLSORT_CORE_H
#define CLSORT_CORE_H

#include "clsort.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#define CLSORT__NETWORKS 3   /* bitonic, odd-even merge, odd-even transposition */
#define CLSORT__WIDTHS 2     /* 32- and 64-bit keys */
#define CLSORT__VALKINDS 3   /* keys alone, 4-byte values, 8-byte values */
#define CLSORT__KEY_SIZES 4  /* keys of 1, 2, 4 and 8 bytes (the radix sort's crossovers) */

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
    int warp_match; /* an NVIDIA GPU of compute capability 7.0 or later (cl_nv_device_attribute_
                     * query): its compiler takes inline PTX with match.any.sync (radix.cl) */
} clsort__device;

/* A built program and the kernels made from it so far. */
#define CLSORT__MAX_KERNELS 16
typedef struct clsort__program {
    struct clsort__program *next;
    char *options;                 /* the full build options: the cache key */
    int network;                   /* its clsort__program_id: a network's, SEGMENTED or TOPK */
    int index_bits;                /* 32 or 64: the width of idx_t in the kernels */
    cl_program program;
    struct {
        const char *name;
        cl_kernel kernel;
        size_t max_wg;             /* CL_KERNEL_WORK_GROUP_SIZE, or the reqd size */
    } kernels[CLSORT__MAX_KERNELS];
    int nkernels;
} clsort__program;

/* The transfer state (clsort_host_alloc's pinned blocks, the pinned staging of other host
 * arrays, the transfer queue) is private to execution/transfer.c: the context holds a pointer. */
struct clsort__transfer;


/* Which network AUTO uses up to a size (rules sorted by max_n; the last covers the rest). */
typedef struct clsort__auto_rule {
    uint64_t max_n;
    clsort_algorithm algo;
} clsort__auto_rule;
#define CLSORT__MAX_AUTO_RULES 8

/* Parameters a tuned config gives for inputs up to a size (sections [network.bits.kind@N]),
 * sorted by max_n; inputs above the last range use the section without a size. */
typedef struct clsort__size_range {
    uint64_t max_n;
    clsort_params params;
} clsort__size_range;
#define CLSORT__MAX_SIZE_RANGES 4
/* The context's scratch buffers (scratch.h). */
#define CLSORT__NSCRATCH 9

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
    clsort__size_range ranges[CLSORT__NETWORKS][CLSORT__WIDTHS][CLSORT__VALKINDS]
                             [CLSORT__MAX_SIZE_RANGES];
    int nranges[CLSORT__NETWORKS][CLSORT__WIDTHS][CLSORT__VALKINDS];
    /* clsort_set_params was called: its parameters hold at every size, ranges are ignored. */
    unsigned char overridden[CLSORT__NETWORKS][CLSORT__WIDTHS][CLSORT__VALKINDS];
    clsort__auto_rule auto_rules[CLSORT__MAX_AUTO_RULES];
    int nauto_rules;
    uint64_t host_fallback_max;    /* clsort_sort sorts n <= this on the host */
    uint64_t host_path_max;        /* ... and with AUTO n <= this too (CPU devices: the host's
                                    * own sort on the same cores; [auto] host_path_max) */
    /* AUTO's top-k takes the radix select for k and n at least these, per key width
     * ([auto] topk_radix.<bits>; UINT64_MAX: never). */
    uint64_t topk_radix_min_k[CLSORT__WIDTHS], topk_radix_min_n[CLSORT__WIDTHS];
    /* AUTO takes the radix sort for one array of at least this many keys, by log2 of the key's
     * bytes and value kind ([auto] radix_min_n_k4, radix_min_n_k8_v4, ...; UINT64_MAX never). */
    uint64_t radix_min_n[CLSORT__KEY_SIZES][CLSORT__VALKINDS];
    char config_source[1024];      /* path of the tuned config, or "built-in defaults" */

    /* Scratch device buffers, reused across calls (scratch.h names them): 0 and 1 hold
     * host-array sorts' keys and values, 2 the segmented sort's bin list (host variant) or
     * stable positions (buffer variant), 3 its offsets, 4 and 5 its composites and their
     * values' copy (dispatch_segments.c), 6 to 8 the radix sort's second buffers and counts. */
    cl_mem scratch[CLSORT__NSCRATCH];
    size_t scratch_size[CLSORT__NSCRATCH];

    /* Host memory for transfers: clsort_host_alloc's blocks and the lazily made pinned staging
     * of other host arrays; only transfer.c sees inside (NULL until clsort__transfer_init). */
    struct clsort__transfer *transfer;

    clsort_stats stats;
    cl_event stat_first, stat_last; /* profiled first and last launch of the last sort */
    char *last_error;              /* heap, grows for build logs */
    char *warnings;                /* heap, one warning per line */
    int debug;                     /* CLSORT_DEBUG set */
};

/* ---- errors.c: failures, warnings and the CLSORT_DEBUG trace ---- */
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

#endif /* CLSORT_CORE_H */
