/* mpi_main.c - clsort-mpi: a sample sort of one file by many MPI ranks, each sorting on an OpenCL
 * device with the library (docs/distributed.md). The phases, each ended by an agreement of all
 * ranks on success (mpi_agree) so that one failing rank stops them all with one line:
 *   1. rank 0 opens the output (-o, required) as clsort does (a temporary file beside it), every
 *      rank its device;
 *   2. each rank reads a slice of the input with MPI-IO and sorts it on its device, ties in input
 *      order (clsort's record code);
 *   3. regular samples give size-1 splitters, and MPI_Alltoallw sends every record to the rank of
 *      its key range (mpi_exchange.c);
 *   4. each rank merges what it received and writes it with MPI-IO at the offset that an exclusive
 *      scan of the byte counts gives; rank 0 renames the file into place when all have finished. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <mpi.h>

#include "clsort.h"
#include "clsort_fileio.h"
#include "clsort_messages.h"
#include "clsort_records.h"
#include "clsort_signals.h"
#include "clsort_units.h"
#include "mpi_args.h"
#include "mpi_device.h"
#include "mpi_exchange.h"
#include "mpi_io.h"
#include "mpi_job.h"
#include "mpi_messages.h"

/* What one rank did, for -v. */
enum { T_READ, T_SORT, T_SPLIT, T_EXCHANGE, T_MERGE, T_WRITE, T_TOTAL, T_COUNT };
static const char *const phase_names[T_COUNT] = { "read", "sort", "splitters", "exchange",
                                                  "merge", "write", "total" };

static void print_summary(const mpi_job *job, const mpi_opts *o, uint64_t n, uint64_t n_local,
                          uint64_t n_recv, const double *t)
{
    const int P = job->size;
    uint64_t mine[2] = { n_local, n_recv };
    uint64_t *const all = job->rank == 0 ? malloc((size_t)P * 2 * sizeof *all) : NULL;
    double tmax[T_COUNT];
    /* Collective whatever the display level, so that every rank calls the same functions. */
    MPI_Gather(mine, 2, MPI_UINT64_T, all, 2, MPI_UINT64_T, 0, job->comm);
    MPI_Reduce(t, tmax, T_COUNT, MPI_DOUBLE, MPI_MAX, 0, job->comm);
    if (job->rank != 0 || cli_display_level < 2 || !all) {
        free(all);
        return;
    }
    cli_info(2, "%d rank%s, %llu records of %zu bytes, %s key at offset %zu, %s%s", P,
             P == 1 ? "" : "s", (unsigned long long)n, o->record_size, clsort_type_name(o->type),
             o->key_offset, o->reverse ? "descending" : "ascending", o->stable ? ", stable" : "");
    char line[4096];
    for (int which = 0; which < 2; ++which) {
        size_t len = 0;
        uint64_t most = 0;
        for (int r = 0; r < P; ++r) {
            const uint64_t v = all[2 * r + which];
            if (v > most)
                most = v;
            if (len < sizeof line - 32)
                len += (size_t)snprintf(line + len, sizeof line - len, " %llu",
                                        (unsigned long long)v);
        }
        const double mean = (double)n / P;
        cli_info(2, "records per rank %s:%s (largest %.3f x the mean)",
                 which ? "after the exchange" : "read", line, mean > 0 ? (double)most / mean : 1.0);
    }
    char a[32];
    for (int i = 0; i < T_COUNT; ++i)
        cli_info(2, "%-10s %.3f s (slowest rank)%s%s", phase_names[i], tmax[i],
                 i == T_TOTAL ? ", " : "",
                 i == T_TOTAL ? cli_format_rate(a, sizeof a, n * o->record_size,
                                                (uint64_t)(tmax[i] * 1e9))
                              : "");
    free(all);
}

/* Puts the chunk's records in their sorted order in one buffer: the records themselves when they
 * were sorted directly, else a copy gathered through the sorted indices. */
static unsigned char *take_sorted(cli_chunk *c, const cli_keyspec *ks)
{
    unsigned char *out;
    if (c->idx_size == 0 || c->n < 2) {
        out = c->recs;
        c->recs = NULL;
    } else {
        const size_t R = ks->record_size;
        out = cli_malloc(c->n * R, "sorted records");
        if (!out)
            return NULL;
        for (size_t i = 0; i < c->n; ++i) {
            const uint64_t j = c->idx_size == 4 ? ((const uint32_t *)c->idx)[i]
                                                : ((const uint64_t *)c->idx)[i];
            memcpy(out + i * R, c->recs + j * R, R);
        }
    }
    cli_chunk_free(c);
    return out;
}

/* What one rank holds while it sorts the file: what the failure path releases, and the counts
 * and times for the summary. Each phase below ends with the ranks' agreement (mpi_agree) and
 * returns its outcome, so that all ranks run the same collectives or stop together. */
typedef struct rank_run {
    double t[T_COUNT];
    cli_writer out; /* rank 0: the output, written under a temporary name */
    int out_open;
    char tmp_path[PATH_MAX + 1];
    clsort_ctx *ctx;
    MPI_File in, outf;
    cli_chunk chunk;
    unsigned char *sorted, *recv, *merged;
    uint64_t *counts; /* send counts, then receive counts: 2 * P */
    uint64_t n, first, n_local;
    size_t n_recv;
} rank_run;

static double seconds_since(uint64_t t0)
{
    return (double)(cli_now_ns() - t0) / 1e9;
}

/* 1a. MPI-IO reads files; refuse anything else as clsort would. Rank 0 opens the output as
 * clsort does (a temporary file beside it). */
static int open_output(mpi_job *job, const mpi_opts *o, rank_run *s)
{
    int rc = s->counts ? CLI_EXIT_OK : CLI_EXIT_IO;
    struct stat st;
    if (rc == CLI_EXIT_OK && stat(o->input, &st) != 0) {
        cli_error("%s: cannot open input: %s", o->input, strerror(errno));
        rc = CLI_EXIT_IO;
    } else if (rc == CLI_EXIT_OK && !S_ISREG(st.st_mode)) {
        cli_error("%s: cannot read input: not a regular file (clsort-mpi reads files with MPI-IO)",
                  o->input);
        rc = CLI_EXIT_IO;
    }
    if ((rc = mpi_agree(job, rc)) != CLI_EXIT_OK)
        return rc;
    if (job->rank == 0) {
        /* Always durable: clsort-mpi has no --no-fsync (clsort's option, issue 28). */
        rc = cli_writer_open_output(&s->out, o->output, o->input, 4096, 0);
        if (rc == CLI_EXIT_OK) {
            s->out_open = 1;
            if (!s->out.tmp_path || strlen(s->out.tmp_path) > PATH_MAX) {
                cli_error("%s: clsort-mpi writes a regular file, not a device or a pipe",
                          s->out.name);
                rc = CLI_EXIT_IO;
            } else {
                snprintf(s->tmp_path, sizeof s->tmp_path, "%s", s->out.tmp_path);
            }
        }
    }
    return mpi_agree(job, rc);
}

/* 1b. Every rank learns the temporary output's name, and opens its device (its index among the
 * ranks of its host picks it), refused for f64 keys without double precision. */
static int open_device(mpi_job *job, const mpi_opts *o, int local_rank, rank_run *s)
{
    int rc = CLI_EXIT_OK;
    const int mrc = MPI_Bcast(s->tmp_path, (int)sizeof s->tmp_path, MPI_CHAR, 0, job->comm);
    if (mrc != MPI_SUCCESS)
        rc = mpi_report(mrc, "MPI_Bcast of the output's name");
    char used[256] = "";
    if (rc == CLI_EXIT_OK)
        rc = mpi_device_open(o->device, local_rank, &s->ctx, used, sizeof used);
    clsort_device_info di;
    if (rc == CLI_EXIT_OK && clsort_get_device_info(s->ctx, &di) == CLSORT_OK) {
        cli_info(2, "device %u:%u %s (%s, %s; from '%s')", di.platform_index,
                 di.device_index, di.name, di.type, di.platform, used);
        if (o->type == CLSORT_F64 && !di.has_fp64) {
            cli_error("device %s has no double precision (fp64): f64 keys cannot be sorted there",
                      di.name);
            rc = CLI_EXIT_DEVICE;
        }
    }
    return mpi_agree(job, rc);
}

/* 2a. This rank's slice: records [n*r/P, n*(r+1)/P), read with MPI-IO into a chunk. */
static int read_slice(mpi_job *job, const mpi_opts *o, rank_run *s)
{
    const uint64_t t0 = cli_now_ns();
    const size_t R = o->record_size;
    const uint64_t P = (uint64_t)job->size, me = (uint64_t)job->rank;
    int rc = CLI_EXIT_OK;
    int mrc = MPI_File_open(job->comm, o->input, MPI_MODE_RDONLY, MPI_INFO_NULL, &s->in);
    if (mrc != MPI_SUCCESS) {
        char what[PATH_MAX + 64];
        snprintf(what, sizeof what, "%s: cannot open input (MPI_File_open)", o->input);
        rc = mpi_report(mrc, what);
        s->in = MPI_FILE_NULL;
    }
    if ((rc = mpi_agree(job, rc)) != CLI_EXIT_OK)
        return rc;
    MPI_Offset size = 0;
    mrc = MPI_File_get_size(s->in, &size);
    if (mrc != MPI_SUCCESS) {
        rc = mpi_report(mrc, "MPI_File_get_size");
    } else if ((uint64_t)size % R != 0) {
        cli_error("%s: size %llu is not a multiple of the record size %zu (%llu bytes left over)",
                  o->input, (unsigned long long)size, R, (unsigned long long)((uint64_t)size % R));
        rc = CLI_EXIT_IO;
    } else {
        s->n = (uint64_t)size / R;
        s->first = s->n * me / P;
        s->n_local = s->n * (me + 1) / P - s->first;
        if (s->n_local > SIZE_MAX / R) {
            cli_error("%llu records do not fit in this rank's address space (use more ranks)",
                      (unsigned long long)s->n_local);
            rc = CLI_EXIT_IO;
        } else {
            rc = cli_chunk_alloc(&s->chunk, &job->ks, (size_t)s->n_local);
        }
    }
    if ((rc = mpi_agree(job, rc)) != CLI_EXIT_OK)
        return rc;
    rc = mpi_io_read(job, s->in, o->input, s->first * R, s->chunk.recs, s->n_local * R);
    s->chunk.n = (size_t)s->n_local;
    MPI_File_close(&s->in);
    s->t[T_READ] = seconds_since(t0);
    return mpi_agree(job, rc);
}

/* 2b. The slice sorted on the device, ties in input order (clsort's record code); the device's
 * part is then done, and its memory freed for others. */
static int sort_slice(mpi_job *job, const mpi_opts *o, rank_run *s)
{
    const uint64_t t0 = cli_now_ns();
    cli_sort_stats stats;
    memset(&stats, 0, sizeof stats);
    int rc = cli_chunk_sort(s->ctx, &job->ks, o->algorithm, o->stable, &s->chunk, &stats);
    if (rc == CLI_EXIT_OK && !(s->sorted = take_sorted(&s->chunk, &job->ks)))
        rc = CLI_EXIT_IO;
    s->t[T_SORT] = seconds_since(t0);
    if ((rc = mpi_agree(job, rc)) != CLI_EXIT_OK)
        return rc;
    clsort_destroy(s->ctx);
    s->ctx = NULL;
    return CLI_EXIT_OK;
}

/* 3. Regular samples give size-1 splitters, and every record goes to the rank of its key range
 * (mpi_exchange.c). */
static int exchange_slices(mpi_job *job, rank_run *s)
{
    uint64_t t0 = cli_now_ns();
    uint64_t *const send_counts = s->counts, *const recv_counts = s->counts + job->size;
    int rc = mpi_choose_splits(job, s->sorted, (size_t)s->n_local, s->first, send_counts);
    s->t[T_SPLIT] = seconds_since(t0);
    if ((rc = mpi_agree(job, rc)) != CLI_EXIT_OK)
        return rc;
    t0 = cli_now_ns();
    rc = mpi_exchange(job, s->sorted, send_counts, &s->recv, recv_counts, &s->n_recv);
    s->t[T_EXCHANGE] = seconds_since(t0);
    if (rc != CLI_EXIT_OK) /* mpi_exchange agreed on it already */
        return rc;
    free(s->sorted);
    s->sorted = NULL;
    return CLI_EXIT_OK;
}

/* 4a. What the rank received, merged into one sorted array. */
static int merge_received(mpi_job *job, const mpi_opts *o, rank_run *s)
{
    const uint64_t t0 = cli_now_ns();
    s->merged = cli_malloc(s->n_recv * o->record_size, "merged records");
    const int rc = s->merged ? mpi_merge(job, s->recv, s->counts + job->size, s->merged)
                             : CLI_EXIT_IO;
    free(s->recv);
    s->recv = NULL;
    s->t[T_MERGE] = seconds_since(t0);
    return mpi_agree(job, rc);
}

/* For the tests: when the variable names a FIFO, rank 0 opens it and reads it to its end there,
 * so that a test can send a signal at exactly that moment (test_mpi.sh). */
#define MPI_TEST_PAUSE_BEFORE_RENAME "CLSORT_TEST_MPI_PAUSE_BEFORE_RENAME"
#define MPI_TEST_PAUSE_AFTER_OUTPUT "CLSORT_TEST_MPI_PAUSE_AFTER_OUTPUT"
static void test_pause(const char *var)
{
    const char *fifo = getenv(var);
    if (!fifo || !*fifo)
        return;
    FILE *const f = fopen(fifo, "r");
    if (!f)
        return;
    while (fgetc(f) != EOF) {
    }
    fclose(f);
}

/* 4b. The merged records written with MPI-IO at the offset that an exclusive scan of the byte
 * counts gives; rank 0 renames the file into place when all have finished. */
static int write_result(mpi_job *job, const mpi_opts *o, rank_run *s)
{
    const uint64_t t0 = cli_now_ns();
    int rc = CLI_EXIT_OK;
    const uint64_t my_bytes = (uint64_t)s->n_recv * o->record_size;
    uint64_t offset = 0;
    int mrc = MPI_Exscan(&my_bytes, &offset, 1, MPI_UINT64_T, MPI_SUM, job->comm);
    if (job->rank == 0)
        offset = 0; /* MPI_Exscan leaves rank 0's result undefined */
    if (mrc != MPI_SUCCESS)
        rc = mpi_report(mrc, "MPI_Exscan of the output offsets");
    if ((rc = mpi_agree(job, rc)) != CLI_EXIT_OK)
        return rc;
    mrc = MPI_File_open(job->comm, s->tmp_path, MPI_MODE_WRONLY, MPI_INFO_NULL, &s->outf);
    if (mrc != MPI_SUCCESS) {
        char what[PATH_MAX + 64];
        snprintf(what, sizeof what, "%s: cannot open the temporary output (MPI_File_open)",
                 s->tmp_path);
        rc = mpi_report(mrc, what);
        s->outf = MPI_FILE_NULL;
    }
    if ((rc = mpi_agree(job, rc)) != CLI_EXIT_OK)
        return rc;
    rc = mpi_io_write(job, s->outf, o->output, offset, s->merged,
                      my_bytes);
    mrc = MPI_File_close(&s->outf);
    if (mrc != MPI_SUCCESS && rc == CLI_EXIT_OK)
        rc = mpi_report(mrc, "MPI_File_close of the output");
    free(s->merged);
    s->merged = NULL;
    if ((rc = mpi_agree(job, rc)) != CLI_EXIT_OK)
        return rc;
    /* Every rank has written and closed: only now may the result take the destination's name. */
    if (job->rank == 0) {
        test_pause(MPI_TEST_PAUSE_BEFORE_RENAME);
        rc = cli_writer_commit(&s->out, NULL);
        s->out_open = 0;
    }
    s->t[T_WRITE] = seconds_since(t0);
    if ((rc = mpi_agree(job, rc)) != CLI_EXIT_OK)
        return rc;
    /* An interrupt from now on (mpirun passes it to every rank) finds the result in place. */
    cli_signals_note_output_complete(o->output);
    if (job->rank == 0)
        test_pause(MPI_TEST_PAUSE_AFTER_OUTPUT);
    return CLI_EXIT_OK;
}

/* Releases what a failed run still holds. */
static void release_run(rank_run *s)
{
    if (s->in != MPI_FILE_NULL)
        MPI_File_close(&s->in);
    if (s->outf != MPI_FILE_NULL)
        MPI_File_close(&s->outf);
    if (s->out_open)
        cli_writer_abort(&s->out);
    cli_chunk_free(&s->chunk);
    free(s->sorted);
    free(s->recv);
    free(s->merged);
    clsort_destroy(s->ctx);
}

static int sort_file(mpi_job *job, const mpi_opts *o, int local_rank)
{
    const uint64_t t_start = cli_now_ns();
    rank_run s;
    memset(&s, 0, sizeof s);
    s.in = s.outf = MPI_FILE_NULL;
    s.counts = cli_malloc((size_t)job->size * 2 * sizeof *s.counts, "record counts");
    int rc = open_output(job, o, &s);
    if (rc == CLI_EXIT_OK)
        rc = open_device(job, o, local_rank, &s);
    if (rc == CLI_EXIT_OK)
        rc = read_slice(job, o, &s);
    if (rc == CLI_EXIT_OK)
        rc = sort_slice(job, o, &s);
    if (rc == CLI_EXIT_OK)
        rc = exchange_slices(job, &s);
    if (rc == CLI_EXIT_OK)
        rc = merge_received(job, o, &s);
    if (rc == CLI_EXIT_OK)
        rc = write_result(job, o, &s);
    if (rc == CLI_EXIT_OK) {
        s.t[T_TOTAL] = seconds_since(t_start);
        print_summary(job, o, s.n, s.n_local, s.n_recv, s.t);
    } else {
        release_run(&s);
    }
    free(s.counts);
    return rc;
}

int main(int argc, char **argv)
{
    /* Before MPI and OpenCL start threads, which must inherit the blocked signals: the watcher
     * removes rank 0's temporary output when mpirun passes on an interrupt. */
    cli_set_program_name("clsort-mpi");
    const int signals_ok = cli_signals_init() == 0;
    /* Every rank opens rank 0's temporary output by its name. */
    cli_writer_use_named_temporary();
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fputs("clsort-mpi: MPI_Init failed (run it with mpirun)\n", stderr);
        return CLI_EXIT_IO;
    }
    mpi_job job;
    memset(&job, 0, sizeof job);
    job.comm = MPI_COMM_WORLD;
    MPI_Comm_set_errhandler(job.comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(job.comm, &job.rank);
    MPI_Comm_size(job.comm, &job.size);
    mpi_msg_set_rank(job.rank, job.size);
    if (job.size > 1) { /* the signal thread's line says which rank saw the signal */
        char name[48];
        snprintf(name, sizeof name, "clsort-mpi: rank %d", job.rank);
        cli_set_program_name(name);
    }
    mpi_msg_hold_errors();

    /* The rank's index among the ranks of its host picks its device. */
    MPI_Comm host;
    int local_rank = 0;
    if (MPI_Comm_split_type(job.comm, MPI_COMM_TYPE_SHARED, job.rank, MPI_INFO_NULL, &host) ==
        MPI_SUCCESS) {
        MPI_Comm_rank(host, &local_rank);
        MPI_Comm_free(&host);
    }

    mpi_opts opts;
    int rc = mpi_parse_args(argc, argv, &opts);
    if (rc == CLI_EXIT_OK && opts.record_size > ((size_t)1 << 30)) {
        cli_error("records of %zu bytes: clsort-mpi takes records of up to 1 GiB",
                  opts.record_size);
        rc = CLI_EXIT_USAGE;
    }
    rc = mpi_agree(&job, rc);
    if (rc == CLI_EXIT_OK && opts.mode == MPI_MODE_HELP) {
        if (job.rank == 0)
            mpi_print_help();
    } else if (rc == CLI_EXIT_OK && opts.mode == MPI_MODE_VERSION) {
        if (job.rank == 0)
            printf("clsort-mpi %s (library %s)\n", CLSORT_VERSION_STRING,
                   clsort_version_string());
    } else if (rc == CLI_EXIT_OK) {
        if (!signals_ok && job.rank == 0)
            cli_info(1, "warning: cannot watch for signals; an interrupt may leave a temporary "
                        "file");
        job.ks = (cli_keyspec){ .type = opts.type,
                                .key_size = opts.key_size,
                                .key_offset = opts.key_offset,
                                .record_size = opts.record_size,
                                .reverse = opts.reverse };
        job.piece_bytes = opts.piece_bytes;
        MPI_Type_contiguous((int)opts.record_size, MPI_BYTE, &job.rec_type);
        MPI_Type_commit(&job.rec_type);
        rc = sort_file(&job, &opts, local_rank);
        MPI_Type_free(&job.rec_type);
    }
    fflush(stdout);
    MPI_Finalize();
    return rc;
}
