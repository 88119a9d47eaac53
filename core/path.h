/* Lexical path handling: pure string work, no syscalls. */
#ifndef SBP_PATH_H
#define SBP_PATH_H

#include <stdbool.h>
#include <stddef.h>

enum {
	SBP_PATH_DOTDOT = 1,   /* the path had a ".." component */
	SBP_PATH_TRAILING = 2, /* the path ended with '/' (or "/." etc.) */
};

/* Join BASE (absolute, may be NULL when PATH is absolute) and PATH, then
 * normalise: collapse "//" and "/./", apply ".." lexically (never above
 * "/"), drop a trailing '/'.  Writes a NUL-terminated absolute path to OUT.
 * Returns its length, or -1 when it does not fit in OUTSZ.  *FLAGS gets the
 * SBP_PATH_* bits. */
long sbp_path_normalize(const char *base, const char *path, char *out, size_t outsz,
			unsigned *flags);

/* True when PATH is absolute and already what sbp_path_normalize() would
 * make of it (no "//", ".", ".." components, no trailing '/'). */
bool sbp_path_is_normal(const char *path);


#endif
