/* narrow_keys.h - what the sorts that the networks do not take as they are share (narrow_keys.c):
 * keys of 1 and 2 bytes become 32-bit (or, with their positions, 64-bit) composites of their
 * class and their bits; stable sorts under CLSORT_NAN_LARGEST, where keys with different bits
 * compare equal, sort the keys with their positions and put each run of equal keys back in input
 * order; top-k ranks the keys' classes; the _buffer calls take such sorts through host memory.
 * The sorts themselves (dispatch_narrow.c, dispatch_segments.c, dispatch_topk.c) use these after
 * the API's argument checks and run the ordinary paths with other types, so nothing below the
 * dispatch layer sees a narrow type. */
#ifndef CLSORT_NARROW_KEYS_H
#define CLSORT_NARROW_KEYS_H

#include "core.h"

/* 1 where a sort of type under flags goes through composites or positions: narrow keys, or
 * CLSORT_STABLE where CLSORT_NAN_LARGEST makes different bits equal (keys alone or pairs). */
int clsort__narrow_needed(clsort_type type, unsigned flags);
/* 1 where a top-k of type under flags ranks classes: narrow keys or CLSORT_NAN_LARGEST. */
int clsort__narrow_topk_needed(clsort_type type, unsigned flags);

/* The composites of n narrow keys under flags in a new array (*wide, of *wtype, free() it):
 * class << w | bits (CLSORT_U32), or where the sort must be stable (pairs with CLSORT_STABLE, or
 * keys that compare equal with different bits) class << (64 - w) | position << w | bits
 * (CLSORT_U64, *positions 1), which an unstable ascending sort orders stably. Fails (recorded on
 * ctx, naming fn) out of memory or for more positions than the composite holds. */
int clsort__narrow_widen(clsort_ctx *ctx, const char *fn, const void *keys, size_t n,
                         clsort_type type, unsigned flags, int pairs, void **wide,
                         clsort_type *wtype, int *positions);
/* The keys back from n sorted composites. */
void clsort__narrow_back(void *keys, const void *wide, size_t n, clsort_type type, int positions);

/* The copies a stable sort by position needs: the keys to sort, their positions 0 .. n-1 and the
 * values (vs bytes each, none for 0). */
typedef struct clsort__by_position {
    unsigned char *kcopy, *vcopy;
    uint64_t *pos;
} clsort__by_position;
int clsort__by_position_alloc(clsort_ctx *ctx, clsort__by_position *bp, const void *keys,
                              const void *values, size_t n, size_t ks, size_t vs);
void clsort__by_position_free(clsort__by_position *bp);
/* sorted: n keys of ks bytes sorted by a refinement of the order xf gives (the NaN-largest
 * rotation), pos their input positions. Puts each run of keys that compare equal back in input
 * order, then writes keys (and values from vcopy, vs bytes each, or none) in that order from the
 * unsorted keys. Runs may cross segments: every position of a segment lies below the next's. */
void clsort__restore_order(unsigned char *sorted, uint64_t *pos, size_t n, size_t ks, unsigned xf,
                           unsigned char *keys, unsigned char *values, const unsigned char *vcopy,
                           size_t vs);

/* The classes (CLSORT_KT_CLASS, ascending whatever the direction) of total keys in a new array
 * (*cls, of *ctype: CLSORT_U32 for keys up to 32 bits, else CLSORT_U64; free() it). */
int clsort__narrow_classes(clsort_ctx *ctx, const char *fn, const void *keys, size_t total,
                           clsort_type type, unsigned flags, void **cls, clsort_type *ctype);

/* bytes of buf from offset into a new host array (*host, free() it), blocking, after the wait
 * list; and back. */
int clsort__read_into(clsort_ctx *ctx, cl_mem buf, size_t offset, size_t bytes, void **host,
                      cl_uint num_wait, const cl_event *wait);
int clsort__write_from(clsort_ctx *ctx, cl_mem buf, size_t offset, size_t bytes,
                       const void *host);

#endif /* CLSORT_NARROW_KEYS_H */
