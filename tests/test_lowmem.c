/* test_lowmem.c - memory limits: under an address-space limit too small for the OpenCL driver
 * to load, clsort_create and clsort_list_devices say CLSORT_ERR_OUT_OF_MEMORY (not "no
 * device"); with the driver loaded and little room left, a sort (and a segmented sort, and a
 * top-k) that needs more fails with CLSORT_ERR_OUT_OF_MEMORY and a message that says memory,
 * leaves the keys as they were, and does not abort in the driver (PoCL asserts when an
 * allocation it was handed fails); with the limit lifted the same context sorts. Each case runs
 * in a child process (this program run again with --child), since a limit and a loaded driver
 * cannot be undone. */
#include "test_util.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define MIB ((rlim_t)1 << 20)

static char self[1024];

/* The process's address space now (VmSize of /proc/self/status), 0 if unknown. */
static rlim_t vm_size(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    unsigned long kib = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmSize: %lu kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return (rlim_t)kib * 1024;
}

static int limit_as(rlim_t bytes)
{
    struct rlimit r;
    getrlimit(RLIMIT_AS, &r);
    r.rlim_cur = bytes;
    return setrlimit(RLIMIT_AS, &r);
}

/* Child 1: the driver cannot load. Prints "create RC" and "list RC". */
static int child_noload(void)
{
    if (limit_as(150 * MIB) != 0)
        return 2;
    clsort_ctx *ctx = NULL;
    const int rc = clsort_create(&ctx, NULL);
    const int nl = clsort_list_devices(NULL, NULL);
    printf("create %d list %d\n", rc, nl);
    clsort_destroy(ctx);
    return 0;
}

/* Child 2: loaded, then a limit just above what the process holds. Prints "sort RC untouched
 * U msg MSG", then "after RC" once the limit is lifted. */
static int child_sort(void)
{
    clsort_ctx *ctx = NULL;
    if (clsort_create(&ctx, NULL) != CLSORT_OK)
        return 3;
    const size_t n = (size_t)1 << 22; /* 16 MiB of keys: the device buffer needs as much again */
    uint32_t *keys = malloc(n * 4), *copy = malloc(n * 4);
    if (!keys || !copy)
        return 4;
    t_rng r = t_rng_for(5, n, 0, 0);
    for (size_t i = 0; i < n; ++i)
        keys[i] = copy[i] = (uint32_t)t_rand64(&r);
    struct rlimit saved;
    getrlimit(RLIMIT_AS, &saved);
    if (limit_as(vm_size() + 8 * MIB) != 0)
        return 5;
    int rc = clsort_sort(ctx, keys, n, CLSORT_U32, CLSORT_BITONIC, CLSORT_NO_HOST_FALLBACK);
    printf("sort %d untouched %d msg %s\n", rc, !memcmp(keys, copy, n * 4),
           clsort_last_error(ctx));
    /* The segmented sort (segments of 1000 keys: its own passes) and top-k make their buffers
     * through the same scratch code. */
    static uint64_t offsets[5001];
    const size_t nseg = n / 1000 < 5000 ? n / 1000 : 5000;
    for (size_t i = 0; i <= nseg; ++i)
        offsets[i] = (uint64_t)i * 1000;
    rc = clsort_sort_segments(ctx, keys, NULL, 0, offsets, nseg, CLSORT_U32, CLSORT_BITONIC,
                              CLSORT_NO_HOST_FALLBACK);
    printf("segments %d untouched %d\n", rc, !memcmp(keys, copy, n * 4));
    static uint32_t top[16];
    rc = clsort_topk(ctx, keys, NULL, 0, n, 1, 16, CLSORT_U32, 0, top, NULL);
    printf("topk %d\n", rc);
    setrlimit(RLIMIT_AS, &saved);
    rc = clsort_sort(ctx, keys, n, CLSORT_U32, CLSORT_BITONIC, CLSORT_NO_HOST_FALLBACK);
    t_ref_sort(CLSORT_U32, copy, n, 0);
    printf("after %d sorted %d\n", rc, !memcmp(keys, copy, n * 4));
    clsort_destroy(ctx);
    free(keys);
    free(copy);
    return 0;
}

/* Runs this program with --child WHICH; its stdout into out. Returns the exit status, or 128 +
 * the signal that ended it. */
static int run_child(const char *which, char *out, size_t out_size)
{
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        execl(self, self, "--child", which, (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    size_t got = 0;
    ssize_t k;
    while (got + 1 < out_size && (k = read(fd[0], out + got, out_size - 1 - got)) > 0)
        got += (size_t)k;
    out[got] = 0;
    close(fd[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--child"))
        return !strcmp(argv[2], "noload") ? child_noload() : child_sort();
    t_init("test_lowmem");
    const ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        t_bail("cannot find this program (/proc/self/exe)");
    self[len] = 0;
    if (getenv("CLSORT_TEST_SAN")) {
        /* Sanitizers reserve terabytes of address space: an address-space limit means nothing. */
        t_skip("address-space limits under sanitizers");
        return t_done();
    }

    char out[4096];
    int st = run_child("noload", out, sizeof out);
    int crc = 99, nl = 99;
    if (st == 0 && sscanf(out, "create %d list %d", &crc, &nl) == 2 && crc == CLSORT_OK) {
        t_skip("the driver loads within 150 MiB of address space; nothing to see");
    } else {
        t_ok(st == 0, "under a 150 MiB limit the child ends normally (status %d)", st);
        t_is_status(crc, CLSORT_ERR_OUT_OF_MEMORY,
                    "clsort_create under a 150 MiB limit: out of memory, not no device");
        t_is_status(nl, CLSORT_ERR_OUT_OF_MEMORY, "clsort_list_devices likewise");
    }

    /* The address-space probe covers devices that share host memory (PoCL, integrated GPUs),
     * where the buffers are host memory; a discrete GPU's buffers are not, and what its driver
     * does under an address-space limit is not this test's subject. */
    clsort_ctx *ctx = t_create_ctx();
    clsort_device_info info;
    const int cpu = clsort_get_device_info(ctx, &info) == CLSORT_OK && info.type &&
                    !strcmp(info.type, "cpu");
    clsort_destroy(ctx);
    if (!cpu) {
        t_skip("a sort under an address-space limit: the device is not a CPU device");
        return t_done();
    }
    st = run_child("sort", out, sizeof out);
    t_ok(st == 0, "a sort over the limit ends normally, no abort in the driver (status %d)", st);
    int src = 99, untouched = 0, arc = 99, sorted = 0;
    char msg[2048] = "";
    const char *after = strstr(out, "\nafter ");
    if (sscanf(out, "sort %d untouched %d msg %2047[^\n]", &src, &untouched, msg) < 2)
        t_diag("child said: %s", out);
    if (after)
        sscanf(after + 1, "after %d sorted %d", &arc, &sorted);
    int segrc = 99, seguntouched = 0, toprc = 99;
    const char *seg = strstr(out, "\nsegments "), *top = strstr(out, "\ntopk ");
    if (seg)
        sscanf(seg + 1, "segments %d untouched %d", &segrc, &seguntouched);
    if (top)
        sscanf(top + 1, "topk %d", &toprc);
    t_is_status(src, CLSORT_ERR_OUT_OF_MEMORY, "the sort over the limit: out of memory");
    t_ok(strstr(msg, "memory") != NULL, "... with a message that says memory: %s", msg);
    t_ok(untouched == 1, "... and the keys untouched");
    t_is_status(segrc, CLSORT_ERR_OUT_OF_MEMORY, "a segmented sort over the limit: out of memory");
    t_ok(seguntouched == 1, "... and the keys untouched");
    t_is_status(toprc, CLSORT_ERR_OUT_OF_MEMORY, "a top-k over the limit: out of memory");
    t_ok(arc == CLSORT_OK && sorted == 1, "with the limit lifted the context sorts (%d, %d)", arc,
         sorted);
    return t_done();
}
