/* multi_device.c - sorting one array across every OpenCL device with the clsort library: one
 * context per device (the library never spans devices), one thread per context sorting its part,
 * then a k-way merge on the host. Built and run by tests/test_multidev.sh:
 *   cc -std=c11 docs/examples/multi_device.c -Iinclude build/libclsort.a -lOpenCL -lpthread -lm -linih
 *   POCL_DEVICES="pthread pthread" ./a.out 1000000                    (two CPU devices on PoCL) */
#define _POSIX_C_SOURCE 200809L
#include <clsort.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEVICES 16

typedef struct part {
    clsort_ctx *ctx;
    uint32_t *keys;
    size_t n;
    int rc;
} part;

static void *sort_part(void *arg) /* one thread per context: contexts are independent */
{
    part *const p = arg;
    p->rc = clsort_sort(p->ctx, p->keys, p->n, CLSORT_U32, CLSORT_AUTO, 0);
    return NULL;
}

static void add_spec(const clsort_device_info *info, int is_default, void *user)
{
    char (*specs)[16] = user;
    (void)is_default;
    for (int i = 0; i < MAX_DEVICES; ++i)
        if (!specs[i][0]) {
            snprintf(specs[i], 16, "%u:%u", info->platform_index, info->device_index);
            return;
        }
}

int main(int argc, char **argv)
{
    const size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
    char specs[MAX_DEVICES][16] = { { 0 } };
    int nd = clsort_list_devices(add_spec, specs);
    if (nd <= 0)
        return fprintf(stderr, "no OpenCL device\n"), 1;
    if (nd > MAX_DEVICES)
        nd = MAX_DEVICES;
    uint32_t *const keys = malloc(n * sizeof *keys), *const out = malloc(n * sizeof *out);
    if (!keys || !out)
        return 1;
    srand(1);
    for (size_t i = 0; i < n; ++i)
        keys[i] = (uint32_t)rand() * 2654435761u;

    part parts[MAX_DEVICES];
    pthread_t threads[MAX_DEVICES];
    for (int d = 0; d < nd; ++d) { /* device d sorts the d-th slice */
        parts[d] = (part){ NULL, keys + n * d / nd, n * (d + 1) / nd - n * d / nd, 0 };
        if (clsort_create(&parts[d].ctx, specs[d]) != CLSORT_OK)
            return fprintf(stderr, "cannot open device %s\n", specs[d]), 1;
    }
    for (int d = 0; d < nd; ++d)
        pthread_create(&threads[d], NULL, sort_part, &parts[d]);
    int failed = 0;
    for (int d = 0; d < nd; ++d) {
        pthread_join(threads[d], NULL);
        if (parts[d].rc != CLSORT_OK) {
            fprintf(stderr, "device %s: %s\n", specs[d], clsort_last_error(parts[d].ctx));
            failed = 1;
        }
    }
    /* Merge the sorted slices: take the smallest head each time (a heap for many devices). */
    size_t at[MAX_DEVICES] = { 0 };
    for (size_t o = 0; !failed && o < n; ++o) {
        int best = -1;
        for (int d = 0; d < nd; ++d)
            if (at[d] < parts[d].n &&
                (best < 0 || parts[d].keys[at[d]] < parts[best].keys[at[best]]))
                best = d;
        out[o] = parts[best].keys[at[best]++];
    }
    for (size_t i = 1; !failed && i < n; ++i)
        if (out[i - 1] > out[i])
            return fprintf(stderr, "not sorted at %zu\n", i), 1;
    for (int d = 0; d < nd; ++d)
        clsort_destroy(parts[d].ctx);
    if (!failed)
        printf("sorted %zu keys on %d devices\n", n, nd);
    free(keys);
    free(out);
    return failed;
}
