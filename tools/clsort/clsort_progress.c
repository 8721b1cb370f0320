/* clsort_progress.c - progress on stderr: each stage on its own line, redrawn in place with '\r',
 * rate-limited so that it costs nothing measurable, and only where someone is looking (a
 * terminal) unless asked. */
#include "clsort_progress.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "clsort_units.h"

/* A quick job shows nothing by default: progress starts after this long. */
#define AUTO_DELAY_NS 1000000000u
/* Redraws at most this often. */
#define REDRAW_NS 250000000u

static int enabled;
static FILE *out;             /* stderr, or where clsort_capture.c moved it */
static int out_fd = 2;
static uint64_t show_after;   /* no line before this time (the default mode's delay) */
static int shown;             /* a line of the current stage is on the screen, unterminated */
static uint64_t last_ns;
static char stage[48];        /* the current stage, "" before the first */
static const char *stage_unit; /* NULL: bytes */
static uint64_t stage_start, stage_done, stage_total;

void cli_progress_init(int mode)
{
    const uint64_t now = cli_now_ns();
    if (!out)
        out = stderr;
    enabled = mode < 0 ? isatty(out_fd) : mode;
    show_after = mode < 0 ? now + AUTO_DELAY_NS : 0;
    stage[0] = '\0';
}

/* "1.2 s left", "3 min left", or "" while nothing is known yet. */
static const char *format_left(char *buf, size_t cap, uint64_t done, uint64_t total,
                               uint64_t elapsed)
{
    buf[0] = '\0';
    if (!total || !done || done >= total || elapsed < 100000000u)
        return buf;
    const double left = (double)elapsed / 1e9 * (double)(total - done) / (double)done;
    if (left < 120)
        snprintf(buf, cap, ", %.1f s left", left);
    else
        snprintf(buf, cap, ", %.0f min left", left / 60);
    return buf;
}

static void draw(uint64_t now)
{
    char d[32], d2[32], t[32], rate[80], left[32];
    const uint64_t elapsed = now - stage_start;
    format_left(left, sizeof left, stage_done, stage_total, elapsed);
    if (stage_unit) {
        const double per_s = elapsed ? (double)stage_done / ((double)elapsed / 1e9) : 0.0;
        const uint64_t current = stage_done < stage_total ? stage_done + 1 : stage_done;
        if (stage_total && stage_done)
            fprintf(out, "\rclsort: %-17s %s %llu of %llu (%.1f %ss/s%s)   ", stage,
                    stage_unit, (unsigned long long)current, (unsigned long long)stage_total,
                    per_s, stage_unit, left);
        else if (stage_total)
            fprintf(out, "\rclsort: %-17s %s %llu of %llu   ", stage, stage_unit,
                    (unsigned long long)current, (unsigned long long)stage_total);
        else
            fprintf(out, "\rclsort: %-17s %s %llu   ", stage, stage_unit,
                    (unsigned long long)current);
    } else if (stage_total) {
        cli_format_size(d, sizeof d, stage_done);
        cli_format_size(t, sizeof t, stage_total);
        /* No rate until there is something to divide. */
        if (elapsed >= 50000000u && stage_done)
            snprintf(rate, sizeof rate, " (%s%s)",
                     cli_format_rate(d2, sizeof d2, stage_done, elapsed), left);
        else
            rate[0] = '\0';
        fprintf(out, "\rclsort: %-17s %3u%%  %s of %s%s   ", stage,
                (unsigned)(stage_done >= stage_total ? 100 : stage_done * 100 / stage_total), d,
                t, rate);
    } else if (stage_done) {
        cli_format_size(d, sizeof d, stage_done);
        cli_format_rate(rate, sizeof rate, stage_done, elapsed);
        fprintf(out, "\rclsort: %-17s %s (%s)   ", stage, d, rate);
    } else {
        fprintf(out, "\rclsort: %-17s %.1f s   ", stage, (double)elapsed / 1e9);
    }
    fflush(out);
    shown = 1;
    last_ns = now;
}

static void update(const char *name, const char *unit, uint64_t done, uint64_t total)
{
    if (!enabled)
        return;
    const uint64_t now = cli_now_ns();
    if (strncmp(stage, name, sizeof stage - 1) != 0 || unit != stage_unit) {
        /* A new stage: the last one's line keeps its final figures. */
        if (shown) {
            draw(now);
            fputc('\n', out);
            shown = 0;
        }
        snprintf(stage, sizeof stage, "%s", name);
        stage_unit = unit;
        stage_start = now;
        stage_done = done;
        stage_total = total;
        if (now >= show_after)
            draw(now);
        return;
    }
    stage_done = done;
    stage_total = total;
    if (now < show_after || (shown && now - last_ns < REDRAW_NS))
        return;
    draw(now);
}

void cli_progress_set_stream(FILE *f, int fd)
{
    out = f;
    out_fd = fd;
}

void cli_progress_update(const char *name, uint64_t done, uint64_t total)
{
    update(name, NULL, done, total);
}

void cli_progress_items(const char *name, const char *unit, uint64_t done, uint64_t total)
{
    update(name, unit, done, total);
}

void cli_progress_clear(void)
{
    if (!shown)
        return;
    draw(cli_now_ns()); /* the stage's final figures */
    fputc('\n', out);
    fflush(out);
    shown = 0;
    stage[0] = '\0'; /* the next update starts a new line */
}
