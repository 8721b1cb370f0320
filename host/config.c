/* config.c - which parameters a device gets: tuned configs come with clsort-tune; until one is
 * found, built-in defaults derived from the device's limits (params.c). */
#include "internal.h"

#include <string.h>

void clsort__config_source_for(const clsort__device *dev, char *out, size_t out_size)
{
    (void)dev;
    snprintf(out, out_size, "built-in defaults");
}

void clsort__load_config(clsort_ctx *ctx)
{
    for (int net = 0; net < CLSORT__NETWORKS; ++net)
        for (int w = 0; w < CLSORT__WIDTHS; ++w)
            for (int v = 0; v < CLSORT__VALKINDS; ++v)
                clsort__default_params(&ctx->dev, net, w, v, &ctx->configured[net][w][v]);
    ctx->nauto_rules = 0;
    /* Below this size a host array is sorted on the host: the device round trip costs more. */
    ctx->host_fallback_max = (ctx->dev.type & CL_DEVICE_TYPE_GPU) ? 4096 : 2048;
    clsort__config_source_for(&ctx->dev, ctx->config_source, sizeof ctx->config_source);
}
