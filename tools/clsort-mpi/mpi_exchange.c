/* mpi_exchange.c - splitters, exchange and merge of the sample sort.
 *
 * Every record is placed by the pair (key ordinal, global position). Positions are unique, so the
 * pairs are all distinct: a file whose keys are all equal still splits into equal parts, and a rank
 * boundary can fall inside a run of equal keys without breaking the stable order (the records
 * before the boundary are earlier in the input, and go to a lower rank). The position used is the
 * record's place in the slice's sorted order plus the slice's first index; among equal keys that
 * order is input order (the local sort is stable), so it compares ties exactly as input positions
 * would. */
#include "mpi_exchange.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clsort_messages.h"

typedef struct sample {
    uint64_t ord; /* key ordinal (cli_key_ordinal) */
    uint64_t pos; /* global position */
} sample;

static int compare_samples(const void *a, const void *b)
{
    const sample *x = a, *y = b;
    if (x->ord != y->ord)
        return x->ord < y->ord ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* Samples per rank: enough that regular sampling bounds every rank's share near n/size (PSRS
 * guarantees under 2n/size with size-1 samples; more samples tighten it), few enough that the
 * gathered set stays small: 256 ranks of 256 samples are 1 MiB. */
static size_t samples_per_rank(int size)
{
    return size - 1 > 256 ? (size_t)(size - 1) : 256;
}

/* The first record of sorted[0..n) whose (ordinal, position) is not below s. */
static size_t lower_bound(const cli_keyspec *ks, const unsigned char *sorted, size_t n,
                          uint64_t first, const sample *s)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        const sample m = { cli_key_ordinal(ks, sorted + mid * ks->record_size), first + mid };
        if (compare_samples(&m, s) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int mpi_choose_splits(const mpi_job *job, const unsigned char *sorted, size_t n, uint64_t first,
                      uint64_t *send_counts)
{
    const int P = job->size;
    const size_t R = job->ks.record_size;
    size_t s = samples_per_rank(P);
    if (s > n)
        s = n;
    int rc = CLI_EXIT_OK;
    int *const counts = cli_malloc((size_t)P * sizeof *counts, "sample counts");
    int *const displs = cli_malloc((size_t)P * sizeof *displs, "sample offsets");
    sample *const mine = cli_malloc((s ? s : 1) * sizeof *mine, "samples");
    sample *all = NULL;
    if (!counts || !displs || !mine)
        rc = CLI_EXIT_IO;
    for (size_t j = 0; rc == CLI_EXIT_OK && j < s; ++j) {
        /* The start of each of s equal parts. Sample 0 is the slice's first record, so when all
         * keys are equal the splitters fall exactly on the slice boundaries. */
        const size_t i = (size_t)(((uint64_t)j * n) / s);
        mine[j] = (sample){ cli_key_ordinal(&job->ks, sorted + i * R), first + i };
    }
    rc = mpi_agree(job, rc);
    if (rc != CLI_EXIT_OK)
        goto done;

    /* Each sample travels as two uint64 values. */
    const int mine_words = (int)(2 * s);
    int mrc = MPI_Allgather(&mine_words, 1, MPI_INT, counts, 1, MPI_INT, job->comm);
    uint64_t total_words = 0;
    for (int r = 0; mrc == MPI_SUCCESS && r < P; ++r) {
        displs[r] = (int)total_words;
        total_words += (uint64_t)counts[r];
    }
    if (mrc != MPI_SUCCESS)
        rc = mpi_report(mrc, "MPI_Allgather of the sample counts");
    else if (total_words > INT_MAX)
        rc = CLI_EXIT_IO, cli_error("too many samples for one MPI_Allgatherv");
    else if (!(all = cli_malloc((size_t)(total_words ? total_words : 2) * 8, "all samples")))
        rc = CLI_EXIT_IO;
    rc = mpi_agree(job, rc);
    if (rc != CLI_EXIT_OK)
        goto done;
    mrc = MPI_Allgatherv(mine, mine_words, MPI_UINT64_T, all, counts, displs, MPI_UINT64_T,
                         job->comm);
    if (mrc != MPI_SUCCESS) {
        rc = mpi_report(mrc, "MPI_Allgatherv of the samples");
        goto done;
    }
    const size_t T = (size_t)(total_words / 2);
    qsort(all, T, sizeof *all, compare_samples);

    /* Splitter k (1..P-1) is the sample at k/P of the sorted set; rank d gets the records from
     * splitter d (inclusive) to splitter d+1 (exclusive). */
    size_t prev = 0;
    for (int d = 0; d < P; ++d) {
        size_t bound = n;
        if (d + 1 < P)
            bound = T ? lower_bound(&job->ks, sorted, n, first, &all[(size_t)((uint64_t)(d + 1) * T / (uint64_t)P)])
                      : 0;
        if (bound < prev)
            bound = prev; /* cannot happen with sorted splitters; keeps counts non-negative */
        send_counts[d] = bound - prev;
        prev = bound;
    }
done:
    free(counts);
    free(displs);
    free(mine);
    free(all);
    return rc;
}

int mpi_exchange(const mpi_job *job, const unsigned char *sorted, const uint64_t *send_counts,
                 unsigned char **recv, uint64_t *recv_counts, size_t *n_recv)
{
    const int P = job->size;
    const size_t R = job->ks.record_size;
    *recv = NULL;
    *n_recv = 0;
    int rc = CLI_EXIT_OK;
    int mrc = MPI_Alltoall(send_counts, 1, MPI_UINT64_T, recv_counts, 1, MPI_UINT64_T, job->comm);
    if (mrc != MPI_SUCCESS)
        rc = mpi_report(mrc, "MPI_Alltoall of the record counts");
    uint64_t most = 0, total = 0;
    for (int r = 0; rc == CLI_EXIT_OK && r < P; ++r) {
        if (send_counts[r] > most)
            most = send_counts[r];
        total += recv_counts[r];
    }
    const size_t arrays = (size_t)P * 4;
    int *const ints = cli_malloc(arrays * sizeof *ints, "exchange counts");
    MPI_Datatype *const types = cli_malloc((size_t)P * 2 * sizeof *types, "exchange types");
    uint64_t *const sdispl = cli_malloc((size_t)P * 2 * sizeof *sdispl, "exchange offsets");
    if (!ints || !types || !sdispl)
        rc = CLI_EXIT_IO;
    if (rc == CLI_EXIT_OK && total > SIZE_MAX / (R ? R : 1)) {
        cli_error("%llu records do not fit in this rank's address space",
                  (unsigned long long)total);
        rc = CLI_EXIT_IO;
    }
    if (rc == CLI_EXIT_OK && !(*recv = cli_malloc((size_t)total * R, "received records")))
        rc = CLI_EXIT_IO;
    uint64_t rounds_mine = 0, rounds = 0;
    uint64_t per = job->piece_bytes / R; /* records per pair and round */
    if (per == 0)
        per = 1;
    if (per > INT_MAX)
        per = INT_MAX;
    rounds_mine = (most + per - 1) / per;
    rc = mpi_agree(job, rc);
    if (rc != CLI_EXIT_OK)
        goto done;
    /* Every rank must make as many calls as the busiest sender. */
    mrc = MPI_Allreduce(&rounds_mine, &rounds, 1, MPI_UINT64_T, MPI_MAX, job->comm);
    if (mrc != MPI_SUCCESS) {
        rc = mpi_agree(job, mpi_report(mrc, "MPI_Allreduce of the exchange rounds"));
        goto done;
    }
    *n_recv = (size_t)total;

    int *const scount = ints, *const sdisp = ints + P, *const rcount = ints + 2 * P,
              *const rdisp = ints + 3 * P;
    MPI_Datatype *const stype = types, *const rtype = types + P;
    uint64_t *const rdispl = sdispl + P;
    uint64_t so = 0, ro = 0;
    for (int r = 0; r < P; ++r) {
        sdispl[r] = so;
        rdispl[r] = ro;
        so += send_counts[r];
        ro += recv_counts[r];
        sdisp[r] = rdisp[r] = 0;
    }
    /* Round k moves records [k*per, (k+1)*per) of every pair. The place of each block goes into
     * an hindexed type, whose displacement is an MPI_Aint (64 bits): int displacements of
     * MPI_Alltoallv would stop at 2 GiB. */
    for (uint64_t k = 0; k < rounds && rc == CLI_EXIT_OK; ++k) {
        int made = 0;
        for (int r = 0; r < P && rc == CLI_EXIT_OK; ++r) {
            for (int side = 0; side < 2; ++side) {
                const uint64_t count = side ? recv_counts[r] : send_counts[r];
                const uint64_t base = side ? rdispl[r] : sdispl[r];
                const uint64_t start = k * per;
                const int len = start < count ? (int)(count - start < per ? count - start : per) : 0;
                MPI_Datatype *const t = side ? &rtype[r] : &stype[r];
                int *const c = side ? &rcount[r] : &scount[r];
                *t = MPI_BYTE;
                *c = 0;
                if (len == 0)
                    continue;
                const MPI_Aint at = (MPI_Aint)((base + start) * R);
                mrc = MPI_Type_create_hindexed(1, &len, &at, job->rec_type, t);
                if (mrc == MPI_SUCCESS)
                    mrc = MPI_Type_commit(t);
                if (mrc != MPI_SUCCESS) {
                    rc = mpi_report(mrc, "MPI_Type_create_hindexed");
                    *t = MPI_BYTE;
                    break;
                }
                *c = 1;
            }
            made = r + 1;
        }
        rc = mpi_agree(job, rc);
        if (rc == CLI_EXIT_OK) {
            mrc = MPI_Alltoallw(sorted, scount, sdisp, stype, *recv, rcount, rdisp, rtype,
                                job->comm);
            if (mrc != MPI_SUCCESS)
                rc = mpi_report(mrc, "MPI_Alltoallw of the records");
            rc = mpi_agree(job, rc);
        }
        for (int r = 0; r < made; ++r) {
            if (scount[r])
                MPI_Type_free(&stype[r]);
            if (rcount[r])
                MPI_Type_free(&rtype[r]);
        }
    }
done:
    if (rc != CLI_EXIT_OK) {
        free(*recv);
        *recv = NULL;
        *n_recv = 0;
    }
    free(ints);
    free(types);
    free(sdispl);
    return rc;
}

/* ---- Merge ---------------------------------------------------------------------------------- */

typedef struct head {
    uint64_t ord;
    int src;
} head;

static int head_less(const head *a, const head *b)
{
    return a->ord < b->ord || (a->ord == b->ord && a->src < b->src);
}

static void sift_down(head *h, size_t n, size_t i)
{
    for (;;) {
        size_t m = i;
        const size_t l = 2 * i + 1, r = l + 1;
        if (l < n && head_less(&h[l], &h[m]))
            m = l;
        if (r < n && head_less(&h[r], &h[m]))
            m = r;
        if (m == i)
            return;
        const head t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

int mpi_merge(const mpi_job *job, const unsigned char *recv, const uint64_t *recv_counts,
              unsigned char *out)
{
    const int P = job->size;
    const size_t R = job->ks.record_size;
    const cli_keyspec *const ks = &job->ks;
    /* Per source: where its next record is and where it ends (record indices into recv). */
    size_t *const next = cli_malloc((size_t)P * 2 * sizeof *next, "merge positions");
    head *const h = cli_malloc((size_t)P * sizeof *h, "merge heap");
    if (!next || !h) {
        free(next);
        free(h);
        return CLI_EXIT_IO;
    }
    size_t nh = 0, at = 0;
    for (int s = 0; s < P; ++s) {
        next[2 * s] = at;
        at += (size_t)recv_counts[s];
        next[2 * s + 1] = at;
        if (recv_counts[s])
            h[nh++] = (head){ cli_key_ordinal(ks, recv + next[2 * s] * R), s };
    }
    if (nh == 1) { /* one source: already in order */
        memcpy(out, recv + next[2 * h[0].src] * R, at * R);
        nh = 0;
    }
    for (size_t i = nh; i-- > 0;)
        sift_down(h, nh, i);
    unsigned char *o = out;
    while (nh > 0) {
        const int s = h[0].src;
        memcpy(o, recv + next[2 * s] * R, R);
        o += R;
        if (++next[2 * s] < next[2 * s + 1])
            h[0].ord = cli_key_ordinal(ks, recv + next[2 * s] * R);
        else
            h[0] = h[--nh];
        sift_down(h, nh, 0);
    }
    free(next);
    free(h);
    return CLI_EXIT_OK;
}
