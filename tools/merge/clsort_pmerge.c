/* clsort_pmerge.c - the k-way merge cut into parts that merge at once (issue 28).
 *
 * One loser tree merges at 400-500 MiB/s of one core; the output is a concatenation of parts that
 * need nothing from each other once their borders are known. A border is a splitter record, with
 * its source and position: the records that sort before it in the merge's order (all keys, then
 * source, then position) are the parts before. In each source that is one binary search: in a
 * source before the splitter's, the records <= its keys; after it, the records < its keys; in its
 * own source, the records before it. The part's place in the output is the sum of its starts in
 * the sources, so each part writes at its offset (cli_writer_open_at) and the bytes are those of
 * one loser tree over the whole. The splitters come from a regular sample of every source, each
 * sample standing for its share of its source, cut at equal shares of the output: parts of about
 * equal size whatever the keys, and for files that do not overlap as well (a sample from one
 * source only would put all of the other in one part). */
#include "clsort_pmerge.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "clsort_messages.h"
#include "clsort_progress.h"
#include "clsort_records.h"
#include "clsort_vecmerge.h"

#define PM_MAX_THREADS 64
#define PM_MIN_PART_RECORDS ((uint64_t)1 << 16) /* fewer per part: one loser tree is as fast */
#define PM_SAMPLES_PER_PART 64
#define PM_OUT_BUF ((size_t)2 << 20)
/* A part that stores into the mapped output: a buffer that stays in the core's cache, copied in
 * line (below the loser tree's threshold for a writer thread of its own), since the copy takes no
 * lock and a second thread per part would only compete for the cores. */
#define PM_MAP_BUF ((size_t)128 << 10)

unsigned cli_pmerge_threads(void)
{
    const char *env = getenv("CLSORT_CLI_MERGE_THREADS");
    long n = env && *env ? strtol(env, NULL, 10) : 0;
    if (n <= 0)
        n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        n = 1;
    return n > PM_MAX_THREADS ? PM_MAX_THREADS : (unsigned)n;
}

typedef struct pm_sample {
    const unsigned char *rec;
    uint32_t src;
    uint64_t pos;
    double weight;  /* records of its source it stands for */
} pm_sample;

static const cli_keyspec *pm_ks; /* qsort's comparator; only the calling thread sorts */

static int pm_cmp_samples(const void *a, const void *b)
{
    const pm_sample *x = a, *y = b;
    const int c = cli_record_cmp(pm_ks, x->rec, y->rec);
    if (c)
        return c;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* Records of source `s` (n records at d) that sort before the splitter. */
static uint64_t pm_cut(const cli_keyspec *ks, const unsigned char *d, uint64_t n, size_t s,
                       const pm_sample *sp)
{
    if (s == sp->src)
        return sp->pos;
    const size_t R = ks->record_size;
    const int upper = s < sp->src; /* equal keys of an earlier source come first */
    uint64_t lo = 0, hi = n;
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        const int c = cli_record_cmp(ks, d + mid * R, sp->rec);
        if (c < 0 || (upper && c == 0))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

typedef struct pm_part {
    const cli_merge_spec *m;
    cli_writer *out;
    uint64_t out_off;          /* bytes after what out has written */
    const cli_wmap *wm;        /* the mapped output the part stores into; NULL: pwrite */
    int vector;                /* merged by cli_vecmerge (cli_vecmerge_applies) */
    uint64_t bytes;            /* the part's length */
    const unsigned char **data;/* k: this part's slice of each source */
    size_t *len;
    unsigned char *given;
    const uint64_t *start;     /* k: the slice's first record in its source */
    int rc;
    size_t bad_src;            /* the first disorder found: source and record */
    uint64_t bad_idx;
    int bad;
} pm_part;

static int pm_pull(void *user, size_t src, const unsigned char **data, size_t *len)
{
    pm_part *const p = user;
    *data = p->data[src];
    *len = p->given[src] ? 0 : p->len[src];
    p->given[src] = 1;
    return CLI_EXIT_OK;
}

/* A disorder inside a part: noted (in source records) and reported after all parts end. */
static int pm_disorder(void *user, size_t src, uint64_t index)
{
    pm_part *const p = user;
    if (!p->bad) {
        p->bad = 1;
        p->bad_src = src;
        p->bad_idx = p->start[src] + index;
    }
    return CLI_EXIT_DISORDER;
}

static void *pm_part_main(void *arg)
{
    pm_part *const p = arg;
    cli_thread_block_xfsz(); /* its loser tree's writer thread inherits it */
    const cli_merge_spec spec = { p->m->ks, p->m->k, pm_pull, p,
                                  p->m->disorder ? pm_disorder : NULL, NULL, 0 };
    cli_writer w;
    p->rc = p->wm ? cli_writer_open_mapped(&w, p->out, p->wm, p->out_off, p->bytes, PM_MAP_BUF)
                  : cli_writer_open_at(&w, p->out, p->out_off, PM_OUT_BUF);
    if (p->rc != CLI_EXIT_OK)
        return NULL;
    if (p->vector) {
        p->rc = cli_vecmerge(spec.ks, spec.k, p->data, p->len, spec.disorder != NULL, &w);
        if (p->rc == CLI_VECMERGE_DISORDER) {
            /* The loser tree finds the same disorder and reports it as it always has. */
            cli_writer_rewind(&w);
            p->rc = cli_merge_sources(&spec, &w);
        }
    } else {
        p->rc = cli_merge_sources(&spec, &w);
    }
    if (p->rc == CLI_EXIT_OK)
        p->rc = cli_writer_commit(&w, NULL);
    else
        cli_writer_abort(&w);
    return NULL;
}

/* The parts' borders: cut[b * k + s] is where part b starts in source s (cut[P * k + s] its
 * end), chosen by samples of every source (`per` at most each, into sm) so that part b starts
 * where the records reach b/P of the T in all. */
static void pm_find_cuts(const cli_keyspec *ks, const unsigned char *const *data,
                         const uint64_t *len, size_t k, size_t P, size_t per, uint64_t T,
                         pm_sample *sm, uint64_t *cut)
{
    const size_t R = ks->record_size;
    size_t ns = 0;
    for (size_t s = 0; s < k; ++s) {
        const uint64_t n = len[s] / R;
        const uint64_t q = n < per ? n : per;
        for (uint64_t j = 0; j < q; ++j) {
            const uint64_t pos = j * n / q;
            sm[ns++] = (pm_sample){ data[s] + pos * R, (uint32_t)s, pos, (double)n / (double)q };
        }
    }
    pm_ks = ks;
    qsort(sm, ns, sizeof *sm, pm_cmp_samples);
    /* Border b: the sample where the records it stands for reach b/P of the output. */
    double acc = 0;
    size_t at = 0;
    for (size_t b = 1; b < P; ++b) {
        const double target = (double)T * (double)b / (double)P;
        while (at < ns && acc + sm[at].weight <= target)
            acc += sm[at++].weight;
        for (size_t s = 0; s < k; ++s) {
            const uint64_t n = len[s] / R;
            uint64_t c = at < ns ? pm_cut(ks, data[s], n, s, &sm[at]) : n;
            if (c < cut[(b - 1) * k + s]) /* unsorted sources only: keep the parts apart */
                c = cut[(b - 1) * k + s];
            if (c > n)
                c = n;
            cut[b * k + s] = c;
        }
    }
    for (size_t s = 0; s < k; ++s)
        cut[P * k + s] = len[s] / R;
}

/* The first disorder in source order, from what the parts found and, across the borders, the
 * last record of a part against the first of the next in each source. Returns 1 (and where in
 * *bad_src, *bad_idx) or 0. */
static int pm_first_disorder(const cli_merge_spec *m, const unsigned char *const *data,
                             const uint64_t *len, const uint64_t *cut, const pm_part *part,
                             size_t P, size_t *bad_src_out, uint64_t *bad_idx_out)
{
    const cli_keyspec *const ks = m->ks;
    const size_t k = m->k, R = ks->record_size;
    int bad = 0;
    size_t bad_src = 0;
    uint64_t bad_idx = 0;
    for (size_t b = 0; b < P; ++b) {
        if (part[b].bad && (!bad || part[b].bad_src < bad_src ||
                            (part[b].bad_src == bad_src && part[b].bad_idx < bad_idx))) {
            bad = 1;
            bad_src = part[b].bad_src;
            bad_idx = part[b].bad_idx;
        }
    }
    for (size_t b = 1; m->disorder && b < P; ++b) {
        for (size_t s = 0; s < k; ++s) {
            const uint64_t c = cut[b * k + s];
            if (c == 0 || c >= len[s] / R)
                continue;
            if (cli_record_cmp(ks, data[s] + (c - 1) * R, data[s] + c * R) > 0 &&
                (!bad || s < bad_src || (s == bad_src && c < bad_idx))) {
                bad = 1;
                bad_src = s;
                bad_idx = c;
            }
        }
    }
    *bad_src_out = bad_src;
    *bad_idx_out = bad_idx;
    return bad;
}

int cli_pmerge(const cli_merge_spec *m, const unsigned char *const *data, const uint64_t *len,
               cli_writer *out, unsigned threads, cli_pmerge_info *info)
{
    const cli_keyspec *const ks = m->ks;
    const size_t k = m->k, R = ks->record_size;
    uint64_t T = 0;
    for (size_t s = 0; s < k; ++s)
        T += len[s] / R;
    if (threads > PM_MAX_THREADS)
        threads = PM_MAX_THREADS;
    size_t P = threads;
    if (P > T / PM_MIN_PART_RECORDS)
        P = (size_t)(T / PM_MIN_PART_RECORDS);
    if (ks->unique || P < 2 || k < 1 || (!out->mem && !cli_writer_seekable(out)))
        return CLI_PMERGE_NOT_HERE;
    int rc = cli_writer_flush(out);
    if (rc != CLI_EXIT_OK)
        return rc;
    const int vector = cli_vecmerge_applies(ks, k);
    if (info) {
        info->parts = (unsigned)P;
        info->vector = vector;
    }

    /* The parts report nothing as they go (each its own loser tree or vector merge): the line
     * shows the stage and its elapsed time until the end. */
    if (m->phase)
        cli_progress_update(m->phase, 0, 0);
    rc = CLI_EXIT_IO;
    const size_t per = PM_SAMPLES_PER_PART * P; /* samples of each source, at most */
    pm_sample *const sm = malloc(k * per * sizeof *sm);
    uint64_t *const cut = calloc((P + 1) * k, sizeof *cut); /* cut[b * k + s] */
    pm_part *const part = calloc(P, sizeof *part);
    const unsigned char **const pdata = calloc(P * k, sizeof *pdata);
    size_t *const plen = calloc(P * k, sizeof *plen);
    unsigned char *const given = calloc(P * k, 1);
    pthread_t *const th = calloc(P, sizeof *th);
    int *const started = calloc(P, sizeof *started);
    cli_wmap wm = { 0 };
    if (!sm || !cut || !part || !pdata || !plen || !given || !th || !started) {
        cli_error("out of host memory for the merge");
        goto done;
    }
    pm_find_cuts(ks, data, len, k, P, per, T, sm, cut);
    uint64_t off = 0;
    for (size_t b = 0; b < P; ++b) {
        pm_part *const p = &part[b];
        p->m = m;
        p->out = out;
        p->out_off = off;
        p->data = pdata + b * k;
        p->len = plen + b * k;
        p->given = given + b * k;
        p->start = cut + b * k;
        for (size_t s = 0; s < k; ++s) {
            const uint64_t a = cut[b * k + s], e = cut[(b + 1) * k + s];
            p->data[s] = data[s] + a * R;
            p->len[s] = (size_t)((e - a) * R);
            off += (e - a) * R;
        }
        p->bytes = off - p->out_off;
    }
    /* The parts allocate their blocks as they go (a lazy mapping): on tmpfs that is one core's
     * work of about 0.1 s a GiB, which would otherwise come before any part starts. */
    const int into_map = !out->mem && cli_writer_map_lazy(out, off, &wm) != NULL;
    for (size_t b = 0; b < P; ++b) {
        part[b].wm = into_map ? &wm : NULL;
        part[b].vector = vector;
    }
    if (info)
        info->mapped = into_map;
    for (size_t b = 1; b < P; ++b)
        started[b] = pthread_create(&th[b], NULL, pm_part_main, &part[b]) == 0;
    pm_part_main(&part[0]);
    for (size_t b = 1; b < P; ++b) {
        if (started[b])
            pthread_join(th[b], NULL);
        else
            pm_part_main(&part[b]);
    }
    size_t bad_src = 0;
    uint64_t bad_idx = 0;
    const int bad = pm_first_disorder(m, data, len, cut, part, P, &bad_src, &bad_idx);
    if (bad) {
        rc = m->disorder(m->user, bad_src, bad_idx);
        goto done;
    }
    rc = CLI_EXIT_OK;
    for (size_t b = 0; b < P && rc == CLI_EXIT_OK; ++b)
        rc = part[b].rc;
    if (rc != CLI_EXIT_OK)
        goto done;
    if (m->phase)
        cli_progress_update(m->phase, off, off);
    if (out->mem)
        out->written += off;
    else {
        cli_writer_unmap(out, &wm, 1);
        rc = cli_writer_advance(out, off, 0);
    }
done:
    cli_writer_unmap(out, &wm, 0); /* a disorder or a part that failed (nothing if none) */
    free(sm);
    free(cut);
    free(part);
    free(pdata);
    free(plen);
    free(given);
    free(th);
    free(started);
    return rc;
}

static const unsigned char pmerge_empty[1];

int cli_pmerge_maps_init(cli_pmerge_maps *m, size_t k)
{
    m->k = k;
    m->data = calloc(k ? k : 1, sizeof *m->data);
    m->len = calloc(k ? k : 1, sizeof *m->len);
    m->map = calloc(k ? k : 1, sizeof *m->map);
    if (!m->data || !m->len || !m->map) {
        cli_pmerge_maps_release(m);
        return -1;
    }
    for (size_t i = 0; i < k; ++i)
        m->data[i] = pmerge_empty;
    return 0;
}

int cli_pmerge_map(cli_pmerge_maps *m, size_t i, int fd, uint64_t len)
{
    m->len[i] = len;
    if (len == 0)
        return 0;
    void *p = mmap(NULL, (size_t)len, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        return -1;
    m->map[i] = p;
    m->data[i] = p;
    return 0;
}

void cli_pmerge_maps_release(cli_pmerge_maps *m)
{
    for (size_t i = 0; m->map && i < m->k; ++i)
        if (m->map[i])
            munmap(m->map[i], (size_t)m->len[i]);
    free(m->data);
    free(m->len);
    free(m->map);
    m->data = NULL;
    m->len = NULL;
    m->map = NULL;
}
