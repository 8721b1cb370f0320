/* test_cache.c - the on-disk program cache: a miss stores an entry, a hit loads it, corrupt,
 * truncated and mismatched entries are ignored, rebuilt and overwritten, CLSORT_NO_CACHE turns
 * it off, an unusable directory is not fatal, the XDG_CACHE_HOME and HOME places, two processes
 * writing the same entry at once, the size limit (CLSORT_CACHE_MAX_BYTES: least recently used
 * entries go, hits refresh, two processes evicting at once), and directories or configs that
 * other users could write (refused with a warning). The CLSORT_DEBUG trace (captured from
 * stderr) says what happened. Every directory is temporary.
 *
 * The race children are this program run again (--child): a failing child prints its status,
 * clsort_last_error and its trace on stderr, which the parent shows as TAP comments. */
#include "test_util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char root[256], cache_dir[512], trace_path[512];
static char trace[65536];
static char self_path[1024]; /* this program, run again as a writer for the race */

/* What the last sort_fresh saw, for the checks and for a failing child's report. */
static struct {
    const char *step;       /* "clsort_create" or "clsort_sort" */
    int rc;
    char error[4096];       /* clsort_last_error */
    char warnings[4096];    /* clsort_warnings */
    char device[512];       /* name and config source */
} last;

/* Sorts random keys on the device with a fresh context and algo, capturing the library's trace.
 * Returns 1 if the result is correct. */
static int sort_algo_fresh(size_t n, clsort_algorithm algo)
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
    memset(&last, 0, sizeof last);
    last.step = "clsort_create";
    int rc = clsort_create(&ctx, NULL);
    if (rc == CLSORT_OK) {
        clsort_device_info info;
        if (clsort_get_device_info(ctx, &info) == CLSORT_OK)
            snprintf(last.device, sizeof last.device, "%s (%s), config %s", info.name,
                     info.platform, info.config_source);
        last.step = "clsort_sort";
        rc = clsort_sort(ctx, keys, n, CLSORT_U32, algo, CLSORT_NO_HOST_FALLBACK);
        snprintf(last.error, sizeof last.error, "%s", clsort_last_error(ctx));
        snprintf(last.warnings, sizeof last.warnings, "%s", clsort_warnings(ctx));
    }
    last.rc = rc;
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

static int sort_fresh(size_t n)
{
    return sort_algo_fresh(n, CLSORT_BITONIC);
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

/* ---- Processes at once ---------------------------------------------------------------------- */

/* Prints a file's lines as TAP comments, each prefixed. */
static void show_file(const char *path, const char *prefix)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        t_diag("%s%s", prefix, line);
    }
    fclose(f);
}

/* Seconds a race child may take: a cold build on NVIDIA or PoCL takes seconds, not minutes. */
static int child_timeout_s(void)
{
    const char *e = getenv("CLSORT_TEST_CHILD_TIMEOUT");
    return e && atoi(e) > 0 ? atoi(e) : 300;
}

/* Starts `count` copies of this program (--child) at once, each sorting 20000 keys with a fresh
 * context in the current environment (device, cache directory and limit come from it), and waits
 * for them (killing any that runs past child_timeout_s). Each child's stderr is shown as TAP
 * comments when it failed, or always with CLSORT_DEBUG=2. Returns how many sorted correctly;
 * *unavailable counts those that could not open the device because it is in use (exit 3). */
static int run_children(int count, int *unavailable)
{
    pid_t kids[4];
    char out[4][700];
    *unavailable = 0;
    for (int k = 0; k < count && k < 4; ++k) {
        snprintf(out[k], sizeof out[k], "%s/child-%d.txt", root, k);
        fflush(stdout);
        fflush(stderr);
        kids[k] = fork();
        /* A fresh program, not a fork that goes on: OpenCL runtimes (PoCL's threads, NVIDIA's
         * driver) do not survive fork. Its stderr goes to a file that the parent shows. */
        if (kids[k] == 0) {
            const int fd = open(out[k], O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd >= 0) {
                dup2(fd, 2);
                close(fd);
            }
            execl(self_path, self_path, "--child", (char *)NULL);
            fprintf(stderr, "exec %s failed: %s\n", self_path, strerror(errno));
            _exit(127);
        }
    }
    const char *dbg = getenv("CLSORT_DEBUG");
    const int verbose = dbg && atoi(dbg) >= 2;
    const double deadline = t_now_ms() + 1000.0 * child_timeout_s();
    int ok = 0;
    for (int k = 0; k < count && k < 4; ++k) {
        int status = 0;
        pid_t got;
        while ((got = waitpid(kids[k], &status, WNOHANG)) == 0 && t_now_ms() < deadline) {
            const struct timespec pause = {0, 20 * 1000000L};
            nanosleep(&pause, NULL);
        }
        if (got == 0) {
            kill(kids[k], SIGKILL);
            waitpid(kids[k], &status, 0);
            t_diag("child %d (pid %ld) killed after %d s (CLSORT_TEST_CHILD_TIMEOUT)", k,
                   (long)kids[k], child_timeout_s());
        }
        const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        if (got != 0 && code == 0)
            ++ok;
        else if (code == 3)
            ++*unavailable;
        else if (got != 0)
            t_diag("child %d (pid %ld): %s %d", k, (long)kids[k],
                   WIFSIGNALED(status) ? "killed by signal" : "exit status",
                   WIFSIGNALED(status) ? WTERMSIG(status) : code);
        if (code != 0 || verbose) {
            char prefix[32];
            snprintf(prefix, sizeof prefix, "child %d: ", k);
            show_file(out[k], prefix);
        }
        unlink(out[k]);
    }
    return ok;
}

/* One child of a race: sorts, and on failure says on stderr what failed and why. Exit 0 sorted
 * correctly, 3 the device could not be opened because it is in use (a GPU in an exclusive
 * compute mode takes one process at a time: the race cannot run there), 1 any other failure. */
static int run_child(void)
{
    snprintf(trace_path, sizeof trace_path, "/tmp/clsort-test-cache-child.%ld.txt",
             (long)getpid());
    const int ok = sort_fresh(20000);
    unlink(trace_path);
    const char *dbg = getenv("CLSORT_DEBUG"), *dev = getenv("CLSORT_DEVICE"),
               *dir = getenv("CLSORT_CACHE_DIR"), *max = getenv("CLSORT_CACHE_MAX_BYTES");
    if (!ok || (dbg && atoi(dbg) >= 2)) {
        fprintf(stderr, "pid %ld, CLSORT_DEVICE=%s, CLSORT_CACHE_DIR=%s, CLSORT_CACHE_MAX_BYTES=%s\n",
                (long)getpid(), dev ? dev : "(unset)", dir ? dir : "(unset)",
                max ? max : "(unset)");
        fprintf(stderr, "device: %s\n", last.device[0] ? last.device : "(none opened)");
        if (ok)
            fprintf(stderr, "sorted correctly\n");
        else if (last.rc == CLSORT_OK)
            fprintf(stderr, "%s returned CLSORT_OK but the keys are not sorted\n", last.step);
        else
            fprintf(stderr, "%s failed: %s (%d): %s\n", last.step, clsort_status_name(last.rc),
                    last.rc,
                    last.error[0] ? last.error
                                  : "(no error text: no context; the trace below says why)");
        if (last.warnings[0])
            fprintf(stderr, "warnings: %s", last.warnings);
        fprintf(stderr, "trace:\n%s", trace);
    }
    if (!ok && !strcmp(last.step, "clsort_create") && strstr(trace, "is unavailable"))
        return 3;
    return ok ? 0 : 1;
}

static void test_concurrent(void)
{
    char dir[700];
    snprintf(dir, sizeof dir, "%s/race", root);
    setenv("CLSORT_CACHE_DIR", dir, 1);
    int any_sorted = 0;
    for (int round = 0; round < 2; ++round) {
        const char *kind = round ? "warm" : "cold";
        int unavailable = 0;
        const int sorted = run_children(2, &unavailable);
        any_sorted |= sorted > 0;
        if (unavailable) {
            t_skip("two processes at once (%s cache): the device admits one process at a time "
                   "(clCreateContext: device unavailable; exclusive compute mode?), see above",
                   kind);
            t_skip("... one entry (no race ran)");
        } else {
            t_is_int(sorted, 2, "two processes at once (%s cache): both sort correctly", kind);
            t_is_int(count_files(dir, ".clbin", NULL, 0), 1, "... one entry");
        }
        t_is_int(count_files(dir, ".tmp", NULL, 0), 0, "... no temporary files left");
    }
    if (any_sorted)
        t_ok(sort_fresh(20000) && traced("cache hit"), "after the race: a valid entry hits");
    else
        t_skip("after the race: no child could open the device, so no entry to hit");
    setenv("CLSORT_CACHE_DIR", cache_dir, 1);
}

/* ---- The size limit ---------------------------------------------------------------------- */

#define FAKE_PREFIX "feedfeedfeedfeed"

/* A stand-in entry: a sparse file of `size` bytes with an entry's name, `age_s` seconds old.
 * Eviction looks only at names, sizes and times. */
static void fake_path(const char *dir, int i, char *out, size_t out_size)
{
    snprintf(out, out_size, "%s/" FAKE_PREFIX "%016x.clbin", dir, (unsigned)i);
}

static void set_age(const char *path, long age_s)
{
    struct timespec t[2];
    clock_gettime(CLOCK_REALTIME, &t[0]);
    t[0].tv_sec -= age_s;
    t[1] = t[0];
    if (utimensat(AT_FDCWD, path, t, 0) != 0)
        t_diag("utimensat %s failed", path);
}

static void make_file(const char *path, long size, long age_s)
{
    const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || ftruncate(fd, size) != 0)
        t_bail("cannot create %s", path);
    close(fd);
    set_age(path, age_s);
}

static void make_fake(const char *dir, int i, long size, long age_s)
{
    char p[900];
    fake_path(dir, i, p, sizeof p);
    make_file(p, size, age_s);
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static int fake_exists(const char *dir, int i)
{
    char p[900];
    fake_path(dir, i, p, sizeof p);
    return exists(p);
}

static long age_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)(time(NULL) - st.st_mtime) : -1;
}

/* Bytes in the directory's entries (*.clbin), and the path of the one real (not fake) entry. */
static long long entry_bytes(const char *dir, char *real, size_t real_size)
{
    DIR *d = opendir(dir);
    long long total = 0;
    if (real)
        real[0] = 0;
    if (!d)
        return 0;
    const struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const size_t len = strlen(e->d_name);
        if (len < 7 || strcmp(e->d_name + len - 6, ".clbin") != 0)
            continue;
        char p[1200];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        total += file_size(p);
        if (real && strncmp(e->d_name, FAKE_PREFIX, strlen(FAKE_PREFIX)) != 0)
            snprintf(real, real_size, "%s", p);
    }
    closedir(d);
    return total;
}

static void set_limit(unsigned long long value, const char *suffix)
{
    char v[64];
    snprintf(v, sizeof v, "%llu%s", value, suffix);
    setenv("CLSORT_CACHE_MAX_BYTES", v, 1);
}

static void test_limit(void)
{
    char dir[700], real[1200], young_tmp[1300], stale_tmp[1300];
    const long fake = 8L << 20; /* larger than any real entry (PoCL: about 1.4 MB) */
    snprintf(dir, sizeof dir, "%s/limit", root);
    setenv("CLSORT_CACHE_DIR", dir, 1);
    setenv("CLSORT_CACHE_MAX_BYTES", "0", 1);
    t_ok(sort_fresh(5000), "size limit: a first entry stored");
    entry_bytes(dir, real, sizeof real);
    const long r = file_size(real);
    t_ok(r > 0, "... its size: %ld bytes", r);

    /* Cap respected, the most recent kept: six old entries (0 the oldest), the real one gone. */
    for (int i = 0; i < 6; ++i)
        make_fake(dir, i, fake, 600 - 10 * i);
    snprintf(young_tmp, sizeof young_tmp, "%s.99999.1.1.tmp", real);
    snprintf(stale_tmp, sizeof stale_tmp, "%s.99998.1.1.tmp", real);
    make_file(young_tmp, 4096, 0);
    make_file(stale_tmp, 4096, 2 * 86400);
    unlink(real);
    const unsigned long long cap_k = (unsigned long long)(r + 2 * fake + fake / 2) / 1024;
    set_limit(cap_k, "K");
    t_ok(sort_fresh(5000) && traced("cached "), "limit %lluK: the sort stores its entry", cap_k);
    t_ok(exists(real), "... the entry just stored is kept");
    t_ok(!fake_exists(dir, 0) && !fake_exists(dir, 1) && !fake_exists(dir, 2) &&
             !fake_exists(dir, 3),
         "... the four least recently used entries are removed");
    t_ok(fake_exists(dir, 4) && fake_exists(dir, 5), "... the two most recent others are kept");
    const long long after = entry_bytes(dir, NULL, 0);
    t_ok(after <= (long long)cap_k * 1024, "... the directory is within the limit (%lld <= %llu)",
         after, cap_k * 1024);
    t_ok(traced("removed 4 least recently used"), "... the trace says what was removed");
    t_ok(exists(young_tmp), "... a temporary file (a writer at work) is left alone");
    t_ok(!exists(stale_tmp), "... a day-old temporary file (a dead writer's) is removed");
    unlink(young_tmp);

    /* A hit refreshes: the real entry is made the oldest, then hit, then another program is
     * stored with a limit that needs exactly one old entry to go. */
    char fake4[900], fake5[900];
    fake_path(dir, 4, fake4, sizeof fake4);
    fake_path(dir, 5, fake5, sizeof fake5);
    set_age(real, 3600);
    set_age(fake4, 300);
    set_age(fake5, 200);
    t_ok(sort_fresh(5000) && traced("cache hit"), "an old entry hits");
    t_ok(age_of(real) >= 0 && age_of(real) < 60, "... and the hit makes it the most recent (age %ld s)",
         age_of(real));
    set_limit((unsigned long long)(r + 2 * fake - 1), "");
    t_ok(sort_algo_fresh(5000, CLSORT_ODD_EVEN_MERGE) && traced("cached "),
         "another program stored (limit: one old entry must go)");
    t_ok(exists(real), "... the entry refreshed by the hit is kept");
    t_ok(!exists(fake4) && exists(fake5), "... the least recently used one went, the next stayed");
    t_ok(entry_bytes(dir, NULL, 0) <= r + 2 * fake - 1, "... within the limit");

    /* 0 is no limit; a value that is not a size is warned about and the default (256M) used. */
    for (int i = 10; i < 14; ++i)
        make_fake(dir, i, fake, 900);
    const long long before = entry_bytes(dir, NULL, 0);
    unlink(real);
    setenv("CLSORT_CACHE_MAX_BYTES", "0", 1);
    t_ok(sort_fresh(5000) && traced("cached ") && !traced("over its limit"),
         "CLSORT_CACHE_MAX_BYTES=0: stored, nothing removed");
    t_ok(entry_bytes(dir, NULL, 0) >= before, "... every old entry is still there");
    unlink(real);
    setenv("CLSORT_CACHE_MAX_BYTES", "lots", 1);
    t_ok(sort_fresh(5000) && strstr(last.warnings, "CLSORT_CACHE_MAX_BYTES=lots is not a size"),
         "CLSORT_CACHE_MAX_BYTES=lots: sorted, clsort_warnings says so");
    t_ok(!traced("over its limit") && fake_exists(dir, 10),
         "... the default limit (256M) applies: nothing removed");
    unlink(real);
    setenv("CLSORT_CACHE_MAX_BYTES", "1M", 1); /* below one fake: all old ones go */
    t_ok(sort_fresh(5000) && exists(real) && !fake_exists(dir, 10) && !fake_exists(dir, 13),
         "CLSORT_CACHE_MAX_BYTES=1M: only the new entry stays");
    unsetenv("CLSORT_CACHE_MAX_BYTES");
    setenv("CLSORT_CACHE_DIR", cache_dir, 1);
}

/* Two processes storing and evicting in one directory over its limit at once. */
static void test_limit_race(void)
{
    char dir[700], real[1200];
    const long small = 64L << 10;
    snprintf(dir, sizeof dir, "%s/limit-race", root);
    setenv("CLSORT_CACHE_DIR", dir, 1);
    setenv("CLSORT_CACHE_MAX_BYTES", "0", 1);
    sort_fresh(20000); /* the size of the entry the children will store */
    entry_bytes(dir, real, sizeof real);
    const long r = file_size(real);
    unlink(real);
    for (int i = 0; i < 200; ++i)
        make_fake(dir, i, small, 2000 - i);
    const unsigned long long cap = (unsigned long long)(r + 16 * small);
    set_limit(cap, "");
    int unavailable = 0;
    const int sorted = run_children(2, &unavailable);
    if (unavailable) {
        t_skip("two processes evicting at once: the device admits one process at a time");
    } else {
        t_is_int(sorted, 2, "two processes evicting at once: both sort correctly");
        t_ok(exists(real), "... their entry is there");
        int kept = 0;
        for (int i = 0; i < 200; ++i)
            kept += fake_exists(dir, i);
        t_is_int(kept, 16, "... the 16 most recent old entries are kept");
        t_ok(fake_exists(dir, 199) && !fake_exists(dir, 183), "... and they are the newest");
        t_ok(entry_bytes(dir, NULL, 0) <= (long long)cap, "... within the limit");
    }
    t_is_int(count_files(dir, ".tmp", NULL, 0), 0, "... no temporary files left");
    unsetenv("CLSORT_CACHE_MAX_BYTES");
    setenv("CLSORT_CACHE_DIR", cache_dir, 1);
}

/* ---- Places that other users could write (docs/security.md) -------------------------------- */

static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    char buf[65536];
    size_t got;
    while (in && out && (got = fread(buf, 1, sizeof buf, in)) > 0)
        fwrite(buf, 1, got, out);
    if (in)
        fclose(in);
    if (out)
        fclose(out);
}

static void test_untrusted_cache(void)
{
    char dir[700], good[1200], entry[1400];
    snprintf(dir, sizeof dir, "%s/shared", root);
    mkdir(dir, 0755);
    /* A valid entry for the program sort_fresh(5000) uses, from the main cache directory. */
    entry_bytes(cache_dir, good, sizeof good);
    snprintf(entry, sizeof entry, "%s%s", dir, strrchr(good, '/'));
    copy_file(good, entry);
    setenv("CLSORT_CACHE_DIR", dir, 1);

    chmod(dir, 0777);
    set_age(entry, 1000);
    t_ok(sort_fresh(5000), "cache directory writable by others (0777): sort correct");
    t_ok(strstr(last.warnings, "program cache") && strstr(last.warnings, "not used") &&
             strstr(last.warnings, "writable by other users"),
         "... clsort_warnings says the cache is not used, and why");
    if (!strstr(last.warnings, "not used"))
        t_diag("warnings: %s", last.warnings);
    t_ok(!traced("cache hit") && !traced("cache miss") && age_of(entry) >= 1000,
         "... no entry is read there");
    t_ok(count_files(dir, ".clbin", NULL, 0) == 1 && count_files(dir, ".tmp", NULL, 0) == 0,
         "... nothing is written there");
    chmod(dir, 0775);
    t_ok(sort_fresh(5000) && strstr(last.warnings, "writable by its group") &&
             !traced("cache hit"),
         "group-writable (0775): not used either");

    chmod(dir, 0755); /* the control: the same entry is used once the directory is private */
    t_ok(sort_fresh(5000) && traced("cache hit") && !last.warnings[0],
         "the same directory at 0755: the entry hits, no warning");

    /* A sticky shared directory (like /tmp) is used, but each entry is checked. */
    chmod(dir, 01777);
    chmod(entry, 0666);
    t_ok(sort_fresh(5000) && !traced("cache hit") && traced("writable by other users"),
         "sticky 01777 directory: an entry writable by others is ignored");
    t_ok(traced("cached ") && (file_size(entry) > 0) && has_magic(entry),
         "... and replaced by our own");
    if (geteuid() == 0) {
        /* As root the tests can make files that belong to someone else (nobody, 65534). */
        if (chown(entry, 65534, 65534) != 0)
            t_diag("chown failed");
        t_ok(sort_fresh(5000) && !traced("cache hit") && traced("owned by another user"),
             "an entry owned by another user is ignored");
        chmod(dir, 0755);
        if (chown(dir, 65534, 65534) != 0)
            t_diag("chown failed");
        t_ok(sort_fresh(5000) && strstr(last.warnings, "owned by another user") &&
                 !traced("cache hit"),
             "a cache directory owned by another user is not used");
        if (chown(dir, 0, 0) != 0 || chown(entry, 0, 0) != 0)
            t_diag("chown back failed");
    } else {
        t_skip("an entry owned by another user (needs root to make one)");
        t_skip("a directory owned by another user (needs root to make one)");
    }
    chmod(dir, 0755);
    setenv("CLSORT_CACHE_DIR", cache_dir, 1);
}

/* The config's source as a fresh context sees it, and its warnings. */
static void config_seen(char *source, size_t size)
{
    clsort_ctx *ctx = NULL;
    source[0] = 0;
    last.warnings[0] = 0;
    if (clsort_create(&ctx, NULL) != CLSORT_OK)
        return;
    clsort_device_info info;
    if (clsort_get_device_info(ctx, &info) == CLSORT_OK)
        snprintf(source, size, "%s", info.config_source);
    snprintf(last.warnings, sizeof last.warnings, "%s", clsort_warnings(ctx));
    clsort_destroy(ctx);
}

static void test_untrusted_config(void)
{
    char dir[700], path[1200], seen[1200];
    snprintf(dir, sizeof dir, "%s/conf-shared", root);
    mkdir(dir, 0755);
    setenv("CLSORT_CONFIG_DIR", dir, 1);
    char debug[32];
    snprintf(debug, sizeof debug, "%s", getenv("CLSORT_DEBUG") ? getenv("CLSORT_DEBUG") : "1");
    setenv("CLSORT_DEBUG", "0", 1); /* only the warnings matter here */
    clsort_ctx *ctx = NULL;
    if (clsort_create(&ctx, NULL) != CLSORT_OK || clsort_config_path(ctx, path, sizeof path))
        t_bail("no context or config path");
    clsort_destroy(ctx);
    FILE *f = fopen(path, "w");
    if (!f)
        t_bail("cannot write %s", path);
    /* A setting every device can take (kernel parameters may be out of range on some, and an
     * unusable file falls back to the defaults, which would hide what is tested here). */
    fputs("[auto]\nhost_fallback_max = 100\n", f);
    fclose(f);
    chmod(path, 0644);
    config_seen(seen, sizeof seen);
    t_is_str(seen, path, "a config in a private directory is used (the control)");
    chmod(dir, 0777);
    config_seen(seen, sizeof seen);
    t_is_str(seen, "built-in defaults", "config directory writable by others: the config is ignored");
    t_ok(strstr(last.warnings, "ignored") && strstr(last.warnings, "writable by other users"),
         "... and clsort_warnings says why");
    chmod(dir, 0755);
    chmod(path, 0666);
    config_seen(seen, sizeof seen);
    t_is_str(seen, "built-in defaults", "a config file writable by others is ignored");
    t_ok(strstr(last.warnings, path) != NULL, "... the warning names the file");
    unlink(path);
    char conf[700];
    snprintf(conf, sizeof conf, "%s/conf", root);
    setenv("CLSORT_CONFIG_DIR", conf, 1);
    setenv("CLSORT_DEBUG", debug, 1);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--child"))
        return run_child(); /* the environment (device, cache directory) comes from the parent */
    const ssize_t len = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
    if (len > 0)
        self_path[len] = 0;
    else
        snprintf(self_path, sizeof self_path, "%s", argv[0]);
    t_init("test_cache");
    /* The race children below inherit this process's environment after it opened the device:
     * the ICD loader's variables must still be what the process started with (device.c). */
    const char *icd0 = getenv("OCL_ICD_FILENAMES");
    char icd_start[4096];
    snprintf(icd_start, sizeof icd_start, "%s", icd0 ? icd0 : "(unset)");
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
    unsetenv("CLSORT_CACHE_MAX_BYTES");
    umask(022);
    /* The checks read the trace; CLSORT_DEBUG=2 from outside is kept (children then show
     * theirs, and the launches are traced too). */
    const char *dbg = getenv("CLSORT_DEBUG");
    if (!dbg || atoi(dbg) < 1)
        setenv("CLSORT_DEBUG", "1", 1);
    t_diag("cache directory: %s", cache_dir);

    test_hit_miss_corrupt();
    test_disabled();
    test_places();
    test_concurrent();
    test_limit();
    test_limit_race();
    test_untrusted_cache();
    test_untrusted_config();

    t_remove_tree(root);
    const char *icd1 = getenv("OCL_ICD_FILENAMES");
    t_is_str(icd1 ? icd1 : "(unset)", icd_start,
             "OCL_ICD_FILENAMES is as the process started with it, after every sort");
    return t_done();
}
