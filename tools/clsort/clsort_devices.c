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

static int ends_with(const char *s, const char *suffix)
{
    const size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Only what the cache writes: entries "*.clbin" and the temporary files it renames from. */
static int is_cache_file(const char *name)
{
    return ends_with(name, ".clbin") || ends_with(name, ".tmp") || strstr(name, ".clbin.") != NULL;
}

int cli_clear_cache(void)
{
    const char *env = getenv("CLSORT_CACHE_DIR");
    char *dir = NULL;
    if (env && *env) {
        dir = strdup(env);
    } else {
        const char *xdg = getenv("XDG_CACHE_HOME");
        const char *home = getenv("HOME");
        const char *base = (xdg && *xdg) ? xdg : home;
        const char *tail = (xdg && *xdg) ? "/clsort" : "/.cache/clsort";
        if (!base || !*base) {
            cli_error("cannot find the cache directory: neither CLSORT_CACHE_DIR, XDG_CACHE_HOME "
                      "nor HOME is set");
            return CLI_EXIT_IO;
        }
        const size_t len = strlen(base) + strlen(tail) + 1;
        dir = malloc(len);
        if (dir)
            snprintf(dir, len, "%s%s", base, tail);
    }
    if (!dir) {
        cli_error("out of host memory");
        return CLI_EXIT_IO;
    }
    DIR *d = opendir(dir);
    if (!d) {
        if (errno == ENOENT) {
            if (cli_display_level >= 1)
                printf("removed 0 cached programs from %s (no cache yet)\n", dir);
            free(dir);
            return CLI_EXIT_OK;
        }
        cli_error("%s: cannot open the cache directory: %s", dir, strerror(errno));
        free(dir);
        return CLI_EXIT_IO;
    }
    unsigned removed = 0, failed = 0;
    int rc = CLI_EXIT_OK;
    const struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!is_cache_file(e->d_name))
            continue;
        const size_t len = strlen(dir) + strlen(e->d_name) + 2;
        char *path = malloc(len);
        if (!path) {
            cli_error("out of host memory");
            rc = CLI_EXIT_IO;
            break;
        }
        snprintf(path, len, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            if (unlink(path) == 0) {
                ++removed;
            } else {
                if (!failed)
                    cli_error("%s: cannot remove: %s", path, strerror(errno));
                ++failed;
            }
        }
        free(path);
    }
    closedir(d);
    if (failed)
        rc = CLI_EXIT_IO;
    if (cli_display_level >= 1)
        printf("removed %u cached program%s from %s\n", removed, removed == 1 ? "" : "s", dir);
    free(dir);
    return rc;
}
