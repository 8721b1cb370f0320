/* keytype.h - the key-type table (kernels/key_types.h) as the library asks it: a type's width,
 * kind and significand bits, the kernels' transform code for a sort's flags, and whether a
 * type is one the devices sort only as wider keys (dispatch/narrow_keys.c). */
#ifndef CLSORT_KEYTYPE_H
#define CLSORT_KEYTYPE_H

#include "clsort.h"

#include "../kernels/key_types.h"

/* One row of the table. */
typedef struct clsort__keytype {
    unsigned bits, kind, mant;
} clsort__keytype;

/* The row of type (type checked by the caller; a zero row otherwise). */
static inline clsort__keytype clsort__keytype_of(clsort_type type)
{
    static const clsort__keytype rows[] = {
#define CLSORT__ROW(E, name, bits, kind, mant) {bits, kind, mant},
        CLSORT_KEY_TYPES(CLSORT__ROW)
#undef CLSORT__ROW
    };
    const clsort__keytype none = {0, 0, 0};
    return (unsigned)type < sizeof rows / sizeof rows[0] ? rows[type] : none;
}

/* The transform code (CLSORT_XF_*) of type under flags: CLSORT_DESCENDING and
 * CLSORT_NAN_LARGEST count, the rest not. */
static inline unsigned clsort__type_xf(clsort_type type, unsigned flags)
{
    const clsort__keytype t = clsort__keytype_of(type);
    return CLSORT_XF(t.kind, t.mant, flags & CLSORT_DESCENDING, flags & CLSORT_NAN_LARGEST);
}

/* 1 for the keys narrower than 32 bits, which the devices sort as wider keys. */
static inline int clsort__type_narrow(clsort_type type)
{
    const unsigned bits = clsort__keytype_of(type).bits;
    return bits && bits < 32;
}

/* 1 where CLSORT_NAN_LARGEST makes keys with different bits compare equal: float keys with the
 * flag. Stable sorts of such keys need their positions (dispatch/narrow_keys.c). */
static inline int clsort__type_collapses(clsort_type type, unsigned flags)
{
    return (flags & CLSORT_NAN_LARGEST) && clsort__keytype_of(type).kind == CLSORT_KIND_FLOAT;
}

#endif /* CLSORT_KEYTYPE_H */
