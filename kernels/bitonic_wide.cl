/* bitonic_wide.cl - bitonic's wide global passes (bitonic_wide, bitonic_wide_flip): a merge's
 * levels above TILE fused through local memory. Only in the bitonic program, and only where
 * manifest.h's CLSORT_WHEN_WIDE holds. */

/* ---- Wide global passes: a work-group merges a virtual tile through local memory ------------
 * bitonic_wide / bitonic_wide_flip run `nrow` levels with strides jlow << (nrow-1), ..., jlow
 * (jlow >= TILE) in one pass, the first a flip in bitonic_wide_flip: up to log2(TILE / 16)
 * levels (8 at TILE 4096) where bitonic_global_rN runs log2(KEYS_PER_ITEM) (docs/kernels.md).
 *
 * A work-group holds a virtual tile of TILE keys: 2^nrow rows spaced by jlow, each of
 * cols = TILE >> nrow contiguous columns (at least 16 keys: whole 64-byte runs in every load).
 * Row bits are exactly the stride bits of the pass, so its half-cleaners pair row r with row
 * r | 2^i, and a flip (merge block jlow << nrow) pairs row r with row 2^nrow-1-r when the upper
 * half's rows sit at the mirror positions, as in bitonic_global (their columns then run in
 * reverse, which does not matter: no comparator crosses columns). In these logical rows every
 * comparator puts the minimum in the lower row, which is always the lower position.
 *
 * Work-item t owns one column (t mod cols) and WIDE_KEYS rows, selected by its slot bits m: the
 * first group takes the top WIDE_LOG row bits straight from global memory (neighbouring
 * work-items read neighbouring columns) and runs its levels in registers; each later group
 * exchanges the keys through local memory so that the slots cover the next lower row bits. The
 * keys are stored to global memory from the last group's registers. Kept apart from the tile
 * macros above (which are rewritten independently): the same technique, over rows. */
#if CLSORT_WHEN_WIDE
#define WIDE_KEYS (TILE / WG_SIZE) /* keys per work-item: 2..32 (checked by params.c) */
#if WIDE_KEYS >= 32
#define WIDE_LOG 5
#elif WIDE_KEYS >= 16
#define WIDE_LOG 4
#elif WIDE_KEYS >= 8
#define WIDE_LOG 3
#elif WIDE_KEYS >= 4
#define WIDE_LOG 2
#else
#define WIDE_LOG 1
#endif
/* One padding word per 32, as the tile passes: later groups' slots are WIDE_KEYS rows apart. */
#define WIDE_PAD(i) ((i) + ((i) >> 5))
#define WIDE_SLOTS (TILE + TILE / 32 + 1)

/* The rows of work-item u's slots (u: its index among the work-items of one column) for a group
 * whose lowest row bit is `lay`: slot m is row base | (m << lay). In a flip group the upper half's
 * slots hold the complement rows, so that a row and its flip partner 2^nrow-1-row share a
 * work-item (slot m and slot m ^ (WIDE_KEYS-1)). */
typedef struct wide_layout {
    uint base, lay, flipmask;
} wide_layout;

inline wide_layout make_wide_layout(const uint u, const uint lay, const uint flip)
{
    wide_layout W;
    W.base = ((u >> lay) << (lay + WIDE_LOG)) | (u & ((1u << lay) - 1));
    W.lay = lay;
    W.flipmask = flip ? (1u << lay) - 1 : 0;
    return W;
}

#define WIDE_ROW(W, m) \
    (((W).base | ((uint)(m) << (W).lay)) ^ ((((uint)(m) >> (WIDE_LOG - 1)) & 1u) ? (W).flipmask : 0u))

/* Levels with slot strides 2^(nlev-1) .. 1 of the WIDE_KEYS slots, the first a flip if asked;
 * compile-time slot indices (unrolled), so k and v stay in registers. */
#define WIDE_APPLY(nlev, flip)                                                          \
    do {                                                                                \
        _Pragma("unroll") for (int b_ = WIDE_LOG - 1; b_ >= 0; --b_) {                  \
            const uint sb_ = 1u << b_;                                                  \
            if ((uint)b_ < (nlev) && (flip) && (uint)b_ == (nlev) - 1) {                \
                _Pragma("unroll") for (uint m_ = 0; m_ < WIDE_KEYS; ++m_)               \
                    if (!(m_ & sb_))                                                    \
                        CMPX(k, v, m_, m_ ^ (2 * sb_ - 1));                             \
            } else if ((uint)b_ < (nlev)) {                                             \
                _Pragma("unroll") for (uint m_ = 0; m_ < WIDE_KEYS; ++m_)               \
                    if (!(m_ & sb_))                                                    \
                        CMPX(k, v, m_, m_ | sb_);                                       \
            }                                                                           \
        }                                                                               \
    } while (0)

/* The global position of logical row r, this work-item's column. */
#define WIDE_POS(r)                                                                     \
    ((FLIP && (r) >= upper) ? (base + (idx_t)(rows - 1 - (r)) * jlow + col) ^ mirror     \
                           : base + (idx_t)(r) * jlow + col)

#if VAL_BYTES
#define WIDE_LV_PARAM , __local val_type *lv
#define WIDE_LV_ARG , lv
#else
#define WIDE_LV_PARAM
#define WIDE_LV_ARG
#endif
static inline __attribute__((always_inline)) void
bitonic_wide_body(const uint FLIP, __local key_type *lk WIDE_LV_PARAM,
                  __global key_type *restrict keys VALS_PARAM, const idx_t n, const uint xf,
                  const uint log_jlow, const uint nrow)
{
    key_type k[WIDE_KEYS];
    IF_VALS(val_type v[WIDE_KEYS];)
    const uint t = get_local_id(0);
    /* TILE = cols * 2^nrow; log2(TILE) from the compile-time constant. */
    const uint log_cols = (31 - clz((uint)TILE)) - nrow;
    const uint col = t & ((1u << log_cols) - 1), u = t >> log_cols;
    /* Group g: column block g mod (jlow / cols) of the strided rows, block of 2^nrow rows
     * g / (jlow / cols). Its lowest position is row 0, column 0: a group wholly in the virtual
     * tail has nothing to do (uniform, before any barrier). */
    const idx_t g = get_group_id(0);
    const uint log_blocks = log_jlow - log_cols;
    const idx_t base = ((g >> log_blocks) << (log_jlow + nrow)) |
                       ((g & (((idx_t)1 << log_blocks) - 1)) << log_cols);
    if (base >= n)
        return;
    keys += SEGMENT_BASE();
    IF_VALS(vals += SEGMENT_BASE();)
    const idx_t jlow = (idx_t)1 << log_jlow;
    const idx_t mirror = (jlow << nrow) - 1;
    const uint rows = 1u << nrow, upper = rows >> 1; /* the first row of the upper half */

    /* First group: the top WIDE_LOG row bits, the flip among them. */
    wide_layout cur = make_wide_layout(u, nrow - WIDE_LOG, FLIP);
    _Pragma("unroll") for (uint m = 0; m < WIDE_KEYS; ++m) {
        const uint r = WIDE_ROW(cur, m);
        const idx_t p = WIDE_POS(r);
        k[m] = p < n ? to_order(keys[p], xf) : KEY_VIRTUAL;
        IF_VALS(v[m] = p < n ? vals[p] : 0;)
    }
    WIDE_APPLY(WIDE_LOG, FLIP);
    /* The remaining nrow - WIDE_LOG levels, up to WIDE_LOG per trip through local memory. A
     * local slot (row, col) is written and later read by the one work-item that holds it, so one
     * barrier per trip suffices. */
    int lvl = (int)nrow - WIDE_LOG - 1; /* log2 of the next row stride to run */
    while (lvl >= 0) {
        const uint nl = (uint)min(lvl + 1, WIDE_LOG);
        _Pragma("unroll") for (uint m = 0; m < WIDE_KEYS; ++m) {
            const uint q = WIDE_PAD((WIDE_ROW(cur, m) << log_cols) | col);
            lk[q] = k[m];
            IF_VALS(lv[q] = v[m];)
        }
        cur = make_wide_layout(u, (uint)lvl + 1 - nl, 0);
        barrier(CLK_LOCAL_MEM_FENCE);
        _Pragma("unroll") for (uint m = 0; m < WIDE_KEYS; ++m) {
            const uint q = WIDE_PAD((WIDE_ROW(cur, m) << log_cols) | col);
            k[m] = lk[q];
            IF_VALS(v[m] = lv[q];)
        }
        WIDE_APPLY(nl, 0u);
        lvl -= (int)nl;
    }
    _Pragma("unroll") for (uint m = 0; m < WIDE_KEYS; ++m) {
        const uint r = WIDE_ROW(cur, m);
        const idx_t p = WIDE_POS(r);
        if (p < n) {
            keys[p] = from_order(k[m], xf);
            IF_VALS(vals[p] = v[m];)
        }
    }
}
#undef WIDE_POS

/* One work-group of WG_SIZE work-items per virtual tile: N / TILE groups per array, jlow >= TILE,
 * nrow in [WIDE_LOG, log2(TILE / 16)] (host/planning/schedule.c). Local memory is declared here: OpenCL C
 * allows __local variables only at kernel scope. */
#define BITONIC_WIDE_KERNEL_(name, FLIP)                                                    \
    __kernel CLSORT_SHAPE_GROUP void name(CLSORT_ARGS_SORT2(log_jlow, nrow))                \
    {                                                                                       \
        __local key_type lk[WIDE_SLOTS];                                                    \
        LOCAL_VALS(lv, WIDE_SLOTS);                                                         \
        bitonic_wide_body(FLIP, lk WIDE_LV_ARG, keys VALS_ARG, n, xf, log_jlow, nrow);      \
    }
BITONIC_WIDE_KERNEL_(bitonic_wide, 0u)
BITONIC_WIDE_KERNEL_(bitonic_wide_flip, 1u)
#endif /* wide passes */
