/* fuzz_config.c - libFuzzer harness for the tuned-config parser: host/planning/config.c is compiled into
 * this file (its parser is static), and every input is read by try_file() exactly as a context
 * reads a config file: inih, the section/key handler, the per-section checks against a device's
 * limits, and the warnings. Properties checked: no crash or sanitizer report, every parameter set
 * that is taken passes clsort__check_params, AUTO rules have increasing sizes, and the host
 * fallback size stays within its limit. */
#define _GNU_SOURCE
#include "../../host/planning/config.c"

#include <unistd.h>

static char path[256];
static clsort__device dev;

static void remove_file(void)
{
    unlink(path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *dir = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/clsort-fuzz-config-%ld.ini", dir && *dir ? dir : "/tmp",
             (long)getpid());
    atexit(remove_file);
    /* A device like PoCL's CPU device, so that the limits checks take their usual paths. */
    snprintf(dev.name, sizeof dev.name, "cpu-haswell-AMD EPYC 7B13");
    snprintf(dev.vendor, sizeof dev.vendor, "AuthenticAMD");
    snprintf(dev.driver, sizeof dev.driver, "3.1+debian");
    dev.type = CL_DEVICE_TYPE_CPU;
    dev.compute_units = 2;
    dev.global_mem = (cl_ulong)8 << 30;
    dev.max_alloc = (cl_ulong)2 << 30;
    dev.local_mem = 256 * 1024;
    dev.max_wg = 4096;
    dev.fp64 = 1;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return 0;
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    const size_t put = fwrite(data, 1, size, f);
    if (fclose(f) != 0 || put != size)
        return 0;

    /* A bare context: try_file only records warnings on it. */
    clsort_ctx *ctx = calloc(1, sizeof *ctx);
    config_values *out = malloc(sizeof *out);
    if (!ctx || !out) {
        free(ctx);
        free(out);
        return 0;
    }
    ctx->dev = dev;
    builtin_defaults(&dev, out);
    const int used = try_file(&dev, ctx, path, out);
    (void)used;
    for (int net = 0; net < CLSORT__NETWORKS; ++net)
        for (int w = 0; w < CLSORT__WIDTHS; ++w)
            for (int v = 0; v < CLSORT__VALKINDS; ++v) {
                char why[512];
                const clsort__variant var = {(clsort__network)net, w, v};
                if (clsort__check_params(&dev, &var, &out->params[net][w][v], why,
                                         sizeof why) != CLSORT_OK) {
                    fprintf(stderr, "config took parameters the checks refuse: %s\n", why);
                    abort();
                }
            }
    if (out->nrules < 0 || out->nrules > CLSORT__MAX_AUTO_RULES)
        abort();
    for (int i = 1; i < out->nrules; ++i)
        if (out->rules[i - 1].max_n >= out->rules[i].max_n)
            abort();
    for (int i = 0; i < out->nrules; ++i)
        if (clsort__network_index(out->rules[i].algo) < 0)
            abort();
    if (out->host_fallback_max > CLSORT__HOST_FALLBACK_LIMIT)
        abort();
    /* The warnings must be one line each and printable as a string. */
    const char *warnings = clsort_warnings(ctx);
    if (warnings && strlen(warnings) > ((size_t)1 << 20))
        abort();
    free(ctx->warnings);
    free(ctx->last_error);
    free(ctx);
    free(out);
    return 0;
}
