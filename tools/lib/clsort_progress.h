/* clsort_progress.h - progress on stderr, one line per stage of the job (compiling kernels,
 * reading, sorting run i of N, merging, writing), each redrawn in place a few times a second with
 * its rate and the time it still needs, and left on its own line when the next stage begins. */
#ifndef CLSORT_PROGRESS_H
#define CLSORT_PROGRESS_H

#include <stdint.h>
#include <stdio.h>

/** mode -1: only when stderr is a terminal, and only once the job has run for about a second (a
 *  quick sort shows nothing, as with zstd); 0: never; 1: always, from the start. The caller
 *  passes 0 under -q: this file knows nothing of messages and their levels (clsort_capture.c sits
 *  above it). */
void cli_progress_init(int mode);

/** Where progress goes (stderr until then) and its descriptor, for the terminal test. */
void cli_progress_set_stream(FILE *f, int fd);

/** Shows `stage` with done/total bytes (total 0: unknown), at most about 4 times a second. A stage
 *  other than the one shown ends that one's line (with its final figures) and starts a new line,
 *  whose rate and remaining time are measured from now. */
void cli_progress_update(const char *stage, uint64_t done, uint64_t total);

/** The same for a stage counted in items (`unit`, e.g. "run"): "sorting  run 3 of 8". done is
 *  the number of items finished, and the current one is done + 1. */
void cli_progress_items(const char *stage, const char *unit, uint64_t done, uint64_t total);

/** Adds `text` to the current stage's line (e.g. "sorting run 2 of 4" beside "reading", where a
 *  thread reads ahead of the sort) until the stage changes; NULL or "" removes it. */
void cli_progress_note(const char *text);

/** Ends the line shown, if any, so that other output starts on a line of its own; the stage's
 *  line stays on the screen. */
void cli_progress_clear(void);

#endif /* CLSORT_PROGRESS_H */
