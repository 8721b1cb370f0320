/* config.c - which parameters a device gets: the tuned config file found by the lookup chain
 * (docs/tuning.md), parsed with inih and checked value by value against the device's limits,
 * else built-in defaults chosen by vendor and device type. Never fails: whatever is unusable is
 * replaced by defaults and reported through clsort__warn. */
#include "config.h"

#include "params.h"
#include "trust.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The last place for the shipped configs: $(DATADIR)/clsort/devices of the Makefile that built
 * this file (-DCLSORT_DATADIR=...). The places found from the library's own file come first, so
 * that an install under any PREFIX, moved or not, finds its own configs. */
#ifndef CLSORT_DATADIR
#define CLSORT_DATADIR "/usr/local/share/clsort/devices"
#endif

#define MAX_REPORTED_PROBLEMS 8 /* per file: a garbage file must not flood the warnings */

static const char *const valkind_names[CLSORT__VALKINDS] = {"keys", "pairs4", "pairs8"};

/* ---- Names and places ---------------------------------------------------------------------- */

/* Lowercase ASCII letters and digits are kept; every run of anything else becomes one '-', and
 * leading and trailing '-' are dropped, so "NVIDIA Corporation" is "nvidia-corporation". */
static void normalise(const char *in, char *out, size_t out_size)
{
    size_t at = 0;
    int dash = 0;
    for (const unsigned char *s = (const unsigned char *)in; *s && at + 2 < out_size; ++s) {
        if (*s < 128 && isalnum(*s)) {
            if (dash && at > 0)
                out[at++] = '-';
            dash = 0;
            out[at++] = (char)tolower(*s);
        } else {
            dash = 1;
        }
    }
    out[at] = 0;
    if (at == 0)
        snprintf(out, out_size, "unknown");
}

void clsort__config_file_name(const clsort__device *dev, char *out, size_t out_size)
{
    char vendor[128], name[160];
    normalise(dev->vendor, vendor, sizeof vendor);
    normalise(dev->name, name, sizeof name);
    snprintf(out, out_size, "%s--%s.ini", vendor, name);
}

int clsort__user_config_dir(char *out, size_t out_size)
{
    return clsort__xdg_dir("CLSORT_CONFIG_DIR", "XDG_CONFIG_HOME", ".config", out, out_size);
}

/* Cuts the last name off an absolute path in place: "/a/b" -> "/a", "/a" -> "". */
static void cut_last_name(char *path)
{
    char *slash = strrchr(path, '/');
    if (slash)
        *slash = 0;
}

int clsort__shipped_config_dirs(char dirs[][CLSORT__CONFIG_DIR_MAX], int max_dirs)
{
    int n = 0;
    /* lib has no symbolic link and no ".." in it (realpath), so its parents are found by
     * cutting names, and config_source names the file plainly. */
    char lib[CLSORT__CONFIG_DIR_MAX - 64], up1[sizeof lib], up2[sizeof lib];
    if (clsort__library_dir(lib, sizeof lib) == 0) {
        snprintf(up1, sizeof up1, "%s", strcmp(lib, "/") ? lib : "");
        cut_last_name(up1);
        snprintf(up2, sizeof up2, "%s", up1);
        cut_last_name(up2);
        const char *up1_name = strrchr(up1, '/') ? strrchr(up1, '/') + 1 : up1;
        /* Installed: PREFIX/lib/libclsort.so.N or PREFIX/bin/<program> -> PREFIX/share. */
        if (n < max_dirs)
            snprintf(dirs[n++], CLSORT__CONFIG_DIR_MAX, "%s/share/clsort/devices", up1);
        /* A multiarch LIBDIR (PREFIX/lib/x86_64-linux-gnu) sits one level deeper. */
        if (n < max_dirs && strncmp(up1_name, "lib", 3) == 0)
            snprintf(dirs[n++], CLSORT__CONFIG_DIR_MAX, "%s/share/clsort/devices", up2);
        /* The build tree: build/libclsort.so.N or build/clsort -> the repository's configs/. */
        if (n < max_dirs)
            snprintf(dirs[n++], CLSORT__CONFIG_DIR_MAX, "%s/configs", up1);
    }
    if (n < max_dirs)
        snprintf(dirs[n++], CLSORT__CONFIG_DIR_MAX, "%s", CLSORT_DATADIR);
    return n;
}

/* ---- Built-in defaults --------------------------------------------------------------------- */

typedef struct config_values {
    clsort_params params[CLSORT__NETWORKS][CLSORT__WIDTHS][CLSORT__VALKINDS];
    clsort__size_range ranges[CLSORT__NETWORKS][CLSORT__WIDTHS][CLSORT__VALKINDS]
                             [CLSORT__MAX_SIZE_RANGES];
    int nranges[CLSORT__NETWORKS][CLSORT__WIDTHS][CLSORT__VALKINDS];
    clsort__auto_rule rules[CLSORT__MAX_AUTO_RULES];
    int nrules;
    uint64_t host_fallback_max;
    uint64_t host_path_max;
    uint64_t topk_radix_min_k[CLSORT__WIDTHS], topk_radix_min_n[CLSORT__WIDTHS];
    uint64_t radix_min_n[CLSORT__KEY_SIZES][CLSORT__VALKINDS];
} config_values;

static void builtin_defaults(const clsort__device *dev, config_values *out)
{
    for (int net = 0; net < CLSORT__NETWORKS; ++net)
        for (int w = 0; w < CLSORT__WIDTHS; ++w)
            for (int v = 0; v < CLSORT__VALKINDS; ++v)
                clsort__default_params(dev, &(clsort__variant){(clsort__network)net, w, v},
                                       &out->params[net][w][v]);
    memset(out->nranges, 0, sizeof out->nranges);
    /* No rules: AUTO runs bitonic, the fastest network at every size measured so far on PoCL
     * and on NVIDIA GPUs (docs/tuning.md). */
    out->nrules = 0;
    /* Below this size a host array is sorted on the host: the device round trip costs more.
     * Measured by clsort-tune (2026-11-21): on an H200 the host radix sort wins up to about 512
     * keys (256: 23 us host against 51 us device; 1024: 88 against 57); on PoCL up to about
     * 1024-4096, where launches dominate. */
    out->host_fallback_max = (dev->type & CL_DEVICE_TYPE_GPU) ? 512 : 2048;
    /* On a CPU device the "device" is the host's own cores: the host's sort (Highway's vqsort,
     * else the radix sort of hostsort.c) is at least as fast as the PoCL networks at every size
     * measured (docs/bench/cpu-path-2026-11-24.md), so AUTO takes it everywhere until a tuned
     * config says up to where. Elsewhere only the fallback above. */
    out->host_path_max = (dev->type & CL_DEVICE_TYPE_CPU) ? UINT64_MAX : 0;
    /* AUTO's top-k by radix select: on GPUs from k = 128 on rows of at least 8192 keys, where
     * the network's halvings of blocks of K cost more than the select's fixed passes over the
     * row; below, the network (for k <= 32 one read with the stream pass) and, on short rows,
     * its single tile pass are the faster. Never on CPUs: PoCL's vectorised tile passes beat the
     * select almost everywhere (docs/kernels.md, "Top-k by radix select"). */
    for (int w = 0; w < CLSORT__WIDTHS; ++w) {
        const int gpu = (dev->type & CL_DEVICE_TYPE_GPU) != 0;
        out->topk_radix_min_k[w] = gpu ? 128 : UINT64_MAX;
        out->topk_radix_min_n[w] = gpu ? 8192 : UINT64_MAX;
    }
    /* AUTO's radix sort: on GPUs from these sizes, by key bytes (1, 2, 4, 8) and value kind
     * (keys, 4-byte, 8-byte values); never on other devices, where AUTO keeps the host's sort
     * and the networks (explicit CLSORT_RADIX still runs there). The crossovers follow the
     * scatter's ranking the device gets (plan.c, plan_radix). NVIDIA's warp multisplit,
     * measured on the H200 (device time, radix against bitonic, the tuner's rule: 3% faster
     * there and at every larger size up to 2^26): u32 keys from 2^22, u32 + 4-byte values from
     * 2^20, u64 keys from 2^23. The local splits elsewhere (measured on the H200 too): u32 +
     * 4-byte values from 2^23, u32 and u64 keys alone lose up to 2^26 by a margin that shrinks
     * with n, so their crossovers are the sizes that trend reaches. 8-byte values, 1- and
     * 2-byte keys and u64 pairs are estimates from the passes and bytes moved; a tuned config
     * gives a device's own crossovers. */
    static const uint64_t split_min[CLSORT__KEY_SIZES][CLSORT__VALKINDS] = {
        {(uint64_t)1 << 18, (uint64_t)1 << 18, (uint64_t)1 << 18},
        {(uint64_t)1 << 20, (uint64_t)1 << 20, (uint64_t)1 << 20},
        {(uint64_t)1 << 28, (uint64_t)1 << 23, (uint64_t)1 << 23},
        {(uint64_t)1 << 29, (uint64_t)1 << 27, (uint64_t)1 << 26}};
    static const uint64_t match_min[CLSORT__KEY_SIZES][CLSORT__VALKINDS] = {
        {(uint64_t)1 << 18, (uint64_t)1 << 18, (uint64_t)1 << 18},
        {(uint64_t)1 << 20, (uint64_t)1 << 20, (uint64_t)1 << 20},
        {(uint64_t)1 << 22, (uint64_t)1 << 20, (uint64_t)1 << 20},
        {(uint64_t)1 << 23, (uint64_t)1 << 22, (uint64_t)1 << 22}};
    const int multisplit = dev->warp_match;
    const uint64_t(*gpu_min)[CLSORT__VALKINDS] = multisplit ? match_min : split_min;
    for (int k = 0; k < CLSORT__KEY_SIZES; ++k)
        for (int v = 0; v < CLSORT__VALKINDS; ++v)
            out->radix_min_n[k][v] = (dev->type & CL_DEVICE_TYPE_GPU) ? gpu_min[k][v] : UINT64_MAX;
}

/* ---- Parsing ------------------------------------------------------------------------------- */

typedef struct parse_state {
    const clsort__device *dev;
    clsort_ctx *ctx; /* NULL: warnings are dropped (clsort__config_source_for) */
    const char *path;
    /* Per slot: range 0 is the section without a size, ranges 1.. the sections with "@N" (in
     * the order met; sorted when applied). */
    unsigned value[CLSORT__NETWORKS][CLSORT__WIDTHS][CLSORT__VALKINDS][1 + CLSORT__MAX_SIZE_RANGES]
                  [CLSORT_NPARAMS];
    int set[CLSORT__NETWORKS][CLSORT__WIDTHS][CLSORT__VALKINDS][1 + CLSORT__MAX_SIZE_RANGES]
           [CLSORT_NPARAMS];
    uint64_t range_max[CLSORT__NETWORKS][CLSORT__WIDTHS][CLSORT__VALKINDS]
                      [1 + CLSORT__MAX_SIZE_RANGES];
    int nranges[CLSORT__NETWORKS][CLSORT__WIDTHS][CLSORT__VALKINDS];
    clsort__auto_rule rules[CLSORT__MAX_AUTO_RULES];
    int nrules, rules_bad;
    uint64_t host_fallback_max, host_path_max;
    int have_fallback, have_path;
    uint64_t topk_radix_min_k[CLSORT__WIDTHS], topk_radix_min_n[CLSORT__WIDTHS];
    int have_topk_radix[CLSORT__WIDTHS];
    uint64_t radix_min_n[CLSORT__KEY_SIZES][CLSORT__VALKINDS];
    int have_radix[CLSORT__KEY_SIZES][CLSORT__VALKINDS];
    char dev_name[200], dev_vendor[200], dev_driver[200];
    char last_bad_section[64];
    int problems;
} parse_state;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void problem(parse_state *st, const char *fmt, ...)
{
    ++st->problems;
    if (!st->ctx || st->problems > MAX_REPORTED_PROBLEMS)
        return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    clsort__warn(st->ctx, "config %s: %s", st->path, buf);
}

/* Parses a decimal unsigned integer with nothing after it (the library's size parser without
 * suffixes: config values are plain numbers); returns 0 on success. */
static int parse_u64(const char *s, uint64_t *out)
{
    return clsort__parse_size(s, 0, out);
}

/* "bitonic.32.keys" -> (0, 0, 0) and *max_n 0; "bitonic.32.keys@65536" the same for inputs up
 * to 65536 keys (*max_n 65536). Returns 0, or -1 if the name is not such a section. */
static int parse_section(const char *section, int *net, int *width, int *valkind,
                         uint64_t *max_n)
{
    char buf[64];
    if (strlen(section) >= sizeof buf)
        return -1;
    strcpy(buf, section);
    *max_n = 0;
    char *at = strchr(buf, '@');
    if (at) {
        if (parse_u64(at + 1, max_n) || *max_n == 0)
            return -1;
        *at = 0;
    }
    char *dot1 = strchr(buf, '.');
    char *dot2 = dot1 ? strchr(dot1 + 1, '.') : NULL;
    if (!dot2 || strchr(dot2 + 1, '.'))
        return -1;
    *dot1 = *dot2 = 0;
    clsort_algorithm algo;
    if (clsort_algorithm_parse(buf, &algo) || (*net = clsort__network_index(algo)) < 0)
        return -1;
    if (!strcmp(dot1 + 1, "32"))
        *width = 0;
    else if (!strcmp(dot1 + 1, "64"))
        *width = 1;
    else
        return -1;
    for (int v = 0; v < CLSORT__VALKINDS; ++v)
        if (!strcmp(dot2 + 1, valkind_names[v])) {
            *valkind = v;
            return 0;
        }
    return -1;
}

/* topk_radix.<bits> = <min_k> <min_n> | off: AUTO's top-k of keys of that width takes the radix
 * select for k >= min_k and n >= min_n (docs/tuning.md). */
static void handle_topk_radix(parse_state *st, const char *name, const char *value)
{
    const char *bits = name + 11;
    const int w = !strcmp(bits, "32") ? 0 : !strcmp(bits, "64") ? 1 : -1;
    char a[32], b[32], extra[2];
    uint64_t min_k = UINT64_MAX, min_n = UINT64_MAX;
    const int nf = sscanf(value, "%31s %31s %1s", a, b, extra);
    const int off = nf == 1 && !strcmp(a, "off");
    if (w < 0 || (!off && (nf != 2 || parse_u64(a, &min_k) || parse_u64(b, &min_n)))) {
        problem(st, "[auto] %s = %s is not '<min_k> <min_n>' or 'off' for key bits 32 or 64; "
                    "using the default", name, value);
        return;
    }
    st->topk_radix_min_k[w] = min_k;
    st->topk_radix_min_n[w] = min_n;
    st->have_topk_radix[w] = 1;
}

/* radix_min_n_k<B> (keys alone) or radix_min_n_k<B>_v<V> (values of V = 4 or 8 bytes), B the
 * key's bytes (1, 2, 4, 8): the smallest n AUTO gives the radix sort, or "max" for never.
 * Returns 1 if name is such a key (handled), else 0. */
static int handle_radix_min(parse_state *st, const char *name, const char *value)
{
    static const char *const vnames[CLSORT__VALKINDS] = {"", "_v4", "_v8"};
    for (int k = 0; k < CLSORT__KEY_SIZES; ++k)
        for (int v = 0; v < CLSORT__VALKINDS; ++v) {
            char key[32];
            snprintf(key, sizeof key, "radix_min_n_k%d%s", 1 << k, vnames[v]);
            if (strcmp(name, key) != 0)
                continue;
            uint64_t x = UINT64_MAX;
            if (strcmp(value, "max") != 0 && parse_u64(value, &x))
                problem(st, "[auto] %s = %s is not a number or 'max'; using the default", name,
                        value);
            else
                st->radix_min_n[k][v] = x, st->have_radix[k][v] = 1;
            return 1;
        }
    return 0;
}

static void handle_auto(parse_state *st, const char *name, const char *value)
{
    if (handle_radix_min(st, name, value))
        return;
    if (!strcmp(name, "host_fallback_max")) {
        uint64_t v;
        if (parse_u64(value, &v) || v > CLSORT__HOST_FALLBACK_LIMIT)
            problem(st, "[auto] host_fallback_max = %s is not a number in [0, %llu]; using the "
                        "default", value, (unsigned long long)CLSORT__HOST_FALLBACK_LIMIT);
        else
            st->host_fallback_max = v, st->have_fallback = 1;
        return;
    }
    if (!strcmp(name, "host_path_max")) { /* <max_n|max>: AUTO's host path (docs/tuning.md) */
        uint64_t v = UINT64_MAX;
        if (strcmp(value, "max") != 0 && parse_u64(value, &v))
            problem(st, "[auto] host_path_max = %s is not a number or 'max'; using the default",
                    value);
        else
            st->host_path_max = v, st->have_path = 1;
        return;
    }
    if (!strncmp(name, "topk_radix.", 11)) {
        handle_topk_radix(st, name, value);
        return;
    }
    if (strcmp(name, "rule") != 0) {
        problem(st, "[auto] unknown key '%s' ignored", name);
        return;
    }
    /* rule = <max_n|max> <network> */
    char size[32], network[64];
    clsort_algorithm algo;
    uint64_t max_n = 0;
    if (sscanf(value, "%31s %63s", size, network) != 2 ||
        (strcmp(size, "max") != 0 && parse_u64(size, &max_n)) ||
        clsort_algorithm_parse(network, &algo) || clsort__network_index(algo) < 0 ||
        st->nrules == CLSORT__MAX_AUTO_RULES) {
        problem(st, "[auto] rule = %s is not '<max_n|max> <network>' (at most %d rules)", value,
                CLSORT__MAX_AUTO_RULES);
        st->rules_bad = 1;
        return;
    }
    if (!strcmp(size, "max"))
        max_n = UINT64_MAX;
    if (st->nrules && st->rules[st->nrules - 1].max_n >= max_n) {
        problem(st, "[auto] rules must have increasing sizes: %s", value);
        st->rules_bad = 1;
        return;
    }
    st->rules[st->nrules].max_n = max_n;
    st->rules[st->nrules].algo = algo;
    ++st->nrules;
}

static int handle_entry(void *user, const char *section, const char *name, const char *value)
{
    parse_state *st = user;
    if (!strcmp(section, "device")) {
        /* Informational: what the file was tuned on. */
        if (!strcmp(name, "name"))
            snprintf(st->dev_name, sizeof st->dev_name, "%s", value);
        else if (!strcmp(name, "vendor"))
            snprintf(st->dev_vendor, sizeof st->dev_vendor, "%s", value);
        else if (!strcmp(name, "driver"))
            snprintf(st->dev_driver, sizeof st->dev_driver, "%s", value);
        return 1;
    }
    if (!strcmp(section, "auto")) {
        handle_auto(st, name, value);
        return 1;
    }
    int net, w, v;
    uint64_t max_n;
    if (parse_section(section, &net, &w, &v, &max_n)) {
        if (strcmp(st->last_bad_section, section) != 0) {
            snprintf(st->last_bad_section, sizeof st->last_bad_section, "%s", section);
            problem(st, "unknown section [%s] ignored", section);
        }
        return 1;
    }
    int r = 0; /* which range of the slot this section fills */
    if (max_n) {
        const int nr = st->nranges[net][w][v];
        for (r = 1; r <= nr && st->range_max[net][w][v][r] != max_n; ++r)
            ;
        if (r > nr) {
            if (nr == CLSORT__MAX_SIZE_RANGES) {
                if (strcmp(st->last_bad_section, section) != 0) {
                    snprintf(st->last_bad_section, sizeof st->last_bad_section, "%s", section);
                    problem(st, "[%s]: more than %d size ranges for one network; ignored", section,
                            CLSORT__MAX_SIZE_RANGES);
                }
                return 1;
            }
            st->nranges[net][w][v] = r;
            st->range_max[net][w][v][r] = max_n;
        }
    }
    for (int k = 0; k < CLSORT_NPARAMS; ++k)
        if (!strcmp(name, clsort__param_keys[k])) {
            uint64_t x;
            if (parse_u64(value, &x) || x == 0 || x > 1u << 20) {
                problem(st, "[%s] %s = %s is not a positive number; using the default", section,
                        name, value);
                return 1;
            }
            st->value[net][w][v][r][k] = (unsigned)x;
            st->set[net][w][v][r][k] = 1;
            return 1;
        }
    problem(st, "[%s] unknown key '%s' ignored", section, name);
    return 1;
}

/* One section's settings on top of `base`, checked against the device's limits; returns 1 and
 * sets *out if usable. `range` names it in the warning ("" or "@N"). */
static int section_params(parse_state *st, int net, int w, int v, int r, const clsort_params *base,
                          clsort_params *out)
{
    const int *set = st->set[net][w][v][r];
    int any = 0;
    for (int k = 0; k < CLSORT_NPARAMS; ++k)
        any |= set[k];
    if (!any)
        return 0;
    clsort_params p = *base;
    for (int k = 0; k < CLSORT_NPARAMS; ++k)
        if (set[k])
            *clsort__param_field(&p, k) = st->value[net][w][v][r][k];
    char why[512], range[32] = "";
    if (r)
        snprintf(range, sizeof range, "@%llu", (unsigned long long)st->range_max[net][w][v][r]);
    if (clsort__check_params(st->dev, &(clsort__variant){(clsort__network)net, w, v}, &p, why,
                             sizeof why) != CLSORT_OK) {
        problem(st, "[%s.%d.%s%s] out of range for this device (%s); using the default "
                    "parameters for it",
                clsort_algorithm_name((clsort_algorithm)(net + 1)), w ? 64 : 32, valkind_names[v],
                range, why);
        return 0;
    }
    *out = p;
    return 1;
}

/* The settings of one slot: its section without a size, then its size ranges, each on top of
 * the slot's parameters (fields a range leaves out keep those). Returns how many were used. */
static int apply_slot(parse_state *st, int net, int w, int v, config_values *out)
{
    int used = section_params(st, net, w, v, 0, &out->params[net][w][v],
                              &out->params[net][w][v]);
    int n = 0;
    clsort__size_range *ranges = out->ranges[net][w][v];
    for (int r = 1; r <= st->nranges[net][w][v]; ++r) {
        clsort_params p;
        if (!section_params(st, net, w, v, r, &out->params[net][w][v], &p))
            continue;
        /* Insertion by max_n: lookups take the first range that covers n. */
        int at = n;
        while (at > 0 && ranges[at - 1].max_n > st->range_max[net][w][v][r]) {
            ranges[at] = ranges[at - 1];
            --at;
        }
        ranges[at].max_n = st->range_max[net][w][v][r];
        ranges[at].params = p;
        ++n;
        ++used;
    }
    out->nranges[net][w][v] = n;
    return used;
}

/* Applies what the file gave on top of the defaults in *out, checking each section against the
 * device's limits. Returns the number of settings taken from the file. */
static int apply_parsed(parse_state *st, config_values *out)
{
    int used = 0;
    for (int net = 0; net < CLSORT__NETWORKS; ++net)
        for (int w = 0; w < CLSORT__WIDTHS; ++w)
            for (int v = 0; v < CLSORT__VALKINDS; ++v)
                used += apply_slot(st, net, w, v, out);
    if (st->nrules && !st->rules_bad) {
        memcpy(out->rules, st->rules, sizeof st->rules);
        out->nrules = st->nrules;
        ++used;
    } else if (st->rules_bad) {
        problem(st, "[auto] rules ignored; AUTO uses the default networks");
    }
    if (st->have_fallback) {
        out->host_fallback_max = st->host_fallback_max;
        ++used;
    }
    if (st->have_path) {
        out->host_path_max = st->host_path_max;
        ++used;
    }
    for (int w = 0; w < CLSORT__WIDTHS; ++w)
        if (st->have_topk_radix[w]) {
            out->topk_radix_min_k[w] = st->topk_radix_min_k[w];
            out->topk_radix_min_n[w] = st->topk_radix_min_n[w];
            ++used;
        }
    for (int k = 0; k < CLSORT__KEY_SIZES; ++k)
        for (int v = 0; v < CLSORT__VALKINDS; ++v)
            if (st->have_radix[k][v]) {
                out->radix_min_n[k][v] = st->radix_min_n[k][v];
                ++used;
            }
    return used;
}

/* A config that another user could have written (the file, or the directory holding it) is not
 * used: it picks the kernels' parameters (docs/security.md). st is the open file's. Returns 1 if
 * it may be read; else warns on ctx (if any) and returns 0. */
static int config_trusted(clsort_ctx *ctx, const char *path, const struct stat *st)
{
    char why[200], dir[2600];
    const char *what = path;
    int bad = clsort__check_trusted_stat(st, why, sizeof why);
    if (!bad) {
        snprintf(dir, sizeof dir, "%s", path);
        char *slash = strrchr(dir, '/');
        if (slash) {
            *(slash == dir ? slash + 1 : slash) = 0;
            what = dir;
            bad = clsort__check_trusted_path(dir, why, sizeof why);
        }
    }
    if (bad && ctx)
        clsort__warn(ctx, "config %s ignored: %s is %s, so another user could have written it "
                          "(docs/security.md)", path, what, why);
    return !bad;
}

/* Reads one candidate file. Returns 1 if it was used (possibly in part), 0 if it does not exist
 * or gave nothing usable (the lookup goes on). */
static int try_file(const clsort__device *dev, clsort_ctx *ctx, const char *path,
                    config_values *out)
{
    /* O_NONBLOCK: a FIFO (or a device) put where the config belongs must not hang the open;
     * only a regular file is read. The checks use the opened file, not the name again. */
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno != ENOENT && ctx)
            clsort__warn(ctx, "config %s: cannot read it (%s); ignored", path, strerror(errno));
        return 0;
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        if (ctx)
            clsort__warn(ctx, "config %s: not a regular file; ignored", path);
        close(fd);
        return 0;
    }
    FILE *f = config_trusted(ctx, path, &sb) ? fdopen(fd, "r") : NULL;
    if (!f) {
        close(fd);
        return 0;
    }
    parse_state *st = calloc(1, sizeof *st);
    if (!st) {
        fclose(f);
        return 0;
    }
    st->dev = dev;
    st->ctx = ctx;
    st->path = path;
    const int bad_line = ini_parse_file(f, handle_entry, st);
    const int read_error = ferror(f);
    fclose(f);
    if (read_error)
        problem(st, "read error; the rest of the file is ignored");
    if (bad_line > 0)
        problem(st, "line %d: syntax error (ignored)", bad_line);
    config_values tmp = *out;
    const int used = apply_parsed(st, &tmp);
    if (used == 0) {
        problem(st, "no usable settings; ignored");
    } else {
        *out = tmp;
        char mine[200], theirs[200];
        normalise(dev->name, mine, sizeof mine);
        normalise(st->dev_name, theirs, sizeof theirs);
        if (st->dev_name[0] && strcmp(mine, theirs) != 0 && ctx)
            clsort__warn(ctx, "config %s was tuned on device '%s', not '%s'; using it anyway",
                         path, st->dev_name, dev->name);
        else if (st->dev_driver[0] && strcmp(st->dev_driver, dev->driver) != 0 && ctx)
            clsort__warn(ctx,
                         "config %s was tuned with driver '%s'; this device has driver '%s' "
                         "(same device, so it is used; clsort-tune would refresh it)",
                         path, st->dev_driver, dev->driver);
    }
    if (st->problems > MAX_REPORTED_PROBLEMS && ctx)
        clsort__warn(ctx, "config %s: %d more problems not shown", path,
                     st->problems - MAX_REPORTED_PROBLEMS);
    free(st);
    return used > 0;
}

/* The whole lookup: fills *out and source. ctx receives the warnings (may be NULL). */
static void resolve(const clsort__device *dev, clsort_ctx *ctx, config_values *out, char *source,
                    size_t source_size)
{
    builtin_defaults(dev, out);
    snprintf(source, source_size, "built-in defaults");
    char file[400], dirs[6][CLSORT__CONFIG_DIR_MAX], path[CLSORT__CONFIG_DIR_MAX + 420];
    int ndirs = 0;
    if (clsort__user_config_dir(dirs[0], sizeof dirs[0]) == 0)
        ++ndirs;
    ndirs += clsort__shipped_config_dirs(dirs + ndirs, 6 - ndirs);
    clsort__config_file_name(dev, file, sizeof file);
    for (int i = 0; i < ndirs; ++i) {
        snprintf(path, sizeof path, "%.*s/%s", CLSORT__CONFIG_DIR_MAX - 1, dirs[i], file);
        if (try_file(dev, ctx, path, out)) {
            snprintf(source, source_size, "%s", path);
            return;
        }
    }
}

void clsort__config_source_for(const clsort__device *dev, char *out, size_t out_size)
{
    config_values *v = malloc(sizeof *v);
    if (!v) {
        snprintf(out, out_size, "built-in defaults");
        return;
    }
    resolve(dev, NULL, v, out, out_size);
    free(v);
}

void clsort__load_config(clsort_ctx *ctx)
{
    config_values v;
    resolve(&ctx->dev, ctx, &v, ctx->config_source, sizeof ctx->config_source);
    memcpy(ctx->configured, v.params, sizeof ctx->configured);
    memcpy(ctx->ranges, v.ranges, sizeof ctx->ranges);
    memcpy(ctx->nranges, v.nranges, sizeof ctx->nranges);
    memcpy(ctx->auto_rules, v.rules, sizeof ctx->auto_rules);
    ctx->nauto_rules = v.nrules;
    ctx->host_fallback_max = v.host_fallback_max;
    ctx->host_path_max = v.host_path_max;
    memcpy(ctx->topk_radix_min_k, v.topk_radix_min_k, sizeof ctx->topk_radix_min_k);
    memcpy(ctx->topk_radix_min_n, v.topk_radix_min_n, sizeof ctx->topk_radix_min_n);
    memcpy(ctx->radix_min_n, v.radix_min_n, sizeof ctx->radix_min_n);
}
