/* clsort_mergefiles.h - -m, --merge: inputs that are sorted already, merged in one streaming pass
 * on the host, each input checked for order as it is read (unless --no-check). */
#ifndef CLSORT_MERGEFILES_H
#define CLSORT_MERGEFILES_H

#include "clsort_args.h"

/** Merges opts->inputs into the destination (as for sorting: -o, or the one input in place),
 *  keeping only the first of equal records with -u. Memory is bounded: read buffers of 64 MiB in
 *  all (at most opts->buffer_size when set), between 64 KiB and 16 MiB per input, and two output
 *  buffers of 4 MiB. Needs no OpenCL device. An input out of order is an error (one line naming
 *  the file and the record) unless opts->no_check. Returns CLI_EXIT_OK or CLI_EXIT_IO. */
int cli_merge_inputs(const cli_opts *opts);

#endif /* CLSORT_MERGEFILES_H */
