/* clsort_options.c - the options clsort and clsort-mpi share (clsort_options.h). */
#include "clsort_options.h"

#include <stdint.h>
#include <string.h>

#include "clsort_messages.h"
#include "clsort_units.h"

void cli_shared_opts_init(cli_shared_opts *so)
{
    *so = (cli_shared_opts){ .algorithm = CLSORT_AUTO };
}

/* A size option that must fit in size_t; returns 0 or prints the usage error and returns -1. */
static int parse_size_opt(const char *name, const char *arg, size_t *out)
{
    uint64_t v;
    if (cli_parse_size(arg, &v) != 0 || v > SIZE_MAX) {
        cli_error("invalid number '%s' for %s (expected bytes, optionally with K, M or G)", arg,
                  name);
        return -1;
    }
    *out = (size_t)v;
    return 0;
}

int cli_next_option(int argc, char **argv, const char *short_opts,
                    const struct option *long_opts, const char **given)
{
    const int prev_optind = optind;
    const int c = getopt_long(argc, argv, short_opts, long_opts, NULL);
    /* The element getopt just took: it skips operands (to move them after the options), so the
     * one at the old optind may be an operand. Inside a cluster of short options optind stays,
     * and the message names the letter (optopt). */
    const int took = optind > prev_optind && optind <= argc ? optind - 1 : prev_optind;
    *given = argv[took < argc ? took : argc - 1];
    return c;
}

int cli_shared_option(int c, const char *given, const char *program, cli_shared_opts *so)
{
    switch (c) {
    case 'r': so->reverse = 1; break;
    case 'R':
        if (parse_size_opt("--record-size", optarg, &so->record_size) != 0)
            return CLI_EXIT_USAGE;
        if (so->record_size == 0) {
            cli_error("invalid record size '%s': must be at least 1 byte", optarg);
            return CLI_EXIT_USAGE;
        }
        so->record_size_given = 1;
        break;
    case 'k':
        if (parse_size_opt("--key-offset", optarg, &so->key_offset) != 0)
            return CLI_EXIT_USAGE;
        so->offset_given = 1;
        break;
    case 's': so->stable = 1; break;
    case 'a':
        if (clsort_algorithm_parse(optarg, &so->algorithm) != 0) {
            cli_error("invalid algorithm '%s' for --algorithm (expected auto, bitonic, "
                      "odd-even-merge, odd-even-transposition, radix)",
                      optarg);
            return CLI_EXIT_USAGE;
        }
        break;
    case 'd': so->device = optarg; break;
    case 'v': ++cli_display_level; break;
    case 'q': cli_display_level = 0; break;
    case 'h': so->help = 1; break;
    case 'V': so->version = 1; break;
    case ':':
        /* A long option's optopt is its value, which need not be a letter: name it as given. */
        if (optopt && strncmp(given, "--", 2) != 0)
            cli_error("option '-%c' requires an argument (see %s --help)", optopt, program);
        else
            cli_error("option '%s' requires an argument (see %s --help)", given, program);
        return CLI_EXIT_USAGE;
    default:
        if (optopt && strncmp(given, "--", 2) != 0)
            cli_error("unknown option '-%c' (see %s --help)", optopt, program);
        else
            cli_error("unknown option '%s' (see %s --help)", given, program);
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}
