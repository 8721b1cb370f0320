/* test_manifest.c - the kernel manifest (kernels/manifest.h) and the kernels agree: each program
 * (the networks', the segmented sort's, the top-k's, the radix sort's),
 * assembled from the kernels/ files in the manifest's order and built with the options the host
 * makes for several parameter sets, holds exactly the kernels the manifest's table says for those
 * parameters (CLSORT_WHEN_* evaluated here, in C, on the same values the kernels' #if guards
 * saw), and each kernel takes the number of arguments of its list (CLSORT_NARGS_*). The host's
 * schedule names kernels only through that table (host/planning/schedule.c), so this is the check that its
 * names and the kernels' never drift. The files are read from kernels/ (the test runs from the
 * repository root), the device is the one clsort_create picks. */
#include "test_util.h"

#include "../kernels/manifest.h"
#include "params.h"

#include <CL/cl.h>

enum { P_BITONIC, P_ODD_EVEN_MERGE, P_TRANSPOSITION, P_SEGMENTED, P_TOPK, P_RADIX };
_Static_assert(CLSORT_IN_BITONIC == 1 << P_BITONIC && CLSORT_IN_SEGMENTED == 1 << P_SEGMENTED &&
                   CLSORT_IN_TOPK == 1 << P_TOPK && CLSORT_IN_RADIX == 1 << P_RADIX,
               "the manifest's programs are in another order");

/* The manifest's programs, with their parts as a list of base names. */
#define PART_NAME(base) #base,
#define PROGRAM_ROW(name, parts) {#name, CLSORT_IN_##name, {parts(PART_NAME) NULL}},
static const struct {
    const char *name;
    unsigned bit;
    const char *parts[16];
} programs[] = {CLSORT_PROGRAMS(PROGRAM_ROW)};

typedef clsort_params params;

/* Whether the manifest says a program built with p holds the kernel, and how many arguments. */
/* The conditions' names bound to p's fields by the parameter table, as the host binds them. */
#define BIND(name, DNAME, min, max, pow2, tune_lo, tune_hi, key, what) \
    const unsigned DNAME = p->name;                                   \
    (void)DNAME;
#define KERNEL_ROW(name, progs, args, shape, when) \
    {#name, progs, (CLSORT_WHEN_##when) != 0, CLSORT_NARGS_##args(vals)},
typedef struct expect {
    const char *name;
    unsigned programs;
    int built;
    int nargs;
} expect;
static int expected(const params *p, int vals, expect *out)
{
    CLSORT_PARAM_TABLE(BIND)
    const expect rows[] = {CLSORT_KERNELS(KERNEL_ROW)};
    const int n = (int)(sizeof rows / sizeof rows[0]);
    memcpy(out, rows, sizeof rows);
    return n;
}
#undef BIND

static char *read_part(const char *base, size_t *len)
{
    char path[256];
    FILE *f = NULL;
    static const char *const ext[] = {".cl", ".h"};
    for (int i = 0; i < 2 && !f; ++i) {
        snprintf(path, sizeof path, "kernels/%s%s", base, ext[i]);
        f = fopen(path, "rb");
    }
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    const long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)size + 1);
    if (buf && fread(buf, 1, (size_t)size, f) != (size_t)size) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf)
        buf[size] = 0;
    *len = (size_t)size;
    return buf;
}

/* The program's source: its parts in order, a newline after each (as host/programs/program.c makes it). */
static char *program_source(int prog)
{
    size_t total = 0;
    char *src = calloc(1, 1);
    for (int i = 0; src && programs[prog].parts[i]; ++i) {
        size_t len = 0;
        char *part = read_part(programs[prog].parts[i], &len);
        char *grown = part ? realloc(src, total + len + 2) : NULL;
        if (!grown) {
            t_diag("cannot read kernels/%s", programs[prog].parts[i]);
            free(part);
            free(src);
            return NULL;
        }
        src = grown;
        memcpy(src + total, part, len);
        total += len;
        src[total++] = '\n';
        src[total] = 0;
        free(part);
    }
    return src;
}

static int has_name(const char *list, const char *name)
{
    const size_t n = strlen(name);
    for (const char *s = list; *s;) {
        const char *e = strchr(s, ';');
        const size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len == n && !strncmp(s, name, n))
            return 1;
        s += len + (e ? 1 : 0);
    }
    return 0;
}

/* Builds program prog with these options and checks its kernels against the manifest. */
static void check_program(cl_context cl, cl_device_id dev, int prog, const params *p, int vals,
                          const char *options)
{
    char *src = program_source(prog);
    if (!src) {
        t_ok(0, "%s: source assembled from the manifest's parts", programs[prog].name);
        return;
    }
    const char *srcs[1] = {src};
    cl_int err;
    cl_program pr = clCreateProgramWithSource(cl, 1, srcs, NULL, &err);
    if (err == CL_SUCCESS)
        err = clBuildProgram(pr, 1, &dev, options, NULL, NULL);
    if (!t_ok(err == CL_SUCCESS, "%s builds with %s", programs[prog].name, options)) {
        size_t log_size = 0;
        clGetProgramBuildInfo(pr, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_size);
        char *log = malloc(log_size + 1);
        if (log && clGetProgramBuildInfo(pr, dev, CL_PROGRAM_BUILD_LOG, log_size, log, NULL) ==
                       CL_SUCCESS) {
            log[log_size] = 0;
            t_diag("%.2000s", log);
        }
        free(log);
        clReleaseProgram(pr);
        free(src);
        return;
    }
    size_t names_size = 0;
    clGetProgramInfo(pr, CL_PROGRAM_KERNEL_NAMES, 0, NULL, &names_size);
    char *names = calloc(1, names_size + 1);
    if (names)
        clGetProgramInfo(pr, CL_PROGRAM_KERNEL_NAMES, names_size, names, NULL);
    expect rows[64];
    const int nrows = expected(p, vals, rows);
    int want = 0, missing = 0, extra = 0, bad_args = 0;
    for (int i = 0; i < nrows; ++i) {
        const int in_prog = (rows[i].programs & programs[prog].bit) != 0;
        const int should = in_prog && rows[i].built;
        const int has = names && has_name(names, rows[i].name);
        want += should;
        if (should && !has) {
            t_diag("%s: the manifest names %s, the program lacks it", programs[prog].name,
                   rows[i].name);
            ++missing;
        }
        if (!should && has) {
            t_diag("%s: the program holds %s, the manifest says it %s", programs[prog].name,
                   rows[i].name, in_prog ? "is not built with these parameters" : "is not in it");
            ++extra;
        }
        if (should && has) {
            cl_kernel k = clCreateKernel(pr, rows[i].name, &err);
            cl_uint nargs = 0;
            if (err == CL_SUCCESS)
                clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL);
            if (err != CL_SUCCESS || (int)nargs != rows[i].nargs) {
                t_diag("%s: %s takes %u arguments, the manifest's list %d", programs[prog].name,
                       rows[i].name, nargs, rows[i].nargs);
                ++bad_args;
            }
            if (err == CL_SUCCESS)
                clReleaseKernel(k);
        }
    }
    /* Every kernel of the program is in the table (a kernel the table lacks entirely). */
    int listed = 0;
    for (const char *s = names ? names : ""; *s;) {
        const char *e = strchr(s, ';');
        const size_t len = e ? (size_t)(e - s) : strlen(s);
        ++listed;
        s += len + (e ? 1 : 0);
    }
    t_ok(!missing && !extra && !bad_args && listed == want,
         "%s (tile %u, wg %u, vec %u, keys/item %u, %s): %d kernels, as the manifest says",
         programs[prog].name, p->tile, p->wg_size, p->vec_step, p->keys_per_item,
         vals ? "pairs" : "keys", listed);
    free(names);
    clReleaseProgram(pr);
    free(src);
}

/* The manifest's lists of argument lists and shapes (CLSORT_ARG_LISTS, CLSORT_SHAPES), from which
 * the host's enums are made, name exactly the CLSORT_ARGS_* and CLSORT_SHAPE_* it defines, each
 * argument list with its count (CLSORT_NARGS_*: a list without one does not compile here). */
#define LIST_NAME(name) #name,
#define LIST_NARGS(name) CLSORT_NARGS_##name(1),
static int in_list(const char *const *list, int n, const char *name, size_t len)
{
    for (int i = 0; i < n; ++i)
        if (strlen(list[i]) == len && !strncmp(list[i], name, len))
            return 1;
    return 0;
}

static void check_defined(const char *src, const char *prefix, const char *const *list, int n)
{
    int found = 0;
    for (const char *at = strstr(src, prefix); at; at = strstr(at + 1, prefix)) {
        const char *name = at + strlen(prefix);
        size_t len = 0;
        while (name[len] == '_' || (name[len] >= 'A' && name[len] <= 'Z') ||
               (name[len] >= '0' && name[len] <= '9'))
            ++len;
        ++found;
        t_ok(in_list(list, n, name, len), "%s%.*s is in its manifest list", prefix + 8, (int)len,
             name);
    }
    t_is_int(found, n, "%s*: as many defined as the manifest's list names", prefix + 8);
}

static void check_lists(void)
{
    static const char *const args[] = {CLSORT_ARG_LISTS(LIST_NAME)};
    static const char *const shapes[] = {CLSORT_SHAPES(LIST_NAME)};
    static const int nargs[] = {CLSORT_ARG_LISTS(LIST_NARGS)};
    const int na = (int)(sizeof args / sizeof args[0]), ns = (int)(sizeof shapes / sizeof *shapes);
    t_is_int((long long)(sizeof nargs / sizeof nargs[0]), na, "every argument list has a count");
    t_is_int(CLSORT__ARGS_RADIX, na - 1, "the host's args enum follows CLSORT_ARG_LISTS");
    t_is_int(CLSORT__SHAPE_RADIX, ns - 1, "the host's shape enum follows CLSORT_SHAPES");
    size_t len;
    char *src = read_part("manifest", &len);
    if (!src) {
        t_ok(0, "kernels/manifest.h read");
        return;
    }
    check_defined(src, "#define CLSORT_ARGS_", args, na);
    check_defined(src, "#define CLSORT_SHAPE_", shapes, ns);
    free(src);
}

int main(void)
{
    t_init("test_manifest");
    check_lists();
    clsort_ctx *ctx = t_create_ctx();
    cl_command_queue q = clsort_get_queue(ctx);
    cl_context cl = NULL;
    cl_device_id dev = NULL;
    if (!q || clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof cl, &cl, NULL) != CL_SUCCESS ||
        clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL) != CL_SUCCESS)
        t_bail("no OpenCL context behind the clsort context");

    /* Parameter sets that turn each condition on and off: solo tiles with row tails and two
     * register levels (the CPU defaults); shared tiles with the wide passes and five register
     * levels; shared tiles with WG_SIZE < 16 (no wide pass); solo tiles without the tails and one
     * register level. Small tiles keep PoCL's compile short. */
    static const struct {
        params p;
        int vals;
        unsigned nets; /* bits of the network programs built with it */
    } sets[] = {
        {{64, 16, 16, 4}, 0, 1u << P_BITONIC | 1u << P_TRANSPOSITION},
        {{16, 1, 64, 32}, 4, 1u << P_BITONIC | 1u << P_ODD_EVEN_MERGE | 1u << P_TRANSPOSITION},
        {{8, 2, 64, 8}, 0, 1u << P_BITONIC | 1u << P_ODD_EVEN_MERGE},
        {{4, 16, 32, 2}, 8, 1u << P_BITONIC},
    };
    for (size_t s = 0; s < sizeof sets / sizeof sets[0]; ++s) {
        const params *p = &sets[s].p;
        for (int prog = P_BITONIC; prog <= P_TRANSPOSITION; ++prog) {
            if (!(sets[s].nets & 1u << prog))
                continue;
            /* The options the host makes for this plan (params.c, from the parameter table). */
            clsort__plan plan;
            memset(&plan, 0, sizeof plan);
            plan.program = (clsort__program_id)prog;
            plan.var = (clsort__variant){(clsort__network)prog, 0, sets[s].vals / 4};
            plan.index_bits = 64;
            plan.params = p;
            clsort__build_options(&plan);
            const char *options = plan.options;
            check_program(cl, dev, prog, p, sets[s].vals != 0, options);
        }
    }
    /* The segmented program, keys and pairs (its kernels exist whatever the parameters). */
    static const params none = {0, 0, 0, 0};
    check_program(cl, dev, P_SEGMENTED, &none, 0,
                  "-DCLSORT_SEG=1 -DSEG_NET=0 -DKEY_BITS=32 -DVAL_BYTES=0 -DSEG_TILE=256 "
                  "-DSEG_WG=64 -DSEG_STABLE=0 -DSEG_TINY_LOG=5");
    check_program(cl, dev, P_SEGMENTED, &none, 1,
                  "-DCLSORT_SEG=1 -DSEG_NET=1 -DKEY_BITS=64 -DVAL_BYTES=4 -DSEG_TILE=256 "
                  "-DSEG_WG=64 -DSEG_STABLE=1 -DSEG_TINY_LOG=5");
    /* The top-k program (all of its kernels always): the CPUs' one work-item a tile with packed
     * 32-bit items and indices out, and the GPUs' round-robin groups with 64-bit keys, 64-bit
     * indices and values carried (the two halves of topk.cl's #if TK_WG == 1). */
    check_program(cl, dev, P_TOPK, &none, 0,
                  "-DCLSORT_TOPK=1 -DKEY_BITS=32 -DVAL_BYTES=0 -DTK_OUT=4 -DTK_IDX_BITS=32 "
                  "-DTK_TILE=256 -DTK_WG=1");
    check_program(cl, dev, P_TOPK, &none, 1,
                  "-DCLSORT_TOPK=1 -DKEY_BITS=64 -DVAL_BYTES=8 -DTK_OUT=1 -DTK_IDX_BITS=64 "
                  "-DTK_TILE=256 -DTK_WG=64");
    /* The radix sort's program: 32-bit keys alone with 8-bit digits, and 64-bit keys with
     * 8-byte values, 64-bit indices and 4-bit digits (the split's other width). */
    check_program(cl, dev, P_RADIX, &none, 0,
                  "-DCLSORT_RADIX=1 -DKEY_BITS=32 -DVAL_BYTES=0 -DINDEX_BITS=32 -DRADIX_BITS=8 "
                  "-DRX_WG=64 -DRX_ITEMS=4 -DRX_PAD=1 -DRX_RAKE=1");
    check_program(cl, dev, P_RADIX, &none, 1,
                  "-DCLSORT_RADIX=1 -DKEY_BITS=64 -DVAL_BYTES=8 -DINDEX_BITS=64 -DRADIX_BITS=4 "
                  "-DRX_WG=32 -DRX_ITEMS=8 -DRX_PAD=0");
    clsort_destroy(ctx);
    return t_done();
}
