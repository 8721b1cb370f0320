/* clsort_pipeline.c - the streaming sort of records that are their own keys (docs/design.md,
 * "The CLI pipeline").
 *
 * One thread, one in-order queue (the context's, from clsort_get_queue), no host copy of the data:
 *   read chunk i into pinned slot i % 4  ->  non-blocking upload of slot i into the device buffer
 *   ... (read i + 1 overlaps upload i; slot i is reused only after its upload ended)
 *   clsort_sort_buffer on the whole buffer (ordered behind the uploads by the queue)
 *   non-blocking downloads of chunks 0..3 into the slots; write chunk j while j + 1.. travel,
 *   then the download of chunk j + 4 reuses slot j.
 * The output is byte-identical to the host-memory path: keys alone have one sorted order (equal
 * keys are identical bytes), whatever the run size, the network or the host fallback. */
#include "clsort_pipeline.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clsort_args.h"
#include "clsort_keys.h"
#include "clsort_capture.h"
#include "clsort_messages.h"
#include "clsort_progress.h"
#include "clsort_readers.h"
#include "clsort_units.h"
#include "clsort_warmup.h"

typedef struct pipe_state {
    clsort_ctx *ctx;
    const cli_keyspec *ks;
    clsort_algorithm algo;
    cli_input *in;
    cli_pipe_stats *st;
    cl_command_queue queue;
    cl_context clctx;
    cl_mem buf;                     /* the run on the device */
    size_t buf_records, run_records;
    size_t chunk_records;
    unsigned nslots;                /* chunks in the ring */
    unsigned char *slot[CLI_PIPE_MAX_SLOTS];
    cl_event ev[CLI_PIPE_MAX_SLOTS]; /* the last transfer through each slot, NULL when idle */
    int ev_upload[CLI_PIPE_MAX_SLOTS];
    cli_readers *readers;           /* reader threads for a regular file, or NULL: read() here */
    uint64_t total_bytes;           /* for progress; 0 unknown */
    uint64_t runs_expected;         /* for progress and the ring; 0 unknown */
    cli_warmup warm;                /* the first run's kernels, built while it is read */
    /* The output mapped while the input is read (one run): the caller's, started while the
     * context was made, or own_premap, started here. */
    cli_wmap_async *premap;
    cli_wmap_async own_premap;
} pipe_state;

static const char *cl_error_name(cl_int err)
{
    switch (err) {
    case CL_DEVICE_NOT_AVAILABLE: return "CL_DEVICE_NOT_AVAILABLE";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case CL_OUT_OF_RESOURCES: return "CL_OUT_OF_RESOURCES";
    case CL_OUT_OF_HOST_MEMORY: return "CL_OUT_OF_HOST_MEMORY";
    case CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST:
        return "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST";
    case CL_INVALID_VALUE: return "CL_INVALID_VALUE";
    case CL_INVALID_CONTEXT: return "CL_INVALID_CONTEXT";
    case CL_INVALID_COMMAND_QUEUE: return "CL_INVALID_COMMAND_QUEUE";
    case CL_INVALID_MEM_OBJECT: return "CL_INVALID_MEM_OBJECT";
    case CL_INVALID_EVENT: return "CL_INVALID_EVENT";
    case CL_INVALID_BUFFER_SIZE: return "CL_INVALID_BUFFER_SIZE";
    default: return "an OpenCL error";
    }
}

static int report_cl(const char *call, const char *what, cl_int err)
{
    cli_error("%s (%s) failed: %s (%d)", call, what, cl_error_name(err), (int)err);
    return CLI_EXIT_DEVICE;
}

int cli_pipeline_wanted(const cli_keyspec *ks)
{
    const char *env = getenv("CLSORT_CLI_PIPELINE");
    if (env && strcmp(env, "0") == 0)
        return 0;
    /* Keys of 4 and 8 bytes in the totalOrder or integer order: --nan-largest's stable runs
     * (-s) and 1- and 2-byte keys go through the chunked sort. */
    return ks->record_size == ks->key_size && ks->key_offset == 0 && ks->nextra == 0 &&
           !ks->nan_largest && ks->key_size >= 4;
}

/* The chunk size: CLSORT_CLI_CHUNK_SIZE (bytes, K/M/G suffixes) or the default (smaller for a
 * regular file of one run: clsort_pipeline.h), in whole keys, never more than the device
 * buffer. */
static size_t choose_chunk_records(size_t key_size, size_t max_records, int one_run)
{
    uint64_t bytes = one_run ? CLI_PIPE_ONE_RUN_CHUNK_BYTES : CLI_PIPE_CHUNK_BYTES;
    const char *env = getenv("CLSORT_CLI_CHUNK_SIZE");
    uint64_t v;
    if (env && *env && cli_parse_size(env, &v) == 0 && v > 0)
        bytes = v;
    size_t n = (size_t)(bytes / key_size);
    if (n == 0)
        n = 1;
    return n < max_records ? n : max_records;
}

/* Called before each OpenCL call of the pipeline on the context's queue or buffers once the
 * warmup thread may run (the uploads, the growth of the buffer): the first one waits for the
 * warmup, later ones return at once. clsort_prepare launches kernels, fills and maps buffers and
 * calls clFinish on that same queue under the library's lock, which the pipeline's own calls do
 * not take; on NVIDIA's driver the two threads' calls overlapping crashed the CLI (a segfault in
 * 3 of 6 sorts of 128 MiB on the H100 and H200, and in the pipeline tests on the H200; none with
 * the warmup off), and the library's header says clsort_prepare must not overlap the caller's
 * own work on the queue. Only the read of the first chunk overlaps the compile then. */
static void first_device_work(pipe_state *p)
{
    const uint64_t t0 = cli_now_ns();
    const int waited = p->warm.running;
    cli_warmup_finish(&p->warm);
    p->st->prepare_wait_ns += cli_now_ns() - t0;
    /* Said once, before the upload that may fail for the same reason: a failed clsort_prepare
     * can leave the queue unusable (NVIDIA's driver did, api_sort.c's FILL_FIRST), and the
     * upload's own error would not name the cause. */
    if (waited && p->warm.status != CLSORT_OK)
        cli_info(1, "preparing the device for the first run failed (%s); sorting without it",
                 p->warm.error[0] ? p->warm.error : clsort_strerror(p->warm.status));
}

/* Waits for the slot's last transfer, adds its profiled duration, and frees the slot. */
static int slot_collect(pipe_state *p, unsigned s)
{
    if (!p->ev[s])
        return CLI_EXIT_OK;
    const uint64_t t0 = cli_now_ns();
    cl_int err = clWaitForEvents(1, &p->ev[s]);
    p->st->wait_ns += cli_now_ns() - t0;
    cl_int status = CL_COMPLETE;
    if (err == CL_SUCCESS)
        err = clGetEventInfo(p->ev[s], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                             NULL);
    if (err == CL_SUCCESS && status < 0)
        err = status;
    cl_ulong start = 0, end = 0;
    if (err == CL_SUCCESS &&
        clGetEventProfilingInfo(p->ev[s], CL_PROFILING_COMMAND_START, sizeof start, &start,
                                NULL) == CL_SUCCESS &&
        clGetEventProfilingInfo(p->ev[s], CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) ==
            CL_SUCCESS &&
        end > start) {
        if (p->ev_upload[s])
            p->st->upload_ns += end - start;
        else
            p->st->download_ns += end - start;
    }
    clReleaseEvent(p->ev[s]);
    p->ev[s] = NULL;
    if (err != CL_SUCCESS)
        return report_cl(p->ev_upload[s] ? "clEnqueueWriteBuffer" : "clEnqueueReadBuffer",
                         p->ev_upload[s] ? "upload of a chunk" : "download of a chunk", err);
    return CLI_EXIT_OK;
}

/* Without a known input size (standard input, a pipe among the files) the device buffer starts
 * at one turn of the ring (4 chunks: 64 MiB by default) and doubles as the run grows, up to the
 * run size, so that a small stream does not reserve a whole run of device memory.
 * A stream outgrew the device buffer: a twice larger one (at most a run), the keys so far copied
 * over on the device. Returns 1, or 0 when no larger buffer can be had: the run then ends here,
 * which changes nothing in the output (runs are merged into the same bytes). */
static int grow_buffer(pipe_state *p, size_t n)
{
    first_device_work(p);
    size_t want = p->buf_records > p->run_records / 2 ? p->run_records : 2 * p->buf_records;
    if (want <= p->buf_records)
        return 0;
    const size_t K = p->ks->key_size;
    cl_int err;
    cl_mem bigger = clCreateBuffer(p->clctx, CL_MEM_READ_WRITE, want * K, NULL, &err);
    if (err != CL_SUCCESS)
        return 0;
    if (n > 0 &&
        clEnqueueCopyBuffer(p->queue, p->buf, bigger, 0, 0, n * K, 0, NULL, NULL) != CL_SUCCESS) {
        clReleaseMemObject(bigger);
        return 0;
    }
    clReleaseMemObject(p->buf); /* the copy keeps it alive until it has run */
    p->buf = bigger;
    p->buf_records = want;
    if ((uint64_t)want * K > p->st->buffer_bytes)
        p->st->buffer_bytes = (uint64_t)want * K;
    return 1;
}

/* The readers' after-read hook: big-endian keys swapped on the reader thread. */
static void swap_after_read(void *user, unsigned char *buf, size_t got)
{
    const pipe_state *const p = user;
    cli_swap_keys(buf, got / p->ks->key_size, p->ks->key_size, p->ks->key_size);
}

static int enqueue_upload(pipe_state *p, unsigned s, size_t at, size_t keys)
{
    first_device_work(p);
    const size_t K = p->ks->key_size;
    const cl_int err = clEnqueueWriteBuffer(p->queue, p->buf, CL_FALSE, at * K, keys * K,
                                            p->slot[s], 0, NULL, &p->ev[s]);
    if (err != CL_SUCCESS) {
        p->ev[s] = NULL;
        return report_cl("clEnqueueWriteBuffer", "upload of a chunk", err);
    }
    p->ev_upload[s] = 1;
    p->st->upload_bytes += (uint64_t)keys * K;
    clFlush(p->queue); /* start it now, while the next chunks are read */
    return CLI_EXIT_OK;
}

/* The part of a run that the regular input's size (as stat said at the open) covers, read by the
 * reader threads: chunk c goes to slot c % nslots at file offset consumed + c * chunk, up to
 * nslots chunks in flight; as each one completes, in file order, its upload is enqueued at its
 * offset in the device buffer. A short chunk (the file shrank) ends the input there, whatever the
 * chunks after it held, as a sequential read would have; errors are reported for the first
 * failing chunk in file order only, with the message cli_input_read prints. Afterwards the file
 * offset is where a sequential read would be, so that fill_run can go on with read() if the file
 * grew meanwhile. Sets *n to the keys read and *eof when the input ended short. */
static int fill_parallel(pipe_state *p, size_t *n_out, int *eof)
{
    const size_t K = p->ks->key_size;
    cli_input *const in = p->in;
    const uint64_t t0 = cli_now_ns(), prepare_wait0 = p->st->prepare_wait_ns;
    const uint64_t start = in->consumed - in->file_start;
    const uint64_t room = (uint64_t)(p->buf_records - *n_out) * K, left = in->size - in->consumed;
    const uint64_t total = room < left ? room : left;
    const uint64_t cb = (uint64_t)p->chunk_records * K;
    const uint64_t nch = (total + cb - 1) / cb;
    uint64_t issued = 0, done = 0;
    size_t n = *n_out;
    int rc = CLI_EXIT_OK;
    while (done < nch) {
        while (rc == CLI_EXIT_OK && issued < nch && issued - done < p->nslots) {
            const unsigned s = (unsigned)(issued % p->nslots);
            rc = slot_collect(p, s); /* the upload of chunk issued - nslots, enqueued already */
            if (rc != CLI_EXIT_OK)
                break;
            const uint64_t len = total - issued * cb < cb ? total - issued * cb : cb;
            cli_readers_post(p->readers, s, p->slot[s], (size_t)len, start + issued * cb);
            ++issued;
        }
        if (rc != CLI_EXIT_OK)
            break;
        const unsigned s = (unsigned)(done % p->nslots);
        const uint64_t len = total - done * cb < cb ? total - done * cb : cb;
        int err = 0;
        const int64_t got = cli_readers_wait(p->readers, s, &err);
        ++done;
        if (got < 0) {
            cli_error("%s: read error: %s", in->name, strerror(err));
            rc = CLI_EXIT_IO;
            break;
        }
        in->consumed += (uint64_t)got;
        p->st->read_bytes += (uint64_t)got;
        if ((size_t)got % K != 0) {
            cli_error("%s: size %llu is not a multiple of the record size %zu (%llu bytes left "
                      "over)",
                      in->name, (unsigned long long)in->consumed, K,
                      (unsigned long long)(in->consumed % K));
            rc = CLI_EXIT_IO;
            break;
        }
        const size_t keys = (size_t)got / K;
        if (keys) {
            rc = enqueue_upload(p, s, n, keys);
            if (rc != CLI_EXIT_OK)
                break;
            n += keys;
        }
        cli_progress_update("reading", in->consumed, p->total_bytes);
        if ((uint64_t)got < len) {
            in->at_eof = 1; /* the file shrank: its end is here */
            *eof = 1;
            break;
        }
    }
    /* Chunks still being read belong to their slots until they are done. */
    for (; done < issued; ++done) {
        int err;
        (void)cli_readers_wait(p->readers, (unsigned)(done % p->nslots), &err);
    }
    /* The wall time of the whole phase: the threads' reads overlap the waits for uploads. The
     * first upload's wait for clsort_prepare is a step of its own (prepare_wait_ns): not here. */
    p->st->read_ns += cli_now_ns() - t0 - (p->st->prepare_wait_ns - prepare_wait0);
    *n_out = n;
    if (rc == CLI_EXIT_OK && !*eof &&
        lseek(in->fd, (off_t)(in->consumed - in->file_start), SEEK_SET) < 0) {
        cli_error("%s: read error: %s", in->name, strerror(errno));
        rc = CLI_EXIT_IO;
    }
    return rc;
}

/* Reads one run into the device buffer, chunk by chunk, each chunk's upload enqueued at once.
 * Sets *n to the keys read and *eof to whether the input ended with them. */
static int fill_run(pipe_state *p, size_t *n_out, int *eof)
{
    const size_t K = p->ks->key_size;
    size_t n = 0;
    unsigned i = 0;
    *eof = 0;
    if (p->readers && p->in->peeked < 0 && !p->in->at_eof && p->in->consumed < p->in->size) {
        const int rc = fill_parallel(p, &n, eof);
        if (rc != CLI_EXIT_OK || *eof) {
            *n_out = n;
            return rc;
        }
        /* A full run with more of the file left: no peek for the end below, whose byte would
         * hand every later run to read() on this thread (4.5 GiB/s against 25 for the readers,
         * 16 GiB in runs of 2 GiB on the H200 machine, 2026-11-27). */
        if (n == p->buf_records && n == p->run_records && p->in->consumed < p->in->size) {
            *n_out = n;
            return CLI_EXIT_OK;
        }
    }
    for (;;) {
        if (n == p->buf_records) {
            /* Do not start another run (or grow) for an input that has just ended. */
            const int e = cli_input_eof(p->in);
            if (e < 0)
                return CLI_EXIT_IO;
            if (e) {
                *eof = 1;
                break;
            }
            if (n == p->run_records || !grow_buffer(p, n))
                break;
        }
        const size_t want = p->buf_records - n < p->chunk_records ? p->buf_records - n
                                                                  : p->chunk_records;
        const unsigned s = i % p->nslots;
        int rc = slot_collect(p, s);
        if (rc != CLI_EXIT_OK)
            return rc;
        const uint64_t t0 = cli_now_ns();
        const int64_t got = cli_input_read(p->in, p->slot[s], want * K);
        if (got < 0)
            return CLI_EXIT_IO;
        if ((size_t)got % K != 0) {
            cli_error("%s: size %llu is not a multiple of the record size %zu (%llu bytes left "
                      "over)",
                      p->in->name, (unsigned long long)p->in->consumed, K,
                      (unsigned long long)(p->in->consumed % K));
            return CLI_EXIT_IO;
        }
        const size_t keys = (size_t)got / K;
        if (keys && p->ks->big_endian)
            cli_swap_keys(p->slot[s], keys, K, K);
        p->st->read_ns += cli_now_ns() - t0;
        p->st->read_bytes += (uint64_t)got;
        if (keys) {
            rc = enqueue_upload(p, s, n, keys);
            if (rc != CLI_EXIT_OK)
                return rc;
            n += keys;
            ++i;
        }
        cli_progress_update("reading", p->in->consumed, p->total_bytes);
        if (keys < want) {
            *eof = 1; /* cli_input_read is short only at the end of the input */
            break;
        }
    }
    *n_out = n;
    return CLI_EXIT_OK;
}

/* Sorts the n keys of the device buffer; waits for the end, for the report. The whole input in
 * one run (`eof` on the first) is a "sorting run 1 of 1" stage; with runs, reading and sorting
 * take turns, and the sort is said on the reading line, which so goes on to 100%. */
static int sort_run(pipe_state *p, size_t n, int eof)
{
    cli_warmup_finish(&p->warm);
    if (n < 2)
        return CLI_EXIT_OK;
    const uint64_t total = p->runs_expected > p->st->runs ? p->runs_expected : 0;
    if (p->st->runs == 0 && eof) {
        cli_progress_items("sorting", "run", 0, 1);
    } else {
        char note[64];
        if (total)
            snprintf(note, sizeof note, "sorting run %u of %llu", p->st->runs + 1,
                     (unsigned long long)total);
        else
            snprintf(note, sizeof note, "sorting run %u", p->st->runs + 1);
        cli_progress_note(note);
    }
    const uint64_t t0 = cli_now_ns();
    cl_event done = NULL;
    const int rc = clsort_sort_buffer(p->ctx, p->buf, NULL, 0, n, p->ks->type, p->algo,
                                      cli_order_flags(p->ks), 0, NULL, &done);
    cl_int err = CL_SUCCESS;
    if (rc == CLSORT_OK && done) {
        err = clWaitForEvents(1, &done);
        clReleaseEvent(done);
    }
    uint64_t sort_ns = cli_now_ns() - t0;
    cli_watch_aborts(); /* after the compiler's crash handlers, if this sort built kernels */
    if (rc != CLSORT_OK) {
        /* One line, as the host-memory path says it. */
        return cli_report_sort_error(p->ctx, rc, n, p->ks->type);
    }
    if (err != CL_SUCCESS)
        return report_cl("clWaitForEvents", "the sort", err);
    clsort_stats ls;
    if (clsort_get_stats(p->ctx, &ls) == CLSORT_OK) {
        p->st->device_ns += ls.device_ns;
        p->st->algorithm = ls.algorithm;
        /* Kernels the prepare did not cover (a stream's larger runs) are compile time too. */
        const uint64_t b = ls.build_ns < sort_ns ? ls.build_ns : sort_ns;
        p->st->build_ns += b;
        p->st->compile_ns += b;
        p->st->compiled += ls.programs_compiled;
        sort_ns -= b;
    }
    p->st->sort_ns += sort_ns;
    p->st->keys += n;
    p->st->sorts += 1;
    return CLI_EXIT_OK;
}

static int enqueue_download(pipe_state *p, size_t chunk, size_t n)
{
    const size_t K = p->ks->key_size, first = chunk * p->chunk_records;
    const size_t keys = n - first < p->chunk_records ? n - first : p->chunk_records;
    const unsigned s = (unsigned)(chunk % p->nslots);
    const int rc = slot_collect(p, s);
    if (rc != CLI_EXIT_OK)
        return rc;
    const cl_int err = clEnqueueReadBuffer(p->queue, p->buf, CL_FALSE, first * K, keys * K,
                                           p->slot[s], 0, NULL, &p->ev[s]);
    if (err != CL_SUCCESS) {
        p->ev[s] = NULL;
        return report_cl("clEnqueueReadBuffer", "download of a chunk", err);
    }
    p->ev_upload[s] = 0;
    p->st->download_bytes += (uint64_t)keys * K;
    clFlush(p->queue);
    return CLI_EXIT_OK;
}

/* -u: drops keys equal to the one before them (in the chunk, or the last one written, kept in
 * `last`), compacting the chunk in place. Returns the keys kept. */
static size_t drop_repeats(unsigned char *c, size_t n, size_t K, unsigned char *last,
                           int *have_last)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; ++i) {
        const unsigned char *const rec = c + i * K;
        const unsigned char *const prev = kept ? c + (kept - 1) * K : *have_last ? last : NULL;
        if (prev && memcmp(prev, rec, K) == 0)
            continue;
        if (kept != i)
            memcpy(c + kept * K, rec, K);
        ++kept;
    }
    if (kept) {
        memcpy(last, c + (kept - 1) * K, K);
        *have_last = 1;
    }
    return kept;
}

/* Writer threads for a run's chunks (issue 28): CLSORT_CLI_WRITERS=N (0: write in line), else
 * the ring's slots but two, which keeps one or two downloads in flight while the others are
 * written at their offsets. One thread copying into the page cache was half the time of a 1 GiB
 * sort on the H200 (issue 28: write 0.498 s, 2.0 GiB/s). */
static unsigned drain_writers(const pipe_state *p)
{
    const char *env = getenv("CLSORT_CLI_WRITERS");
    if (env && *env)
        return (unsigned)strtoul(env, NULL, 10);
    return p->nslots > 2 ? p->nslots - 2 : 0;
}

/* Brings the sorted run back chunk by chunk and writes it to w, each write overlapping the
 * downloads of the chunks after it: in line, or (a seekable output) by writer threads, each
 * chunk at its offset, a slot downloaded into again once its write is done. */
static int drain_run(pipe_state *p, size_t n, cli_writer *w, uint64_t *write_ns)
{
    const size_t K = p->ks->key_size;
    const size_t nchunks = (n + p->chunk_records - 1) / p->chunk_records;
    unsigned char last[8];
    int have_last = 0;
    int rc = CLI_EXIT_OK;
    const unsigned writers = drain_writers(p);
    cli_wpool *pool = NULL;
    const uint64_t t_all = cli_now_ns();
    /* The output mapped (cli_writer_map): by the thread started with the reads, else now. Not
     * under -u, whose length is not known before the write. */
    cli_wmap m = { 0 };
    uint64_t map_ns = 0;
    if (p->premap && p->premap->w == w) /* not a run's writer: never mapped ahead */
        map_ns = cli_writer_map_finish(p->premap, &m);
    if (m.addr && m.len != (uint64_t)n * K) /* the input changed size meanwhile */
        cli_writer_unmap(w, &m, 0);
    const int ahead = m.addr != NULL;
    int mapped = 0;
    if (writers > 0 && nchunks > 1 && p->nslots >= 3 && cli_writer_seekable(w) &&
        cli_writer_flush(w) == CLI_EXIT_OK) {
        if (!m.addr && !p->ks->unique)
            cli_writer_map(w, (uint64_t)n * K, &m);
        const int had_map = m.addr != NULL;
        pool = cli_wpool_start(w, writers, &m);
        mapped = pool && had_map;
    }
    cli_writer_unmap(w, &m, 0); /* not taken by a pool: the writes below are in line */
    if (!mapped && !p->ks->unique)
        cli_writer_reserve(w, (uint64_t)n * K); /* pwrite measured faster preallocated */
    p->st->mapped = mapped;
    p->st->map_ahead = mapped && ahead;
    p->st->map_early = mapped && ahead && p->premap != &p->own_premap;
    p->st->map_ns = map_ns;
    if (pool) {
        /* A slot is downloaded into again `lag` chunks after its write was posted. */
        const size_t lag = p->nslots - 1;
        uint64_t off = 0;
        for (size_t j = 0; j < nchunks && j < p->nslots && rc == CLI_EXIT_OK; ++j)
            rc = enqueue_download(p, j, n);
        for (size_t j = 0; j < nchunks && rc == CLI_EXIT_OK; ++j) {
            const unsigned s = (unsigned)(j % p->nslots);
            rc = slot_collect(p, s);
            if (rc != CLI_EXIT_OK)
                break;
            const size_t first = j * p->chunk_records;
            size_t keys = n - first < p->chunk_records ? n - first : p->chunk_records;
            if (p->ks->big_endian)
                cli_swap_keys(p->slot[s], keys, K, K);
            if (p->ks->unique)
                keys = drop_repeats(p->slot[s], keys, K, last, &have_last);
            cli_wpool_post(pool, s, p->slot[s], keys * K, off);
            off += (uint64_t)keys * K;
            if (!w->keep_open)
                cli_progress_update("writing", (uint64_t)(first + keys) * K, (uint64_t)n * K);
            if (j + 1 >= lag) {
                const size_t jj = j + 1 - lag;
                rc = cli_wpool_wait(pool, (unsigned)(jj % p->nslots));
                if (rc == CLI_EXIT_OK && jj + p->nslots < nchunks)
                    rc = enqueue_download(p, jj + p->nslots, n);
            }
        }
        const int src = cli_wpool_stop(pool); /* the slots stay until every write is done */
        if (rc == CLI_EXIT_OK)
            rc = src;
        const uint64_t ns = cli_now_ns() - t_all;
        if (rc == CLI_EXIT_OK)
            rc = cli_writer_advance(w, off, ns);
        *write_ns += ns; /* the writes overlap the downloads: their wall time */
        return rc;
    }
    for (size_t j = 0; j < nchunks && j < p->nslots && rc == CLI_EXIT_OK; ++j)
        rc = enqueue_download(p, j, n);
    for (size_t j = 0; j < nchunks && rc == CLI_EXIT_OK; ++j) {
        const unsigned s = (unsigned)(j % p->nslots);
        rc = slot_collect(p, s);
        if (rc != CLI_EXIT_OK)
            break;
        const size_t first = j * p->chunk_records;
        size_t keys = n - first < p->chunk_records ? n - first : p->chunk_records;
        const uint64_t t0 = cli_now_ns();
        if (p->ks->big_endian)
            cli_swap_keys(p->slot[s], keys, K, K);
        if (p->ks->unique)
            keys = drop_repeats(p->slot[s], keys, K, last, &have_last);
        rc = cli_writer_put(w, p->slot[s], keys * K);
        *write_ns += cli_now_ns() - t0;
        if (!w->keep_open) /* a run file is part of its run's "sorting" stage */
            cli_progress_update("writing", (uint64_t)(first + keys) * K, (uint64_t)n * K);
        if (rc == CLI_EXIT_OK && j + p->nslots < nchunks)
            rc = enqueue_download(p, j + p->nslots, n);
    }
    return rc;
}

/* One run that is not the whole input: into a run file, handed to the merge. */
static int drain_to_run_file(pipe_state *p, size_t n, const char *tmpdir, cli_run_set *runs)
{
    cli_writer w;
    int rc = cli_writer_open_run(&w, tmpdir, (size_t)4 << 20);
    if (rc != CLI_EXIT_OK)
        return rc;
    uint64_t ns = 0;
    rc = drain_run(p, n, &w, &ns);
    p->st->mapped = p->st->map_ahead = p->st->map_early = 0; /* -v's write line: the output's */
    if (rc != CLI_EXIT_OK) {
        cli_writer_abort(&w);
        return rc;
    }
    const uint64_t bytes = w.written + w.len, t0 = cli_now_ns();
    int fd = -1;
    rc = cli_writer_commit(&w, &fd);
    p->st->run_write_ns += ns + (cli_now_ns() - t0);
    if (rc != CLI_EXIT_OK)
        return rc;
    p->st->run_bytes += bytes;
    return cli_runs_add(runs, fd, bytes);
}

static void pipe_release(pipe_state *p)
{
    cli_readers_stop(p->readers); /* no thread may still read into a slot freed below */
    p->readers = NULL;
    if (p->queue)
        clFinish(p->queue); /* nothing may still travel into a slot that is freed below */
    for (unsigned s = 0; s < p->nslots; ++s) {
        if (p->ev[s])
            clReleaseEvent(p->ev[s]);
        p->ev[s] = NULL;
        clsort_host_free(p->ctx, p->slot[s]);
        p->slot[s] = NULL;
    }
    if (p->buf)
        clReleaseMemObject(p->buf);
    p->buf = NULL;
}

/* The ring's shape for this input: the reader threads (returned), the slots, the chunk and the
 * device buffer's first size. */
static unsigned pipe_size(pipe_state *p, const cli_input *in)
{
    const size_t K = p->ks->key_size;
    /* A single regular file is read by a few threads with pread() (two chunks in flight per
     * thread, at most CLI_PIPE_MAX_SLOTS, or CLI_PIPE_RUN_SLOTS with runs); anything else by
     * read() on this thread, 4 chunks. */
    const unsigned nreaders =
        in->is_regular && in->path && in->nmore == 0 ? cli_readers_wanted() : 1;
    if (in->is_regular)
        p->runs_expected = (in->size / K + p->run_records - 1) / p->run_records;
    const int one_run = in->is_regular && p->runs_expected <= 1;
    const unsigned max_slots = one_run ? CLI_PIPE_MAX_SLOTS : CLI_PIPE_RUN_SLOTS;
    p->nslots = CLI_PIPE_SLOTS;
    if (nreaders > 1 && 2 * nreaders > p->nslots)
        p->nslots = 2 * nreaders < max_slots ? 2 * nreaders : max_slots;

    /* A known size needs a buffer of that size at most; a stream starts with room for one turn
     * of the ring and grows. */
    uint64_t first = p->run_records;
    if (in->is_regular) {
        p->total_bytes = in->size;
        if (in->size / K < first)
            first = in->size / K;
    }
    p->chunk_records = choose_chunk_records(K, first ? (size_t)first : 1, one_run);
    if (!in->is_regular && (uint64_t)p->nslots * p->chunk_records < first)
        first = (uint64_t)p->nslots * p->chunk_records;
    p->buf_records = first ? (size_t)first : 1;
    return nreaders;
}

/* The device buffer and the pinned slots of the ring. CLI_PIPE_UNAVAILABLE (said at -v 2) when
 * either cannot be had: the caller sorts through host memory then. */
static int pipe_alloc(pipe_state *p)
{
    const size_t K = p->ks->key_size;
    cli_pipe_stats *const st = p->st;
    cl_int err;
    p->buf = clCreateBuffer(p->clctx, CL_MEM_READ_WRITE, p->buf_records * K, NULL, &err);
    if (err != CL_SUCCESS) {
        p->buf = NULL;
        cli_info(2, "no device buffer of %zu keys (%s): sorting through host memory",
                 p->buf_records, cl_error_name(err));
        return CLI_PIPE_UNAVAILABLE;
    }
    st->buffer_bytes = (uint64_t)p->buf_records * K;
    st->chunk_bytes = p->chunk_records * K;
    st->slots = p->nslots;
    for (unsigned s = 0; s < p->nslots; ++s) {
        p->slot[s] = clsort_host_alloc(p->ctx, p->chunk_records * K);
        if (!p->slot[s]) {
            cli_info(2, "no pinned memory for %u chunks of %zu bytes (%s): sorting through host "
                        "memory",
                     p->nslots, p->chunk_records * K, clsort_last_error(p->ctx));
            pipe_release(p);
            return CLI_PIPE_UNAVAILABLE;
        }
    }
    return CLI_EXIT_OK;
}

/* The runs, one after the other: filled, sorted, and drained into the output (the whole input
 * in one run) or into a run file. */
static int pipe_runs(pipe_state *p, cli_writer *out, const char *tmpdir, cli_run_set *runs)
{
    const size_t K = p->ks->key_size;
    cli_pipe_stats *const st = p->st;
    int rc = CLI_EXIT_OK;
    for (;;) {
        size_t n = 0;
        int eof = 0;
        rc = fill_run(p, &n, &eof);
        if (rc == CLI_EXIT_OK)
            rc = sort_run(p, n, eof);
        if (rc != CLI_EXIT_OK)
            break;
        if (st->runs == 0 && eof) {
            rc = drain_run(p, n, out, &st->write_ns); /* the whole input: straight out */
            st->write_bytes += (uint64_t)n * K;
        } else {
            rc = drain_to_run_file(p, n, tmpdir, runs);
        }
        st->runs += 1;
        if (rc != CLI_EXIT_OK || eof)
            break;
    }
    return rc;
}

int cli_pipeline_sort(clsort_ctx *ctx, const cli_keyspec *ks, clsort_algorithm algo,
                      size_t run_records, cli_input *in, cli_writer *out, cli_run_set *runs,
                      const char *tmpdir, cli_wmap_async *early, cli_pipe_stats *st)
{
    const size_t K = ks->key_size;
    const uint64_t t_start = cli_now_ns();
    pipe_state p;
    memset(&p, 0, sizeof p);
    memset(st, 0, sizeof *st);
    p.ctx = ctx;
    p.ks = ks;
    p.algo = algo;
    p.in = in;
    p.st = st;
    p.run_records = run_records ? run_records : 1;
    p.queue = clsort_get_queue(ctx);
    if (!p.queue ||
        clGetCommandQueueInfo(p.queue, CL_QUEUE_CONTEXT, sizeof p.clctx, &p.clctx, NULL) !=
            CL_SUCCESS)
        return CLI_PIPE_UNAVAILABLE;

    const unsigned nreaders = pipe_size(&p, in);
    const uint64_t t_alloc = cli_now_ns();
    if (pipe_alloc(&p) != CLI_EXIT_OK)
        return CLI_PIPE_UNAVAILABLE;
    st->alloc_ns = cli_now_ns() - t_alloc;
    if (nreaders > 1)
        p.readers = cli_readers_start(in->fd, in->path, nreaders,
                                      ks->big_endian ? swap_after_read : NULL, &p);
    st->readers = p.readers ? nreaders : 1; /* without threads: read() here, as before */
    /* The first run's kernels while its first chunks are read (after the pinned slots: the
     * library's lock is not held against them; the first upload waits for it: first_device_work).
     * A file's first run has a known size, and only its sort is prepared; a stream prepares
     * every size up to 2^20 keys, not the whole ring its buffer starts with; other runs build
     * what they need (counted as compile too). */
    const size_t prep_n = in->is_regular || p.buf_records < ((size_t)1 << 20) ? p.buf_records
                                                                              : (size_t)1 << 20;
    cli_warmup_start(&p.warm, ctx, ks->type, 0, prep_n, algo, in->is_regular, cli_order_flags(ks));
    /* One run straight into the output: its blocks are allocated meanwhile (drain_run), on the
     * caller's thread if it started one. */
    if (in->is_regular && p.runs_expected == 1 && !ks->unique && in->size / K > 0) {
        if (early && early->started)
            p.premap = early;
        else {
            cli_writer_map_start(&p.own_premap, out, in->size / K * K);
            p.premap = &p.own_premap;
        }
    }

    const int rc = pipe_runs(&p, out, tmpdir, runs);
    cli_wmap unused; /* more than one run after all, or an error before the write */
    cli_writer_map_finish(&p.own_premap, &unused);
    cli_writer_unmap(out, &unused, 0);
    if (early) {
        cli_writer_map_finish(early, &unused);
        cli_writer_unmap(out, &unused, 0);
    }
    cli_warmup_finish(&p.warm);
    st->compile_ns += p.warm.ns;
    st->build_ns += p.warm.build_ns;
    st->compiled += p.warm.compiled;
    st->compile_status = p.warm.status;
    const uint64_t t_release = cli_now_ns();
    pipe_release(&p);
    st->release_ns = cli_now_ns() - t_release;
    st->wall_ns = cli_now_ns() - t_start;
    return rc;
}
