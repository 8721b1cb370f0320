/* test_errors.c - the error paths of the public API, as carefully as the success paths: bad
 * arguments give CLSORT_ERR_INVALID_ARG and leave the data untouched, unknown devices give
 * CLSORT_ERR_NO_DEVICE and a NULL context, status names and messages, clsort_last_error, the
 * parameter checks of clsort_set_params, and the small helpers (names, parsing, versions). */
#include "test_util.h"

#include <ctype.h>

#define N 100

static clsort_ctx *ctx;
static uint64_t keys[N], keys0[N], vals[N], vals0[N];

static void reset_data(void)
{
    t_rng r = t_rng_for(1, 2, 3, 4);
    for (size_t i = 0; i < N; ++i) {
        keys[i] = keys0[i] = t_rand64(&r);
        vals[i] = vals0[i] = i;
    }
}

static int untouched(void)
{
    return memcmp(keys, keys0, sizeof keys) == 0 && memcmp(vals, vals0, sizeof vals) == 0;
}

/* Checks that a call returned CLSORT_ERR_INVALID_ARG without touching the data. */
#define EXPECT_INVALID(call, ...)                                                                 \
    do {                                                                                          \
        reset_data();                                                                             \
        const int rc_ = (call);                                                                   \
        t_is_status(rc_, CLSORT_ERR_INVALID_ARG, __VA_ARGS__);                                    \
        t_ok(untouched(), "... and the data is untouched");                                      \
    } while (0)

static void test_names(void)
{
    /* Every status of the X-macro list: name and message as the header defines them. */
#define CHECK_STATUS_(name, value, msg)                                                           \
    t_is_str(clsort_strerror(value), msg, "clsort_strerror(CLSORT_" #name ")");                   \
    t_is_str(clsort_status_name(value), #name, "clsort_status_name(CLSORT_" #name ")");
    CLSORT_STATUS_MAP(CHECK_STATUS_)
#undef CHECK_STATUS_
    t_is_int(CLSORT_OK, 0, "CLSORT_OK is 0");
    static const int unknown[] = {1, -7, 12345, -100000};
    for (size_t i = 0; i < sizeof unknown / sizeof *unknown; ++i) {
        t_is_str(clsort_strerror(unknown[i]), "unknown status", "clsort_strerror(%d)", unknown[i]);
        t_is_str(clsort_status_name(unknown[i]), "UNKNOWN", "clsort_status_name(%d)", unknown[i]);
    }

    /* The contract's values, names and sizes, written out (not from the key-type table). */
    static const char *const tnames[] = {"u32", "i32", "f32", "u64", "i64", "f64",
                                         "u8",  "i8",  "u16", "i16", "f16", "bf16"};
    static const int tsizes[] = {4, 4, 4, 8, 8, 8, 1, 1, 2, 2, 2, 2};
    t_ok(CLSORT_U8 == 6 && CLSORT_I8 == 7 && CLSORT_U16 == 8 && CLSORT_I16 == 9 &&
             CLSORT_F16 == 10 && CLSORT_BF16 == 11 && CLSORT_NAN_LARGEST == 8u,
         "CLSORT_U8 .. CLSORT_BF16 are 6 .. 11, CLSORT_NAN_LARGEST is 8u");
    for (int t = 0; t < 12; ++t) {
        clsort_type parsed = (clsort_type)99;
        t_is_str(clsort_type_name((clsort_type)t), tnames[t], "clsort_type_name(%d)", t);
        t_is_int((long long)clsort_type_size((clsort_type)t), tsizes[t],
                 "clsort_type_size(%s)", tnames[t]);
        t_ok(clsort_type_parse(tnames[t], &parsed) == 0 && parsed == (clsort_type)t,
             "clsort_type_parse(\"%s\")", tnames[t]);
    }
    t_is_str(clsort_type_name((clsort_type)12), "unknown", "clsort_type_name(12) is \"unknown\"");
    t_is_str(clsort_type_name((clsort_type)99), "unknown", "clsort_type_name(99) is \"unknown\"");
    t_is_str(clsort_type_name((clsort_type)-1), "unknown", "clsort_type_name(-1) is \"unknown\"");
    t_is_int((long long)clsort_type_size((clsort_type)12), 0, "clsort_type_size of a bad type");
    t_is_int((long long)clsort_type_size((clsort_type)-1), 0, "clsort_type_size((clsort_type)-1)");
    clsort_type tdummy = CLSORT_U32;
    t_is_int(clsort_type_parse("u24", &tdummy), -1, "clsort_type_parse(\"u24\") fails");
    t_is_int(clsort_type_parse("", &tdummy), -1, "clsort_type_parse(\"\") fails");

    static const char *const anames[] = {"auto", "bitonic", "odd-even-merge",
                                         "odd-even-transposition", "radix"};
    for (int a = 0; a < 5; ++a) {
        clsort_algorithm parsed = (clsort_algorithm)99;
        t_is_str(clsort_algorithm_name((clsort_algorithm)a), anames[a],
                 "clsort_algorithm_name(%d)", a);
        t_ok(clsort_algorithm_parse(anames[a], &parsed) == 0 && parsed == (clsort_algorithm)a,
             "clsort_algorithm_parse(\"%s\")", anames[a]);
    }
    t_is_str(clsort_algorithm_name((clsort_algorithm)5), "unknown",
             "clsort_algorithm_name(5) is \"unknown\"");
    t_ok(CLSORT_RADIX == 4, "CLSORT_RADIX is appended after the networks (4)");
    t_is_str(clsort_algorithm_name((clsort_algorithm)99), "unknown",
             "clsort_algorithm_name(99) is \"unknown\"");
    t_is_str(clsort_algorithm_name((clsort_algorithm)-1), "unknown",
             "clsort_algorithm_name(-1) is \"unknown\"");
    clsort_algorithm adummy = CLSORT_AUTO;
    t_is_int(clsort_algorithm_parse("quick", &adummy), -1, "clsort_algorithm_parse(\"quick\")");

    t_is_int(clsort_version_number(), CLSORT_VERSION_NUMBER, "clsort_version_number()");
    t_is_str(clsort_version_string(), CLSORT_VERSION_STRING, "clsort_version_string()");
}

static int count_gpus_cb_gpus;
static int count_default;
static void count_cb(const clsort_device_info *info, int is_default, void *user)
{
    (void)user;
    if (info && info->type && !strcmp(info->type, "gpu"))
        ++count_gpus_cb_gpus;
    count_default += is_default != 0;
}

static void test_create(void)
{
    t_is_status(clsort_create(NULL, NULL), CLSORT_ERR_INVALID_ARG, "clsort_create(NULL, NULL)");

    clsort_ctx *c = (clsort_ctx *)&c; /* garbage that must become NULL */
    t_is_status(clsort_create(&c, "no such device, surely"), CLSORT_ERR_NO_DEVICE,
                "clsort_create with an unknown device name");
    t_ok(c == NULL, "... and *ctx is NULL");
    c = (clsort_ctx *)&c;
    t_is_status(clsort_create(&c, "99:0"), CLSORT_ERR_NO_DEVICE, "clsort_create(\"99:0\")");
    t_ok(c == NULL, "... and *ctx is NULL");
    c = (clsort_ctx *)&c;
    t_is_status(clsort_create(&c, "0:999"), CLSORT_ERR_NO_DEVICE, "clsort_create(\"0:999\")");
    t_ok(c == NULL, "... and *ctx is NULL");

    const int ndev = clsort_list_devices(count_cb, NULL);
    t_ok(ndev >= 1, "clsort_list_devices finds a device (%d)", ndev);
    t_is_int(count_default, 1, "exactly one device is the default");
    if (count_gpus_cb_gpus == 0) {
        c = (clsort_ctx *)&c;
        t_is_status(clsort_create(&c, "gpu"), CLSORT_ERR_NO_DEVICE,
                    "clsort_create(\"gpu\") without a GPU");
        t_ok(c == NULL, "... and *ctx is NULL");
    }

    /* The device by index, and by a part of its name in another case. */
    clsort_device_info info;
    if (clsort_get_device_info(ctx, &info) == CLSORT_OK && info.name && strlen(info.name) >= 3) {
        char spec[32], part[64];
        snprintf(spec, sizeof spec, "%u:%u", info.platform_index, info.device_index);
        c = NULL;
        t_is_status(clsort_create(&c, spec), CLSORT_OK, "clsort_create(\"%s\")", spec);
        clsort_destroy(c);
        const size_t len = strlen(info.name), take = len < 8 ? len : 8;
        for (size_t i = 0; i < take; ++i) {
            const unsigned char ch = (unsigned char)info.name[len / 2 - take / 2 + i];
            part[i] = (char)(i & 1 ? toupper(ch) : tolower(ch));
        }
        part[take] = 0;
        c = NULL;
        t_is_status(clsort_create(&c, part), CLSORT_OK,
                    "clsort_create(\"%s\"), a part of \"%s\" in another case", part, info.name);
        clsort_destroy(c);
        c = NULL;
        t_is_status(clsort_create(&c, info.type), CLSORT_OK, "clsort_create(\"%s\")", info.type);
        clsort_destroy(c);
    }
    clsort_destroy(NULL);
    t_ok(1, "clsort_destroy(NULL) is a no-op");
}

static void test_sort_args(void)
{
    const clsort_algorithm bit = CLSORT_BITONIC;
    const unsigned nf = CLSORT_NO_HOST_FALLBACK;

    t_is_str(clsort_last_error(ctx), "", "clsort_last_error is \"\" before any failure");
    t_ok(clsort_last_error(NULL) != NULL && *clsort_last_error(NULL),
         "clsort_last_error(NULL) gives a static message (\"%s\")",
         clsort_last_error(NULL) ? clsort_last_error(NULL) : "(null)");
    t_ok(clsort_warnings(ctx) != NULL, "clsort_warnings is not NULL");

    EXPECT_INVALID(clsort_sort(NULL, keys, N, CLSORT_U64, bit, 0), "clsort_sort with NULL ctx");
    EXPECT_INVALID(clsort_sort(ctx, NULL, N, CLSORT_U64, bit, 0), "clsort_sort with NULL keys");
    EXPECT_INVALID(clsort_sort(ctx, keys, N, (clsort_type)12, bit, 0), "clsort_sort, type 12");
    t_ok(*clsort_last_error(ctx) != 0, "clsort_last_error is set after a failure: \"%s\"",
         clsort_last_error(ctx));
    EXPECT_INVALID(clsort_sort(ctx, keys, N, (clsort_type)-1, bit, 0), "clsort_sort, type -1");
    EXPECT_INVALID(clsort_sort(ctx, keys, N, CLSORT_U64, (clsort_algorithm)5, 0),
                   "clsort_sort, algorithm 4");
    EXPECT_INVALID(clsort_sort(ctx, keys, N, CLSORT_U64, (clsort_algorithm)-1, 0),
                   "clsort_sort, algorithm -1");
    EXPECT_INVALID(clsort_sort(ctx, keys, N, CLSORT_U64, bit, 16), "clsort_sort, flag 16");
    EXPECT_INVALID(clsort_sort(ctx, keys, N, CLSORT_U64, bit, CLSORT_DESCENDING | 0x80000000u),
                   "clsort_sort, flag bit 31");
    EXPECT_INVALID(clsort_sort(ctx, keys, 1, CLSORT_U64, bit, 32), "clsort_sort, n 1, flag 32");

    t_is_status(clsort_sort(ctx, NULL, 0, CLSORT_U32, bit, nf), CLSORT_OK,
                "clsort_sort with NULL keys and n 0");
    t_is_status(clsort_sort(ctx, NULL, 0, CLSORT_F64, CLSORT_AUTO, CLSORT_DESCENDING), CLSORT_OK,
                "clsort_sort with NULL keys and n 0, f64 descending");
    reset_data();
    t_is_status(clsort_sort(ctx, keys, 1, CLSORT_F32, CLSORT_ODD_EVEN_TRANSPOSITION, nf),
                CLSORT_OK, "clsort_sort with n 1");
    t_ok(untouched(), "... leaves the key as it was");

    /* Pairs. */
    EXPECT_INVALID(clsort_sort_pairs(NULL, keys, vals, 8, N, CLSORT_U64, bit, 0),
                   "clsort_sort_pairs with NULL ctx");
    EXPECT_INVALID(clsort_sort_pairs(ctx, NULL, vals, 8, N, CLSORT_U64, bit, 0),
                   "clsort_sort_pairs with NULL keys");
    EXPECT_INVALID(clsort_sort_pairs(ctx, keys, NULL, 8, N, CLSORT_U64, bit, 0),
                   "clsort_sort_pairs with NULL values");
    static const size_t bad_vsize[] = {0, 1, 2, 3, 5, 16};
    for (size_t i = 0; i < sizeof bad_vsize / sizeof *bad_vsize; ++i)
        EXPECT_INVALID(clsort_sort_pairs(ctx, keys, vals, bad_vsize[i], N, CLSORT_U64, bit, 0),
                       "clsort_sort_pairs, value_size %zu", bad_vsize[i]);
    EXPECT_INVALID(clsort_sort_pairs(ctx, keys, vals, 8, N, (clsort_type)13, bit, 0),
                   "clsort_sort_pairs, type 13");
    EXPECT_INVALID(clsort_sort_pairs(ctx, keys, vals, 8, N, CLSORT_U64, (clsort_algorithm)9, 0),
                   "clsort_sort_pairs, algorithm 9");
    EXPECT_INVALID(clsort_sort_pairs(ctx, keys, vals, 8, N, CLSORT_U64, bit, 64),
                   "clsort_sort_pairs, flag 64");
    t_is_status(clsort_sort_pairs(ctx, NULL, NULL, 4, 0, CLSORT_I32, bit, nf), CLSORT_OK,
                "clsort_sort_pairs with NULL keys and values and n 0");
    reset_data();
    t_is_status(clsort_sort_pairs(ctx, keys, vals, 8, 1, CLSORT_I64, bit, nf), CLSORT_OK,
                "clsort_sort_pairs with n 1");
    t_ok(untouched(), "... leaves the pair as it was");

    /* Batches. */
    EXPECT_INVALID(clsort_sort_batch(NULL, keys, 10, 10, CLSORT_U64, bit, 0),
                   "clsort_sort_batch with NULL ctx");
    EXPECT_INVALID(clsort_sort_batch(ctx, NULL, 10, 10, CLSORT_U64, bit, 0),
                   "clsort_sort_batch with NULL keys");
    EXPECT_INVALID(clsort_sort_batch(ctx, keys, 10, 10, (clsort_type)12, bit, 0),
                   "clsort_sort_batch, type 6");
    EXPECT_INVALID(clsort_sort_batch(ctx, keys, 10, 10, CLSORT_U64, (clsort_algorithm)5, 0),
                   "clsort_sort_batch, algorithm 4");
    EXPECT_INVALID(clsort_sort_batch(ctx, keys, 10, 10, CLSORT_U64, bit, 16),
                   "clsort_sort_batch, flag 16");
    reset_data();
    t_is_status(clsort_sort_batch(ctx, keys, 10, 10, CLSORT_U64, bit, CLSORT_STABLE),
                CLSORT_ERR_UNSUPPORTED, "clsort_sort_batch with CLSORT_STABLE is unsupported");
    t_ok(untouched(), "... and the data is untouched");
    t_is_status(clsort_sort_batch(ctx, NULL, 0, 10, CLSORT_U32, bit, 0), CLSORT_OK,
                "clsort_sort_batch with n 0");
    t_is_status(clsort_sort_batch(ctx, NULL, 10, 0, CLSORT_U32, bit, 0), CLSORT_OK,
                "clsort_sort_batch with count 0");

    /* Buffers (the argument checks come before any OpenCL work). */
    t_is_status(clsort_sort_buffer(NULL, NULL, NULL, 0, 10, CLSORT_U32, bit, 0, 0, NULL, NULL),
                CLSORT_ERR_INVALID_ARG, "clsort_sort_buffer with NULL ctx");
    t_is_status(clsort_sort_buffer(ctx, NULL, NULL, 0, 10, CLSORT_U32, bit, 0, 0, NULL, NULL),
                CLSORT_ERR_INVALID_ARG, "clsort_sort_buffer with NULL keys and n 10");

    /* Introspection with bad arguments. */
    clsort_params p;
    clsort_stats st;
    clsort_device_info info;
    t_is_status(clsort_get_params(NULL, bit, CLSORT_U32, 0, &p), CLSORT_ERR_INVALID_ARG,
                "clsort_get_params with NULL ctx");
    t_is_status(clsort_get_params(ctx, bit, CLSORT_U32, 0, NULL), CLSORT_ERR_INVALID_ARG,
                "clsort_get_params with NULL params");
    t_is_status(clsort_get_params(ctx, CLSORT_AUTO, CLSORT_U32, 0, &p), CLSORT_ERR_INVALID_ARG,
                "clsort_get_params for AUTO");
    t_is_status(clsort_get_params(ctx, bit, (clsort_type)12, 0, &p), CLSORT_ERR_INVALID_ARG,
                "clsort_get_params, type 6");
    t_is_status(clsort_get_params(ctx, bit, CLSORT_U32, 3, &p), CLSORT_ERR_INVALID_ARG,
                "clsort_get_params, value_size 3");
    t_is_status(clsort_get_stats(NULL, &st), CLSORT_ERR_INVALID_ARG,
                "clsort_get_stats with NULL ctx");
    t_is_status(clsort_get_stats(ctx, NULL), CLSORT_ERR_INVALID_ARG,
                "clsort_get_stats with NULL stats");
    t_is_status(clsort_get_device_info(NULL, &info), CLSORT_ERR_INVALID_ARG,
                "clsort_get_device_info with NULL ctx");
    t_is_status(clsort_get_device_info(ctx, NULL), CLSORT_ERR_INVALID_ARG,
                "clsort_get_device_info with NULL info");
}

/* Makes clsort_last_error hold a known, unrelated text: a sort with a bad type. */
static void stale_error(void)
{
    clsort_sort(ctx, keys, N, (clsort_type)12, CLSORT_BITONIC, 0);
}

/* A call with a NULL (or too small) output argument on a real context fails and records its
 * own reason: clsort_last_error names the call, not the earlier failure. */
#define EXPECT_OWN_ERROR(fn, call)                                                               \
    do {                                                                                         \
        stale_error();                                                                           \
        const int rc_ = (call);                                                                  \
        t_is_status(rc_, CLSORT_ERR_INVALID_ARG, "%s", #call);                                   \
        t_ok(strstr(clsort_last_error(ctx), fn) != NULL,                                         \
             "... and clsort_last_error names %s: \"%s\"", fn, clsort_last_error(ctx));          \
    } while (0)

static void test_null_outputs(void)
{
    char small[4];
    EXPECT_OWN_ERROR("clsort_get_stats", clsort_get_stats(ctx, NULL));
    EXPECT_OWN_ERROR("clsort_get_device_info", clsort_get_device_info(ctx, NULL));
    EXPECT_OWN_ERROR("clsort_config_path", clsort_config_path(ctx, NULL, 100));
    EXPECT_OWN_ERROR("clsort_config_path", clsort_config_path(ctx, small, 0));
    EXPECT_OWN_ERROR("clsort_config_path", clsort_config_path(ctx, small, sizeof small));
    t_is_str(small, "", "... and a buffer too small is left empty");
    EXPECT_OWN_ERROR("clsort_get_params", clsort_get_params(ctx, CLSORT_BITONIC, CLSORT_U32, 0, NULL));
    clsort_params p;
    EXPECT_OWN_ERROR("clsort_get_params", clsort_get_params(ctx, CLSORT_AUTO, CLSORT_U32, 0, &p));
    EXPECT_OWN_ERROR("clsort_get_params_for_size",
                     clsort_get_params_for_size(ctx, CLSORT_BITONIC, CLSORT_U32, 0, 100, NULL));
    EXPECT_OWN_ERROR("clsort_get_host_fallback_max", clsort_get_host_fallback_max(ctx, NULL));

    /* No directory at all: HOME and the variables unset. */
    const char *vars[] = {"CLSORT_CONFIG_DIR", "XDG_CONFIG_HOME", "HOME"};
    char *saved[3];
    for (int i = 0; i < 3; ++i) {
        const char *v = getenv(vars[i]);
        saved[i] = v ? strdup(v) : NULL;
        unsetenv(vars[i]);
    }
    char path[1024];
    EXPECT_OWN_ERROR("clsort_config_path", clsort_config_path(ctx, path, sizeof path));
    t_ok(strstr(clsort_last_error(ctx), "directory") != NULL, "... saying no directory");
    for (int i = 0; i < 3; ++i)
        if (saved[i]) {
            setenv(vars[i], saved[i], 1);
            free(saved[i]);
        }
}

static int same_params(const clsort_params *a, const clsort_params *b)
{
    return a->wg_size == b->wg_size && a->vec_step == b->vec_step && a->tile == b->tile &&
           a->keys_per_item == b->keys_per_item;
}

/* One rejected parameter set: CLSORT_ERR_INVALID_ARG and nothing changed. */
static void expect_rejected(clsort_algorithm algo, clsort_type type, size_t vsize,
                            clsort_params bad, const char *why)
{
    clsort_params before, after;
    clsort_get_params(ctx, algo, type, vsize, &before);
    t_is_status(clsort_set_params(ctx, algo, type, vsize, &bad), CLSORT_ERR_INVALID_ARG,
                "clsort_set_params rejects %s for %s %s (%u, %u, %u, %u)", why, t_algo_name(algo),
                t_type_name(type), bad.wg_size, bad.vec_step, bad.tile, bad.keys_per_item);
    clsort_get_params(ctx, algo, type, vsize, &after);
    t_ok(same_params(&before, &after), "... and the parameters did not change");
}

static void test_params(void)
{
    clsort_device_info info;
    if (clsort_get_device_info(ctx, &info) != CLSORT_OK) {
        t_ok(0, "clsort_get_device_info");
        return;
    }
    for (unsigned ai = 1; ai < T_NALGOS; ++ai) {
        const clsort_algorithm algo = t_algos[ai];
        clsort_params def;
        t_is_status(clsort_get_params(ctx, algo, CLSORT_U64, 8, &def), CLSORT_OK,
                    "clsort_get_params %s u64 + 8-byte values", t_algo_name(algo));
        t_ok(def.wg_size >= 1 && def.wg_size <= info.max_work_group && def.tile >= 2 &&
                 (def.tile & (def.tile - 1)) == 0 && def.keys_per_item >= 2 &&
                 def.keys_per_item <= 32 && (def.keys_per_item & (def.keys_per_item - 1)) == 0 &&
                 def.vec_step >= 1,
             "... are in range: wg %u (max %zu), vec %u, tile %u, kpi %u", def.wg_size,
             info.max_work_group, def.vec_step, def.tile, def.keys_per_item);

        clsort_params p = def;
        p.tile = 3;
        expect_rejected(algo, CLSORT_U32, 0, p, "a tile of 3");
        p.tile = def.tile + def.tile / 2;
        expect_rejected(algo, CLSORT_U32, 0, p, "a tile that is not a power of two");
        p = def;
        p.wg_size = (unsigned)info.max_work_group + 1;
        expect_rejected(algo, CLSORT_U32, 0, p, "a wg_size above the device maximum");
        p.wg_size = (unsigned)info.max_work_group * 4;
        expect_rejected(algo, CLSORT_U32, 4, p, "a wg_size 4 times the device maximum");
        if (algo != CLSORT_ODD_EVEN_MERGE && info.max_work_group >= 48) {
            /* 1024 / 48 = 21 keys a work-item: the tile passes need a power of two. */
            p.wg_size = 48;
            p.tile = 1024;
            expect_rejected(algo, CLSORT_U32, 0, p, "a wg_size of 48 with a shared tile");
        }
        p = def;
        p.keys_per_item = 3;
        expect_rejected(algo, CLSORT_U64, 0, p, "keys_per_item 3");
        p.keys_per_item = 64;
        expect_rejected(algo, CLSORT_U64, 0, p, "keys_per_item 64");
        p.keys_per_item = 1;
        expect_rejected(algo, CLSORT_U64, 0, p, "keys_per_item 1");
        /* A tile whose keys and values (16 bytes a pair) need at least twice the local memory. */
        p = def;
        unsigned tile = 2;
        while ((uint64_t)tile * 16 < 2 * info.local_mem && tile < (1u << 30))
            tile <<= 1;
        p.tile = tile;
        expect_rejected(algo, CLSORT_U64, 8, p, "a tile overflowing local memory");
        p = def;
        p.tile = 1u << 31;
        expect_rejected(algo, CLSORT_F64, 8, p, "a tile of 2^31");

        t_is_status(clsort_set_params(NULL, algo, CLSORT_U32, 0, &def), CLSORT_ERR_INVALID_ARG,
                    "clsort_set_params with NULL ctx");
        t_is_status(clsort_set_params(ctx, algo, CLSORT_U32, 0, NULL), CLSORT_ERR_INVALID_ARG,
                    "clsort_set_params with NULL params");
        t_is_status(clsort_set_params(ctx, CLSORT_AUTO, CLSORT_U32, 0, &def),
                    CLSORT_ERR_INVALID_ARG, "clsort_set_params for AUTO");
        t_is_status(clsort_set_params(ctx, algo, (clsort_type)12, 0, &def), CLSORT_ERR_INVALID_ARG,
                    "clsort_set_params, type 6");
        t_is_status(clsort_set_params(ctx, algo, CLSORT_U32, 2, &def), CLSORT_ERR_INVALID_ARG,
                    "clsort_set_params, value_size 2");

        /* A valid set is taken, used, and zeros restore the configured values. */
        const clsort_params small = {2, 1, 8, 4};
        clsort_params got, restored;
        t_is_status(clsort_set_params(ctx, algo, CLSORT_U64, 8, &small), CLSORT_OK,
                    "clsort_set_params takes {2, 1, 8, 4} for %s", t_algo_name(algo));
        clsort_get_params(ctx, algo, CLSORT_U64, 8, &got);
        t_ok(same_params(&got, &small), "... and clsort_get_params returns it (%u, %u, %u, %u)",
             got.wg_size, got.vec_step, got.tile, got.keys_per_item);
        uint64_t k[37], v[37];
        for (size_t i = 0; i < 37; ++i) {
            k[i] = (i * 7919u) % 37;
            v[i] = k[i] * 3;
        }
        int sorted = clsort_sort_pairs(ctx, k, v, 8, 37, CLSORT_U64, algo,
                                       CLSORT_NO_HOST_FALLBACK) == CLSORT_OK;
        for (size_t i = 0; sorted && i < 37; ++i)
            sorted = k[i] == i && v[i] == 3 * i;
        t_ok(sorted, "... and a sort with it works");
        const clsort_params zero = {0, 0, 0, 0};
        t_is_status(clsort_set_params(ctx, algo, CLSORT_U64, 8, &zero), CLSORT_OK,
                    "clsort_set_params with zeros");
        clsort_get_params(ctx, algo, CLSORT_U64, 8, &restored);
        t_ok(same_params(&restored, &def), "... restores the configured values");
    }
}

int main(void)
{
    t_init("test_errors");
    ctx = t_create_ctx();
    test_names();
    test_sort_args();
    test_create();
    test_params();
    test_null_outputs();

    /* Last, since a library bug here may crash: sizes whose byte counts overflow size_t must
     * fail cleanly, without touching the keys. */
    reset_data();
    const size_t huge = SIZE_MAX / 4 + 1; /* huge * 4 wraps to 0 */
    const int rc = clsort_sort(ctx, keys, huge, CLSORT_U32, CLSORT_BITONIC, 0);
    t_ok(rc != CLSORT_OK, "clsort_sort with n = SIZE_MAX/4 + 1 fails (%s)",
         clsort_status_name(rc));
    t_ok(untouched(), "... and the data is untouched");
    clsort_destroy(ctx);
    return t_done();
}
