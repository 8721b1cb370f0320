/* clsort_warmup.c - clsort_prepare on a thread while the input is read: the first run's kernels
 * are built (or loaded from the cache) and its buffers reserved meanwhile, so that the sort's time
 * and rate are the sort's, and -v and --progress can show the compile as its own step. */
#include "clsort_warmup.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "clsort_capture.h"
#include "clsort_messages.h"
#include "clsort_progress.h"
#include "clsort_units.h"

static void warmup_run(cli_warmup *w)
{
    const uint64_t t0 = cli_now_ns();
    w->status = w->one_sort ? clsort_prepare_sort(w->ctx, w->type, w->value_size, w->max_n,
                                                  w->algo, w->flags)
                            : clsort_prepare(w->ctx, w->type, w->value_size, w->max_n, w->flags);
    clsort_stats st;
    if (clsort_get_stats(w->ctx, &st) == CLSORT_OK) {
        w->build_ns = st.build_ns;
        w->compiled = st.programs_compiled;
    }
    if (w->status != CLSORT_OK) {
        const char *e = clsort_last_error(w->ctx);
        const size_t len = strcspn(e, "\n");
        snprintf(w->error, sizeof w->error, "%.*s", (int)len, e);
    }
    w->ns = cli_now_ns() - t0;
    __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
}

static void *warmup_main(void *arg)
{
    warmup_run(arg);
    return NULL;
}

void cli_warmup_start(cli_warmup *w, clsort_ctx *ctx, clsort_type type, size_t value_size,
                      size_t max_n, clsort_algorithm algo, int one_sort, unsigned flags)
{
    memset(w, 0, sizeof *w);
    w->ctx = ctx;
    w->type = type;
    w->value_size = value_size;
    w->max_n = max_n;
    w->algo = algo;
    w->one_sort = one_sort;
    w->flags = flags;
    w->status = CLSORT_OK;
    if (max_n < 2)
        return;
    if (pthread_create(&w->thread, NULL, warmup_main, w) == 0)
        w->running = 1;
    else
        warmup_run(w);
}

void cli_warmup_finish(cli_warmup *w)
{
    if (!w->running)
        return;
    /* A load from the library's cache takes a fraction of a second and gets no line of its own;
     * a wait longer than that is the OpenCL compiler, which only a first run on the device pays:
     * the line says so. */
    const uint64_t t0 = cli_now_ns(), load_ns = 500000000u;
    const struct timespec tick = {0, 20000000};
    while (!__atomic_load_n(&w->done, __ATOMIC_ACQUIRE)) {
        if (cli_now_ns() - t0 >= load_ns)
            cli_progress_update(CLI_WARMUP_FIRST_RUN, 0, 0);
        nanosleep(&tick, NULL);
    }
    pthread_join(w->thread, NULL);
    w->running = 0;
    cli_watch_aborts(); /* the compiler's crash handlers are in place now: ours goes first */
}
