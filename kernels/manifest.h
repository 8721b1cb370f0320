/* manifest.h - the contract between the host and the kernels, written once: which programs exist
 * and the kernel files each is made of, in order; every kernel's name, the programs that hold it,
 * its argument list, its launch shape, and the condition under which a build holds it.
 *
 * Read by both sides. The host includes it as C (host/core/plan_types.h, host/core/kernels.c): the
 * schedule names kernels by identifiers made from this table, run.c sets arguments and group sizes
 * from it, program.c concatenates each program's parts in the order below. It is also the first
 * part of every program's source, so the kernels' guards are `#if CLSORT_WHEN_...`, their
 * parameter lists CLSORT_ARGS_..., their group-size attributes CLSORT_SHAPE_... from these same
 * lines. tests/test_manifest.c builds the programs with several parameter sets and checks that
 * each holds exactly the kernels this table says, with the argument counts it says. Hence only
 * preprocessor lines here: valid C and OpenCL C alike. */
#ifndef CLSORT_MANIFEST_H
#define CLSORT_MANIFEST_H

/* ---- Programs and their parts ---------------------------------------------------------------
 * X(NAME, parts): a program, and the kernels/ files (base names, embedded by mk/embed.c as
 * clsort__src_<base>) concatenated in this order to make its source. The tile machinery
 * (tile.cl) serves bitonic's tile passes, the transposition network's half-cleaners (bitonic's
 * merge tile) and the odd-even merge's finish; each program leaves out the passes it never
 * launches, which saves PoCL seconds of compiling. */
#define CLSORT_PARTS_BITONIC(P) \
    P(manifest) P(key_types) P(common) P(rows) P(tile) P(bitonic_sort) P(bitonic_merge) P(bitonic_global) \
    P(bitonic_wide) P(narrow)
#define CLSORT_PARTS_ODD_EVEN_MERGE(P) \
    P(manifest) P(key_types) P(common) P(rows) P(tile) P(oddeven_merge) P(narrow)
#define CLSORT_PARTS_TRANSPOSITION(P) \
    P(manifest) P(key_types) P(common) P(rows) P(tile) P(bitonic_merge) P(transposition) P(narrow)
#define CLSORT_PARTS_SEGMENTED(P) \
    P(manifest) P(key_types) P(common) P(rows) P(tile) P(segmented) P(seg_large)
#define CLSORT_PARTS_TOPK(P) P(manifest) P(key_types) P(common) P(topk) P(topk_radix)
#define CLSORT_PARTS_RADIX(P) P(manifest) P(key_types) P(common) P(radix) P(narrow)
/* The programs, the three networks first in the order of clsort_algorithm (less AUTO); the
 * radix sort (CLSORT_RADIX) is not a network and comes last. */
#define CLSORT_PROGRAMS(X)                                                          \
    X(BITONIC, CLSORT_PARTS_BITONIC)                                                \
    X(ODD_EVEN_MERGE, CLSORT_PARTS_ODD_EVEN_MERGE)                                  \
    X(TRANSPOSITION, CLSORT_PARTS_TRANSPOSITION)                                    \
    X(SEGMENTED, CLSORT_PARTS_SEGMENTED)                                            \
    X(TOPK, CLSORT_PARTS_TOPK)                                                      \
    X(RADIX, CLSORT_PARTS_RADIX)
/* Program sets for the kernel table's second column. */
#define CLSORT_IN_BITONIC 1
#define CLSORT_IN_ODD_EVEN_MERGE 2
#define CLSORT_IN_TRANSPOSITION 4
#define CLSORT_IN_SEGMENTED 8
#define CLSORT_IN_TOPK 16
#define CLSORT_IN_RADIX 32

/* ---- When a kernel exists ----------------------------------------------------------------------
 * Conditions over the network build parameters TILE, WG_SIZE, VEC_STEP and KEYS_PER_ITEM (the -D
 * names of CLSORT_PARAM_TABLE in include/clsort.h, made into options by host/planning/params.c).
 * The kernels test them with `#if`; the host evaluates the same expressions with those names
 * bound to a clsort_params's fields by that table (host/core/kernels.c). The segmented and top-k
 * programs hold all of their kernels whatever their parameters (ALWAYS). */
#define CLSORT_WHEN_ALWAYS 1
/* A tile of at most 32 keys belongs to one work-item alone (no local memory, no barrier). */
#define CLSORT_WHEN_SOLO (TILE <= 32)
/* R fused levels a work-item in the global passes: R = 1 .. log2(KEYS_PER_ITEM). */
#define CLSORT_WHEN_R1 1
#define CLSORT_WHEN_R2 (KEYS_PER_ITEM >= 4)
#define CLSORT_WHEN_R3 (KEYS_PER_ITEM >= 8)
#define CLSORT_WHEN_R4 (KEYS_PER_ITEM >= 16)
#define CLSORT_WHEN_R5 (KEYS_PER_ITEM >= 32)
/* Rows of VEC_STEP == TILE keys: every row of a merge's last global pass is a whole tile, so the
 * tile's half-cleaners run in that pass (bitonic's _tail_ kernels). */
#define CLSORT_WHEN_TAIL (VEC_STEP == TILE && TILE <= 32)
#define CLSORT_WHEN_TAIL_R1 CLSORT_WHEN_TAIL
#define CLSORT_WHEN_TAIL_R2 (CLSORT_WHEN_TAIL && CLSORT_WHEN_R2)
#define CLSORT_WHEN_TAIL_R3 (CLSORT_WHEN_TAIL && CLSORT_WHEN_R3)
#define CLSORT_WHEN_TAIL_R4 (CLSORT_WHEN_TAIL && CLSORT_WHEN_R4)
#define CLSORT_WHEN_TAIL_R5 (CLSORT_WHEN_TAIL && CLSORT_WHEN_R5)
/* The wide passes: a work-group's virtual tile of rows at least 16 keys wide, in local memory;
 * only for tiles shared by a work-group, with WG_SIZE >= 16. */
#define CLSORT_WHEN_WIDE (TILE > 32 && WG_SIZE >= 16)

/* ---- Argument lists ---------------------------------------------------------------------------
 * The networks' kernels take (keys, [vals,] n, xf) and then one or two uints of their own (the
 * schedule's step arguments); VALS_PARAM (common.cl) is the values argument of pair programs.
 * The segmented kernels take the segment list (host/execution/run.c sets them per kind). The
 * top-k kernels (topk.cl) take their items: topk_tile the input rows and values, the items it
 * reads and writes (keys, indices, values), the outputs, then the sizes (m, rows, m_out, k,
 * tiles_per_row) and (xf, P, K, mode); topk_global one item buffer and (m, rows, sz, j). Buffers
 * a launch does not use are NULL; tk_val, tk_idx and tk_out are topk.cl's types. */
#define CLSORT_ARGS_SORT1(a) \
    __global key_type *restrict keys VALS_PARAM, const idx_t n, const uint xf, const uint a
#define CLSORT_ARGS_SORT2(a, b) \
    __global key_type *restrict keys VALS_PARAM, const idx_t n, const uint xf, const uint a, \
        const uint b
#define CLSORT_ARGS_SEG_BIN \
    __global const ulong *off, const ulong nseg, const ulong cap, __global uint *meta
#define CLSORT_ARGS_SEG_TINY                                                                 \
    __global key_type *restrict keys VALS_PARAM, __global const ulong *off, const ulong nseg, \
        const ulong cap, __global const uint *meta, const uint xf
#define CLSORT_ARGS_SEG_GROUP                                                                \
    __global key_type *restrict keys VALS_PARAM, __global const ulong *off, const ulong nseg, \
        const ulong cap, __global const uint *meta, const uint xf, const uint bin_first,     \
        const uint bin_last, __global uint *gpos, const ulong max_len
/* Step arguments with fields, packed by the schedule (host/planning/schedule.c) and unpacked by
 * the kernels from these same lines. seg_sort_packed's bin_last with CLSORT_SEG_PACK_LARGE: the
 * large bin's units too (segmented.cl, seg_large.cl). seg_large_global's bin_first: log2 of its
 * lowest stride, its level count R (1 .. CLSORT_LARGE_R_MAX, each a code path of its own) and
 * whether its first level is the flip. */
#define CLSORT_SEG_PACK_LARGE 0x100u
#define CLSORT_LARGE_R_MAX 4u
#define CLSORT_LARGE_ARG(log_jlow, r, flip) ((log_jlow) | (r) << 8 | (flip) << 16)
#define CLSORT_LARGE_ARG_LOG_JLOW(a) ((a) & 0xFFu)
#define CLSORT_LARGE_ARG_R(a) (((a) >> 8) & 0xFFu)
#define CLSORT_LARGE_ARG_FLIP(a) (((a) >> 16) & 1u)
/* seg_compose / seg_decompose: the run's keys (64-bit composites), the caller's 32-bit keys and
 * values (vwords 32-bit words each) and the values' copy, the offsets (their clamped range is
 * all they touch), and the 32-bit keys' transform. */
#define CLSORT_ARGS_SEG_KEYS32                                                                 \
    __global key_type *restrict keys, __global uint *restrict keys32,                         \
        __global uint *restrict vals32, __global uint *restrict vcopy, __global const ulong *off, \
        const ulong nseg, const ulong cap, const uint xf32, const uint vwords
#define CLSORT_ARGS_TOPK_TILE                                                                  \
    __global const key_type *keys, __global const tk_val *vals, __global const key_type *ik,   \
        __global const tk_idx *ii, __global const tk_val *iv, __global key_type *ok,          \
        __global tk_idx *oi, __global tk_val *ov, __global key_type *out_keys,                \
        __global tk_out *out_vals, const ulong m, const ulong rows, const ulong m_out,        \
        const ulong k, const ulong tiles_per_row, const uint xf, const uint P, const uint K,  \
        const uint mode
#define CLSORT_ARGS_TOPK_GLOBAL                                                            \
    __global key_type *ik, __global tk_idx *ii, __global tk_val *iv, const ulong m,        \
        const ulong rows, const ulong sz, const ulong j
/* The radix select's passes (topk_radix.cl): the input rows and values, the histograms, the
 * chunks' counts and the rows' states (its own buffers), the survivors' items (item buffer 2),
 * then (m, rows, k, chunk, chunks) and (xf, pass). */
#define CLSORT_ARGS_TOPK_RADIX                                                                \
    __global const key_type *keys, __global const tk_val *vals, __global uint *hist,          \
        __global uint *counts, __global ulong *state, __global key_type *ok,                  \
        __global tk_idx *oi, __global tk_val *ov, const ulong m, const ulong rows,            \
        const ulong k, const ulong chunk, const ulong chunks, const uint xf, const uint pass
/* keys_widen / keys_narrow (narrow.cl): the run's 32-bit composites, the caller's keys of w bits
 * (8 or 16), their count, and the keys' transform (values stay where they are). */
#define CLSORT_ARGS_NARROW                                                                   \
    __global key_type *restrict keys, __global uchar *restrict narrow, const idx_t n,       \
        const uint xf, const uint w
/* The radix sort's passes (radix.cl): the buffer read and the buffer written (and their values
 * in pair programs, RX_VALS_PARAMS), the digit counts, n, xf, the digit's shift and the number
 * of work-groups that share the keys. */
#define CLSORT_ARGS_RADIX                                                                     \
    __global const key_type *restrict src, __global key_type *restrict dst RX_VALS_PARAMS,   \
        __global idx_t *restrict hist, const idx_t n, const uint xf, const uint shift,        \
        const uint groups
/* The lists by name, in the order of the host's clsort__args_kind (host/core/plan_types.h). */
#define CLSORT_ARG_LISTS(X)                                                                   \
    X(SORT1) X(SORT2) X(SEG_BIN) X(SEG_TINY) X(SEG_GROUP) X(SEG_KEYS32) X(TOPK_TILE)          \
    X(TOPK_GLOBAL) X(TOPK_RADIX) X(NARROW) X(RADIX)
/* The number of arguments of each list, vals: 1 in pair programs (VAL_BYTES > 0), else 0. */
#define CLSORT_NARGS_SORT1(vals) (4 + (vals))
#define CLSORT_NARGS_SORT2(vals) (5 + (vals))
#define CLSORT_NARGS_SEG_BIN(vals) 4
#define CLSORT_NARGS_SEG_TINY(vals) (6 + (vals))
#define CLSORT_NARGS_SEG_GROUP(vals) (10 + (vals))
#define CLSORT_NARGS_SEG_KEYS32(vals) 9
#define CLSORT_NARGS_TOPK_TILE(vals) 19
#define CLSORT_NARGS_TOPK_GLOBAL(vals) 7
#define CLSORT_NARGS_TOPK_RADIX(vals) 15
#define CLSORT_NARGS_NARROW(vals) 5
#define CLSORT_NARGS_RADIX(vals) (7 + 2 * (vals))

/* ---- Launch shapes ----------------------------------------------------------------------------
 * TILE: exactly WG_SIZE work-items a group, a work-group a tile, or a work-item a tile where
 * CLSORT_WHEN_SOLO holds (WG_SIZE solo tiles to a group); GROUP: exactly WG_SIZE work-items a
 * group, a work-group a (virtual) tile always; GLOBAL: any group size (the host picks 256, fewer
 * if the kernel allows fewer);
 * SEG_ITEM: any group size, CLSORT_SEG_ITEM_WG or fewer (what the kernel allows);
 * SEG_GROUP: exactly SEG_WG work-items a group;
 * TOPK: exactly TK_WG work-items a group, a work-group a tile of TK_TILE items; TOPK_STREAM:
 * exactly TK_STREAM_WG work-items a group, a work-group a span of a row; TOPK_RADIX: exactly
 * RS_WG work-items a group, a work-group a chunk of a row (or a row); RADIX: exactly RX_WG
 * work-items a group. */
#define CLSORT_SHAPE_TILE __attribute__((reqd_work_group_size(WG_SIZE, 1, 1)))
#define CLSORT_SHAPE_GROUP __attribute__((reqd_work_group_size(WG_SIZE, 1, 1)))
#define CLSORT_SHAPE_GLOBAL
#define CLSORT_SHAPE_SEG_ITEM
#define CLSORT_SEG_ITEM_WG 64u /* the staged tiny pass sizes its local arrays by it */
#define CLSORT_SHAPE_SEG_GROUP __attribute__((reqd_work_group_size(SEG_WG, 1, 1)))
#define CLSORT_SHAPE_TOPK __attribute__((reqd_work_group_size(TK_WG, 1, 1)))
#define CLSORT_SHAPE_TOPK_STREAM __attribute__((reqd_work_group_size(TK_STREAM_WG, 1, 1)))
#define CLSORT_SHAPE_TOPK_RADIX __attribute__((reqd_work_group_size(RS_WG, 1, 1)))
#define CLSORT_SHAPE_RADIX __attribute__((reqd_work_group_size(RX_WG, 1, 1)))

/* The shapes by name, in the order of the host's clsort__shape (host/core/plan_types.h). */
#define CLSORT_SHAPES(X)                                                                      \
    X(TILE) X(GROUP) X(GLOBAL) X(SEG_ITEM) X(SEG_GROUP) X(TOPK) X(TOPK_STREAM) X(TOPK_RADIX)  \
    X(RADIX)

/* ---- Kernels ----------------------------------------------------------------------------------
 * X(name, programs, args, shape, when): programs is a set of CLSORT_IN_*; args a CLSORT_ARGS_*
 * list, shape a CLSORT_SHAPE_*, when a CLSORT_WHEN_* condition (suffixes here). docs/kernels.md
 * describes each pass. */
#define CLSORT_KERNELS(X)                                                                     \
    X(bitonic_sort_tile, CLSORT_IN_BITONIC, SORT1, TILE, ALWAYS)                              \
    X(bitonic_merge_tile, CLSORT_IN_BITONIC | CLSORT_IN_TRANSPOSITION, SORT1, TILE, ALWAYS)   \
    X(bitonic_global_r1, CLSORT_IN_BITONIC, SORT1, GLOBAL, R1)                                \
    X(bitonic_global_r2, CLSORT_IN_BITONIC, SORT1, GLOBAL, R2)                                \
    X(bitonic_global_r3, CLSORT_IN_BITONIC, SORT1, GLOBAL, R3)                                \
    X(bitonic_global_r4, CLSORT_IN_BITONIC, SORT1, GLOBAL, R4)                                \
    X(bitonic_global_r5, CLSORT_IN_BITONIC, SORT1, GLOBAL, R5)                                \
    X(bitonic_flip_r1, CLSORT_IN_BITONIC, SORT1, GLOBAL, R1)                                  \
    X(bitonic_flip_r2, CLSORT_IN_BITONIC, SORT1, GLOBAL, R2)                                  \
    X(bitonic_flip_r3, CLSORT_IN_BITONIC, SORT1, GLOBAL, R3)                                  \
    X(bitonic_flip_r4, CLSORT_IN_BITONIC, SORT1, GLOBAL, R4)                                  \
    X(bitonic_flip_r5, CLSORT_IN_BITONIC, SORT1, GLOBAL, R5)                                  \
    X(bitonic_global_tail_r1, CLSORT_IN_BITONIC, SORT1, GLOBAL, TAIL_R1)                      \
    X(bitonic_global_tail_r2, CLSORT_IN_BITONIC, SORT1, GLOBAL, TAIL_R2)                      \
    X(bitonic_global_tail_r3, CLSORT_IN_BITONIC, SORT1, GLOBAL, TAIL_R3)                      \
    X(bitonic_global_tail_r4, CLSORT_IN_BITONIC, SORT1, GLOBAL, TAIL_R4)                      \
    X(bitonic_global_tail_r5, CLSORT_IN_BITONIC, SORT1, GLOBAL, TAIL_R5)                      \
    X(bitonic_flip_tail_r1, CLSORT_IN_BITONIC, SORT1, GLOBAL, TAIL_R1)                        \
    X(bitonic_flip_tail_r2, CLSORT_IN_BITONIC, SORT1, GLOBAL, TAIL_R2)                        \
    X(bitonic_flip_tail_r3, CLSORT_IN_BITONIC, SORT1, GLOBAL, TAIL_R3)                        \
    X(bitonic_flip_tail_r4, CLSORT_IN_BITONIC, SORT1, GLOBAL, TAIL_R4)                        \
    X(bitonic_flip_tail_r5, CLSORT_IN_BITONIC, SORT1, GLOBAL, TAIL_R5)                        \
    X(bitonic_wide, CLSORT_IN_BITONIC, SORT2, GROUP, WIDE)                                    \
    X(bitonic_wide_flip, CLSORT_IN_BITONIC, SORT2, GROUP, WIDE)                               \
    X(oem_sort_tile, CLSORT_IN_ODD_EVEN_MERGE, SORT1, GROUP, ALWAYS)                          \
    X(oem_global_top_r1, CLSORT_IN_ODD_EVEN_MERGE, SORT1, GLOBAL, R1)                         \
    X(oem_global_top_r2, CLSORT_IN_ODD_EVEN_MERGE, SORT1, GLOBAL, R2)                         \
    X(oem_global_top_r3, CLSORT_IN_ODD_EVEN_MERGE, SORT1, GLOBAL, R3)                         \
    X(oem_global_top_r4, CLSORT_IN_ODD_EVEN_MERGE, SORT1, GLOBAL, R4)                         \
    X(oem_global_top_r5, CLSORT_IN_ODD_EVEN_MERGE, SORT1, GLOBAL, R5)                         \
    X(oem_wide_top, CLSORT_IN_ODD_EVEN_MERGE, SORT2, GROUP, WIDE)                             \
    X(oem_global_level, CLSORT_IN_ODD_EVEN_MERGE, SORT2, GLOBAL, ALWAYS)                      \
    X(oem_finish_tile, CLSORT_IN_ODD_EVEN_MERGE, SORT2, GROUP, ALWAYS)                        \
    X(oet_sort_tile, CLSORT_IN_TRANSPOSITION, SORT1, TILE, ALWAYS)                            \
    X(oet_merge_pairs, CLSORT_IN_TRANSPOSITION, SORT1, GLOBAL, ALWAYS)                        \
    X(seg_count, CLSORT_IN_SEGMENTED, SEG_BIN, SEG_ITEM, ALWAYS)                              \
    X(seg_scatter, CLSORT_IN_SEGMENTED, SEG_BIN, SEG_ITEM, ALWAYS)                            \
    X(seg_sort_tiny, CLSORT_IN_SEGMENTED, SEG_TINY, SEG_ITEM, ALWAYS)                         \
    X(seg_sort_packed, CLSORT_IN_SEGMENTED, SEG_GROUP, SEG_GROUP, ALWAYS)                     \
    X(seg_sort_group, CLSORT_IN_SEGMENTED, SEG_GROUP, SEG_GROUP, ALWAYS)                      \
    X(seg_large_scan, CLSORT_IN_SEGMENTED, SEG_BIN, SEG_GROUP, ALWAYS)                        \
    X(seg_large_global, CLSORT_IN_SEGMENTED, SEG_GROUP, SEG_GROUP, ALWAYS)                    \
    X(seg_large_merge, CLSORT_IN_SEGMENTED, SEG_GROUP, SEG_GROUP, ALWAYS)                     \
    X(seg_compose, CLSORT_IN_SEGMENTED, SEG_KEYS32, GLOBAL, ALWAYS)                           \
    X(seg_decompose, CLSORT_IN_SEGMENTED, SEG_KEYS32, GLOBAL, ALWAYS)                         \
    X(topk_radix_zero, CLSORT_IN_TOPK, TOPK_RADIX, GLOBAL, ALWAYS)                            \
    X(topk_radix_hist, CLSORT_IN_TOPK, TOPK_RADIX, TOPK_RADIX, ALWAYS)                        \
    X(topk_radix_count, CLSORT_IN_TOPK, TOPK_RADIX, TOPK_RADIX, ALWAYS)                       \
    X(topk_radix_scan, CLSORT_IN_TOPK, TOPK_RADIX, TOPK_RADIX, ALWAYS)                        \
    X(topk_radix_compact, CLSORT_IN_TOPK, TOPK_RADIX, TOPK_RADIX, ALWAYS)                     \
    X(topk_tile, CLSORT_IN_TOPK, TOPK_TILE, TOPK, ALWAYS)                                     \
    X(topk_stream, CLSORT_IN_TOPK, TOPK_TILE, TOPK_STREAM, ALWAYS)                            \
    X(topk_global, CLSORT_IN_TOPK, TOPK_GLOBAL, GLOBAL, ALWAYS)                               \
    X(keys_widen, CLSORT_IN_BITONIC | CLSORT_IN_ODD_EVEN_MERGE | CLSORT_IN_TRANSPOSITION |    \
                      CLSORT_IN_RADIX, NARROW, GLOBAL, ALWAYS)                                \
    X(keys_narrow, CLSORT_IN_BITONIC | CLSORT_IN_ODD_EVEN_MERGE | CLSORT_IN_TRANSPOSITION |   \
                       CLSORT_IN_RADIX, NARROW, GLOBAL, ALWAYS)                               \
    X(radix_count, CLSORT_IN_RADIX, RADIX, RADIX, ALWAYS)                                     \
    X(radix_scan, CLSORT_IN_RADIX, RADIX, RADIX, ALWAYS)                                      \
    X(radix_scatter, CLSORT_IN_RADIX, RADIX, RADIX, ALWAYS)

#endif /* CLSORT_MANIFEST_H */
