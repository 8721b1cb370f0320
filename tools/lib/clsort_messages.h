/* clsort_messages.h - what every part of the tools shares: exit codes and messages at a chosen
 * verbosity, handed to a sink that each program chooses (clsort erases its progress line first and
 * follows its stderr capture, clsort_capture.h; clsort-mpi prefixes the rank and holds errors back).
 * This file knows nothing of its sinks. The clock and size formatting are in clsort_units.h. */
#ifndef CLSORT_MESSAGES_H
#define CLSORT_MESSAGES_H

#include <stddef.h>

/* The documented exit codes (docs/clsort.1). */
enum {
    CLI_EXIT_OK = 0,       /* success, or --check found the input sorted */
    CLI_EXIT_DISORDER = 1, /* --check found disorder */
    CLI_EXIT_USAGE = 2,    /* bad option, bad number, key beyond the record */
    CLI_EXIT_IO = 3,       /* input/output or data error */
    CLI_EXIT_DEVICE = 4    /* OpenCL or device error */
};

/* 0: errors only (-q), 1: errors and warnings (default), 2 and up: -v details. */
extern int cli_display_level;

/** Where a message goes: `text` is the formatted message without a prefix or newline; `level`
 *  is 0 for cli_error and the level passed to cli_info otherwise (already checked against
 *  cli_display_level). The sink writes the program's prefix and the newline. */
typedef void (*cli_message_sink)(int level, const char *text);

/** Sets the sink; NULL restores the default: the program's name, ": ", text and a newline on
 *  stderr. */
void cli_set_message_sink(cli_message_sink sink);

/** Sets the name that prefixes the default sink's lines and the signal thread's one line
 *  (clsort_signals.h): the program's name, "clsort" until set (clsort-mpi adds its rank). The
 *  string is copied (at most 63 bytes). */
void cli_set_program_name(const char *name);

/** The name cli_set_program_name set. */
const char *cli_program_name(void);

/** Hands the message to the sink, whatever the display level. Errors always show: every non-zero
 *  exit says what went wrong and where. */
void cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/** Hands the message to the sink when cli_display_level >= level. */
void cli_info(int level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/** malloc that reports failure as an error and returns NULL (callers exit with CLI_EXIT_IO). */
void *cli_malloc(size_t size, const char *what);

#endif /* CLSORT_MESSAGES_H */
