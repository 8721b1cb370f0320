/* mpi_job.c - what every phase of clsort-mpi calls: the ranks' agreement on a status and the
 * wording of an MPI error. Below mpi_main.c, mpi_exchange.c and mpi_io.c, so that the phases
 * never call back into the driver. */
#include "mpi_job.h"

#include <stdio.h>

#include "clsort_messages.h"
#include "mpi_messages.h"

int mpi_agree(const mpi_job *job, int rc)
{
    struct {
        int code;
        int rank;
    } in = { rc, job->rank }, out = { rc, job->rank };
    if (MPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MAXLOC, job->comm) != MPI_SUCCESS) {
        /* The agreement itself failed: nothing collective can be trusted any more. */
        mpi_msg_print_held("MPI_Allreduce failed while the ranks agreed on their status");
        MPI_Abort(job->comm, CLI_EXIT_IO);
    }
    if (out.code != CLI_EXIT_OK && out.rank == job->rank)
        mpi_msg_print_held("failed (no detail)");
    return out.code;
}

int mpi_report(int mpi_rc, const char *what)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(mpi_rc, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "MPI error %d", mpi_rc);
    cli_error("%s: %s", what, text);
    return CLI_EXIT_IO;
}
