/* clsort.h - sorting networks on any OpenCL device: the whole public contract.
 *
 * Usage:
 *
 *     #include <clsort.h>
 *     clsort_ctx *ctx;
 *     if (clsort_create(&ctx, NULL) != CLSORT_OK) return 1;        // best device
 *     float depth[] = { 3.5f, -1.0f, 2.25f };
 *     int rc = clsort_sort(ctx, depth, 3, CLSORT_F32, CLSORT_AUTO, 0);
 *     if (rc != CLSORT_OK) fprintf(stderr, "%s\n", clsort_last_error(ctx));
 *     clsort_destroy(ctx);
 *
 * Link with -lclsort -lOpenCL.
 *
 * Order: integers sort numerically; floats (f16, bf16, f32, f64) sort by IEEE 754 totalOrder
 * (-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN, NaNs ordered by payload), or with
 * CLSORT_NAN_LARGEST in NumPy's order (every NaN equal to every other and above +inf, -0.0 equal
 * to +0.0). Every output bit pattern is an input bit pattern: NaN payloads and the sign of zero
 * survive. CLSORT_DESCENDING gives the exact reverse of that order. Sorts are not stable unless
 * CLSORT_STABLE is given.
 *
 * Threads: calls on one context are serialised by a lock inside it, so sharing a context between
 * threads is safe but runs one sort at a time; for parallel sorts use one context per thread
 * (contexts are independent). clsort_last_error and clsort_warnings return the context's text,
 * which another thread's call on the same context may replace.
 * The library never prints (except a trace on stderr when the environment sets CLSORT_DEBUG=1) and
 * never exits.
 */
#ifndef CLSORT_H
#define CLSORT_H

#include <stddef.h>
#include <stdint.h>

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#ifdef __APPLE__
#include <OpenCL/cl.h>
#else
#include <CL/cl.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(CLSORT_BUILD_SHARED)
#define CLSORT_API __declspec(dllexport)
#elif defined(__GNUC__) && __GNUC__ >= 4
#define CLSORT_API __attribute__((visibility("default")))
#else
#define CLSORT_API
#endif

/* ---- Version ------------------------------------------------------------------------------- */
#define CLSORT_VERSION_MAJOR 0
#define CLSORT_VERSION_MINOR 4
#define CLSORT_VERSION_PATCH 0
#define CLSORT_VERSION_NUMBER \
    (CLSORT_VERSION_MAJOR * 10000 + CLSORT_VERSION_MINOR * 100 + CLSORT_VERSION_PATCH)
#define CLSORT_VERSION_STRING "0.4.0"

/** Returns CLSORT_VERSION_NUMBER of the library actually linked. */
CLSORT_API unsigned clsort_version_number(void);
/** Returns CLSORT_VERSION_STRING of the library actually linked. */
CLSORT_API const char *clsort_version_string(void);

/* ---- Status codes -------------------------------------------------------------------------- */
/* One list makes the enum, the names and the messages, so they never drift apart. */
#define CLSORT_STATUS_MAP(X)                                                              \
    X(OK, 0, "success")                                                                   \
    X(ERR_INVALID_ARG, -1, "invalid argument")                                            \
    X(ERR_NO_DEVICE, -2, "no matching OpenCL device")                                     \
    X(ERR_OUT_OF_MEMORY, -3, "out of memory (host or device)")                            \
    X(ERR_BUILD, -4, "OpenCL program build failed")                                       \
    X(ERR_UNSUPPORTED, -5, "not supported by this device")                                \
    X(ERR_OPENCL, -6, "OpenCL call failed")

typedef enum clsort_status {
#define CLSORT_STATUS_ENUM_(name, value, msg) CLSORT_##name = value,
    CLSORT_STATUS_MAP(CLSORT_STATUS_ENUM_)
#undef CLSORT_STATUS_ENUM_
} clsort_status;

/** Returns a static, human-readable message for a status code ("unknown status" if not one). */
CLSORT_API const char *clsort_strerror(int status);
/** Returns the status code's name without prefix, e.g. "ERR_BUILD"; "UNKNOWN" if not one. */
CLSORT_API const char *clsort_status_name(int status);

/* ---- Types --------------------------------------------------------------------------------- */
typedef struct clsort_ctx clsort_ctx;

/** Key types. All are native-endian, naturally sized (1, 2, 4 or 8 bytes). F16 is IEEE 754
 *  binary16, BF16 bfloat16 (the top half of an f32); both are ordered as bit patterns, so they
 *  need no half-precision support on the device (cl_khr_fp16). Keys of 1 and 2 bytes are sorted
 *  as wider keys on the device (their order, then their bits), so they take the time of 32-bit
 *  keys (64-bit ones for stable pairs) plus a widening pass. */
typedef enum clsort_type {
    CLSORT_U32,
    CLSORT_I32,
    CLSORT_F32,
    CLSORT_U64,
    CLSORT_I64,
    CLSORT_F64,
    CLSORT_U8,
    CLSORT_I8,
    CLSORT_U16,
    CLSORT_I16,
    CLSORT_F16,
    CLSORT_BF16
} clsort_type;

/** Sorting algorithms: three sorting networks and a radix sort. AUTO picks the fastest for the
 *  size and type on the context's device: a network, the radix sort (GPU devices, above the
 *  config's crossover sizes per key width and value size; where its second device buffer cannot
 *  be had, a network in place instead), or for host arrays the host's own sort where it wins
 *  (AUTO's host path: on a CPU device, where the "device" is the host's cores, every size by
 *  default; see clsort_set_host_path_max). BITONIC, ODD_EVEN_MERGE and ODD_EVEN_TRANSPOSITION
 *  always run that network above the small-input host fallback (clsort_set_host_fallback_max;
 *  none with CLSORT_NO_HOST_FALLBACK): they are what the data-oblivious guarantee covers
 *  (docs/security.md). RADIX (appended; the values above are unchanged) is an LSD radix sort
 *  on the device, on any device type, above the same host fallback: stable by construction (so
 *  CLSORT_STABLE costs nothing with it), not in place and not data-oblivious: it needs a second
 *  device buffer as large as the keys (and one as large as the values), and where that cannot be
 *  had the sort returns CLSORT_ERR_OUT_OF_MEMORY with the data untouched. clsort_sort_batch and
 *  the segmented sorts run the bitonic network where RADIX is asked for (their long segments
 *  that go through clsort_sort excepted). AUTO and RADIX are not data-oblivious. */
typedef enum clsort_algorithm {
    CLSORT_AUTO,
    CLSORT_BITONIC,
    CLSORT_ODD_EVEN_MERGE,
    CLSORT_ODD_EVEN_TRANSPOSITION,
    CLSORT_RADIX
} clsort_algorithm;

/** Flag: sort in descending order (the exact reverse of ascending). */
#define CLSORT_DESCENDING 1u
/** Flag: keys that compare equal keep their input order (values travel with them). For keys
 *  alone this costs nothing (keys that compare equal have identical bits) unless
 *  CLSORT_NAN_LARGEST makes different bits equal; nor with the radix sort (CLSORT_RADIX, or AUTO
 *  where it picks the radix sort), which is stable anyway. For pairs sorted by a network it costs
 *  extra work: the keys are sorted with their positions on the device, runs of equal keys are put
 *  back in input order on the host, and the values are moved by position (n * 8 + n * value_size
 *  bytes of host memory). Keys of 1 and 2 bytes carry their positions inside 64-bit keys instead
 *  (up to 2^32 keys of 2 bytes, 2^48 of 1 byte). */
#define CLSORT_STABLE 2u
/** Flag: never sort on the host (neither the fallback for small inputs nor AUTO's host path);
 *  always run the device network (or radix sort). */
#define CLSORT_NO_HOST_FALLBACK 4u
/** Flag: NumPy's order for float keys (integer keys ignore it). Every NaN (either sign, any
 *  payload) compares equal to every other NaN and greater than +inf, and -0.0 compares equal to
 *  +0.0: ascending puts the NaNs last (numpy.sort), descending first (torch.sort with
 *  descending=True). With CLSORT_STABLE keys that compare equal keep their input order, so that
 *  stable pairs of keys and positions give exactly numpy.argsort(kind="stable"), and a stable
 *  sort of keys alone keeps equal but different bit patterns (NaN payloads, zero signs) in input
 *  order (that costs what stable pairs cost). Output keys are input bit patterns. Accepted by
 *  every call that takes flags; clsort_topk with it ranks NaNs the largest keys (torch.topk). */
#define CLSORT_NAN_LARGEST 8u

/** Returns the size in bytes of one key of `type` (1, 2, 4 or 8), or 0 for an invalid type. */
CLSORT_API size_t clsort_type_size(clsort_type type);
/** Returns "u32", "i32", "f32", "u64", "i64", "f64", "u8", "i8", "u16", "i16", "f16", "bf16",
 *  or "unknown" for a value that is not a clsort_type (never NULL; static strings). */
CLSORT_API const char *clsort_type_name(clsort_type type);
/** Parses a type name as above; returns 0 and sets *type, or -1 if unknown. */
CLSORT_API int clsort_type_parse(const char *name, clsort_type *type);
/** Returns "auto", "bitonic", "odd-even-merge", "odd-even-transposition", "radix", or "unknown"
 *  for a value that is not a clsort_algorithm (never NULL; static strings). */
CLSORT_API const char *clsort_algorithm_name(clsort_algorithm algo);
/** Parses an algorithm name as above; returns 0 and sets *algo, or -1 if unknown. */
CLSORT_API int clsort_algorithm_parse(const char *name, clsort_algorithm *algo);

/* ---- Contexts ------------------------------------------------------------------------------ */

/** Creates a context on a device chosen by `device`:
 *   NULL or ""  the best device: the environment variable CLSORT_DEVICE if set, else the first GPU,
 *               else the first CPU, else the first device;
 *   "gpu","cpu" the first device of that type;
 *   "P:D"       device D of platform P (both from 0, as `clsort --list-devices` numbers them);
 *   otherwise   the first device whose name contains `device`, case-insensitively.
 * The context owns its OpenCL context and an in-order queue with profiling enabled.
 * On success returns CLSORT_OK and sets *ctx. On failure sets *ctx to NULL and returns
 * CLSORT_ERR_NO_DEVICE (nothing matches), CLSORT_ERR_INVALID_ARG (ctx NULL), CLSORT_ERR_OPENCL or
 * CLSORT_ERR_OUT_OF_MEMORY (also when no device could be loaded for lack of memory, rather than
 * CLSORT_ERR_NO_DEVICE: see clsort_list_devices). */
CLSORT_API int clsort_create(clsort_ctx **ctx, const char *device);

/** Creates a context that enqueues all work on the caller's `queue` (and uses its context and
 *  device). The library retains the queue and releases it in clsort_destroy. Profiling on the queue
 *  is not required. Returns CLSORT_OK, or CLSORT_ERR_INVALID_ARG / CLSORT_ERR_OPENCL with *ctx NULL. */
CLSORT_API int clsort_create_with_queue(clsort_ctx **ctx, cl_command_queue queue);

/** Returns the in-order command queue the context enqueues its sorts on (the caller's queue for
 *  clsort_create_with_queue), or NULL for a NULL ctx. The queue is not retained for the caller:
 *  it stays valid until clsort_destroy (retain it to keep it longer). Its OpenCL context and
 *  device come from clGetCommandQueueInfo (CL_QUEUE_CONTEXT, CL_QUEUE_DEVICE); buffers for
 *  clsort_sort_buffer are made on that context, and work the caller enqueues on this queue runs
 *  in order with the context's sorts (e.g. uploads, then a sort, then downloads, with no events
 *  needed between them). A clsort_create queue has CL_QUEUE_PROFILING_ENABLE. Takes no lock: the
 *  queue never changes for the life of the context, and OpenCL enqueues are thread-safe (but see
 *  clsort_prepare: no work of the caller's on this queue while it runs). */
CLSORT_API cl_command_queue clsort_get_queue(const clsort_ctx *ctx);

/** Releases everything the context holds. NULL is a no-op. Work it enqueued is finished first. */
CLSORT_API void clsort_destroy(clsort_ctx *ctx);

/** Describes the last failure on this context: the failing call, the OpenCL error name and number,
 *  and for build failures the build options and the build log. Returns "" if nothing failed yet.
 *  Every call that fails on a non-NULL context records its reason here (a NULL output argument
 *  included), so the text never describes an earlier call's failure.
 *  The string stays valid until the next call on the context. NULL ctx gives a static message. */
CLSORT_API const char *clsort_last_error(const clsort_ctx *ctx);

/** Warnings gathered since the context was created (e.g. an unusable tuned config that was
 *  ignored), one per line; "" if none. The string stays valid until the next call on the context. */
CLSORT_API const char *clsort_warnings(const clsort_ctx *ctx);

/* ---- Sorting ------------------------------------------------------------------------------- */

/** Sorts n keys of `type` in host memory, in place. n == 0 and n == 1 succeed at once (keys may be
 *  NULL when n == 0). `flags` is a combination of CLSORT_DESCENDING, CLSORT_STABLE and
 *  CLSORT_NO_HOST_FALLBACK. Blocks until the keys are back in `keys`.
 *  Returns CLSORT_OK; CLSORT_ERR_INVALID_ARG (data untouched) for a NULL ctx, NULL keys with n > 0,
 *  a bad type, algorithm or flag; CLSORT_ERR_UNSUPPORTED for f64 on a device without fp64;
 *  CLSORT_ERR_OUT_OF_MEMORY, CLSORT_ERR_BUILD or CLSORT_ERR_OPENCL otherwise (see
 *  clsort_last_error). On an error after the device work started, `keys` is unchanged, with one
 *  exception: an array larger than half the pinned staging bound (see "Pinned host memory") comes
 *  back in chunks, and if the transfer of a chunk other than the first fails (the device or
 *  driver failing while the sorted keys are being read back), the chunks already back hold
 *  sorted keys and the rest the input: the status says so and the contents are then lost. */
CLSORT_API int clsort_sort(clsort_ctx *ctx, void *keys, size_t n, clsort_type type,
                           clsort_algorithm algo, unsigned flags);

/** Sorts n (key, value) pairs in host memory, in place: values[i] (value_size bytes, 4 or 8)
 *  travels with keys[i]. Not stable unless CLSORT_STABLE is given. Errors as clsort_sort, plus
 *  CLSORT_ERR_INVALID_ARG for a bad value_size or NULL values with n > 0. */
CLSORT_API int clsort_sort_pairs(clsort_ctx *ctx, void *keys, void *values, size_t value_size,
                                 size_t n, clsort_type type, clsort_algorithm algo, unsigned flags);

/** Enqueues a sort of n keys (and values, unless `values` is NULL) that live in the caller's
 *  buffers, on the context's queue, after the events in `wait` (num_wait of them), and returns
 *  without blocking. If `done` is not NULL it receives an event (release it with clReleaseEvent)
 *  that completes when the sort has. The buffers must belong to the context's OpenCL context and
 *  hold at least n keys / values. CLSORT_STABLE is available here only with CLSORT_RADIX (else
 *  CLSORT_ERR_UNSUPPORTED); the host fallback is never used. Keys of 1 and 2 bytes are widened
 *  into 4-byte composites in the context's scratch memory (n * 4 bytes), sorted and narrowed
 *  back, all on the queue. The radix sort's second buffers belong to the context and are shared
 *  by its sorts in flight, which the context's in-order queue runs one after another. Errors as
 *  clsort_sort_pairs. */
CLSORT_API int clsort_sort_buffer(clsort_ctx *ctx, cl_mem keys, cl_mem values, size_t value_size,
                                  size_t n, clsort_type type, clsort_algorithm algo,
                                  unsigned flags, cl_uint num_wait, const cl_event *wait,
                                  cl_event *done);

/** Sorts `count` independent arrays of n keys each, stored back to back in host memory (count * n
 *  keys in all), each in place, in one set of launches. Useful for many small arrays (and used by
 *  the exhaustive 0-1 tests). Flags and errors as clsort_sort, except CLSORT_STABLE, which gives
 *  CLSORT_ERR_UNSUPPORTED here. The host fallback is never used. */
CLSORT_API int clsort_sort_batch(clsort_ctx *ctx, void *keys, size_t n, size_t count,
                                 clsort_type type, clsort_algorithm algo, unsigned flags);

/** Gets the context ready for sorts of up to max_n keys of `type` with values of value_size
 *  bytes (0: keys alone, else 4 or 8) and these flags (as the sorts take them: CLSORT_DESCENDING,
 *  CLSORT_STABLE, CLSORT_NO_HOST_FALLBACK), so that the first such sort runs at the speed of the
 *  next ones. It builds, or loads from the disk cache, every program and kernel that
 *  clsort_sort and clsort_sort_pairs need for any n <= max_n: the network AUTO picks at each size
 *  and the bitonic network (the one explicit CLSORT_BITONIC sorts use) at every size, each with
 *  the parameters of that size; sizes the host fallback (and, for AUTO, its host path:
 *  clsort_set_host_path_max) takes are skipped unless CLSORT_NO_HOST_FALLBACK is given. A sort
 *  with explicit CLSORT_ODD_EVEN_MERGE or CLSORT_ODD_EVEN_TRANSPOSITION still builds its program
 *  on first use, unless AUTO picks that network at some size up to max_n. It then reserves the
 *  device buffers of a sort of max_n keys (and values; with CLSORT_STABLE, the 8-byte positions
 *  that stand in for them) and the pinned staging such a host array travels through (see
 *  "Pinned host memory"), touching them once (the first GiB of each device buffer) so that a
 *  driver that allocates at first use has really allocated them, and
 *  launches each kernel a sort of max_n keys would use once on those buffers (drivers set a
 *  kernel up at its first launch): a handful of passes over max_n keys on the device besides the
 *  builds. Everything stays on the context until clsort_destroy and serves later sorts of any
 *  size; calling it again with a larger max_n grows what it reserved. max_n of 0 or 1 succeeds
 *  at once. clsort_get_stats afterwards describes the
 *  call (build_ns: its compile or cache-load time, total_ns: all of it). Takes the context's lock.
 *  It must not run at the same time as the caller's own OpenCL work on the context's queue
 *  (clsort_get_queue) or its buffers (enqueues, maps, clFinish from another thread): it launches
 *  kernels, fills, maps and unmaps buffers and calls clFinish on that queue, and the caller's own
 *  calls do not take the lock. OpenCL calls them thread-safe, but NVIDIA's driver crashed (a
 *  segfault in the CLI's pipeline, uploads of pinned chunks from clsort_host_alloc on the main
 *  thread while this ran on another) and no library state was found that explains it, so it is
 *  not shown safe: finish it (join its thread) before the first such call. Library calls on the
 *  context (clsort_host_alloc included) wait for it on the lock and are safe.
 *  Returns CLSORT_OK; CLSORT_ERR_INVALID_ARG for a NULL ctx, a bad type, value_size or flag, or a
 *  max_n whose arrays cannot be addressed (max_n * (key size + value size) wraps around size_t;
 *  with CLSORT_STABLE pairs the value size is that of the 8-byte positions);
 *  CLSORT_ERR_UNSUPPORTED for f64 on a device without fp64; CLSORT_ERR_OUT_OF_MEMORY when the
 *  buffers of max_n keys cannot be reserved (larger than CL_DEVICE_MAX_MEM_ALLOC_SIZE, or the
 *  device or host refuses them; a size above that limit is refused before anything is built):
 *  programs already built stay, the buffers are released, and the context stays usable;
 *  CLSORT_ERR_BUILD or CLSORT_ERR_OPENCL otherwise (see clsort_last_error). */
CLSORT_API int clsort_prepare(clsort_ctx *ctx, clsort_type type, size_t value_size, size_t max_n,
                              unsigned flags);

/** clsort_prepare for one sort rather than a range of sizes: gets the context ready for a sort
 *  of exactly n keys with algo (CLSORT_AUTO: what AUTO runs at n) and these flags, and for nothing
 *  else. It builds, or loads from the disk cache, only the programs and kernels that sort runs
 *  (where AUTO gives n to the host's own sort, nothing at all), reserves that sort's device
 *  buffers and pinned staging as clsort_prepare does, and launches each of its kernels once.
 *  The cheapest warm-up for a caller that knows the size of its first sort: a first run on a
 *  device compiles one program instead of every program of every size up to n (the clsort tool
 *  calls it for its first run). Sorts of other sizes or algorithms build what they need when
 *  they run. clsort_get_stats afterwards describes the call (programs_compiled: how many of its
 *  programs the compiler made). Takes the context's lock, with clsort_prepare's caveat about the
 *  caller's own work on the queue. Returns what clsort_prepare returns, and
 *  CLSORT_ERR_INVALID_ARG for an algorithm out of range. */
CLSORT_API int clsort_prepare_sort(clsort_ctx *ctx, clsort_type type, size_t value_size, size_t n,
                                   clsort_algorithm algo, unsigned flags);

/* ---- Segmented sort ------------------------------------------------------------------------ */

/** Sorts each segment keys[offsets[i] .. offsets[i+1]), i = 0 .. nseg-1, independently and in
 *  place, in host memory (values, if not NULL, travel with their keys: value_size 4 or 8; NULL
 *  values sorts keys alone). offsets holds nseg + 1 non-decreasing entries; elements outside
 *  [offsets[0], offsets[nseg]) are not touched, and neither are keys or values when the total is
 *  below 2. Empty and one-key segments are fine; nseg == 0 succeeds at once (keys, values and
 *  offsets may then be NULL). Every key type, the order of clsort_sort, and the flags
 *  CLSORT_DESCENDING, CLSORT_STABLE (pairs: keys that compare equal keep their input order
 *  within their segment) and CLSORT_NO_HOST_FALLBACK. Blocks until done.
 *  Segments of up to 32 keys are sorted by one work-item each (on GPUs where most segments
 *  are that short, or up to 64 keys where most are up to 64; else with the longer ones), those
 *  up to a tile (up to 4096 keys) by one
 *  work-group each or several to a work-group, all in one set of launches. Longer ones: on
 *  GPUs with bitonic (AUTO) and without CLSORT_STABLE, every segment of up to 2^31 keys in the
 *  same set of launches, each by as many work-groups as its length fills (clsort_sort's passes
 *  on all of them at once); otherwise each segment is sorted like clsort_sort / clsort_sort_pairs (so one
 *  segment covering everything costs what clsort_sort does). On GPUs with CLSORT_AUTO,
 *  CLSORT_STABLE pairs of 32-bit keys whose segments above 64 keys hold at least an eighth of
 *  the keys are sorted as 64-bit keys that join each key with its position, which makes any
 *  sort stable, in the same set of launches as unstable ones (every length); that takes
 *  8 + value_size bytes of device memory per key in the context's scratch, besides the keys
 *  and values, and fetches each value by its position afterwards, so it is not data-oblivious
 *  (an explicit network never takes it; docs/security.md). AUTO uses bitonic in the segmented
 *  passes and resolves by size for segments sorted like clsort_sort; an explicit network is
 *  used for every segment, so the memory accesses depend only on the segment lengths
 *  (docs/security.md). The host fallback is used only when the whole total is at most
 *  clsort_get_host_fallback_max's size.
 *  Returns CLSORT_OK; CLSORT_ERR_INVALID_ARG for a NULL ctx, a bad type, algorithm, flag or
 *  value_size, NULL offsets with nseg > 0, NULL keys (or values) with a total above 0, or offsets
 *  that decrease anywhere: all refused before anything is touched; CLSORT_ERR_UNSUPPORTED for f64
 *  without fp64 or nseg >= 2^32 - 17; CLSORT_ERR_OUT_OF_MEMORY, CLSORT_ERR_BUILD or
 *  CLSORT_ERR_OPENCL otherwise. After such a failure each segment is either sorted or as it was,
 *  except when the read-back of the sorted keys itself fails part-way (clsort_sort's exception:
 *  a large array comes back in chunks). Keys and values travel like clsort_sort's (pinned
 *  clsort_host_alloc memory at bus speed, other arrays through pinned staging). */
CLSORT_API int clsort_sort_segments(clsort_ctx *ctx, void *keys, void *values, size_t value_size,
                                    const uint64_t *offsets, size_t nseg, clsort_type type,
                                    clsort_algorithm algo, unsigned flags);

/** The same on the caller's buffers: keys (and values, unless NULL) and offsets, a buffer of at
 *  least nseg + 1 cl_ulong. Enqueued on the context's queue after the events in `wait` (num_wait
 *  of them), returning without blocking, like clsort_sort_buffer; `done` (if not NULL) receives
 *  an event that completes with the sort (release it with clReleaseEvent). CLSORT_STABLE works
 *  here too. The offsets live on the device and are not checked by the host, so the contract is
 *  safety: the kernels never read or write keys or values outside [offsets[0], offsets[nseg])
 *  clamped to the buffers' sizes (in elements; the smaller of the keys and values buffers), every
 *  segment bound is clamped to that range, and a segment whose end is below its start is empty.
 *  With non-decreasing offsets inside the buffers the result is that of clsort_sort_segments.
 *  Segments above the tile: on GPUs with bitonic (AUTO) and without CLSORT_STABLE, when the
 *  segments' mean length (the buffers' elements over nseg) is above 4096 keys, by as many
 *  work-groups each as their lengths fill, in launches made for the longest segment the buffers
 *  could hold (the lengths are not read back: about 3 launches per doubling of the buffers
 *  above 4096 elements); otherwise by one work-group each in global memory, which is much
 *  slower than clsort_sort_buffer for one large array. CLSORT_STABLE pairs of 32-bit keys on
 *  GPUs with CLSORT_AUTO at a mean length above 64 keys are sorted as clsort_sort_segments
 *  sorts them (keys joined
 *  with positions; 8 + value_size bytes of scratch per element the buffers hold). The host
 *  fallback is never used.
 *  Keys of 1 and 2 bytes, and CLSORT_STABLE with CLSORT_NAN_LARGEST on float keys, go through
 *  host memory: the call waits for the wait list, reads the offsets and the range they cover,
 *  sorts as clsort_sort_segments does, writes the range back and returns with `done` complete.
 *  Errors as clsort_sort_segments, plus CLSORT_ERR_INVALID_ARG for a bad wait list or an offsets
 *  buffer smaller than nseg + 1 entries, and CLSORT_ERR_UNSUPPORTED for buffers of more than 2^31
 *  keys. */
CLSORT_API int clsort_sort_segments_buffer(clsort_ctx *ctx, cl_mem keys, cl_mem values,
                                           size_t value_size, cl_mem offsets, size_t nseg,
                                           clsort_type type, clsort_algorithm algo,
                                           unsigned flags, cl_uint num_wait, const cl_event *wait,
                                           cl_event *done);

/* ---- Top-k --------------------------------------------------------------------------------- */

/** Selects the k smallest keys of every row (with CLSORT_DESCENDING the k largest), in sorted
 *  order. `keys` holds `rows` rows of n keys of `type` back to back (rows * n keys); out_keys
 *  receives rows * k keys, row r's at out_keys + r * k. The input is never modified.
 *  out_values may be NULL. When it is not, it receives rows * k elements of value_size bytes (4 or
 *  8): with `values` given (rows * n values of value_size bytes, values[i] belonging to keys[i]),
 *  the values of the selected keys; with `values` NULL, each selected key's index within its row
 *  (0 .. n-1), as uint32_t when value_size is 4 or uint64_t when it is 8 (argtopk). value_size is
 *  not looked at when both values and out_values are NULL.
 *  Ties: among keys that compare equal the one with the lower index in its row is selected and
 *  comes first, so the result is unique and equal to a stable sort of each row cut after k (in
 *  both directions). Every key type and the order of clsort_sort (floats by totalOrder: NaNs
 *  and -0.0 are ordered keys like any other, and every output bit pattern is an input one; with
 *  CLSORT_NAN_LARGEST every NaN ranks as the largest key and equal to the others, -0.0 equal to
 *  +0.0). Keys of 1 and 2 bytes, and CLSORT_NAN_LARGEST, select through the keys' ranks on the
 *  host (a host pass over the keys, then the top-k of those ranks with their indices).
 *  Any 1 <= k <= n and any rows (rows == 0 succeeds at once; pointers may then be NULL).
 *  How: a bitonic top-k network on the device (docs/kernels.md, "Top-k"): each work-group sorts
 *  blocks of K = the power of two >= k in local memory and halves them, pair by pair, to the K
 *  smallest, until one block per row is left. That needs two blocks in a tile: k up to half the
 *  tile that fits the device's local memory (docs/kernels.md), 1024 for 32-bit keys with indices
 *  on a GPU with 48 KiB, 2048 on PoCL, less for 64-bit keys with values. On GPUs, rows longer
 *  than a tile with k up to 32 (16 for 64-bit keys or carried values) are first read once by a
 *  pass that keeps each work-item's K smallest in registers. Above it each row is
 *  sorted in full by a bitonic network (a stable segmented sort, the same comparator) and the
 *  first k are copied out. Both network paths are data-oblivious: the memory accesses depend
 *  only on (n, rows, k, type, value_size) (docs/security.md). For large k on long rows (by
 *  default on GPUs: k >= 128 and n >= 8192; the device config's [auto] topk_radix.<bits>,
 *  docs/tuning.md) a radix select runs first instead: digit histograms of each row find its
 *  k-th key, the keys before it and the first of those equal to it are compacted to k a row,
 *  and the network sorts those, with the same result; that path is not data-oblivious (the
 *  config's `off` keeps every top-k on the network). Always on the device: there is no host
 *  fallback; CLSORT_STABLE (which top-k always is) and CLSORT_NO_HOST_FALLBACK are accepted and
 *  change nothing. Blocks until the outputs are written.
 *  Returns CLSORT_OK; CLSORT_ERR_INVALID_ARG for a NULL ctx, k == 0, k > n, a bad type or flag,
 *  a value_size other than 4 or 8 where values or out_values is given, NULL keys or out_keys with
 *  rows > 0, sizes whose byte counts overflow: all refused before anything is written;
 *  CLSORT_ERR_UNSUPPORTED for f64 on a device without fp64; CLSORT_ERR_OUT_OF_MEMORY,
 *  CLSORT_ERR_BUILD or CLSORT_ERR_OPENCL otherwise (clsort_last_error). out_keys and out_values
 *  are written only once the device work succeeded (a failure of the read-back itself may leave
 *  them partly written). */
CLSORT_API int clsort_topk(clsort_ctx *ctx, const void *keys, const void *values, size_t value_size,
                           size_t n, size_t rows, size_t k, clsort_type type, unsigned flags,
                           void *out_keys, void *out_values);

/** The same on the caller's buffers, enqueued on the context's queue after the events in `wait`
 *  (num_wait of them), returning without blocking, like clsort_sort_buffer: keys (and values,
 *  unless NULL) are read, out_keys (and out_values, unless NULL) written; none may overlap an
 *  output. `done` (if not NULL) receives an event that completes with the selection (release it
 *  with clReleaseEvent). The buffers must belong to the context's OpenCL context and hold at
 *  least rows * n (inputs) and rows * k (outputs) elements. The library's own temporary device
 *  buffers are released as soon as the work enqueued on them completes. Keys of 1 and 2 bytes,
 *  and CLSORT_NAN_LARGEST on float keys, go through host memory: the call waits for the wait
 *  list, reads the inputs, selects as clsort_topk does, writes the outputs and returns with
 *  `done` complete. Errors as clsort_topk, plus CLSORT_ERR_INVALID_ARG for a bad wait list or a
 *  buffer that is too small, all refused before anything is enqueued. */
CLSORT_API int clsort_topk_buffer(clsort_ctx *ctx, cl_mem keys, cl_mem values, size_t value_size,
                                  size_t n, size_t rows, size_t k, clsort_type type, unsigned flags,
                                  cl_mem out_keys, cl_mem out_values, cl_uint num_wait,
                                  const cl_event *wait, cl_event *done);

/* ---- Pinned host memory ------------------------------------------------------------------- */
/* How host arrays travel (docs/design.md, "Host arrays"): every host-array sort (clsort_sort,
 * clsort_sort_pairs, clsort_sort_batch) enqueues its launches and downloads on the context's
 * queue (the caller's queue for clsort_create_with_queue). Arrays above 64 KiB are uploaded in
 * chunks of whole tiles (whole arrays for a batch) on a second in-order queue that the library
 * creates on the same OpenCL context and device (for clsort_create_with_queue: on the caller's
 * context and device), and the first sorting pass of each chunk runs on the context's queue while
 * the next chunk travels; CLSORT_OVERLAP=0 in the environment (read at each sort) uploads the
 * whole arrays first instead. The library's own threads only copy host memory. Arrays in memory from clsort_host_alloc move at full bus speed with no copy on the
 * host. Other arrays go through pinned staging buffers (CL_MEM_ALLOC_HOST_PTR, mapped), made on
 * the first host-array sort that needs them and kept until clsort_destroy, never larger than
 * 64 MiB, or the environment's CLSORT_STAGING_MAX (bytes; a K, M, G or T suffix, optionally
 * followed by B or iB, multiplies by 2^10, 2^20, 2^30, 2^40) read when the context is created,
 * and never more than 1/8 of the device's global memory; the array travels in chunks (an eighth of it, at least 1 MiB, at most half the
 * staging), the copies of several threads into one half overlapping the transfer of the other.
 * Arrays of at most 64 KiB move with plain transfers. On a device that shares memory with the
 * host (CL_DEVICE_HOST_UNIFIED_MEMORY: PoCL, integrated GPUs) the driver's transfer is a memcpy
 * already, so arrays move with one plain transfer each way and no staging. There,
 * CLSORT_ZERO_COPY=1 in the environment (read at each sort) sorts arrays aligned to CL_DEVICE_MEM_BASE_ADDR_ALIGN
 * where they lie (CL_MEM_USE_HOST_PTR), keeping a host copy of the input during the sort so that
 * an error still leaves the array unchanged; it is off by default because that copy costs more
 * than the transfers it saves on PoCL. CLSORT_ZERO_COPY=0 treats such a device as a discrete
 * one (staging, no in-place sort), e.g. for tests. */

/** Allocates `bytes` of page-locked (pinned) host memory from the context: a CL_MEM_ALLOC_HOST_PTR
 *  buffer of the context's OpenCL context, mapped for reading and writing. Host-array sorts on this
 *  context recognise the block, and any range inside it, and move it without staging copies.
 *  Ownership: the block belongs to the context; release it with clsort_host_free, or leave it to
 *  clsort_destroy, which frees every block still held (the pointer is invalid afterwards). The
 *  memory is not initialised and is aligned to at least CL_DEVICE_MEM_BASE_ADDR_ALIGN bytes as
 *  the OpenCL mapping guarantees (in practice a page). Thread safety: takes the context's lock,
 *  like every call on it; the memory itself may be used by any thread. Page-locked memory is a
 *  scarce system resource: allocate what you sort, not more. Returns the block, or NULL for a
 *  NULL ctx, bytes == 0, bytes above CL_DEVICE_MAX_MEM_ALLOC_SIZE or a failure of the OpenCL
 *  calls (clsort_last_error then names the call, e.g. clCreateBuffer or clEnqueueMapBuffer). */
CLSORT_API void *clsort_host_alloc(clsort_ctx *ctx, size_t bytes);

/** Frees a block from clsort_host_alloc on the same context. NULL is a no-op, and so is any
 *  pointer that is not the start of a live block of this context (a pointer inside a block, a
 *  block already freed, malloc memory): nothing is freed and nothing recorded. Takes the context's
 *  lock; waits for work the context enqueued to finish first. NULL ctx is a no-op. */
CLSORT_API void clsort_host_free(clsort_ctx *ctx, void *ptr);

/* ---- Introspection (for tools: CLI, tuner, benchmark) -------------------------------------- */

/** Facts about the context's device and how clsort uses it. Strings are owned by the context. */
typedef struct clsort_device_info {
    const char *name;          /**< CL_DEVICE_NAME */
    const char *vendor;        /**< CL_DEVICE_VENDOR */
    const char *driver;        /**< CL_DRIVER_VERSION */
    const char *platform;      /**< CL_PLATFORM_NAME */
    const char *type;          /**< "gpu", "cpu", "accelerator" or "other" */
    unsigned platform_index;   /**< P of "P:D" */
    unsigned device_index;     /**< D of "P:D" */
    unsigned compute_units;    /**< CL_DEVICE_MAX_COMPUTE_UNITS */
    uint64_t global_mem;       /**< CL_DEVICE_GLOBAL_MEM_SIZE, bytes */
    uint64_t max_alloc;        /**< CL_DEVICE_MAX_MEM_ALLOC_SIZE, bytes */
    uint64_t local_mem;        /**< CL_DEVICE_LOCAL_MEM_SIZE, bytes */
    size_t max_work_group;     /**< CL_DEVICE_MAX_WORK_GROUP_SIZE */
    int has_fp64;              /**< cl_khr_fp64 or a double fp config */
    const char *config_source; /**< the tuned config in use (user dir, else shipped with the
                                    library: docs/tuning.md), or "built-in defaults" */
} clsort_device_info;

/** Fills *info for the context's device. Returns CLSORT_OK or CLSORT_ERR_INVALID_ARG. */
CLSORT_API int clsort_get_device_info(const clsort_ctx *ctx, clsort_device_info *info);

/** Calls `fn` once for every OpenCL device present, with a temporary info (config_source is the
 *  config that would be used) and whether it is the one clsort_create(…, NULL) would pick.
 *  Returns the number of devices (0 if none; a negative status on an OpenCL failure, and
 *  CLSORT_ERR_OUT_OF_MEMORY when none could be loaded because the process is short of memory,
 *  e.g. under an address-space limit such as `ulimit -v` too low for the driver). */
CLSORT_API int clsort_list_devices(void (*fn)(const clsort_device_info *info, int is_default,
                                              void *user),
                                   void *user);

/** Kernel parameters of one (network, key width, pairs) combination. Zero fields mean "default". */
typedef struct clsort_params {
    unsigned wg_size;       /**< work-items per work-group (WG_SIZE) */
    unsigned vec_step;      /**< consecutive compare-exchanges per work-item per step (VEC_STEP) */
    unsigned tile;          /**< keys sorted in local memory by one work-group (TILE), power of 2 */
    unsigned keys_per_item; /**< keys one work-item holds in private memory in a global pass,
                                 power of 2, 2..32 (KEYS_PER_ITEM) */
} clsort_params;

/** The table of the networks' kernel build parameters, one row a clsort_params field, in the
 *  struct's order: X(name, DNAME, min, max, pow2, tune_lo, tune_hi, key, what).
 *  - name: the clsort_params field (an unsigned);
 *  - DNAME: the -D option the network programs are built with (-DDNAME=value, in this order);
 *  - min, max: the range clsort_set_params and a config accept; max 0 is the device's
 *    CL_DEVICE_MAX_WORK_GROUP_SIZE; pow2: 1 if the value must be a power of two (other
 *    conditions between fields: docs/tuning.md);
 *  - tune_lo, tune_hi: the powers of two clsort-tune searches (tiles down to 16 and vec_step up
 *    to 16: on CPUs small tiles that one work-item sorts alone and wide column blocks are the
 *    fast shapes; clsort_set_params refuses what a device cannot run, and the tuner skips it);
 *  - key: the config file's key in [network.bits.kind] sections (docs/tuning.md);
 *  - what: the meaning, as docs/tuning.md's list gives it.
 *  Defaults are no column: the library derives them from the device's limits and type (a tuned
 *  config overrides them; docs/tuning.md, "Built-in defaults").
 *  The library's -D options, config keys and range checks, the tuner's search space and the list in
 *  docs/tuning.md derive from these rows (tests/test_config.c checks that they agree). */
#define CLSORT_PARAM_TABLE(X)                                                                   \
    X(wg_size, WG_SIZE, 1, 0, 0, 1, 1024, "wg_size", "work-items per work-group in the tile passes") \
    X(vec_step, VEC_STEP, 1, 16, 1, 1, 16, "vec_step",                                          \
      "consecutive compare-exchanges per work-item per step")                                   \
    X(tile, TILE, 2, 65536, 1, 16, 16384, "tile", "keys one work-group sorts in local memory")  \
    X(keys_per_item, KEYS_PER_ITEM, 2, 32, 1, 2, 32, "keys_per_item",                           \
      "keys a work-item holds in registers in a global pass (fused levels = log2)")
/** The number of rows of CLSORT_PARAM_TABLE (the fields of clsort_params). */
#define CLSORT_NPARAMS 4

/** Returns the parameters the context will use for `algo` (a network: not AUTO, not RADIX, whose
 *  shape is not a clsort_params; CLSORT_ERR_INVALID_ARG for those) on keys of `type` with values
 *  of value_size bytes (0 for keys alone), after config lookup and device-limit checks; with a
 *  config that has size ranges, those for inputs larger than every range. */
CLSORT_API int clsort_get_params(clsort_ctx *ctx, clsort_algorithm algo, clsort_type type,
                                 size_t value_size, clsort_params *params);

/** Returns the parameters the context will use for `algo` (not AUTO) on n keys of `type` with
 *  values of value_size bytes: a tuned config may hold parameters per size range (sections
 *  [network.bits.kind@N] for inputs up to N keys, docs/tuning.md), which clsort_get_params, giving
 *  those for the largest inputs, does not show. */
CLSORT_API int clsort_get_params_for_size(clsort_ctx *ctx, clsort_algorithm algo, clsort_type type,
                                          size_t value_size, uint64_t n, clsort_params *params);

/** Overrides the parameters for (algo, key width of `type`, value_size) on this context, e.g. for
 *  the tuner, at every size (a config's size ranges no longer apply to that combination). Values
 *  are checked against the device's limits: CLSORT_ERR_INVALID_ARG (nothing changed) when out of
 *  range. A params of all zeros restores the configured values, size ranges included. */
CLSORT_API int clsort_set_params(clsort_ctx *ctx, clsort_algorithm algo, clsort_type type,
                                 size_t value_size, const clsort_params *params);

/** What the last sort on this context did. Times come from OpenCL profiling events when the queue
 *  has profiling enabled (device_ns is 0 otherwise). */
typedef struct clsort_stats {
    clsort_algorithm algorithm; /**< the network (or RADIX) actually run (AUTO resolved) */
    int host_fallback;          /**< 1 if the host sort was used instead of the device */
    unsigned launches;          /**< kernels enqueued */
    unsigned global_passes;     /**< launches that read and write every key once */
    uint64_t device_ns;         /**< first kernel start to last kernel end */
    uint64_t total_ns;          /**< host clock around the whole call */
    /* Host-array transfers (issue 10, docs/design.md "Host arrays"): 0 for clsort_sort_buffer
     * and for sorts that never left the host. */
    uint64_t upload_ns;         /**< host-to-device transfers: the sum of their profiled
                                     durations (0 without profiling or without transfers) */
    uint64_t download_ns;       /**< device-to-host transfers, the same way */
    uint64_t staging_ns;        /**< host clock spent copying between the caller's arrays and
                                     pinned staging (or, sorting in place on a device that shares
                                     memory with the host, keeping the copy that makes an error
                                     harmless), on the calling thread and its helper threads */
    uint64_t upload_bytes;      /**< bytes moved host to device */
    uint64_t download_bytes;    /**< bytes moved device to host */
    uint64_t pinned_bytes;      /**< pinned staging the context holds after the call (not
                                     counting clsort_host_alloc blocks) */
    int zero_copy;              /**< 1: the device sorted the caller's memory in place (a device
                                     with CL_DEVICE_HOST_UNIFIED_MEMORY), nothing was transferred */
    int pinned_source;          /**< 1: the arrays lay in clsort_host_alloc memory and moved
                                     without staging */
    uint64_t build_ns;          /**< host clock spent making the programs and kernels the call
                                     needed: compiling them, or loading them from the disk
                                     cache (docs/design.md); 0 when the context had them all
                                     already, as after clsort_prepare */
    unsigned programs_compiled; /**< programs of build_ns that the OpenCL compiler made (the
                                     rest came from the disk cache): more than 0 on the first
                                     run of a sort on a device, or after the cache was emptied */
} clsort_stats;

/** Copies the statistics of the last sort (or clsort_prepare) on the context. For
 *  clsort_sort_buffer this waits until that sort has finished, so that device_ns is known. */
CLSORT_API int clsort_get_stats(clsort_ctx *ctx, clsort_stats *stats);

/* ---- Tuning (for clsort-tune; docs/tuning.md) ---------------------------------------------- */

/** Writes into buf (size bytes) the path of the tuned config file that the runtime looks at
 *  first for the context's device: $CLSORT_CONFIG_DIR, else $XDG_CONFIG_HOME/clsort, else
 *  ~/.config/clsort, followed by the device's file name (normalised vendor, "--", normalised
 *  device name, ".ini"). The file and its directory need not exist. Returns CLSORT_OK, or
 *  CLSORT_ERR_INVALID_ARG for a NULL argument, when no directory can be formed (none of the
 *  variables nor HOME is set) or when buf is too small. */
CLSORT_API int clsort_config_path(const clsort_ctx *ctx, char *buf, size_t size);

/** Writes into buf (size bytes) the directory of the program cache (docs/tuning.md, "Program
 *  cache"): $CLSORT_CACHE_DIR, else $XDG_CACHE_HOME/clsort when XDG_CACHE_HOME is an absolute
 *  path (a relative one is ignored, as the XDG specification says), else ~/.cache/clsort. The
 *  directory need not exist. Needs no context: the place depends only on the environment.
 *  Returns CLSORT_OK, or CLSORT_ERR_INVALID_ARG for a NULL buf, size 0, when no directory can be
 *  formed (none of the variables nor HOME is set) or when buf is too small (buf is then ""). */
CLSORT_API int clsort_cache_path(char *buf, size_t size);

/** Empties the program cache that clsort_cache_path names: removes the compiled programs clsort
 *  stored there ("<32 hex digits>.clbin") and the temporary files they are written through, if
 *  they are regular files of the calling user; nothing else (other files, links,
 *  subdirectories, other users' entries in a shared directory) is touched. Safe while other
 *  processes use the cache: they rebuild what they miss. Needs no context. If removed is not NULL
 *  it receives the number of files removed. Returns CLSORT_OK (also when the directory does not
 *  exist yet), or CLSORT_ERR_INVALID_ARG when the place cannot be used: no directory can be
 *  formed (errno is then 0), or the directory cannot be read or a file in it cannot be removed
 *  (errno says why, e.g. EACCES; the other files are still removed). */
CLSORT_API int clsort_clear_cache(unsigned *removed);

/** Sets the size up to which clsort_sort and clsort_sort_pairs sort host arrays on the host on
 *  this context (0: always the device), overriding the config, e.g. for the tuner's crossover
 *  measurement. Returns CLSORT_OK or CLSORT_ERR_INVALID_ARG (NULL ctx). */
CLSORT_API int clsort_set_host_fallback_max(clsort_ctx *ctx, uint64_t max_n);

/** Returns in *max_n the size up to which host arrays are sorted on the host on this context
 *  (from the config, the built-in default, or clsort_set_host_fallback_max). Returns CLSORT_OK
 *  or CLSORT_ERR_INVALID_ARG. */
CLSORT_API int clsort_get_host_fallback_max(const clsort_ctx *ctx, uint64_t *max_n);

/** Sets the size up to which clsort_sort, clsort_sort_pairs and clsort_sort_segments with
 *  CLSORT_AUTO sort host arrays with the host's own sort (AUTO's host path: Highway's vqsort
 *  where the library was built with libhwy, else a radix sort; UINT64_MAX: every size, 0: only
 *  the fallback's sizes) on this context, overriding the config's [auto] host_path_max and the
 *  built-in default (every size on a CPU device, 0 elsewhere). Explicit networks and
 *  CLSORT_NO_HOST_FALLBACK are not affected. Returns CLSORT_OK or CLSORT_ERR_INVALID_ARG. */
CLSORT_API int clsort_set_host_path_max(clsort_ctx *ctx, uint64_t max_n);

/** Returns in *max_n the size up to which AUTO sorts host arrays on the host on this context
 *  (from the config, the built-in default, or clsort_set_host_path_max). Returns CLSORT_OK or
 *  CLSORT_ERR_INVALID_ARG. */
CLSORT_API int clsort_get_host_path_max(const clsort_ctx *ctx, uint64_t *max_n);

/** Names the host's own sort that AUTO's host path and the host fallback run in this build of the
 *  library (clsort_stats.host_fallback says when one ran): "vqsort" (Highway's, where the library
 *  was built with libhwy) or "radix" (an LSD radix sort). A static string; needs no context. */
CLSORT_API const char *clsort_host_sort_name(void);

#ifdef __cplusplus
}
#endif
#endif /* CLSORT_H */
