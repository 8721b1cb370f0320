/* config.h - which parameters a device gets (config.c): the tuned config found by the lookup
 * chain of docs/tuning.md, or built-in defaults. Feeds the context's parameters. */
#ifndef CLSORT_CONFIG_H
#define CLSORT_CONFIG_H

#include "core.h"

/* The largest host_fallback_max a config may set: beyond it the host sort is no "fallback". */
#define CLSORT__HOST_FALLBACK_LIMIT ((uint64_t)1 << 20)

/* Loads the tuned config for ctx->dev (lookup chain in docs/tuning.md) into ctx->configured,
 * ctx->auto_rules and ctx->host_fallback_max, falling back to built-in defaults with a warning
 * when a file is unusable. Never fails. */
void clsort__load_config(clsort_ctx *ctx);
/* The config file that would be used for dev, or "built-in defaults". */
void clsort__config_source_for(const clsort__device *dev, char *out, size_t out_size);
/* The config file name of a device: normalised vendor, "--", normalised name, ".ini". */
void clsort__config_file_name(const clsort__device *dev, char *out, size_t out_size);
/* The first directory of the lookup: $CLSORT_CONFIG_DIR, else $XDG_CONFIG_HOME/clsort, else
 * $HOME/.config/clsort. Returns 0, or -1 if none can be formed (or it does not fit). */
int clsort__user_config_dir(char *out, size_t out_size);
/* The size of one directory name of the lookup. */
#define CLSORT__CONFIG_DIR_MAX 1024
/* The places of the configs shipped with clsort, in lookup order (docs/tuning.md), up to
 * max_dirs of them: from the directory D of the library's file (clsort__library_dir)
 * D/../share/clsort/devices, D/../../share/clsort/devices when D's parent is a lib* directory
 * (multiarch), D/../configs (the build tree), then the CLSORT_DATADIR compiled in. Returns how
 * many were written. */
int clsort__shipped_config_dirs(char dirs[][CLSORT__CONFIG_DIR_MAX], int max_dirs);

#endif /* CLSORT_CONFIG_H */
