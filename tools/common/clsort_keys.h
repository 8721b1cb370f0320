/* clsort_keys.h - sort keys of the clsort tool: type names (little- and big-endian), the
 * OFFSET:TYPE[:r] key specs of --key, and the host's copy of the library's order, for one key
 * (cli_load_ordinal) and for whole records compared key by key (clsort_records.h). */
#ifndef CLSORT_KEYS_H
#define CLSORT_KEYS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "clsort.h"

/* At most this many --key options: enough for any record layout seen so far, and a fixed array
 * keeps cli_opts and cli_keyspec plain values. */
#define CLI_MAX_KEYS 8

/* One key of a record. `type` is the library's (little-endian) type; big_endian says that the
 * bytes in the record are in network order and must be swapped before they mean that type. */
typedef struct cli_key {
    clsort_type type;
    size_t size;    /* 4 or 8 */
    size_t offset;  /* where the key starts inside a record; may be unaligned */
    int reverse;    /* descending */
    int big_endian;
} cli_key;

/** Parses a key type name: u32, i32, f32, u64, i64, f64 (little-endian) or the same with a "be"
 *  suffix (u32be, ..., f64be: big-endian). Returns 0 and sets *type and *big_endian, or -1. */
int cli_type_parse(const char *name, clsort_type *type, int *big_endian);

/** The name cli_type_parse accepts for (type, big_endian), e.g. "i64be". */
const char *cli_type_name(clsort_type type, int big_endian);

/** Parses a --key argument "OFFSET:TYPE[:r]" (OFFSET in decimal bytes).
 *  Returns 0 and fills *key (reverse set only by ":r"), or -1. */
int cli_key_parse(const char *arg, cli_key *key);

static inline uint32_t cli_bswap32(uint32_t x)
{
    return (x >> 24) | ((x >> 8) & 0xff00u) | ((x << 8) & 0xff0000u) | (x << 24);
}

static inline uint64_t cli_bswap64(uint64_t x)
{
    return ((uint64_t)cli_bswap32((uint32_t)x) << 32) | cli_bswap32((uint32_t)(x >> 32));
}

/** Maps the key at `p` (size bytes of `type`, big-endian when `be`) to an unsigned number whose
 *  order is the library's order for the type (numeric for integers, IEEE totalOrder for floats),
 *  complemented when `reverse`. Equal keys give equal numbers; for floats that means identical bit
 *  patterns. */
static inline uint64_t cli_load_ordinal(clsort_type type, size_t size, int be, int reverse,
                                        const unsigned char *p)
{
    uint64_t v;
    if (size == 4) {
        uint32_t x;
        memcpy(&x, p, 4); /* the key may sit at any offset */
        if (be)
            x = cli_bswap32(x);
        switch (type) {
        case CLSORT_I32: x ^= 0x80000000u; break;
        case CLSORT_F32: x = (x & 0x80000000u) ? ~x : (x | 0x80000000u); break;
        default: break;
        }
        v = x;
    } else {
        memcpy(&v, p, 8);
        if (be)
            v = cli_bswap64(v);
        switch (type) {
        case CLSORT_I64: v ^= UINT64_C(0x8000000000000000); break;
        case CLSORT_F64:
            v = (v & UINT64_C(0x8000000000000000)) ? ~v : (v | UINT64_C(0x8000000000000000));
            break;
        default: break;
        }
    }
    return reverse ? ~v : v;
}

/** cli_load_ordinal for the key `k` of the record `rec`. */
static inline uint64_t cli_key_ord(const cli_key *k, const unsigned char *rec)
{
    return cli_load_ordinal(k->type, k->size, k->big_endian, k->reverse, rec + k->offset);
}

#endif /* CLSORT_KEYS_H */
