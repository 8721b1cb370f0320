/* mpi_device.h - which device a rank sorts on: its entry of the host's device list. */
#ifndef MPI_DEVICE_H
#define MPI_DEVICE_H

#include "clsort.h"

/** Creates the context of the rank with index `local_rank` among the ranks of its host. `spec`
 *  is -d (or $CLSORT_DEVICE): a list as clsort_devlist.h expands it, where a lone "gpu" or "cpu"
 *  means every device of that type; NULL means every GPU of the host, else the library's default.
 *  The rank takes entry local_rank modulo the list's length. Writes the spec it used into
 *  used (cap bytes). Returns CLI_EXIT_OK or an exit code after cli_error(). */
int mpi_device_open(const char *spec, int local_rank, clsort_ctx **ctx, char *used, size_t cap);

#endif /* MPI_DEVICE_H */
