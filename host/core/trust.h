/* trust.h - whether a cache or config path may be used although other users might have written
 * it (trust.c, docs/security.md). A leaf: depends on nothing in the library. Never installed. */
#ifndef CLSORT_TRUST_H
#define CLSORT_TRUST_H

#include <stddef.h>
#include <sys/stat.h>

/* Whether st (of a file or directory clsort is about to read code or settings from) is safe:
 * owned by the effective user or root, and not writable by group or others, except a directory
 * with the sticky bit (others may add files there but not replace ours; each file is then checked
 * on its own). Returns 0 if safe, else -1 with a reason ("owned by uid 1001", "writable by
 * others (mode 0777)") in why. */
int clsort__check_trusted_stat(const struct stat *st, char *why, size_t why_size);

/* The same for a path, following links. A path that does not exist (ENOENT) is safe: nothing
 * can be read from it, and what clsort creates is its own. Other stat errors count as safe too:
 * the open that follows fails and is handled there. Returns 0 or -1 as above. */
int clsort__check_trusted_path(const char *path, char *why, size_t why_size);

#endif /* CLSORT_TRUST_H */
