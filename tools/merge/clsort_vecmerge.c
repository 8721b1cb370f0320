/* clsort_vecmerge.c - the k-way merge of records that are one key, with vector merge networks.
 *
 * Why: the loser tree costs 13-15 ns a record on one core (a chain of dependent loads and
 * compares per record), which held the 16-part merge of 16 GiB at 2.75 GB/s on 16 cores
 * (docs/perf.md, 2026-11-27). A bitonic merge of two sorted vectors of 8 keys costs a handful
 * of min/max and shuffle instructions for 8 outputs, with no data-dependent branch. Keys of 4
 * bytes use AVX2 (8 in a vector), keys of 8 bytes AVX-512 (8 in a vector too): one loop,
 * clsort_vecmerge_impl.h, written for both.
 *
 * How: the sources are the leaves of a balanced binary tree; each node merges its two children
 * into a small buffer of its own (a few KiB, so the whole tree stays in the core's cache), and
 * the root's buffer goes to the writer. A node is refilled only when its parent has taken
 * everything in it, by recursion from the root: pull, never push. Keys travel as ordinals
 * (cli_load_ordinal's order-preserving map, a bijection on 4-byte keys) so that one unsigned
 * compare orders every type; a leaf maps them on the way in, the root maps them back.
 *
 * The node's merge is the classic one for sorted vectors: `hi` holds the 16 largest keys loaded
 * so far; the next 16 come from the child whose next key is smaller; those and `hi` go through a
 * bitonic merge, whose lower 16 are output and upper 16 become `hi`. The 16 output are not above
 * any key still to come: a key of the other child below the largest of them would need keys of
 * `hi` above it, and those came from the chosen child before the 16, so are at most its first
 * key, which is at most the other child's next.
 *
 * Every stream is a whole number of steps (16 keys): a leaf pads its end with the largest ordinal
 * and the root stops after the sources' record count. The padding sorts last, and where a key of the
 * sources has that ordinal it is the same record, so the bytes are the same. */
#include "clsort_vecmerge.h"

#include <stdlib.h>
#include <string.h>

#include "clsort_messages.h"

/* Keys a stream's buffer holds: a multiple of the step's 16. 31 streams of 16 sources take
 * 62 KiB of 4-byte keys, in the core's L2. */
#define VM_BUF 512
/* Above this many sources the tree no longer fits a core's cache; the loser tree merges them
 * (cli_vecmerge_applies). */
#define VM_MAX_SOURCES 4096

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define VM_X86 1
#include <immintrin.h>
#endif

/* How raw keys map to ordinals: cli_load_ordinal for little-endian keys. */
typedef enum {
    VM_UNSIGNED = CLSORT_KIND_UINT,
    VM_SIGNED = CLSORT_KIND_INT,
    VM_FLOAT = CLSORT_KIND_FLOAT
} vm_kind;

typedef struct vm_stream {
    void *buf;                /* VM_BUF keys (ordinals), 64-byte aligned */
    uint32_t head, tail;      /* keys buf[head..tail) are ready */
    int done;                 /* nothing follows tail */
    struct vm_stream *child[2]; /* a node's children; NULL: a leaf */
    uint64_t hi[16];          /* a node: the 16 largest keys loaded, not yet output */
    int has_hi;
    const unsigned char *src; /* a leaf: its records not yet read */
    size_t left;
    uint64_t last;            /* a leaf with the check: the last ordinal read */
    int started;
} vm_stream;

typedef struct vm_tree {
    vm_kind kind;
    uint64_t flip;            /* XORed after the kind's map: all ones when descending */
    int check, disorder;
    vm_stream *s;             /* 2k - 1 streams: the k leaves first */
    void *mem;
} vm_tree;

/* The key-type table's transform (kernels/key_types.h): the kinds are its CLSORT_KIND_* values,
 * and flip (all ones or none) its descending bit. Constant kinds at the call sites (map_keys's
 * loops) keep the loops branch-free for the compiler to vectorise. */
static inline uint32_t vm_to_ord_32(vm_kind kind, uint32_t flip, uint32_t x)
{
    const unsigned xf = CLSORT_XF((unsigned)kind, 0u, flip != 0, 0);
    return CLSORT_KT_TO_ORDER(uint32_t, uint32_t, 32, x, xf);
}

static inline uint32_t vm_from_ord_32(vm_kind kind, uint32_t flip, uint32_t o)
{
    const unsigned xf = CLSORT_XF((unsigned)kind, 0u, flip != 0, 0);
    return CLSORT_KT_FROM_ORDER(uint32_t, uint32_t, 32, o, xf);
}

static inline uint64_t vm_to_ord_64(vm_kind kind, uint64_t flip, uint64_t x)
{
    const unsigned xf = CLSORT_XF((unsigned)kind, 0u, flip != 0, 0);
    return CLSORT_KT_TO_ORDER(uint64_t, uint64_t, 64, x, xf);
}

static inline uint64_t vm_from_ord_64(vm_kind kind, uint64_t flip, uint64_t o)
{
    const unsigned xf = CLSORT_XF((unsigned)kind, 0u, flip != 0, 0);
    return CLSORT_KT_FROM_ORDER(uint64_t, uint64_t, 64, o, xf);
}

int cli_vecmerge_applies(const cli_keyspec *ks, size_t k)
{
#if defined(VM_X86)
    const char *env = getenv("CLSORT_CLI_VECTOR_MERGE");
    if (env && strcmp(env, "0") == 0)
        return 0;
    if (ks->record_size != ks->key_size || ks->key_offset != 0 || ks->big_endian ||
        ks->nextra != 0 || ks->unique || k == 0 || k > VM_MAX_SOURCES || ks->nan_largest ||
        (ks->key_size != 4 && ks->key_size != 8))
        return 0;
    __builtin_cpu_init();
    return ks->key_size == 4 ? __builtin_cpu_supports("avx2")
                             : __builtin_cpu_supports("avx512f");
#else
    (void)ks;
    (void)k;
    return 0;
#endif
}

#if defined(VM_X86)

/* ---- 4-byte keys: AVX2, 8 in a vector ------------------------------------------------------ */

#define VM_AVX2 __attribute__((target("avx2")))

/* Sorts a bitonic vector: the half-cleaners at distances 4, 2 and 1. */
VM_AVX2 static inline __m256i vm_clean_32(__m256i x)
{
    __m256i y = _mm256_permute2x128_si256(x, x, 0x01);
    x = _mm256_blend_epi32(_mm256_min_epu32(x, y), _mm256_max_epu32(x, y), 0xF0);
    y = _mm256_shuffle_epi32(x, _MM_SHUFFLE(1, 0, 3, 2));
    x = _mm256_blend_epi32(_mm256_min_epu32(x, y), _mm256_max_epu32(x, y), 0xCC);
    y = _mm256_shuffle_epi32(x, _MM_SHUFFLE(2, 3, 0, 1));
    return _mm256_blend_epi32(_mm256_min_epu32(x, y), _mm256_max_epu32(x, y), 0xAA);
}

#define VM_T uint32_t
#define VM_TARGET VM_AVX2
#define VM_NAME(x) vm_##x##_32
#define VM_VEC __m256i
#define VM_LOAD(p) _mm256_load_si256((const __m256i *)(p))
#define VM_STORE(p, v) _mm256_store_si256((__m256i *)(p), (v))
#define VM_LOADU(p) _mm256_loadu_si256((const __m256i *)(p))
#define VM_STOREU(p, v) _mm256_storeu_si256((__m256i *)(p), (v))
#define VM_MIN(a, b) _mm256_min_epu32((a), (b))
#define VM_MAX(a, b) _mm256_max_epu32((a), (b))
#define VM_REV(v) _mm256_permutevar8x32_epi32((v), _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0))
#define VM_CLEAN(v) vm_clean_32(v)
#define VM_ZERO() _mm256_setzero_si256()
#define VM_OR(a, b) _mm256_or_si256((a), (b))
#define VM_XOR(a, b) _mm256_xor_si256((a), (b))
#define VM_NONZERO(v) (!_mm256_testz_si256((v), (v)))
#include "clsort_vecmerge_impl.h"
#undef VM_T
#undef VM_TARGET
#undef VM_NAME
#undef VM_VEC
#undef VM_LOAD
#undef VM_STORE
#undef VM_LOADU
#undef VM_STOREU
#undef VM_MIN
#undef VM_MAX
#undef VM_REV
#undef VM_CLEAN
#undef VM_ZERO
#undef VM_OR
#undef VM_XOR
#undef VM_NONZERO

/* ---- 8-byte keys: AVX-512, 8 in a vector --------------------------------------------------- */

#define VM_AVX512 __attribute__((target("avx512f")))

VM_AVX512 static inline __m512i vm_clean_64(__m512i x)
{
    __m512i y = _mm512_shuffle_i64x2(x, x, _MM_SHUFFLE(1, 0, 3, 2));
    x = _mm512_mask_blend_epi64(0xF0, _mm512_min_epu64(x, y), _mm512_max_epu64(x, y));
    y = _mm512_permutex_epi64(x, _MM_SHUFFLE(1, 0, 3, 2));
    x = _mm512_mask_blend_epi64(0xCC, _mm512_min_epu64(x, y), _mm512_max_epu64(x, y));
    y = _mm512_permutex_epi64(x, _MM_SHUFFLE(2, 3, 0, 1));
    return _mm512_mask_blend_epi64(0xAA, _mm512_min_epu64(x, y), _mm512_max_epu64(x, y));
}

#define VM_T uint64_t
#define VM_TARGET VM_AVX512
#define VM_NAME(x) vm_##x##_64
#define VM_VEC __m512i
#define VM_LOAD(p) _mm512_load_si512((const void *)(p))
#define VM_STORE(p, v) _mm512_store_si512((void *)(p), (v))
#define VM_LOADU(p) _mm512_loadu_si512((const void *)(p))
#define VM_STOREU(p, v) _mm512_storeu_si512((void *)(p), (v))
#define VM_MIN(a, b) _mm512_min_epu64((a), (b))
#define VM_MAX(a, b) _mm512_max_epu64((a), (b))
#define VM_REV(v) _mm512_permutexvar_epi64(_mm512_setr_epi64(7, 6, 5, 4, 3, 2, 1, 0), (v))
#define VM_CLEAN(v) vm_clean_64(v)
#define VM_ZERO() _mm512_setzero_si512()
#define VM_OR(a, b) _mm512_or_si512((a), (b))
#define VM_XOR(a, b) _mm512_xor_si512((a), (b))
#define VM_NONZERO(v) (_mm512_test_epi64_mask((v), (v)) != 0)
#include "clsort_vecmerge_impl.h"

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

int cli_vecmerge(const cli_keyspec *ks, size_t k, const unsigned char *const *data,
                 const size_t *len, int check, cli_writer *w)
{
    const size_t W = ks->key_size;
    if (k == 0)
        return CLI_EXIT_OK;
    if (k > VM_MAX_SOURCES || w->cap < W || (W != 4 && W != 8)) {
        cli_error("internal: the vector merge of %zu sources of %zu-byte keys into a %zu-byte "
                  "buffer", k, W, w->cap);
        return CLI_EXIT_IO;
    }
    vm_tree t;
    memset(&t, 0, sizeof t);
    t.kind = (vm_kind)(cli_type_xf(ks->type, 0, 0) & (CLSORT_XF_SIGNED | CLSORT_XF_FLOAT));
    t.flip = ks->reverse ? UINT64_MAX : 0;
    t.check = check;
    const size_t ns = 2 * k - 1;
    t.s = calloc(ns, sizeof *t.s);
    t.mem = aligned_alloc(64, ns * VM_BUF * W);
    if (!t.s || !t.mem) {
        free(t.s);
        free(t.mem);
        cli_error("out of host memory for the merge");
        return CLI_EXIT_IO;
    }
    uint64_t records = 0;
    for (size_t i = 0; i < ns; ++i) {
        t.s[i].buf = (unsigned char *)t.mem + i * VM_BUF * W;
        if (i < k) {
            t.s[i].src = data[i];
            t.s[i].left = len[i] / W;
            t.s[i].done = t.s[i].left == 0;
            records += len[i] / W;
        }
    }
    size_t next = k;
    vm_stream *const root = vm_build(&t, 0, k, &next);
    const int rc = W == 4 ? vm_drain_32(&t, root, records, w) : vm_drain_64(&t, root, records, w);
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
