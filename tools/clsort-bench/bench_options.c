/* bench_options.c - clsort-bench's command line: the usage text, the defaults and the parser. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "clsort_messages.h"
#include "clsort_options.h"

static const bench_type bench_pair_types[] = {
    { "pairs32", CLSORT_U32, 4 },
    { "pairs64", CLSORT_U64, 8 },
};

static void print_usage(FILE *f)
{
    fputs("Usage: clsort-bench [OPTION]...\n"
          "Times clsort's sorting networks against qsort, std::sort and (built with libhwy)\n"
          "Highway's vqsort; data on stdout.\n"
          "  -d, --device DEV         device: gpu, cpu, P:D, or part of a name (default: best)\n"
          "  -t, --types LIST         u32,u64,f32,pairs32,pairs64 (default; also i32,i64,f64,\n"
          "                           u8,i8,u16,i16,f16,bf16)\n"
          "  -a, --algos LIST         auto,bitonic,odd-even-merge,odd-even-transposition (default;\n"
          "                           also radix)\n"
          "      --min-log N          smallest n = 2^N (default 10)\n"
          "      --max-log N          largest n = 2^N (default 28; lowered to what memory allows)\n"
          "      --transposition-max-log N\n"
          "                           odd-even transposition up to 2^N only (default 16): its\n"
          "                           passes grow as n^2 / tile\n"
          "      --cpu-max-log N      qsort, std::sort and vqsort up to 2^N only (default 24)\n"
          "  -n, --runs N             timed runs per point, median reported (default 5), after one\n"
          "                           warm-up run; fresh random data every run\n"
          "      --csv FILE           also write every point to FILE as CSV\n"
          "      --no-cpu             skip the qsort, std::sort and vqsort references\n"
          "      --host-alloc         end-to-end arrays in clsort_host_alloc (pinned) memory\n"
          "      --seed N             seed of the random data (default 1)\n"
          "      --segments           segmented mode: time clsort_sort_segments on segments of\n"
          "                           the sizes and mixes below against qsort of each segment\n"
          "                           (networks default to auto alone here)\n"
          "      --seg-log N          keys per segmented point: 2^N (default 20)\n"
          "      --seg-sizes LIST     segment lengths s (default 16,32,64,...,4096)\n"
          "      --seg-mixes LIST     equal,uniform,power (default all: equal lengths s, uniform\n"
          "                           in 1..2s, power-law 2^U(0..16))\n"
          "      --stable             segmented mode: pair types with CLSORT_STABLE, each value\n"
          "                           its key's input position, keys in 0..255 (many ties), and\n"
          "                           the values checked against the one stable order\n"
          "      --topk               top-k mode: device time of clsort_topk_buffer on rows x n\n"
          "                           in 1x2^24, 2^6x2^18, 2^10x2^14, 2^14x2^10, 2^16x2^8 and\n"
          "                           k in 1,8,32,128,1024 (types default to u32,f32 here)\n"
          "      --topk-scale S       divide each top-k cell's keys by 2^S, rows first (PoCL: 4)\n"
          "  -l, --list-devices       list OpenCL devices and exit\n"
          "  -q, --quiet              no progress or notes on stderr\n"
          "  -h, --help               print this help and exit\n"
          "  -V, --version            print the version and exit\n"
          "Exit status: 0 every result checked out, 1 a result was wrong or a sort failed, 2 usage\n"
          "error, 3 no such device or OpenCL set-up failed.\n",
          f);
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    const long v = strtol(s, &end, 0);
    if (errno || end == s || *end || v < lo || v > hi) return -1;
    *out = (int)v;
    return 0;
}

static int parse_types(bench_opts *o, const char *list)
{
    static char buf[256];
    if (strlen(list) >= sizeof buf) return -1;
    strcpy(buf, list);
    o->ntypes = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        if (o->ntypes == BENCH_MAX_TYPES) return -1;
        bench_type *t = &o->types[o->ntypes];
        clsort_type key;
        int found = 0;
        for (size_t i = 0; i < sizeof bench_pair_types / sizeof *bench_pair_types; i++)
            if (strcmp(tok, bench_pair_types[i].name) == 0) {
                *t = bench_pair_types[i];
                found = 1;
            }
        if (!found && clsort_type_parse(tok, &key) == 0) {
            t->name = clsort_type_name(key);
            t->key = key;
            t->value_size = 0;
            found = 1;
        }
        if (!found)
            return -1;
        o->ntypes++;
    }
    return o->ntypes > 0 ? 0 : -1;
}

static int parse_seg_sizes(bench_opts *o, const char *list)
{
    char buf[256];
    if (strlen(list) >= sizeof buf) return -1;
    strcpy(buf, list);
    o->nseg_sizes = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        int v;
        if (o->nseg_sizes == 16 || parse_int(tok, 1, 1 << 24, &v) != 0) return -1;
        o->seg_sizes[o->nseg_sizes++] = (size_t)v;
    }
    return o->nseg_sizes > 0 ? 0 : -1;
}

static int parse_seg_mixes(bench_opts *o, const char *list)
{
    static const char *const names[3] = {"equal", "uniform", "power"};
    char buf[256];
    if (strlen(list) >= sizeof buf) return -1;
    strcpy(buf, list);
    o->seg_mixes = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        int found = 0;
        for (unsigned i = 0; i < 3; i++)
            if (strcmp(tok, names[i]) == 0) {
                o->seg_mixes |= 1u << i;
                found = 1;
            }
        if (!found) return -1;
    }
    return o->seg_mixes ? 0 : -1;
}

static int parse_algos(bench_opts *o, const char *list)
{
    char buf[256];
    if (strlen(list) >= sizeof buf) return -1;
    strcpy(buf, list);
    o->nalgos = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        if (o->nalgos == BENCH_MAX_ALGOS) return -1;
        if (clsort_algorithm_parse(tok, &o->algos[o->nalgos]) != 0)
            return -1;
        o->nalgos++;
    }
    return o->nalgos > 0 ? 0 : -1;
}

void bench_set_defaults(bench_opts *o)
{
    memset(o, 0, sizeof *o);
    o->min_log = 10;
    o->max_log = 28;
    o->transposition_max_log = 16;
    o->cpu_max_log = 24;
    o->runs = 5;
    o->seed = 1;
    parse_types(o, "u32,u64,f32,pairs32,pairs64");
    parse_algos(o, "auto,bitonic,odd-even-merge,odd-even-transposition");
    o->seg_log = 20;
    parse_seg_sizes(o, "16,32,64,128,256,512,1024,2048,4096");
    o->seg_mixes = 7;
}

/* The long options; those without a letter get a value from 256 up. */
enum {
    OPT_NO_CPU = 256, OPT_HOST_ALLOC, OPT_TOPK, OPT_SEGMENTS, OPT_STABLE, OPT_TOPK_SCALE,
    OPT_SEG_LOG, OPT_SEG_SIZES, OPT_SEG_MIXES, OPT_MIN_LOG, OPT_MAX_LOG, OPT_TP_MAX_LOG,
    OPT_CPU_MAX_LOG, OPT_CSV, OPT_SEED
};
#define ARG(name, val) { name, required_argument, NULL, val }
#define FLAG(name, val) { name, no_argument, NULL, val }
static const struct option bench_long_opts[] = {
    ARG("device", 'd'), ARG("types", 't'), ARG("algos", 'a'), ARG("runs", 'n'),
    FLAG("list-devices", 'l'), FLAG("quiet", 'q'), FLAG("help", 'h'), FLAG("version", 'V'),
    FLAG("no-cpu", OPT_NO_CPU), FLAG("host-alloc", OPT_HOST_ALLOC), FLAG("topk", OPT_TOPK),
    FLAG("segments", OPT_SEGMENTS), FLAG("stable", OPT_STABLE),
    ARG("topk-scale", OPT_TOPK_SCALE), ARG("seg-log", OPT_SEG_LOG),
    ARG("seg-sizes", OPT_SEG_SIZES), ARG("seg-mixes", OPT_SEG_MIXES),
    ARG("min-log", OPT_MIN_LOG), ARG("max-log", OPT_MAX_LOG),
    ARG("transposition-max-log", OPT_TP_MAX_LOG), ARG("cpu-max-log", OPT_CPU_MAX_LOG),
    ARG("csv", OPT_CSV), ARG("seed", OPT_SEED),
    { NULL, 0, NULL, 0 }
};
#undef ARG
#undef FLAG
/* "+": the first operand ends the options (clsort-bench takes none: it is an error there). */
#define BENCH_SHORT_OPTS "+:d:t:a:n:lqhV"

/* The options without a value. Returns 1 when `c` is one (taken), 2 for --help and --version
 * (printed: exit 0), 0 when it is not one of them. */
static int take_flag(int c, bench_opts *o)
{
    switch (c) {
    case 'h': print_usage(stdout); return 2;
    case 'V':
        printf("clsort-bench %s (library %s)\n", CLSORT_VERSION_STRING, clsort_version_string());
        return 2;
    case 'q': o->quiet = 1; break;
    case 'l': o->list_devices = 1; break;
    case OPT_NO_CPU: o->no_cpu = 1; break;
    case OPT_HOST_ALLOC: o->host_alloc = 1; break;
    case OPT_TOPK: o->topk = 1; break;
    case OPT_SEGMENTS: o->segments = 1; break;
    case OPT_STABLE: o->seg_stable = 1; break;
    default: return 0;
    }
    return 1;
}

/* The options with a value. Returns 0 (taken) or -1 for a bad value. */
static int take_value(int c, const char *val, bench_opts *o)
{
    switch (c) {
    case 'd': o->device = val; return 0;
    case 't': return o->types_given = 1, parse_types(o, val);
    case 'a': return o->algos_given = 1, parse_algos(o, val);
    case 'n': return parse_int(val, 1, BENCH_MAX_RUNS, &o->runs);
    case OPT_TOPK_SCALE: return parse_int(val, 0, 24, &o->topk_scale);
    case OPT_SEG_LOG: return parse_int(val, 1, 32, &o->seg_log);
    case OPT_SEG_SIZES: return parse_seg_sizes(o, val);
    case OPT_SEG_MIXES: return parse_seg_mixes(o, val);
    case OPT_MIN_LOG: return parse_int(val, 1, 40, &o->min_log);
    case OPT_MAX_LOG: return parse_int(val, 1, 40, &o->max_log);
    case OPT_TP_MAX_LOG: return parse_int(val, 1, 40, &o->transposition_max_log);
    case OPT_CPU_MAX_LOG: return parse_int(val, 1, 40, &o->cpu_max_log);
    case OPT_CSV: o->csv = val; return 0;
    case OPT_SEED: {
        char *end;
        errno = 0;
        o->seed = strtoull(val, &end, 0);
        return errno || end == val || *end ? -1 : 0;
    }
    default: return -1;
    }
}

/* The option whose value getopt just took, as the user wrote it ("-n", "--runs"). */
static void option_as_given(char **argv, int c, char *name, size_t cap)
{
    const char *el =
        optarg == argv[optind - 1] && optind >= 2 ? argv[optind - 2] : argv[optind - 1];
    if (strncmp(el, "--", 2) == 0) {
        const size_t len = strcspn(el, "=");
        snprintf(name, cap, "%.*s", (int)(len < cap ? len : cap - 1), el);
    } else {
        snprintf(name, cap, "-%c", c);
    }
}

int bench_parse_args(int argc, char **argv, bench_opts *o)
{
    cli_set_program_name("clsort-bench");
    opterr = 0;
    const char *given;
    int c;
    while ((c = cli_next_option(argc, argv, BENCH_SHORT_OPTS, bench_long_opts, &given)) != -1) {
        const int flag = take_flag(c, o);
        if (flag == 2)
            return 1;
        if (flag == 1)
            continue;
        if (c == ':' || c == '?') { /* said as every tool says it (clsort_options.h) */
            cli_shared_opts so;
            cli_shared_opts_init(&so);
            cli_shared_option(c, given, "clsort-bench", &so);
            return -1;
        }
        if (take_value(c, optarg, o) != 0) {
            char name[64];
            option_as_given(argv, c, name, sizeof name);
            cli_error("invalid argument '%s' for %s", optarg, name);
            return -1;
        }
    }
    if (optind < argc) {
        cli_error("unknown option '%s' (see clsort-bench --help)", argv[optind]);
        return -1;
    }
    if (o->segments && !o->algos_given) parse_algos(o, "auto");
    if (o->topk && !o->types_given) parse_types(o, "u32,f32");
    if (o->min_log > o->max_log) {
        fprintf(stderr, "clsort-bench: --min-log %d is above --max-log %d\n", o->min_log,
                o->max_log);
        return -1;
    }
    return 0;
}
