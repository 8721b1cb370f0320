/* tune_measure.c - clsort-tune's measurements: runs a candidate's parameters on several sizes,
 * checks every output (sorted, and a permutation of the input) before its time counts, searches
 * the parameters of one (network, key width, kind) by coordinate descent, and measures the AUTO
 * networks per size and the host-fallback crossover. Only the public API (clsort.h). */
#include "tune.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clsort_units.h"

/* Seconds on the tools' monotonic clock (clsort_units.h). */
double tune_now(void)
{
    return (double)cli_now_ns() * 1e-9;
}

clsort_algorithm tune_algo(int net)
{
    return (clsort_algorithm)(net + 1);
}

clsort_type tune_type(int w)
{
    return w ? CLSORT_U64 : CLSORT_U32;
}

size_t tune_value_size(int k)
{
    return k == 0 ? 0 : k == 1 ? 4 : 8;
}

const char *tune_kind_name(int k)
{
    return k == 0 ? "keys" : k == 1 ? "pairs4" : "pairs8";
}

/* ---- Progress and talk ---------------------------------------------------------------------- */

void tune_progress(tune_state *s, const char *fmt, ...)
{
    if (!s->o->progress)
        return;
    const double t = tune_now();
    if (t - s->last_progress < 0.25) /* a few updates a second */
        return;
    s->last_progress = t;
    char buf[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (isatty(2))
        fprintf(stderr, "\r\033[K[%5.1f s] %s", t - s->t_start, buf);
    else
        fprintf(stderr, "[%5.1f s] %s\n", t - s->t_start, buf);
}

void tune_progress_done(tune_state *s)
{
    if (s->o->progress && isatty(2))
        fputs("\r\033[K", stderr);
}

/* Prints a line on stderr, first clearing a progress line. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void say(tune_state *s, const char *fmt, ...)
{
    tune_progress_done(s);
    s->last_progress = 0;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* ---- Data and checks ------------------------------------------------------------------------ */

static uint64_t mix64(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Inputs of one combination: keys (random bits, with some repeats) and values = positions. */
typedef struct tune_data {
    int w, k;
    size_t n_max;
    void *in_keys, *keys, *vals;
    cl_mem kbuf, vbuf; /* device copies for the device-time runs (made at first use) */
    int no_buffers;    /* they could not be made: device time of host-array sorts instead */
} tune_data;

static uint64_t key_at(const tune_data *d, const void *keys, size_t i)
{
    if (d->w)
        return ((const uint64_t *)keys)[i];
    return ((const uint32_t *)keys)[i];
}

static uint64_t val_at(const tune_data *d, size_t i)
{
    if (d->k == 1)
        return ((const uint32_t *)d->vals)[i];
    return ((const uint64_t *)d->vals)[i];
}

static int data_init(tune_data *d, int w, int k, size_t n_max)
{
    memset(d, 0, sizeof *d);
    d->w = w;
    d->k = k;
    d->n_max = n_max;
    const size_t ks = w ? 8 : 4;
    d->in_keys = malloc(n_max * ks);
    d->keys = malloc(n_max * ks);
    d->vals = k ? malloc(n_max * 8) : NULL;
    if (!d->in_keys || !d->keys || (k && !d->vals))
        return -1;
    uint64_t seed = 0x5EEDull + (uint64_t)w * 7 + (uint64_t)k;
    for (size_t i = 0; i < n_max; ++i) {
        uint64_t x = mix64(seed + i);
        if ((x & 15) == 0) /* one key in 16 repeats an earlier one: equal keys must survive */
            x = mix64(seed + (x >> 8) % (i + 1));
        if (w)
            ((uint64_t *)d->in_keys)[i] = x;
        else
            ((uint32_t *)d->in_keys)[i] = (uint32_t)x;
    }
    return 0;
}

static void data_free(tune_data *d)
{
    if (d->kbuf)
        clReleaseMemObject(d->kbuf);
    if (d->vbuf)
        clReleaseMemObject(d->vbuf);
    free(d->in_keys);
    free(d->keys);
    free(d->vals);
}

/* Fresh copy of the first n keys (and positions as values). */
static void data_reset(tune_data *d, size_t n)
{
    memcpy(d->keys, d->in_keys, n * (d->w ? 8 : 4));
    for (size_t i = 0; d->k && i < n; ++i) {
        if (d->k == 1)
            ((uint32_t *)d->vals)[i] = (uint32_t)i;
        else
            ((uint64_t *)d->vals)[i] = i;
    }
}

/* Checks the output: ascending, and a permutation of the input (keys alone: the same multiset,
 * by count and two independent sums of hashes; pairs: each value is a distinct position whose
 * input key is the key beside it). Returns NULL or what is wrong. */
static const char *data_check(const tune_data *d, size_t n, char *why, size_t why_size)
{
    for (size_t i = 1; i < n; ++i)
        if (key_at(d, d->keys, i - 1) > key_at(d, d->keys, i)) {
            snprintf(why, why_size, "not sorted at index %zu", i);
            return why;
        }
    if (!d->k) {
        uint64_t a = 0, b = 0, c = 0, e = 0;
        for (size_t i = 0; i < n; ++i) {
            a += mix64(key_at(d, d->in_keys, i));
            b ^= mix64(key_at(d, d->in_keys, i) ^ 0xA5A5A5A5u);
            c += mix64(key_at(d, d->keys, i));
            e ^= mix64(key_at(d, d->keys, i) ^ 0xA5A5A5A5u);
        }
        if (a != c || b != e) {
            snprintf(why, why_size, "the output is not a permutation of the input");
            return why;
        }
        return NULL;
    }
    unsigned char *seen = calloc(n, 1);
    if (!seen) {
        snprintf(why, why_size, "out of host memory checking");
        return why;
    }
    const char *bad = NULL;
    for (size_t i = 0; i < n && !bad; ++i) {
        const uint64_t v = val_at(d, i);
        if (v >= n || seen[v] || key_at(d, d->in_keys, (size_t)v) != key_at(d, d->keys, i)) {
            snprintf(why, why_size, "value at index %zu does not travel with its key", i);
            bad = why;
        } else {
            seen[v] = 1;
        }
    }
    free(seen);
    return bad;
}

/* One sort of the first n keys on the device; returns clsort's status, device time in *ns. */
/* Device buffers of n_max keys (and values) on the context's OpenCL context; 0 if they exist. */
static int make_buffers(tune_state *s, tune_data *d)
{
    if (d->kbuf)
        return 0;
    if (d->no_buffers)
        return -1;
    cl_context cl_ctx = NULL;
    cl_int err = clGetCommandQueueInfo(clsort_get_queue(s->ctx), CL_QUEUE_CONTEXT, sizeof cl_ctx,
                                       &cl_ctx, NULL);
    if (err == CL_SUCCESS)
        d->kbuf = clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE, d->n_max * (d->w ? 8 : 4), NULL, &err);
    if (err == CL_SUCCESS && d->k)
        d->vbuf = clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE, d->n_max * tune_value_size(d->k), NULL,
                                 &err);
    if (err != CL_SUCCESS) {
        say(s, "clsort-tune: no device buffers for n=%zu (OpenCL error %d): timing sorts of host "
               "arrays instead, whose device time includes waiting for the upload",
            d->n_max, (int)err);
        if (d->kbuf)
            clReleaseMemObject(d->kbuf);
        d->kbuf = NULL;
        d->no_buffers = 1;
        return -1;
    }
    return 0;
}

/* One sort of the first n keys of the data, fresh from in_keys; its output is left in keys (and
 * vals) for data_check. With total_ns NULL the kernels' device time counts, so the keys go to
 * device buffers first and clsort_sort_buffer sorts them there: a host-array sort overlaps its
 * upload with the first pass, and its device time would measure the bus as much as the kernels.
 * With total_ns, a sort of host arrays, end to end (the host-fallback measurement). */
static int run_once(tune_state *s, tune_data *d, int net, size_t n, uint64_t *ns,
                    uint64_t *total_ns, unsigned flags)
{
    data_reset(d, n);
    int rc;
    const clsort_type type = tune_type(d->w);
    const clsort_algorithm algo = net < 0 ? CLSORT_AUTO : tune_algo(net);
    const size_t kb = n * (d->w ? 8 : 4), vb = n * tune_value_size(d->k);
    if (!total_ns && make_buffers(s, d) == 0) {
        cl_command_queue q = clsort_get_queue(s->ctx);
        cl_int err = clEnqueueWriteBuffer(q, d->kbuf, CL_TRUE, 0, kb, d->keys, 0, NULL, NULL);
        if (err == CL_SUCCESS && d->k)
            err = clEnqueueWriteBuffer(q, d->vbuf, CL_TRUE, 0, vb, d->vals, 0, NULL, NULL);
        if (err != CL_SUCCESS)
            return CLSORT_ERR_OPENCL;
        cl_event done = NULL;
        rc = clsort_sort_buffer(s->ctx, d->kbuf, d->k ? d->vbuf : NULL, tune_value_size(d->k), n,
                                type, algo, flags & ~(unsigned)CLSORT_NO_HOST_FALLBACK, 0, NULL,
                                &done);
        if (rc != CLSORT_OK)
            return rc;
        err = clWaitForEvents(1, &done);
        clReleaseEvent(done);
        if (err == CL_SUCCESS)
            err = clEnqueueReadBuffer(q, d->kbuf, CL_TRUE, 0, kb, d->keys, 0, NULL, NULL);
        if (err == CL_SUCCESS && d->k)
            err = clEnqueueReadBuffer(q, d->vbuf, CL_TRUE, 0, vb, d->vals, 0, NULL, NULL);
        if (err != CL_SUCCESS)
            return CLSORT_ERR_OPENCL;
    } else if (d->k) {
        rc = clsort_sort_pairs(s->ctx, d->keys, d->vals, tune_value_size(d->k), n, type, algo,
                               flags);
    } else {
        rc = clsort_sort(s->ctx, d->keys, n, type, algo, flags);
    }
    clsort_stats st;
    if (rc == CLSORT_OK && clsort_get_stats(s->ctx, &st) == CLSORT_OK) {
        *ns = st.device_ns ? st.device_ns : st.total_ns;
        if (total_ns)
            *total_ns = st.total_ns;
    }
    return rc;
}

/* The first line of clsort_last_error. */
static const char *short_error(tune_state *s, char *buf, size_t size)
{
    snprintf(buf, size, "%s", clsort_last_error(s->ctx));
    char *nl = strchr(buf, '\n');
    if (nl)
        *nl = 0;
    return buf;
}

/* One end-to-end sort of n keys (run_once with total_ns), checked: 0 and its host-clock time in
 * *total, or 1 after saying what failed. what names the measurement; flags without
 * CLSORT_NO_HOST_FALLBACK is the host's sort. */
static int run_end_to_end(tune_state *s, tune_data *d, int net, uint64_t n, unsigned flags,
                          const char *what, uint64_t *total)
{
    uint64_t ns;
    char why[128], err[256];
    const int rc = run_once(s, d, net, (size_t)n, &ns, total, flags);
    const char *bad = rc != CLSORT_OK ? short_error(s, err, sizeof err)
                                       : data_check(d, (size_t)n, why, sizeof why);
    if (!bad)
        return 0;
    say(s, "clsort-tune: %s at n=%llu: the %s sort %s: %s (measured up to the size before)", what,
        (unsigned long long)n, flags & CLSORT_NO_HOST_FALLBACK ? "device's" : "host's",
        rc != CLSORT_OK ? "failed" : "sorted wrongly", bad);
    return 1;
}

/* Measures one candidate on sizes[0..nsizes): the first run at each size is checked, then the
 * fastest of `reps` runs counts. Returns 0 and the geometric mean of keys/s in *score (and the
 * rate at the largest size; every size's rate in rates[] when not NULL), 1 if the parameters are
 * out of range for the device, -1 if it failed (reported). Gives up early (returns 0, score 0)
 * if it is far behind `beat`. */
/* A checked run longer than this (seconds, host clock) gets no repeat (see measure). */
#define TUNE_LONG_RUN_S 30.0

static int measure(tune_state *s, tune_data *d, int net, const clsort_params *p,
                   const uint64_t *sizes, int nsizes, double beat, double *score,
                   double *last_rate, double *max_run_s, double *rates)
{
    if (rates)
        for (int i = 0; i < nsizes; ++i)
            rates[i] = 0;
    const clsort_type type = tune_type(d->w);
    const size_t vs = tune_value_size(d->k);
    if (clsort_set_params(s->ctx, tune_algo(net), type, vs, p) != CLSORT_OK)
        return 1;
    double log_sum = 0;
    *score = 0;
    *last_rate = 0;
    for (int i = 0; i < nsizes; ++i) {
        const size_t n = (size_t)sizes[i];
        uint64_t best = UINT64_MAX, ns = 0;
        char why[256], err[256], ptext[128];
        int last = s->reps; /* the last run at this size (0: the checked run) */
        for (int r = 0; r <= last; ++r) {
            const double t0 = tune_now();
            const int rc = run_once(s, d, net, n, &ns, NULL, CLSORT_NO_HOST_FALLBACK);
            const double t = tune_now() - t0;
            if (max_run_s && r > 0 && t > *max_run_s)
                *max_run_s = t;
            if (rc != CLSORT_OK) {
                say(s, "clsort-tune: %s %d-bit %s %s failed at n=%zu: %s: %s (skipped)",
                    clsort_algorithm_name(tune_algo(net)), d->w ? 64 : 32, tune_kind_name(d->k),
                    tune_params_text(p, ptext, sizeof ptext), n, clsort_strerror(rc),
                    short_error(s, err, sizeof err));
                return -1;
            }
            if (r == 0) {
                if (data_check(d, n, why, sizeof why)) {
                    say(s, "clsort-tune: %s %d-bit %s %s sorted wrongly at n=%zu: %s (skipped)",
                        clsort_algorithm_name(tune_algo(net)), d->w ? 64 : 32,
                        tune_kind_name(d->k), tune_params_text(p, ptext, sizeof ptext), n, why);
                    return -1;
                }
                if (s->reps > 0 &&
                    ((double)ns > s->run_limit * 1e9 || tune_now() > s->hard_end)) {
                    /* One run's kernels take longer than the limit (the quadratic transposition
                     * network on a CPU: a minute at 2^20), or the budget is spent: at most one
                     * repeat. That one is needed: PoCL compiles each kernel again for a new range
                     * of global sizes at its first launch there, between the profiled kernels
                     * (bitonic with 8 rows at 2^24: 5.2 s for the checked run, 0.24 s after),
                     * so a long checked run may be mostly compiling. A run that takes longer
                     * than TUNE_LONG_RUN_S is long every time; then, or when the repeat would
                     * not fit in the budget, the checked run's device time counts. */
                    const double left = s->hard_end - tune_now();
                    if (r == 0 && last > 0 && t < TUNE_LONG_RUN_S && t < left) {
                        last = 1;
                        continue;
                    }
                    best = ns;
                    if (max_run_s && t > *max_run_s)
                        *max_run_s = t;
                    break;
                }
                if (s->reps > 0)
                    continue; /* the checked run also compiled the kernels: not timed */
            }
            if (ns < best)
                best = ns;
        }
        const double rate = (double)n / ((double)(best ? best : 1) * 1e-9);
        log_sum += log(rate);
        *last_rate = rate;
        if (rates)
            rates[i] = rate;
        if (i == 0 && beat > 0 && rate < beat / 3) /* hopeless: spare the larger sizes */
            return 0;
    }
    *score = exp(log_sum / nsizes);
    return 0;
}

/* ---- The search ----------------------------------------------------------------------------- */

/* The sizes the search measures on: the start point at each size up to n_max, dropping the
 * larger ones where a run takes too long (the transposition network is quadratic in the number
 * of tiles). Returns how many (at least 1: the smallest, when even the start point failed);
 * *score is the start's geometric mean rate over them, *rate its rate at the largest. */
static int search_sizes(tune_state *s, tune_result *r, tune_data *d, int net, int w, int k,
                        double deadline, uint64_t n_max, uint64_t *sizes, double *score,
                        double *rate)
{
    const char *nname = clsort_algorithm_name(tune_algo(net));
    const double run_limit = s->run_limit;
    int nsizes = 0;
    double log_sum = 0;
    for (int i = 0; i < s->nsizes && s->sizes[i] <= n_max; ++i) {
        double longest = 0, sc, rt;
        if (nsizes > 0 && tune_now() > deadline)
            break; /* out of time: search on the sizes measured so far */
        tune_progress(s, "%s %d-bit %s: sizing n=%llu", nname, w ? 64 : 32, tune_kind_name(k),
                      (unsigned long long)s->sizes[i]);
        if (measure(s, d, net, &r->start, &s->sizes[i], 1, 0, &sc, &rt, &longest, NULL) != 0)
            break;
        r->size_n[nsizes] = s->sizes[i];
        r->size_best[nsizes] = r->start;
        r->size_rate[nsizes] = r->size_start_rate[nsizes] = rt;
        sizes[nsizes++] = s->sizes[i];
        log_sum += log(rt);
        *rate = rt;
        if (longest > run_limit)
            break;
    }
    r->tuned = 1;
    r->tried = 1;
    r->nsizes = nsizes;
    if (nsizes == 0) {
        /* Even the starting point failed (reported): keep it, searching on the smallest size. */
        r->size_n[0] = s->sizes[0];
        r->size_best[0] = r->start;
        r->size_rate[0] = r->size_start_rate[0] = 0;
        r->nsizes = 1;
        sizes[nsizes++] = s->sizes[0];
        r->failed++;
        s->failures++;
    } else {
        *score = exp(log_sum / nsizes);
        r->start_rate = r->best_rate = *rate;
    }
    r->rate_n = sizes[nsizes - 1];
    return nsizes;
}

/* One candidate of the descent: `p`, the best so far with axis a set to v, measured on the
 * search's sizes; kept as the best (overall, and per size) when it beats it by more than noise. */
static void search_try(tune_state *s, tune_result *r, tune_data *d, int net, int w, int k,
                       const clsort_params *p, int a, unsigned v, const uint64_t *sizes,
                       int nsizes, double *best_score)
{
    const char *nname = clsort_algorithm_name(tune_algo(net));
    tune_progress(s, "%s %d-bit %s: %s=%u (%u tried)", nname, w ? 64 : 32, tune_kind_name(k),
                  tune_param_key(a), v, r->tried);
    double sc, rt, rates[TUNE_MAX_SIZES];
    const int rc = measure(s, d, net, p, sizes, nsizes, *best_score, &sc, &rt, NULL, rates);
    if (rc == 1) {
        r->rejected++;
        if (s->o->verbose) {
            char err[256];
            say(s, "  %s %d-bit %s %s=%u: out of range here (%s)", nname, w ? 64 : 32,
                tune_kind_name(k), tune_param_key(a), v, short_error(s, err, sizeof err));
        }
        return;
    }
    r->tried++;
    if (rc < 0) {
        r->failed++;
        s->failures++;
        return;
    }
    if (s->o->verbose) {
        char ptext[128];
        say(s, "  %s %d-bit %s %s: %.1f Mkeys/s%s", nname, w ? 64 : 32, tune_kind_name(k),
            tune_params_text(p, ptext, sizeof ptext), rt / 1e6,
            sc == 0 ? " (far behind; stopped)" : "");
    }
    if (sc > *best_score * 1.02) { /* 2%: not noise */
        *best_score = sc;
        r->best = *p;
        r->best_rate = rt;
    }
    for (int i = 0; i < nsizes; ++i) /* 0: not measured there (far behind) */
        if (rates[i] > r->size_rate[i] * 1.02) {
            r->size_rate[i] = rates[i];
            r->size_best[i] = *p;
        }
}

void tune_search(tune_state *s, int net, int w, int k, double deadline)
{
    tune_result *r = &s->res[net][w][k];
    const clsort_type type = tune_type(w);
    const size_t vs = tune_value_size(k);
    const char *nname = clsort_algorithm_name(tune_algo(net));
    memset(r, 0, sizeof *r);
    /* The starting point: the configured parameters (a previous tune or the defaults). */
    clsort_params zero = {0, 0, 0, 0};
    clsort_set_params(s->ctx, tune_algo(net), type, vs, &zero);
    clsort_get_params(s->ctx, tune_algo(net), type, vs, &r->start);
    r->best = r->start;

    /* Sizes: drop the larger ones where a run of the start point takes too long (the
     * transposition network is quadratic in the number of tiles). */
    uint64_t sizes[TUNE_MAX_SIZES];
    int nsizes = 0;
    s->run_limit = s->o->quick ? 0.4 : 2.0;
    const size_t ks = w ? 8 : 4;
    tune_data d;
    uint64_t n_max = s->sizes[s->nsizes - 1];
    while (n_max > 1024 && n_max * (ks + vs) * 3 > s->info.max_alloc)
        n_max >>= 1;
    if (data_init(&d, w, k, (size_t)n_max)) {
        say(s, "clsort-tune: out of host memory for n=%llu", (unsigned long long)n_max);
        data_free(&d);
        return;
    }
    double score = 0, rate = 0;
    nsizes = search_sizes(s, r, &d, net, w, k, deadline, n_max, sizes, &score, &rate);
    double best_score = score;
    if (s->o->verbose) {
        char ptext[128];
        say(s, "  %s %d-bit %s start %s: %.1f Mkeys/s", nname, w ? 64 : 32, tune_kind_name(k),
            tune_params_text(&r->start, ptext, sizeof ptext), rate / 1e6);
    }

    /* Coordinate descent: each axis in turn, every power of two in range (--quick: the two
     * neighbours of the current value), keeping the others at the best so far. The order
     * matters where the budget runs out first. GPUs: tile, wg_size, keys_per_item, vec_step
     * (the tile sets the pass count). CPUs: keys_per_item, vec_step, wg_size, tile: each
     * candidate there costs a build of 4-20 s on PoCL, the tiles above 32 keys (shared tiles,
     * 14-150 s builds) never won on PoCL, and with the 16-key solo tiles the rows a work-item
     * holds set the pass count (docs/perf.md). */
    static const int gpu_order[] = {TUNE_P_tile, TUNE_P_wg_size, TUNE_P_keys_per_item,
                                    TUNE_P_vec_step},
                     cpu_order[] = {TUNE_P_keys_per_item, TUNE_P_vec_step, TUNE_P_wg_size,
                                    TUNE_P_tile};
    _Static_assert(sizeof gpu_order / sizeof *gpu_order == CLSORT_NPARAMS &&
                       sizeof cpu_order / sizeof *cpu_order == CLSORT_NPARAMS,
                   "each order names every row of CLSORT_PARAM_TABLE");
    const int *order = s->info.type && strcmp(s->info.type, "cpu") == 0 ? cpu_order : gpu_order;
    const int sweeps = s->o->quick ? 1 : 2;
    for (int sweep = 0; sweep < sweeps; ++sweep) {
        const clsort_params before = r->best;
        for (int ai = 0; ai < CLSORT_NPARAMS; ++ai) {
            const int a = order[ai];
            if (s->o->quick && a == TUNE_P_vec_step && r->best.tile > 32)
                continue; /* vec_step matters little with big tiles (GPU shapes) */
            const unsigned cur = tune_param_of(&r->best, a);
            for (unsigned v = tune_param_lo(a); v <= tune_param_hi(a); v <<= 1) {
                if (s->o->quick && v != cur / 2 && v != cur * 2)
                    continue;
                if (tune_now() > deadline)
                    goto done;
                clsort_params p = r->best;
                *tune_param(&p, a) = v;
                if (tune_same_params(&p, &r->best) ||
                    ((a == TUNE_P_tile || a == TUNE_P_wg_size) && p.wg_size > p.tile / 2))
                    continue;
                search_try(s, r, &d, net, w, k, &p, a, v, sizes, nsizes, &best_score);
            }
        }
        if (tune_same_params(&before, &r->best))
            break;
    }
done:
    /* The config's section without a size gets the winner at the largest size (it holds for
     * every larger input); smaller sizes get size ranges where their winner differs. */
    r->best = r->size_best[r->nsizes - 1];
    r->best_rate = r->size_rate[r->nsizes - 1];
    /* The context keeps the winner for the AUTO and host-fallback measurements. */
    if (clsort_set_params(s->ctx, tune_algo(net), type, vs, &r->best) != CLSORT_OK)
        clsort_set_params(s->ctx, tune_algo(net), type, vs, &zero);
    data_free(&d);
}

/* ---- AUTO and the host fallback --------------------------------------------------------------- */

void tune_measure_auto(tune_state *s, double deadline)
{
    const uint64_t lo = 1024, hi = s->o->quick ? ((uint64_t)1 << 18) : ((uint64_t)1 << 22);
    const unsigned step = s->o->quick ? 2 : 1; /* log2 step between sizes */
    tune_data d;
    if (data_init(&d, 0, 0, (size_t)hi)) {
        data_free(&d);
        return;
    }
    int alive[TUNE_NETS] = {1, 1, 1};
    s->nauto = 0;
    s->nrules = 0;
    int complete = 1;
    for (uint64_t n = lo; n <= hi && s->nauto < TUNE_MAX_POINTS; n <<= step) {
        if (tune_now() > deadline) {
            complete = 0; /* past the budget: rules for the sizes measured, if any */
            break;
        }
        tune_point *pt = &s->auto_pts[s->nauto];
        memset(pt, 0, sizeof *pt);
        pt->n = n;
        double best = 0;
        for (int net = 0; net < TUNE_NETS; ++net) {
            if (!alive[net])
                continue;
            tune_progress(s, "AUTO: %s at n=%llu", clsort_algorithm_name(tune_algo(net)),
                          (unsigned long long)n);
            uint64_t ns = 0, min_ns = UINT64_MAX;
            char why[128] = "", err[256];
            int ok = 1, rc = CLSORT_OK;
            for (int r = 0; r <= s->reps && ok; ++r) {
                rc = run_once(s, &d, net, (size_t)n, &ns, NULL, CLSORT_NO_HOST_FALLBACK);
                if (rc != CLSORT_OK || (r == 0 && data_check(&d, (size_t)n, why, sizeof why)))
                    ok = 0;
                else if (r > 0 || s->reps == 0)
                    min_ns = ns < min_ns ? ns : min_ns;
            }
            if (!ok) {
                /* Out of AUTO from here on; said, since it decides the rules. */
                say(s, "clsort-tune: AUTO: %s at n=%llu %s: %s (left out of AUTO)",
                    clsort_algorithm_name(tune_algo(net)), (unsigned long long)n,
                    rc != CLSORT_OK ? "failed" : "sorted wrongly",
                    rc != CLSORT_OK ? short_error(s, err, sizeof err) : why);
                alive[net] = 0;
                continue;
            }
            pt->net_ns[net] = (double)min_ns;
        }
        /* Bitonic (the default) unless another network is clearly faster: a winner by noise
         * would only add rules. */
        pt->winner = 0;
        best = pt->net_ns[0];
        for (int net = 1; net < TUNE_NETS; ++net)
            if (pt->net_ns[net] > 0 && (best == 0 || pt->net_ns[net] < best * 0.95)) {
                best = pt->net_ns[net];
                pt->winner = net;
            }
        /* The transposition network's passes grow with n / TILE: four times slower than the
         * best, it only falls further behind. Not the others: a bitonic tuned for large inputs
         * can be slow on 1024 keys and still win from 16384 on (a PoCL tune once dropped it at
         * the first size and gave AUTO to the odd-even merge at every size). */
        if (pt->net_ns[2] > 4 * best)
            alive[2] = 0;
        if (best > 0)
            ++s->nauto;
    }
    data_free(&d);
    /* Rules: each run of sizes with the same winner, up to the last size it won. The last
     * winner holds for every larger n only when the measurement reached the largest size;
     * otherwise larger inputs keep the default (bitonic), since a network that wins small
     * inputs (odd-even transposition, odd-even merge) falls behind on large ones. */
    s->auto_partial = !complete;
    for (int i = 0; i < s->nauto; ++i) {
        const int last = i + 1 == s->nauto;
        if (!last && s->auto_pts[i + 1].winner == s->auto_pts[i].winner)
            continue;
        if (s->nrules == 6 && !last)
            continue;
        const int open_end = last && (complete || s->auto_pts[i].winner == 0);
        s->rule_algo[s->nrules] = tune_algo(s->auto_pts[i].winner);
        s->rule_max[s->nrules] = open_end ? UINT64_MAX : s->auto_pts[i].n;
        ++s->nrules;
        if (last && !open_end) {
            s->rule_algo[s->nrules] = tune_algo(0);
            s->rule_max[s->nrules] = UINT64_MAX;
            ++s->nrules;
        }
    }
}

/* The radix sort's index in run_once's `net` (tune_algo(net) is CLSORT_RADIX). */
#define RADIX_NET ((int)CLSORT_RADIX - 1)

/* The fastest of s->reps + 1 checked device-time runs of `net` at n into *ns; 0 on success. */
static int best_device_time(tune_state *s, tune_data *d, int net, size_t n, uint64_t *ns)
{
    char why[128] = "", err[256];
    uint64_t t = 0;
    *ns = UINT64_MAX;
    for (int r = 0; r <= s->reps; ++r) {
        const int rc = run_once(s, d, net, n, &t, NULL, CLSORT_NO_HOST_FALLBACK);
        if (rc != CLSORT_OK || (r == 0 && data_check(d, n, why, sizeof why))) {
            say(s, "clsort-tune: radix crossover: %s at n=%zu %s: %s",
                clsort_algorithm_name(tune_algo(net)), n,
                rc != CLSORT_OK ? "failed" : "sorted wrongly",
                rc != CLSORT_OK ? short_error(s, err, sizeof err) : why);
            return -1;
        }
        if (r > 0 || s->reps == 0)
            *ns = t < *ns ? t : *ns;
    }
    return 0;
}

void tune_measure_radix(tune_state *s, double deadline)
{
    if (strcmp(s->info.type, "gpu") != 0)
        return;
    const unsigned lo = 16, hi = s->o->quick ? 22 : 24, step = s->o->quick ? 2 : 1;
    for (int k = 0; k < TUNE_KINDS; ++k)
        for (int w = 0; w < TUNE_WIDTHS; ++w) {
            tune_data d;
            if (tune_now() > deadline || data_init(&d, w, k, (size_t)1 << hi)) {
                if (tune_now() <= deadline)
                    data_free(&d);
                return;
            }
            /* The crossover: the first size from which the radix sort is clearly faster (by 3%)
             * at every size measured; none where it never is, or the budget cut the sizes. */
            uint64_t from = 0;
            int complete = 1;
            for (unsigned lg = lo; lg <= hi; lg += step) {
                const size_t n = (size_t)1 << lg;
                uint64_t net_ns, radix_ns;
                if (tune_now() > deadline) {
                    complete = 0;
                    break;
                }
                tune_progress(s, "radix crossover: %s %s at n=%zu", w ? "u64" : "u32",
                              tune_kind_name(k), n);
                if (best_device_time(s, &d, 0, n, &net_ns) ||
                    best_device_time(s, &d, RADIX_NET, n, &radix_ns)) {
                    complete = 0;
                    break;
                }
                if ((double)radix_ns < 0.97 * (double)net_ns) {
                    if (!from)
                        from = n;
                } else {
                    from = 0;
                }
            }
            data_free(&d);
            s->radix_done[w][k] = 1;
            s->radix_min[w][k] = complete ? from : 0;
        }
}

void tune_measure_host_fallback(tune_state *s, double deadline)
{
    const uint64_t lo = 256, hi = 65536;
    const unsigned step = s->o->quick ? 2 : 1;
    tune_data d;
    if (data_init(&d, 0, 0, (size_t)hi)) {
        data_free(&d);
        return;
    }
    uint64_t saved = 0;
    clsort_get_host_fallback_max(s->ctx, &saved);
    s->nhost = 0;
    s->host_fallback_max = 0;
    s->host_wins_all = 0;
    int device_won = 0;
    const int reps = s->reps < 2 ? 3 : s->reps + 1;
    for (uint64_t n = lo; n <= hi && s->nhost < TUNE_MAX_POINTS; n <<= step) {
        if (tune_now() > deadline)
            break; /* past the budget: the sizes measured, if any, decide */
        tune_point *pt = &s->host_pts[s->nhost];
        memset(pt, 0, sizeof *pt);
        pt->n = n;
        /* The network AUTO will use at this size. */
        int net = 0;
        for (int i = 0; i < s->nrules; ++i)
            if (n <= s->rule_max[i]) {
                net = (int)s->rule_algo[i] - 1;
                break;
            }
        pt->winner = net;
        tune_progress(s, "host fallback: n=%llu", (unsigned long long)n);
        uint64_t host = UINT64_MAX, dev = UINT64_MAX, total;
        int ok = 1;
        for (int r = 0; r < reps && ok; ++r) {
            clsort_set_host_fallback_max(s->ctx, n); /* host sort */
            if (run_end_to_end(s, &d, net, n, 0, "host fallback", &total)) {
                ok = 0;
                break;
            }
            host = total < host ? total : host;
            clsort_set_host_fallback_max(s->ctx, 0);
            if (run_end_to_end(s, &d, net, n, CLSORT_NO_HOST_FALLBACK, "host fallback", &total)) {
                ok = 0;
                break;
            }
            if (r > 0) /* the first device run may still compile */
                dev = total < dev ? total : dev;
        }
        if (!ok)
            break;
        pt->host_ns = (double)host;
        pt->device_ns = (double)dev;
        ++s->nhost;
        if (!device_won && host <= dev)
            s->host_fallback_max = n;
        if (host > dev)
            device_won = 1;
    }
    s->host_wins_all = s->nhost > 0 && !device_won;
    clsort_set_host_fallback_max(s->ctx, saved);
    data_free(&d);
}

/* On a CPU device the OpenCL "device" is the host's own cores, and the host's sort (Highway's
 * vqsort where the library has it) can beat the networks at every size: AUTO's host path. Both
 * sides are timed end to end on host arrays, as a user's clsort_sort runs them: the host sort
 * (through the fallback size, raised to n for the run) against the network AUTO uses at n.
 * Sizes from 2^12 up to 2^24 (--quick: 2^14, 2^18, 2^22); the host path reaches up to the last
 * size of the first run of host wins, or every size when the device never won. */
void tune_measure_host_path(tune_state *s, double deadline)
{
    s->npath = 0;
    s->host_path_max = 0;
    if (strcmp(s->info.type, "cpu") != 0)
        return;
    const uint64_t lo = s->o->quick ? (1u << 14) : (1u << 12),
                   hi = s->o->quick ? (1u << 22) : (1u << 24);
    const unsigned step = s->o->quick ? 4 : 2;
    tune_data d;
    if (data_init(&d, 0, 0, (size_t)hi)) {
        data_free(&d);
        return;
    }
    uint64_t saved = 0;
    clsort_get_host_fallback_max(s->ctx, &saved);
    int device_won = 0;
    for (uint64_t n = lo; n <= hi && s->npath < TUNE_MAX_POINTS; n <<= step) {
        if (tune_now() > deadline)
            break; /* past the budget: the sizes measured, if any, decide */
        tune_point *pt = &s->path_pts[s->npath];
        memset(pt, 0, sizeof *pt);
        pt->n = n;
        int net = 0; /* the network AUTO will use at this size */
        for (int i = 0; i < s->nrules; ++i)
            if (n <= s->rule_max[i]) {
                net = (int)s->rule_algo[i] - 1;
                break;
            }
        pt->winner = net;
        tune_progress(s, "host path: n=%llu", (unsigned long long)n);
        uint64_t host = UINT64_MAX, dev = UINT64_MAX, total;
        int ok = 1;
        /* Three of each (two for the largest sizes, which take a second a pair on PoCL); the
         * first device run may still compile, so it does not count. */
        const int reps = n >= (1u << 22) ? 2 : 3;
        for (int r = 0; r < reps + 1 && ok; ++r) {
            clsort_set_host_fallback_max(s->ctx, n); /* host sort */
            if (r < reps) {
                if (run_end_to_end(s, &d, net, n, 0, "host path", &total)) {
                    ok = 0;
                    break;
                }
                host = total < host ? total : host;
            }
            clsort_set_host_fallback_max(s->ctx, 0);
            if (run_end_to_end(s, &d, net, n, CLSORT_NO_HOST_FALLBACK, "host path", &total)) {
                ok = 0;
                break;
            }
            if (r > 0)
                dev = total < dev ? total : dev;
        }
        if (!ok)
            break;
        pt->host_ns = (double)host;
        pt->device_ns = (double)dev;
        ++s->npath;
        if (!device_won && host <= dev)
            s->host_path_max = n;
        if (host > dev)
            device_won = 1;
    }
    if (s->npath > 0 && !device_won)
        s->host_path_max = UINT64_MAX;
    clsort_set_host_fallback_max(s->ctx, saved);
    data_free(&d);
}
