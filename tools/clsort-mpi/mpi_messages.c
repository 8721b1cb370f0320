/* mpi_messages.c - clsort-mpi's sink for the messages of tools/lib (clsort_messages.h), which
 * the shared record and file code reports through: the first error of a rank is kept, and after
 * the ranks agree on a failure exactly one rank prints it, so a failing job says one line however
 * many ranks saw the problem. Every line goes out in one write, so lines of different ranks that
 * mpirun forwards never mix. */
#include "mpi_messages.h"

#include <stdio.h>
#include <unistd.h>

#include "clsort_messages.h"

static char prefix[48] = "clsort-mpi: ";
static int holding;
static char held[1024];
static int have_held;

static void rank_sink(int level, const char *text);

void mpi_msg_set_rank(int rank, int size)
{
    cli_set_message_sink(rank_sink);
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

/* The sink: errors (level 0) are held once mpi_msg_hold_errors was called, the rest go out. */
static void rank_sink(int level, const char *text)
{
    if (level != 0 || !holding) {
        write_line(text);
    } else if (!have_held) {
        /* The first error says what went wrong; later ones (hints, follow-ups) are dropped. */
        snprintf(held, sizeof held, "%s", text);
        have_held = 1;
    }
}
