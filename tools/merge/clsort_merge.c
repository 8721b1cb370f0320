/* clsort_merge.c - the runs of an external sort and their k-way merge: the loser tree of
 * clsort_losertree.c over each run's current record, ties broken by run position so that the
 * merged order is the stable order.
 *
 * Runs are anonymous files (unlinked as soon as they are created), so they vanish with the process
 * however it ends; to keep the number of open runs bounded, the last F runs of one level are merged
 * into one run of the next level as soon as there are F of them (F from the open-file limit). */
#include "clsort_merge.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "clsort_losertree.h"
#include "clsort_messages.h"
#include "clsort_pmerge.h"
#include "clsort_units.h"

/* Descriptors open right now: /proc/self/fd where there is one, else a probe of the low ones. */
static size_t open_descriptors(size_t limit)
{
    size_t n = 0;
    DIR *d = opendir("/proc/self/fd");
    if (d) {
        for (const struct dirent *e; (e = readdir(d));)
            n += e->d_name[0] != '.';
        closedir(d);
        return n ? n - 1 : 0; /* not the directory's own descriptor */
    }
    for (int fd = 0; (size_t)fd < limit && fd < 4096; ++fd)
        n += fcntl(fd, F_GETFD) != -1;
    return n;
}

/* Runs may take half of the descriptors that are left: the other half (and a reserve of 16) is
 * for the merge's output, its read-back and whatever the OpenCL driver opens later. Counted when
 * the first run arrives, after the device is open: a GPU driver holds tens of descriptors. */
static size_t choose_fan_in(void)
{
    struct rlimit rl;
    size_t f = 64;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        const size_t lim = (size_t)rl.rlim_cur, used = open_descriptors(lim) + 16;
        const size_t avail = lim > used ? (lim - used) / 2 : 0;
        if (avail < f)
            f = avail;
    }
    return f < 2 ? 2 : f;
}

/* Whether the open-file limit is nearly used up (fewer than 6 descriptors left: the next run,
 * an intermediate merge's output and what the OpenCL runtime opens later). Counted only under a
 * small limit, where the counting is cheap and the levels' runs can exhaust it. */
static int descriptors_short(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > 4096)
        return 0;
    const size_t lim = (size_t)rl.rlim_cur, used = open_descriptors(lim);
    return lim < used + 6;
}

typedef struct run_reader {
    int fd;
    uint64_t off, size;
    unsigned char *buf;
    size_t cap;
} run_reader;

typedef struct run_pull {
    run_reader *rd;
    const char *dir;
} run_pull;

/* The merge's source callback: the next buffer of run `src`, read back from its file. */
static int run_pull_next(void *user, size_t src, const unsigned char **data, size_t *len)
{
    const run_pull *const p = user;
    run_reader *const r = &p->rd[src];
    const uint64_t left = r->size - r->off;
    const size_t want = left < r->cap ? (size_t)left : r->cap;
    *data = r->buf;
    *len = 0;
    if (want == 0)
        return CLI_EXIT_OK;
    const int64_t got = cli_pread_full(r->fd, r->buf, want, r->off);
    if (got < 0 || (size_t)got != want) {
        cli_error("%s: cannot read back a temporary run: %s", p->dir,
                  got < 0 ? strerror(errno) : "file shorter than written");
        return CLI_EXIT_IO;
    }
    r->off += want;
    *len = want;
    return CLI_EXIT_OK;
}

/* The runs mapped and merged on every core (clsort_pmerge.c), each part of the output written at
 * its offset. Returns CLI_PMERGE_NOT_HERE when that does not apply or a run cannot be mapped. */
static int merge_runs_mapped(cli_run_set *x, cli_run *runs, size_t k, cli_writer *out)
{
    const unsigned threads = cli_pmerge_threads();
    if (threads < 2 || x->ks.unique || !cli_writer_seekable(out))
        return CLI_PMERGE_NOT_HERE;
    cli_pmerge_maps m;
    if (cli_pmerge_maps_init(&m, k) != 0)
        return CLI_PMERGE_NOT_HERE;
    int rc = CLI_PMERGE_NOT_HERE;
    uint64_t total = 0;
    for (size_t i = 0; i < k; ++i) {
        total += runs[i].bytes;
        if (cli_pmerge_map(&m, i, runs[i].fd, runs[i].bytes) != 0)
            goto done;
    }
    const cli_merge_spec spec = { &x->ks, k, NULL, NULL, NULL,
                                  out->keep_open ? "merging runs" : "merging", total };
    cli_pmerge_info how = { 0, 0, 0 };
    rc = cli_pmerge(&spec, m.data, m.len, out, threads, &how);
    if (rc == CLI_EXIT_OK)
        x->merge_how = how;
done:
    cli_pmerge_maps_release(&m);
    if (rc != CLI_PMERGE_NOT_HERE) {
        for (size_t i = 0; i < k; ++i) {
            close(runs[i].fd);
            runs[i].fd = -1;
        }
        x->merged_bytes += total;
    }
    return rc;
}

/* Merges runs[0..k) into `out` (the loser tree of clsort_losertree.c; runs are in input order and
 * ties go to the earlier run, which keeps the merge stable) and closes them, which frees their
 * space. On every core where it can (merge_runs_mapped). */
static int merge_runs(cli_run_set *x, cli_run *runs, size_t k, cli_writer *out)
{
    const cli_keyspec *const ks = &x->ks;
    const uint64_t t_mapped = cli_now_ns();
    const int mrc = merge_runs_mapped(x, runs, k, out);
    if (mrc != CLI_PMERGE_NOT_HERE) {
        x->merge_ns += cli_now_ns() - t_mapped;
        return mrc;
    }
    const size_t R = ks->record_size;
    const uint64_t t0 = cli_now_ns();
    const size_t rcap = cli_merge_read_share(x->read_budget, k, R);
    run_reader *const rd = calloc(k ? k : 1, sizeof *rd);
    int rc = CLI_EXIT_IO;
    uint64_t total = 0;
    if (!rd) {
        cli_error("out of host memory for the merge");
        goto fail;
    }
    for (size_t i = 0; i < k; ++i) {
        rd[i].fd = runs[i].fd;
        rd[i].size = runs[i].bytes;
        total += runs[i].bytes;
        if (runs[i].bytes == 0)
            continue;
        rd[i].cap = runs[i].bytes < rcap ? (size_t)runs[i].bytes : rcap;
        rd[i].buf = cli_malloc(rd[i].cap, "a merge buffer");
        if (!rd[i].buf)
            goto fail;
    }
    run_pull pull = { rd, x->tmpdir };
    const cli_merge_spec spec = { ks, k, run_pull_next, &pull, NULL,
                                  out->keep_open ? "merging runs" : "merging", total };
    rc = cli_merge_sources(&spec, out);
fail:
    if (rd) {
        for (size_t i = 0; i < k; ++i)
            free(rd[i].buf);
    }
    free(rd);
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
    if (!x->fan_in)
        x->fan_in = choose_fan_in();
    /* Keep the number of open runs logarithmic: F runs of one level become one of the next. */
    for (;;) {
        const unsigned level = x->runs[x->nruns - 1].level;
        size_t same = 0;
        while (same < x->nruns && x->runs[x->nruns - 1 - same].level == level)
            ++same;
        if (same < x->fan_in)
            break;
        const int rc = merge_tail(x, x->fan_in);
        if (rc != CLI_EXIT_OK)
            return rc;
    }
    /* Under a tight open-file limit (ulimit -n 16) even a fan-in of 2 keeps one run open per
     * level, and the levels grow with the input: when the descriptors run short, every open
     * run becomes one, whatever its level, so that the sort goes on (issue 25). */
    if (x->nruns >= 2 && descriptors_short())
        return merge_tail(x, x->nruns);
    return CLI_EXIT_OK;
}

int cli_runs_add_chunk(cli_run_set *s, const char *tmpdir, const cli_keyspec *ks,
                       const cli_chunk *c, size_t buf_size, uint64_t *bytes, uint64_t *write_ns)
{
    cli_writer w;
    int rc = cli_writer_open_run(&w, tmpdir, buf_size);
    if (rc != CLI_EXIT_OK)
        return rc;
    rc = cli_chunk_write(&w, ks, c);
    if (rc != CLI_EXIT_OK) {
        cli_writer_abort(&w);
        return rc;
    }
    int fd = -1;
    const uint64_t size = w.written + w.len;
    rc = cli_writer_commit(&w, &fd);
    if (write_ns)
        *write_ns = w.write_ns;
    if (bytes)
        *bytes = size;
    return rc != CLI_EXIT_OK ? rc : cli_runs_add(s, fd, size);
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
    s->fan_in = 0; /* chosen when the first run arrives (cli_runs_add) */
    s->read_budget = CLI_MERGE_READ_TOTAL;
}

int cli_runs_merge(cli_run_set *s, cli_writer *out)
{
    if (!s->fan_in)
        s->fan_in = choose_fan_in();
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
