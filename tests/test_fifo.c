/* test_fifo.c - FIFOs where the library reads files: a FIFO under a program
 * cache entry's name, as the cache's lock file, or as the tuned config file must not hang
 * clsort_create, a sort or clsort_list_devices: only regular files are read, the sort still
 * works, the cache replaces the FIFO with a real entry, and the config FIFO is named in a
 * warning. An alarm turns a hang into a failure. Every directory is temporary. */
#include "test_util.h"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef HANG_S
#define HANG_S 120 /* far above a sort, even with PoCL compiling; only a hang gets there */
#endif
#define STR_(x) #x
#define STR(x) STR_(x)

static char root[256], cache_dir[512], conf_dir[512];
static const char *volatile stage = "start";

static void on_alarm(int sig)
{
    (void)sig;
    /* Only async-signal-safe calls: write and _exit. */
    static const char a[] = "not ok - hung for " STR(HANG_S) " s (a FIFO blocked an open?) during: ";
    if (write(1, a, sizeof a - 1) < 0 || write(1, stage, strlen(stage)) < 0 || write(1, "\n", 1) < 0)
        _exit(3);
    _exit(1);
}

static int sort_fresh(const char *what, char *warnings, size_t wsize)
{
    enum { N = 5000 };
    static uint32_t keys[N], ref[N];
    t_rng r = t_rng_for(3, N, 0, 0);
    for (size_t i = 0; i < N; ++i)
        keys[i] = ref[i] = (uint32_t)t_rand64(&r);
    t_ref_sort(CLSORT_U32, ref, N, 0);
    stage = what;
    alarm(HANG_S);
    clsort_ctx *ctx = NULL;
    int rc = clsort_create(&ctx, NULL);
    if (rc == CLSORT_OK)
        rc = clsort_sort(ctx, keys, N, CLSORT_U32, CLSORT_BITONIC, CLSORT_NO_HOST_FALLBACK);
    alarm(0);
    if (warnings)
        snprintf(warnings, wsize, "%s", ctx ? clsort_warnings(ctx) : "");
    const int good = t_check_sorted(ctx, rc, what, 1, CLSORT_U32, keys, ref, N);
    clsort_destroy(ctx);
    return good;
}

/* Replaces every cache entry (and the lock file) with a FIFO; returns how many entries. */
static int fifo_entries(void)
{
    DIR *d = opendir(cache_dir);
    int n = 0;
    struct dirent *e;
    char names[64][256];
    while (d && (e = readdir(d)) && n < 64) {
        const size_t len = strlen(e->d_name);
        if (len > 6 && !strcmp(e->d_name + len - 6, ".clbin"))
            snprintf(names[n++], sizeof names[0], "%s", e->d_name);
    }
    if (d)
        closedir(d);
    char path[2048];
    for (int i = 0; i < n; ++i) {
        snprintf(path, sizeof path, "%s/%.255s", cache_dir, names[i]);
        unlink(path);
        if (mkfifo(path, 0600) != 0)
            t_diag("mkfifo %s failed", path);
    }
    snprintf(path, sizeof path, "%s/.lock", cache_dir);
    unlink(path);
    mkfifo(path, 0600);
    return n;
}

static int count_kind(int fifo)
{
    DIR *d = opendir(cache_dir);
    int n = 0;
    struct dirent *e;
    char path[2048];
    while (d && (e = readdir(d))) {
        const size_t len = strlen(e->d_name);
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", cache_dir, e->d_name);
        if (len > 6 && !strcmp(e->d_name + len - 6, ".clbin") && lstat(path, &st) == 0)
            n += fifo ? S_ISFIFO(st.st_mode) : S_ISREG(st.st_mode);
    }
    if (d)
        closedir(d);
    return n;
}

static void test_cache(void)
{
    t_ok(sort_fresh("the first sort (fills the cache)", NULL, 0), "a sort fills the cache");
    const int n = fifo_entries();
    t_ok(n >= 1, "%d cache entries replaced with FIFOs, and the lock file too", n);
    t_ok(sort_fresh("a sort with FIFOs as cache entries", NULL, 0),
         "a fresh context sorts with FIFOs in the cache (no hang)");
    t_is_int(count_kind(1), 0, "... no FIFO is left under an entry's name");
    t_is_int(count_kind(0), n, "... the entries are regular files again");
}

static void test_config(void)
{
    clsort_ctx *ctx = NULL;
    stage = "clsort_create for the config path";
    alarm(HANG_S);
    if (clsort_create(&ctx, NULL) != CLSORT_OK) {
        t_bail("clsort_create failed");
        return;
    }
    alarm(0);
    char path[2048];
    t_is_status(clsort_config_path(ctx, path, sizeof path), CLSORT_OK, "clsort_config_path");
    clsort_destroy(ctx);
    t_ok(mkfifo(path, 0600) == 0, "mkfifo %s", path);
    char warnings[4096];
    t_ok(sort_fresh("a sort with a FIFO as the tuned config", warnings, sizeof warnings),
         "a fresh context sorts with a FIFO as its config (no hang)");
    warnings[strcspn(warnings, "\n")] = 0;
    t_ok(strstr(warnings, path) && strstr(warnings, "not a regular file"),
         "... and warns that it is not a regular file: %s", warnings);
    stage = "clsort_list_devices with a FIFO as the config";
    alarm(HANG_S);
    const int ndev = clsort_list_devices(NULL, NULL);
    alarm(0);
    t_ok(ndev >= 1, "clsort_list_devices returns (%d devices)", ndev);
    unlink(path);
}

int main(void)
{
    t_init("test_fifo");
    signal(SIGALRM, on_alarm);
    snprintf(root, sizeof root, "%s/clsort-fifo-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(root))
        t_bail("mkdtemp failed");
    snprintf(cache_dir, sizeof cache_dir, "%s/cache", root);
    snprintf(conf_dir, sizeof conf_dir, "%s/conf", root);
    mkdir(cache_dir, 0700);
    mkdir(conf_dir, 0700);
    setenv("CLSORT_CACHE_DIR", cache_dir, 1);
    setenv("CLSORT_CONFIG_DIR", conf_dir, 1);
    unsetenv("CLSORT_NO_CACHE");
    test_cache();
    test_config();
    t_remove_tree(root);
    return t_done();
}
