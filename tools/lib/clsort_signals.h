/* clsort_signals.h - temporary files that must not outlive clsort: a registry of their paths and
 * a thread that removes them on a terminating signal before letting the signal kill us. */
#ifndef CLSORT_SIGNALS_H
#define CLSORT_SIGNALS_H

/** Blocks SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGALRM, SIGUSR1, SIGUSR2, SIGVTALRM, SIGPROF and
 *  SIGXCPU in the calling thread (call it first in main, before any
 *  other thread exists, so that every thread inherits the mask), ignores SIGPIPE (a closed pipe
 *  becomes a write error that is cleaned up like any other) and starts the thread that waits for
 *  those signals. SIGBUS, which a mapped file cut short raises in the thread that touches it, gets
 *  a handler that does the same cleanup. Returns 0, or -1 if the thread could not be started
 *  (signals then act as usual). */
int cli_signals_init(void);

/** The descriptor of stderr for the signal thread's one line (2 until then): clsort_capture.c
 *  moves stderr while it captures the OpenCL runtime's output. */
void cli_signals_set_message_fd(int fd);

/** Says that the result is complete under its final name `what` (copied): an interrupt from now
 *  on says so ("after the output was complete"), instead of that the output was not made. */
void cli_signals_note_output_complete(const char *what);

/** For a signal handler on the way out (SIGABRT from a driver's assertion, which sigwait cannot
 *  take: it is sent to the aborting thread): unlinks every registered temporary file using only
 *  async-signal-safe calls, unless another thread is changing the list at that moment. */
void cli_tmp_remove_all_in_handler(void);

/** Records `path` as a temporary file to remove on a signal or cli_tmp_remove_all().
 *  Returns 0, or -1 when out of memory. */
int cli_tmp_register(const char *path);

/** Forgets `path` (after it was removed or renamed). */
void cli_tmp_unregister(const char *path);

/** Creates a temporary file from `templ` (mkstemp's template, modified in place) and registers it,
 *  with no moment in between where a signal could leave it behind. Returns the fd or -1 (errno). */
int cli_tmp_create(char *templ);

/** Creates a temporary file from `templ` and unlinks it at once: the data lives as long as the
 *  returned fd, and nothing is left on disk whatever happens, even on SIGKILL. Returns fd or -1. */
int cli_tmp_create_anonymous(char *templ);

/** Creates a temporary file without a name in the directory of `templ` (Linux O_TMPFILE), for an
 *  output that a SIGKILL must not leave behind: cli_tmp_link_anonymous gives it `templ`'s name at
 *  the end. Returns the fd, or -1 (errno) where the file system offers no such file. */
int cli_tmp_create_unnamed(const char *templ);

/** Gives the file of cli_tmp_create_unnamed a name from `templ` (mkstemp's template, modified in
 *  place) and registers it, with no moment in between where a signal could leave it behind; then
 *  cli_tmp_rename puts it into place. Returns 0, or -1 (errno). */
int cli_tmp_link_anonymous(int fd, char *templ);

/** Renames the registered temporary `tmp` to `final` and forgets it, as one step with respect to
 *  signals. Returns 0 or -1 (errno set; `tmp` stays registered). */
int cli_tmp_rename(const char *tmp, const char *final);

/** Ends the process as a write to a closed pipe ends sort(1): every registered temporary file
 *  removed, no message, killed by SIGPIPE (which cli_signals_init ignores so that the write
 *  returns EPIPE and comes here). Called where a write of the output fails with EPIPE. */
void cli_die_of_broken_pipe(void)
#if defined(__GNUC__)
    __attribute__((noreturn))
#endif
    ;

/** Unlinks every registered temporary file (the error path of main). */
void cli_tmp_remove_all(void);

#endif /* CLSORT_SIGNALS_H */
