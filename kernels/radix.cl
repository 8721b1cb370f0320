/* radix.cl - the LSD radix sort (CLSORT_RADIX): per digit of RADIX_BITS bits, least significant
 * first, three launches in the portable reduce-then-scan form. radix_count: each work-group
 * counts the digits of its range of the keys; radix_scan: one work-group a digit turns that
 * digit's counts over the groups into exclusive offsets and its total; radix_scatter: each
 * work-group ranks its range tile by tile in local memory (stable) and writes every key to its
 * place in the other buffer. Stable by construction: equal digits keep their order in each pass.
 *
 * The digit is taken from the key's order transform (common.cl's to_order), so every key type,
 * both directions and the floats' totalOrder are one code path, and the keys travel unchanged.
 * The number of passes, KEY_BITS / RADIX_BITS, is even (the host picks RADIX_BITS so), so the
 * sorted keys end in the caller's buffer. Work-group g of `groups` takes tiles
 * [g * per, (g + 1) * per) of RX_TILE keys, per = ceil(tiles / groups); the counts live in
 * hist[digit * groups + g], the digits' totals after them (hist[RX_DIGITS * groups + digit]).
 * No sub-groups. RX_MATCH selects the scatter's ranking: 0 two stable 4-bit splits a digit in
 * local memory, which every OpenCL 1.2 device runs; 1 a warp-level multisplit through inline
 * PTX (match.any.sync, bar.warp.sync), which only NVIDIA's compiler takes (the host sets it for
 * NVIDIA devices alone); 2 the same multisplit with the warp's match emulated in local memory
 * and work-group barriers, so that any device (PoCL in the tests) checks the scheme of 1. */
#ifndef CLSORT_RADIX_CL
#define CLSORT_RADIX_CL

#ifndef RADIX_BITS
#define RADIX_BITS 8         /* bits of a digit: 4 or 8 */
#endif
#ifndef RX_WG
#define RX_WG 64             /* work-items of every radix launch; a power of two */
#endif
#ifndef RX_ITEMS
#define RX_ITEMS 4           /* keys a work-item ranks per tile: at most 16 (splits), 32 */
#endif
#ifndef RX_MATCH
#define RX_MATCH 0           /* the scatter's ranking: 0 splits, 1 PTX multisplit, 2 emulated */
#endif
#define RX_DIGITS (1u << RADIX_BITS)
#define RX_TILE (RX_WG * RX_ITEMS)
#define RX_SPLIT_BITS 4u     /* a stable split ranks 4 bits at a time */
#define RX_SPLIT_DIGITS 16u
#define RX_SPLITS (RADIX_BITS / RX_SPLIT_BITS)
#ifndef RX_PAD
#define RX_PAD 1             /* 1: one spare slot per 16 split counters (no bank conflicts) */
#endif
/* Slot of split counter p (digit-major: p = digit * RX_WG + work-item). Each work-item scans a
 * run of 16 consecutive counters: unpadded, the work-items of a warp would read one bank 16
 * times over (a stride of 16 words); one spare slot per 16 makes the stride 17. */
#if RX_PAD
#define RX_LC(p) ((p) + ((p) >> 4))
#define RX_LC_SIZE (RX_SPLIT_DIGITS * RX_WG + RX_WG)
#else
#define RX_LC(p) (p)
#define RX_LC_SIZE (RX_SPLIT_DIGITS * RX_WG)
#endif

/* The digit of a key at shift, from its order transform. */
inline uint rx_digit(const key_type k, const uint xf, const uint shift, const uint mask)
{
    return (uint)(to_order(k, xf) >> shift) & mask;
}

/* The keys of work-group g: [*first, *last). */
inline void rx_range(const idx_t n, const uint groups, const uint g, idx_t *first, idx_t *last)
{
    const idx_t tiles = (n + RX_TILE - 1) / RX_TILE;
    const idx_t per = (tiles + groups - 1) / groups;
    const idx_t a = (idx_t)g * per * RX_TILE, b = a + per * RX_TILE;
    *first = a < n ? a : n;
    *last = b < n ? b : n;
}

#ifndef RX_RAKE
#define RX_RAKE 0            /* 1: the work-group scans rake (3 barriers), 0: Hillis-Steele */
#endif
#define RX_RUNS (RX_WG < 16 ? RX_WG : 16) /* raking: runs of the scan, one work-item each */
#define RX_RUN (RX_WG / RX_RUNS)
#define RX_TMP (RX_WG + RX_RUNS + 1)      /* slots of a scan's local buffer */

/* Exclusive scan of one value per work-item over the work-group, in tmp (RX_TMP slots); *total
 * gets the sum. Every work-item must call it. Hillis-Steele takes 2 log2(RX_WG) barriers; the
 * raking form 4: RX_RUNS work-items each scan a run of RX_RUN values, one scans the runs. */
inline idx_t rx_group_scan(const idx_t v, __local idx_t *tmp, idx_t *total)
{
    const uint lid = get_local_id(0);
    tmp[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
#if RX_RAKE
    if (lid < RX_RUNS) {
        idx_t sum = 0;
        for (uint i = lid * RX_RUN; i < (lid + 1) * RX_RUN; ++i) {
            const idx_t x = tmp[i];
            tmp[i] = sum;
            sum += x;
        }
        tmp[RX_WG + lid] = sum;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        idx_t sum = 0;
        for (uint r = 0; r < RX_RUNS; ++r) {
            const idx_t x = tmp[RX_WG + r];
            tmp[RX_WG + r] = sum;
            sum += x;
        }
        tmp[RX_WG + RX_RUNS] = sum;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const idx_t excl = tmp[lid] + tmp[RX_WG + lid / RX_RUN];
    *total = tmp[RX_WG + RX_RUNS];
    barrier(CLK_LOCAL_MEM_FENCE);
    return excl;
#else
    for (uint off = 1; off < RX_WG; off <<= 1) {
        const idx_t add = lid >= off ? tmp[lid - off] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        tmp[lid] += add;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const idx_t incl = tmp[lid];
    *total = tmp[RX_WG - 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    return incl - v;
#endif
}

/* base[d]: where work-group g's keys of digit d go: the keys of the digits before d, then
 * those of d in the groups before g. */
inline void rx_bases(__global const idx_t *restrict hist, const uint groups, const uint g,
                     __local idx_t *base, __local idx_t *tmp)
{
    const uint lid = get_local_id(0);
    const uint per = (RX_DIGITS + RX_WG - 1) / RX_WG;
    const uint a = min(lid * per, RX_DIGITS), b = min(a + per, RX_DIGITS);
    idx_t sum = 0;
    for (uint d = a; d < b; ++d)
        sum += hist[(idx_t)RX_DIGITS * groups + d];
    idx_t total;
    idx_t run = rx_group_scan(sum, tmp, &total);
    for (uint d = a; d < b; ++d) {
        base[d] = run + hist[(idx_t)d * groups + g];
        run += hist[(idx_t)RX_DIGITS * groups + d];
    }
}

/* The values of pair programs: read from the source buffer, written to the other. */
#if VAL_BYTES
#define RX_VALS_PARAMS , __global const val_type *restrict vsrc, __global val_type *restrict vdst
#else
#define RX_VALS_PARAMS
#endif

__kernel CLSORT_SHAPE_RADIX void radix_count(CLSORT_ARGS_RADIX)
{
    __local uint lh[RX_DIGITS];
    const uint lid = get_local_id(0), g = get_group_id(0);
    for (uint d = lid; d < RX_DIGITS; d += RX_WG)
        lh[d] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    idx_t first, last;
    rx_range(n, groups, g, &first, &last);
    for (idx_t i = first + lid; i < last; i += RX_WG)
        atomic_inc(&lh[rx_digit(src[i], xf, shift, RX_DIGITS - 1)]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = lid; d < RX_DIGITS; d += RX_WG)
        hist[(idx_t)d * groups + g] = lh[d];
}

/* Work-group d: the exclusive scan of digit d's counts over the groups, in place, and the
 * digit's total. Each work-item takes a run of consecutive groups. */
__kernel CLSORT_SHAPE_RADIX void radix_scan(CLSORT_ARGS_RADIX)
{
    __local idx_t tmp[RX_TMP];
    const uint lid = get_local_id(0), d = get_group_id(0);
    __global idx_t *h = hist + (idx_t)d * groups;
    const uint per = (groups + RX_WG - 1) / RX_WG;
    const uint a = min(lid * per, groups), b = min(a + per, groups);
    idx_t sum = 0;
    for (uint i = a; i < b; ++i)
        sum += h[i];
    idx_t total;
    idx_t run = rx_group_scan(sum, tmp, &total);
    for (uint i = a; i < b; ++i) {
        const idx_t c = h[i];
        h[i] = run;
        run += c;
    }
    if (lid == 0)
        hist[(idx_t)RX_DIGITS * groups + d] = total;
}

#if !RX_MATCH
/* Private counters of 16 split digits, 8 bits each (a work-item holds at most 16 keys). */
#define RX_COUNT(lo, hi, d) \
    ((uint)(((d) < 8u ? (lo) >> ((d) * 8u) : (hi) >> (((d) - 8u) * 8u)) & 0xFFu))
#define RX_BUMP(lo, hi, d)                     \
    do {                                       \
        if ((d) < 8u)                          \
            lo += 1ul << ((d) * 8u);           \
        else                                   \
            hi += 1ul << (((d) - 8u) * 8u);    \
    } while (0)

__kernel CLSORT_SHAPE_RADIX void radix_scatter(CLSORT_ARGS_RADIX)
{
    __local key_type lk[RX_TILE];
#if VAL_BYTES
    __local ushort li[RX_TILE]; /* where each ranked key stood in its tile */
#endif
    __local uint lc[RX_LC_SIZE];
    __local idx_t tmp[RX_TMP];
    __local idx_t base[RX_DIGITS];
    __local uint start[RX_DIGITS];
    const uint lid = get_local_id(0), g = get_group_id(0);
    const uint mask = RX_DIGITS - 1;

    rx_bases(hist, groups, g, base, tmp);
    idx_t first, last;
    rx_range(n, groups, g, &first, &last);
    /* Positions past n hold a key whose order is all ones: every split puts it last. */
    const key_type virt = from_order(~(key_type)0, xf);
    for (idx_t t = first; t < last; t += RX_TILE) {
        const uint valid = (uint)min((idx_t)RX_TILE, last - t);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint s = lid; s < RX_TILE; s += RX_WG) {
            lk[s] = s < valid ? src[t + s] : virt;
            IF_VALS(li[s] = (ushort)s;)
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        key_type k[RX_ITEMS];
        IF_VALS(ushort ix[RX_ITEMS];)
        for (uint j = 0; j < RX_ITEMS; ++j) {
            k[j] = lk[lid * RX_ITEMS + j];
            IF_VALS(ix[j] = li[lid * RX_ITEMS + j];)
        }
        for (uint sp = 0; sp < RX_SPLITS; ++sp) {
            const uint sh = shift + sp * RX_SPLIT_BITS;
            ulong lo = 0, hi = 0;
            for (uint j = 0; j < RX_ITEMS; ++j) {
                const uint d = rx_digit(k[j], xf, sh, RX_SPLIT_DIGITS - 1);
                RX_BUMP(lo, hi, d);
            }
            for (uint d = 0; d < RX_SPLIT_DIGITS; ++d)
                lc[RX_LC(d * RX_WG + lid)] = RX_COUNT(lo, hi, d);
            barrier(CLK_LOCAL_MEM_FENCE);
            /* Digit-major exclusive scan of the counters: each work-item a run of 16. */
            uint c16[RX_SPLIT_DIGITS];
            idx_t sum = 0;
            for (uint i = 0; i < RX_SPLIT_DIGITS; ++i) {
                c16[i] = lc[RX_LC(lid * RX_SPLIT_DIGITS + i)];
                sum += c16[i];
            }
            idx_t total;
            uint run = (uint)rx_group_scan(sum, tmp, &total);
            for (uint i = 0; i < RX_SPLIT_DIGITS; ++i) {
                lc[RX_LC(lid * RX_SPLIT_DIGITS + i)] = run;
                run += c16[i];
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            lo = hi = 0;
            for (uint j = 0; j < RX_ITEMS; ++j) {
                const uint d = rx_digit(k[j], xf, sh, RX_SPLIT_DIGITS - 1);
                const uint pos = lc[RX_LC(d * RX_WG + lid)] + RX_COUNT(lo, hi, d);
                RX_BUMP(lo, hi, d);
                lk[pos] = k[j];
                IF_VALS(li[pos] = ix[j];)
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            if (sp + 1 < RX_SPLITS)
                for (uint j = 0; j < RX_ITEMS; ++j) {
                    k[j] = lk[lid * RX_ITEMS + j];
                    IF_VALS(ix[j] = li[lid * RX_ITEMS + j];)
                }
        }
        /* The tile is sorted by the digit: a key's rank among its digit is its slot less the
         * first slot of that digit. */
        for (uint s = lid; s < valid; s += RX_WG) {
            const uint d = rx_digit(lk[s], xf, shift, mask);
            if (s == 0 || rx_digit(lk[s - 1], xf, shift, mask) != d)
                start[d] = s;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint s = lid; s < valid; s += RX_WG) {
            const uint d = rx_digit(lk[s], xf, shift, mask);
            const idx_t to = base[d] + (s - start[d]);
            dst[to] = lk[s];
            IF_VALS(vdst[to] = vsrc[t + li[s]];)
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint s = lid; s < valid; s += RX_WG) {
            const uint d = rx_digit(lk[s], xf, shift, mask);
            if (s + 1 == valid || rx_digit(lk[s + 1], xf, shift, mask) != d)
                base[d] += s + 1 - start[d];
        }
    }
}
#else /* RX_MATCH: the warp-level multisplit */

#define RX_WARP 32u                      /* lanes of an NVIDIA warp: consecutive work-items */
#define RX_WARPS (RX_WG / RX_WARP)
#define RX_WRUN (RX_WARP * RX_ITEMS)     /* keys of a warp's run of the tile */

#if RX_MATCH == 1
/* The lanes of this warp whose d equals this lane's: one instruction on sm_70 and later. */
inline uint rx_match(const uint d, __local uint *scratch)
{
    uint m;
    asm volatile("match.any.sync.b32 %0, %1, 0xffffffff;" : "=r"(m) : "r"(d));
    return m;
}
/* Orders the warp's local memory accesses before it against those after (the lanes of a
 * warp need not run in lockstep since Volta). */
#define RX_WARP_SYNC() asm volatile("bar.warp.sync 0xffffffff;" ::: "memory")
#else
/* The same through local memory: every work-item of the group must call it. */
inline uint rx_match(const uint d, __local uint *scratch)
{
    const uint lid = get_local_id(0), w0 = lid & ~(RX_WARP - 1u);
    scratch[lid] = d;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint m = 0;
    for (uint l = 0; l < RX_WARP; ++l)
        m |= (uint)(scratch[w0 + l] == d) << l;
    barrier(CLK_LOCAL_MEM_FENCE);
    return m;
}
#define RX_WARP_SYNC() barrier(CLK_LOCAL_MEM_FENCE)
#endif

/* Each warp takes a run of RX_WRUN consecutive keys of the tile, lane l key j at run slot
 * j * 32 + l (coalesced loads), and ranks them in that order against its own counters
 * wh[warp][digit]: the lanes of equal digits find each other (match), each gets the counter
 * plus its peers below it, and the highest peer adds their number. A scan of the counters,
 * digit-major and warp-minor, then places every key in the tile sorted by the digit, stable. */
__kernel CLSORT_SHAPE_RADIX void radix_scatter(CLSORT_ARGS_RADIX)
{
    __local key_type lk[RX_TILE];
#if VAL_BYTES
    __local ushort li[RX_TILE]; /* where each ranked key stood in its tile */
#endif
    __local uint wh[RX_WARPS * RX_DIGITS];
    __local uint start[RX_DIGITS]; /* the first slot of each digit in the ranked tile */
    __local idx_t tmp[RX_TMP];
    __local idx_t base[RX_DIGITS];
#if RX_MATCH == 2
    __local uint scratch[RX_WG];
#else
    __local uint *scratch = 0;
#endif
    const uint lid = get_local_id(0), g = get_group_id(0);
    const uint lane = lid % RX_WARP, w = lid / RX_WARP, below = (1u << lane) - 1u;
    const uint mask = RX_DIGITS - 1;
    rx_bases(hist, groups, g, base, tmp);
    for (uint i = lid; i < RX_WARPS * RX_DIGITS; i += RX_WG)
        wh[i] = 0;
    idx_t first, last;
    rx_range(n, groups, g, &first, &last);
    /* Positions past n hold a key whose order is all ones: ranked last, never written. */
    const key_type virt = from_order(~(key_type)0, xf);
    volatile __local uint *h = wh + w * RX_DIGITS;
    for (idx_t t = first; t < last; t += RX_TILE) {
        const uint valid = (uint)min((idx_t)RX_TILE, last - t);
        barrier(CLK_LOCAL_MEM_FENCE);
        key_type k[RX_ITEMS];
        uint rk[RX_ITEMS];
        for (uint j = 0; j < RX_ITEMS; ++j) {
            const uint s = w * RX_WRUN + j * RX_WARP + lane;
            k[j] = s < valid ? src[t + s] : virt;
        }
        for (uint j = 0; j < RX_ITEMS; ++j) {
            const uint d = rx_digit(k[j], xf, shift, mask);
            const uint peers = rx_match(d, scratch);
            const uint pre = h[d];
            RX_WARP_SYNC();
            if ((peers >> lane) == 1u)
                h[d] = pre + popcount(peers);
            RX_WARP_SYNC();
            rk[j] = pre + popcount(peers & below);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* Per digit the warps' counts become their offsets within the digit, the digits'
         * totals their first slots in the tile. */
        {
            const uint per = (RX_DIGITS + RX_WG - 1) / RX_WG;
            const uint a = min(lid * per, RX_DIGITS), b = min(a + per, RX_DIGITS);
            uint sum = 0;
            for (uint d = a; d < b; ++d) {
                uint run = 0;
                for (uint x = 0; x < RX_WARPS; ++x) {
                    const uint c = wh[x * RX_DIGITS + d];
                    wh[x * RX_DIGITS + d] = run;
                    run += c;
                }
                start[d] = run;
                sum += run;
            }
            idx_t total;
            uint run = (uint)rx_group_scan(sum, tmp, &total);
            for (uint d = a; d < b; ++d) {
                const uint c = start[d];
                start[d] = run;
                run += c;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint j = 0; j < RX_ITEMS; ++j) {
            const uint d = rx_digit(k[j], xf, shift, mask);
            const uint pos = start[d] + h[d] + rk[j];
            lk[pos] = k[j];
            IF_VALS(li[pos] = (ushort)(w * RX_WRUN + j * RX_WARP + lane);)
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint s = lid; s < valid; s += RX_WG) {
            const key_type key = lk[s];
            const uint d = rx_digit(key, xf, shift, mask);
            const idx_t to = base[d] + (s - start[d]);
            dst[to] = key;
            IF_VALS(vdst[to] = vsrc[t + li[s]];)
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint d = lid; d < RX_DIGITS; d += RX_WG)
            base[d] += (d + 1 < RX_DIGITS ? start[d + 1] : RX_TILE) - start[d];
        for (uint i = lid; i < RX_WARPS * RX_DIGITS; i += RX_WG)
            wh[i] = 0;
    }
}
#endif /* RX_MATCH */

#endif /* CLSORT_RADIX_CL */
