/* transposition.cl - odd-even transposition sort.
 *
 * Inside a work-group: the classic algorithm on a tile, rounds of even pairs (2i, 2i+1) and odd
 * pairs (2i+1, 2i+2); one iteration of the loop does both so every work-item takes the same path.
 * Across work-groups: block odd-even merge-split. The tiles are sorted blocks; round r merges
 * blocks (2q+r%2, 2q+1+r%2) and splits them back, lower half below. ceil(n/TILE) rounds sort
 * (the 0-1 argument is in docs/kernels.md). A merge-split is a flip level across the block pair
 * (oet_merge_pairs, one comparator per work-item) followed by the half-cleaners below TILE, which
 * are bitonic_merge_tile (bitonic_merge.cl).
 */
/* Follows tile.cl and bitonic_merge.cl in its program (manifest.h). */

/* Sorts each tile with `rounds` rounds (each an even and an odd step); rounds >= TILE/2 sorts.
 * A tile of at most 32 keys belongs to one work-item (SOLO_TILE, tile.cl). */
__kernel CLSORT_SHAPE_TILE void oet_sort_tile(CLSORT_ARGS_SORT1(rounds))
{
#if SOLO_TILE
    key_type k[TILE];
#if VAL_BYTES
    val_type v[TILE];
    vals += SEGMENT_BASE();
#endif
    keys += SEGMENT_BASE();
    const idx_t first = (idx_t)get_global_id(0) * TILE;
    _Pragma("unroll") for (uint m = 0; m < TILE; ++m) {
        const idx_t p = first + m;
        k[m] = p < n ? to_order(keys[p], xf) : KEY_VIRTUAL;
        IF_VALS(v[m] = p < n ? vals[p] : 0;)
    }
    for (uint r = 0; r < rounds; ++r) {
        _Pragma("unroll") for (uint m = 0; m + 1 < TILE; m += 2)
            CMPX(k, v, m, m + 1);
        _Pragma("unroll") for (uint m = 1; m + 1 < TILE; m += 2)
            CMPX(k, v, m, m + 1);
    }
    _Pragma("unroll") for (uint m = 0; m < TILE; ++m) {
        const idx_t p = first + m;
        if (p < n) {
            keys[p] = from_order(k[m], xf);
            IF_VALS(vals[p] = v[m];)
        }
    }
#else
    LOCAL_TILE_PROLOGUE();
    for (uint r = 0; r < rounds; ++r) {
        FOR_EACH_COMPARATOR(c, TILE / 2) {
            CMPX(lk, lv, 2 * c, 2 * c + 1);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        FOR_EACH_COMPARATOR(c, TILE / 2 - 1) {
            CMPX(lk, lv, 2 * c + 1, 2 * c + 2);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    STORE_TILE(first, 0, TILE);
#endif
}

/* First half of a merge-split round: for the block pair starting at block 2q + parity, compare
 * offset o of the lower block with the mirror offset 2*TILE-1-o of the pair. Both blocks are
 * sorted ascending, so this leaves the TILE smallest keys in the lower block and each block
 * bitonic; bitonic_merge_tile then sorts each block. */
__kernel CLSORT_SHAPE_GLOBAL void oet_merge_pairs(CLSORT_ARGS_SORT1(parity))
{
    const idx_t c = get_global_id(0);
    const idx_t q = c / TILE, o = c % TILE;
    const idx_t lo = (2 * q + parity) * TILE + o;
    const idx_t hi = (2 * q + parity) * TILE + 2 * TILE - 1 - o;
    if (hi >= n)
        return;
    global_cmpx(keys + SEGMENT_BASE() VALS_SEGMENT_ARG, lo, hi, xf);
}
