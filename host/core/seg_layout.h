/* seg_layout.h - what the segmented kernels and the host agree on about their buffers
 * (kernels/segmented.cl, kernels/seg_large.cl): the meta buffer's counters and list, the bins'
 * bounds and the segment count one call takes. Planning sizes the passes by these (seg_shape.h),
 * execution allocates the meta buffer by them (run.c). */
#ifndef CLSORT_SEG_LAYOUT_H
#define CLSORT_SEG_LAYOUT_H

#include <stdint.h>

/* Counters ahead of the bin list in the meta buffer (kernels/segmented.cl, SEG_META), and the
 * bin of the segments longer than 4096 keys (SEG_LARGE_BIN). */
#define CLSORT__SEG_META 32
#define CLSORT__SEG_LARGE_BIN 12
/* The longest segment of the bins below the large bin (4096 keys), and the longest the large
 * passes take (kernels/seg_large.cl, LARGE_LEN_MAX: their slots are 32-bit). */
#define CLSORT__SEG_GROUP_MAX ((uint64_t)1 << CLSORT__SEG_LARGE_BIN)
#define CLSORT__SEG_LARGE_PASS_MAX ((uint64_t)1 << 31)
/* Segments one call takes at most, exclusive (include/clsort.h says 2^32 - 17): the list holds
 * 32-bit segment indices. */
#define CLSORT__SEG_NSEG_LIMIT (((uint64_t)1 << 32) - 17)

/* The 32-bit words of the meta buffer for nseg segments with large_units units of the large
 * passes (0: no large passes): the counters, the list, and with the large passes each large
 * entry's first unit (nseg + 1 at most) and each unit's entry (kernels/segmented.cl,
 * LARGE_UNITS and LARGE_MAP). */
static inline uint64_t clsort__seg_meta_words(uint64_t nseg, uint64_t large_units)
{
    return CLSORT__SEG_META + nseg + (large_units ? nseg + 1 + large_units : 0);
}

#endif /* CLSORT_SEG_LAYOUT_H */
