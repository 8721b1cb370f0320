/* mpi_io.c - MPI-IO in pieces. MPI counts are ints, so one call moves less than 2 GiB; a slice of
 * a large file takes several calls, and because the calls are collective every rank must make as
 * many as the rank with the most to move. An error does not stop a rank from joining the remaining
 * calls (with nothing to move): leaving them would hang the others. */
#include "mpi_io.h"

#include <stdio.h>
#include <string.h>

#include "clsort_messages.h"

/* The number of collective calls: the most that any rank needs. */
static int count_rounds(const mpi_job *job, uint64_t bytes, uint64_t *rounds)
{
    const uint64_t mine = (bytes + job->piece_bytes - 1) / job->piece_bytes;
    const int rc = MPI_Allreduce(&mine, rounds, 1, MPI_UINT64_T, MPI_MAX, job->comm);
    return rc == MPI_SUCCESS ? CLI_EXIT_OK : mpi_report(rc, "MPI_Allreduce");
}

static int io_pieces(const mpi_job *job, MPI_File fh, const char *name, uint64_t offset,
                     unsigned char *buf, uint64_t bytes, int writing)
{
    uint64_t rounds = 0;
    if (count_rounds(job, bytes, &rounds) != CLI_EXIT_OK)
        return CLI_EXIT_IO;
    int rc = CLI_EXIT_OK;
    uint64_t done = 0;
    for (uint64_t r = 0; r < rounds; ++r) {
        uint64_t len = bytes - done;
        if (len > job->piece_bytes)
            len = job->piece_bytes;
        if (rc != CLI_EXIT_OK)
            len = 0;
        MPI_Status st;
        const MPI_Offset at = (MPI_Offset)(offset + done);
        const int mrc = writing
            ? MPI_File_write_at_all(fh, at, buf + done, (int)len, MPI_BYTE, &st)
            : MPI_File_read_at_all(fh, at, buf + done, (int)len, MPI_BYTE, &st);
        if (rc != CLI_EXIT_OK)
            continue;
        if (mrc != MPI_SUCCESS) {
            char what[300];
            snprintf(what, sizeof what, "%s: %s at byte %llu", name,
                     writing ? "MPI_File_write_at_all" : "MPI_File_read_at_all",
                     (unsigned long long)(offset + done));
            rc = mpi_report(mrc, what);
            continue;
        }
        int got = 0;
        MPI_Get_count(&st, MPI_BYTE, &got);
        if ((uint64_t)got != len) {
            cli_error("%s: short %s at byte %llu (%d of %llu bytes): did the file change?", name,
                      writing ? "write" : "read", (unsigned long long)(offset + done), got,
                      (unsigned long long)len);
            rc = CLI_EXIT_IO;
            continue;
        }
        done += len;
    }
    return rc;
}

int mpi_io_read(const mpi_job *job, MPI_File fh, const char *name, uint64_t offset, void *buf,
                uint64_t bytes)
{
    return io_pieces(job, fh, name, offset, buf, bytes, 0);
}

int mpi_io_write(const mpi_job *job, MPI_File fh, const char *name, uint64_t offset,
                 const void *buf, uint64_t bytes)
{
    /* MPI_File_write_at_all takes a const buffer since MPI-3; the cast only shares the loop. */
    return io_pieces(job, fh, name, offset, (unsigned char *)(uintptr_t)buf, bytes, 1);
}
