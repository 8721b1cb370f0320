/* clsort_top.h - `clsort --top N`: the first N records of the sorted output, streamed: a running
 * top N, a threshold that drops what cannot enter it as it is read, sorted chunks of the rest. */
#ifndef CLSORT_TOP_H
#define CLSORT_TOP_H

#include "clsort_args.h"

/** Writes the first o->top records of the sorted concatenation of the inputs (the N smallest
 *  keys, or largest with -r; ties by the further keys, then in input order; with -u, of distinct
 *  records) to the output, reading the input once, without run files. Returns a CLI_EXIT_* code
 *  after printing what went wrong. */
int cli_top_input(const cli_opts *o);

#endif /* CLSORT_TOP_H */
