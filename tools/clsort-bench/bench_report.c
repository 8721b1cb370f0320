/* bench_report.c - what clsort-bench writes: the header, one table per type on stdout, the same
 * points as CSV, and notes and progress on stderr. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "bench_ref.h"

void bench_talk(const bench_env *env, const char *fmt, ...)
{
    if (env->opts->quiet) return;
    if (env->progress) fputs("\r\033[K", stderr);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

void bench_show_progress(bench_env *env, const char *fmt, ...)
{
    if (!env->progress) return;
    const double t = bench_now_ms();
    if (t - env->last_progress < 250.0) return;
    env->last_progress = t;
    fputs("\r\033[K", stderr);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fflush(stderr);
}

void bench_clear_progress(const bench_env *env)
{
    if (env->progress) fputs("\r\033[K", stderr);
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

void bench_print_header(bench_env *env, FILE *f, const char *lead)
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
    fprintf(f, "%s qsort, std::sort%s: host clock, one thread, same data, same order (floats by "
               "totalOrder)\n",
            lead, bench_have_vqsort() ? ", vqsort (Highway)" : " (vqsort: not built with libhwy)");
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
    if (env->h2d_gbps > 0)
        fprintf(f, "%s bus: pinned host-to-device %.2f GB/s, device-to-host %.2f GB/s "
                   "(clEnqueueWrite/ReadBuffer of a %zu MiB clsort_host_alloc block, median); "
                   "xfer floor = n x element bytes / each, summed; up, down = clsort_stats "
                   "upload_ns, download_ns of the end-to-end call (mean); xfer%% = xfer floor / "
                   "end-to-end; end-to-end arrays %s\n",
                lead, env->h2d_gbps, env->d2h_gbps, env->bus_bytes >> 20,
                o->host_alloc ? "from clsort_host_alloc (--host-alloc)" : "from malloc");
    else
        fprintf(f, "%s bus: not measured (no transfer floor)\n", lead);
}

void bench_print_table_header(const bench_type *t)
{
    if (t->value_size)
        printf("\n%s: %s keys + %zu-byte values", t->name, clsort_type_name(t->key), t->value_size);
    else
        printf("\n%s keys", t->name);
    printf(" (times in ms; keys/s in millions; x qsort, x vqsort = their time / end-to-end time: "
           "below 1 the CPU sort is faster)\n");
    printf("%10s  %-28s %9s %9s %9s %9s %9s %10s %10s %7s %8s %6s %8s %6s %8s %8s %6s  %s\n", "n",
           "network", "qsort", "std::sort", "vqsort", "device", "dev+xfer", "dev Mk/s", "e2e Mk/s",
           "x qsort", "x vqsort", "passes", "floor", "floor%", "up", "down", "xfer%", "check");
}

void bench_print_csv_columns(FILE *f)
{
    fputs("type,key_type,key_bytes,value_bytes,n,log2n,algo,algo_run,runs,device_ms,device_ms_min,"
          "device_ms_max,device_time_source,e2e_ms,e2e_host_fallback,qsort_ms,stdsort_ms,vqsort_ms,"
          "device_keys_per_s,e2e_keys_per_s,qsort_keys_per_s,stdsort_keys_per_s,vqsort_keys_per_s,"
          "launches,"
          "global_passes,copy_gb_per_s,floor_ms,floor_fraction,upload_ms,download_ms,"
          "h2d_gb_per_s,d2h_gb_per_s,xfer_floor_ms,xfer_floor_fraction,check\n",
          f);
}

void bench_report_result(bench_env *env, const bench_point *pt, int lg, bench_result *r,
                          double qsort_ms, double std_ms, double vq_ms)
{
    double lo = r->ndevice ? r->device_ms[0] : -1, dev_max = -1;
    for (int i = 0; i < r->ndevice; i++) {
        if (r->device_ms[i] > dev_max) dev_max = r->device_ms[i];
        if (r->device_ms[i] < lo) lo = r->device_ms[i];
    }
    const int bad = r->failed || r->skipped;
    const double dev = bad ? -1 : bench_median(r->device_ms, r->ndevice);
    const double e2e = bad ? -1 : bench_median(r->e2e_ms, r->ne2e);
    const double bytes = (double)pt->n * (double)bench_element_bytes(pt->type);
    const double floor_ms =
        (env->copy_gbps > 0 && r->ndevice && !bad) ? r->passes * 2.0 * bytes / (env->copy_gbps * 1e9) * 1e3
                                           : -1;
    const double frac = (floor_ms >= 0 && dev > 0) ? floor_ms / dev : -1;
    const double up = (!bad && r->nxfer) ? r->up_ms_sum / r->nxfer : -1;
    const double down = (!bad && r->nxfer) ? r->down_ms_sum / r->nxfer : -1;
    const double xfloor = (env->h2d_gbps > 0 && env->d2h_gbps > 0)
                              ? (bytes / (env->h2d_gbps * 1e9) + bytes / (env->d2h_gbps * 1e9)) * 1e3
                              : -1;
    const double xfrac = (xfloor > 0 && e2e > 0 && !r->e2e_host_fallback) ? xfloor / e2e : -1;
    char us[32], ds[32], xf[16];
    fmt_ms(us, sizeof us, up);
    fmt_ms(ds, sizeof ds, down);
    if (xfrac >= 0)
        snprintf(xf, sizeof xf, "%.1f%%", 100.0 * xfrac);
    else
        snprintf(xf, sizeof xf, "-");

    char name[64], q[32], s[32], vqs[32], dv[32], ee[32], dr[32], er[32], xq[32], xv[32], ps[16];
    char fl[32], fr[16];
    char check[240];
    if (r->algo == CLSORT_AUTO && r->ndevice && !bad)
        snprintf(name, sizeof name, "auto>%s", clsort_algorithm_name(r->ran));
    else
        snprintf(name, sizeof name, "%s", clsort_algorithm_name(r->algo));
    fmt_ms(q, sizeof q, qsort_ms);
    fmt_ms(s, sizeof s, std_ms);
    fmt_ms(vqs, sizeof vqs, vq_ms);
    fmt_ms(dv, sizeof dv, dev);
    fmt_ms(ee, sizeof ee, e2e);
    fmt_rate(dr, sizeof dr, pt->n, dev);
    fmt_rate(er, sizeof er, pt->n, e2e);
    if (qsort_ms > 0 && e2e > 0)
        snprintf(xq, sizeof xq, "%.2f", qsort_ms / e2e);
    else
        snprintf(xq, sizeof xq, "-");
    if (vq_ms > 0 && e2e > 0)
        snprintf(xv, sizeof xv, "%.2f", vq_ms / e2e);
    else
        snprintf(xv, sizeof xv, "-");
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
    bench_clear_progress(env);
    printf("%10zu  %-28s %9s %9s %9s %9s %9s %10s %10s %7s %8s %6s %8s %6s %8s %8s %6s  %s\n",
           pt->n, name, q, s, vqs, dv, ee, dr, er, xq, xv, ps, fl, fr, us, ds, xf, check);
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
    csv_num(f, vq_ms, "%.6f");
    csv_num(f, dev > 0 ? (double)pt->n / (dev * 1e-3) : -1, "%.6g");
    csv_num(f, e2e > 0 ? (double)pt->n / (e2e * 1e-3) : -1, "%.6g");
    csv_num(f, qsort_ms > 0 ? (double)pt->n / (qsort_ms * 1e-3) : -1, "%.6g");
    csv_num(f, std_ms > 0 ? (double)pt->n / (std_ms * 1e-3) : -1, "%.6g");
    csv_num(f, vq_ms > 0 ? (double)pt->n / (vq_ms * 1e-3) : -1, "%.6g");
    if (r->ndevice && !bad)
        fprintf(f, "%u,%u,", r->launches, r->passes);
    else
        fputs(",,", f);
    csv_num(f, env->copy_gbps > 0 ? env->copy_gbps : -1, "%.1f");
    csv_num(f, floor_ms, "%.6f");
    csv_num(f, frac, "%.4f");
    csv_num(f, up, "%.6f");
    csv_num(f, down, "%.6f");
    csv_num(f, env->h2d_gbps > 0 ? env->h2d_gbps : -1, "%.2f");
    csv_num(f, env->d2h_gbps > 0 ? env->d2h_gbps : -1, "%.2f");
    csv_num(f, xfloor, "%.6f");
    csv_num(f, xfrac, "%.4f");
    /* The check column is free text; keep it CSV-safe. */
    for (char *c = check; *c; c++)
        if (*c == ',' || *c == '"' || *c == '\n') *c = ';';
    fprintf(f, "%s\n", check);
    fflush(f);
}
