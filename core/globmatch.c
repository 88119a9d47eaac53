#include "globmatch.h"

#include <string.h>

static bool is_meta(char c)
{
	return c == '*' || c == '?' || c == '[';
}

const char *sbp_glob_check(const char *pat)
{
	const char *p = pat;

	while (*p) {
		if (*p == '\\') {
			if (!p[1])
				return "trailing backslash";
			p += 2;
			continue;
		}
		if (*p == '[') {
			const char *q = p + 1;
			if (*q == '!' || *q == '^')
				q++;
			if (*q == ']')
				q++;
			while (*q && *q != ']') {
				if (*q == '/')
					return "'/' inside a [...] class";
				q++;
			}
			if (!*q)
				return "unterminated [...] class";
			p = q + 1;
			continue;
		}
		if (p[0] == '*' && p[1] == '*') {
			bool start = p == pat || p[-1] == '/';
			bool end = p[2] == '\0' || p[2] == '/';
			if (!start || !end || p[2] == '*')
				return "'**' must be a whole path component";
			p += 2;
			continue;
		}
		p++;
	}
	return NULL;
}

bool sbp_glob_is_glob(const char *pat)
{
	for (const char *p = pat; *p; p++) {
		if (*p == '\\') {
			if (!*++p)
				break;
			continue;
		}
		if (is_meta(*p))
			return true;
	}
	return false;
}

size_t sbp_glob_literal_prefix(const char *pat)
{
	size_t last_slash = 0;

	for (size_t i = 0; pat[i]; i++) {
		if (pat[i] == '\\' || is_meta(pat[i]))
			return last_slash;
		if (pat[i] == '/')
			last_slash = i;
	}
	return strlen(pat);
}

/* Match one [...] class at *pp against C; advance *pp past the class. */
static bool class_match(const char **pp, char c)
{
	const char *p = *pp + 1;
	bool neg = false, hit = false;

	if (*p == '!' || *p == '^') {
		neg = true;
		p++;
	}
	const char *first = p;
	while (*p && (*p != ']' || p == first)) {
		char lo = *p, hi = *p;
		if (p[1] == '-' && p[2] && p[2] != ']') {
			hi = p[2];
			p += 2;
		}
		if (lo <= c && c <= hi)
			hit = true;
		p++;
	}
	*pp = *p ? p + 1 : p;
	return hit != neg && c != '/';
}

/* One character of the pattern ('?', a [...] class, an escaped or a plain
 * character) against one of the text (not the end); advances both. */
static bool one(const char **pp, const char **ss)
{
	const char *p = *pp, *s = *ss;

	if (*p == '?') {
		*pp = p + 1, *ss = s + 1;
		return *s != '/';
	}
	if (*p == '[') {
		*ss = s + 1;
		return class_match(pp, *s);
	}
	if (*p == '\\' && p[1])
		p++;
	*pp = p + 1, *ss = s + 1;
	return *p == *s;
}

static bool match(const char *p, const char *s)
{
	for (;;) {
		if (*p == '\0')
			return *s == '\0' || *s == '/';
		if (p[0] == '*' && p[1] == '*') {
			/* "**" is a whole component (checked at load): zero or
			 * more components.  S is at a component start here. */
			const char *rest = p[2] ? p + 3 : p + 2;
			if (!*rest)
				return true;
			for (;;) {
				if (match(rest, s))
					return true;
				s = strchr(s, '/');
				if (!s)
					return false;
				s++;
			}
		}
		if (*p == '*') {
			p++;
			for (;;) {
				if (match(p, s))
					return true;
				if (*s == '\0' || *s == '/')
					return false;
				s++;
			}
		}
		if (*s == '\0')
			return strcmp(p, "/**") == 0; /* "/a/" "**" also names "/a" */
		if (!one(&p, &s))
			return false;
	}
}

bool sbp_glob_match(const char *pat, const char *path)
{
	return match(pat, path);
}

/* Whether P can match S + "/" + Y for some non-empty Y: S is the rest of a
 * directory path, which the text goes on past. */
static bool beneath(const char *p, const char *s)
{
	for (;;) {
		if (*s == '\0') {
			/* The text goes on with "/Y": a star may match nothing,
			 * then the pattern must be at a component end. */
			while (*p == '*' && p[1] != '*')
				p++;
			return *p == '\0' || *p == '/';
		}
		if (*p == '\0')
			return *s == '/'; /* an ancestor of S matched: the whole tree */
		if (p[0] == '*' && p[1] == '*')
			return true; /* "**" takes the rest of S; what follows fits some Y */
		if (*p == '*') {
			p++;
			for (;;) {
				if (beneath(p, s))
					return true;
				if (*s == '\0' || *s == '/')
					return false;
				s++;
			}
		}
		if (!one(&p, &s))
			return false;
	}
}

bool sbp_glob_match_beneath(const char *pat, const char *dir)
{
	if (dir[0] == '/' && dir[1] == '\0')
		return pat[0] == '/';
	return beneath(pat, dir);
}
