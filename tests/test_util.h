/* test_util.h - what the clsort tests share, header-only (each tests/test_*.c is its own program):
 * a tiny TAP harness, a seeded RNG with a replayable seed, the reference order and sort, and the
 * input distributions (for floats: NaNs of both signs with payloads, +-0, +-inf, subnormals).
 *
 * The seed is printed first ("# seed: ..."); CLSORT_TEST_SEED=that reruns exactly the same inputs.
 * Every case draws from its own generator, derived from the seed and the case's parameters, so a
 * case's input does not depend on which cases ran before it. */
#ifndef CLSORT_TEST_UTIL_H
#define CLSORT_TEST_UTIL_H

#include <clsort.h>

#include "../kernels/key_types.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__GNUC__)
#define T_PRINTF_(f, a) __attribute__((format(printf, f, a)))
#define T_UNUSED_ __attribute__((unused))
#else
#define T_PRINTF_(f, a)
#define T_UNUSED_
#endif

/* ---- TAP ------------------------------------------------------------------------------------ */

static unsigned t_count_;  /* test points printed so far */
static unsigned t_failed_; /* of which "not ok" */
static uint64_t t_seed_;   /* the run's seed */

/** Prints a diagnostic line ("# ..."), which TAP consumers show but do not count. */
static T_UNUSED_ T_PRINTF_(1, 2) void t_diag(const char *fmt, ...)
{
    va_list ap;
    fputs("# ", stdout);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
    fflush(stdout);
}

static void t_vpoint_(int pass, const char *fmt, va_list ap)
{
    ++t_count_;
    if (!pass)
        ++t_failed_;
    printf("%s %u - ", pass ? "ok" : "not ok", t_count_);
    vprintf(fmt, ap);
    fputc('\n', stdout);
    fflush(stdout);
}

/** One test point: "ok N - name" or "not ok N - name". Returns pass. */
static T_UNUSED_ T_PRINTF_(2, 3) int t_ok(int pass, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    t_vpoint_(pass, fmt, ap);
    va_end(ap);
    return pass;
}

/** Test point comparing two integers; both are printed on failure. */
static T_UNUSED_ T_PRINTF_(3, 4) int t_is_int(long long got, long long want, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    t_vpoint_(got == want, fmt, ap);
    va_end(ap);
    if (got != want)
        t_diag("     got: %lld\n#     want: %lld", got, want);
    return got == want;
}

/** Test point comparing a clsort status with the expected one; both printed by name on failure. */
static T_UNUSED_ T_PRINTF_(3, 4) int t_is_status(int got, int want, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    t_vpoint_(got == want, fmt, ap);
    va_end(ap);
    if (got != want)
        t_diag("     got: %d (%s)\n#     want: %d (%s)", got, clsort_status_name(got), want,
               clsort_status_name(want));
    return got == want;
}

/** Test point comparing two strings (NULL allowed); both printed on failure. */
static T_UNUSED_ T_PRINTF_(3, 4) int t_is_str(const char *got, const char *want, const char *fmt,
                                               ...)
{
    const int pass = (got == NULL || want == NULL) ? got == want : strcmp(got, want) == 0;
    va_list ap;
    va_start(ap, fmt);
    t_vpoint_(pass, fmt, ap);
    va_end(ap);
    if (!pass)
        t_diag("     got: %s%s%s\n#     want: %s%s%s", got ? "\"" : "", got ? got : "(null)",
               got ? "\"" : "", want ? "\"" : "", want ? want : "(null)", want ? "\"" : "");
    return pass;
}

/** A skipped test point (counts as passing). */
static T_UNUSED_ T_PRINTF_(1, 2) void t_skip(const char *fmt, ...)
{
    va_list ap;
    ++t_count_;
    printf("ok %u # SKIP ", t_count_);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
    fflush(stdout);
}

/** Stops the whole program: "Bail out!" tells the TAP consumer nothing more will come. */
static T_UNUSED_ T_PRINTF_(1, 2) void t_bail(const char *fmt, ...)
{
    va_list ap;
    fputs("Bail out! ", stdout);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
    fflush(stdout);
    exit(2);
}

static uint64_t t_splitmix64_(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/** Starts the run: takes the seed from CLSORT_TEST_SEED (decimal or 0x hex) or makes one, and
 *  prints it so that a failing run can be replayed. Returns the seed. */
static T_UNUSED_ uint64_t t_init(const char *program)
{
    const char *env = getenv("CLSORT_TEST_SEED");
    if (env && *env) {
        t_seed_ = strtoull(env, NULL, 0);
    } else {
        uint64_t s = (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
        s ^= (uint64_t)(uintptr_t)&s; /* differs per process under ASLR */
        t_seed_ = t_splitmix64_(&s) & 0xFFFFFFFFFFFFull;
    }
    printf("# %s: seed %" PRIu64 " (replay with CLSORT_TEST_SEED=%" PRIu64 ")\n", program,
           t_seed_, t_seed_);
    fflush(stdout);
    return t_seed_;
}

/** Ends the run: prints the plan and a summary, returns the exit status for main. */
static T_UNUSED_ int t_done(void)
{
    printf("1..%u\n", t_count_);
    if (t_failed_)
        printf("# FAILED %u of %u (seed %" PRIu64 ")\n", t_failed_, t_count_, t_seed_);
    fflush(stdout);
    return t_failed_ ? 1 : 0;
}

/** Milliseconds on a monotonic clock. */
static T_UNUSED_ double t_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- Random numbers ------------------------------------------------------------------------- */

typedef struct t_rng {
    uint64_t s;
} t_rng;

/** A generator for one case, derived from the run's seed and up to four case parameters. */
static T_UNUSED_ t_rng t_rng_for(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    uint64_t s = t_seed_;
    const uint64_t parts[4] = {a, b, c, d};
    for (int i = 0; i < 4; ++i) {
        s ^= parts[i];
        (void)t_splitmix64_(&s);
    }
    t_rng r = {s};
    return r;
}

static T_UNUSED_ uint64_t t_rand64(t_rng *r)
{
    return t_splitmix64_(&r->s);
}

/** Uniform in [0, bound); bound > 0. (The slight modulo bias does not matter here.) */
static T_UNUSED_ uint64_t t_rand_below(t_rng *r, uint64_t bound)
{
    return t_rand64(r) % bound;
}

/* ---- Types and the documented order -------------------------------------------------------- */

/* The key types come from the key-type table (kernels/key_types.h), as the library's do;
 * tests/test_key_types.c checks the table itself against an independent reference. t_types are
 * the 32- and 64-bit types that the full matrices run over; t_all_types adds the narrow ones,
 * which the tests take a few cases of. */
#define T_NTYPES 6
static const clsort_type t_types[T_NTYPES] = {CLSORT_U32, CLSORT_I32, CLSORT_F32,
                                              CLSORT_U64, CLSORT_I64, CLSORT_F64};
#define T_NALLTYPES 12
static const clsort_type t_all_types[T_NALLTYPES] = {
    CLSORT_U32, CLSORT_I32, CLSORT_F32, CLSORT_U64, CLSORT_I64,  CLSORT_F64,
    CLSORT_U8,  CLSORT_I8,  CLSORT_U16, CLSORT_I16, CLSORT_F16, CLSORT_BF16};
/* AUTO and the three networks (t_algos[0 .. T_NALGOS)), then the radix sort: the tests of the
 * sorts themselves loop over all T_NSORTS, the others over the first T_NALGOS. */
#define T_NALGOS 4
#define T_NSORTS 5
static const clsort_algorithm t_algos[T_NSORTS] = {CLSORT_AUTO, CLSORT_BITONIC,
                                                   CLSORT_ODD_EVEN_MERGE,
                                                   CLSORT_ODD_EVEN_TRANSPOSITION, CLSORT_RADIX};

typedef struct t_keytype {
    const char *name;
    unsigned bits, kind, mant;
} t_keytype;

static T_UNUSED_ t_keytype t_row(clsort_type type)
{
    static const t_keytype rows[] = {
#define T_ROW_(E, name, bits, kind, mant) {#name, bits, kind, mant},
        CLSORT_KEY_TYPES(T_ROW_)
#undef T_ROW_
    };
    const t_keytype none = {"?", 0, 0, 0};
    return (unsigned)type < sizeof rows / sizeof *rows ? rows[type] : none;
}

static T_UNUSED_ size_t t_size(clsort_type type)
{
    return t_row(type).bits / 8;
}

static T_UNUSED_ const char *t_type_name(clsort_type type)
{
    return t_row(type).name;
}

static T_UNUSED_ int t_is_float(clsort_type type)
{
    return t_row(type).kind == CLSORT_KIND_FLOAT;
}

static T_UNUSED_ const char *t_algo_name(clsort_algorithm algo)
{
    static const char *const names[] = {"auto", "bitonic", "odd-even-merge",
                                        "odd-even-transposition", "radix"};
    return (unsigned)algo < 5 ? names[algo] : "?";
}

/** Reads key i of an array of `type` as raw bits. */
static T_UNUSED_ uint64_t t_get_bits(clsort_type type, const void *keys, size_t i)
{
    const size_t sz = t_size(type);
    const unsigned char *p = (const unsigned char *)keys + sz * i;
    uint64_t v = 0;
    if (sz == 1) {
        v = *p;
    } else if (sz == 2) {
        uint16_t x;
        memcpy(&x, p, 2);
        v = x;
    } else if (sz == 4) {
        uint32_t x;
        memcpy(&x, p, 4);
        v = x;
    } else {
        memcpy(&v, p, 8);
    }
    return v;
}

/** Writes raw bits as key i of an array of `type`. */
static T_UNUSED_ void t_set_bits(clsort_type type, void *keys, size_t i, uint64_t bits)
{
    const size_t sz = t_size(type);
    unsigned char *p = (unsigned char *)keys + sz * i;
    if (sz == 1) {
        *p = (unsigned char)bits;
    } else if (sz == 2) {
        const uint16_t v = (uint16_t)bits;
        memcpy(p, &v, 2);
    } else if (sz == 4) {
        const uint32_t v = (uint32_t)bits;
        memcpy(p, &v, 4);
    } else {
        memcpy(p, &bits, 8);
    }
}

/** The transform code of type under flags (CLSORT_DESCENDING, CLSORT_NAN_LARGEST). */
static T_UNUSED_ unsigned t_xf(clsort_type type, unsigned flags)
{
    const t_keytype t = t_row(type);
    return CLSORT_XF(t.kind, t.mant, flags & CLSORT_DESCENDING, flags & CLSORT_NAN_LARGEST);
}

/** Maps a key's bits to an unsigned integer whose order is the documented order: integers
 *  numerically, floats by IEEE 754 totalOrder (the table's transform). */
static T_UNUSED_ uint64_t t_ord(clsort_type type, uint64_t bits)
{
    const unsigned w = t_row(type).bits, xf = t_xf(type, 0);
    return CLSORT_KT_TO_ORDER(uint64_t, uint64_t, w, bits, xf);
}

/** The exact inverse of t_ord. */
static T_UNUSED_ uint64_t t_unord(clsort_type type, uint64_t ord)
{
    const unsigned w = t_row(type).bits, xf = t_xf(type, 0);
    return CLSORT_KT_FROM_ORDER(uint64_t, uint64_t, w, ord, xf);
}

/** A number whose order is the order of type under flags (CLSORT_NAN_LARGEST: NaNs equal and
 *  largest, -0 equal to +0; ascending) and which is equal exactly for keys that compare equal. */
static T_UNUSED_ uint64_t t_class(clsort_type type, uint64_t bits, unsigned flags)
{
    const unsigned w = t_row(type).bits, xf = t_xf(type, flags & CLSORT_NAN_LARGEST);
    return CLSORT_KT_CLASS(uint64_t, w, bits, xf);
}

static int t_cmp_u64_(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int t_cmp_u128_(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

/** The reference: sorts n keys of `type` in place with qsort in the documented order; descending
 *  is the exact reverse of ascending. Keys equal in that order have equal bits, so the result is
 *  unique and the library's output must match it byte for byte. Returns 0, or -1 out of memory. */
static T_UNUSED_ int t_ref_sort(clsort_type type, void *keys, size_t n, int descending)
{
    uint64_t *ord = malloc((n ? n : 1) * sizeof *ord);
    if (!ord)
        return -1;
    for (size_t i = 0; i < n; ++i)
        ord[i] = t_ord(type, t_get_bits(type, keys, i));
    qsort(ord, n, sizeof *ord, t_cmp_u64_);
    for (size_t i = 0; i < n; ++i)
        t_set_bits(type, keys, descending ? n - 1 - i : i, t_unord(type, ord[i]));
    free(ord);
    return 0;
}

/** The reference of a stable sort under flags (CLSORT_DESCENDING, CLSORT_NAN_LARGEST): keys
 *  ordered by t_class (reversed when descending), equal ones in input order. With `perm` (n
 *  entries, or NULL) it receives each output key's input position: numpy.argsort(kind="stable")
 *  under CLSORT_NAN_LARGEST. Returns 0, or -1 out of memory. */
static T_UNUSED_ int t_ref_stable(clsort_type type, void *keys, size_t n, unsigned flags,
                                  uint64_t *perm)
{
    /* (class, position) pairs, two uint64_t each, sorted as one 128-bit number. */
    uint64_t *cp = malloc((n ? n : 1) * 2 * sizeof *cp), *bits = malloc((n ? n : 1) * 8);
    if (!cp || !bits) {
        free(cp);
        free(bits);
        return -1;
    }
    const int desc = (flags & CLSORT_DESCENDING) != 0;
    for (size_t i = 0; i < n; ++i) {
        bits[i] = t_get_bits(type, keys, i);
        const uint64_t c = t_class(type, bits[i], flags);
        cp[2 * i] = desc ? ~c : c;
        cp[2 * i + 1] = i;
    }
    qsort(cp, n, 2 * sizeof *cp, t_cmp_u128_);
    for (size_t i = 0; i < n; ++i) {
        t_set_bits(type, keys, i, bits[cp[2 * i + 1]]);
        if (perm)
            perm[i] = cp[2 * i + 1];
    }
    free(cp);
    free(bits);
    return 0;
}

/** Checks a sort of `in` under flags against the stable reference `want` (t_ref_stable): with
 *  CLSORT_STABLE, or where keys that compare equal have equal bits, byte for byte; otherwise the
 *  keys' classes position by position and the same keys as the input (a permutation). Returns
 *  the first index that differs, or n if none does. */
static T_UNUSED_ size_t t_check_order(clsort_type type, const void *in, const void *got,
                                       const void *want, size_t n, unsigned flags)
{
    const int collapses = (flags & CLSORT_NAN_LARGEST) && t_row(type).kind == CLSORT_KIND_FLOAT;
    if ((flags & CLSORT_STABLE) || !collapses) {
        for (size_t i = 0; i < n; ++i)
            if (t_get_bits(type, got, i) != t_get_bits(type, want, i))
                return i;
        return n;
    }
    for (size_t i = 0; i < n; ++i)
        if (t_class(type, t_get_bits(type, got, i), flags) !=
            t_class(type, t_get_bits(type, want, i), flags))
            return i;
    uint64_t *a = malloc((n ? n : 1) * 8), *b = malloc((n ? n : 1) * 8);
    size_t bad = n;
    if (!a || !b) {
        bad = 0;
    } else {
        for (size_t i = 0; i < n; ++i) {
            a[i] = t_get_bits(type, in, i);
            b[i] = t_get_bits(type, got, i);
        }
        qsort(a, n, 8, t_cmp_u64_);
        qsort(b, n, 8, t_cmp_u64_);
        for (size_t i = 0; i < n && bad == n; ++i)
            if (a[i] != b[i])
                bad = i;
    }
    free(a);
    free(b);
    return bad;
}

/** Checks a pair sort of `in` whose values were the input positions (as uint32_t in vals, or
 *  uint64_t when wide): stable (or keys that compare equal have equal bits): keys byte for byte
 *  as `want` and positions as `perm` (t_ref_stable's); otherwise the classes as `want`, every
 *  value a distinct position, and each key the input key at its value's position. Returns 1
 *  when right. */
static T_UNUSED_ int t_check_pairs(clsort_type type, const void *in, const void *got,
                                   const void *vals, int wide, const void *want,
                                   const uint64_t *perm, size_t n, unsigned flags)
{
    unsigned char *seen = calloc(n ? n : 1, 1);
    int ok = seen != NULL;
    for (size_t i = 0; ok && i < n; ++i) {
        uint64_t p;
        if (wide) {
            memcpy(&p, (const unsigned char *)vals + 8 * i, 8);
        } else {
            uint32_t q;
            memcpy(&q, (const unsigned char *)vals + 4 * i, 4);
            p = q;
        }
        ok = p < n && !seen[p] && t_get_bits(type, got, i) == t_get_bits(type, in, p);
        if (ok)
            seen[p] = 1;
        if (ok && (flags & CLSORT_STABLE))
            ok = p == perm[i];
        if (ok)
            ok = t_class(type, t_get_bits(type, got, i), flags) ==
                 t_class(type, t_get_bits(type, want, i), flags);
    }
    free(seen);
    return ok;
}

/** Compares a sorted result with the reference byte for byte. Returns the first index that
 *  differs, or n if none does. */
static T_UNUSED_ size_t t_first_diff(clsort_type type, const void *got, const void *want, size_t n)
{
    const size_t sz = t_size(type);
    if (memcmp(got, want, n * sz) == 0)
        return n;
    for (size_t i = 0; i < n; ++i)
        if (memcmp((const unsigned char *)got + i * sz, (const unsigned char *)want + i * sz, sz))
            return i;
    return n;
}

/** Prints a window of got/want around index `at` as diagnostics. */
static T_UNUSED_ void t_diag_diff(clsort_type type, const void *got, const void *want, size_t n,
                                  size_t at)
{
    const size_t lo = at >= 3 ? at - 3 : 0, hi = at + 4 < n ? at + 4 : n;
    const int w = (int)t_size(type) * 2;
    for (size_t i = lo; i < hi; ++i)
        t_diag("  [%zu] got 0x%0*" PRIx64 " want 0x%0*" PRIx64 "%s", i, w,
               t_get_bits(type, got, i), w, t_get_bits(type, want, i),
               i == at ? "   <-- first difference" : "");
}

/* ---- Distributions -------------------------------------------------------------------------- */

typedef enum t_dist {
    T_RANDOM,   /* uniform random bits (floats: random bit patterns, so some NaNs too) */
    T_SORTED,   /* already in ascending order */
    T_REVERSED, /* in descending order */
    T_EQUAL,    /* all keys the same */
    T_FEW,      /* a handful of distinct keys */
    T_SPECIAL,  /* floats: NaNs of both signs with payloads, +-0, +-inf, subnormals, extremes;
                   integers: 0, +-1, min, max and their neighbours */
    T_NDIST
} t_dist;

static T_UNUSED_ const char *t_dist_name(t_dist d)
{
    static const char *const names[] = {"random", "sorted", "reversed",
                                        "equal",  "few",    "special"};
    return (unsigned)d < T_NDIST ? names[d] : "?";
}

static const uint32_t t_special_f32_[] = {
    0x00000000u, 0x80000000u,                          /* +0, -0 */
    0x7F800000u, 0xFF800000u,                          /* +inf, -inf */
    0x7FC00000u, 0xFFC00000u,                          /* quiet NaNs */
    0x7F800001u, 0xFF800001u, 0x7FA5A5A5u, 0xFF812345u, /* signalling NaNs with payloads */
    0x7FFFFFFFu, 0xFFFFFFFFu, 0x7FC00001u, 0xFFC0BEEFu, /* quiet NaNs with payloads */
    0x00000001u, 0x80000001u, 0x007FFFFFu, 0x807FFFFFu, /* subnormals: min, max */
    0x00400000u, 0x80012345u,                          /* subnormals */
    0x00800000u, 0x80800000u, 0x7F7FFFFFu, 0xFF7FFFFFu, /* min normal, max finite */
    0x3F800000u, 0xBF800000u, 0x3F800001u, 0xBF7FFFFFu, /* +-1 and neighbours */
};
static const uint64_t t_special_f64_[] = {
    0x0000000000000000ull, 0x8000000000000000ull, 0x7FF0000000000000ull, 0xFFF0000000000000ull,
    0x7FF8000000000000ull, 0xFFF8000000000000ull, 0x7FF0000000000001ull, 0xFFF0000000000001ull,
    0x7FF5A5A5A5A5A5A5ull, 0xFFF0123456789ABCull, 0x7FFFFFFFFFFFFFFFull, 0xFFFFFFFFFFFFFFFFull,
    0x7FF8000000000001ull, 0xFFF800000000BEEFull, 0x0000000000000001ull, 0x8000000000000001ull,
    0x000FFFFFFFFFFFFFull, 0x800FFFFFFFFFFFFFull, 0x0008000000000000ull, 0x8000123456789ABCull,
    0x0010000000000000ull, 0x8010000000000000ull, 0x7FEFFFFFFFFFFFFFull, 0xFFEFFFFFFFFFFFFFull,
    0x3FF0000000000000ull, 0xBFF0000000000000ull, 0x3FF0000000000001ull, 0xBFEFFFFFFFFFFFFFull,
};
static const uint64_t t_special_int_[] = {
    0, 1, 2, 0xFFFFFFFFFFFFFFFFull, 0xFFFFFFFFFFFFFFFEull, /* 0, 1, 2, -1, -2 */
    0x8000000000000000ull, 0x8000000000000001ull,         /* i64 min, min + 1 */
    0x7FFFFFFFFFFFFFFFull, 0x7FFFFFFFFFFFFFFEull,         /* i64 max, max - 1 */
    0x80000000u, 0x80000001u, 0x7FFFFFFFu, 0x7FFFFFFEu,   /* i32 min/max and neighbours */
    0xFFFFFFFFu, 0x100000000ull, 0xFFFFFFFF00000000ull,   /* 32-bit boundaries in 64 bits */
};

/** One special key: half the time from the fixed list, else a random NaN of either sign, a random
 *  subnormal, or random bits. */
static uint64_t t_special_key_(clsort_type type, t_rng *r)
{
    const uint64_t x = t_rand64(r);
    const unsigned pick = (unsigned)(t_rand64(r) % 8);
    if (type == CLSORT_F32) {
        const size_t m = sizeof t_special_f32_ / sizeof *t_special_f32_;
        const uint32_t sign = (uint32_t)(x >> 63) << 31, frac = (uint32_t)x & 0x7FFFFFu;
        if (pick < 4)
            return t_special_f32_[x % m];
        if (pick == 4)
            return sign | 0x7F800000u | (frac ? frac : 1); /* NaN */
        if (pick == 5)
            return sign | (frac ? frac : 1); /* subnormal */
        return (uint32_t)x;
    }
    if (type == CLSORT_F64) {
        const size_t m = sizeof t_special_f64_ / sizeof *t_special_f64_;
        const uint64_t sign = x & 0x8000000000000000ull, frac = (x >> 1) & 0xFFFFFFFFFFFFFull;
        if (pick < 4)
            return t_special_f64_[x % m];
        if (pick == 4)
            return sign | 0x7FF0000000000000ull | (frac ? frac : 1);
        if (pick == 5)
            return sign | (frac ? frac : 1);
        return x;
    }
    const t_keytype t = t_row(type);
    const uint64_t mask = t.bits == 64 ? ~0ull : ((uint64_t)1 << t.bits) - 1;
    if (t.kind == CLSORT_KIND_FLOAT) {
        /* f16, bf16: the same kinds of keys, made from the row's widths. */
        const uint64_t sign = (x >> 63) << (t.bits - 1), fmask = ((uint64_t)1 << t.mant) - 1;
        const uint64_t exp = (mask >> 1) & ~fmask, frac = x & fmask;
        switch (pick) {
        case 0: return (x & 1) ? sign : sign | exp;                /* +-0, +-inf */
        case 1: return sign | exp | (frac ? frac : 1);             /* NaN */
        case 2: return sign | (frac ? frac : 1);                   /* subnormal */
        case 3: return sign | (exp - ((uint64_t)1 << t.mant)) | fmask; /* max finite */
        case 4: return sign | exp | fmask;                         /* NaN, all payload bits */
        default: return x & mask;
        }
    }
    const size_t m = sizeof t_special_int_ / sizeof *t_special_int_;
    if (pick < 6)
        return t_special_int_[x % m] & mask;
    return x & mask;
}

/** Fills keys[0..n) of `type` with distribution `dist`. */
static T_UNUSED_ void t_fill(clsort_type type, t_dist dist, void *keys, size_t n, t_rng *r)
{
    const uint64_t mask = t_size(type) == 8 ? ~0ull : ((uint64_t)1 << (8 * t_size(type))) - 1;
    uint64_t few[5];
    for (int i = 0; i < 5; ++i)
        few[i] = (i == 4 && type != CLSORT_U32 && type != CLSORT_U64) ? t_special_key_(type, r)
                                                                      : t_rand64(r) & mask;
    const uint64_t equal = (t_rand64(r) & 1) ? t_special_key_(type, r) : t_rand64(r) & mask;
    const unsigned nfew = 2 + (unsigned)t_rand_below(r, 4);
    for (size_t i = 0; i < n; ++i) {
        uint64_t v;
        switch (dist) {
        case T_EQUAL:
            v = equal;
            break;
        case T_FEW:
            v = few[t_rand_below(r, nfew)];
            break;
        case T_SPECIAL:
            v = t_special_key_(type, r);
            break;
        default:
            v = t_rand64(r) & mask;
            break;
        }
        t_set_bits(type, keys, i, v);
    }
    if (dist == T_SORTED || dist == T_REVERSED)
        t_ref_sort(type, keys, n, dist == T_REVERSED);
}

/** A checked malloc for tests: bails out when memory runs out. */
static T_UNUSED_ void *t_xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        t_bail("out of host memory (%zu bytes)", bytes);
    return p;
}

/** Creates the test context on CLSORT_DEVICE (run_tests.sh sets cpu) or the default device; bails
 *  out if there is none, since nothing else can run. */
static T_UNUSED_ clsort_ctx *t_create_ctx(void)
{
    clsort_ctx *ctx = NULL;
    const int rc = clsort_create(&ctx, NULL);
    if (rc != CLSORT_OK || !ctx)
        t_bail("clsort_create failed: %s (%d): %s", clsort_strerror(rc), rc,
               clsort_last_error(ctx));
    clsort_device_info info;
    if (clsort_get_device_info(ctx, &info) == CLSORT_OK)
        t_diag("device: %s (%s, %s), config: %s", info.name ? info.name : "?",
               info.platform ? info.platform : "?", info.type ? info.type : "?",
               info.config_source ? info.config_source : "?");
    return ctx;
}

/** The test level from CLSORT_TEST_LEVEL: 0 quick, 1 default, 2 thorough. */
static T_UNUSED_ int t_level(void)
{
    const char *lv = getenv("CLSORT_TEST_LEVEL");
    return lv && *lv ? atoi(lv) : 1;
}

/** Removes a test's scratch directory and everything under it (rm -rf); a failure is only a
 *  diagnostic. */
static T_UNUSED_ void t_remove_tree(const char *dir)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        t_diag("could not remove %s", dir);
}

/** Resident host memory of this process in bytes (/proc/self/statm), 0 where unknown. */
static T_UNUSED_ size_t t_rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long size = 0, resident = 0;
    if (!f)
        return 0;
    if (fscanf(f, "%lu %lu", &size, &resident) != 2)
        resident = 0;
    fclose(f);
    return resident * (size_t)sysconf(_SC_PAGESIZE);
}

/** The first check of a sort case: the call returned CLSORT_OK and `got` equals the reference
 *  `want` (n keys of `type`). `what` names the case; diagnostics are printed only when `show`.
 *  Returns 1 if both hold. */
static T_UNUSED_ int t_check_sorted(const clsort_ctx *ctx, int rc, const char *what, int show,
                                    clsort_type type, const void *got, const void *want, size_t n)
{
    if (rc != CLSORT_OK) {
        if (show)
            t_diag("%s: returned %s (%d): %s", what, clsort_status_name(rc), rc,
                   clsort_last_error(ctx));
        return 0;
    }
    const size_t at = t_first_diff(type, got, want, n);
    if (at < n) {
        if (show) {
            t_diag("%s: keys differ from the reference at index %zu", what, at);
            t_diag_diff(type, got, want, n, at);
        }
        return 0;
    }
    return 1;
}

/* A device's config file name part (docs/tuning.md): lowercase letters and digits kept, every
 * run of anything else one '-', none at either end. */
static T_UNUSED_ void t_normalise(const char *in, char *out, size_t size)
{
    size_t at = 0;
    int dash = 0;
    for (const unsigned char *s = (const unsigned char *)in; *s && at + 2 < size; ++s) {
        if (*s < 128 && isalnum(*s)) {
            if (dash && at)
                out[at++] = '-';
            dash = 0;
            out[at++] = (char)tolower(*s);
        } else {
            dash = 1;
        }
    }
    out[at] = 0;
}

#endif /* CLSORT_TEST_UTIL_H */
