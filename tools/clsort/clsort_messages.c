/* clsort_messages.c - what the clsort tool says on stderr. Messages erase the progress line first,
 * so this file sits above clsort_progress.c (which never prints a message). */
#include "clsort_messages.h"

#include "clsort_progress.h"
#include "clsort_units.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int cli_display_level = 1;

/* One line on stderr, after erasing the progress line so the two never share a line. */
static void print_message(const char *fmt, va_list ap)
{
    cli_progress_clear();
    fputs("clsort: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    print_message(fmt, ap);
    va_end(ap);
}

void cli_info(int level, const char *fmt, ...)
{
    if (cli_display_level < level)
        return;
    va_list ap;
    va_start(ap, fmt);
    print_message(fmt, ap);
    va_end(ap);
}

void *cli_malloc(size_t size, const char *what)
{
    void *p = malloc(size ? size : 1);
    if (!p) {
        char sz[32];
        cli_error("out of host memory allocating %s for %s", cli_format_size(sz, sizeof sz, size),
                  what);
    }
    return p;
}
