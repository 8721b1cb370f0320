/* cache.c - on-disk cache of compiled program binaries (docs/tuning.md, "Program cache").
 *
 * An entry is named by a 128-bit hash of its key: everything that changes the binary (clsort
 * version, kernel source, build options, device, driver and platform). The file repeats the
 * whole key and a checksum of the binary, so a hash collision, a truncated or corrupt file, or a
 * file from another build is detected and simply rebuilt (and overwritten). Entries are written to
 * a temporary file unique to the process and renamed into place, so readers never see half a
 * file and concurrent writers of the same entry both leave a valid one. Nothing here is fatal
 * and nothing is printed (only the CLSORT_DEBUG trace). CLSORT_NO_CACHE=1 turns it off. */
#include "cache.h"

#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CACHE_MAGIC "CLSORTPB"
#define CACHE_FORMAT 1u
#define CACHE_MAX_BINARY ((uint64_t)1 << 30) /* a larger "length" means a corrupt header */

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
static unsigned char *read_entry(const clsort_ctx *ctx, const char *path, const char *key,
                                 size_t *binary_len)
{
    unsigned char *bin = NULL;
    char *stored_key = NULL;
    const char *why = "";
    FILE *f = fopen(path, "rb");
    if (!f) {
        clsort__trace(ctx, "cache miss: %s", path);
        return NULL;
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
    char path[1200];
    char *key = make_key(ctx, source, source_len, options, path, sizeof path);
    if (!key)
        return NULL;
    const uint64_t t0 = clsort__now_ns();
    size_t len = 0;
    unsigned char *bin = read_entry(ctx, path, key, &len);
    free(key);
    if (!bin)
        return NULL;
    cl_int err, status = CL_SUCCESS;
    const unsigned char *bins[1] = {bin};
    cl_program prog =
        clCreateProgramWithBinary(ctx->context, 1, &ctx->dev.id, &len, bins, &status, &err);
    free(bin);
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
    clsort__trace(ctx, "cache hit in %.1f ms: %s", (clsort__now_ns() - t0) / 1e6, path);
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
    snprintf(tmp, sizeof tmp, "%s.%ld.%lx.%u.tmp", path, (long)getpid(),
             (unsigned long)((uintptr_t)ctx & 0xFFFFFFu), ++counter);
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
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
