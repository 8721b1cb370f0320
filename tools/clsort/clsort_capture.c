/* clsort_capture.c - clsort's message sink and the capture of the driver's stderr. Messages erase
 * the progress line first, so this file sits above clsort_progress.c (which never prints a
 * message), and an abort during the capture removes the temporary files (clsort_signals.c). */
#include "clsort_capture.h"

#include "clsort_messages.h"
#include "clsort_progress.h"
#include "clsort_signals.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Where messages go: stderr, or while the driver's stderr is captured, a copy of the original
 * descriptor 2 (msg_fd), descriptor 2 itself then being the capture file. */
static FILE *msg_out;
static int msg_fd = STDERR_FILENO;
static FILE *capture;   /* what the OpenCL runtime wrote on descriptor 2 meanwhile */

/* One line on stderr, after erasing the progress line so the two never share a line. */
static void print_message(int level, const char *text)
{
    (void)level;
    FILE *const f = msg_out ? msg_out : stderr;
    cli_progress_clear();
    fprintf(f, "clsort: %s\n", text);
}

void cli_stderr_init(void)
{
    cli_set_message_sink(print_message);
}

/* An abort inside the driver (PoCL asserts under memory limits): the temporary files are removed
 * and what the driver wrote goes out before the process dies, so that neither a stray file nor
 * the assertion is lost. Only async-signal-safe calls. */
static void dump_capture_on_abort(int sig)
{
    cli_tmp_remove_all_in_handler();
    char buf[4096];
    const int fd = fileno(capture);
    if (lseek(fd, 0, SEEK_SET) == 0)
        for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;)
            if (write(msg_fd, buf, (size_t)n) < 0)
                break;
    signal(sig, SIG_DFL);
    raise(sig);
}

void cli_capture_driver_stderr(void)
{
    const int saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
    if (saved < 0)
        return;
    FILE *const f = fdopen(saved, "w");
    FILE *const cap = tmpfile();
    if (!f || !cap) {
        if (f)
            fclose(f);
        else
            close(saved);
        if (cap)
            fclose(cap);
        return;
    }
    setvbuf(f, NULL, _IONBF, 0); /* as stderr: every message at once */
    fflush(stderr);
    if (dup2(fileno(cap), STDERR_FILENO) < 0) {
        fclose(f);
        fclose(cap);
        return;
    }
    msg_out = f;
    msg_fd = saved;
    capture = cap;
    cli_progress_set_stream(f, saved);
    cli_signals_set_message_fd(saved);
    cli_watch_aborts();
}

void cli_watch_aborts(void)
{
    if (!capture)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = dump_capture_on_abort;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGABRT, &sa, NULL);
}

void cli_release_driver_stderr(void)
{
    if (!capture)
        return;
    fflush(stderr);
    dup2(msg_fd, STDERR_FILENO);
    /* The capture: every line with -v, else one line: its first and how many more there are. */
    char line[512], first[512] = "";
    int lines = 0;
    rewind(capture);
    while (fgets(line, sizeof line, capture)) {
        const size_t len = strcspn(line, "\n");
        if (len == 0)
            continue;
        if (cli_display_level >= 2)
            cli_info(2, "OpenCL runtime: %.*s", (int)len, line);
        else if (lines == 0)
            snprintf(first, sizeof first, "%.*s", (int)len, line);
        ++lines;
    }
    if (lines > 1 && cli_display_level < 2)
        cli_info(1, "OpenCL runtime: %s (%d more line%s with -v)", first, lines - 1,
                 lines == 2 ? "" : "s");
    else if (lines == 1 && cli_display_level < 2)
        cli_info(1, "OpenCL runtime: %s", first);
    fclose(capture);
    capture = NULL;
    signal(SIGABRT, SIG_DFL);
    cli_progress_set_stream(stderr, STDERR_FILENO);
    cli_signals_set_message_fd(STDERR_FILENO);
    fclose(msg_out);
    msg_out = NULL;
    msg_fd = STDERR_FILENO;
}
