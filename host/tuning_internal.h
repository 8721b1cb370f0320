/* tuning_internal.h - what config.c and cache.c share with tuning_api.c: where tuned configs and
 * cached programs live (docs/tuning.md). Never installed. */
#ifndef CLSORT_TUNING_INTERNAL_H
#define CLSORT_TUNING_INTERNAL_H

#include "internal.h"

/* The largest host_fallback_max a config may set: beyond it the host sort is no "fallback". */
#define CLSORT__HOST_FALLBACK_LIMIT ((uint64_t)1 << 20)

/* ---- config.c ---- */
/* The config file name of a device: normalised vendor, "--", normalised name, ".ini". */
void clsort__config_file_name(const clsort__device *dev, char *out, size_t out_size);
/* The first directory of the lookup: $CLSORT_CONFIG_DIR, else $XDG_CONFIG_HOME/clsort, else
 * $HOME/.config/clsort. Returns 0, or -1 if none can be formed (or it does not fit). */
int clsort__user_config_dir(char *out, size_t out_size);
/* Where the configs installed with clsort are (CLSORT_DATADIR). */
const char *clsort__installed_config_dir(void);

/* ---- cache.c ---- */
/* The program cache directory: $CLSORT_CACHE_DIR, else $XDG_CACHE_HOME/clsort, else
 * $HOME/.cache/clsort. Returns 0, or -1 if none can be formed. */
int clsort__cache_dir(char *out, size_t out_size);

#endif /* CLSORT_TUNING_INTERNAL_H */
