/* dispatch_context.c - a context's lifetime and state behind the public calls (api_context.c
 * takes the lock, checks the arguments and forwards here): the device opened, or the caller's
 * queue adopted; what every new context loads (the debug level, its config, the transfer
 * staging); closing it; its network parameters and the last call's statistics; device facts
 * and the device list. */
#include "dispatch.h"

#include "config.h"
#include "device.h"
#include "params.h"
#include "plan.h"
#include "program.h"
#include "run.h"
#include "transfer.h"

#include <stdlib.h>
#include <string.h>

/* The CLSORT_DEBUG level: 0 off, 1 for any other value, or the number if above 1. */
static int debug_level(void)
{
    const char *dbg = getenv("CLSORT_DEBUG");
    return (dbg && *dbg && strcmp(dbg, "0") != 0) ? (atoi(dbg) > 1 ? atoi(dbg) : 1) : 0;
}

/* Everything a new context needs once it has a device, a context and a queue. */
static int finish_open(clsort_ctx *ctx)
{
    ctx->debug = debug_level();
    cl_command_queue_properties props = 0;
    clGetCommandQueueInfo(ctx->queue, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL);
    ctx->profiling = (props & CL_QUEUE_PROFILING_ENABLE) != 0;
    clsort__load_config(ctx); /* fills ctx->configured, auto rules, host fallback, warnings */
    memcpy(ctx->params, ctx->configured, sizeof ctx->params);
    if (clsort__transfer_init(ctx) != CLSORT_OK)
        return CLSORT_ERR_OUT_OF_MEMORY;
    clsort__trace(ctx, "device %u:%u %s (%s), config: %s", ctx->dev.platform_index,
                  ctx->dev.device_index, ctx->dev.name, ctx->dev.driver, ctx->config_source);
    return CLSORT_OK;
}

int clsort__context_open(clsort_ctx *ctx, const char *device)
{
    /* Set before the device is opened, so that the trace says why a create failed: the context
     * and its failure text are gone when clsort_create returns an error. */
    ctx->debug = debug_level();
    char why[512];
    int rc = clsort__select_device(device, &ctx->dev, why, sizeof why);
    if (rc != CLSORT_OK) {
        clsort__trace(ctx, "clsort_create: %s", why);
        return rc;
    }
    cl_int err;
    cl_context_properties cprops[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)ctx->dev.platform,
                                      0};
    ctx->context = clCreateContext(cprops, 1, &ctx->dev.id, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        ctx->context = NULL;
        rc = clsort__cl_fail(ctx, err, "clCreateContext", ctx->dev.name);
        /* Seen as "a second process cannot sort": a GPU in exclusive-process compute mode takes
         * one process at a time (NVIDIA answers CL_DEVICE_NOT_AVAILABLE or
         * CL_OUT_OF_RESOURCES). */
        if (err == CL_DEVICE_NOT_AVAILABLE || err == CL_OUT_OF_RESOURCES)
            clsort__trace(ctx, "clsort_create: device %s is unavailable; if another process is "
                               "using it, the device may be in an exclusive compute mode "
                               "(nvidia-smi -q shows 'Compute Mode')", ctx->dev.name);
        return rc;
    }
    ctx->queue = clCreateCommandQueue(ctx->context, ctx->dev.id, CL_QUEUE_PROFILING_ENABLE, &err);
    if (err != CL_SUCCESS) {
        ctx->queue = NULL;
        return clsort__cl_fail(ctx, err, "clCreateCommandQueue", ctx->dev.name);
    }
    return finish_open(ctx);
}

typedef struct find_ids {
    cl_device_id id;
    unsigned p, d;
} find_ids;

static int match_id(const clsort__device *dev, void *user)
{
    find_ids *f = user;
    if (dev->id != f->id)
        return 0;
    f->p = dev->platform_index;
    f->d = dev->device_index;
    return 1;
}

int clsort__context_adopt(clsort_ctx *ctx, cl_command_queue queue)
{
    cl_context context = NULL;
    cl_device_id id = NULL;
    cl_int err = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof context, &context, NULL);
    err |= clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof id, &id, NULL);
    if (err != CL_SUCCESS)
        return CLSORT_ERR_INVALID_ARG; /* nothing retained: the context is closed as it is */
    clRetainContext(context);
    clRetainCommandQueue(queue);
    ctx->context = context;
    ctx->queue = queue;
    ctx->dev.id = id;
    if (clsort__query_device(&ctx->dev) != CLSORT_OK)
        return clsort__fail(ctx, CLSORT_ERR_OPENCL, "clGetDeviceInfo failed on the queue's device");
    find_ids f = {ctx->dev.id, 0, 0};
    clsort__for_each_device(match_id, &f);
    ctx->dev.platform_index = f.p;
    ctx->dev.device_index = f.d;
    return finish_open(ctx);
}

void clsort__context_close(clsort_ctx *ctx)
{
    if (ctx->queue)
        clFinish(ctx->queue);
    clsort__transfer_release(ctx);
    if (ctx->stat_first)
        clReleaseEvent(ctx->stat_first);
    if (ctx->stat_last)
        clReleaseEvent(ctx->stat_last);
    for (int i = 0; i < CLSORT__NSCRATCH; ++i)
        if (ctx->scratch[i])
            clReleaseMemObject(ctx->scratch[i]);
    clsort__release_programs(ctx);
    if (ctx->queue)
        clReleaseCommandQueue(ctx->queue);
    if (ctx->context)
        clReleaseContext(ctx->context);
    free(ctx->last_error);
    free(ctx->warnings);
}

int clsort__context_get_params(clsort_ctx *ctx, clsort_algorithm algo, clsort_type type,
                               size_t value_size, uint64_t n, int for_size,
                               clsort_params *params)
{
    clsort__variant v;
    if (clsort__variant_of(algo, type, value_size, &v))
        return CLSORT_ERR_INVALID_ARG;
    *params = for_size ? *clsort__params_for(ctx, &v, n) : ctx->params[v.net][v.width][v.valkind];
    return CLSORT_OK;
}

int clsort__context_set_params(clsort_ctx *ctx, clsort_algorithm algo, clsort_type type,
                               size_t value_size, const clsort_params *params)
{
    clsort__variant v;
    if (clsort__variant_of(algo, type, value_size, &v))
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG, "clsort_set_params: bad argument");
    const int net = v.net, width = v.width, valkind = v.valkind;
    if (!params->wg_size && !params->vec_step && !params->tile && !params->keys_per_item) {
        ctx->params[net][width][valkind] = ctx->configured[net][width][valkind];
        ctx->overridden[net][width][valkind] = 0;
        return CLSORT_OK;
    }
    /* Zero fields keep the configured value. */
    const clsort_params *c = &ctx->configured[net][width][valkind];
    clsort_params p = *params;
    p.wg_size = p.wg_size ? p.wg_size : c->wg_size;
    p.vec_step = p.vec_step ? p.vec_step : c->vec_step;
    p.tile = p.tile ? p.tile : c->tile;
    p.keys_per_item = p.keys_per_item ? p.keys_per_item : c->keys_per_item;
    char why[512];
    if (clsort__check_params(&ctx->dev, &v, &p, why, sizeof why))
        return clsort__fail(ctx, CLSORT_ERR_INVALID_ARG, "clsort_set_params: %s", why);
    ctx->params[net][width][valkind] = p;
    ctx->overridden[net][width][valkind] = 1;
    return CLSORT_OK;
}

void clsort__context_stats(clsort_ctx *ctx, clsort_stats *stats)
{
    if (ctx->stat_last) {
        /* A sort_buffer may still be running: its device time is known once it ends. */
        clWaitForEvents(1, &ctx->stat_last);
        ctx->stats.device_ns = clsort__event_span_ns(ctx->stat_first, ctx->stat_last);
    }
    *stats = ctx->stats;
}

static void fill_info(const clsort__device *dev, clsort_device_info *info)
{
    memset(info, 0, sizeof *info);
    info->name = dev->name;
    info->vendor = dev->vendor;
    info->driver = dev->driver;
    info->platform = dev->platform_name;
    info->type = clsort__device_type_name(dev->type);
    info->platform_index = dev->platform_index;
    info->device_index = dev->device_index;
    info->compute_units = dev->compute_units;
    info->global_mem = dev->global_mem;
    info->max_alloc = dev->max_alloc;
    info->local_mem = dev->local_mem;
    info->max_work_group = dev->max_wg;
    info->has_fp64 = dev->fp64;
}

void clsort__context_device_info(const clsort_ctx *ctx, clsort_device_info *info)
{
    fill_info(&ctx->dev, info);
    info->config_source = ctx->config_source;
}

typedef struct list_state {
    void (*fn)(const clsort_device_info *, int, void *);
    void *user;
    clsort__device def;
    int have_def;
} list_state;

static int list_one(const clsort__device *dev, void *user)
{
    list_state *s = user;
    clsort_device_info info;
    char source[1024];
    fill_info(dev, &info);
    clsort__config_source_for(dev, source, sizeof source);
    info.config_source = source;
    const int is_def = s->have_def && s->def.id == dev->id;
    if (s->fn)
        s->fn(&info, is_def, s->user);
    return 0;
}

int clsort__list_devices(void (*fn)(const clsort_device_info *, int, void *), void *user)
{
    list_state s;
    memset(&s, 0, sizeof s);
    s.fn = fn;
    s.user = user;
    char why[256];
    s.have_def = clsort__select_device(NULL, &s.def, why, sizeof why) == CLSORT_OK;
    return clsort__for_each_device(list_one, &s);
}
