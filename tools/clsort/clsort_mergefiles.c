/* clsort_mergefiles.c - the k-way merge of -m over the input files themselves: a binary heap of
 * each input's current record, ties broken by input position (so the merge is stable: equal
 * records come out in the order of the files on the command line), and an order check of each
 * input against its own previous record as it streams by.
 *
 * The output goes through the same writer as a sort (temporary file, fsync, rename; removed on
 * error or signal), and the same guard (clsort_guard.h) when it replaces an input. */
#include "clsort_mergefiles.h"

#include <stdlib.h>
#include <string.h>

#include "clsort_fileio.h"
#include "clsort_guard.h"
#include "clsort_messages.h"
#include "clsort_progress.h"
#include "clsort_records.h"

#define OUT_BUF_BYTES ((size_t)4 << 20)
#define IN_BUF_MAX ((size_t)1 << 20)
#define IN_BUF_TOTAL ((size_t)64 << 20)

typedef struct merge_src {
    cli_input in;
    int open;
    unsigned char *buf;
    size_t cap, len, pos;   /* bytes */
    unsigned char *prev;    /* the record before buf[0], for the order check across refills */
    int have_prev;
    uint64_t index;         /* records of this input taken so far */
} merge_src;

typedef struct merge_ctx {
    const cli_opts *o;
    cli_keyspec ks;
    merge_src *src;
} merge_ctx;

/* Refills src's buffer. Returns CLI_EXIT_OK (len 0 at the end) or CLI_EXIT_IO (printed). */
static int src_fill(const merge_ctx *m, merge_src *s)
{
    const size_t R = m->ks.record_size;
    if (s->len >= R) { /* keep the last record for the order check */
        memcpy(s->prev, s->buf + s->len - R, R);
        s->have_prev = 1;
    }
    const int64_t got = cli_input_read(&s->in, s->buf, s->cap);
    if (got < 0)
        return CLI_EXIT_IO;
    if ((size_t)got % R != 0) {
        cli_error("%s: size %llu is not a multiple of the record size %zu", s->in.name,
                  (unsigned long long)(s->in.consumed - s->in.file_start), R);
        return CLI_EXIT_IO;
    }
    s->len = (size_t)got;
    s->pos = 0;
    return CLI_EXIT_OK;
}

/* The order check: the current record of s against the one before it in the same input. */
static int src_check(const merge_ctx *m, const merge_src *s)
{
    if (m->o->no_check)
        return CLI_EXIT_OK;
    const size_t R = m->ks.record_size;
    const unsigned char *const rec = s->buf + s->pos;
    const unsigned char *before = s->pos >= R ? rec - R : (s->have_prev ? s->prev : NULL);
    if (before && cli_record_cmp(&m->ks, before, rec) > 0) {
        cli_error("%s: disorder at record %llu (byte offset %llu): --merge needs sorted inputs "
                  "(sort it first, or --no-check)",
                  s->in.name, (unsigned long long)s->index,
                  (unsigned long long)(s->index * R));
        return CLI_EXIT_IO;
    }
    return CLI_EXIT_OK;
}

static int before(const merge_ctx *m, size_t a, size_t b)
{
    const merge_src *const x = &m->src[a], *const y = &m->src[b];
    const int c = cli_record_cmp(&m->ks, x->buf + x->pos, y->buf + y->pos);
    return c < 0 || (c == 0 && a < b);
}

static void sift_down(const merge_ctx *m, size_t *heap, size_t n, size_t i)
{
    const size_t item = heap[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && before(m, heap[c + 1], heap[c]))
            ++c;
        if (!before(m, heap[c], item))
            break;
        heap[i] = heap[c];
        i = c;
    }
    heap[i] = item;
}

int cli_merge_inputs(const cli_opts *o)
{
    merge_ctx m;
    memset(&m, 0, sizeof m);
    m.o = o;
    cli_keyspec_from_opts(&m.ks, o);
    const size_t R = o->record_size, k = o->ninputs;
    cli_guard guard;
    cli_writer out;
    int out_open = 0;
    size_t *heap = NULL;
    unsigned char *last = NULL;
    int have_last = 0;
    uint64_t total = 0, done = 0;

    int rc = cli_guard_prepare(&guard, o->inputs, k, R);
    if (rc != CLI_EXIT_OK)
        return rc;
    rc = CLI_EXIT_IO;
    m.src = calloc(k, sizeof *m.src);
    heap = calloc(k, sizeof *heap);
    last = malloc(R);
    if (!m.src || !heap || !last) {
        cli_error("out of host memory for the merge");
        goto done;
    }
    /* One buffer per input, smaller when there are many: memory stays bounded. */
    size_t cap = IN_BUF_TOTAL / k;
    if (cap > IN_BUF_MAX)
        cap = IN_BUF_MAX;
    cap = cap / R * R;
    if (cap < R)
        cap = R;
    for (size_t i = 0; i < k; ++i) {
        merge_src *const s = &m.src[i];
        if (cli_input_open(&s->in, o->inputs[i]) != CLI_EXIT_OK)
            goto done;
        s->open = 1;
        total += s->in.size;
        s->cap = cap;
        s->buf = cli_malloc(cap, "a merge buffer");
        s->prev = cli_malloc(R, "a merge buffer");
        if (!s->buf || !s->prev)
            goto done;
    }
    if (cli_writer_open_output(&out, o->output, o->input, OUT_BUF_BYTES) != CLI_EXIT_OK)
        goto done;
    out_open = 1;
    cli_guard_attach(&guard, &out);

    size_t hn = 0;
    for (size_t i = 0; i < k; ++i) {
        if (src_fill(&m, &m.src[i]) != CLI_EXIT_OK)
            goto done;
        if (m.src[i].len > 0)
            heap[hn++] = i;
    }
    for (size_t i = hn / 2; i-- > 0;)
        sift_down(&m, heap, hn, i);
    while (hn > 0) {
        merge_src *const s = &m.src[heap[0]];
        if (src_check(&m, s) != CLI_EXIT_OK)
            goto done;
        const unsigned char *const rec = s->buf + s->pos;
        if (!(o->unique && have_last && cli_record_cmp(&m.ks, last, rec) == 0)) {
            if (cli_writer_put(&out, rec, R) != CLI_EXIT_OK)
                goto done;
            if (o->unique) {
                memcpy(last, rec, R);
                have_last = 1;
            }
        }
        s->pos += R;
        s->index += 1;
        if (s->pos == s->len) {
            done += s->len;
            cli_progress_update("merging", done, total);
            if (src_fill(&m, s) != CLI_EXIT_OK)
                goto done;
            if (s->len == 0) {
                heap[0] = heap[--hn];
                if (hn == 0)
                    break;
            }
        }
        sift_down(&m, heap, hn, 0);
    }
    cli_progress_update("syncing", 0, 0);
    out_open = 0;
    rc = cli_writer_commit(&out, NULL);

done:
    cli_progress_clear();
    if (out_open)
        cli_writer_abort(&out);
    if (m.src) {
        for (size_t i = 0; i < k; ++i) {
            if (m.src[i].open)
                cli_input_close(&m.src[i].in);
            free(m.src[i].buf);
            free(m.src[i].prev);
        }
    }
    free(m.src);
    free(heap);
    free(last);
    cli_guard_free(&guard);
    return rc;
}
