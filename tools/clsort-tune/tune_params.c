/* tune_params.c - the tuner's view of the kernel build parameters: their fields, names and search
 * ranges, all from the library's CLSORT_PARAM_TABLE (include/clsort.h), so that a parameter the
 * library gains is searched, compared, printed and written to the config without a change here. */
#include "tune.h"

#include <stddef.h>
#include <string.h>

static const size_t offsets[CLSORT_NPARAMS] = {
#define TUNE_X(name, DNAME, min, max, pow2, tune_lo, tune_hi, key, what) \
    offsetof(clsort_params, name),
    CLSORT_PARAM_TABLE(TUNE_X)
#undef TUNE_X
};
static const char *const keys[CLSORT_NPARAMS] = {
#define TUNE_X(name, DNAME, min, max, pow2, tune_lo, tune_hi, key, what) key,
    CLSORT_PARAM_TABLE(TUNE_X)
#undef TUNE_X
};
static const unsigned lo[CLSORT_NPARAMS] = {
#define TUNE_X(name, DNAME, min, max, pow2, tune_lo, tune_hi, key, what) tune_lo,
    CLSORT_PARAM_TABLE(TUNE_X)
#undef TUNE_X
};
static const unsigned hi[CLSORT_NPARAMS] = {
#define TUNE_X(name, DNAME, min, max, pow2, tune_lo, tune_hi, key, what) tune_hi,
    CLSORT_PARAM_TABLE(TUNE_X)
#undef TUNE_X
};

unsigned *tune_param(clsort_params *p, int a)
{
    return (unsigned *)((char *)p + offsets[a]);
}

unsigned tune_param_of(const clsort_params *p, int a)
{
    return *(const unsigned *)((const char *)p + offsets[a]);
}

const char *tune_param_key(int a)
{
    return keys[a];
}

unsigned tune_param_lo(int a)
{
    return lo[a];
}

unsigned tune_param_hi(int a)
{
    return hi[a];
}

int tune_same_params(const clsort_params *a, const clsort_params *b)
{
    for (int k = 0; k < CLSORT_NPARAMS; ++k)
        if (tune_param_of(a, k) != tune_param_of(b, k))
            return 0;
    return 1;
}

const char *tune_params_text(const clsort_params *p, char *out, size_t out_size)
{
    size_t at = 0;
    out[0] = 0;
    for (int k = 0; k < CLSORT_NPARAMS && at < out_size; ++k)
        at += (size_t)snprintf(out + at, out_size - at, "%s%s=%u", k ? " " : "", keys[k],
                               tune_param_of(p, k));
    return out;
}

void tune_write_params(FILE *f, const clsort_params *p)
{
    for (int k = 0; k < CLSORT_NPARAMS; ++k)
        fprintf(f, "%s = %u\n", keys[k], tune_param_of(p, k));
}

void tune_print_params(FILE *f, const clsort_params *p)
{
    for (int k = 0; k < CLSORT_NPARAMS; ++k) {
        /* A column as wide as its key, and at least 6: a tile of 16384 fits. */
        const int width = strlen(keys[k]) > 6 ? (int)strlen(keys[k]) : 6;
        if (p)
            fprintf(f, " %*u", width, tune_param_of(p, k));
        else
            fprintf(f, " %*s", width, keys[k]);
    }
}
