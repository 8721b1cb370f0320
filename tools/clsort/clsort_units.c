/* clsort_units.c - the clock and the size and rate formatting of the clsort tool. */
#include "clsort_units.h"

#include <stdio.h>
#include <time.h>

uint64_t cli_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

const char *cli_format_size(char *buf, size_t cap, uint64_t bytes)
{
    static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    double v = (double)bytes;
    unsigned u = 0;
    while (v >= 1024.0 && u + 1 < sizeof units / sizeof units[0]) {
        v /= 1024.0;
        ++u;
    }
    if (u == 0)
        snprintf(buf, cap, "%llu B", (unsigned long long)bytes);
    else
        snprintf(buf, cap, "%.1f %s", v, units[u]);
    return buf;
}

const char *cli_format_rate(char *buf, size_t cap, uint64_t bytes, uint64_t ns)
{
    if (ns == 0) {
        snprintf(buf, cap, "-");
        return buf;
    }
    /* Rates are bytes per second, formatted as sizes. */
    const double per_s = (double)bytes * 1e9 / (double)ns;
    char sz[32];
    cli_format_size(sz, sizeof sz, (uint64_t)per_s);
    snprintf(buf, cap, "%s/s", sz);
    return buf;
}
