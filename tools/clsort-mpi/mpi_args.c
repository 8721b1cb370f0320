/* mpi_args.c - option parsing for clsort-mpi. The options are clsort's, minus those that have no
 * meaning for a job of many ranks (standard input and output, -c, -S, -T, progress). The options
 * both tools have are taken by tools/lib's cli_shared_option, so that they mean the same and
 * say the same in both. */
#include "mpi_args.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clsort_messages.h"
#include "clsort_options.h"
#include "clsort_units.h"

/* 512 MiB: far below the 2 GiB that an int count of bytes allows, large enough to be efficient. */
#define DEFAULT_PIECE_BYTES ((uint64_t)512 << 20)

static const char short_opts[] = ":o:t:" CLI_SHARED_SHORT_OPTS;

static const struct option long_opts[] = {
    { "output", required_argument, NULL, 'o' },
    { "type", required_argument, NULL, 't' },
    CLI_SHARED_LONG_OPTS,
    { NULL, 0, NULL, 0 }
};

void mpi_print_help(void)
{
    fputs(
        "Usage: mpirun -n N clsort-mpi [OPTION]... -o OUT FILE\n"
        "Sort FILE, a binary file of fixed-size records, by a numeric key, with N ranks, each on an\n"
        "OpenCL device of its host (a sample sort: every rank sorts a slice, the ranks exchange\n"
        "records by key range, merge, and write their part of the result with MPI-IO) into OUT,\n"
        "which appears only complete. FILE is never written unless OUT names it, which sorts it\n"
        "in place (atomically). Both must be on a file system every rank sees.\n"
        "\n"
        "  -o, --output=FILE          write the result to FILE (required: the ranks cannot share\n"
        "                             standard output)\n"
        "  -t, --type=TYPE            key type: u32 (default), i32, f32, u64, i64, f64, u8, i8,\n"
        "                             u16, i16, f16, bf16 (little-endian)\n"
        "  -r, --reverse              descending order\n"
        "  -R, --record-size=BYTES    each record is BYTES long (default: the key's size)\n"
        "  -k, --key-offset=BYTES     where the key starts inside each record (default 0)\n"
        "  -s, --stable               records with equal keys keep their input order\n"
        "  -a, --algorithm=NAME       auto (default), bitonic, odd-even-merge, odd-even-transposition,\n"
        "                             radix\n"
        "  -d, --device=SPEC[,SPEC]   the devices of one host: cpu, gpu, P:D, part of a name,\n"
        "                             gpu:all, cpu:all or all; the rank of local index i takes\n"
        "                             entry i modulo their number (default: $CLSORT_DEVICE, else\n"
        "                             every GPU of the host, else the best device)\n"
        "  -v, --verbose              say what happened: devices, records per rank, times\n"
        "  -q, --quiet                print errors only\n"
        "  -h, --help                 print this help and exit\n"
        "  -V, --version              print the version and exit\n"
        "\n"
        "The order is clsort's: integers numerically, floats by IEEE 754 totalOrder, -r the exact\n"
        "reverse; the output is byte for byte that of clsort -s.\n"
        "Exit status: 0 success, 2 usage error, 3 input/output or data error, 4 OpenCL or device\n"
        "error; every rank exits with the same status, and one rank says why on stderr.\n",
        stdout);
}

int mpi_parse_args(int argc, char **argv, mpi_opts *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->mode = MPI_MODE_SORT;
    opts->type = CLSORT_U32;
    opts->piece_bytes = DEFAULT_PIECE_BYTES;
    const char *type_arg = "u32";
    cli_shared_opts so;
    cli_shared_opts_init(&so);

    opterr = 0;
    optind = 1;
    const char *given;
    for (int c; (c = cli_next_option(argc, argv, short_opts, long_opts, &given)) != -1;) {
        switch (c) {
        case 'o': opts->output = optarg; break;
        case 't':
            if (clsort_type_parse(optarg, &opts->type) != 0) {
                cli_error("invalid type '%s' for --type (expected u32, i32, f32, u64, i64, f64, "
                          "u8, i8, u16, i16, f16, bf16)",
                          optarg);
                return CLI_EXIT_USAGE;
            }
            type_arg = optarg;
            break;
        default:
            if (cli_shared_option(c, given, "clsort-mpi", &so) != CLI_EXIT_OK)
                return CLI_EXIT_USAGE;
            break;
        }
    }
    opts->record_size = so.record_size; /* main refuses records over 1 GiB even with --help */
    opts->key_offset = so.key_offset;
    if (so.help || so.version) {
        opts->mode = so.help ? MPI_MODE_HELP : MPI_MODE_VERSION;
        return CLI_EXIT_OK;
    }
    if (optind < argc)
        opts->input = argv[optind++];
    if (optind < argc) {
        cli_error("extra operand '%s': clsort-mpi sorts one file (see clsort-mpi --help)",
                  argv[optind]);
        return CLI_EXIT_USAGE;
    }
    if (!opts->input || strcmp(opts->input, "-") == 0) {
        cli_error("clsort-mpi reads a file every rank can open, not standard input "
                  "(see clsort-mpi --help)");
        return CLI_EXIT_USAGE;
    }
    /* As clsort (and sort(1)): the input is never written unless -o names it. Without -o,
     * clsort would write standard output, which many ranks cannot share. */
    if (!opts->output) {
        cli_error("no output given: clsort-mpi writes a file and never its input unless -o names "
                  "it (use -o FILE; -o %s sorts it in place)",
                  opts->input);
        return CLI_EXIT_USAGE;
    }
    if (strcmp(opts->output, "-") == 0) {
        cli_error("clsort-mpi writes a file, not standard output (use -o FILE)");
        return CLI_EXIT_USAGE;
    }
    opts->key_size = clsort_type_size(opts->type);
    if (opts->key_size == 0) {
        cli_error("invalid type '%s' for --type", type_arg);
        return CLI_EXIT_USAGE;
    }
    if (!so.record_size_given)
        opts->record_size = opts->key_size;
    if (opts->key_offset > opts->record_size ||
        opts->record_size - opts->key_offset < opts->key_size) {
        cli_error("key beyond the record: a %s key (%zu bytes) at offset %zu does not fit in "
                  "%zu-byte records",
                  type_arg, opts->key_size, opts->key_offset, opts->record_size);
        return CLI_EXIT_USAGE;
    }
    opts->reverse = so.reverse;
    opts->stable = so.stable;
    opts->algorithm = so.algorithm;
    opts->device = so.device;
    if (!opts->device) {
        const char *env = getenv("CLSORT_DEVICE");
        if (env && *env)
            opts->device = env;
    }
    /* A testing knob, documented in docs/distributed.md: small pieces make every MPI-IO call and
     * the exchange run in many rounds, which the tests need to reach with small files. */
    const char *piece = getenv("CLSORT_MPI_PIECE");
    if (piece && *piece) {
        uint64_t v;
        if (cli_parse_size(piece, &v) != 0 || v == 0 || v > ((uint64_t)1 << 30)) {
            cli_error("invalid CLSORT_MPI_PIECE '%s' (expected 1 to 1G bytes)", piece);
            return CLI_EXIT_USAGE;
        }
        opts->piece_bytes = v;
    }
    return CLI_EXIT_OK;
}
