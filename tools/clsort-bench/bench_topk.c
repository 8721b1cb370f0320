/* bench_topk.c - clsort-bench --topk: device time of clsort_topk_buffer (keys and uint32 indices,
 * like torch.topk's values and indices) for the cells of issue 27, rows x n in {1 x 2^24,
 * 2^6 x 2^18, 2^10 x 2^14, 2^14 x 2^10, 2^16 x 2^8} and k in {1, 8, 32, 128, 1024} (k <= n),
 * each cell's total divided by 2^--topk-scale (rows first, so that n and the k it allows stay
 * those of the issue; then n). Every cell's first result is checked on the host against the
 * definition (a stable sort of each row cut after k), in one pass over each row. NumPy and torch.topk are timed by the Python benchmark. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_ref.h"

static const int cell_logs[5][2] = {{0, 24}, {6, 18}, {10, 14}, {14, 10}, {16, 8}};
static const size_t cell_ks[5] = {1, 8, 32, 128, 1024};

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The documented order as an unsigned integer (the key-type table's transform, bench_ref.h). */
static uint64_t ord(clsort_type t, uint64_t b)
{
    return clsort_type_size(t) == 8 ? bench_order64(b, t) : bench_order32((uint32_t)b, t);
}

/* Item b before item a (strictly): key in order space, then index. */
static int item_less(uint64_t ob, uint64_t ib, uint64_t oa, uint64_t ia)
{
    return ob < oa || (ob == oa && ib < ia);
}

static uint64_t get(const void *p, size_t size, size_t i)
{
    if (size == 4) {
        uint32_t v;
        memcpy(&v, (const char *)p + 4 * i, 4);
        return v;
    }
    uint64_t v;
    memcpy(&v, (const char *)p + 8 * i, 8);
    return v;
}

/* Checks rows x k results (keys, uint32 indices) against the definition, in one pass over each
 * row (a sort of each 2^24-key row made the benchmark minutes long): the k results are items of
 * the row (index in range, the key found there), strictly ascending by (key, index), hence k
 * distinct items; and exactly k - 1 items of the row come before the last of them. Then the
 * results are exactly the k smallest items, in order: what a stable sort of the row cut after k
 * gives. Returns 0 if they match, else the first row that differs + 1. */
static size_t check(clsort_type t, const void *keys, size_t rows, size_t n, size_t k,
                    const void *got_k, const uint32_t *got_i)
{
    const size_t ks = clsort_type_size(t);
    for (size_t r = 0; r < rows; ++r) {
        uint64_t po = 0, pi = 0;
        for (size_t j = 0; j < k; ++j) {
            const uint64_t i = got_i[r * k + j], key = get(got_k, ks, r * k + j);
            if (i >= n || key != get(keys, ks, r * n + i))
                return r + 1;
            const uint64_t o = ord(t, key);
            if (j > 0 && !item_less(po, pi, o, i))
                return r + 1;
            po = o;
            pi = i;
        }
        size_t before = 0;
        for (size_t i = 0; i < n; ++i)
            before += (size_t)item_less(ord(t, get(keys, ks, r * n + i)), i, po, pi);
        if (before != k - 1)
            return r + 1;
    }
    return 0;
}

static void run_cell(bench_env *env, const bench_type *t, size_t rows, size_t n, size_t k)
{
    const bench_opts *o = env->opts;
    const size_t ks = clsort_type_size(t->key), total = rows * n;
    void *keys = malloc(total * ks), *got_k = malloc(rows * k * ks);
    uint32_t *got_i = malloc(rows * k * sizeof *got_i);
    cl_int err = CL_SUCCESS;
    cl_mem bk = NULL, bok = NULL, boi = NULL;
    double dev[BENCH_MAX_RUNS];
    int nrun = 0, rc = CLSORT_OK;
    size_t bad = 0;
    const char *why = "";
    if (!keys || !got_k || !got_i) {
        why = "out of host memory";
        goto report;
    }
    uint64_t s = o->seed ^ (rows * 0x9E37u + n * 31u + (uint64_t)t->key);
    for (size_t i = 0; i < total; ++i) {
        uint64_t x = splitmix(&s);
        if (t->key == CLSORT_F32) { /* finite floats of both signs, as from a model */
            float f = (float)((double)(x >> 11) / 9007199254740992.0 * 2.0 - 1.0);
            memcpy((char *)keys + 4 * i, &f, 4);
        } else if (t->key == CLSORT_F64) {
            double d = (double)(x >> 11) / 9007199254740992.0 * 2.0 - 1.0;
            memcpy((char *)keys + 8 * i, &d, 8);
        } else if (ks == 4) {
            const uint32_t v = (uint32_t)x;
            memcpy((char *)keys + 4 * i, &v, 4);
        } else {
            memcpy((char *)keys + 8 * i, &x, 8);
        }
    }
    bk = clCreateBuffer(env->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, total * ks, keys,
                        &err);
    if (err == CL_SUCCESS)
        bok = clCreateBuffer(env->context, CL_MEM_READ_WRITE, rows * k * ks, NULL, &err);
    if (err == CL_SUCCESS)
        boi = clCreateBuffer(env->context, CL_MEM_READ_WRITE, rows * k * 4, NULL, &err);
    if (err != CL_SUCCESS) {
        why = "cannot allocate device buffers";
        goto report;
    }
    /* One untimed run builds the program and is the one checked. */
    for (int run = -1; run < o->runs && rc == CLSORT_OK; ++run) {
        cl_event done = NULL;
        rc = clsort_topk_buffer(env->ctx, bk, NULL, 4, n, rows, k, t->key, 0, bok, boi, 0, NULL,
                                &done);
        if (rc != CLSORT_OK)
            break;
        clWaitForEvents(1, &done);
        clReleaseEvent(done);
        clsort_stats st;
        if (clsort_get_stats(env->ctx, &st) == CLSORT_OK && run >= 0)
            dev[nrun++] = st.device_ns / 1e6;
        if (run < 0) {
            clEnqueueReadBuffer(env->queue, bok, CL_TRUE, 0, rows * k * ks, got_k, 0, NULL, NULL);
            clEnqueueReadBuffer(env->queue, boi, CL_TRUE, 0, rows * k * 4, got_i, 0, NULL, NULL);
            bad = check(t->key, keys, rows, n, k, got_k, got_i);
        }
    }
    if (rc != CLSORT_OK)
        why = clsort_last_error(env->ctx);
report:;
    const double ms = nrun ? bench_median(dev, nrun) : -1;
    const char *verdict = rc != CLSORT_OK || *why ? "FAILED" : bad ? "WRONG" : "ok";
    if (strcmp(verdict, "ok") != 0)
        env->failures++;
    char line[256];
    snprintf(line, sizeof line, "topk,%s,%zu,%zu,%zu,%.4f,%.3f,%s", t->name, rows, n, k, ms,
             ms > 0 ? total / ms / 1e3 : 0.0, verdict);
    bench_clear_progress(env);
    printf("%s\n", line);
    if (*why)
        printf("# %s rows=%zu n=%zu k=%zu: %s\n", t->name, rows, n, k, why);
    else if (bad)
        printf("# %s rows=%zu n=%zu k=%zu: row %zu differs from a stable sort of the row\n",
               t->name, rows, n, k, bad - 1);
    fflush(stdout);
    if (env->csv) {
        fprintf(env->csv, "%s\n", line);
        fflush(env->csv);
    }
    if (bk)
        clReleaseMemObject(bk);
    if (bok)
        clReleaseMemObject(bok);
    if (boi)
        clReleaseMemObject(boi);
    free(keys);
    free(got_k);
    free(got_i);
}

void bench_topk_run(bench_env *env)
{
    const bench_opts *o = env->opts;
    printf("# top-k mode: clsort_topk_buffer, keys and uint32 indices, device time (median of %d "
           "runs, clsort_get_stats); cells of issue 27 divided by 2^%d (rows first, then n)\n",
           o->runs, o->topk_scale);
    static const char columns[] = "mode,type,rows,n,k,device_ms,mkeys_s,check\n";
    fputs(columns, stdout);
    if (env->csv)
        fputs(columns, env->csv);
    for (int ti = 0; ti < o->ntypes; ++ti) {
        const bench_type *t = &o->types[ti];
        if (t->value_size)
            continue; /* the pair types: top-k carries indices, not values */
        for (int c = 0; c < 5; ++c) {
            int rl = cell_logs[c][0], nl = cell_logs[c][1], scale = o->topk_scale;
            const int from_rows = scale < rl ? scale : rl;
            rl -= from_rows;
            nl -= scale - from_rows;
            if (nl < 0)
                continue;
            const size_t rows = (size_t)1 << rl, n = (size_t)1 << nl;
            for (int ki = 0; ki < 5; ++ki) {
                if (cell_ks[ki] > n)
                    continue;
                bench_show_progress(env, "topk %s %zu x %zu k=%zu", t->name, rows, n,
                                    cell_ks[ki]);
                run_cell(env, t, rows, n, cell_ks[ki]);
            }
        }
    }
}
