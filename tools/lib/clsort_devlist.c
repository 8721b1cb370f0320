/* clsort_devlist.c - expanding "-d 0:0,0:1", "gpu:all", "cpu:all" and "all" into single specs.
 * The library takes one spec per context; lists and ":all" are a tool-level notion, resolved here
 * with clsort_list_devices() so that the numbering is the one --list-devices shows. */
#include "clsort_devlist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clsort.h"
#include "clsort_messages.h"

static int push(cli_devlist *l, const char *s, size_t len)
{
    char **const specs = realloc(l->specs, (l->n + 1) * sizeof *specs);
    if (!specs)
        return -1;
    l->specs = specs;
    char *const copy = malloc(len + 1);
    if (!copy)
        return -1;
    memcpy(copy, s, len);
    copy[len] = '\0';
    l->specs[l->n++] = copy;
    return 0;
}

/* What the listing callback fills: the devices of one wanted type (NULL: all). */
typedef struct collect {
    cli_devlist *l;
    const char *type;
    size_t matched;
    int oom;
} collect;

static void collect_device(const clsort_device_info *info, int is_default, void *user)
{
    collect *const c = user;
    char spec[32];
    (void)is_default;
    if (c->type && strcmp(info->type, c->type) != 0)
        return;
    snprintf(spec, sizeof spec, "%u:%u", info->platform_index, info->device_index);
    if (push(c->l, spec, strlen(spec)) != 0)
        c->oom = 1;
    c->matched++;
}

static int item_is(const char *item, size_t len, const char *word)
{
    return strlen(word) == len && strncmp(item, word, len) == 0;
}

int cli_devlist_is_multi(const char *spec)
{
    if (!spec)
        return 0;
    if (strchr(spec, ','))
        return 1;
    return !strcmp(spec, "all") || !strcmp(spec, "gpu:all") || !strcmp(spec, "cpu:all");
}

int cli_devlist_expand(const char *spec, cli_devlist *out)
{
    memset(out, 0, sizeof *out);
    if (!spec || !*spec) {
        if (push(out, "", 0) != 0)
            goto oom;
        return CLI_EXIT_OK;
    }
    const char *p = spec;
    for (;;) {
        const char *const comma = strchr(p, ',');
        const size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == 0) {
            cli_error("invalid device list '%s': empty item (expected e.g. 0:0,0:1)", spec);
            cli_devlist_free(out);
            return CLI_EXIT_USAGE;
        }
        const char *type = NULL;
        int all = 0;
        if (item_is(p, len, "all"))
            all = 1;
        else if (item_is(p, len, "gpu:all"))
            type = "gpu";
        else if (item_is(p, len, "cpu:all"))
            type = "cpu";
        if (all || type) {
            collect c = { out, type, 0, 0 };
            const int n = clsort_list_devices(collect_device, &c);
            if (c.oom)
                goto oom;
            if (n < 0) {
                cli_error("cannot list OpenCL devices for '%.*s': %s", (int)len, p,
                          clsort_strerror(n));
                cli_devlist_free(out);
                return CLI_EXIT_DEVICE;
            }
            if (c.matched == 0) {
                cli_error("no OpenCL device matches '%.*s' (see clsort --list-devices)", (int)len,
                          p);
                cli_devlist_free(out);
                return CLI_EXIT_DEVICE;
            }
        } else if (push(out, p, len) != 0) {
            goto oom;
        }
        if (!comma)
            break;
        p = comma + 1;
    }
    return CLI_EXIT_OK;
oom:
    cli_error("out of host memory");
    cli_devlist_free(out);
    return CLI_EXIT_IO;
}

void cli_devlist_free(cli_devlist *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n; ++i)
        free(l->specs[i]);
    free(l->specs);
    l->specs = NULL;
    l->n = 0;
}
