/* names.c - the public lookup functions of key types and algorithms: sizes, names and their
 * parsing (include/clsort.h), from the key-type table (kernels/key_types.h). A leaf. */
#include "clsort.h"

#include "../kernels/key_types.h"

#include <string.h>

/* The rows of kernels/key_types.h, in clsort_type's order. */
static const struct {
    const char *name;
    unsigned bits;
} types[] = {
#define CLSORT__ROW(E, name, bits, kind, mant) {#name, bits},
    CLSORT_KEY_TYPES(CLSORT__ROW)
#undef CLSORT__ROW
};
#define NTYPES (sizeof types / sizeof types[0])

/* The table's rows are the enum's values in order. */
enum {
#define CLSORT__ROW(E, name, bits, kind, mant) CLSORT__ROW_##E,
    CLSORT_KEY_TYPES(CLSORT__ROW)
#undef CLSORT__ROW
    CLSORT__ROWS
};
#define CLSORT__CHECK_ROW(E, name, bits, kind, mant) \
    _Static_assert((int)CLSORT_##E == (int)CLSORT__ROW_##E, "key_types.h row out of order");
CLSORT_KEY_TYPES(CLSORT__CHECK_ROW)
#undef CLSORT__CHECK_ROW

static const char *const algo_names[] = {"auto", "bitonic", "odd-even-merge",
                                         "odd-even-transposition", "radix"};
#define NALGOS (sizeof algo_names / sizeof algo_names[0])

size_t clsort_type_size(clsort_type type)
{
    return (unsigned)type < NTYPES ? types[type].bits / 8 : 0;
}

/* A fixed string, not NULL, for values outside the enum: callers print names in messages, and
 * printf's %s of NULL is undefined. */
const char *clsort_type_name(clsort_type type)
{
    return (unsigned)type < NTYPES ? types[type].name : "unknown";
}

int clsort_type_parse(const char *name, clsort_type *type)
{
    for (unsigned i = 0; name && i < NTYPES; ++i)
        if (!strcmp(name, types[i].name)) {
            *type = (clsort_type)i;
            return 0;
        }
    return -1;
}

const char *clsort_algorithm_name(clsort_algorithm algo)
{
    return (unsigned)algo < NALGOS ? algo_names[algo] : "unknown";
}

int clsort_algorithm_parse(const char *name, clsort_algorithm *algo)
{
    for (size_t i = 0; name && i < NALGOS; ++i)
        if (!strcmp(name, algo_names[i])) {
            *algo = (clsort_algorithm)i;
            return 0;
        }
    return -1;
}
