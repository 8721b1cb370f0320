/* clsort_args.c - option parsing for the clsort tool (getopt_long), with one clear line for
 * every usage error and exit code 2. */
#include "clsort_args.h"

#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clsort_messages.h"
#include "clsort_options.h"
#include "clsort_units.h"

enum {
    OPT_LIST_DEVICES = 256,
    OPT_PROGRESS,
    OPT_NO_PROGRESS,
    OPT_CLEAR_CACHE,
    OPT_KEY,
    OPT_NAN_LARGEST,
    OPT_NO_CHECK,
    OPT_NO_FSYNC,
    OPT_TOP
};

static const char short_opts[] = ":o:t:S:T:cmu" CLI_SHARED_SHORT_OPTS;

static const struct option long_opts[] = {
    { "output", required_argument, NULL, 'o' },
    { "type", required_argument, NULL, 't' },
    { "buffer-size", required_argument, NULL, 'S' },
    { "temporary-directory", required_argument, NULL, 'T' },
    { "check", no_argument, NULL, 'c' },
    { "merge", no_argument, NULL, 'm' },
    { "unique", no_argument, NULL, 'u' },
    { "key", required_argument, NULL, OPT_KEY },
    { "nan-largest", no_argument, NULL, OPT_NAN_LARGEST },
    { "no-check", no_argument, NULL, OPT_NO_CHECK },
    { "no-fsync", no_argument, NULL, OPT_NO_FSYNC },
    { "top", required_argument, NULL, OPT_TOP },
    { "list-devices", no_argument, NULL, OPT_LIST_DEVICES },
    { "clear-cache", no_argument, NULL, OPT_CLEAR_CACHE },
    { "progress", no_argument, NULL, OPT_PROGRESS },
    { "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
    CLI_SHARED_LONG_OPTS,
    { NULL, 0, NULL, 0 }
};

void cli_print_help(void)
{
    fputs(
        "Usage: clsort [OPTION]... [FILE]...\n"
        "Sort the records of the FILEs together, binary records of a fixed size, by a numeric\n"
        "key, on an OpenCL device, and write them to standard output (as sort(1) does) or to the\n"
        "-o FILE. The inputs are never written, except by -o naming one of them, which sorts it in\n"
        "place (atomically: the file is replaced only by the complete result). With no FILE, or\n"
        "when FILE is -, read standard input. Binary records are not written to a terminal: use\n"
        "-o FILE or a redirection.\n"
        "\n"
        "  -o, --output=FILE          write the result to FILE (default: standard output; - too)\n"
        "  -t, --type=TYPE            key type: u32 (default), i32, f32, u64, i64, f64, u8, i8,\n"
        "                             u16, i16, f16, bf16 (little-endian) or the same with a be\n"
        "                             suffix, u16be ... bf16be (big-endian; not u8, i8)\n"
        "  -r, --reverse              descending order\n"
        "      --nan-largest          NumPy's order for float keys: every NaN equal to every\n"
        "                             other and above +inf, -0 equal to +0 (NaNs last; first\n"
        "                             with -r); also for -c, -m, -u and --top\n"
        "  -R, --record-size=BYTES    each record is BYTES long (default: the key's size, 4 or 8\n"
        "                             bytes; with --key, the end of the last key)\n"
        "  -k, --key-offset=BYTES     where the key starts inside each record (default 0; may be\n"
        "                             unaligned); other than 0 only with -R\n"
        "      --key=OFFSET:TYPE[:r]  a key at byte OFFSET of each record, :r for descending; give it\n"
        "                             again for keys that break ties (instead of -t and -k; -r\n"
        "                             makes every key without :r descending)\n"
        "  -s, --stable               records with equal keys keep their input order\n"
        "  -u, --unique               keep only the first record (in input order) of equal keys\n"
        "      --top=N                write only the first N records of the result (the N\n"
        "                             smallest keys, largest with -r), for inputs of any size\n"
        "  -m, --merge                merge FILEs that are already sorted, without sorting them\n"
        "      --no-check             with -m: do not verify that each FILE is sorted\n",
        stdout);
    fputs(
        "  -a, --algorithm=NAME       auto (default), bitonic, odd-even-merge, odd-even-transposition,\n"
        "                             radix\n"
        "  -d, --device=SPEC          cpu, gpu, P:D, or part of the device's name; a comma-\n"
        "                             separated list, gpu:all, cpu:all or all sort on several\n"
        "                             devices at once (same result)\n"
        "                             (default: $CLSORT_DEVICE, else the best device)\n"
        "  -S, --buffer-size=SIZE     memory for one run (K/M/G suffixes); bigger inputs are sorted\n"
        "                             in runs and merged\n"
        "  -T, --temporary-directory=DIR  where runs go (default: $TMPDIR, else /tmp)\n"
        "      --no-fsync             do not flush the output to disk: still written beside it and\n"
        "                             renamed over it, but a crash or power loss may then leave the\n"
        "                             old file or an incomplete one (cp and sort do not flush)\n"
        "  -c, --check                exit 0 if each FILE is sorted, 1 if not; write nothing\n"
        "                             (with -u: sorted and without equal keys)\n"
        "      --list-devices         list OpenCL devices and say which one is the default\n"
        "      --clear-cache          empty the compiled-program cache\n"
        "      --progress, --no-progress  show each stage's progress on stderr (default: when\n"
        "                             stderr is a terminal and the job takes over a second)\n"
        "  -v, --verbose              say what happened: device, algorithm, runs, times\n"
        "  -q, --quiet                print errors only\n"
        "  -h, --help                 print this help and exit\n"
        "  -V, --version              print the version and exit\n"
        "\n"
        "Integers sort numerically, floats by IEEE 754 totalOrder (or --nan-largest's order);\n"
        "-r is the exact reverse. f16 is IEEE binary16, bf16 bfloat16.\n"
        "A record is the key's size (-t: 1, 2, 4 or 8 bytes: u8 1, f16 2, u32 4, f64 8) unless -R\n"
        "gives it; -k other than 0 needs -R. With --key and no -R, a record ends where the last\n"
        "key ends. A file whose size is not a multiple of the record size is refused.\n"
        "Exit status: 0 success (or sorted, with -c), 1 disorder found by -c, 2 usage error (also:\n"
        "standard output is a terminal), 3 input/output or data error (also: a -m input not\n"
        "sorted, an input changed while it was sorted in place), 4 OpenCL or device error.\n",
        stdout);
}

/* Standard input as the one input when no FILE is given. */
static const char *stdin_only[1] = { NULL };

/* What the option loop saw beyond cli_opts itself, for the checks after it. */
typedef struct given_opts {
    cli_shared_opts shared; /* -r -R -k -s -a -d -v -q -h -V (clsort_options.h) */
    int check, list, clear, type_given;
    const char *type_arg;
} given_opts;

/* One option of clsort's own; the shared ones and the usage errors go to cli_shared_option. */
static int take_option(int c, const char *given, cli_opts *opts, given_opts *g)
{
    switch (c) {
    case 'o': opts->output = optarg; break;
    case 't':
        if (cli_type_parse(optarg, &opts->type, &opts->big_endian) != 0) {
            cli_error("invalid type '%s' for --type (expected u32, i32, f32, u64, i64, f64, u8, "
                      "i8, u16, i16, f16, bf16, or one of them with 'be' for big-endian)",
                      optarg);
            return CLI_EXIT_USAGE;
        }
        g->type_arg = optarg;
        g->type_given = 1;
        break;
    case OPT_KEY:
        if (opts->nkeys == CLI_MAX_KEYS) {
            cli_error("too many --key options (at most %d)", CLI_MAX_KEYS);
            return CLI_EXIT_USAGE;
        }
        if (cli_key_parse(optarg, &opts->keys[opts->nkeys]) != 0) {
            cli_error("invalid key '%s' for --key (expected OFFSET:TYPE or OFFSET:TYPE:r, "
                      "e.g. 0:u32 or 8:f64be:r)",
                      optarg);
            return CLI_EXIT_USAGE;
        }
        opts->nkeys += 1;
        break;
    case 'u': opts->unique = 1; break;
    case 'm': opts->merge = 1; break;
    case OPT_NO_CHECK: opts->no_check = 1; break;
    case OPT_NAN_LARGEST: opts->nan_largest = 1; break;
    case OPT_NO_FSYNC: opts->no_fsync = 1; break;
    case OPT_TOP:
        if (!isdigit((unsigned char)*optarg) || cli_parse_size(optarg, &opts->top) != 0 ||
            opts->top == 0 || strpbrk(optarg, "kKmMgGtTbB")) {
            cli_error("invalid count '%s' for --top (expected a positive number of records)",
                      optarg);
            return CLI_EXIT_USAGE;
        }
        break;
    case 'S':
        if (cli_parse_size(optarg, &opts->buffer_size) != 0 || opts->buffer_size == 0) {
            cli_error("invalid buffer size '%s' for --buffer-size (expected a positive number "
                      "of bytes, optionally with K, M or G)",
                      optarg);
            return CLI_EXIT_USAGE;
        }
        break;
    case 'T':
        if (!*optarg) { /* "" would put the runs in "/" */
            cli_error("-T needs a directory (without -T: $TMPDIR, else /tmp)");
            return CLI_EXIT_USAGE;
        }
        opts->tmpdir = optarg;
        break;
    case 'c': g->check = 1; break;
    case OPT_LIST_DEVICES: g->list = 1; break;
    case OPT_CLEAR_CACHE: g->clear = 1; break;
    case OPT_PROGRESS: opts->progress = 1; break;
    case OPT_NO_PROGRESS: opts->progress = 0; break;
    default: return cli_shared_option(c, given, "clsort", &g->shared);
    }
    return CLI_EXIT_OK;
}

/* The operands, in order; "-" is standard input, and none at all means standard input. */
static void take_operands(int argc, char **argv, cli_opts *opts)
{
    if (optind < argc) {
        opts->inputs = (const char **)(argv + optind);
        opts->ninputs = (size_t)(argc - optind);
        for (size_t i = 0; i < opts->ninputs; ++i)
            if (opts->inputs[i] && strcmp(opts->inputs[i], "-") == 0)
                opts->inputs[i] = NULL;
    } else {
        opts->inputs = stdin_only;
        opts->ninputs = 1;
    }
    opts->input = opts->inputs[0];
}

/* The keys: one -t/-k pair (as always), or the --key list; then the record size, and every key
 * inside the record. */
static int settle_keys(cli_opts *opts, const given_opts *g)
{
    if (opts->nkeys > 0 && (g->type_given || g->shared.offset_given)) {
        cli_error("--key cannot be combined with -t or -k: give the key as --key OFFSET:TYPE");
        return CLI_EXIT_USAGE;
    }
    /* A mistyped offset must not silently change what a record is (issue 23): the record size
     * is the key's unless -R says otherwise, so an offset other than 0 needs -R. */
    if (opts->nkeys == 0 && opts->key_offset != 0 && !g->shared.record_size_given) {
        cli_error("-k %zu needs -R: give the record size with -R BYTES (without -R a record is "
                  "the key's %zu bytes, and the key starts at 0)",
                  opts->key_offset, clsort_type_size(opts->type));
        return CLI_EXIT_USAGE;
    }
    if (opts->nkeys == 0) {
        opts->keys[0] = (cli_key){ opts->type, clsort_type_size(opts->type), opts->key_offset,
                                   opts->reverse, opts->big_endian, opts->nan_largest };
        opts->nkeys = 1;
    } else {
        for (size_t i = 0; i < opts->nkeys; ++i)
            opts->keys[i].nan_largest = opts->nan_largest;
        /* As in GNU sort: -r applies to every key that says nothing about its direction. */
        for (size_t i = 0; i < opts->nkeys; ++i)
            opts->keys[i].reverse |= opts->reverse;
    }
    if (opts->keys[0].size == 0) { /* Only if the library disagrees with its own parser. */
        cli_error("invalid type '%s' for --type", g->type_arg);
        return CLI_EXIT_USAGE;
    }
    opts->type = opts->keys[0].type;
    opts->key_size = opts->keys[0].size;
    opts->key_offset = opts->keys[0].offset;
    opts->reverse = opts->keys[0].reverse;
    opts->big_endian = opts->keys[0].big_endian;
    if (!g->shared.record_size_given) {
        /* The smallest record that holds every key: the key's size for one key at offset 0. */
        opts->record_size = 0;
        for (size_t i = 0; i < opts->nkeys; ++i) {
            const size_t end = opts->keys[i].offset + opts->keys[i].size;
            if (end > opts->record_size)
                opts->record_size = end;
        }
    }
    for (size_t i = 0; i < opts->nkeys; ++i) {
        const cli_key *const k = &opts->keys[i];
        if (k->offset > opts->record_size || opts->record_size - k->offset < k->size) {
            cli_error("key beyond the record: a %s key (%zu bytes) at offset %zu does not fit in "
                      "%zu-byte records",
                      cli_type_name(k->type, k->big_endian), k->size, k->offset,
                      opts->record_size);
            return CLI_EXIT_USAGE;
        }
    }
    return CLI_EXIT_OK;
}

/* Sort, check or merge, with the options that go with each; the output and the run directory. */
static int settle_mode(cli_opts *opts, const given_opts *g)
{
    /* -u keeps the first of equal records in input order: the order of -s. */
    if (opts->unique)
        opts->stable = 1;
    if (opts->top && (g->check || opts->merge)) {
        cli_error("--top cannot be used with %s", g->check ? "--check" : "--merge (use clsort -m ... "
                                                                          "| head -c BYTES)");
        return CLI_EXIT_USAGE;
    }
    if (opts->no_check && !opts->merge) {
        cli_error("--no-check only applies to --merge");
        return CLI_EXIT_USAGE;
    }
    if (g->check) {
        if (opts->output) {
            cli_error("--check writes nothing: it cannot be used with --output");
            return CLI_EXIT_USAGE;
        }
        if (opts->merge) {
            cli_error("--check and --merge cannot be used together");
            return CLI_EXIT_USAGE;
        }
        opts->mode = CLI_MODE_CHECK;
    } else if (!opts->output) {
        opts->output = "-"; /* as sort(1): the inputs are never written without -o */
    }
    if (!opts->tmpdir) {
        const char *t = getenv("TMPDIR");
        opts->tmpdir = (t && *t) ? t : "/tmp";
    }
    return CLI_EXIT_OK;
}

int cli_parse_args(int argc, char **argv, cli_opts *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->mode = CLI_MODE_SORT;
    opts->type = CLSORT_U32;
    opts->progress = -1;
    given_opts g = { .type_arg = "u32" };
    cli_shared_opts_init(&g.shared);

    opterr = 0; /* We print our own one-line messages. */
    optind = 1;
    const char *given; /* the option as the user wrote it, for messages */
    for (int c; (c = cli_next_option(argc, argv, short_opts, long_opts, &given)) != -1;) {
        const int rc = take_option(c, given, opts, &g);
        if (rc != CLI_EXIT_OK)
            return rc;
    }
    opts->reverse = g.shared.reverse;
    opts->stable = g.shared.stable;
    opts->algorithm = g.shared.algorithm;
    opts->device = g.shared.device;
    if (g.shared.record_size_given)
        opts->record_size = g.shared.record_size;
    opts->key_offset = g.shared.key_offset;
    take_operands(argc, argv, opts);

    if (g.shared.help) {
        opts->mode = CLI_MODE_HELP;
        return CLI_EXIT_OK;
    }
    if (g.shared.version) {
        opts->mode = CLI_MODE_VERSION;
        return CLI_EXIT_OK;
    }
    if (g.list) {
        opts->mode = CLI_MODE_LIST_DEVICES;
        return CLI_EXIT_OK;
    }
    if (g.clear) {
        opts->mode = CLI_MODE_CLEAR_CACHE;
        return CLI_EXIT_OK;
    }
    const int rc = settle_keys(opts, &g);
    return rc != CLI_EXIT_OK ? rc : settle_mode(opts, &g);
}
