/* bitonic_global.cl - (b) of bitonic.cl: the global passes over strides >= TILE, R fused levels a
 * work-item in registers (bitonic_global_rR, bitonic_flip_rR, and the _tail_ variants that also
 * run the tile's half-cleaners). Only in the bitonic program (manifest.h). */

/* (b) R fused levels with strides jlow << (R-1), ..., jlow, the first one a flip when `flip`.
 *
 * Work-item t owns 2^R keys, kept in private memory in ascending order of position. Without a
 * flip they sit at base + m*jlow (base = t with R zero bits inserted at bit log2(jlow)), and the
 * levels are half-cleaners on slot strides 2^(R-1), ..., 1. With a flip (merge block 2*jhigh),
 * the lower half sits at base + m*jlow and the upper half at the mirror images, which in ascending
 * order are mirror(base) - (2^R-1-m)*jlow; the flip then pairs slot m with slot 2^R-1-m, and the
 * half-cleaners pair slots by xor as before. The set is closed under all R levels, so one load and
 * one store serve R levels. */
/* Loads and stores of a global pass's rows; ALL_IN: every position is known to be below n. */
#define GLOBAL_ROWS_LOAD(ALL_IN)                                                        \
    _Pragma("unroll") for (uint m = 0; m < KEYS_PER_ITEM; ++m) {                        \
        if (m >= cnt)                                                                   \
            break;                                                                      \
        _Pragma("unroll") for (uint c = 0; c < VEC_STEP; ++c) {                         \
            const idx_t p = POS_(m, c);                                                 \
            k[m][c] = (ALL_IN || p < n) ? to_order(keys[p], xf) : KEY_VIRTUAL;         \
            IF_VALS(v[m][c] = (ALL_IN || p < n) ? vals[p] : 0;)                         \
        }                                                                               \
    }
#define GLOBAL_ROWS_STORE(ALL_IN)                                                       \
    _Pragma("unroll") for (uint m = 0; m < KEYS_PER_ITEM; ++m) {                        \
        if (m >= cnt)                                                                   \
            break;                                                                      \
        _Pragma("unroll") for (uint c = 0; c < VEC_STEP; ++c) {                         \
            const idx_t p = POS_(m, c);                                                 \
            if (ALL_IN || p < n) {                                                      \
                keys[p] = from_order(k[m][c], xf);                                      \
                IF_VALS(vals[p] = v[m][c];)                                             \
            }                                                                           \
        }                                                                               \
    }

/* With VEC_STEP == TILE (<= 32) and lowest stride TILE, each row a work-item holds is a whole
 * tile: the tile's half-cleaners (TILE/2 .. 1) can follow in registers, and the merge needs no
 * bitonic_merge_tile launch (TAIL). */
#define CMPX_COLS(m, a, b) CMPX_LV(k[m][a], k[m][b], v[m][a], v[m][b])
/* A flip's upper rows hold their tile in reverse (column c at position P0 - c), so there the
 * higher column is the lower position. */
#define ROW_HALF_CLEANERS()                                                             \
    _Pragma("unroll") for (uint s_ = VEC_STEP / 2; s_ > 0; s_ >>= 1)                    \
        _Pragma("unroll") for (uint m_ = 0; m_ < KEYS_PER_ITEM; ++m_)                   \
            if (m_ < cnt)                                                               \
                _Pragma("unroll") for (uint c_ = 0; c_ < VEC_STEP; ++c_)                \
                    if (!(c_ & s_)) {                                                   \
                        if (FLIP && m_ >= hcnt)                                         \
                            CMPX_COLS(m_, c_ | s_, c_);                                 \
                        else                                                            \
                            CMPX_COLS(m_, c_, c_ | s_);                                 \
                    }

/* Whether a work-group of the global pass has only virtual positions (>= n), so nothing to do:
 * for n just above a power of two nearly half of them. Its first work-item's base is its lowest
 * position (base grows with t; a flip's mirrored rows lie above base), and the test reads the
 * group id, not the work-item's, so every work-item of a group takes the same branch: PoCL's
 * work-group vectoriser keeps the body vector code, which a per-work-item return (the
 * VEC_STEP == 1 test below) would cost it. On PoCL (VEC_STEP 16) n = 2^21 + 22216 u32 keys took
 * 0.10-0.12 s, more than 2^22 keys (0.058 s), since every pass ran the per-key bounds checks on
 * the empty half. The launches stay those of the padded network (schedule.c). */
#if VEC_STEP > 1
static inline __attribute__((always_inline)) int group_all_virtual(const uint R, const uint log_jlow,
                                                                   const idx_t n)
{
    const idx_t t0 = (idx_t)get_group_id(0) * get_local_size(0) * VEC_STEP;
    const idx_t jlow = (idx_t)1 << log_jlow;
    return ((((t0 >> log_jlow) << (log_jlow + R)) | (t0 & (jlow - 1))) >= n);
}
#endif

#if ROWS_VEC
/* The CPU shape (VEC_STEP >= 2): each of a work-item's 2^R rows is one vector of VEC_STEP
 * adjacent keys (rows.cl). A flip's upper rows run downwards (column c at the row's top minus c),
 * so they are loaded from their lowest position and reversed, which keeps lane c = column c in
 * every row, and the row levels compare whole vectors. Before the store they are turned back, so
 * that the tail's half-cleaners (TAIL) run on every row in position order. */
static inline __attribute__((always_inline)) void bitonic_global(const uint R, const uint FLIP,
                                                                 const uint TAIL,
                                                                 __global key_type *restrict keys
                                                                 VALS_PARAM, const idx_t n, const uint xf, const uint log_jlow)
{
    if (group_all_virtual(R, log_jlow, n))
        return;
    key_row k[KEYS_PER_ITEM];
    IF_VALS(val_row v[KEYS_PER_ITEM];)
    const uint cnt = 1u << R, hcnt = cnt >> 1;
    const idx_t t = (idx_t)get_global_id(0) * VEC_STEP;
    const idx_t jlow = (idx_t)1 << log_jlow;
    const idx_t base = ((t >> log_jlow) << (log_jlow + R)) | (t & (jlow - 1));
    const idx_t mirror = base ^ ((jlow << R) - 1);
    keys += SEGMENT_BASE();
    IF_VALS(vals += SEGMENT_BASE();)
    /* Row m's lowest position. */
#define ROW_AT_(m) ((FLIP && (m) >= hcnt) ? mirror - (idx_t)(cnt - 1 - (m)) * jlow - (VEC_STEP - 1) : base + (idx_t)(m) * jlow)
#define ROWS_PASS_(ALL_IN)                                                              \
    do {                                                                                \
        _Pragma("unroll") for (uint m = 0; m < KEYS_PER_ITEM; ++m) {                    \
            if (m >= cnt)                                                               \
                break;                                                                  \
            ROW_LOAD(k[m], v[m], ROW_AT_(m), ALL_IN);                                   \
            if (FLIP && m >= hcnt) {                                                    \
                k[m] = ROW_REVERSE(k[m]);                                               \
                IF_VALS(v[m] = ROW_REVERSE(v[m]);)                                      \
            }                                                                           \
        }                                                                               \
        NET_APPLY_OP(CMPX_VROWS, R, (1u << R), R, FLIP);                                \
        _Pragma("unroll") for (uint m = 0; m < KEYS_PER_ITEM; ++m) {                    \
            if (m >= cnt)                                                               \
                break;                                                                  \
            if (FLIP && m >= hcnt) {                                                    \
                k[m] = ROW_REVERSE(k[m]);                                               \
                IF_VALS(v[m] = ROW_REVERSE(v[m]);)                                      \
            }                                                                           \
            if (TAIL) {                                                                 \
                ROW_CLEAN(k[m], v[m]);                                                  \
            }                                                                           \
            ROW_STORE(k[m], v[m], ROW_AT_(m), ALL_IN);                                  \
        }                                                                               \
    } while (0)
#define CMPX_VROWS(a, b) ROW_CMPX(k[a], k[b], v[a], v[b])
    /* The largest position: the last row's last column, or with a flip the mirror of base. */
    const idx_t maxpos = FLIP ? mirror : base + (idx_t)(cnt - 1) * jlow + (VEC_STEP - 1);
    if (maxpos < n)
        ROWS_PASS_(1);
    else
        ROWS_PASS_(0);
#undef CMPX_VROWS
#undef ROWS_PASS_
#undef ROW_AT_
}
#else
static inline __attribute__((always_inline)) void bitonic_global(const uint R, const uint FLIP,
                                                                 const uint TAIL,
                                                                 __global key_type *restrict keys
                                                                 VALS_PARAM, const idx_t n, const uint xf, const uint log_jlow)
{
    /* VEC_STEP adjacent columns per work-item: the same slot of neighbouring columns sits at
     * neighbouring positions (reversed in a flip's upper half), which a CPU vectorises. */
    key_type k[KEYS_PER_ITEM][VEC_STEP];
    IF_VALS(val_type v[KEYS_PER_ITEM][VEC_STEP];)
    const uint cnt = 1u << R, hcnt = cnt >> 1;
    const idx_t t = (idx_t)get_global_id(0) * VEC_STEP;
    const idx_t jlow = (idx_t)1 << log_jlow;
    const idx_t base = ((t >> log_jlow) << (log_jlow + R)) | (t & (jlow - 1));
#if VEC_STEP == 1
    /* Work-items wholly in the virtual tail have nothing to do. (With several columns per
     * work-item the per-key checks below suffice, and a CPU vectorises better without it.) */
    if (base >= n)
        return;
#else
    if (group_all_virtual(R, log_jlow, n))
        return;
#endif
    const idx_t mirror = base ^ ((jlow << R) - 1);
    keys += SEGMENT_BASE();
    IF_VALS(vals += SEGMENT_BASE();)
#define POS_(m, c) ((FLIP && (m) >= hcnt) ? mirror - (idx_t)(cnt - 1 - (m)) * jlow - (c) : base + (idx_t)(m) * jlow + (c))
    /* Work-items whose keys all lie below n (all but the tail) skip the per-key checks, which
     * cost PoCL 3-6x per pass (docs/perf.md). The largest position is the last row's last
     * column, or with a flip the mirror of base. */
    const idx_t maxpos = FLIP ? mirror : base + (idx_t)(cnt - 1) * jlow + (VEC_STEP - 1);
    if (maxpos < n) {
        GLOBAL_ROWS_LOAD(1);
        NET_APPLY_OP(CMPX_ROWS, R, (1u << R), R, FLIP);
        if (TAIL)
            ROW_HALF_CLEANERS();
        GLOBAL_ROWS_STORE(1);
    } else {
        GLOBAL_ROWS_LOAD(0);
        NET_APPLY_OP(CMPX_ROWS, R, (1u << R), R, FLIP);
        if (TAIL)
            ROW_HALF_CLEANERS();
        GLOBAL_ROWS_STORE(0);
    }
#undef POS_
}
#endif /* ROWS_VEC */

#undef GLOBAL_ROWS_LOAD
#undef GLOBAL_ROWS_STORE

/* bitonic_global_rR: R half-cleaner levels; bitonic_flip_rR: a flip level and R-1 half-cleaners;
 * the _tail_ variants also run the tile's half-cleaners. The flip is a compile-time choice so
 * that each kernel's addressing is fixed. */
#define BITONIC_GLOBAL_KERNEL_(name, R, FLIP, TAIL)                                              \
    __kernel CLSORT_SHAPE_GLOBAL void name(CLSORT_ARGS_SORT1(log_jlow))                          \
    {                                                                                              \
        bitonic_global(R, FLIP, TAIL, keys VALS_ARG, n, xf, log_jlow);                             \
    }
#if CLSORT_WHEN_TAIL
#define BITONIC_GLOBAL_KERNEL(R)                                                                   \
    BITONIC_GLOBAL_KERNEL_(bitonic_global_r##R, R, 0, 0)                                           \
    BITONIC_GLOBAL_KERNEL_(bitonic_flip_r##R, R, 1, 0)                                             \
    BITONIC_GLOBAL_KERNEL_(bitonic_global_tail_r##R, R, 0, 1)                                      \
    BITONIC_GLOBAL_KERNEL_(bitonic_flip_tail_r##R, R, 1, 1)
#else
#define BITONIC_GLOBAL_KERNEL(R)                                                                   \
    BITONIC_GLOBAL_KERNEL_(bitonic_global_r##R, R, 0, 0)                                           \
    BITONIC_GLOBAL_KERNEL_(bitonic_flip_r##R, R, 1, 0)
#endif

BITONIC_GLOBAL_KERNEL(1)
#if CLSORT_WHEN_R2
BITONIC_GLOBAL_KERNEL(2)
#endif
#if CLSORT_WHEN_R3
BITONIC_GLOBAL_KERNEL(3)
#endif
#if CLSORT_WHEN_R4
BITONIC_GLOBAL_KERNEL(4)
#endif
#if CLSORT_WHEN_R5
BITONIC_GLOBAL_KERNEL(5)
#endif
