/* device.h - OpenCL platform and device discovery (device.c): the bottom layer above the core. */
#ifndef CLSORT_DEVICE_H
#define CLSORT_DEVICE_H

#include "core.h"

/* Fills dev for the device chosen by spec (see clsort_create). Returns CLSORT_OK,
 * CLSORT_ERR_NO_DEVICE or CLSORT_ERR_OPENCL; `why` receives a message on failure. */
int clsort__select_device(const char *spec, clsort__device *dev, char *why, size_t why_size);
/* Queries every fact of dev->id (and its platform). */
int clsort__query_device(clsort__device *dev);
/* Enumerates all devices: fn(dev, user) for each; returns the count or a negative status. */
int clsort__for_each_device(int (*fn)(const clsort__device *dev, void *user), void *user);
const char *clsort__device_type_name(cl_device_type type);

#endif /* CLSORT_DEVICE_H */
