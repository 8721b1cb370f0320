/* bench_main.c - clsort-bench: times clsort's sorting networks on one OpenCL device against qsort,
 * std::sort and (built with libhwy) Highway's vqsort on the same random data, checks every result, and reports how close each network runs to
 * the memory-bandwidth floor its schedule implies. Uses only clsort.h and plain OpenCL calls on a
 * queue it creates itself (with profiling, so the library can time its own kernels). This file
 * decides which points run and in what order; bench.h names the other parts. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

/* ---- Sizes -------------------------------------------------------------------------------------- */

/* The largest log2 n not above max_log that the device and the host can hold: the device holds our
 * key and value buffers and the library's own for the end-to-end call (3 copies, with room to
 * spare); the host holds the input, a work copy, a reference copy and the library's staging (4
 * copies; 3 more when the "device" is the host's own memory). */
static int clamp_max_log(const bench_env *env, const bench_type *t, int max_log, const char **why)
{
    const size_t ks = clsort_type_size(t->key), vs = t->value_size, e = bench_element_bytes(t);
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

/* ---- The benchmark loop ------------------------------------------------------------------------- */

static void bench_type_run(bench_env *env, const bench_type *t)
{
    const bench_opts *o = env->opts;
    const char *why = NULL;
    const int max_log = clamp_max_log(env, t, o->max_log, &why);
    if (max_log < o->max_log)
        bench_talk(env, "clsort-bench: %s: --max-log lowered from %d to %d (%s)\n", t->name, o->max_log,
             max_log, why ? why : "memory");
    if (max_log < o->min_log) {
        bench_talk(env, "clsort-bench: %s: no size from 2^%d fits, skipped\n", t->name, o->min_log);
        return;
    }
    bench_print_table_header(t);
    for (int lg = o->min_log; lg <= max_log; lg++) bench_point_run(env, t, lg);
}

int main(int argc, char **argv)
{
    bench_opts o;
    bench_set_defaults(&o);
    const int pa = bench_parse_args(argc, argv, &o);
    if (pa != 0) return pa > 0 ? BENCH_EXIT_OK : BENCH_EXIT_USAGE;
    if (o.list_devices) {
        const int nd = clsort_list_devices(bench_print_device, NULL);
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
    env.host_avail = bench_host_available_bytes();
    bench_read_host_cpu(env.host_cpu, sizeof env.host_cpu);
    const time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(env.date, sizeof env.date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (o.runs < 5)
        bench_talk(&env, "clsort-bench: note: %d run%s per point; use at least 5 for figures to quote\n",
             o.runs, o.runs == 1 ? "" : "s");

    if (bench_open_device(&env, o.device) != 0) {
        bench_close_device(&env);
        return BENCH_EXIT_SETUP;
    }
    const char *warnings = clsort_warnings(env.ctx);
    if (warnings && *warnings) bench_talk(&env, "clsort-bench: library warnings:\n%s\n", warnings);
    bench_show_progress(&env, "measuring copy bandwidth");
    bench_measure_copy_bandwidth(&env);
    bench_measure_bus_bandwidth(&env);
    if (o.csv) {
        env.csv = fopen(o.csv, "w");
        if (!env.csv) {
            fprintf(stderr, "clsort-bench: cannot write %s: %s\n", o.csv, strerror(errno));
            bench_close_device(&env);
            return BENCH_EXIT_USAGE;
        }
        bench_print_header(&env, env.csv, "#");
        if (!o.segments && !o.topk) /* these modes write their own column lines */
            bench_print_csv_columns(env.csv);
        fflush(env.csv);
    }
    bench_print_header(&env, stdout, "#");
    if (!o.no_cpu && o.cpu_max_log < o.max_log)
        printf("# qsort, std::sort and vqsort up to n = 2^%d only (--cpu-max-log)\n", o.cpu_max_log);
    for (int a = 0; a < o.nalgos; a++)
        if (o.algos[a] == CLSORT_ODD_EVEN_TRANSPOSITION && o.transposition_max_log < o.max_log)
            printf("# odd-even-transposition up to n = 2^%d only (--transposition-max-log)\n",
                   o.transposition_max_log);
    fflush(stdout);

    if (o.topk)
        bench_topk_run(&env);
    else if (o.segments)
        bench_segments_run(&env);
    else
        for (int i = 0; i < o.ntypes; i++) bench_type_run(&env, &o.types[i]);
    bench_clear_progress(&env);

    if (env.failures)
        fprintf(stderr, "clsort-bench: %d failure%s (see the check column)\n", env.failures,
                env.failures == 1 ? "" : "s");
    if (env.csv) fclose(env.csv);
    bench_close_device(&env);
    return env.failures ? BENCH_EXIT_FAILED : BENCH_EXIT_OK;
}
