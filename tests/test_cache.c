/* test_cache.c - the on-disk program cache: a miss stores an entry, a hit loads it, corrupt,
 * truncated and mismatched entries are ignored, rebuilt and overwritten, CLSORT_NO_CACHE turns
 * it off, an unusable directory is not fatal, the XDG_CACHE_HOME and HOME places, and two
 * processes writing the same entry at once. The CLSORT_DEBUG trace (captured from stderr) says
 * what happened. Every directory is temporary. */
#include "test_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char root[256], cache_dir[512], trace_path[512];
static char trace[65536];
static char self_path[1024]; /* this program, run again as a writer for the race */

/* Sorts random keys on the device with a fresh context, capturing the library's trace.
 * Returns 1 if the result is correct. */
static int sort_fresh(size_t n)
{
    uint32_t *keys = t_xmalloc(n * 4), *ref = t_xmalloc(n * 4);
    t_rng r = t_rng_for(11, n, 0, 0);
    for (size_t i = 0; i < n; ++i)
        keys[i] = ref[i] = (uint32_t)t_rand64(&r);
    t_ref_sort(CLSORT_U32, ref, n, 0);
    fflush(stderr);
    const int saved = dup(2);
    const int fd = open(trace_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 2);
    close(fd);
    clsort_ctx *ctx = NULL;
    int rc = clsort_create(&ctx, NULL);
    if (rc == CLSORT_OK)
        rc = clsort_sort(ctx, keys, n, CLSORT_U32, CLSORT_BITONIC, CLSORT_NO_HOST_FALLBACK);
    clsort_destroy(ctx);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    FILE *f = fopen(trace_path, "r");
    const size_t got = f ? fread(trace, 1, sizeof trace - 1, f) : 0;
    trace[got] = 0;
    if (f)
        fclose(f);
    const int ok = rc == CLSORT_OK && t_first_diff(CLSORT_U32, keys, ref, n) == n;
    free(keys);
    free(ref);
    return ok;
}

static int traced(const char *what)
{
    return strstr(trace, what) != NULL;
}

/* Entries (*.clbin) and temporary files (*.tmp) in dir; the first entry's path in first. */
static int count_files(const char *dir, const char *suffix, char *first, size_t first_size)
{
    DIR *d = opendir(dir);
    int count = 0;
    if (!d)
        return 0;
    const struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const size_t len = strlen(e->d_name), k = strlen(suffix);
        if (len > k && !strcmp(e->d_name + len - k, suffix)) {
            if (!count && first)
                snprintf(first, first_size, "%s/%s", dir, e->d_name);
            ++count;
        }
    }
    closedir(d);
    return count;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* Overwrites len bytes at offset of a file with a pattern. */
static void damage(const char *path, long offset, int len)
{
    FILE *f = fopen(path, "r+b");
    if (!f)
        return;
    fseek(f, offset, SEEK_SET);
    for (int i = 0; i < len; ++i)
        fputc(0x5A ^ i, f);
    fclose(f);
}

static int has_magic(const char *path)
{
    char m[8] = {0};
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    const size_t got = fread(m, 1, 8, f);
    fclose(f);
    return got == 8 && !memcmp(m, "CLSORTPB", 8);
}

static void test_hit_miss_corrupt(void)
{
    char entry[1024];
    t_ok(sort_fresh(5000), "first sort (cache miss) correct");
    t_ok(traced("cache miss"), "... the trace says miss");
    t_is_int(count_files(cache_dir, ".clbin", entry, sizeof entry), 1, "... one entry stored");
    t_is_int(count_files(cache_dir, ".tmp", NULL, 0), 0, "... no temporary file left");
    t_ok(has_magic(entry), "... the entry starts with the magic");
    const long good_size = file_size(entry);

    t_ok(sort_fresh(5000), "second sort (cache hit) correct");
    t_ok(traced("cache hit"), "... the trace says hit");

    static const struct {
        const char *what;
        long offset; /* negative: from the end */
        int len;
    } damages[] = {
        {"bad magic", 0, 4},
        {"other key", 40, 6},
        {"flipped binary byte", -100, 1},
    };
    for (size_t i = 0; i < sizeof damages / sizeof *damages; ++i) {
        const long off = damages[i].offset >= 0 ? damages[i].offset
                                                 : file_size(entry) + damages[i].offset;
        damage(entry, off, damages[i].len);
        t_ok(sort_fresh(5000), "%s: sort correct", damages[i].what);
        t_ok(traced("ignored"), "%s: the entry is ignored", damages[i].what);
        t_ok(traced("cached ") && has_magic(entry), "%s: the entry is rebuilt",
             damages[i].what);
        t_ok(sort_fresh(5000) && traced("cache hit"), "%s: and hits again", damages[i].what);
    }

    /* Truncated, and garbage of another length. */
    if (truncate(entry, good_size / 2) != 0)
        t_diag("truncate failed");
    t_ok(sort_fresh(5000) && traced("ignored"), "truncated entry: ignored, sort correct");
    t_ok(traced("cached ") && file_size(entry) > good_size / 2, "truncated entry: rebuilt");
    FILE *f = fopen(entry, "wb");
    fputs("not a program", f);
    fclose(f);
    t_ok(sort_fresh(5000) && traced("ignored"), "garbage entry: ignored, sort correct");
    t_ok(traced("cached ") && has_magic(entry), "garbage entry: rebuilt");
    f = fopen(entry, "wb");
    fclose(f);
    t_ok(sort_fresh(5000) && traced("ignored"), "empty entry: ignored, sort correct");
    t_ok(sort_fresh(5000) && traced("cache hit"), "... then hits");
}

static void test_disabled(void)
{
    char dir[700];
    snprintf(dir, sizeof dir, "%s/off", root);
    setenv("CLSORT_CACHE_DIR", dir, 1);
    setenv("CLSORT_NO_CACHE", "1", 1);
    t_ok(sort_fresh(5000), "CLSORT_NO_CACHE=1: sort correct");
    t_is_int(count_files(dir, ".clbin", NULL, 0), 0, "CLSORT_NO_CACHE=1: nothing stored");
    unsetenv("CLSORT_NO_CACHE");

    /* A cache directory that cannot be created: under a regular file. */
    char file[800], bad[900];
    snprintf(file, sizeof file, "%s/plainfile", root);
    FILE *f = fopen(file, "w");
    fclose(f);
    snprintf(bad, sizeof bad, "%s/sub", file);
    setenv("CLSORT_CACHE_DIR", bad, 1);
    t_ok(sort_fresh(5000), "unusable cache directory: sort correct");
    t_ok(traced("not cached"), "... the trace says not cached");
    setenv("CLSORT_CACHE_DIR", cache_dir, 1);
}

static void test_places(void)
{
    char xdg[700], home[700], d[800];
    snprintf(xdg, sizeof xdg, "%s/xdg", root);
    snprintf(home, sizeof home, "%s/home", root);
    unsetenv("CLSORT_CACHE_DIR");
    setenv("XDG_CACHE_HOME", xdg, 1);
    setenv("HOME", home, 1);
    sort_fresh(5000);
    snprintf(d, sizeof d, "%s/clsort", xdg);
    t_is_int(count_files(d, ".clbin", NULL, 0), 1, "no CLSORT_CACHE_DIR: $XDG_CACHE_HOME/clsort");
    unsetenv("XDG_CACHE_HOME");
    sort_fresh(5000);
    snprintf(d, sizeof d, "%s/.cache/clsort", home);
    t_is_int(count_files(d, ".clbin", NULL, 0), 1, "no XDG_CACHE_HOME: ~/.cache/clsort");
    setenv("CLSORT_CACHE_DIR", cache_dir, 1);
}

static void test_concurrent(void)
{
    char dir[700];
    snprintf(dir, sizeof dir, "%s/race", root);
    setenv("CLSORT_CACHE_DIR", dir, 1);
    for (int round = 0; round < 2; ++round) {
        pid_t kids[2];
        for (int k = 0; k < 2; ++k) {
            fflush(stdout);
            kids[k] = fork();
            /* A fresh program, not a fork that goes on: OpenCL runtimes (PoCL's threads) do
             * not survive fork. */
            if (kids[k] == 0) {
                execl(self_path, self_path, "--child", (char *)NULL);
                _exit(127);
            }
        }
        int all_ok = 1;
        for (int k = 0; k < 2; ++k) {
            int status = 0;
            waitpid(kids[k], &status, 0);
            all_ok &= WIFEXITED(status) && WEXITSTATUS(status) == 0;
        }
        t_ok(all_ok, "two processes at once (%s cache): both sort correctly",
             round ? "warm" : "cold");
        t_is_int(count_files(dir, ".clbin", NULL, 0), 1, "... one entry");
        t_is_int(count_files(dir, ".tmp", NULL, 0), 0, "... no temporary files left");
    }
    t_ok(sort_fresh(20000) && traced("cache hit"), "after the race: a valid entry hits");
    setenv("CLSORT_CACHE_DIR", cache_dir, 1);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--child")) {
        /* One writer of the race: the environment (cache directory) comes from the parent. */
        snprintf(trace_path, sizeof trace_path, "/tmp/clsort-test-cache-child.%ld.txt",
                 (long)getpid());
        const int ok = sort_fresh(20000);
        unlink(trace_path);
        if (!ok) /* the parent only sees the exit status: say here what went wrong */
            fprintf(stderr, "# child %ld failed; its trace:\n%s\n", (long)getpid(), trace);
        return ok ? 0 : 1;
    }
    const ssize_t len = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
    if (len > 0)
        self_path[len] = 0;
    else
        snprintf(self_path, sizeof self_path, "%s", argv[0]);
    t_init("test_cache");
    snprintf(root, sizeof root, "/tmp/clsort-test-cache-XXXXXX");
    if (!mkdtemp(root))
        t_bail("mkdtemp failed");
    snprintf(cache_dir, sizeof cache_dir, "%s/cache", root);
    snprintf(trace_path, sizeof trace_path, "%s/trace.txt", root);
    char home[700], conf[700];
    snprintf(home, sizeof home, "%s/home", root);
    snprintf(conf, sizeof conf, "%s/conf", root);
    setenv("CLSORT_CACHE_DIR", cache_dir, 1);
    setenv("CLSORT_CONFIG_DIR", conf, 1);
    setenv("HOME", home, 1);
    unsetenv("XDG_CACHE_HOME");
    unsetenv("CLSORT_NO_CACHE");
    setenv("CLSORT_DEBUG", "1", 1);
    t_diag("cache directory: %s", cache_dir);

    test_hit_miss_corrupt();
    test_disabled();
    test_places();
    test_concurrent();

    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0)
        t_diag("could not remove %s", root);
    return t_done();
}
