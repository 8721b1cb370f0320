/* clsort_units.c - the clock, the size and rate formatting, and the one size parser of the tools
 * (clsort's -S, -R, -k, clsort-mpi's, --top), so that every tool accepts the same numbers. */
#include "clsort_units.h"

#include <ctype.h>
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

int cli_parse_size(const char *s, uint64_t *out)
{
    if (!s || !isdigit((unsigned char)*s))
        return -1;
    uint64_t v = 0;
    while (isdigit((unsigned char)*s)) {
        const unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
        ++s;
    }
    unsigned shift = 0;
    switch (toupper((unsigned char)*s)) {
    case 'K': shift = 10; break;
    case 'M': shift = 20; break;
    case 'G': shift = 30; break;
    case 'T': shift = 40; break;
    default: break;
    }
    if (shift) {
        ++s;
        if (*s == 'i' && s[1] == 'B')
            s += 2;
        else if (*s == 'B')
            ++s;
    } else if (*s == 'B' || *s == 'b') {
        ++s;
    }
    if (*s != '\0')
        return -1;
    if (shift && v > (UINT64_MAX >> shift))
        return -1;
    *out = v << shift;
    return 0;
}
