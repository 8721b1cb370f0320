/* dispatch_empty.c - a _buffer call with nothing to do (dispatch.h): its wait list honoured and
 * its event handed back all the same, written once for every _buffer call. */
#include "dispatch.h"

int clsort__enqueue_nothing(clsort_ctx *ctx, cl_uint num_wait, const cl_event *wait,
                            cl_event *done)
{
    if (!num_wait && !done)
        return CLSORT_OK;
    cl_event ev = NULL;
    const cl_int err = clEnqueueMarkerWithWaitList(ctx->queue, num_wait, wait, &ev);
    if (err != CL_SUCCESS)
        return clsort__cl_fail(ctx, err, "clEnqueueMarkerWithWaitList", "");
    if (done)
        *done = ev;
    else
        clReleaseEvent(ev);
    return CLSORT_OK;
}
