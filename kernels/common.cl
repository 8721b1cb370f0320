/* common.cl - what every clsort network shares: parameters and their defaults, key and value
 * types, the order-preserving key transform, compare-exchange, and tile load/store.
 *
 * Every program's source is manifest.h, this file, then its own parts, concatenated in the order
 * manifest.h gives (CLSORT_PARTS_*). All parameters are -D defines made by one host function
 * (host/planning/params.c, clsort__build_options); the defaults below are for experiments only. */
#ifndef CLSORT_COMMON_CL
#define CLSORT_COMMON_CL

#ifndef KEY_BITS
#define KEY_BITS 32          /* 32 or 64: width of the keys in memory */
#endif
#ifndef VAL_BYTES
#define VAL_BYTES 0          /* 0 (keys alone), 4 or 8 */
#endif
#ifndef WG_SIZE
#define WG_SIZE 64           /* work-items per work-group in the tile passes */
#endif
#ifndef VEC_STEP
#define VEC_STEP 1           /* consecutive compare-exchanges per work-item per step */
#endif
#ifndef TILE
#define TILE 512             /* keys held in local memory by one work-group; power of two */
#endif
#ifndef KEYS_PER_ITEM
#define KEYS_PER_ITEM 8      /* keys held in private memory by one work-item in a global pass */
#endif
#ifndef INDEX_BITS
#define INDEX_BITS 64        /* 32 when every index (and batch offset) fits in 31 bits */
#endif

#if KEY_BITS == 64
typedef ulong key_type;
#elif KEY_BITS == 32
typedef uint key_type;
#else
#error "KEY_BITS must be 32 or 64"
#endif

#if VAL_BYTES == 8
typedef ulong val_type;
#elif VAL_BYTES == 4
typedef uint val_type;
#elif VAL_BYTES != 0
#error "VAL_BYTES must be 0, 4 or 8"
#endif

#if INDEX_BITS == 32
typedef uint idx_t;
#else
typedef ulong idx_t;
#endif

/* Kernel parameter lists differ only by whether values travel with the keys. */
/* IF_VALS(code): `code` when values travel with the keys (VAL_BYTES != 0), nothing otherwise, so
 * that one load/store macro or kernel body serves keys alone and pairs. */
#if VAL_BYTES
#define IF_VALS(...) __VA_ARGS__
#else
#define IF_VALS(...)
#endif

#if VAL_BYTES
#define VALS_PARAM , __global val_type *restrict vals
#define VALS_ARG , vals
#define LOCAL_VALS(name, count) __local val_type name[count]
#else
#define VALS_PARAM
#define VALS_ARG
#define LOCAL_VALS(name, count)
#endif

/* The key transform, selected at run time by the kernel argument `xf` (uniform, so the branches
 * cost nothing measurable next to memory traffic, and one program serves every key type and both
 * directions): CLSORT_XF_* and CLSORT_KT_TO_ORDER / CLSORT_KT_FROM_ORDER of key_types.h, the
 * table every part of clsort reads. to_order maps a key's bits to an unsigned integer whose order
 * is the documented order; from_order is its exact inverse, so output bits are input bits. */
#define XF_SIGNED CLSORT_XF_SIGNED
#define XF_FLOAT CLSORT_XF_FLOAT
#define XF_DESCEND CLSORT_XF_DESCEND

/* The bodies are macros over the key's type T, so that rows.cl applies the same transform to a
 * vector of keys (T key_row; the masks are scalars, widened to every lane), and over the scalar
 * type K of BITS bits, so that segmented.cl's 64-bit program applies it to 32-bit keys too
 * (order32, unorder32). */
#define TO_ORDER_OF(T, K, BITS, x, xf) return CLSORT_KT_TO_ORDER(T, K, BITS, x, xf)
#define FROM_ORDER_OF(T, K, BITS, y, xf) return CLSORT_KT_FROM_ORDER(T, K, BITS, y, xf)
#define TO_ORDER_BODY(T, x, xf) TO_ORDER_OF(T, key_type, KEY_BITS, x, xf)
#define FROM_ORDER_BODY(T, y, xf) FROM_ORDER_OF(T, key_type, KEY_BITS, y, xf)

inline key_type to_order(const key_type x, const uint xf)
{
    TO_ORDER_BODY(key_type, x, xf);
}

inline key_type from_order(key_type y, const uint xf)
{
    FROM_ORDER_BODY(key_type, y, xf);
}

/* Positions at or beyond n hold a virtual key above every real key. In order space that is the
 * all-ones value: a compare-exchange swaps only when the lower position holds the strictly greater
 * key, so a real all-ones key and a virtual one never trade places, and a virtual key never moves.
 * Every network here puts the minimum at the lower position, so skipping a comparator whose upper
 * partner is virtual is exactly what the padded network would do (docs/kernels.md). */
#define KEY_VIRTUAL (~(key_type)0)

/* Compare-exchange of two keys (and their values), the lower position first: the minimum goes
 * to KA. CMPX does it for slots a < b of arrays K (keys) and V (values). */
#if VAL_BYTES
#define CMPX_LV(KA, KB, VA, VB)                            \
    do {                                                   \
        const key_type ka_ = (KA), kb_ = (KB);             \
        const val_type va_ = (VA), vb_ = (VB);             \
        const bool sw_ = ka_ > kb_;                        \
        (KA) = sw_ ? kb_ : ka_;                            \
        (KB) = sw_ ? ka_ : kb_;                            \
        (VA) = sw_ ? vb_ : va_;                            \
        (VB) = sw_ ? va_ : vb_;                            \
    } while (0)
#else
#define CMPX_LV(KA, KB, VA, VB)                            \
    do {                                                   \
        const key_type ka_ = (KA), kb_ = (KB);             \
        (KA) = min(ka_, kb_);                              \
        (KB) = max(ka_, kb_);                              \
    } while (0)
#endif
#define CMPX(K, V, a, b) CMPX_LV(K[a], K[b], V[a], V[b])

/* One compare-exchange in global memory, positions lo < hi (both below n): the single-level
 * passes of the odd-even merge and of the transposition network's merge-split. */
#if VAL_BYTES
#define VALS_SEGMENT_ARG , vals + SEGMENT_BASE()
inline void global_cmpx(__global key_type *keys, __global val_type *vals, const idx_t lo,
                        const idx_t hi, const uint xf)
#else
#define VALS_SEGMENT_ARG
inline void global_cmpx(__global key_type *keys, const idx_t lo, const idx_t hi, const uint xf)
#endif
{
    const key_type a = to_order(keys[lo], xf), b = to_order(keys[hi], xf);
    if (a > b) {
        keys[lo] = from_order(b, xf);
        keys[hi] = from_order(a, xf);
#if VAL_BYTES
        const val_type t = vals[lo];
        vals[lo] = vals[hi];
        vals[hi] = t;
#endif
    }
}

/* Index of the c-th comparator's lower element for a stride-j level: insert a zero bit at j. */
inline idx_t insert_zero(const idx_t c, const idx_t j)
{
    return ((c & ~(j - 1)) << 1) | (c & (j - 1));
}

/* The same on 32-bit slots within a tile or a segment (the segmented and top-k programs, whose
 * idx_t is 64 bits wide). */
inline uint insert_zero_u32(const uint c, const uint j)
{
    return ((c & ~(j - 1u)) << 1) | (c & (j - 1u));
}

/* Batches: dimension 1 of every launch numbers independent arrays of n keys stored back to back
 * (clsort_sort_batch); a plain sort has one. */
#define SEGMENT_BASE() ((idx_t)get_global_id(1) * n)

/* Loads `count` keys starting at global position `first` into local slots [0, count), the
 * virtual key where the position is at or beyond n (including positions that wrapped below 0). */
inline void load_local(__local key_type *lk, __global const key_type *keys, const idx_t first,
                       const uint count, const idx_t n, const uint xf)
{
    for (uint s = get_local_id(0); s < count; s += WG_SIZE) {
        const idx_t p = first + s;
        lk[s] = p < n ? to_order(keys[p], xf) : KEY_VIRTUAL;
    }
}

inline void store_local(__global key_type *keys, __local const key_type *lk, const idx_t first,
                        const uint from, const uint count, const idx_t n, const uint xf)
{
    for (uint s = from + get_local_id(0); s < count; s += WG_SIZE) {
        const idx_t p = first + s;
        if (p < n)
            keys[p] = from_order(lk[s], xf);
    }
}

#if VAL_BYTES
inline void load_local_vals(__local val_type *lv, __global const val_type *vals, const idx_t first,
                            const uint count, const idx_t n)
{
    for (uint s = get_local_id(0); s < count; s += WG_SIZE) {
        const idx_t p = first + s;
        lv[s] = p < n ? vals[p] : 0;
    }
}

inline void store_local_vals(__global val_type *vals, __local const val_type *lv,
                             const idx_t first, const uint from, const uint count, const idx_t n)
{
    for (uint s = from + get_local_id(0); s < count; s += WG_SIZE) {
        const idx_t p = first + s;
        if (p < n)
            vals[p] = lv[s];
    }
}
#define LOAD_TILE(first, count)                                 \
    do {                                                        \
        load_local(lk, keys, first, count, n, xf);              \
        load_local_vals(lv, vals, first, count, n);             \
    } while (0)
#define STORE_TILE(first, from, count)                          \
    do {                                                        \
        store_local(keys, lk, first, from, count, n, xf);       \
        store_local_vals(vals, lv, first, from, count, n);      \
    } while (0)
#else
#define LOAD_TILE(first, count) load_local(lk, keys, first, count, n, xf)
#define STORE_TILE(first, from, count) store_local(keys, lk, first, from, count, n, xf)
#endif

/* The opening of a tile pass that sorts in local memory (oem_sort_tile, oet_sort_tile): the tile's
 * TILE keys (and values) of this work-group, loaded into lk (lv) for the whole work-group. */
#define LOCAL_TILE_PROLOGUE()                                   \
    __local key_type lk[TILE];                                  \
    LOCAL_VALS(lv, TILE);                                       \
    keys += SEGMENT_BASE();                                     \
    IF_VALS(vals += SEGMENT_BASE();)                            \
    const idx_t first = (idx_t)get_group_id(0) * TILE;          \
    LOAD_TILE(first, TILE);                                     \
    barrier(CLK_LOCAL_MEM_FENCE)

/* Loops over this work-item's share of `total` comparators in one level: VEC_STEP consecutive
 * comparators per work-item per step, so neighbouring work-items touch neighbouring slots. */
#define FOR_EACH_COMPARATOR(c, total)                                                     \
    for (uint c##0_ = get_local_id(0) * VEC_STEP; c##0_ < (total); c##0_ += WG_SIZE * VEC_STEP) \
        for (uint c = c##0_; c < c##0_ + VEC_STEP && c < (total); ++c)

#endif /* CLSORT_COMMON_CL */
