/* clsort_units.h - a monotonic clock, human-readable sizes and rates, and the size parser of the
 * tools. A leaf: it includes no other part of the tools, so every other part may use it. */
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

/** Parses a size: decimal digits with an optional K, M, G or T suffix (powers of 1024, optionally
 *  followed by "B" or "iB"). Returns 0 and sets *out, or -1 for anything else or on overflow. */
int cli_parse_size(const char *s, uint64_t *out);

#endif /* CLSORT_UNITS_H */
