/* clsort_main.c - entry point of the clsort command-line tool: parse, then dispatch. The work is in
 * clsort_extsort.c (sorting), clsort_mergefiles.c (-m), clsort_records.c (checking) and
 * clsort_devices.c (information). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "clsort.h"
#include "clsort_args.h"
#include "clsort_devices.h"
#include "clsort_extsort.h"
#include "clsort_mergefiles.h"
#include "clsort_capture.h"
#include "clsort_messages.h"
#include "clsort_progress.h"
#include "clsort_signals.h"
#include "clsort_top.h"

/* Descriptors 0-2 closed by the caller (`clsort <&-`) would be taken by the next open(): by an
 * OpenCL runtime's thread opening its vendor files, an input or an output, which clsort would
 * then read as standard input or write to as standard output (issue 25). Each closed one is
 * opened on /dev/null before anything else runs: standard input then reads as empty; standard
 * output read-only, so that writing the result there fails (exit 3) instead of vanishing. */
static void open_standard_fds(void)
{
    for (int fd = 0; fd <= 2; ++fd) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
            continue;
        const int got = open("/dev/null", fd == 2 ? O_WRONLY : O_RDONLY);
        if (got >= 0 && got != fd) { /* a lower one was closed too and is taken now */
            dup2(got, fd);
            close(got);
        }
    }
}

int main(int argc, char **argv)
{
    open_standard_fds();
    cli_stderr_init();
    /* A write past the file-size limit (ulimit -f) fails with EFBIG, reported as exit 3 "File
     * too large" with the temporary files removed, on every path and thread, instead of the
     * signal killing clsort and leaving them (issue 25). */
    signal(SIGXFSZ, SIG_IGN);
    /* Then, before the OpenCL runtime starts threads that must inherit the signal mask. */
    if (cli_signals_init() != 0)
        cli_info(1, "warning: cannot watch for signals; an interrupt may leave a temporary file");

    cli_opts opts;
    int rc = cli_parse_args(argc, argv, &opts);
    if (rc != CLI_EXIT_OK)
        return rc;
    cli_progress_init(cli_display_level < 1 ? 0 : opts.progress);

    switch (opts.mode) {
    case CLI_MODE_HELP:
        cli_print_help();
        return CLI_EXIT_OK;
    case CLI_MODE_VERSION:
        printf("clsort %s (library %s)\n", CLSORT_VERSION_STRING, clsort_version_string());
        return CLI_EXIT_OK;
    case CLI_MODE_LIST_DEVICES:
        return cli_list_devices();
    case CLI_MODE_CLEAR_CACHE:
        return cli_clear_cache();
    case CLI_MODE_CHECK:
    case CLI_MODE_SORT:
        break;
    }
    /* Records typed on a keyboard are no use either, and a user who forgot the FILE would wait
     * for nothing (zstd refuses a console too). */
    for (size_t i = 0; i < opts.ninputs; ++i) {
        if (!opts.inputs[i] && isatty(STDIN_FILENO)) {
            cli_error("standard input is a terminal: give a FILE or redirect it (< FILE)");
            return CLI_EXIT_USAGE;
        }
    }
    if (opts.mode == CLI_MODE_CHECK)
        return cli_check_sorted(&opts);
    /* Binary records on a terminal help no one (zstd and gzip refuse too); a user who relied on
     * the old in-place default lands here rather than in a screenful of bytes. */
    if (strcmp(opts.output, "-") == 0 && isatty(STDOUT_FILENO)) {
        cli_error("standard output is a terminal: give -o FILE or redirect it (> FILE); -o "
                  "naming the input sorts it in place");
        return CLI_EXIT_USAGE;
    }
    /* What the OpenCL runtime prints itself (its compiler's log) is captured and summarised. */
    cli_capture_driver_stderr();
    rc = opts.merge ? cli_merge_inputs(&opts)
         : opts.top ? cli_top_input(&opts)
                    : cli_sort_input(&opts);
    cli_release_driver_stderr();
    if (fflush(stdout) != 0 && errno == EPIPE)
        cli_die_of_broken_pipe();
    if (ferror(stdout) && rc == CLI_EXIT_OK) {
        cli_error("standard output: write error");
        rc = CLI_EXIT_IO;
    }
    return rc;
}
