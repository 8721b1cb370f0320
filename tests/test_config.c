/* test_config.c - tuned configs: the lookup chain (CLSORT_CONFIG_DIR, XDG_CONFIG_HOME, HOME),
 * matching by normalised vendor and device name (another driver still matches, with a note),
 * values checked against the device's limits, and missing, unreadable, corrupt and out-of-range
 * files: the sort stays correct and a warning is given. Never touches the user's home: HOME and
 * every directory are temporary. */
#include "test_util.h"

#include "params.h"

#include <ctype.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[256];     /* mkdtemp: everything lives under it */
static char conf_dir[512]; /* CLSORT_CONFIG_DIR */
static char file_name[512]; /* the device's config file name */
static clsort_device_info dev;
static char dev_name[256], dev_vendor[256], dev_driver[256];


static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        t_bail("cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

static void mkdirs(const char *path)
{
    char buf[2048];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; ++p)
        if (*p == '/') {
            *p = 0;
            mkdir(buf, 0755);
            *p = '/';
        }
    mkdir(buf, 0755);
}

static void path_in(char *out, size_t size, const char *dir)
{
    snprintf(out, size, "%s/%s", dir, file_name);
}

/* A correct device sort of random keys with this context (AUTO, no host fallback). */
static int sorts_correctly(clsort_ctx *ctx, const char *what)
{
    const size_t n = 5000;
    uint32_t *keys = t_xmalloc(n * 4), *ref = t_xmalloc(n * 4);
    t_rng r = t_rng_for(7, n, 0, 0);
    for (size_t i = 0; i < n; ++i)
        keys[i] = ref[i] = (uint32_t)t_rand64(&r);
    t_ref_sort(CLSORT_U32, ref, n, 0);
    const int rc = clsort_sort(ctx, keys, n, CLSORT_U32, CLSORT_AUTO, CLSORT_NO_HOST_FALLBACK);
    const int ok = rc == CLSORT_OK && t_first_diff(CLSORT_U32, keys, ref, n) == n;
    t_ok(ok, "%s: sort still correct", what);
    if (rc != CLSORT_OK)
        t_diag("%s", clsort_last_error(ctx));
    free(keys);
    free(ref);
    return ok;
}

static clsort_ctx *make_ctx(void)
{
    clsort_ctx *ctx = NULL;
    if (clsort_create(&ctx, NULL) != CLSORT_OK)
        t_bail("clsort_create failed");
    return ctx;
}

static const char *source_of(clsort_ctx *ctx)
{
    static char buf[2048];
    clsort_device_info i;
    clsort_get_device_info(ctx, &i);
    snprintf(buf, sizeof buf, "%s", i.config_source);
    return buf;
}

/* A valid config with the given driver and extra text. */
static void write_config(const char *path, const char *driver, const char *extra)
{
    char text[4096];
    snprintf(text, sizeof text,
             "# test config\n[device]\nname = %s\nvendor = %s\ndriver = %s\n\n"
             "[bitonic.32.keys]\nwg_size = 32\nvec_step = 2\ntile = 1024\nkeys_per_item = 4\n\n"
             "[auto]\nrule = 100000 odd-even-merge\nrule = max bitonic\nhost_fallback_max = 77\n"
             "%s",
             dev_name, dev_vendor, driver, extra);
    write_file(path, text);
}

static int has(const char *hay, const char *needle)
{
    return hay && strstr(hay, needle) != NULL;
}

static void test_no_file(void)
{
    clsort_ctx *ctx = make_ctx();
    char installed[2048];
    snprintf(installed, sizeof installed, "/usr/local/share/clsort/devices/%s", file_name);
    if (access(installed, F_OK) == 0) {
        t_skip("a config for this device is installed (%s)", installed);
    } else {
        t_is_str(source_of(ctx), "built-in defaults", "no config: built-in defaults");
        t_is_str(clsort_warnings(ctx), "", "no config: no warning");
    }
    char path[2048], want[2048];
    t_is_status(clsort_config_path(ctx, path, sizeof path), CLSORT_OK, "clsort_config_path");
    path_in(want, sizeof want, conf_dir);
    t_is_str(path, want, "... is CLSORT_CONFIG_DIR/<vendor>--<name>.ini");
    t_is_status(clsort_config_path(ctx, path, 8), CLSORT_ERR_INVALID_ARG,
                "clsort_config_path with a small buffer");
    t_is_status(clsort_config_path(NULL, path, sizeof path), CLSORT_ERR_INVALID_ARG,
                "clsort_config_path(NULL)");
    sorts_correctly(ctx, "no config");
    clsort_destroy(ctx);
}

static void test_valid(void)
{
    char path[2048];
    path_in(path, sizeof path, conf_dir);
    write_config(path, dev_driver, "");
    clsort_ctx *ctx = make_ctx();
    t_is_str(source_of(ctx), path, "valid config: its path is the config source");
    t_is_str(clsort_warnings(ctx), "", "valid config: no warning");
    clsort_params p;
    clsort_get_params(ctx, CLSORT_BITONIC, CLSORT_F32, 0, &p);
    t_ok(p.wg_size == 32 && p.vec_step == 2 && p.tile == 1024 && p.keys_per_item == 4,
         "valid config: [bitonic.32.keys] is used (got %u %u %u %u)", p.wg_size, p.vec_step,
         p.tile, p.keys_per_item);
    uint64_t fb = 0;
    clsort_get_host_fallback_max(ctx, &fb);
    t_is_int((long long)fb, 77, "valid config: host_fallback_max");
    sorts_correctly(ctx, "valid config");
    clsort_stats st;
    clsort_get_stats(ctx, &st);
    t_is_int(st.algorithm, CLSORT_ODD_EVEN_MERGE, "valid config: AUTO follows the rules");
    /* The host fallback follows the config too. */
    uint32_t small[50];
    for (int i = 0; i < 50; ++i)
        small[i] = (uint32_t)(50 - i);
    clsort_sort(ctx, small, 50, CLSORT_U32, CLSORT_AUTO, 0);
    clsort_get_stats(ctx, &st);
    t_ok(st.host_fallback == 1 && small[0] == 1 && small[49] == 50,
         "valid config: n = 50 <= 77 sorted on the host");
    clsort_destroy(ctx);

    /* Another driver version of the same device still matches, with a note. */
    write_config(path, "0.0-some-other-driver", "");
    ctx = make_ctx();
    t_is_str(source_of(ctx), path, "other driver: the config is still used");
    t_ok(has(clsort_warnings(ctx), "driver"), "other driver: a note names the driver");
    clsort_get_params(ctx, CLSORT_BITONIC, CLSORT_U32, 0, &p);
    t_ok(p.tile == 1024, "other driver: its parameters are used");
    clsort_destroy(ctx);
    unlink(path);
}

static void default_params(clsort_params *p)
{
    clsort_ctx *ctx = make_ctx(); /* with no file present */
    clsort_get_params(ctx, CLSORT_BITONIC, CLSORT_U32, 0, p);
    clsort_destroy(ctx);
}

static void test_out_of_range(void)
{
    char path[2048];
    path_in(path, sizeof path, conf_dir);
    clsort_params def;
    default_params(&def);
    write_file(path, "[bitonic.32.keys]\nwg_size = 1000000\ntile = 1024\n\n"
                     "[odd-even-merge.32.keys]\ntile = 3\n\n"
                     "[bitonic.64.keys]\nwg_size = 16\ntile = 512\nkeys_per_item = 4\n\n"
                     "[bitonic.32.pairs4]\nkeys_per_item = 64\n\n"
                     "[odd-even-transposition.32.keys]\nvec_step = banana\n\n"
                     "[auto]\nhost_fallback_max = 99999999999\nrule = 1000 quicksort\n");
    clsort_ctx *ctx = make_ctx();
    const char *w = clsort_warnings(ctx);
    t_ok(has(w, "wg_size 1000000") || has(w, "wg_size"), "out of range: wg_size warned about");
    t_ok(has(w, "tile 3"), "out of range: tile = 3 warned about");
    t_ok(has(w, "keys_per_item 64"), "out of range: keys_per_item = 64 warned about");
    t_ok(has(w, "banana"), "bad number: warned about");
    t_ok(has(w, "host_fallback_max"), "host_fallback_max too large: warned about");
    t_ok(has(w, "quicksort"), "bad AUTO rule: warned about");
    clsort_params p;
    clsort_get_params(ctx, CLSORT_BITONIC, CLSORT_U32, 0, &p);
    t_ok(p.wg_size == def.wg_size && p.tile == def.tile,
         "out of range: that section falls back to the defaults");
    clsort_get_params(ctx, CLSORT_BITONIC, CLSORT_U64, 0, &p);
    t_ok(p.wg_size == 16 && p.tile == 512 && p.keys_per_item == 4,
         "out of range: the good section is still used");
    t_is_str(source_of(ctx), path, "partly bad config: its path is the source");
    sorts_correctly(ctx, "out-of-range config");
    clsort_destroy(ctx);
    unlink(path);
}

/* [auto]'s radix crossovers: a bad value and an unknown width are warned about and ignored, a
 * rule may not name the radix sort (rules pick networks), and a good key takes effect. */
static void test_radix_keys(void)
{
    char path[2048];
    path_in(path, sizeof path, conf_dir);
    write_file(path, "[auto]\nhost_path_max = 0\nradix_min_n_k4 = banana\nradix_min_n_k16 = 5\n"
                     "rule = max radix\nradix_min_n_k4_v4 = 3000\n");
    clsort_ctx *ctx = make_ctx();
    const char *w = clsort_warnings(ctx);
    t_ok(has(w, "radix_min_n_k4 = banana"), "radix_min_n_k4 = banana: warned about");
    t_ok(has(w, "radix_min_n_k16"), "radix_min_n_k16 (no such key width): warned about");
    t_ok(has(w, "max radix"), "an AUTO rule naming the radix sort: warned about");
    uint32_t k[5000], v[5000];
    t_rng r = t_rng_for(5, 0, 0, 0);
    for (int i = 0; i < 5000; ++i)
        k[i] = (uint32_t)t_rand64(&r), v[i] = (uint32_t)i;
    clsort_stats st;
    const int rc = clsort_sort_pairs(ctx, k, v, 4, 5000, CLSORT_U32, CLSORT_AUTO, 0);
    t_ok(rc == CLSORT_OK && clsort_get_stats(ctx, &st) == CLSORT_OK &&
             st.algorithm == CLSORT_RADIX,
         "radix_min_n_k4_v4 = 3000: AUTO sorts 5000 u32 pairs with the radix sort");
    int sorted = 1;
    for (int i = 1; i < 5000; ++i)
        sorted &= k[i - 1] <= k[i];
    t_ok(sorted, "... sorted");
    sorts_correctly(ctx, "radix keys");
    clsort_destroy(ctx);
    unlink(path);
}

static void test_corrupt(void)
{
    char path[2048];
    path_in(path, sizeof path, conf_dir);
    FILE *f = fopen(path, "wb");
    t_rng r = t_rng_for(99, 0, 0, 0);
    for (int i = 0; i < 3000; ++i)
        fputc((int)(t_rand64(&r) & 255), f);
    fclose(f);
    clsort_ctx *ctx = make_ctx();
    t_ok(clsort_warnings(ctx)[0] != 0, "corrupt config: a warning");
    t_ok(has(clsort_warnings(ctx), path), "corrupt config: the warning names the file");
    t_is_str(source_of(ctx), "built-in defaults", "corrupt config: built-in defaults");
    sorts_correctly(ctx, "corrupt config");
    clsort_destroy(ctx);

    write_file(path, "[bitonic.32.keys\nwg_size = 32\n[bitonic.64.keys]\nfoo = 1\n"
                     "this line is nonsense\ntile = 1024\n[nonsense.section]\nx = 1\n");
    ctx = make_ctx();
    const char *w = clsort_warnings(ctx);
    t_ok(has(w, "syntax error"), "syntax error: warned about");
    t_ok(has(w, "unknown key 'foo'"), "unknown key: warned about");
    t_ok(has(w, "nonsense.section"), "unknown section: warned about");
    clsort_params p;
    clsort_get_params(ctx, CLSORT_BITONIC, CLSORT_U64, 0, &p);
    t_is_int(p.tile, 1024, "syntax errors: the good values are still used");
    sorts_correctly(ctx, "config with syntax errors");
    clsort_destroy(ctx);

    write_file(path, "");
    ctx = make_ctx();
    t_is_str(source_of(ctx), "built-in defaults", "empty config: built-in defaults");
    t_ok(has(clsort_warnings(ctx), "no usable settings"), "empty config: a warning");
    clsort_destroy(ctx);
    unlink(path);

    /* Unreadable: a directory where the file should be (chmod 000 does not stop root). */
    mkdir(path, 0755);
    ctx = make_ctx();
    t_is_str(source_of(ctx), "built-in defaults", "unreadable config: built-in defaults");
    t_ok(clsort_warnings(ctx)[0] != 0, "unreadable config: a warning");
    sorts_correctly(ctx, "unreadable config");
    clsort_destroy(ctx);
    rmdir(path);
}

static void test_chain(void)
{
    char xdg[512], home[512], xdg_path[2048], home_path[2048], mine[2048], d[700];
    snprintf(xdg, sizeof xdg, "%s/xdg", root);
    snprintf(home, sizeof home, "%s/home", root);
    snprintf(d, sizeof d, "%s/clsort", xdg);
    mkdirs(d);
    path_in(xdg_path, sizeof xdg_path, d);
    snprintf(d, sizeof d, "%s/.config/clsort", home);
    mkdirs(d);
    path_in(home_path, sizeof home_path, d);
    path_in(mine, sizeof mine, conf_dir);
    write_config(xdg_path, dev_driver, "");
    write_config(home_path, dev_driver, "");
    setenv("HOME", home, 1);
    setenv("XDG_CONFIG_HOME", xdg, 1);

    clsort_ctx *ctx = make_ctx();
    t_ok(strcmp(source_of(ctx), xdg_path) != 0 && strcmp(source_of(ctx), home_path) != 0,
         "CLSORT_CONFIG_DIR set (no file): XDG_CONFIG_HOME and HOME are not searched");
    clsort_destroy(ctx);

    write_config(mine, dev_driver, "");
    ctx = make_ctx();
    t_is_str(source_of(ctx), mine, "CLSORT_CONFIG_DIR comes first");
    clsort_destroy(ctx);
    unlink(mine);

    unsetenv("CLSORT_CONFIG_DIR");
    ctx = make_ctx();
    t_is_str(source_of(ctx), xdg_path, "then $XDG_CONFIG_HOME/clsort");
    char p[2048];
    clsort_config_path(ctx, p, sizeof p);
    t_is_str(p, xdg_path, "clsort_config_path follows XDG_CONFIG_HOME");
    clsort_destroy(ctx);

    unsetenv("XDG_CONFIG_HOME");
    ctx = make_ctx();
    t_is_str(source_of(ctx), home_path, "then ~/.config/clsort");
    clsort_config_path(ctx, p, sizeof p);
    t_is_str(p, home_path, "clsort_config_path follows HOME");
    clsort_destroy(ctx);
    unlink(home_path);
    unlink(xdg_path);
    setenv("CLSORT_CONFIG_DIR", conf_dir, 1);
}

static const char *list_want;
static int list_same;
static void on_device(const clsort_device_info *i, int is_default, void *user)
{
    (void)user;
    if (is_default && list_want)
        list_same = strcmp(i->config_source, list_want) == 0;
}

static void test_list(void)
{
    char path[2048];
    path_in(path, sizeof path, conf_dir);
    write_config(path, dev_driver, "");
    list_want = path;
    list_same = 0;
    clsort_list_devices(on_device, NULL);
    const char *env = getenv("CLSORT_DEVICE");
    if (env && *env)
        t_skip("clsort_list_devices default is not CLSORT_DEVICE's choice here");
    else
        t_ok(list_same, "clsort_list_devices shows the config in use");
    unlink(path);
}

/* A sort of n random u32 keys with bitonic on the device; returns 1 if correct. */
static int bitonic_sorts(clsort_ctx *ctx, size_t n)
{
    uint32_t *keys = t_xmalloc(n * 4), *ref = t_xmalloc(n * 4);
    t_rng r = t_rng_for(8, n, 0, 0);
    for (size_t i = 0; i < n; ++i)
        keys[i] = ref[i] = (uint32_t)t_rand64(&r);
    t_ref_sort(CLSORT_U32, ref, n, 0);
    const int rc = clsort_sort(ctx, keys, n, CLSORT_U32, CLSORT_BITONIC, CLSORT_NO_HOST_FALLBACK);
    const int ok = rc == CLSORT_OK && t_first_diff(CLSORT_U32, keys, ref, n) == n;
    if (rc != CLSORT_OK)
        t_diag("n=%zu: %s", n, clsort_last_error(ctx));
    free(keys);
    free(ref);
    return ok;
}

static int params_are(const clsort_params *p, unsigned wg, unsigned vec, unsigned tile,
                      unsigned kpi)
{
    return p->wg_size == wg && p->vec_step == vec && p->tile == tile && p->keys_per_item == kpi;
}

/* Size ranges: [bitonic.32.keys@N] sections hold for inputs up to N keys, in any order in the
 * file, each on top of the section without a size; clsort_set_params overrides them all. */
static void test_size_ranges(void)
{
    char path[2048];
    path_in(path, sizeof path, conf_dir);
    write_config(path, dev_driver,
                 "\n[bitonic.32.keys@65536]\ntile = 256\nwg_size = 16\n"
                 "\n[bitonic.32.keys@4096]\ntile = 64\nwg_size = 8\nkeys_per_item = 2\n"
                 "\n[bitonic.32.keys@0]\ntile = 32\n"
                 "\n[bitonic.32.keys@lots]\ntile = 32\n");
    clsort_ctx *ctx = make_ctx();
    const char *w = clsort_warnings(ctx);
    t_ok(has(w, "bitonic.32.keys@0") && has(w, "bitonic.32.keys@lots"),
         "size ranges: @0 and @lots are warned about as unknown sections");
    clsort_params p;
    static const struct {
        uint64_t n;
        unsigned wg, vec, tile, kpi;
    } want[] = {{1, 8, 2, 64, 2},        {4096, 8, 2, 64, 2},        {4097, 16, 2, 256, 4},
                {65536, 16, 2, 256, 4}, {65537, 32, 2, 1024, 4}, {UINT64_MAX, 32, 2, 1024, 4}};
    int all = 1;
    for (size_t i = 0; i < sizeof want / sizeof *want; ++i) {
        clsort_get_params_for_size(ctx, CLSORT_BITONIC, CLSORT_U32, 0, want[i].n, &p);
        if (!params_are(&p, want[i].wg, want[i].vec, want[i].tile, want[i].kpi)) {
            all = 0;
            t_diag("n=%llu: got %u %u %u %u", (unsigned long long)want[i].n, p.wg_size,
                   p.vec_step, p.tile, p.keys_per_item);
        }
    }
    t_ok(all, "size ranges: each n gets the smallest range that covers it, else the base section");
    clsort_get_params(ctx, CLSORT_BITONIC, CLSORT_U32, 0, &p);
    t_ok(params_are(&p, 32, 2, 1024, 4), "size ranges: clsort_get_params gives the base section");
    clsort_get_params_for_size(ctx, CLSORT_BITONIC, CLSORT_U64, 0, 100, &p);
    t_ok(p.tile != 64, "size ranges: other slots are not affected");
    t_ok(bitonic_sorts(ctx, 3000) && bitonic_sorts(ctx, 20000) && bitonic_sorts(ctx, 100000),
         "size ranges: sorts in each range are correct");
    const clsort_params over = {16, 1, 128, 2};
    clsort_set_params(ctx, CLSORT_BITONIC, CLSORT_U32, 0, &over);
    clsort_get_params_for_size(ctx, CLSORT_BITONIC, CLSORT_U32, 0, 100, &p);
    t_ok(params_are(&p, 16, 1, 128, 2), "size ranges: clsort_set_params holds at every size");
    const clsort_params zero = {0, 0, 0, 0};
    clsort_set_params(ctx, CLSORT_BITONIC, CLSORT_U32, 0, &zero);
    clsort_get_params_for_size(ctx, CLSORT_BITONIC, CLSORT_U32, 0, 100, &p);
    t_ok(params_are(&p, 8, 2, 64, 2), "size ranges: restoring the config restores its ranges");
    t_is_status(clsort_get_params_for_size(ctx, CLSORT_AUTO, CLSORT_U32, 0, 100, &p),
                CLSORT_ERR_INVALID_ARG, "clsort_get_params_for_size(AUTO)");
    clsort_destroy(ctx);
    unlink(path);
}

/* The table of kernel build parameters (CLSORT_PARAM_TABLE) and its consumers agree: each row's
 * key is read from a config into its field and range-checked with a warning naming it, the
 * network programs' -D options carry each row's value under its -D name (byte for byte the
 * options the cache keys were made of), and docs/tuning.md lists each row. */
static unsigned row_value(const clsort_params *p, int k)
{
    return *clsort__param_field((clsort_params *)p, k);
}

static void test_param_table_config(void)
{
    static const char *const keys[] = {
#define ROW_KEY(name, DNAME, min, max, pow2, tune_lo, tune_hi, key, what) key,
        CLSORT_PARAM_TABLE(ROW_KEY)
#undef ROW_KEY
    };
    static const unsigned maxes[] = {
#define ROW_MAX(name, DNAME, min, max, pow2, tune_lo, tune_hi, key, what) max,
        CLSORT_PARAM_TABLE(ROW_MAX)
#undef ROW_MAX
    };
    t_is_int((long long)(sizeof keys / sizeof keys[0]), CLSORT_NPARAMS, "table: CLSORT_NPARAMS rows");
    char path[2048], text[256];
    path_in(path, sizeof path, conf_dir);
    clsort_params def;
    default_params(&def);
    for (int k = 0; k < CLSORT_NPARAMS; ++k) {
        t_is_str(clsort__param_keys[k], keys[k], "table row %d: the library's config key", k);
        /* Another valid value: twice the default, or half where that passes the row's max. */
        const unsigned d = row_value(&def, k);
        const unsigned v = maxes[k] && 2 * d > maxes[k] ? d / 2 : 2 * d;
        snprintf(text, sizeof text, "[bitonic.32.keys]\n%s = %u\n", keys[k], v);
        write_file(path, text);
        clsort_ctx *ctx = make_ctx();
        clsort_params p;
        clsort_get_params(ctx, CLSORT_BITONIC, CLSORT_U32, 0, &p);
        t_is_int(row_value(&p, k), v, "config key %s = %u sets its field", keys[k], v);
        t_ok(!has(clsort_warnings(ctx), keys[k]), "config key %s = %u: no warning", keys[k], v);
        clsort_destroy(ctx);
        /* Past the row's range (max 0: the device's work-group limit). */
        const unsigned bad = maxes[k] ? maxes[k] + 1 : 1000000;
        snprintf(text, sizeof text, "[bitonic.32.keys]\n%s = %u\n", keys[k], bad);
        write_file(path, text);
        ctx = make_ctx();
        char want[64];
        snprintf(want, sizeof want, "%s %u", keys[k], bad);
        t_ok(has(clsort_warnings(ctx), want), "config key %s = %u: out of range, warned (%s)",
             keys[k], bad, want);
        clsort_get_params(ctx, CLSORT_BITONIC, CLSORT_U32, 0, &p);
        t_is_int(row_value(&p, k), d, "config key %s = %u: the default kept", keys[k], bad);
        clsort_destroy(ctx);
    }
    unlink(path);
}

static void test_param_table_options(void)
{
    /* The network programs' options as they were written out by hand: the cache keys of
     * programs built before hold these exact bytes. */
    static const clsort_params sets[] = {{64, 16, 16, 4}, {16, 1, 64, 32}, {256, 1, 4096, 16}};
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; ++i)
        for (int net = 0; net < CLSORT__NETWORKS; ++net) {
            clsort__plan plan;
            memset(&plan, 0, sizeof plan);
            plan.program = (clsort__program_id)net;
            plan.var = (clsort__variant){(clsort__network)net, (int)(i & 1), (int)i};
            plan.index_bits = i ? 64 : 32;
            plan.params = &sets[i];
            clsort__build_options(&plan);
            char want[512];
            const clsort_params *p = &sets[i];
            snprintf(want, sizeof want,
                     "-DCLSORT_NET=%d -DKEY_BITS=%u -DVAL_BYTES=%u -DINDEX_BITS=%d -DWG_SIZE=%u "
                     "-DVEC_STEP=%u -DTILE=%u -DKEYS_PER_ITEM=%u",
                     net, i & 1 ? 64u : 32u, 4u * (unsigned)i, plan.index_bits, p->wg_size,
                     p->vec_step, p->tile, p->keys_per_item);
            t_is_str(plan.options, want, "network %d, set %zu: the -D options", net, i);
        }
    /* Each row's -D name carries its field: a value no other field has. */
    for (int k = 0; k < CLSORT_NPARAMS; ++k) {
        static const char *const dnames[] = {
#define ROW_D(name, DNAME, min, max, pow2, tune_lo, tune_hi, key, what) #DNAME,
            CLSORT_PARAM_TABLE(ROW_D)
#undef ROW_D
        };
        clsort_params p = {1, 1, 1, 1};
        *clsort__param_field(&p, k) = 777;
        char opts[512], want[64];
        clsort__param_options(&p, opts, sizeof opts);
        snprintf(want, sizeof want, " -D%s=777", dnames[k]);
        t_ok(has(opts, want), "row %s: its field under -D%s (%s)", clsort__param_keys[k],
             dnames[k], opts);
    }
}

static void test_param_table_docs(void)
{
    FILE *f = fopen("docs/tuning.md", "r");
    if (!f) {
        t_skip("docs/tuning.md not found (run from the repository root)");
        return;
    }
    static char doc[1 << 16];
    const size_t len = fread(doc, 1, sizeof doc - 1, f);
    doc[len] = 0;
    fclose(f);
#define ROW_DOC(name, DNAME, min, max, pow2, tune_lo, tune_hi, key, what)                      \
    t_ok(has(doc, "| `" key "` | " #DNAME " | " what " |"),                                     \
         "docs/tuning.md lists row %s as | `key` | -D name | meaning |", key);
    CLSORT_PARAM_TABLE(ROW_DOC)
#undef ROW_DOC
}

int main(void)
{
    t_init("test_config");
    snprintf(root, sizeof root, "/tmp/clsort-test-config-XXXXXX");
    if (!mkdtemp(root))
        t_bail("mkdtemp failed");
    snprintf(conf_dir, sizeof conf_dir, "%s/conf", root);
    mkdirs(conf_dir);
    char cache[512], home[512];
    snprintf(cache, sizeof cache, "%s/cache", root);
    snprintf(home, sizeof home, "%s/home", root);
    mkdirs(home);
    setenv("CLSORT_CONFIG_DIR", conf_dir, 1);
    setenv("CLSORT_CACHE_DIR", cache, 1);
    setenv("HOME", home, 1);
    unsetenv("XDG_CONFIG_HOME");
    unsetenv("XDG_CACHE_HOME");

    clsort_ctx *ctx = t_create_ctx();
    clsort_get_device_info(ctx, &dev);
    snprintf(dev_name, sizeof dev_name, "%s", dev.name);
    snprintf(dev_vendor, sizeof dev_vendor, "%s", dev.vendor);
    snprintf(dev_driver, sizeof dev_driver, "%s", dev.driver);
    char v[200], n[200];
    t_normalise(dev.vendor, v, sizeof v);
    t_normalise(dev.name, n, sizeof n);
    snprintf(file_name, sizeof file_name, "%s--%s.ini", v, n);
    t_diag("config file name: %s", file_name);
    clsort_destroy(ctx);

    test_no_file();
    test_valid();
    test_size_ranges();
    test_out_of_range();
    test_param_table_config();
    test_param_table_options();
    test_param_table_docs();
    test_radix_keys();
    test_corrupt();
    test_chain();
    test_list();

    t_remove_tree(root);
    return t_done();
}
