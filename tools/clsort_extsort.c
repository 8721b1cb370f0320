/* clsort_extsort.c - the sort driver: one chunk in memory when the input fits the buffer, else
 * runs plus a k-way merge on the host.
 *
 * Byte-identical results whatever -S is: each run is sorted with ties in input order (see
 * cli_chunk_sort), runs cover consecutive parts of the input, and the merge breaks ties by run
 * position, so the merged order is exactly the stable order an in-memory sort gives. Runs are
 * anonymous files (unlinked as soon as they are created) so they vanish with the process however it
 * ends; to keep the number of open runs bounded, the last F runs of one level are merged into one
 * run of the next level as soon as there are F of them (F from the open-file limit). */
#include "clsort_extsort.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "clsort_fileio.h"
#include "clsort_progress.h"
#include "clsort_records.h"
#include "clsort_util.h"

#define OUT_BUF_BYTES ((size_t)4 << 20)
#define RUN_READ_BYTES ((size_t)1 << 20)

typedef struct cli_run {
    int fd;
    uint64_t bytes;
    unsigned level;
} cli_run;

typedef struct ext_state {
    const cli_opts *o;
    cli_keyspec ks;
    cli_run *runs;
    size_t nruns, cap_runs;
    size_t fan_in;
    unsigned merge_passes;   /* merges into temporary runs */
    unsigned runs_made;      /* runs sorted from the input */
    uint64_t total_bytes;    /* input size when known, for progress */
    uint64_t read_ns, read_bytes;
    uint64_t run_write_ns, run_bytes;
    uint64_t merge_ns, merged_bytes;
    cli_sort_stats sort;
} ext_state;

static int cli_ext_report_ragged(const char *name, uint64_t size, size_t R)
{
    cli_error("%s: size %llu is not a multiple of the record size %zu (%llu bytes left over)", name,
              (unsigned long long)size, R, (unsigned long long)(size % R));
    return CLI_EXIT_IO;
}

/* ---- Merge ---------------------------------------------------------------------------------- */

typedef struct run_reader {
    int fd;
    uint64_t off, size;
    unsigned char *buf;
    size_t cap, len, pos;
} run_reader;

static int reader_fill(run_reader *r, const char *dir)
{
    uint64_t left = r->size - r->off;
    const size_t want = left < r->cap ? (size_t)left : r->cap;
    const int64_t got = cli_pread_full(r->fd, r->buf, want, r->off);
    if (got < 0 || (size_t)got != want) {
        cli_error("%s: cannot read back a temporary run: %s", dir,
                  got < 0 ? strerror(errno) : "file shorter than written");
        return CLI_EXIT_IO;
    }
    r->off += want;
    r->len = want;
    r->pos = 0;
    return CLI_EXIT_OK;
}

/* The heap holds each run's current key next to the run's number, so that sifting touches one
 * array. Ties go to the earlier run: runs are in input order, so this keeps the merge stable. */
typedef struct heap_item {
    uint64_t key;
    size_t run;
} heap_item;

static int item_before(const heap_item *a, const heap_item *b)
{
    return a->key < b->key || (a->key == b->key && a->run < b->run);
}

static void heap_sift_down(heap_item *heap, size_t n, size_t i)
{
    const heap_item item = heap[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && item_before(&heap[c + 1], &heap[c]))
            ++c;
        if (!item_before(&heap[c], &item))
            break;
        heap[i] = heap[c];
        i = c;
    }
    heap[i] = item;
}

/* Merges runs[0..k) into `out` and closes them (which frees their space). */
static int merge_runs(ext_state *x, cli_run *runs, size_t k, cli_writer *out)
{
    const cli_keyspec *const ks = &x->ks;
    const size_t R = ks->record_size;
    const uint64_t t0 = cli_now_ns();
    size_t rcap = RUN_READ_BYTES / R * R;
    if (rcap < R)
        rcap = R;
    run_reader *const rd = calloc(k, sizeof *rd);
    heap_item *const heap = calloc(k, sizeof *heap);
    int rc = CLI_EXIT_IO;
    uint64_t total = 0, done = 0;
    if (!rd || !heap) {
        cli_error("out of host memory for the merge");
        goto fail;
    }
    size_t hn = 0;
    for (size_t i = 0; i < k; ++i) {
        rd[i].fd = runs[i].fd;
        rd[i].size = runs[i].bytes;
        total += runs[i].bytes;
        if (runs[i].bytes == 0)
            continue;
        rd[i].cap = rcap;
        rd[i].buf = cli_malloc(rcap, "a merge buffer");
        if (!rd[i].buf)
            goto fail;
        if (reader_fill(&rd[i], x->o->tmpdir) != CLI_EXIT_OK)
            goto fail;
        heap[hn++] = (heap_item){ cli_key_ordinal(ks, rd[i].buf), i };
    }
    for (size_t i = hn / 2; i-- > 0;)
        heap_sift_down(heap, hn, i);
    const char *const phase = out->keep_open ? "merging" : "writing";
    while (hn > 0) {
        run_reader *const r = &rd[heap[0].run];
        /* The record goes straight into the output buffer when it fits (the common case). */
        if (out->len + R <= out->cap) {
            memcpy(out->buf + out->len, r->buf + r->pos, R);
            out->len += R;
        } else if (cli_writer_put(out, r->buf + r->pos, R) != CLI_EXIT_OK) {
            goto fail;
        }
        r->pos += R;
        if (r->pos == r->len) {
            if (r->off == r->size) {
                heap[0] = heap[--hn];
                if (hn > 0)
                    heap_sift_down(heap, hn, 0);
                continue;
            }
            if (reader_fill(r, x->o->tmpdir) != CLI_EXIT_OK)
                goto fail;
            done += r->len;
            cli_progress_update(phase, done, total);
        }
        heap[0].key = cli_key_ordinal(ks, r->buf + r->pos);
        /* Often the same run goes on winning: skip the sift when it still beats both children. */
        if ((hn > 1 && !item_before(&heap[0], &heap[1])) ||
            (hn > 2 && !item_before(&heap[0], &heap[2])))
            heap_sift_down(heap, hn, 0);
    }
    rc = CLI_EXIT_OK;
fail:
    if (rd) {
        for (size_t i = 0; i < k; ++i)
            free(rd[i].buf);
    }
    free(rd);
    free(heap);
    for (size_t i = 0; i < k; ++i) {
        close(runs[i].fd);
        runs[i].fd = -1;
    }
    x->merge_ns += cli_now_ns() - t0;
    x->merged_bytes += total;
    return rc;
}

/* Replaces the last k runs by one run of the next level. */
static int merge_tail(ext_state *x, size_t k)
{
    cli_run *const first = &x->runs[x->nruns - k];
    const unsigned level = first->level + 1;
    cli_writer w;
    int rc = cli_writer_open_run(&w, x->o->tmpdir, OUT_BUF_BYTES);
    if (rc != CLI_EXIT_OK)
        return rc;
    rc = merge_runs(x, first, k, &w);
    if (rc != CLI_EXIT_OK) {
        cli_writer_abort(&w);
        x->nruns -= k;
        return rc;
    }
    const uint64_t bytes = w.written + w.len;
    int fd = -1;
    rc = cli_writer_commit(&w, &fd);
    x->nruns -= k;
    if (rc != CLI_EXIT_OK)
        return rc;
    x->runs[x->nruns++] = (cli_run){ fd, bytes, level };
    x->merge_passes += 1;
    return CLI_EXIT_OK;
}

static int add_run(ext_state *x, int fd, uint64_t bytes)
{
    if (x->nruns == x->cap_runs) {
        const size_t cap = x->cap_runs ? 2 * x->cap_runs : 16;
        cli_run *const p = realloc(x->runs, cap * sizeof *p);
        if (!p) {
            close(fd);
            cli_error("out of host memory for the list of runs");
            return CLI_EXIT_IO;
        }
        x->runs = p;
        x->cap_runs = cap;
    }
    x->runs[x->nruns++] = (cli_run){ fd, bytes, 0 };
    /* Keep the number of open runs logarithmic: F runs of one level become one of the next. */
    for (;;) {
        const unsigned level = x->runs[x->nruns - 1].level;
        size_t same = 0;
        while (same < x->nruns && x->runs[x->nruns - 1 - same].level == level)
            ++same;
        if (same < x->fan_in)
            return CLI_EXIT_OK;
        const int rc = merge_tail(x, x->fan_in);
        if (rc != CLI_EXIT_OK)
            return rc;
    }
}

static void close_runs(ext_state *x)
{
    for (size_t i = 0; i < x->nruns; ++i)
        if (x->runs[i].fd >= 0)
            close(x->runs[i].fd);
    free(x->runs);
    x->runs = NULL;
    x->nruns = 0;
}

/* ---- Sizes ---------------------------------------------------------------------------------- */

static size_t choose_fan_in(void)
{
    struct rlimit rl;
    size_t f = 64;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        const size_t avail = rl.rlim_cur > 48 ? (size_t)(rl.rlim_cur - 32) / 2 : 2;
        if (avail < f)
            f = avail;
    }
    return f < 2 ? 2 : f;
}

/* Records per run: -S if given, else a quarter of physical memory; never more than the device
 * holds. The library keeps n keys and a scratch copy on the device (and the same for values), each
 * buffer within one allocation; stable 32-bit keys are widened to 8 bytes. A quarter of global
 * memory is left to the runtime and other users. */
static size_t choose_run_records(const cli_opts *o, const clsort_device_info *di, int *capped)
{
    const size_t R = o->record_size, K = o->key_size;
    const int pairs = R != K;
    const uint64_t V = pairs ? 8 : 0;
    const uint64_t Kd = (pairs && o->stable && K == 4) ? 8 : K;
    const uint64_t host_per = R + (pairs ? K + V : 0);
    uint64_t n;
    if (o->buffer_size) {
        n = o->buffer_size / R;
    } else {
        const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        const uint64_t phys = (pages > 0 && page > 0) ? (uint64_t)pages * (uint64_t)page
                                                      : (uint64_t)1 << 30;
        n = phys / 4 / host_per;
    }
    *capped = 0;
    if (di && di->max_alloc > 0 && di->global_mem > 0) {
        uint64_t n_dev = di->max_alloc / (Kd > V ? Kd : V);
        const uint64_t n_global = di->global_mem / 4 * 3 / (2 * (Kd + V));
        if (n_global < n_dev)
            n_dev = n_global;
        if (n_dev > 0 && n > n_dev) {
            n = n_dev;
            *capped = o->buffer_size != 0;
        }
    }
    if (n > SIZE_MAX / host_per)
        n = SIZE_MAX / host_per;
    return n ? (size_t)n : 1;
}

/* ---- Reporting ------------------------------------------------------------------------------ */

static void print_warnings(clsort_ctx *ctx)
{
    const char *w = clsort_warnings(ctx);
    while (w && *w) {
        const char *nl = strchr(w, '\n');
        const int len = nl ? (int)(nl - w) : (int)strlen(w);
        if (len > 0)
            cli_info(1, "warning: %.*s", len, w);
        w += len + (nl ? 1 : 0);
    }
}

static void print_summary(const ext_state *x, const clsort_device_info *di, uint64_t records,
                          size_t run_records, uint64_t out_write_ns, uint64_t total_ns)
{
    char a[32], b[32];
    const cli_opts *const o = x->o;
    if (cli_display_level < 2)
        return;
    if (di)
        cli_info(2, "device %u:%u %s (%s, %s), config: %s", di->platform_index, di->device_index,
                 di->name, di->type, di->platform, di->config_source);
    cli_info(2, "%llu records of %zu bytes, %s key at offset %zu, %s%s",
             (unsigned long long)records, o->record_size, clsort_type_name(o->type),
             o->key_offset, o->reverse ? "descending" : "ascending", o->stable ? ", stable" : "");
    if (x->sort.sorts)
        cli_info(2, "algorithm %s%s", clsort_algorithm_name(x->sort.algorithm),
                 x->sort.host_fallback ? " (host fallback for small inputs)" : "");
    else
        cli_info(2, "algorithm none (fewer than 2 records)");
    if (x->runs_made > 1)
        cli_info(2, "%u runs of up to %zu records (%s) under %s, merge fan-in %zu, %u intermediate "
                    "merges",
                 x->runs_made, run_records,
                 cli_format_size(a, sizeof a, (uint64_t)run_records * o->record_size), o->tmpdir,
                 x->fan_in, x->merge_passes);
    else
        cli_info(2, "1 run (in memory; buffer %s)",
                 cli_format_size(a, sizeof a, (uint64_t)run_records * o->record_size));
    cli_info(2, "read   %s in %.3f s (%s)", cli_format_size(a, sizeof a, x->read_bytes),
             (double)x->read_ns / 1e9, cli_format_rate(b, sizeof b, x->read_bytes, x->read_ns));
    if (x->sort.sorts) {
        const double s = (double)x->sort.sort_ns / 1e9;
        cli_info(2, "sort   %llu keys in %.3f s (%.1f Mkeys/s; device %.3f s; host key work "
                    "%.3f s)",
                 (unsigned long long)x->sort.keys, s,
                 s > 0 ? (double)x->sort.keys / s / 1e6 : 0.0, (double)x->sort.device_ns / 1e9,
                 (double)x->sort.prep_ns / 1e9);
    }
    if (x->runs_made > 1) {
        cli_info(2, "runs   %s written in %.3f s (%s)", cli_format_size(a, sizeof a, x->run_bytes),
                 (double)x->run_write_ns / 1e9,
                 cli_format_rate(b, sizeof b, x->run_bytes, x->run_write_ns));
        cli_info(2, "merge  %s in %.3f s (%s), including the final write",
                 cli_format_size(a, sizeof a, x->merged_bytes), (double)x->merge_ns / 1e9,
                 cli_format_rate(b, sizeof b, x->merged_bytes, x->merge_ns));
    }
    cli_info(2, "write  %s in %.3f s (%s)", cli_format_size(a, sizeof a, x->read_bytes),
             (double)out_write_ns / 1e9, cli_format_rate(b, sizeof b, x->read_bytes, out_write_ns));
    cli_info(2, "total  %.3f s (%.1f Mrecords/s)", (double)total_ns / 1e9,
             total_ns ? (double)records / ((double)total_ns / 1e9) / 1e6 : 0.0);
}

/* Fills c with up to cap records. A partial record can only be the end of a ragged input. */
static int read_chunk(ext_state *x, cli_input *in, cli_chunk *c, size_t cap)
{
    const size_t R = x->ks.record_size;
    const uint64_t t0 = cli_now_ns();
    const int64_t got = cli_input_read(in, c->recs, cap * R);
    if (got < 0)
        return CLI_EXIT_IO;
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
    p->rc = read_chunk(p->x, p->in, p->c, p->cap);
    return NULL;
}

/* Writes a sorted chunk as a new run. */
static int write_run(ext_state *x, const cli_chunk *c)
{
    cli_writer w;
    int rc = cli_writer_open_run(&w, x->o->tmpdir, OUT_BUF_BYTES);
    if (rc != CLI_EXIT_OK)
        return rc;
    rc = cli_chunk_write(&w, &x->ks, c);
    if (rc != CLI_EXIT_OK) {
        cli_writer_abort(&w);
        return rc;
    }
    int fd = -1;
    const uint64_t bytes = w.written + w.len;
    rc = cli_writer_commit(&w, &fd);
    x->run_write_ns += w.write_ns;
    if (rc != CLI_EXIT_OK)
        return rc;
    x->run_bytes += bytes;
    x->runs_made += 1;
    return add_run(x, fd, bytes);
}

/* ---- Driver --------------------------------------------------------------------------------- */

static int create_context(const cli_opts *o, clsort_ctx **ctx)
{
    const int rc = clsort_create(ctx, o->device);
    if (rc == CLSORT_OK)
        return CLI_EXIT_OK;
    const char *spec = o->device ? o->device : getenv("CLSORT_DEVICE");
    if (rc == CLSORT_ERR_NO_DEVICE)
        cli_error("no OpenCL device matches '%s' (see clsort --list-devices)",
                  spec && *spec ? spec : "default");
    else
        cli_error("cannot use OpenCL device '%s': %s", spec && *spec ? spec : "default",
                  clsort_strerror(rc));
    return CLI_EXIT_DEVICE;
}

int cli_sort_input(const cli_opts *o)
{
    const uint64_t t_start = cli_now_ns();
    ext_state x;
    memset(&x, 0, sizeof x);
    x.o = o;
    x.ks = (cli_keyspec){ o->type, o->key_size, o->key_offset, o->record_size, o->reverse };
    x.fan_in = choose_fan_in();
    const size_t R = o->record_size;
    cli_input in;
    cli_writer out;
    int out_open = 0;
    cli_chunk chunk, next;
    memset(&chunk, 0, sizeof chunk);
    memset(&next, 0, sizeof next);
    prefetch pf;
    pthread_t pf_thread;
    int pf_running = 0;
    clsort_ctx *ctx = NULL;
    clsort_device_info di, *dip = NULL;
    uint64_t out_write_ns = 0, records = 0;

    int rc = cli_input_open(&in, o->input);
    if (rc != CLI_EXIT_OK)
        return rc;
    /* Refuse a ragged file before anything is created or written. */
    if (in.is_regular && in.size % R != 0) {
        rc = cli_ext_report_ragged(in.name, in.size, R);
        goto fail;
    }
    x.total_bytes = in.is_regular ? in.size : 0;
    rc = cli_writer_open_output(&out, o->output, o->input, OUT_BUF_BYTES);
    if (rc != CLI_EXIT_OK)
        goto fail;
    out_open = 1;
    rc = create_context(o, &ctx);
    if (rc != CLI_EXIT_OK)
        goto fail;
    print_warnings(ctx);
    if (clsort_get_device_info(ctx, &di) == CLSORT_OK)
        dip = &di;
    if (dip && o->type == CLSORT_F64 && !dip->has_fp64) {
        cli_error("device %s has no double precision (fp64): f64 keys cannot be sorted there",
                  dip->name);
        rc = CLI_EXIT_DEVICE;
        goto fail;
    }

    int capped = 0;
    const size_t run_records = choose_run_records(o, dip, &capped);
    if (capped)
        cli_info(2, "buffer size lowered to %zu records to fit one device allocation",
                 run_records);
    size_t cap = run_records;
    if (in.is_regular && in.size / R < cap)
        cap = (size_t)(in.size / R);
    rc = cli_chunk_alloc(&chunk, &x.ks, cap);
    if (rc != CLI_EXIT_OK)
        goto fail;
    if (cap == 0)
        cap = 1;

    /* The first buffer decides: all of the input (sorted in memory and written to the
     * destination), or the first run of an external sort. */
    rc = read_chunk(&x, &in, &chunk, cap);
    if (rc != CLI_EXIT_OK)
        goto fail;
    records += chunk.n;
    int eof = cli_input_eof(&in);
    if (eof < 0) {
        rc = CLI_EXIT_IO;
        goto fail;
    }
    if (eof) {
        cli_progress_update("sorting", in.consumed, x.total_bytes);
        rc = cli_chunk_sort(ctx, &x.ks, o->algorithm, o->stable, &chunk, &x.sort);
        if (rc != CLI_EXIT_OK)
            goto fail;
        x.runs_made = 1;
        cli_progress_update("writing", 0, 0);
        rc = cli_chunk_write(&out, &x.ks, &chunk);
        if (rc != CLI_EXIT_OK)
            goto fail;
    } else {
        /* Runs: while one buffer is sorted and written out, a thread reads the next one. Without
         * memory for the second buffer, reading simply waits its turn. */
        if (cli_chunk_alloc(&next, &x.ks, cap) != CLI_EXIT_OK)
            cli_info(2, "no memory for a second buffer: reading will not overlap sorting");
        for (;;) {
            const uint64_t shown = in.consumed; /* read before a reader thread starts */
            if (!eof && next.recs) {
                pf = (prefetch){ &x, &in, &next, cap, CLI_EXIT_OK };
                if (pthread_create(&pf_thread, NULL, prefetch_main, &pf) == 0)
                    pf_running = 1;
            }
            cli_progress_update("sorting", shown, x.total_bytes);
            rc = cli_chunk_sort(ctx, &x.ks, o->algorithm, o->stable, &chunk, &x.sort);
            if (rc == CLI_EXIT_OK)
                rc = write_run(&x, &chunk);
            if (pf_running) {
                pthread_join(pf_thread, NULL);
                pf_running = 0;
                if (rc == CLI_EXIT_OK)
                    rc = pf.rc;
                const cli_chunk t = chunk;
                chunk = next;
                next = t;
            } else if (rc == CLI_EXIT_OK && !eof) {
                rc = read_chunk(&x, &in, &chunk, cap);
            }
            if (rc != CLI_EXIT_OK)
                goto fail;
            if (eof)
                break;
            records += chunk.n;
            eof = cli_input_eof(&in);
            if (eof < 0) {
                rc = CLI_EXIT_IO;
                goto fail;
            }
            if (chunk.n == 0)
                break;
        }
    }
    cli_chunk_free(&chunk);
    cli_chunk_free(&next);

    if (x.runs_made > 1 || x.nruns > 0) {
        while (x.nruns > x.fan_in) {
            const size_t k = x.nruns - x.fan_in + 1 < x.fan_in ? x.nruns - x.fan_in + 1 : x.fan_in;
            rc = merge_tail(&x, k);
            if (rc != CLI_EXIT_OK)
                goto fail;
        }
        rc = merge_runs(&x, x.runs, x.nruns, &out);
        x.nruns = 0;
        if (rc != CLI_EXIT_OK)
            goto fail;
    }
    cli_progress_update("syncing", 0, 0);
    rc = cli_writer_commit(&out, NULL);
    out_open = 0;
    if (rc != CLI_EXIT_OK)
        goto fail;
    out_write_ns = out.write_ns; /* commit leaves the counters readable */
    cli_progress_clear();
    print_summary(&x, dip, records, run_records, out_write_ns, cli_now_ns() - t_start);
    close_runs(&x);
    clsort_destroy(ctx);
    cli_input_close(&in);
    return CLI_EXIT_OK;

fail:
    if (pf_running)
        pthread_join(pf_thread, NULL);
    cli_progress_clear();
    if (out_open)
        cli_writer_abort(&out);
    cli_chunk_free(&chunk);
    cli_chunk_free(&next);
    close_runs(&x);
    clsort_destroy(ctx);
    cli_input_close(&in);
    return rc;
}

int cli_check_sorted(const cli_opts *o)
{
    const cli_keyspec ks = { o->type, o->key_size, o->key_offset, o->record_size, o->reverse };
    cli_input in;
    int rc = cli_input_open(&in, o->input);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (in.is_regular && in.size % o->record_size != 0)
        rc = cli_ext_report_ragged(in.name, in.size, o->record_size);
    else
        rc = cli_check_input(&in, &ks);
    cli_input_close(&in);
    return rc;
}
