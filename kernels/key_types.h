/* key_types.h - what a key type is, written once: every clsort_type's name, width, kind and
 * order transform, for the kernels, the library, the tools and the tests alike.
 *
 * Read by both sides, as manifest.h is: the host includes it as C (host/core/names.c, the host
 * sort, the API's narrow keys, tools/common/clsort_keys.h, the benchmarks' references, the tests),
 * and it is the second part of every program's source (common.cl builds to_order / from_order
 * from the macros below). Hence only preprocessor lines here: valid C and OpenCL C alike.
 * tests/test_key_types.c checks every consumer against these rows at the boundary values.
 * Adding a type is one row here (at the end: the row's index is its clsort_type value) and its
 * tests. */
#ifndef CLSORT_KEY_TYPES_H
#define CLSORT_KEY_TYPES_H

/* Kinds: how a key's bits are ordered. The values are the transform bits below. */
#define CLSORT_KIND_UINT 0u     /* unsigned integer: the bits themselves */
#define CLSORT_KIND_INT 1u      /* two's complement integer: flip the sign bit */
#define CLSORT_KIND_FLOAT 2u    /* IEEE 754 binary interchange format (or bfloat16): totalOrder */

/* ---- The table -------------------------------------------------------------------------------
 * X(ENUM, name, bits, kind, mant): the clsort_type CLSORT_<ENUM> (rows in the enum's order), its
 * name (clsort_type_name), its width in bits (8, 16, 32 or 64), its kind, and for floats the
 * bits of its significand field (0 for integers): f16 has 10, bfloat16 7. Everything else about
 * a type follows from these columns. */
#define CLSORT_KEY_TYPES(X)                        \
    X(U32, u32, 32, CLSORT_KIND_UINT, 0)           \
    X(I32, i32, 32, CLSORT_KIND_INT, 0)            \
    X(F32, f32, 32, CLSORT_KIND_FLOAT, 23)         \
    X(U64, u64, 64, CLSORT_KIND_UINT, 0)           \
    X(I64, i64, 64, CLSORT_KIND_INT, 0)            \
    X(F64, f64, 64, CLSORT_KIND_FLOAT, 52)         \
    X(U8, u8, 8, CLSORT_KIND_UINT, 0)              \
    X(I8, i8, 8, CLSORT_KIND_INT, 0)               \
    X(U16, u16, 16, CLSORT_KIND_UINT, 0)           \
    X(I16, i16, 16, CLSORT_KIND_INT, 0)            \
    X(F16, f16, 16, CLSORT_KIND_FLOAT, 10)         \
    X(BF16, bf16, 16, CLSORT_KIND_FLOAT, 7)

/* The significand bits of the float that is KEY_BITS wide in the kernels (only 32- and 64-bit
 * keys reach them: narrower keys are widened first). */
#define CLSORT_KT_WIDE_MANT(bits) ((bits) == 64 ? 52 : 23)

/* ---- The transform code (the kernels' `xf` argument) -----------------------------------------
 * bit 0: signed integer; bit 1: float; bit 2: descending (complement: the exact reverse);
 * bit 3: NaNs largest (floats only, CLSORT_NAN_LARGEST); bits 8 and up: the significand bits of
 * the float, which the NaN-largest rotation needs. */
#define CLSORT_XF_SIGNED 1u
#define CLSORT_XF_FLOAT 2u
#define CLSORT_XF_DESCEND 4u
#define CLSORT_XF_NANLAST 8u
#define CLSORT_XF(kind, mant, descending, nan_largest)                                        \
    ((kind) | ((descending) ? CLSORT_XF_DESCEND : 0u) |                                       \
     (((kind) == CLSORT_KIND_FLOAT && (nan_largest)) ? CLSORT_XF_NANLAST : 0u) |              \
     ((unsigned)(mant) << 8))

/* ---- The order transform ---------------------------------------------------------------------
 * TO_ORDER maps a key's BITS bits (held in the low bits of the unsigned type K, at least 32 bits
 * wide; T is K or a vector of K) to an unsigned number of BITS bits whose order is the key
 * type's order; FROM_ORDER is its exact inverse, so output bits are input bits. Integers:
 * numeric. Floats: totalOrder (negative values reversed: sign set -> flip every bit, else flip
 * the sign bit; -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN). With NANLAST the totalOrder
 * number is rotated down by the count of negative NaNs plus one, 2^mant - 1, so that -inf is 0
 * and every NaN, negative ones included, lies above +inf: still a bijection (so the sorts move
 * bits, never recompute them), and a refinement of CLSORT_NAN_LARGEST's order, in which NaNs
 * are all equal and -0 equals +0 (CLSORT_KT_SAME tells those apart where stability needs it).
 * Branch-free: the masks depend only on xf, uniform across a launch. */
#define CLSORT_KT_ONES(K, bits) (~(K)0 >> (8 * sizeof(K) - (bits)))
#define CLSORT_KT_SIGN(K, bits) ((K)1 << ((bits) - 1))
#define CLSORT_KT_FMASK(K, bits, xf) (((xf) & CLSORT_XF_FLOAT) ? CLSORT_KT_ONES(K, bits) : (K)0)
#define CLSORT_KT_SMASK(K, bits, xf) \
    (((xf) & (CLSORT_XF_FLOAT | CLSORT_XF_SIGNED)) ? CLSORT_KT_SIGN(K, bits) : (K)0)
#define CLSORT_KT_DMASK(K, bits, xf) (((xf) & CLSORT_XF_DESCEND) ? CLSORT_KT_ONES(K, bits) : (K)0)
#define CLSORT_KT_ROT(K, xf) \
    (((xf) & CLSORT_XF_NANLAST) ? ((K)1 << ((xf) >> 8)) - (K)1 : (K)0)
#define CLSORT_KT_TO_ORDER(T, K, bits, x, xf)                                                 \
    (((((x) ^ ((((T)0 - ((x) >> ((bits) - 1))) & CLSORT_KT_FMASK(K, bits, xf)) |              \
               CLSORT_KT_SMASK(K, bits, xf))) -                                               \
       CLSORT_KT_ROT(K, xf)) ^                                                                \
      CLSORT_KT_DMASK(K, bits, xf)) &                                                         \
     CLSORT_KT_ONES(K, bits))
/* t: the totalOrder number of y (undoing the descent and the rotation). */
#define CLSORT_KT_UNROT(K, bits, y, xf) \
    ((((y) ^ CLSORT_KT_DMASK(K, bits, xf)) + CLSORT_KT_ROT(K, xf)) & CLSORT_KT_ONES(K, bits))
#define CLSORT_KT_FROM_T(T, K, bits, t, xf)                                                   \
    (((t) ^ ((((T)0 - ((((t) >> ((bits) - 1)) & (K)1) ^ (K)1)) & CLSORT_KT_FMASK(K, bits, xf)) | \
             CLSORT_KT_SMASK(K, bits, xf))) &                                                 \
     CLSORT_KT_ONES(K, bits))
#define CLSORT_KT_FROM_ORDER(T, K, bits, y, xf) \
    CLSORT_KT_FROM_T(T, K, bits, CLSORT_KT_UNROT(K, bits, y, xf), xf)

/* ---- Equality under CLSORT_NAN_LARGEST ---------------------------------------------------------
 * IS_NAN: the key x (BITS bits, significand MANT bits) is a NaN. SAME: keys x and y compare
 * equal in the order xf gives: identical bits, or (floats with NANLAST) both NaNs or both zeros.
 * CLASS: a number whose order is the order xf gives and which is equal exactly for keys that
 * compare equal (the NANLAST order with the NaNs and zeros each collapsed to one value). */
#define CLSORT_KT_IS_NAN(K, bits, mant, x) \
    (((x) & (CLSORT_KT_ONES(K, bits) >> 1)) > (CLSORT_KT_ONES(K, bits) >> 1 >> (mant) << (mant)))
#define CLSORT_KT_IS_ZERO(K, bits, x) (((x) & (CLSORT_KT_ONES(K, bits) >> 1)) == (K)0)
#define CLSORT_KT_SAME(K, bits, x, y, xf)                                                     \
    ((x) == (y) ||                                                                            \
     (((xf) & CLSORT_XF_NANLAST) &&                                                           \
      ((CLSORT_KT_IS_NAN(K, bits, (xf) >> 8, x) && CLSORT_KT_IS_NAN(K, bits, (xf) >> 8, y)) || \
       (CLSORT_KT_IS_ZERO(K, bits, x) && CLSORT_KT_IS_ZERO(K, bits, y)))))
/* The class of x: NaNs take the NaN with all significand bits set (positive), zeros +0, then
 * TO_ORDER. */
#define CLSORT_KT_CANON(K, bits, x, xf)                                                       \
    (!((xf) & CLSORT_XF_NANLAST) ? (x)                                                        \
     : CLSORT_KT_IS_NAN(K, bits, (xf) >> 8, x) ? (CLSORT_KT_ONES(K, bits) >> 1)               \
     : CLSORT_KT_IS_ZERO(K, bits, x)           ? (K)0                                         \
                                               : (x))
#define CLSORT_KT_CLASS(K, bits, x, xf) \
    CLSORT_KT_TO_ORDER(K, K, bits, CLSORT_KT_CANON(K, bits, x, xf), xf)

#endif /* CLSORT_KEY_TYPES_H */
