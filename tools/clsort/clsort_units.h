/* clsort_units.h - a monotonic clock and human-readable sizes and rates for the clsort tool. A leaf:
 * it includes no other part of the tool, so the progress line and the messages can both use it. */
#ifndef CLSORT_UNITS_H
#define CLSORT_UNITS_H

#include <stddef.h>
#include <stdint.h>

/** Nanoseconds from a monotonic clock. */
uint64_t cli_now_ns(void);

/** Formats a byte count as "12.3 MiB" into buf (at least 32 bytes); returns buf. */
const char *cli_format_size(char *buf, size_t cap, uint64_t bytes);

/** Formats bytes moved in ns as a rate, e.g. "812.4 MiB/s"; returns buf. */
const char *cli_format_rate(char *buf, size_t cap, uint64_t bytes, uint64_t ns);

#endif /* CLSORT_UNITS_H */
