/* clsort_multidev.c - several devices in one clsort process (-d 0:0,0:1, gpu:all, cpu:all, all).
 * The library keeps one context per device, so each device gets its own context and thread.
 *
 * Key ranges (issue 28), for inputs that are regular files and fit in host memory twice: the
 * input is read into memory while the contexts are made (and the rates of devices of different
 * models measured: ranges in proportion to them); a regular sample gives nd-1 splitters, each
 * record goes to the device that owns its key range (into page-locked memory of that device's
 * context), each device sorts its range (in runs of its own, merged in memory, when the range is
 * larger than a device sort: -S or the device's memory) and its range is written at its final
 * offset. No run files and no host merge of the devices' results.
 *
 * The same bytes as one device with -s: every record is placed by (its keys, its input position),
 * as clsort-mpi does (tools/clsort-mpi/mpi_exchange.c). Those pairs are all distinct, so a file of
 * equal keys still splits where the weights say, and a boundary inside a group of equal keys puts
 * the earlier records on the lower device. The routing keeps input order inside a range, each
 * device sorts with ties in input order (cli_chunk_sort) and merges its runs with ties by run, so
 * the concatenation of the ranges is the stable order. With -u, a group of equal records may
 * straddle a boundary: the next range's first record is dropped when it equals the previous
 * range's last one.
 *
 * Other inputs (standard input, several hundred devices, an input too large for host memory)
 * take the rounds path below: each round reads one run per device, sorts them all at once, and
 * the runs are merged as an external sort's are, which gives the same bytes. */
#if defined(__linux__)
#define _GNU_SOURCE /* MADV_HUGEPAGE */
#endif
#include "clsort_multidev.h"

#include <errno.h>
#include <pthread.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clsort_devlist.h"
#include "clsort_fileio.h"
#include "clsort_guard.h"
#include "clsort_losertree.h"
#include "clsort_merge.h"
#include "clsort_messages.h"
#include "clsort_pmerge.h"
#include "clsort_records.h"
#include "clsort_request.h"
#include "clsort_units.h"

#define MD_BUF_BYTES ((size_t)4 << 20)

typedef struct md_worker {
    clsort_ctx *ctx;
    clsort_algorithm algorithm;
    int stable;
    const cli_keyspec *ks;
    cli_chunk chunk;
    cli_sort_stats st;
    int rc;
} md_worker;

static void *md_sort_main(void *arg)
{
    md_worker *const w = arg;
    w->rc = cli_chunk_sort(w->ctx, w->ks, w->algorithm, w->stable, &w->chunk, &w->st);
    return NULL;
}

/* Records per run: -S split over the devices, else a quarter of RAM split over them; never more
 * than the smallest device holds (keys and scratch, pairs as in clsort_extsort.c). */
static size_t md_run_records(const cli_run_request *rq, md_worker *w, size_t nd,
                             uint64_t in_records)
{
    const size_t R = rq->ks->record_size, K = rq->ks->key_size;
    const int pairs = R != K;
    /* Device bytes a key: 1- and 2-byte keys travel as 4-byte composites, stable pairs of
     * keys up to 4 bytes (and stable --nan-largest sorts) with 8-byte positions. */
    const uint64_t V = pairs ? 8 : 0,
                   Kd = (pairs && rq->stable && K <= 4) || (rq->stable && rq->ks->nan_largest) ? 8
                        : K < 4                                                               ? 4
                                                                                              : K;
    uint64_t n;
    if (rq->buffer_size) {
        n = rq->buffer_size / R / nd;
    } else {
        const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        const uint64_t phys = (pages > 0 && page > 0) ? (uint64_t)pages * (uint64_t)page
                                                      : (uint64_t)1 << 30;
        n = phys / 4 / (R + (pairs ? K + V : 0)) / nd;
    }
    for (size_t d = 0; d < nd; ++d) {
        clsort_device_info di;
        if (clsort_get_device_info(w[d].ctx, &di) != CLSORT_OK || !di.max_alloc || !di.global_mem)
            continue;
        uint64_t cap = di.max_alloc / (Kd > V ? Kd : V);
        const uint64_t g = di.global_mem / 4 * 3 / (2 * (Kd + V));
        if (g < cap)
            cap = g;
        if (cap > 0 && n > cap)
            n = cap;
    }
    /* An input that fits at once is still shared by all devices. */
    if (in_records && n > (in_records + nd - 1) / nd)
        n = (in_records + nd - 1) / nd;
    if (n > SIZE_MAX / (R + K + 8))
        n = SIZE_MAX / (R + K + 8);
    return n ? (size_t)n : 1;
}

/* fn on each of the n items (of `size` bytes), on a thread each where one can be started (th:
 * n slots), else here; returns when all are done. */
static void md_run_each_thread(void *items, size_t size, size_t n, pthread_t *th,
                               void *(*fn)(void *))
{
    unsigned char *const it = items;
    size_t started = 0;
    for (; started < n; ++started)
        if (pthread_create(&th[started], NULL, fn, it + started * size) != 0)
            break;
    for (size_t d = started; d < n; ++d)
        fn(it + d * size);
    for (size_t d = 0; d < started; ++d)
        pthread_join(th[d], NULL);
}

/* A context on each device of the list, for the options' keys; f64 keys need double precision. */
static int md_open_workers(const cli_opts *o, const cli_keyspec *ks, const cli_devlist *devs,
                           md_worker *w)
{
    for (size_t d = 0; d < devs->n; ++d) {
        w[d].algorithm = o->algorithm;
        w[d].stable = o->stable;
        w[d].ks = ks;
        const int lrc = clsort_create(&w[d].ctx, devs->specs[d]);
        if (lrc != CLSORT_OK) {
            cli_error("cannot use OpenCL device '%s' of the list '%s': %s", devs->specs[d],
                      o->device, clsort_strerror(lrc));
            return CLI_EXIT_DEVICE;
        }
        clsort_device_info di;
        if (o->type == CLSORT_F64 && clsort_get_device_info(w[d].ctx, &di) == CLSORT_OK &&
            !di.has_fp64) {
            cli_error("device %s has no double precision (fp64): f64 keys cannot be sorted there",
                      di.name);
            return CLI_EXIT_DEVICE;
        }
    }
    return CLI_EXIT_OK;
}

/* One round's input: a run of up to `cap` records of R bytes for each of the nd workers until the
 * input ends. *used: the workers that got one; *records counts them; *eof: the input ended. */
static int md_read_round(cli_input *in, md_worker *w, size_t nd, size_t cap, size_t R,
                         size_t *used, uint64_t *records, int *eof)
{
    for (*used = 0; *used < nd && !*eof; ++*used) {
        cli_chunk *const c = &w[*used].chunk;
        const int64_t got = cli_input_read(in, c->recs, cap * R);
        if (got < 0)
            return CLI_EXIT_IO;
        if ((size_t)got % R != 0) {
            cli_error("%s: size %llu is not a multiple of the record size %zu", in->name,
                      (unsigned long long)in->consumed, R);
            return CLI_EXIT_IO;
        }
        c->n = (size_t)got / R;
        *records += c->n;
        const int e = cli_input_eof(in);
        if (e < 0)
            return CLI_EXIT_IO;
        *eof = e;
    }
    return CLI_EXIT_OK;
}

/* -v's line for one device of the rounds. */
static void md_report_worker(const md_worker *w)
{
    clsort_device_info di;
    if (clsort_get_device_info(w->ctx, &di) == CLSORT_OK)
        cli_info(2, "device %u:%u %s: %llu keys in %u sorts, %.3f s", di.platform_index,
                 di.device_index, di.name, (unsigned long long)w->st.keys, w->st.sorts,
                 (double)w->st.sort_ns / 1e9);
}

static int md_sort_rounds(const cli_opts *o)
{
    const uint64_t t0 = cli_now_ns();
    const size_t R = o->record_size;
    cli_keyspec ks; /* every key, byte order and -u: the same spec as the one-device path */
    cli_keyspec_from_opts(&ks, o);
    cli_devlist devs;
    int rc = cli_devlist_expand(o->device, &devs);
    if (rc != CLI_EXIT_OK)
        return rc;
    const size_t nd = devs.n;
    md_worker *const w = calloc(nd, sizeof *w);
    pthread_t *const th = calloc(nd, sizeof *th);
    cli_run_set runs;
    cli_runs_init(&runs, o->tmpdir, &ks, MD_BUF_BYTES);
    cli_input in;
    cli_writer out;
    int in_open = 0, out_open = 0, guard_open = 0;
    cli_guard guard;
    uint64_t records = 0;
    unsigned nruns = 0;
    if (!w || !th) {
        cli_error("out of host memory");
        rc = CLI_EXIT_IO;
        goto done;
    }
    /* Several input files, and the check that the input did not change before an in-place
     * replace, as on the one-device path (clsort_guard.h). */
    if ((rc = cli_guard_prepare(&guard, o->inputs, o->ninputs, R)) != CLI_EXIT_OK)
        goto done;
    guard_open = 1;
    if ((rc = cli_input_open_list(&in, o->inputs, o->ninputs, R)) != CLI_EXIT_OK)
        goto done;
    in_open = 1;
    if (in.is_regular && in.size % R != 0) {
        cli_error("%s: size %llu is not a multiple of the record size %zu (%llu bytes left over)",
                  in.name, (unsigned long long)in.size, R, (unsigned long long)(in.size % R));
        rc = CLI_EXIT_IO;
        goto done;
    }
    rc = cli_writer_open_output(&out, o->output, o->input, MD_BUF_BYTES, o->no_fsync);
    if (rc != CLI_EXIT_OK)
        goto done;
    out_open = 1;
    cli_guard_attach(&guard, &out);
    if ((rc = md_open_workers(o, &ks, &devs, w)) != CLI_EXIT_OK)
        goto done;
    const cli_run_request rq = { &ks, o->stable, o->buffer_size };
    const size_t cap = md_run_records(&rq, w, nd, in.is_regular ? in.size / R : 0);
    for (size_t d = 0; d < nd; ++d)
        if ((rc = cli_chunk_alloc(&w[d].chunk, &ks, cap)) != CLI_EXIT_OK)
            goto done;

    /* Rounds: read one run per device, sort them all at once, write them in input order. */
    for (int eof = 0; !eof;) {
        size_t used = 0;
        if ((rc = md_read_round(&in, w, nd, cap, R, &used, &records, &eof)) != CLI_EXIT_OK)
            goto done;
        md_run_each_thread(w, sizeof *w, used, th, md_sort_main);
        for (size_t d = 0; d < used; ++d) {
            if (rc == CLI_EXIT_OK && w[d].rc != CLI_EXIT_OK)
                rc = w[d].rc;
            if (rc == CLI_EXIT_OK && (w[d].chunk.n > 0 || nruns == 0)) {
                rc = cli_runs_add_chunk(&runs, o->tmpdir, &ks, &w[d].chunk, MD_BUF_BYTES, NULL,
                                        NULL);
                ++nruns;
            }
        }
        if (rc != CLI_EXIT_OK)
            goto done;
    }
    if ((rc = cli_runs_merge(&runs, &out)) != CLI_EXIT_OK)
        goto done;
    rc = cli_writer_commit(&out, NULL);
    out_open = 0;
    if (rc == CLI_EXIT_OK && cli_display_level >= 2) {
        for (size_t d = 0; d < nd; ++d)
            md_report_worker(&w[d]);
        cli_info(2, "%llu records on %zu devices in %u runs of up to %zu records, merged; total "
                    "%.3f s",
                 (unsigned long long)records, nd, nruns, cap, (double)(cli_now_ns() - t0) / 1e9);
    }
done:
    if (out_open)
        cli_writer_abort(&out);
    cli_runs_close(&runs);
    if (in_open)
        cli_input_close(&in);
    for (size_t d = 0; w && d < nd; ++d) {
        cli_chunk_free(&w[d].chunk);
        clsort_destroy(w[d].ctx);
    }
    if (guard_open)
        cli_guard_free(&guard);
    free(w);
    free(th);
    cli_devlist_free(&devs);
    return rc;
}

/* ---- Key ranges ------------------------------------------------------------------------------ */

#define MD_SAMPLES_PER_DEVICE 1024
#define MD_CALIB_KEYS ((size_t)1 << 18)
#define MD_MAX_DEVICES 255                   /* a device index fits the routing's byte */
#define MD_MERGE_BUF ((size_t)1 << 20)       /* the buffer of a range's in-memory merge */
#define MD_NOT_HERE (-1)                     /* md_sort_ranges: nothing done, take the rounds */

typedef struct md_job md_job;

typedef struct md_dev {
    md_job *job;
    size_t index;
    const char *spec;
    clsort_ctx *ctx;
    int create_rc;              /* clsort_create's answer */
    clsort_device_info di;
    int have_di;
    double rate;                /* keys a second in the calibration sort; 0: not measured */
    double weight;              /* its share of the input */
    uint64_t setup_ns;          /* context and calibration, on its thread */
    size_t cap;                 /* records one device sort takes */
    unsigned char *src;         /* the range, routed: n records in input order (md_alloc_range) */
    int src_pinned;             /* src is clsort_host_alloc memory of ctx */
    int src_is_input;           /* src is the input buffer itself (one device) */
    int idle;                   /* no range: another device sorts the whole input (md_sole) */
    unsigned char *alt_own;     /* alt when it is a buffer of its own (one device) */
    unsigned char *alt;         /* as many bytes at the range's place in the A buffer */
    size_t n;
    uint64_t out_off;           /* where the range starts in the output (without -u) */
    const unsigned char *res;   /* the sorted range: res_len bytes (src, alt) */
    size_t res_len;
    unsigned runs;              /* device sorts of the range */
    uint64_t sort_ns, merge_ns, write_ns;
    cli_sort_stats st;
    int rc;
} md_dev;

struct md_job {
    const cli_opts *o;
    cli_keyspec ks;
    size_t nd;
    md_dev *dev;
    cli_writer *out;
    int direct;                 /* each device writes its range itself, at out_off */
    unsigned write_threads;     /* per device */
    size_t calib_keys;          /* 0: no calibration */
    int calib_always;           /* measure identical devices too (CLSORT_CLI_DEVICE_WEIGHTS=measure) */
    pthread_mutex_t mu;         /* the setup threads wait for each other's device info */
    pthread_cond_t cv;
    size_t ready;               /* setup threads past clsort_create */
    int abort_wait;             /* a setup thread could not be started: nobody waits */
    long fault;                 /* CLSORT_TEST_DEVICE_FAULT: this device fails after one sort */
    int one_at_a_time;          /* the devices are the host's cores: their sorts take turns */
    int sole;                   /* ...so device 0 sorts the whole input, in place (md_sole) */
    int sole_known;             /* sole is decided (by md_setup_main's last thread, or later) */
    int weights_given;          /* CLSORT_CLI_DEVICE_WEIGHTS gave the shares */
    size_t N;                   /* records of the input */
    pthread_mutex_t turn;
    /* The route's parts, for -v: the splitters' sample, the count pass, the ranges' memory
     * (page-locked where it can be had) and the scatter pass. */
    uint64_t split_ns, count_ns, range_alloc_ns, scatter_ns;
};

static unsigned md_cores(void)
{
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

/* The calibration: two sorts of MD_CALIB_KEYS keys of the input's type, in the input's shape
 * (pairs when records are larger than the key), the second one timed. The first one builds the
 * programs, which the range's sort would do anyway: it is setup overlapped with the read. */
static void md_calibrate(md_dev *d)
{
    const md_job *const j = d->job;
    const cli_keyspec *const ks = &j->ks;
    const size_t n = j->calib_keys, K = ks->key_size;
    const int pairs = cli_keyspec_pairs(ks);
    unsigned char *const keys = malloc(n * K);
    uint32_t *const idx = pairs ? malloc(n * sizeof *idx) : NULL;
    uint64_t x = 0x9E3779B97F4A7C15u ^ (uint64_t)d->index;
    const unsigned flags = cli_order_flags(ks) |
                           (pairs && j->o->stable ? CLSORT_STABLE : 0u);
    for (int round = 0; keys && (idx || !pairs) && round < 2; ++round) {
        for (size_t i = 0; i < n * K; i += 8) { /* xorshift64: any bits; NaNs sort too */
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            memcpy(keys + i, &x, n * K - i < 8 ? n * K - i : 8);
        }
        for (size_t i = 0; pairs && i < n; ++i)
            idx[i] = (uint32_t)i;
        const uint64_t t0 = cli_now_ns();
        const int rc = pairs ? clsort_sort_pairs(d->ctx, keys, idx, sizeof *idx, n, ks->type,
                                                 j->o->algorithm, flags)
                             : clsort_sort(d->ctx, keys, n, ks->type, j->o->algorithm, flags);
        const uint64_t ns = cli_now_ns() - t0;
        if (rc != CLSORT_OK)
            break; /* the range's sort reports it */
        if (round == 1 && ns > 0)
            d->rate = (double)n / ((double)ns / 1e9);
    }
    free(keys);
    free(idx);
}

static size_t md_device_cap(const cli_opts *o, const cli_keyspec *ks, const md_dev *d);

/* Whether a sort of n records on this device runs on the calling host thread: the library's
 * fallback for small inputs, or AUTO's host path (a CPU device's default for every size). */
static int md_host_sort(const md_dev *d, size_t n)
{
    uint64_t fb = 0, hp = 0;
    clsort_get_host_fallback_max(d->ctx, &fb);
    clsort_get_host_path_max(d->ctx, &hp);
    return n <= fb || (d->job->o->algorithm == CLSORT_AUTO && n <= hp);
}

/* The programs (and buffers) of the range's sort, made while the input is read (issue 23's
 * clsort_prepare), for about the range a device gets: without it the first device to sort paid
 * the compile (PoCL: 2.1 s against 0.6 s for the second one's range of the same size). A failure
 * is not an error here: the sort builds what it needs and reports. */
static void md_prepare(md_dev *d)
{
    const md_job *const j = d->job;
    const int pairs = cli_keyspec_pairs(&j->ks);
    size_t n = j->N / j->nd + j->N / j->nd / 4 + 1;
    const size_t cap = md_device_cap(j->o, &j->ks, d);
    if (n > cap)
        n = cap;
    if (md_host_sort(d, n))
        return; /* no program to make */
    clsort_prepare(d->ctx, j->ks.type, pairs ? 4 : 0, n,
                   cli_order_flags(&j->ks) |
                       (pairs && j->o->stable ? CLSORT_STABLE : 0u));
}

/* One calibration at a time: devices that share the host's cores (PoCL's CPU devices, or a GPU
 * driver's host threads) would otherwise measure each other; a device's rate is its own. */
static pthread_mutex_t md_calib_lock = PTHREAD_MUTEX_INITIALIZER;

/* The same model: same name, platform, compute units and memory. Such devices get equal shares
 * without a measurement, which on devices that share cores could only add noise. */
static int md_same_model(const md_dev *a, const md_dev *b)
{
    return a->have_di && b->have_di && strcmp(a->di.name, b->di.name) == 0 &&
           strcmp(a->di.platform, b->di.platform) == 0 &&
           a->di.compute_units == b->di.compute_units && a->di.global_mem == b->di.global_mem &&
           a->di.max_alloc == b->di.max_alloc;
}

/* Whether the devices' sorts must take turns: CPU devices of one platform (PoCL's) each spread
 * a sort over all of the host's cores, so at once they only contend for them (two PoCL devices
 * on 2 cores: 3.5 s against 2.2 s for one device's whole sort). Sorts on the host's own sort
 * (the library's fallback, or AUTO's host path) run on the devices' threads, one core each, and
 * so do run at once. Before the routing (routed 0) each device's share is taken as equal. */
static int md_turns(const md_job *j, int routed)
{
    if (j->nd < 2)
        return 0;
    int all_host = 1;
    for (size_t d = 0; d < j->nd; ++d) {
        const md_dev *const v = &j->dev[d];
        if (!v->have_di || strcmp(v->di.type, "cpu") != 0 ||
            strcmp(v->di.platform, j->dev[0].di.platform) != 0)
            return 0;
        const size_t cap = md_device_cap(j->o, &j->ks, v);
        size_t n = routed ? v->n : j->N / j->nd + 1;
        if (n > cap)
            n = cap;
        if (!md_host_sort(v, n))
            all_host = 0;
    }
    return !all_host;
}

/* Devices that would take turns gain nothing from key ranges: the sorts of the ranges, one after
 * the other on the same cores, cost what one sort of the whole does, and the routing comes on
 * top (two PoCL devices on 2 cores, 16M u32 keys with -a bitonic: 0.58-0.69 s against 0.53-0.56
 * s on one device). So the first device sorts the whole input in place and the others stay
 * idle; -v says so. Not when CLSORT_CLI_DEVICE_WEIGHTS gives the shares. */
static int md_sole(const md_job *j)
{
    return !j->weights_given && md_turns(j, 0);
}

static void *md_setup_main(void *arg)
{
    md_dev *const d = arg;
    md_job *const j = d->job;
    const uint64_t t0 = cli_now_ns();
    d->create_rc = clsort_create(&d->ctx, d->spec);
    if (d->create_rc == CLSORT_OK)
        d->have_di = clsort_get_device_info(d->ctx, &d->di) == CLSORT_OK;
    /* Whether to measure depends on all the devices: wait for the others' info. */
    pthread_mutex_lock(&j->mu);
    j->ready += 1;
    if (j->ready == j->nd && !j->abort_wait) {
        /* The last one here decides whether the devices past the first will sit out
         * (md_sole), while no thread uses a context. */
        j->sole = md_sole(j);
        j->sole_known = 1;
    }
    pthread_cond_broadcast(&j->cv);
    while (j->ready < j->nd && !j->abort_wait)
        pthread_cond_wait(&j->cv, &j->mu);
    const int all = j->ready == j->nd;
    const int sole = j->sole_known && j->sole;
    pthread_mutex_unlock(&j->mu);
    int measure = all && j->calib_keys > 0 && d->create_rc == CLSORT_OK;
    int identical = 1;
    for (size_t e = 0; measure && e < j->nd; ++e) {
        if (j->dev[e].create_rc != CLSORT_OK || !j->dev[e].have_di)
            measure = 0; /* that device fails: nothing will be sorted */
        else if (!md_same_model(d, &j->dev[e]))
            identical = 0;
    }
    const int no_fp64 = j->ks.type == CLSORT_F64 && d->have_di && !d->di.has_fp64;
    /* A device that will sit out (md_sole: the first one sorts all) makes no programs. */
    if (d->create_rc == CLSORT_OK && !no_fp64 && !(sole && d->index > 0))
        md_prepare(d);
    if (measure && (!identical || j->calib_always) && !no_fp64) {
        pthread_mutex_lock(&md_calib_lock);
        md_calibrate(d);
        pthread_mutex_unlock(&md_calib_lock);
    }
    d->setup_ns = cli_now_ns() - t0;
    return NULL;
}

/* Records one device sort takes: -S if given, else what the device holds (keys and scratch,
 * pairs as in clsort_extsort.c). The range is in host memory already, so host memory does not
 * bound it. */
static size_t md_device_cap(const cli_opts *o, const cli_keyspec *ks, const md_dev *d)
{
    const size_t R = ks->record_size, K = ks->key_size;
    const int pairs = cli_keyspec_pairs(ks);
    /* Device bytes a key: 1- and 2-byte keys travel as 4-byte composites, stable pairs of
     * keys up to 4 bytes (and stable --nan-largest sorts) with 8-byte positions. */
    const uint64_t V = pairs ? 8 : 0,
                   Kd = (pairs && o->stable && K <= 4) || (o->stable && o->nan_largest) ? 8
                        : K < 4                                                       ? 4
                                                                                      : K;
    uint64_t n = o->buffer_size ? o->buffer_size / R : UINT64_MAX;
    if (d->have_di && d->di.max_alloc && d->di.global_mem) {
        uint64_t cap = d->di.max_alloc / (Kd > V ? Kd : V);
        const uint64_t g = d->di.global_mem / 4 * 3 / (2 * (Kd + V));
        if (g < cap)
            cap = g;
        if (cap > 0 && n > cap)
            n = cap;
    }
    if (n > SIZE_MAX / (R + K + 8))
        n = SIZE_MAX / (R + K + 8);
    return n ? (size_t)n : 1;
}

/* ---- Splitters and routing ---- */

typedef struct md_sample {
    uint64_t ord;               /* first key's ordinal */
    uint64_t pos;               /* input position */
    const unsigned char *rec;
} md_sample;

/* qsort's comparator needs the key spec; only the main thread sorts samples. */
static const cli_keyspec *md_sample_ks;

static int md_cmp(const cli_keyspec *ks, uint64_t ord, uint64_t pos, const unsigned char *rec,
                  const md_sample *s)
{
    if (ord != s->ord)
        return ord < s->ord ? -1 : 1;
    if (ks->nextra) {
        const int c = cli_extra_cmp(ks, rec, s->rec);
        if (c)
            return c;
    }
    return (pos > s->pos) - (pos < s->pos);
}

static int md_cmp_samples(const void *a, const void *b)
{
    const md_sample *const x = a;
    return md_cmp(md_sample_ks, x->ord, x->pos, x->rec, b);
}

/* The nd-1 splitters: a regular sample of the input sorted by (keys, position), cut where the
 * devices' weights add up. Device d owns the records from splitter d-1 (inclusive) to splitter d
 * (exclusive). Returns CLI_EXIT_OK or CLI_EXIT_IO (out of memory, printed). */
static int md_splitters(const md_job *j, const unsigned char *recs, size_t N, md_sample *split)
{
    const size_t R = j->ks.record_size, nd = j->nd;
    size_t S = MD_SAMPLES_PER_DEVICE * nd;
    if (S > N)
        S = N;
    md_sample *const sm = cli_malloc((S ? S : 1) * sizeof *sm, "the sample");
    if (!sm)
        return CLI_EXIT_IO;
    for (size_t i = 0; i < S; ++i) {
        /* The start of each of S equal parts: with all keys equal the splitters fall exactly
         * where the weights put them. */
        const size_t p = (size_t)(((uint64_t)i * N) / S);
        sm[i] = (md_sample){ cli_key_ordinal(&j->ks, recs + p * R), p, recs + p * R };
    }
    md_sample_ks = &j->ks;
    qsort(sm, S, sizeof *sm, md_cmp_samples);
    double total = 0, cum = 0;
    for (size_t d = 0; d < nd; ++d)
        total += j->dev[d].weight;
    for (size_t d = 0; d + 1 < nd; ++d) {
        cum += j->dev[d].weight;
        size_t at = S ? (size_t)(cum / total * (double)S) : 0;
        if (at >= S) /* past the sample: the rest goes to no later device */
            split[d] = (md_sample){ UINT64_MAX, UINT64_MAX, NULL };
        else
            split[d] = sm[at];
    }
    free(sm);
    return CLI_EXIT_OK;
}

typedef struct md_router {
    const md_job *j;
    const md_sample *split;
    const unsigned char *in;    /* the A buffer */
    unsigned char *const *out;  /* nd: each device's range buffer */
    unsigned char *bid;         /* each record's device */
    size_t lo, hi;              /* this thread's records */
    uint64_t *count;            /* nd: records of each device in [lo, hi) */
    uint64_t *at;               /* nd: where this thread's records of each device go there */
} md_router;

/* The device of each record with one key (no tie-breakers): its ordinal against each splitter's,
 * the position only on a tie. A splitter past the sample (rec NULL) has the largest ordinal and
 * position, which no record reaches. No branch on the data: with `||` and `&&` the compiler
 * branched on each comparison, mispredicted half the time on random keys, and the pass took 3.5x
 * as long (16M u32 keys: 86 against 25 ms on one core). The counts go to four rows by record so
 * that consecutive records of one device do not wait on each other's increment. */
#define MD_COUNT_LOOP(ORD)                                                                        \
    for (size_t i = r->lo; i < r->hi; ++i) {                                                      \
        const uint64_t ord = (ORD);                                                               \
        size_t d = 0;                                                                             \
        for (size_t t = 0; t < last; ++t)                                                         \
            d += (size_t)((ord > so[t]) | ((ord == so[t]) & ((uint64_t)i >= sp[t])));             \
        r->bid[i] = (unsigned char)d;                                                             \
        cnt4[i & 3][d] += 1;                                                                      \
    }

static void *md_route_count(void *arg)
{
    md_router *const r = arg;
    const cli_keyspec *const ks = &r->j->ks;
    const size_t R = ks->record_size, last = r->j->nd - 1;
    /* Counters on this thread's stack: the threads' rows of r->count share cache lines, and an
     * increment a record there costs more than the rest of the loop (false sharing). */
    uint64_t cnt[MD_MAX_DEVICES + 1] = { 0 };
    uint64_t cnt4[4][17] = { { 0 } }; /* MD_COUNT_LOOP's rows (last <= 16) */
    if (!ks->nextra && last <= 16) {
        uint64_t so[16], sp[16];
        for (size_t t = 0; t < last; ++t) {
            so[t] = r->split[t].rec ? r->split[t].ord : UINT64_MAX;
            sp[t] = r->split[t].rec ? r->split[t].pos : UINT64_MAX;
        }
        const unsigned char *const in = r->in;
        /* Whole little-endian ascending records of 4 and 8 bytes: the key is the word itself
         * (as an ordinal: the sign bit flipped for signed types). */
        if (R == ks->key_size && !ks->big_endian && !ks->reverse &&
            (ks->type == CLSORT_U32 || ks->type == CLSORT_I32)) {
            /* Integers' ordinals are their bits xor a constant: the ordinal of 0 (the table's). */
            const uint32_t flip = (uint32_t)cli_load_ordinal(ks->type, 4, 0, 0, 0,
                                                             (const unsigned char *)"\0\0\0\0");
            MD_COUNT_LOOP(((uint64_t)(((const uint32_t *)(const void *)in)[i] ^ flip)))
        } else if (R == ks->key_size && !ks->big_endian && !ks->reverse &&
                   (ks->type == CLSORT_U64 || ks->type == CLSORT_I64)) {
            const uint64_t flip = cli_load_ordinal(ks->type, 8, 0, 0, 0,
                                                   (const unsigned char *)"\0\0\0\0\0\0\0\0");
            MD_COUNT_LOOP((((const uint64_t *)(const void *)in)[i] ^ flip))
        } else {
            MD_COUNT_LOOP(cli_key_ordinal(ks, in + i * R))
        }
        for (size_t d = 0; d <= last; ++d)
            cnt[d] = cnt4[0][d] + cnt4[1][d] + cnt4[2][d] + cnt4[3][d];
    } else {
        for (size_t i = r->lo; i < r->hi; ++i) {
            const unsigned char *const rec = r->in + i * R;
            const uint64_t ord = cli_key_ordinal(ks, rec);
            size_t d = 0;
            while (d < last &&
                   (r->split[d].rec == NULL ? 0 : md_cmp(ks, ord, i, rec, &r->split[d]) >= 0))
                ++d;
            r->bid[i] = (unsigned char)d;
            cnt[d] += 1;
        }
    }
    for (size_t d = 0; d <= last; ++d)
        r->count[d] = cnt[d];
    return NULL;
}

static void *md_route_scatter(void *arg)
{
    md_router *const r = arg;
    const size_t R = r->j->ks.record_size;
    uint64_t at[MD_MAX_DEVICES + 1]; /* on the stack, as in md_route_count */
    memcpy(at, r->at, r->j->nd * sizeof *at);
    unsigned char *out[MD_MAX_DEVICES + 1];
    memcpy(out, r->out, r->j->nd * sizeof *out);
    const unsigned char *const in = r->in, *const bid = r->bid;
    if (R == 4 || R == 8) { /* a constant-size copy the compiler turns into one move */
        for (size_t i = r->lo; i < r->hi; ++i) {
            const size_t d = bid[i];
            if (R == 4)
                memcpy(out[d] + at[d] * 4, in + i * 4, 4);
            else
                memcpy(out[d] + at[d] * 8, in + i * 8, 8);
            at[d] += 1;
        }
        return NULL;
    }
    for (size_t i = r->lo; i < r->hi; ++i) {
        const size_t d = bid[i];
        memcpy(out[d] + at[d] * R, in + i * R, R);
        at[d] += 1;
    }
    return NULL;
}

/* Runs fn on each of the n items (size bytes apart from items), one thread each, the first on
 * this one; an item whose thread could not be started runs here after the others. n is at most
 * MD_MAX_DEVICES + 1 (routers, readers, devices). */
static void md_run_each(void *items, size_t size, size_t n, void *(*fn)(void *))
{
    pthread_t th[MD_MAX_DEVICES + 1];
    int started[MD_MAX_DEVICES + 1] = { 0 };
    unsigned char *const at = items;
    for (size_t t = 1; t < n; ++t)
        started[t] = pthread_create(&th[t], NULL, fn, at + t * size) == 0;
    if (n > 0)
        fn(at);
    for (size_t t = 1; t < n; ++t) {
        if (started[t])
            pthread_join(th[t], NULL);
        else
            fn(at + t * size);
    }
}

/* Reading a regular file into memory: T threads each pread a slice (the tests' read-fault hook
 * sees each slice). Returns the bytes read (fewer only if the file shrank), or -1 after printing
 * the first error. */
typedef struct md_reader {
    const cli_input *in;
    unsigned char *buf;
    size_t len;
    uint64_t off;
    int64_t got;
    int err;
} md_reader;

static void *md_reader_main(void *arg)
{
    md_reader *const r = arg;
    if (cli_test_read_fault(r->in->path, r->off, r->len) != 0) {
        r->err = errno;
        return NULL;
    }
    r->got = cli_pread_full(r->in->fd, r->buf, r->len, r->off);
    if (r->got < 0)
        r->err = errno;
    return NULL;
}

static int64_t md_read_parallel(const cli_input *in, unsigned char *buf, size_t len)
{
    md_reader rd[8];
    size_t nt = md_cores() < 8 ? md_cores() : 8;
    if (nt > len / ((size_t)16 << 20) + 1)
        nt = len / ((size_t)16 << 20) + 1; /* slices of at least 16 MiB */
    for (size_t t = 0; t < nt; ++t) {
        const size_t a = len / nt * t, b = t + 1 == nt ? len : len / nt * (t + 1);
        rd[t] = (md_reader){ in, buf + a, b - a, a, 0, 0 };
    }
    md_run_each(rd, sizeof *rd, nt, md_reader_main);
    int64_t total = 0;
    int err = 0, short_read = 0;
    for (size_t t = 0; t < nt; ++t) {
        if (rd[t].err && !err)
            err = rd[t].err;
        if (!rd[t].err) {
            if (short_read && rd[t].got > 0)
                short_read = 2; /* data after a hole: the file changed under us */
            total += rd[t].got;
            if ((size_t)rd[t].got < rd[t].len)
                short_read = short_read ? short_read : 1;
        }
    }
    if (err) {
        cli_error("%s: read error: %s", in->name, strerror(err));
        return -1;
    }
    return short_read == 2 ? 0 : total;
}

/* Large host buffers: aligned to 2 MiB and, on Linux, in huge pages where the kernel gives them,
 * so that first touching gigabytes is a few thousand page faults rather than a million (they
 * serialise on the address space's lock when many threads touch at once). */
static void *md_big_alloc(size_t bytes, const char *what)
{
    void *p = NULL;
    if (posix_memalign(&p, (size_t)2 << 20, bytes ? bytes : 1) != 0) {
        cli_error("out of host memory for %s (%zu bytes)", what, bytes);
        return NULL;
    }
#if defined(MADV_HUGEPAGE)
    if (bytes >= ((size_t)2 << 20))
        madvise(p, bytes, MADV_HUGEPAGE); /* best effort */
#endif
    return p;
}

/* Each device's range buffer: page-locked memory of its own context (clsort_host_alloc) where it
 * can be had, which the library moves to and from the device at bus speed with no staging copy;
 * else host memory. A range that the host's own sort takes on a CPU device never crosses a bus:
 * it goes in huge pages (md_big_alloc), whose first touch in the routing is a few faults where
 * PoCL's page-locked blocks took one a 4 KiB page (64 MiB: about 30 ms on the 2-core machine).
 * PoCL's networks do want its blocks: with plain memory their sort took 1.6x as long. */
static void md_alloc_range(md_dev *d, size_t R)
{
    const size_t bytes = d->n * R;
    const int host_sorted = d->have_di && strcmp(d->di.type, "cpu") == 0 &&
                            md_host_sort(d, d->n < d->cap ? d->n : d->cap);
    d->src_pinned = 0;
    d->src = NULL;
    if (bytes >= ((size_t)1 << 20) && !host_sorted && !cli_keyspec_pairs(&d->job->ks))
        d->src = clsort_host_alloc(d->ctx, bytes);
    if (d->src) {
        d->src_pinned = 1;
        return;
    }
    d->src = md_big_alloc(bytes, "a device's range"); /* NULL (said): out of memory */
}

/* md_alloc_range on a thread. */
static void *md_alloc_range_main(void *arg)
{
    md_dev *const d = arg;
    md_alloc_range(d, d->job->ks.record_size);
    return NULL;
}

/* Every device's range buffer, the devices at once, each on a thread of its own: page-locking
 * is slow, and each device's memory is its own context's. Two H200 (2026-11-28) took 6.9 s for
 * 2 x 8 GiB one device after the other (10.9 s in a cold process), 4.7 s at once. */
static int md_alloc_ranges(md_job *j)
{
    md_run_each(j->dev, sizeof *j->dev, j->nd, md_alloc_range_main);
    for (size_t d = 0; d < j->nd; ++d)
        if (!j->dev[d].src)
            return CLI_EXIT_IO;
    return CLI_EXIT_OK;
}

/* Moves every record of A into its device's range buffer, in input order inside each range, and
 * sets each device's src, alt, n and out_off. Returns the number of routing threads, or 0 when
 * out of memory (printed). */
static size_t md_route(md_job *j, const md_sample *split, unsigned char *A, size_t N)
{
    const size_t nd = j->nd, R = j->ks.record_size;
    if (nd == 1 || j->sole) {
        /* One device (gpu:all on a host with one GPU, or md_sole's choice): the input is its
         * range, in place; the second buffer is only for gathers and merges. On the H200
         * routing 1 GiB to itself took 0.8 s. */
        md_dev *const dv = &j->dev[0];
        dv->n = N;
        dv->out_off = 0;
        dv->src = A;
        dv->src_is_input = 1;
        for (size_t d = 1; d < nd; ++d) {
            j->dev[d].idle = 1;
            j->dev[d].out_off = (uint64_t)N * R;
        }
        dv->alt = dv->alt_own = md_big_alloc(N * R, "a second buffer");
        return dv->alt ? 1 : 0;
    }
    size_t nt = md_cores();
    if (nt > 16)
        nt = 16;
    if (nt > N / 65536 + 1)
        nt = N / 65536 + 1; /* small inputs: one thread */
    unsigned char *const bid = md_big_alloc(N, "the routing");
    md_router *const r = calloc(nt, sizeof *r);
    uint64_t *const cnt = calloc(nt * nd * 2, sizeof *cnt);
    unsigned char **const out = calloc(nd, sizeof *out);
    size_t done = 0;
    if (!bid || !r || !cnt || !out) {
        cli_error("out of host memory for the routing");
        goto fail;
    }
    for (size_t t = 0; t < nt; ++t)
        r[t] = (md_router){ j, split, A, out, bid, N * t / nt, N * (t + 1) / nt, cnt + t * nd,
                            cnt + (nt + t) * nd };
    uint64_t t0 = cli_now_ns();
    md_run_each(r, sizeof *r, nt, md_route_count);
    j->count_ns = cli_now_ns() - t0;
    t0 = cli_now_ns();
    uint64_t start = 0;
    for (size_t d = 0; d < nd; ++d) {
        md_dev *const dv = &j->dev[d];
        dv->alt = A + start * R;
        dv->out_off = start * R;
        dv->n = 0;
        for (size_t t = 0; t < nt; ++t) {
            r[t].at[d] = dv->n;
            dv->n += r[t].count[d];
        }
        start += dv->n;
    }
    if (md_alloc_ranges(j) != CLI_EXIT_OK)
        goto fail;
    for (size_t d = 0; d < nd; ++d)
        out[d] = j->dev[d].src;
    j->range_alloc_ns = cli_now_ns() - t0;
    t0 = cli_now_ns();
    md_run_each(r, sizeof *r, nt, md_route_scatter);
    j->scatter_ns = cli_now_ns() - t0;
    done = nt;
fail:
    free(bid);
    free(r);
    free(cnt);
    free(out);
    return done;
}

/* ---- One device's range ---- */

typedef struct md_mem_sources {
    const unsigned char **data;
    uint64_t *len;
    unsigned char *given;
} md_mem_sources;

static int md_mem_pull(void *user, size_t src, const unsigned char **data, size_t *len)
{
    md_mem_sources *const m = user;
    *data = m->data[src];
    *len = m->given[src] ? 0 : (size_t)m->len[src];
    m->given[src] = 1;
    return CLI_EXIT_OK;
}

/* Sorts the range in device sorts of at most cap records. One sort: the result is the range
 * itself (sorted in place) or, for records sorted as (key, index) pairs and for -u, the records
 * gathered in order into alt. Several: each run is sorted (and gathered into alt), then the runs
 * are merged in memory into the other buffer. */
static int md_sort_range(md_dev *d)
{
    md_job *const j = d->job;
    const cli_keyspec *const ks = &j->ks;
    const size_t R = ks->record_size, cap = d->cap, n = d->n;
    const int pairs = cli_keyspec_pairs(ks);
    const size_t nsub = n ? (n + cap - 1) / cap : 1;
    const size_t scap = n < cap ? n : cap;
    cli_chunk c;
    memset(&c, 0, sizeof c);
    const unsigned char **const sub = calloc(nsub, sizeof *sub);
    uint64_t *const sublen = calloc(nsub, sizeof *sublen);
    unsigned char *const given = calloc(nsub, 1);
    int rc = CLI_EXIT_IO, keys_pinned = 0, idx_pinned = 0;
    if (!sub || !sublen || !given) {
        cli_error("out of host memory");
        goto done;
    }
    if (pairs) {
        /* The keys and indices travel to the device and back: page-locked memory of the
         * device's context where it can be had (no staging copies), else host memory. */
        c.idx_size = (uint64_t)scap <= UINT32_MAX ? 4 : 8;
        const size_t kb = (scap ? scap : 1) * ks->key_size, ib = (scap ? scap : 1) * c.idx_size;
        if (kb >= ((size_t)1 << 20)) {
            keys_pinned = (c.keys = clsort_host_alloc(d->ctx, kb)) != NULL;
            idx_pinned = (c.idx = clsort_host_alloc(d->ctx, ib)) != NULL;
        }
        if (!c.keys)
            c.keys = cli_malloc(kb, "keys");
        if (!c.idx)
            c.idx = cli_malloc(ib, "record indices");
        if (!c.keys || !c.idx)
            goto done;
    }
    uint64_t t0 = cli_now_ns();
    for (size_t i = 0; i < nsub; ++i) {
        c.recs = d->src + i * cap * R;
        c.n = n - i * cap < cap ? n - i * cap : cap;
        if (j->one_at_a_time)
            pthread_mutex_lock(&j->turn);
        rc = cli_chunk_sort(d->ctx, ks, j->o->algorithm, j->o->stable, &c, &d->st);
        if (j->one_at_a_time)
            pthread_mutex_unlock(&j->turn);
        if (rc == CLI_EXIT_OK && j->fault == (long)d->index) {
            cli_error("sorting %zu %s keys on the device failed: injected by "
                      "CLSORT_TEST_DEVICE_FAULT", c.n, clsort_type_name(ks->type));
            rc = CLI_EXIT_DEVICE;
        }
        if (rc != CLI_EXIT_OK)
            goto done;
        d->runs += 1;
        if (pairs || (ks->unique && nsub == 1)) {
            cli_writer mw;
            unsigned char *const dst = d->alt + i * cap * R;
            if ((rc = cli_writer_open_memory(&mw, dst, (uint64_t)c.n * R, MD_MERGE_BUF)) !=
                CLI_EXIT_OK)
                goto done;
            rc = cli_chunk_write(&mw, ks, &c);
            if (rc == CLI_EXIT_OK)
                rc = cli_writer_commit(&mw, NULL);
            else
                cli_writer_abort(&mw);
            if (rc != CLI_EXIT_OK)
                goto done;
            sub[i] = dst;
            sublen[i] = mw.written;
        } else {
            sub[i] = c.recs;
            sublen[i] = c.n * R;
        }
    }
    d->sort_ns = cli_now_ns() - t0;
    if (nsub == 1) {
        d->res = sub[0];
        d->res_len = (size_t)sublen[0];
    } else {
        /* The runs are where the gather put them (alt) or in place (src): merge into the other. */
        unsigned char *const dst = (pairs || ks->unique) && sub[0] == d->alt ? d->src : d->alt;
        t0 = cli_now_ns();
        md_mem_sources ms = { sub, sublen, given };
        const cli_merge_spec spec = { ks, nsub, md_mem_pull, &ms, NULL, NULL, 0 };
        cli_writer mw;
        if ((rc = cli_writer_open_memory(&mw, dst, (uint64_t)n * R, MD_MERGE_BUF)) != CLI_EXIT_OK)
            goto done;
        /* On this device's share of the cores (clsort_pmerge.c), else one loser tree. */
        rc = cli_pmerge(&spec, sub, sublen, &mw, cli_pmerge_threads() / (unsigned)j->nd, NULL);
        if (rc == CLI_PMERGE_NOT_HERE)
            rc = cli_merge_sources(&spec, &mw);
        if (rc == CLI_EXIT_OK)
            rc = cli_writer_commit(&mw, NULL);
        else
            cli_writer_abort(&mw);
        if (rc != CLI_EXIT_OK)
            goto done;
        d->res = dst;
        d->res_len = (size_t)mw.written;
        d->merge_ns = cli_now_ns() - t0;
    }
    rc = CLI_EXIT_OK;
done:
    if (pairs) {
        if (keys_pinned)
            clsort_host_free(d->ctx, c.keys);
        else
            free(c.keys);
        if (idx_pinned)
            clsort_host_free(d->ctx, c.idx);
        else
            free(c.idx);
    }
    free(sub);
    free(sublen);
    free(given);
    return rc;
}

static void *md_range_main(void *arg)
{
    md_dev *const d = arg;
    if (d->idle) {
        d->rc = CLI_EXIT_OK;
        return NULL;
    }
    cli_thread_block_xfsz();
    d->rc = md_sort_range(d);
    if (d->rc == CLI_EXIT_OK && d->job->direct) {
        /* Its place in the output is known: write it now, while other devices still sort. */
        const uint64_t t0 = cli_now_ns();
        d->rc = cli_writer_pwrite(d->job->out, d->res, d->res_len,
                                  d->job->out->written + d->out_off, d->job->write_threads);
        d->write_ns = cli_now_ns() - t0;
    }
    return NULL;
}

/* CLSORT_CLI_DEVICE_WEIGHTS="w0,w1,...": the devices' shares instead of the measured rates (for
 * tests, and for devices whose rates are known); "measure": measure identical devices too.
 * Returns 1 when shares were given. */
static int md_weights_from_env(md_job *j)
{
    const char *env = getenv("CLSORT_CLI_DEVICE_WEIGHTS");
    if (!env || !*env)
        return 0;
    if (strcmp(env, "measure") == 0) {
        j->calib_always = 1;
        return 0;
    }
    const char *p = env;
    for (size_t d = 0; d < j->nd; ++d) {
        char *end;
        const double w = strtod(p, &end);
        if (end == p || !(w >= 0)) {
            cli_info(1, "warning: CLSORT_CLI_DEVICE_WEIGHTS='%s' ignored (one number per device)",
                     env);
            return 0;
        }
        j->dev[d].weight = w;
        p = *end == ',' ? end + 1 : end;
    }
    double total = 0;
    for (size_t d = 0; d < j->nd; ++d)
        total += j->dev[d].weight;
    return total > 0;
}

/* Whether the key-range path may take this input: CLSORT_CLI_KEY_RANGES is not "0", a regular
 * input of size N records whose two copies fit half of physical memory. */
static int md_ranges_fit(const cli_input *in, size_t R, size_t nd)
{
    const char *env = getenv("CLSORT_CLI_KEY_RANGES");
    if ((env && strcmp(env, "0") == 0) || !in->is_regular || nd > MD_MAX_DEVICES)
        return 0;
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    const uint64_t phys = (pages > 0 && page > 0) ? (uint64_t)pages * (uint64_t)page
                                                  : (uint64_t)1 << 30;
    const uint64_t per = 2 * (uint64_t)R + 1;
    return in->size / R <= phys / 2 / per && in->size <= SIZE_MAX / 2;
}

static void md_report(const md_job *j, size_t N, uint64_t read_ns, uint64_t setup_ns,
                      uint64_t route_ns, size_t route_threads, uint64_t sort_wall_ns,
                      uint64_t write_ns, uint64_t sync_ns, uint64_t total_ns, int measured)
{
    char a[32], b[32];
    const size_t R = j->ks.record_size;
    const uint64_t bytes = (uint64_t)N * R;
    cli_info(2, "%llu records of %zu bytes on %zu devices, in key ranges (%s; "
                "CLSORT_CLI_KEY_RANGES=0: runs and a merge)",
             (unsigned long long)N, R, j->nd,
             measured ? "shares from each device's measured rate"
                      : "equal shares, or as CLSORT_CLI_DEVICE_WEIGHTS gives them");
    cli_info(2, "read   %s in %.3f s (%s)", cli_format_size(a, sizeof a, bytes),
             (double)read_ns / 1e9, cli_format_rate(b, sizeof b, bytes, read_ns));
    cli_info(2, "setup  %.3f s (contexts, programs, rates; overlapping the read)",
             (double)setup_ns / 1e9);
    if (j->sole)
        cli_info(2, "route  none: the devices share the host's cores and would take turns, so "
                    "device %u:%u sorts all of it (CLSORT_CLI_DEVICE_WEIGHTS: shares)",
                 j->dev[0].di.platform_index, j->dev[0].di.device_index);
    else
        cli_info(2, "route  %.3f s (%zu threads, %zu splitters; sample %.3f s, count %.3f s, "
                    "the ranges' memory %.3f s, scatter %.3f s)",
                 (double)route_ns / 1e9, route_threads, j->nd - 1, (double)j->split_ns / 1e9,
                 (double)j->count_ns / 1e9, (double)j->range_alloc_ns / 1e9,
                 (double)j->scatter_ns / 1e9);
    double wsum = 0;
    for (size_t d = 0; d < j->nd; ++d)
        wsum += j->dev[d].weight;
    for (size_t d = 0; d < j->nd; ++d) {
        const md_dev *const v = &j->dev[d];
        const double s = (double)v->st.sort_ns / 1e9;
        cli_info(2, "device %u:%u %s: %zu records (%.1f%%; share %.3f, calibration %.1f Mkeys/s)",
                 v->di.platform_index, v->di.device_index, v->have_di ? v->di.name : v->spec,
                 v->n, N ? 100.0 * (double)v->n / (double)N : 0.0,
                 wsum > 0 ? v->weight / wsum : 0.0, v->rate / 1e6);
        cli_info(2, "  sort  %.3f s in %u device sort%s (%.1f Mkeys/s; device %.3f s), merge "
                    "%.3f s, write %.3f s",
                 (double)v->sort_ns / 1e9, v->runs, v->runs == 1 ? "" : "s",
                 s > 0 ? (double)v->st.keys / s / 1e6 : 0.0, (double)v->st.device_ns / 1e9,
                 (double)v->merge_ns / 1e9, (double)v->write_ns / 1e9);
    }
    cli_info(2, "sort   %.3f s, all devices at once%s", (double)sort_wall_ns / 1e9,
             j->direct ? ", each range written by its device's thread as soon as it is sorted"
                       : "");
    if (!j->direct)
        cli_info(2, "write  %s in %.3f s after the sorts (%s, in order)",
                 cli_format_size(a, sizeof a, bytes), (double)write_ns / 1e9,
                 cli_format_rate(b, sizeof b, bytes, write_ns));
    cli_report_sync(j->o->no_fsync, sync_ns);
    cli_info(2, "total  %.3f s (%.1f Mrecords/s)", (double)total_ns / 1e9,
             total_ns ? (double)N / ((double)total_ns / 1e9) / 1e6 : 0.0);
}

/* The key-range sort of a regular input. Returns MD_NOT_HERE (nothing printed, nothing
 * written) when the input is not one it takes. */
/* Reads the whole input (N records of R bytes) into A and makes sure it ended there. `one_file`:
 * one regular file, pread by several threads (one thread copying from the page cache is limited
 * to one core's memcpy), then one byte past the end to see it ended. */
static int md_read_input(cli_input *in, int one_file, unsigned char *A, size_t N, size_t R)
{
    int64_t got;
    int eof;
    if (one_file) {
        got = md_read_parallel(in, A, N * R);
        unsigned char extra;
        eof = got < 0 ? 0 : cli_pread_full(in->fd, &extra, 1, (uint64_t)N * R) == 0;
    } else {
        got = cli_input_read(in, A, N * R);
        eof = got < 0 ? 0 : cli_input_eof(in);
    }
    if (got < 0 || eof < 0)
        return CLI_EXIT_IO;
    if ((uint64_t)got != (uint64_t)N * R || !eof) {
        cli_error("%s: the input changed size while it was read (%llu bytes expected)", in->name,
                  (unsigned long long)in->size);
        return CLI_EXIT_IO;
    }
    return CLI_EXIT_OK;
}

/* Sets up the devices whose setup thread could not be started (the first `started` have one),
 * then waits for the threads. */
static void md_join_setups(md_job *j, pthread_t *th, size_t started)
{
    for (size_t d = started; d < j->nd; ++d) /* no thread: set it up here */
        md_setup_main(&j->dev[d]);
    for (size_t d = 0; d < started; ++d)
        pthread_join(th[d], NULL);
}

/* After the setup: every device has a context and, for f64 keys, double precision. The longest
 * setup goes to *setup_ns. */
static int md_check_devices(const md_job *j, uint64_t *setup_ns)
{
    const cli_opts *o = j->o;
    for (size_t d = 0; d < j->nd; ++d) {
        const md_dev *dev = &j->dev[d];
        if (dev->setup_ns > *setup_ns)
            *setup_ns = dev->setup_ns;
        if (dev->create_rc != CLSORT_OK) {
            cli_error("cannot use OpenCL device '%s' of the list '%s': %s", dev->spec,
                      o->device, clsort_strerror(dev->create_rc));
            return CLI_EXIT_DEVICE;
        }
        if (o->type == CLSORT_F64 && dev->have_di && !dev->di.has_fp64) {
            cli_error("device %s has no double precision (fp64): f64 keys cannot be sorted there",
                      dev->di.name);
            return CLI_EXIT_DEVICE;
        }
    }
    return CLI_EXIT_OK;
}

/* The sorted ranges into `out` one after the other, when they could not be written in place
 * (-u, or an output written in order). */
static int md_write_in_order(const md_job *j, cli_writer *out)
{
    const size_t R = j->o->record_size;
    const md_dev *const dev = j->dev;
    const size_t nd = j->nd;
    int rc = CLI_EXIT_OK;
    /* -u or an output written in order: ranges one after the other; a group of equal
     * records across a boundary keeps its first record only (each range has one of them at
     * most, its first). */
    const unsigned char *last = NULL;
    const int seek = cli_writer_seekable(out);
    uint64_t off = 0;
    if (seek)
        rc = cli_writer_flush(out);
    for (size_t d = 0; d < nd && rc == CLI_EXIT_OK; ++d) {
        const unsigned char *p = dev[d].res;
        size_t len = dev[d].res_len;
        if (len == 0)
            continue;
        if (j->ks.unique && last && cli_record_cmp(&j->ks, last, p) == 0) {
            p += R;
            len -= R;
        }
        last = dev[d].res + dev[d].res_len - R;
        if (seek)
            rc = cli_writer_pwrite(out, p, len, out->written + off, md_cores());
        else
            rc = cli_writer_put(out, p, len);
        off += len;
    }
    if (rc == CLI_EXIT_OK && seek)
        rc = cli_writer_advance(out, off, 0);
    return rc;
}

/* Frees what each device holds: its copy of its range (pinned, or its own), the merge's
 * buffer and its context. */
static void md_free_devices(md_dev *dev, size_t nd)
{
    for (size_t d = 0; dev && d < nd; ++d) {
        if (dev[d].src_pinned)
            clsort_host_free(dev[d].ctx, dev[d].src);
        else if (!dev[d].src_is_input)
            free(dev[d].src);
        free(dev[d].alt_own);
        clsort_destroy(dev[d].ctx);
    }
}

/* Each device's setup (md_setup_main) on a thread of its own, while the input is read. Returns
 * how many threads started (th: nd slots); the rest are set up later, by md_join_setups. */
static size_t md_start_setups(md_job *j, const cli_devlist *devs, pthread_t *th)
{
    md_dev *const dev = j->dev;
    size_t started = 0;
    for (size_t d = 0; d < j->nd; ++d) {
        dev[d].job = j;
        dev[d].index = d;
        dev[d].spec = devs->specs[d];
        dev[d].create_rc = CLSORT_OK;
    }
    for (; started < j->nd; ++started)
        if (pthread_create(&th[started], NULL, md_setup_main, &dev[started]) != 0)
            break;
    if (started < j->nd) { /* the rest is set up later, one by one: nobody waits for them */
        pthread_mutex_lock(&j->mu);
        j->abort_wait = 1;
        pthread_cond_broadcast(&j->cv);
        pthread_mutex_unlock(&j->mu);
    }
    return started;
}

/* The devices' shares: their measured rates when every device has one (`measured`), else equal,
 * and everything to the first when one device alone is faster (md_sole); each device's cap.
 * Returns whether the rates were used. */
static int md_weigh(md_job *j, int measured)
{
    md_dev *const dev = j->dev;
    const size_t nd = j->nd;
    if (measured) {
        for (size_t d = 0; d < nd; ++d)
            if (!(dev[d].rate > 0))
                measured = 0;
        for (size_t d = 0; d < nd; ++d)
            dev[d].weight = measured ? dev[d].rate : 1.0;
    }
    for (size_t d = 0; d < nd; ++d)
        dev[d].cap = md_device_cap(j->o, &j->ks, &dev[d]);
    if (!j->sole_known) /* a setup thread could not be started */
        j->sole = md_sole(j);
    for (size_t d = 0; j->sole && d < nd; ++d)
        dev[d].weight = d == 0;
    return measured;
}

/* Whether the input suits the key ranges (MD_NOT_HERE: not worth it) and holds whole records. */
static int md_input_fits(const cli_input *in, size_t R, size_t nd)
{
    if (!md_ranges_fit(in, R, nd))
        return MD_NOT_HERE;
    if (in->size % R != 0) {
        cli_error("%s: size %llu is not a multiple of the record size %zu (%llu bytes left over)",
                  in->name, (unsigned long long)in->size, R, (unsigned long long)(in->size % R));
        return CLI_EXIT_IO;
    }
    return CLI_EXIT_OK;
}

/* The splitters between the devices' key ranges (none for a sole device), then each record
 * routed to its range. *route_threads: the threads md_route used. */
static int md_split_and_route(md_job *j, unsigned char *A, md_sample *split,
                              size_t *route_threads)
{
    const uint64_t t0 = cli_now_ns();
    int rc;
    if (!j->sole && (rc = md_splitters(j, A, j->N, split)) != CLI_EXIT_OK)
        return rc;
    j->split_ns = cli_now_ns() - t0;
    if (!(*route_threads = md_route(j, split, A, j->N)))
        return CLI_EXIT_IO;
    return CLI_EXIT_OK;
}

/* How the sorted ranges reach `out`: without -u each range's place in the output is known now,
 * and a seekable output takes it as soon as it is sorted; the writing threads per device; the
 * devices' turns. */
static int md_plan_output(md_job *j, cli_writer *out)
{
    j->direct = !j->ks.unique && cli_writer_seekable(out);
    const unsigned sorting = j->sole ? 1u : (unsigned)j->nd;
    j->write_threads = md_cores() / sorting > 1 ? md_cores() / sorting : 1;
    cli_writer_reserve(out, (uint64_t)j->N * j->o->record_size);
    int rc;
    if (j->direct && (rc = cli_writer_flush(out)) != CLI_EXIT_OK)
        return rc;
    /* Shares given by CLSORT_CLI_DEVICE_WEIGHTS may still need turns: each range's gather,
     * merge and write then overlap the next device's sort. */
    j->one_at_a_time = !j->sole && md_turns(j, 1);
    return CLI_EXIT_OK;
}

static int md_sort_ranges(const cli_opts *o, const cli_devlist *devs)
{
    const uint64_t t_start = cli_now_ns();
    const size_t nd = devs->n, R = o->record_size;
    md_job job;
    memset(&job, 0, sizeof job);
    job.o = o;
    job.nd = nd;
    cli_keyspec_from_opts(&job.ks, o);
    const char *fault = getenv("CLSORT_TEST_DEVICE_FAULT");
    job.fault = fault && *fault ? strtol(fault, NULL, 10) : -1;
    cli_guard guard;
    cli_input in;
    cli_writer out;
    int guard_open = 0, in_open = 0, out_open = 0, sync_init = 0, turn_init = 0;
    size_t started = 0;
    pthread_t *const th = calloc(nd, sizeof *th);
    md_dev *const dev = calloc(nd, sizeof *dev);
    md_sample *const split = calloc(nd, sizeof *split);
    unsigned char *A = NULL;
    uint64_t read_ns = 0, setup_ns = 0, route_ns = 0, sort_ns = 0, write_ns = 0;
    size_t route_threads = 0;
    int rc;
    job.dev = dev;
    if (!th || !dev || !split) {
        cli_error("out of host memory");
        rc = CLI_EXIT_IO;
        goto done;
    }
    if ((rc = cli_guard_prepare(&guard, o->inputs, o->ninputs, R)) != CLI_EXIT_OK)
        goto done;
    guard_open = 1;
    if ((rc = cli_input_open_list(&in, o->inputs, o->ninputs, R)) != CLI_EXIT_OK)
        goto done;
    in_open = 1;
    if ((rc = md_input_fits(&in, R, nd)) != CLI_EXIT_OK)
        goto done;
    const size_t N = (size_t)(in.size / R);
    job.N = N;
    /* Contexts, programs and rates on the devices' threads while the input is read. Below a few
     * calibration sorts' worth of records the rates are not worth measuring: equal shares. */
    job.weights_given = md_weights_from_env(&job);
    int measured = !job.weights_given;
    if (measured && N >= 4 * MD_CALIB_KEYS * nd)
        job.calib_keys = MD_CALIB_KEYS;
    pthread_mutex_init(&job.mu, NULL);
    pthread_cond_init(&job.cv, NULL);
    sync_init = 1;
    started = md_start_setups(&job, devs, th);
    rc = cli_writer_open_output(&out, o->output, o->input, MD_BUF_BYTES, o->no_fsync);
    if (rc != CLI_EXIT_OK)
        goto done;
    out_open = 1;
    cli_guard_attach(&guard, &out);
    job.out = &out;
    if (!(A = md_big_alloc(N * R, "the input"))) {
        rc = CLI_EXIT_IO;
        goto done;
    }
    uint64_t t0 = cli_now_ns();
    if ((rc = md_read_input(&in, o->ninputs == 1 && in.path, A, N, R)) != CLI_EXIT_OK)
        goto done;
    read_ns = cli_now_ns() - t0;
    md_join_setups(&job, th, started);
    started = 0;
    if ((rc = md_check_devices(&job, &setup_ns)) != CLI_EXIT_OK)
        goto done;
    measured = md_weigh(&job, measured);
    t0 = cli_now_ns();
    if ((rc = md_split_and_route(&job, A, split, &route_threads)) != CLI_EXIT_OK)
        goto done;
    route_ns = cli_now_ns() - t0;
    if ((rc = md_plan_output(&job, &out)) != CLI_EXIT_OK)
        goto done;
    pthread_mutex_init(&job.turn, NULL);
    turn_init = 1;
    t0 = cli_now_ns();
    md_run_each_thread(dev, sizeof *dev, nd, th, md_range_main);
    sort_ns = cli_now_ns() - t0;
    for (size_t d = 0; d < nd && rc == CLI_EXIT_OK; ++d)
        rc = dev[d].rc;
    if (rc != CLI_EXIT_OK)
        goto done;

    t0 = cli_now_ns();
    rc = job.direct ? cli_writer_advance(&out, (uint64_t)N * R, 0) : md_write_in_order(&job, &out);
    write_ns = cli_now_ns() - t0;
    if (rc != CLI_EXIT_OK)
        goto done;
    rc = cli_writer_commit(&out, NULL);
    out_open = 0;
    if (rc == CLI_EXIT_OK && cli_display_level >= 2)
        md_report(&job, N, read_ns, setup_ns, route_ns, route_threads, sort_ns, write_ns,
                  out.sync_ns, cli_now_ns() - t_start, measured);

done:
    for (size_t d = 0; d < started; ++d) /* an early failure while the setup threads run */
        pthread_join(th[d], NULL);
    if (out_open)
        cli_writer_abort(&out);
    if (in_open)
        cli_input_close(&in);
    if (guard_open)
        cli_guard_free(&guard);
    md_free_devices(dev, nd);
    if (sync_init) {
        pthread_cond_destroy(&job.cv);
        pthread_mutex_destroy(&job.mu);
    }
    if (turn_init)
        pthread_mutex_destroy(&job.turn);
    free(A);
    free(th);
    free(dev);
    free(split);
    return rc;
}

int cli_sort_multidev(const cli_opts *o)
{
    cli_devlist devs;
    int rc = cli_devlist_expand(o->device, &devs);
    if (rc != CLI_EXIT_OK)
        return rc;
    rc = md_sort_ranges(o, &devs);
    cli_devlist_free(&devs);
    return rc == MD_NOT_HERE ? md_sort_rounds(o) : rc;
}
