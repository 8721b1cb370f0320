/* clsort_merge.h - the sorted runs of an external sort and their k-way merge on the host. The run
 * generation (clsort_extsort.c) hands over each run as an open file; everything after that, from
 * keeping the number of open runs bounded to the final merge into the output, is here. */
#ifndef CLSORT_MERGE_H
#define CLSORT_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "clsort_fileio.h"
#include "clsort_pmerge.h"
#include "clsort_records.h"

/* One sorted run: an anonymous temporary file, read back from offset 0. */
typedef struct cli_run {
    int fd;
    uint64_t bytes;
    unsigned level; /* 0: sorted from the input; k: merged from runs of level k - 1 */
} cli_run;

/* The runs so far, in input order (ties between runs go to the earlier one, which keeps the merge
 * stable), and what merging them has cost. */
typedef struct cli_run_set {
    const char *tmpdir;   /* where runs live (-T), for intermediate runs and messages */
    cli_keyspec ks;
    size_t write_buf;     /* buffer size of the writer of an intermediate run */
    cli_run *runs;
    size_t nruns, cap_runs;
    size_t fan_in;        /* runs merged at once, from the open-file limit (0 until the first run) */
    size_t read_budget;   /* bytes of read buffers for one merge, split over its runs (each
                           * between 64 KiB and 16 MiB); cli_runs_init sets 64 MiB */
    unsigned merge_passes; /* merges into intermediate runs */
    cli_pmerge_info merge_how; /* how the final merge went on every core (parts 0: one loser
                                  tree) */
    uint64_t merge_ns, merged_bytes;
} cli_run_set;

/** Starts an empty set; the fan-in comes from the open-file limit. Allocates nothing. */
void cli_runs_init(cli_run_set *s, const char *tmpdir, const cli_keyspec *ks, size_t write_buf);

/** Takes over `fd` (a run of `bytes` bytes) as the next run in input order. As soon as there are
 *  fan_in runs of one level, they are merged into one run of the next level, so the number of open
 *  runs stays logarithmic. Returns CLI_EXIT_OK or CLI_EXIT_IO after printing (fd closed then). */
int cli_runs_add(cli_run_set *s, int fd, uint64_t bytes);

/** Writes the sorted chunk `c` (cli_chunk_write: -u keeps the first of equal records) as a new
 *  run: an anonymous temporary file under `tmpdir`, through a buffer of buf_size bytes, added to
 *  the set. *bytes gets the run's size and *write_ns the writer's write time (both may be NULL).
 *  Returns CLI_EXIT_OK or CLI_EXIT_IO (printed). */
int cli_runs_add_chunk(cli_run_set *s, const char *tmpdir, const cli_keyspec *ks,
                       const cli_chunk *c, size_t buf_size, uint64_t *bytes, uint64_t *write_ns);

/** Merges all runs into `out` (at most fan_in at once: earlier intermediate merges as needed) and
 *  closes them. Returns CLI_EXIT_OK or CLI_EXIT_IO after printing. */
int cli_runs_merge(cli_run_set *s, cli_writer *out);

/** Closes the runs still open and frees the list; the counters stay readable. */
void cli_runs_close(cli_run_set *s);

#endif /* CLSORT_MERGE_H */
