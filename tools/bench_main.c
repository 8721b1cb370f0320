/* bench_main.c - clsort-bench: times clsort's sorting networks on one OpenCL device against qsort and
 * std::sort on the same random data, checks every result, and reports how close each network runs to
 * the memory-bandwidth floor its schedule implies. Uses only clsort.h and plain OpenCL calls on a
 * queue it creates itself (with profiling, so the library can time its own kernels). */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <clsort.h>

#include "bench_ref.h"

/* Exit codes, documented in docs/clsort-bench.1. */
enum {
    BENCH_EXIT_OK = 0,     /* every sort ran and every result checked out */
    BENCH_EXIT_FAILED = 1, /* a result was wrong or a sort failed; the table says which */
    BENCH_EXIT_USAGE = 2,  /* bad command line */
    BENCH_EXIT_SETUP = 3   /* no such device, or OpenCL setup failed */
};

#define BENCH_MAX_TYPES 16
#define BENCH_MAX_ALGOS 8
#define BENCH_MAX_RUNS 1000

/* A benchmarked element: a key type, plus values as wide as the keys for the pair types. */
typedef struct bench_type {
    const char *name; /* "u32", ..., "pairs32", "pairs64" */
    clsort_type key;
    size_t value_size; /* 0 for keys alone */
} bench_type;

typedef struct bench_opts {
    const char *device;
    bench_type types[BENCH_MAX_TYPES];
    int ntypes;
    clsort_algorithm algos[BENCH_MAX_ALGOS];
    int nalgos;
    int min_log, max_log;
    int transposition_max_log; /* odd-even transposition does O(n^2 / tile) work: capped lower */
    int cpu_max_log;           /* qsort / std::sort only up to here: they take seconds at 2^24 */
    int runs;
    const char *csv;
    int no_cpu;
    int quiet;
    int list_devices;
    uint64_t seed;
} bench_opts;

/* Everything one benchmark run holds: the device, its queue, the library context, the output. */
typedef struct bench_env {
    const bench_opts *opts;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    clsort_ctx *ctx;
    clsort_device_info info;
    int device_is_cpu;
    uint64_t host_avail;   /* bytes of host memory available when we started, 0 if unknown */
    double copy_gbps;      /* device copy bandwidth, (bytes read + written) / s / 1e9 */
    size_t copy_bytes;     /* size of the buffer that measured it */
    int copy_samples;
    char date[32];
    char host_cpu[128];
    FILE *csv;
    int progress;          /* stderr is a terminal and not -q: show a progress line */
    double last_progress;
    int failures;
} bench_env;

/* What one network did at one size over all runs. */
typedef struct bench_result {
    clsort_algorithm algo; /* as asked */
    clsort_algorithm ran;  /* AUTO resolved, from clsort_get_stats */
    double *device_ms, *e2e_ms;
    int ndevice, ne2e;
    unsigned launches, passes;
    char time_source;      /* 'p' stats.device_ns, 'e' marker..done events, 'h' host clock */
    int e2e_host_fallback; /* the end-to-end call sorted on the host (small n) */
    int skipped;           /* CLSORT_ERR_UNSUPPORTED: not a failure, nothing to report */
    int failed;
    char why[200];
} bench_result;

/* ---- Small helpers -------------------------------------------------------------------------------- */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n) (sorts v); NAN-free input assumed; returns -1 for n == 0. */
static double median(double *v, int n)
{
    if (n <= 0) return -1.0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return (n & 1) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void talk(const bench_env *env, const char *fmt, ...)
{
    if (env->opts->quiet) return;
    if (env->progress) fputs("\r\033[K", stderr);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

/* A progress line on the terminal, a few updates a second at most. */
static void show_progress(bench_env *env, const char *fmt, ...)
{
    if (!env->progress) return;
    const double t = now_ms();
    if (t - env->last_progress < 250.0) return;
    env->last_progress = t;
    fputs("\r\033[K", stderr);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fflush(stderr);
}

static void clear_progress(const bench_env *env)
{
    if (env->progress) fputs("\r\033[K", stderr);
}

static const char *cl_error_name(cl_int err)
{
    switch (err) {
    case CL_SUCCESS: return "CL_SUCCESS";
    case CL_DEVICE_NOT_FOUND: return "CL_DEVICE_NOT_FOUND";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case CL_OUT_OF_RESOURCES: return "CL_OUT_OF_RESOURCES";
    case CL_OUT_OF_HOST_MEMORY: return "CL_OUT_OF_HOST_MEMORY";
    case CL_PROFILING_INFO_NOT_AVAILABLE: return "CL_PROFILING_INFO_NOT_AVAILABLE";
    case CL_INVALID_VALUE: return "CL_INVALID_VALUE";
    case CL_INVALID_PLATFORM: return "CL_INVALID_PLATFORM";
    case CL_INVALID_DEVICE: return "CL_INVALID_DEVICE";
    case CL_INVALID_CONTEXT: return "CL_INVALID_CONTEXT";
    case CL_INVALID_COMMAND_QUEUE: return "CL_INVALID_COMMAND_QUEUE";
    case CL_INVALID_MEM_OBJECT: return "CL_INVALID_MEM_OBJECT";
    case CL_INVALID_EVENT: return "CL_INVALID_EVENT";
    case CL_INVALID_BUFFER_SIZE: return "CL_INVALID_BUFFER_SIZE";
    default: return "CL error";
    }
}

/* ---- Command line --------------------------------------------------------------------------------- */

static const bench_type bench_pair_types[] = {
    { "pairs32", CLSORT_U32, 4 },
    { "pairs64", CLSORT_U64, 8 },
};

static void print_usage(FILE *f)
{
    fputs("usage: clsort-bench [options]\n"
          "Times clsort's sorting networks against qsort and std::sort; data on stdout.\n"
          "  -d, --device DEV         device: gpu, cpu, P:D, or part of a name (default: best)\n"
          "  -t, --types LIST         u32,u64,f32,pairs32,pairs64 (default; also i32,i64,f64)\n"
          "  -a, --algos LIST         auto,bitonic,odd-even-merge,odd-even-transposition (default)\n"
          "      --min-log N          smallest n = 2^N (default 10)\n"
          "      --max-log N          largest n = 2^N (default 28; lowered to what memory allows)\n"
          "      --transposition-max-log N\n"
          "                           odd-even transposition up to 2^N only (default 16): its\n"
          "                           passes grow as n^2 / tile\n"
          "      --cpu-max-log N      qsort and std::sort up to 2^N only (default 24)\n"
          "  -r, --runs N             timed runs per point, median reported (default 5), after one\n"
          "                           warm-up run; fresh random data every run\n"
          "      --csv FILE           also write every point to FILE as CSV\n"
          "      --no-cpu             skip the qsort and std::sort references\n"
          "      --seed N             seed of the random data (default 1)\n"
          "  -l, --list-devices       list OpenCL devices and exit\n"
          "  -q, --quiet              no progress or notes on stderr\n"
          "  -h, --help               this text\n"
          "      --version            print the version and exit\n",
          f);
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    const long v = strtol(s, &end, 0);
    if (errno || end == s || *end || v < lo || v > hi) return -1;
    *out = (int)v;
    return 0;
}

static int parse_types(bench_opts *o, const char *list)
{
    static char buf[256];
    if (strlen(list) >= sizeof buf) return -1;
    strcpy(buf, list);
    o->ntypes = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        if (o->ntypes == BENCH_MAX_TYPES) return -1;
        bench_type *t = &o->types[o->ntypes];
        clsort_type key;
        int found = 0;
        for (size_t i = 0; i < sizeof bench_pair_types / sizeof *bench_pair_types; i++)
            if (strcmp(tok, bench_pair_types[i].name) == 0) {
                *t = bench_pair_types[i];
                found = 1;
            }
        if (!found && clsort_type_parse(tok, &key) == 0) {
            t->name = clsort_type_name(key);
            t->key = key;
            t->value_size = 0;
            found = 1;
        }
        if (!found) {
            fprintf(stderr, "clsort-bench: unknown type '%s'\n", tok);
            return -1;
        }
        o->ntypes++;
    }
    return o->ntypes > 0 ? 0 : -1;
}

static int parse_algos(bench_opts *o, const char *list)
{
    char buf[256];
    if (strlen(list) >= sizeof buf) return -1;
    strcpy(buf, list);
    o->nalgos = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        if (o->nalgos == BENCH_MAX_ALGOS) return -1;
        if (clsort_algorithm_parse(tok, &o->algos[o->nalgos]) != 0) {
            fprintf(stderr, "clsort-bench: unknown algorithm '%s'\n", tok);
            return -1;
        }
        o->nalgos++;
    }
    return o->nalgos > 0 ? 0 : -1;
}

/* Parses argv into *o. Returns -1 to exit with BENCH_EXIT_USAGE, 1 to exit successfully (--help,
 * --version), 0 to go on. Long options take "--opt VALUE" or "--opt=VALUE". */
static int parse_args(int argc, char **argv, bench_opts *o)
{
    for (int i = 1; i < argc; i++) {
        char *arg = argv[i];
        const char *val = NULL;
        char name[64];
        char *eq = (strncmp(arg, "--", 2) == 0) ? strchr(arg, '=') : NULL;
        if (eq) {
            const size_t len = (size_t)(eq - arg);
            if (len >= sizeof name) goto bad;
            memcpy(name, arg, len);
            name[len] = '\0';
            val = eq + 1;
        } else {
            if (strlen(arg) >= sizeof name) goto bad;
            strcpy(name, arg);
        }
#define BENCH_IS_(s, l) (strcmp(name, (s)) == 0 || strcmp(name, (l)) == 0)
#define BENCH_VALUE_()                                                                     \
    do {                                                                                   \
        if (!val) {                                                                        \
            if (i + 1 >= argc) {                                                           \
                fprintf(stderr, "clsort-bench: %s needs a value\n", name);                 \
                return -1;                                                                 \
            }                                                                              \
            val = argv[++i];                                                               \
        }                                                                                  \
    } while (0)
        if (BENCH_IS_("-h", "--help")) {
            print_usage(stdout);
            return 1;
        } else if (strcmp(name, "--version") == 0) {
            printf("clsort-bench %s (library %s)\n", CLSORT_VERSION_STRING,
                   clsort_version_string());
            return 1;
        } else if (BENCH_IS_("-q", "--quiet")) {
            o->quiet = 1;
        } else if (BENCH_IS_("-l", "--list-devices")) {
            o->list_devices = 1;
        } else if (strcmp(name, "--no-cpu") == 0) {
            o->no_cpu = 1;
        } else if (BENCH_IS_("-d", "--device")) {
            BENCH_VALUE_();
            o->device = val;
        } else if (BENCH_IS_("-t", "--types")) {
            BENCH_VALUE_();
            if (parse_types(o, val) != 0) goto bad;
        } else if (BENCH_IS_("-a", "--algos")) {
            BENCH_VALUE_();
            if (parse_algos(o, val) != 0) goto bad;
        } else if (strcmp(name, "--min-log") == 0) {
            BENCH_VALUE_();
            if (parse_int(val, 1, 40, &o->min_log) != 0) goto bad;
        } else if (strcmp(name, "--max-log") == 0) {
            BENCH_VALUE_();
            if (parse_int(val, 1, 40, &o->max_log) != 0) goto bad;
        } else if (strcmp(name, "--transposition-max-log") == 0) {
            BENCH_VALUE_();
            if (parse_int(val, 1, 40, &o->transposition_max_log) != 0) goto bad;
        } else if (strcmp(name, "--cpu-max-log") == 0) {
            BENCH_VALUE_();
            if (parse_int(val, 1, 40, &o->cpu_max_log) != 0) goto bad;
        } else if (BENCH_IS_("-r", "--runs")) {
            BENCH_VALUE_();
            if (parse_int(val, 1, BENCH_MAX_RUNS, &o->runs) != 0) goto bad;
        } else if (strcmp(name, "--csv") == 0) {
            BENCH_VALUE_();
            o->csv = val;
        } else if (strcmp(name, "--seed") == 0) {
            BENCH_VALUE_();
            char *end;
            errno = 0;
            o->seed = strtoull(val, &end, 0);
            if (errno || end == val || *end) goto bad;
        } else {
            fprintf(stderr, "clsort-bench: unknown option '%s' (try --help)\n", arg);
            return -1;
        }
        continue;
    bad:
        fprintf(stderr, "clsort-bench: bad argument '%s'%s%s\n", arg, val && !eq ? " " : "",
                val && !eq ? val : "");
        return -1;
    }
#undef BENCH_IS_
#undef BENCH_VALUE_
    if (o->min_log > o->max_log) {
        fprintf(stderr, "clsort-bench: --min-log %d is above --max-log %d\n", o->min_log,
                o->max_log);
        return -1;
    }
    return 0;
}

/* ---- Device ------------------------------------------------------------------------------------- */

static void print_device(const clsort_device_info *info, int is_default, void *user)
{
    (void)user;
    printf("%u:%u  %-40s %-5s %s%s\n", info->platform_index, info->device_index, info->name,
           info->type, info->platform, is_default ? "  (default)" : "");
}

/* Finds the device clsort would pick for `name` (so -d means exactly what it means to clsort),
 * then makes our own context and profiling queue on it and a clsort context on that queue. */
static int open_device(bench_env *env, const char *name)
{
    clsort_ctx *probe = NULL;
    cl_platform_id *platforms = NULL;
    cl_device_id *devices = NULL;
    cl_int err = CL_SUCCESS;
    int rc = clsort_create(&probe, name);
    if (rc != CLSORT_OK) {
        fprintf(stderr, "clsort-bench: device '%s': %s\n", name ? name : "(default)",
                clsort_strerror(rc));
        goto fail;
    }
    clsort_device_info info;
    clsort_get_device_info(probe, &info);
    const unsigned p = info.platform_index, d = info.device_index;
    clsort_destroy(probe);

    cl_uint np = 0, nd = 0;
    if ((err = clGetPlatformIDs(0, NULL, &np)) != CL_SUCCESS || p >= np) goto cl_fail;
    platforms = malloc(np * sizeof *platforms);
    if (!platforms || (err = clGetPlatformIDs(np, platforms, NULL)) != CL_SUCCESS) goto cl_fail;
    if ((err = clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd)) != CL_SUCCESS ||
        d >= nd)
        goto cl_fail;
    devices = malloc(nd * sizeof *devices);
    if (!devices ||
        (err = clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, nd, devices, NULL)) != CL_SUCCESS)
        goto cl_fail;
    env->device = devices[d];
    const cl_context_properties props[] = { CL_CONTEXT_PLATFORM,
                                            (cl_context_properties)platforms[p], 0 };
    env->context = clCreateContext(props, 1, &env->device, NULL, NULL, &err);
    if (err != CL_SUCCESS) goto cl_fail;
    env->queue = clCreateCommandQueue(env->context, env->device, CL_QUEUE_PROFILING_ENABLE, &err);
    if (err != CL_SUCCESS) goto cl_fail;
    rc = clsort_create_with_queue(&env->ctx, env->queue);
    if (rc != CLSORT_OK) {
        fprintf(stderr, "clsort-bench: clsort_create_with_queue: %s\n", clsort_strerror(rc));
        goto fail;
    }
    clsort_get_device_info(env->ctx, &env->info);
    env->device_is_cpu = strcmp(env->info.type, "cpu") == 0;
    free(platforms);
    free(devices);
    return 0;
cl_fail:
    fprintf(stderr, "clsort-bench: OpenCL setup on device %u:%u failed: %s (%d)\n", p, d,
            cl_error_name(err), (int)err);
fail:
    free(platforms);
    free(devices);
    return -1;
}

static void close_device(bench_env *env)
{
    clsort_destroy(env->ctx);
    if (env->queue) clReleaseCommandQueue(env->queue);
    if (env->context) clReleaseContext(env->context);
}

/* Profiled time of an event in ms, or -1 if the implementation gives none. */
static double event_ms(cl_event ev)
{
    cl_ulong t0 = 0, t1 = 0;
    if (clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL) != CL_SUCCESS ||
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL) != CL_SUCCESS ||
        t1 <= t0)
        return -1.0;
    return (double)(t1 - t0) / 1e6;
}

/* Device copy bandwidth: clEnqueueCopyBuffer of one large buffer into another, (bytes read + bytes
 * written) / profiled time, median of several copies after a warm-up. It is the yardstick for the
 * floor: a network pass can at best read and write every element once at this rate. */
static int measure_copy_bandwidth(bench_env *env)
{
    size_t bytes = (size_t)256 << 20;
    if (bytes > env->info.max_alloc) bytes = (size_t)env->info.max_alloc;
    if (bytes > env->info.global_mem / 4) bytes = (size_t)(env->info.global_mem / 4);
    bytes &= ~(size_t)4095;
    const int samples = env->opts->runs < 9 ? 9 : env->opts->runs;
    double *ms = calloc((size_t)samples, sizeof *ms);
    cl_mem src = NULL, dst = NULL;
    cl_int err = CL_SUCCESS;
    int got = 0;
    if (!ms || bytes < 4096) goto fail;
    src = clCreateBuffer(env->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (err != CL_SUCCESS) goto fail;
    dst = clCreateBuffer(env->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (err != CL_SUCCESS) goto fail;
    const cl_uint pattern = 0x5a5aa5a5u; /* not zeros: some drivers shortcut zero pages */
    if ((err = clEnqueueFillBuffer(env->queue, src, &pattern, sizeof pattern, 0, bytes, 0, NULL,
                                   NULL)) != CL_SUCCESS)
        goto fail;
    for (int i = -1; i < samples; i++) {
        cl_event ev = NULL;
        const double h0 = now_ms();
        err = clEnqueueCopyBuffer(env->queue, src, dst, 0, 0, bytes, 0, NULL, &ev);
        if (err == CL_SUCCESS) err = clWaitForEvents(1, &ev);
        const double h1 = now_ms();
        if (err != CL_SUCCESS) {
            if (ev) clReleaseEvent(ev);
            goto fail;
        }
        double t = event_ms(ev);
        if (t <= 0) t = h1 - h0;
        clReleaseEvent(ev);
        if (i >= 0) ms[got++] = t;
    }
    const double med = median(ms, got);
    env->copy_gbps = 2.0 * (double)bytes / (med * 1e-3) / 1e9;
    env->copy_bytes = bytes;
    env->copy_samples = got;
    clReleaseMemObject(src);
    clReleaseMemObject(dst);
    free(ms);
    return 0;
fail:
    fprintf(stderr, "clsort-bench: copy bandwidth not measured: %s (%d)\n", cl_error_name(err),
            (int)err);
    if (src) clReleaseMemObject(src);
    if (dst) clReleaseMemObject(dst);
    free(ms);
    return -1;
}

/* ---- Host facts --------------------------------------------------------------------------------- */

static uint64_t host_available_bytes(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    uint64_t kb = 0;
    if (!f) return 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", (unsigned long long *)&kb) == 1) break;
    fclose(f);
    return kb * 1024;
}

static void read_host_cpu(char *out, size_t size)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[256];
    snprintf(out, size, "unknown CPU");
    if (!f) return;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            const char *c = strchr(line, ':');
            if (c) {
                c++;
                while (*c == ' ') c++;
                snprintf(out, size, "%s", c);
                out[strcspn(out, "\n")] = '\0';
            }
            break;
        }
    }
    fclose(f);
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores > 0) {
        const size_t len = strlen(out);
        snprintf(out + len, size - len, ", %ld threads", cores);
    }
}

/* ---- Sizes -------------------------------------------------------------------------------------- */

static size_t element_bytes(const bench_type *t)
{
    return clsort_type_size(t->key) + t->value_size;
}

/* The largest log2 n not above max_log that the device and the host can hold: the device holds our
 * key and value buffers and the library's own for the end-to-end call (3 copies, with room to
 * spare); the host holds the input, a work copy, a reference copy and the library's staging (4
 * copies; 3 more when the "device" is the host's own memory). */
static int clamp_max_log(const bench_env *env, const bench_type *t, int max_log, const char **why)
{
    const size_t ks = clsort_type_size(t->key), vs = t->value_size, e = element_bytes(t);
    *why = NULL;
    for (int lg = max_log; lg >= 1; lg--) {
        const double n = (double)((uint64_t)1 << lg);
        if (n * (double)e * 8 > (double)SIZE_MAX) {
            *why = "address space";
            continue;
        }
        if (n * (double)ks > (double)env->info.max_alloc ||
            n * (double)vs > (double)env->info.max_alloc) {
            *why = "device max allocation";
            continue;
        }
        if (3.0 * n * (double)e > 0.9 * (double)env->info.global_mem) {
            *why = "device memory";
            continue;
        }
        const double host_need = n * (double)e * (env->device_is_cpu ? 7.0 : 4.0);
        if (env->host_avail && host_need > 0.9 * (double)env->host_avail) {
            *why = "host memory";
            continue;
        }
        return lg;
    }
    return 0;
}

/* ---- One point: a type and a size, every network ------------------------------------------------ */

typedef struct bench_point {
    const bench_type *type;
    size_t n, ks, vs;
    void *keys, *values;         /* this run's input */
    void *work_keys, *work_values;
    void *ref;                   /* std::sort's result, interleaved; valid when have_ref */
    int have_ref;
    uint64_t checksum;           /* of the input */
    cl_mem kbuf, vbuf;
} bench_point;

/* Checks a device result: sorted, the same multiset of (key, value) elements as the input, and, when
 * the reference ran this run, the same keys as std::sort. Returns NULL if good, else a reason. */
static const char *check_result(const bench_point *pt, char *why, size_t size)
{
    const size_t bad = bench_find_unsorted(pt->work_keys, pt->n, pt->type->key);
    if (bad < pt->n) {
        snprintf(why, size, "unsorted at %zu", bad);
        return why;
    }
    if (bench_checksum(pt->work_keys, pt->vs ? pt->work_values : NULL, pt->n, pt->ks, pt->vs) !=
        pt->checksum) {
        snprintf(why, size, "not a permutation of the input (checksum)");
        return why;
    }
    if (pt->have_ref) {
        const size_t at = bench_find_key_mismatch(pt->work_keys, pt->ref, pt->n, pt->ks, pt->vs);
        if (at < pt->n) {
            snprintf(why, size, "keys differ from std::sort at %zu", at);
            return why;
        }
    }
    return NULL;
}

static void mark_failed(bench_env *env, bench_result *r, const bench_point *pt, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->why, sizeof r->why, fmt, ap);
    va_end(ap);
    r->failed = 1;
    env->failures++;
    clear_progress(env);
    fprintf(stderr, "clsort-bench: FAIL %s n=%zu %s: %s\n", pt->type->name, pt->n,
            clsort_algorithm_name(r->algo), r->why);
}

/* A sort error: CLSORT_ERR_UNSUPPORTED skips the network here; anything else is a failure. */
static void note_sort_error(bench_env *env, bench_result *r, const bench_point *pt,
                            const char *call, int rc)
{
    if (rc == CLSORT_ERR_UNSUPPORTED) {
        r->skipped = 1;
        talk(env, "clsort-bench: %s n=%zu %s: %s: unsupported here, skipped\n", pt->type->name,
             pt->n, clsort_algorithm_name(r->algo), call);
        return;
    }
    mark_failed(env, r, pt, "%s: %s: %s", call, clsort_status_name(rc),
                clsort_last_error(env->ctx));
}

/* Orders time sources from best to worst, so a point reports the worst one any of its runs used. */
static int time_source_rank(char src)
{
    return src == 'p' ? 1 : src == 'e' ? 2 : src == 'h' ? 3 : 0;
}

/* Device time: upload, clsort_sort_buffer on our buffers, the library's profiled kernel time. */
static void run_device(bench_env *env, bench_point *pt, bench_result *r, int record)
{
    cl_event pre = NULL, done = NULL;
    cl_int err = clEnqueueWriteBuffer(env->queue, pt->kbuf, CL_TRUE, 0, pt->n * pt->ks, pt->keys,
                                      0, NULL, NULL);
    if (err == CL_SUCCESS && pt->vs)
        err = clEnqueueWriteBuffer(env->queue, pt->vbuf, CL_TRUE, 0, pt->n * pt->vs, pt->values, 0,
                                   NULL, NULL);
    if (err != CL_SUCCESS) {
        mark_failed(env, r, pt, "clEnqueueWriteBuffer: %s (%d)", cl_error_name(err), (int)err);
        return;
    }
    /* A marker before the sort, for the fallback timing should the library give no device_ns. */
    if (clEnqueueMarkerWithWaitList(env->queue, 0, NULL, &pre) != CL_SUCCESS) pre = NULL;
    const double h0 = now_ms();
    const int rc = clsort_sort_buffer(env->ctx, pt->kbuf, pt->vs ? pt->vbuf : NULL, pt->vs, pt->n,
                                      pt->type->key, r->algo, 0, 0, NULL, &done);
    if (rc != CLSORT_OK) {
        if (pre) clReleaseEvent(pre);
        note_sort_error(env, r, pt, "clsort_sort_buffer", rc);
        return;
    }
    err = clWaitForEvents(1, &done);
    const double h1 = now_ms();
    if (err != CL_SUCCESS) {
        mark_failed(env, r, pt, "clWaitForEvents(done): %s (%d)", cl_error_name(err), (int)err);
        goto out;
    }
    clsort_stats st;
    memset(&st, 0, sizeof st);
    clsort_get_stats(env->ctx, &st);
    double ms;
    char src;
    cl_ulong pre_end = 0, done_end = 0;
    if (st.device_ns > 0) {
        ms = (double)st.device_ns / 1e6;
        src = 'p';
    } else if (pre &&
               clGetEventProfilingInfo(pre, CL_PROFILING_COMMAND_END, sizeof pre_end, &pre_end,
                                       NULL) == CL_SUCCESS &&
               clGetEventProfilingInfo(done, CL_PROFILING_COMMAND_END, sizeof done_end, &done_end,
                                       NULL) == CL_SUCCESS &&
               done_end > pre_end) {
        ms = (double)(done_end - pre_end) / 1e6;
        src = 'e';
    } else {
        ms = h1 - h0;
        src = 'h';
    }
    r->ran = st.algorithm;
    r->launches = st.launches;
    r->passes = st.global_passes;
    if (time_source_rank(src) > time_source_rank(r->time_source)) r->time_source = src;

    err = clEnqueueReadBuffer(env->queue, pt->kbuf, CL_TRUE, 0, pt->n * pt->ks, pt->work_keys, 0,
                              NULL, NULL);
    if (err == CL_SUCCESS && pt->vs)
        err = clEnqueueReadBuffer(env->queue, pt->vbuf, CL_TRUE, 0, pt->n * pt->vs,
                                  pt->work_values, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        mark_failed(env, r, pt, "clEnqueueReadBuffer: %s (%d)", cl_error_name(err), (int)err);
        goto out;
    }
    char why[160];
    if (check_result(pt, why, sizeof why)) {
        mark_failed(env, r, pt, "device (clsort_sort_buffer): %s", why);
        goto out;
    }
    if (record) r->device_ms[r->ndevice++] = ms;
out:
    if (pre) clReleaseEvent(pre);
    if (done) clReleaseEvent(done);
}

/* End-to-end time: what a user gets from clsort_sort / clsort_sort_pairs on a host array, host
 * fallback for small inputs allowed, on the host clock. */
static void run_e2e(bench_env *env, bench_point *pt, bench_result *r, int record)
{
    memcpy(pt->work_keys, pt->keys, pt->n * pt->ks);
    if (pt->vs) memcpy(pt->work_values, pt->values, pt->n * pt->vs);
    const double t0 = now_ms();
    const int rc = pt->vs ? clsort_sort_pairs(env->ctx, pt->work_keys, pt->work_values, pt->vs,
                                              pt->n, pt->type->key, r->algo, 0)
                          : clsort_sort(env->ctx, pt->work_keys, pt->n, pt->type->key, r->algo, 0);
    const double t1 = now_ms();
    if (rc != CLSORT_OK) {
        note_sort_error(env, r, pt, pt->vs ? "clsort_sort_pairs" : "clsort_sort", rc);
        return;
    }
    clsort_stats st;
    if (clsort_get_stats(env->ctx, &st) == CLSORT_OK && st.host_fallback) r->e2e_host_fallback = 1;
    char why[160];
    if (check_result(pt, why, sizeof why)) {
        mark_failed(env, r, pt, "end-to-end (%s): %s", pt->vs ? "clsort_sort_pairs" : "clsort_sort",
                    why);
        return;
    }
    if (record) r->e2e_ms[r->ne2e++] = t1 - t0;
}

/* ---- Output ------------------------------------------------------------------------------------- */

static void fmt_ms(char *buf, size_t size, double ms)
{
    if (ms < 0)
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%.3f", ms);
}

static void fmt_rate(char *buf, size_t size, size_t n, double ms)
{
    if (ms <= 0)
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%.2f", (double)n / (ms * 1e-3) / 1e6);
}

static void csv_num(FILE *f, double v, const char *fmt)
{
    if (v >= 0) fprintf(f, fmt, v);
    fputc(',', f);
}

static void print_header(bench_env *env, FILE *f, const char *lead)
{
    const bench_opts *o = env->opts;
    const clsort_device_info *d = &env->info;
    fprintf(f, "%s clsort-bench %s, library %s\n", lead, CLSORT_VERSION_STRING,
            clsort_version_string());
    fprintf(f, "%s device: %s | vendor %s | platform %s | driver %s | %s, %u compute units, "
               "%.0f MiB global memory | config %s\n",
            lead, d->name, d->vendor, d->platform, d->driver, d->type, d->compute_units,
            (double)d->global_mem / 1048576.0, d->config_source);
    fprintf(f, "%s host: %s\n", lead, env->host_cpu);
    fprintf(f, "%s date: %s\n", lead, env->date);
    fprintf(f, "%s device time: OpenCL profiling, first kernel start to last kernel end "
               "(clsort_get_stats device_ns after clsort_sort_buffer on uploaded buffers)\n",
            lead);
    fprintf(f, "%s end-to-end time: host clock around clsort_sort / clsort_sort_pairs, host array "
               "in, sorted host array out (host fallback allowed)\n",
            lead);
    fprintf(f, "%s qsort, std::sort: host clock, same data, same order (floats by totalOrder)\n",
            lead);
    fprintf(f, "%s median of %d runs after 1 warm-up; fresh random bits every run (seed %llu); "
               "every device result checked\n",
            lead, o->runs, (unsigned long long)o->seed);
    if (env->copy_gbps > 0)
        fprintf(f, "%s copy bandwidth: %.1f GB/s (clEnqueueCopyBuffer of %zu MiB, bytes read + "
                   "written / profiled time, median of %d); floor = passes x 2 x n x element "
                   "bytes / copy bandwidth\n",
                lead, env->copy_gbps, env->copy_bytes >> 20, env->copy_samples);
    else
        fprintf(f, "%s copy bandwidth: not measured (no floor)\n", lead);
}

static void print_table_header(const bench_type *t)
{
    if (t->value_size)
        printf("\n%s: %s keys + %zu-byte values", t->name, clsort_type_name(t->key), t->value_size);
    else
        printf("\n%s keys", t->name);
    printf(" (times in ms; keys/s in millions; x qsort = qsort time / end-to-end time)\n");
    printf("%10s  %-28s %9s %9s %9s %9s %10s %10s %7s %6s %8s %6s  %s\n", "n", "network", "qsort",
           "std::sort", "device", "dev+xfer", "dev Mk/s", "e2e Mk/s", "x qsort", "passes",
           "floor", "floor%", "check");
}

static void print_csv_columns(FILE *f)
{
    fputs("type,key_type,key_bytes,value_bytes,n,log2n,algo,algo_run,runs,device_ms,device_ms_min,"
          "device_ms_max,device_time_source,e2e_ms,e2e_host_fallback,qsort_ms,stdsort_ms,"
          "device_keys_per_s,e2e_keys_per_s,qsort_keys_per_s,stdsort_keys_per_s,launches,"
          "global_passes,copy_gb_per_s,floor_ms,floor_fraction,check\n",
          f);
}

static void report_result(bench_env *env, const bench_point *pt, int lg, bench_result *r,
                          double qsort_ms, double std_ms)
{
    double lo = r->ndevice ? r->device_ms[0] : -1, dev_max = -1;
    for (int i = 0; i < r->ndevice; i++) {
        if (r->device_ms[i] > dev_max) dev_max = r->device_ms[i];
        if (r->device_ms[i] < lo) lo = r->device_ms[i];
    }
    const int bad = r->failed || r->skipped;
    const double dev = bad ? -1 : median(r->device_ms, r->ndevice);
    const double e2e = bad ? -1 : median(r->e2e_ms, r->ne2e);
    const double bytes = (double)pt->n * (double)element_bytes(pt->type);
    const double floor_ms =
        (env->copy_gbps > 0 && r->ndevice && !bad) ? r->passes * 2.0 * bytes / (env->copy_gbps * 1e9) * 1e3
                                           : -1;
    const double frac = (floor_ms >= 0 && dev > 0) ? floor_ms / dev : -1;

    char name[64], q[32], s[32], dv[32], ee[32], dr[32], er[32], xq[32], ps[16], fl[32], fr[16];
    char check[240];
    if (r->algo == CLSORT_AUTO && r->ndevice && !bad)
        snprintf(name, sizeof name, "auto>%s", clsort_algorithm_name(r->ran));
    else
        snprintf(name, sizeof name, "%s", clsort_algorithm_name(r->algo));
    fmt_ms(q, sizeof q, qsort_ms);
    fmt_ms(s, sizeof s, std_ms);
    fmt_ms(dv, sizeof dv, dev);
    fmt_ms(ee, sizeof ee, e2e);
    fmt_rate(dr, sizeof dr, pt->n, dev);
    fmt_rate(er, sizeof er, pt->n, e2e);
    if (qsort_ms > 0 && e2e > 0)
        snprintf(xq, sizeof xq, "%.2f", qsort_ms / e2e);
    else
        snprintf(xq, sizeof xq, "-");
    if (r->ndevice && !bad)
        snprintf(ps, sizeof ps, "%u", r->passes);
    else
        snprintf(ps, sizeof ps, "-");
    fmt_ms(fl, sizeof fl, floor_ms);
    if (frac >= 0)
        snprintf(fr, sizeof fr, "%.1f%%", 100.0 * frac);
    else
        snprintf(fr, sizeof fr, "-");
    if (r->failed)
        snprintf(check, sizeof check, "FAIL: %s", r->why);
    else if (r->skipped)
        snprintf(check, sizeof check, "skipped: unsupported on this device");
    else
        snprintf(check, sizeof check, "ok%s%s", r->e2e_host_fallback ? " e2e-host-fallback" : "",
                 r->time_source == 'e'   ? " time-from-events"
                 : r->time_source == 'h' ? " time-from-host-clock"
                                         : "");
    clear_progress(env);
    printf("%10zu  %-28s %9s %9s %9s %9s %10s %10s %7s %6s %8s %6s  %s\n", pt->n, name, q, s, dv,
           ee, dr, er, xq, ps, fl, fr, check);
    fflush(stdout);

    if (!env->csv) return;
    FILE *f = env->csv;
    fprintf(f, "%s,%s,%zu,%zu,%zu,%d,%s,%s,%d,", pt->type->name, clsort_type_name(pt->type->key),
            pt->ks, pt->vs, pt->n, lg, clsort_algorithm_name(r->algo),
            r->ndevice && !bad ? clsort_algorithm_name(r->ran) : "", bad ? 0 : r->ndevice);
    csv_num(f, dev, "%.6f");
    csv_num(f, bad ? -1 : lo, "%.6f");
    csv_num(f, bad ? -1 : dev_max, "%.6f");
    fprintf(f, "%c,", r->ndevice && !bad ? r->time_source : '-');
    csv_num(f, e2e, "%.6f");
    fprintf(f, "%d,", r->e2e_host_fallback);
    csv_num(f, qsort_ms, "%.6f");
    csv_num(f, std_ms, "%.6f");
    csv_num(f, dev > 0 ? (double)pt->n / (dev * 1e-3) : -1, "%.6g");
    csv_num(f, e2e > 0 ? (double)pt->n / (e2e * 1e-3) : -1, "%.6g");
    csv_num(f, qsort_ms > 0 ? (double)pt->n / (qsort_ms * 1e-3) : -1, "%.6g");
    csv_num(f, std_ms > 0 ? (double)pt->n / (std_ms * 1e-3) : -1, "%.6g");
    if (r->ndevice && !bad)
        fprintf(f, "%u,%u,", r->launches, r->passes);
    else
        fputs(",,", f);
    csv_num(f, env->copy_gbps > 0 ? env->copy_gbps : -1, "%.1f");
    csv_num(f, floor_ms, "%.6f");
    csv_num(f, frac, "%.4f");
    /* The check column is free text; keep it CSV-safe. */
    for (char *c = check; *c; c++)
        if (*c == ',' || *c == '"' || *c == '\n') *c = ';';
    fprintf(f, "%s\n", check);
    fflush(f);
}

/* ---- The benchmark loop ------------------------------------------------------------------------- */

static uint64_t point_seed(uint64_t seed, const bench_type *t, int lg)
{
    uint64_t h = seed ^ 0x6a09e667f3bcc909u;
    for (const char *c = t->name; *c; c++) h = (h ^ (unsigned char)*c) * 0x100000001b3u;
    return (h ^ ((uint64_t)lg << 48)) * 0x9e3779b97f4a7c15u;
}

/* Benchmarks every network on one type at n = 2^lg. */
static void bench_point_run(bench_env *env, const bench_type *t, int lg)
{
    const bench_opts *o = env->opts;
    bench_point pt;
    memset(&pt, 0, sizeof pt);
    pt.type = t;
    pt.n = (size_t)1 << lg;
    pt.ks = clsort_type_size(t->key);
    pt.vs = t->value_size;
    const size_t e = pt.ks + pt.vs;
    const int cpu = !o->no_cpu && lg <= o->cpu_max_log;
    bench_result res[BENCH_MAX_ALGOS];
    double *times = NULL, qs[BENCH_MAX_RUNS], ss[BENCH_MAX_RUNS];
    int nq = 0, ns = 0, nres = 0;
    cl_int err = CL_SUCCESS;
    memset(res, 0, sizeof res);

    pt.keys = malloc(pt.n * pt.ks);
    pt.work_keys = malloc(pt.n * pt.ks);
    pt.values = pt.vs ? malloc(pt.n * pt.vs) : NULL;
    pt.work_values = pt.vs ? malloc(pt.n * pt.vs) : NULL;
    pt.ref = cpu ? malloc(pt.n * e) : NULL;
    times = malloc(sizeof *times * 2 * (size_t)o->runs * BENCH_MAX_ALGOS);
    if (!pt.keys || !pt.work_keys || (pt.vs && (!pt.values || !pt.work_values)) ||
        (cpu && !pt.ref) || !times) {
        fprintf(stderr, "clsort-bench: %s n=%zu: out of host memory, skipped\n", t->name, pt.n);
        env->failures++;
        goto out;
    }
    pt.kbuf = clCreateBuffer(env->context, CL_MEM_READ_WRITE, pt.n * pt.ks, NULL, &err);
    if (err == CL_SUCCESS && pt.vs)
        pt.vbuf = clCreateBuffer(env->context, CL_MEM_READ_WRITE, pt.n * pt.vs, NULL, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clsort-bench: %s n=%zu: clCreateBuffer: %s (%d), skipped\n", t->name,
                pt.n, cl_error_name(err), (int)err);
        env->failures++;
        goto out;
    }
    for (int a = 0; a < o->nalgos; a++) {
        if (o->algos[a] == CLSORT_ODD_EVEN_TRANSPOSITION && lg > o->transposition_max_log) continue;
        bench_result *r = &res[nres];
        r->algo = o->algos[a];
        r->device_ms = times + (size_t)nres * 2 * (size_t)o->runs;
        r->e2e_ms = r->device_ms + o->runs;
        nres++;
    }

    const uint64_t seed = point_seed(o->seed, t, lg);
    for (int run = -1; run < o->runs; run++) {
        const int record = run >= 0;
        /* Fresh data every run: the run number is part of the seed (keys and values apart). */
        bench_fill_random(seed + 2 * (uint64_t)(run + 1), pt.keys, pt.n * pt.ks);
        if (pt.vs) bench_fill_random(seed + 2 * (uint64_t)(run + 1) + 1, pt.values, pt.n * pt.vs);
        pt.checksum = bench_checksum(pt.keys, pt.values, pt.n, pt.ks, pt.vs);
        pt.have_ref = 0;
        if (cpu && record) {
            show_progress(env, "%s 2^%d qsort run %d/%d", t->name, lg, run + 1, o->runs);
            bench_pack(pt.ref, pt.keys, pt.values, pt.n, pt.ks, pt.vs);
            double t0 = now_ms();
            bench_qsort(pt.ref, pt.n, t->key, pt.vs);
            qs[nq++] = now_ms() - t0;
            show_progress(env, "%s 2^%d std::sort run %d/%d", t->name, lg, run + 1, o->runs);
            bench_pack(pt.ref, pt.keys, pt.values, pt.n, pt.ks, pt.vs);
            t0 = now_ms();
            bench_stdsort(pt.ref, pt.n, t->key, pt.vs);
            ss[ns++] = now_ms() - t0;
            /* The reference checks the device; make sure it is itself what it claims. */
            if (bench_checksum_packed(pt.ref, pt.n, pt.ks, pt.vs) != pt.checksum) {
                fprintf(stderr, "clsort-bench: std::sort reference lost elements (bug)\n");
                env->failures++;
            } else {
                pt.have_ref = 1;
            }
        }
        for (int a = 0; a < nres; a++) {
            bench_result *r = &res[a];
            if (r->failed || r->skipped) continue;
            show_progress(env, "%s 2^%d %s run %d/%d", t->name, lg, clsort_algorithm_name(r->algo),
                          run + 1, o->runs);
            run_device(env, &pt, r, record);
            if (r->failed || r->skipped) continue;
            run_e2e(env, &pt, r, record);
        }
    }
    const double qsort_ms = median(qs, nq), std_ms = median(ss, ns);
    for (int a = 0; a < nres; a++) report_result(env, &pt, lg, &res[a], qsort_ms, std_ms);
out:
    if (pt.kbuf) clReleaseMemObject(pt.kbuf);
    if (pt.vbuf) clReleaseMemObject(pt.vbuf);
    free(pt.keys);
    free(pt.values);
    free(pt.work_keys);
    free(pt.work_values);
    free(pt.ref);
    free(times);
}

static void bench_type_run(bench_env *env, const bench_type *t)
{
    const bench_opts *o = env->opts;
    const char *why = NULL;
    const int max_log = clamp_max_log(env, t, o->max_log, &why);
    if (max_log < o->max_log)
        talk(env, "clsort-bench: %s: --max-log lowered from %d to %d (%s)\n", t->name, o->max_log,
             max_log, why ? why : "memory");
    if (max_log < o->min_log) {
        talk(env, "clsort-bench: %s: no size from 2^%d fits, skipped\n", t->name, o->min_log);
        return;
    }
    print_table_header(t);
    for (int lg = o->min_log; lg <= max_log; lg++) bench_point_run(env, t, lg);
}

int main(int argc, char **argv)
{
    bench_opts o;
    memset(&o, 0, sizeof o);
    o.min_log = 10;
    o.max_log = 28;
    o.transposition_max_log = 16;
    o.cpu_max_log = 24;
    o.runs = 5;
    o.seed = 1;
    parse_types(&o, "u32,u64,f32,pairs32,pairs64");
    parse_algos(&o, "auto,bitonic,odd-even-merge,odd-even-transposition");
    const int pa = parse_args(argc, argv, &o);
    if (pa != 0) return pa > 0 ? BENCH_EXIT_OK : BENCH_EXIT_USAGE;
    if (o.list_devices) {
        const int nd = clsort_list_devices(print_device, NULL);
        if (nd <= 0) {
            fprintf(stderr, "clsort-bench: no OpenCL devices%s\n", nd < 0 ? " (OpenCL error)" : "");
            return BENCH_EXIT_SETUP;
        }
        return BENCH_EXIT_OK;
    }

    bench_env env;
    memset(&env, 0, sizeof env);
    env.opts = &o;
    env.progress = !o.quiet && isatty(STDERR_FILENO);
    env.host_avail = host_available_bytes();
    read_host_cpu(env.host_cpu, sizeof env.host_cpu);
    const time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(env.date, sizeof env.date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (o.runs < 5)
        talk(&env, "clsort-bench: note: %d run%s per point; use at least 5 for figures to quote\n",
             o.runs, o.runs == 1 ? "" : "s");

    if (open_device(&env, o.device) != 0) {
        close_device(&env);
        return BENCH_EXIT_SETUP;
    }
    const char *warnings = clsort_warnings(env.ctx);
    if (warnings && *warnings) talk(&env, "clsort-bench: library warnings:\n%s\n", warnings);
    show_progress(&env, "measuring copy bandwidth");
    measure_copy_bandwidth(&env);
    if (o.csv) {
        env.csv = fopen(o.csv, "w");
        if (!env.csv) {
            fprintf(stderr, "clsort-bench: cannot write %s: %s\n", o.csv, strerror(errno));
            close_device(&env);
            return BENCH_EXIT_USAGE;
        }
        print_header(&env, env.csv, "#");
        print_csv_columns(env.csv);
        fflush(env.csv);
    }
    print_header(&env, stdout, "#");
    if (!o.no_cpu && o.cpu_max_log < o.max_log)
        printf("# qsort and std::sort up to n = 2^%d only (--cpu-max-log)\n", o.cpu_max_log);
    for (int a = 0; a < o.nalgos; a++)
        if (o.algos[a] == CLSORT_ODD_EVEN_TRANSPOSITION && o.transposition_max_log < o.max_log)
            printf("# odd-even-transposition up to n = 2^%d only (--transposition-max-log)\n",
                   o.transposition_max_log);
    fflush(stdout);

    for (int i = 0; i < o.ntypes; i++) bench_type_run(&env, &o.types[i]);
    clear_progress(&env);

    if (env.failures)
        fprintf(stderr, "clsort-bench: %d failure%s (see the check column)\n", env.failures,
                env.failures == 1 ? "" : "s");
    if (env.csv) fclose(env.csv);
    close_device(&env);
    return env.failures ? BENCH_EXIT_FAILED : BENCH_EXIT_OK;
}
