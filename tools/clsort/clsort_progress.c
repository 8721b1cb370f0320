/* clsort_progress.c - progress on stderr: redrawn in place with '\r', rate-limited so that it
 * costs nothing measurable, and only where someone is looking (a terminal) unless asked. */
#include "clsort_progress.h"

#include <stdio.h>
#include <unistd.h>

#include "clsort_units.h"

static int enabled;
static int shown;
static uint64_t last_ns;

void cli_progress_init(int mode)
{
    if (mode < 0)
        enabled = isatty(STDERR_FILENO);
    else
        enabled = mode;
}

void cli_progress_update(const char *phase, uint64_t done, uint64_t total)
{
    if (!enabled)
        return;
    const uint64_t now = cli_now_ns();
    if (shown && now - last_ns < 250000000u)
        return;
    last_ns = now;
    char d[32], t[32];
    cli_format_size(d, sizeof d, done);
    if (total)
        fprintf(stderr, "\rclsort: %-8s %3u%%  %s of %s   ", phase,
                (unsigned)(done >= total ? 100 : done * 100 / total), d,
                cli_format_size(t, sizeof t, total));
    else
        fprintf(stderr, "\rclsort: %-8s %s   ", phase, d);
    fflush(stderr);
    shown = 1;
}

void cli_progress_clear(void)
{
    if (!shown)
        return;
    fprintf(stderr, "\r%60s\r", "");
    fflush(stderr);
    shown = 0;
}
