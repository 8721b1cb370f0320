/* bench.h - what the parts of clsort-bench share: its options, the device it runs on, one point (a
 * type at one size) and what each network did there. The parts: bench_options.c (command line),
 * bench_setup.c (device, queue, host facts), bench_measure.c (timed runs of one point),
 * bench_report.c (table, CSV, notes on stderr), bench_ref.c / bench_stdsort.cpp / bench_vqsort.cpp
 * (CPU references and checks), bench_main.c (which points run, in what order). Uses only clsort.h and plain OpenCL. */
#ifndef CLSORT_BENCH_H
#define CLSORT_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <clsort.h>

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
    int cpu_max_log;           /* qsort / std::sort / vqsort only up to here: seconds at 2^24 */
    int runs;
    const char *csv;
    int no_cpu;
    int host_alloc;            /* --host-alloc: end-to-end arrays from clsort_host_alloc */
    int quiet;
    int list_devices;
    uint64_t seed;
    int algos_given;           /* -a was given (the segmented mode defaults to auto alone) */
    int segments;              /* --segments: the segmented mode (bench_segments.c) */
    int seg_log;               /* keys per segmented point: 2^seg_log */
    size_t seg_sizes[16];      /* typical segment lengths s */
    int nseg_sizes;
    unsigned seg_mixes;        /* bit 0 equal, 1 uniform 1..2s, 2 power-law */
    int seg_stable;            /* --stable: CLSORT_STABLE on the segmented mode's pair types */
    int types_given;           /* -t was given (the top-k mode defaults to u32,f32) */
    int topk;                  /* --topk: the top-k mode (bench_topk.c) */
    int topk_scale;            /* --topk-scale S: the cells' totals divided by 2^S */
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
    double h2d_gbps, d2h_gbps; /* pinned host <-> device bandwidth, bytes / s / 1e9; 0: unknown */
    size_t bus_bytes;          /* size of the block that measured them */
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
    double up_ms_sum, down_ms_sum; /* clsort_stats upload_ns / download_ns over recorded runs */
    int nxfer;
    int skipped;           /* CLSORT_ERR_UNSUPPORTED: not a failure, nothing to report */
    int failed;
    char why[200];
} bench_result;

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

static inline size_t bench_element_bytes(const bench_type *t)
{
    return clsort_type_size(t->key) + t->value_size;
}

/* ---- bench_options.c: the command line ----------------------------------------------------------- */

/** The defaults: every network on u32, u64, f32, pairs32, pairs64 from 2^10 to 2^28, 5 runs. */
void bench_set_defaults(bench_opts *o);

/** Parses argv into *o. Returns -1 to exit with BENCH_EXIT_USAGE, 1 to exit successfully (--help,
 *  --version), 0 to go on. Long options take "--opt VALUE" or "--opt=VALUE". */
int bench_parse_args(int argc, char **argv, bench_opts *o);

/* ---- bench_setup.c: the device and the host ------------------------------------------------------ */

/** The name of an OpenCL error code, for messages. */
const char *bench_cl_error_name(cl_int err);

/** One line of --list-devices (a clsort_list_devices callback). */
void bench_print_device(const clsort_device_info *info, int is_default, void *user);

/** Opens the device clsort would pick for `name` with our own context and profiling queue, and a
 *  clsort context on that queue. Returns 0, or -1 after printing why (bench_close_device then). */
int bench_open_device(bench_env *env, const char *name);
void bench_close_device(bench_env *env);

/** Bytes of host memory available now (MemAvailable), 0 if unknown. */
uint64_t bench_host_available_bytes(void);

/** The host CPU's model name and thread count, for the header. */
void bench_read_host_cpu(char *out, size_t size);

/* ---- bench_stats.c: the clock and the median ------------------------------------------------------ */

/** Milliseconds from a monotonic clock. */
double bench_now_ms(void);

/** Median of v[0..n) (sorts v); NAN-free input assumed; returns -1 for n == 0. */
double bench_median(double *v, int n);

/* ---- bench_measure.c: timed runs ----------------------------------------------------------------- */

/** Measures the device copy bandwidth into env->copy_gbps (the yardstick of the floor). Returns 0,
 *  or -1 after printing why (no floor then). */
int bench_measure_copy_bandwidth(bench_env *env);

/** Measures pinned host-to-device and device-to-host bandwidth (clEnqueueWrite/ReadBuffer from a
 *  clsort_host_alloc block) into env->h2d_gbps and env->d2h_gbps: the two crossings of the bus
 *  that bound a host-to-host sort. Returns 0, or -1 (not measured). */
int bench_measure_bus_bandwidth(bench_env *env);

/** Benchmarks every network on one type at n = 2^lg and reports each (bench_report_result). */
void bench_point_run(bench_env *env, const bench_type *t, int lg);

/* ---- bench_segments.c: the segmented mode --------------------------------------------------------- */

/** Times clsort_sort_segments for every type, network, mix and s of the options, against qsort of
 *  each segment, checking every result; one CSV line per point on stdout (and the CSV file). */
void bench_segments_run(bench_env *env);

/* ---- bench_topk.c: the top-k mode ---------------------------------------------------------------- */

/** Times clsort_topk_buffer on issue 27's cells (rows x n, k) for every key type of the options,
 *  checking each cell against a stable sort of each row; one CSV line per cell on stdout. */
void bench_topk_run(bench_env *env);

/* ---- bench_report.c: what clsort-bench writes ---------------------------------------------------- */

/** A note on stderr (not under -q), erasing the progress line first. */
void bench_talk(const bench_env *env, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/** A progress line on the terminal, a few updates a second at most. */
void bench_show_progress(bench_env *env, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void bench_clear_progress(const bench_env *env);

/** The "#" lines that say what was measured, where and how, on stdout and atop the CSV. */
void bench_print_header(bench_env *env, FILE *f, const char *lead);

/** The title and column names of one type's table on stdout. */
void bench_print_table_header(const bench_type *t);

/** The CSV column names. */
void bench_print_csv_columns(FILE *f);

/** One table row (and CSV line) for one network at one point. */
void bench_report_result(bench_env *env, const bench_point *pt, int lg, bench_result *r,
                         double qsort_ms, double std_ms, double vq_ms);

#endif /* CLSORT_BENCH_H */
