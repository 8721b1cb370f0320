/* util.c - the leaf helpers of util.h: the clock, the XDG directory rule that the program
 * cache (cache.c) and the tuned configs (config.c) share, and where the library's own file is. */
/* dl_iterate_phdr is a GNU extension (glibc, musl and the BSDs have it). */
#define _GNU_SOURCE
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

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

int clsort__parse_size(const char *s, int suffixes, uint64_t *out)
{
    /* strtoull alone would take " 5", "-5" (as 2^64 - 5) and "0x10": only digits start a size. */
    if (!s || !isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    char *end;
    const unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    unsigned shift = 0;
    if (suffixes) {
        switch (toupper((unsigned char)*end)) {
        case 'K': shift = 10; break;
        case 'M': shift = 20; break;
        case 'G': shift = 30; break;
        case 'T': shift = 40; break;
        default: break;
        }
        if (shift) {
            ++end;
            if (!strcmp(end, "iB") || !strcmp(end, "ib"))
                end += 2;
        }
        if (*end == 'B' || *end == 'b')
            ++end;
    }
    if (*end || (shift && v > (UINT64_MAX >> shift)))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

int clsort__address_space_ok(size_t bytes)
{
    if (!bytes)
        return 1;
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (p == MAP_FAILED)
        return 0;
    munmap(p, bytes);
    return 1;
}

/* ---- The library's own file ---------------------------------------------------------------- */

/* Any object of the library: its address tells which loaded file holds the library. */
static const char library_anchor = 0;

typedef struct object_search {
    uintptr_t address;
    const char *name; /* the loaded file holding address; "" for the main program */
    int found;
} object_search;

static int find_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    object_search *s = data;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        const uintptr_t start = (uintptr_t)info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && s->address >= start && s->address < start + ph->p_memsz) {
            s->name = info->dlpi_name ? info->dlpi_name : "";
            s->found = 1;
            return 1;
        }
    }
    return 0;
}

int clsort__library_dir(char *out, size_t out_size)
{
    /* dl_iterate_phdr rather than dladdr: dladdr names the main program by argv[0], which may be
     * a bare name found through PATH or relative to a directory since left; the loader's own
     * list names it "" and shared objects by the path they were opened with. */
    object_search s = {(uintptr_t)&library_anchor, "", 0};
    dl_iterate_phdr(find_object, &s);
    char file[PATH_MAX];
    if (s.found && strchr(s.name, '/')) {
        if (!realpath(s.name, file))
            return -1;
    } else {
        /* The main program (a static link): Linux names it in /proc. */
        const ssize_t n = readlink("/proc/self/exe", file, sizeof file - 1);
        if (n <= 0)
            return -1;
        file[n] = 0;
    }
    char *slash = strrchr(file, '/');
    if (!slash)
        return -1;
    *slash = 0;
    const int n = snprintf(out, out_size, "%s", slash == file ? "/" : file);
    return n > 0 && (size_t)n < out_size ? 0 : -1;
}
