/* bench_segments.c - clsort-bench --segments: times clsort_sort_segments on n = 2^--seg-log keys
 * cut into segments of equal length s, of uniform random length in 1..2s, or of a power-law mix
 * (2^U(0..16) keys), against qsort of each segment on the host, and checks every result against
 * that reference: the host variant's and clsort_sort_segments_buffer's (read back), which may take
 * other passes. Device time is clsort_get_stats' device_ns after the host call (and, separately,
 * after clsort_sort_segments_buffer on uploaded buffers); end-to-end is the host clock around
 * clsort_sort_segments. With --stable, pair types sort with CLSORT_STABLE: keys in 0..255, each
 * value its key's input position, checked, values too, against a counting sort of each segment
 * (the qsort column still times qsort). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_ref.h"

static const char *const mix_names[3] = {"equal", "uniform", "power"};

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Cuts n keys into segments by the mix; returns nseg (off has room for n + 1 entries). */
static size_t make_offsets(int mix, size_t s, size_t n, uint64_t seed, uint64_t *off)
{
    size_t nseg = 0;
    uint64_t at = 0, st = seed;
    off[0] = 0;
    while (at < n) {
        uint64_t len = s;
        if (mix == 1)
            len = 1 + splitmix(&st) % (2 * s);
        else if (mix == 2)
            len = (uint64_t)1 << (splitmix(&st) % 17);
        if (len > n - at)
            len = n - at;
        at += len;
        off[++nseg] = at;
    }
    return nseg;
}

/* Value i of n little-endian values of vs (4 or 8) bytes: i; keys cut to their low byte (0..255
 * in every key type's order bits, so runs of equal keys are long). */
static void make_stable_input(void *keys, void *vals, size_t n, size_t ks, size_t vs)
{
    unsigned char *k = keys, *v = vals;
    for (size_t i = 0; i < n; ++i) {
        unsigned char *key = k + i * ks;
        for (size_t b = 1; b < ks; ++b)
            key[b] = 0;
        uint64_t x = i;
        for (size_t b = 0; b < vs; ++b, x >>= 8)
            v[i * vs + b] = (unsigned char)x;
    }
}

/* The stable reference for make_stable_input's data: each segment's records counting-sorted by
 * their key (0..255), input order kept among equal keys, interleaved into ref. */
static void stable_reference(unsigned char *ref, const unsigned char *keys,
                             const unsigned char *vals, const uint64_t *off, size_t nseg,
                             size_t ks, size_t vs)
{
    const size_t w = ks + vs;
    for (size_t i = 0; i < nseg; ++i) {
        size_t at[256] = {0};
        for (uint64_t j = off[i]; j < off[i + 1]; ++j)
            at[keys[j * ks]]++;
        size_t sum = off[i];
        for (int c = 0; c < 256; ++c) {
            const size_t cnt = at[c];
            at[c] = sum;
            sum += cnt;
        }
        for (uint64_t j = off[i]; j < off[i + 1]; ++j) {
            unsigned char *r = ref + at[keys[j * ks]]++ * w;
            memcpy(r, keys + j * ks, ks);
            memcpy(r + ks, vals + j * vs, vs);
        }
    }
}

/* Whether the values of the split result equal those of the interleaved reference. */
static int values_match(const void *vals, const void *ref, size_t n, size_t ks, size_t vs)
{
    for (size_t i = 0; i < n; ++i)
        if (memcmp((const char *)vals + i * vs, (const char *)ref + i * (ks + vs) + ks, vs))
            return 0;
    return 1;
}

/* Whether a sorted copy (work, wvals) of (keys, vals) is right: keys as the reference's, the
 * pairs the same multiset, and for stable sorts the values as the reference's too. */
static int result_ok(const void *work, const void *wvals, const void *keys, const void *vals,
                     const void *ref, size_t n, size_t ks, size_t vs, int stable)
{
    return bench_find_key_mismatch(work, ref, n, ks, vs) == n &&
           bench_checksum(work, wvals, n, ks, vs) == bench_checksum(keys, vals, n, ks, vs) &&
           (!stable || values_match(wvals, ref, n, ks, vs));
}

static void print_columns(FILE *f)
{
    fprintf(f, "mode,type,algo,mix,s,n,nseg,device_ms,buffer_device_ms,e2e_ms,qsort_ms,"
               "device_mkeys_s,e2e_mkeys_s,qsort_mkeys_s,e2e_vs_qsort,check\n");
}

/* One (type, algorithm, mix, s) point: runs timed runs, reports one line. */
/* One CSV line of a point: the medians (ms) of the device time, the buffer variant, end to
 * end and the per-segment qsort, with their rates; `why` (NULL: ok) says what failed. */
static void print_point(bench_env *env, const bench_type *t, clsort_algorithm algo, int stable,
                        int mix, size_t s, size_t n, size_t nseg, const double med[4],
                        const char *why)
{
    const double d = med[0], b = med[1], e = med[2], q = med[3];
    const double mk = (double)n / 1e3; /* keys / ms / 1e3 = Mkeys/s */
    char line[512], aname[64];
    snprintf(aname, sizeof aname, "%s%s", clsort_algorithm_name(algo), stable ? "+stable" : "");
    snprintf(line, sizeof line, "segments,%s,%s,%s,%zu,%zu,%zu,%.3f,%.3f,%.3f,%.3f,%.1f,%.1f,"
                                "%.1f,%.2f,%s\n",
             t->name, aname, mix_names[mix], s, n, nseg, d, b, e, q, d > 0 ? mk / d : 0,
             e > 0 ? mk / e : 0, q > 0 ? mk / q : 0, e > 0 && q > 0 ? q / e : 0,
             why ? "FAILED" : "ok");
    fputs(line, stdout);
    if (env->csv)
        fputs(line, env->csv);
    if (why) {
        env->failures++;
        bench_talk(env, "clsort-bench: %s %s %s s=%zu: %s\n", t->name,
                   clsort_algorithm_name(algo), mix_names[mix], s, why);
    }
}

static void run_point(bench_env *env, const bench_type *t, clsort_algorithm algo, int mix,
                      size_t s, size_t n)
{
    const bench_opts *o = env->opts;
    const size_t ks = clsort_type_size(t->key), vs = t->value_size;
    const int stable = o->seg_stable && vs;
    const unsigned flags = stable ? CLSORT_STABLE : 0;
    uint64_t *off = malloc((n + 1) * sizeof *off);
    void *keys = malloc(n * ks), *work = malloc(n * ks);
    void *vals = vs ? malloc(n * vs) : NULL, *wvals = vs ? malloc(n * vs) : NULL;
    void *packed = malloc(n * (ks + vs));
    double dev[BENCH_MAX_RUNS], buf[BENCH_MAX_RUNS], e2e[BENCH_MAX_RUNS], qs[BENCH_MAX_RUNS];
    int nd = 0, nb = 0, ne = 0, nq = 0, bad = 0;
    const char *why = "ok";
    if (!off || !keys || !work || (vs && (!vals || !wvals)) || !packed) {
        why = "out of host memory";
        bad = 1;
        goto out;
    }
    const size_t nseg = make_offsets(mix, s, n, o->seed * 7919 + (uint64_t)s, off);
    cl_int err;
    cl_mem bk = clCreateBuffer(env->context, CL_MEM_READ_WRITE, n * ks, NULL, &err);
    cl_mem bv = vs ? clCreateBuffer(env->context, CL_MEM_READ_WRITE, n * vs, NULL, &err) : NULL;
    cl_mem bo = clCreateBuffer(env->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               (nseg + 1) * sizeof *off, off, &err);
    for (int run = 0; run <= o->runs && !bad; ++run) {
        bench_fill_random(o->seed + 1000003u * (uint64_t)run + s, keys, n * ks);
        if (stable)
            make_stable_input(keys, vals, n, ks, vs);
        else if (vs)
            bench_fill_random(o->seed ^ 0xABCDEFull, vals, n * vs);
        memcpy(work, keys, n * ks);
        if (vs)
            memcpy(wvals, vals, n * vs);
        const double t0 = bench_now_ms();
        int rc = clsort_sort_segments(env->ctx, work, wvals, vs, off, nseg, t->key, algo, flags);
        const double t1 = bench_now_ms();
        clsort_stats st;
        if (rc != CLSORT_OK || clsort_get_stats(env->ctx, &st) != CLSORT_OK) {
            why = clsort_last_error(env->ctx);
            bad = 1;
            break;
        }
        /* The reference: qsort of each segment of the packed input. */
        bench_pack(packed, keys, vals, n, ks, vs);
        const double q0 = bench_now_ms();
        for (size_t i = 0; i < nseg; ++i)
            bench_qsort((char *)packed + off[i] * (ks + vs), off[i + 1] - off[i], t->key, vs);
        const double q1 = bench_now_ms();
        if (stable)
            stable_reference(packed, keys, vals, off, nseg, ks, vs);
        if (!result_ok(work, wvals, keys, vals, packed, n, ks, vs, stable)) {
            why = stable ? "result differs from the stable order of each segment"
                         : "result differs from per-segment qsort";
            bad = 1;
            break;
        }
        /* The buffer variant on uploaded data: device time, and its result read back and
         * checked as the host variant's (it may take other passes: it cannot see the lengths). */
        double bms = -1;
        if (bk && bo && (!vs || bv)) {
            clEnqueueWriteBuffer(env->queue, bk, CL_TRUE, 0, n * ks, keys, 0, NULL, NULL);
            if (vs)
                clEnqueueWriteBuffer(env->queue, bv, CL_TRUE, 0, n * vs, vals, 0, NULL, NULL);
            clsort_stats bst;
            rc = clsort_sort_segments_buffer(env->ctx, bk, bv, vs, bo, nseg, t->key, algo, flags,
                                             0, NULL, NULL);
            if (rc != CLSORT_OK || clsort_get_stats(env->ctx, &bst) != CLSORT_OK) {
                why = clsort_last_error(env->ctx);
                bad = 1;
                break;
            }
            bms = bst.device_ns / 1e6;
            cl_int rk = clEnqueueReadBuffer(env->queue, bk, CL_TRUE, 0, n * ks, work, 0, NULL,
                                            NULL);
            cl_int rv = vs ? clEnqueueReadBuffer(env->queue, bv, CL_TRUE, 0, n * vs, wvals, 0,
                                                 NULL, NULL)
                           : CL_SUCCESS;
            if (rk != CL_SUCCESS || rv != CL_SUCCESS) {
                why = "reading the buffer variant's result back failed";
                bad = 1;
                break;
            }
            if (!result_ok(work, wvals, keys, vals, packed, n, ks, vs, stable)) {
                why = stable ? "buffer variant: result differs from the stable order of each "
                               "segment"
                             : "buffer variant: result differs from per-segment qsort";
                bad = 1;
                break;
            }
        }
        if (run == 0)
            continue; /* warm-up: builds and caches */
        if (st.device_ns && !st.host_fallback)
            dev[nd++] = st.device_ns / 1e6;
        if (bms > 0)
            buf[nb++] = bms;
        e2e[ne++] = t1 - t0;
        qs[nq++] = q1 - q0;
    }
    if (bk)
        clReleaseMemObject(bk);
    if (bv)
        clReleaseMemObject(bv);
    if (bo)
        clReleaseMemObject(bo);
    const double med[4] = {bench_median(dev, nd), bench_median(buf, nb), bench_median(e2e, ne),
                           bench_median(qs, nq)};
    print_point(env, t, algo, stable, mix, s, n, nseg, med, bad ? why : NULL);
    fflush(stdout);
out:
    free(off);
    free(keys);
    free(work);
    free(vals);
    free(wvals);
    free(packed);
}

void bench_segments_run(bench_env *env)
{
    const bench_opts *o = env->opts;
    const size_t n = (size_t)1 << o->seg_log;
    printf("# segmented mode: n = 2^%d keys per point; s = typical segment length; mixes: equal "
           "(all s), uniform (1..2s), power (2^U(0..16), s not used); qsort = qsort of each "
           "segment on the host\n",
           o->seg_log);
    print_columns(stdout);
    if (env->csv)
        print_columns(env->csv);
    for (int ti = 0; ti < o->ntypes; ++ti)
        for (int ai = 0; ai < o->nalgos; ++ai)
            for (int mix = 0; mix < 3; ++mix) {
                if (!(o->seg_mixes & (1u << mix)))
                    continue;
                for (int si = 0; si < o->nseg_sizes; ++si) {
                    if (mix == 2 && si > 0)
                        break; /* the power-law mix does not depend on s */
                    bench_show_progress(env, "segments %s %s %s s=%zu", o->types[ti].name,
                                        clsort_algorithm_name(o->algos[ai]), mix_names[mix],
                                        o->seg_sizes[si]);
                    run_point(env, &o->types[ti], o->algos[ai], mix, o->seg_sizes[si], n);
                }
            }
}
