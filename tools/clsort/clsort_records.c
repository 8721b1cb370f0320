/* clsort_records.c - sorting chunks of records with the library and writing them back in order,
 * and the streaming order check of -c. */
#include "clsort_records.h"

#include <stdlib.h>

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
    if (ks->record_size != ks->key_size) {
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

/* Puts every run of equal keys back in input order. The library does this itself under
 * CLSORT_STABLE; without it the order of ties is the network's, which a run-by-run sort cannot
 * reproduce. One pass that finds nothing to do when the ties are already in order, so making the
 * result independent of -S costs little. Equal keys are equal bit patterns in the library's order
 * (totalOrder tells -0.0 from +0.0 and NaNs apart), so comparing bits finds exactly the ties. */
static void order_ties(cli_chunk *c, size_t key_size)
{
    size_t i = 0;
    while (i < c->n) {
        size_t j = i + 1;
        if (key_size == 4) {
            const uint32_t *k = c->keys;
            while (j < c->n && k[j] == k[i])
                ++j;
        } else {
            const uint64_t *k = c->keys;
            while (j < c->n && k[j] == k[i])
                ++j;
        }
        if (j - i > 1) {
            int ordered = 1;
            for (size_t t = i + 1; t < j && ordered; ++t)
                ordered = idx_at(c, t - 1) < idx_at(c, t);
            if (!ordered) {
                unsigned char *const base = (unsigned char *)c->idx + i * c->idx_size;
                qsort(base, j - i, c->idx_size, c->idx_size == 4 ? compare_u32 : compare_u64);
            }
        }
        i = j;
    }
}

int cli_chunk_sort(clsort_ctx *ctx, const cli_keyspec *ks, clsort_algorithm algo, int stable,
                   cli_chunk *c, cli_sort_stats *st)
{
    const unsigned flags = (ks->reverse ? CLSORT_DESCENDING : 0u);
    uint64_t t0 = cli_now_ns();
    int rc;
    if (c->n < 2)
        return CLI_EXIT_OK;
    if (c->idx_size == 0) {
        /* Equal keys are identical bytes here, so stability would change nothing. */
        rc = clsort_sort(ctx, c->recs, c->n, ks->type, algo, flags);
    } else {
        const size_t R = ks->record_size, K = ks->key_size, off = ks->key_offset;
        unsigned char *const keys = c->keys;
        for (size_t i = 0; i < c->n; ++i)
            memcpy(keys + i * K, c->recs + i * R + off, K);
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
        rc = clsort_sort_pairs(ctx, c->keys, c->idx, c->idx_size, c->n, ks->type, algo,
                               flags | (stable ? CLSORT_STABLE : 0u));
    }
    const uint64_t t1 = cli_now_ns();
    st->sort_ns += t1 - t0;
    if (rc != CLSORT_OK) {
        /* One line for the error; the rest (a build log, say) only with -v. */
        const char *detail = clsort_last_error(ctx);
        const char *nl = strchr(detail, '\n');
        const int first = nl ? (int)(nl - detail) : (int)strlen(detail);
        cli_error("sorting %zu %s keys on the device failed: %s%s%.*s%s", c->n,
                  clsort_type_name(ks->type), clsort_strerror(rc), first ? " (" : "", first,
                  detail, first ? ")" : "");
        if (nl && nl[1])
            cli_info(2, "details:\n%s", nl + 1);
        if (rc == CLSORT_ERR_OUT_OF_MEMORY)
            cli_error("hint: a smaller --buffer-size makes smaller runs");
        return CLI_EXIT_DEVICE;
    }
    if (c->idx_size)
        order_ties(c, ks->key_size);
    st->prep_ns += cli_now_ns() - t1;
    clsort_stats ls;
    if (clsort_get_stats(ctx, &ls) == CLSORT_OK) {
        st->device_ns += ls.device_ns;
        st->upload_ns += ls.upload_ns;
        st->download_ns += ls.download_ns;
        st->algorithm = ls.algorithm;
        st->host_fallback |= ls.host_fallback;
    }
    st->keys += c->n;
    st->sorts += 1;
    return CLI_EXIT_OK;
}

int cli_chunk_write(cli_writer *w, const cli_keyspec *ks, const cli_chunk *c)
{
    const size_t R = ks->record_size;
    if (c->idx_size == 0 || c->n < 2)
        return cli_writer_put(w, c->recs, c->n * R);
    for (size_t i = 0; i < c->n; ++i) {
        if (cli_writer_put(w, c->recs + idx_at(c, i) * R, R) != CLI_EXIT_OK)
            return CLI_EXIT_IO;
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
    uint64_t index = 0; /* records seen */
    uint64_t prev = 0;
    int rc = CLI_EXIT_OK;
    for (;;) {
        const int64_t got = cli_input_read(in, buf, cap);
        if (got < 0) {
            rc = CLI_EXIT_IO;
            break;
        }
        const size_t whole = (size_t)got / R;
        for (size_t i = 0; i < whole; ++i, ++index) {
            const uint64_t k = cli_key_ordinal(ks, buf + i * R);
            if (index > 0 && k < prev) {
                if (cli_display_level >= 1)
                    cli_error("%s: disorder at record %llu (byte offset %llu): not in %s order",
                              in->name, (unsigned long long)index,
                              (unsigned long long)(index * R),
                              ks->reverse ? "descending" : "ascending");
                rc = CLI_EXIT_DISORDER;
                goto done;
            }
            prev = k;
        }
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
    return rc;
}
