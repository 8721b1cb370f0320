/* clsort_extsort.c - the sort driver: one chunk in memory when the input fits the buffer, else
 * sorted runs made on the device here and merged on the host by clsort_merge.c.
 *
 * Byte-identical results whatever -S is: each run is sorted with ties in input order (see
 * cli_chunk_sort), runs cover consecutive parts of the input and are handed to the merge in that
 * order, and the merge breaks ties by run position, so the merged order is exactly the stable order
 * an in-memory sort gives. */
#include "clsort_extsort.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clsort_fileio.h"
#include "clsort_guard.h"
#include "clsort_merge.h"
#include "clsort_multidev.h"
#include "clsort_pipeline.h"
#include "clsort_devlist.h"
#include "clsort_capture.h"
#include "clsort_messages.h"
#include "clsort_progress.h"
#include "clsort_records.h"
#include "clsort_request.h"
#include "clsort_units.h"
#include "clsort_warmup.h"

#define OUT_BUF_BYTES ((size_t)4 << 20)

typedef struct ext_state {
    const cli_opts *o;
    cli_keyspec ks;
    cli_run_set runs;        /* the runs made so far, and the merge's counters */
    unsigned runs_made;      /* runs sorted from the input */
    uint64_t total_bytes;    /* input size when known, for progress */
    uint64_t read_ns, read_bytes;
    uint64_t run_write_ns, run_bytes;
    cli_sort_stats sort;
    int piped;               /* the streaming pipeline did the work (clsort_pipeline.c) */
    cli_pipe_stats pipe;
    cli_warmup warm;         /* the host-memory path's compile step */
    cli_wmap_async premap;   /* the output mapped while the context is made (start_early_map) */
} ext_state;

static int cli_ext_report_ragged(const char *name, uint64_t size, size_t R)
{
    cli_error("%s: size %llu is not a multiple of the record size %zu (%llu bytes left over)", name,
              (unsigned long long)size, R, (unsigned long long)(size % R));
    return CLI_EXIT_IO;
}

/* ---- Sizes ---------------------------------------------------------------------------------- */

/* ---- Reporting ------------------------------------------------------------------------------ */

/* The library's warnings (a config it ignored, a compiler's log): one line by default, the rest
 * only with -v, so that a compiler's output never floods stderr (issue 25). */
static void print_warnings(clsort_ctx *ctx)
{
    const char *w = clsort_warnings(ctx);
    if (!w || !*w)
        return;
    if (cli_display_level < 2) {
        int lines = 0;
        for (const char *p = w; *p; ++p)
            lines += *p == '\n' && p[1] != '\0';
        const int len = (int)strcspn(w, "\n");
        if (lines)
            cli_info(1, "warning: %.*s (%d more lines with -v)", len, w, lines);
        else
            cli_info(1, "warning: %.*s", len, w);
        return;
    }
    while (*w) {
        const int len = (int)strcspn(w, "\n");
        if (len > 0)
            cli_info(2, "warning: %.*s", len, w);
        w += len + (w[len] ? 1 : 0);
    }
}

/* The runs' lines of -v: how fast they were written, and the merge, on how many threads. */
static void print_runs_lines(const ext_state *x, uint64_t run_bytes, uint64_t run_write_ns)
{
    char a[32], b[32], c[96];
    cli_info(2, "runs   %s written in %.3f s (%s)", cli_format_size(a, sizeof a, run_bytes),
             (double)run_write_ns / 1e9, cli_format_rate(b, sizeof b, run_bytes, run_write_ns));
    const cli_pmerge_info *const how = &x->runs.merge_how;
    if (how->parts)
        snprintf(c, sizeof c, "in %u parts on as many threads%s", how->parts,
                 how->mapped && how->vector ? " (mapped output, vector merge)"
                 : how->mapped              ? " (mapped output)"
                 : how->vector              ? " (vector merge)"
                                            : "");
    else
        snprintf(c, sizeof c, "on one thread");
    cli_info(2, "merge  %s in %.3f s (%s), %s, including the final write",
             cli_format_size(a, sizeof a, x->runs.merged_bytes), (double)x->runs.merge_ns / 1e9,
             cli_format_rate(b, sizeof b, x->runs.merged_bytes, x->runs.merge_ns), c);
}

/* The pipeline's steps one by one, and how much of them overlapped: their sum against the wall
 * time. Transfer times are the device's (profiled); the rest is the host's clock. */
static void print_pipe_summary(const ext_state *x, uint64_t write_ns, uint64_t sync_ns,
                               uint64_t total_ns)
{
    char a[32], b[32];
    const cli_pipe_stats *const p = &x->pipe;
    cli_info(2, "pipeline %u pinned chunks of %s, device buffer %s (CLSORT_CLI_PIPELINE=0: off)",
             p->slots, cli_format_size(a, sizeof a, p->chunk_bytes),
             cli_format_size(b, sizeof b, p->buffer_bytes));
    cli_info(2, "alloc  %.3f s (the device buffer and the pinned chunks; released in %.3f s at "
                "the end); %.3f s waiting for clsort_prepare before the first upload",
             (double)p->alloc_ns / 1e9, (double)p->release_ns / 1e9,
             (double)p->prepare_wait_ns / 1e9);
    cli_info(2, "read   %s in %.3f s (%s, %u reader%s)", cli_format_size(a, sizeof a, p->read_bytes),
             (double)p->read_ns / 1e9, cli_format_rate(b, sizeof b, p->read_bytes, p->read_ns),
             p->readers, p->readers == 1 ? "" : " threads");
    cli_info(2, "upload %s in %.3f s (%s, device time, overlapping the reads)",
             cli_format_size(a, sizeof a, p->upload_bytes), (double)p->upload_ns / 1e9,
             cli_format_rate(b, sizeof b, p->upload_bytes, p->upload_ns));
    if (p->sorts) {
        const double s = (double)p->sort_ns / 1e9;
        cli_info(2, "sort   %llu keys in %.3f s (%.1f Mkeys/s; device %.3f s)",
                 (unsigned long long)p->keys, s, s > 0 ? (double)p->keys / s / 1e6 : 0.0,
                 (double)p->device_ns / 1e9);
    }
    cli_info(2, "download %s in %.3f s (%s, device time, overlapping the writes)",
             cli_format_size(a, sizeof a, p->download_bytes), (double)p->download_ns / 1e9,
             cli_format_rate(b, sizeof b, p->download_bytes, p->download_ns));
    if (x->runs_made > 1) {
        print_runs_lines(x, p->run_bytes, p->run_write_ns);
    }
    char how[96] = "";
    if (p->mapped && p->map_ahead)
        snprintf(how, sizeof how, "; into the mapped output, allocated in %.3f s %s",
                 (double)p->map_ns / 1e9,
                 p->map_early ? "while the device was set up" : "meanwhile");
    else if (p->mapped)
        snprintf(how, sizeof how, "; into the mapped output");
    cli_info(2, "write  %s in %.3f s (%s%s)", cli_format_size(a, sizeof a, x->read_bytes),
             (double)write_ns / 1e9, cli_format_rate(b, sizeof b, x->read_bytes, write_ns), how);
    cli_report_sync(x->o->no_fsync, sync_ns);
    const uint64_t merge_ns = x->runs_made > 1 ? x->runs.merge_ns : 0;
    const uint64_t steps = p->alloc_ns + p->read_ns + p->upload_ns + p->sort_ns +
                           p->download_ns + p->run_write_ns + merge_ns + write_ns + sync_ns +
                           p->release_ns + p->prepare_wait_ns;
    const uint64_t wall = p->wall_ns + merge_ns + sync_ns;
    cli_info(2, "overlap: the steps add up to %.3f s in %.3f s of wall time (%.3f s overlapped; "
                "the host waited %.3f s for transfers)",
             (double)steps / 1e9, (double)wall / 1e9,
             steps > wall ? (double)(steps - wall) / 1e9 : 0.0, (double)p->wait_ns / 1e9);
    cli_info(2, "setup  %.3f s (device, context, programs, opening files)",
             total_ns > wall ? (double)(total_ns - wall) / 1e9 : 0.0);
}

static void print_summary(const ext_state *x, const clsort_device_info *di, uint64_t records,
                          size_t run_records, uint64_t out_write_ns, uint64_t out_sync_ns,
                          uint64_t total_ns)
{
    char a[32], b[32];
    const cli_opts *const o = x->o;
    if (cli_display_level < 2)
        return;
    if (di)
        cli_info(2, "device %u:%u %s (%s, %s), config: %s", di->platform_index, di->device_index,
                 di->name, di->type, di->platform, di->config_source);
    cli_info(2, "%llu records of %zu bytes, %s key at offset %zu, %s%s%s%s",
             (unsigned long long)records, o->record_size, cli_type_name(o->type, o->big_endian),
             o->key_offset, o->reverse ? "descending" : "ascending", o->stable ? ", stable" : "",
             o->nkeys > 1 ? ", ties by further keys on the host" : "",
             o->unique ? ", unique" : "");
    cli_report_sorter(&x->sort, di);
    if (x->runs_made > 1)
        cli_info(2, "%u runs of up to %zu records (%s) under %s, merge fan-in %zu, %u intermediate "
                    "merges",
                 x->runs_made, run_records,
                 cli_format_size(a, sizeof a, (uint64_t)run_records * o->record_size), o->tmpdir,
                 x->runs.fan_in, x->runs.merge_passes);
    else if (x->piped)
        cli_info(2, "1 run (on the device)");
    else
        cli_info(2, "1 run (in memory; buffer %s)",
                 cli_format_size(a, sizeof a, (uint64_t)run_records * o->record_size));
    /* The compile (or cache load) is a step of its own, not part of the sort's time or rate. */
    const uint64_t compile_ns = x->piped ? x->pipe.compile_ns : x->warm.ns + x->sort.build_ns;
    const uint64_t build_ns = x->piped ? x->pipe.build_ns : x->warm.build_ns + x->sort.build_ns;
    const int prep_status = x->piped ? x->pipe.compile_status : x->warm.status;
    const unsigned compiled = x->piped ? x->pipe.compiled : x->warm.compiled + x->sort.compiled;
    if (compiled)
        cli_info(2, "%s: %u program%s compiled", CLI_WARMUP_FIRST_RUN, compiled,
                 compiled == 1 ? "" : "s");
    if (prep_status != CLSORT_OK)
        cli_info(2, "compile %.3f s (clsort_prepare: %s; the sort built what it needed)",
                 (double)compile_ns / 1e9, clsort_strerror(prep_status));
    else if (x->sort.sorts)
        cli_info(2, "compile %.3f s (kernels %s in %.3f s, while the input was read)",
                 (double)compile_ns / 1e9,
                 build_ns ? "built or loaded from the cache" : "none built or loaded",
                 (double)build_ns / 1e9);
    if (x->piped) {
        print_pipe_summary(x, out_write_ns - out_sync_ns, out_sync_ns, total_ns);
        cli_info(2, "total  %.3f s (%.1f Mrecords/s)", (double)total_ns / 1e9,
                 total_ns ? (double)records / ((double)total_ns / 1e9) / 1e6 : 0.0);
        return;
    }
    cli_info(2, "read   %s in %.3f s (%s)", cli_format_size(a, sizeof a, x->read_bytes),
             (double)x->read_ns / 1e9, cli_format_rate(b, sizeof b, x->read_bytes, x->read_ns));
    cli_report_sort_time(&x->sort);
    if (x->runs_made > 1) {
        print_runs_lines(x, x->run_bytes, x->run_write_ns);
    }
    if (o->no_fsync) {
        cli_info(2, "write  %s in %.3f s (%s)", cli_format_size(a, sizeof a, x->read_bytes),
                 (double)out_write_ns / 1e9,
                 cli_format_rate(b, sizeof b, x->read_bytes, out_write_ns));
        cli_info(2, CLI_SYNC_SKIPPED_REPORT);
    } else
        cli_info(2, "write  %s in %.3f s (%s; of which sync %.3f s)",
                 cli_format_size(a, sizeof a, x->read_bytes), (double)out_write_ns / 1e9,
                 cli_format_rate(b, sizeof b, x->read_bytes, out_write_ns),
                 (double)out_sync_ns / 1e9);
    cli_info(2, "total  %.3f s (%.1f Mrecords/s)", (double)total_ns / 1e9,
             total_ns ? (double)records / ((double)total_ns / 1e9) / 1e6 : 0.0);
}

/* Fills c with up to cap records. A partial record can only be the end of a ragged input. With
 * `show` (the main thread's first read), in pieces, each shown as the "reading" stage. */
static int read_chunk(ext_state *x, cli_input *in, cli_chunk *c, size_t cap, int show)
{
    const size_t R = x->ks.record_size;
    const uint64_t t0 = cli_now_ns();
    const size_t want = cap * R, piece = show ? (size_t)8 << 20 : want;
    int64_t got = 0;
    while ((size_t)got < want) {
        const size_t len = want - (size_t)got < piece ? want - (size_t)got : piece;
        const int64_t r = cli_input_read(in, c->recs + got, len);
        if (r < 0)
            return CLI_EXIT_IO;
        got += r;
        if (show)
            cli_progress_update("reading", in->consumed, x->total_bytes);
        if ((size_t)r < len)
            break; /* short only at the end of the input */
    }
    x->read_ns += cli_now_ns() - t0;
    x->read_bytes += (uint64_t)got;
    if ((size_t)got % R != 0)
        return cli_ext_report_ragged(in->name, in->consumed, R);
    c->n = (size_t)got / R;
    return CLI_EXIT_OK;
}

/* Reading the next run on a thread of its own, while the current one is sorted and written. The
 * input, the chunk and the read counters belong to that thread until it is joined. */
typedef struct prefetch {
    ext_state *x;
    cli_input *in;
    cli_chunk *c;
    size_t cap;
    int rc;
} prefetch;

static void *prefetch_main(void *arg)
{
    prefetch *const p = arg;
    p->rc = read_chunk(p->x, p->in, p->c, p->cap, 1);
    return NULL;
}

/* Writes a sorted chunk as a new run. */
static int write_run(ext_state *x, const cli_chunk *c)
{
    uint64_t bytes = 0, write_ns = 0;
    const int rc = cli_runs_add_chunk(&x->runs, x->o->tmpdir, &x->ks, c, OUT_BUF_BYTES, &bytes,
                                      &write_ns);
    x->run_write_ns += write_ns;
    if (rc != CLI_EXIT_OK)
        return rc;
    x->run_bytes += bytes;
    x->runs_made += 1;
    return rc;
}

/* ---- Driver --------------------------------------------------------------------------------- */

/* The context is made on a thread of its own while the main thread checks and opens the files
 * (issue 10: context creation is 0.1-0.2 s on NVIDIA's OpenCL). The thread only calls the
 * library; what it found is reported by the main thread after the join, so that the messages
 * come in the same order as before: an unusable input or output first. */
typedef struct ctx_maker {
    const char *device;
    clsort_ctx *ctx;
    int status;
    uint64_t ns;
} ctx_maker;

static void *ctx_maker_main(void *arg)
{
    ctx_maker *const m = arg;
    const uint64_t t0 = cli_now_ns();
    m->status = clsort_create(&m->ctx, m->device);
    m->ns = cli_now_ns() - t0;
    return NULL;
}

/* CLSORT_CLI_EARLY_CONTEXT=0 makes the context after the files are open, on the main thread. */
static int early_context_wanted(void)
{
    const char *env = getenv("CLSORT_CLI_EARLY_CONTEXT");
    return !(env && strcmp(env, "0") == 0);
}

/* Reports what clsort_create returned (rc) for the options' device. */
static int report_context(const cli_opts *o, int rc)
{
    if (rc == CLSORT_OK)
        return CLI_EXIT_OK;
    const char *spec = o->device ? o->device : getenv("CLSORT_DEVICE");
    /* None at all (no ICD registered, a driver that shows nothing) is another problem than a
     * spec that matches none of the devices there are: say which one it is. */
    if (rc == CLSORT_ERR_OUT_OF_MEMORY)
        cli_error("out of memory loading the OpenCL driver or making a context on device '%s' "
                  "(a memory limit such as ulimit -v?)",
                  spec && *spec ? spec : "default");
    else if (rc == CLSORT_ERR_NO_DEVICE && clsort_list_devices(NULL, NULL) == 0)
        cli_error("no OpenCL device is visible (no ICD registered? see docs/gpu.md; "
                  "clsort --list-devices lists what is there)");
    else if (rc == CLSORT_ERR_NO_DEVICE)
        cli_error("no OpenCL device matches '%s' (see clsort --list-devices)",
                  spec && *spec ? spec : "default");
    else
        cli_error("cannot use OpenCL device '%s': %s", spec && *spec ? spec : "default",
                  clsort_strerror(rc));
    return CLI_EXIT_DEVICE;
}

/* Waits for the context thread, if one runs, and hands its context over (*ctx, NULL on failure);
 * with `report`, prints why it failed. */
static int join_context(const cli_opts *o, ctx_maker *m, pthread_t *th, int *running,
                        clsort_ctx **ctx, int report)
{
    if (*running) {
        pthread_join(*th, NULL);
        *running = 0;
    } else {
        m->status = clsort_create(&m->ctx, m->device);
    }
    *ctx = m->ctx;
    m->ctx = NULL;
    return report ? report_context(o, m->status) : CLI_EXIT_OK;
}

/* ---- The sort driver, step by step --------------------------------------------------------- */

/* Inputs up to this size have their output mapped while the context is made. A larger one takes
 * longer to allocate than the context to make, and is more likely to need several runs after
 * all, which would leave the allocation wasted. */
#define EARLY_MAP_MAX ((uint64_t)4 << 30)

/* The output of a pipeline sort in one run is a mapping of the input's size (clsort_pipeline.c),
 * whose blocks tmpfs allocates on one core at about 0.1 s a GiB. Started here, while the main
 * thread would only wait for the context (0.1-0.2 s on NVIDIA's OpenCL), the allocation leaves
 * the critical path of a 1 GiB sort (docs/perf.md, 2026-11-27, fifth). Whether the input is one
 * run is known only once the device is: the pipeline gives the mapping back otherwise, and the
 * caller when the pipeline does not run (finish_early_map). */
static void start_early_map(ext_state *x, const cli_input *in, cli_writer *out)
{
    const cli_opts *const o = x->o;
    if (in->is_regular && in->size > 0 && in->size <= EARLY_MAP_MAX && !x->ks.unique &&
        cli_pipeline_wanted(&x->ks) && (!o->buffer_size || o->buffer_size >= in->size))
        cli_writer_map_start(&x->premap, out, in->size);
}

/* The early mapping, if the pipeline did not take it: waited for, and the output's size given
 * back, before anything else writes the output. */
static void finish_early_map(ext_state *x, cli_writer *out)
{
    cli_wmap m;
    cli_writer_map_finish(&x->premap, &m);
    cli_writer_unmap(out, &m, 0);
}

/* Every named file holds whole records, and what each one is, before anything is read; then the
 * inputs are opened, a ragged file is refused before anything is created or written, and the
 * output is opened and put under the guard. *opened: 0 when nothing is left open (the guard
 * freed), 1 when the guard and the inputs are open (and *out_open says whether the output is). */
static int open_files(const cli_opts *o, ext_state *x, cli_guard *guard, cli_input *in,
                      cli_writer *out, int *out_open, int *opened, int read_ahead)
{
    const size_t R = o->record_size;
    *opened = 0;
    int rc = cli_guard_prepare(guard, o->inputs, o->ninputs, R);
    if (rc != CLI_EXIT_OK)
        return rc;
    rc = cli_input_open_list(in, o->inputs, o->ninputs, R);
    if (rc != CLI_EXIT_OK) {
        cli_guard_free(guard);
        return rc;
    }
    *opened = 1;
    if (in->is_regular && in->size % R != 0)
        return cli_ext_report_ragged(in->name, in->size, R);
    x->total_bytes = in->is_regular ? in->size : 0;
#if defined(POSIX_FADV_WILLNEED)
    /* While the context is made: the start of a file that is not in the page cache yet is read
     * ahead (at most 256 MiB, so that a huge input does not push itself out again). */
    if (read_ahead && in->is_regular && in->path)
        posix_fadvise(in->fd, 0, (off_t)(in->size < ((uint64_t)256 << 20) ? in->size
                                                                         : (uint64_t)256 << 20),
                      POSIX_FADV_WILLNEED);
#else
    (void)read_ahead;
#endif
    rc = cli_writer_open_output(out, o->output, o->input, OUT_BUF_BYTES, o->no_fsync);
    if (rc != CLI_EXIT_OK)
        return rc;
    *out_open = 1;
    cli_guard_attach(guard, out);
    return CLI_EXIT_OK;
}

/* The context's device, described in *di (*dip NULL when it says nothing), and refused for f64
 * keys without double precision. */
static int check_device(const cli_opts *o, clsort_ctx *ctx, clsort_device_info *di,
                        clsort_device_info **dip)
{
    print_warnings(ctx);
    cli_watch_aborts(); /* after the driver's own handlers (clsort_capture.h) */
    if (clsort_get_device_info(ctx, di) == CLSORT_OK)
        *dip = di;
    if (*dip && o->type == CLSORT_F64 && !(*dip)->has_fp64) {
        cli_error("device %s has no double precision (fp64): f64 keys cannot be sorted there",
                  (*dip)->name);
        return CLI_EXIT_DEVICE;
    }
    return CLI_EXIT_OK;
}

/* Records that are their own keys stream through pinned memory and the device (issue 10), unless
 * the input is small enough for the library's host fallback, or AUTO gives its runs to the
 * host's own sort. Returns CLI_PIPE_UNAVAILABLE when the host-memory path is to sort instead. */
static int try_pipeline(ext_state *x, clsort_ctx *ctx, size_t run_records, uint64_t path_max,
                        cli_input *in, cli_writer *out, uint64_t *records)
{
    const cli_opts *const o = x->o;
    const size_t R = o->record_size;
    uint64_t fallback_max = 0;
    clsort_get_host_fallback_max(ctx, &fallback_max);
    const uint64_t run_n = in->is_regular && in->size / R < run_records ? in->size / R : run_records;
    if (!cli_pipeline_wanted(&x->ks) || (in->is_regular && in->size / R <= fallback_max) ||
        (o->algorithm == CLSORT_AUTO && run_n <= path_max))
        return CLI_PIPE_UNAVAILABLE;
    const int rc = cli_pipeline_sort(ctx, &x->ks, o->algorithm, run_records, in, out, &x->runs,
                                     o->tmpdir, &x->premap, &x->pipe);
    if (rc != CLI_EXIT_OK)
        return rc;
    x->piped = 1;
    x->runs_made = x->pipe.runs;
    x->read_bytes = x->pipe.read_bytes;
    x->sort.sorts = x->pipe.sorts;
    x->sort.algorithm = x->pipe.algorithm;
    *records = x->pipe.read_bytes / R;
    return CLI_EXIT_OK;
}

/* The first run's kernels are built (or loaded) while it is read: a file's first run has a known
 * size, and only its sort is prepared (clsort_prepare_sort); a stream of unknown size prepares
 * for every first run of at most 2^20 records (clsort_prepare); other runs build what they
 * need. */
static void start_warmup(ext_state *x, clsort_ctx *ctx, const cli_input *in,
                         const cli_chunk *chunk, size_t cap, uint64_t path_max)
{
    size_t prep_n = in->is_regular || cap < ((size_t)1 << 20) ? cap : (size_t)1 << 20;
    /* Runs that AUTO gives to the host's own sort need no kernels at all. */
    if (x->o->algorithm == CLSORT_AUTO && prep_n <= path_max)
        prep_n = 0;
    const int pairs = chunk->idx_size != 0;
    cli_warmup_start(&x->warm, ctx, x->ks.type, chunk->idx_size, prep_n, x->o->algorithm,
                     in->is_regular, cli_order_flags(&x->ks) |
                         (pairs && x->o->stable ? CLSORT_STABLE : 0u));
}

/* All of the input fitted in the first buffer: sorted in memory and written to the output. */
static int sort_in_memory(ext_state *x, clsort_ctx *ctx, cli_chunk *chunk, cli_writer *out)
{
    const size_t R = x->o->record_size;
    cli_progress_items("sorting", "run", 0, 1);
    int rc = cli_chunk_sort(ctx, &x->ks, x->o->algorithm, x->o->stable, chunk, &x->sort);
    cli_watch_aborts();
    if (rc != CLI_EXIT_OK)
        return rc;
    x->runs_made = 1;
    cli_progress_update("writing", 0, (uint64_t)chunk->n * R);
    rc = cli_chunk_write(out, &x->ks, chunk);
    if (rc != CLI_EXIT_OK)
        return rc;
    cli_progress_update("writing", (uint64_t)chunk->n * R, (uint64_t)chunk->n * R);
    return CLI_EXIT_OK;
}

/* Runs: while one buffer is sorted and written out, a thread reads the next one. Without memory
 * for the second buffer, reading simply waits its turn. *chunk holds the first run, read. */
static int sort_runs(ext_state *x, clsort_ctx *ctx, cli_input *in, cli_chunk *chunk,
                     cli_chunk *next, size_t cap, uint64_t *records)
{
    const cli_opts *const o = x->o;
    const size_t R = o->record_size;
    if (cli_chunk_alloc(next, &x->ks, cap) != CLI_EXIT_OK)
        cli_info(2, "no memory for a second buffer: reading will not overlap sorting");
    const uint64_t runs_expected = in->is_regular ? (in->size / R + cap - 1) / cap : 0;
    int eof = 0;
    for (;;) {
        prefetch pf;
        pthread_t pf_thread;
        int pf_running = 0;
        if (!eof && next->recs) {
            pf = (prefetch){ x, in, next, cap, CLI_EXIT_OK };
            if (pthread_create(&pf_thread, NULL, prefetch_main, &pf) == 0)
                pf_running = 1;
        }
        /* While a thread reads ahead, the line stays "reading" (to 100%) and says which run
         * is sorting; the last run, with nothing left to read, has a line of its own. */
        if (pf_running) {
            char note[64];
            if (runs_expected)
                snprintf(note, sizeof note, "sorting run %u of %llu", x->runs_made + 1,
                         (unsigned long long)runs_expected);
            else /* a stream of unknown size */
                snprintf(note, sizeof note, "sorting run %u", x->runs_made + 1);
            cli_progress_note(note);
        } else {
            cli_progress_items("sorting", "run", x->runs_made, runs_expected);
        }
        int rc = cli_chunk_sort(ctx, &x->ks, o->algorithm, o->stable, chunk, &x->sort);
        cli_watch_aborts();
        if (rc == CLI_EXIT_OK)
            rc = write_run(x, chunk);
        if (pf_running) {
            pthread_join(pf_thread, NULL);
            if (rc == CLI_EXIT_OK)
                rc = pf.rc;
            const cli_chunk t = *chunk;
            *chunk = *next;
            *next = t;
        } else if (rc == CLI_EXIT_OK && !eof) {
            rc = read_chunk(x, in, chunk, cap, 1);
        }
        if (rc != CLI_EXIT_OK)
            return rc;
        if (eof)
            return CLI_EXIT_OK;
        *records += chunk->n;
        eof = cli_input_eof(in);
        if (eof < 0)
            return CLI_EXIT_IO;
        if (chunk->n == 0)
            return CLI_EXIT_OK;
    }
}

/* The host-memory path: the first buffer decides between all of the input (sorted in memory and
 * written to the destination) and the first run of an external sort. */
static int sort_through_memory(ext_state *x, clsort_ctx *ctx, size_t run_records,
                               uint64_t path_max, cli_input *in, cli_writer *out,
                               cli_chunk *chunk, cli_chunk *next, uint64_t *records)
{
    const size_t R = x->o->record_size;
    /* Empty regular inputs need no buffer at all: a record size of 2^64 - 1 bytes is fine then
     * (issue 25: it asked for 16 EiB of host memory). */
    if (in->is_regular && in->size == 0)
        return CLI_EXIT_OK;
    size_t cap = run_records;
    if (in->is_regular && in->size / R < cap)
        cap = (size_t)(in->size / R);
    int rc = cli_chunk_alloc(chunk, &x->ks, cap);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (cap == 0)
        cap = 1;
    start_warmup(x, ctx, in, chunk, cap, path_max);
    rc = read_chunk(x, in, chunk, cap, 1);
    if (rc != CLI_EXIT_OK)
        return rc;
    *records += chunk->n;
    const int eof = cli_input_eof(in);
    if (eof < 0)
        return CLI_EXIT_IO;
    cli_warmup_finish(&x->warm);
    rc = eof ? sort_in_memory(x, ctx, chunk, out)
             : sort_runs(x, ctx, in, chunk, next, cap, records);
    if (rc != CLI_EXIT_OK)
        return rc;
    cli_chunk_free(chunk);
    cli_chunk_free(next);
    return CLI_EXIT_OK;
}

int cli_sort_input(const cli_opts *o)
{
    /* Several devices (a list, or an ":all" spec) take their own path; one device is unchanged. */
    if (cli_devlist_is_multi(o->device))
        return cli_sort_multidev(o);
    const uint64_t t_start = cli_now_ns();
    ext_state x;
    memset(&x, 0, sizeof x);
    x.o = o;
    cli_keyspec_from_opts(&x.ks, o);
    cli_runs_init(&x.runs, o->tmpdir, &x.ks, OUT_BUF_BYTES);
    /* -S bounds the merge's read buffers too, as it does for -m (clsort_mergefiles.c). */
    if (o->buffer_size && o->buffer_size < x.runs.read_budget)
        x.runs.read_budget = (size_t)o->buffer_size;
    cli_input in;
    cli_writer out;
    int out_open = 0, opened = 0;
    cli_chunk chunk, next;
    memset(&chunk, 0, sizeof chunk);
    memset(&next, 0, sizeof next);
    clsort_ctx *ctx = NULL;
    clsort_device_info di, *dip = NULL;
    uint64_t records = 0;
    cli_guard guard;
    ctx_maker maker = { o->device, NULL, CLSORT_OK, 0 };
    pthread_t maker_thread;
    int maker_running = early_context_wanted() &&
                        pthread_create(&maker_thread, NULL, ctx_maker_main, &maker) == 0;

    int rc = open_files(o, &x, &guard, &in, &out, &out_open, &opened, maker_running);
    if (rc != CLI_EXIT_OK)
        goto fail;
    if (maker_running && out_open)
        start_early_map(&x, &in, &out);
    rc = join_context(o, &maker, &maker_thread, &maker_running, &ctx, 1);
    if (rc != CLI_EXIT_OK)
        goto fail;
    rc = check_device(o, ctx, &di, &dip);
    if (rc != CLI_EXIT_OK)
        goto fail;

    int capped = 0;
    const size_t run_records = cli_run_records_for(o, dip, &capped);
    if (capped)
        cli_info(2, "buffer size lowered to %zu records to fit one device allocation",
                 run_records);
    /* Runs that AUTO gives the host's own sort (a CPU device: 2.5-10x faster there than
     * streaming through the device's buffer, docs/bench/cpu-path-2026-11-24.md) skip the
     * pipeline and the kernels. */
    uint64_t path_max = 0;
    clsort_get_host_path_max(ctx, &path_max);
    rc = try_pipeline(&x, ctx, run_records, path_max, &in, &out, &records);
    finish_early_map(&x, &out);
    if (rc == CLI_PIPE_UNAVAILABLE)
        rc = sort_through_memory(&x, ctx, run_records, path_max, &in, &out, &chunk, &next,
                                 &records);
    if (rc != CLI_EXIT_OK)
        goto fail;

    if (x.runs_made > 1 || x.runs.nruns > 0) {
        rc = cli_runs_merge(&x.runs, &out);
        if (rc != CLI_EXIT_OK)
            goto fail;
    }
    cli_progress_update("syncing", 0, 0);
    rc = cli_writer_commit(&out, NULL);
    out_open = 0;
    if (rc != CLI_EXIT_OK)
        goto fail;
    cli_progress_clear();
    /* commit leaves the writer's counters readable */
    print_summary(&x, dip, records, run_records, out.write_ns, out.sync_ns,
                  cli_now_ns() - t_start);
    cli_runs_close(&x.runs);
    clsort_destroy(ctx);
    cli_input_close(&in);
    cli_guard_free(&guard);
    return CLI_EXIT_OK;

fail:
    if (maker_running)
        join_context(o, &maker, &maker_thread, &maker_running, &ctx, 0);
    if (!opened) { /* nothing opened yet but the context, perhaps */
        clsort_destroy(ctx);
        return rc;
    }
    cli_warmup_finish(&x.warm); /* it uses the context destroyed below */
    finish_early_map(&x, &out);
    cli_progress_clear();
    if (out_open)
        cli_writer_abort(&out);
    cli_chunk_free(&chunk);
    cli_chunk_free(&next);
    cli_runs_close(&x.runs);
    clsort_destroy(ctx);
    cli_input_close(&in);
    cli_guard_free(&guard);
    return rc;
}

/* -c on each input in turn; the exit status is the worst (an I/O error over disorder). */
int cli_check_sorted(const cli_opts *o)
{
    cli_keyspec ks;
    cli_keyspec_from_opts(&ks, o);
    int worst = CLI_EXIT_OK;
    for (size_t i = 0; i < o->ninputs; ++i) {
        cli_input in;
        int rc = cli_input_open(&in, o->inputs[i]);
        if (rc == CLI_EXIT_OK) {
            if (in.is_regular && in.size % o->record_size != 0)
                rc = cli_ext_report_ragged(in.name, in.size, o->record_size);
            else
                rc = cli_check_input(&in, &ks);
            cli_input_close(&in);
        }
        if (rc == CLI_EXIT_IO || (rc == CLI_EXIT_DISORDER && worst == CLI_EXIT_OK))
            worst = rc;
    }
    return worst;
}
