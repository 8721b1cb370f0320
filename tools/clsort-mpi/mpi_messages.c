/* mpi_messages.c - the messages of clsort_messages.h for clsort-mpi. The record and file code of
 * tools/clsort reports through cli_error(); here the first error of a rank is kept, and after the
 * ranks agree on a failure exactly one rank prints it, so a failing job says one line however many
 * ranks saw the problem. Every line goes out in one write, so lines of different ranks that mpirun
 * forwards never mix. */
#include "clsort_messages.h"
#include "mpi_messages.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "clsort_units.h"

int cli_display_level = 1;

static char prefix[48] = "clsort-mpi: ";
static int holding;
static char held[1024];
static int have_held;

void mpi_msg_set_rank(int rank, int size)
{
    if (size > 1)
        snprintf(prefix, sizeof prefix, "clsort-mpi: rank %d: ", rank);
    else
        snprintf(prefix, sizeof prefix, "clsort-mpi: ");
}

void mpi_msg_hold_errors(void)
{
    holding = 1;
}

static void write_line(const char *text)
{
    char line[1200];
    int len = snprintf(line, sizeof line - 1, "%s%s", prefix, text);
    if (len < 0)
        return;
    if ((size_t)len > sizeof line - 2)
        len = (int)sizeof line - 2;
    line[len++] = '\n';
    const char *p = line;
    while (len > 0) {
        const ssize_t w = write(STDERR_FILENO, p, (size_t)len);
        if (w <= 0)
            break;
        p += w;
        len -= (int)w;
    }
}

void mpi_msg_print_held(const char *fallback)
{
    write_line(have_held ? held : fallback);
    have_held = 0;
}

void cli_error(const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (!holding) {
        write_line(text);
    } else if (!have_held) {
        /* The first error says what went wrong; later ones (hints, follow-ups) are dropped. */
        snprintf(held, sizeof held, "%s", text);
        have_held = 1;
    }
}

void cli_info(int level, const char *fmt, ...)
{
    if (cli_display_level < level)
        return;
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    write_line(text);
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
