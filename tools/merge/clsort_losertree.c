/* clsort_losertree.c - the k-way merge of sorted sources: a loser tree over the sources' current
 * records, and a merge loop specialised for the common key types.
 *
 * The tree: the k sources are the leaves k..2k-1 of an implicit complete binary tree (any k, not
 * only powers of two); internal node j (1..k-1, children 2j and 2j+1) keeps the source that lost
 * the match played there, and node 0 the overall winner. When the winner moves on to its next
 * record only the matches on its leaf-to-root path are replayed, one comparison per level against
 * the loser stored there, where a binary heap's sift-down needs two. Each comparison looks at a
 * cached 64-bit ordinal per source (the order-preserving transform of clsort_keys.h), then at the
 * tie-breaking keys of the records, then at the source number: a strict total order, so the winner
 * is the same record the heap picked before and the output is byte-identical to it. */
#include "clsort_losertree.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "clsort_messages.h"
#include "clsort_progress.h"

/* The merge loop is written once and instantiated per key type: always_inline with constant
 * arguments lets the compiler fold the type switch of the ordinal and the record copy, which a
 * per-record function pointer or a runtime switch would keep in the hot loop. */
#if defined(__GNUC__)
#define LT_INLINE static inline __attribute__((always_inline))
#define LT_COLD static __attribute__((noinline))
#else
#define LT_INLINE static inline
#define LT_COLD static
#endif

typedef struct lt_merge {
    const cli_merge_spec *m;
    const cli_keyspec *ks;
    size_t k, R;
    /* Composite keys (4-byte first key, no tie-breakers): ordinal << 32 | source, so one unsigned
     * compare orders by key and then by source, and UINT64_MAX (exhausted) loses to every
     * record. Otherwise a key is the ordinal and a rank breaks ties. */
    int composite;
    /* The tree. Node j in 1..k-1 holds the loser of the match played there, node 0 the winner:
     * its source as a rank (s while source s has records, k + s once it is exhausted, so that
     * exhausted sources lose every tie) next to a copy of its key, so that replaying a match
     * loads one node and no per-source array. In composite keys the source is the low half of
     * the key and nrank is unused. */
    uint64_t *nkey;
    uint32_t *nrank;
    uint64_t *skey;                /* per source: the key of the record lt_load made current */
    uint32_t *srank;               /* and its rank */
    /* Per source: the key of the record after its current one, when that is in the buffer. The
     * merge is a chain (winner, its next key, the replay that finds the next winner); having the
     * next key ready takes the two loads that would find it (the record pointer, the record) off
     * that chain, and computing the one after it overlaps the replay. */
    uint64_t *ahead;
    const unsigned char **cur, **end, **start; /* per source: its buffer and current record */
    uint64_t *taken;               /* per source: records before the current buffer */
    unsigned char *prev;           /* k records: the last of each source's previous buffer */
    unsigned char *last;           /* -u: the last record written */
    uint64_t done;                 /* bytes merged, for the progress line */
} lt_merge;

/* The ordinal of a record's first key. Four-byte keys keep 32 bits, so that a descending key
 * (complemented in 64 bits by cli_load_ordinal) still fits the composite form. `plain`: the key
 * is little-endian, ascending and at offset 0 (constants of the instance). */
LT_INLINE uint64_t lt_ordinal(const cli_keyspec *ks, clsort_type type, size_t ksize, int plain,
                              const unsigned char *rec)
{
    const uint64_t v = plain ? cli_load_ordinal(type, ksize, 0, 0, 0, rec)
                             : cli_load_ordinal(type, ksize, ks->big_endian, ks->reverse,
                                                ks->nan_largest, rec + ks->key_offset);
    return ksize == 4 ? (uint32_t)v : v;
}

/* A source's key in the tree's form. */
LT_INLINE uint64_t lt_key(uint64_t ord, uint32_t s, int composite)
{
    return composite ? (ord << 32) | s : ord;
}

/* Whether (ka, ra) goes before (kb, rb): the key, then the tie-breaking keys of the two sources'
 * records, then the rank. */
LT_INLINE int lt_less(const lt_merge *t, uint64_t ka, uint32_t ra, uint64_t kb, uint32_t rb,
                      int composite, int extras)
{
    if (composite)
        return ka < kb;
    if (extras && ka == kb && ra < t->k && rb < t->k) {
        const int c = cli_extra_cmp(t->ks, t->cur[ra], t->cur[rb]);
        if (c)
            return c < 0;
    }
    return (ka < kb) | ((ka == kb) & (ra < rb));
}

/* The winner's source has a new current record (or none), (kw, rw): replays the matches on its
 * path to the root. The outcome of a merge comparison is a coin toss on random data, so the swap
 * is done with masks rather than a branch (which compilers keep for a plain conditional, and which
 * then mispredicts half the time). */
LT_INLINE void lt_replay(lt_merge *t, uint32_t s, uint64_t kw, uint32_t rw, int composite,
                         int extras)
{
    uint64_t *const nkey = t->nkey;
    uint32_t *const nrank = t->nrank;
    if (composite) {
        /* One key decides everything: the new winner is the minimum and the loser the maximum,
         * which compilers turn into a compare and a conditional move (two cycles a level on
         * the chain, against four for the masks below). */
        for (size_t j = (t->k + s) >> 1; j > 0; j >>= 1) {
            const uint64_t ko = nkey[j];
            const uint64_t lo = ko < kw ? ko : kw;
            nkey[j] = ko ^ kw ^ lo;
            kw = lo;
        }
        nkey[0] = kw;
        return;
    }
    for (size_t j = (t->k + s) >> 1; j > 0; j >>= 1) {
        const uint64_t ko = nkey[j];
        const uint32_t ro = composite ? 0 : nrank[j];
        const uint64_t m = (uint64_t)0 - (uint64_t)lt_less(t, ko, ro, kw, rw, composite, extras);
        const uint64_t xk = (ko ^ kw) & m;
        nkey[j] = ko ^ xk; /* the loser stays: the new record if the old one won */
        kw ^= xk;
        if (!composite) {
            const uint32_t xr = (ro ^ rw) & (uint32_t)m;
            nrank[j] = ro ^ xr;
            rw ^= xr;
        }
    }
    nkey[0] = kw;
    if (!composite)
        nrank[0] = rw;
}

/* Plays the whole tournament once, bottom-up, from skey/srank; `win` has room for k entries. */
static void lt_build(lt_merge *t, uint32_t *win)
{
    const size_t k = t->k;
    const int extras = t->ks->nextra > 0;
    uint32_t top = 0;
    for (size_t j = k - 1; j > 0; --j) {
        const size_t a = 2 * j, b = 2 * j + 1;
        const uint32_t wa = a >= k ? (uint32_t)(a - k) : win[a];
        const uint32_t wb = b >= k ? (uint32_t)(b - k) : win[b];
        const int b_first = lt_less(t, t->skey[wb], t->srank[wb], t->skey[wa], t->srank[wa],
                                    t->composite, extras);
        const uint32_t lose = b_first ? wa : wb;
        win[j] = b_first ? wb : wa;
        t->nkey[j] = t->skey[lose];
        t->nrank[j] = t->srank[lose];
    }
    if (k > 1)
        top = win[1];
    t->nkey[0] = t->skey[top];
    t->nrank[0] = t->srank[top];
}

/* Asks source s for its next records and makes the first of them its current one, its key in
 * skey[s] and srank[s] (or marks the source exhausted). With check_prev, that record is checked
 * against prev[s]. */
static int lt_load(lt_merge *t, uint32_t s, int check_prev)
{
    const cli_keyspec *const ks = t->ks;
    const unsigned char *data = NULL;
    size_t len = 0;
    const int rc = t->m->pull(t->m->user, s, &data, &len);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (len < t->R) {
        t->start[s] = t->cur[s] = t->end[s] = NULL;
        t->skey[s] = UINT64_MAX;
        t->srank[s] = (uint32_t)(t->k + s);
        return CLI_EXIT_OK;
    }
    t->start[s] = t->cur[s] = data;
    t->end[s] = data + len / t->R * t->R;
    if (check_prev && cli_record_cmp(ks, t->prev + s * t->R, data) > 0)
        return t->m->disorder(t->m->user, s, t->taken[s]);
    const uint64_t ord = lt_ordinal(ks, ks->type, ks->key_size, 0, data);
    t->skey[s] = lt_key(ord, s, t->composite);
    t->srank[s] = s;
    if (data + t->R != t->end[s])
        t->ahead[s] = lt_key(lt_ordinal(ks, ks->type, ks->key_size, 0, data + t->R), s,
                             t->composite);
    return CLI_EXIT_OK;
}

/* Source s has used up its buffer: keep its last record for the order check, then load more. */
LT_COLD int lt_next_buffer(lt_merge *t, uint32_t s)
{
    const size_t R = t->R;
    const size_t used = (size_t)(t->end[s] - t->start[s]);
    const int check = t->m->disorder != NULL;
    if (check)
        memcpy(t->prev + s * R, t->end[s] - R, R);
    t->taken[s] += used / R;
    t->done += used;
    if (t->m->phase)
        cli_progress_update(t->m->phase, t->done, t->m->total);
    return lt_load(t, s, check);
}

/* ---- The output: the merge fills one buffer while a writer thread writes the other ---------- */

/* Below this writer buffer size a second thread is not worth its handoffs. */
#define LT_THREAD_MIN_BUF ((size_t)256 << 10)

typedef struct lt_out {
    cli_writer *w;
    unsigned char *fill;   /* the buffer being filled: len of cap bytes used */
    size_t len, cap;
    unsigned char *orig;   /* w->buf as the caller gave it; it is w->buf again at the end */
    unsigned char *spare;  /* the second buffer; NULL: no writer thread, w->buf is fill */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int busy;              /* the thread is writing w->buf; w belongs to it until busy is 0 */
    int stop;
    int rc;                /* the first write error (printed by the writer) */
} lt_out;

static void *lt_writer_main(void *arg)
{
    lt_out *const o = arg;
    cli_thread_block_xfsz(); /* a write past ulimit -f: exit 3, not the signal */
    pthread_mutex_lock(&o->mu);
    for (;;) {
        while (!o->busy && !o->stop)
            pthread_cond_wait(&o->cv, &o->mu);
        if (!o->busy)
            break;
        pthread_mutex_unlock(&o->mu);
        const int rc = cli_writer_flush(o->w);
        pthread_mutex_lock(&o->mu);
        if (rc != CLI_EXIT_OK && o->rc == CLI_EXIT_OK)
            o->rc = rc;
        o->busy = 0;
        pthread_cond_broadcast(&o->cv);
    }
    pthread_mutex_unlock(&o->mu);
    return NULL;
}

/* Starts filling w's buffer after what it holds; with a second buffer and a thread when they can
 * be had, else writing in line (the same bytes either way). */
static void lt_out_open(lt_out *o, cli_writer *w)
{
    memset(o, 0, sizeof *o);
    o->w = w;
    o->orig = o->fill = w->buf;
    o->len = w->len;
    o->cap = w->cap;
    if (w->cap < LT_THREAD_MIN_BUF || !(o->spare = malloc(w->cap)))
        return;
    if (pthread_mutex_init(&o->mu, NULL) != 0) {
        free(o->spare);
        o->spare = NULL;
        return;
    }
    if (pthread_cond_init(&o->cv, NULL) != 0) {
        pthread_mutex_destroy(&o->mu);
        free(o->spare);
        o->spare = NULL;
        return;
    }
    w->buf = o->spare; /* the thread's side until the first handoff */
    w->len = 0;
    if (pthread_create(&o->thread, NULL, lt_writer_main, o) != 0) {
        w->buf = o->orig;
        w->len = o->len;
        pthread_cond_destroy(&o->cv);
        pthread_mutex_destroy(&o->mu);
        free(o->spare);
        o->spare = NULL;
    }
}

/* The fill buffer is full: hand it to the writer (waiting for the previous write) and go on in
 * the other one, or write it in line. */
LT_COLD int lt_out_flush(lt_out *o)
{
    if (!o->spare) {
        o->w->len = o->len;
        o->len = 0;
        return cli_writer_flush(o->w);
    }
    pthread_mutex_lock(&o->mu);
    while (o->busy)
        pthread_cond_wait(&o->cv, &o->mu);
    const int rc = o->rc;
    if (rc == CLI_EXIT_OK) {
        unsigned char *const written = o->w->buf;
        o->w->buf = o->fill;
        o->w->len = o->len;
        o->busy = 1;
        pthread_cond_broadcast(&o->cv);
        o->fill = written;
        o->len = 0;
    }
    pthread_mutex_unlock(&o->mu);
    return rc;
}

/* Appends `n` bytes (a record larger than the buffer, or a stretch of records of one source). */
LT_COLD int lt_out_put(lt_out *o, const unsigned char *p, size_t n)
{
    while (n > 0) {
        if (o->len == o->cap) {
            const int rc = lt_out_flush(o);
            if (rc != CLI_EXIT_OK)
                return rc;
        }
        const size_t c = n < o->cap - o->len ? n : o->cap - o->len;
        memcpy(o->fill + o->len, p, c);
        o->len += c;
        p += c;
        n -= c;
    }
    return CLI_EXIT_OK;
}

/* Stops the thread and leaves w as it would be after writing in line: its own buffer, holding
 * what is not written yet. Returns the first write error, or CLI_EXIT_OK. */
static int lt_out_close(lt_out *o)
{
    if (!o->spare) {
        o->w->len = o->len;
        return CLI_EXIT_OK;
    }
    pthread_mutex_lock(&o->mu);
    while (o->busy)
        pthread_cond_wait(&o->cv, &o->mu);
    o->stop = 1;
    pthread_cond_broadcast(&o->cv);
    pthread_mutex_unlock(&o->mu);
    pthread_join(o->thread, NULL);
    pthread_cond_destroy(&o->cv);
    pthread_mutex_destroy(&o->mu);
    if (o->fill != o->orig)
        memcpy(o->orig, o->fill, o->len);
    o->w->buf = o->orig;
    o->w->len = o->len;
    free(o->spare);
    o->spare = NULL;
    return o->rc;
}

/* ---- The merge loop -------------------------------------------------------------------------- */

/* The end of the stretch of source w that starts at its current record `rec` (of ordinal *ord):
 * every record that still beats the best of the others (the losers on w's path) and keeps the
 * order. Returns the first record after the stretch (its key put in t->ahead[w]) or the end of
 * w's buffer; *ord becomes the last ordinal of the stretch. */
LT_INLINE const unsigned char *lt_stretch_end(lt_merge *t, uint32_t w, const unsigned char *rec,
                                              size_t R, uint64_t *ord, clsort_type type,
                                              size_t ksize, int plain, int composite, int check)
{
    uint64_t bk = UINT64_MAX;
    uint32_t br = UINT32_MAX;
    for (size_t j = (t->k + w) >> 1; j > 0; j >>= 1) {
        const uint64_t ko = t->nkey[j];
        const uint32_t ro = composite ? 0 : t->nrank[j];
        const int less = lt_less(t, ko, ro, bk, br, composite, 0);
        bk = less ? ko : bk;
        br = less ? ro : br;
    }
    const unsigned char *p = rec + R;
    const unsigned char *const e = t->end[w];
    while (p != e) {
        const uint64_t nk = lt_ordinal(t->ks, type, ksize, plain, p);
        if ((check && nk < *ord) || !lt_less(t, lt_key(nk, w, composite), w, bk, br, composite, 0)) {
            /* p is the next current record; a disorder is reported by the loop */
            t->ahead[w] = lt_key(nk, w, composite);
            break;
        }
        *ord = nk;
        p += R;
    }
    return p;
}

/* The merge loop. `type` and `ksize` are the first key's; `rconst` is the record size when it is
 * a constant of the instance (0: t->R). */
LT_INLINE int lt_loop(lt_merge *t, lt_out *o, clsort_type type, size_t ksize, size_t rconst,
                      int plain, int composite, int extras)
{
    const cli_keyspec *const ks = t->ks;
    const size_t R = rconst ? rconst : t->R, k = t->k;
    const int check = t->m->disorder != NULL, unique = ks->unique;
    /* Stretches of one source: when a source wins twice in a row, take at once every record of
     * it that beats the best of the others (the losers on its path), and copy them as one block.
     * Not under -u (each record is compared with the last one written) nor with tie-breakers. */
    const int stretches = !unique && !extras;
    unsigned char *ob = o->fill;
    const size_t oc = o->cap;
    size_t ol = o->len;
    uint64_t last_ord = 0;
    uint32_t pw = UINT32_MAX; /* the previous winner */
    int have_last = 0, rc = CLI_EXIT_OK;
    for (;;) {
        const uint64_t kw = t->nkey[0];
        uint32_t w;
        if (composite) {
            if (kw == UINT64_MAX)
                break; /* the winner is an exhausted source: all are */
            w = (uint32_t)kw;
        } else {
            w = t->nrank[0];
            if (w >= k)
                break;
        }
        const unsigned char *rec = t->cur[w];
        uint64_t ord = composite ? kw >> 32 : kw;
        if (unique) {
            /* -u: sources are in input order and ties go to the lower source, so the first of
             * equal records is the one written. */
            if (have_last && ord == last_ord && (!extras || cli_extra_cmp(ks, t->last, rec) == 0))
                goto next;
            memcpy(t->last, rec, R);
            last_ord = ord;
            have_last = 1;
        }
        if (stretches && w == pw) {
            const unsigned char *const p =
                lt_stretch_end(t, w, rec, R, &ord, type, ksize, plain, composite, check);
            const size_t n = (size_t)(p - rec);
            if (ol + n <= oc) {
                memcpy(ob + ol, rec, n);
                ol += n;
            } else {
                o->len = ol;
                rc = lt_out_put(o, rec, n);
                ob = o->fill;
                ol = o->len;
                if (rc != CLI_EXIT_OK)
                    break;
            }
            rec = p - R; /* the last record of the stretch is the one just written */
            goto next;
        }
        if (ol + R <= oc) {
            memcpy(ob + ol, rec, R);
            ol += R;
        } else {
            o->len = ol;
            rc = R <= oc ? lt_out_flush(o) : lt_out_put(o, rec, R);
            ob = o->fill;
            ol = o->len;
            if (rc != CLI_EXIT_OK)
                break;
            if (R <= oc) {
                memcpy(ob, rec, R);
                ol = R;
            }
        }
    next:
        pw = w;
        rec += R;
        uint64_t nk;
        uint32_t nr = w;
        const unsigned char *const e = t->end[w];
        if (rec != e) {
            nk = t->ahead[w];
            const uint64_t nord = composite ? nk >> 32 : nk;
            if (check && (nord < ord ||
                          (extras && nord == ord && cli_extra_cmp(ks, rec - R, rec) > 0))) {
                rc = t->m->disorder(t->m->user, w,
                                    t->taken[w] + (uint64_t)(rec - t->start[w]) / R);
                break;
            }
            t->cur[w] = rec;
            if (rec + R != e)
                t->ahead[w] = lt_key(lt_ordinal(ks, type, ksize, plain, rec + R), w, composite);
        } else {
            t->cur[w] = rec;
            rc = lt_next_buffer(t, w);
            if (rc != CLI_EXIT_OK)
                break;
            nk = t->skey[w];
            nr = t->srank[w];
        }
        lt_replay(t, w, nk, nr, composite, extras);
    }
    o->len = ol;
    return rc;
}

/* One instance per first-key type for the common layouts; everything else through the generic
 * instance (runtime type and record size). */
static int lt_dispatch(lt_merge *t, lt_out *out)
{
    const cli_keyspec *const ks = t->ks;
    if (ks->nextra > 0)
        return lt_loop(t, out, ks->type, ks->key_size, 0, 0, 0, 1);
    /* The key is the whole record, little-endian, ascending: the most common file. */
    const int plain = ks->record_size == ks->key_size && !ks->big_endian && !ks->reverse &&
                      !ks->nan_largest;
    switch (ks->type) {
    case CLSORT_U32:
        return plain ? lt_loop(t, out, CLSORT_U32, 4, 4, 1, 1, 0) : lt_loop(t, out, CLSORT_U32, 4, 0, 0, 1, 0);
    case CLSORT_I32:
        return plain ? lt_loop(t, out, CLSORT_I32, 4, 4, 1, 1, 0) : lt_loop(t, out, CLSORT_I32, 4, 0, 0, 1, 0);
    case CLSORT_F32:
        return plain ? lt_loop(t, out, CLSORT_F32, 4, 4, 1, 1, 0) : lt_loop(t, out, CLSORT_F32, 4, 0, 0, 1, 0);
    case CLSORT_U64:
        return plain ? lt_loop(t, out, CLSORT_U64, 8, 8, 1, 0, 0) : lt_loop(t, out, CLSORT_U64, 8, 0, 0, 0, 0);
    case CLSORT_I64:
        return plain ? lt_loop(t, out, CLSORT_I64, 8, 8, 1, 0, 0) : lt_loop(t, out, CLSORT_I64, 8, 0, 0, 0, 0);
    case CLSORT_F64:
        return plain ? lt_loop(t, out, CLSORT_F64, 8, 8, 1, 0, 0) : lt_loop(t, out, CLSORT_F64, 8, 0, 0, 0, 0);
    default: /* 1- and 2-byte keys: the generic instance */
        break;
    }
    return lt_loop(t, out, ks->type, ks->key_size, 0, 0, 0, 0);
}

int cli_merge_sources(const cli_merge_spec *m, cli_writer *out)
{
    const cli_keyspec *const ks = m->ks;
    const size_t k = m->k, R = ks->record_size;
    if (k == 0)
        return CLI_EXIT_OK;
    if (k >= ((size_t)1 << 31)) {
        cli_error("too many sources to merge at once (%zu)", k);
        return CLI_EXIT_IO;
    }
    lt_merge t;
    memset(&t, 0, sizeof t);
    t.m = m;
    t.ks = ks;
    t.k = k;
    t.R = R;
    t.composite = ks->key_size == 4 && ks->nextra == 0;
    int rc = CLI_EXIT_IO;
    uint32_t *const win = malloc(k * sizeof *win);
    t.nkey = calloc(k, sizeof *t.nkey);
    t.nrank = calloc(k, sizeof *t.nrank);
    t.skey = calloc(k, sizeof *t.skey);
    t.ahead = calloc(k, sizeof *t.ahead);
    t.srank = calloc(k, sizeof *t.srank);
    t.cur = calloc(k, sizeof *t.cur);
    t.end = calloc(k, sizeof *t.end);
    t.start = calloc(k, sizeof *t.start);
    t.taken = calloc(k, sizeof *t.taken);
    t.prev = m->disorder ? malloc(k * R) : NULL;
    t.last = ks->unique ? malloc(R) : NULL;
    if (!win || !t.nkey || !t.nrank || !t.skey || !t.ahead || !t.srank || !t.cur || !t.end || !t.start || !t.taken ||
        (m->disorder && !t.prev) || (ks->unique && !t.last)) {
        cli_error("out of host memory for the merge");
        goto done;
    }
    for (size_t s = 0; s < k; ++s) {
        rc = lt_load(&t, (uint32_t)s, 0);
        if (rc != CLI_EXIT_OK)
            goto done;
    }
    lt_build(&t, win);
    lt_out o;
    lt_out_open(&o, out);
    rc = lt_dispatch(&t, &o);
    const int wrc = lt_out_close(&o);
    if (rc == CLI_EXIT_OK)
        rc = wrc;
done:
    free(win);
    free(t.nkey);
    free(t.nrank);
    free(t.skey);
    free(t.ahead);
    free(t.srank);
    free(t.cur);
    free(t.end);
    free(t.start);
    free(t.taken);
    free(t.prev);
    free(t.last);
    return rc;
}

size_t cli_merge_read_share(size_t budget, size_t k, size_t record_size)
{
    const size_t most = (size_t)16 << 20, least = (size_t)64 << 10;
    size_t cap = budget / (k ? k : 1);
    if (cap > most)
        cap = most;
    if (cap < least)
        cap = least;
    cap = cap / record_size * record_size;
    return cap < record_size ? record_size : cap;
}
