/* util.h - small leaf helpers that any host module may use: a monotonic clock, the XDG
 * directory rule and the library's own directory. They depend on nothing in the library. Never
 * installed. */
#ifndef CLSORT_UTIL_H
#define CLSORT_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t clsort__now_ns(void);

/* clsort's directory of one XDG kind (docs/tuning.md): $override_var if set and not empty, else
 * $xdg_var/clsort if that is absolute (XDG ignores relative values), else
 * $HOME/home_subdir/clsort. E.g. ("CLSORT_CACHE_DIR", "XDG_CACHE_HOME", ".cache").
 * Returns 0, or -1 if none can be formed or it does not fit in out. */
int clsort__xdg_dir(const char *override_var, const char *xdg_var, const char *home_subdir,
                    char *out, size_t out_size);

/* The one size parser of the library (environment variables and config values): decimal digits,
 * then, if `suffixes`, optionally K, M, G or T (powers of 1024, either case) optionally followed
 * by "iB", or a bare "B"; nothing else may follow. Returns 0 and sets *out, or -1 if s is not
 * such a size or does not fit in 64 bits. */
int clsort__parse_size(const char *s, int suffixes, uint64_t *out);

/* Whether `bytes` of address space can be had now: maps them (no pages touched, no commitment
 * where the kernel allows that) and unmaps them at once. 1 if the mapping succeeded. A process
 * under an address-space limit (ulimit -v) fails here rather than in a driver that aborts on
 * a failed allocation (PoCL asserts). 0 bytes: 1. */
int clsort__address_space_ok(size_t bytes);

/* The absolute directory of the file that holds the library's code: where libclsort.so.N was
 * loaded from, or the program's own directory when libclsort.a was linked into it (config.c
 * finds the shipped configs from there). Returns 0, or -1 if it cannot be told or does not fit. */
int clsort__library_dir(char *out, size_t out_size);

#endif /* CLSORT_UTIL_H */
