/* clsort_extsort.h - sorting a whole input: at once when it fits the buffer, else in runs that are
 * sorted on the device, written under -T and merged on the host. */
#ifndef CLSORT_EXTSORT_H
#define CLSORT_EXTSORT_H

#include "clsort_args.h"

/** Sorts opts->input into its destination as the options say. Prints one line for any failure.
 *  Returns CLI_EXIT_OK, CLI_EXIT_IO or CLI_EXIT_DEVICE. */
int cli_sort_input(const cli_opts *opts);

/** Checks that opts->input is sorted (-c). Returns CLI_EXIT_OK, CLI_EXIT_DISORDER or CLI_EXIT_IO. */
int cli_check_sorted(const cli_opts *opts);

#endif /* CLSORT_EXTSORT_H */
