/* clsort_losertree.h - the k-way merge of sorted record streams on the host, through a loser tree
 * (tournament tree of losers). Both merges of the tool use it: the runs of an external sort
 * (clsort_merge.c) and the sorted inputs of -m (clsort_mergefiles.c). */
#ifndef CLSORT_LOSERTREE_H
#define CLSORT_LOSERTREE_H

#include <stddef.h>
#include <stdint.h>

#include "clsort_fileio.h"
#include "clsort_records.h"

/* Hands over the next records of source `src`: *data and *len (bytes, a whole number of records;
 * 0 at the end of the source). The merge is done with the previous ones when it asks, so a source
 * may reuse its buffer. Returns CLI_EXIT_OK, or an exit code after printing what went wrong. */
typedef int (*cli_merge_pull_fn)(void *user, size_t src, const unsigned char **data, size_t *len);

/* Reports that record `index` (counted from 0) of source `src` sorts before the one ahead of it.
 * Returns the exit code the merge ends with, after printing. */
typedef int (*cli_merge_disorder_fn)(void *user, size_t src, uint64_t index);

/* What to merge. */
typedef struct cli_merge_spec {
    const cli_keyspec *ks;           /* record size, keys, tie-breakers, -u (ks->unique) */
    size_t k;                        /* sources, at least 1 and below 2^31 */
    cli_merge_pull_fn pull;
    void *user;                      /* for pull and disorder */
    cli_merge_disorder_fn disorder;  /* NULL: the sources are trusted to be sorted */
    const char *phase;               /* the progress line's label */
    uint64_t total;                  /* bytes of all sources, for the progress line; 0: unknown */
} cli_merge_spec;

/** Merges the k sorted sources into `out` (appending through its buffer; no commit). The order is
 *  the records' order by all keys (cli_record_cmp), equal records in source order (source 0
 *  first), which is the stable order when the sources are consecutive parts of one input; with
 *  ks->unique only the first of equal records is written. With `disorder` set, every record is
 *  checked against the one before it in its source as it comes up, and the first disorder ends the
 *  merge with disorder's exit code. Memory: k small arrays; the sources own their buffers.
 *  Returns CLI_EXIT_OK or an exit code after printing. */
int cli_merge_sources(const cli_merge_spec *m, cli_writer *out);

/* Read buffers of one merge, all sources together (at most -S where it is given): large reads,
 * few system calls, long sequential stretches on a disk. */
#define CLI_MERGE_READ_TOTAL ((size_t)64 << 20)

/** One source's read buffer out of `budget` bytes for k sources: budget / k, between 64 KiB and
 *  16 MiB, in whole records of record_size bytes, at least one. */
size_t cli_merge_read_share(size_t budget, size_t k, size_t record_size);

#endif /* CLSORT_LOSERTREE_H */
