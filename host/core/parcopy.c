/* parcopy.c - memcpy over several threads. Threads are started per copy rather than kept in a
 * pool: a copy worth splitting moves megabytes (hundreds of microseconds), against tens of
 * microseconds to start a thread, and a pool would hold threads in every process that links the
 * library, sorting or not. */
#include "parcopy.h"

#include <pthread.h>
#include <string.h>
#include <unistd.h>

#define MAX_THREADS 8
/* Below this many bytes per thread, starting a thread costs more than it saves. */
#define MIN_PER_THREAD ((size_t)1 << 20)

typedef struct part {
    unsigned char *dst;
    const unsigned char *src;
    size_t bytes;
} part;

static void *copy_part(void *arg)
{
    const part *p = arg;
    memcpy(p->dst, p->src, p->bytes);
    return NULL;
}

/* Asked each time (a cheap call): the library keeps no mutable global state (docs/design.md). */
static unsigned cores(void)
{
    const long c = sysconf(_SC_NPROCESSORS_ONLN);
    return c < 1 ? 1u : c > MAX_THREADS ? MAX_THREADS : (unsigned)c;
}

void clsort__copy_parallel(void *dst, const void *src, size_t bytes)
{
    unsigned t = cores();
    if (bytes / MIN_PER_THREAD < t)
        t = (unsigned)(bytes / MIN_PER_THREAD);
    if (t <= 1) {
        memcpy(dst, src, bytes);
        return;
    }
    part parts[MAX_THREADS];
    pthread_t tid[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    /* Parts on 4 KiB boundaries, so that two threads never share a page or a cache line. */
    const size_t each = (bytes / t + 4095) & ~(size_t)4095;
    size_t off = 0;
    for (unsigned i = 0; i < t; ++i) {
        const size_t len = off >= bytes ? 0 : (bytes - off < each ? bytes - off : each);
        parts[i].dst = (unsigned char *)dst + off;
        parts[i].src = (const unsigned char *)src + off;
        parts[i].bytes = len;
        off += len;
    }
    for (unsigned i = 1; i < t; ++i)
        started[i] = pthread_create(&tid[i], NULL, copy_part, &parts[i]) == 0;
    copy_part(&parts[0]);
    for (unsigned i = 1; i < t; ++i) {
        if (started[i])
            pthread_join(tid[i], NULL);
        else
            copy_part(&parts[i]); /* no thread: do its part here */
    }
}
