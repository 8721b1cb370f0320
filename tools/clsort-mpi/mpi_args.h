/* mpi_args.h - the clsort-mpi command line: clsort's sort options, parsed into one struct. */
#ifndef MPI_ARGS_H
#define MPI_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "clsort.h"

typedef enum mpi_mode { MPI_MODE_SORT, MPI_MODE_HELP, MPI_MODE_VERSION } mpi_mode;

typedef struct mpi_opts {
    mpi_mode mode;
    const char *input;     /* a regular file every rank can open */
    const char *output;    /* NULL: replace the input */
    clsort_type type;
    size_t key_size;
    size_t record_size;
    size_t key_offset;
    int reverse;
    int stable;
    clsort_algorithm algorithm;
    const char *device;    /* -d, else $CLSORT_DEVICE, else NULL (see mpi_device.c) */
    uint64_t piece_bytes;  /* most bytes of one MPI-IO call or one message (CLSORT_MPI_PIECE) */
} mpi_opts;

/** Parses argv into *opts. Returns CLI_EXIT_OK, or CLI_EXIT_USAGE after cli_error() says which
 *  argument is wrong. Sets cli_display_level from -q / -v. Calls nothing collective. */
int mpi_parse_args(int argc, char **argv, mpi_opts *opts);

/** Prints the --help text on stdout. */
void mpi_print_help(void);

#endif /* MPI_ARGS_H */
