/* clsort_warmup.c - clsort_prepare on a thread while the input is read: the first run's kernels
 * are built (or loaded from the cache) and its buffers reserved meanwhile, so that the sort's time
 * and rate are the sort's, and -v and --progress can show the compile as its own step. */
#include "clsort_warmup.h"

#include <stdio.h>
#include <string.h>

#include "clsort_capture.h"
#include "clsort_messages.h"
#include "clsort_progress.h"
#include "clsort_units.h"

static void warmup_run(cli_warmup *w)
{
    const uint64_t t0 = cli_now_ns();
    w->status = clsort_prepare(w->ctx, w->type, w->value_size, w->max_n, w->flags);
    clsort_stats st;
    if (clsort_get_stats(w->ctx, &st) == CLSORT_OK)
        w->build_ns = st.build_ns;
    if (w->status != CLSORT_OK) {
        const char *e = clsort_last_error(w->ctx);
        const size_t len = strcspn(e, "\n");
        snprintf(w->error, sizeof w->error, "%.*s", (int)len, e);
    }
    w->ns = cli_now_ns() - t0;
}

static void *warmup_main(void *arg)
{
    warmup_run(arg);
    return NULL;
}

void cli_warmup_start(cli_warmup *w, clsort_ctx *ctx, clsort_type type, size_t value_size,
                      size_t max_n, unsigned flags)
{
    memset(w, 0, sizeof *w);
    w->ctx = ctx;
    w->type = type;
    w->value_size = value_size;
    w->max_n = max_n;
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
    cli_progress_update("compiling kernels", 0, 0);
    pthread_join(w->thread, NULL);
    w->running = 0;
    cli_watch_aborts(); /* the compiler's crash handlers are in place now: ours goes first */
}
