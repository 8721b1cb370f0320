/* clsort_pipeline.h - sorting records that are their own keys by streaming them through the
 * device (issue 10): reads straight into a small ring of pinned chunks, each chunk uploaded into
 * one device buffer while the next one is read, one clsort_sort_buffer on that buffer, then
 * chunk-by-chunk downloads overlapped with the writes. Inputs larger than one run go through the
 * same pipeline run by run into run files, merged by clsort_merge.c. */
#ifndef CLSORT_PIPELINE_H
#define CLSORT_PIPELINE_H

#include <stddef.h>
#include <stdint.h>

#include "clsort.h"
#include "clsort_fileio.h"
#include "clsort_merge.h"
#include "clsort_records.h"

/* cli_pipeline_sort's answer when it cannot be used here (no pinned memory, no device buffer):
 * nothing was read yet, and the caller sorts through the host-memory path instead. */
#define CLI_PIPE_UNAVAILABLE (-1)

/* Pinned chunks in the ring and their default size (CLSORT_CLI_CHUNK_SIZE overrides it). A
 * regular file of one run, read by N threads: min(2N, 16) chunks of 4 MiB. Many small chunks
 * rather than a few large ones there: the ring's slots but two are writer threads, and 64 MiB
 * pin faster than 128 MiB. 1 GiB on tmpfs, H200 machine: 0.654 s against 0.861 s with 8 of
 * 16 MiB, 16 GiB 3.55 s against 4.76 (docs/perf.md, 2026-11-27, fifth). Runs (and streams,
 * which may be runs): min(2N, 8) chunks of 16 MiB, since run files on ext4 took 8.1-8.2 s to
 * write with 4 MiB chunks against 4.8-5.0 s with 16 MiB (-S 2G of 16 GiB, same call).
 * Otherwise 4 chunks. */
#define CLI_PIPE_SLOTS 4
#define CLI_PIPE_MAX_SLOTS 16
#define CLI_PIPE_RUN_SLOTS 8
#define CLI_PIPE_CHUNK_BYTES ((size_t)16 << 20)
#define CLI_PIPE_ONE_RUN_CHUNK_BYTES ((size_t)4 << 20)

/* Where the time went. Host times are wall clock on the one thread that runs the pipeline; the
 * transfer times are the device's (profiled events), which overlap the host's reads and writes. */
typedef struct cli_pipe_stats {
    uint64_t read_ns, read_bytes;          /* in read() (and byte swapping of big-endian keys) */
    uint64_t upload_ns, upload_bytes;      /* profiled clEnqueueWriteBuffer durations */
    uint64_t sort_ns;                      /* host: the sort's enqueue to its end (this also waits
                                              for the uploads still in flight) */
    uint64_t device_ns;                    /* the library's device time of the sorts */
    uint64_t download_ns, download_bytes;  /* profiled clEnqueueReadBuffer durations */
    uint64_t wait_ns;                      /* host: blocked on an upload or download */
    uint64_t write_ns, write_bytes;        /* host: handing the final output to the writer */
    int mapped;                            /* the writer threads stored into a mapping of the
                                              output (cli_writer_map) rather than pwrite */
    int map_ahead;                         /* mapped by a thread while the input was read */
    int map_early;                         /* by the caller's, while the context was made */
    uint64_t map_ns;                       /* how long that took (overlapped) */
    uint64_t run_write_ns, run_bytes;      /* the same for run files */
    uint64_t alloc_ns;                     /* host: the device buffer and the pinned chunks */
    uint64_t release_ns;                   /* host: releasing them at the end */
    uint64_t prepare_wait_ns;              /* host: the first device work waiting for
                                              clsort_prepare on the compile thread */
    uint64_t wall_ns;                      /* the whole of cli_pipeline_sort */
    uint64_t keys;                         /* keys sorted on the device */
    unsigned sorts, runs;
    size_t chunk_bytes;                    /* size of one pinned chunk */
    unsigned slots;                        /* pinned chunks in the ring */
    unsigned readers;                      /* reading threads (1: read() on the pipeline's) */
    uint64_t buffer_bytes;                 /* the largest device buffer used */
    clsort_algorithm algorithm;
    uint64_t compile_ns;                   /* clsort_prepare while the first run was read */
    uint64_t build_ns;                     /* of which, and in the sorts, the library's compile
                                              or cache load (not counted in sort_ns) */
    unsigned compiled;                     /* programs of build_ns the compiler made */
    int compile_status;                    /* what clsort_prepare returned */
} cli_pipe_stats;

/** Whether the pipeline applies to this key spec: records that are exactly one key (no offset,
 *  no tie-breaking keys), and CLSORT_CLI_PIPELINE is not "0" in the environment. */
int cli_pipeline_wanted(const cli_keyspec *ks);

/** Sorts all of `in` on the context's device. When the input fits one run of `run_records` keys
 *  the result goes to `out` (not committed); else each run is written to a run file under
 *  `tmpdir` and handed to `runs` (the caller merges them into `out`). `early` (may be NULL): a
 *  mapping of `out` for the whole input that the caller started (cli_writer_map_start); one run
 *  stores into it, and it is finished and given back otherwise, except when the pipeline is
 *  unavailable: the caller finishes it then. Returns CLI_EXIT_OK,
 *  CLI_EXIT_IO or CLI_EXIT_DEVICE after printing one line, or CLI_PIPE_UNAVAILABLE (nothing
 *  read, nothing printed) when the device buffer or the pinned chunks cannot be had. */
int cli_pipeline_sort(clsort_ctx *ctx, const cli_keyspec *ks, clsort_algorithm algo,
                      size_t run_records, cli_input *in, cli_writer *out, cli_run_set *runs,
                      const char *tmpdir, cli_wmap_async *early, cli_pipe_stats *st);

#endif /* CLSORT_PIPELINE_H */
