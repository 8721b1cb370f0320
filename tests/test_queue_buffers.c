/* test_queue_buffers.c - clsort on the caller's own OpenCL objects: clsort_create_with_queue on a
 * context and queue made here with raw OpenCL, and clsort_sort_buffer on the caller's cl_mem
 * buffers (keys alone and with values) with wait lists and `done` events. Also checks that
 * clsort_sort_buffer returns without blocking: a sort gated by an unset user event must come back
 * at once (an alarm turns a hang into a failure), honour the gate (the input is written through a
 * second queue only after the call returned), and leave keys beyond n alone. Last, clsort_get_queue:
 * buffers made on the OpenCL context of a clsort_create context's queue, sorted there. */
#include "test_util.h"

#include <signal.h>
#include <time.h>
#include <unistd.h>

static cl_context cl_ctx;
static cl_command_queue queue, queue2;
static cl_device_id device;
static clsort_ctx *ctx;

static void on_alarm(int sig)
{
    static const char msg[] =
        "not ok - clsort_sort_buffer (or a wait after it) blocked for 120 s\n"
        "Bail out! clsort_sort_buffer blocked on an unset user event\n";
    (void)sig;
    if (write(STDOUT_FILENO, msg, sizeof msg - 1) < 0)
        _exit(3);
    _exit(2);
}

/* The first device of the preferred type (GPU if CLSORT_DEVICE says "gpu", else CPU), else the
 * first device of any type. */
static int pick_device(void)
{
    cl_platform_id plats[16];
    cl_uint np = 0;
    if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS || np == 0)
        return 0;
    if (np > 16)
        np = 16;
    const char *env = getenv("CLSORT_DEVICE");
    const cl_device_type want =
        (env && !strcmp(env, "gpu")) ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_CPU;
    const cl_device_type types[2] = {want, CL_DEVICE_TYPE_ALL};
    for (int t = 0; t < 2; ++t)
        for (cl_uint p = 0; p < np; ++p) {
            cl_uint nd = 0;
            if (clGetDeviceIDs(plats[p], types[t], 1, &device, &nd) == CL_SUCCESS && nd > 0)
                return 1;
        }
    return 0;
}

static cl_mem make_buffer(const void *data, size_t bytes)
{
    cl_int err;
    cl_mem m = clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE, bytes ? bytes : 16, NULL, &err);
    if (err != CL_SUCCESS)
        t_bail("clCreateBuffer(%zu): %d", bytes, err);
    if (data && bytes &&
        clEnqueueWriteBuffer(queue, m, CL_TRUE, 0, bytes, data, 0, NULL, NULL) != CL_SUCCESS)
        t_bail("clEnqueueWriteBuffer failed");
    return m;
}

static void read_buffer(cl_mem m, void *data, size_t bytes)
{
    const cl_int err = clEnqueueReadBuffer(queue, m, CL_TRUE, 0, bytes, data, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        t_bail("clEnqueueReadBuffer: %d", err);
}

static cl_int event_status(cl_event e)
{
    cl_int st = -1;
    clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
    return st;
}

/* One sort job on buffers: the input, where it lives, and how to check the result. */
typedef struct job {
    clsort_type type;
    size_t n, vsize, extra; /* extra: keys past n in the buffer, which must stay as they are */
    unsigned flags;
    clsort_algorithm algo;
    unsigned char *keys, *want, *vals;
    cl_mem kbuf, vbuf;
} job;

/* Makes the input; the buffers are filled now, or (write_now == 0) hold zeros for now. */
static void job_make(job *j, clsort_type type, size_t n, size_t vsize, clsort_algorithm algo,
                     unsigned flags, int write_now)
{
    const size_t sz = t_size(type);
    j->type = type;
    j->n = n;
    j->vsize = vsize;
    j->extra = 16;
    j->flags = flags;
    j->algo = algo;
    const size_t total = n + j->extra;
    j->keys = t_xmalloc(total * sz);
    j->want = t_xmalloc(total * sz);
    j->vals = vsize ? t_xmalloc(total * vsize) : NULL;
    t_rng r = t_rng_for(type, n, vsize, flags);
    t_fill(type, (t_dist)((n + vsize) % T_NDIST), j->keys, n, &r);
    for (size_t i = n; i < total; ++i)
        t_set_bits(type, j->keys, i, 0x5A5A5A5A5A5A5A5Aull + i);
    memcpy(j->want, j->keys, total * sz);
    t_ref_sort(type, j->want, n, (flags & CLSORT_DESCENDING) != 0);
    for (size_t i = 0; vsize && i < total; ++i) {
        if (vsize == 4) {
            const uint32_t v = (uint32_t)i;
            memcpy(j->vals + 4 * i, &v, 4);
        } else {
            const uint64_t v = ((uint64_t)i << 32) | 0xC0FFEEu;
            memcpy(j->vals + 8 * i, &v, 8);
        }
    }
    unsigned char *zeros = calloc(total, 8);
    j->kbuf = make_buffer(write_now ? j->keys : zeros, total * sz);
    j->vbuf = vsize ? make_buffer(write_now ? j->vals : zeros, total * vsize) : NULL;
    free(zeros);
}

/* Reads the buffers back and checks them: keys as the reference, the keys past n unchanged, and
 * each value (it encodes its original index) beside the key it started with. */
static int job_check(job *j, const char *what)
{
    const size_t sz = t_size(j->type), total = j->n + j->extra;
    unsigned char *got = t_xmalloc(total * sz), *gv = j->vsize ? t_xmalloc(total * j->vsize) : 0;
    read_buffer(j->kbuf, got, total * sz);
    if (gv)
        read_buffer(j->vbuf, gv, total * j->vsize);
    int ok = 1;
    const size_t at = t_first_diff(j->type, got, j->want, total);
    if (at < total) {
        ok = 0;
        t_diag("%s: keys differ from the reference at %zu (n = %zu)", what, at, j->n);
        t_diag_diff(j->type, got, j->want, total, at);
    }
    for (size_t i = 0; ok && gv && i < total; ++i) {
        uint64_t idx;
        if (j->vsize == 4) {
            uint32_t v;
            memcpy(&v, gv + 4 * i, 4);
            idx = v;
        } else {
            uint64_t v;
            memcpy(&v, gv + 8 * i, 8);
            idx = (v & 0xFFFFFFFFu) == 0xC0FFEEu ? v >> 32 : UINT64_MAX;
        }
        if (idx >= total || (i >= j->n && idx != i) ||
            t_get_bits(j->type, j->keys, idx) != t_get_bits(j->type, got, i)) {
            ok = 0;
            t_diag("%s: value at %zu (index %" PRIu64 ") is not beside its key", what, i, idx);
        }
    }
    free(got);
    free(gv);
    return ok;
}

static void job_free(job *j)
{
    free(j->keys);
    free(j->want);
    free(j->vals);
    clReleaseMemObject(j->kbuf);
    if (j->vbuf)
        clReleaseMemObject(j->vbuf);
}

static int job_enqueue(job *j, cl_uint num_wait, const cl_event *wait, cl_event *done)
{
    return clsort_sort_buffer(ctx, j->kbuf, j->vbuf, j->vsize, j->n, j->type, j->algo, j->flags,
                              num_wait, wait, done);
}

/* Plain enqueues: keys alone and with values, every type and algorithm at a few sizes, done
 * events waited on (or, without one, clFinish). */
static void test_plain(void)
{
    static const size_t sizes[] = {0, 1, 2, 5, 100, 1000, 4099, 100003};
    for (unsigned ti = 0; ti < T_NTYPES; ++ti)
        for (unsigned ai = 0; ai < T_NSORTS; ++ai) {
            unsigned failed = 0, cases = 0;
            for (size_t s = 0; s < sizeof sizes / sizeof *sizes; ++s) {
                if (t_algos[ai] == CLSORT_ODD_EVEN_TRANSPOSITION && sizes[s] > 5000)
                    continue;
                const size_t vsize = (s % 3) * 4; /* 0, 4, 8 */
                const unsigned flags = (s & 1) ? CLSORT_DESCENDING : 0;
                job j;
                job_make(&j, t_types[ti], sizes[s], vsize, t_algos[ai], flags, 1);
                cl_event done = NULL;
                const int with_done = (s & 2) == 0;
                int rc = job_enqueue(&j, 0, NULL, with_done ? &done : NULL);
                char what[128];
                snprintf(what, sizeof what, "%s %s n=%zu vsize=%zu flags=%u",
                         t_type_name(j.type), t_algo_name(j.algo), j.n, vsize, flags);
                if (rc != CLSORT_OK) {
                    t_diag("%s: %s: %s", what, clsort_status_name(rc), clsort_last_error(ctx));
                } else if (with_done) {
                    if (!done || clWaitForEvents(1, &done) != CL_SUCCESS ||
                        event_status(done) != CL_COMPLETE) {
                        t_diag("%s: the done event is missing or did not complete", what);
                        rc = -1;
                    }
                } else {
                    clFinish(queue);
                }
                if (done)
                    clReleaseEvent(done);
                failed += rc != CLSORT_OK || !job_check(&j, what);
                ++cases;
                job_free(&j);
            }
            t_ok(failed == 0, "clsort_sort_buffer %s %s: %u cases (keys alone, +4, +8 bytes)",
                 t_type_name(t_types[ti]), t_algo_name(t_algos[ai]), cases);
        }
}

/* A sort gated by a user event: returns at once, waits for the gate, sees data written after the
 * call through another queue, and its done event completes only after the gate opened. */
static void test_gated(void)
{
    cl_int err;
    cl_event gate = clCreateUserEvent(cl_ctx, &err);
    if (err != CL_SUCCESS)
        t_bail("clCreateUserEvent: %d", err);
    job a, b, c;
    job_make(&a, CLSORT_F32, 50021, 8, CLSORT_AUTO, 0, 0); /* zeros now, data later */
    job_make(&b, CLSORT_U64, 3000, 0, CLSORT_ODD_EVEN_MERGE, CLSORT_DESCENDING, 1);
    job_make(&c, CLSORT_I32, 777, 4, CLSORT_ODD_EVEN_TRANSPOSITION, 0, 1);

    signal(SIGALRM, on_alarm);
    alarm(120);
    cl_event done_a = NULL, done_b = NULL, done_c = NULL;
    const double t0 = t_now_ms();
    const int rc_a = job_enqueue(&a, 1, &gate, &done_a);
    const int rc_b = job_enqueue(&b, 0, NULL, &done_b); /* behind a on the in-order queue */
    const int rc_c = job_enqueue(&c, 1, &gate, &done_c);
    const double ms = t_now_ms() - t0;
    t_is_status(rc_a, CLSORT_OK, "clsort_sort_buffer gated by an unset user event returns (%.0f "
                                 "ms for three enqueues)", ms);
    if (rc_a != CLSORT_OK)
        t_diag("%s", clsort_last_error(ctx));
    t_is_status(rc_b, CLSORT_OK, "a second sort enqueued behind it returns");
    t_is_status(rc_c, CLSORT_OK, "a third, also gated, returns");

    /* The real input of `a` arrives now, through a second queue, before the gate opens. */
    const int wrote =
        clEnqueueWriteBuffer(queue2, a.kbuf, CL_TRUE, 0, (a.n + a.extra) * 4, a.keys, 0, NULL,
                             NULL) == CL_SUCCESS &&
        clEnqueueWriteBuffer(queue2, a.vbuf, CL_TRUE, 0, (a.n + a.extra) * 8, a.vals, 0, NULL,
                             NULL) == CL_SUCCESS;
    t_ok(wrote, "the input was written through a second queue while the sort waited");
    const struct timespec pause = {0, 200 * 1000 * 1000};
    nanosleep(&pause, NULL);
    if (done_a && done_c) {
        t_ok(event_status(done_a) != CL_COMPLETE && event_status(done_c) != CL_COMPLETE,
             "the done events are not complete while the gate is unset (status %d, %d)",
             event_status(done_a), event_status(done_c));
    } else {
        t_ok(0, "done events were returned");
    }
    clSetUserEventStatus(gate, CL_COMPLETE);
    cl_event all[3] = {done_a, done_b, done_c};
    const int waited = done_a && done_b && done_c && clWaitForEvents(3, all) == CL_SUCCESS;
    alarm(0);
    t_ok(waited, "the done events complete after the gate opened");
    t_ok(job_check(&a, "gated f32 + 8-byte values"),
         "gated sort saw the input written after the call (f32 keys + 8-byte values, n %zu)", a.n);
    t_ok(job_check(&b, "u64 desc behind the gate"), "the sort behind it is right (u64 desc)");
    t_ok(job_check(&c, "gated i32 + 4-byte values"), "the other gated one is right (i32 + i32)");
    for (int i = 0; i < 3; ++i)
        if (all[i])
            clReleaseEvent(all[i]);
    clReleaseEvent(gate);
    job_free(&a);
    job_free(&b);
    job_free(&c);
}

static void test_buffer_errors(void)
{
    job j;
    job_make(&j, CLSORT_U32, 1000, 4, CLSORT_BITONIC, 0, 1);
    cl_event done = NULL;
    j.flags = CLSORT_STABLE;
    t_is_status(job_enqueue(&j, 0, NULL, &done), CLSORT_ERR_UNSUPPORTED,
                "clsort_sort_buffer with CLSORT_STABLE is unsupported");
    j.flags = 0;
    j.vsize = 3;
    t_is_status(job_enqueue(&j, 0, NULL, &done), CLSORT_ERR_INVALID_ARG,
                "clsort_sort_buffer with value_size 3");
    j.vsize = 4;
    j.type = (clsort_type)12;
    t_is_status(job_enqueue(&j, 0, NULL, &done), CLSORT_ERR_INVALID_ARG,
                "clsort_sort_buffer with type 12");
    j.type = CLSORT_U32;
    j.flags = 16;
    t_is_status(job_enqueue(&j, 0, NULL, &done), CLSORT_ERR_INVALID_ARG,
                "clsort_sort_buffer with flag 16");
    j.flags = 0;
    const int rc = job_enqueue(&j, 2, NULL, &done);
    t_ok(rc != CLSORT_OK, "clsort_sort_buffer with num_wait 2 and no wait list fails (%s)",
         clsort_status_name(rc));
    /* The buffers are unchanged by all of the above (read back and compare with the input). */
    uint32_t *k = t_xmalloc((j.n + j.extra) * 4);
    read_buffer(j.kbuf, k, (j.n + j.extra) * 4);
    t_ok(memcmp(k, j.keys, (j.n + j.extra) * 4) == 0, "... and the buffer is untouched");
    free(k);
    job_free(&j);
}

/* clsort_get_queue on a context from clsort_create: the only way such a user can make buffers for
 * clsort_sort_buffer. Upload, sort and download all go on that queue with no events in between
 * (it is in-order), and the result must be the reference's. */
static void test_get_queue(void)
{
    t_ok(clsort_get_queue(NULL) == NULL, "clsort_get_queue(NULL) is NULL");
    const char *spec = getenv("CLSORT_DEVICE");
    clsort_ctx *own = NULL;
    if (!t_is_status(clsort_create(&own, spec && *spec ? spec : "cpu"), CLSORT_OK,
                     "clsort_create for clsort_get_queue"))
        return;
    const cl_command_queue q = clsort_get_queue(own);
    cl_context qctx = NULL;
    cl_device_id qdev = NULL;
    cl_command_queue_properties props = 0;
    const int info = q && clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof qctx, &qctx, NULL) ==
                              CL_SUCCESS &&
                     clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof qdev, &qdev, NULL) ==
                         CL_SUCCESS &&
                     clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL) ==
                         CL_SUCCESS;
    t_ok(info && qctx && qdev, "clsort_get_queue gives a queue with a context and a device");
    t_ok(clsort_get_queue(own) == q, "... the same queue on every call");
    clsort_device_info di;
    char qname[256] = "";
    if (qdev)
        clGetDeviceInfo(qdev, CL_DEVICE_NAME, sizeof qname, qname, NULL);
    t_ok(clsort_get_device_info(own, &di) == CLSORT_OK && !strcmp(di.name, qname),
         "... on the context's device (%s)", qname);
    t_ok((props & CL_QUEUE_PROFILING_ENABLE) && !(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE),
         "... in order, with profiling");
    if (!info || !qctx) {
        clsort_destroy(own);
        return;
    }
    static const struct { clsort_type type; size_t n; unsigned flags; } cases[] = {
        {CLSORT_U32, 100003, 0}, {CLSORT_F32, 4097, CLSORT_DESCENDING}, {CLSORT_I64, 30001, 0},
        {CLSORT_F64, 777, CLSORT_DESCENDING}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c) {
        const clsort_type type = cases[c].type;
        const size_t n = cases[c].n, sz = t_size(type);
        if (type == CLSORT_F64 && !di.has_fp64)
            continue;
        unsigned char *keys = t_xmalloc(n * sz), *want = t_xmalloc(n * sz),
                      *got = t_xmalloc(n * sz);
        t_rng r = t_rng_for(type, n, 0, cases[c].flags);
        t_fill(type, T_RANDOM, keys, n, &r);
        memcpy(want, keys, n * sz);
        t_ref_sort(type, want, n, (cases[c].flags & CLSORT_DESCENDING) != 0);
        cl_int err;
        cl_mem m = clCreateBuffer(qctx, CL_MEM_READ_WRITE, n * sz, NULL, &err);
        int ok = err == CL_SUCCESS &&
                 clEnqueueWriteBuffer(q, m, CL_FALSE, 0, n * sz, keys, 0, NULL, NULL) ==
                     CL_SUCCESS;
        const int rc = ok ? clsort_sort_buffer(own, m, NULL, 0, n, type, CLSORT_AUTO,
                                               cases[c].flags, 0, NULL, NULL)
                          : CLSORT_ERR_OPENCL;
        ok = ok && rc == CLSORT_OK &&
             clEnqueueReadBuffer(q, m, CL_TRUE, 0, n * sz, got, 0, NULL, NULL) == CL_SUCCESS;
        const size_t at = ok ? t_first_diff(type, got, want, n) : 0;
        t_ok(ok && at == n, "buffer on clsort_get_queue's context: %s n=%zu%s sorted like qsort",
             t_type_name(type), n, cases[c].flags ? " desc" : "");
        if (ok && at < n)
            t_diag_diff(type, got, want, n, at);
        else if (!ok)
            t_diag("err %d, sort %s: %s", err, clsort_status_name(rc), clsort_last_error(own));
        if (err == CL_SUCCESS)
            clReleaseMemObject(m);
        free(keys);
        free(want);
        free(got);
    }
    clsort_destroy(own);
}

int main(void)
{
    t_init("test_queue_buffers");
    if (!pick_device())
        t_bail("no OpenCL device");
    char name[256] = "";
    clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name, name, NULL);
    t_diag("device: %s", name);
    cl_int err;
    cl_ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    if (err != CL_SUCCESS)
        t_bail("clCreateContext: %d", err);
    queue = clCreateCommandQueue(cl_ctx, device, 0, &err); /* no profiling */
    if (err != CL_SUCCESS)
        t_bail("clCreateCommandQueue: %d", err);
    queue2 = clCreateCommandQueue(cl_ctx, device, 0, &err);
    if (err != CL_SUCCESS)
        t_bail("clCreateCommandQueue: %d", err);

    t_is_status(clsort_create_with_queue(NULL, queue), CLSORT_ERR_INVALID_ARG,
                "clsort_create_with_queue(NULL, queue)");
    clsort_ctx *c = (clsort_ctx *)&c;
    t_is_status(clsort_create_with_queue(&c, NULL), CLSORT_ERR_INVALID_ARG,
                "clsort_create_with_queue(&ctx, NULL)");
    t_ok(c == NULL, "... and *ctx is NULL");

    if (!t_is_status(clsort_create_with_queue(&ctx, queue), CLSORT_OK,
                     "clsort_create_with_queue on our own queue"))
        t_bail("no context: %s", clsort_last_error(ctx));
    clsort_device_info info;
    t_ok(clsort_get_device_info(ctx, &info) == CLSORT_OK && info.name && !strcmp(info.name, name),
         "the context uses the queue's device");

    /* Host-memory sorts work on such a context too. */
    {
        uint32_t k[1000], want[1000];
        t_rng r = t_rng_for(5, 0, 0, 0);
        t_fill(CLSORT_U32, T_RANDOM, k, 1000, &r);
        memcpy(want, k, sizeof k);
        t_ref_sort(CLSORT_U32, want, 1000, 0);
        const int rc = clsort_sort(ctx, k, 1000, CLSORT_U32, CLSORT_AUTO, CLSORT_NO_HOST_FALLBACK);
        t_ok(rc == CLSORT_OK && !memcmp(k, want, sizeof k), "clsort_sort on the caller's queue");
        clsort_stats st;
        t_ok(clsort_get_stats(ctx, &st) == CLSORT_OK && st.device_ns == 0,
             "device_ns is 0 without profiling on the queue");
    }

    test_plain();
    test_gated();
    test_buffer_errors();
    test_get_queue();

    /* A second context on the same queue; destroying both leaves the queue ours and usable. */
    clsort_ctx *other = NULL;
    t_is_status(clsort_create_with_queue(&other, queue), CLSORT_OK,
                "a second context on the same queue");
    clsort_destroy(other);
    clsort_destroy(ctx);
    cl_mem m = make_buffer(NULL, 64);
    uint32_t back[16];
    t_ok(clEnqueueReadBuffer(queue, m, CL_TRUE, 0, 64, back, 0, NULL, NULL) == CL_SUCCESS &&
             clFinish(queue) == CL_SUCCESS,
         "the queue is still usable after clsort_destroy");
    clReleaseMemObject(m);
    clReleaseCommandQueue(queue2);
    clReleaseCommandQueue(queue);
    clReleaseContext(cl_ctx);
    return t_done();
}
