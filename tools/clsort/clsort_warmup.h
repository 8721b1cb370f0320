/* clsort_warmup.h - the kernels' compile (or cache load) as a step of its own: clsort_prepare_sort
 * (or clsort_prepare) on a thread while the input is read, timed apart from the sort. */
#ifndef CLSORT_WARMUP_H
#define CLSORT_WARMUP_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "clsort.h"

/* What a wait for the compiler is called on the progress line and by -v: the first run of these
 * kernels on this device (afterwards the library's disk cache has them). */
#define CLI_WARMUP_FIRST_RUN "compiling kernels (first run on this device)"

typedef struct cli_warmup {
    clsort_ctx *ctx;
    clsort_type type;
    size_t value_size, max_n;
    clsort_algorithm algo;
    int one_sort;      /* clsort_prepare_sort of max_n keys with algo, else clsort_prepare */
    unsigned flags;
    pthread_t thread;
    int running;       /* the thread was started and not joined yet */
    int status;        /* what clsort_prepare returned (CLSORT_OK when it was not called) */
    uint64_t ns;       /* wall time of the step, including the main thread's wait for it */
    uint64_t build_ns; /* the library's compile or cache-load time in it */
    unsigned compiled; /* programs the compiler made in it (none: all came from the cache) */
    int done;          /* set by the thread when the library call has returned (atomic) */
    char error[160];   /* the first line of clsort_last_error when it failed */
} cli_warmup;

/** Starts, on a thread of its own (on this one if no thread can be started),
 *  clsort_prepare_sort(ctx, type, value_size, max_n, algo, flags) when one_sort (the first run's
 *  size is known: only what that sort runs is built), else clsort_prepare(ctx, type, value_size,
 *  max_n, flags) (a stream: every size up to max_n). max_n < 2 does nothing. The context may be
 *  used by this thread meanwhile (the library takes its lock). */
void cli_warmup_start(cli_warmup *w, clsort_ctx *ctx, clsort_type type, size_t value_size,
                      size_t max_n, clsort_algorithm algo, int one_sort, unsigned flags);

/** Waits for it, shown as the CLI_WARMUP_FIRST_RUN stage once the wait is long enough to be a
 *  compile rather than a load from the library's cache. Idempotent. A failure is not an error of the job: the sort builds what it
 *  needs itself and reports. */
void cli_warmup_finish(cli_warmup *w);

#endif /* CLSORT_WARMUP_H */
