/* clsort_progress.c - progress on stderr: each stage on its own line, redrawn in place with '\r',
 * rate-limited so that it costs nothing measurable, and only where someone is looking (a
 * terminal) unless asked. A thread redraws the current line a few times a second, so that a
 * stage whose work reports nothing meanwhile (one long sort, a merge on every core, a sync)
 * still moves: its elapsed time. Updates come from several threads (a reader ahead of the
 * sort); one lock keeps the line whole. */
#include "clsort_progress.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
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
static char note[64];         /* cli_progress_note: what else is going on, "" for nothing */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int ticking;           /* the redraw thread runs */

static void draw(uint64_t now);

/* Redraws the current line when nothing has for a while, so that it moves. */
static void *tick_main(void *arg)
{
    (void)arg;
    const struct timespec pause = { 0, (long)REDRAW_NS };
    for (;;) {
        nanosleep(&pause, NULL);
        pthread_mutex_lock(&lock);
        const uint64_t now = cli_now_ns();
        if (enabled && stage[0] && now >= show_after && now - last_ns >= REDRAW_NS)
            draw(now);
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

void cli_progress_init(int mode)
{
    const uint64_t now = cli_now_ns();
    if (!out)
        out = stderr;
    enabled = mode < 0 ? isatty(out_fd) : mode;
    show_after = mode < 0 ? now + AUTO_DELAY_NS : 0;
    stage[0] = '\0';
    pthread_t th;
    if (enabled && !ticking && pthread_create(&th, NULL, tick_main, NULL) == 0) {
        pthread_detach(th);
        ticking = 1;
    }
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
            fprintf(out, "\rclsort: %-17s %s %llu of %llu (%.1f s)   ", stage, stage_unit,
                    (unsigned long long)current, (unsigned long long)stage_total,
                    (double)elapsed / 1e9);
        else
            fprintf(out, "\rclsort: %-17s %s %llu (%.1f s)   ", stage, stage_unit,
                    (unsigned long long)current, (double)elapsed / 1e9);
    } else if (stage_total) {
        cli_format_size(d, sizeof d, stage_done);
        cli_format_size(t, sizeof t, stage_total);
        /* No rate until there is something to divide. */
        if (elapsed >= 50000000u && stage_done)
            snprintf(rate, sizeof rate, " (%s%s%s%s)",
                     cli_format_rate(d2, sizeof d2, stage_done, elapsed), left,
                     note[0] ? "; " : "", note);
        else
            snprintf(rate, sizeof rate, "%s%s%s", note[0] ? " (" : "", note, note[0] ? ")" : "");
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
    pthread_mutex_lock(&lock);
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
        note[0] = '\0';
        if (now >= show_after)
            draw(now);
        pthread_mutex_unlock(&lock);
        return;
    }
    stage_done = done;
    stage_total = total;
    if (now >= show_after && !(shown && now - last_ns < REDRAW_NS))
        draw(now);
    pthread_mutex_unlock(&lock);
}

void cli_progress_note(const char *text)
{
    if (!enabled)
        return;
    pthread_mutex_lock(&lock);
    snprintf(note, sizeof note, "%s", text ? text : "");
    pthread_mutex_unlock(&lock);
}

void cli_progress_set_stream(FILE *f, int fd)
{
    pthread_mutex_lock(&lock);
    out = f;
    out_fd = fd;
    pthread_mutex_unlock(&lock);
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
    pthread_mutex_lock(&lock);
    if (shown) {
        draw(cli_now_ns()); /* the stage's final figures */
        fputc('\n', out);
        fflush(out);
        shown = 0;
    }
    stage[0] = '\0'; /* the next update starts a new line; nothing to redraw until then */
    pthread_mutex_unlock(&lock);
}
