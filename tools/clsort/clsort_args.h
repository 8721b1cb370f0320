/* clsort_args.h - the clsort command line, parsed into one struct before anything else happens. */
#ifndef CLSORT_ARGS_H
#define CLSORT_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "clsort.h"
#include "clsort_keys.h"

typedef enum cli_mode {
    CLI_MODE_SORT,
    CLI_MODE_CHECK,
    CLI_MODE_LIST_DEVICES,
    CLI_MODE_CLEAR_CACHE,
    CLI_MODE_HELP,
    CLI_MODE_VERSION
} cli_mode;

typedef struct cli_opts {
    cli_mode mode;
    const char *input;     /* the first input; NULL means standard input (also given as "-") */
    const char **inputs;   /* all ninputs inputs, in order (NULL entries: standard input) */
    size_t ninputs;        /* at least 1 (standard input when no FILE is given) */
    const char *output;    /* "-" (also when -o is not given): standard output; NULL only
                              for --check, which writes nothing */
    clsort_type type;      /* the first key: type, size, offset, direction, byte order */
    size_t key_size;       /* bytes of one key of `type` */
    size_t record_size;    /* bytes of one record; key_size unless -R (--key: the keys' end) */
    size_t key_offset;     /* where the key starts inside a record */
    int reverse;
    int big_endian;        /* the first key is stored in network order (TYPEbe) */
    size_t nkeys;          /* keys[0..nkeys): the first key as above, then the tie-breakers */
    cli_key keys[CLI_MAX_KEYS];
    int stable;            /* set by -s and by -u */
    int nan_largest;       /* --nan-largest: CLSORT_NAN_LARGEST's order for float keys */
    int unique;            /* -u: keep the first record of each run of equal keys */
    int merge;             /* -m: the inputs are sorted already; merge them */
    int no_check;          /* --no-check: -m does not verify that its inputs are sorted */
    int no_fsync;          /* --no-fsync: a file output is not fsync'ed (nor its writeback
                              started) before the rename; every other guarantee stays */
    clsort_algorithm algorithm;
    const char *device;    /* NULL: the library's default (honours CLSORT_DEVICE) */
    uint64_t buffer_size;  /* bytes of input per run; 0: chosen from host and device memory */
    const char *tmpdir;    /* where runs go */
    int progress;          /* -1: only when stderr is a terminal, 0: never, 1: always */
    uint64_t top;          /* --top N: only the first N records of the result; 0: all */
} cli_opts;

/** Parses argv into *opts. Returns CLI_EXIT_OK, or CLI_EXIT_USAGE after printing one line that
 *  says which argument is wrong. Sets cli_display_level from -q / -v. */
int cli_parse_args(int argc, char **argv, cli_opts *opts);

/** Prints the --help text on stdout. */
void cli_print_help(void);

#endif /* CLSORT_ARGS_H */
