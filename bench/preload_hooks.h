/* The reference preload libraries' hooks: the libc entry points the micro
 * benchmark reaches (and their *64, fortified and *at siblings, so a caller
 * built differently still lands here), each doing
 *
 *     PRELOAD_CHECK(dirfd, path);   for every path argument
 *     return real(...);             the next definition, via dlsym(RTLD_NEXT)
 *
 * The including file defines PRELOAD_CHECK before including this header:
 * preload_empty.c as nothing (the floor any shim pays: one extra call and a
 * pointer load), preload_realpath.c as realpath() of the path (the naive way
 * to see through symlinks).  PRELOAD_CHECK must leave errno as it found it.
 *
 * The real functions are looked up on first use, not in a constructor, so a
 * hook reached from another library's constructor still works; the pointer
 * is stored with relaxed atomics, so two threads racing to look it up store
 * the same value. */
#ifndef SBP_BENCH_PRELOAD_HOOKS_H
#define SBP_BENCH_PRELOAD_HOOKS_H

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#ifndef PRELOAD_CHECK
#error "define PRELOAD_CHECK(dirfd, path) before including preload_hooks.h"
#endif

#define EXPORT __attribute__((visibility("default")))

/* Fortified entry points (_FORTIFY_SOURCE callers): glibc's headers declare
 * them only when fortifying, so declare them here. */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

static void *preload_resolve(void **slot, const char *name)
{
	void *p = __atomic_load_n(slot, __ATOMIC_RELAXED);
	if (!p) {
		p = dlsym(RTLD_NEXT, name);
		__atomic_store_n(slot, p, __ATOMIC_RELAXED);
	}
	return p;
}

/* REAL(f): the next definition of libc function f, with f's own type;
 * NOREAL(): what a hook returns when there is none. */
#define REAL(f)                                                                   \
	({                                                                        \
		static void *slot_##f;                                            \
		(__typeof__(&f))preload_resolve(&slot_##f, #f);                   \
	})
#define NOREAL() (errno = ENOSYS, -1)

/* The mode argument of the open family: present only with O_CREAT or
 * O_TMPFILE, read it only then. */
#define OPEN_MODE(flags, mode)                                                          \
	do {                                                                            \
		if (((flags) & O_CREAT) || ((flags) & O_TMPFILE) == O_TMPFILE) {       \
			va_list ap;                                                     \
			va_start(ap, flags);                                            \
			mode = va_arg(ap, mode_t);                                      \
			va_end(ap);                                                     \
		}                                                                       \
	} while (0)

/* ---- open family ---- */

#define HOOK_OPEN(f)                                                  \
	EXPORT int f(const char *path, int flags, ...)                \
	{                                                             \
		mode_t mode = 0;                                      \
		OPEN_MODE(flags, mode);                               \
		PRELOAD_CHECK(AT_FDCWD, path);                        \
		__typeof__(&f) real = REAL(f);                        \
		return real ? real(path, flags, mode) : NOREAL();     \
	}
#define HOOK_OPENAT(f)                                                    \
	EXPORT int f(int dirfd, const char *path, int flags, ...)         \
	{                                                                 \
		mode_t mode = 0;                                          \
		OPEN_MODE(flags, mode);                                   \
		PRELOAD_CHECK(dirfd, path);                               \
		__typeof__(&f) real = REAL(f);                            \
		return real ? real(dirfd, path, flags, mode) : NOREAL();  \
	}
#define HOOK_OPEN2(f)                                             \
	EXPORT int f(const char *path, int flags)                 \
	{                                                         \
		PRELOAD_CHECK(AT_FDCWD, path);                    \
		__typeof__(&f) real = REAL(f);                    \
		return real ? real(path, flags) : NOREAL();       \
	}
#define HOOK_OPENAT2(f)                                              \
	EXPORT int f(int dirfd, const char *path, int flags)         \
	{                                                            \
		PRELOAD_CHECK(dirfd, path);                          \
		__typeof__(&f) real = REAL(f);                       \
		return real ? real(dirfd, path, flags) : NOREAL();   \
	}
#define HOOK_CREAT(f)                                         \
	EXPORT int f(const char *path, mode_t mode)           \
	{                                                     \
		PRELOAD_CHECK(AT_FDCWD, path);                \
		__typeof__(&f) real = REAL(f);                \
		return real ? real(path, mode) : NOREAL();    \
	}

HOOK_OPEN(open)
HOOK_OPEN(open64)
HOOK_OPENAT(openat)
HOOK_OPENAT(openat64)
HOOK_OPEN2(__open_2)
HOOK_OPEN2(__open64_2)
HOOK_OPENAT2(__openat_2)
HOOK_OPENAT2(__openat64_2)
HOOK_CREAT(creat)
HOOK_CREAT(creat64)

/* ---- rename ---- */

EXPORT int rename(const char *from, const char *to)
{
	PRELOAD_CHECK(AT_FDCWD, from);
	PRELOAD_CHECK(AT_FDCWD, to);
	__typeof__(&rename) real = REAL(rename);
	return real ? real(from, to) : NOREAL();
}

EXPORT int renameat(int fromfd, const char *from, int tofd, const char *to)
{
	PRELOAD_CHECK(fromfd, from);
	PRELOAD_CHECK(tofd, to);
	__typeof__(&renameat) real = REAL(renameat);
	return real ? real(fromfd, from, tofd, to) : NOREAL();
}

EXPORT int renameat2(int fromfd, const char *from, int tofd, const char *to, unsigned int flags)
{
	PRELOAD_CHECK(fromfd, from);
	PRELOAD_CHECK(tofd, to);
	__typeof__(&renameat2) real = REAL(renameat2);
	return real ? real(fromfd, from, tofd, to, flags) : NOREAL();
}

/* ---- make and remove ---- */

EXPORT int mkdir(const char *path, mode_t mode)
{
	PRELOAD_CHECK(AT_FDCWD, path);
	__typeof__(&mkdir) real = REAL(mkdir);
	return real ? real(path, mode) : NOREAL();
}

EXPORT int mkdirat(int dirfd, const char *path, mode_t mode)
{
	PRELOAD_CHECK(dirfd, path);
	__typeof__(&mkdirat) real = REAL(mkdirat);
	return real ? real(dirfd, path, mode) : NOREAL();
}

EXPORT int rmdir(const char *path)
{
	PRELOAD_CHECK(AT_FDCWD, path);
	__typeof__(&rmdir) real = REAL(rmdir);
	return real ? real(path) : NOREAL();
}

EXPORT int unlink(const char *path)
{
	PRELOAD_CHECK(AT_FDCWD, path);
	__typeof__(&unlink) real = REAL(unlink);
	return real ? real(path) : NOREAL();
}

EXPORT int unlinkat(int dirfd, const char *path, int flags)
{
	PRELOAD_CHECK(dirfd, path);
	__typeof__(&unlinkat) real = REAL(unlinkat);
	return real ? real(dirfd, path, flags) : NOREAL();
}

/* ---- stat and access ---- */

#define HOOK_STAT(f, st_t)                                        \
	EXPORT int f(const char *path, st_t *st)                  \
	{                                                         \
		PRELOAD_CHECK(AT_FDCWD, path);                    \
		__typeof__(&f) real = REAL(f);                    \
		return real ? real(path, st) : NOREAL();          \
	}
#define HOOK_FSTATAT(f, st_t)                                              \
	EXPORT int f(int dirfd, const char *path, st_t *st, int flags)     \
	{                                                                  \
		PRELOAD_CHECK(dirfd, path);                                \
		__typeof__(&f) real = REAL(f);                             \
		return real ? real(dirfd, path, st, flags) : NOREAL();     \
	}

HOOK_STAT(stat, struct stat)
HOOK_STAT(lstat, struct stat)
HOOK_STAT(stat64, struct stat64)
HOOK_STAT(lstat64, struct stat64)
HOOK_FSTATAT(fstatat, struct stat)
HOOK_FSTATAT(fstatat64, struct stat64)

EXPORT int access(const char *path, int mode)
{
	PRELOAD_CHECK(AT_FDCWD, path);
	__typeof__(&access) real = REAL(access);
	return real ? real(path, mode) : NOREAL();
}

EXPORT int faccessat(int dirfd, const char *path, int mode, int flags)
{
	PRELOAD_CHECK(dirfd, path);
	__typeof__(&faccessat) real = REAL(faccessat);
	return real ? real(dirfd, path, mode, flags) : NOREAL();
}

#endif
