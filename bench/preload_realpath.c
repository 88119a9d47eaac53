/* preload_realpath.so: a preload library that calls realpath() on every path
 * before calling through to libc.
 *
 * The naive way for a shim to see through symlinks and "..": one lstat and
 * readlink per component, every call.  Paths that do not exist yet (a create,
 * a mkdir, a rename's target) resolve their parent instead, as such a shim
 * must; a path relative to a directory fd goes through /proc/self/fd/N.  The
 * result is thrown away: this column shows what resolving alone costs. */
#undef _FORTIFY_SOURCE /* the fortified open() is an inline we could not define */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void realpath_check(int dirfd, const char *path)
{
	char in[PATH_MAX], out[PATH_MAX];
	int saved = errno;

	if (!path || !*path)
		goto done;
	if (path[0] != '/' && dirfd != AT_FDCWD) {
		int n = snprintf(in, sizeof in, "/proc/self/fd/%d/%s", dirfd, path);
		if (n < 0 || (size_t)n >= sizeof in)
			goto done;
	} else {
		size_t len = strlen(path);
		if (len >= sizeof in)
			goto done;
		memcpy(in, path, len + 1);
	}
	if (realpath(in, out) || errno != ENOENT)
		goto done;
	/* Not there yet: resolve the parent ("." for a bare name). */
	char *slash = strrchr(in, '/');
	if (!slash)
		(void)realpath(".", out);
	else {
		slash[slash == in] = '\0'; /* "/x" -> "/" */
		(void)realpath(in, out);
	}
done:
	errno = saved;
}

#define PRELOAD_CHECK(dirfd, path) realpath_check(dirfd, path)

#include "preload_hooks.h"
