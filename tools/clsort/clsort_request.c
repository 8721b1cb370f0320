/* clsort_request.c - the CLI's options turned into the records layer's requests. */
#include "clsort_request.h"

#include <string.h>

void cli_keyspec_from_opts(cli_keyspec *ks, const cli_opts *o)
{
    memset(ks, 0, sizeof *ks);
    ks->type = o->type;
    ks->key_size = o->key_size;
    ks->key_offset = o->key_offset;
    ks->record_size = o->record_size;
    ks->reverse = o->reverse;
    ks->big_endian = o->big_endian;
    ks->nan_largest = o->nan_largest;
    ks->unique = o->unique;
    for (size_t i = 1; i < o->nkeys && i < CLI_MAX_KEYS; ++i)
        ks->extra[ks->nextra++] = o->keys[i];
}

size_t cli_run_records_for(const cli_opts *o, const clsort_device_info *di, int *capped)
{
    cli_keyspec ks;
    cli_keyspec_from_opts(&ks, o);
    const cli_run_request rq = { &ks, o->stable, o->buffer_size };
    return cli_run_records(&rq, di, capped);
}
