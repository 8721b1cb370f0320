/* fuzz_records.c - libFuzzer harness for the clsort tool's record handling: key extraction at
 * any offset (cli_key_ordinal), sorting a chunk of records as (key, index) pairs and putting ties
 * back in input order (cli_chunk_sort, order_ties), and the streaming order check of -c
 * (cli_check_input). tools/lib/clsort_records.c is compiled unchanged; the library calls it
 * makes are stubbed here by the library's own host sort (host/execution/hostsort.c) followed by a deliberate
 * reversal of every run of equal keys, as an unstable device network might leave them.
 *
 * Input: byte 0 picks the type (any row of kernels/key_types.h), the direction, stability and
 * --nan-largest, byte 1 the record size (1..64), byte 2 the key offset; the rest is the records. Properties checked: the result is ordered by key, ties keep
 * input order, the indices are a permutation, the library's order and cli_key_ordinal agree, and
 * -c accepts exactly the sorted inputs (and refuses a trailing partial record). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "clsort_records.h"
#include "clsort_messages.h"

/* From host/execution/hostsort.c (linked as an object): the library's host sort and order transform. */
int clsort__host_sort(void *keys, void *values, size_t value_size, size_t n, clsort_type type,
                      unsigned flags);

/* ---- Stubs of the public API that clsort_records.c calls ---------------------------------- */

/* The key-type table's rows, as the library's names.c reads them. */
static const struct {
    const char *name;
    size_t size;
} rows[] = {
#define FUZZ_ROW_(E, name, bits, kind, mant) {#name, (bits) / 8},
    CLSORT_KEY_TYPES(FUZZ_ROW_)
#undef FUZZ_ROW_
};
#define NROWS (sizeof rows / sizeof *rows)

size_t clsort_type_size(clsort_type type)
{
    return (unsigned)type < NROWS ? rows[type].size : 0;
}

const char *clsort_type_name(clsort_type type)
{
    return (unsigned)type < NROWS ? rows[type].name : NULL;
}

/* Where the host sort has no such keys (1 and 2 bytes) or the order is CLSORT_NAN_LARGEST's:
 * (class, position) pairs by qsort, stable, as the library's stable sorts are. */
static int cmp_class_pos(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return (x[1] > y[1]) - (x[1] < y[1]);
}

static int by_class(clsort_type type, unsigned flags)
{
    return clsort_type_size(type) < 4 || (flags & CLSORT_NAN_LARGEST);
}

static uint64_t class_of(clsort_type type, unsigned flags, const unsigned char *p)
{
    return cli_load_ordinal(type, clsort_type_size(type), 0, (flags & CLSORT_DESCENDING) != 0,
                            (flags & CLSORT_NAN_LARGEST) != 0, p);
}

static int class_sort(void *keys, void *values, size_t vs, size_t n, clsort_type type,
                      unsigned flags)
{
    const size_t ks = clsort_type_size(type);
    uint64_t *p = malloc((n ? n : 1) * 16);
    unsigned char *k = keys, *v = values, *kc = malloc(n * ks + 1), *vc = malloc(n * vs + 1);
    if (!p || !kc || !vc)
        abort();
    for (size_t i = 0; i < n; ++i) {
        p[2 * i] = class_of(type, flags, k + i * ks);
        p[2 * i + 1] = i;
    }
    qsort(p, n, 16, cmp_class_pos);
    memcpy(kc, k, n * ks);
    if (vs)
        memcpy(vc, v, n * vs);
    for (size_t i = 0; i < n; ++i) {
        memcpy(k + i * ks, kc + p[2 * i + 1] * ks, ks);
        if (vs)
            memcpy(v + i * vs, vc + p[2 * i + 1] * vs, vs);
    }
    free(p);
    free(kc);
    free(vc);
    return CLSORT_OK;
}

const char *clsort_strerror(int status)
{
    (void)status;
    return "stub";
}

const char *clsort_algorithm_name(clsort_algorithm algo)
{
    (void)algo;
    return "stub";
}

const char *clsort_host_sort_name(void)
{
    return "stub";
}

const char *clsort_last_error(const clsort_ctx *ctx)
{
    (void)ctx;
    return "";
}

int clsort_get_stats(clsort_ctx *ctx, clsort_stats *stats)
{
    (void)ctx;
    memset(stats, 0, sizeof *stats);
    return CLSORT_OK;
}

int clsort_sort(clsort_ctx *ctx, void *keys, size_t n, clsort_type type, clsort_algorithm algo,
                unsigned flags)
{
    (void)ctx;
    (void)algo;
    if (by_class(type, flags))
        return class_sort(keys, NULL, 0, n, type, flags);
    return clsort__host_sort(keys, NULL, 0, n, type, flags & CLSORT_DESCENDING);
}

/* Sorts like the library, then reverses each run of equal keys unless CLSORT_STABLE. */
int clsort_sort_pairs(clsort_ctx *ctx, void *keys, void *values, size_t value_size, size_t n,
                      clsort_type type, clsort_algorithm algo, unsigned flags)
{
    (void)ctx;
    (void)algo;
    const int rc = by_class(type, flags)
                       ? class_sort(keys, values, value_size, n, type, flags)
                       : clsort__host_sort(keys, values, value_size, n, type,
                                           flags & CLSORT_DESCENDING);
    if (rc || (flags & CLSORT_STABLE))
        return rc;
    const size_t ks = clsort_type_size(type);
    unsigned char *k = keys, *v = values, tmp[8];
    for (size_t a = 0; a < n;) {
        size_t b = a + 1;
        while (b < n && class_of(type, flags, k + b * ks) == class_of(type, flags, k + a * ks))
            ++b;
        for (size_t i = a, j = b - 1; i < j; ++i, --j) {
            memcpy(tmp, v + i * value_size, value_size);
            memcpy(v + i * value_size, v + j * value_size, value_size);
            memcpy(v + j * value_size, tmp, value_size);
        }
        a = b;
    }
    return CLSORT_OK;
}

/* ---- The harness -------------------------------------------------------------------------- */

static int compare_pairs(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return (x[1] > y[1]) - (x[1] < y[1]);
}

static int check_memory(const unsigned char *data, size_t size, const cli_keyspec *ks)
{
    const int fd = memfd_create("fuzz-records", 0);
    if (fd < 0)
        return -1;
    if (size && write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return -1;
    }
    lseek(fd, 0, SEEK_SET);
    cli_input in;
    memset(&in, 0, sizeof in);
    in.fd = fd;
    in.name = "fuzz input";
    in.is_regular = 1;
    in.size = size;
    in.peeked = -1;
    const int rc = cli_check_input(&in, ks);
    close(fd);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3 || size > 65536)
        return 0;
    cli_display_level = 0;
    cli_keyspec ks;
    memset(&ks, 0, sizeof ks); /* little-endian, one key, all records kept */
    ks.type = (clsort_type)(data[0] % 12);
    ks.reverse = (data[0] >> 4) & 1;
    const int stable = (data[0] >> 5) & 1;
    ks.nan_largest = (data[0] >> 6) & 1;
    ks.key_size = clsort_type_size(ks.type);
    ks.record_size = 1 + data[1] % 64;
    if (ks.record_size < ks.key_size)
        ks.record_size = ks.key_size;
    ks.key_offset = data[2] % (ks.record_size - ks.key_size + 1);
    const unsigned char *recs = data + 3;
    const size_t bytes = size - 3, n = bytes / ks.record_size;

    /* 1. Sort the records as the tool does and check the order against a reference. */
    cli_chunk c;
    if (cli_chunk_alloc(&c, &ks, n) != CLI_EXIT_OK)
        abort();
    memcpy(c.recs, recs, n * ks.record_size);
    c.n = n;
    cli_sort_stats st;
    memset(&st, 0, sizeof st);
    if (cli_chunk_sort(NULL, &ks, CLSORT_AUTO, stable, &c, &st) != CLI_EXIT_OK)
        abort();
    uint64_t *ref = malloc((n ? n : 1) * 2 * sizeof *ref);
    if (!ref)
        abort();
    for (size_t i = 0; i < n; ++i) {
        ref[2 * i] = cli_key_ordinal(&ks, recs + i * ks.record_size);
        ref[2 * i + 1] = i;
    }
    qsort(ref, n, 2 * sizeof *ref, compare_pairs); /* stable by construction: index breaks ties */
    for (size_t i = 0; i < n; ++i) {
        const unsigned char *got;
        if (c.idx_size == 0 || n < 2) {
            got = c.recs + i * ks.record_size;
        } else {
            const uint64_t at = c.idx_size == 4 ? ((const uint32_t *)c.idx)[i]
                                                : ((const uint64_t *)c.idx)[i];
            if (at >= n || at != ref[2 * i + 1]) {
                fprintf(stderr, "record %zu: index %llu, expected %llu\n", i,
                        (unsigned long long)at, (unsigned long long)ref[2 * i + 1]);
                abort();
            }
            got = c.recs + at * ks.record_size;
        }
        /* Records of key size are sorted whole: equal keys are equal bytes, so comparing the
         * ordinals checks them. */
        if (cli_key_ordinal(&ks, got) != ref[2 * i]) {
            fprintf(stderr, "record %zu: key ordinal differs from the reference (type %s%s, "
                            "record %zu, offset %zu)\n",
                    i, clsort_type_name(ks.type), ks.reverse ? " descending" : "",
                    ks.record_size, ks.key_offset);
            abort();
        }
    }

    /* 2. -c: the sorted output passes, the input passes exactly when it was in order, a partial
     *    trailing record is an I/O error. */
    int in_order = 1;
    for (size_t i = 1; i < n && in_order; ++i)
        in_order = cli_key_ordinal(&ks, recs + (i - 1) * ks.record_size) <=
                   cli_key_ordinal(&ks, recs + i * ks.record_size);
    const int whole = bytes % ks.record_size == 0;
    const int rc = check_memory(recs, bytes, &ks);
    const int want = !in_order ? CLI_EXIT_DISORDER : whole ? CLI_EXIT_OK : CLI_EXIT_IO;
    if (rc >= 0 && rc != want) {
        fprintf(stderr, "cli_check_input returned %d, expected %d\n", rc, want);
        abort();
    }
    unsigned char *sorted = malloc(n * ks.record_size + 1);
    if (!sorted)
        abort();
    for (size_t i = 0; i < n; ++i)
        memcpy(sorted + i * ks.record_size, recs + ref[2 * i + 1] * ks.record_size,
               ks.record_size);
    const int rc2 = check_memory(sorted, n * ks.record_size, &ks);
    if (rc2 >= 0 && rc2 != CLI_EXIT_OK) {
        fprintf(stderr, "cli_check_input refused sorted records (%d)\n", rc2);
        abort();
    }
    free(sorted);
    free(ref);
    cli_chunk_free(&c);
    return 0;
}
