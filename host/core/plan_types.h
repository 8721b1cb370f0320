/* plan_types.h - what the planning layer hands to the execution layer: the variant of a sort,
 * the plan of one sort (plan.c) and the steps of its schedule (schedule.c), which run.c turns into
 * launches; and the kernel manifest (kernels/manifest.h) as C identifiers. Types only, so that
 * execution can take them without reaching up to the modules that make them. */
#ifndef CLSORT_PLAN_TYPES_H
#define CLSORT_PLAN_TYPES_H

#include "clsort.h"

#include "../kernels/manifest.h"

#include <stdint.h>

/* The programs of the manifest: CLSORT__PROGRAM_BITONIC, _ODD_EVEN_MERGE, _TRANSPOSITION (the
 * networks, in this order), _SEGMENTED, _TOPK and _RADIX. */
typedef enum clsort__program_id {
#define CLSORT__X(name, parts) CLSORT__PROGRAM_##name,
    CLSORT_PROGRAMS(CLSORT__X)
#undef CLSORT__X
    CLSORT__NPROGRAMS
} clsort__program_id;

/* The kernels of the manifest, CLSORT__K_<name>: a schedule that names a kernel the manifest
 * lacks does not compile. */
typedef enum clsort__kernel_id {
#define CLSORT__X(name, programs, args, shape, when) CLSORT__K_##name,
    CLSORT_KERNELS(CLSORT__X)
#undef CLSORT__X
    CLSORT__NKERNELS
} clsort__kernel_id;

/* A kernel's argument list (CLSORT_ARGS_* in the manifest, named by CLSORT_ARG_LISTS). */
typedef enum clsort__args_kind {
#define CLSORT__X(name) CLSORT__ARGS_##name,
    CLSORT_ARG_LISTS(CLSORT__X)
#undef CLSORT__X
} clsort__args_kind;

/* A kernel's launch shape (CLSORT_SHAPE_* in the manifest, named by CLSORT_SHAPES; what each
 * asks of the group size is said there). */
typedef enum clsort__shape {
#define CLSORT__X(name) CLSORT__SHAPE_##name,
    CLSORT_SHAPES(CLSORT__X)
#undef CLSORT__X
} clsort__shape;

/* One row of the manifest's kernel table (host/core/kernels.c). */
typedef struct clsort__kernel_info {
    const char *name;
    unsigned programs;      /* CLSORT_IN_* bits: 1 << clsort__program_id */
    clsort__args_kind args;
    clsort__shape shape;
} clsort__kernel_info;

/* The three sorting networks; a network's program is the clsort__program_id of the same
 * number. */
typedef enum clsort__network {
    CLSORT__NET_BITONIC,
    CLSORT__NET_ODD_EVEN_MERGE,
    CLSORT__NET_TRANSPOSITION
} clsort__network;

/* Which variant of the kernels a sort needs: its network, key width and value kind. width and
 * valkind are also the slot indices of the context's parameter tables (core.h: CLSORT__WIDTHS,
 * CLSORT__VALKINDS); params.h turns them into bits and bytes (clsort__key_bits,
 * clsort__val_bytes). */
typedef struct clsort__variant {
    clsort__network net;
    int width;              /* 0: 32-bit keys, 1: 64-bit keys */
    int valkind;            /* 0: keys alone, 1: 4-byte values, 2: 8-byte values */
} clsort__variant;

/* A top-k launch's own arguments (kernels/manifest.h, CLSORT_ARGS_TOPK_*): where topk_tile reads
 * and writes (0 the input rows, 1 and 2 the item buffers, 3 the output; topk_global works in
 * place on buffer 1), and the sizes of its argument list. The radix select's passes take the
 * input rows and write buffer 2: P is their chunk, tiles_per_row the chunks a row, mode the
 * pass. */
typedef struct clsort__topk_args {
    int from, to;
    uint64_t m, m_out, tiles_per_row, sz, j;
    cl_uint P, K, mode;
} clsort__topk_args;

/* One step of a schedule: a kernel launch (CLSORT__OP_LAUNCH) with its work-items in dimension 0
 * and its step arguments (the uints of its argument list; for top-k the two traced by
 * CLSORT_DEBUG=2, its arguments in tk), or the zeroing of the segmented sort's bin counters
 * (CLSORT__OP_ZERO_COUNTERS). */
typedef enum clsort__op { CLSORT__OP_LAUNCH, CLSORT__OP_ZERO_COUNTERS } clsort__op;
typedef struct clsort__step {
    clsort__kernel_id kernel;
    uint64_t items;         /* global work-items (dimension 0), before rounding to the group */
    cl_uint args[2];
    int nargs;
    clsort__op op;
    clsort__topk_args tk;   /* CLSORT__PROGRAM_TOPK's kernels */
} clsort__step;

/* Receives the steps of a schedule in order; a status other than CLSORT_OK stops it. */
typedef int (*clsort__emit_fn)(const clsort__step *step, void *user);

/* The segmented sort's part of a plan (clsort__plan_segments): segment bounds are the offsets
 * clamped to [off[0], min(off[nseg], cap)) (docs/kernels.md). */
typedef struct clsort__seg_plan {
    uint64_t nseg, cap;
    unsigned tile;              /* SEG_TILE: keys one work-group sorts in local memory */
    unsigned wg;                /* SEG_WG: work-items of seg_sort_group */
    unsigned tiny_log;          /* SEG_TINY_LOG: segments up to 2^tiny_log keys, one a work-item
                                 * (0: no tiny pass) */
    int tiny_staged;            /* SEG_TINY_STAGE: the tiny pass through local memory, taking
                                 * every segment by index (the list holds no tiny bin) */
    unsigned pack_tile;         /* TILE of seg_sort_packed (0: no packed pass) */
    unsigned pack_log;          /* log2(pack_tile): the first bin the group pass takes */
    int stable;                 /* SEG_STABLE: pairs whose equal keys keep their order */
    uint64_t max_len;           /* the longest segment sorted here (longer: sorted elsewhere) */
    uint64_t tiny_items;        /* upper bound on the tiny segments (work-items), 0: none */
    uint64_t pack_groups;       /* work-groups for the packed pass, 0: none */
    uint64_t groups;            /* work-groups for the group pass, 0: none */
    unsigned large_log;         /* the large passes (kernels/seg_large.cl) for segments above
                                 * 4096 keys, up to the merge of blocks of 2^large_log; 0: none
                                 * (the group pass takes them) */
    uint64_t large_units;       /* the most units (pack_tile slots) they can make */
    uint64_t large_groups;      /* work-groups for each of their launches */
    int meta_slot, gpos_slot;   /* scratch buffers for the bin list and stable positions */
    int need_gpos;              /* stable pairs with segments above the tile: global positions */
    int composed;               /* stable pairs of 32-bit keys sorted as 64-bit composites alone
                                 * (key in order space, position): the run's keys are the
                                 * composites, seg_compose and seg_decompose go between them and
                                 * the caller's keys and values */
    cl_uint xf32;               /* the 32-bit keys' transform (composed) */
    cl_uint vwords;             /* 32-bit words a value (composed) */
} clsort__seg_plan;

/* Top-k's part of a plan (clsort__plan_topk): rows of n keys, the first k of each (kernels/topk.cl,
 * docs/kernels.md "Top-k"). */
typedef struct clsort__topk_plan {
    uint64_t rows, k;
    unsigned tile;              /* TK_TILE: items one work-group holds in local memory */
    unsigned wg;                /* TK_WG: work-items of topk_tile */
    int idx_bits;               /* TK_IDX_BITS: 32 or 64, the items' index width */
    int out;                    /* TK_OUT: out_vals gets 0 nothing, 1 values, 4 / 8 indices */
    int network;                /* 1: the top-k network (k <= tile / 2), 0: full sort of rows */
    unsigned stream;            /* keys a work-item of topk_stream reads, 0: no stream pass */
    unsigned stream_k;          /* TK_STREAM_K: K when there is a stream pass */
    unsigned stream_wg;         /* TK_STREAM_WG: work-items of topk_stream */
    uint64_t items[3];          /* [1], [2]: items the two item buffers hold (0: none) */
    int radix;                  /* 1: radix select (topk_radix.cl), then the network sorts the
                                 * k survivors of each row from item buffer 2 */
    unsigned rs_wg;             /* RS_WG: work-items of the radix passes */
    unsigned rs_bits;           /* RS_BITS: bits a digit */
    unsigned rs_passes;         /* digits a key */
    uint64_t rs_chunk;          /* keys a work-group of the radix passes takes */
    uint64_t rs_chunks;         /* chunks a row */
} clsort__topk_plan;

/* The radix sort's part of a plan (clsort__plan_sort with CLSORT_RADIX; kernels/radix.cl,
 * docs/kernels.md "Radix sort"): passes of `bits`-bit digits over keys of key_bits bits, an even
 * number of them so that the keys end where they started. The schedule's steps carry the digit's
 * shift and the number of groups; run.c reads from the caller's buffers in even passes and from
 * the second buffers (scratch.h: CLSORT__SCRATCH_RADIX_*) in odd ones. */
typedef struct clsort__radix_plan {
    unsigned key_bits;          /* KEY_BITS: 8 x the key's bytes */
    unsigned bits;              /* RADIX_BITS: 8, or 4 for 1-byte keys */
    unsigned passes;            /* key_bits / bits, even */
    unsigned first_shift;       /* the first digit's shift: 0, or for narrow keys' composites
                                 * (plan->narrow_bits) their own bits, below the class */
    unsigned wg;                /* RX_WG: work-items of every launch */
    unsigned items;             /* RX_ITEMS: keys a work-item ranks per tile */
    int pad;                    /* RX_PAD: the split counters padded against bank conflicts */
    int rake;                   /* RX_RAKE: the work-group scans rake instead of Hillis-Steele */
    int match;                  /* RX_MATCH: the scatter's ranking, 0 local splits, 1 the warp
                                 * multisplit through PTX (NVIDIA), 2 the same emulated */
    unsigned groups;            /* work-groups of the count and scatter passes */
    uint64_t hist_words;        /* idx_t words of the digit counts and totals */
} clsort__radix_plan;

/* Everything decided about one sort before anything is enqueued: `count` arrays of n keys for a
 * network program, nseg segments for the segmented program, or a top-k of rows of n keys (count
 * 1; value_size then the size of the values carried with the items, 0 for none). */
typedef struct clsort__plan {
    clsort__program_id program;
    clsort__variant var;
    uint64_t n, count;
    clsort_type type;
    size_t value_size;              /* 0: keys alone */
    clsort_algorithm algo;          /* AUTO already resolved */
    const clsort_params *params;    /* network programs: the context's parameters of the slot
                                     * (NULL for the other programs) */
    clsort__seg_plan seg;           /* CLSORT__PROGRAM_SEGMENTED */
    clsort__topk_plan topk;         /* CLSORT__PROGRAM_TOPK */
    clsort__radix_plan radix;       /* CLSORT__PROGRAM_RADIX */
    int index_bits;                 /* 32 or 64: the width of idx_t in the kernels */
    cl_uint xf;                     /* key transform: CLSORT_XF_* of kernels/key_types.h */
    unsigned narrow_bits;           /* 8 or 16: a network's sort of the 32-bit composites of
                                     * keys of that width (narrow.cl), widened by the schedule's
                                     * first step and narrowed by its last; 0: none */
    cl_uint narrow_xf;              /* the narrow keys' transform (narrow_bits) */
    int empty;                      /* nothing to launch */
    char options[1024];             /* the -D build options of the program (params.c) */
} clsort__plan;

#endif /* CLSORT_PLAN_TYPES_H */
