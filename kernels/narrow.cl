/* narrow.cl - keys of 1 and 2 bytes on the device: widened into 32-bit composites before a
 * network sorts them, and narrowed back after (kernels/key_types.h; host/dispatch/narrow_keys.c).
 *
 * A key x of w bits (8 or 16, the argument w) becomes class << w | x, its class
 * (CLSORT_KT_CLASS under xf: its order, descending folded in, NaNs and zeros collapsed under
 * CLSORT_NAN_LARGEST) above its bits. Ascending order of the composites is the sort's order, and
 * the low w bits give the key back, so a sort of the composites as u32 keys, ascending, is the
 * sort of the keys; keys that compare equal but differ in their bits (NAN_LARGEST's NaNs and
 * zeros) end up ordered by their bits, which an unstable sort may do. Elementwise, one key a
 * work-item; only in 32-bit programs (elsewhere the kernels exist, as the manifest says, but do
 * nothing). */

/* The key at position i of the narrow array. */
inline uint narrow_load(__global const uchar *restrict narrow, const idx_t i, const uint w)
{
    return w == 8 ? (uint)narrow[i] : (uint)((__global const ushort *)narrow)[i];
}

__kernel CLSORT_SHAPE_GLOBAL void keys_widen(CLSORT_ARGS_NARROW)
{
#if KEY_BITS == 32
    const idx_t i = get_global_id(0);
    if (i >= n)
        return;
    const uint x = narrow_load(narrow, i, w);
    keys[i] = CLSORT_KT_CLASS(uint, w, x, xf) << w | x;
#endif
}

__kernel CLSORT_SHAPE_GLOBAL void keys_narrow(CLSORT_ARGS_NARROW)
{
#if KEY_BITS == 32
    const idx_t i = get_global_id(0);
    if (i >= n)
        return;
    const uint y = keys[i];
    if (w == 8)
        narrow[i] = (uchar)y;
    else
        ((__global ushort *)narrow)[i] = (ushort)y;
#endif
}
