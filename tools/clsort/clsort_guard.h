/* clsort_guard.h - what the tool checks about its inputs around the output's atomic replace: whole
 * records in every named file before anything is written, and, when the destination is one of the
 * inputs (an in-place sort, or -o naming an input), that this input is still the file that was
 * read just before the result is renamed over it (issue 14: data appended meanwhile must not be
 * lost). */
#ifndef CLSORT_GUARD_H
#define CLSORT_GUARD_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "clsort_fileio.h"

/* What stat said about one named input before it was read. */
typedef struct cli_input_id {
    const char *name;
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    struct timespec ctime; /* a write with the mtime set back still moves it (issue 25) */
} cli_input_id;

typedef struct cli_guard {
    cli_input_id *ids;   /* the regular files among the inputs */
    size_t nids;
    int armed;           /* the destination is the input `dest` */
    cli_input_id dest;
} cli_guard;

/** Before any input is opened: stats the named inputs (NULL: standard input, skipped; a path that
 *  cannot be stat'ed is left for the open to report), refuses a regular file whose size is not a
 *  multiple of record_size, and remembers each file's identity, size and modification time.
 *  Returns CLI_EXIT_OK or CLI_EXIT_IO after printing one line. */
int cli_guard_prepare(cli_guard *g, const char *const *paths, size_t n, size_t record_size);

/** After the output is opened: installs the writer's before_replace hook, which refuses the
 *  result (exit 3, one line, no output) when a named input changed size since prepare (another
 *  process truncated or extended it while it was read): for a file output just before the
 *  replace, for standard output before its first byte. If the destination is one of the inputs,
 *  it also arms the in-place check (same device and inode, size, modification and status-change
 *  time as before reading; else the result is discarded and the input kept). `g` must outlive
 *  the commit. */
void cli_guard_attach(cli_guard *g, cli_writer *w);

/** Frees what prepare allocated. NULL-safe, idempotent. */
void cli_guard_free(cli_guard *g);

/* For the tests: when CLSORT_TEST_PAUSE_BEFORE_REPLACE names a FIFO, the hook opens it and reads
 * it to its end before checking, so that a test can change the input at exactly that moment. */
#define CLI_GUARD_PAUSE_ENV "CLSORT_TEST_PAUSE_BEFORE_REPLACE"

#endif /* CLSORT_GUARD_H */
