/* bench_measure.c - clsort-bench's measurements: the device copy bandwidth, and one point (a type at
 * one size): fresh random data every run, qsort and std::sort on it, then every network on the
 * device alone (profiled) and end to end (host clock), each result checked before its time counts. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_ref.h"

/* ---- Copy bandwidth ----------------------------------------------------------------------------- */

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
int bench_measure_copy_bandwidth(bench_env *env)
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
        const double h0 = bench_now_ms();
        err = clEnqueueCopyBuffer(env->queue, src, dst, 0, 0, bytes, 0, NULL, &ev);
        if (err == CL_SUCCESS) err = clWaitForEvents(1, &ev);
        const double h1 = bench_now_ms();
        if (err != CL_SUCCESS) {
            if (ev) clReleaseEvent(ev);
            goto fail;
        }
        double t = event_ms(ev);
        if (t <= 0) t = h1 - h0;
        clReleaseEvent(ev);
        if (i >= 0) ms[got++] = t;
    }
    const double med = bench_median(ms, got);
    env->copy_gbps = 2.0 * (double)bytes / (med * 1e-3) / 1e9;
    env->copy_bytes = bytes;
    env->copy_samples = got;
    clReleaseMemObject(src);
    clReleaseMemObject(dst);
    free(ms);
    return 0;
fail:
    fprintf(stderr, "clsort-bench: copy bandwidth not measured: %s (%d)\n", bench_cl_error_name(err),
            (int)err);
    if (src) clReleaseMemObject(src);
    if (dst) clReleaseMemObject(dst);
    free(ms);
    return -1;
}

/* ---- One point: a type and a size, every network ------------------------------------------------ */

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
    bench_clear_progress(env);
    fprintf(stderr, "clsort-bench: FAIL %s n=%zu %s: %s\n", pt->type->name, pt->n,
            clsort_algorithm_name(r->algo), r->why);
}

/* A sort error: CLSORT_ERR_UNSUPPORTED skips the network here; anything else is a failure. */
static void note_sort_error(bench_env *env, bench_result *r, const bench_point *pt,
                            const char *call, int rc)
{
    if (rc == CLSORT_ERR_UNSUPPORTED) {
        r->skipped = 1;
        bench_talk(env, "clsort-bench: %s n=%zu %s: %s: unsupported here, skipped (%s)\n",
                   pt->type->name, pt->n, clsort_algorithm_name(r->algo), call,
                   clsort_last_error(env->ctx));
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

int bench_measure_bus_bandwidth(bench_env *env)
{
    size_t bytes = (size_t)256 << 20;
    if (bytes > env->info.max_alloc / 2) bytes = (size_t)(env->info.max_alloc / 2);
    if (env->host_avail && bytes > env->host_avail / 8) bytes = (size_t)(env->host_avail / 8);
    bytes &= ~(size_t)4095;
    const int samples = env->opts->runs < 5 ? 5 : env->opts->runs;
    double up[BENCH_MAX_RUNS], down[BENCH_MAX_RUNS];
    int got = 0;
    cl_int err = CL_SUCCESS;
    void *host = bytes >= 4096 ? clsort_host_alloc(env->ctx, bytes) : NULL;
    cl_mem buf = host ? clCreateBuffer(env->context, CL_MEM_READ_WRITE, bytes, NULL, &err) : NULL;
    if (!host || !buf) {
        fprintf(stderr, "clsort-bench: bus bandwidth not measured: %s\n",
                host ? bench_cl_error_name(err) : clsort_last_error(env->ctx));
        clsort_host_free(env->ctx, host);
        return -1;
    }
    memset(host, 0x5a, bytes);
    for (int i = -1; i < samples && i < BENCH_MAX_RUNS; i++) {
        cl_event e1 = NULL, e2 = NULL;
        double h0 = bench_now_ms();
        err = clEnqueueWriteBuffer(env->queue, buf, CL_TRUE, 0, bytes, host, 0, NULL, &e1);
        double h1 = bench_now_ms();
        if (err == CL_SUCCESS)
            err = clEnqueueReadBuffer(env->queue, buf, CL_TRUE, 0, bytes, host, 0, NULL, &e2);
        const double h2 = bench_now_ms();
        if (err == CL_SUCCESS && i >= 0) {
            const double a = event_ms(e1), b = event_ms(e2);
            up[got] = a > 0 ? a : h1 - h0;
            down[got++] = b > 0 ? b : h2 - h1;
        }
        if (e1) clReleaseEvent(e1);
        if (e2) clReleaseEvent(e2);
        if (err != CL_SUCCESS) break;
    }
    clReleaseMemObject(buf);
    clsort_host_free(env->ctx, host);
    if (!got) {
        fprintf(stderr, "clsort-bench: bus bandwidth not measured: %s (%d)\n",
                bench_cl_error_name(err), (int)err);
        return -1;
    }
    env->h2d_gbps = (double)bytes / (bench_median(up, got) * 1e-3) / 1e9;
    env->d2h_gbps = (double)bytes / (bench_median(down, got) * 1e-3) / 1e9;
    env->bus_bytes = bytes;
    return 0;
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
        mark_failed(env, r, pt, "clEnqueueWriteBuffer: %s (%d)", bench_cl_error_name(err), (int)err);
        return;
    }
    /* A marker before the sort, for the fallback timing should the library give no device_ns. */
    if (clEnqueueMarkerWithWaitList(env->queue, 0, NULL, &pre) != CL_SUCCESS) pre = NULL;
    const double h0 = bench_now_ms();
    const int rc = clsort_sort_buffer(env->ctx, pt->kbuf, pt->vs ? pt->vbuf : NULL, pt->vs, pt->n,
                                      pt->type->key, r->algo, 0, 0, NULL, &done);
    if (rc != CLSORT_OK) {
        if (pre) clReleaseEvent(pre);
        note_sort_error(env, r, pt, "clsort_sort_buffer", rc);
        return;
    }
    err = clWaitForEvents(1, &done);
    const double h1 = bench_now_ms();
    if (err != CL_SUCCESS) {
        mark_failed(env, r, pt, "clWaitForEvents(done): %s (%d)", bench_cl_error_name(err), (int)err);
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
        mark_failed(env, r, pt, "clEnqueueReadBuffer: %s (%d)", bench_cl_error_name(err), (int)err);
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
    const double t0 = bench_now_ms();
    const int rc = pt->vs ? clsort_sort_pairs(env->ctx, pt->work_keys, pt->work_values, pt->vs,
                                              pt->n, pt->type->key, r->algo, 0)
                          : clsort_sort(env->ctx, pt->work_keys, pt->n, pt->type->key, r->algo, 0);
    const double t1 = bench_now_ms();
    if (rc != CLSORT_OK) {
        note_sort_error(env, r, pt, pt->vs ? "clsort_sort_pairs" : "clsort_sort", rc);
        return;
    }
    clsort_stats st;
    if (clsort_get_stats(env->ctx, &st) == CLSORT_OK && st.host_fallback) r->e2e_host_fallback = 1;
    if (record && !st.host_fallback) {
        r->up_ms_sum += (double)st.upload_ns / 1e6;
        r->down_ms_sum += (double)st.download_ns / 1e6;
        r->nxfer++;
    }
    char why[160];
    if (check_result(pt, why, sizeof why)) {
        mark_failed(env, r, pt, "end-to-end (%s): %s", pt->vs ? "clsort_sort_pairs" : "clsort_sort",
                    why);
        return;
    }
    if (record) r->e2e_ms[r->ne2e++] = t1 - t0;
}

static uint64_t point_seed(uint64_t seed, const bench_type *t, int lg)
{
    uint64_t h = seed ^ 0x6a09e667f3bcc909u;
    for (const char *c = t->name; *c; c++) h = (h ^ (unsigned char)*c) * 0x100000001b3u;
    return (h ^ ((uint64_t)lg << 48)) * 0x9e3779b97f4a7c15u;
}

/* Benchmarks every network on one type at n = 2^lg. */
/* The CPU sorts' times of a point (ms, one per recorded run). */
typedef struct cpu_times {
    double qs[BENCH_MAX_RUNS], ss[BENCH_MAX_RUNS], vq[BENCH_MAX_RUNS];
    int nq, ns, nv;
} cpu_times;

/* One run of the CPU references on the point's data: qsort, vqsort where built with libhwy, and
 * std::sort, whose result (checked to be a permutation) then checks the device's. */
static void run_cpu_refs(bench_env *env, bench_point *pt, int lg, int run, cpu_times *c)
{
    const bench_opts *o = env->opts;
    const bench_type *t = pt->type;
    bench_show_progress(env, "%s 2^%d qsort run %d/%d", t->name, lg, run + 1, o->runs);
    bench_pack(pt->ref, pt->keys, pt->values, pt->n, pt->ks, pt->vs);
    double t0 = bench_now_ms();
    bench_qsort(pt->ref, pt->n, t->key, pt->vs);
    c->qs[c->nq++] = bench_now_ms() - t0;
    if (bench_have_vqsort() && pt->ks >= 4) { /* (no 1- and 2-byte keys here) */
        /* Highway's vqsort, the fastest CPU sort we know of, where built with libhwy:
         * its keys must come out sorted and every element kept. */
        bench_show_progress(env, "%s 2^%d vqsort run %d/%d", t->name, lg, run + 1, o->runs);
        bench_pack(pt->ref, pt->keys, pt->values, pt->n, pt->ks, pt->vs);
        t0 = bench_now_ms();
        const int vrc = bench_vqsort(pt->ref, pt->n, t->key, pt->vs);
        const double vms = bench_now_ms() - t0;
        if (vrc == 0 && bench_checksum_packed(pt->ref, pt->n, pt->ks, pt->vs) == pt->checksum &&
            (pt->vs || bench_find_unsorted(pt->ref, pt->n, t->key) == pt->n)) {
            c->vq[c->nv++] = vms;
        } else {
            fprintf(stderr, "clsort-bench: vqsort reference %s (bug)\n",
                    vrc ? "failed" : "lost elements or left keys unsorted");
            env->failures++;
        }
    }
    bench_show_progress(env, "%s 2^%d std::sort run %d/%d", t->name, lg, run + 1, o->runs);
    bench_pack(pt->ref, pt->keys, pt->values, pt->n, pt->ks, pt->vs);
    t0 = bench_now_ms();
    bench_stdsort(pt->ref, pt->n, t->key, pt->vs);
    c->ss[c->ns++] = bench_now_ms() - t0;
    /* The reference checks the device; make sure it is itself what it claims. */
    if (bench_checksum_packed(pt->ref, pt->n, pt->ks, pt->vs) != pt->checksum) {
        fprintf(stderr, "clsort-bench: std::sort reference lost elements (bug)\n");
        env->failures++;
    } else {
        pt->have_ref = 1;
    }
}

void bench_point_run(bench_env *env, const bench_type *t, int lg)
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
    double *times = NULL;
    cpu_times cpu_ms;
    int nres = 0;
    cl_int err = CL_SUCCESS;
    memset(res, 0, sizeof res);
    memset(&cpu_ms, 0, sizeof cpu_ms);

    pt.keys = malloc(pt.n * pt.ks);
    /* --host-alloc: the end-to-end arrays in pinned memory from the library. */
    pt.work_keys = o->host_alloc ? clsort_host_alloc(env->ctx, pt.n * pt.ks) : malloc(pt.n * pt.ks);
    pt.values = pt.vs ? malloc(pt.n * pt.vs) : NULL;
    pt.work_values = !pt.vs        ? NULL
                     : o->host_alloc ? clsort_host_alloc(env->ctx, pt.n * pt.vs)
                                     : malloc(pt.n * pt.vs);
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
                pt.n, bench_cl_error_name(err), (int)err);
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
        if (cpu && record)
            run_cpu_refs(env, &pt, lg, run, &cpu_ms);
        for (int a = 0; a < nres; a++) {
            bench_result *r = &res[a];
            if (r->failed || r->skipped) continue;
            bench_show_progress(env, "%s 2^%d %s run %d/%d", t->name, lg, clsort_algorithm_name(r->algo),
                          run + 1, o->runs);
            run_device(env, &pt, r, record);
            if (r->failed || r->skipped) continue;
            run_e2e(env, &pt, r, record);
        }
    }
    const double qsort_ms = bench_median(cpu_ms.qs, cpu_ms.nq);
    const double std_ms = bench_median(cpu_ms.ss, cpu_ms.ns);
    const double vq_ms = bench_median(cpu_ms.vq, cpu_ms.nv); /* -1 without libhwy */
    for (int a = 0; a < nres; a++)
        bench_report_result(env, &pt, lg, &res[a], qsort_ms, std_ms, vq_ms);
out:
    if (pt.kbuf) clReleaseMemObject(pt.kbuf);
    if (pt.vbuf) clReleaseMemObject(pt.vbuf);
    free(pt.keys);
    free(pt.values);
    if (o->host_alloc) {
        clsort_host_free(env->ctx, pt.work_keys);
        clsort_host_free(env->ctx, pt.work_values);
    } else {
        free(pt.work_keys);
        free(pt.work_values);
    }
    free(pt.ref);
    free(times);
}
