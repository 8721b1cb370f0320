/* test_host_path.c - the host's own sort (Highway's vqsort where the library was built with
 * libhwy, else the radix sort of host/execution/hostsort.c) and who gets it: every key type, both
 * directions, keys alone and pairs with 4- and 8-byte values, CLSORT_STABLE, against the qsort
 * reference; then the rule of docs/tuning.md: AUTO sorts host arrays on the host up to the
 * config's host_path_max (by default every size on a CPU device, none elsewhere), explicit
 * networks run the network above host_fallback_max, and CLSORT_NO_HOST_FALLBACK always runs one.
 * Configs live in a temporary CLSORT_CONFIG_DIR. */
#include "test_util.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- The host sort's results ---------------------------------------------------------------- */

/* Checks a pairs result: keys equal the reference, every value (the input position, with bits
 * above 32 set for 8-byte values) appears once and still sits with its own key, and with
 * `stable` equal keys keep their input order. */
static int check_pairs(const char *what, clsort_type type, const void *in, const void *keys,
                       const void *want, const unsigned char *vals, size_t vs, size_t n,
                       int stable)
{
    const size_t at = t_first_diff(type, keys, want, n);
    if (at < n) {
        t_diag("%s: keys differ from the reference at %zu", what, at);
        t_diag_diff(type, keys, want, n, at);
        return 0;
    }
    unsigned char *seen = calloc(n ? n : 1, 1);
    if (!seen)
        t_bail("out of memory");
    int ok = 1;
    uint64_t prev = 0;
    for (size_t i = 0; i < n && ok; ++i) {
        uint64_t v = 0;
        if (vs == 4) {
            uint32_t x;
            memcpy(&x, vals + 4 * i, 4);
            v = x;
        } else {
            memcpy(&v, vals + 8 * i, 8);
            if (v >> 32 != 0xa5a5a5a5u) {
                t_diag("%s: value %zu lost its high bits (0x%016llx)", what, i,
                       (unsigned long long)v);
                ok = 0;
                break;
            }
            v &= 0xffffffffu;
        }
        if (v >= n || seen[v]) {
            t_diag("%s: value %llu at %zu is out of range or repeated", what,
                   (unsigned long long)v, i);
            ok = 0;
        } else if (t_get_bits(type, keys, i) != t_get_bits(type, in, v)) {
            t_diag("%s: the value at %zu (position %llu) is not with its key", what, i,
                   (unsigned long long)v);
            ok = 0;
        } else if (stable && i > 0 && t_get_bits(type, keys, i) == t_get_bits(type, keys, i - 1) &&
                   v < prev) {
            t_diag("%s: equal keys out of input order at %zu (%llu after %llu)", what, i,
                   (unsigned long long)v, (unsigned long long)prev);
            ok = 0;
        }
        seen[v] = 1;
        prev = v;
    }
    free(seen);
    return ok;
}

/* One case on the host: keys alone (vs 0) or pairs, through clsort_sort(_pairs) with the host
 * fallback raised to every size, so that any algorithm goes to the host sort. */
static int host_case(clsort_ctx *ctx, clsort_type type, t_dist dist, size_t n, size_t vs,
                     unsigned flags, clsort_algorithm algo, t_rng *r)
{
    const size_t ks = t_size(type);
    unsigned char *in = t_xmalloc(n * ks), *keys = t_xmalloc(n * ks), *want = t_xmalloc(n * ks);
    unsigned char *vals = vs ? t_xmalloc(n * vs) : NULL;
    t_fill(type, dist, in, n, r);
    memcpy(keys, in, n * ks);
    memcpy(want, in, n * ks);
    t_ref_sort(type, want, n, (flags & CLSORT_DESCENDING) != 0);
    for (size_t i = 0; i < n && vs; ++i) {
        if (vs == 4) {
            const uint32_t v = (uint32_t)i;
            memcpy(vals + 4 * i, &v, 4);
        } else {
            const uint64_t v = (uint64_t)0xa5a5a5a5u << 32 | i;
            memcpy(vals + 8 * i, &v, 8);
        }
    }
    char what[160];
    snprintf(what, sizeof what, "%s %s n=%zu values=%zu flags=%u %s", t_type_name(type),
             t_dist_name(dist), n, vs, flags, t_algo_name(algo));
    const int rc = vs ? clsort_sort_pairs(ctx, keys, vals, vs, n, type, algo, flags)
                      : clsort_sort(ctx, keys, n, type, algo, flags);
    int ok;
    if (rc != CLSORT_OK) {
        t_diag("%s: %s: %s", what, clsort_status_name(rc), clsort_last_error(ctx));
        ok = 0;
    } else if (vs) {
        ok = check_pairs(what, type, in, keys, want, vals, vs, n, (flags & CLSORT_STABLE) != 0);
    } else {
        ok = t_check_sorted(ctx, rc, what, 1, type, keys, want, n);
    }
    clsort_stats st;
    if (ok && n >= 2 && clsort_get_stats(ctx, &st) == CLSORT_OK && (!st.host_fallback || st.launches)) {
        t_diag("%s: stats say host_fallback=%d launches=%u, not the host sort", what,
               st.host_fallback, st.launches);
        ok = 0;
    }
    if (!ok)
        t_diag("  replay: CLSORT_TEST_SEED=%" PRIu64, t_seed_);
    free(in);
    free(keys);
    free(want);
    free(vals);
    return ok;
}

static void test_host_sort(clsort_ctx *ctx)
{
    clsort_set_host_fallback_max(ctx, UINT64_MAX);
    const size_t big = t_level() >= 1 ? ((size_t)1 << 20) + 5 : 70001;
    const size_t sizes[] = {0, 1, 2, 3, 17, 256, 1000, 4099, 65537, big};
    const size_t nsizes = sizeof sizes / sizeof *sizes;
    static const size_t value_sizes[] = {0, 4, 8};
    for (unsigned ti = 0; ti < T_NTYPES; ++ti) {
        const clsort_type type = t_types[ti];
        for (unsigned v = 0; v < 3; ++v)
            for (unsigned f = 0; f < 4; ++f) {
                const size_t vs = value_sizes[v];
                const unsigned flags = (f & 1 ? CLSORT_DESCENDING : 0) | (f & 2 ? CLSORT_STABLE : 0);
                if (!vs && (flags & CLSORT_STABLE))
                    continue; /* keys alone: stable by construction, the same sort */
                t_rng r = t_rng_for(t_seed_, ti, v, f);
                unsigned cases = 0, bad = 0;
                for (size_t s = 0; s < nsizes; ++s)
                    for (unsigned d = 0; d < T_NDIST; ++d) {
                        /* The big size once per group, with many equal keys when stable. */
                        if (sizes[s] == big && d != (flags & CLSORT_STABLE ? T_FEW : T_RANDOM))
                            continue;
                        ++cases;
                        bad += !host_case(ctx, type, (t_dist)d, sizes[s], vs, flags,
                                          t_algos[(s + d) % T_NALGOS], &r);
                    }
                t_ok(bad == 0, "host sort: %s%s%s%s: %u cases, sizes 0..%zu, every distribution",
                     t_type_name(type), vs == 4 ? " + 4-byte values" : vs == 8 ? " + 8-byte values" : " keys",
                     flags & CLSORT_DESCENDING ? " desc" : " asc",
                     flags & CLSORT_STABLE ? " stable" : "", cases, big);
            }
    }
}

/* Finite floats without -0 take vqsort's own float order (the same as totalOrder there), others
 * the order-space mapping: finite values with many equal ones and +0, then the same with one -0,
 * NaN, -NaN, +inf or -inf, each way round; and small arrays of one infinity repeated (Highway
 * 1.0.3's vqsort turned 17 keys of -inf into -FLT_MAX). */
static void test_float_paths(clsort_ctx *ctx)
{
    clsort_set_host_fallback_max(ctx, UINT64_MAX);
    const size_t n = 100003;
    for (int wide = 0; wide < 2; ++wide) {
        const clsort_type type = wide ? CLSORT_F64 : CLSORT_F32;
        const size_t ks = t_size(type);
        unsigned char *keys = t_xmalloc(n * ks), *want = t_xmalloc(n * ks);
        int bad = 0;
        for (int variant = 0; variant < 6; ++variant)
            for (int desc = 0; desc < 2; ++desc) {
                for (size_t i = 0; i < n; ++i) {
                    const double v = (double)((long)(i * 7919 % 2001) - 1000) / 8;
                    if (wide) {
                        memcpy(keys + 8 * i, &v, 8);
                    } else {
                        const float f = (float)v;
                        memcpy(keys + 4 * i, &f, 4);
                    }
                }
                static const uint64_t odd32[] = {0, 0x80000000u, 0x7fc00001u, 0xffc00000u,
                                                 0x7f800000u, 0xff800000u};
                static const uint64_t odd64[] = {0, (uint64_t)1 << 63, 0x7ff8000000000001u,
                                                 0xfff8000000000000u, 0x7ff0000000000000u,
                                                 0xfff0000000000000u};
                if (variant)
                    t_set_bits(type, keys, n / 3, wide ? odd64[variant] : odd32[variant]);
                memcpy(want, keys, n * ks);
                t_ref_sort(type, want, n, desc);
                const int rc = clsort_sort(ctx, keys, n, type, CLSORT_AUTO, desc ? CLSORT_DESCENDING : 0);
                char what[96];
                snprintf(what, sizeof what, "%s variant %d %s", t_type_name(type), variant,
                         desc ? "desc" : "asc");
                bad += !t_check_sorted(ctx, rc, what, 1, type, keys, want, n);
            }
        /* One infinity repeated, few keys (vqsort's small-array path). */
        for (int neg = 0; neg < 2; ++neg)
            for (size_t m = 2; m <= 40; m += 3) {
                for (size_t i = 0; i < m; ++i)
                    t_set_bits(type, keys, i,
                               wide ? (neg ? 0xfff0000000000000u : 0x7ff0000000000000u)
                                    : (neg ? 0xff800000u : 0x7f800000u));
                memcpy(want, keys, m * ks);
                const int rc = clsort_sort(ctx, keys, m, type, CLSORT_AUTO, 0);
                char what[96];
                snprintf(what, sizeof what, "%s: %zu keys of %cinf", t_type_name(type), m,
                         neg ? '-' : '+');
                bad += !t_check_sorted(ctx, rc, what, 1, type, keys, want, m);
            }
        t_ok(!bad, "host sort: %s finite with +0 (vqsort's float order), and with one -0, NaN, "
                   "-NaN, +inf, -inf (the mapping), both ways; 2..38 keys of one infinity",
             t_type_name(type));
        free(keys);
        free(want);
    }
}

/* ---- Who gets the host sort ----------------------------------------------------------------- */

static char conf_dir[512];
static char conf_path[1024];

static void write_config(const clsort_device_info *dev, const char *auto_section)
{
    FILE *f = fopen(conf_path, "w");
    if (!f)
        t_bail("cannot write %s", conf_path);
    fprintf(f, "[device]\nname = %s\nvendor = %s\ndriver = %s\n\n[auto]\n%s", dev->name,
            dev->vendor, dev->driver, auto_section);
    fclose(f);
}

/* Sorts n random u32 keys (or pairs with 4-byte values, or segments of 1000 keys) with algo and
 * flags, checks the result, and returns 1 if the host sort did it, 0 if a network did (with
 * launches), -1 on a failure (reported). */
static int where(clsort_ctx *ctx, size_t n, clsort_algorithm algo, unsigned flags, int mode)
{
    uint32_t *keys = t_xmalloc(n * 4), *want = t_xmalloc(n * 4), *vals = t_xmalloc(n * 4);
    t_rng r = t_rng_for(t_seed_, n, algo, flags + 8u * (unsigned)mode);
    t_fill(CLSORT_U32, T_FEW, keys, n, &r);
    for (size_t i = 0; i < n; ++i)
        vals[i] = (uint32_t)i;
    memcpy(want, keys, n * 4);
    int rc;
    if (mode == 0) {
        rc = clsort_sort(ctx, keys, n, CLSORT_U32, algo, flags);
    } else if (mode == 1) {
        rc = clsort_sort_pairs(ctx, keys, vals, 4, n, CLSORT_U32, algo, flags);
    } else {
        uint64_t offsets[64];
        size_t nseg = 0;
        for (size_t at = 0; at < n && nseg < 62; at += 1000)
            offsets[nseg++] = at;
        offsets[nseg] = n;
        rc = clsort_sort_segments(ctx, keys, NULL, 0, offsets, nseg, CLSORT_U32, algo, flags);
        for (size_t s = 0; s < nseg; ++s)
            t_ref_sort(CLSORT_U32, want + offsets[s], (size_t)(offsets[s + 1] - offsets[s]),
                       (flags & CLSORT_DESCENDING) != 0);
    }
    if (mode != 2)
        t_ref_sort(CLSORT_U32, want, n, (flags & CLSORT_DESCENDING) != 0);
    int out = -1;
    clsort_stats st;
    if (rc != CLSORT_OK) {
        t_diag("n=%zu %s flags %u: %s: %s", n, t_algo_name(algo), flags, clsort_status_name(rc),
               clsort_last_error(ctx));
    } else if (memcmp(keys, want, n * 4)) {
        t_diag("n=%zu %s flags %u: wrong result", n, t_algo_name(algo), flags);
    } else if (mode == 1 && (flags & CLSORT_STABLE)) {
        out = 1;
        for (size_t i = 1; i < n; ++i)
            if (keys[i] == keys[i - 1] && vals[i] < vals[i - 1]) {
                t_diag("n=%zu %s: stable pairs out of input order at %zu", n, t_algo_name(algo), i);
                out = -1;
                break;
            }
    } else {
        out = 1;
    }
    if (out == 1 && clsort_get_stats(ctx, &st) == CLSORT_OK)
        out = st.host_fallback ? (st.launches ? -1 : 1) : (st.launches ? 0 : -1);
    free(keys);
    free(want);
    free(vals);
    return out;
}

static void test_who_gets_it(void)
{
    snprintf(conf_dir, sizeof conf_dir, "%s/clsort-host-path-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(conf_dir))
        t_bail("mkdtemp failed");
    setenv("CLSORT_CONFIG_DIR", conf_dir, 1);
    clsort_ctx *ctx = t_create_ctx();
    clsort_device_info dev;
    clsort_get_device_info(ctx, &dev);
    clsort_config_path(ctx, conf_path, sizeof conf_path);
    const int cpu = !strcmp(dev.type, "cpu");
    /* Copies: the strings belong to the context. */
    char name[256], vendor[256], driver[256];
    snprintf(name, sizeof name, "%s", dev.name);
    snprintf(vendor, sizeof vendor, "%s", dev.vendor);
    snprintf(driver, sizeof driver, "%s", dev.driver);
    const clsort_device_info copy = {.name = name, .vendor = vendor, .driver = driver};
    clsort_destroy(ctx);

    /* A config with a small fallback and a host path up to 5000 keys. */
    write_config(&copy, "host_fallback_max = 100\nhost_path_max = 5000\n");
    ctx = t_create_ctx();
    const char *w = clsort_warnings(ctx);
    t_ok(!w || !*w, "config with host_path_max = 5000: no warning%s%s", w && *w ? ": " : "",
         w ? w : "");
    t_is_int(where(ctx, 4000, CLSORT_AUTO, 0, 0), 1, "AUTO, 4000 keys (<= host_path_max): the host sort");
    t_is_int(where(ctx, 5000, CLSORT_AUTO, CLSORT_DESCENDING, 0), 1, "AUTO, 5000 keys descending: the host sort");
    t_is_int(where(ctx, 6000, CLSORT_AUTO, 0, 0), 0, "AUTO, 6000 keys (> host_path_max): a network");
    t_is_int(where(ctx, 4000, CLSORT_BITONIC, 0, 0), 0, "BITONIC, 4000 keys: the network");
    t_is_int(where(ctx, 4000, CLSORT_ODD_EVEN_MERGE, 0, 0), 0, "ODD_EVEN_MERGE, 4000 keys: the network");
    t_is_int(where(ctx, 4000, CLSORT_ODD_EVEN_TRANSPOSITION, 0, 0), 0,
             "ODD_EVEN_TRANSPOSITION, 4000 keys: the network");
    t_is_int(where(ctx, 80, CLSORT_BITONIC, 0, 0), 1, "BITONIC, 80 keys (<= host_fallback_max): the host sort");
    t_is_int(where(ctx, 4000, CLSORT_AUTO, CLSORT_NO_HOST_FALLBACK, 0), 0,
             "AUTO with CLSORT_NO_HOST_FALLBACK, 4000 keys: a network");
    t_is_int(where(ctx, 4000, CLSORT_AUTO, 0, 1), 1, "AUTO pairs, 4000: the host sort");
    t_is_int(where(ctx, 4000, CLSORT_AUTO, CLSORT_STABLE, 1), 1,
             "AUTO stable pairs, 4000: the host sort, in input order among equal keys");
    t_is_int(where(ctx, 4000, CLSORT_BITONIC, CLSORT_STABLE, 1), 0,
             "BITONIC stable pairs, 4000: the network, in input order among equal keys");
    t_is_int(where(ctx, 4000, CLSORT_AUTO, 0, 2), 1, "AUTO segments, 4000 in all: the host sort");
    t_is_int(where(ctx, 4000, CLSORT_BITONIC, 0, 2), 0, "BITONIC segments, 4000 in all: the networks");
    clsort_destroy(ctx);

    write_config(&copy, "host_path_max = max\n");
    ctx = t_create_ctx();
    t_is_int(where(ctx, (size_t)1 << 18, CLSORT_AUTO, 0, 0), 1, "host_path_max = max: AUTO, 2^18 keys: the host sort");
    t_is_int(where(ctx, (size_t)1 << 18, CLSORT_BITONIC, 0, 0), 0, "host_path_max = max: BITONIC, 2^18 keys: the network");
    clsort_destroy(ctx);

    write_config(&copy, "host_path_max = 0\nhost_fallback_max = 0\n");
    ctx = t_create_ctx();
    uint64_t got = 1;
    t_ok(clsort_get_host_path_max(ctx, &got) == CLSORT_OK && got == 0,
         "host_path_max = 0: clsort_get_host_path_max says 0 (%llu)", (unsigned long long)got);
    t_is_int(where(ctx, 3000, CLSORT_AUTO, 0, 0), 0, "host_path_max = 0: AUTO runs a network");
    /* The call overrides the config, on this context. */
    t_is_status(clsort_set_host_path_max(ctx, 3000), CLSORT_OK, "clsort_set_host_path_max(3000)");
    t_ok(clsort_get_host_path_max(ctx, &got) == CLSORT_OK && got == 3000,
         "... clsort_get_host_path_max says 3000 (%llu)", (unsigned long long)got);
    t_is_int(where(ctx, 3000, CLSORT_AUTO, 0, 0), 1, "... AUTO of 3000 keys: the host sort");
    t_is_int(where(ctx, 3001, CLSORT_AUTO, 0, 0), 0, "... AUTO of 3001 keys: a network");
    t_is_int(where(ctx, 3000, CLSORT_BITONIC, 0, 0), 0, "... BITONIC of 3000 keys: the network");
    t_is_status(clsort_set_host_path_max(NULL, 1), CLSORT_ERR_INVALID_ARG,
                "clsort_set_host_path_max(NULL): CLSORT_ERR_INVALID_ARG");
    t_is_status(clsort_get_host_path_max(ctx, NULL), CLSORT_ERR_INVALID_ARG,
                "clsort_get_host_path_max(ctx, NULL): CLSORT_ERR_INVALID_ARG");
    clsort_destroy(ctx);

    /* Unusable: a warning naming the key, and the default. */
    write_config(&copy, "host_fallback_max = 0\nhost_path_max = lots\n");
    ctx = t_create_ctx();
    w = clsort_warnings(ctx);
    t_ok(w && strstr(w, "host_path_max"), "host_path_max = lots: a warning names the key");
    t_is_int(where(ctx, 20000, CLSORT_AUTO, 0, 0), cpu,
             "... and the default applies: AUTO of 20000 keys %s",
             cpu ? "on the host (CPU device)" : "on the device");
    clsort_destroy(ctx);

    /* No host_path_max at all: the built-in default. */
    write_config(&copy, "host_fallback_max = 0\n");
    ctx = t_create_ctx();
    t_is_int(where(ctx, (size_t)1 << 16, CLSORT_AUTO, 0, 0), cpu,
             "no host_path_max: AUTO of 2^16 keys %s", cpu ? "on the host (CPU device)" : "on the device");
    clsort_destroy(ctx);

    unlink(conf_path);
    rmdir(conf_dir);
    unsetenv("CLSORT_CONFIG_DIR");
}

int main(void)
{
    t_init("test_host_path");
    clsort_ctx *ctx = t_create_ctx();
    test_host_sort(ctx);
    test_float_paths(ctx);
    clsort_destroy(ctx);
    test_who_gets_it();
    return t_done();
}
