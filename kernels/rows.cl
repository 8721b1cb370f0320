/* rows.cl - a row of VEC_STEP adjacent keys held as one OpenCL vector (VEC_STEP = 2, 4, 8 or
 * 16): the CPU shapes of bitonic's global passes and solo tiles (bitonic.cl, ROWS_VEC).
 *
 * Why vectors: a global pass with VEC_STEP columns compares whole rows with whole rows, which
 * PoCL vectorised from plain arrays as well; but the comparators *between* the columns of one row
 * (a solo tile's network, and the tile's half-cleaners that the tail kernels fold into a merge's
 * last pass) ran one key at a time there: on the 2-core PoCL machine a tail pass took 3.5-4.2 ms
 * at 2^22 keys against 0.33 ms for a row pass, 65% of the sort (docs/perf.md). In a vector, a
 * level between lanes is one swizzle, a min, a max and a select.
 *
 * Everything here is standard OpenCL C (vloadn/vstoren, swizzles, select), so any device builds
 * it; the lane networks are written out by the preprocessor because a swizzle needs constant
 * lane numbers. */

#if VEC_STEP == 2 || VEC_STEP == 4 || VEC_STEP == 8 || VEC_STEP == 16
#define ROWS_VEC 1

#define ROWS_CAT_(a, b) a##b
#define ROWS_CAT(a, b) ROWS_CAT_(a, b)
#if KEY_BITS == 64
#define ROW_KEY_T ROWS_CAT(ulong, VEC_STEP)
#define ROW_KMASK_T ROWS_CAT(long, VEC_STEP)
#else
#define ROW_KEY_T ROWS_CAT(uint, VEC_STEP)
#define ROW_KMASK_T ROWS_CAT(int, VEC_STEP)
#endif
typedef ROW_KEY_T key_row;   /* VEC_STEP keys, lane c = column c */
typedef ROW_KMASK_T key_mask; /* per lane -1 (true) or 0, as relational operators give */
#if VAL_BYTES == 8
#define ROW_VMASK_T ROWS_CAT(long, VEC_STEP)
typedef ROWS_CAT(ulong, VEC_STEP) val_row;
#elif VAL_BYTES == 4
#define ROW_VMASK_T ROWS_CAT(int, VEC_STEP)
typedef ROWS_CAT(uint, VEC_STEP) val_row;
#endif
/* A key mask as a mask for the value lanes (select needs lanes of the same width). */
#if VAL_BYTES * 8 == KEY_BITS
#define VAL_MASK(m) (m)
#else
#define VAL_MASK(m) ROWS_CAT(convert_, ROW_VMASK_T)(m)
#endif
#define ROW_VLOAD ROWS_CAT(vload, VEC_STEP)
#define ROW_VSTORE ROWS_CAT(vstore, VEC_STEP)

inline key_row row_to_order(const key_row x, const uint xf)
{
    TO_ORDER_BODY(key_row, x, xf);
}

inline key_row row_from_order(key_row y, const uint xf)
{
    FROM_ORDER_BODY(key_row, y, xf);
}

/* Row loads and stores at position `at` (the row's lowest position): lanes at or beyond n read
 * the virtual key (value 0) and are not written. ALL_IN (a compile-time constant where used):
 * the whole row is below n, one vector access. */
#define ROW_LOAD(K, V, at, ALL_IN)                                                      \
    do {                                                                                \
        const idx_t at_ = (at);                                                         \
        if (ALL_IN) {                                                                   \
            K = row_to_order(ROW_VLOAD(0, keys + at_), xf);                             \
            IF_VALS(V = ROW_VLOAD(0, vals + at_);)                                      \
        } else {                                                                        \
            key_type tk_[VEC_STEP];                                                     \
            IF_VALS(val_type tv_[VEC_STEP];)                                            \
            _Pragma("unroll") for (uint c_ = 0; c_ < VEC_STEP; ++c_) {                  \
                tk_[c_] = at_ + c_ < n ? to_order(keys[at_ + c_], xf) : KEY_VIRTUAL;    \
                IF_VALS(tv_[c_] = at_ + c_ < n ? vals[at_ + c_] : 0;)                   \
            }                                                                           \
            K = ROW_VLOAD(0, tk_);                                                      \
            IF_VALS(V = ROW_VLOAD(0, tv_);)                                             \
        }                                                                               \
    } while (0)
#define ROW_STORE(K, V, at, ALL_IN)                                                     \
    do {                                                                                \
        const idx_t at_ = (at);                                                         \
        if (ALL_IN) {                                                                   \
            ROW_VSTORE(row_from_order(K, xf), 0, keys + at_);                           \
            IF_VALS(ROW_VSTORE(V, 0, vals + at_);)                                      \
        } else {                                                                        \
            key_type tk_[VEC_STEP];                                                     \
            IF_VALS(val_type tv_[VEC_STEP];)                                            \
            ROW_VSTORE(K, 0, tk_);                                                      \
            IF_VALS(ROW_VSTORE(V, 0, tv_);)                                             \
            _Pragma("unroll") for (uint c_ = 0; c_ < VEC_STEP; ++c_)                    \
                if (at_ + c_ < n) {                                                     \
                    keys[at_ + c_] = from_order(tk_[c_], xf);                           \
                    IF_VALS(vals[at_ + c_] = tv_[c_];)                                  \
                }                                                                       \
        }                                                                               \
    } while (0)

/* Compare-exchange of two whole rows, column by column: the minimum to row A. */
#if VAL_BYTES
#define ROW_CMPX(KA, KB, VA, VB)                                                        \
    do {                                                                                \
        const key_row ka_ = (KA), kb_ = (KB);                                           \
        const val_row va_ = (VA), vb_ = (VB);                                           \
        const key_mask sw_ = ka_ > kb_;                                                 \
        (KA) = select(ka_, kb_, sw_);                                                   \
        (KB) = select(kb_, ka_, sw_);                                                   \
        (VA) = select(va_, vb_, VAL_MASK(sw_));                                         \
        (VB) = select(vb_, va_, VAL_MASK(sw_));                                         \
    } while (0)
#else
#define ROW_CMPX(KA, KB, VA, VB)                                                        \
    do {                                                                                \
        const key_row ka_ = (KA), kb_ = (KB);                                           \
        (KA) = min(ka_, kb_);                                                           \
        (KB) = max(ka_, kb_);                                                           \
    } while (0)
#endif

/* Lane swizzles: LANE_XOR_x(r) gives lane c the key of lane c ^ x. x = s is a half-cleaner of
 * stride s, x = 2s - 1 the flip of blocks of 2s lanes; x = VEC_STEP - 1 reverses the row. */
#if VEC_STEP == 16
#define LANE_IDS ((key_mask)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15))
#define LANE_XOR_1(r) (r).s1032547698badcfe
#define LANE_XOR_2(r) (r).s23016745ab89efcd
#define LANE_XOR_3(r) (r).s32107654ba98fedc
#define LANE_XOR_4(r) (r).s45670123cdef89ab
#define LANE_XOR_7(r) (r).s76543210fedcba98
#define LANE_XOR_8(r) (r).s89abcdef01234567
#define LANE_XOR_15(r) (r).sfedcba9876543210
#define ROW_REVERSE(r) LANE_XOR_15(r)
#elif VEC_STEP == 8
#define LANE_IDS ((key_mask)(0, 1, 2, 3, 4, 5, 6, 7))
#define LANE_XOR_1(r) (r).s10325476
#define LANE_XOR_2(r) (r).s23016745
#define LANE_XOR_3(r) (r).s32107654
#define LANE_XOR_4(r) (r).s45670123
#define LANE_XOR_7(r) (r).s76543210
#define ROW_REVERSE(r) LANE_XOR_7(r)
#elif VEC_STEP == 4
#define LANE_IDS ((key_mask)(0, 1, 2, 3))
#define LANE_XOR_1(r) (r).s1032
#define LANE_XOR_2(r) (r).s2301
#define LANE_XOR_3(r) (r).s3210
#define ROW_REVERSE(r) LANE_XOR_3(r)
#else
#define LANE_IDS ((key_mask)(0, 1))
#define LANE_XOR_1(r) (r).s10
#define ROW_REVERSE(r) LANE_XOR_1(r)
#endif

/* One level between the lanes of a row: lane c against lane c ^ x, the minimum to the lower lane
 * of each pair, which is the one whose bit `low` (the highest bit of x) is clear. With values,
 * a lane takes its partner's key and value only when strictly out of order, as CMPX does. */
#if VAL_BYTES
#define LANE_LEVEL(K, V, x, low)                                                        \
    do {                                                                                \
        const key_row pk_ = LANE_XOR_##x(K);                                            \
        const val_row pv_ = LANE_XOR_##x(V);                                            \
        const key_mask lo_ = (LANE_IDS & (low)) == 0;                                   \
        const key_mask take_ = select(pk_ > (K), (K) > pk_, lo_);                       \
        (K) = select((K), pk_, take_);                                                  \
        (V) = select((V), pv_, VAL_MASK(take_));                                        \
    } while (0)
#else
#define LANE_LEVEL(K, V, x, low)                                                        \
    do {                                                                                \
        const key_row pk_ = LANE_XOR_##x(K);                                            \
        const key_mask lo_ = (LANE_IDS & (low)) == 0;                                   \
        (K) = select(max((K), pk_), min((K), pk_), lo_);                                \
    } while (0)
#endif

/* Half-cleaners of strides 2^(b-1) .. 1 in every block of 2^b lanes (LANE_CLEAN_b), and the
 * bitonic sort of every such block (LANE_SORT_b: merges of 2, 4, .., 2^b lanes, each a flip and
 * half-cleaners). On a row of VEC_STEP = 2^b lanes they clean and sort the whole row. */
#define LANE_CLEAN_1(K, V) LANE_LEVEL(K, V, 1, 1)
#define LANE_CLEAN_2(K, V) LANE_LEVEL(K, V, 2, 2); LANE_CLEAN_1(K, V)
#define LANE_CLEAN_3(K, V) LANE_LEVEL(K, V, 4, 4); LANE_CLEAN_2(K, V)
#define LANE_CLEAN_4(K, V) LANE_LEVEL(K, V, 8, 8); LANE_CLEAN_3(K, V)
#define LANE_SORT_1(K, V) LANE_LEVEL(K, V, 1, 1)
#define LANE_SORT_2(K, V) LANE_SORT_1(K, V); LANE_LEVEL(K, V, 3, 2); LANE_CLEAN_1(K, V)
#define LANE_SORT_3(K, V) LANE_SORT_2(K, V); LANE_LEVEL(K, V, 7, 4); LANE_CLEAN_2(K, V)
#define LANE_SORT_4(K, V) LANE_SORT_3(K, V); LANE_LEVEL(K, V, 15, 8); LANE_CLEAN_3(K, V)
#if VEC_STEP == 16
#define ROW_CLEAN(K, V) LANE_CLEAN_4(K, V)
#define ROW_SORT(K, V) LANE_SORT_4(K, V)
#elif VEC_STEP == 8
#define ROW_CLEAN(K, V) LANE_CLEAN_3(K, V)
#define ROW_SORT(K, V) LANE_SORT_3(K, V)
#elif VEC_STEP == 4
#define ROW_CLEAN(K, V) LANE_CLEAN_2(K, V)
#define ROW_SORT(K, V) LANE_SORT_2(K, V)
#else
#define ROW_CLEAN(K, V) LANE_CLEAN_1(K, V)
#define ROW_SORT(K, V) LANE_SORT_1(K, V)
#endif

#else
#define ROWS_VEC 0
#endif /* VEC_STEP in 2..16 */

