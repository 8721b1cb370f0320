/* clsort_pwrite.c - writing a result at known offsets through several threads (issue 28), and
 * the writer that keeps its bytes in memory.
 *
 * One thread copying a large result into the page cache runs at about 2 GB/s (issue 28's H200
 * measurement: write 0.498 s of a 1.07 s sort of 1 GiB); the copy is the kernel's memcpy, so
 * several threads each writing a disjoint piece with pwrite scale with the cores until memory
 * bandwidth is reached. Where each byte goes is known before it is written (the ranges of the
 * several-device path, a run's place in the output), so nothing has to be ordered between the
 * threads. The temporary file, its fsync and the rename stay where they were (cli_writer_commit):
 * these writes only fill the temporary file.
 *
 * Also here, below clsort_fileio.c (which calls this module, never the other way round): the
 * decision to start a write's writeback (cli_writer_start_writeback), shared by both write paths;
 * the fsyncs are decided in clsort_fileio.c's durability section. */
#if defined(__linux__)
#define _GNU_SOURCE /* sync_file_range(), fallocate() */
#endif
#include "clsort_pwrite.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#if defined(__linux__)
#include <linux/magic.h>
#include <sys/statfs.h>
#endif
#include <unistd.h>

#include "clsort_messages.h"
#include "clsort_units.h"

/* The last step of opening a writer that is not a file of its own: its name and its buffer of
 * buf_size bytes (at least 4 KiB). On failure the writer is left closed (fd -1). */
static int take_buffer(cli_writer *w, size_t buf_size, const char *name)
{
    w->cap = buf_size < 4096 ? 4096 : buf_size;
    w->name = strdup(name);
    w->buf = cli_malloc(w->cap, "the output buffer");
    if (!w->name || !w->buf) {
        if (!w->name)
            cli_error("out of host memory");
        free(w->name);
        free(w->buf);
        memset(w, 0, sizeof *w);
        w->fd = -1;
        return CLI_EXIT_IO;
    }
    return CLI_EXIT_OK;
}

/* A piece smaller than this is not worth a thread's start. */
#define PW_MIN_PIECE ((size_t)8 << 20)
#define PW_MAX_THREADS 16

/* The fields of a writer into memory at dst, cap bytes at most; take_buffer gives it its buffer
 * and name. */
static void open_memory(cli_writer *w, void *dst, uint64_t cap)
{
    memset(w, 0, sizeof *w);
    w->fd = -1;
    w->keep_open = 1; /* commit: nothing to sync or rename */
    w->mem = dst;
    w->mem_cap = cap;
}

int cli_writer_open_memory(cli_writer *w, void *dst, uint64_t cap, size_t buf_size)
{
    open_memory(w, dst, cap);
    return take_buffer(w, buf_size, "memory");
}

/* The message a sequential write gives (clsort_fileio.c's write_all): a run names -T. */
static void report_write_error(const cli_writer *w, int err)
{
    if (w->positional ? !w->is_regular : w->keep_open)
        cli_error("%s: cannot write a temporary run (see -T): %s", w->name, strerror(err));
    else
        cli_error("%s: write error: %s", w->name, strerror(err));
}

int cli_write_error_once(void)
{
    static atomic_int reported;
    return atomic_exchange(&reported, 1) == 0;
}

void cli_thread_block_xfsz(void)
{
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGXFSZ);
    pthread_sigmask(SIG_BLOCK, &s, NULL);
}

int cli_writer_seekable(const cli_writer *w)
{
    return w->fd >= 0 && !w->mem && (w->is_regular || w->keep_open);
}

/* ---- Durability: the writeback of what was just written ------------------------------------- */

/* One of the three places that decide whether a file output's data is pushed to the disk (the
 * others: sync_output_file and sync_output_directory in clsort_fileio.c, the fsyncs around the
 * rename); every write path calls it (write_all and pw_piece_main). */
void cli_writer_start_writeback(const cli_writer *w, uint64_t off, uint64_t len)
{
#if defined(SYNC_FILE_RANGE_WRITE)
    /* Best effort: a file system without it still gets the fsync at commit. Without the fsync
     * (--no-fsync) it would only make the writes wait for the disk sooner, for nothing. */
    if (w->stream_sync && !w->no_fsync && len >= ((uint64_t)1 << 20))
        sync_file_range(w->fd, (off_t)off, (off_t)len, SYNC_FILE_RANGE_WRITE);
#else
    (void)w;
    (void)off;
    (void)len;
#endif
}

typedef struct pw_piece {
    cli_writer *w;
    const unsigned char *data;
    size_t len;
    uint64_t off;
    int err; /* errno of the failed pwrite, 0 */
} pw_piece;

static void *pw_piece_main(void *arg)
{
    pw_piece *const p = arg;
    cli_thread_block_xfsz();
    const unsigned char *d = p->data;
    size_t left = p->len;
    uint64_t off = p->off;
    while (left > 0) {
        const ssize_t r = pwrite(p->w->fd, d, left, (off_t)off);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            p->err = errno;
            return NULL;
        }
        if (r == 0) {
            p->err = EIO;
            return NULL;
        }
        d += r;
        left -= (size_t)r;
        off += (uint64_t)r;
    }
    /* As write_all does: start the writeback now, so that the fsync before the rename waits for
     * the tail only (not with --no-fsync: cli_writer_start_writeback decides). */
    cli_writer_start_writeback(p->w, p->off, p->len);
    return NULL;
}

int cli_writer_pwrite(cli_writer *w, const void *data, size_t len, uint64_t off,
                      unsigned threads)
{
    if (len == 0)
        return CLI_EXIT_OK;
    if (threads < 1)
        threads = 1;
    if (threads > PW_MAX_THREADS)
        threads = PW_MAX_THREADS;
    if ((size_t)threads > len / PW_MIN_PIECE)
        threads = len / PW_MIN_PIECE > 1 ? (unsigned)(len / PW_MIN_PIECE) : 1;
    pw_piece p[PW_MAX_THREADS];
    pthread_t th[PW_MAX_THREADS];
    int started[PW_MAX_THREADS] = { 0 };
    /* Pieces on page boundaries (4 KiB) where the length allows: no page is shared by two
     * threads' copies. */
    size_t per = len / threads;
    per = per > 4096 ? per & ~(size_t)4095 : per;
    for (unsigned t = 0; t < threads; ++t) {
        const size_t a = (size_t)t * per, b = t + 1 == threads ? len : a + per;
        p[t] = (pw_piece){ w, (const unsigned char *)data + a, b - a, off + a, 0 };
    }
    for (unsigned t = 1; t < threads; ++t)
        started[t] = pthread_create(&th[t], NULL, pw_piece_main, &p[t]) == 0;
    pw_piece_main(&p[0]);
    for (unsigned t = 1; t < threads; ++t) {
        if (started[t])
            pthread_join(th[t], NULL);
        else
            pw_piece_main(&p[t]); /* no thread: this one writes it */
    }
    for (unsigned t = 0; t < threads; ++t) {
        if (p[t].err) {
            if (cli_write_error_once())
                report_write_error(w, p[t].err);
            return CLI_EXIT_IO;
        }
    }
    return CLI_EXIT_OK;
}

int cli_writer_advance(cli_writer *w, uint64_t len, uint64_t ns)
{
    if (w->len != 0 || lseek(w->fd, (off_t)(w->written + len), SEEK_SET) < 0) {
        cli_error("%s: cannot seek the output: %s", w->name,
                  w->len ? "unwritten bytes in its buffer" : strerror(errno));
        return CLI_EXIT_IO;
    }
    w->written += len;
    w->write_ns += ns;
    return CLI_EXIT_OK;
}

int cli_writer_open_at(cli_writer *w, const cli_writer *parent, uint64_t off, size_t buf_size)
{
    const uint64_t at = parent->written + off;
    if (parent->mem) {
        if (at > parent->mem_cap) {
            cli_error("%s: a part beyond the %llu bytes reserved", parent->name,
                      (unsigned long long)parent->mem_cap);
            return CLI_EXIT_IO;
        }
        return cli_writer_open_memory(w, parent->mem + at, parent->mem_cap - at, buf_size);
    }
    memset(w, 0, sizeof *w);
    w->fd = parent->fd;
    w->keep_open = 1; /* commit hands the fd back (to nobody): the parent closes it */
    w->positional = 1;
    w->is_regular = parent->is_regular; /* a run's part: its messages are a run's */
    w->pos_base = (parent->positional ? parent->pos_base : 0) + at;
    w->stream_sync = parent->stream_sync;
    w->no_fsync = parent->no_fsync;
    return take_buffer(w, buf_size, parent->name ? parent->name : "output");
}

/* ---- A mapped stretch: parts stored at once, without the inode's turns ---------------------- */

/* Why: Linux takes a file's write lock for every pwrite, so the threads of cli_writer_pwrite and
 * of the parallel merge copy one at a time (about 3.7 GiB/s into tmpfs on the H200 machine), and
 * the waiting ones spin: the 16-part merge of 16 GiB spent 34 s of system time against 12 s with
 * 8 parts (docs/perf.md, 2026-11-27). Stores into a shared mapping take no such lock. The blocks
 * are allocated before anything is stored (fallocate): a full file system then fails here, and
 * the caller writes with pwrite and reports the error as always, instead of a SIGBUS in the middle
 * of a copy. With `lazy`, only the first page is allocated (to find out that the file system can)
 * and the file is extended to the stretch's end: its writers allocate the rest before they store
 * (cli_writer_mapped_allocate), so a full file system is still an error and never a SIGBUS. */
int cli_fsize_allows(uint64_t end)
{
    struct rlimit lim;
    return !(getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY &&
             end > (uint64_t)lim.rlim_cur);
}

/* A stretch not used after all: the file gets its former size back. Best effort: blocks a
 * failed fallocate left are overwritten by the pwrites or trimmed at commit, and an output being
 * abandoned is removed anyway. */
static void give_back_size(int fd, uint64_t size)
{
    if (ftruncate(fd, (off_t)size) != 0) {
        /* As said above. */
    }
}

static unsigned char *map_stretch(cli_writer *w, uint64_t len, cli_wmap *m, int lazy)
{
    memset(m, 0, sizeof *m);
#if defined(__linux__)
    const char *env = getenv("CLSORT_CLI_MAP_OUTPUT");
    if ((env && strcmp(env, "0") == 0) || len == 0 || !cli_writer_seekable(w) || w->len != 0)
        return NULL;
    /* A file synced as it is written: the streamed writeback of pwrite's pages measured faster
     * than that of mapped ones (ext4, docs/perf.md 2026-11-26); tmpfs has no writeback. */
    struct statfs fs;
    if (!(env && strcmp(env, "1") == 0) && w->stream_sync && !w->no_fsync &&
        (fstatfs(w->fd, &fs) != 0 || fs.f_type != TMPFS_MAGIC))
        return NULL;
    const uint64_t off = (w->positional ? w->pos_base : 0) + w->written;
    const long page = sysconf(_SC_PAGESIZE);
    if (page <= 0)
        return NULL;
    const uint64_t lead = off % (uint64_t)page;
    if (len > (uint64_t)INT64_MAX - off || len > (uint64_t)SIZE_MAX - lead)
        return NULL;
    if (!cli_fsize_allows(off + len))
        return NULL;
    struct stat st;
    if (fstat(w->fd, &st) != 0 || !S_ISREG(st.st_mode))
        return NULL;
    m->old_size = (uint64_t)st.st_size;
    const uint64_t first = lazy && len > (uint64_t)page ? (uint64_t)page : len;
    if (fallocate(w->fd, 0, (off_t)off, (off_t)first) != 0 ||
        (first < len && (uint64_t)st.st_size < off + len &&
         ftruncate(w->fd, (off_t)(off + len)) != 0)) {
        give_back_size(w->fd, m->old_size);
        return NULL;
    }
    void *const a = mmap(NULL, (size_t)(lead + len), PROT_READ | PROT_WRITE, MAP_SHARED, w->fd,
                         (off_t)(off - lead));
    if (a == MAP_FAILED) {
        give_back_size(w->fd, m->old_size);
        return NULL;
    }
    m->addr = a;
    m->maplen = (size_t)(lead + len);
    m->off = off;
    m->len = len;
    m->lazy = first < len;
    return (unsigned char *)a + lead;
#else
    (void)w;
    (void)len;
    (void)lazy;
    return NULL;
#endif
}

unsigned char *cli_writer_map(cli_writer *w, uint64_t len, cli_wmap *m)
{
    return map_stretch(w, len, m, 0);
}

unsigned char *cli_writer_map_lazy(cli_writer *w, uint64_t len, cli_wmap *m)
{
    return map_stretch(w, len, m, 1);
}

/* How far ahead of its stores a writer into a lazy mapping allocates: at first little, so that
 * every part starts soon, then as much as it has already (up to a limit), so that the parts call
 * fallocate a few times each. fallocate holds the file's lock while it allocates, and the parts
 * that wait for it spin: with 64 MiB steps the 16 vector-merge parts of 16 GiB spent 24-33 s of
 * system time, with 512 MiB steps 16-18 s (docs/perf.md, 2026-11-27, fifth). */
#define MAP_ALLOC_FIRST ((uint64_t)64 << 20)
#define MAP_ALLOC_MAX ((uint64_t)512 << 20)

int cli_writer_open_mapped(cli_writer *w, const cli_writer *parent, const cli_wmap *m,
                           uint64_t off, uint64_t cap, size_t buf_size)
{
    open_memory(w, (unsigned char *)m->addr + (m->maplen - m->len) + off, cap);
    /* Its messages are those of a part that pwrites parent's file (cli_writer_open_at). */
    w->positional = 1;
    w->is_regular = parent->is_regular;
    w->map_lazy = m->lazy;
    w->map_fd = parent->fd;
    w->map_off = m->off + off;
    return take_buffer(w, buf_size, parent->name ? parent->name : "output");
}

int cli_writer_mapped_allocate(cli_writer *w, uint64_t end)
{
#if defined(__linux__)
    uint64_t step = end - w->map_alloc;
    const uint64_t ahead = w->map_alloc < MAP_ALLOC_FIRST ? MAP_ALLOC_FIRST
                           : w->map_alloc > MAP_ALLOC_MAX ? MAP_ALLOC_MAX
                                                          : w->map_alloc;
    if (step < ahead)
        step = ahead;
    if (step > w->mem_cap - w->map_alloc)
        step = w->mem_cap - w->map_alloc;
    if (end > w->mem_cap || step == 0) {
        cli_error("%s: %llu bytes more than the %llu bytes reserved", w->name,
                  (unsigned long long)(end - w->map_alloc), (unsigned long long)w->mem_cap);
        return CLI_EXIT_IO;
    }
    int r;
    while ((r = fallocate(w->map_fd, 0, (off_t)(w->map_off + w->map_alloc), (off_t)step)) != 0 &&
           errno == EINTR) {
    }
    if (r != 0) {
        if (cli_write_error_once())
            report_write_error(w, errno);
        return CLI_EXIT_IO;
    }
    w->map_alloc += step;
    return CLI_EXIT_OK;
#else
    (void)end;
    cli_error("%s: a lazy mapping without fallocate", w->name);
    return CLI_EXIT_IO;
#endif
}

void cli_writer_unmap(cli_writer *w, cli_wmap *m, int filled)
{
    if (!m->addr)
        return;
    munmap(m->addr, m->maplen);
    m->addr = NULL;
    if (filled)
        cli_writer_start_writeback(w, m->off, m->len);
    else
        give_back_size(w->fd, m->old_size);
}

static void *map_async_main(void *arg)
{
    cli_wmap_async *const a = arg;
    const uint64_t t0 = cli_now_ns();
    cli_writer_map(a->w, a->len, &a->m);
    a->ns = cli_now_ns() - t0;
    return NULL;
}

void cli_writer_map_start(cli_wmap_async *a, cli_writer *w, uint64_t len)
{
    memset(a, 0, sizeof *a);
    a->w = w;
    a->len = len;
    a->started = pthread_create(&a->thread, NULL, map_async_main, a) == 0;
}

uint64_t cli_writer_map_finish(cli_wmap_async *a, cli_wmap *m)
{
    memset(m, 0, sizeof *m);
    if (!a->started)
        return 0;
    pthread_join(a->thread, NULL);
    a->started = 0;
    *m = a->m;
    memset(&a->m, 0, sizeof a->m);
    return a->ns;
}

/* ---- A pool of writer threads: blocks written at known offsets while the caller goes on ---- */

#define WP_MAX 16

struct cli_wpool {
    cli_writer *w;
    uint64_t base;              /* the file offset of the caller's offset 0 */
    unsigned char *map;         /* where offset 0 is mapped (cli_writer_map); NULL: pwrite */
    cli_wmap wm;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t th[WP_MAX];
    unsigned nthreads;
    struct {
        const unsigned char *data;
        size_t len;
        uint64_t off;
        int state;              /* 0 free, 1 posted, 2 being written */
    } task[WP_MAX];
    unsigned queue[WP_MAX];     /* posted task ids, oldest first */
    unsigned qhead, qlen;
    int stop;
    int err;                    /* the first failed pwrite's errno */
};

static void *wp_main(void *arg)
{
    cli_wpool *const p = arg;
    cli_thread_block_xfsz();
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (p->qlen == 0 && !p->stop)
            pthread_cond_wait(&p->cv, &p->mu);
        if (p->qlen == 0)
            break;
        const unsigned id = p->queue[p->qhead];
        p->qhead = (p->qhead + 1) % WP_MAX;
        p->qlen -= 1;
        p->task[id].state = 2;
        pw_piece piece = { p->w, p->task[id].data, p->task[id].len, p->base + p->task[id].off, 0 };
        pthread_mutex_unlock(&p->mu);
        if (p->map && p->task[id].off + piece.len <= p->wm.len)
            memcpy(p->map + p->task[id].off, piece.data, piece.len);
        else if (p->map)
            piece.err = EFBIG; /* past the mapped length: a caller's error */
        else if (!p->err) /* after an error the rest is not worth writing */
            pw_piece_main(&piece);
        pthread_mutex_lock(&p->mu);
        if (piece.err && !p->err)
            p->err = piece.err;
        p->task[id].state = 0;
        pthread_cond_broadcast(&p->cv);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

cli_wpool *cli_wpool_start(cli_writer *w, unsigned threads, cli_wmap *m)
{
    if (!cli_writer_seekable(w) || w->len != 0 || threads < 1)
        return NULL;
    cli_wpool *const p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->w = w;
    p->base = (w->positional ? w->pos_base : 0) + w->written;
    if (pthread_mutex_init(&p->mu, NULL) != 0) {
        free(p);
        return NULL;
    }
    if (pthread_cond_init(&p->cv, NULL) != 0) {
        pthread_mutex_destroy(&p->mu);
        free(p);
        return NULL;
    }
    if (threads > WP_MAX)
        threads = WP_MAX;
    if (m && m->addr) { /* before the threads start, which then only read it */
        p->wm = *m;
        p->map = (unsigned char *)m->addr + (m->maplen - m->len);
        memset(m, 0, sizeof *m);
    }
    for (; p->nthreads < threads; ++p->nthreads)
        if (pthread_create(&p->th[p->nthreads], NULL, wp_main, p) != 0)
            break;
    if (p->nthreads == 0) {
        if (m)
            *m = p->wm; /* still the caller's */
        pthread_cond_destroy(&p->cv);
        pthread_mutex_destroy(&p->mu);
        free(p);
        return NULL;
    }
    return p;
}

void cli_wpool_post(cli_wpool *p, unsigned id, const void *data, size_t len, uint64_t off)
{
    pthread_mutex_lock(&p->mu);
    p->task[id].data = data;
    p->task[id].len = len;
    p->task[id].off = off;
    p->task[id].state = 1;
    p->queue[(p->qhead + p->qlen) % WP_MAX] = id;
    p->qlen += 1;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

/* The first error, printed once. Called with the lock held. */
static int wp_status(cli_wpool *p)
{
    if (!p->err)
        return CLI_EXIT_OK;
    if (p->err > 0) {
        if (cli_write_error_once())
            report_write_error(p->w, p->err);
        p->err = -p->err; /* printed */
    }
    return CLI_EXIT_IO;
}

int cli_wpool_wait(cli_wpool *p, unsigned id)
{
    pthread_mutex_lock(&p->mu);
    while (p->task[id].state != 0)
        pthread_cond_wait(&p->cv, &p->mu);
    const int rc = wp_status(p);
    pthread_mutex_unlock(&p->mu);
    return rc;
}

int cli_wpool_stop(cli_wpool *p)
{
    if (!p)
        return CLI_EXIT_OK;
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    for (unsigned t = 0; t < p->nthreads; ++t)
        pthread_join(p->th[t], NULL);
    const int rc = wp_status(p);
    cli_writer_unmap(p->w, &p->wm, rc == CLI_EXIT_OK);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    free(p);
    return rc;
}
