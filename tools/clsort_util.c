/* clsort_util.c - messages, clock and size formatting shared by the parts of the clsort tool. */
#include "clsort_util.h"

#include "clsort_progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int cli_display_level = 1;

void cli_error(const char *fmt, ...)
{
    va_list ap;
    cli_progress_clear();
    va_start(ap, fmt);
    fputs("clsort: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void cli_info(int level, const char *fmt, ...)
{
    if (cli_display_level < level)
        return;
    va_list ap;
    cli_progress_clear();
    va_start(ap, fmt);
    fputs("clsort: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

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

void *cli_malloc(size_t size, const char *what)
{
    void *p = malloc(size ? size : 1);
    if (!p) {
        char sz[32];
        cli_error("out of host memory allocating %s for %s", cli_format_size(sz, sizeof sz, size),
                  what);
    }
    return p;
}
