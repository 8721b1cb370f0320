/* bitonic_sort.cl - bitonic sort in its "flip" form: every merge compares position i of a block with
 * its mirror image first, then runs half-cleaners; every comparator puts the minimum at the lower
 * position, so every block sorts ascending and any n works without padding (docs/kernels.md).
 *
 * Passes (one launch each, scheduled by host/planning/schedule.c):
 *   bitonic_sort_tile     (a) each work-group sorts TILE keys in local memory (this file)
 *   bitonic_global_rN     (b) strides >= TILE: each work-item runs N fused levels on 2^N keys in
 *                             private memory (N = 1..log2(KEYS_PER_ITEM); bitonic_global.cl)
 *   bitonic_wide(_flip)   (b) strides >= TILE, up to log2(TILE/16) levels through local memory
 *                             (bitonic_wide.cl)
 *   bitonic_merge_tile    (c) strides below TILE of a merge, in local memory (bitonic_merge.cl)
 * The tile passes run on the machinery of tile.cl; the program's parts and their order are in
 * manifest.h.
 */

/* (a) Sorts each tile of TILE keys: merges of block size 2..kmax (kmax <= TILE, a power of two;
 * smaller when the whole input is smaller than a tile). Merges up to LOCAL_KEYS run inside
 * each work-item's contiguous keys without any barrier. */
__kernel CLSORT_SHAPE_TILE void bitonic_sort_tile(CLSORT_ARGS_SORT1(kmax))
{
    TILE_PROLOGUE();
    layout cur = make_layout(t, 0, LOCAL_LOG, 0); /* contiguous: t*LOCAL_KEYS + m */
    const uint kin = min(kmax, (uint)LOCAL_KEYS);
#if SOLO_TILE
#if ROWS_VEC && VEC_STEP == TILE
    /* The CPU shape: the tile is one vector row, sorted by a network between its lanes. */
    if (kmax == TILE) {
        key_row kr;
        IF_VALS(val_row vr;)
        if (first + TILE <= n) {
            ROW_LOAD(kr, vr, first, 1);
            ROW_SORT(kr, vr);
            ROW_STORE(kr, vr, first, 1);
        } else {
            ROW_LOAD(kr, vr, first, 0);
            ROW_SORT(kr, vr);
            ROW_STORE(kr, vr, first, 0);
        }
        return;
    }
#endif
    /* The whole tile is in this work-item's registers: no local memory, no barrier (and no
     * dead barrier code for PoCL to compile). */
    SOLO_LOAD();
    for (uint kk = 1; (1u << kk) <= kin; ++kk)
        GROUP_APPLY(k, v, kk, 1u);
    SOLO_STORE();
#else
#if FULL_PATHS
    if (kmax == TILE) {
        /* Every merge of the tile, each group written out (MERGE_C). */
        cur = make_layout_c(t, 0, LOCAL_LOG, 0);
        LDS_LOAD();
        _Pragma("unroll") for (uint kk = 1; kk <= LOCAL_LOG; ++kk)
            GROUP_APPLY(k, v, kk, 1u);
#if LOCAL_LOG < 4 && TILE_LOG >= 4
        MERGE_C(4)
#endif
#if LOCAL_LOG < 5 && TILE_LOG >= 5
        MERGE_C(5)
#endif
#if LOCAL_LOG < 6 && TILE_LOG >= 6
        MERGE_C(6)
#endif
#if LOCAL_LOG < 7 && TILE_LOG >= 7
        MERGE_C(7)
#endif
#if LOCAL_LOG < 8 && TILE_LOG >= 8
        MERGE_C(8)
#endif
#if LOCAL_LOG < 9 && TILE_LOG >= 9
        MERGE_C(9)
#endif
#if LOCAL_LOG < 10 && TILE_LOG >= 10
        MERGE_C(10)
#endif
#if LOCAL_LOG < 11 && TILE_LOG >= 11
        MERGE_C(11)
#endif
#if LOCAL_LOG < 12 && TILE_LOG >= 12
        MERGE_C(12)
#endif
#if LOCAL_LOG < 13 && TILE_LOG >= 13
        MERGE_C(13)
#endif
#if LOCAL_LOG < 14 && TILE_LOG >= 14
        MERGE_C(14)
#endif
#if LOCAL_LOG < 15 && TILE_LOG >= 15
        MERGE_C(15)
#endif
#if LOCAL_LOG < 16 && TILE_LOG >= 16
        MERGE_C(16)
#endif
        LDS_STORE();
    } else
#endif
    {
        LDS_LOAD();
        for (uint kk = 1; (1u << kk) <= kin; ++kk)
            GROUP_APPLY(k, v, kk, 1u);
        for (uint kk = LOCAL_LOG + 1; (1u << kk) <= kmax; ++kk)
            RUN_LEVELS(kk - 1, 1u);
        LDS_STORE();
    }
#endif
}
