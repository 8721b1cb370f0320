/* clsort_pwrite.h - the output writer (cli_writer) and what writes it at known offsets: several
 * threads with pwrite, a shared mapping, a writer whose bytes stay in memory, the writeback
 * decision. clsort_fileio.h builds the atomic output on it (open, buffered put, commit), and
 * nothing here calls clsort_fileio.c. */
#ifndef CLSORT_PWRITE_H
#define CLSORT_PWRITE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct cli_writer {
    int fd;
    char *name;        /* for messages */
    char *tmp_path;    /* registered temporary file renamed over final_path on commit */
    char *final_path;
    int unnamed;       /* the temporary file has no name yet (O_TMPFILE): commit links it */
    int is_stdout;
    int is_regular;    /* fsync it (unless no_fsync) */
    int keep_open;     /* runs: the fd stays open for reading back */
    mode_t mode;       /* mode the result gets (the replaced file's, or 0666 & ~umask) */
    uid_t uid;
    gid_t gid;
    int set_owner;
    unsigned char *buf;
    size_t cap, len;
    uint64_t written;
    uint64_t write_ns; /* time spent in write() and fsync() */
    uint64_t sync_ns;  /* of which in the final fsync() */
    int stream_sync;   /* start the writeback of each large write at once (final file outputs),
                          and preallocate (cli_writer_reserve); CLSORT_CLI_STREAM_SYNC=0: off */
    int no_fsync;      /* --no-fsync: no fsync at commit and no streamed writeback; the
                          temporary file, the rename and the cleanup stay */
    uint64_t reserved; /* bytes preallocated by cli_writer_reserve */
    /* Called by commit after the result is complete (on disk unless no_fsync), just before it is
     * renamed over final_path; a non-zero return (after printing why) abandons the result
     * instead. For standard output: called with final_path NULL before its first byte, and a
     * non-zero return is that write's error. */
    int (*before_replace)(void *user, const char *final_path);
    void *before_replace_user;
    unsigned char *mem;  /* cli_writer_open_memory: the bytes go here, mem_cap at most */
    uint64_t mem_cap;
    int positional;      /* cli_writer_open_at: pwrite at pos_base + written, fd borrowed */
    uint64_t pos_base;
    /* cli_writer_open_mapped of a lazy mapping: mem is at file offset map_off of map_fd, and its
     * first map_alloc bytes have their blocks (the writes allocate ahead of themselves). */
    int map_lazy, map_fd;
    uint64_t map_off, map_alloc;
} cli_writer;

/** Opens a writer whose bytes go to memory: `dst`, at most `cap` bytes (more is an error,
 *  printed). The merge writes through it where its output stays in host memory (the several-
 *  device path, clsort_multidev.c). commit frees it; `written` says how much it holds. */
int cli_writer_open_memory(cli_writer *w, void *dst, uint64_t cap, size_t buf_size);

/** Opens a writer for the part of `parent`'s output that starts `off` bytes after what parent
 *  has written: pwrite on parent's file (its fd is borrowed, not closed), or parent's memory.
 *  Several such writers fill disjoint parts at once (the parallel merge, clsort_pmerge.c); commit
 *  flushes and frees one. `parent` must be seekable or a memory writer, with an empty buffer.
 *  Returns CLI_EXIT_OK or CLI_EXIT_IO after printing. */
int cli_writer_open_at(cli_writer *w, const cli_writer *parent, uint64_t off, size_t buf_size);

/** Returns 1 the first time it is called, 0 after: the threads that write parts of one output
 *  at once (cli_writer_pwrite, cli_wpool, cli_writer_open_at) report a failed write once, as
 *  one sequential writer would. Thread-safe. */
int cli_write_error_once(void);

/** Blocks SIGXFSZ in the calling thread, so that its writes past the file-size limit (ulimit -f)
 *  fail with EFBIG and end clsort with exit 3 and the usual message, instead of the signal killing
 *  the process (the kernel sends it to the writing thread). Every thread that writes the output
 *  or a run calls it. */
void cli_thread_block_xfsz(void);

/** Whether the output can be written at known offsets (cli_writer_pwrite): a regular file
 *  (the temporary file of a replace, or a run), not a pipe, a device or standard output. */
int cli_writer_seekable(const cli_writer *w);

/** Writes `len` bytes at byte `off` of a seekable writer's file with pwrite, split into pieces
 *  of at least 8 MiB over up to `threads` threads (the calling one included); starts each
 *  piece's writeback when the writer streams its sync. Leaves the writer's buffer and counters
 *  alone, so that several threads may write disjoint ranges at once; cli_writer_advance then
 *  moves the writer past them. Returns CLI_EXIT_OK or CLI_EXIT_IO after printing (disk full,
 *  file too large: the message a sequential write gives). */
int cli_writer_pwrite(cli_writer *w, const void *data, size_t len, uint64_t off,
                      unsigned threads);

/* A stretch of a writer's file mapped into memory (cli_writer_map). */
typedef struct cli_wmap {
    void *addr;        /* the mapping, from the page that holds the stretch's first byte */
    size_t maplen;
    uint64_t off, len; /* the stretch: its file offset and its bytes */
    uint64_t old_size; /* the file's size before: given back if the stretch is not filled */
    int lazy;          /* blocks not allocated yet: only through cli_writer_open_mapped */
} cli_wmap;

/** Maps the `len` bytes after what the seekable writer `w` has written (its buffer empty), their
 *  blocks allocated first (Linux fallocate), so that several threads can store disjoint parts of
 *  them at once: pwrites into one file take turns on its inode, stores into a shared mapping do
 *  not (docs/perf.md). Only where the output is not synced to a disk as it is written (tmpfs, or
 *  --no-fsync): there pwrite with the streamed writeback measured faster. CLSORT_CLI_MAP_OUTPUT=0
 *  never maps, =1 maps wherever it can. Returns where the first byte goes, or NULL where it does
 *  not map (not Linux, a file system without fallocate, no room, past ulimit -f, too large to
 *  map): nothing printed and the file as it was; write with pwrite then, whose errors are
 *  reported as they always were. */
unsigned char *cli_writer_map(cli_writer *w, uint64_t len, cli_wmap *m);

/** cli_writer_map without allocating the blocks now (after checking that the file system can):
 *  for writers that each store a part and allocate it as they go (cli_writer_open_mapped), so
 *  that the allocation, which tmpfs does on one core (about 0.1 s a GiB), runs while the parts
 *  are produced instead of before. Nothing may be stored into it otherwise. */
unsigned char *cli_writer_map_lazy(cli_writer *w, uint64_t len, cli_wmap *m);

/** Opens a writer that stores `cap` bytes `off` bytes into the mapping `m` of `parent`'s file
 *  (a memory writer; several may fill disjoint parts at once). Of a lazy mapping it allocates the
 *  blocks ahead of its stores (64 MiB at first, then as much as it holds, up to 512 MiB at a
 *  time); a failure there (no room) is its write error, with the message a pwrite of parent's
 *  would give. commit flushes and frees it. Returns
 *  CLI_EXIT_OK or CLI_EXIT_IO after printing. */
int cli_writer_open_mapped(cli_writer *w, const cli_writer *parent, const cli_wmap *m,
                           uint64_t off, uint64_t cap, size_t buf_size);

/** Whether a file may reach `end` bytes under the file-size limit (ulimit -f). Checked before
 *  a preallocation: beyond the limit fallocate raises SIGXFSZ, which would kill the process and
 *  leave the temporary file, where the writes report EFBIG (exit 3) as they always did. */
int cli_fsize_allows(uint64_t end);

/** For write_all: makes sure the first `end` bytes of a lazily mapped writer's memory have their
 *  blocks. Returns CLI_EXIT_OK or CLI_EXIT_IO after printing. */
int cli_writer_mapped_allocate(cli_writer *w, uint64_t end);

/** Ends cli_writer_map's mapping (nothing when there is none). `filled`: the stretch holds the
 *  output; its writeback starts where the writer streams its sync, and the caller then moves the
 *  writer past it (cli_writer_advance), as after cli_writer_pwrite. Otherwise the file gets its
 *  former size back. */
void cli_writer_unmap(cli_writer *w, cli_wmap *m, int filled);

/* cli_writer_map on a thread of its own: the blocks are allocated while the caller reads and
 * sorts (tmpfs allocates them on one core, about 0.1 s a GiB on the H200 machine). */
typedef struct cli_wmap_async {
    cli_writer *w;
    uint64_t len;
    cli_wmap m;
    uint64_t ns;      /* how long cli_writer_map took */
    int started;      /* a thread runs it; 0: nothing to finish */
    pthread_t thread;
} cli_wmap_async;

/** Starts cli_writer_map(w, len) on a thread. Until cli_writer_map_finish, nothing else may use
 *  w. Where no thread can be had, nothing is started (finish then gives no mapping). */
void cli_writer_map_start(cli_wmap_async *a, cli_writer *w, uint64_t len);

/** Waits for cli_writer_map_start's thread and hands its mapping to *m (m->addr NULL: none).
 *  Returns how long the mapping took (ns). Safe after a start that started nothing. */
uint64_t cli_writer_map_finish(cli_wmap_async *a, cli_wmap *m);

/** Says that cli_writer_pwrite filled the `len` bytes after what the writer has written (its
 *  buffer must be empty): later writes go after them. `ns`: the time they took, for -v.
 *  Returns CLI_EXIT_OK or CLI_EXIT_IO after printing. */
int cli_writer_advance(cli_writer *w, uint64_t len, uint64_t ns);

/* Writer threads that take blocks to write at known offsets while the caller goes on (the
 * pipeline's downloads overlap the writes of the chunks before them: clsort_pipeline.c). */
typedef struct cli_wpool cli_wpool;

/** Starts `threads` threads (at most 16) writing into the seekable writer `w` (its buffer must
 *  be empty); offsets are counted from what w has written. `m` (may be NULL): a mapping of w
 *  from cli_writer_map, which the pool then owns (*m is cleared): the threads store the blocks
 *  into it instead of pwrite, and cli_wpool_stop unmaps it. NULL when it cannot be had (nothing
 *  printed: write in line instead; a mapping given stays the caller's). */
cli_wpool *cli_wpool_start(cli_writer *w, unsigned threads, cli_wmap *m);

/** Hands block `id` (< 16, not in flight) to the threads: `len` bytes at `off`. The data must
 *  stay until cli_wpool_wait(id) or cli_wpool_stop returns. */
void cli_wpool_post(cli_wpool *p, unsigned id, const void *data, size_t len, uint64_t off);

/** Waits until block `id` is written. Returns CLI_EXIT_OK, or CLI_EXIT_IO once any block failed
 *  (the first failure printed once, as a sequential write prints it). */
int cli_wpool_wait(cli_wpool *p, unsigned id);

/** Waits for every block, stops the threads, frees the pool (NULL-safe). Returns as
 *  cli_wpool_wait. The caller then moves the writer past the blocks (cli_writer_advance); a
 *  mapped pool's blocks must have filled its `len` bytes by then, or be abandoned (an error). */
int cli_wpool_stop(cli_wpool *p);

/** Starts the writeback of the `len` bytes at file offset `off` that were just written to w's
 *  file (Linux sync_file_range), when w streams its sync and does not skip it (--no-fsync) and
 *  the range is large enough to be worth a system call. Best effort; thread-safe. Every write
 *  path calls it, so that this and commit are the only places that decide about durability.
 *  clsort_fileio.c's write_all calls it too; this module calls nothing in clsort_fileio.c
 *  (tests/check_layers.sh). */
void cli_writer_start_writeback(const cli_writer *w, uint64_t off, uint64_t len);

#endif /* CLSORT_PWRITE_H */
