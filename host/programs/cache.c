/* cache.c - on-disk cache of compiled program binaries (docs/tuning.md, "Program cache").
 *
 * An entry is named by a 128-bit hash of its key: everything that changes the binary (clsort
 * version, kernel source, build options, device, driver and platform). The file repeats the
 * whole key and a checksum of the binary, so a hash collision, a truncated or corrupt file, or a
 * file from another build is detected and simply rebuilt (and overwritten). Entries are written to
 * a temporary file unique to the process and renamed into place, so readers never see half a
 * file and concurrent writers of the same entry both leave a valid one. Nothing here is fatal
 * and nothing is printed (only the CLSORT_DEBUG trace). CLSORT_NO_CACHE=1 turns it off.
 *
 * The directory has a size limit (CLSORT_CACHE_MAX_BYTES, default 256 MiB): after each store the
 * least recently used entries (oldest modification time; a hit sets it to now) are removed, under
 * an advisory lock so that processes sharing the directory take turns. A directory or entry that
 * another user could have written is never read from or written to (trust.c). */
#define _DEFAULT_SOURCE /* flock(2): not in POSIX, but in every libc clsort builds with */

#include "cache.h"

#include "trust.h"
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CACHE_MAGIC "CLSORTPB"
#define CACHE_FORMAT 1u
#define CACHE_MAX_BINARY ((uint64_t)1 << 30) /* a larger "length" means a corrupt header */
#define CACHE_DEFAULT_MAX_BYTES ((uint64_t)256 << 20)
#define CACHE_LOCK_NAME ".lock"
#define CACHE_LOCK_WAIT_MS 2000 /* then eviction is skipped: the next store tries again */
#define CACHE_STALE_TMP_S (24 * 3600) /* a writer's temporary file older than this is litter */

/* The fixed part at the start of an entry (native byte order: entries never leave the machine,
 * and the key names the device). Followed by key_len bytes of key and binary_len of binary. */
typedef struct cache_header {
    char magic[8];
    uint32_t format;
    uint32_t key_len;
    uint64_t binary_len;
    uint64_t binary_fnv;
} cache_header;

static uint64_t fnv1a64(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; ++i) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}
#define FNV_BASIS 0xcbf29ce484222325ull
#define FNV_BASIS2 0x84222325cbf29ce4ull /* a second, independent start for 128 bits */

static int cache_disabled(void)
{
    const char *e = getenv("CLSORT_NO_CACHE");
    return e && *e && strcmp(e, "0") != 0;
}

int clsort__cache_dir(char *out, size_t out_size)
{
    return clsort__xdg_dir("CLSORT_CACHE_DIR", "XDG_CACHE_HOME", ".cache", out, out_size);
}

/* A warning that repeats (every program build asks the cache) is recorded once per context. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void warn_once(clsort_ctx *ctx, const char *fmt, ...)
{
    char buf[1400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (!ctx->warnings || !strstr(ctx->warnings, buf))
        clsort__warn(ctx, "%s", buf);
}

/* Whether the cache directory may be used (docs/security.md); warns if not. */
static int dir_trusted(clsort_ctx *ctx, const char *dir)
{
    char why[200];
    if (clsort__check_trusted_path(dir, why, sizeof why) == 0)
        return 1;
    warn_once(ctx, "program cache %s not used: it is %s, so another user could plant code that "
                   "runs on the device (docs/security.md)", dir, why);
    return 0;
}

/* The size limit of the cache directory: CLSORT_CACHE_MAX_BYTES, 0 meaning no limit. */
static uint64_t cache_max_bytes(clsort_ctx *ctx)
{
    const char *e = getenv("CLSORT_CACHE_MAX_BYTES");
    uint64_t v = CACHE_DEFAULT_MAX_BYTES;
    if (e && *e && clsort__parse_size(e, 1, &v) != 0) {
        warn_once(ctx, "CLSORT_CACHE_MAX_BYTES=%s is not a size (such as 268435456, 512M or 2G); "
                       "using the default, 256M", e);
        v = CACHE_DEFAULT_MAX_BYTES;
    }
    return v;
}

/* The key (malloc'ed) and the entry's path. Returns NULL if either cannot be formed. */
static char *make_key(const clsort_ctx *ctx, const char *source, size_t source_len,
                      const char *options, char *path, size_t path_size)
{
    char dir[1024];
    if (clsort__cache_dir(dir, sizeof dir))
        return NULL;
    const clsort__device *d = &ctx->dev;
    const char *fmt = "clsort-program-cache %u\nclsort %s\nsource fnv1a64=%016llx bytes=%zu\n"
                      "options %s\ndevice %s\nvendor %s\ndriver %s\nplatform %s\n"
                      "platform-version %s\n";
    const unsigned long long src_hash = (unsigned long long)fnv1a64(FNV_BASIS, source, source_len);
    const int len = snprintf(NULL, 0, fmt, CACHE_FORMAT, CLSORT_VERSION_STRING, src_hash,
                             source_len, options, d->name, d->vendor, d->driver, d->platform_name,
                             d->platform_version);
    char *key = len > 0 ? malloc((size_t)len + 1) : NULL;
    if (!key)
        return NULL;
    snprintf(key, (size_t)len + 1, fmt, CACHE_FORMAT, CLSORT_VERSION_STRING, src_hash, source_len,
             options, d->name, d->vendor, d->driver, d->platform_name, d->platform_version);
    const uint64_t h1 = fnv1a64(FNV_BASIS, key, (size_t)len);
    const uint64_t h2 = fnv1a64(FNV_BASIS2, key, (size_t)len);
    const int n = snprintf(path, path_size, "%s/%016llx%016llx.clbin", dir, (unsigned long long)h1,
                           (unsigned long long)h2);
    if (n <= 0 || (size_t)n >= path_size) {
        free(key);
        return NULL;
    }
    return key;
}

/* Reads and verifies an entry; returns the binary (malloc'ed) or NULL. */
static unsigned char *read_entry(clsort_ctx *ctx, const char *path, const char *key,
                                 size_t *binary_len)
{
    unsigned char *bin = NULL;
    char *stored_key = NULL;
    const char *why = "";
    char untrusted[200];
    /* O_NONBLOCK: a FIFO under an entry's name (anyone may create one in a sticky shared
     * directory) must not hang the open; fstat below then refuses it. No effect on files. */
    const int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (!f) {
        if (fd >= 0)
            close(fd);
        clsort__trace(ctx, "cache miss: %s", path);
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        why = "not a regular file";
        goto fail;
    }
    /* In a sticky shared directory another user may have created the file under our name. */
    if (clsort__check_trusted_stat(&st, untrusted, sizeof untrusted) != 0) {
        why = untrusted;
        goto fail;
    }
    cache_header h;
    const size_t key_len = strlen(key);
    if (fread(&h, sizeof h, 1, f) != 1 || memcmp(h.magic, CACHE_MAGIC, 8) != 0 ||
        h.format != CACHE_FORMAT) {
        why = "bad header";
        goto fail;
    }
    if (h.key_len != key_len || h.binary_len == 0 || h.binary_len > CACHE_MAX_BINARY) {
        why = "other key or bad length";
        goto fail;
    }
    stored_key = malloc(key_len);
    bin = malloc((size_t)h.binary_len);
    if (!stored_key || !bin) {
        why = "out of memory";
        goto fail;
    }
    if (fread(stored_key, 1, key_len, f) != key_len || memcmp(stored_key, key, key_len) != 0) {
        why = "other key";
        goto fail;
    }
    if (fread(bin, 1, (size_t)h.binary_len, f) != h.binary_len || fgetc(f) != EOF) {
        why = "wrong length";
        goto fail;
    }
    if (fnv1a64(FNV_BASIS, bin, (size_t)h.binary_len) != h.binary_fnv) {
        why = "checksum mismatch";
        goto fail;
    }
    /* A hit makes the entry the most recently used one for eviction (mtime: atime is often not
     * kept). Best effort: a failure only makes the entry look older. */
    futimens(fd, NULL);
    fclose(f);
    free(stored_key);
    *binary_len = (size_t)h.binary_len;
    return bin;
fail:
    clsort__trace(ctx, "cache entry %s ignored: %s", path, why);
    fclose(f);
    free(stored_key);
    free(bin);
    return NULL;
}

cl_program clsort__cache_load(clsort_ctx *ctx, const char *source, size_t source_len,
                              const char *options)
{
    if (cache_disabled())
        return NULL;
    char path[1200], dir[1024];
    if (clsort__cache_dir(dir, sizeof dir) || !dir_trusted(ctx, dir))
        return NULL;
    char *key = make_key(ctx, source, source_len, options, path, sizeof path);
    if (!key)
        return NULL;
    const uint64_t t0 = clsort__now_ns();
    size_t len = 0;
    unsigned char *bin = read_entry(ctx, path, key, &len);
    free(key);
    if (!bin)
        return NULL;
    const uint64_t t1 = clsort__now_ns();
    cl_int err, status = CL_SUCCESS;
    const unsigned char *bins[1] = {bin};
    cl_program prog =
        clCreateProgramWithBinary(ctx->context, 1, &ctx->dev.id, &len, bins, &status, &err);
    free(bin);
    const uint64_t t2 = clsort__now_ns();
    if (err != CL_SUCCESS || status != CL_SUCCESS) {
        clsort__trace(ctx, "cache entry %s rejected by the driver: %s", path,
                      clsort__cl_error_name(err != CL_SUCCESS ? err : status));
        if (prog && err == CL_SUCCESS)
            clReleaseProgram(prog);
        return NULL;
    }
    err = clBuildProgram(prog, 1, &ctx->dev.id, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        clsort__trace(ctx, "cache entry %s did not build: %s", path, clsort__cl_error_name(err));
        clReleaseProgram(prog);
        return NULL;
    }
    /* The parts, so that a first sort's time splits into reading, loading and building. */
    const uint64_t t3 = clsort__now_ns();
    clsort__trace(ctx, "cache hit in %.1f ms (read %.1f, clCreateProgramWithBinary %.1f, "
                       "clBuildProgram %.1f; %zu bytes): %s",
                  (t3 - t0) / 1e6, (t1 - t0) / 1e6, (t2 - t1) / 1e6, (t3 - t2) / 1e6, len, path);
    return prog;
}

/* mkdir -p, best effort. */
static int make_dirs(const char *dir)
{
    char buf[1024];
    if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf)
        return -1;
    for (char *p = buf + 1; *p; ++p)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0755) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(buf, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

static int write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len) {
        const ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

/* ---- The size limit ---- */

typedef struct cache_file {
    char name[64];
    uint64_t size;
    struct timespec mtime;
} cache_file;

static int older_first(const void *a, const void *b)
{
    const cache_file *x = a, *y = b;
    if (x->mtime.tv_sec != y->mtime.tv_sec)
        return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
    if (x->mtime.tv_nsec != y->mtime.tv_nsec)
        return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* "<32 hex digits>.clbin": what make_key names an entry. */
static int is_entry_name(const char *name)
{
    for (int i = 0; i < 32; ++i)
        if (!isxdigit((unsigned char)name[i]))
            return 0;
    return !strcmp(name + 32, ".clbin");
}

/* "<entry>.clbin.<pid>.<ctx>.<n>.tmp": a writer's temporary file. */
static int is_tmp_name(const char *name)
{
    const size_t len = strlen(name);
    return len > 4 && !strcmp(name + len - 4, ".tmp") && strstr(name, ".clbin.") != NULL;
}

int clsort__cache_clear(unsigned *removed)
{
    *removed = 0;
    char dir[1024];
    if (clsort__cache_dir(dir, sizeof dir) != 0) {
        errno = 0;
        return CLSORT_ERR_INVALID_ARG;
    }
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT ? CLSORT_OK : CLSORT_ERR_INVALID_ARG;
    const int dfd = dirfd(d);
    const uid_t me = geteuid();
    int first_errno = 0;
    const struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!is_entry_name(e->d_name) && !is_tmp_name(e->d_name))
            continue;
        /* What this user's clsort wrote: regular files of ours, never a link (removing the
         * link would be harmless, but it is not ours to judge) nor another user's entry in a
         * shared sticky directory. A file that vanished meanwhile counts as removed by its
         * remover. */
        struct stat st;
        if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
            st.st_uid != me)
            continue;
        if (unlinkat(dfd, e->d_name, 0) == 0)
            ++*removed;
        else if (errno != ENOENT && !first_errno)
            first_errno = errno;
    }
    closedir(d);
    errno = first_errno;
    return first_errno ? CLSORT_ERR_INVALID_ARG : CLSORT_OK;
}

/* Takes the directory's eviction lock (flock on CACHE_LOCK_NAME), waiting up to
 * CACHE_LOCK_WAIT_MS: a process that holds it longer (stopped, or hostile in a shared
 * directory) must not stall a sort. Returns the lock's fd, or -1 to skip eviction this time. */
static int lock_dir(const char *dir)
{
    char path[1100];
    if (snprintf(path, sizeof path, "%s/%s", dir, CACHE_LOCK_NAME) >= (int)sizeof path)
        return -1;
    /* O_NONBLOCK and a regular file only, as for entries: a FIFO here must not hang. */
    const int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return -1;
    }
    for (int waited_ms = 0;; waited_ms += 5) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0)
            return fd;
        if ((errno != EWOULDBLOCK && errno != EINTR) || waited_ms >= CACHE_LOCK_WAIT_MS)
            break;
        const struct timespec pause = {0, 5 * 1000000L};
        nanosleep(&pause, NULL);
    }
    close(fd);
    return -1;
}

/* Removes the least recently used entries until the directory holds at most the limit, never
 * the entry just stored (keep_path: it is the most recent, and alone may exceed a tiny limit).
 * Other processes may store, hit or evict meanwhile: a file that vanished counts as removed,
 * and only complete entries are removed (temporary files only when a day old, from a writer
 * that died), so no writer loses a file it is still writing. */
static void evict(clsort_ctx *ctx, const char *dir, const char *keep_path)
{
    const uint64_t max = cache_max_bytes(ctx);
    if (max == 0)
        return;
    const char *keep = strrchr(keep_path, '/');
    keep = keep ? keep + 1 : keep_path;
    cache_file *files = NULL;
    size_t n = 0, room = 0;
    uint64_t total = 0;
    int removed = 0;
    DIR *d = NULL;
    const int lock = lock_dir(dir);
    if (lock < 0) {
        clsort__trace(ctx, "cache size not checked: the lock %s/%s is busy or unusable", dir,
                      CACHE_LOCK_NAME);
        return;
    }
    d = opendir(dir);
    if (!d)
        goto done;
    const int dfd = dirfd(d);
    const time_t now = time(NULL);
    const struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const int entry = is_entry_name(e->d_name);
        if (!entry && !is_tmp_name(e->d_name))
            continue;
        struct stat st;
        if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
            st.st_uid != geteuid())
            continue; /* gone meanwhile, or not ours to remove */
        if (!entry) {
            if (now - st.st_mtime > CACHE_STALE_TMP_S && unlinkat(dfd, e->d_name, 0) == 0)
                clsort__trace(ctx, "removed a stale temporary file: %s/%s", dir, e->d_name);
            continue;
        }
        if (n == room) {
            room = room ? 2 * room : 64;
            cache_file *grown = realloc(files, room * sizeof *files);
            if (!grown)
                goto done;
            files = grown;
        }
        /* An entry name (is_entry_name) is 38 characters: the precision only tells the
         * compiler that a d_name of 255 cannot reach here. */
        snprintf(files[n].name, sizeof files[n].name, "%.63s", e->d_name);
        files[n].size = (uint64_t)st.st_size;
        files[n].mtime = st.st_mtim;
        total += files[n].size;
        ++n;
    }
    if (total <= max)
        goto done;
    qsort(files, n, sizeof *files, older_first);
    for (size_t i = 0; i < n && total > max; ++i) {
        if (!strcmp(files[i].name, keep))
            continue;
        if (unlinkat(dfd, files[i].name, 0) == 0 || errno == ENOENT) {
            total -= files[i].size;
            ++removed;
        } else {
            clsort__trace(ctx, "cache entry %s/%s not removed: %s", dir, files[i].name,
                          strerror(errno));
        }
    }
    clsort__trace(ctx, "cache over its limit of %llu bytes: removed %d least recently used "
                       "entr%s, %llu bytes left",
                  (unsigned long long)max, removed, removed == 1 ? "y" : "ies",
                  (unsigned long long)total);
done:
    if (d)
        closedir(d);
    free(files);
    close(lock); /* releases the flock */
}

void clsort__cache_store(clsort_ctx *ctx, cl_program program, const char *source,
                         size_t source_len, const char *options)
{
    if (cache_disabled())
        return;
    static unsigned counter; /* tmp names: pid + context + counter keep writers apart */
    char path[1200], tmp[1300], dir[1024];
    unsigned char *bin = NULL;
    int fd = -1;
    const char *why = "";
    char *key = make_key(ctx, source, source_len, options, path, sizeof path);
    if (!key || clsort__cache_dir(dir, sizeof dir))
        goto fail;
    size_t len = 0;
    cl_uint ndev = 0;
    if (clGetProgramInfo(program, CL_PROGRAM_NUM_DEVICES, sizeof ndev, &ndev, NULL) !=
            CL_SUCCESS ||
        ndev != 1 ||
        clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof len, &len, NULL) !=
            CL_SUCCESS ||
        len == 0 || len > CACHE_MAX_BINARY || !(bin = malloc(len))) {
        why = "no binary";
        goto fail;
    }
    unsigned char *bins[1] = {bin};
    if (clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL) != CL_SUCCESS) {
        why = "clGetProgramInfo(CL_PROGRAM_BINARIES) failed";
        goto fail;
    }
    if (make_dirs(dir)) {
        why = "cannot create the directory";
        goto fail;
    }
    /* Checked after creating it: a directory someone else made first counts as theirs. */
    if (!dir_trusted(ctx, dir)) {
        why = "the directory is not safe";
        goto fail;
    }
    snprintf(tmp, sizeof tmp, "%s.%ld.%lx.%u.tmp", path, (long)getpid(),
             (unsigned long)((uintptr_t)ctx & 0xFFFFFFu), ++counter);
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        why = "cannot create the temporary file";
        goto fail;
    }
    cache_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, CACHE_MAGIC, 8);
    h.format = CACHE_FORMAT;
    h.key_len = (uint32_t)strlen(key);
    h.binary_len = len;
    h.binary_fnv = fnv1a64(FNV_BASIS, bin, len);
    if (write_all(fd, &h, sizeof h) || write_all(fd, key, h.key_len) ||
        write_all(fd, bin, len)) {
        why = "write failed";
        goto fail;
    }
    if (close(fd) != 0) {
        fd = -1;
        why = "write failed";
        goto fail;
    }
    fd = -1;
    if (rename(tmp, path) != 0) {
        why = "rename failed";
        goto fail;
    }
    clsort__trace(ctx, "cached %zu bytes: %s", len, path);
    evict(ctx, dir, path);
    free(key);
    free(bin);
    return;
fail:
    if (fd >= 0) {
        close(fd);
    }
    if (fd >= 0 || !strcmp(why, "write failed") || !strcmp(why, "rename failed"))
        unlink(tmp);
    if (*why)
        clsort__trace(ctx, "program not cached (%s): %s", why, key ? path : "no cache directory");
    free(key);
    free(bin);
}
