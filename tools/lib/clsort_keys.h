/* clsort_keys.h - sort keys of the clsort tool: type names (little- and big-endian), the
 * OFFSET:TYPE[:r] key specs of --key, and the host's copy of the library's order, for one key
 * (cli_load_ordinal) and for whole records compared key by key (clsort_records.h). */
#ifndef CLSORT_KEYS_H
#define CLSORT_KEYS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "clsort.h"

#include "../kernels/key_types.h"

/* At most this many --key options: enough for any record layout seen so far, and a fixed array
 * keeps cli_opts and cli_keyspec plain values. */
#define CLI_MAX_KEYS 8

/* One key of a record. `type` is the library's (little-endian) type; big_endian says that the
 * bytes in the record are in network order and must be swapped before they mean that type. */
typedef struct cli_key {
    clsort_type type;
    size_t size;    /* 1, 2, 4 or 8 */
    size_t offset;  /* where the key starts inside a record; may be unaligned */
    int reverse;    /* descending */
    int big_endian;
    int nan_largest; /* --nan-largest: CLSORT_NAN_LARGEST's order */
} cli_key;

/** Parses a key type name: a name of clsort_type_name (u32, ..., bf16: little-endian) or the
 *  same with a "be" suffix (u16be, ..., bf16be: big-endian; not for one-byte types). Returns 0 and sets *type and *big_endian, or -1. */
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

/** The row of the key-type table (kernels/key_types.h) of type: its transform code with these
 *  flags (the significand bits and kind). */
static inline unsigned cli_type_xf(clsort_type type, int reverse, int nan_largest)
{
#define CLI_XF_ROW_(E, name, bits, kind, mant) \
    if (type == CLSORT_##E)                    \
        return CLSORT_XF(kind, mant, reverse, nan_largest);
    CLSORT_KEY_TYPES(CLI_XF_ROW_)
#undef CLI_XF_ROW_
    return 0;
}

/** Maps the key at `p` (size bytes of `type`, big-endian when `be`) to an unsigned number whose
 *  order is the library's order for the type (numeric for integers, IEEE totalOrder for floats,
 *  or with nan_largest CLSORT_NAN_LARGEST's), complemented when `reverse`: the table's class
 *  (CLSORT_KT_CLASS). Keys that compare equal give equal numbers: for floats identical bit
 *  patterns, or with nan_largest also any two NaNs and the two zeros. */
static inline uint64_t cli_load_ordinal(clsort_type type, size_t size, int be, int reverse,
                                        int nan_largest, const unsigned char *p)
{
    const unsigned xf = cli_type_xf(type, reverse, nan_largest);
    uint64_t v;
    if (size == 8) {
        memcpy(&v, p, 8); /* the key may sit at any offset */
        if (be)
            v = cli_bswap64(v);
        return CLSORT_KT_CLASS(uint64_t, 64, v, xf);
    }
    uint32_t x = 0;
    if (size == 4) {
        memcpy(&x, p, 4);
        if (be)
            x = cli_bswap32(x);
    } else if (size == 2) {
        uint16_t h;
        memcpy(&h, p, 2);
        x = be ? (uint32_t)(h >> 8 | (h & 0xffu) << 8) : h;
    } else {
        x = *p;
    }
    return CLSORT_KT_CLASS(uint32_t, (unsigned)size * 8, x, xf);
}

/** cli_load_ordinal for the key `k` of the record `rec`. */
static inline uint64_t cli_key_ord(const cli_key *k, const unsigned char *rec)
{
    return cli_load_ordinal(k->type, k->size, k->big_endian, k->reverse, k->nan_largest,
                            rec + k->offset);
}

#endif /* CLSORT_KEYS_H */
