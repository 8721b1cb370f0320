/* clsort_records.c - sorting chunks of records with the library and writing them back in order,
 * and the streaming order check of -c. */
#include "clsort_records.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "clsort_messages.h"
#include "clsort_units.h"

int cli_chunk_alloc(cli_chunk *c, const cli_keyspec *ks, size_t cap)
{
    memset(c, 0, sizeof *c);
    if (cap == 0)
        cap = 1;
    if (cap > SIZE_MAX / ks->record_size) {
        cli_error("out of host memory: %zu records do not fit in the address space", cap);
        return CLI_EXIT_IO;
    }
    c->recs = cli_malloc(cap * ks->record_size, "records");
    if (!c->recs)
        goto fail;
    if (cli_keyspec_pairs(ks)) {
        /* 32-bit indices while they suffice: less to move on the device. */
        c->idx_size = (uint64_t)cap <= UINT32_MAX ? 4 : 8;
        c->keys = cli_malloc(cap * ks->key_size, "keys");
        c->idx = cli_malloc(cap * c->idx_size, "record indices");
        if (!c->keys || !c->idx)
            goto fail;
    }
    return CLI_EXIT_OK;
fail:
    cli_chunk_free(c);
    return CLI_EXIT_IO;
}

void cli_chunk_free(cli_chunk *c)
{
    free(c->recs);
    free(c->keys);
    free(c->idx);
    memset(c, 0, sizeof *c);
}

static int compare_u32(const void *a, const void *b)
{
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static int compare_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static uint64_t idx_at(const cli_chunk *c, size_t i)
{
    if (c->idx_size == 4)
        return ((const uint32_t *)c->idx)[i];
    return ((const uint64_t *)c->idx)[i];
}

/* The tie-breaking keys of a chunk, for qsort's comparator: per thread, as several devices sort
 * their chunks at once (clsort_multidev.c); the reader thread never touches these. */
static _Thread_local const cli_keyspec *tie_ks;
static _Thread_local const unsigned char *tie_recs;

static int compare_tie_u32(const void *a, const void *b)
{
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    const int c = cli_extra_cmp(tie_ks, tie_recs + (size_t)x * tie_ks->record_size,
                                tie_recs + (size_t)y * tie_ks->record_size);
    return c ? c : (x > y) - (x < y);
}

static int compare_tie_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    const int c = cli_extra_cmp(tie_ks, tie_recs + (size_t)x * tie_ks->record_size,
                                tie_recs + (size_t)y * tie_ks->record_size);
    return c ? c : (x > y) - (x < y);
}

/* Puts every run of equal keys back in input order, or with tie-breaking keys (--key given more
 * than once) in the order of those keys and then input order. The library does the input order
 * itself under CLSORT_STABLE; without it the order of ties is the network's, which a run-by-run
 * sort cannot reproduce. One pass that finds nothing to do when the ties are already in order, so
 * making the result independent of -S costs little. Equal keys are equal bit patterns in the
 * library's order (totalOrder tells -0.0 from +0.0 and NaNs apart), so comparing bits finds exactly
 * the ties; under --nan-largest (NaNs equal, zeros equal) and for 1- and 2-byte keys the keys'
 * ordinals are compared. The tie-breakers cost a host qsort of each group of equal first keys: nothing when the
 * first key is nearly unique, O(n log n) comparisons on the host when it is nearly constant. */
static void order_ties(cli_chunk *c, const cli_keyspec *ks)
{
    const size_t key_size = ks->key_size;
    tie_ks = ks;
    tie_recs = c->recs;
    size_t i = 0;
    while (i < c->n) {
        size_t j = i + 1;
        if (ks->nan_largest || key_size < 4) {
            const unsigned char *k = c->keys;
            const uint64_t o = cli_load_ordinal(ks->type, key_size, 0, 0, ks->nan_largest,
                                                k + i * key_size);
            while (j < c->n && cli_load_ordinal(ks->type, key_size, 0, 0, ks->nan_largest,
                                                k + j * key_size) == o)
                ++j;
        } else if (key_size == 4) {
            const uint32_t *k = c->keys;
            while (j < c->n && k[j] == k[i])
                ++j;
        } else {
            const uint64_t *k = c->keys;
            while (j < c->n && k[j] == k[i])
                ++j;
        }
        if (j - i > 1) {
            unsigned char *const base = (unsigned char *)c->idx + i * c->idx_size;
            if (ks->nextra) {
                qsort(base, j - i, c->idx_size, c->idx_size == 4 ? compare_tie_u32 : compare_tie_u64);
            } else {
                int ordered = 1;
                for (size_t t = i + 1; t < j && ordered; ++t)
                    ordered = idx_at(c, t - 1) < idx_at(c, t);
                if (!ordered)
                    qsort(base, j - i, c->idx_size, c->idx_size == 4 ? compare_u32 : compare_u64);
            }
        }
        i = j;
    }
}

void cli_swap_keys(unsigned char *p, size_t n, size_t stride, size_t key_size)
{
    for (size_t i = 0; i < n; ++i, p += stride) {
        if (key_size == 2) {
            const unsigned char t = p[0];
            p[0] = p[1];
            p[1] = t;
        } else if (key_size == 4) {
            uint32_t x;
            memcpy(&x, p, 4);
            x = cli_bswap32(x);
            memcpy(p, &x, 4);
        } else if (key_size == 8) {
            uint64_t x;
            memcpy(&x, p, 8);
            x = cli_bswap64(x);
            memcpy(p, &x, 8);
        }
    }
}

int cli_report_sort_error(clsort_ctx *ctx, int rc, size_t n, clsort_type type)
{
    /* One line, out of memory included (the hint is part of it); the rest of the library's
     * message (a build log, say) only with -v. */
    const char *detail = clsort_last_error(ctx);
    const char *nl = strchr(detail, '\n');
    const int first = nl ? (int)(nl - detail) : (int)strlen(detail);
    cli_error("sorting %zu %s keys on the device failed: %s%s%.*s%s%s", n, clsort_type_name(type),
              clsort_strerror(rc), first ? " (" : "", first, detail, first ? ")" : "",
              rc == CLSORT_ERR_OUT_OF_MEMORY ? "; a smaller --buffer-size makes smaller runs" : "");
    if (nl && nl[1])
        cli_info(2, "details:\n%s", nl + 1);
    return CLI_EXIT_DEVICE;
}

int cli_chunk_sort(clsort_ctx *ctx, const cli_keyspec *ks, clsort_algorithm algo, int stable,
                   cli_chunk *c, cli_sort_stats *st)
{
    const unsigned flags = cli_order_flags(ks);
    uint64_t t0 = cli_now_ns();
    int rc = CLSORT_OK;
    if (c->idx_size == 0 && c->n < 2)
        return CLI_EXIT_OK;
    if (c->idx_size == 0) {
        /* Equal keys are identical bytes here, so stability would change nothing, except where
         * --nan-largest makes different bytes equal. */
        if (ks->big_endian)
            cli_swap_keys(c->recs, c->n, ks->key_size, ks->key_size);
        rc = clsort_sort(ctx, c->recs, c->n, ks->type, algo,
                         flags | (stable && ks->nan_largest ? CLSORT_STABLE : 0u));
        if (ks->big_endian)
            cli_swap_keys(c->recs, c->n, ks->key_size, ks->key_size);
    } else {
        const size_t R = ks->record_size, K = ks->key_size, off = ks->key_offset;
        unsigned char *const keys = c->keys;
        for (size_t i = 0; i < c->n; ++i)
            memcpy(keys + i * K, c->recs + i * R + off, K);
        if (ks->big_endian)
            cli_swap_keys(keys, c->n, K, K);
        if (c->idx_size == 4) {
            uint32_t *const idx = c->idx;
            for (size_t i = 0; i < c->n; ++i)
                idx[i] = (uint32_t)i;
        } else {
            uint64_t *const idx = c->idx;
            for (size_t i = 0; i < c->n; ++i)
                idx[i] = i;
        }
        const uint64_t t1 = cli_now_ns();
        st->prep_ns += t1 - t0;
        t0 = t1;
        /* A run of one record still gets its permutation (the identity): cli_chunk_write reads
         * the records through it, and a chunk's buffers keep the previous run's indices. */
        if (c->n >= 2)
            rc = clsort_sort_pairs(ctx, c->keys, c->idx, c->idx_size, c->n, ks->type, algo,
                                   flags | (stable ? CLSORT_STABLE : 0u));
    }
    const uint64_t t1 = cli_now_ns();
    uint64_t sort_ns = t1 - t0;
    if (rc != CLSORT_OK) {
        return cli_report_sort_error(ctx, rc, c->n, ks->type);
    }
    if (c->n < 2) {
        st->sort_ns += sort_ns;
        return CLI_EXIT_OK; /* nothing ran: the library's stats are the previous sort's */
    }
    if (c->idx_size)
        order_ties(c, ks);
    st->prep_ns += cli_now_ns() - t1;
    clsort_stats ls;
    if (clsort_get_stats(ctx, &ls) == CLSORT_OK) {
        st->device_ns += ls.device_ns;
        st->upload_ns += ls.upload_ns;
        st->download_ns += ls.download_ns;
        st->algorithm = ls.algorithm;
        st->host_fallback |= ls.host_fallback;
        st->host_sorts += ls.host_fallback ? 1 : 0;
        /* A compile inside the sort is reported as the compile step, not as sorting. */
        const uint64_t b = ls.build_ns < sort_ns ? ls.build_ns : sort_ns;
        st->build_ns += b;
        st->compiled += ls.programs_compiled;
        sort_ns -= b;
    }
    st->sort_ns += sort_ns;
    st->keys += c->n;
    st->sorts += 1;
    return CLI_EXIT_OK;
}

int cli_chunk_write(cli_writer *w, const cli_keyspec *ks, const cli_chunk *c)
{
    const size_t R = ks->record_size;
    if (!ks->unique && (c->idx_size == 0 || c->n < 2))
        return cli_writer_put(w, c->recs, c->n * R);
    const unsigned char *prev = NULL;
    for (size_t i = 0; i < c->n; ++i) {
        const unsigned char *const rec = c->recs + (c->idx_size ? idx_at(c, i) : i) * R;
        if (ks->unique && prev && cli_record_cmp(ks, prev, rec) == 0)
            continue; /* -u: the first of equal records (in input order) is already out */
        if (cli_writer_put(w, rec, R) != CLI_EXIT_OK)
            return CLI_EXIT_IO;
        prev = rec;
    }
    return CLI_EXIT_OK;
}

int cli_check_input(cli_input *in, const cli_keyspec *ks)
{
    const size_t R = ks->record_size;
    size_t cap = ((size_t)4 << 20) / R * R;
    if (cap < R)
        cap = R;
    unsigned char *const buf = cli_malloc(cap, "the input buffer");
    if (!buf)
        return CLI_EXIT_IO;
    unsigned char *const prev = cli_malloc(R, "the input buffer");
    uint64_t index = 0; /* records seen */
    int rc = CLI_EXIT_OK;
    if (!prev) {
        free(buf);
        return CLI_EXIT_IO;
    }
    for (;;) {
        const int64_t got = cli_input_read(in, buf, cap);
        if (got < 0) {
            rc = CLI_EXIT_IO;
            break;
        }
        const size_t whole = (size_t)got / R;
        for (size_t i = 0; i < whole; ++i, ++index) {
            const unsigned char *const rec = buf + i * R;
            /* The previous record: in the buffer, or kept from the last one. */
            const unsigned char *const before = i > 0 ? rec - R : prev;
            const int c = index > 0 ? cli_record_cmp(ks, before, rec) : -1;
            if (c > 0 || (c == 0 && ks->unique)) {
                if (cli_display_level >= 1)
                    cli_error("%s: disorder at record %llu (byte offset %llu): %s", in->name,
                              (unsigned long long)index, (unsigned long long)(index * R),
                              c == 0 ? "equal to the record before it (-u)"
                              : ks->reverse ? "not in descending order"
                                            : "not in ascending order");
                rc = CLI_EXIT_DISORDER;
                goto done;
            }
        }
        if (whole > 0)
            memcpy(prev, buf + (whole - 1) * R, R);
        if ((size_t)got % R != 0 || (size_t)got < cap) {
            if ((size_t)got % R != 0) {
                cli_error("%s: size %llu is not a multiple of the record size %zu", in->name,
                          (unsigned long long)(index * R + (size_t)got % R), R);
                rc = CLI_EXIT_IO;
            }
            break;
        }
    }
done:
    free(buf);
    free(prev);
    return rc;
}

/* Records per run (and per --top chunk): -S if given, else a quarter of physical memory; never
 * more than the device holds. The library keeps n keys and a scratch copy on the device (and the same for values), each
 * buffer within one allocation; stable 32-bit keys are widened to 8 bytes. A quarter of global
 * memory is left to the runtime and other users. */
size_t cli_run_records(const cli_run_request *rq, const clsort_device_info *di, int *capped)
{
    int capped_here = 0;
    if (!capped)
        capped = &capped_here;
    const size_t R = rq->ks->record_size, K = rq->ks->key_size;
    const int pairs = cli_keyspec_pairs(rq->ks);
    const uint64_t V = pairs ? 8 : 0;
    /* Device bytes a key: 1- and 2-byte keys travel as 4-byte composites, stable pairs of
     * keys up to 4 bytes (and stable --nan-largest sorts) with 8-byte positions. */
    const uint64_t Kd = (pairs && rq->stable && K <= 4) || (rq->stable && rq->ks->nan_largest) ? 8
                        : K < 4                                                               ? 4
                                                                                              : K;
    const uint64_t host_per = R + (pairs ? K + V : 0);
    uint64_t n;
    if (rq->buffer_size) {
        n = rq->buffer_size / R;
    } else {
        const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        const uint64_t phys = (pages > 0 && page > 0) ? (uint64_t)pages * (uint64_t)page
                                                      : (uint64_t)1 << 30;
        n = phys / 4 / host_per;
    }
    *capped = 0;
    if (di && di->max_alloc > 0 && di->global_mem > 0) {
        uint64_t n_dev = di->max_alloc / (Kd > V ? Kd : V);
        const uint64_t n_global = di->global_mem / 4 * 3 / (2 * (Kd + V));
        if (n_global < n_dev)
            n_dev = n_global;
        if (n_dev > 0 && n > n_dev) {
            n = n_dev;
            *capped = rq->buffer_size != 0;
        }
    }
    if (n > SIZE_MAX / host_per)
        n = SIZE_MAX / host_per;
    return n ? (size_t)n : 1;
}

void cli_report_sorter(const cli_sort_stats *st, const clsort_device_info *di)
{
    char where[320] = "";
    /* Radix sort is no network: the word says which guarantee the user got. */
    const char *what = st->algorithm == CLSORT_RADIX ? "sort" : "network";
    if (di)
        snprintf(where, sizeof where, " on device %u:%u %s", di->platform_index,
                 di->device_index, di->name);
    if (st->sorts == 0)
        cli_info(2, "sorted by nothing (fewer than 2 records)");
    else if (st->host_sorts == st->sorts)
        cli_info(2, "sorted by the host's %s, not%s: the library's choice for this size (AUTO's "
                    "host path, or its fallback for small arrays)",
                 clsort_host_sort_name(), di ? where : " on the device");
    else if (st->host_sorts == 0)
        cli_info(2, "sorted by the %s %s%s", clsort_algorithm_name(st->algorithm),
                 what, where);
    else
        cli_info(2, "sorted by the %s %s%s (%u of %u sorts), and by the host's %s (%u)",
                 clsort_algorithm_name(st->algorithm), what, where, st->sorts - st->host_sorts,
                 st->sorts, clsort_host_sort_name(), st->host_sorts);
}

void cli_report_sort_time(const cli_sort_stats *st)
{
    if (st->sorts == 0)
        return;
    const double s = (double)st->sort_ns / 1e9, rate = s > 0 ? (double)st->keys / s / 1e6 : 0.0;
    if (st->host_sorts == st->sorts)
        cli_info(2, "sort   %llu keys in %.3f s on the host (%.1f Mkeys/s; %s; host key work "
                    "%.3f s)",
                 (unsigned long long)st->keys, s, rate, clsort_host_sort_name(),
                 (double)st->prep_ns / 1e9);
    else
        cli_info(2, "sort   %llu keys in %.3f s (%.1f Mkeys/s; device %.3f s; upload %.3f s, "
                    "download %.3f s; host key work %.3f s)",
                 (unsigned long long)st->keys, s, rate, (double)st->device_ns / 1e9,
                 (double)st->upload_ns / 1e9, (double)st->download_ns / 1e9,
                 (double)st->prep_ns / 1e9);
}
