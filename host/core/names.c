/* names.c - the public lookup functions of key types and algorithms: sizes, names and their
 * parsing (include/clsort.h). A leaf: they need nothing but the public header. */
#include "clsort.h"

#include <string.h>

static const char *const type_names[] = {"u32", "i32", "f32", "u64", "i64", "f64"};
static const char *const algo_names[] = {"auto", "bitonic", "odd-even-merge",
                                         "odd-even-transposition", "radix"};
#define NALGOS (sizeof algo_names / sizeof algo_names[0])

size_t clsort_type_size(clsort_type type)
{
    switch (type) {
    case CLSORT_U32:
    case CLSORT_I32:
    case CLSORT_F32:
        return 4;
    case CLSORT_U64:
    case CLSORT_I64:
    case CLSORT_F64:
        return 8;
    }
    return 0;
}

/* A fixed string, not NULL, for values outside the enum: callers print names in messages, and
 * printf's %s of NULL is undefined. */
const char *clsort_type_name(clsort_type type)
{
    return (unsigned)type < 6 ? type_names[type] : "unknown";
}

int clsort_type_parse(const char *name, clsort_type *type)
{
    for (int i = 0; name && i < 6; ++i)
        if (!strcmp(name, type_names[i])) {
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
