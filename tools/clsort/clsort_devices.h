/* clsort_devices.h - the tool's informational commands: --list-devices and --clear-cache. */
#ifndef CLSORT_DEVICES_H
#define CLSORT_DEVICES_H

/** Lists every OpenCL device on stdout. Returns CLI_EXIT_OK, or CLI_EXIT_DEVICE when there is no
 *  device or OpenCL fails (printed). */
int cli_list_devices(void);

/** Removes the compiled programs clsort cached ($CLSORT_CACHE_DIR, else $XDG_CACHE_HOME/clsort,
 *  else ~/.cache/clsort) and says how many. Returns CLI_EXIT_OK or CLI_EXIT_IO (printed). */
int cli_clear_cache(void);

#endif /* CLSORT_DEVICES_H */
