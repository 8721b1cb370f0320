/* clsort_messages.h - what every part of the clsort command-line tool shares: exit codes and
 * messages on stderr at a chosen verbosity. The clock and size formatting are in clsort_units.h. */
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

/** Prints "clsort: " + the message + newline on stderr, whatever the display level. Errors always
 *  show: every non-zero exit says what went wrong and where. */
void cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/** Prints "clsort: " + the message + newline on stderr when cli_display_level >= level. */
void cli_info(int level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/** Moves descriptor 2 to a temporary capture file while the OpenCL runtime works, so that what
 *  it prints there (a compiler's "1 error generated." lines) does not flood stderr; clsort's own
 *  messages keep going to the original stderr. Best effort: nothing changes on any failure. */
void cli_capture_driver_stderr(void);

/** (Re)installs the SIGABRT handler that removes the temporary files and shows the capture when
 *  the driver aborts. The OpenCL runtime's LLVM installs its own crash handlers when it starts
 *  compiling, which would take SIGABRT first and lose both: callers install this one again after
 *  the context is made and after kernels were built. Does nothing without a capture. */
void cli_watch_aborts(void);

/** Puts descriptor 2 back and reports the capture: with -v every line, else the first line and
 *  the count of the others (issue 25: a compiler log is one line, the rest with -v). NULL-safe
 *  to call without a capture. */
void cli_release_driver_stderr(void);

/** malloc that reports failure as an error and returns NULL (callers exit with CLI_EXIT_IO). */
void *cli_malloc(size_t size, const char *what);

#endif /* CLSORT_MESSAGES_H */
