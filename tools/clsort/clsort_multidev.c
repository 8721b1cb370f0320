/* clsort_multidev.c - several devices in one clsort process. The library keeps one context per
 * device, so here each device gets its own context and thread. The input is cut into consecutive
 * runs; each round reads one run per device, sorts them all at once, and hands them to the run set
 * in input order. The merge of clsort_merge.c breaks ties by run position, and each run is sorted
 * with ties in input order, so the bytes are exactly those of a one-device sort (with -s, the
 * stable order). */
#include "clsort_multidev.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clsort_devlist.h"
#include "clsort_fileio.h"
#include "clsort_guard.h"
#include "clsort_merge.h"
#include "clsort_messages.h"
#include "clsort_records.h"
#include "clsort_units.h"

#define MD_BUF_BYTES ((size_t)4 << 20)

typedef struct md_worker {
    clsort_ctx *ctx;
    const cli_opts *o;
    const cli_keyspec *ks;
    cli_chunk chunk;
    cli_sort_stats st;
    int rc;
} md_worker;

static void *md_sort_main(void *arg)
{
    md_worker *const w = arg;
    w->rc = cli_chunk_sort(w->ctx, w->ks, w->o->algorithm, w->o->stable, &w->chunk, &w->st);
    return NULL;
}

/* Records per run: -S split over the devices, else a quarter of RAM split over them; never more
 * than the smallest device holds (keys and scratch, pairs as in clsort_extsort.c). */
static size_t md_run_records(const cli_opts *o, md_worker *w, size_t nd, uint64_t in_records)
{
    const size_t R = o->record_size, K = o->key_size;
    const int pairs = R != K;
    const uint64_t V = pairs ? 8 : 0, Kd = (pairs && o->stable && K == 4) ? 8 : K;
    uint64_t n;
    if (o->buffer_size) {
        n = o->buffer_size / R / nd;
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

static int md_write_run(cli_run_set *runs, const cli_opts *o, const cli_keyspec *ks,
                        const cli_chunk *c)
{
    cli_writer w;
    int rc = cli_writer_open_run(&w, o->tmpdir, MD_BUF_BYTES);
    if (rc != CLI_EXIT_OK)
        return rc;
    rc = cli_chunk_write(&w, ks, c);
    if (rc != CLI_EXIT_OK) {
        cli_writer_abort(&w);
        return rc;
    }
    int fd = -1;
    const uint64_t bytes = w.written + w.len;
    rc = cli_writer_commit(&w, &fd);
    return rc != CLI_EXIT_OK ? rc : cli_runs_add(runs, fd, bytes);
}

int cli_sort_multidev(const cli_opts *o)
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
    if ((rc = cli_writer_open_output(&out, o->output, o->input, MD_BUF_BYTES)) != CLI_EXIT_OK)
        goto done;
    out_open = 1;
    cli_guard_attach(&guard, &out);
    for (size_t d = 0; d < nd; ++d) {
        w[d].o = o;
        w[d].ks = &ks;
        const int lrc = clsort_create(&w[d].ctx, devs.specs[d]);
        if (lrc != CLSORT_OK) {
            cli_error("cannot use OpenCL device '%s' of the list '%s': %s", devs.specs[d],
                      o->device, clsort_strerror(lrc));
            rc = CLI_EXIT_DEVICE;
            goto done;
        }
        clsort_device_info di;
        if (o->type == CLSORT_F64 && clsort_get_device_info(w[d].ctx, &di) == CLSORT_OK &&
            !di.has_fp64) {
            cli_error("device %s has no double precision (fp64): f64 keys cannot be sorted there",
                      di.name);
            rc = CLI_EXIT_DEVICE;
            goto done;
        }
    }
    const size_t cap = md_run_records(o, w, nd, in.is_regular ? in.size / R : 0);
    for (size_t d = 0; d < nd; ++d)
        if ((rc = cli_chunk_alloc(&w[d].chunk, &ks, cap)) != CLI_EXIT_OK)
            goto done;

    /* Rounds: read one run per device, sort them all at once, write them in input order. */
    for (int eof = 0; !eof;) {
        size_t used = 0;
        for (; used < nd && !eof; ++used) {
            const int64_t got = cli_input_read(&in, w[used].chunk.recs, cap * R);
            if (got < 0) {
                rc = CLI_EXIT_IO;
                goto done;
            }
            if ((size_t)got % R != 0) {
                cli_error("%s: size %llu is not a multiple of the record size %zu", in.name,
                          (unsigned long long)in.consumed, R);
                rc = CLI_EXIT_IO;
                goto done;
            }
            w[used].chunk.n = (size_t)got / R;
            records += w[used].chunk.n;
            const int e = cli_input_eof(&in);
            if (e < 0) {
                rc = CLI_EXIT_IO;
                goto done;
            }
            eof = e;
        }
        size_t started = 0;
        for (; started < used; ++started)
            if (pthread_create(&th[started], NULL, md_sort_main, &w[started]) != 0)
                break;
        for (size_t d = started; d < used; ++d) /* no thread: sort it here */
            md_sort_main(&w[d]);
        for (size_t d = 0; d < started; ++d)
            pthread_join(th[d], NULL);
        for (size_t d = 0; d < used; ++d) {
            if (rc == CLI_EXIT_OK && w[d].rc != CLI_EXIT_OK)
                rc = w[d].rc;
            if (rc == CLI_EXIT_OK && (w[d].chunk.n > 0 || nruns == 0)) {
                rc = md_write_run(&runs, o, &ks, &w[d].chunk);
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
        uint64_t keys = 0;
        for (size_t d = 0; d < nd; ++d) {
            clsort_device_info di;
            if (clsort_get_device_info(w[d].ctx, &di) == CLSORT_OK)
                cli_info(2, "device %u:%u %s: %llu keys in %u sorts, %.3f s", di.platform_index,
                         di.device_index, di.name, (unsigned long long)w[d].st.keys,
                         w[d].st.sorts, (double)w[d].st.sort_ns / 1e9);
            keys += w[d].st.keys;
        }
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
