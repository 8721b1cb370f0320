/* test_key_types.c - the key-type table (kernels/key_types.h) against an independent reference,
 * and every consumer of the table against the table: the public names and sizes, the host
 * sort's transform, the tools' ordinals (tools/lib/clsort_keys.h), the benchmarks' references
 * (tools/clsort-bench/bench_ref.h), the tests' own (test_util.h) and the kernels (device sorts
 * and top-k of the boundary values), for every row, both directions, with and without
 * CLSORT_NAN_LARGEST. The boundary values: 0, -0, +-inf, NaNs of both signs and several
 * payloads, the smallest and largest subnormals and normals, +-1, integer min and max and their
 * neighbours.
 *
 * The reference compares keys by their meaning, not by a bit trick: integers as numbers, floats
 * by sign, then exponent and significand (IEEE 754 totalOrder, 5.10), or under NAN_LARGEST with
 * every NaN equal and above everything, and -0 equal to +0. */
#include "test_util.h"

#include "../tools/clsort-bench/bench_ref.h"
#include "../tools/lib/clsort_keys.h"
#include "hostsort.h"

#define MAXV 64

static int cmp_u(uint64_t a, uint64_t b)
{
    return (a > b) - (a < b);
}

/* The reference order of a and b (bits of `type`): <0, 0, >0. */
static int ref_cmp(clsort_type type, uint64_t a, uint64_t b, int nan_largest)
{
    const t_keytype t = t_row(type);
    const uint64_t sign = (uint64_t)1 << (t.bits - 1);
    if (t.kind == CLSORT_KIND_UINT)
        return cmp_u(a, b);
    if (t.kind == CLSORT_KIND_INT) {
        /* Sign-extend to 64 bits. */
        const int64_t x = (int64_t)((a ^ sign) - sign), y = (int64_t)((b ^ sign) - sign);
        return (x > y) - (x < y);
    }
    const uint64_t mag_mask = sign - 1, exp_all = mag_mask >> t.mant << t.mant;
    const uint64_t ma = a & mag_mask, mb = b & mag_mask;
    const int na = (a & sign) != 0, nb = (b & sign) != 0;
    if (nan_largest) {
        const int an = ma > exp_all, bn = mb > exp_all;
        if (an || bn)
            return an - bn;
        if (ma == 0 && mb == 0)
            return 0;
    }
    /* totalOrder: negatives below positives; among negatives the larger magnitude is smaller. */
    if (na != nb)
        return na ? -1 : 1;
    return na ? cmp_u(mb, ma) : cmp_u(ma, mb);
}

/* The boundary values of a row. */
static size_t boundary(clsort_type type, uint64_t *v)
{
    const t_keytype t = t_row(type);
    const uint64_t ones = t.bits == 64 ? ~0ull : ((uint64_t)1 << t.bits) - 1;
    const uint64_t sign = (uint64_t)1 << (t.bits - 1);
    size_t n = 0;
    if (t.kind != CLSORT_KIND_FLOAT) {
        const uint64_t ints[] = {0, 1, 2, ones, ones - 1, sign, sign + 1, sign - 1, sign - 2,
                                 ones >> 2, 0x5A & ones};
        for (size_t i = 0; i < sizeof ints / sizeof *ints; ++i)
            v[n++] = ints[i] & ones;
        return n;
    }
    const uint64_t fmask = ((uint64_t)1 << t.mant) - 1, exp_all = (sign - 1) & ~fmask;
    const uint64_t one = (exp_all >> 1) & ~fmask; /* biased exponent of 1.0 */
    const uint64_t mags[] = {0,
                             exp_all,                          /* inf */
                             exp_all | ((uint64_t)1 << (t.mant - 1)), /* quiet NaN */
                             exp_all | 1,                      /* signalling NaN */
                             exp_all | fmask,                  /* NaN, every payload bit */
                             exp_all | (0x5A5A5A5A5A5A5ull & fmask) | 1,
                             1,                                /* smallest subnormal */
                             fmask,                            /* largest subnormal */
                             fmask + 1,                        /* smallest normal */
                             exp_all - 1,                      /* largest finite */
                             one,
                             one + 1};
    for (size_t i = 0; i < sizeof mags / sizeof *mags; ++i) {
        v[n++] = mags[i];
        v[n++] = mags[i] | sign;
    }
    return n;
}

/* Every pair of boundary values: the table's transform against the reference. */
static void check_table(clsort_type type, const uint64_t *v, size_t nv)
{
    const t_keytype t = t_row(type);
    unsigned bad_ord = 0, bad_inv = 0, bad_nl = 0, bad_same = 0, bad_desc = 0;
    for (unsigned fl = 0; fl < 2; ++fl) {
        const unsigned xf = t_xf(type, fl ? CLSORT_NAN_LARGEST : 0),
                       xd = t_xf(type, (fl ? CLSORT_NAN_LARGEST : 0) | CLSORT_DESCENDING);
        for (size_t i = 0; i < nv; ++i) {
            const uint64_t oa = CLSORT_KT_TO_ORDER(uint64_t, uint64_t, t.bits, v[i], xf);
            bad_inv += CLSORT_KT_FROM_ORDER(uint64_t, uint64_t, t.bits, oa, xf) != v[i];
            const uint64_t da = CLSORT_KT_TO_ORDER(uint64_t, uint64_t, t.bits, v[i], xd);
            bad_inv += CLSORT_KT_FROM_ORDER(uint64_t, uint64_t, t.bits, da, xd) != v[i];
            for (size_t j = 0; j < nv; ++j) {
                const uint64_t ob = CLSORT_KT_TO_ORDER(uint64_t, uint64_t, t.bits, v[j], xf);
                const uint64_t db = CLSORT_KT_TO_ORDER(uint64_t, uint64_t, t.bits, v[j], xd);
                const int r = ref_cmp(type, v[i], v[j], (int)fl);
                const int c = cmp_u(CLSORT_KT_CLASS(uint64_t, t.bits, v[i], xf),
                                    CLSORT_KT_CLASS(uint64_t, t.bits, v[j], xf));
                if (!fl)
                    bad_ord += cmp_u(oa, ob) != r; /* totalOrder: exact */
                else
                    bad_nl += (r != 0 && cmp_u(oa, ob) != r) || c != r; /* a refinement */
                bad_same += !CLSORT_KT_SAME(uint64_t, t.bits, v[i], v[j], xf) != (r != 0);
                bad_desc += cmp_u(da, db) != -cmp_u(oa, ob);
            }
        }
    }
    t_ok(!bad_ord && !bad_inv && !bad_nl && !bad_same && !bad_desc,
         "%s: the table's transform, its inverse, NAN_LARGEST's order and classes and the "
         "descending order agree with the reference at %zu boundary values", t.name, nv);
    if (bad_ord || bad_inv || bad_nl || bad_same || bad_desc)
        t_diag("order %u inverse %u nan-largest %u same %u descending %u", bad_ord, bad_inv,
               bad_nl, bad_same, bad_desc);
}

/* The host-side consumers: names, sizes, the host sort's transform, the tools', the
 * benchmarks', the tests'. */
static void check_host_consumers(clsort_type type, const uint64_t *v, size_t nv)
{
    const t_keytype t = t_row(type);
    clsort_type parsed = (clsort_type)-1;
    t_ok(clsort_type_parse(t.name, &parsed) == 0 && parsed == type &&
             !strcmp(clsort_type_name(type), t.name) && clsort_type_size(type) == t.bits / 8,
         "%s: clsort_type_name, clsort_type_parse and clsort_type_size agree with the row", t.name);
    unsigned bad = 0;
    for (unsigned fl = 0; fl < 4; ++fl) {
        const unsigned flags = (fl & 1 ? CLSORT_DESCENDING : 0) | (fl & 2 ? CLSORT_NAN_LARGEST : 0);
        const unsigned xf = t_xf(type, flags);
        for (size_t i = 0; i < nv; ++i) {
            const uint64_t want = CLSORT_KT_TO_ORDER(uint64_t, uint64_t, t.bits, v[i], xf);
            if (t.bits == 32)
                bad += clsort__order32((uint32_t)v[i], type, flags) != want;
            if (t.bits == 64)
                bad += clsort__order64(v[i], type, flags) != want;
            /* The tools order by classes: equal keys give equal ordinals. */
            unsigned char buf[8];
            memcpy(buf, &v[i], 8); /* little-endian hosts: the low bytes are the key */
            const uint64_t cls = CLSORT_KT_CLASS(uint64_t, t.bits, v[i], xf);
            bad += cli_load_ordinal(type, t.bits / 8, 0, (fl & 1) != 0, (fl & 2) != 0, buf) != cls;
            if (!fl) {
                bad += t_ord(type, v[i]) != want || t_unord(type, want) != v[i];
                if (t.bits == 32)
                    bad += bench_order32((uint32_t)v[i], type) != want;
                if (t.bits == 64)
                    bad += bench_order64(v[i], type) != want;
            }
        }
    }
    t_is_int(bad, 0, "%s: the host sort's, the tools', the benchmarks' and the tests' transforms "
                     "agree with the table", t.name);
}

/* The kernels and the library's paths: the boundary values twice over (so that equal keys
 * meet), sorted on the device, against the reference; stable under NAN_LARGEST exactly. */
static void check_device(clsort_ctx *ctx, clsort_type type, const uint64_t *v, size_t nv)
{
    const t_keytype t = t_row(type);
    const size_t n = 2 * nv, ks = t.bits / 8;
    unsigned char in[2 * MAXV * 8], got[2 * MAXV * 8], want[2 * MAXV * 8];
    uint64_t perm[2 * MAXV], vals[2 * MAXV];
    for (size_t i = 0; i < n; ++i)
        t_set_bits(type, in, i, v[(i * 7) % nv] ^ 0); /* a shuffled order, each value twice */
    unsigned bad = 0, cases = 0;
    const unsigned nf = CLSORT_NO_HOST_FALLBACK;
    for (unsigned fl = 0; fl < 8; ++fl) {
        const unsigned flags = (fl & 1 ? CLSORT_DESCENDING : 0) |
                               (fl & 2 ? CLSORT_NAN_LARGEST : 0) | (fl & 4 ? CLSORT_STABLE : 0);
        memcpy(want, in, n * ks);
        t_ref_stable(type, want, n, flags, perm);
        /* Keys alone: the classes must match the reference; stable (or NaN-free) exactly. */
        memcpy(got, in, n * ks);
        int rc = clsort_sort(ctx, got, n, type, CLSORT_BITONIC, flags | nf);
        for (size_t i = 0; i < n && rc == CLSORT_OK; ++i) {
            const uint64_t g = t_get_bits(type, got, i), w = t_get_bits(type, want, i);
            bad += t_class(type, g, flags) != t_class(type, w, flags) ||
                   ((flags & CLSORT_STABLE) && g != w);
        }
        bad += rc != CLSORT_OK;
        /* Stable pairs: numpy.argsort(kind="stable") under NAN_LARGEST, keys bit for bit. */
        memcpy(got, in, n * ks);
        for (size_t i = 0; i < n; ++i)
            vals[i] = i;
        rc = clsort_sort_pairs(ctx, got, vals, 8, n, type, CLSORT_ODD_EVEN_MERGE,
                               flags | CLSORT_STABLE | nf);
        bad += rc != CLSORT_OK || memcmp(got, want, n * ks) != 0 ||
               memcmp(vals, perm, n * 8) != 0;
        /* Top-k of the whole row: a stable sort cut after k. */
        const size_t k = n / 3;
        uint64_t idx[2 * MAXV];
        rc = clsort_topk(ctx, in, NULL, 8, n, 1, k, type, flags & ~CLSORT_STABLE, got, idx);
        bad += rc != CLSORT_OK || memcmp(got, want, k * ks) != 0 || memcmp(idx, perm, k * 8);
        cases += 3;
        if (rc != CLSORT_OK)
            t_diag("%s flags %u: %s", t.name, flags, clsort_last_error(ctx));
    }
    t_is_int(bad, 0, "%s: the device's sorts, stable pairs and top-k of the boundary values "
                     "agree with the reference (%u cases)", t.name, cases);
}

int main(void)
{
    t_init("test_key_types");
    clsort_ctx *ctx = t_create_ctx();
    clsort_device_info info;
    const int fp64 = clsort_get_device_info(ctx, &info) == CLSORT_OK && info.has_fp64;
    clsort_type bad_parse;
    t_ok(clsort_type_parse("f8", &bad_parse) == -1 && !strcmp(clsort_type_name(T_NALLTYPES),
                                                               "unknown") &&
             clsort_type_size(T_NALLTYPES) == 0,
         "a value past the table is no type");
    for (unsigned ti = 0; ti < T_NALLTYPES; ++ti) {
        const clsort_type type = t_all_types[ti];
        uint64_t v[MAXV];
        const size_t nv = boundary(type, v);
        check_table(type, v, nv);
        check_host_consumers(type, v, nv);
        if (type == CLSORT_F64 && !fp64)
            t_skip("f64: the device has no fp64");
        else
            check_device(ctx, type, v, nv);
    }
    clsort_destroy(ctx);
    return t_done();
}
