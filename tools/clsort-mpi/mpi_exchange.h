/* mpi_exchange.h - the sample sort's middle: splitters from regular samples, the all-to-all
 * exchange of records by key range, and the merge of what a rank received. */
#ifndef MPI_EXCHANGE_H
#define MPI_EXCHANGE_H

#include "mpi_job.h"

/** Collective. `sorted` holds this rank's n records in the global order, the first of them being
 *  record `first` of the input (ranks hold consecutive slices in rank order). Picks size-1
 *  splitters from regular samples of every rank, each a (key, global position) pair so that equal
 *  keys are split by position, and sets send_counts[d] to the number of this rank's records that
 *  go to rank d (a prefix of `sorted` for rank 0, and so on). Returns CLI_EXIT_OK or an exit code
 *  after cli_error() (the caller agrees on it). */
int mpi_choose_splits(const mpi_job *job, const unsigned char *sorted, size_t n, uint64_t first,
                      uint64_t *send_counts);

/** Collective. Sends rank d the send_counts[d] records that follow those of ranks before d, with
 *  MPI_Alltoallw in rounds of at most job->piece_bytes per pair (64-bit displacements through
 *  derived types, so any size works). Sets *recv (malloc'd; the caller frees), recv_counts[s]
 *  (records from rank s, stored in rank order) and *n_recv. Agrees on the allocation itself.
 *  Returns CLI_EXIT_OK or an exit code after cli_error(). */
int mpi_exchange(const mpi_job *job, const unsigned char *sorted, const uint64_t *send_counts,
                 unsigned char **recv, uint64_t *recv_counts, size_t *n_recv);

/** Merges the job->size sorted sequences of `recv` (recv_counts[s] records each, back to back)
 *  into `out`, ties going to the lower source rank: that is input order, since lower ranks read
 *  earlier slices. Not collective. Returns CLI_EXIT_OK, or CLI_EXIT_IO when out of memory. */
int mpi_merge(const mpi_job *job, const unsigned char *recv, const uint64_t *recv_counts,
              unsigned char *out);

#endif /* MPI_EXCHANGE_H */
