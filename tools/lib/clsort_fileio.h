/* clsort_fileio.h - input and output for the clsort tool: large sequential reads, buffered writes,
 * and outputs that appear only complete (temporary file in the same directory, fsync, rename). */
#ifndef CLSORT_FILEIO_H
#define CLSORT_FILEIO_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "clsort_pwrite.h"

/* ---- Input ---- */
typedef struct cli_input {
    int fd;
    const char *path;     /* NULL for standard input */
    const char *name;     /* for messages */
    int is_regular;
    uint64_t size;        /* bytes, when is_regular */
    uint64_t consumed;    /* bytes handed out so far */
    int peeked;           /* a byte read ahead to detect the end of a pipe: -1 none */
    int at_eof;
    /* Several inputs read as one (cli_input_open_list): the ones still to come. */
    const char *const *more; /* NULL entries: standard input */
    size_t nmore;
    size_t record_size;   /* each file must hold whole records; 0: not checked */
    uint64_t file_start;  /* `consumed` when the current file was opened */
} cli_input;

/** Opens `path` (NULL: standard input) for reading. Returns CLI_EXIT_OK or CLI_EXIT_IO after
 *  printing what went wrong (missing, unreadable, a directory). */
int cli_input_open(cli_input *in, const char *path);

/** Reads the open file `fd` from its start (a run of an earlier merge round), named `name` in
 *  messages; cli_input_close leaves fd open. Returns CLI_EXIT_OK or CLI_EXIT_IO after printing. */
int cli_input_open_fd(cli_input *in, int fd, const char *name);

/** Opens `n` inputs (NULL entries: standard input) to be read one after the other as one stream;
 *  each one must hold whole records of `record_size` bytes (checked as it ends). is_regular and
 *  size describe all of them (is_regular only if every one is a regular file). Returns CLI_EXIT_OK
 *  or CLI_EXIT_IO after printing. */
int cli_input_open_list(cli_input *in, const char *const *paths, size_t n, size_t record_size);

/** Reads up to `len` bytes; fewer only at the end of the input. Returns the count, or -1 after
 *  printing the error. */
int64_t cli_input_read(cli_input *in, void *buf, size_t len);

/** Returns 1 if nothing is left to read, 0 if more data follows, -1 on a read error (printed). */
int cli_input_eof(cli_input *in);

void cli_input_close(cli_input *in);

/* ---- Output (the writer itself and its positional writes: clsort_pwrite.h) ---- */

/** Opens where the sorted result goes: `output` ("-": standard output), or when it is NULL the
 *  input file itself (standard output when the input is standard input). Files are written to a
 *  temporary file beside them (without a name until commit where the file system offers
 *  O_TMPFILE, so that nothing is left even after SIGKILL) and renamed on commit; devices and pipes are written directly.
 *  `no_fsync` (--no-fsync) skips the durability work: the temporary file is neither fsync'ed
 *  nor its writeback started as it is written, and the directory is not fsync'ed after the
 *  rename; everything else (temporary file, preallocation, mode, rename, removal on a failure)
 *  is the same. Returns CLI_EXIT_OK or CLI_EXIT_IO after printing the error. */
int cli_writer_open_output(cli_writer *w, const char *output, const char *input_path,
                           size_t buf_size, int no_fsync);

/** Makes cli_writer_open_output give its temporary file a name from the start, instead of one
 *  only at commit (O_TMPFILE, where the file system offers it): clsort-mpi's ranks open it by
 *  its name. */
void cli_writer_use_named_temporary(void);

/** Opens an anonymous temporary file under `dir` for a run (removed from the directory at once,
 *  so that nothing can be left behind). Returns CLI_EXIT_OK or CLI_EXIT_IO after printing. */
int cli_writer_open_run(cli_writer *w, const char *dir, size_t buf_size);

/** Forgets what w has written and what its buffer holds, so that its next bytes go to its start
 *  again (over the old ones). Only for writers of cli_writer_open_at, cli_writer_open_mapped and
 *  cli_writer_open_memory, whose start is a fixed place. */
void cli_writer_rewind(cli_writer *w);

/** Appends bytes. Returns CLI_EXIT_OK or CLI_EXIT_IO after printing (disk full, ...). */
int cli_writer_put(cli_writer *w, const void *data, size_t len);

/* What -v prints, on a line of its own, where it would report the sync time when --no-fsync is
 * given: the same words in every report (in memory, the pipeline, runs, -m, several devices),
 * aligned with the other steps; the CLI tests look for exactly this line. */
#define CLI_SYNC_SKIPPED_REPORT "sync   skipped (--no-fsync)"
/* -v's sync line of the reports that give the sync a line of its own (the pipeline, several
 * devices): the output's fsync time, or CLI_SYNC_SKIPPED_REPORT. */
void cli_report_sync(int no_fsync, uint64_t sync_ns);

/** Says that the output will hold `bytes` bytes in all, so that a regular file destination can
 *  have them allocated at once (Linux fallocate; measured faster with the streamed writeback,
 *  docs/perf.md). Best effort: does nothing elsewhere or on any failure, and commit trims the
 *  file to what was written if that is less. */
void cli_writer_reserve(cli_writer *w, uint64_t bytes);

/** Writes out what is buffered. Returns CLI_EXIT_OK or CLI_EXIT_IO after printing. */
int cli_writer_flush(cli_writer *w);

/** Finishes the output: flush, fsync, mode, close, rename over the destination, fsync of the
 *  directory (both fsyncs skipped with no_fsync). For a run: flush only; the fd is handed to the
 *  caller through *run_fd (may be NULL otherwise). Frees the writer. Returns CLI_EXIT_OK or
 *  CLI_EXIT_IO after printing. */
int cli_writer_commit(cli_writer *w, int *run_fd);

/** Abandons the output: closes and removes the temporary file. Frees the writer. NULL-safe. */
void cli_writer_abort(cli_writer *w);

/** Reads exactly up to len bytes at offset `off` of fd (pread loop). Returns the count read
 *  (short only at end of file) or -1 with errno set. */
int64_t cli_pread_full(int fd, void *buf, size_t len, uint64_t off);

/* For the tests: CLSORT_TEST_READ_FAULT="eio:OFFSET" makes every read of a named input that
 * covers byte OFFSET of the file fail with EIO; "shrink:OFFSET" truncates the file to OFFSET bytes
 * (once) just before the first read that covers it, as if another process shrank it meanwhile.
 * The sequential reads and the pipeline's reader threads go through the same check, so that both
 * paths can be compared on the same fault (tests/reliability/cli_pipeline_faults.sh). */
#define CLI_TEST_READ_FAULT_ENV "CLSORT_TEST_READ_FAULT"

/** The test hook above, for a read of `len` bytes at `off` of the file `path` (NULL: standard
 *  input, never faulted). Returns 0, or -1 with errno set (EIO) when the read must fail.
 *  Thread-safe. */
int cli_test_read_fault(const char *path, uint64_t off, size_t len);


#endif /* CLSORT_FILEIO_H */
