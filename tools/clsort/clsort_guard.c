/* clsort_guard.c - whole records in every input, and "the input is still what was read" before an
 * in-place replace. The check is stat() of the destination path against the input's stat() from
 * before it was opened: a write that lands after the check and before rename() is still lost,
 * but that window is a few system calls wide, where it used to be the whole sort. */
#include "clsort_guard.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clsort_messages.h"

int cli_guard_prepare(cli_guard *g, const char *const *paths, size_t n, size_t record_size)
{
    memset(g, 0, sizeof *g);
    g->ids = calloc(n ? n : 1, sizeof *g->ids);
    if (!g->ids) {
        cli_error("out of host memory");
        return CLI_EXIT_IO;
    }
    for (size_t i = 0; i < n; ++i) {
        struct stat st;
        if (!paths[i] || stat(paths[i], &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (record_size && (uint64_t)st.st_size % record_size != 0) {
            cli_error("%s: size %llu is not a multiple of the record size %zu (%llu bytes left "
                      "over)",
                      paths[i], (unsigned long long)st.st_size, record_size,
                      (unsigned long long)((uint64_t)st.st_size % record_size));
            cli_guard_free(g);
            return CLI_EXIT_IO;
        }
        g->ids[g->nids++] = (cli_input_id){ paths[i], st.st_dev, st.st_ino, st.st_size,
                                            st.st_mtim, st.st_ctim };
    }
    return CLI_EXIT_OK;
}

static void test_pause(void)
{
    const char *fifo = getenv(CLI_GUARD_PAUSE_ENV);
    if (!fifo || !*fifo)
        return;
    const int fd = open(fifo, O_RDONLY);
    if (fd < 0)
        return;
    char b[64];
    while (read(fd, b, sizeof b) > 0) {
    }
    close(fd);
}

/* Every named input still has the size it had before it was read: one truncated or extended by
 * another process meanwhile was read as neither its old nor its new self, and a result made
 * of that is no sort of either (a file replaced by another, a new inode, was read whole). */
static int inputs_unchanged(const cli_guard *g)
{
    for (size_t i = 0; i < g->nids; ++i) {
        const cli_input_id *const d = &g->ids[i];
        struct stat st;
        if (g->armed && d->dev == g->dest.dev && d->ino == g->dest.ino)
            continue; /* the in-place check below says more */
        if (stat(d->name, &st) != 0 || st.st_dev != d->dev || st.st_ino != d->ino)
            continue;
        if (st.st_size != d->size) {
            cli_error("%s: the input changed size while it was sorted (%lld bytes, now %lld); no "
                      "output written",
                      d->name, (long long)d->size, (long long)st.st_size);
            return -1;
        }
    }
    return 0;
}

static int before_replace(void *user, const char *final_path)
{
    const cli_guard *const g = user;
    if (final_path)
        test_pause();
    if (inputs_unchanged(g) != 0)
        return -1;
    if (!g->armed || !final_path)
        return 0;
    const cli_input_id *const d = &g->dest;
    struct stat st;
    if (stat(final_path, &st) != 0) {
        cli_error("%s: the input disappeared while it was sorted (%s); the result is discarded",
                  d->name, strerror(errno));
        return -1;
    }
    if (st.st_dev != d->dev || st.st_ino != d->ino) {
        cli_error("%s: the input was replaced by another file while it was sorted; that file is "
                  "kept as it is and the result discarded",
                  d->name);
        return -1;
    }
    /* The ctime too: a same-size overwrite whose mtime was set back (touch -r, a restore)
     * still moves it, and nothing but a write, chmod or rename of the input does. */
    if (st.st_size != d->size || st.st_mtim.tv_sec != d->mtime.tv_sec ||
        st.st_mtim.tv_nsec != d->mtime.tv_nsec || st.st_ctim.tv_sec != d->ctime.tv_sec ||
        st.st_ctim.tv_nsec != d->ctime.tv_nsec) {
        cli_error("%s: the input changed while it was sorted (size %lld, now %lld bytes); it is "
                  "kept as it is and the result discarded",
                  d->name, (long long)d->size, (long long)st.st_size);
        return -1;
    }
    return 0;
}

void cli_guard_attach(cli_guard *g, cli_writer *w)
{
    w->before_replace = before_replace;
    w->before_replace_user = g;
    struct stat st;
    if (!w->final_path || stat(w->final_path, &st) != 0)
        return;
    for (size_t i = 0; i < g->nids; ++i) {
        if (g->ids[i].dev == st.st_dev && g->ids[i].ino == st.st_ino) {
            g->dest = g->ids[i];
            g->armed = 1;
            return;
        }
    }
}

void cli_guard_free(cli_guard *g)
{
    if (!g)
        return;
    free(g->ids);
    g->ids = NULL;
    g->nids = 0;
}
