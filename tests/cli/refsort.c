/* refsort.c - the reference the CLI tests compare clsort against: qsort with the documented order
 * (integers numeric, floats IEEE totalOrder, -r the exact reverse), ties in input order, and a
 * small deterministic data generator. Slow and obvious on purpose.
 *
 *   refsort sort TYPE RECORD OFFSET [r|n|rn]  < in > out   stable sort of the records (r:
 *                              descending; n: --nan-largest, every NaN equal and above +inf,
 *                              -0 equal to +0; TYPE also u8 ... bf16)
 *   refsort keys TYPE RECORD OFFSET        < in > out   only the keys, in record order
 *   refsort canon RECORD                   < in > out   records in byte order (a multiset view)
 *   refsort gen TYPE RECORD OFFSET N SEED [DISTINCT [HOT]]  > out   N records, keys from DISTINCT
 *                              values (0: any), with the floats' special values; HOT percent of
 *                              the records (drawn at random) get the key 12345 instead (integer
 *                              types: a skewed input without numpy, tests/test_multidev.sh)
 *   refsort msort RECORD [u] KEY...     < in > out   stable sort by several keys, KEY being
 *                              OFFSET:TYPE[:r] with TYPE as clsort takes it (u32 ... f64, u8 ...
 *                              bf16, or with "be": big-endian); u: only the first record of
 *                              equal keys
 *   refsort swap TYPE                  < in > out   byte-swaps every key (little <-> big-endian)
 *   refsort bytes N SEED ALPHA         > out   N bytes, each drawn from the first ALPHA values of
 *                              a palette of edge bytes (0x00, 0xff, 0x80, 0x7f, ...; ALPHA 0: any
 *                              byte), so that any record layout gets equal keys, equal records,
 *                              NaNs, infinities and both zeros (tests/cli/fuzz_runs.sh)
 *   refsort exec CMD ARGS...   runs CMD with SIGINT and SIGTERM at their default action (a shell
 *                              starts background jobs with SIGINT ignored; the interrupt tests
 *                              need it delivered)
 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <unistd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* u8 i8: 1 byte; u16 i16 f16 bf16: 2; u32 i32 f32: 4; the rest 8. */
static int type_size(const char *t)
{
    return t[1] == '8' ? 1 : (t[1] == '1' || t[2] == '1') ? 2 : t[1] == '3' ? 4 : 8;
}

/* Significand bits of a float type. */
static int type_mant(const char *t)
{
    return t[0] == 'b' ? 7 : t[1] == '1' ? 10 : t[1] == '3' ? 23 : 52;
}

static const char *g_type;
static size_t g_rec, g_off;
static int g_rev, g_nan_largest;
static unsigned char *g_data;

static uint64_t ordinal(const unsigned char *rec)
{
    const int ksz = type_size(g_type), bits = 8 * ksz;
    const uint64_t mask = bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
    const uint64_t sign = (uint64_t)1 << (bits - 1);
    uint64_t v = 0;
    memcpy(&v, rec + g_off, (size_t)ksz); /* little-endian host */
    if (g_type[0] == 'i') {
        v ^= sign;
    } else if (g_type[0] == 'f' || g_type[0] == 'b') {
        const uint64_t mag = v & (sign - 1), inf = (sign - 1) >> type_mant(g_type)
                                                          << type_mant(g_type);
        if (g_nan_largest && mag > inf)
            v = mask; /* every NaN: one value, above +inf */
        else if (g_nan_largest && mag == 0)
            v = sign; /* both zeros: +0 */
        else
            v = (v & sign) ? ~v & mask : (v | sign);
    }
    return g_rev ? ~v : v;
}

static int cmp_index(const void *a, const void *b)
{
    const size_t i = *(const size_t *)a, j = *(const size_t *)b;
    const uint64_t x = ordinal(g_data + i * g_rec), y = ordinal(g_data + j * g_rec);
    if (x != y)
        return x < y ? -1 : 1;
    return (i > j) - (i < j);
}

static int cmp_bytes(const void *a, const void *b)
{
    return memcmp(a, b, g_rec);
}

static size_t read_all(void)
{
    size_t cap = 1 << 20, len = 0;
    g_data = malloc(cap);
    for (;;) {
        if (len == cap)
            g_data = realloc(g_data, cap *= 2);
        const size_t r = fread(g_data + len, 1, cap - len, stdin);
        if (r == 0)
            break;
        len += r;
    }
    if (len % g_rec) {
        fprintf(stderr, "refsort: ragged input\n");
        exit(1);
    }
    return len / g_rec;
}

/* ---- Several keys, either byte order (msort) ---- */
typedef struct mkey {
    size_t off, size;
    char kind; /* u, i, f */
    int be, rev;
} mkey;
static mkey g_keys[16];
static size_t g_nkeys;

static uint64_t mkey_ordinal(const mkey *k, const unsigned char *rec)
{
    uint64_t v = 0;
    /* Byte by byte, in the key's byte order: no byte-swap trick to get wrong. */
    for (size_t b = 0; b < k->size; ++b) {
        const size_t at = k->be ? b : k->size - 1 - b;
        v = (v << 8) | rec[k->off + at];
    }
    const uint64_t sign = (uint64_t)1 << (k->size * 8 - 1);
    const uint64_t all = k->size == 8 ? ~(uint64_t)0 : ((uint64_t)1 << (k->size * 8)) - 1;
    if (k->kind == 'i')
        v ^= sign;
    else if (k->kind == 'f' || k->kind == 'b')
        v = (v & sign) ? (~v & all) : (v | sign);
    return k->rev ? ~v : v;
}

static int mcmp_records(const unsigned char *a, const unsigned char *b)
{
    for (size_t i = 0; i < g_nkeys; ++i) {
        const uint64_t x = mkey_ordinal(&g_keys[i], a), y = mkey_ordinal(&g_keys[i], b);
        if (x != y)
            return x < y ? -1 : 1;
    }
    return 0;
}

static int mcmp_index(const void *a, const void *b)
{
    const size_t i = *(const size_t *)a, j = *(const size_t *)b;
    const int c = mcmp_records(g_data + i * g_rec, g_data + j * g_rec);
    return c ? c : (i > j) - (i < j);
}

static int parse_mkey(const char *s, mkey *k)
{
    char type[8] = { 0 }, rev[4] = { 0 };
    unsigned long off;
    if (sscanf(s, "%lu:%7[a-z0-9]:%3s", &off, type, rev) < 2 || strlen(type) < 2)
        return -1;
    k->off = off;
    k->kind = type[0];
    k->be = strlen(type) > 3 && !strcmp(type + strlen(type) - 2, "be");
    if (k->be)
        type[strlen(type) - 2] = '\0';
    k->size = (size_t)type_size(type);
    k->rev = rev[0] == 'r';
    return 0;
}

static uint64_t rng_state;
static uint64_t rng(void)
{
    /* splitmix64 */
    uint64_t z = (rng_state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}


int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    const char *cmd = argv[1];
    if (strcmp(cmd, "exec") == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        execvp(argv[2], argv + 2);
        perror(argv[2]);
        return 127;
    }
    if (strcmp(cmd, "canon") == 0) {
        g_rec = strtoul(argv[2], NULL, 10);
        const size_t n = read_all();
        qsort(g_data, n, g_rec, cmp_bytes);
        fwrite(g_data, g_rec, n, stdout);
        return 0;
    }
    if (strcmp(cmd, "msort") == 0) {
        g_rec = strtoul(argv[2], NULL, 10);
        int argi = 3, unique = 0;
        if (argi < argc && strcmp(argv[argi], "u") == 0) {
            unique = 1;
            ++argi;
        }
        for (; argi < argc && g_nkeys < 16; ++argi)
            if (parse_mkey(argv[argi], &g_keys[g_nkeys++]) != 0)
                return 2;
        const size_t n = read_all();
        size_t *idx = malloc((n ? n : 1) * sizeof *idx);
        for (size_t i = 0; i < n; ++i)
            idx[i] = i;
        qsort(idx, n, sizeof *idx, mcmp_index);
        for (size_t i = 0; i < n; ++i) {
            if (unique && i > 0 &&
                mcmp_records(g_data + idx[i - 1] * g_rec, g_data + idx[i] * g_rec) == 0)
                continue;
            fwrite(g_data + idx[i] * g_rec, 1, g_rec, stdout);
        }
        return 0;
    }
    if (strcmp(cmd, "bytes") == 0 && argc >= 5) {
        static const unsigned char palette[] = { 0x00, 0xff, 0x80, 0x7f, 0x01, 0xf0,
                                                 0x3f, 0xc0, 0x7e, 0x81, 0x0f, 0xfe };
        const size_t n = strtoul(argv[2], NULL, 10);
        rng_state = strtoull(argv[3], NULL, 10);
        size_t alpha = strtoul(argv[4], NULL, 10);
        if (alpha > sizeof palette)
            alpha = 0;
        for (size_t i = 0; i < n; ++i) {
            const uint64_t r = rng();
            putchar(alpha ? palette[r % alpha] : (int)(r & 0xff));
        }
        return 0;
    }
    if (strcmp(cmd, "swap") == 0) {
        g_rec = (size_t)type_size(argv[2]);
        const size_t n = read_all();
        for (size_t i = 0; i < n; ++i)
            for (size_t b = 0; b < g_rec / 2; ++b) {
                unsigned char *const r = g_data + i * g_rec;
                const unsigned char t = r[b];
                r[b] = r[g_rec - 1 - b];
                r[g_rec - 1 - b] = t;
            }
        fwrite(g_data, g_rec, n, stdout);
        return 0;
    }
    if (argc < 5)
        return 2;
    g_type = argv[2];
    g_rec = strtoul(argv[3], NULL, 10);
    g_off = strtoul(argv[4], NULL, 10);
    const int ksz = type_size(g_type);
    if (strcmp(cmd, "sort") == 0 || strcmp(cmd, "keys") == 0) {
        g_rev = argc > 5 && strchr(argv[5], 'r') != NULL;
        g_nan_largest = argc > 5 && strchr(argv[5], 'n') != NULL;
        const size_t n = read_all();
        if (strcmp(cmd, "keys") == 0) {
            for (size_t i = 0; i < n; ++i)
                fwrite(g_data + i * g_rec + g_off, 1, (size_t)ksz, stdout);
            return 0;
        }
        size_t *idx = malloc((n ? n : 1) * sizeof *idx);
        for (size_t i = 0; i < n; ++i)
            idx[i] = i;
        qsort(idx, n, sizeof *idx, cmp_index);
        for (size_t i = 0; i < n; ++i)
            fwrite(g_data + idx[i] * g_rec, 1, g_rec, stdout);
        return 0;
    }
    if (strcmp(cmd, "gen") == 0 && argc >= 7) {
        const size_t n = strtoul(argv[5], NULL, 10);
        rng_state = strtoull(argv[6], NULL, 10);
        const uint64_t distinct = argc > 7 ? strtoull(argv[7], NULL, 10) : 0;
        const uint64_t hot = argc > 8 ? strtoull(argv[8], NULL, 10) : 0;
        unsigned char *rec = malloc(g_rec);
        /* Special float values, put in now and then. */
        static const uint32_t f32s[] = { 0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u,
                                         0x7fc00000u, 0xffc00001u, 0x00000001u, 0x80000001u,
                                         0x7f7fffffu, 0xff7fffffu, 0x7fa00000u, 0xffffffffu };
        static const uint64_t f64s[] = {
            0, UINT64_C(0x8000000000000000), UINT64_C(0x7ff0000000000000),
            UINT64_C(0xfff0000000000000), UINT64_C(0x7ff8000000000000),
            UINT64_C(0xfff8000000000001), 1, UINT64_C(0x8000000000000001),
            UINT64_C(0xffffffffffffffff), UINT64_C(0x7ff0000000000001)
        };
        for (size_t i = 0; i < n; ++i) {
            for (size_t b = 0; b < g_rec; ++b)
                rec[b] = (unsigned char)rng();
            uint64_t v = rng();
            if (distinct)
                v = v % distinct;
            if (g_type[0] == 'f' && ksz >= 4 && distinct) {
                /* Small distinct integers as floats, with both zeros. */
                const int64_t s = (int64_t)v - (int64_t)(distinct / 2);
                if (ksz == 4) {
                    float f = (float)s;
                    if (s == 0 && (rng() & 1))
                        f = -0.0f;
                    uint32_t x;
                    memcpy(&x, &f, 4);
                    v = x;
                } else {
                    double f = (double)s;
                    if (s == 0 && (rng() & 1))
                        f = -0.0;
                    memcpy(&v, &f, 8);
                }
            } else if (g_type[0] == 'f' && ksz >= 4 && rng() % 8 == 0) {
                v = ksz == 4 ? f32s[rng() % (sizeof f32s / sizeof f32s[0])]
                             : f64s[rng() % (sizeof f64s / sizeof f64s[0])];
            } else if (g_type[0] == 'i' && distinct) {
                v = (uint64_t)((int64_t)v - (int64_t)(distinct / 2));
            }
            if (hot && rng() % 100 < hot)
                v = 12345;
            if (ksz < 4) {
                memcpy(rec + g_off, &v, (size_t)ksz); /* any bits: NaNs and zeros come often */
            } else if (ksz == 4) {
                const uint32_t x = (uint32_t)v;
                memcpy(rec + g_off, &x, 4);
            } else {
                memcpy(rec + g_off, &v, 8);
            }
            fwrite(rec, 1, g_rec, stdout);
        }
        return 0;
    }
    return 2;
}
