/* clsort_request.h - the CLI's options turned into the narrow requests of the layers below: the
 * records layer (tools/lib/clsort_records.h) knows keys and sizes, never the command line. */
#ifndef CLSORT_REQUEST_H
#define CLSORT_REQUEST_H

#include <stddef.h>

#include "clsort.h"
#include "clsort_args.h"
#include "clsort_records.h"

/** Fills *ks from the options: the first key, the tie-breakers, -u. */
void cli_keyspec_from_opts(cli_keyspec *ks, const cli_opts *o);

/** cli_run_records for the options' keys, -s and -S. */
size_t cli_run_records_for(const cli_opts *o, const clsort_device_info *di, int *capped);

#endif
