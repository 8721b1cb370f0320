/* clsort_top.c - `clsort --top N`: only the first N records of the sorted output, streamed. The
 * input is read once, in blocks of 32 MiB; once N records are kept, the N-th of them is a
 * threshold, and a block's records that do not sort before it are dropped on the host as they are
 * read (a compare of each key against one, at memory speed). The records that pass gather in a
 * chunk, which is sorted on the device as a run would be (cli_chunk_sort: ties by the further
 * keys, then in input order) when it is full and at the end; its first N records are merged with
 * the running top N, and the threshold moves up. Memory: a block, a chunk (64 MiB at most, -S
 * when smaller) and N records; on random keys almost nothing passes after the first chunk, so
 * the device sorts about one chunk whatever the input's size.
 *
 * Why the result is the head of the full sort: the full order is (keys, input position). A
 * record that does not sort before the running N-th (all of whose records are earlier input) has
 * N records before it and is not among the first N; one equal to it comes later in the input,
 * so after it. A record of the overall top N is among the top N of its own chunk, since every
 * record before it in its chunk is before it overall; and merging two sorted lists with ties to
 * the earlier input (the running top holds only earlier chunks) keeps that order. With -u the
 * lists are of distinct records (all keys equal: the first in input order is kept), and a chunk's
 * record equal to one of the running top is dropped. */
#include "clsort_top.h"

#include <stdio.h>
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
#include "clsort_request.h"
#include "clsort_units.h"

#define TOP_OUT_BUF ((size_t)4 << 20)
#define TOP_BLOCK_BYTES ((size_t)32 << 20) /* one read */
#define TOP_CHUNK_BYTES ((size_t)64 << 20) /* the records that passed, sorted together */

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

/* The next record of the merge from the back: the later of the top's i-th and the chunk's j-th
 * from their ends (ties: the chunk's, later input). Sets *from_chunk. NULL when none is left. */
static const unsigned char *merge_last(const top_list *top, size_t i, const cli_chunk *c, size_t j,
                                       const cli_keyspec *ks, int *from_chunk)
{
    const size_t R = ks->record_size;
    const unsigned char *const a = i ? top->recs + (i - 1) * R : NULL;
    const unsigned char *const b = j ? sorted_rec(c, R, j - 1) : NULL;
    *from_chunk = b && !(a && cli_record_cmp(ks, a, b) > 0);
    return *from_chunk ? b : a;
}

/* Merges the sorted chunk's first records into the running top in the top's own buffer, keeping
 * the first N (ties: the running top first, being earlier input; with -u, only the first of equal
 * records), so that memory holds N records, not 2 N. A binary search (with -u, a forward pass)
 * finds how many of each come first; a merge from the back then fills the buffer. It never overwrites a record of the top not
 * yet taken: the k records still to place are at least the i of the top left (a dropped duplicate
 * always spends a record of the chunk, since the top's are distinct), one more when the record
 * placed is the chunk's. */
static int top_merge(top_list *top, const cli_chunk *c, const cli_keyspec *ks, uint64_t N)
{
    const size_t R = ks->record_size;
    const size_t most = (size_t)((uint64_t)top->n + c->n < N ? (uint64_t)top->n + c->n : N);
    if (top_reserve(top, most, R) != 0)
        return CLI_EXIT_IO;
    size_t i = 0, j = 0, kept = 0;
    const unsigned char *last = NULL;
    if (!ks->unique) {
        /* Without -u the first `most` are i of the top and most - i of the chunk, for the i where
         * the top's i-th no longer comes before the chunk's (most - i - 1)-th: a binary search. */
        size_t lo = most > c->n ? most - c->n : 0, hi = most < top->n ? most : top->n;
        while (lo < hi) {
            const size_t mid = lo + (hi - lo) / 2;
            if (cli_record_cmp(ks, top->recs + mid * R, sorted_rec(c, R, most - mid - 1)) <= 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        i = lo;
        j = most - lo;
        kept = most;
    }
    while (kept < most && (i < top->n || j < c->n)) {
        const unsigned char *const a = i < top->n ? top->recs + i * R : NULL;
        const unsigned char *const b = j < c->n ? sorted_rec(c, R, j) : NULL;
        const unsigned char *const take = a && (!b || cli_record_cmp(ks, a, b) <= 0) ? a : b;
        if (take == a)
            ++i;
        else
            ++j;
        if (!(ks->unique && last && cli_record_cmp(ks, last, take) == 0))
            ++kept;
        last = take;
    }
    int from_chunk;
    const unsigned char *cur = merge_last(top, i, c, j, ks, &from_chunk);
    for (size_t k = kept; cur;) {
        if (from_chunk)
            --j;
        else
            --i;
        int next_from_chunk;
        const unsigned char *const next = merge_last(top, i, c, j, ks, &next_from_chunk);
        /* With -u a record equal to the one before it (next, in forward order) is dropped. */
        if (!(ks->unique && next && cli_record_cmp(ks, next, cur) == 0)) {
            --k;
            memmove(top->recs + k * R, cur, R); /* may be itself: a top record in place */
        }
        cur = next;
        from_chunk = next_from_chunk;
    }
    top->n = kept;
    return CLI_EXIT_OK;
}

/* What the streaming loop holds. */
typedef struct top_state {
    const cli_opts *o;
    cli_keyspec ks;
    clsort_ctx *ctx;
    cli_chunk chunk;        /* the records that passed the threshold, until sorted */
    size_t cap;             /* the chunk's records */
    unsigned char *block;   /* one read */
    size_t block_cap;       /* its records */
    top_list top;
    cli_sort_stats st;
    uint64_t records, passed;
    unsigned chunks;
} top_state;

/* Sorts the chunk's records and merges them into the running top. */
static int flush_chunk(top_state *t)
{
    if (t->chunk.n == 0)
        return CLI_EXIT_OK;
    char note[48];
    snprintf(note, sizeof note, "sorting chunk %u", t->chunks + 1);
    cli_progress_note(note); /* on the reading line: the chunks come between its blocks */
    int rc = cli_chunk_sort(t->ctx, &t->ks, t->o->algorithm, t->o->stable, &t->chunk, &t->st);
    cli_watch_aborts(); /* after the compiler's crash handlers (clsort_capture.h) */
    if (rc == CLI_EXIT_OK)
        rc = top_merge(&t->top, &t->chunk, &t->ks, t->o->top);
    t->chunk.n = 0;
    ++t->chunks;
    return rc;
}

/* The running N-th record, once N are kept (NULL before): what a record must sort before. */
static const unsigned char *running_nth(const top_state *t)
{
    return t->top.n == t->o->top ? t->top.recs + (t->top.n - 1) * t->ks.record_size : NULL;
}

/* Moves the block's records that sort before the running N-th (all of them until N are kept)
 * into the chunk, sorting it whenever it fills. */
static int filter_block(top_state *t, const unsigned char *p, size_t n)
{
    const size_t R = t->ks.record_size;
    const unsigned char *nth = running_nth(t);
    uint64_t y = nth ? cli_key_ordinal(&t->ks, nth) : 0;
    /* Until N are kept, a first chunk of 2^20 records (or N) is enough to set the threshold. */
    const uint64_t first = t->o->top > ((uint64_t)1 << 20) ? t->o->top : (uint64_t)1 << 20;
    size_t limit = nth || first >= t->cap ? t->cap : (size_t)first;
    for (size_t i = 0; i < n; ++i, p += R) {
        if (nth) {
            const uint64_t x = cli_key_ordinal(&t->ks, p);
            if (x > y || (x == y && (!t->ks.nextra || cli_extra_cmp(&t->ks, p, nth) >= 0)))
                continue;
        }
        memcpy(t->chunk.recs + t->chunk.n * R, p, R);
        ++t->passed;
        if (++t->chunk.n >= limit) {
            const int rc = flush_chunk(t);
            if (rc != CLI_EXIT_OK)
                return rc;
            nth = running_nth(t); /* the merge moved it */
            y = nth ? cli_key_ordinal(&t->ks, nth) : 0;
            limit = nth ? t->cap : limit;
        }
    }
    return CLI_EXIT_OK;
}

/* Reads the whole input once, block after block, through the filter. */
static int stream_input(top_state *t, cli_input *in)
{
    const size_t R = t->ks.record_size;
    const uint64_t total = in->is_regular ? in->size : 0;
    for (;;) {
        cli_progress_update("reading", in->consumed, total);
        const int64_t got = cli_input_read(in, t->block, t->block_cap * R);
        if (got < 0)
            return CLI_EXIT_IO;
        if ((size_t)got % R != 0) {
            cli_error("%s: size %llu is not a multiple of the record size %zu (%llu bytes left "
                      "over)",
                      in->name, (unsigned long long)in->consumed, R,
                      (unsigned long long)(in->consumed % R));
            return CLI_EXIT_IO;
        }
        t->records += (uint64_t)got / R;
        const int rc = filter_block(t, t->block, (size_t)got / R);
        if (rc != CLI_EXIT_OK)
            return rc;
        if ((size_t)got < t->block_cap * R)
            break; /* cli_input_read is short only at the end */
    }
    cli_progress_update("reading", in->consumed, total ? in->consumed : 0);
    return flush_chunk(t);
}

/* Opens the device and sizes the block and the chunk: the run size the sort would take (never
 * more than the device holds, nor -S), at most TOP_CHUNK_BYTES, no more than the input. */
static int top_setup(top_state *t, const cli_input *in)
{
    const cli_opts *const o = t->o;
    const size_t R = o->record_size;
    const int crc = clsort_create(&t->ctx, o->device);
    if (crc != CLSORT_OK) {
        const char *spec = o->device ? o->device : getenv("CLSORT_DEVICE");
        cli_error("cannot use OpenCL device '%s': %s", spec && *spec ? spec : "default",
                  clsort_strerror(crc));
        return CLI_EXIT_DEVICE;
    }
    clsort_device_info di;
    size_t cap = cli_run_records_for(o, clsort_get_device_info(t->ctx, &di) == CLSORT_OK ? &di : NULL,
                                 NULL);
    if (cap > TOP_CHUNK_BYTES / R)
        cap = TOP_CHUNK_BYTES / R;
    if (in->is_regular && in->size / R < cap)
        cap = (size_t)(in->size / R);
    t->cap = cap ? cap : 1;
    t->block_cap = TOP_BLOCK_BYTES / R ? TOP_BLOCK_BYTES / R : 1;
    if (t->block_cap > t->cap)
        t->block_cap = t->cap;
    t->block = cli_malloc(t->block_cap * R, "a read block");
    if (!t->block)
        return CLI_EXIT_IO;
    return cli_chunk_alloc(&t->chunk, &t->ks, t->cap);
}

static void top_report(const top_state *t, uint64_t t_start)
{
    if (cli_display_level < 2)
        return;
    clsort_device_info di;
    const int have_di = clsort_get_device_info(t->ctx, &di) == CLSORT_OK;
    cli_info(2, "top %zu of %llu records of %zu bytes (--top %llu), read once in blocks of %zu "
                "records; %llu passed the running threshold, sorted in %u chunk%s of up to %zu",
             t->top.n, (unsigned long long)t->records, t->ks.record_size,
             (unsigned long long)t->o->top, t->block_cap, (unsigned long long)t->passed,
             t->chunks, t->chunks == 1 ? "" : "s", t->cap);
    cli_report_sorter(&t->st, have_di ? &di : NULL);
    cli_report_sort_time(&t->st);
    cli_info(2, "total  %.3f s", (double)(cli_now_ns() - t_start) / 1e9);
}

int cli_top_input(const cli_opts *o)
{
    const uint64_t t_start = cli_now_ns();
    top_state t;
    memset(&t, 0, sizeof t);
    t.o = o;
    cli_keyspec_from_opts(&t.ks, o);
    const size_t R = o->record_size;
    cli_guard guard;
    cli_input in;
    cli_writer out;
    int out_open = 0, in_open = 0;

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
    rc = cli_writer_open_output(&out, o->output, o->input, TOP_OUT_BUF, o->no_fsync);
    if (rc != CLI_EXIT_OK)
        goto fail;
    out_open = 1;
    cli_guard_attach(&guard, &out);
    if ((rc = top_setup(&t, &in)) != CLI_EXIT_OK || (rc = stream_input(&t, &in)) != CLI_EXIT_OK)
        goto fail;
    cli_chunk_free(&t.chunk);
    free(t.block);
    t.block = NULL;

    cli_progress_update("writing", 0, (uint64_t)t.top.n * R);
    rc = cli_writer_put(&out, t.top.recs, t.top.n * R);
    if (rc != CLI_EXIT_OK)
        goto fail;
    cli_progress_update("writing", (uint64_t)t.top.n * R, (uint64_t)t.top.n * R);
    cli_progress_update("syncing", 0, 0);
    rc = cli_writer_commit(&out, NULL);
    out_open = 0;
    if (rc != CLI_EXIT_OK)
        goto fail;
    cli_progress_clear();
    top_report(&t, t_start);

fail:
    cli_progress_clear();
    if (out_open)
        cli_writer_abort(&out);
    cli_chunk_free(&t.chunk);
    free(t.block);
    free(t.top.recs);
    clsort_destroy(t.ctx);
    if (in_open)
        cli_input_close(&in);
    cli_guard_free(&guard);
    return rc;
}
