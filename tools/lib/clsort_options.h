/* clsort_options.h - the options that clsort and clsort-mpi share (-r -R -k -s -a -d -v -q -h -V),
 * taken by one function so that both programs give them the same meaning and the same messages.
 * Each program keeps its own option table, its own options and what it makes of them. */
#ifndef CLSORT_OPTIONS_H
#define CLSORT_OPTIONS_H

#include <getopt.h>
#include <stddef.h>

#include "clsort.h"

/* The shared options for getopt_long: their letters (to paste into the program's short options)
 * and their entries (to put into the program's long options, before its { NULL } end). */
#define CLI_SHARED_SHORT_OPTS "rR:k:sa:d:vqhV"
#define CLI_SHARED_LONG_OPTS                                                                        \
    { "reverse", no_argument, NULL, 'r' }, { "record-size", required_argument, NULL, 'R' },       \
        { "key-offset", required_argument, NULL, 'k' }, { "stable", no_argument, NULL, 's' },     \
        { "algorithm", required_argument, NULL, 'a' }, { "device", required_argument, NULL, 'd' }, \
        { "verbose", no_argument, NULL, 'v' }, { "quiet", no_argument, NULL, 'q' },               \
        { "help", no_argument, NULL, 'h' }, { "version", no_argument, NULL, 'V' }

typedef struct cli_shared_opts {
    size_t record_size;         /* -R: bytes of one record (valid when record_size_given) */
    int record_size_given;
    size_t key_offset;          /* -k: where the key starts inside a record (0 unless given) */
    int offset_given;
    int reverse;                /* -r */
    int stable;                 /* -s */
    clsort_algorithm algorithm; /* -a: CLSORT_AUTO unless given */
    const char *device;         /* -d: NULL unless given */
    int help, version;          /* -h, -V */
} cli_shared_opts;

/** Sets the defaults: nothing given, CLSORT_AUTO. */
void cli_shared_opts_init(cli_shared_opts *so);

/** getopt_long with the options as the user wrote them: returns the next option (-1 at the end)
 *  and sets *given to its argument as written, for messages. Call it after opterr = 0 and
 *  optind = 1: the messages are the program's. */
int cli_next_option(int argc, char **argv, const char *short_opts,
                    const struct option *long_opts, const char **given);

/** Takes one option as getopt_long returned it (`c`, with optarg) that is none of the program's
 *  own: the shared ones above (-v and -q set cli_display_level), and otherwise a usage error: ':'
 *  a missing argument, anything else an unknown option, said with "(see PROGRAM --help)".
 *  `given` is the argument as the user wrote it, for those messages. Returns CLI_EXIT_OK, or
 *  CLI_EXIT_USAGE after printing one line that says which argument is wrong. */
int cli_shared_option(int c, const char *given, const char *program, cli_shared_opts *so);

#endif /* CLSORT_OPTIONS_H */
