/* clsort_progress.h - a one-line progress display on stderr, a few updates a second. */
#ifndef CLSORT_PROGRESS_H
#define CLSORT_PROGRESS_H

#include <stdint.h>

/** mode -1: only when stderr is a terminal; 0: never; 1: always. The caller passes 0 under -q:
 *  this file knows nothing of messages and their levels (clsort_messages.c sits above it). */
void cli_progress_init(int mode);

/** Shows `phase` with done/total bytes (total 0: unknown), at most about 4 times a second. */
void cli_progress_update(const char *phase, uint64_t done, uint64_t total);

/** Erases the progress line, if one is shown, before other output. */
void cli_progress_clear(void);

#endif /* CLSORT_PROGRESS_H */
