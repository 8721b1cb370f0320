/* clsort_records.h - records and their keys: the host's copy of the library's order, key
 * extraction at any offset, sorting one chunk of records on the device and writing it in order. */
#ifndef CLSORT_RECORDS_H
#define CLSORT_RECORDS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "clsort.h"
#include "clsort_fileio.h"

typedef struct cli_keyspec {
    clsort_type type;
    size_t key_size;
    size_t key_offset;
    size_t record_size;
    int reverse;
} cli_keyspec;

/** Maps the key of `rec` to an unsigned number whose order is the library's order for the type
 *  (numeric for integers, IEEE totalOrder for floats), complemented when descending. Equal keys
 *  give equal numbers; for floats that means identical bit patterns. */
static inline uint64_t cli_key_ordinal(const cli_keyspec *ks, const unsigned char *rec)
{
    const unsigned char *const p = rec + ks->key_offset;
    uint64_t v;
    if (ks->key_size == 4) {
        uint32_t x;
        memcpy(&x, p, 4); /* the key may sit at any offset */
        switch (ks->type) {
        case CLSORT_I32: x ^= 0x80000000u; break;
        case CLSORT_F32: x = (x & 0x80000000u) ? ~x : (x | 0x80000000u); break;
        default: break;
        }
        v = x;
    } else {
        memcpy(&v, p, 8);
        switch (ks->type) {
        case CLSORT_I64: v ^= UINT64_C(0x8000000000000000); break;
        case CLSORT_F64:
            v = (v & UINT64_C(0x8000000000000000)) ? ~v : (v | UINT64_C(0x8000000000000000));
            break;
        default: break;
        }
    }
    return ks->reverse ? ~v : v;
}

/** A chunk of records in host memory and the scratch space to sort it. */
typedef struct cli_chunk {
    unsigned char *recs; /* n records of record_size bytes */
    size_t n;
    void *keys;          /* n keys, when records are larger than keys */
    void *idx;           /* n record indices of idx_size bytes (4 or 8), idem */
    size_t idx_size;     /* 0 when the records themselves are sorted */
} cli_chunk;

/** Allocates a chunk able to hold `cap` records. Returns CLI_EXIT_OK or CLI_EXIT_IO (printed). */
int cli_chunk_alloc(cli_chunk *c, const cli_keyspec *ks, size_t cap);
void cli_chunk_free(cli_chunk *c);

/** Timings and what the library reported, summed over chunks. */
typedef struct cli_sort_stats {
    uint64_t sort_ns;      /* host clock around the library calls */
    uint64_t device_ns;    /* what the library measured on the device */
    uint64_t upload_ns, download_ns; /* the library's host-device transfers (profiled) */
    uint64_t prep_ns;      /* key extraction and tie ordering on the host */
    uint64_t keys;
    unsigned sorts;
    clsort_algorithm algorithm;
    int host_fallback;
} cli_sort_stats;

/** Sorts the chunk's records by key on the context's device: records of key size directly,
 *  others as (key, index) pairs whose ties are then put in input order, so that the order is the
 *  same whether the input is sorted at once or in runs. Returns CLI_EXIT_OK or CLI_EXIT_DEVICE
 *  after printing the library's error. */
int cli_chunk_sort(clsort_ctx *ctx, const cli_keyspec *ks, clsort_algorithm algo, int stable,
                   cli_chunk *c, cli_sort_stats *st);

/** Writes the chunk's records in sorted order. Returns CLI_EXIT_OK or CLI_EXIT_IO (printed). */
int cli_chunk_write(cli_writer *w, const cli_keyspec *ks, const cli_chunk *c);

/** Reads the whole input and checks that its keys are in order (-c). Returns CLI_EXIT_OK,
 *  CLI_EXIT_DISORDER (says where) or CLI_EXIT_IO. */
int cli_check_input(cli_input *in, const cli_keyspec *ks);

#endif /* CLSORT_RECORDS_H */
