/* clsort_devlist.h - device specs that name several devices: a comma-separated list of the
 * library's single specs, plus "all", "gpu:all" and "cpu:all". Used by clsort (one context per
 * listed device) and clsort-mpi (each rank on a host takes one entry). */
#ifndef CLSORT_DEVLIST_H
#define CLSORT_DEVLIST_H

#include <stddef.h>

typedef struct cli_devlist {
    char **specs; /* n specs, each one that clsort_create() takes ("P:D" for expanded entries) */
    size_t n;
} cli_devlist;

/** Expands `spec` into single device specs, in the order given: "all" is every device, "gpu:all"
 *  and "cpu:all" every device of that type (as "P:D", in --list-devices order); any other item is
 *  kept as written for clsort_create(). NULL or "" gives one empty spec (the library's default).
 *  Returns CLI_EXIT_OK; CLI_EXIT_USAGE for an empty item ("0:0,,0:1"); CLI_EXIT_DEVICE when an
 *  ":all" item matches no device or OpenCL fails; CLI_EXIT_IO when out of memory (all printed). */
int cli_devlist_expand(const char *spec, cli_devlist *out);

/** Returns 1 if `spec` can name more than one device (it has a comma or an "all" item). */
int cli_devlist_is_multi(const char *spec);

/** Frees the list; NULL-safe, and safe on a list that was never filled. */
void cli_devlist_free(cli_devlist *l);

#endif /* CLSORT_DEVLIST_H */
