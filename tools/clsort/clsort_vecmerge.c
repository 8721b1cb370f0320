/* clsort_vecmerge.c - the k-way merge of 4-byte records with vector merge networks.
 *
 * Why: the loser tree costs 13-15 ns a record on one core (a chain of dependent loads and
 * compares per record), which held the 16-part merge of 16 GiB at 2.75 GB/s on 16 cores
 * (docs/perf.md, 2026-11-27). A bitonic merge of two sorted vectors of 8 keys costs a handful
 * of min/max and shuffle instructions for 8 outputs, with no data-dependent branch.
 *
 * How: the sources are the leaves of a balanced binary tree; each node merges its two children
 * into a small buffer of its own (a few KiB, so the whole tree stays in the core's cache), and
 * the root's buffer goes to the writer. A node is refilled only when its parent has taken
 * everything in it, by recursion from the root: pull, never push. Keys travel as ordinals
 * (cli_load_ordinal's order-preserving map, a bijection on 4-byte keys) so that one unsigned
 * compare orders every type; a leaf maps them on the way in, the root maps them back.
 *
 * The node's merge is the classic one for sorted vectors: `hi` holds the 8 largest keys loaded
 * so far; the next vector comes from the child whose next key is smaller; the 16 keys of that
 * vector and `hi` go through a bitonic merge, whose lower 8 are output and upper 8 become `hi`.
 * The 8 output are not above any key still to come: a key of the other child above them all
 * would need keys of `hi` above it, and those came from the chosen child before the vector, so
 * are at most its first key, which is at most the other child's next.
 *
 * Every stream is a whole number of vectors: a leaf pads its end with the largest ordinal and the
 * root stops after the sources' record count. The padding sorts last, and where a key of the
 * sources has that ordinal it is the same record, so the bytes are the same. */
#include "clsort_vecmerge.h"

#include <stdlib.h>
#include <string.h>

#include "clsort_messages.h"

/* Keys a stream's buffer holds: a multiple of the vector's 8. 31 streams of 16 sources take
 * 62 KiB, in the core's L2. */
#define VM_BUF 512
/* Above this many sources the tree no longer fits a core's cache; the loser tree merges them. */
#define VM_MAX_SOURCES 4096

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define VM_X86 1
#include <immintrin.h>
#define VM_AVX2 __attribute__((target("avx2")))
#endif

/* How raw keys map to ordinals: cli_load_ordinal for little-endian 4-byte keys. */
typedef enum { VM_U32, VM_I32, VM_F32 } vm_kind;

typedef struct vm_stream {
    uint32_t *buf;            /* VM_BUF keys (ordinals), 32-byte aligned */
    uint32_t head, tail;      /* buf[head..tail) is ready */
    int done;                 /* nothing follows tail */
    struct vm_stream *child[2]; /* a node's children; NULL: a leaf */
    uint32_t hi[16];          /* a node: the 16 largest keys loaded, not yet output */
    int has_hi;
    const unsigned char *src; /* a leaf: its records not yet read */
    size_t left;
    uint32_t last;            /* a leaf with the check: the last ordinal read */
    int started;
} vm_stream;

typedef struct vm_tree {
    vm_kind kind;
    uint32_t flip;            /* XORed after the kind's map: all ones when descending */
    int check, disorder;
    vm_stream *s;             /* 2k - 1 streams: the k leaves first */
    uint32_t *mem;
} vm_tree;

static inline uint32_t vm_to_ord(vm_kind kind, uint32_t flip, uint32_t x)
{
    switch (kind) {
    case VM_I32: x ^= 0x80000000u; break;
    case VM_F32: x ^= (uint32_t)((int32_t)x >> 31) | 0x80000000u; break;
    default: break;
    }
    return x ^ flip;
}

static inline uint32_t vm_from_ord(vm_kind kind, uint32_t flip, uint32_t o)
{
    o ^= flip;
    switch (kind) {
    case VM_I32: o ^= 0x80000000u; break;
    case VM_F32: o ^= (uint32_t)((int32_t)(o ^ 0x80000000u) >> 31) | 0x80000000u; break;
    default: break;
    }
    return o;
}

int cli_vecmerge_applies(const cli_keyspec *ks)
{
#if defined(VM_X86)
    const char *env = getenv("CLSORT_CLI_VECTOR_MERGE");
    if (env && strcmp(env, "0") == 0)
        return 0;
    if (ks->record_size != 4 || ks->key_size != 4 || ks->key_offset != 0 || ks->big_endian ||
        ks->nextra != 0 || ks->unique)
        return 0;
    if (ks->type != CLSORT_U32 && ks->type != CLSORT_I32 && ks->type != CLSORT_F32)
        return 0;
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
#else
    (void)ks;
    return 0;
#endif
}

#if defined(VM_X86)

/* A leaf's next keys, mapped to ordinals (the loop is one the compiler vectorises), checked to be
 * in order when asked, and padded to whole vectors at the end. */
VM_AVX2 static void vm_refill_leaf(vm_tree *t, vm_stream *s)
{
    const size_t n = s->left < VM_BUF ? s->left : VM_BUF;
    const vm_kind kind = t->kind;
    const uint32_t flip = t->flip;
    uint32_t *const b = s->buf;
    memcpy(b, s->src, n * 4);
    if (kind == VM_U32 && !flip) {
        /* as read */
    } else if (kind == VM_U32) {
        for (size_t i = 0; i < n; ++i)
            b[i] ^= flip;
    } else if (kind == VM_I32) {
        for (size_t i = 0; i < n; ++i)
            b[i] ^= 0x80000000u ^ flip;
    } else {
        for (size_t i = 0; i < n; ++i)
            b[i] = vm_to_ord(VM_F32, flip, b[i]);
    }
    if (t->check && n > 0) {
        int bad = s->started && s->last > b[0];
        size_t i = 0;
        __m256i acc = _mm256_setzero_si256(); /* non-zero where a key is above the next */
        for (; i + 9 <= n; i += 8) {
            const __m256i x = _mm256_load_si256((const __m256i *)(b + i));
            const __m256i y = _mm256_loadu_si256((const __m256i *)(b + i + 1));
            acc = _mm256_or_si256(acc, _mm256_xor_si256(_mm256_max_epu32(x, y), y));
        }
        bad |= !_mm256_testz_si256(acc, acc);
        for (; i + 1 < n; ++i)
            bad |= b[i] > b[i + 1];
        s->last = b[n - 1];
        s->started = 1;
        if (bad)
            t->disorder = 1;
    }
    s->src += n * 4;
    s->left -= n;
    size_t m = n;
    if (s->left == 0) {
        while (m % 16)
            b[m++] = UINT32_MAX;
        s->done = 1;
    }
    s->head = 0;
    s->tail = (uint32_t)m;
}

/* Sorts a bitonic vector: the half-cleaners at distances 4, 2 and 1. */
VM_AVX2 static inline __m256i vm_clean(__m256i x)
{
    __m256i y = _mm256_permute2x128_si256(x, x, 0x01);
    x = _mm256_blend_epi32(_mm256_min_epu32(x, y), _mm256_max_epu32(x, y), 0xF0);
    y = _mm256_shuffle_epi32(x, _MM_SHUFFLE(1, 0, 3, 2));
    x = _mm256_blend_epi32(_mm256_min_epu32(x, y), _mm256_max_epu32(x, y), 0xCC);
    y = _mm256_shuffle_epi32(x, _MM_SHUFFLE(2, 3, 0, 1));
    return _mm256_blend_epi32(_mm256_min_epu32(x, y), _mm256_max_epu32(x, y), 0xAA);
}

/* Sorts a bitonic sequence of 16 keys in two vectors: the half-cleaner at distance 8 is a
 * min and a max of the two, the rest happens in each. */
VM_AVX2 static inline void vm_clean16(__m256i *x0, __m256i *x1)
{
    const __m256i lo = _mm256_min_epu32(*x0, *x1), hi = _mm256_max_epu32(*x0, *x1);
    *x0 = vm_clean(lo);
    *x1 = vm_clean(hi);
}

/* Fills s's buffer, which its parent has emptied. A step takes 16 keys, two vectors, from a
 * child: the chain from one step's `hi` to the next (a min or max and the cleaners, about 14
 * cycles) then serves 16 outputs instead of 8. The children's read positions stay in registers,
 * so that the pick of the next child is a compare and two adds rather than loads of what the
 * previous step stored. */
VM_AVX2 static void vm_produce(vm_tree *t, vm_stream *s)
{
    if (!s->child[0]) {
        vm_refill_leaf(t, s);
        return;
    }
    const __m256i rev = _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0);
    vm_stream *const a = s->child[0], *const b = s->child[1];
    uint32_t ia = a->head, ta = a->tail, ib = b->head, tb = b->tail;
    const uint32_t *pa = a->buf, *pb = b->buf;
    uint32_t *const out = s->buf;
    uint32_t n = 0;
    __m256i h0 = _mm256_loadu_si256((const __m256i *)s->hi);
    __m256i h1 = _mm256_loadu_si256((const __m256i *)(s->hi + 8));
    int has_hi = s->has_hi;
    while (n < VM_BUF) {
        if (ia == ta && !a->done) {
            a->head = ia;
            vm_produce(t, a);
            ia = a->head;
            ta = a->tail;
        }
        if (ib == tb && !b->done) {
            b->head = ib;
            vm_produce(t, b);
            ib = b->head;
            tb = b->tail;
        }
        const uint32_t *p;
        if (__builtin_expect(ia != ta && ib != tb, 1)) {
            /* Arithmetic rather than a branch: the pick is a coin toss on random keys. */
            const uint32_t from_b = pb[ib] < pa[ia];
            p = from_b ? pb + ib : pa + ia;
            ia += 16u - 16u * from_b;
            ib += 16u * from_b;
        } else if (ia == ta && ib == tb) {
            if (has_hi) {
                _mm256_store_si256((__m256i *)(out + n), h0);
                _mm256_store_si256((__m256i *)(out + n + 8), h1);
                n += 16;
                has_hi = 0;
            }
            s->done = 1;
            break;
        } else if (ia == ta) {
            p = pb + ib;
            ib += 16;
        } else {
            p = pa + ia;
            ia += 16;
        }
        const __m256i v0 = _mm256_load_si256((const __m256i *)p);
        const __m256i v1 = _mm256_load_si256((const __m256i *)(p + 8));
        if (!has_hi) {
            h0 = v0;
            h1 = v1;
            has_hi = 1;
            continue;
        }
        /* The 16 loaded keys reversed against the 16 of hi: the lower halves of the compares
         * are the 16 smallest, the upper the 16 largest, each a bitonic sequence. */
        const __m256i r0 = _mm256_permutevar8x32_epi32(v1, rev);
        const __m256i r1 = _mm256_permutevar8x32_epi32(v0, rev);
        __m256i l0 = _mm256_min_epu32(h0, r0), l1 = _mm256_min_epu32(h1, r1);
        h0 = _mm256_max_epu32(h0, r0);
        h1 = _mm256_max_epu32(h1, r1);
        vm_clean16(&l0, &l1);
        vm_clean16(&h0, &h1);
        _mm256_store_si256((__m256i *)(out + n), l0);
        _mm256_store_si256((__m256i *)(out + n + 8), l1);
        n += 16;
    }
    a->head = ia;
    b->head = ib;
    _mm256_storeu_si256((__m256i *)s->hi, h0);
    _mm256_storeu_si256((__m256i *)(s->hi + 8), h1);
    s->has_hi = has_hi;
    s->head = 0;
    s->tail = n;
}

/* Builds the tree over leaves [lo, hi) and returns its root; *next is the next free node. */
static vm_stream *vm_build(vm_tree *t, size_t lo, size_t hi, size_t *next)
{
    if (hi - lo == 1)
        return &t->s[lo];
    const size_t mid = lo + (hi - lo) / 2;
    vm_stream *const s = &t->s[(*next)++];
    s->child[0] = vm_build(t, lo, mid, next);
    s->child[1] = vm_build(t, mid, hi, next);
    return s;
}

/* The root's keys, mapped back, into w's buffer. */
VM_AVX2 static int vm_drain(vm_tree *t, vm_stream *root, uint64_t records, cli_writer *w)
{
    while (records > 0) {
        if (root->head == root->tail) {
            if (root->done)
                break; /* cannot happen: the leaves hold `records` keys */
            vm_produce(t, root);
            if (t->disorder)
                return CLI_VECMERGE_DISORDER;
            continue;
        }
        if (w->cap - w->len < 4) {
            const int rc = cli_writer_flush(w);
            if (rc != CLI_EXIT_OK)
                return rc;
        }
        uint64_t n = root->tail - root->head;
        if (n > records)
            n = records;
        if (n > (w->cap - w->len) / 4)
            n = (w->cap - w->len) / 4;
        const uint32_t *const p = root->buf + root->head;
        unsigned char *const d = w->buf + w->len;
        if (t->kind == VM_U32 && !t->flip) {
            memcpy(d, p, (size_t)n * 4);
        } else {
            for (size_t i = 0; i < (size_t)n; ++i) {
                const uint32_t x = vm_from_ord(t->kind, t->flip, p[i]);
                memcpy(d + 4 * i, &x, 4);
            }
        }
        w->len += (size_t)n * 4;
        root->head += (uint32_t)n;
        records -= n;
    }
    return CLI_EXIT_OK;
}

int cli_vecmerge(const cli_keyspec *ks, size_t k, const unsigned char *const *data,
                 const size_t *len, int check, cli_writer *w)
{
    if (k == 0)
        return CLI_EXIT_OK;
    if (k > VM_MAX_SOURCES || w->cap < 4) {
        cli_error("internal: the vector merge of %zu sources into a %zu-byte buffer", k, w->cap);
        return CLI_EXIT_IO;
    }
    vm_tree t;
    memset(&t, 0, sizeof t);
    t.kind = ks->type == CLSORT_I32 ? VM_I32 : ks->type == CLSORT_F32 ? VM_F32 : VM_U32;
    t.flip = ks->reverse ? UINT32_MAX : 0;
    t.check = check;
    const size_t ns = 2 * k - 1;
    t.s = calloc(ns, sizeof *t.s);
    t.mem = aligned_alloc(32, ns * VM_BUF * sizeof *t.mem);
    if (!t.s || !t.mem) {
        free(t.s);
        free(t.mem);
        cli_error("out of host memory for the merge");
        return CLI_EXIT_IO;
    }
    uint64_t records = 0;
    for (size_t i = 0; i < ns; ++i) {
        t.s[i].buf = t.mem + i * VM_BUF;
        if (i < k) {
            t.s[i].src = data[i];
            t.s[i].left = len[i] / 4;
            t.s[i].done = t.s[i].left == 0;
            records += len[i] / 4;
        }
    }
    size_t next = k;
    vm_stream *const root = vm_build(&t, 0, k, &next);
    const int rc = vm_drain(&t, root, records, w);
    free(t.s);
    free(t.mem);
    return rc;
}

#else /* no vector merge on this architecture: cli_vecmerge_applies says so */

int cli_vecmerge(const cli_keyspec *ks, size_t k, const unsigned char *const *data,
                 const size_t *len, int check, cli_writer *w)
{
    (void)ks;
    (void)k;
    (void)data;
    (void)len;
    (void)check;
    (void)w;
    cli_error("internal: no vector merge on this architecture");
    return CLI_EXIT_IO;
}

#endif
