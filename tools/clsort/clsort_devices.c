/* clsort_devices.c - --list-devices (through clsort_list_devices) and --clear-cache (the program
 * cache directory the library writes, found the way the library finds it). */
#include "clsort_devices.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clsort.h"
#include "clsort_messages.h"
#include "clsort_units.h"

static void print_device(const clsort_device_info *info, int is_default, void *user)
{
    char g[32], l[32], m[32];
    (void)user;
    printf("%u:%u%s %s\n", info->platform_index, info->device_index, is_default ? " *" : "",
           info->name);
    printf("    type %s, %u compute units, platform %s%s\n", info->type, info->compute_units,
           info->platform, is_default ? " (default)" : "");
    printf("    global memory %s, local memory %s, max allocation %s, fp64 %s\n",
           cli_format_size(g, sizeof g, info->global_mem),
           cli_format_size(l, sizeof l, info->local_mem),
           cli_format_size(m, sizeof m, info->max_alloc), info->has_fp64 ? "yes" : "no");
    printf("    config %s\n", info->config_source ? info->config_source : "built-in defaults");
}

int cli_list_devices(void)
{
    const int n = clsort_list_devices(print_device, NULL);
    fflush(stdout);
    if (n < 0) {
        cli_error("cannot list OpenCL devices: %s", clsort_strerror(n));
        return CLI_EXIT_DEVICE;
    }
    if (n == 0) {
        cli_error("no OpenCL device is visible (no ICD registered? see docs/gpu.md; is an "
                  "OpenCL driver such as pocl-opencl-icd installed?)");
        return CLI_EXIT_DEVICE;
    }
    cli_info(2, "%d device%s; * marks the default (override with -d or CLSORT_DEVICE)", n,
             n == 1 ? "" : "s");
    return CLI_EXIT_OK;
}

/* The library knows where its cache is and what in it is its own (clsort_cache_path,
 * clsort_clear_cache): a relative XDG_CACHE_HOME is ignored there as everywhere else. */
int cli_clear_cache(void)
{
    char dir[1024];
    if (clsort_cache_path(dir, sizeof dir) != CLSORT_OK) {
        cli_error("cannot find the cache directory: none of CLSORT_CACHE_DIR, an absolute "
                  "XDG_CACHE_HOME or HOME is set");
        return CLI_EXIT_IO;
    }
    unsigned removed = 0;
    const int rc = clsort_clear_cache(&removed);
    if (rc != CLSORT_OK) {
        const int err = errno;
        cli_error("%s: cannot clear the cache: %s", dir,
                  err ? strerror(err) : clsort_strerror(rc));
        return CLI_EXIT_IO;
    }
    if (cli_display_level >= 1)
        printf("removed %u cached program%s from %s\n", removed, removed == 1 ? "" : "s", dir);
    return CLI_EXIT_OK;
}
