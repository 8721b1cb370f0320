/* clsort_records.h - records and their keys: the host's copy of the library's order, key
 * extraction at any offset, sorting one chunk of records on the device and writing it in order. */
#ifndef CLSORT_RECORDS_H
#define CLSORT_RECORDS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "clsort.h"
#include "clsort_fileio.h"
#include "clsort_keys.h"

/* How records are ordered. The first key (the fields up to `reverse`, and big_endian) is the one
 * the device sorts by; `extra` are the keys that break its ties, compared on the host. Zeroed
 * fields mean: little-endian, no tie-breakers, all records kept. */
typedef struct cli_keyspec {
    clsort_type type;
    size_t key_size;
    size_t key_offset;
    size_t record_size;
    int reverse;
    int big_endian;     /* the first key is in network order */
    int nan_largest;    /* --nan-largest: every key in CLSORT_NAN_LARGEST's order */
    int unique;         /* -u: of equal records (all keys equal) only the first is written */
    size_t nextra;
    cli_key extra[CLI_MAX_KEYS - 1];
} cli_keyspec;

/** Maps the first key of `rec` to an unsigned number whose order is the library's order for the
 *  type (numeric for integers, IEEE totalOrder or --nan-largest's order for floats), complemented
 *  when descending. Keys that compare equal give equal numbers. */
static inline uint64_t cli_key_ordinal(const cli_keyspec *ks, const unsigned char *rec)
{
    return cli_load_ordinal(ks->type, ks->key_size, ks->big_endian, ks->reverse,
                            ks->nan_largest, rec + ks->key_offset);
}

/** The library's flags for the first key's order: CLSORT_DESCENDING, CLSORT_NAN_LARGEST. */
static inline unsigned cli_order_flags(const cli_keyspec *ks)
{
    return (ks->reverse ? CLSORT_DESCENDING : 0u) | (ks->nan_largest ? CLSORT_NAN_LARGEST : 0u);
}

/** Compares two records by the tie-breaking keys only: <0, 0 or >0. */
static inline int cli_extra_cmp(const cli_keyspec *ks, const unsigned char *a,
                                const unsigned char *b)
{
    for (size_t i = 0; i < ks->nextra; ++i) {
        const uint64_t x = cli_key_ord(&ks->extra[i], a), y = cli_key_ord(&ks->extra[i], b);
        if (x != y)
            return x < y ? -1 : 1;
    }
    return 0;
}

/** Compares two records by all keys, the first one first: <0, 0 or >0. */
static inline int cli_record_cmp(const cli_keyspec *ks, const unsigned char *a,
                                 const unsigned char *b)
{
    const uint64_t x = cli_key_ordinal(ks, a), y = cli_key_ordinal(ks, b);
    if (x != y)
        return x < y ? -1 : 1;
    return ks->nextra ? cli_extra_cmp(ks, a, b) : 0;
}

/** Whether the chunk sorts (key, index) pairs rather than the records themselves: records larger
 *  than the key, or tie-breaking keys (which the host applies to the ties of the first key). */
static inline int cli_keyspec_pairs(const cli_keyspec *ks)
{
    return ks->record_size != ks->key_size || ks->nextra > 0;
}

/** Swaps the byte order of n keys of key_size (4 or 8) bytes, `stride` bytes apart: big-endian
 *  keys into the library's little-endian types before the device sorts them (and records of key
 *  size back again afterwards). */
void cli_swap_keys(unsigned char *p, size_t n, size_t stride, size_t key_size);

/** A chunk of records in host memory and the scratch space to sort it. */
typedef struct cli_chunk {
    unsigned char *recs; /* n records of record_size bytes */
    size_t n;
    void *keys;          /* n keys, when records are larger than keys */
    void *idx;           /* n record indices of idx_size bytes (4 or 8), idem */
    size_t idx_size;     /* 0 when the records themselves are sorted */
} cli_chunk;

/** Allocates a chunk able to hold `cap` records. Returns CLI_EXIT_OK or CLI_EXIT_IO (printed). */
/** What sizes a run: the records and keys, whether the sort is stable, and the memory the user
 *  gave it (-S; 0: chosen from host and device memory). */
typedef struct cli_run_request {
    const cli_keyspec *ks;
    int stable;
    uint64_t buffer_size;
} cli_run_request;

/** Records per run of a sort (or chunk of --top): buffer_size if given, else a quarter of
 *  physical memory, never more than the device `di` holds (NULL: no device bound). *capped (may
 *  be NULL) is set to 1 when the device lowered a buffer_size the user gave. At least 1. */
size_t cli_run_records(const cli_run_request *rq, const clsort_device_info *di, int *capped);
int cli_chunk_alloc(cli_chunk *c, const cli_keyspec *ks, size_t cap);
void cli_chunk_free(cli_chunk *c);

/** Timings and what the library reported, summed over chunks. */
typedef struct cli_sort_stats {
    uint64_t sort_ns;      /* host clock around the library calls */
    uint64_t device_ns;    /* what the library measured on the device */
    uint64_t upload_ns, download_ns; /* the library's host-device transfers (profiled) */
    uint64_t prep_ns;      /* key extraction and tie ordering on the host */
    uint64_t build_ns;     /* the library's kernel compile or cache load inside the sorts (not
                              counted in sort_ns) */
    unsigned compiled;     /* programs the compiler made inside the sorts (not the cache) */
    uint64_t keys;
    unsigned sorts;
    unsigned host_sorts;   /* of which the library ran on the host (its own sort, no kernel) */
    clsort_algorithm algorithm;
    int host_fallback;
} cli_sort_stats;

/** -v's line that says what sorted: the network and the device (`di`, NULL: not known), or the
 *  host's own sort (clsort_host_sort_name) where the library chose it, or both with how many
 *  sorts each took. */
void cli_report_sorter(const cli_sort_stats *st, const clsort_device_info *di);

/** -v's "sort" line: keys, time and rate, where they were sorted (the device's time and
 *  transfers, or the host's), and the host's key work. */
void cli_report_sort_time(const cli_sort_stats *st);

/** Says that a sort of n keys of `type` on the device failed with the library's `rc`: one line
 *  with the library's first line of detail and, when the device ran out of memory, the hint of a
 *  smaller --buffer-size; the rest of the detail at -v 2. Returns CLI_EXIT_DEVICE. */
int cli_report_sort_error(clsort_ctx *ctx, int rc, size_t n, clsort_type type);

/** Sorts the chunk's records by key on the context's device: records of key size directly,
 *  others as (key, index) pairs whose ties are then put in input order, so that the order is the
 *  same whether the input is sorted at once or in runs. Returns CLI_EXIT_OK or CLI_EXIT_DEVICE
 *  after printing the library's error. */
int cli_chunk_sort(clsort_ctx *ctx, const cli_keyspec *ks, clsort_algorithm algo, int stable,
                   cli_chunk *c, cli_sort_stats *st);

/** Writes the chunk's records in sorted order (with ks->unique: only the first of equal records).
 *  Returns CLI_EXIT_OK or CLI_EXIT_IO (printed). */
int cli_chunk_write(cli_writer *w, const cli_keyspec *ks, const cli_chunk *c);

/** Reads the whole input and checks that its keys are in order (-c; with ks->unique, also that no
 *  two records are equal). Returns CLI_EXIT_OK,
 *  CLI_EXIT_DISORDER (says where) or CLI_EXIT_IO. */
int cli_check_input(cli_input *in, const cli_keyspec *ks);

#endif /* CLSORT_RECORDS_H */
