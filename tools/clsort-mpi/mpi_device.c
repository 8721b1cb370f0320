/* mpi_device.c - one device per rank. Ranks on one host share its devices in turn (local rank i
 * takes device i mod count), so `mpirun -n 8` on a host of 8 GPUs puts one rank on each without a
 * per-rank -d, as the usual one-rank-per-GPU launch expects. */
#include "mpi_device.h"

#include <stdio.h>
#include <string.h>

#include "clsort_devlist.h"
#include "clsort_messages.h"

static void count_gpu(const clsort_device_info *info, int is_default, void *user)
{
    (void)is_default;
    if (strcmp(info->type, "gpu") == 0)
        ++*(int *)user;
}

int mpi_device_open(const char *spec, int local_rank, clsort_ctx **ctx, char *used, size_t cap)
{
    *ctx = NULL;
    const char *list = spec;
    if (!spec || !*spec) {
        int gpus = 0;
        clsort_list_devices(count_gpu, &gpus);
        list = gpus > 0 ? "gpu:all" : NULL;
    } else if (!strcmp(spec, "gpu") || !strcmp(spec, "GPU")) {
        list = "gpu:all";
    } else if (!strcmp(spec, "cpu") || !strcmp(spec, "CPU")) {
        list = "cpu:all";
    }
    cli_devlist devs;
    int rc = cli_devlist_expand(list, &devs);
    if (rc != CLI_EXIT_OK)
        return rc;
    const char *const mine = devs.specs[(size_t)local_rank % devs.n];
    snprintf(used, cap, "%s", *mine ? mine : "default");
    const int lrc = clsort_create(ctx, mine);
    if (lrc != CLSORT_OK) {
        if (lrc == CLSORT_ERR_NO_DEVICE)
            cli_error("no OpenCL device matches '%s' (see clsort --list-devices)", used);
        else
            cli_error("cannot use OpenCL device '%s': %s", used, clsort_strerror(lrc));
        rc = CLI_EXIT_DEVICE;
    }
    cli_devlist_free(&devs);
    return rc;
}
