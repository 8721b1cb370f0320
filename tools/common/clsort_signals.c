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
#include <unistd.h>

#include "clsort_messages.h"

static pthread_mutex_t tmp_lock = PTHREAD_MUTEX_INITIALIZER;
static char **tmp_paths;  /* registered paths; NULL slots are free */
static size_t tmp_cap;
static sigset_t watched;
static volatile int message_fd = 2; /* where "interrupted" goes (cli_signals_set_message_fd) */

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
    if (cli_display_level >= 1) {
        const char msg[] = "clsort: interrupted; temporary files removed, input left as it was\n";
        if (write(message_fd, msg, sizeof msg - 1) < 0) {
            /* Nothing more to do about a broken stderr. */
        }
    }
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
        const char msg[] = "clsort: interrupted by SIGBUS (a mapped file cut short by another "
                           "process?); temporary files removed, input left as it was\n";
        if (write(message_fd, msg, sizeof msg - 1) < 0) {
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

void cli_tmp_remove_all(void)
{
    pthread_mutex_lock(&tmp_lock);
    remove_all_locked();
    pthread_mutex_unlock(&tmp_lock);
}
