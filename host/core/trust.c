/* trust.c - the ownership and mode check for the program cache and the tuned configs: a cached
 * binary is code that runs on the device and a config chooses kernel parameters, so neither may
 * come from a place that another user can write (docs/security.md). */
#define _XOPEN_SOURCE 700 /* S_ISVTX, the sticky bit, is an XSI name */

#include "trust.h"

#include <stdio.h>
#include <unistd.h>

int clsort__check_trusted_stat(const struct stat *st, char *why, size_t why_size)
{
    if (st->st_uid != geteuid() && st->st_uid != 0) {
        snprintf(why, why_size, "owned by another user (uid %lu)", (unsigned long)st->st_uid);
        return -1;
    }
    /* A sticky directory (like /tmp) lets others add files but not rename or delete ours;
     * entries read from it are checked one by one. A writable file is never trusted. */
    const int sticky_dir = S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX);
    if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !sticky_dir) {
        snprintf(why, why_size, "writable by %s (mode %04o)",
                 (st->st_mode & S_IWOTH) ? "other users" : "its group",
                 (unsigned)(st->st_mode & 07777));
        return -1;
    }
    return 0;
}

int clsort__check_trusted_path(const char *path, char *why, size_t why_size)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return 0; /* ENOENT and the rest: see trust.h */
    return clsort__check_trusted_stat(&st, why, why_size);
}
