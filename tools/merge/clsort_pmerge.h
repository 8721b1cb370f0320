/* clsort_pmerge.h - the k-way merge on every core (issue 28): the output is cut into parts by key
 * ranges found by binary search in the sources (the merge-path idea), each part merged by its own
 * loser tree on its own thread and written at its known offset. */
#ifndef CLSORT_PMERGE_H
#define CLSORT_PMERGE_H

#include <stddef.h>
#include <stdint.h>

#include "clsort_fileio.h"
#include "clsort_losertree.h"

/* cli_pmerge's answer when it does not apply (nothing done, nothing printed): the caller merges
 * with cli_merge_sources. */
#define CLI_PMERGE_NOT_HERE (-1)

/** Threads for a merge: CLSORT_CLI_MERGE_THREADS if set (1: the one-thread loser tree), else the
 *  online cores, at most 64. */
unsigned cli_pmerge_threads(void);

/* How cli_pmerge merged, for -v. */
typedef struct cli_pmerge_info {
    unsigned parts; /* parts merged at once */
    int mapped;     /* stored into a mapping of a file output (cli_writer_map), not pwrite'd */
    int vector;     /* by the vector merge (clsort_vecmerge.c), not the loser tree */
} cli_pmerge_info;

/** Merges the k sorted sources of `m` held in memory (data[i]: len[i] bytes, whole records) into
 *  `out` after what it has written, in up to `threads` parts, and moves `out` past them. Same
 *  bytes as cli_merge_sources over the same sources (ties by source, source 0 first); m->pull and
 *  m->phase are not used. *info (may be NULL) says how, once the parts are known. With m->disorder, every source is checked (within parts and across their
 *  borders) and the first disorder of the lowest source is reported through it. Returns
 *  CLI_EXIT_OK, an exit code after printing, or CLI_PMERGE_NOT_HERE when it does not apply: -u
 *  (where a part's output size is not known before it is merged), an output that is neither a
 *  seekable file nor memory, one thread, or too few records to share. */
int cli_pmerge(const cli_merge_spec *m, const unsigned char *const *data, const uint64_t *len,
               cli_writer *out, unsigned threads, cli_pmerge_info *info);

/* k files mapped read-only for cli_pmerge, in the data[] and len[] it takes (an empty file
 * points at a byte of its own and maps nothing). */
typedef struct cli_pmerge_maps {
    const unsigned char **data;
    uint64_t *len;
    void **map;
    size_t k;
} cli_pmerge_maps;

/** Room for k files, none mapped yet (every data[i] the empty byte, len[i] 0). Returns 0, or -1
 *  out of memory (nothing held then). */
int cli_pmerge_maps_init(cli_pmerge_maps *m, size_t k);

/** Maps len bytes of fd as file i. Returns 0, or -1 when it cannot be mapped (too large, say:
 *  the caller reads it instead). */
int cli_pmerge_map(cli_pmerge_maps *m, size_t i, int fd, uint64_t len);

/** Unmaps what was mapped and frees the arrays; a zeroed m is fine. */
void cli_pmerge_maps_release(cli_pmerge_maps *m);

#endif /* CLSORT_PMERGE_H */
