/* test_oblivious.c - the device networks are data-oblivious (docs/security.md): for bitonic and
 * odd-even merge (and odd-even transposition), the sequence of kernel launches, their global
 * sizes and their arguments is the same for every input of a given n. The library traces each
 * launch under CLSORT_DEBUG=2 ("clsort:   <kernel> items <global> args <a>,<b>  <time> us");
 * this test captures that trace (stderr redirected to a file), drops the times, and compares the
 * sequences across random, sorted, reversed, all-equal and few-distinct inputs, ascending and
 * descending. To show the comparison can fail, the sequences must differ between networks and
 * between sizes. CLSORT_NO_HOST_FALLBACK keeps every sort on the device.
 * The segmented sort (clsort_sort_segments) is checked the same way: for fixed segment lengths
 * (tiny, tile-sized and larger segments) its launches are the same for every input, and they
 * differ when the lengths differ. The top-k (clsort_topk) likewise: for a fixed (rows, n, k) its
 * launches are the same for every input and direction, on the network path (one and several
 * passes) and on the full-sort path, and they differ when k does. */
#include "test_util.h"

#include <unistd.h>

static char trace_path[256];

/* Sorts keys with stderr going to trace_path; returns the launch lines without their times,
 * one per line, malloc'ed (NULL on failure). */
static const uint64_t *seg_off; /* when set, launch_trace sorts these segments of keys */
static size_t seg_n;
static void *seg_vals; /* and, when set, these 4-byte values with them */
static size_t topk_rows, topk_k; /* when topk_k is set, launch_trace runs clsort_topk */

static char *launch_trace(clsort_ctx *ctx, void *keys, size_t n, clsort_type type,
                          clsort_algorithm algo, unsigned flags, int *rc)
{
    fflush(stderr);
    const int saved = dup(2);
    FILE *f = fopen(trace_path, "w+");
    if (saved < 0 || !f)
        t_bail("cannot redirect stderr to %s", trace_path);
    dup2(fileno(f), 2);
    if (topk_k) {
        void *out = t_xmalloc(topk_rows * topk_k * 8);
        uint32_t *idx = t_xmalloc(topk_rows * topk_k * sizeof *idx);
        *rc = clsort_topk(ctx, keys, NULL, 4, n / topk_rows, topk_rows, topk_k, type, flags,
                          out, idx);
        free(out);
        free(idx);
    } else if (seg_off)
        *rc = clsort_sort_segments(ctx, keys, seg_vals, seg_vals ? 4 : 0, seg_off, seg_n, type,
                                   algo, flags | CLSORT_NO_HOST_FALLBACK);
    else
        *rc = clsort_sort(ctx, keys, n, type, algo, flags | CLSORT_NO_HOST_FALLBACK);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(f);
    size_t cap = 4096, len = 0;
    char *out = t_xmalloc(cap), line[512];
    out[0] = 0;
    while (fgets(line, sizeof line, f)) {
        char *items = strstr(line, " items ");
        char *args = items ? strstr(items, " args ") : NULL;
        if (!args)
            continue; /* not a launch line (a build, the summary line) */
        /* Keep "kernel items N args a,b"; the time after it varies. */
        char *end = args + 6;
        while (*end && *end != ' ')
            ++end;
        *end = 0;
        const char *start = line;
        while (*start && *start != ' ')
            ++start; /* skip "clsort:" */
        const size_t add = strlen(start) + 1;
        if (len + add + 1 > cap) {
            cap = 2 * (len + add + 1);
            out = realloc(out, cap);
            if (!out)
                t_bail("out of memory");
        }
        memcpy(out + len, start, add - 1);
        len += add - 1;
        out[len++] = '\n';
        out[len] = 0;
    }
    fclose(f);
    return out;
}

static unsigned count_lines(const char *s)
{
    unsigned n = 0;
    for (; *s; ++s)
        n += *s == '\n';
    return n;
}

int main(void)
{
    t_init("test_oblivious");
    snprintf(trace_path, sizeof trace_path, "%s/clsort-oblivious-%ld.trace",
             getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (long)getpid());
    setenv("CLSORT_DEBUG", "2", 1); /* read at context creation */
    clsort_ctx *ctx = t_create_ctx();
    unsetenv("CLSORT_DEBUG");

    static const size_t sizes[] = {1000, 4097, 20000};
    static const clsort_algorithm nets[] = {CLSORT_BITONIC, CLSORT_ODD_EVEN_MERGE,
                                            CLSORT_ODD_EVEN_TRANSPOSITION};
    static const t_dist dists[] = {T_RANDOM, T_SORTED, T_REVERSED, T_EQUAL, T_FEW, T_SPECIAL};
    /* The narrow types (widened to 32-bit composites on the host) and CLSORT_NAN_LARGEST (its
     * rotation in the kernels' transform; f16 and f32 run with it) at the two smaller sizes. */
    static const clsort_type types[] = {CLSORT_U32, CLSORT_F64, CLSORT_F16, CLSORT_U8,
                                        CLSORT_F32};
    char *first_of[3][3] = {{NULL}};

    for (size_t ti = 0; ti < sizeof types / sizeof *types; ++ti) {
        const clsort_type type = types[ti];
        const unsigned extra =
            type == CLSORT_F16 || type == CLSORT_F32 ? CLSORT_NAN_LARGEST : 0;
        for (size_t ni = 0; ni < sizeof nets / sizeof *nets; ++ni) {
            for (size_t si = 0; si < sizeof sizes / sizeof *sizes; ++si) {
                const size_t n = sizes[si];
                if (ti >= 2 && si == 2)
                    continue;
                /* The transposition network is quadratic: keep it small. */
                if (nets[ni] == CLSORT_ODD_EVEN_TRANSPOSITION && n > 5000)
                    continue;
                void *keys = t_xmalloc(n * t_size(type));
                char *ref = NULL;
                int same = 1, sorted_ok = 1, rc_all = CLSORT_OK;
                const char *differs = "";
                for (size_t di = 0; di < sizeof dists / sizeof *dists; ++di)
                    for (unsigned desc = 0; desc < 2; ++desc) {
                        t_rng r = t_rng_for(n, di, ni, desc);
                        t_fill(type, dists[di], keys, n, &r);
                        int rc;
                        char *tr = launch_trace(ctx, keys, n, type, nets[ni],
                                                (desc ? CLSORT_DESCENDING : 0) | extra, &rc);
                        if (rc != CLSORT_OK)
                            rc_all = rc;
                        for (size_t i = 1; i < n && sorted_ok; ++i) {
                            const uint64_t a = t_class(type, t_get_bits(type, keys, i - 1), extra),
                                           b = t_class(type, t_get_bits(type, keys, i), extra);
                            sorted_ok = desc ? a >= b : a <= b;
                        }
                        if (!ref) {
                            ref = tr;
                        } else {
                            if (strcmp(ref, tr) != 0 && same) {
                                same = 0;
                                differs = t_dist_name(dists[di]);
                            }
                            free(tr);
                        }
                    }
                const unsigned launches = ref ? count_lines(ref) : 0;
                t_ok(rc_all == CLSORT_OK && sorted_ok && launches > 0,
                     "%s%s %s n=%zu: 12 sorts correct, %u launches traced", t_type_name(type),
                     extra ? " NAN_LARGEST" : "", t_algo_name(nets[ni]), n, launches);
                if (!t_ok(same, "... identical launch sequence for random, sorted, reversed, equal, "
                                "few, special inputs, ascending and descending"))
                    t_diag("first difference with the %s input", differs);
                if (ti == 0)
                    first_of[ni][si] = ref;
                else
                    free(ref);
                free(keys);
            }
        }
    }
    /* The traces carry information: they differ between networks and between sizes. */
    t_ok(first_of[0][1] && first_of[1][1] && strcmp(first_of[0][1], first_of[1][1]) != 0,
         "the sequences differ between bitonic and odd-even merge (n = %zu)", sizes[1]);
    t_ok(first_of[0][0] && first_of[0][2] && strcmp(first_of[0][0], first_of[0][2]) != 0,
         "the sequences differ between n = %zu and n = %zu (bitonic)", sizes[0], sizes[2]);
    t_ok(first_of[1][1] && first_of[1][2] && strcmp(first_of[1][1], first_of[1][2]) != 0,
         "the sequences differ between n = %zu and n = %zu (odd-even merge)", sizes[1], sizes[2]);
    if (first_of[1][2])
        t_diag("odd-even merge, n = %zu:\n# %.600s", sizes[2], first_of[1][2]);
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b)
            free(first_of[a][b]);

    /* Segmented: two length patterns over the same total, every explicit network. */
    enum { NSEG = 40 };
    uint64_t offs[2][NSEG + 1];
    for (int p = 0; p < 2; ++p) {
        offs[p][0] = 3; /* a few keys before the first segment stay out */
        for (int i = 0; i < NSEG; ++i) {
            /* The patterns differ in how many segments each pass gets, on GPUs (tiny and
             * packed together) and on CPUs (tiny, group) alike. */
            static const unsigned lens[2][8] = {{0, 1, 2, 5, 17, 32, 100, 700},
                                                {3, 9, 33, 64, 2, 0, 300, 501}};
            const uint64_t len = i == NSEG / 2 ? 5000 : lens[p][i % 8];
            offs[p][i + 1] = offs[p][i] + len;
        }
    }
    char *seg_first[3][2] = {{NULL}};
    for (size_t ni = 0; ni < sizeof nets / sizeof *nets; ++ni)
        for (int p = 0; p < 2; ++p) {
            const clsort_type type = CLSORT_F32;
            seg_off = offs[p];
            seg_n = NSEG;
            const size_t n = offs[p][NSEG] + 3;
            void *keys = t_xmalloc(n * t_size(type));
            char *ref = NULL;
            int same = 1, rc_all = CLSORT_OK;
            const char *differs = "";
            for (size_t di = 0; di < sizeof dists / sizeof *dists; ++di)
                for (unsigned desc = 0; desc < 2; ++desc) {
                    t_rng r = t_rng_for(n, di, ni + 10, desc);
                    t_fill(type, dists[di], keys, n, &r);
                    int rc;
                    char *tr = launch_trace(ctx, keys, n, type, nets[ni],
                                            desc ? CLSORT_DESCENDING : 0, &rc);
                    if (rc != CLSORT_OK)
                        rc_all = rc;
                    if (!ref) {
                        ref = tr;
                    } else {
                        if (strcmp(ref, tr) != 0 && same) {
                            same = 0;
                            differs = t_dist_name(dists[di]);
                        }
                        free(tr);
                    }
                }
            t_ok(rc_all == CLSORT_OK && ref && count_lines(ref) > 0,
                 "segments (pattern %d) %s: 12 sorts, %u launches traced", p,
                 t_algo_name(nets[ni]), ref ? count_lines(ref) : 0);
            if (!t_ok(same, "... identical launch sequence for every input and direction"))
                t_diag("first difference with the %s input", differs);
            seg_first[ni][p] = ref;
            free(keys);
        }
    seg_off = NULL;
    t_ok(seg_first[0][0] && seg_first[0][1] && strcmp(seg_first[0][0], seg_first[0][1]) != 0,
         "segments: the sequences differ between length patterns (bitonic)");
    /* Stable pairs of 32-bit keys in long segments: AUTO may sort them as keys joined with
     * their positions, fetching each value by position afterwards, which is not oblivious
     * (docs/security.md); an explicit network must never. CLSORT_SEG_COMPOSE=auto applies the
     * GPUs' rule on any device. */
    {
        static const uint64_t long_off[5] = {0, 1000, 2000, 3000, 4000};
        const size_t n = 4000;
        uint32_t *k = t_xmalloc(n * 4), *v = t_xmalloc(n * 4);
        setenv("CLSORT_SEG_COMPOSE", "auto", 1);
        seg_off = long_off;
        seg_n = 4;
        seg_vals = v;
        for (int explicit_net = 0; explicit_net < 2; ++explicit_net) {
            t_rng r = t_rng_for(n, 77, explicit_net, 0);
            t_fill(CLSORT_U32, T_FEW, k, n, &r);
            for (size_t i = 0; i < n; ++i)
                v[i] = (uint32_t)i;
            int rc;
            char *tr = launch_trace(ctx, k, n, CLSORT_U32,
                                    explicit_net ? CLSORT_BITONIC : CLSORT_AUTO, CLSORT_STABLE,
                                    &rc);
            const int composed = tr && strstr(tr, "seg_decompose") != NULL;
            t_ok(rc == CLSORT_OK && composed == !explicit_net,
                 "stable pairs in long segments, %s: %s (the values' fetch by position is not "
                 "oblivious)", explicit_net ? "explicit bitonic" : "AUTO",
                 composed ? "composed" : "not composed");
            free(tr);
        }
        seg_off = NULL;
        seg_vals = NULL;
        unsetenv("CLSORT_SEG_COMPOSE");
        free(k);
        free(v);
    }
    if (seg_first[0][0])
        t_diag("segments, bitonic, pattern 0:\n# %.600s", seg_first[0][0]);
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 2; ++b)
            free(seg_first[a][b]);

    /* Top-k: the network in one pass (many short rows) and in several (rows longer than a
     * tile), the full sort of each row (k above the network's reach), and the GPUs' stream pass
     * of long rows in registers (forced here with CLSORT_TOPK_STREAM, in the GPU shape). */
    static const size_t tk_shapes[][3] = {{50, 100, 10}, {2, 20000, 8}, {2, 20000, 64},
                                          {1, 5000, 3000}, {3, 20000, 16}};
    char *tk_first[5] = {NULL};
    for (int si = 0; si < 5; ++si) {
        const clsort_type type = si & 1 ? CLSORT_U64 : CLSORT_F32;
        if (si == 4) {
            setenv("CLSORT_TOPK_STREAM", "64", 1);
            setenv("CLSORT_TOPK_WG", "16", 1);
        }
        topk_rows = tk_shapes[si][0];
        topk_k = tk_shapes[si][2];
        const size_t n = tk_shapes[si][0] * tk_shapes[si][1];
        void *keys = t_xmalloc(n * t_size(type));
        char *ref = NULL;
        int same = 1, rc_all = CLSORT_OK;
        const char *differs = "";
        for (size_t di = 0; di < sizeof dists / sizeof *dists; ++di)
            for (unsigned desc = 0; desc < 2; ++desc) {
                t_rng r = t_rng_for(n, di, si + 20, desc);
                t_fill(type, dists[di], keys, n, &r);
                int rc;
                char *tr = launch_trace(ctx, keys, n, type, CLSORT_BITONIC,
                                        desc ? CLSORT_DESCENDING : 0, &rc);
                if (rc != CLSORT_OK)
                    rc_all = rc;
                if (!ref) {
                    ref = tr;
                } else {
                    if (strcmp(ref, tr) != 0 && same) {
                        same = 0;
                        differs = t_dist_name(dists[di]);
                    }
                    free(tr);
                }
            }
        t_ok(rc_all == CLSORT_OK && ref && count_lines(ref) > 0,
             "topk %s rows=%zu n=%zu k=%zu: 12 selections, %u launches traced",
             t_type_name(type), tk_shapes[si][0], tk_shapes[si][1], tk_shapes[si][2],
             ref ? count_lines(ref) : 0);
        if (!t_ok(same, "... identical launch sequence for every input and direction"))
            t_diag("first difference with the %s input", differs);
        tk_first[si] = ref;
        free(keys);
    }
    unsetenv("CLSORT_TOPK_STREAM");
    unsetenv("CLSORT_TOPK_WG");
    topk_k = 0;
    t_ok(tk_first[4] && strstr(tk_first[4], "topk_stream") != NULL,
         "topk: the forced stream pass is in the launch sequence");
    t_ok(tk_first[1] && tk_first[2] && strcmp(tk_first[1], tk_first[2]) != 0,
         "topk: the sequences differ between k = 8 and k = 64");
    if (tk_first[3])
        t_diag("topk, full sort of each row:\n# %.600s", tk_first[3]);
    for (int i = 0; i < 5; ++i)
        free(tk_first[i]);
    unlink(trace_path);
    clsort_destroy(ctx);
    return t_done();
}
