/* test_clhooks.h - OpenCL call hooks for tests (header-only; include it first, in one test
 * program): the program defines the OpenCL functions that the library calls, so that the
 * library's calls land here, are counted, optionally fail on purpose, and are then passed on to
 * the real ICD loader (dlsym(RTLD_NEXT)). The library is linked statically into the test, so
 * its references resolve to these definitions.
 *
 * What it gives a test:
 *   - live counts of buffers, programs, kernels and events (create/retain minus release), and
 *     the bytes held by live buffers, to show that failures and long runs leak nothing;
 *   - the device commands a sort enqueues (kernels, fills, markers), how many of them asked for
 *     an event, and the last one's event (NULL when it had none);
 *   - fault injection: the next clCreateBuffer, the Nth clEnqueueNDRangeKernel from now, or the
 *     next (or the Nth) clEnqueueReadBuffer or clEnqueueWriteBuffer returns a chosen OpenCL
 *     error;
 *   - a driver's odd answers: clGetKernelWorkGroupInfo reporting a smaller
 *     CL_KERNEL_WORK_GROUP_SIZE (as NVIDIA's 580 driver does: 256 for every kernel), or no
 *     CL_KERNEL_COMPILE_WORK_GROUP_SIZE. */
#ifndef CLSORT_TEST_CLHOOKS_H
#define CLSORT_TEST_CLHOOKS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NEXT */
#endif
#include <clsort.h>

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Under AddressSanitizer freed blocks wait in a quarantine (256 MiB by default) before reuse,
 * so resident memory grows by design; tests skip their RSS bounds there and rely on
 * LeakSanitizer, which checks every allocation at exit. */
#if defined(__SANITIZE_ADDRESS__)
#define H_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define H_ASAN 1
#endif
#endif
#ifndef H_ASAN
#define H_ASAN 0
#endif

typedef struct h_counts {
    long buffers, programs, kernels, events;
    long long buffer_bytes;
} h_counts;

static atomic_long h_buffers_, h_programs_, h_kernels_, h_events_;
static atomic_llong h_buffer_bytes_;
static atomic_int h_fail_buffer_;          /* fail the next clCreateBuffer with this error */
static atomic_int h_fail_launch_;          /* error for a launch, 0: none */
static atomic_long h_fail_launch_after_;   /* launches to let through before failing */
static atomic_int h_fail_read_;            /* fail a clEnqueueReadBuffer with this error */
static atomic_long h_fail_read_after_;     /* reads to let through before failing (0: the next) */
static atomic_int h_fail_write_;           /* fail a clEnqueueWriteBuffer with this error */
static atomic_long h_fail_write_after_;    /* writes to let through before failing (0: the next) */
static atomic_long h_launches_;            /* launches passed to the runtime */
static atomic_llong h_fill_end_max_;       /* the furthest end (offset + size) of a fill so far */
static atomic_long h_commands_;            /* kernels, fills and markers enqueued */
static atomic_long h_command_events_;      /* ... of which asked for an event */
static _Atomic(cl_event) h_last_command_event_; /* the last one's event, NULL if it had none */
static atomic_long h_kernel_wg_cap_;       /* CL_KERNEL_WORK_GROUP_SIZE at most this; 0: as is */
static atomic_int h_hide_compile_wg_;      /* report CL_KERNEL_COMPILE_WORK_GROUP_SIZE as 0, 0, 0 */

static __attribute__((unused)) h_counts h_now(void)
{
    h_counts c = {atomic_load(&h_buffers_), atomic_load(&h_programs_), atomic_load(&h_kernels_),
                  atomic_load(&h_events_), atomic_load(&h_buffer_bytes_)};
    return c;
}

static void *h_real_(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) {
        fprintf(stderr, "test_clhooks: no real %s\n", name);
        abort();
    }
    return f;
}
/* The next definition of `name` (the ICD loader's), as a pointer of the declared type; memcpy
 * because ISO C has no conversion from void * to a function pointer. */
#define H_REAL_(name)                        \
    static __typeof__(&name) real_ = NULL;   \
    if (!real_) {                            \
        void *const p_ = h_real_(#name);     \
        memcpy(&real_, &p_, sizeof real_);   \
    }

/* ---- Buffers ---- */
CL_API_ENTRY cl_mem CL_API_CALL clCreateBuffer(cl_context context, cl_mem_flags flags, size_t size,
                                               void *host_ptr, cl_int *errcode_ret)
{
    H_REAL_(clCreateBuffer);
    const int inject = atomic_exchange(&h_fail_buffer_, 0);
    if (inject) {
        if (errcode_ret)
            *errcode_ret = inject;
        return NULL;
    }
    cl_int err = CL_SUCCESS;
    cl_mem m = real_(context, flags, size, host_ptr, &err);
    if (errcode_ret)
        *errcode_ret = err;
    if (m) {
        atomic_fetch_add(&h_buffers_, 1);
        atomic_fetch_add(&h_buffer_bytes_, (long long)size);
    }
    return m;
}

/* Sub-buffers (the overlapped upload's chunks) are released like buffers, so they are counted
 * like them; the write hook can fail the Nth write from now. */
CL_API_ENTRY cl_mem CL_API_CALL clCreateSubBuffer(cl_mem buffer, cl_mem_flags flags,
                                                  cl_buffer_create_type type, const void *info,
                                                  cl_int *errcode_ret)
{
    H_REAL_(clCreateSubBuffer);
    cl_int err = CL_SUCCESS;
    cl_mem m = real_(buffer, flags, type, info, &err);
    if (errcode_ret)
        *errcode_ret = err;
    if (m) {
        atomic_fetch_add(&h_buffers_, 1);
        atomic_fetch_add(&h_buffer_bytes_, (long long)((const cl_buffer_region *)info)->size);
    }
    return m;
}

CL_API_ENTRY cl_int CL_API_CALL clRetainMemObject(cl_mem m)
{
    H_REAL_(clRetainMemObject);
    const cl_int err = real_(m);
    if (err == CL_SUCCESS)
        atomic_fetch_add(&h_buffers_, 1);
    return err;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseMemObject(cl_mem m)
{
    H_REAL_(clReleaseMemObject);
    size_t size = 0;
    cl_uint refs = 0;
    if (clGetMemObjectInfo(m, CL_MEM_REFERENCE_COUNT, sizeof refs, &refs, NULL) == CL_SUCCESS &&
        refs == 1 && clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof size, &size, NULL) == CL_SUCCESS)
        atomic_fetch_sub(&h_buffer_bytes_, (long long)size);
    const cl_int err = real_(m);
    if (err == CL_SUCCESS)
        atomic_fetch_sub(&h_buffers_, 1);
    return err;
}

/* ---- Programs and kernels ---- */
CL_API_ENTRY cl_program CL_API_CALL clCreateProgramWithSource(cl_context context, cl_uint count,
                                                              const char **strings,
                                                              const size_t *lengths,
                                                              cl_int *errcode_ret)
{
    H_REAL_(clCreateProgramWithSource);
    cl_program p = real_(context, count, strings, lengths, errcode_ret);
    if (p)
        atomic_fetch_add(&h_programs_, 1);
    return p;
}

CL_API_ENTRY cl_program CL_API_CALL clCreateProgramWithBinary(
    cl_context context, cl_uint num_devices, const cl_device_id *devices, const size_t *lengths,
    const unsigned char **binaries, cl_int *binary_status, cl_int *errcode_ret)
{
    H_REAL_(clCreateProgramWithBinary);
    cl_program p = real_(context, num_devices, devices, lengths, binaries, binary_status,
                         errcode_ret);
    if (p)
        atomic_fetch_add(&h_programs_, 1);
    return p;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseProgram(cl_program p)
{
    H_REAL_(clReleaseProgram);
    const cl_int err = real_(p);
    if (err == CL_SUCCESS)
        atomic_fetch_sub(&h_programs_, 1);
    return err;
}

CL_API_ENTRY cl_kernel CL_API_CALL clCreateKernel(cl_program program, const char *name,
                                                  cl_int *errcode_ret)
{
    H_REAL_(clCreateKernel);
    cl_kernel k = real_(program, name, errcode_ret);
    if (k)
        atomic_fetch_add(&h_kernels_, 1);
    return k;
}

CL_API_ENTRY cl_int CL_API_CALL clGetKernelWorkGroupInfo(cl_kernel k, cl_device_id d,
                                                         cl_kernel_work_group_info name,
                                                         size_t size, void *value,
                                                         size_t *size_ret)
{
    H_REAL_(clGetKernelWorkGroupInfo);
    const cl_int err = real_(k, d, name, size, value, size_ret);
    if (err != CL_SUCCESS || !value)
        return err;
    const long cap = atomic_load(&h_kernel_wg_cap_);
    if (name == CL_KERNEL_WORK_GROUP_SIZE && size >= sizeof(size_t) && cap > 0 &&
        *(size_t *)value > (size_t)cap)
        *(size_t *)value = (size_t)cap;
    if (name == CL_KERNEL_COMPILE_WORK_GROUP_SIZE && atomic_load(&h_hide_compile_wg_))
        memset(value, 0, size);
    return err;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseKernel(cl_kernel k)
{
    H_REAL_(clReleaseKernel);
    const cl_int err = real_(k);
    if (err == CL_SUCCESS)
        atomic_fetch_sub(&h_kernels_, 1);
    return err;
}

/* ---- Events: every call that can hand one out, and retain/release ---- */
static void h_event_made_(cl_int err, cl_event *event)
{
    if (err == CL_SUCCESS && event && *event)
        atomic_fetch_add(&h_events_, 1);
}

/* A device command (kernel, fill, marker) went in: counted with whether it asked for an event. */
static void h_command_(cl_int err, cl_event *event)
{
    if (err != CL_SUCCESS)
        return;
    atomic_fetch_add(&h_commands_, 1);
    if (event)
        atomic_fetch_add(&h_command_events_, 1);
    atomic_store(&h_last_command_event_, event ? *event : NULL);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k,
                                                       cl_uint dim, const size_t *offset,
                                                       const size_t *global, const size_t *local,
                                                       cl_uint nwait, const cl_event *wait,
                                                       cl_event *event)
{
    H_REAL_(clEnqueueNDRangeKernel);
    const int inject = atomic_load(&h_fail_launch_);
    if (inject && atomic_fetch_sub(&h_fail_launch_after_, 1) <= 0) {
        atomic_store(&h_fail_launch_, 0);
        return inject;
    }
    const cl_int err = real_(q, k, dim, offset, global, local, nwait, wait, event);
    if (err == CL_SUCCESS)
        atomic_fetch_add(&h_launches_, 1);
    h_event_made_(err, event);
    h_command_(err, event);
    return err;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueFillBuffer(cl_command_queue q, cl_mem b, const void *pattern,
                                                    size_t pattern_size, size_t off, size_t size,
                                                    cl_uint nwait, const cl_event *wait,
                                                    cl_event *event)
{
    H_REAL_(clEnqueueFillBuffer);
    long long was = atomic_load(&h_fill_end_max_);
    const long long end = (long long)(off + size);
    while (end > was && !atomic_compare_exchange_weak(&h_fill_end_max_, &was, end))
        ;
    const cl_int err = real_(q, b, pattern, pattern_size, off, size, nwait, wait, event);
    h_event_made_(err, event);
    h_command_(err, event);
    return err;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueWriteBuffer(cl_command_queue q, cl_mem b, cl_bool blocking,
                                                     size_t off, size_t size, const void *ptr,
                                                     cl_uint nwait, const cl_event *wait,
                                                     cl_event *event)
{
    H_REAL_(clEnqueueWriteBuffer);
    const int inject = atomic_load(&h_fail_write_);
    if (inject && atomic_fetch_sub(&h_fail_write_after_, 1) <= 0) {
        atomic_store(&h_fail_write_, 0);
        atomic_store(&h_fail_write_after_, 0);
        return inject;
    }
    const cl_int err = real_(q, b, blocking, off, size, ptr, nwait, wait, event);
    h_event_made_(err, event);
    return err;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueReadBuffer(cl_command_queue q, cl_mem b, cl_bool blocking,
                                                    size_t off, size_t size, void *ptr,
                                                    cl_uint nwait, const cl_event *wait,
                                                    cl_event *event)
{
    H_REAL_(clEnqueueReadBuffer);
    const int inject = atomic_load(&h_fail_read_);
    if (inject && atomic_fetch_sub(&h_fail_read_after_, 1) <= 0) {
        atomic_store(&h_fail_read_, 0);
        atomic_store(&h_fail_read_after_, 0);
        return inject;
    }
    const cl_int err = real_(q, b, blocking, off, size, ptr, nwait, wait, event);
    h_event_made_(err, event);
    return err;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueMarkerWithWaitList(cl_command_queue q, cl_uint nwait,
                                                            const cl_event *wait, cl_event *event)
{
    H_REAL_(clEnqueueMarkerWithWaitList);
    const cl_int err = real_(q, nwait, wait, event);
    h_event_made_(err, event);
    h_command_(err, event);
    return err;
}

CL_API_ENTRY cl_int CL_API_CALL clRetainEvent(cl_event e)
{
    H_REAL_(clRetainEvent);
    const cl_int err = real_(e);
    if (err == CL_SUCCESS)
        atomic_fetch_add(&h_events_, 1);
    return err;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseEvent(cl_event e)
{
    H_REAL_(clReleaseEvent);
    const cl_int err = real_(e);
    if (err == CL_SUCCESS)
        atomic_fetch_sub(&h_events_, 1);
    return err;
}

#endif /* CLSORT_TEST_CLHOOKS_H */
