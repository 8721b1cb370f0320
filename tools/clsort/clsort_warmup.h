/* clsort_warmup.h - the kernels' compile (or cache load) as a step of its own: clsort_prepare on a
 * thread while the input is read, timed apart from the sort (issue 23). */
#ifndef CLSORT_WARMUP_H
#define CLSORT_WARMUP_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "clsort.h"

typedef struct cli_warmup {
    clsort_ctx *ctx;
    clsort_type type;
    size_t value_size, max_n;
    unsigned flags;
    pthread_t thread;
    int running;       /* the thread was started and not joined yet */
    int status;        /* what clsort_prepare returned (CLSORT_OK when it was not called) */
    uint64_t ns;       /* wall time of the step, including the main thread's wait for it */
    uint64_t build_ns; /* the library's compile or cache-load time in it */
    char error[160];   /* the first line of clsort_last_error when it failed */
} cli_warmup;

/** Starts clsort_prepare(ctx, type, value_size, max_n, flags) on a thread of its own (on this one
 *  if no thread can be started). max_n < 2 does nothing. The context may be used by this thread
 *  meanwhile (the library takes its lock). */
void cli_warmup_start(cli_warmup *w, clsort_ctx *ctx, clsort_type type, size_t value_size,
                      size_t max_n, unsigned flags);

/** Waits for it (shown as the "compiling kernels" stage while it is waited for). Idempotent. A
 *  failure is not an error of the job: the sort builds what it needs itself and reports. */
void cli_warmup_finish(cli_warmup *w);

#endif /* CLSORT_WARMUP_H */
