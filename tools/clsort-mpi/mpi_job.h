/* mpi_job.h - what every phase of clsort-mpi shares: the communicator, the record layout, the
 * size of one piece of I/O or exchange, and the rule that ranks agree before each collective. */
#ifndef MPI_JOB_H
#define MPI_JOB_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "clsort_records.h"

typedef struct mpi_job {
    MPI_Comm comm;
    int rank, size;
    cli_keyspec ks;
    uint64_t piece_bytes;  /* most bytes in one MPI-IO call or one message between two ranks */
    MPI_Datatype rec_type; /* one record: record_size bytes */
} mpi_job;

/** Collective: every rank passes its status (CLI_EXIT_OK or an exit code); all get the largest.
 *  When it is a failure, the lowest rank with that code prints its held error line (and only
 *  it), so a failed job says one line. Call it before every collective phase: a rank that failed
 *  alone would otherwise leave the others waiting in a collective forever. */
int mpi_agree(const mpi_job *job, int rc);

/** Describes an MPI error code as cli_error("what: MPI error string") and returns CLI_EXIT_IO. */
int mpi_report(int mpi_rc, const char *what);

#endif /* MPI_JOB_H */
