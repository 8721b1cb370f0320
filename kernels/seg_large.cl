/* seg_large.cl - the segments of the large bin (longer than 4096 keys) sorted by many work-groups
 * each: the one-array bitonic sort of bitonic_sort.cl, run on every such segment at once. Follows
 * segmented.cl in the segmented program (manifest.h), on its tile machinery (tile.cl: TILE = the
 * packed tile, WG_SIZE = SEG_WG).
 *
 * Each segment is padded to its power of two P (slots past its end hold virtual keys, which never
 * move, so they are neither loaded nor stored) and cut into units of TILE slots; a launch runs
 * its work on every unit of every segment, work-group g taking units g, g + groups, ... Passes
 * (host/planning/schedule.c, schedule_segmented):
 *   seg_large_scan   one work-group: each entry's first unit (LARGE_UNITS) and each unit's entry
 *                    (LARGE_MAP), from the large bin of the list
 *   seg_sort_packed  (segmented.cl, with CLSORT_SEG_PACK_LARGE) every unit sorted whole:
 *                    merges 2..TILE
 *   then for each merge of blocks of K = 2*TILE, 4*TILE, ... up to the largest P:
 *   seg_large_global R fused levels of strides >= TILE a work-item, in registers; the first
 *                    launch of a merge starts with the flip (stride K/2)
 *   seg_large_merge  the half-cleaners TILE/2 .. 1 of each unit, in local memory
 * A segment with P < K is sorted already and sits out the merge of K. The comparators depend
 * only on the segments' lengths; the bounds are clamped as everywhere in segmented.cl. The host
 * launches these for bitonic without SEG_STABLE only (they exist in every segmented program). */

/* seg_large_global writes out R = 1 .. 4, 16 keys a work-item in registers at most: the host
 * packs no more (manifest.h, CLSORT_LARGE_ARG). */
#if CLSORT_LARGE_R_MAX != 4
#error "seg_large_global has code paths for R = 1 .. 4"
#endif

/* The longest segment these passes take (their slots are 32-bit); the host variant sorts longer
 * ones on the normal path (host/dispatch/dispatch_segments.c, SEG_LARGE_PASS_MAX). */
#define LARGE_LEN_MAX ((ulong)1 << 31)

/* Units of a segment of len keys: its power of two in TILE slots; none when longer than
 * LARGE_LEN_MAX. Large-bin segments have at least 4097 keys, so P >= 2 * TILE. */
inline uint large_units(const ulong len)
{
    if (len > LARGE_LEN_MAX)
        return 0;
    ulong P = 2 * (ulong)TILE;
    while (P < len)
        P <<= 1;
    return (uint)(P / TILE);
}

/* The map's size: the units that disjoint segments within cap elements make at most (fewer than
 * 2 * cap / TILE); the host allocates this many (clsort__seg_large_units). */
#define LARGE_UNITS_MAX(cap) (2 * ((cap) / TILE) + 2)

/* Fills LARGE_UNITS and LARGE_MAP. Work-item t takes a run of consecutive entries: their units
 * summed, a scan over the work-group, then each entry's first unit and its units' map entries.
 * (One segment of 2^31 keys makes 2^19 map entries for one work-item: microseconds against
 * the sort's seconds.) Overlapping segments (offsets that are not in order: only safety is
 * promised then) can make more units than the map holds: the units stop at its end, so a
 * segment may get fewer than its P / TILE (and is then left unsorted or part-sorted), but every
 * write stays in the map, and every later access is checked against the segment's clamped
 * bounds anyway. */
__kernel CLSORT_SHAPE_SEG_GROUP void seg_large_scan(CLSORT_ARGS_SEG_BIN)
{
    __local ulong lsum[SEG_WG];
    __local uint ltop;
    const uint t = get_local_id(0);
    if (t == 0)
        ltop = 0;
    const uint count = meta[SEG_LARGE_BIN], first = large_first(meta);
    const uint per = (count + SEG_WG - 1) / SEG_WG;
    const uint lo = min(count, t * per), hi = min(count, lo + per);
    const ulong umax = LARGE_UNITS_MAX(cap);
    ulong sum = 0, most = 0;
    for (uint e = lo; e < hi; ++e) {
        ulong s;
        const ulong n = large_units(seg_bounds(off, nseg, cap, SEG_LIST(first + e), &s));
        sum += n;
        most = max(most, n);
    }
    lsum[t] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (most) {
        uint lg = TILE_LOG;
        while (((ulong)1 << (lg - TILE_LOG)) < most)
            ++lg;
        atomic_max(&ltop, lg);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* Inclusive scan of lsum (Hillis-Steele). */
    for (uint d = 1; d < SEG_WG; d <<= 1) {
        const ulong add = t >= d ? lsum[t - d] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        lsum[t] += add;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    ulong u = lsum[t] - sum;
    for (uint e = lo; e < hi; ++e) {
        ulong s;
        const ulong n = large_units(seg_bounds(off, nseg, cap, SEG_LIST(first + e), &s));
        LARGE_UNITS(e) = (uint)min(u, umax);
        for (ulong i = u; i < min(u + n, umax); ++i)
            LARGE_MAP(i) = e;
        u += n;
    }
    if (t == SEG_WG - 1)
        LARGE_UNITS(count) = (uint)min(lsum[t], umax);
    if (t == 0)
        LARGE_TOP_LOG = ltop;
}

/* Unit u's segment: its start, its length, the unit's first slot; returns 0 when the segment
 * sits out a merge of blocks of 2^klog (P < 2^klog). first: large_first(meta), read once per
 * work-group. */
inline int large_unit(__global const ulong *off, const ulong nseg, const ulong cap,
                      __global const uint *meta, const uint first, const uint u, const uint klog,
                      ulong *start, ulong *len, ulong *lo)
{
    const uint e = LARGE_MAP(u);
    *len = seg_bounds(off, nseg, cap, SEG_LIST(first + e), start);
    *lo = (ulong)(u - LARGE_UNITS(e)) * TILE;
    const ulong P = (ulong)(LARGE_UNITS(e + 1) - LARGE_UNITS(e)) * TILE;
    return P >= ((ulong)1 << klog);
}

/* R levels (bin_first: CLSORT_LARGE_ARG) of the merge of blocks of 2^klog, strides jlow << (R-1) ..
 * jlow, all >= TILE. Unit u holds the TILE / 2^R sets of 2^R slots numbered from u's first slot
 * / 2^R; a set's slots are those of bitonic_global (bitonic_global.cl): base + m*jlow, with the
 * flip's upper half at the mirror images. Work-items of a group take neighbouring sets, whose
 * slots are neighbours in memory (jlow >= TILE > 32). A set's slots are not the unit's: a unit
 * past the segment's end may hold sets with keys, so only the sets are tested (base >= len:
 * all virtual). */
/* One set of 2^R slots (R a literal, so the loops unroll and the slots stay in registers). */
#define LARGE_SET(R)                                                                    \
    do {                                                                                \
        const uint cnt_ = 1u << (R), hcnt_ = cnt_ >> 1;                                 \
        const ulong mirror_ = base ^ ((jlow << (R)) - 1);                               \
        key_type k[1 << (R)];                                                           \
        IF_VALS(val_type v[1 << (R)];)                                                  \
        _Pragma("unroll") for (uint m = 0; m < cnt_; ++m) {                             \
            const ulong p = (flip && m >= hcnt_) ? mirror_ - (ulong)(cnt_ - 1 - m) * jlow \
                                                 : base + (ulong)m * jlow;             \
            k[m] = p < len ? to_order(gk[p], xf) : KEY_VIRTUAL;                        \
            IF_VALS(v[m] = p < len ? gv[p] : 0;)                                        \
        }                                                                               \
        NET_APPLY_OP(CMPX_SLOTS, (R), (1u << (R)), (R), flip);                          \
        _Pragma("unroll") for (uint m = 0; m < cnt_; ++m) {                             \
            const ulong p = (flip && m >= hcnt_) ? mirror_ - (ulong)(cnt_ - 1 - m) * jlow \
                                                 : base + (ulong)m * jlow;             \
            if (p < len) {                                                              \
                gk[p] = from_order(k[m], xf);                                           \
                IF_VALS(gv[p] = v[m];)                                                  \
            }                                                                           \
        }                                                                               \
    } while (0)

__kernel CLSORT_SHAPE_SEG_GROUP void seg_large_global(CLSORT_ARGS_SEG_GROUP)
{
    (void)gpos;
    (void)max_len;
    const uint log_jlow = CLSORT_LARGE_ARG_LOG_JLOW(bin_first), R = CLSORT_LARGE_ARG_R(bin_first);
    const uint flip = CLSORT_LARGE_ARG_FLIP(bin_first), klog = bin_last;
    if (klog > LARGE_TOP_LOG)
        return; /* no segment this long: a merge the buffer variant launches blind */
    const uint sets = (uint)TILE >> R;
    const ulong jlow = (ulong)1 << log_jlow;
    const uint total = LARGE_UNITS(meta[SEG_LARGE_BIN]), first = large_first(meta);
    for (uint u = get_group_id(0); u < total; u += get_num_groups(0)) {
        ulong s, len, lo;
        if (!large_unit(off, nseg, cap, meta, first, u, klog, &s, &len, &lo))
            continue;
        __global key_type *gk = keys + s;
        IF_VALS(__global val_type *gv = vals + s;)
        for (uint j = get_local_id(0); j < sets; j += SEG_WG) {
            const ulong q = (lo >> R) + j;
            const ulong base = ((q >> log_jlow) << (log_jlow + R)) | (q & (jlow - 1));
            if (base >= len)
                continue; /* every slot of the set is virtual */
            /* Uniform: every work-item of the launch takes the same case. */
            if (R == 1)
                LARGE_SET(1);
            else if (R == 2)
                LARGE_SET(2);
            else if (R == 3)
                LARGE_SET(3);
            else
                LARGE_SET(4);
        }
    }
}

/* The half-cleaners TILE/2 .. 1 of the merge of blocks of 2^klog (bin_first: klog) in each unit:
 * bitonic_merge_tile's work (bitonic_merge.cl), written out where the packed pass is
 * (SEG_PACK_C), else in run-time groups. */
__kernel CLSORT_SHAPE_SEG_GROUP void seg_large_merge(CLSORT_ARGS_SEG_GROUP)
{
    __local key_type lk[LOCAL_SLOTS];
    LOCAL_VALS(lv, LOCAL_SLOTS);
    key_type k[LOCAL_KEYS];
    IF_VALS(val_type v[LOCAL_KEYS];)
    (void)bin_last;
    (void)gpos;
    (void)max_len;
    const uint t = get_local_id(0), klog = bin_first;
    if (klog > LARGE_TOP_LOG)
        return; /* no segment this long */
    const uint total = LARGE_UNITS(meta[SEG_LARGE_BIN]), lfirst = large_first(meta);
    __global key_type *const keys0 = keys;
    IF_VALS(__global val_type *const vals0 = vals;)
    for (uint u = get_group_id(0); u < total; u += get_num_groups(0)) {
        ulong s, len, first;
        if (!large_unit(off, nseg, cap, meta, lfirst, u, klog, &s, &len, &first) || first >= len)
            continue; /* sorted already, or all virtual */
        /* tile.cl's loads and stores address keys[first + ...] below n. */
        keys = keys0 + s;
        IF_VALS(vals = vals0 + s;)
        const ulong n = len;
        layout cur;
#if SEG_PACK_C
        HALF_CLEANERS_C();
#else
        cur = make_layout(t, TILE_LOG - LOCAL_LOG, LOCAL_LOG, 0);
        LDS_LOAD();
        GROUP_APPLY(k, v, LOCAL_LOG, 0u);
        RUN_LEVELS(TILE_LOG - 1 - LOCAL_LOG, 0u);
#endif
        LDS_STORE();
        barrier(CLK_LOCAL_MEM_FENCE); /* the next unit reuses the local arrays */
    }
}
