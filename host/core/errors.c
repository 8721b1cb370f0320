/* errors.c - status codes and their messages, OpenCL error names, and the failure text and
 * warnings kept on a context. The library never prints, except the CLSORT_DEBUG trace. */
#include "core.h"

#include <stdlib.h>
#include <string.h>

const char *clsort_strerror(int status)
{
    switch (status) {
#define CLSORT_MSG_(name, value, msg) \
    case CLSORT_##name:               \
        return msg;
        CLSORT_STATUS_MAP(CLSORT_MSG_)
#undef CLSORT_MSG_
    }
    return "unknown status";
}

const char *clsort_status_name(int status)
{
    switch (status) {
#define CLSORT_NAME_(name, value, msg) \
    case CLSORT_##name:                \
        return #name;
        CLSORT_STATUS_MAP(CLSORT_NAME_)
#undef CLSORT_NAME_
    }
    return "UNKNOWN";
}

#define CLSORT_CL_ERRORS(X)                                                                   \
    X(CL_SUCCESS) X(CL_DEVICE_NOT_FOUND) X(CL_DEVICE_NOT_AVAILABLE) X(CL_COMPILER_NOT_AVAILABLE) \
    X(CL_MEM_OBJECT_ALLOCATION_FAILURE) X(CL_OUT_OF_RESOURCES) X(CL_OUT_OF_HOST_MEMORY)          \
    X(CL_PROFILING_INFO_NOT_AVAILABLE) X(CL_MEM_COPY_OVERLAP) X(CL_IMAGE_FORMAT_MISMATCH)        \
    X(CL_IMAGE_FORMAT_NOT_SUPPORTED) X(CL_BUILD_PROGRAM_FAILURE) X(CL_MAP_FAILURE)               \
    X(CL_MISALIGNED_SUB_BUFFER_OFFSET) X(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)           \
    X(CL_COMPILE_PROGRAM_FAILURE) X(CL_LINKER_NOT_AVAILABLE) X(CL_LINK_PROGRAM_FAILURE)          \
    X(CL_DEVICE_PARTITION_FAILED) X(CL_KERNEL_ARG_INFO_NOT_AVAILABLE) X(CL_INVALID_VALUE)        \
    X(CL_INVALID_DEVICE_TYPE) X(CL_INVALID_PLATFORM) X(CL_INVALID_DEVICE) X(CL_INVALID_CONTEXT)  \
    X(CL_INVALID_QUEUE_PROPERTIES) X(CL_INVALID_COMMAND_QUEUE) X(CL_INVALID_HOST_PTR)            \
    X(CL_INVALID_MEM_OBJECT) X(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR) X(CL_INVALID_IMAGE_SIZE)      \
    X(CL_INVALID_SAMPLER) X(CL_INVALID_BINARY) X(CL_INVALID_BUILD_OPTIONS) X(CL_INVALID_PROGRAM) \
    X(CL_INVALID_PROGRAM_EXECUTABLE) X(CL_INVALID_KERNEL_NAME) X(CL_INVALID_KERNEL_DEFINITION)   \
    X(CL_INVALID_KERNEL) X(CL_INVALID_ARG_INDEX) X(CL_INVALID_ARG_VALUE) X(CL_INVALID_ARG_SIZE)  \
    X(CL_INVALID_KERNEL_ARGS) X(CL_INVALID_WORK_DIMENSION) X(CL_INVALID_WORK_GROUP_SIZE)         \
    X(CL_INVALID_WORK_ITEM_SIZE) X(CL_INVALID_GLOBAL_OFFSET) X(CL_INVALID_EVENT_WAIT_LIST)       \
    X(CL_INVALID_EVENT) X(CL_INVALID_OPERATION) X(CL_INVALID_GL_OBJECT)                          \
    X(CL_INVALID_BUFFER_SIZE) X(CL_INVALID_MIP_LEVEL) X(CL_INVALID_GLOBAL_WORK_SIZE)             \
    X(CL_INVALID_PROPERTY) X(CL_INVALID_IMAGE_DESCRIPTOR) X(CL_INVALID_COMPILER_OPTIONS)         \
    X(CL_INVALID_LINKER_OPTIONS) X(CL_INVALID_DEVICE_PARTITION_COUNT)

const char *clsort__cl_error_name(cl_int err)
{
    switch (err) {
#define CLSORT_CLERR_(e) \
    case e:              \
        return #e;
        CLSORT_CL_ERRORS(CLSORT_CLERR_)
#undef CLSORT_CLERR_
    }
    return "CL_UNKNOWN_ERROR";
}

static void set_text(char **dst, const char *text)
{
    char *copy = malloc(strlen(text) + 1);
    if (!copy) {
        /* Out of memory, often the very failure being reported: the new text, cut to the old
         * one's room, beats a stale message about an earlier call. */
        if (*dst) {
            const size_t room = strlen(*dst);
            snprintf(*dst, room + 1, "%s", text);
        }
        return;
    }
    strcpy(copy, text);
    free(*dst);
    *dst = copy;
}

static void append_text(char **dst, const char *text)
{
    const size_t old = *dst ? strlen(*dst) : 0;
    char *grown = realloc(*dst, old + strlen(text) + 1);
    if (!grown)
        return;
    strcpy(grown + old, text);
    *dst = grown;
}

int clsort__fail(clsort_ctx *ctx, int status, const char *fmt, ...)
{
    if (ctx) {
        char buf[2048];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        set_text(&ctx->last_error, buf);
        clsort__trace(ctx, "error: %s", buf);
    }
    return status;
}

int clsort__cl_fail(clsort_ctx *ctx, cl_int err, const char *call, const char *what)
{
    int status = CLSORT_ERR_OPENCL;
    if (err == CL_OUT_OF_HOST_MEMORY || err == CL_MEM_OBJECT_ALLOCATION_FAILURE ||
        err == CL_OUT_OF_RESOURCES || err == CL_INVALID_BUFFER_SIZE)
        status = CLSORT_ERR_OUT_OF_MEMORY;
    else if (err == CL_BUILD_PROGRAM_FAILURE || err == CL_INVALID_BUILD_OPTIONS ||
             err == CL_COMPILE_PROGRAM_FAILURE)
        status = CLSORT_ERR_BUILD;
    return clsort__fail(ctx, status, "%s(%s) failed: %s (%d)%s", call, what ? what : "",
                        clsort__cl_error_name(err), (int)err,
                        status == CLSORT_ERR_OUT_OF_MEMORY ? ": out of memory" : "");
}

void clsort__append_error(clsort_ctx *ctx, const char *text)
{
    if (ctx)
        append_text(&ctx->last_error, text);
}

void clsort__warn(clsort_ctx *ctx, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    append_text(&ctx->warnings, buf);
    append_text(&ctx->warnings, "\n");
    clsort__trace(ctx, "warning: %s", buf);
}

void clsort__trace(const clsort_ctx *ctx, const char *fmt, ...)
{
    if (!ctx || !ctx->debug)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("clsort: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

const char *clsort_last_error(const clsort_ctx *ctx)
{
    if (!ctx)
        return "no context (NULL)";
    return ctx->last_error ? ctx->last_error : "";
}

const char *clsort_warnings(const clsort_ctx *ctx)
{
    if (!ctx)
        return "";
    return ctx->warnings ? ctx->warnings : "";
}
