/* clsort_signals.c - temporary-file registry and the signal thread that cleans it up.
 *
 * Why a thread and not a handler: OpenCL runtimes (PoCL among them) start threads of their own, and
 * a process-directed signal may land on any thread that does not block it. Blocking the signals in
 * main before anything else runs makes every later thread inherit the block, so the signals can
 * only be taken by sigwait() in our thread, which may then use a mutex, free() and stdio safely.
 * Holding the same mutex around create/rename means a signal never sees a half-made change. */
#define _GNU_SOURCE /* O_TMPFILE (Linux) for run files that never have a name */
#include "clsort_signals.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clsort_messages.h"

static pthread_mutex_t tmp_lock = PTHREAD_MUTEX_INITIALIZER;
static char **tmp_paths;  /* registered paths; NULL slots are free */
static size_t tmp_cap;
static sigset_t watched;
static volatile int message_fd = 2; /* where "interrupted" goes (cli_signals_set_message_fd) */
static char complete_output[512];   /* the destination, once the result is there in full */
static volatile sig_atomic_t output_complete;

void cli_signals_note_output_complete(const char *what)
{
    pthread_mutex_lock(&tmp_lock);
    snprintf(complete_output, sizeof complete_output, "%s", what);
    output_complete = 1;
    pthread_mutex_unlock(&tmp_lock);
}

/* The watched signals' names, for the one line. */
static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    case SIGQUIT: return "SIGQUIT";
    case SIGALRM: return "SIGALRM";
    case SIGUSR1: return "SIGUSR1";
    case SIGUSR2: return "SIGUSR2";
    case SIGVTALRM: return "SIGVTALRM";
    case SIGPROF: return "SIGPROF";
    case SIGXCPU: return "SIGXCPU";
    default: return "a signal";
    }
}

/* The signal thread's one line: which program, which signal, and what the user has now, which
 * depends on whether the result was already in place when the signal came (clsort-mpi's ranks
 * learn that together after the rename; a rank may be stopped after it). */
static void say_interrupted(int sig)
{
    char msg[768];
    int len;
    if (output_complete)
        len = snprintf(msg, sizeof msg, "%s: interrupted by %s after the output was complete: "
                                        "%s holds the whole result\n",
                       cli_program_name(), signal_name(sig), complete_output);
    else
        len = snprintf(msg, sizeof msg, "%s: interrupted by %s before the output was complete; "
                                        "temporary files removed, input left as it was\n",
                       cli_program_name(), signal_name(sig));
    if (len > 0 && write(message_fd, msg, (size_t)len < sizeof msg ? (size_t)len : sizeof msg - 1) < 0) {
        /* Nothing more to do about a broken stderr. */
    }
}

void cli_signals_set_message_fd(int fd)
{
    message_fd = fd;
}

static int register_locked(const char *path)
{
    for (size_t i = 0; i < tmp_cap; ++i) {
        if (!tmp_paths[i]) {
            tmp_paths[i] = strdup(path);
            return tmp_paths[i] ? 0 : -1;
        }
    }
    const size_t cap = tmp_cap ? tmp_cap * 2 : 8;
    char **const p = realloc(tmp_paths, cap * sizeof *p);
    if (!p)
        return -1;
    for (size_t i = tmp_cap; i < cap; ++i)
        p[i] = NULL;
    tmp_paths = p;
    tmp_paths[tmp_cap] = strdup(path);
    if (!tmp_paths[tmp_cap])
        return -1;
    tmp_cap = cap;
    return 0;
}

static void unregister_locked(const char *path)
{
    for (size_t i = 0; i < tmp_cap; ++i) {
        if (tmp_paths[i] && strcmp(tmp_paths[i], path) == 0) {
            free(tmp_paths[i]);
            tmp_paths[i] = NULL;
            return;
        }
    }
}

static void remove_all_locked(void)
{
    for (size_t i = 0; i < tmp_cap; ++i) {
        if (tmp_paths[i]) {
            unlink(tmp_paths[i]);
            free(tmp_paths[i]);
            tmp_paths[i] = NULL;
        }
    }
}

static void *watch_signals(void *arg)
{
    (void)arg;
    int sig = 0;
    while (sigwait(&watched, &sig) != 0) {
    }
    /* Keep the lock: nothing may create or rename a temporary file from now on. */
    pthread_mutex_lock(&tmp_lock);
    remove_all_locked();
    if (cli_display_level >= 1)
        say_interrupted(sig);
    /* Die by the signal itself, so that the parent sees how we ended. */
    signal(sig, SIG_DFL);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    pthread_sigmask(SIG_UNBLOCK, &one, NULL);
    raise(sig);
    _exit(128 + sig);
    return NULL;
}

/* SIGBUS: a mapped file (an input of -m or of the runs' merge, the mapped output) cut short by
 * another process faults the thread that touches it, so sigwait cannot take it. Whoever sends it
 * with kill gets the same. Removes the temporary files as the signal thread does, then dies by
 * the signal (SA_RESETHAND restored the default action, SA_NODEFER lets raise deliver it now). */
static void on_sigbus(int sig)
{
    cli_tmp_remove_all_in_handler();
    if (cli_display_level >= 1) {
        /* write() and strlen() only: this is a handler. */
        const char *const name = cli_program_name();
        const char msg[] = ": interrupted by SIGBUS (a mapped file cut short by another "
                           "process?); temporary files removed, input left as it was\n";
        if (write(message_fd, name, strlen(name)) < 0 || write(message_fd, msg, sizeof msg - 1) < 0) {
            /* Nothing more to do about a broken stderr. */
        }
    }
    raise(sig);
    _exit(128 + sig);
}

int cli_signals_init(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigbus;
    sa.sa_flags = SA_RESETHAND | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);
    sigemptyset(&watched);
    sigaddset(&watched, SIGINT);
    sigaddset(&watched, SIGTERM);
    sigaddset(&watched, SIGHUP);
    /* What GNU sort also cleans up after (issue 25): timers and user signals whose default
     * action ends the process, and the CPU limit's warning. */
    sigaddset(&watched, SIGQUIT);
    sigaddset(&watched, SIGALRM);
    sigaddset(&watched, SIGUSR1);
    sigaddset(&watched, SIGUSR2);
    sigaddset(&watched, SIGVTALRM);
    sigaddset(&watched, SIGPROF);
    sigaddset(&watched, SIGXCPU);
    signal(SIGPIPE, SIG_IGN);
    if (pthread_sigmask(SIG_BLOCK, &watched, NULL) != 0)
        return -1;
    pthread_t th;
    if (pthread_create(&th, NULL, watch_signals, NULL) != 0) {
        pthread_sigmask(SIG_UNBLOCK, &watched, NULL);
        return -1;
    }
    pthread_detach(th);
    return 0;
}

int cli_tmp_register(const char *path)
{
    pthread_mutex_lock(&tmp_lock);
    const int rc = register_locked(path);
    pthread_mutex_unlock(&tmp_lock);
    return rc;
}

void cli_tmp_unregister(const char *path)
{
    pthread_mutex_lock(&tmp_lock);
    unregister_locked(path);
    pthread_mutex_unlock(&tmp_lock);
}

int cli_tmp_create(char *templ)
{
    pthread_mutex_lock(&tmp_lock);
    const int fd = mkstemp(templ);
    if (fd >= 0 && register_locked(templ) != 0) {
        unlink(templ);
        close(fd);
        pthread_mutex_unlock(&tmp_lock);
        errno = ENOMEM;
        return -1;
    }
    const int err = errno;
    pthread_mutex_unlock(&tmp_lock);
    errno = err;
    return fd;
}

int cli_tmp_create_anonymous(char *templ)
{
#ifdef O_TMPFILE
    /* A file that never has a name (Linux): nothing can be left behind even by SIGKILL. With
     * mkstemp + unlink below, a kill between the two calls would leave a run file. */
    char *slash = strrchr(templ, '/');
    if (slash) {
        *slash = 0;
        const int tfd = open(templ, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        *slash = '/';
        if (tfd >= 0)
            return tfd;
    }
#endif
    /* Filesystems without O_TMPFILE: a named file, unlinked at once. */
    pthread_mutex_lock(&tmp_lock);
    const int fd = mkstemp(templ);
    const int err = errno;
    if (fd >= 0)
        unlink(templ);
    pthread_mutex_unlock(&tmp_lock);
    errno = err;
    return fd;
}

int cli_tmp_create_unnamed(const char *templ)
{
#ifdef O_TMPFILE
    /* The name comes through /proc/self/fd at the end (or AT_EMPTY_PATH, which needs
     * privilege): without either the file could never be named, so it is not made. */
    if (access("/proc/self/fd", X_OK) != 0 && geteuid() != 0) {
        errno = EOPNOTSUPP;
        return -1;
    }
    const char *slash = strrchr(templ, '/');
    char *dir = slash ? strndup(templ, (size_t)(slash - templ) + 1) : strdup(".");
    if (!dir) {
        errno = ENOMEM;
        return -1;
    }
    const int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    const int err = errno;
    free(dir);
    errno = err;
    return fd;
#else
    (void)templ;
    errno = EOPNOTSUPP;
    return -1;
#endif
}

/* Fills the template's trailing XXXXXX with letters and digits from a cheap generator seeded by
 * the clock and the pid; a clash is retried by the caller (EEXIST). */
static void fill_template(char *templ, unsigned long *state)
{
    static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    const size_t len = strlen(templ);
    for (size_t i = len >= 6 ? len - 6 : 0; i < len; ++i) {
        *state = *state * 6364136223846793005UL + 1442695040888963407UL;
        templ[i] = chars[(*state >> 33) % (sizeof chars - 1)];
    }
}

int cli_tmp_link_anonymous(int fd, char *templ)
{
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    unsigned long state = (unsigned long)ts.tv_nsec ^ ((unsigned long)getpid() << 20);
    pthread_mutex_lock(&tmp_lock);
    int rc = -1, err = EEXIST;
    for (int attempt = 0; attempt < 100 && err == EEXIST; ++attempt) {
        fill_template(templ, &state);
        /* Through /proc, which needs no privilege (AT_EMPTY_PATH would need CAP_DAC_READ_SEARCH). */
        rc = linkat(AT_FDCWD, proc, AT_FDCWD, templ, AT_SYMLINK_FOLLOW);
#ifdef AT_EMPTY_PATH
        if (rc != 0 && errno == ENOENT) /* no /proc mounted */
            rc = linkat(fd, "", AT_FDCWD, templ, AT_EMPTY_PATH);
#endif
        err = rc == 0 ? 0 : errno;
    }
    if (rc == 0 && register_locked(templ) != 0) {
        unlink(templ);
        rc = -1;
        err = ENOMEM;
    }
    pthread_mutex_unlock(&tmp_lock);
    errno = err;
    return rc;
}

int cli_tmp_rename(const char *tmp, const char *final)
{
    pthread_mutex_lock(&tmp_lock);
    const int rc = rename(tmp, final);
    const int err = errno;
    if (rc == 0)
        unregister_locked(tmp);
    pthread_mutex_unlock(&tmp_lock);
    errno = err;
    return rc;
}

void cli_tmp_remove_all_in_handler(void)
{
    /* unlink() is async-signal-safe; the list is only read, nothing freed. A thread that holds
     * the lock is changing the list right now: then nothing is done rather than risk a
     * half-made entry. */
    if (pthread_mutex_trylock(&tmp_lock) != 0)
        return;
    for (size_t i = 0; i < tmp_cap; ++i)
        if (tmp_paths[i])
            unlink(tmp_paths[i]);
    /* The lock stays taken: the process is about to die, and nothing may create more. */
}

void cli_die_of_broken_pipe(void)
{
    pthread_mutex_lock(&tmp_lock); /* kept: nothing may create a temporary file from now on */
    remove_all_locked();
    signal(SIGPIPE, SIG_DFL);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, SIGPIPE);
    pthread_sigmask(SIG_UNBLOCK, &one, NULL);
    raise(SIGPIPE);
    _exit(128 + SIGPIPE);
}

void cli_tmp_remove_all(void)
{
    pthread_mutex_lock(&tmp_lock);
    remove_all_locked();
    pthread_mutex_unlock(&tmp_lock);
}
