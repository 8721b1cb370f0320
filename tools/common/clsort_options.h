/* clsort_options.h - the options that clsort and clsort-mpi share (-r -R -k -s -a -d -v -q -h -V),
 * taken by one function so that both programs give them the same meaning and the same messages.
 * Each program keeps its own option table, its own options and what it makes of them. */
#ifndef CLSORT_OPTIONS_H
#define CLSORT_OPTIONS_H

#include <stddef.h>

#include "clsort.h"

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

/** Takes one option as getopt_long returned it (`c`, with optarg) that is none of the program's
 *  own: the shared ones above (-v and -q set cli_display_level), and otherwise a usage error: ':'
 *  a missing argument, anything else an unknown option, said with "(see PROGRAM --help)".
 *  `given` is the argument as the user wrote it, for those messages. Returns CLI_EXIT_OK, or
 *  CLI_EXIT_USAGE after printing one line that says which argument is wrong. */
int cli_shared_option(int c, const char *given, const char *program, cli_shared_opts *so);

#endif /* CLSORT_OPTIONS_H */
