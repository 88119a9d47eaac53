#include "path.h"

#include <stdbool.h>
#include <string.h>

/* Append the components of IN to OUT (which holds an absolute normalised
 * path of length *LEN). */
static int append(char *out, size_t outsz, size_t *len, const char *in, unsigned *flags)
{
	const char *p = in;

	while (*p) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		const char *e = strchrnul(p, '/');
		size_t n = (size_t)(e - p);
		bool last = *e == '\0' || e[strspn(e, "/")] == '\0';

		if (n == 1 && p[0] == '.') {
			if (last)
				*flags |= SBP_PATH_TRAILING;
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			*flags |= SBP_PATH_DOTDOT;
			if (last)
				*flags |= SBP_PATH_TRAILING;
			while (*len > 1 && out[*len - 1] != '/')
				(*len)--;
			if (*len > 1)
				(*len)--;
		} else {
			size_t need = *len + (*len > 1) + n + 1;
			if (need > outsz)
				return -1;
			if (*len > 1)
				out[(*len)++] = '/';
			memcpy(out + *len, p, n);
			*len += n;
			if (last && *e == '/')
				*flags |= SBP_PATH_TRAILING;
		}
		p = e;
	}
	out[*len] = '\0';
	return 0;
}

long sbp_path_normalize(const char *base, const char *path, char *out, size_t outsz,
			unsigned *flags)
{
	size_t len = 1;

	*flags = 0;
	if (outsz < 2)
		return -1;
	out[0] = '/';
	out[1] = '\0';
	unsigned f = 0;
	if (path[0] != '/' && base && append(out, outsz, &len, base, &f) < 0)
		return -1;
	f = 0;
	if (append(out, outsz, &len, path, &f) < 0)
		return -1;
	*flags |= f;
	return (long)len;
}

bool sbp_path_is_normal(const char *path)
{
	if (path[0] != '/')
		return false;
	for (const char *p = path; *p; p++) {
		if (*p != '/')
			continue;
		/* p[1] starts a component: it must be a real name. */
		if (p[1] == '/' || (p[1] == '\0' && p != path))
			return false;
		if (p[1] == '.' && (p[2] == '/' || p[2] == '\0' || (p[2] == '.' && (p[3] == '/' || p[3] == '\0'))))
			return false;
	}
	return true;
}
