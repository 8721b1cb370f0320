/* schedule.c - the sequence of launches for each network (docs/kernels.md has the diagrams).
 * Pure arithmetic on (network, n, parameters): no OpenCL here, so the tests, the benchmark's
 * pass counts and the data-obliviousness check all see exactly what run.c enqueues. */
#include "schedule.h"

uint64_t clsort__next_pow2(uint64_t x)
{
    uint64_t p = 1;
    while (p < x)
        p <<= 1;
    return p;
}

unsigned clsort__log2(uint64_t x)
{
    unsigned l = 0;
    while (((uint64_t)1 << l) < x)
        ++l;
    return l;
}

static const char *const bitonic_global[] = {NULL, "bitonic_global_r1", "bitonic_global_r2",
                                             "bitonic_global_r3", "bitonic_global_r4",
                                             "bitonic_global_r5"};
static const char *const bitonic_flip[] = {NULL, "bitonic_flip_r1", "bitonic_flip_r2",
                                           "bitonic_flip_r3", "bitonic_flip_r4", "bitonic_flip_r5"};
static const char *const bitonic_global_tail[] = {NULL, "bitonic_global_tail_r1",
                                                  "bitonic_global_tail_r2", "bitonic_global_tail_r3",
                                                  "bitonic_global_tail_r4", "bitonic_global_tail_r5"};
static const char *const bitonic_flip_tail[] = {NULL, "bitonic_flip_tail_r1", "bitonic_flip_tail_r2",
                                                "bitonic_flip_tail_r3", "bitonic_flip_tail_r4",
                                                "bitonic_flip_tail_r5"};
static const char *const oem_global_top[] = {NULL, "oem_global_top_r1", "oem_global_top_r2",
                                             "oem_global_top_r3", "oem_global_top_r4",
                                             "oem_global_top_r5"};

/* A launch of a tile kernel over `tiles` tiles. The bitonic and transposition tile kernels give
 * a tile of at most 32 keys to one work-item alone (SOLO_TILE in bitonic.cl); otherwise a
 * work-group of WG_SIZE work-items shares each tile. */
static clsort__step tile_step(const char *kernel, uint64_t tiles, const clsort_params *p,
                              int solo_allowed, cl_uint arg)
{
    const int solo = solo_allowed && p->tile <= 32;
    clsort__step s = {kernel, solo ? tiles : tiles * p->wg_size, 1, {arg, 0}, 1, 1};
    return s;
}

static clsort__step global_step(const char *kernel, uint64_t items, int nargs, cl_uint a0,
                                cl_uint a1)
{
    clsort__step s = {kernel, items, 0, {a0, a1}, nargs, 1};
    return s;
}

#define EMIT(step)                          \
    do {                                    \
        const clsort__step s_ = (step);     \
        const int rc_ = emit(&s_, user);    \
        if (rc_ != CLSORT_OK)               \
            return rc_;                     \
    } while (0)

/* The wide passes (bitonic_wide, bitonic.cl; oem_wide_top, oddeven_merge.cl): a work-group runs
 * up to log2(TILE / 16) levels on a virtual tile of TILE keys (rows at least 16 keys wide)
 * through local memory, where the register passes run log2(KEYS_PER_ITEM). Bitonic's takes
 * WIDE_LOG = log2(TILE / WG_SIZE) of them per trip. Built only for tiles shared by a work-group
 * (TILE > 32) with WG_SIZE >= 16, the same condition as in the kernels; so never with PoCL's
 * default bitonic solo tiles, where the register passes over adjacent columns are the fast
 * shape (docs/perf.md). 0: no wide pass. */
static unsigned wide_max_levels(const clsort_params *p)
{
    if (p->tile <= 32 || p->wg_size < 16)
        return 0;
    return clsort__log2(p->tile / 16);
}

/* The odd-even merge's wide pass (oem_wide_top) runs its levels below the first group one step
 * over the tile at a time, each a barrier. Left out where a work-item holds more than 16 keys of
 * a tile, which is the CPU shape (params.c: 32): PoCL runs a group's work-items as a loop, where
 * a local step costs as much as a global level (PoCL-2c, 2^21 u32: 13.4 ms for an 8-level wide
 * pass, against a 3-level register pass of 3.1 ms and 1.5 ms a single level; docs/perf.md). */
static unsigned oem_wide_max_levels(const clsort_params *p)
{
    return p->tile / p->wg_size <= 16 ? wide_max_levels(p) : 0;
}

static int schedule_bitonic(uint64_t n, const clsort_params *p, clsort__emit_fn emit, void *user)
{
    const uint64_t N = clsort__next_pow2(n), tile = p->tile;
    const uint64_t groups = (n + tile - 1) / tile;
    const unsigned R = clsort__log2(p->keys_per_item);
    const unsigned wide_max = wide_max_levels(p);
    const unsigned wide_min = wide_max ? clsort__log2(p->tile / p->wg_size) : 0;
    EMIT(tile_step("bitonic_sort_tile", groups, p, 1, (cl_uint)(N < tile ? N : tile)));
    for (uint64_t k = 2 * tile; k <= N; k <<= 1) {
        /* Strides k/2 (the flip) down to tile, in groups of up to R fused levels. */
        unsigned levels = clsort__log2(k / 2) - clsort__log2(tile) + 1;
        uint64_t jhigh = k / 2;
        int flip = 1;
        /* With VEC_STEP == TILE (<= 32) every row of the last group is a whole tile, and the
         * tile's half-cleaners run in the same pass (the _tail kernels, bitonic.cl). */
        const int tail = p->vec_step == p->tile && p->tile <= 32;
        while (levels) {
            /* A wide pass where it fuses more levels than a register pass; greedy, so each
             * merge takes ceil(levels / wide_max) passes or fewer (docs/kernels.md). */
            const unsigned w = levels < wide_max ? levels : wide_max;
            if (w > R && w >= wide_min) {
                const uint64_t jlow = jhigh >> (w - 1);
                const clsort__step s = {flip ? "bitonic_wide_flip" : "bitonic_wide",
                                        N / tile * p->wg_size, 1,
                                        {clsort__log2(jlow), (cl_uint)w}, 2, 1};
                EMIT(s);
                flip = 0;
                jhigh = jlow >> 1;
                levels -= w;
                continue;
            }
            const unsigned r = levels < R ? levels : R;
            const uint64_t jlow = jhigh >> (r - 1);
            const int last = levels == r;
            const char *name = flip ? (tail && last ? bitonic_flip_tail[r] : bitonic_flip[r])
                                    : (tail && last ? bitonic_global_tail[r] : bitonic_global[r]);
            /* VEC_STEP adjacent columns per work-item; N >> r >= jlow >= TILE >= VEC_STEP. */
            EMIT(global_step(name, (N >> r) / p->vec_step, 1, clsort__log2(jlow), 0));
            flip = 0;
            jhigh = jlow >> 1;
            levels -= r;
        }
        if (!tail)
            EMIT(tile_step("bitonic_merge_tile", groups, p, 1, (cl_uint)(tile / 2)));
    }
    return CLSORT_OK;
}

static int schedule_oddeven_merge(uint64_t n, const clsort_params *p, clsort__emit_fn emit,
                                  void *user)
{
    const uint64_t N = clsort__next_pow2(n), tile = p->tile;
    const uint64_t groups = (n + tile - 1) / tile;
    const unsigned R = clsort__log2(p->keys_per_item);
    const unsigned wide_max = oem_wide_max_levels(p);
    EMIT(tile_step("oem_sort_tile", groups, p, 0, (cl_uint)(N < tile ? N : tile)));
    /* Tiles shifted by TILE/2 (oem_finish_tile): those that start below n. */
    const uint64_t shifted = n > tile / 2 ? (n - tile / 2 + tile - 1) / tile : 0;
    for (uint64_t half = tile; half < N; half <<= 1) {
        /* Merge of blocks of `half` into 2*half: levels half .. tile fused at the top where the
         * set is closed (the wide pass where it fuses more levels than registers do), one
         * launch per level below that, then the finish (level tile/2 and two passes of tile
         * merges; docs/kernels.md). All in place. */
        const unsigned levels = clsort__log2(half) - clsort__log2(tile) + 1;
        const unsigned w = levels < wide_max ? levels : wide_max;
        const unsigned r = levels < R ? levels : R;
        const uint64_t jlow = half >> ((w > R ? w : r) - 1);
        if (w > R) {
            const clsort__step s = {"oem_wide_top", N / tile * p->wg_size, 1,
                                    {clsort__log2(jlow), (cl_uint)w}, 2, 1};
            EMIT(s);
        } else {
            EMIT(global_step(oem_global_top[r], N >> r, 1, clsort__log2(jlow), 0));
        }
        for (uint64_t k = jlow / 2; k >= tile; k >>= 1)
            EMIT(global_step("oem_global_level", N / 2, 2, clsort__log2(k), clsort__log2(half)));
        for (int sh = 1; sh >= 0; --sh) {
            clsort__step s = tile_step("oem_finish_tile", sh ? shifted : groups, p, 0,
                                       (cl_uint)clsort__log2(half));
            s.args[1] = (cl_uint)sh;
            s.nargs = 2;
            EMIT(s);
        }
    }
    return CLSORT_OK;
}

static int schedule_transposition(uint64_t n, const clsort_params *p, clsort__emit_fn emit,
                                  void *user)
{
    const uint64_t tile = p->tile;
    const uint64_t blocks = (n + tile - 1) / tile;
    const uint64_t in_tile = n < tile ? n : tile;
    /* One loop iteration of oet_sort_tile is two steps; m keys need m steps. */
    EMIT(tile_step("oet_sort_tile", blocks, p, 1, (cl_uint)((in_tile + 1) / 2)));
    if (blocks < 2)
        return CLSORT_OK;
    for (uint64_t round = 0; round < blocks; ++round) {
        const cl_uint parity = (cl_uint)(round & 1);
        const uint64_t pairs = (blocks - parity) / 2;
        if (!pairs)
            continue;
        EMIT(global_step("oet_merge_pairs", pairs * tile, 1, parity, 0));
        EMIT(tile_step("bitonic_merge_tile", blocks, p, 1, (cl_uint)(tile / 2)));
    }
    return CLSORT_OK;
}

int clsort__schedule(int net, uint64_t n, const clsort_params *p, clsort__emit_fn emit,
                     void *user)
{
    if (n < 2)
        return CLSORT_OK;
    switch (net) {
    case 0:
        return schedule_bitonic(n, p, emit, user);
    case 1:
        return schedule_oddeven_merge(n, p, emit, user);
    case 2:
        return schedule_transposition(n, p, emit, user);
    default:
        return CLSORT_ERR_INVALID_ARG;
    }
}

/* The split for the overlapped upload (schedule.h): a filter over the one schedule, so that the
 * two parts can never drift from what clsort__schedule emits. */
typedef struct split {
    clsort__emit_fn emit;
    void *user;
    unsigned index;
    clsort__step first;
} split;

static int keep_first(const clsort__step *s, void *user)
{
    split *sp = user;
    if (sp->index++ == 0)
        sp->first = *s;
    return CLSORT_OK;
}

static int skip_first(const clsort__step *s, void *user)
{
    split *sp = user;
    return sp->index++ == 0 ? CLSORT_OK : sp->emit(s, sp->user);
}

int clsort__schedule_first_step(int net, uint64_t n, const clsort_params *p, uint64_t keys,
                                clsort__step *out)
{
    split sp = {NULL, NULL, 0, {0}};
    const int rc = clsort__schedule(net, n, p, keep_first, &sp);
    if (rc != CLSORT_OK)
        return rc;
    if (!sp.index || !sp.first.tile_kernel)
        return CLSORT_ERR_INVALID_ARG; /* every network opens with a tile pass */
    /* A tile pass has the same number of work-items per tile (one, or a work-group) in every
     * tile: scale it to the tiles of the first `keys` keys. */
    const uint64_t tiles = (n + p->tile - 1) / p->tile, part = (keys + p->tile - 1) / p->tile;
    sp.first.items = sp.first.items / tiles * (part < tiles ? part : tiles);
    *out = sp.first;
    return CLSORT_OK;
}

int clsort__schedule_rest(int net, uint64_t n, const clsort_params *p, clsort__emit_fn emit,
                          void *user)
{
    split sp = {emit, user, 0, {0}};
    return clsort__schedule(net, n, p, skip_first, &sp);
}
