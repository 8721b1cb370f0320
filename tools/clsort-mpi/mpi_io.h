/* mpi_io.h - collective MPI-IO reads and writes of any size, in pieces below 2 GiB. */
#ifndef MPI_IO_H
#define MPI_IO_H

#include "mpi_job.h"

/** Collective: every rank reads `bytes` bytes at `offset` of fh into buf, with
 *  MPI_File_read_at_all in pieces of at most job->piece_bytes; all ranks make the same number of
 *  calls (those with less to read pass 0 bytes). A short read (the file shrank) is an error.
 *  Returns CLI_EXIT_OK or CLI_EXIT_IO after cli_error(); `name` is the file, for messages. */
int mpi_io_read(const mpi_job *job, MPI_File fh, const char *name, uint64_t offset, void *buf,
                uint64_t bytes);

/** Collective: the same for writing with MPI_File_write_at_all. */
int mpi_io_write(const mpi_job *job, MPI_File fh, const char *name, uint64_t offset,
                 const void *buf, uint64_t bytes);

#endif /* MPI_IO_H */
