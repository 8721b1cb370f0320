/* clorder.c - an LD_PRELOAD shim for the CLI tests: every command-queue call of the process
 * (the enqueues clsort and the library make, clFlush, clFinish) is logged as one line "THREAD
 * CALL" to the file $CLORDER_LOG, in the order the calls began, and then passed on to the real
 * ICD loader (dlsym(RTLD_NEXT)). run_pipeline_tests.sh reads the log to show that no two threads
 * worked on the queues at the same time: the pipeline's uploads must wait for clsort_prepare's
 * thread (a crash on NVIDIA's driver when they overlapped).
 *
 *   cc -shared -fPIC -o clorder.so clorder.c -ldl -lpthread
 *   CLORDER_LOG=calls.log LD_PRELOAD=./clorder.so clsort ... */
#define _GNU_SOURCE /* RTLD_NEXT */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *log_file;
static int log_failed;

static void note(const char *call)
{
    pthread_mutex_lock(&log_lock);
    if (!log_file && !log_failed) {
        const char *path = getenv("CLORDER_LOG");
        log_file = path ? fopen(path, "w") : NULL;
        log_failed = !log_file;
    }
    if (log_file) {
        fprintf(log_file, "%lu %s\n", (unsigned long)pthread_self(), call);
        fflush(log_file);
    }
    pthread_mutex_unlock(&log_lock);
}

/* The real function: looked up once (a race only looks it up twice). */
#define REAL(name) \
    static __typeof__(name) *real; \
    if (!real) \
        *(void **)&real = dlsym(RTLD_NEXT, #name); \
    note(#name)

cl_int clFlush(cl_command_queue q)
{
    REAL(clFlush);
    return real(q);
}

cl_int clFinish(cl_command_queue q)
{
    REAL(clFinish);
    return real(q);
}

cl_int clEnqueueWriteBuffer(cl_command_queue q, cl_mem b, cl_bool blocking, size_t off,
                            size_t size, const void *p, cl_uint nw, const cl_event *w,
                            cl_event *ev)
{
    REAL(clEnqueueWriteBuffer);
    return real(q, b, blocking, off, size, p, nw, w, ev);
}

cl_int clEnqueueReadBuffer(cl_command_queue q, cl_mem b, cl_bool blocking, size_t off, size_t size,
                           void *p, cl_uint nw, const cl_event *w, cl_event *ev)
{
    REAL(clEnqueueReadBuffer);
    return real(q, b, blocking, off, size, p, nw, w, ev);
}

cl_int clEnqueueCopyBuffer(cl_command_queue q, cl_mem src, cl_mem dst, size_t so, size_t dof,
                           size_t size, cl_uint nw, const cl_event *w, cl_event *ev)
{
    REAL(clEnqueueCopyBuffer);
    return real(q, src, dst, so, dof, size, nw, w, ev);
}

cl_int clEnqueueFillBuffer(cl_command_queue q, cl_mem b, const void *pat, size_t ps, size_t off,
                           size_t size, cl_uint nw, const cl_event *w, cl_event *ev)
{
    REAL(clEnqueueFillBuffer);
    return real(q, b, pat, ps, off, size, nw, w, ev);
}

void *clEnqueueMapBuffer(cl_command_queue q, cl_mem b, cl_bool blocking, cl_map_flags flags,
                         size_t off, size_t size, cl_uint nw, const cl_event *w, cl_event *ev,
                         cl_int *err)
{
    REAL(clEnqueueMapBuffer);
    return real(q, b, blocking, flags, off, size, nw, w, ev, err);
}

cl_int clEnqueueUnmapMemObject(cl_command_queue q, cl_mem b, void *p, cl_uint nw,
                               const cl_event *w, cl_event *ev)
{
    REAL(clEnqueueUnmapMemObject);
    return real(q, b, p, nw, w, ev);
}

cl_int clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dim, const size_t *off,
                              const size_t *global, const size_t *local, cl_uint nw,
                              const cl_event *w, cl_event *ev)
{
    REAL(clEnqueueNDRangeKernel);
    return real(q, k, dim, off, global, local, nw, w, ev);
}
