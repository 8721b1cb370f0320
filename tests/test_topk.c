/* test_topk.c - clsort_topk and clsort_topk_buffer against the reference: a stable sort of each
 * row (qsort by the documented order, then by index) cut after k. Every key type, both
 * directions, k = 1, k = n, k not a power of two, n not a power of two, ties everywhere (equal and
 * few-distinct keys), NaNs and -0.0 (the special keys), one row and many, rows longer than a tile
 * (several passes), k past the network's reach (the full sort), no values, values of 4 and 8
 * bytes, indices as uint32 and uint64; both shapes of the tile pass (one work-item a tile, and
 * work-groups of 16 with barriers: CLSORT_TOPK_WG); the stream pass of long rows at forced sizes
 * (CLSORT_TOPK_STREAM); tiny tiles (CLSORT_TOPK_TILE: many passes,
 * many global levels); the _buffer form behind a wait list; every error case, with the outputs
 * untouched. */
#include "test_topk_ref.h"
#include "test_util.h"


static clsort_ctx *ctx;

/* Runs one case through clsort_topk (or clsort_topk_buffer) and checks it; one test point. */
static void run_case(clsort_type type, t_dist dist, int desc, size_t n, size_t rows, size_t k,
                     int out_kind, size_t vs, int buffer)
{
    t_rng rng = t_rng_for(((uint64_t)n << 20) ^ rows, k, (uint64_t)type * 16 + dist,
                          (uint64_t)desc * 64 + (uint64_t)out_kind * 16 + vs + 128u * buffer);
    const size_t ks = t_size(type), total = n * rows;
    void *keys = t_xmalloc(total * ks), *copy = t_xmalloc(total * ks);
    /* Many rows with a distribution per row would repeat one shape: fill the whole block. */
    t_fill(type, dist, keys, total, &rng);
    memcpy(copy, keys, total * ks);
    void *vals = NULL, *vcopy = NULL;
    if (out_kind == OUT_VALUES) {
        vals = t_xmalloc(total * vs);
        for (size_t i = 0; i < total; ++i)
            set_val(vals, vs, i, t_rand64(&rng));
        vcopy = t_xmalloc(total * vs);
        memcpy(vcopy, vals, total * vs);
    }
    void *got_k = t_xmalloc(rows * k * ks), *want_k = t_xmalloc(rows * k * ks);
    void *got_v = out_kind ? t_xmalloc(rows * k * vs) : NULL;
    void *want_v = out_kind ? t_xmalloc(rows * k * vs) : NULL;
    memset(got_k, 0xA5, rows * k * ks);
    if (got_v)
        memset(got_v, 0xA5, rows * k * vs);
    reference(type, desc, keys, vals, vs, out_kind, n, rows, k, want_k, want_v);
    const unsigned flags = desc ? CLSORT_DESCENDING : 0;
    int rc;
    if (!buffer) {
        rc = clsort_topk(ctx, keys, vals, out_kind ? vs : 0, n, rows, k, type, flags, got_k,
                         got_v);
    } else {
        cl_command_queue q = clsort_get_queue(ctx);
        cl_context cl;
        clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof cl, &cl, NULL);
        cl_int err;
        cl_mem bk = clCreateBuffer(cl, CL_MEM_READ_WRITE, total * ks, NULL, &err);
        cl_mem bv = vals ? clCreateBuffer(cl, CL_MEM_READ_WRITE, total * vs, NULL, &err) : NULL;
        cl_mem ok = clCreateBuffer(cl, CL_MEM_READ_WRITE, rows * k * ks, NULL, &err);
        cl_mem ov = got_v ? clCreateBuffer(cl, CL_MEM_READ_WRITE, rows * k * vs, NULL, &err)
                          : NULL;
        cl_event up = NULL, done = NULL;
        if (bv)
            clEnqueueWriteBuffer(q, bv, CL_FALSE, 0, total * vs, vals, 0, NULL, NULL);
        clEnqueueWriteBuffer(q, bk, CL_FALSE, 0, total * ks, keys, 0, NULL, &up);
        rc = clsort_topk_buffer(ctx, bk, bv, out_kind ? vs : 0, n, rows, k, type, flags, ok, ov,
                                1, &up, &done);
        if (rc == CLSORT_OK && !done)
            rc = -100;
        if (done) {
            clWaitForEvents(1, &done);
            clReleaseEvent(done);
        }
        clEnqueueReadBuffer(q, ok, CL_TRUE, 0, rows * k * ks, got_k, 0, NULL, NULL);
        if (ov)
            clEnqueueReadBuffer(q, ov, CL_TRUE, 0, rows * k * vs, got_v, 0, NULL, NULL);
        /* The input buffer is not modified either. */
        clEnqueueReadBuffer(q, bk, CL_TRUE, 0, total * ks, keys, 0, NULL, NULL);
        clReleaseEvent(up);
        clReleaseMemObject(bk);
        clReleaseMemObject(ok);
        if (bv)
            clReleaseMemObject(bv);
        if (ov)
            clReleaseMemObject(ov);
    }
    char what[256];
    snprintf(what, sizeof what, "%s%s %s %s rows=%zu n=%zu k=%zu out=%s%zu",
             buffer ? "buffer " : "", t_type_name(type), t_dist_name(dist), desc ? "desc" : "asc",
             rows, n, k, out_kind == OUT_NONE ? "keys" : out_kind == OUT_VALUES ? "values" : "idx",
             out_kind ? vs * 8 : 0);
    int pass = t_check_sorted(ctx, rc, what, 1, type, got_k, want_k, rows * k);
    if (pass && got_v && memcmp(got_v, want_v, rows * k * vs) != 0) {
        size_t at = 0;
        while (get_val(got_v, vs, at) == get_val(want_v, vs, at))
            ++at;
        t_diag("%s: values differ at %zu: got %llu want %llu", what, at,
               (unsigned long long)get_val(got_v, vs, at),
               (unsigned long long)get_val(want_v, vs, at));
        pass = 0;
    }
    if (pass && (memcmp(keys, copy, total * ks) != 0 ||
                 (vals && memcmp(vals, vcopy, total * vs) != 0))) {
        t_diag("%s: the input was modified", what);
        pass = 0;
    }
    t_ok(pass, "%s", what);
    free(keys);
    free(copy);
    free(vals);
    free(vcopy);
    free(got_k);
    free(want_k);
    free(got_v);
    free(want_v);
}

/* The error cases: each refused with CLSORT_ERR_INVALID_ARG and the outputs untouched. */
static void errors(void)
{
    uint32_t keys[64], out[64], outv[64];
    for (int i = 0; i < 64; ++i)
        keys[i] = (uint32_t)(64 - i);
    memset(out, 0x5A, sizeof out);
    memset(outv, 0x5A, sizeof outv);
    uint32_t sentinel[64];
    memset(sentinel, 0x5A, sizeof sentinel);
    struct {
        const char *what;
        int rc;
    } c[16];
    int nc = 0;
#define CASE(w, call) c[nc].what = (w), c[nc].rc = (call), ++nc
    CASE("NULL ctx", clsort_topk(NULL, keys, NULL, 0, 64, 1, 4, CLSORT_U32, 0, out, NULL));
    CASE("k == 0", clsort_topk(ctx, keys, NULL, 0, 64, 1, 0, CLSORT_U32, 0, out, NULL));
    CASE("k > n", clsort_topk(ctx, keys, NULL, 0, 8, 1, 9, CLSORT_U32, 0, out, NULL));
    CASE("bad type", clsort_topk(ctx, keys, NULL, 0, 64, 1, 4, (clsort_type)99, 0, out, NULL));
    CASE("bad flags", clsort_topk(ctx, keys, NULL, 0, 64, 1, 4, CLSORT_U32, 0x100u, out, NULL));
    CASE("value_size 3", clsort_topk(ctx, keys, NULL, 3, 64, 1, 4, CLSORT_U32, 0, out, outv));
    CASE("value_size 0 with values",
         clsort_topk(ctx, keys, keys, 0, 64, 1, 4, CLSORT_U32, 0, out, outv));
    CASE("NULL keys", clsort_topk(ctx, NULL, NULL, 0, 64, 1, 4, CLSORT_U32, 0, out, NULL));
    CASE("NULL out_keys", clsort_topk(ctx, keys, NULL, 0, 64, 1, 4, CLSORT_U32, 0, NULL, NULL));
    CASE("rows * n overflows",
         clsort_topk(ctx, keys, NULL, 0, SIZE_MAX / 2, 4, 4, CLSORT_U32, 0, out, NULL));
    CASE("n * value bytes overflow",
         clsort_topk(ctx, keys, keys, 8, SIZE_MAX / 8, 2, 1, CLSORT_U32, 0, out, outv));
#undef CASE
    for (int i = 0; i < nc; ++i)
        t_is_status(c[i].rc, CLSORT_ERR_INVALID_ARG, "clsort_topk: %s is refused", c[i].what);
    t_ok(!memcmp(out, sentinel, sizeof out) && !memcmp(outv, sentinel, sizeof outv),
         "clsort_topk: the outputs are untouched by every refused call");
    t_ok(clsort_last_error(ctx)[0] != 0, "clsort_last_error says why: %s",
         clsort_last_error(ctx));
    t_is_status(clsort_topk(ctx, NULL, NULL, 0, 64, 0, 4, CLSORT_U32, 0, NULL, NULL), CLSORT_OK,
                "clsort_topk: rows == 0 succeeds with NULL pointers");

    cl_command_queue q = clsort_get_queue(ctx);
    cl_context cl;
    clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof cl, &cl, NULL);
    cl_int err;
    cl_mem bk = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof keys, keys,
                               &err);
    cl_mem bo = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof out, out,
                               &err);
    cl_mem small = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 16, out, &err);
    cl_event ev = (cl_event)1;
    int rc = clsort_topk_buffer(ctx, bk, NULL, 0, 64, 1, 0, CLSORT_U32, 0, bo, NULL, 0, NULL, &ev);
    t_ok(rc == CLSORT_ERR_INVALID_ARG && ev == NULL,
         "clsort_topk_buffer: k == 0 is refused and *done set to NULL");
    t_is_status(clsort_topk_buffer(ctx, bk, NULL, 0, 64, 1, 65, CLSORT_U32, 0, bo, NULL, 0, NULL,
                                   NULL),
                CLSORT_ERR_INVALID_ARG, "clsort_topk_buffer: k > n is refused");
    t_is_status(clsort_topk_buffer(ctx, bk, NULL, 0, 64, 1, 8, CLSORT_U32, 0, small, NULL, 0,
                                   NULL, NULL),
                CLSORT_ERR_INVALID_ARG, "clsort_topk_buffer: an out_keys buffer too small");
    t_is_status(clsort_topk_buffer(ctx, bk, NULL, 0, 64, 2, 8, CLSORT_U32, 0, bo, NULL, 0, NULL,
                                   NULL),
                CLSORT_ERR_INVALID_ARG, "clsort_topk_buffer: a keys buffer too small (2 rows)");
    t_is_status(clsort_topk_buffer(ctx, bk, NULL, 4, 64, 1, 8, CLSORT_U32, 0, bo, small, 0, NULL,
                                   NULL),
                CLSORT_ERR_INVALID_ARG, "clsort_topk_buffer: an out_values buffer too small");
    t_is_status(clsort_topk_buffer(ctx, bk, NULL, 0, 64, 1, 8, CLSORT_U32, 0, bo, NULL, 1, NULL,
                                   NULL),
                CLSORT_ERR_INVALID_ARG, "clsort_topk_buffer: a bad wait list");
    t_is_status(clsort_topk_buffer(ctx, NULL, NULL, 0, 64, 1, 8, CLSORT_U32, 0, bo, NULL, 0, NULL,
                                   NULL),
                CLSORT_ERR_INVALID_ARG, "clsort_topk_buffer: NULL keys");
    uint32_t back[64];
    clEnqueueReadBuffer(q, bo, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL);
    t_ok(!memcmp(back, sentinel, sizeof back),
         "clsort_topk_buffer: the output buffer is untouched by every refused call");
    ev = NULL;
    rc = clsort_topk_buffer(ctx, NULL, NULL, 0, 64, 0, 8, CLSORT_U32, 0, NULL, NULL, 0, NULL, &ev);
    t_ok(rc == CLSORT_OK && ev != NULL && clWaitForEvents(1, &ev) == CL_SUCCESS,
         "clsort_topk_buffer: rows == 0 succeeds and hands back an event");
    if (ev)
        clReleaseEvent(ev);
    clReleaseMemObject(bk);
    clReleaseMemObject(bo);
    clReleaseMemObject(small);
}

/* The narrow key types and CLSORT_NAN_LARGEST (NaNs the largest keys, as torch.topk): each row's
 * result is its stable sort cut after k (t_ref_stable), indices included, in both directions, on
 * host arrays and through clsort_topk_buffer. */
static void new_types(void)
{
    static const clsort_type types[] = {CLSORT_U8,   CLSORT_I8,  CLSORT_U16, CLSORT_I16,
                                        CLSORT_F16,  CLSORT_BF16, CLSORT_F32, CLSORT_F64};
    static const size_t shapes[][3] = {{3, 1000, 37}, {2, 5000, 8}, {1, 50, 50}};
    clsort_device_info info;
    const int fp64 = clsort_get_device_info(ctx, &info) == CLSORT_OK && info.has_fp64;
    cl_command_queue q = clsort_get_queue(ctx);
    cl_context cc;
    clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof cc, &cc, NULL);
    for (size_t ti = 0; ti < sizeof types / sizeof *types; ++ti) {
        const clsort_type type = types[ti];
        if (type == CLSORT_F64 && !fp64)
            continue;
        const size_t ks = t_size(type);
        unsigned cases = 0, failed = 0;
        for (size_t si = 0; si < sizeof shapes / sizeof *shapes; ++si)
            for (unsigned v = 0; v < 8; ++v) {
                const size_t rows = shapes[si][0], n = shapes[si][1], k = shapes[si][2];
                const unsigned flags = (v & 1 ? CLSORT_DESCENDING : 0) |
                                       (v & 2 ? CLSORT_NAN_LARGEST : 0);
                const int buffer = (v & 4) != 0;
                unsigned char *in = t_xmalloc(rows * n * ks), *want = t_xmalloc(rows * n * ks);
                unsigned char *out = t_xmalloc(rows * k * ks);
                uint64_t *perm = t_xmalloc(rows * n * 8), *idx = t_xmalloc(rows * k * 8);
                t_rng r = t_rng_for(ti, si, v, 53);
                t_fill(type, v & 2 ? T_SPECIAL : T_FEW, in, rows * n, &r);
                memcpy(want, in, rows * n * ks);
                for (size_t row = 0; row < rows; ++row)
                    t_ref_stable(type, want + row * n * ks, n, flags, perm + row * n);
                int rc;
                if (!buffer) {
                    rc = clsort_topk(ctx, in, NULL, 8, n, rows, k, type, flags, out, idx);
                } else {
                    cl_int err;
                    cl_mem kb = clCreateBuffer(cc, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                               rows * n * ks, in, &err);
                    cl_mem ob = clCreateBuffer(cc, CL_MEM_READ_WRITE, rows * k * ks, NULL, &err);
                    cl_mem ib = clCreateBuffer(cc, CL_MEM_READ_WRITE, rows * k * 8, NULL, &err);
                    cl_event done = NULL;
                    rc = clsort_topk_buffer(ctx, kb, NULL, 8, n, rows, k, type, flags, ob, ib, 0,
                                            NULL, &done);
                    if (done) {
                        clWaitForEvents(1, &done);
                        clReleaseEvent(done);
                    }
                    clEnqueueReadBuffer(q, ob, CL_TRUE, 0, rows * k * ks, out, 0, NULL, NULL);
                    clEnqueueReadBuffer(q, ib, CL_TRUE, 0, rows * k * 8, idx, 0, NULL, NULL);
                    clReleaseMemObject(kb);
                    clReleaseMemObject(ob);
                    clReleaseMemObject(ib);
                }
                int ok = rc == CLSORT_OK;
                for (size_t row = 0; ok && row < rows; ++row)
                    ok = !memcmp(out + row * k * ks, want + row * n * ks, k * ks) &&
                         !memcmp(idx + row * k, perm + row * n, k * 8);
                ++cases;
                if (!ok && failed++ < 4)
                    t_diag("%s rows %zu n %zu k %zu flags %u %s: rc %d %s", t_type_name(type),
                           rows, n, k, flags, buffer ? "buffer" : "host", rc,
                           rc ? clsort_last_error(ctx) : "wrong result");
                free(in);
                free(want);
                free(out);
                free(perm);
                free(idx);
            }
        t_ok(!failed, "%s top-k: both directions, with and without CLSORT_NAN_LARGEST, host "
                      "arrays and buffers, a stable sort cut after k (%u cases)",
             t_type_name(type), cases);
    }
}

int main(void)
{
    t_init("test_topk");
    ctx = t_create_ctx();
    errors();
    new_types();

    /* Shapes: rows, n, k. The tile is at most 4096 items, so n above it takes several passes
     * and k above 2048 (or half a smaller tile) the full sort; rows x n stays small for PoCL. */
    static const size_t shapes[][3] = {
        {1, 1, 1},       {1, 2, 2},        {1, 1000, 1},     {1, 1000, 1000}, {3, 1000, 37},
        {500, 100, 10},  {1000, 7, 3},     {64, 300, 300},   {5, 333, 64},    {2, 20000, 8},
        {1, 100000, 33}, {3, 9000, 1000},  {2, 3000, 2049},  {2, 5000, 2100}, {1, 17000, 17000},
        {7, 4097, 129},
    };
    const size_t nshapes = sizeof shapes / sizeof *shapes;
    static const t_dist dists[] = {T_RANDOM, T_FEW, T_SPECIAL, T_EQUAL, T_SORTED, T_REVERSED};
    static const int outs[][2] = {{OUT_NONE, 0},   {OUT_INDEX, 4},  {OUT_VALUES, 4},
                                  {OUT_INDEX, 8},  {OUT_VALUES, 8}};
    unsigned turn = 0;
    for (int ti = 0; ti < T_NTYPES; ++ti)
        for (size_t si = 0; si < nshapes; ++si)
            for (int desc = 0; desc < 2; ++desc) {
                /* Every shape in both directions for every type; distributions and outputs
                 * rotate, so that each meets every type and shape across the run. */
                const t_dist d = dists[(turn + si) % (sizeof dists / sizeof *dists)];
                const int *o = outs[(turn / 2 + ti) % (sizeof outs / sizeof *outs)];
                ++turn;
                run_case(t_types[ti], d, desc, shapes[si][1], shapes[si][0], shapes[si][2], o[0],
                         (size_t)o[1], 0);
            }
    /* Ties everywhere and the special floats with indices, one row and many. */
    for (int ti = 0; ti < T_NTYPES; ++ti) {
        run_case(t_types[ti], T_EQUAL, ti & 1, 5000, 3, 100, OUT_INDEX, 8, 0);
        run_case(t_types[ti], T_SPECIAL, 1, 777, 40, 50, OUT_INDEX, 4, 0);
        run_case(t_types[ti], T_FEW, 0, 4096, 4, 4096, OUT_VALUES, 8, 0);
    }
    /* The other shape of the tile pass: work-groups of many work-items dealing out each level
     * round-robin with barriers (GPUs), here on whatever device runs the tests. */
    setenv("CLSORT_TOPK_WG", "16", 1);
    for (size_t si = 0; si < nshapes; ++si) {
        const clsort_type type = t_types[si % T_NTYPES];
        const int *o = outs[si % (sizeof outs / sizeof *outs)];
        run_case(type, dists[si % (sizeof dists / sizeof *dists)], (int)(si & 1), shapes[si][1],
                 shapes[si][0], shapes[si][2], o[0], (size_t)o[1], 0);
    }
    /* topk_stream, the GPUs' first pass over long rows (each work-item's K smallest in
     * registers), forced with CLSORT_TOPK_STREAM = P keys a work-item: P == K (one chunk), a
     * row shorter than one span, spans that end inside a row, K at the limits (32 for u32 and
     * f32 with 32-bit indices or none, 16 with values or 64-bit keys), every output kind. */
    static const struct {
        const char *p;
        clsort_type type;
        t_dist dist;
        size_t n, rows, k;
        int out;
        size_t vs;
    } streams[] = {
        {"1", CLSORT_U32, T_RANDOM, 5000, 3, 1, OUT_INDEX, 4},
        {"8", CLSORT_F32, T_SPECIAL, 20000, 2, 8, OUT_INDEX, 4},
        {"32", CLSORT_U32, T_FEW, 40000, 1, 32, OUT_NONE, 0},
        {"32", CLSORT_I32, T_EQUAL, 3001, 4, 17, OUT_INDEX, 8},
        {"64", CLSORT_F32, T_RANDOM, 100000, 1, 25, OUT_INDEX, 4},
        {"256", CLSORT_U32, T_REVERSED, 70000, 2, 32, OUT_INDEX, 4},
        {"1024", CLSORT_I32, T_SORTED, 9000, 3, 5, OUT_NONE, 0},
        {"16", CLSORT_F32, T_FEW, 30000, 2, 16, OUT_VALUES, 4},
        {"64", CLSORT_U64, T_RANDOM, 20000, 2, 16, OUT_INDEX, 4},
        {"32", CLSORT_F64, T_SPECIAL, 12345, 3, 9, OUT_VALUES, 8},
        {"16", CLSORT_I64, T_EQUAL, 5000, 5, 3, OUT_INDEX, 8},
    };
    for (int wi = 0; wi < 2; ++wi) {
        setenv("CLSORT_TOPK_WG", wi ? "16" : "1", 1);
        for (size_t i = 0; i < sizeof streams / sizeof *streams; ++i) {
            setenv("CLSORT_TOPK_STREAM", streams[i].p, 1);
            run_case(streams[i].type, streams[i].dist, (int)((i + wi) & 1), streams[i].n,
                     streams[i].rows, streams[i].k, streams[i].out, streams[i].vs, (int)(i == 2));
        }
    }
    unsetenv("CLSORT_TOPK_STREAM");
    setenv("CLSORT_TOPK_WG", "1", 1);
    run_case(CLSORT_F32, T_SPECIAL, 1, 3000, 5, 40, OUT_VALUES, 8, 0);
    run_case(CLSORT_U64, T_FEW, 0, 20000, 2, 300, OUT_INDEX, 4, 0);
    unsetenv("CLSORT_TOPK_WG");
    /* Tiny tiles (CLSORT_TOPK_TILE): many passes of the network for k up to 32, and the full
     * sort with many global levels above, on shapes the default tile takes in one pass. */
    setenv("CLSORT_TOPK_TILE", "64", 1);
    run_case(CLSORT_U32, T_RANDOM, 0, 5000, 3, 7, OUT_INDEX, 4, 0);
    run_case(CLSORT_F32, T_FEW, 1, 3000, 2, 32, OUT_VALUES, 8, 0);
    run_case(CLSORT_I64, T_SPECIAL, 0, 1000, 5, 33, OUT_INDEX, 8, 0);
    run_case(CLSORT_F64, T_EQUAL, 1, 777, 3, 500, OUT_VALUES, 4, 0);
    setenv("CLSORT_TOPK_WG", "8", 1);
    run_case(CLSORT_U32, T_SPECIAL, 1, 2000, 4, 16, OUT_NONE, 0, 0);
    run_case(CLSORT_I32, T_RANDOM, 0, 1500, 2, 100, OUT_INDEX, 4, 0);
    unsetenv("CLSORT_TOPK_WG");
    unsetenv("CLSORT_TOPK_TILE");

    /* The _buffer form behind a wait list. */
    run_case(CLSORT_U32, T_RANDOM, 0, 10000, 3, 16, OUT_INDEX, 4, 1);
    run_case(CLSORT_F32, T_SPECIAL, 1, 1000, 20, 100, OUT_VALUES, 4, 1);
    run_case(CLSORT_F64, T_FEW, 0, 3000, 2, 2500, OUT_INDEX, 8, 1);
    run_case(CLSORT_I64, T_RANDOM, 1, 513, 9, 7, OUT_NONE, 0, 1);

    clsort_stats st;
    memset(&st, 0, sizeof st);
    const int src = clsort_get_stats(ctx, &st);
    t_ok(src == CLSORT_OK && st.launches > 0 && !st.host_fallback,
         "clsort_get_stats reports the top-k's launches (%u)", st.launches);
    clsort_destroy(ctx);
    return t_done();
}
