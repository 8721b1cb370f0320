/* clsort_messages.c - messages at a verbosity, formatted here and written by the program's sink
 * (clsort_messages.h). It depends on nothing above it: the progress line, the stderr capture and
 * the rank prefix are the sinks' business. */
#include "clsort_messages.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "clsort_units.h"

int cli_display_level = 1;

static char program_name[64] = "clsort";

void cli_set_program_name(const char *name)
{
    snprintf(program_name, sizeof program_name, "%s", name);
}

const char *cli_program_name(void)
{
    return program_name;
}

static void default_sink(int level, const char *text)
{
    (void)level;
    fprintf(stderr, "%s: %s\n", program_name, text);
}

static cli_message_sink sink = default_sink;

void cli_set_message_sink(cli_message_sink s)
{
    sink = s ? s : default_sink;
}

/* Formats into a stack buffer, or a heap one for a message longer than that (a long path), so
 * that the sink always gets the whole text. */
static void deliver(int level, const char *fmt, va_list ap)
{
    char small[1024];
    va_list again;
    va_copy(again, ap);
    const int len = vsnprintf(small, sizeof small, fmt, ap);
    if (len >= 0 && (size_t)len >= sizeof small) {
        char *const big = malloc((size_t)len + 1);
        if (big) {
            vsnprintf(big, (size_t)len + 1, fmt, again);
            sink(level, big);
            free(big);
            va_end(again);
            return;
        }
    }
    va_end(again);
    sink(level, small);
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    deliver(0, fmt, ap);
    va_end(ap);
}

void cli_info(int level, const char *fmt, ...)
{
    if (cli_display_level < level)
        return;
    va_list ap;
    va_start(ap, fmt);
    deliver(level, fmt, ap);
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
