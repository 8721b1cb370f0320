/* clsort_readers.c - the pipeline's reader threads: a mutex, two condition variables and a small
 * table of tasks, one per ring slot. One thread copies from the page cache at 4-7 GB/s on the
 * H200 host (docs/perf.md); several reading disjoint chunks add up. */
#define _XOPEN_SOURCE 700 /* pread() */
#include "clsort_readers.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clsort_fileio.h"

enum { TASK_IDLE, TASK_POSTED, TASK_RUNNING, TASK_DONE };

typedef struct reader_task {
    int state;
    uint64_t seq;        /* post order: the oldest posted task is read first */
    unsigned char *buf;
    size_t len;
    uint64_t off;
    int64_t got;
    int err;
} reader_task;

struct cli_readers {
    int fd;
    const char *path;
    cli_readers_after_fn after;
    void *user;
    pthread_mutex_t lock;
    pthread_cond_t posted, done;
    reader_task task[CLI_READERS_MAX_TASKS];
    uint64_t next_seq;
    int stopping;
    unsigned nthreads;
    pthread_t thread[CLI_READERS_MAX_THREADS];
};

unsigned cli_readers_wanted(void)
{
    const char *env = getenv("CLSORT_CLI_READERS");
    long n;
    if (env && *env) {
        char *end;
        n = strtol(env, &end, 10);
        if (*end != '\0' || n < 1)
            n = 1;
    } else {
        n = sysconf(_SC_NPROCESSORS_ONLN);
        if (n < 1)
            n = 1;
        if (n > 8)
            n = 8;
    }
    return n > CLI_READERS_MAX_THREADS ? CLI_READERS_MAX_THREADS : (unsigned)n;
}

/* The oldest posted task, or NULL. Called with the lock held. */
static reader_task *oldest_posted(cli_readers *r)
{
    reader_task *best = NULL;
    for (unsigned i = 0; i < CLI_READERS_MAX_TASKS; ++i)
        if (r->task[i].state == TASK_POSTED && (!best || r->task[i].seq < best->seq))
            best = &r->task[i];
    return best;
}

static void *reader_main(void *arg)
{
    cli_readers *const r = arg;
    pthread_mutex_lock(&r->lock);
    for (;;) {
        reader_task *t;
        while (!(t = oldest_posted(r)) && !r->stopping)
            pthread_cond_wait(&r->posted, &r->lock);
        if (!t)
            break;
        t->state = TASK_RUNNING;
        unsigned char *const buf = t->buf;
        const size_t len = t->len;
        const uint64_t off = t->off;
        pthread_mutex_unlock(&r->lock);

        int64_t got = -1;
        int err = 0;
        if (cli_test_read_fault(r->path, off, len) != 0)
            err = errno;
        else if ((got = cli_pread_full(r->fd, buf, len, off)) < 0)
            err = errno;
        if (got > 0 && r->after)
            r->after(r->user, buf, (size_t)got);

        pthread_mutex_lock(&r->lock);
        t->got = err ? -1 : got;
        t->err = err;
        t->state = TASK_DONE;
        pthread_cond_broadcast(&r->done);
    }
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

cli_readers *cli_readers_start(int fd, const char *path, unsigned nthreads,
                               cli_readers_after_fn after, void *user)
{
    if (nthreads < 1 || nthreads > CLI_READERS_MAX_THREADS)
        return NULL;
    cli_readers *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->fd = fd;
    r->path = path;
    r->after = after;
    r->user = user;
    if (pthread_mutex_init(&r->lock, NULL) != 0) {
        free(r);
        return NULL;
    }
    pthread_cond_init(&r->posted, NULL);
    pthread_cond_init(&r->done, NULL);
    for (unsigned i = 0; i < nthreads; ++i) {
        if (pthread_create(&r->thread[i], NULL, reader_main, r) != 0)
            break;
        r->nthreads = i + 1;
    }
    if (r->nthreads == 0) {
        cli_readers_stop(r);
        return NULL;
    }
    return r;
}

void cli_readers_post(cli_readers *r, unsigned id, void *buf, size_t len, uint64_t off)
{
    pthread_mutex_lock(&r->lock);
    reader_task *const t = &r->task[id];
    t->state = TASK_POSTED;
    t->seq = r->next_seq++;
    t->buf = buf;
    t->len = len;
    t->off = off;
    t->got = 0;
    t->err = 0;
    pthread_cond_signal(&r->posted);
    pthread_mutex_unlock(&r->lock);
}

int64_t cli_readers_wait(cli_readers *r, unsigned id, int *err)
{
    pthread_mutex_lock(&r->lock);
    reader_task *const t = &r->task[id];
    while (t->state == TASK_POSTED || t->state == TASK_RUNNING)
        pthread_cond_wait(&r->done, &r->lock);
    const int64_t got = t->got;
    *err = t->err;
    t->state = TASK_IDLE;
    pthread_mutex_unlock(&r->lock);
    return got;
}

void cli_readers_stop(cli_readers *r)
{
    if (!r)
        return;
    pthread_mutex_lock(&r->lock);
    /* Tasks still posted are dropped; the ones running finish before their slot may be freed. */
    for (unsigned i = 0; i < CLI_READERS_MAX_TASKS; ++i)
        if (r->task[i].state == TASK_POSTED)
            r->task[i].state = TASK_IDLE;
    r->stopping = 1;
    pthread_cond_broadcast(&r->posted);
    pthread_mutex_unlock(&r->lock);
    for (unsigned i = 0; i < r->nthreads; ++i)
        pthread_join(r->thread[i], NULL);
    pthread_cond_destroy(&r->posted);
    pthread_cond_destroy(&r->done);
    pthread_mutex_destroy(&r->lock);
    free(r);
}
