/* clsort_fileio.c - input, buffered output, atomic replacement and anonymous run files.
 *
 * The rule every path here keeps: the destination is never touched until the complete result
 * exists. A file destination is written to ".NAME.clsort-XXXXXX" in its own directory (same file
 * system, so rename() is atomic), fsync'ed, given the mode of the file it replaces, and renamed over
 * it; then the directory is fsync'ed so that the rename itself survives a crash. --no-fsync drops
 * the two fsyncs and the streamed writeback (the durability section below) and nothing else. */
#define _XOPEN_SOURCE 700 /* realpath() */
#if defined(__linux__)
#define _GNU_SOURCE /* fallocate() */
#endif
#include "clsort_fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clsort_messages.h"
#include "clsort_signals.h"
#include "clsort_units.h"

/* ---- Input ---------------------------------------------------------------------------------- */

int cli_test_read_fault(const char *path, uint64_t off, size_t len)
{
    static atomic_int shrunk;
    const char *env = getenv(CLI_TEST_READ_FAULT_ENV);
    if (!env || !path || len == 0)
        return 0;
    const int eio = strncmp(env, "eio:", 4) == 0, shrink = strncmp(env, "shrink:", 7) == 0;
    if (!eio && !shrink)
        return 0;
    const uint64_t at = strtoull(env + (eio ? 4 : 7), NULL, 10);
    if (at < off || at - off >= len)
        return 0;
    if (eio) {
        errno = EIO;
        return -1;
    }
    if (atomic_exchange(&shrunk, 1) == 0 && truncate(path, (off_t)at) != 0)
        return 0; /* the read then sees the whole file; the test says so */
    return 0;
}

/* Opens one file (NULL: standard input) as the current one of `in`. */
static int open_one(cli_input *in, const char *path)
{
    in->path = path;
    in->name = path ? path : "standard input";
    in->is_regular = 0;
    in->size = 0;
    if (path) {
        in->fd = open(path, O_RDONLY);
        if (in->fd < 0) {
            cli_error("%s: cannot open input: %s", path, strerror(errno));
            return CLI_EXIT_IO;
        }
    } else {
        in->fd = STDIN_FILENO;
    }
    struct stat st;
    if (fstat(in->fd, &st) != 0) {
        cli_error("%s: cannot stat input: %s", in->name, strerror(errno));
        cli_input_close(in);
        return CLI_EXIT_IO;
    }
    if (S_ISDIR(st.st_mode)) {
        cli_error("%s: cannot read input: %s", in->name, strerror(EISDIR));
        cli_input_close(in);
        return CLI_EXIT_IO;
    }
    if (S_ISREG(st.st_mode)) {
        in->is_regular = 1;
        in->size = (uint64_t)st.st_size;
#if defined(POSIX_FADV_SEQUENTIAL)
        posix_fadvise(in->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    }
    return CLI_EXIT_OK;
}

int cli_input_open(cli_input *in, const char *path)
{
    memset(in, 0, sizeof *in);
    in->peeked = -1;
    return open_one(in, path);
}

int cli_input_open_fd(cli_input *in, int fd, const char *name)
{
    memset(in, 0, sizeof *in);
    in->peeked = -1;
    in->fd = fd;
    in->name = name;
    struct stat st;
    if (lseek(fd, 0, SEEK_SET) != 0 || fstat(fd, &st) != 0) {
        cli_error("%s: cannot read it back: %s", name, strerror(errno));
        return CLI_EXIT_IO;
    }
    in->is_regular = S_ISREG(st.st_mode);
    in->size = (uint64_t)st.st_size;
    return CLI_EXIT_OK;
}

int cli_input_open_list(cli_input *in, const char *const *paths, size_t n, size_t record_size)
{
    int rc = cli_input_open(in, n ? paths[0] : NULL);
    if (rc != CLI_EXIT_OK || n < 2)
        return rc;
    in->more = paths + 1;
    in->nmore = n - 1;
    in->record_size = record_size;
    /* The total, for the caller's sizing and progress; the files are opened as they come. */
    for (size_t i = 1; i < n && in->is_regular; ++i) {
        struct stat st;
        if (paths[i] && stat(paths[i], &st) == 0 && S_ISREG(st.st_mode))
            in->size += (uint64_t)st.st_size;
        else
            in->is_regular = 0;
    }
    return CLI_EXIT_OK;
}

/* At the end of one file of a list: checks that it held whole records and opens the next one.
 * Returns 1 when there is a next file, 0 at the end of the last one, -1 on an error (printed). */
static int next_file(cli_input *in)
{
    if (in->nmore == 0)
        return 0;
    const uint64_t bytes = in->consumed - in->file_start;
    if (in->record_size && bytes % in->record_size != 0) {
        cli_error("%s: size %llu is not a multiple of the record size %zu", in->name,
                  (unsigned long long)bytes, in->record_size);
        return -1;
    }
    const uint64_t total = in->size;
    const int all_regular = in->is_regular;
    cli_input_close(in);
    const char *const path = in->more[0];
    in->more += 1;
    in->nmore -= 1;
    in->file_start = in->consumed;
    if (open_one(in, path) != CLI_EXIT_OK)
        return -1;
    in->size = total; /* open_one described this file; keep the list's total */
    in->is_regular = all_regular && in->is_regular;
    return 1;
}

int64_t cli_input_read(cli_input *in, void *buf, size_t len)
{
    unsigned char *p = buf;
    size_t got = 0;
    if (len > 0 && in->peeked >= 0) {
        p[got++] = (unsigned char)in->peeked;
        in->peeked = -1;
    }
    while (got < len && !in->at_eof) {
        size_t want = len - got;
        if (want > ((size_t)1 << 30))
            want = (size_t)1 << 30; /* Some systems cap single reads. */
        const ssize_t r =
            cli_test_read_fault(in->path, in->consumed + got - in->file_start, want) != 0
                ? -1
                : read(in->fd, p + got, want);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            cli_error("%s: read error: %s", in->name, strerror(errno));
            return -1;
        }
        if (r == 0) {
            in->consumed += got; /* next_file checks the file's size */
            const int more = next_file(in);
            in->consumed -= got;
            if (more < 0)
                return -1;
            if (more)
                continue;
            in->at_eof = 1;
            break;
        }
        got += (size_t)r;
    }
    in->consumed += got;
    return (int64_t)got;
}

int cli_input_eof(cli_input *in)
{
    if (in->peeked >= 0)
        return 0;
    if (in->at_eof)
        return 1;
    unsigned char c;
    for (;;) {
        const ssize_t r = cli_test_read_fault(in->path, in->consumed - in->file_start, 1) != 0
                              ? -1
                              : read(in->fd, &c, 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            cli_error("%s: read error: %s", in->name, strerror(errno));
            return -1;
        }
        if (r == 0) {
            const int more = next_file(in);
            if (more < 0)
                return -1;
            if (more)
                continue;
            in->at_eof = 1;
            return 1;
        }
        in->peeked = c;
        return 0;
    }
}

void cli_input_close(cli_input *in)
{
    if (in->path && in->fd >= 0)
        close(in->fd);
    in->fd = -1;
}

int64_t cli_pread_full(int fd, void *buf, size_t len, uint64_t off)
{
    unsigned char *p = buf;
    size_t got = 0;
    while (got < len) {
        const ssize_t r = pread(fd, p + got, len - got, (off_t)(off + got));
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (int64_t)got;
}

/* ---- Output --------------------------------------------------------------------------------- */

static int writer_alloc(cli_writer *w, size_t buf_size)
{
    w->cap = buf_size < 4096 ? 4096 : buf_size;
    w->buf = cli_malloc(w->cap, "the output buffer");
    return w->buf ? CLI_EXIT_OK : CLI_EXIT_IO;
}

/* Frees what the writer holds; its counters stay readable for the caller's report. */
static void writer_free(cli_writer *w)
{
    const uint64_t written = w->written, write_ns = w->write_ns, sync_ns = w->sync_ns;
    free(w->buf);
    free(w->name);
    free(w->tmp_path);
    free(w->final_path);
    memset(w, 0, sizeof *w);
    w->fd = -1;
    w->written = written;
    w->write_ns = write_ns;
    w->sync_ns = sync_ns;
}

/* The final fsync of a large output waits for all of its writeback when the page cache held it
 * back until then; starting the writeback of each large write at once (sync_file_range, Linux)
 * overlaps it with the rest of the work, and the fsync waits for the tail only.
 * CLSORT_CLI_STREAM_SYNC=0 turns it off, and cli_writer_reserve's preallocation with it (to
 * measure them, docs/perf.md). */
static int stream_sync_wanted(void)
{
#if defined(SYNC_FILE_RANGE_WRITE)
    const char *env = getenv("CLSORT_CLI_STREAM_SYNC");
    return !(env && strcmp(env, "0") == 0);
#else
    return 0;
#endif
}

static int named_temporary; /* cli_writer_use_named_temporary */

void cli_writer_use_named_temporary(void)
{
    named_temporary = 1;
}

static mode_t current_umask(void)
{
    /* Read without changing it for good: no other thread creates files at this point. */
    const mode_t m = umask(022);
    umask(m);
    return m;
}

/* Where a path that does not exist yet is created: the path itself, or, when it is a symbolic link
 * to nothing (a chain of them), the name the last link points to, relative to that link's
 * directory. Returns a malloc'ed path, or NULL with errno set (ENOMEM, ELOOP). */
static char *follow_dangling_link(const char *target)
{
    char *path = strdup(target);
    for (int hops = 0; path && hops < 40; ++hops) {
        struct stat ls;
        char to[PATH_MAX];
        if (lstat(path, &ls) != 0 || !S_ISLNK(ls.st_mode))
            return path;
        const ssize_t n = readlink(path, to, sizeof to - 1);
        if (n < 0)
            return path;
        to[n] = 0;
        const char *slash = strrchr(path, '/');
        const size_t dir_len = to[0] != '/' && slash ? (size_t)(slash - path) + 1 : 0;
        char *const next = malloc(dir_len + (size_t)n + 1);
        if (next) {
            memcpy(next, path, dir_len);
            memcpy(next + dir_len, to, (size_t)n + 1);
        }
        free(path);
        path = next;
    }
    if (path) {
        free(path);
        errno = ELOOP;
        return NULL;
    }
    errno = ENOMEM;
    return NULL;
}

int cli_writer_open_output(cli_writer *w, const char *output, const char *input_path,
                           size_t buf_size, int no_fsync)
{
    /* A write past ulimit -f is an error (EFBIG, exit 3), not SIGXFSZ's death: here and in every
     * thread started from now on (they inherit the mask). */
    cli_thread_block_xfsz();
    memset(w, 0, sizeof *w);
    w->fd = -1;
    const char *target = output ? output : input_path;
    if (!target || strcmp(target, "-") == 0) {
        w->fd = STDOUT_FILENO;
        w->is_stdout = 1;
        w->name = strdup("standard output");
        if (!w->name || writer_alloc(w, buf_size) != CLI_EXIT_OK)
            goto fail_oom;
        return CLI_EXIT_OK;
    }

    struct stat st;
    if (stat(target, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            cli_error("%s: cannot write output: %s", target, strerror(EISDIR));
            goto fail;
        }
        if (!S_ISREG(st.st_mode)) {
            /* A device or a pipe: there is nothing to replace, write into it. */
            w->fd = open(target, O_WRONLY | O_TRUNC);
            if (w->fd < 0) {
                cli_error("%s: cannot open output: %s", target, strerror(errno));
                goto fail;
            }
            w->name = strdup(target);
            if (!w->name || writer_alloc(w, buf_size) != CLI_EXIT_OK)
                goto fail_oom;
            return CLI_EXIT_OK;
        }
        if (access(target, W_OK) != 0) {
            cli_error("%s: output not writable: %s", target, strerror(errno));
            goto fail;
        }
        /* Replace the file a symbolic link points to, not the link. */
        w->final_path = realpath(target, NULL);
        if (!w->final_path) {
            cli_error("%s: cannot resolve output path: %s", target, strerror(errno));
            goto fail;
        }
        w->mode = st.st_mode & 07777;
        w->uid = st.st_uid;
        w->gid = st.st_gid;
        w->set_owner = geteuid() == 0;
    } else if (errno == ENOENT) {
        /* A dangling symbolic link: the result goes where it points, as GNU sort's does. */
        w->final_path = follow_dangling_link(target);
        if (!w->final_path) {
            cli_error("%s: cannot resolve output path: %s", target, strerror(errno));
            goto fail;
        }
        w->mode = 0666 & ~current_umask();
    } else {
        cli_error("%s: cannot write output: %s", target, strerror(errno));
        goto fail;
    }
    w->name = strdup(target);
    if (!w->name)
        goto fail_oom;

    /* The temporary file lives beside the destination: ".NAME.clsort-XXXXXX". */
    const char *slash = strrchr(w->final_path, '/');
    const size_t dir_len = slash ? (size_t)(slash - w->final_path) + 1 : 0;
    const char *base = w->final_path + dir_len;
    const size_t base_len = strlen(base) > 200 ? 0 : strlen(base); /* stay under NAME_MAX */
    w->tmp_path = malloc(dir_len + base_len + 32);
    if (!w->tmp_path)
        goto fail_oom;
    snprintf(w->tmp_path, dir_len + base_len + 32, "%.*s.%.*s.clsort-XXXXXX", (int)dir_len,
             w->final_path, (int)base_len, base);
    /* Without a name until commit where the file system offers it (O_TMPFILE), so that even
     * SIGKILL leaves nothing behind; else named at once and removed on the way out. */
    w->fd = named_temporary ? -1 : cli_tmp_create_unnamed(w->tmp_path);
    w->unnamed = w->fd >= 0;
    if (w->fd < 0)
        w->fd = cli_tmp_create(w->tmp_path);
    if (w->fd < 0) {
        cli_error("%s: cannot create temporary output file in its directory: %s", target,
                  strerror(errno));
        free(w->tmp_path);
        w->tmp_path = NULL;
        goto fail;
    }
    w->is_regular = 1;
    w->stream_sync = stream_sync_wanted();
    w->no_fsync = no_fsync;
    if (writer_alloc(w, buf_size) != CLI_EXIT_OK) {
        cli_writer_abort(w);
        return CLI_EXIT_IO;
    }
    return CLI_EXIT_OK;

fail_oom:
    cli_error("%s: out of host memory", target);
fail:
    if (w->fd >= 0 && !w->is_stdout)
        close(w->fd);
    writer_free(w);
    return CLI_EXIT_IO;
}

int cli_writer_open_run(cli_writer *w, const char *dir, size_t buf_size)
{
    cli_thread_block_xfsz(); /* as for the output */
    memset(w, 0, sizeof *w);
    const size_t len = strlen(dir) + 32;
    char *templ = malloc(len);
    if (!templ) {
        cli_error("out of host memory");
        return CLI_EXIT_IO;
    }
    snprintf(templ, len, "%s/clsort-run-XXXXXX", dir);
    w->fd = cli_tmp_create_anonymous(templ);
    free(templ);
    if (w->fd < 0) {
        cli_error("%s: cannot create a temporary run file (see -T): %s", dir, strerror(errno));
        w->fd = -1;
        return CLI_EXIT_IO;
    }
    w->keep_open = 1;
    w->name = strdup(dir);
    if (!w->name || writer_alloc(w, buf_size) != CLI_EXIT_OK) {
        close(w->fd);
        writer_free(w);
        return CLI_EXIT_IO;
    }
    return CLI_EXIT_OK;
}

static int write_all(cli_writer *w, const unsigned char *p, size_t len)
{
    const uint64_t t0 = cli_now_ns();
    const uint64_t start = w->written, total = len;
    if (w->mem) { /* cli_writer_open_memory */
        if (len > w->mem_cap - w->written) {
            cli_error("%s: %zu bytes more than the %llu bytes reserved", w->name, len,
                      (unsigned long long)w->mem_cap);
            return CLI_EXIT_IO;
        }
        if (w->map_lazy && w->written + len > w->map_alloc &&
            cli_writer_mapped_allocate(w, w->written + len) != CLI_EXIT_OK)
            return CLI_EXIT_IO;
        memcpy(w->mem + w->written, p, len);
        w->written += len;
        w->write_ns += cli_now_ns() - t0;
        return CLI_EXIT_OK;
    }
    if (w->is_stdout && w->written == 0 && len > 0 && w->before_replace &&
        w->before_replace(w->before_replace_user, NULL) != 0)
        return CLI_EXIT_IO;
    while (len > 0) {
        const ssize_t r = w->positional
                              ? pwrite(w->fd, p, len, (off_t)(w->pos_base + w->written))
                              : write(w->fd, p, len);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EPIPE) /* a reader that stopped reading (| head): as sort(1), quietly */
                cli_die_of_broken_pipe();
            /* A part of a run (cli_writer_open_at) is not a regular output; parts: one line. */
            const int run = w->positional ? !w->is_regular : w->keep_open;
            if (w->positional && !cli_write_error_once())
                ;
            else if (run)
                cli_error("%s: cannot write a temporary run (see -T): %s", w->name,
                          strerror(errno));
            else
                cli_error("%s: write error: %s", w->name, strerror(errno));
            return CLI_EXIT_IO;
        }
        p += r;
        len -= (size_t)r;
        w->written += (uint64_t)r;
    }
    cli_writer_start_writeback(w, w->pos_base + start, total);
    w->write_ns += cli_now_ns() - t0;
    return CLI_EXIT_OK;
}

void cli_writer_reserve(cli_writer *w, uint64_t bytes)
{
#if defined(__linux__) && defined(FALLOC_FL_KEEP_SIZE)
    /* fallocate, not posix_fallocate: where the file system cannot, glibc's emulation would
     * write every block, which costs more than it saves. */
    if (!w->is_regular || w->keep_open || w->written != 0 || bytes == 0 || !w->stream_sync)
        return;
    if (!cli_fsize_allows(bytes))
        return;
    if (fallocate(w->fd, 0, 0, (off_t)bytes) == 0)
        w->reserved = bytes;
    else if (ftruncate(w->fd, 0) != 0) {
        /* Nothing was allocated that the writes will not overwrite or commit trim. */
    }
#else
    (void)w;
    (void)bytes;
#endif
}

int cli_writer_flush(cli_writer *w)
{
    const size_t len = w->len;
    w->len = 0;
    return len ? write_all(w, w->buf, len) : CLI_EXIT_OK;
}

void cli_writer_rewind(cli_writer *w)
{
    w->len = 0;
    w->written = 0;
}

int cli_writer_put(cli_writer *w, const void *data, size_t len)
{
    if (len == 0)
        return CLI_EXIT_OK; /* data may be NULL then (--top of an empty input): no memcpy */
    if (w->len + len <= w->cap) {
        memcpy(w->buf + w->len, data, len);
        w->len += len;
        return CLI_EXIT_OK;
    }
    if (cli_writer_flush(w) != CLI_EXIT_OK)
        return CLI_EXIT_IO;
    if (len >= w->cap)
        return write_all(w, data, len);
    memcpy(w->buf, data, len);
    w->len = len;
    return CLI_EXIT_OK;
}

/* ---- Durability: where --no-fsync is decided (with cli_writer_start_writeback) ---------------
 * Whether a file output is pushed to the disk is decided in three functions and nowhere else:
 * cli_writer_start_writeback (each large write's sync_file_range as it is written), and below
 * sync_output_file (the fsync before the rename) and sync_output_directory (the directory's after
 * it). The first lives in clsort_pwrite.c, the module this one calls, since both write paths
 * (write_all here, the pwrite threads there) start writebacks and calls go one way only
 * (tests/check_layers.sh: no cycle among tools/ modules by their calls). */

/* The temporary file's data on disk before the rename, so that the destination is never the new
 * name with missing data after a crash. Returns 0, or -1 with errno set. */
static int sync_output_file(const cli_writer *w)
{
    if (!w->is_regular || w->no_fsync)
        return 0;
    return fsync(w->fd);
}

/* The rename itself on disk (the directory's fsync), so that once clsort exits 0 a crash leaves
 * the new file under the name. Best effort: some file systems refuse fsync on directories. */
static void sync_output_directory(const cli_writer *w)
{
    if (w->no_fsync)
        return;
    const char *path = w->final_path;
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, (size_t)(slash - path) + 1) : strdup(".");
    if (!dir)
        return;
    const int fd = open(dir, O_RDONLY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
    free(dir);
}

int cli_writer_commit(cli_writer *w, int *run_fd)
{
    int rc = cli_writer_flush(w);
    if (rc != CLI_EXIT_OK)
        goto fail;
    if (w->keep_open) {
        if (run_fd)
            *run_fd = w->fd;
        w->fd = -1;
        writer_free(w);
        return CLI_EXIT_OK;
    }
    if (w->is_stdout) {
        if (w->written == 0 && w->before_replace &&
            w->before_replace(w->before_replace_user, NULL) != 0)
            goto fail;
        writer_free(w);
        return CLI_EXIT_OK;
    }
    if (w->reserved > w->written && ftruncate(w->fd, (off_t)w->written) != 0) {
        cli_error("%s: cannot trim the output: %s", w->name, strerror(errno));
        goto fail;
    }
    const uint64_t t0 = cli_now_ns();
    if (sync_output_file(w) != 0) {
        cli_error("%s: cannot flush output to disk: %s", w->name, strerror(errno));
        goto fail;
    }
    /* One reading for both, so that sync_ns never exceeds write_ns (the pipeline's report
     * subtracts it: a merge that wrote through other writers leaves write_ns at 0 before this). */
    const uint64_t sync_ns = cli_now_ns() - t0;
    w->write_ns += sync_ns;
    w->sync_ns += sync_ns;
    if (w->tmp_path) {
        if (w->set_owner && fchown(w->fd, w->uid, w->gid) != 0) {
            /* Keeping the owner is a courtesy; the data matters more. */
        }
        if (fchmod(w->fd, w->mode) != 0) {
            cli_error("%s: cannot set the output's mode: %s", w->name, strerror(errno));
            goto fail;
        }
    }
    if (!w->tmp_path) { /* a device or a pipe */
        if (close(w->fd) != 0) {
            w->fd = -1;
            cli_error("%s: write error on close: %s", w->name, strerror(errno));
            goto fail;
        }
        w->fd = -1;
    } else {
        if (w->before_replace && w->before_replace(w->before_replace_user, w->final_path) != 0)
            goto fail;
        if (w->unnamed && cli_tmp_link_anonymous(w->fd, w->tmp_path) != 0) {
            cli_error("%s: cannot give the temporary output a name in its directory: %s",
                      w->name, strerror(errno));
            goto fail;
        }
        w->unnamed = 0;
        if (close(w->fd) != 0) {
            w->fd = -1;
            cli_error("%s: write error on close: %s", w->name, strerror(errno));
            goto fail;
        }
        w->fd = -1;
        if (cli_tmp_rename(w->tmp_path, w->final_path) != 0) {
            cli_error("%s: cannot rename the temporary output into place: %s", w->name,
                      strerror(errno));
            goto fail;
        }
        free(w->tmp_path);
        w->tmp_path = NULL;
        sync_output_directory(w);
        cli_signals_note_output_complete(w->name);
    }
    writer_free(w);
    return CLI_EXIT_OK;

fail:
    cli_writer_abort(w);
    return CLI_EXIT_IO;
}

void cli_writer_abort(cli_writer *w)
{
    if (!w)
        return;
    if (w->fd >= 0 && !w->is_stdout && !w->positional) /* a positional writer's fd is borrowed */
        close(w->fd);
    w->fd = -1;
    if (w->tmp_path && !w->unnamed) { /* an unnamed one went with its fd */
        unlink(w->tmp_path);
        cli_tmp_unregister(w->tmp_path);
    }
    writer_free(w);
}

void cli_report_sync(int no_fsync, uint64_t sync_ns)
{
    if (no_fsync)
        cli_info(2, CLI_SYNC_SKIPPED_REPORT);
    else
        cli_info(2, "sync   %.3f s (the output's fsync before the rename)", (double)sync_ns / 1e9);
}
