/* clsort_keys.c - key type names with their byte order, and the OFFSET:TYPE[:r] specs of --key. */
#include "clsort_keys.h"

#include <ctype.h>
#include <stdlib.h>

int cli_type_parse(const char *name, clsort_type *type, int *big_endian)
{
    char base[8];
    const size_t len = name ? strlen(name) : 0;
    int be = 0;
    if (len < 2 || len > 6)
        return -1;
    memcpy(base, name, len + 1);
    /* "be" ends a big-endian name; no type name of the table ends so. */
    if (base[len - 2] == 'b' && base[len - 1] == 'e') {
        be = 1;
        base[len - 2] = '\0';
    }
    if (clsort_type_parse(base, type) != 0)
        return -1;
    /* One byte has no byte order. */
    if (be && clsort_type_size(*type) == 1)
        return -1;
    *big_endian = be;
    return 0;
}

const char *cli_type_name(clsort_type type, int big_endian)
{
    /* The table's names with "be" appended, in clsort_type's order. */
    static const char *const be_names[] = {
#define CLI_ROW_(E, name, bits, kind, mant) #name "be",
        CLSORT_KEY_TYPES(CLI_ROW_)
#undef CLI_ROW_
    };
    if (!big_endian)
        return clsort_type_name(type);
    return (unsigned)type < sizeof be_names / sizeof *be_names && clsort_type_size(type) > 1
               ? be_names[type]
               : "?";
}

int cli_key_parse(const char *arg, cli_key *key)
{
    const char *c1 = strchr(arg, ':');
    if (!c1 || c1 == arg)
        return -1;
    char tname[8];
    /* Decimal bytes; a record offset never needs a size suffix. */
    uint64_t off = 0;
    for (const char *p = arg; p < c1; ++p) {
        if (!isdigit((unsigned char)*p) || off > (SIZE_MAX / 2 - 9) / 10)
            return -1;
        off = off * 10 + (uint64_t)(*p - '0');
    }
    const char *t = c1 + 1;
    const char *c2 = strchr(t, ':');
    const size_t tlen = c2 ? (size_t)(c2 - t) : strlen(t);
    if (tlen == 0 || tlen >= sizeof tname)
        return -1;
    memcpy(tname, t, tlen);
    tname[tlen] = '\0';
    memset(key, 0, sizeof *key);
    if (cli_type_parse(tname, &key->type, &key->big_endian) != 0)
        return -1;
    if (c2 && strcmp(c2 + 1, "r") != 0)
        return -1;
    key->reverse = c2 != NULL;
    key->offset = (size_t)off;
    key->size = clsort_type_size(key->type);
    return key->size ? 0 : -1;
}
