/* clsort_mergefiles.c - the k-way merge of -m over the input files themselves: the loser tree of
 * clsort_losertree.c over each input's current record, ties broken by input position (so the
 * merge is stable: equal records come out in the order of the files on the command line), and an
 * order check of each input against its own previous record as it streams by.
 *
 * The output goes through the same writer as a sort (temporary file, fsync, rename; removed on
 * error or signal), and the same guard (clsort_guard.h) when it replaces an input. */
#include "clsort_mergefiles.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clsort_fileio.h"
#include "clsort_guard.h"
#include "clsort_losertree.h"
#include "clsort_messages.h"
#include "clsort_pmerge.h"
#include "clsort_progress.h"
#include "clsort_records.h"
#include "clsort_request.h"
#include "clsort_units.h"

#define OUT_BUF_BYTES ((size_t)4 << 20)

typedef struct merge_src {
    cli_input in;
    int open;
    unsigned char *buf;
    size_t cap;             /* bytes */
    size_t R;               /* the record size */
} merge_src;

/* The merge's source callback: the next buffer of input `i`. */
static int src_pull(void *user, size_t i, const unsigned char **data, size_t *len)
{
    merge_src *const s = &((merge_src *)user)[i];
    const size_t R = s->R;
    *data = s->buf;
    *len = 0;
    const int64_t got = cli_input_read(&s->in, s->buf, s->cap);
    if (got < 0)
        return CLI_EXIT_IO;
    if ((size_t)got % R != 0) {
        cli_error("%s: size %llu is not a multiple of the record size %zu", s->in.name,
                  (unsigned long long)(s->in.consumed - s->in.file_start), R);
        return CLI_EXIT_IO;
    }
    *len = (size_t)got;
    return CLI_EXIT_OK;
}

/* The order check's message: record `index` of input `i` sorts before the one ahead of it. */
static int src_disorder(void *user, size_t i, uint64_t index)
{
    const merge_src *const s = &((const merge_src *)user)[i];
    cli_error("%s: disorder at record %llu (byte offset %llu): --merge needs sorted inputs "
              "(sort it first, or --no-check)",
              s->in.name, (unsigned long long)index,
              (unsigned long long)(index * s->R));
    return CLI_EXIT_IO;
}

/* Inputs that are all regular files are mapped and merged on every core (clsort_pmerge.c): the
 * merge reads them at memory speed, and each part of the output is written at its offset. A file
 * cut short by another process while it is mapped ends clsort with SIGBUS; the output is a
 * temporary file then, never renamed (and unnamed where Linux allows, so nothing is left).
 * Returns CLI_PMERGE_NOT_HERE when it does not apply (nothing printed, nothing written). */
static int merge_mapped(const cli_merge_spec *spec, merge_src *src, size_t k, cli_writer *out,
                        cli_pmerge_info *info)
{
    const size_t R = spec->ks->record_size;
    const unsigned threads = cli_pmerge_threads();
    if (threads < 2 || spec->ks->unique || !cli_writer_seekable(out))
        return CLI_PMERGE_NOT_HERE;
    for (size_t i = 0; i < k; ++i)
        if (!src[i].in.is_regular || !src[i].in.path)
            return CLI_PMERGE_NOT_HERE;
    cli_pmerge_maps m;
    if (cli_pmerge_maps_init(&m, k) != 0) {
        cli_error("out of host memory for the merge");
        return CLI_EXIT_IO;
    }
    int rc = CLI_EXIT_IO;
    for (size_t i = 0; i < k; ++i) {
        merge_src *const s = &src[i];
        struct stat st;
        /* The read-fault hook of the tests sees the whole file read at once. */
        if (cli_test_read_fault(s->in.path, 0, (size_t)s->in.size) != 0 ||
            fstat(s->in.fd, &st) != 0) {
            cli_error("%s: read error: %s", s->in.name, strerror(errno));
            goto done;
        }
        const uint64_t len = (uint64_t)st.st_size;
        if (len % R != 0) {
            cli_error("%s: size %llu is not a multiple of the record size %zu", s->in.name,
                      (unsigned long long)len, R);
            goto done;
        }
        if (cli_pmerge_map(&m, i, s->in.fd, len) != 0) {
            rc = CLI_PMERGE_NOT_HERE; /* too large to map, say: read it instead */
            goto done;
        }
    }
    rc = cli_pmerge(spec, m.data, m.len, out, threads, info);
done:
    cli_pmerge_maps_release(&m);
    return rc;
}

/* Descriptors kept free beside a round's inputs: the standard three, the output, the stderr
 * capture and whatever the C library and the kernel's files take. */
#define FD_RESERVE 16

/* How many inputs one merge may hold open at once: the descriptor limit (ulimit -n) less a
 * reserve. */
static size_t merge_fan_in(void)
{
    size_t n = 1024;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        n = rl.rlim_cur > FD_RESERVE + 4 ? (size_t)rl.rlim_cur - FD_RESERVE : 4;
    return n;
}

/* Gives each of the k opened inputs its read buffer: bounded in all (64 MiB, or -S), between the
 * two bounds each, no more than a small file needs. Returns CLI_EXIT_OK or CLI_EXIT_IO. */
static int alloc_buffers(const cli_opts *o, merge_src *src, size_t k)
{
    const size_t R = o->record_size;
    size_t budget = CLI_MERGE_READ_TOTAL;
    if (o->buffer_size && o->buffer_size < budget)
        budget = (size_t)o->buffer_size;
    const size_t cap = cli_merge_read_share(budget, k, R);
    for (size_t i = 0; i < k; ++i) {
        merge_src *const s = &src[i];
        s->R = R;
        /* A small file needs no more buffer than its size (plus one byte, to see its end). */
        s->cap = s->in.is_regular && s->in.size < cap ? (size_t)(s->in.size / R + 1) * R : cap;
        s->buf = cli_malloc(s->cap, "a merge buffer");
        if (!s->buf)
            return CLI_EXIT_IO;
    }
    return CLI_EXIT_OK;
}

static void free_sources(merge_src *src, size_t k)
{
    for (size_t i = 0; src && i < k; ++i) {
        if (src[i].open)
            cli_input_close(&src[i].in);
        free(src[i].buf);
    }
    free(src);
}

/* One merge of `k` inputs into `out`: named files (paths[i], NULL: standard input) or, where fds
 * is not NULL, the earlier round's runs (fds[i], read from their start; the caller closes them).
 * `check`: verify each input's order. *total gets the bytes merged. Returns a CLI_EXIT_* code. */
static int merge_group(const cli_opts *o, const cli_keyspec *ks, const char *const *paths,
                       const int *fds, size_t k, int check, cli_writer *out, cli_pmerge_info *how,
                       uint64_t *total)
{
    merge_src *const src = calloc(k, sizeof *src);
    int rc = CLI_EXIT_IO;
    *total = 0;
    if (!src) {
        cli_error("out of host memory for the merge");
        return CLI_EXIT_IO;
    }
    for (size_t i = 0; i < k; ++i) {
        if ((fds ? cli_input_open_fd(&src[i].in, fds[i], "a merged round (see -T)")
                 : cli_input_open(&src[i].in, paths[i])) != CLI_EXIT_OK)
            goto done;
        src[i].open = 1;
        *total += src[i].in.size;
    }
    if (alloc_buffers(o, src, k) != CLI_EXIT_OK)
        goto done;
    const cli_merge_spec spec = { ks, k, src_pull, src, check ? src_disorder : NULL, "merging",
                                  *total };
    rc = merge_mapped(&spec, src, k, out, how);
    if (rc == CLI_PMERGE_NOT_HERE)
        rc = cli_merge_sources(&spec, out);
done:
    free_sources(src, k);
    return rc;
}

/* More inputs than may be open at once: as GNU sort -m, groups of consecutive inputs are merged
 * into runs (anonymous files under -T), which the caller then merges. Groups of consecutive
 * inputs keep the order of equal records (and which one -u keeps): within a group by input
 * position, and the runs are in the groups' order. Sets *runs (malloc'ed fds) and *nruns.
 * Returns CLI_EXIT_OK or a CLI_EXIT_* code after printing. */
static int merge_rounds(const cli_opts *o, const cli_keyspec *ks, size_t fan_in, int **runs,
                        size_t *nruns)
{
    const size_t k = o->ninputs, group = fan_in / 2 > 2 ? fan_in / 2 : 2;
    const size_t n = (k + group - 1) / group;
    if (n + 1 > fan_in) {
        cli_error("%zu inputs: more than %zu can be merged with %zu open files (raise ulimit -n)",
                  k, group * (fan_in - 1), fan_in + FD_RESERVE);
        return CLI_EXIT_IO;
    }
    int *const fds = malloc(n * sizeof *fds);
    if (!fds) {
        cli_error("out of host memory for the merge");
        return CLI_EXIT_IO;
    }
    size_t done = 0;
    int rc = CLI_EXIT_OK;
    for (size_t g = 0; g < n && rc == CLI_EXIT_OK; ++g) {
        const size_t first = g * group, count = k - first < group ? k - first : group;
        cli_writer run;
        const char *dir = o->tmpdir ? o->tmpdir : "/tmp";
        rc = cli_writer_open_run(&run, dir, OUT_BUF_BYTES);
        if (rc != CLI_EXIT_OK)
            break;
        cli_pmerge_info how = { 1, 0, 0 };
        uint64_t total;
        rc = merge_group(o, ks, o->inputs + first, NULL, count, !o->no_check, &run, &how, &total);
        if (rc == CLI_EXIT_OK)
            rc = cli_writer_commit(&run, &fds[done]);
        else
            cli_writer_abort(&run);
        if (rc == CLI_EXIT_OK)
            ++done;
    }
    if (rc != CLI_EXIT_OK) {
        for (size_t i = 0; i < done; ++i)
            close(fds[i]);
        free(fds);
        return rc;
    }
    cli_info(2, "merge  %zu inputs in %zu rounds of up to %zu (ulimit -n), then the rounds", k,
             n, group);
    *runs = fds;
    *nruns = n;
    return CLI_EXIT_OK;
}

/* -v's line about the merge. */
static void report_merge(const cli_opts *o, size_t k, uint64_t total, uint64_t merge_ns,
                         const cli_pmerge_info *how, const cli_writer *out)
{
    char a[32], b[32];
    cli_progress_clear();
    cli_info(2, "merge  %zu inputs, %s in %.3f s (%s) in %u part%s%s%s; write %s%.3f s", k,
             cli_format_size(a, sizeof a, total), (double)merge_ns / 1e9,
             cli_format_rate(b, sizeof b, total, merge_ns), how->parts, how->parts == 1 ? "" : "s",
             how->parts == 1 ? ""
             : how->mapped   ? " on as many threads (mapped inputs and output"
                             : " on as many threads (mapped inputs",
             how->parts == 1 ? "" : how->vector ? ", vector merge)" : ")",
             o->no_fsync ? "" : "and sync ", (double)out->write_ns / 1e9);
    if (o->no_fsync)
        cli_info(2, CLI_SYNC_SKIPPED_REPORT);
}

int cli_merge_inputs(const cli_opts *o)
{
    cli_keyspec ks;
    cli_keyspec_from_opts(&ks, o);
    const size_t k = o->ninputs, fan_in = merge_fan_in();
    cli_guard guard;
    cli_writer out;
    int *runs = NULL;
    size_t nruns = 0;
    const uint64_t t0 = cli_now_ns();

    int rc = cli_guard_prepare(&guard, o->inputs, k, o->record_size);
    if (rc != CLI_EXIT_OK)
        return rc;
    /* The output is opened after the rounds: it takes a descriptor of its own. */
    if (k > fan_in && (rc = merge_rounds(o, &ks, fan_in, &runs, &nruns)) != CLI_EXIT_OK)
        goto done;
    rc = cli_writer_open_output(&out, o->output, o->input, OUT_BUF_BYTES, o->no_fsync);
    if (rc != CLI_EXIT_OK)
        goto done;
    cli_guard_attach(&guard, &out);
    cli_pmerge_info how = { 1, 0, 0 };
    uint64_t total;
    rc = runs ? merge_group(o, &ks, NULL, runs, nruns, 0, &out, &how, &total)
              : merge_group(o, &ks, o->inputs, NULL, k, !o->no_check, &out, &how, &total);
    if (rc != CLI_EXIT_OK) {
        cli_writer_abort(&out);
        goto done;
    }
    const uint64_t merge_ns = cli_now_ns() - t0;
    cli_progress_update("syncing", 0, 0);
    rc = cli_writer_commit(&out, NULL);
    if (rc == CLI_EXIT_OK && cli_display_level >= 2)
        report_merge(o, k, total, merge_ns, &how, &out);

done:
    cli_progress_clear();
    for (size_t i = 0; i < nruns; ++i)
        close(runs[i]);
    free(runs);
    cli_guard_free(&guard);
    return rc;
}
