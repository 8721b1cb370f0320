/* clsort_top.c - `clsort --top N` (issue 27): only the first N records of the sorted output. The
 * input is read in chunks of the usual run size; each chunk is sorted on the device as a run would
 * be (cli_chunk_sort: ties by the further keys, then in input order), its first N records are
 * merged with the running top N of the chunks before it, and the rest is dropped. Nothing goes
 * to run files and there is no merge of runs, so an input of any size (a stream too) costs one
 * chunk and 2 N records of host memory.
 *
 * Why the result is the head of the full sort: the full order is (keys, input position). A
 * record of the overall top N is among the top N of its own chunk, since every record before it
 * in its chunk is before it overall; and merging two sorted lists with ties to the earlier input
 * (the running top holds only earlier chunks) keeps that order. With -u the lists are of distinct
 * records (all keys equal: the first in input order is kept), and a chunk's record equal to one
 * of the running top is dropped. */
#include "clsort_top.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clsort_devlist.h"
#include "clsort_fileio.h"
#include "clsort_guard.h"
#include "clsort_capture.h"
#include "clsort_messages.h"
#include "clsort_progress.h"
#include "clsort_records.h"
#include "clsort_units.h"

#define TOP_OUT_BUF ((size_t)4 << 20)

/* The chunk's i-th record in sorted order. */
static const unsigned char *sorted_rec(const cli_chunk *c, size_t R, size_t i)
{
    if (c->idx_size == 0)
        return c->recs + i * R;
    const uint64_t j = c->idx_size == 4 ? ((const uint32_t *)c->idx)[i]
                                        : ((const uint64_t *)c->idx)[i];
    return c->recs + (size_t)j * R;
}

typedef struct top_list {
    unsigned char *recs; /* n records, sorted */
    size_t n, cap;       /* cap: records allocated */
} top_list;

/* Makes room for `want` records (at most N). Returns 0, or -1 after printing. */
static int top_reserve(top_list *t, size_t want, size_t R)
{
    if (want <= t->cap)
        return 0;
    size_t cap = t->cap ? t->cap : 1024;
    while (cap < want)
        cap = cap > SIZE_MAX / 2 ? want : cap * 2;
    if (cap > want)
        cap = want;
    if (cap > SIZE_MAX / R) {
        cli_error("out of host memory: the top %zu records of %zu bytes do not fit in the address "
                  "space",
                  want, R);
        return -1;
    }
    unsigned char *const p = realloc(t->recs, cap * R);
    if (!p) {
        char sz[32];
        cli_error("out of host memory allocating %s for the top records (a smaller --top, or "
                  "clsort ... | head -c)",
                  cli_format_size(sz, sizeof sz, (uint64_t)cap * R));
        return -1;
    }
    t->recs = p;
    t->cap = cap;
    return 0;
}

/* Merges the sorted chunk's first records into the running top, keeping the first N (ties: the
 * running top first, being earlier input; with -u, a record equal to the one kept before it is
 * dropped). `out` is scratch of the same capacity, swapped with the top afterwards. */
static int top_merge(top_list *top, top_list *out, const cli_chunk *c, const cli_keyspec *ks,
                     uint64_t N)
{
    const size_t R = ks->record_size;
    const size_t want = (size_t)((uint64_t)top->n + c->n < N ? (uint64_t)top->n + c->n : N);
    if (top_reserve(out, want, R) != 0 || top_reserve(top, want, R) != 0)
        return CLI_EXIT_IO;
    size_t i = 0, j = 0, k = 0;
    const unsigned char *last = NULL;
    while (k < want && (i < top->n || j < c->n)) {
        const unsigned char *a = i < top->n ? top->recs + i * R : NULL;
        const unsigned char *b = j < c->n ? sorted_rec(c, R, j) : NULL;
        const unsigned char *take;
        if (a && (!b || cli_record_cmp(ks, a, b) <= 0)) {
            take = a;
            ++i;
        } else {
            take = b;
            ++j;
        }
        if (ks->unique && last && cli_record_cmp(ks, last, take) == 0)
            continue;
        memcpy(out->recs + k * R, take, R);
        last = out->recs + k * R;
        ++k;
    }
    out->n = k;
    const top_list t = *top;
    *top = *out;
    *out = t;
    return CLI_EXIT_OK;
}

int cli_top_input(const cli_opts *o)
{
    const uint64_t t_start = cli_now_ns();
    cli_keyspec ks;
    cli_keyspec_from_opts(&ks, o);
    const size_t R = o->record_size;
    const uint64_t N = o->top;
    cli_guard guard;
    cli_input in;
    cli_writer out;
    int out_open = 0, in_open = 0;
    cli_chunk chunk;
    memset(&chunk, 0, sizeof chunk);
    top_list top = { NULL, 0, 0 }, scratch = { NULL, 0, 0 };
    clsort_ctx *ctx = NULL;
    cli_sort_stats st;
    memset(&st, 0, sizeof st);
    uint64_t records = 0;
    unsigned chunks = 0;

    if (cli_devlist_is_multi(o->device)) {
        cli_error("--top sorts on one device: give -d one device (not a list or ':all')");
        return CLI_EXIT_USAGE;
    }
    int rc = cli_guard_prepare(&guard, o->inputs, o->ninputs, R);
    if (rc != CLI_EXIT_OK)
        return rc;
    rc = cli_input_open_list(&in, o->inputs, o->ninputs, R);
    if (rc != CLI_EXIT_OK)
        goto fail;
    in_open = 1;
    if (in.is_regular && in.size % R != 0) {
        cli_error("%s: size %llu is not a multiple of the record size %zu (%llu bytes left over)",
                  in.name, (unsigned long long)in.size, R,
                  (unsigned long long)(in.size % R));
        rc = CLI_EXIT_IO;
        goto fail;
    }
    rc = cli_writer_open_output(&out, o->output, o->input, TOP_OUT_BUF, o->no_fsync);
    if (rc != CLI_EXIT_OK)
        goto fail;
    out_open = 1;
    cli_guard_attach(&guard, &out);
    const int crc = clsort_create(&ctx, o->device);
    if (crc != CLSORT_OK) {
        const char *spec = o->device ? o->device : getenv("CLSORT_DEVICE");
        cli_error("cannot use OpenCL device '%s': %s", spec && *spec ? spec : "default",
                  clsort_strerror(crc));
        rc = CLI_EXIT_DEVICE;
        goto fail;
    }

    clsort_device_info di;
    /* Chunks as the sort's runs (cli_run_records): never more than the device holds, so that an
     * input larger than device memory goes through in chunks. */
    size_t cap =
        cli_run_records(o, clsort_get_device_info(ctx, &di) == CLSORT_OK ? &di : NULL, NULL);
    if (in.is_regular && in.size / R < cap)
        cap = (size_t)(in.size / R);
    const uint64_t expected = in.is_regular && cap ? (in.size / R + cap - 1) / cap : 0;
    if (cap > 0 && N > 0) {
        rc = cli_chunk_alloc(&chunk, &ks, cap);
        if (rc != CLI_EXIT_OK)
            goto fail;
    }
    /* Chunk after chunk, until the input ends. */
    while (cap > 0 && N > 0) {
        const int64_t got = cli_input_read(&in, chunk.recs, cap * R);
        if (got < 0) {
            rc = CLI_EXIT_IO;
            goto fail;
        }
        if ((size_t)got % R != 0) {
            cli_error("%s: size %llu is not a multiple of the record size %zu (%llu bytes left "
                      "over)",
                      in.name, (unsigned long long)in.consumed, R,
                      (unsigned long long)(in.consumed % R));
            rc = CLI_EXIT_IO;
            goto fail;
        }
        chunk.n = (size_t)got / R;
        if (chunk.n == 0)
            break;
        records += chunk.n;
        cli_progress_items("sorting", "run", chunks, expected > chunks ? expected : 0);
        rc = cli_chunk_sort(ctx, &ks, o->algorithm, o->stable, &chunk, &st);
        cli_watch_aborts(); /* after the compiler's crash handlers (clsort_capture.h) */
        if (rc != CLI_EXIT_OK)
            goto fail;
        rc = top_merge(&top, &scratch, &chunk, &ks, N);
        if (rc != CLI_EXIT_OK)
            goto fail;
        ++chunks;
        if ((size_t)got < cap * R)
            break; /* cli_input_read is short only at the end */
    }
    cli_chunk_free(&chunk);
    free(scratch.recs);
    scratch.recs = NULL;

    cli_progress_update("writing", 0, (uint64_t)top.n * R);
    rc = cli_writer_put(&out, top.recs, top.n * R);
    if (rc != CLI_EXIT_OK)
        goto fail;
    cli_progress_update("writing", (uint64_t)top.n * R, (uint64_t)top.n * R);
    cli_progress_update("syncing", 0, 0);
    rc = cli_writer_commit(&out, NULL);
    out_open = 0;
    if (rc != CLI_EXIT_OK)
        goto fail;
    cli_progress_clear();
    const double secs = (double)(cli_now_ns() - t_start) / 1e9;
    cli_info(2, "top %zu of %llu records of %zu bytes (--top %llu), %u chunk%s of up to %zu "
                "records sorted on the device, algorithm %s",
             top.n, (unsigned long long)records, R, (unsigned long long)N, chunks,
             chunks == 1 ? "" : "s", cap,
             st.sorts ? clsort_algorithm_name(st.algorithm) : "none");
    cli_info(2, "sort   %llu keys in %.3f s; total %.3f s", (unsigned long long)st.keys,
             (double)st.sort_ns / 1e9, secs);
    free(top.recs);
    clsort_destroy(ctx);
    cli_input_close(&in);
    cli_guard_free(&guard);
    return CLI_EXIT_OK;

fail:
    cli_progress_clear();
    if (out_open)
        cli_writer_abort(&out);
    cli_chunk_free(&chunk);
    free(top.recs);
    free(scratch.recs);
    clsort_destroy(ctx);
    if (in_open)
        cli_input_close(&in);
    cli_guard_free(&guard);
    return rc;
}
