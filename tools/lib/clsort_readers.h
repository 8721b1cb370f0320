/* clsort_readers.h - a few threads that pread() disjoint chunks of one regular input file, so that
 * copying it out of the page cache is not limited to one core (issue 10). The pipeline posts a
 * chunk per ring slot and collects the slots in file order; the threads never touch OpenCL. */
#ifndef CLSORT_READERS_H
#define CLSORT_READERS_H

#include <stddef.h>
#include <stdint.h>

/* At most this many threads and this many chunks in flight (one per ring slot). */
#define CLI_READERS_MAX_THREADS 8
#define CLI_READERS_MAX_TASKS 16

typedef struct cli_readers cli_readers;

/* Called on the reader thread after a chunk was read (e.g. byte swapping); `got` bytes. */
typedef void (*cli_readers_after_fn)(void *user, unsigned char *buf, size_t got);

/** The number of reader threads to use: CLSORT_CLI_READERS if set (0 or 1: one sequential reader,
 *  the pipeline's old way), else min(8, online cores); never more than CLI_READERS_MAX_THREADS. */
unsigned cli_readers_wanted(void);

/** Starts `nthreads` threads reading from `fd` (which must stay open until cli_readers_stop).
 *  `after` (may be NULL) runs on the reader thread on each chunk read. Returns NULL when the
 *  memory or the threads cannot be had (nothing printed: the caller reads sequentially). */
cli_readers *cli_readers_start(int fd, const char *path, unsigned nthreads,
                               cli_readers_after_fn after, void *user);

/** Hands task `id` (< CLI_READERS_MAX_TASKS, not in flight) to the threads: read `len` bytes at
 *  offset `off` into `buf`. Tasks are taken in the order they were posted. */
void cli_readers_post(cli_readers *r, unsigned id, void *buf, size_t len, uint64_t off);

/** Waits for task `id` and returns the bytes it read (fewer than asked only at the end of the
 *  file), or -1 with *err set to the errno of the failed pread. Nothing is printed. */
int64_t cli_readers_wait(cli_readers *r, unsigned id, int *err);

/** Waits for the tasks in flight, stops and joins the threads, frees `r`. NULL-safe. */
void cli_readers_stop(cli_readers *r);

#endif /* CLSORT_READERS_H */
