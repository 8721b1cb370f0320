/* clsort_multidev.h - clsort with several devices (-d 0:0,0:1, gpu:all, cpu:all, all). */
#ifndef CLSORT_MULTIDEV_H
#define CLSORT_MULTIDEV_H

#include "clsort_args.h"

/** Sorts opts->inputs as cli_sort_input does, with one context and one thread per device of the
 *  list in opts->device, and the same bytes as one device with -s. A regular input that fits in
 *  host memory twice is split by key ranges, one per device, each sorted and written at its final
 *  offset (no run files, no merge; CLSORT_CLI_KEY_RANGES=0 turns it off); other inputs are cut
 *  into runs sorted on all devices at once, written as runs in input order and merged. Prints one
 *  line for any failure. Returns CLI_EXIT_OK, CLI_EXIT_USAGE, CLI_EXIT_IO or CLI_EXIT_DEVICE. */
int cli_sort_multidev(const cli_opts *opts);

#endif /* CLSORT_MULTIDEV_H */
