/* params.c - the variant of a sort and its kernel parameters: built-in defaults derived from the
 * device's limits, the checks every value passes before use, and the one function that turns a
 * plan into -D build options; the network parameters' keys, fields, ranges and -D names come
 * from their table, CLSORT_PARAM_TABLE (include/clsort.h). */
#include "params.h"

#include "kernels.h"

#include <stddef.h>
#include <string.h>

/* The table names every field of clsort_params once, in the struct's order, and nothing else:
 * the -D options and the config's values are laid out by row index. */
#define CLSORT__ONE(name, DNAME, min, max, pow2, tune_lo, tune_hi, key, what) +1
_Static_assert(0 CLSORT_PARAM_TABLE(CLSORT__ONE) == CLSORT_NPARAMS,
               "CLSORT_NPARAMS is the number of rows of CLSORT_PARAM_TABLE");
#undef CLSORT__ONE
_Static_assert(sizeof(clsort_params) == CLSORT_NPARAMS * sizeof(unsigned),
               "every clsort_params field is a row of CLSORT_PARAM_TABLE");

const char *const clsort__param_keys[CLSORT_NPARAMS] = {
#define CLSORT__KEY(name, DNAME, min, max, pow2, tune_lo, tune_hi, key, what) key,
    CLSORT_PARAM_TABLE(CLSORT__KEY)
#undef CLSORT__KEY
};

static const size_t param_offsets[CLSORT_NPARAMS] = {
#define CLSORT__OFFSET(name, DNAME, min, max, pow2, tune_lo, tune_hi, key, what) \
    offsetof(clsort_params, name),
    CLSORT_PARAM_TABLE(CLSORT__OFFSET)
#undef CLSORT__OFFSET
};

unsigned *clsort__param_field(clsort_params *p, int k)
{
    return (unsigned *)((char *)p + param_offsets[k]);
}

int clsort__network_index(clsort_algorithm algo)
{
    switch (algo) {
    case CLSORT_BITONIC:
        return 0;
    case CLSORT_ODD_EVEN_MERGE:
        return 1;
    case CLSORT_ODD_EVEN_TRANSPOSITION:
        return 2;
    default:
        return -1;
    }
}

int clsort__width_index(clsort_type type)
{
    return clsort_type_size(type) == 8 ? 1 : 0;
}

int clsort__valkind_index(size_t value_size)
{
    return value_size == 0 ? 0 : value_size == 4 ? 1 : value_size == 8 ? 2 : -1;
}

unsigned clsort__key_bits(const clsort__variant *v)
{
    return v->width ? 64u : 32u;
}

unsigned clsort__val_bytes(const clsort__variant *v)
{
    return 4u * (unsigned)v->valkind; /* the inverse of clsort__valkind_index */
}

int clsort__variant_of(clsort_algorithm algo, clsort_type type, size_t value_size,
                       clsort__variant *out)
{
    const int net = clsort__network_index(algo), valkind = clsort__valkind_index(value_size);
    if (net < 0 || valkind < 0 || !clsort_type_size(type))
        return -1;
    out->net = (clsort__network)net;
    out->width = clsort__width_index(type);
    out->valkind = valkind;
    return 0;
}

static size_t elem_bytes(const clsort__variant *v)
{
    return clsort__key_bits(v) / 8 + clsort__val_bytes(v);
}

size_t clsort__local_bytes(const clsort__variant *v, const clsort_params *p)
{
    /* One tile, padded by one slot per 32 against bank conflicts (bitonic's tile passes, and
     * oem_finish_tile, which runs on the same machinery; oem_sort_tile needs no more). */
    const size_t tile_need = ((size_t)p->tile + p->tile / 32 + 1) * elem_bytes(v);
    /* Bitonic's wide global passes (bitonic_wide) hold a virtual tile of TILE keys, padded the
     * same way; kept as its own term so that the two kernels' needs can change apart. */
    const size_t wide_need = v->net == CLSORT__NET_BITONIC &&
                                     clsort__kernel_built(CLSORT__K_bitonic_wide, p)
                                 ? ((size_t)p->tile + p->tile / 32 + 1) * elem_bytes(v)
                                 : 0;
    return tile_need > wide_need ? tile_need : wide_need;
}

static int is_pow2(unsigned x)
{
    return x && !(x & (x - 1));
}

void clsort__default_params(const clsort__device *dev, const clsort__variant *v,
                            clsort_params *out)
{
    const int gpu = (dev->type & CL_DEVICE_TYPE_GPU) != 0;
    clsort_params p;
    p.vec_step = 1;
    p.keys_per_item = (v->width == 0 && v->valkind == 0) ? 16 : 8;
    /* Largest tile that leaves room for two work-groups per compute unit on a GPU (local memory
     * is the limit there); on a CPU "local" memory is ordinary memory, and 4096 keys keep a
     * work-group's tile in the core's L2. */
    const cl_ulong budget = gpu ? dev->local_mem / 2 : dev->local_mem;
    p.tile = 4096;
    while (p.tile > 2 && clsort__local_bytes(v, &p) > budget)
        p.tile >>= 1;
    /* The bitonic tile passes keep TILE / WG_SIZE keys per work-item in registers: 16 keys
     * (four fused levels per trip through local memory) on GPUs; on a CPU PoCL runs the
     * work-items of a group as a loop, where 32 keys per item halve the trips. */
    const unsigned per_item = gpu ? 16 : 32;
    while (p.tile > 2 && p.tile / 32 > dev->max_wg)
        p.tile >>= 1;
    p.wg_size = p.tile / per_item ? p.tile / per_item : 1;
    while (p.wg_size > dev->max_wg)
        p.wg_size >>= 1;
    if (!gpu && v->net == CLSORT__NET_BITONIC) {
        /* On PoCL a tile pass that goes through local memory saves and restores every
         * work-item's registers at each barrier, and per-key bounds checks, 32-bit indices and
         * strided single-key accesses keep it from vectorising. What runs fast there: 16-key
         * tiles that one work-item sorts alone, global passes over 16 adjacent columns of 4 rows,
         * each row one 16-lane vector (rows.cl), and the tile's half-cleaners folded into each
         * merge's last global pass (VEC_STEP == TILE). Measured on the 2-core machine:
         * docs/perf.md. 8 or 16 rows are faster there (AVX-512: 32 vector registers) but build
         * 2-4x longer and need more registers than AVX2's 16; a config sets them per device.
         * The transposition network keeps big tiles: its rounds grow with n / TILE. */
        p.tile = 16;
        p.wg_size = 64; /* 64 solo tiles per work-group */
        p.vec_step = 16;
        p.keys_per_item = 4;
    }
    if (!gpu && v->net == CLSORT__NET_TRANSPOSITION) {
        /* Transposition on PoCL: 32-key solo tiles too. More rounds (n / 32), but each round is
         * two cheap passes, and the program builds in a fraction of the time the 4096-key
         * tiles with a barrier per step take (docs/perf.md). */
        p.tile = 32;
        p.wg_size = 64;
        p.vec_step = 1;
        p.keys_per_item = 16;
    }
    *out = p;
}

int clsort__check_params(const clsort__device *dev, const clsort__variant *v,
                         const clsort_params *p, char *why, size_t why_size)
{
    /* Each field's own range, from the table (include/clsort.h); then what ties fields
     * together. */
#define CLSORT__RANGE(name, DNAME, min, max, pow2, tune_lo, tune_hi, key, what)                  \
    {                                                                                             \
        const size_t hi = (max) ? (size_t)(max) : dev->max_wg;                                    \
        if (((pow2) && !is_pow2(p->name)) || p->name < (min) || p->name > hi) {                   \
            if (pow2)                                                                             \
                snprintf(why, why_size, "%s %u is not a power of two in [%u, %zu]", key, p->name, \
                         (unsigned)(min), hi);                                                    \
            else                                                                                  \
                snprintf(why, why_size, "%s %u is outside [%u, %zu]%s", key, p->name,             \
                         (unsigned)(min), hi, (max) ? "" : " (CL_DEVICE_MAX_WORK_GROUP_SIZE)");   \
            return CLSORT_ERR_INVALID_ARG;                                                        \
        }                                                                                         \
    }
    CLSORT_PARAM_TABLE(CLSORT__RANGE)
#undef CLSORT__RANGE
    if (p->vec_step > p->tile) {
        snprintf(why, why_size, "vec_step %u is more than tile %u", p->vec_step, p->tile);
        return CLSORT_ERR_INVALID_ARG;
    }
    /* Bitonic (and transposition) tile passes: a tile of up to 32 keys belongs to one
     * work-item; a larger one is shared so that each work-item holds 2 to 32 keys, a power of
     * two (the register networks work on 2^LOCAL_LOG slots: with 1024 / 48 = 21 keys a
     * work-item, some keys would never be compared). */
    if (v->net != CLSORT__NET_ODD_EVEN_MERGE && !clsort__solo_tile(p) &&
        (p->tile / p->wg_size < 2 || p->tile / p->wg_size > 32 || !is_pow2(p->wg_size))) {
        snprintf(why, why_size,
                 "tile / wg_size = %u / %u: tiles above 32 keys need 2 to 32 keys per "
                 "work-item and a wg_size that is a power of two",
                 p->tile, p->wg_size);
        return CLSORT_ERR_INVALID_ARG;
    }
    const size_t need = clsort__local_bytes(v, p);
    if (need > dev->local_mem) {
        snprintf(why, why_size,
                 "tile %u needs %zu bytes of local memory, more than the device's %llu "
                 "(CL_DEVICE_LOCAL_MEM_SIZE)",
                 p->tile, need, (unsigned long long)dev->local_mem);
        return CLSORT_ERR_INVALID_ARG;
    }
    return CLSORT_OK;
}

void clsort__build_options(clsort__plan *plan)
{
    const clsort__variant *v = &plan->var;
    if (plan->program == CLSORT__PROGRAM_SEGMENTED) {
        const clsort__seg_plan *sg = &plan->seg;
        snprintf(plan->options, sizeof plan->options,
                 "-DCLSORT_SEG=1 -DSEG_NET=%d -DKEY_BITS=%u -DVAL_BYTES=%u -DSEG_TILE=%u "
                 "-DSEG_WG=%u -DSEG_STABLE=%d -DSEG_TINY_LOG=%u -DSEG_TINY_STAGE=%d -DTILE=%u "
                 "-DWG_SIZE=%u",
                 (int)v->net, clsort__key_bits(v), clsort__val_bytes(v), sg->tile, sg->wg,
                 sg->stable, sg->tiny_log, sg->tiny_staged,
                 sg->pack_tile ? sg->pack_tile : 2 * sg->wg, sg->wg);
        return;
    }
    if (plan->program == CLSORT__PROGRAM_TOPK) {
        const clsort__topk_plan *tp = &plan->topk;
        snprintf(plan->options, sizeof plan->options,
                 "-DCLSORT_TOPK=1 -DKEY_BITS=%u -DVAL_BYTES=%u -DTK_OUT=%d -DTK_IDX_BITS=%d "
                 "-DTK_TILE=%u -DTK_WG=%u -DTK_STREAM_K=%u -DTK_STREAM_WG=%u -DRS_WG=%u "
                 "-DRS_BITS=%u",
                 clsort__key_bits(v), clsort__val_bytes(v), tp->out, tp->idx_bits, tp->tile,
                 tp->wg, tp->stream ? tp->stream_k : 1u, tp->stream ? tp->stream_wg : 1u,
                 tp->rs_wg, tp->rs_bits);
        return;
    }
    if (plan->program == CLSORT__PROGRAM_RADIX) {
        const clsort__radix_plan *rp = &plan->radix;
        snprintf(plan->options, sizeof plan->options,
                 "-DCLSORT_RADIX=1 -DKEY_BITS=%u -DVAL_BYTES=%u -DINDEX_BITS=%d -DRADIX_BITS=%u "
                 "-DRX_WG=%u -DRX_ITEMS=%u -DRX_PAD=%d -DRX_RAKE=%d -DRX_MATCH=%d",
                 rp->key_bits, (unsigned)plan->value_size, plan->index_bits, rp->bits, rp->wg,
                 rp->items, rp->pad, rp->rake, rp->match);
        return;
    }
    const clsort_params *p = plan->params;
    const int at = snprintf(plan->options, sizeof plan->options,
                            "-DCLSORT_NET=%d -DKEY_BITS=%u -DVAL_BYTES=%u -DINDEX_BITS=%d",
                            (int)v->net, clsort__key_bits(v), clsort__val_bytes(v),
                            plan->index_bits);
    clsort__param_options(p, plan->options + at, sizeof plan->options - (size_t)at);
}

void clsort__param_options(const clsort_params *p, char *out, size_t out_size)
{
    size_t at = 0;
    out[0] = 0;
#define CLSORT__OPTION(name, DNAME, min, max, pow2, tune_lo, tune_hi, key, what)                  \
    if (at < out_size)                                                                            \
        at += (size_t)snprintf(out + at, out_size - at, " -D" #DNAME "=%u", p->name);
    CLSORT_PARAM_TABLE(CLSORT__OPTION)
#undef CLSORT__OPTION
}
