/* clsort_merge.c - the runs of an external sort and their k-way merge: a binary heap of each run's
 * current key, ties broken by run position so that the merged order is the stable order.
 *
 * Runs are anonymous files (unlinked as soon as they are created), so they vanish with the process
 * however it ends; to keep the number of open runs bounded, the last F runs of one level are merged
 * into one run of the next level as soon as there are F of them (F from the open-file limit). */
#include "clsort_merge.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "clsort_messages.h"
#include "clsort_progress.h"
#include "clsort_units.h"

#define RUN_READ_BYTES ((size_t)1 << 20)

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
 * array. Ties go to the earlier run: runs are in input order, so this keeps the merge stable.
 * With tie-breaking keys (--key given more than once), equal first keys compare the records. */
typedef struct heap_item {
    uint64_t key;
    size_t run;
} heap_item;

typedef struct heap_view {
    const cli_keyspec *ks;
    const run_reader *rd;
} heap_view;

static int item_before(const heap_item *a, const heap_item *b, const heap_view *v)
{
    if (a->key != b->key)
        return a->key < b->key;
    if (v->ks->nextra) {
        const run_reader *const ra = &v->rd[a->run], *const rb = &v->rd[b->run];
        const int c = cli_extra_cmp(v->ks, ra->buf + ra->pos, rb->buf + rb->pos);
        if (c)
            return c < 0;
    }
    return a->run < b->run;
}

static void heap_sift_down(heap_item *heap, size_t n, size_t i, const heap_view *v)
{
    const heap_item item = heap[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && item_before(&heap[c + 1], &heap[c], v))
            ++c;
        if (!item_before(&heap[c], &item, v))
            break;
        heap[i] = heap[c];
        i = c;
    }
    heap[i] = item;
}

/* Merges runs[0..k) into `out` and closes them (which frees their space). */
static int merge_runs(cli_run_set *x, cli_run *runs, size_t k, cli_writer *out)
{
    const cli_keyspec *const ks = &x->ks;
    const size_t R = ks->record_size;
    const uint64_t t0 = cli_now_ns();
    size_t rcap = RUN_READ_BYTES / R * R;
    if (rcap < R)
        rcap = R;
    run_reader *const rd = calloc(k, sizeof *rd);
    heap_item *const heap = calloc(k, sizeof *heap);
    /* -u: the last record written, to drop the ones equal to it (the first in input order wins,
     * as runs are in input order and ties go to the earlier run). */
    unsigned char *const last = ks->unique ? malloc(R) : NULL;
    int have_last = 0;
    const heap_view view = { ks, rd };
    int rc = CLI_EXIT_IO;
    uint64_t total = 0, done = 0;
    if (!rd || !heap || (ks->unique && !last)) {
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
        if (reader_fill(&rd[i], x->tmpdir) != CLI_EXIT_OK)
            goto fail;
        heap[hn++] = (heap_item){ cli_key_ordinal(ks, rd[i].buf), i };
    }
    for (size_t i = hn / 2; i-- > 0;)
        heap_sift_down(heap, hn, i, &view);
    const char *const phase = out->keep_open ? "merging" : "writing";
    while (hn > 0) {
        run_reader *const r = &rd[heap[0].run];
        if (last) {
            if (have_last && cli_record_cmp(ks, last, r->buf + r->pos) == 0)
                goto next; /* -u: an equal record is already out */
            memcpy(last, r->buf + r->pos, R);
            have_last = 1;
        }
        /* The record goes straight into the output buffer when it fits (the common case). */
        if (out->len + R <= out->cap) {
            memcpy(out->buf + out->len, r->buf + r->pos, R);
            out->len += R;
        } else if (cli_writer_put(out, r->buf + r->pos, R) != CLI_EXIT_OK) {
            goto fail;
        }
    next:
        r->pos += R;
        if (r->pos == r->len) {
            if (r->off == r->size) {
                heap[0] = heap[--hn];
                if (hn > 0)
                    heap_sift_down(heap, hn, 0, &view);
                continue;
            }
            if (reader_fill(r, x->tmpdir) != CLI_EXIT_OK)
                goto fail;
            done += r->len;
            cli_progress_update(phase, done, total);
        }
        heap[0].key = cli_key_ordinal(ks, r->buf + r->pos);
        /* Often the same run goes on winning: skip the sift when it still beats both children. */
        if ((hn > 1 && !item_before(&heap[0], &heap[1], &view)) ||
            (hn > 2 && !item_before(&heap[0], &heap[2], &view)))
            heap_sift_down(heap, hn, 0, &view);
    }
    rc = CLI_EXIT_OK;
fail:
    if (rd) {
        for (size_t i = 0; i < k; ++i)
            free(rd[i].buf);
    }
    free(rd);
    free(heap);
    free(last);
    for (size_t i = 0; i < k; ++i) {
        close(runs[i].fd);
        runs[i].fd = -1;
    }
    x->merge_ns += cli_now_ns() - t0;
    x->merged_bytes += total;
    return rc;
}

/* Replaces the last k runs by one run of the next level. */
static int merge_tail(cli_run_set *x, size_t k)
{
    cli_run *const first = &x->runs[x->nruns - k];
    const unsigned level = first->level + 1;
    cli_writer w;
    int rc = cli_writer_open_run(&w, x->tmpdir, x->write_buf);
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

int cli_runs_add(cli_run_set *x, int fd, uint64_t bytes)
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

void cli_runs_close(cli_run_set *x)
{
    for (size_t i = 0; i < x->nruns; ++i)
        if (x->runs[i].fd >= 0)
            close(x->runs[i].fd);
    free(x->runs);
    x->runs = NULL;
    x->nruns = 0;
}

void cli_runs_init(cli_run_set *s, const char *tmpdir, const cli_keyspec *ks, size_t write_buf)
{
    memset(s, 0, sizeof *s);
    s->tmpdir = tmpdir;
    s->ks = *ks;
    s->write_buf = write_buf;
    s->fan_in = choose_fan_in();
}

int cli_runs_merge(cli_run_set *s, cli_writer *out)
{
    while (s->nruns > s->fan_in) {
        const size_t k = s->nruns - s->fan_in + 1 < s->fan_in ? s->nruns - s->fan_in + 1 : s->fan_in;
        const int rc = merge_tail(s, k);
        if (rc != CLI_EXIT_OK)
            return rc;
    }
    const int rc = merge_runs(s, s->runs, s->nruns, out);
    s->nruns = 0;
    return rc;
}
