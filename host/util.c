/* util.c - the leaf helpers of util.h: the clock and the XDG directory rule that the program
 * cache (cache.c) and the tuned configs (config.c) share. */
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

uint64_t clsort__now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int clsort__xdg_dir(const char *override_var, const char *xdg_var, const char *home_subdir,
                    char *out, size_t out_size)
{
    const char *env = getenv(override_var);
    int n;
    if (env && *env) {
        n = snprintf(out, out_size, "%s", env);
    } else {
        const char *xdg = getenv(xdg_var);
        const char *home = getenv("HOME");
        if (xdg && *xdg == '/') /* XDG: relative values are invalid and ignored */
            n = snprintf(out, out_size, "%s/clsort", xdg);
        else if (home && *home)
            n = snprintf(out, out_size, "%s/%s/clsort", home, home_subdir);
        else
            return -1;
    }
    return n > 0 && (size_t)n < out_size ? 0 : -1;
}
