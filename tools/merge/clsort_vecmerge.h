/* clsort_vecmerge.h - the k-way merge of records that are one key, with vector merge networks
 * (issue 28): a binary tree of two-way merges, each a bitonic merge of 16 + 16 keys in vector
 * registers (AVX2 for 4-byte keys, AVX-512 for 8-byte ones), that the parallel merge
 * (clsort_pmerge.c) runs in each part instead of the loser tree where it applies. */
#ifndef CLSORT_VECMERGE_H
#define CLSORT_VECMERGE_H

#include <stddef.h>
#include <stdint.h>

#include "clsort_fileio.h"
#include "clsort_records.h"

/* cli_vecmerge's answer when a source is out of order: nothing reported, and what it wrote to w
 * is to be written again (the caller merges with the loser tree, which finds and reports the
 * disorder as always). */
#define CLI_VECMERGE_DISORDER (-2)

/** Whether cli_vecmerge merges k sources of records of `ks` on this CPU: records that are one
 *  little-endian key (any type, either order), no tie-breakers, no -u, at most 4096 sources (a
 *  larger tree no longer fits a core's cache), and a CPU with AVX2 (4-byte keys) or AVX-512F
 *  (8-byte keys). For these records equal keys are equal bytes, so the order among
 *  ties, the only thing a vector merge does not keep, cannot show. CLSORT_CLI_VECTOR_MERGE=0
 *  turns it off (for measurements and tests). */
int cli_vecmerge_applies(const cli_keyspec *ks, size_t k);

/** Merges the k sorted sources (data[i]: len[i] bytes, whole records; cli_vecmerge_applies
 *  said yes) into w, through its buffer; the bytes are those of cli_merge_sources over the same sources. With `check`, every
 *  source is checked to be in order as it is read. Returns CLI_EXIT_OK, an exit code after
 *  printing (a write error, out of memory), or CLI_VECMERGE_DISORDER. */
int cli_vecmerge(const cli_keyspec *ks, size_t k, const unsigned char *const *data,
                 const size_t *len, int check, cli_writer *w);

#endif /* CLSORT_VECMERGE_H */
