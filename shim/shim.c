/* libsbpreload.so: start-up and the wrappers of the hook table.
 *
 * Each wrapper decodes its call into (operation, dirfd, path, how to judge
 * it), lets sbp_check()/sbp_open() judge it, and then acts through the
 * target the check returned. */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <linux/openat2.h>
#include <mntent.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <utmp.h>
#include <utmpx.h>
#include <unistd.h>
#include <utime.h>

#include "config.h"
#include "shim.h"

#define EXPORT __attribute__((visibility("default")))

/* The real functions, one pointer per table row. */
#define HOOK(ret, name, params) static ret(*real_##name) params;
#include "hooks.def"
#undef HOOK

/* Each wrapper's prototype must match libc's declaration. */
#define HOOK(ret, name, params) extern ret name params;
#include "hooks.def"
#undef HOOK

/* The registry the tests and the benchmark walk. */
#define HOOK(ret, name, params) #name,
EXPORT const char *const sbp_hooked_names[] = {
#include "hooks.def"
};
#undef HOOK
EXPORT const unsigned sbp_hooked_count = sizeof(sbp_hooked_names) / sizeof(sbp_hooked_names[0]);

const struct sbp_policy *sbp_pol;
char sbp_exe[PATH_MAX];
static int init_state; /* 0 = not yet, 1 = running, 2 = done */

static void resolve_real(void)
{
#define HOOK(ret, name, params) real_##name = (ret(*) params)dlsym(RTLD_NEXT, #name);
#include "hooks.def"
#undef HOOK
}

/* The shim cannot start: say why and stop, never run unconfined. */
static __attribute__((noreturn)) void die(const char *what, const char *detail)
{
	char buf[1400];
	struct sbp_buf b = {buf, sizeof(buf), 0};

	sbp_buf_add(&b, "sbpreload: ");
	sbp_buf_add(&b, what);
	if (detail) {
		sbp_buf_add(&b, ": ");
		sbp_buf_add(&b, detail);
	}
	sbp_buf_add(&b, "\n");
	if (write(2, buf, b.len) < 0) {
		/* nowhere left to say it */
	}
	_exit(125);
}

/* Keep the policy in read-only memory of its own. */
static const struct sbp_policy *seal(void *blob, size_t size)
{
	void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return blob;
	memcpy(m, blob, size);
	mprotect(m, size, PROT_READ);
	free(blob);
	return m;
}

/* Running without the launcher: load the policy the way the launcher
 * would, and hand it to our children through the environment so that the
 * session compiles it once and says once that the kernel layer is absent. */
static const struct sbp_policy *load_alone(void)
{
	struct sbp_config c;
	struct sbp_compiled out;

	sbp_config_init(&c);
	if (sbp_config_load_string(&c, sbp_default_ini, "built-in default") < 0)
		die(c.err, NULL);
	const char *file = sbp_config_pick_file(NULL);
	if (file && sbp_config_load_file(&c, file) < 0)
		die(c.err, NULL);
	if (sbp_config_load_env(&c, environ) < 0 || sbp_config_compile(&c, NULL, &out) < 0)
		die(c.err, NULL);
	sbp_config_free(&c);
	char *enc = sbp_blob_encode(out.blob, out.size);
	setenv("SBPRELOAD_POLICY", enc, 1);
	free(enc);
	free(out.workspace);
	if (!out.blob->quiet && out.blob->mode != SBP_MODE_OFF) {
		static const char note[] =
			"sbpreload: shim loaded without the launcher: no kernel layer, so statically linked "
			"programs and raw system calls are not confined\n";
		if (write(2, note, sizeof(note) - 1) < 0) {
			/* stderr closed: nothing to tell */
		}
	}
	return seal(out.blob, out.size);
}

/* Set in the thread that runs sbp_init(): its own calls (config loading)
 * pass through while it works. */
static __thread __attribute__((tls_model("initial-exec"))) bool initializing;

void sbp_init(void)
{
	int expected = 0;

	if (__atomic_load_n(&init_state, __ATOMIC_ACQUIRE) == 2)
		return;
	if (!__atomic_compare_exchange_n(&init_state, &expected, 1, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		if (initializing)
			return;
		/* Another thread (started by some library's constructor before
		 * ours ran) is loading the policy: wait for it, never pass a call
		 * unjudged. */
		while (__atomic_load_n(&init_state, __ATOMIC_ACQUIRE) != 2)
			sched_yield();
		return;
	}
	initializing = true;
	resolve_real();
	long n = readlink("/proc/self/exe", sbp_exe, sizeof(sbp_exe) - 1);
	sbp_exe[n > 0 ? n : 0] = '\0';

	const struct sbp_policy *p;
	const char *enc = getenv("SBPRELOAD_POLICY");
	if (enc) {
		size_t size;
		void *blob = sbp_blob_decode(enc, &size);
		if (!blob || !sbp_policy_valid(blob, size))
			die("SBPRELOAD_POLICY does not hold a valid policy", "refusing to run unconfined");
		p = seal(blob, size);
	} else {
		p = load_alone();
	}
	sbp_cache_init();
	__atomic_store_n(&sbp_pol, p, __ATOMIC_RELEASE);
	__atomic_store_n(&init_state, 2, __ATOMIC_RELEASE);
	initializing = false;
}

__attribute__((constructor(101))) static void sbp_ctor(void)
{
	sbp_init();
}

/* --- helpers for the wrappers ------------------------------------------ */

#define MODE_ARG(flags, last)                                         \
	({                                                            \
		unsigned m_ = 0;                                      \
		if (SBP_NEEDS_MODE(flags)) {              \
			va_list ap_;                                  \
			va_start(ap_, last);                          \
			m_ = va_arg(ap_, unsigned);                   \
			va_end(ap_);                                  \
		}                                                     \
		m_;                                                   \
	})

/* Judge PATH, then evaluate EXPR with D and N naming where to act (the
 * original dirfd and path when there is nothing to judge), P the same as
 * one path, T the target, and PIN = AT_SYMLINK_NOFOLLOW when the final
 * component was judged as it is: a symlink swapped in after the check is
 * then acted on itself, never followed.  A call through a kept pin that
 * went stale is made again through a fresh one. */
#define CHECKED(call_, op_, how_, dirfd_, path_, EXPR)                                   \
	do {                                                                        \
		struct sbp_target t_;                                               \
		int errno0_ = errno;                                                \
		for (unsigned try_ = 0;; try_++) {                                  \
			if (sbp_check(call_, op_, dirfd_, path_, (how_) | (try_ ? 0 : SBP_CACHED), &t_) == \
			    SBP_CHECK_FAIL)                                         \
				return -1;                                          \
			int D = t_.dirfd;                                           \
			const char *N = t_.name;                                    \
			int PIN = t_.pinned ? AT_SYMLINK_NOFOLLOW : 0;              \
			struct sbp_target *T = &t_;                                 \
			(void)D, (void)N, (void)PIN, (void)T;                       \
			char P_[PATH_MAX + 32];                                     \
			const char *P = sbp_target_path(&t_, P_, sizeof(P_));       \
			(void)P;                                                    \
			int ret_ = (EXPR);                                          \
			if (ret_ < 0 && sbp_cache_stale(&t_)) {                     \
				sbp_target_done(&t_);                               \
				errno = errno0_;                                    \
				continue;                                           \
			}                                                           \
			sbp_target_done(&t_);                                       \
			return ret_;                                                \
		}                                                                   \
	} while (0)

/* Judge what descriptor FD_ refers to, then evaluate EXPR with FD: a
 * private duplicate of it, so that another thread's dup2() onto that number
 * between the check and the call changes nothing. */
#define FD_CHECKED(call_, fd_, EXPR)                                         \
	do {                                                               \
		int FD = sbp_fd_dup(fd_);                                  \
		if (sbp_check_fd(call_, SBP_OP_WRITE, FD) < 0) {           \
			if (FD != (fd_))                                   \
				sbp_sys_close(FD);                         \
			return -1;                                         \
		}                                                          \
		long ret_ = (long)(EXPR);                                  \
		if (FD != (fd_))                                           \
			sbp_sys_close(FD);                                 \
		return ret_;                                               \
	} while (0)

static unsigned follow_unless(int flags, int nofollow_flag)
{
	return (flags & nofollow_flag) ? 0 : SBP_FOLLOW;
}

/* fchmodat(2) cannot take AT_SYMLINK_NOFOLLOW; fchmodat2 (Linux 6.6) can,
 * and glibc emulates it through /proc on older kernels. */
static int fchmodat_pinned(int dirfd, const char *name, mode_t mode, int flags)
{
#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif
	static bool no_fchmodat2;
	if (!(flags & AT_SYMLINK_NOFOLLOW))
		return real_fchmodat(dirfd, name, mode, flags);
	if (!no_fchmodat2) {
		long r = sbp_raw(SYS_fchmodat2, dirfd, (long)name, mode, flags, 0);
		if (r == 0 || errno != ENOSYS)
			return (int)r;
		no_fchmodat2 = true;
	}
	return real_fchmodat(dirfd, name, mode, flags);
}

/* utime, utimes and futimesat as utimensat, which can act on a pinned
 * name without following it. */
static int utimensat_tv(int dirfd, const char *name, const struct timeval tv[2], int flags)
{
	struct timespec ts[2];

	if (tv) {
		if (tv[0].tv_usec < 0 || tv[0].tv_usec >= 1000000 || tv[1].tv_usec < 0 || tv[1].tv_usec >= 1000000) {
			errno = EINVAL;
			return -1;
		}
		ts[0] = (struct timespec){tv[0].tv_sec, tv[0].tv_usec * 1000};
		ts[1] = (struct timespec){tv[1].tv_sec, tv[1].tv_usec * 1000};
	}
	/* A NULL name gets the kernel's answer (EFAULT), not glibc's. */
	if (!name)
		return (int)sbp_raw(SYS_utimensat, dirfd, 0, tv ? (long)ts : 0, flags, 0);
	return real_utimensat(dirfd, name, tv ? ts : NULL, flags);
}

/* --- open family ------------------------------------------------------- */

EXPORT int open(const char *path, int flags, ...)
{
	return sbp_open("open", AT_FDCWD, path, flags, MODE_ARG(flags, flags));
}

EXPORT int open64(const char *path, int flags, ...)
{
	return sbp_open("open64", AT_FDCWD, path, flags, MODE_ARG(flags, flags));
}

EXPORT int __open(const char *path, int flags, ...)
{
	return sbp_open("__open", AT_FDCWD, path, flags, MODE_ARG(flags, flags));
}

EXPORT int __open64(const char *path, int flags, ...)
{
	return sbp_open("__open64", AT_FDCWD, path, flags, MODE_ARG(flags, flags));
}

EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	return sbp_open("openat", dirfd, path, flags, MODE_ARG(flags, flags));
}

EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	return sbp_open("openat64", dirfd, path, flags, MODE_ARG(flags, flags));
}

/* The fortified entry points abort on O_CREAT without a mode: keep that. */
EXPORT int __open_2(const char *path, int flags)
{
	if (SBP_NEEDS_MODE(flags))
		return real___open_2(path, flags);
	return sbp_open("__open_2", AT_FDCWD, path, flags, 0);
}

EXPORT int __open64_2(const char *path, int flags)
{
	if (SBP_NEEDS_MODE(flags))
		return real___open64_2(path, flags);
	return sbp_open("__open64_2", AT_FDCWD, path, flags, 0);
}

EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	if (SBP_NEEDS_MODE(flags))
		return real___openat_2(dirfd, path, flags);
	return sbp_open("__openat_2", dirfd, path, flags, 0);
}

EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
	if (SBP_NEEDS_MODE(flags))
		return real___openat64_2(dirfd, path, flags);
	return sbp_open("__openat64_2", dirfd, path, flags, 0);
}

EXPORT int creat(const char *path, mode_t mode)
{
	return sbp_open("creat", AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

EXPORT int creat64(const char *path, mode_t mode)
{
	return sbp_open("creat64", AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

/* fopen's mode string as open(2) flags; -1 when invalid. */
static int fopen_flags(const char *mode)
{
	int flags;

	switch (mode[0]) {
	case 'r':
		flags = O_RDONLY;
		break;
	case 'w':
		flags = O_WRONLY | O_CREAT | O_TRUNC;
		break;
	case 'a':
		flags = O_WRONLY | O_CREAT | O_APPEND;
		break;
	default:
		return -1;
	}
	/* glibc reads at most six more characters. */
	for (const char *m = mode + 1; *m && *m != ',' && m < mode + 7; m++) {
		if (*m == '+')
			flags = (flags & ~O_ACCMODE) | O_RDWR;
		else if (*m == 'x')
			flags |= O_EXCL;
		else if (*m == 'e')
			flags |= O_CLOEXEC;
	}
	return flags;
}

/* Open the way fopen would, through the race-free open, then wrap it. */
static FILE *do_fopen(const char *call, const char *path, const char *mode,
		      FILE *(*real)(const char *, const char *))
{
	if (!sbp_pol && (sbp_init(), !sbp_pol))
		return real(path, mode);
	if (!path || !mode || strstr(mode, ",ccs=")) {
		/* Wide-character streams: judge, then let libc open it. */
		struct sbp_target t;
		enum sbp_op op = mode && mode[0] == 'r' && !strchr(mode, '+') ? SBP_OP_READ : SBP_OP_WRITE;
		if (sbp_check(call, op, AT_FDCWD, path, SBP_FOLLOW | SBP_PIN_FINAL, &t) == SBP_CHECK_FAIL)
			return NULL;
		char buf[PATH_MAX + 32];
		FILE *f = real(sbp_target_path(&t, buf, sizeof(buf)), mode);
		sbp_target_done(&t);
		return f;
	}
	int flags = fopen_flags(mode);
	if (flags < 0) {
		errno = EINVAL;
		return NULL;
	}
	int fd = sbp_open(call, AT_FDCWD, path, flags, 0666);
	if (fd < 0)
		return NULL;
	FILE *f = fdopen(fd, mode);
	if (!f)
		sbp_sys_close(fd);
	return f;
}

EXPORT FILE *fopen(const char *path, const char *mode)
{
	return do_fopen("fopen", path, mode, real_fopen);
}

EXPORT FILE *fopen64(const char *path, const char *mode)
{
	return do_fopen("fopen64", path, mode, real_fopen64);
}

EXPORT FILE *_IO_fopen(const char *path, const char *mode)
{
	return do_fopen("_IO_fopen", path, mode, real__IO_fopen);
}

/* A target that names nothing the check opened. */
static void target_none(struct sbp_target *t)
{
	t->dirfd = AT_FDCWD;
	t->name = NULL;
	t->own_fd = t->own_fd2 = t->cached = -1;
	t->pinned = false;
	t->dirlen = 0;
}

static FILE *do_freopen(const char *call, const char *path, const char *mode, FILE *stream,
			FILE *(*real)(const char *, const char *, FILE *))
{
	struct sbp_target t;
	int flags = mode ? fopen_flags(mode) : -1;
	enum sbp_op op = flags >= 0 && (flags & O_ACCMODE) == O_RDONLY ? SBP_OP_READ : SBP_OP_WRITE;
	unsigned how = flags >= 0 && (flags & O_EXCL) ? 0 : SBP_FOLLOW | SBP_PIN_FINAL;

	/* A NULL path reopens the stream's own file with the new mode (libc
	 * does it through /proc/self/fd): judge that file. */
	int failed = path ? sbp_check(call, op, AT_FDCWD, path, how, &t) == SBP_CHECK_FAIL
			  : (target_none(&t), stream && sbp_check_fd(call, op, fileno(stream)) < 0);
	if (failed) {
		/* freopen closes the stream whatever happens. */
		int e = errno;
		if (stream)
			fclose(stream);
		errno = e;
		return NULL;
	}
	char buf[PATH_MAX + 32];
	FILE *f = real(path ? sbp_target_path(&t, buf, sizeof(buf)) : NULL, mode, stream);
	sbp_target_done(&t);
	return f;
}

EXPORT FILE *freopen(const char *path, const char *mode, FILE *stream)
{
	return do_freopen("freopen", path, mode, stream, real_freopen);
}

EXPORT FILE *freopen64(const char *path, const char *mode, FILE *stream)
{
	return do_freopen("freopen64", path, mode, stream, real_freopen64);
}

/* A file handle names no path (and root may use one to reach any file):
 * open it, then judge what the kernel opened.  O_TRUNC waits until the
 * verdict. */
EXPORT int open_by_handle_at(int mount_fd, struct file_handle *handle, int flags)
{
	if (!sbp_pol && (sbp_init(), !sbp_pol))
		return real_open_by_handle_at(mount_fd, handle, flags);
	/* First an O_PATH descriptor to judge (it opens nothing and truncates
	 * nothing); a handle names an inode, so the real open reaches the same
	 * file. */
	int probe = real_open_by_handle_at(mount_fd, handle, O_PATH | O_CLOEXEC);
	if (probe < 0)
		return real_open_by_handle_at(mount_fd, handle, flags); /* the kernel's error */
	bool write = (flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC);
	int r = sbp_check_fd("open_by_handle_at", write ? SBP_OP_WRITE : SBP_OP_READ, probe);
	sbp_sys_close(probe);
	if (r < 0)
		return -1;
	return real_open_by_handle_at(mount_fd, handle, flags);
}

EXPORT DIR *opendir(const char *path)
{
	int fd = sbp_open("opendir", AT_FDCWD, path, O_RDONLY | O_NDELAY | O_DIRECTORY | O_CLOEXEC, 0);
	if (fd < 0)
		return NULL;
	DIR *d = fdopendir(fd);
	if (!d)
		sbp_sys_close(fd);
	return d;
}

EXPORT int scandir(const char *dir, struct dirent ***list, int (*sel)(const struct dirent *),
		   int (*cmp)(const struct dirent **, const struct dirent **))
{
	CHECKED("scandir", SBP_OP_READ, SBP_FOLLOW | SBP_PIN_FINAL, AT_FDCWD, dir, real_scandir(P, list, sel, cmp));
}

EXPORT int scandir64(const char *dir, struct dirent64 ***list, int (*sel)(const struct dirent64 *),
		     int (*cmp)(const struct dirent64 **, const struct dirent64 **))
{
	CHECKED("scandir64", SBP_OP_READ, SBP_FOLLOW | SBP_PIN_FINAL, AT_FDCWD, dir, real_scandir64(P, list, sel, cmp));
}

EXPORT int scandirat(int dirfd, const char *dir, struct dirent ***list, int (*sel)(const struct dirent *),
		     int (*cmp)(const struct dirent **, const struct dirent **))
{
	CHECKED("scandirat", SBP_OP_READ, SBP_FOLLOW | SBP_PIN_FINAL, dirfd, dir, real_scandirat(D, N, list, sel, cmp));
}

EXPORT int scandirat64(int dirfd, const char *dir, struct dirent64 ***list, int (*sel)(const struct dirent64 *),
		       int (*cmp)(const struct dirent64 **, const struct dirent64 **))
{
	CHECKED("scandirat64", SBP_OP_READ, SBP_FOLLOW | SBP_PIN_FINAL, dirfd, dir,
		real_scandirat64(D, N, list, sel, cmp));
}

/* --- temporary files ----------------------------------------------------- */

/* The template's directory is judged; libc then makes the name inside the
 * directory the check opened, and the chosen name is copied back. */
static int tmpl_call(const char *call, char *tmpl, int (*fn)(char *, void *), void *arg)
{
	struct sbp_target t;

	if (sbp_check(call, SBP_OP_WRITE, AT_FDCWD, tmpl, 0, &t) == SBP_CHECK_FAIL)
		return -1;
	char buf[PATH_MAX + 32];
	const char *p = sbp_target_path(&t, buf, sizeof(buf));
	if (p == tmpl || p != buf) {
		int r = fn(tmpl, arg);
		sbp_target_done(&t);
		return r;
	}
	int r = fn(buf, arg);
	size_t nl = strlen(t.name), tl = strlen(tmpl), bl = strlen(buf);
	if (nl <= tl && nl <= bl)
		memcpy(tmpl + tl - nl, buf + bl - nl, nl);
	sbp_target_done(&t);
	return r;
}

struct mkstemp_args {
	int kind; /* 0 mkstemp, 1 mkostemp, 2 mkstemps, 3 mkostemps, 4 mkdtemp */
	int suffixlen, flags;
	bool is64;
	char *dres;
};

static int mkstemp_fn(char *tmpl, void *arg)
{
	struct mkstemp_args *a = arg;

	switch (a->kind) {
	case 0:
		return (a->is64 ? real_mkstemp64 : real_mkstemp)(tmpl);
	case 1:
		return (a->is64 ? real_mkostemp64 : real_mkostemp)(tmpl, a->flags);
	case 2:
		return (a->is64 ? real_mkstemps64 : real_mkstemps)(tmpl, a->suffixlen);
	case 3:
		return (a->is64 ? real_mkostemps64 : real_mkostemps)(tmpl, a->suffixlen, a->flags);
	default:
		a->dres = real_mkdtemp(tmpl);
		return a->dres ? 0 : -1;
	}
}

#define MKSTEMP(name, k, s64, sl, fl)                                       \
	do {                                                                \
		struct mkstemp_args a_ = {k, sl, fl, s64, NULL};            \
		return tmpl_call(name, tmpl, mkstemp_fn, &a_);              \
	} while (0)

EXPORT int mkstemp(char *tmpl) { MKSTEMP("mkstemp", 0, false, 0, 0); }
EXPORT int mkstemp64(char *tmpl) { MKSTEMP("mkstemp64", 0, true, 0, 0); }
EXPORT int mkostemp(char *tmpl, int flags) { MKSTEMP("mkostemp", 1, false, 0, flags); }
EXPORT int mkostemp64(char *tmpl, int flags) { MKSTEMP("mkostemp64", 1, true, 0, flags); }
EXPORT int mkstemps(char *tmpl, int suffixlen) { MKSTEMP("mkstemps", 2, false, suffixlen, 0); }
EXPORT int mkstemps64(char *tmpl, int suffixlen) { MKSTEMP("mkstemps64", 2, true, suffixlen, 0); }
EXPORT int mkostemps(char *tmpl, int suffixlen, int flags) { MKSTEMP("mkostemps", 3, false, suffixlen, flags); }
EXPORT int mkostemps64(char *tmpl, int suffixlen, int flags) { MKSTEMP("mkostemps64", 3, true, suffixlen, flags); }

EXPORT char *mkdtemp(char *tmpl)
{
	struct mkstemp_args a = {4, 0, 0, false, NULL};
	return tmpl_call("mkdtemp", tmpl, mkstemp_fn, &a) < 0 ? NULL : tmpl;
}

/* tmpfile() creates its file in P_tmpdir: judge a write there. */
static FILE *do_tmpfile(const char *call, FILE *(*real)(void))
{
	struct sbp_target t;

	/* The file it makes has no name; judge one in that directory. */
	if (sbp_check(call, SBP_OP_WRITE, AT_FDCWD, P_tmpdir "/#tmpfile", 0, &t) == SBP_CHECK_FAIL)
		return NULL;
	sbp_target_done(&t);
	return real();
}

EXPORT FILE *tmpfile(void) { return do_tmpfile("tmpfile", real_tmpfile); }
EXPORT FILE *tmpfile64(void) { return do_tmpfile("tmpfile64", real_tmpfile64); }

/* --- create, remove, rename, link --------------------------------------- */

EXPORT int mkdir(const char *path, mode_t mode)
{
	CHECKED("mkdir", SBP_OP_WRITE, SBP_ENTRY, AT_FDCWD, path, real_mkdirat(D, N, mode));
}

EXPORT int mkdirat(int dirfd, const char *path, mode_t mode)
{
	CHECKED("mkdirat", SBP_OP_WRITE, SBP_ENTRY, dirfd, path, real_mkdirat(D, N, mode));
}

EXPORT int rmdir(const char *path)
{
	CHECKED("rmdir", SBP_OP_WRITE, SBP_ENTRY, AT_FDCWD, path,
		(sbp_cache_note(T->abs), real_unlinkat(D, N, AT_REMOVEDIR)));
}

EXPORT int unlink(const char *path)
{
	CHECKED("unlink", SBP_OP_WRITE, SBP_ENTRY, AT_FDCWD, path, real_unlinkat(D, N, 0));
}

EXPORT int unlinkat(int dirfd, const char *path, int flags)
{
	CHECKED("unlinkat", SBP_OP_WRITE, SBP_ENTRY, dirfd, path,
		((flags & AT_REMOVEDIR) ? sbp_cache_note(T->abs) : (void)0, real_unlinkat(D, N, flags)));
}

static int remove_at(int dirfd, const char *name)
{
	if (real_unlinkat(dirfd, name, 0) == 0)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return -1;
	return real_unlinkat(dirfd, name, AT_REMOVEDIR);
}

EXPORT int remove(const char *path)
{
	CHECKED("remove", SBP_OP_WRITE, SBP_ENTRY, AT_FDCWD, path, (sbp_cache_note(T->abs), remove_at(D, N)));
}

/* Two paths: both are judged, both are acted on through their targets. */
enum two_kind { TWO_RENAME, TWO_RENAME2, TWO_LINK };

static int two_paths_once(const char *call, enum two_kind kind, int olddirfd, const char *oldpath,
			  int newdirfd, const char *newpath, unsigned flags, unsigned cache, bool *stale)
{
	struct sbp_target a, b;
	unsigned old_how = SBP_SUBTREE | SBP_ENTRY | cache, new_how = SBP_ENTRY | cache;

	if (kind == TWO_LINK)
		old_how = ((flags & AT_SYMLINK_FOLLOW) ? SBP_FOLLOW : 0) | cache;
	if (kind == TWO_RENAME2 && (flags & RENAME_EXCHANGE))
		new_how |= SBP_SUBTREE;
	/* A hard link gives a second name to the same file: the old name must
	 * be writable too, or the new one would be a way around the policy. */
	bool empty = kind == TWO_LINK && (flags & AT_EMPTY_PATH) && oldpath && !oldpath[0];
	if (empty) {
		/* linkat(fd, "", ..., AT_EMPTY_PATH): the descriptor's file. */
		target_none(&a);
		a.dirfd = sbp_fd_dup(olddirfd);
		a.name = oldpath;
		a.own_fd = a.dirfd != olddirfd ? a.dirfd : -1;
		if (sbp_check_fd(call, SBP_OP_WRITE, a.dirfd) < 0) {
			sbp_target_done(&a);
			return -1;
		}
	} else if (sbp_check(call, SBP_OP_WRITE, olddirfd, oldpath, old_how, &a) == SBP_CHECK_FAIL) {
		return -1;
	}
	if (sbp_check_share(call, SBP_OP_WRITE, newdirfd, newpath, new_how, &b, &a) == SBP_CHECK_FAIL) {
		sbp_target_done(&a);
		return -1;
	}
	if (kind != TWO_LINK &&
	    sbp_check_move(call, oldpath, newpath, &a, &b, kind == TWO_RENAME2 && (flags & RENAME_EXCHANGE)) < 0) {
		sbp_target_done(&a);
		sbp_target_done(&b);
		return -1;
	}
	int r;
	if (kind != TWO_LINK) {
		/* Kept pins of what moves (or is replaced) go stale. */
		sbp_cache_note(a.abs);
		sbp_cache_note(b.abs);
	}
	switch (kind) {
	case TWO_RENAME:
		r = real_renameat(a.dirfd, a.name, b.dirfd, b.name);
		break;
	case TWO_RENAME2:
		r = real_renameat2(a.dirfd, a.name, b.dirfd, b.name, flags);
		break;
	default:
		/* A pinned source was judged as it is: link it, not what a
		 * symlink swapped in since would point to. */
		r = real_linkat(a.dirfd, a.name, b.dirfd, b.name, a.pinned ? (int)(flags & ~AT_SYMLINK_FOLLOW) : (int)flags);
	}
	*stale = r < 0 && (sbp_cache_stale(&a) || sbp_cache_stale(&b));
	sbp_target_done(&a);
	sbp_target_done(&b);
	return r;
}

static int two_paths(const char *call, enum two_kind kind, int olddirfd, const char *oldpath, int newdirfd,
		     const char *newpath, unsigned flags)
{
	int errno0 = errno;
	bool stale = false;
	int r = two_paths_once(call, kind, olddirfd, oldpath, newdirfd, newpath, flags, SBP_CACHED, &stale);
	if (!stale)
		return r;
	errno = errno0;
	return two_paths_once(call, kind, olddirfd, oldpath, newdirfd, newpath, flags, 0, &stale);
}

EXPORT int rename(const char *oldpath, const char *newpath)
{
	return two_paths("rename", TWO_RENAME, AT_FDCWD, oldpath, AT_FDCWD, newpath, 0);
}

EXPORT int renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath)
{
	return two_paths("renameat", TWO_RENAME, olddirfd, oldpath, newdirfd, newpath, 0);
}

EXPORT int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags)
{
	return two_paths("renameat2", TWO_RENAME2, olddirfd, oldpath, newdirfd, newpath, flags);
}

EXPORT int link(const char *oldpath, const char *newpath)
{
	return two_paths("link", TWO_LINK, AT_FDCWD, oldpath, AT_FDCWD, newpath, 0);
}

EXPORT int linkat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, int flags)
{
	return two_paths("linkat", TWO_LINK, olddirfd, oldpath, newdirfd, newpath, (unsigned)flags);
}

EXPORT int symlink(const char *target, const char *linkpath)
{
	CHECKED("symlink", SBP_OP_WRITE, SBP_ENTRY, AT_FDCWD, linkpath, real_symlinkat(target, D, N));
}

EXPORT int symlinkat(const char *target, int dirfd, const char *linkpath)
{
	CHECKED("symlinkat", SBP_OP_WRITE, SBP_ENTRY, dirfd, linkpath, real_symlinkat(target, D, N));
}

EXPORT int mknod(const char *path, mode_t mode, dev_t dev)
{
	CHECKED("mknod", SBP_OP_WRITE, SBP_ENTRY, AT_FDCWD, path, real_mknodat(D, N, mode, dev));
}

EXPORT int mknodat(int dirfd, const char *path, mode_t mode, dev_t dev)
{
	CHECKED("mknodat", SBP_OP_WRITE, SBP_ENTRY, dirfd, path, real_mknodat(D, N, mode, dev));
}

/* The stat-era names of mknod, still exported. */
EXPORT int __xmknod(int ver, const char *path, mode_t mode, dev_t *dev)
{
	CHECKED("__xmknod", SBP_OP_WRITE, SBP_ENTRY, AT_FDCWD, path, real___xmknodat(ver, D, N, mode, dev));
}

EXPORT int __xmknodat(int ver, int dirfd, const char *path, mode_t mode, dev_t *dev)
{
	CHECKED("__xmknodat", SBP_OP_WRITE, SBP_ENTRY, dirfd, path, real___xmknodat(ver, D, N, mode, dev));
}

EXPORT int mkfifo(const char *path, mode_t mode)
{
	CHECKED("mkfifo", SBP_OP_WRITE, SBP_ENTRY, AT_FDCWD, path, real_mkfifoat(D, N, mode));
}

EXPORT int mkfifoat(int dirfd, const char *path, mode_t mode)
{
	CHECKED("mkfifoat", SBP_OP_WRITE, SBP_ENTRY, dirfd, path, real_mkfifoat(D, N, mode));
}

/* bind() of a unix socket to a path creates a file there. */
EXPORT int bind(int fd, __CONST_SOCKADDR_ARG arg, socklen_t len)
{
	const struct sockaddr *addr = arg.__sockaddr__;
	const struct sockaddr_un *un = (const struct sockaddr_un *)addr;
	size_t off = offsetof(struct sockaddr_un, sun_path);

	if (!addr || len <= off || addr->sa_family != AF_UNIX || un->sun_path[0] == '\0')
		return real_bind(fd, arg, len);
	char path[sizeof(un->sun_path) + 1];
	size_t n = len - off < sizeof(un->sun_path) ? len - off : sizeof(un->sun_path);
	memcpy(path, un->sun_path, n);
	path[n] = '\0';
	struct sbp_target t;
	if (sbp_check("bind", SBP_OP_WRITE, AT_FDCWD, path, SBP_ENTRY, &t) == SBP_CHECK_FAIL)
		return -1;
	/* Bound under its own name: a /proc/self/fd form would be what
	 * getsockname() and every peer see.  The directory can change between
	 * the check and the bind (docs/security.md). */
	sbp_target_done(&t);
	return real_bind(fd, arg, len);
}

/* --- contents and metadata ---------------------------------------------- */

EXPORT int truncate(const char *path, off_t length)
{
	CHECKED("truncate", SBP_OP_WRITE, SBP_FOLLOW | SBP_PIN_FINAL, AT_FDCWD, path, real_truncate(P, length));
}

EXPORT int truncate64(const char *path, off64_t length)
{
	CHECKED("truncate64", SBP_OP_WRITE, SBP_FOLLOW | SBP_PIN_FINAL, AT_FDCWD, path, real_truncate64(P, length));
}

EXPORT int chmod(const char *path, mode_t mode)
{
	CHECKED("chmod", SBP_OP_WRITE, SBP_FOLLOW, AT_FDCWD, path, fchmodat_pinned(D, N, mode, PIN));
}

EXPORT int lchmod(const char *path, mode_t mode)
{
	CHECKED("lchmod", SBP_OP_WRITE, 0, AT_FDCWD, path, real_fchmodat(D, N, mode, AT_SYMLINK_NOFOLLOW));
}

EXPORT int fchmodat(int dirfd, const char *path, mode_t mode, int flags)
{
	if ((flags & AT_EMPTY_PATH) && path && !path[0] && dirfd != AT_FDCWD)
		FD_CHECKED("fchmodat", dirfd, real_fchmodat(FD, path, mode, flags));
	CHECKED("fchmodat", SBP_OP_WRITE, follow_unless(flags, AT_SYMLINK_NOFOLLOW), dirfd, path,
		fchmodat_pinned(D, N, mode, flags | PIN));
}

EXPORT int fchmod(int fd, mode_t mode)
{
	FD_CHECKED("fchmod", fd, real_fchmod(FD, mode));
}

EXPORT int chown(const char *path, uid_t owner, gid_t group)
{
	CHECKED("chown", SBP_OP_WRITE, SBP_FOLLOW, AT_FDCWD, path, real_fchownat(D, N, owner, group, PIN));
}

EXPORT int lchown(const char *path, uid_t owner, gid_t group)
{
	CHECKED("lchown", SBP_OP_WRITE, 0, AT_FDCWD, path,
		real_fchownat(D, N, owner, group, AT_SYMLINK_NOFOLLOW));
}

EXPORT int fchownat(int dirfd, const char *path, uid_t owner, gid_t group, int flags)
{
	if ((flags & AT_EMPTY_PATH) && path && !path[0] && dirfd != AT_FDCWD)
		FD_CHECKED("fchownat", dirfd, real_fchownat(FD, path, owner, group, flags));
	CHECKED("fchownat", SBP_OP_WRITE, follow_unless(flags, AT_SYMLINK_NOFOLLOW), dirfd,
		path && !path[0] && (flags & AT_EMPTY_PATH) ? "." : path,
		real_fchownat(D, N, owner, group, flags | PIN));
}

EXPORT int fchown(int fd, uid_t owner, gid_t group)
{
	FD_CHECKED("fchown", fd, real_fchown(FD, owner, group));
}

EXPORT int utime(const char *path, const struct utimbuf *times)
{
	CHECKED("utime", SBP_OP_WRITE, SBP_FOLLOW, AT_FDCWD, path, utimensat_tv(D, N, times ? (struct timeval[2]){{times->actime, 0}, {times->modtime, 0}} : NULL, PIN));
}

EXPORT int utimes(const char *path, const struct timeval times[2])
{
	CHECKED("utimes", SBP_OP_WRITE, SBP_FOLLOW, AT_FDCWD, path, utimensat_tv(D, N, times, PIN));
}

EXPORT int lutimes(const char *path, const struct timeval times[2])
{
	CHECKED("lutimes", SBP_OP_WRITE, 0, AT_FDCWD, path, real_lutimes(P, times));
}

EXPORT int futimesat(int dirfd, const char *path, const struct timeval times[2])
{
	if (!path)
		FD_CHECKED("futimesat", dirfd, real_futimesat(FD, path, times));
	CHECKED("futimesat", SBP_OP_WRITE, SBP_FOLLOW, dirfd, path, utimensat_tv(D, N, times, PIN));
}

EXPORT int utimensat(int dirfd, const char *path, const struct timespec times[2], int flags)
{
	/* A NULL path (or "" with AT_EMPTY_PATH) sets DIRFD's own times. */
	if ((!path || (!path[0] && (flags & AT_EMPTY_PATH))) && dirfd != AT_FDCWD)
		FD_CHECKED("utimensat", dirfd, real_utimensat(FD, path, times, flags));
	CHECKED("utimensat", SBP_OP_WRITE, follow_unless(flags, AT_SYMLINK_NOFOLLOW), dirfd,
		path && !path[0] && (flags & AT_EMPTY_PATH) ? "." : path, real_utimensat(D, N, times, flags | PIN));
}

EXPORT int futimens(int fd, const struct timespec times[2])
{
	FD_CHECKED("futimens", fd, real_futimens(FD, times));
}

EXPORT int futimes(int fd, const struct timeval times[2])
{
	FD_CHECKED("futimes", fd, real_futimes(FD, times));
}

EXPORT int setxattr(const char *path, const char *name, const void *value, size_t size, int flags)
{
	CHECKED("setxattr", SBP_OP_WRITE, SBP_FOLLOW, AT_FDCWD, path, (PIN ? real_lsetxattr : real_setxattr)(P, name, value, size, flags));
}

EXPORT int lsetxattr(const char *path, const char *name, const void *value, size_t size, int flags)
{
	CHECKED("lsetxattr", SBP_OP_WRITE, 0, AT_FDCWD, path, real_lsetxattr(P, name, value, size, flags));
}

EXPORT int fsetxattr(int fd, const char *name, const void *value, size_t size, int flags)
{
	FD_CHECKED("fsetxattr", fd, real_fsetxattr(FD, name, value, size, flags));
}

EXPORT int removexattr(const char *path, const char *name)
{
	CHECKED("removexattr", SBP_OP_WRITE, SBP_FOLLOW, AT_FDCWD, path, (PIN ? real_lremovexattr : real_removexattr)(P, name));
}

EXPORT int lremovexattr(const char *path, const char *name)
{
	CHECKED("lremovexattr", SBP_OP_WRITE, 0, AT_FDCWD, path, real_lremovexattr(P, name));
}

EXPORT int fremovexattr(int fd, const char *name)
{
	FD_CHECKED("fremovexattr", fd, real_fremovexattr(FD, name));
}

/* --- files libc opens for its own APIs --------------------------------- */

EXPORT FILE *setmntent(const char *path, const char *mode)
{
	struct sbp_target t;
	int flags = mode ? fopen_flags(mode) : -1;
	enum sbp_op op = flags >= 0 && (flags & O_ACCMODE) == O_RDONLY ? SBP_OP_READ : SBP_OP_WRITE;

	if (sbp_check("setmntent", op, AT_FDCWD, path, SBP_FOLLOW | SBP_PIN_FINAL, &t) == SBP_CHECK_FAIL)
		return NULL;
	char buf[PATH_MAX + 32];
	FILE *f = real_setmntent(path ? sbp_target_path(&t, buf, sizeof(buf)) : NULL, mode);
	sbp_target_done(&t);
	return f;
}

static void do_updwtmp(const char *call, const char *path, const void *ut,
		       void (*real)(const char *, const void *))
{
	struct sbp_target t;

	if (sbp_check(call, SBP_OP_WRITE, AT_FDCWD, path, SBP_FOLLOW | SBP_PIN_FINAL, &t) == SBP_CHECK_FAIL)
		return;
	char buf[PATH_MAX + 32];
	real(path ? sbp_target_path(&t, buf, sizeof(buf)) : NULL, ut);
	sbp_target_done(&t);
}

EXPORT void updwtmp(const char *path, const struct utmp *ut)
{
	do_updwtmp("updwtmp", path, ut, (void (*)(const char *, const void *))real_updwtmp);
}

EXPORT void updwtmpx(const char *path, const struct utmpx *ut)
{
	do_updwtmp("updwtmpx", path, ut, (void (*)(const char *, const void *))real_updwtmpx);
}

/* --- namespaces, mounts, the terminal ------------------------------------ */

/* Refuse a call that would let a process rearrange the file system it sees
 * (a bind mount of an outside tree into the workspace reads and writes
 * there under an allowed name).  -1 with errno EPERM, unless in audit mode. */
static int refuse(const char *call, const char *what, const char *reason)
{
	if (!sbp_pol && (sbp_init(), !sbp_pol))
		return 0;
	if (sbp_pol->mode == SBP_MODE_OFF)
		return 0;
	sbp_refuse(call, what, reason);
	if (sbp_pol->mode == SBP_MODE_AUDIT)
		return 0;
	errno = EPERM;
	return -1;
}

#define NS_FLAGS (CLONE_NEWUSER | CLONE_NEWNS)
static const char ns_reason[] = "new user or mount namespaces could mount around the policy";
static const char mount_reason[] = "mounts could bring other trees under allowed paths";

EXPORT int unshare(int flags)
{
	if ((flags & NS_FLAGS) && refuse("unshare", "unshare", ns_reason) < 0)
		return -1;
	return real_unshare(flags);
}

EXPORT int clone(int (*fn)(void *), void *stack, int flags, void *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	void *ptid = va_arg(ap, void *), *tls = va_arg(ap, void *), *ctid = va_arg(ap, void *);
	va_end(ap);
	if ((flags & NS_FLAGS) && refuse("clone", "clone", ns_reason) < 0)
		return -1;
	return real_clone(fn, stack, flags, arg, ptid, tls, ctid);
}

EXPORT int setns(int fd, int nstype)
{
	if (refuse("setns", "setns", "joining other namespaces could leave the policy behind") < 0)
		return -1;
	return real_setns(fd, nstype);
}

EXPORT int mount(const char *source, const char *target, const char *fstype, unsigned long flags,
		 const void *data)
{
	if (refuse("mount", "mount", mount_reason) < 0)
		return -1;
	return real_mount(source, target, fstype, flags, data);
}

EXPORT int fsopen(const char *fsname, unsigned int flags)
{
	if (refuse("fsopen", "fsopen", mount_reason) < 0)
		return -1;
	return real_fsopen(fsname, flags);
}

EXPORT int open_tree(int dirfd, const char *path, unsigned int flags)
{
	if (refuse("open_tree", "open_tree", mount_reason) < 0)
		return -1;
	return real_open_tree(dirfd, path, flags);
}

EXPORT int move_mount(int from_dirfd, const char *from_path, int to_dirfd, const char *to_path, unsigned int flags)
{
	if (refuse("move_mount", "move_mount", mount_reason) < 0)
		return -1;
	return real_move_mount(from_dirfd, from_path, to_dirfd, to_path, flags);
}

/* TIOCSTI pushes bytes into the terminal's input: a command typed there
 * runs in the user's shell after the session, outside the sandbox.
 * TIOCLINUX can paste the console selection the same way. */
static bool is_typing(unsigned long request)
{
	/* The kernel reads the request as 32 bits: so must the check. */
	unsigned int r = (unsigned int)request;
	return r == TIOCSTI || r == TIOCLINUX;
}

static bool ioctl_refused(unsigned long request)
{
	return is_typing(request) &&
	       refuse("ioctl", (unsigned int)request == TIOCSTI ? "ioctl TIOCSTI" : "ioctl TIOCLINUX",
		      "typing into the terminal would run commands outside the sandbox") < 0;
}

EXPORT int ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	va_start(ap, request);
	void *argp = va_arg(ap, void *);
	va_end(ap);
	if (__builtin_expect(is_typing(request), 0) && ioctl_refused(request))
		return -1;
	return real_ioctl(fd, request, argp);
}

/* --- syscall(2) ------------------------------------------------------- */

long sbp_raw(long nr, long a, long b, long c, long d, long e)
{
	long (*fn)(long, ...) = __atomic_load_n(&real_syscall, __ATOMIC_ACQUIRE);

	/* Only before start-up has resolved the table (a hook entered from
	 * another library's constructor). */
	if (__builtin_expect(!fn, 0))
		fn = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	return fn(nr, a, b, c, d, e);
}

/* openat2(2) by number, judged like open.  With resolve restrictions of its
 * own (RESOLVE_IN_ROOT makes "/x" mean DIRFD/x), the path is resolved the
 * caller's way into a descriptor, which is judged and then reopened. */
static long openat2_resolved(int dirfd, const char *path, struct open_how how, enum sbp_op op)
{
	int flags = (int)how.flags;
	struct open_how ph = {.flags = O_PATH | O_CLOEXEC | (flags & O_NOFOLLOW), .resolve = how.resolve};
	long fd = sbp_raw(SYS_openat2, dirfd, (long)path, (long)&ph, sizeof(ph), 0);

	if (fd >= 0) {
		if ((flags & O_CREAT) && (flags & O_EXCL)) {
			sbp_sys_close((int)fd);
			errno = EEXIST;
			return -1;
		}
		if (sbp_check_fd("syscall(openat2)", op, (int)fd) < 0) {
			sbp_sys_close((int)fd);
			return -1;
		}
		char proc[32];
		snprintf(proc, sizeof(proc), "/proc/self/fd/%ld", fd);
		struct open_how rh = {.flags = how.flags & ~(uint64_t)(O_CREAT | O_EXCL | O_NOFOLLOW), .mode = 0};
		long r = sbp_raw(SYS_openat2, AT_FDCWD, (long)proc, (long)&rh, sizeof(rh), 0);
		sbp_sys_close((int)fd);
		return r;
	}
	if (errno != ENOENT || !(flags & O_CREAT))
		return -1; /* the kernel's answer */
	/* A new file: its directory, resolved the caller's way, then the name. */
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	size_t dl = slash ? (size_t)(slash - path) + 1 : 0;
	if (dl >= sizeof(dir) || !*name) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(dir, path, dl);
	dir[dl] = '\0';
	struct open_how dh = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC, .resolve = how.resolve};
	long pfd = sbp_raw(SYS_openat2, dirfd, (long)(dl ? dir : "."), (long)&dh, sizeof(dh), 0);
	if (pfd < 0)
		return -1;
	struct sbp_target t;
	long r = -1;
	if (sbp_check("syscall(openat2)", op, (int)pfd, name, 0, &t) != SBP_CHECK_FAIL) {
		struct open_how nh = how;
		nh.flags |= O_NOFOLLOW;
		nh.resolve = 0;
		r = sbp_raw(SYS_openat2, t.dirfd, (long)t.name, (long)&nh, sizeof(nh), 0);
		sbp_target_done(&t);
	}
	sbp_sys_close((int)pfd);
	return r;
}

static long raw_openat2(int dirfd, const char *path, const struct open_how *uhow, size_t size)
{
	struct open_how how = {0};

	if (!uhow || !path || size < sizeof(how))
		return sbp_raw(SYS_openat2, dirfd, (long)path, (long)uhow, (long)size, 0);
	memcpy(&how, uhow, sizeof(how));
	/* Larger structs must be zero beyond what we know (else E2BIG); our
	 * copy is what the kernel gets either way. */
	for (size_t i = sizeof(how); i < size && i < 4096; i++)
		if (((const unsigned char *)uhow)[i]) {
			errno = E2BIG;
			return -1;
		}
	int flags = (int)how.flags;
	bool write = (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC)) || SBP_NEEDS_MODE(flags);
	enum sbp_op op = write ? SBP_OP_WRITE : SBP_OP_READ;
	if (sbp_pol && sbp_pol->mode != SBP_MODE_OFF && how.resolve)
		return openat2_resolved(dirfd, path, how, op);
	unsigned judge = (flags & O_NOFOLLOW) || ((flags & O_CREAT) && (flags & O_EXCL)) ? 0 : SBP_FOLLOW;
	struct sbp_target t;
	int r = sbp_check("syscall(openat2)", op, dirfd, path, judge, &t);
	if (r == SBP_CHECK_FAIL)
		return -1;
	if (r == SBP_CHECK_PASS)
		return sbp_raw(SYS_openat2, dirfd, (long)path, (long)&how, sizeof(how), 0);
	if (t.pinned)
		how.flags |= O_NOFOLLOW;
	long fd = sbp_raw(SYS_openat2, t.dirfd, (long)t.name, (long)&how, sizeof(how), 0);
	sbp_target_done(&t);
	return fd;
}

/* --- descriptors the pin cache keeps ------------------------------------- */

/* Before anything is closed or replaced, the pin cache lets go of kept
 * descriptors in the range: a number the program reuses is never taken
 * for one of ours.  Called before libc is looked up too (a constructor of
 * another library closing something): the lookup comes first then. */
#define REAL(name) (__builtin_expect(!real_##name, 0) ? (sbp_init(), real_##name) : real_##name)

EXPORT int close(int fd)
{
	if (fd >= 0)
		sbp_cache_forget((unsigned)fd, (unsigned)fd);
	return REAL(close)(fd);
}

EXPORT int close_range(unsigned int lo, unsigned int hi, int flags)
{
	/* CLOSE_RANGE_CLOEXEC only marks them; kept ones are marked already. */
	if (!(flags & CLOSE_RANGE_CLOEXEC))
		sbp_cache_forget(lo, hi);
	return REAL(close_range)(lo, hi, flags);
}

EXPORT void closefrom(int lo)
{
	sbp_cache_forget(lo < 0 ? 0 : (unsigned)lo, ~0u);
	REAL(closefrom)(lo);
}

EXPORT int dup2(int oldfd, int newfd)
{
	if (newfd >= 0 && newfd != oldfd)
		sbp_cache_forget((unsigned)newfd, (unsigned)newfd);
	return REAL(dup2)(oldfd, newfd);
}

EXPORT int dup3(int oldfd, int newfd, int flags)
{
	if (newfd >= 0 && newfd != oldfd)
		sbp_cache_forget((unsigned)newfd, (unsigned)newfd);
	return REAL(dup3)(oldfd, newfd, flags);
}

/* Programs (and language runtimes) call file system calls through
 * syscall(2) too, by number; those the table wraps are judged the same way.
 * Inline system call instructions never come here: that is the kernel
 * layer's job. */
EXPORT long syscall(long nr, ...)
{
	va_list ap;
	long a[6];

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
#define S(i) ((const char *)a[i])
#define I(i) ((int)a[i])
	switch (nr) {
#ifdef SYS_open
	case SYS_open:
		return sbp_open("syscall(open)", AT_FDCWD, S(0), I(1), (unsigned)a[2]);
	case SYS_creat:
		return creat(S(0), (mode_t)a[1]);
	case SYS_mkdir:
		return mkdir(S(0), (mode_t)a[1]);
	case SYS_rmdir:
		return rmdir(S(0));
	case SYS_unlink:
		return unlink(S(0));
	case SYS_rename:
		return rename(S(0), S(1));
	case SYS_link:
		return link(S(0), S(1));
	case SYS_symlink:
		return symlink(S(0), S(1));
	case SYS_chmod:
		return chmod(S(0), (mode_t)a[1]);
	case SYS_chown:
		return chown(S(0), (uid_t)a[1], (gid_t)a[2]);
	case SYS_lchown:
		return lchown(S(0), (uid_t)a[1], (gid_t)a[2]);
	case SYS_mknod:
		return mknod(S(0), (mode_t)a[1], (dev_t)a[2]);
	case SYS_utime:
		return utime(S(0), (const struct utimbuf *)a[1]);
	case SYS_utimes:
		return utimes(S(0), (const struct timeval *)a[1]);
#endif
	case SYS_openat:
		return sbp_open("syscall(openat)", I(0), S(1), I(2), (unsigned)a[3]);
	case SYS_openat2:
		return raw_openat2(I(0), S(1), (const struct open_how *)a[2], (size_t)a[3]);
	case SYS_open_by_handle_at:
		return open_by_handle_at(I(0), (struct file_handle *)a[1], I(2));
	case SYS_mkdirat:
		return mkdirat(I(0), S(1), (mode_t)a[2]);
	case SYS_unlinkat:
		return unlinkat(I(0), S(1), I(2));
	case SYS_renameat:
		return renameat(I(0), S(1), I(2), S(3));
	case SYS_renameat2:
		return renameat2(I(0), S(1), I(2), S(3), (unsigned)a[4]);
	case SYS_linkat:
		return linkat(I(0), S(1), I(2), S(3), I(4));
	case SYS_symlinkat:
		return symlinkat(S(0), I(1), S(2));
	case SYS_mknodat:
		return mknodat(I(0), S(1), (mode_t)a[2], (dev_t)a[3]);
	case SYS_fchmodat:
		return fchmodat(I(0), S(1), (mode_t)a[2], 0);
	case SYS_fchmodat2:
		return fchmodat(I(0), S(1), (mode_t)a[2], I(3));
	case SYS_fchmod:
		return fchmod(I(0), (mode_t)a[1]);
	case SYS_fchownat:
		return fchownat(I(0), S(1), (uid_t)a[2], (gid_t)a[3], I(4));
	case SYS_fchown:
		return fchown(I(0), (uid_t)a[1], (gid_t)a[2]);
	case SYS_truncate:
		return truncate(S(0), (off_t)a[1]);
	case SYS_utimensat:
		/* A NULL path is the kernel's own form of futimens (or EFAULT
		 * with AT_FDCWD): glibc's wrapper would say EINVAL. */
		if (!S(1) && I(0) != AT_FDCWD)
			FD_CHECKED("syscall(utimensat)", I(0), sbp_raw(nr, FD, a[1], a[2], a[3], 0));
		if (!S(1))
			return sbp_raw(nr, a[0], a[1], a[2], a[3], 0);
		return utimensat(I(0), S(1), (const struct timespec *)a[2], I(3));
	case SYS_futimesat:
		return futimesat(I(0), S(1), (const struct timeval *)a[2]);
	case SYS_setxattr:
		return setxattr(S(0), S(1), (const void *)a[2], (size_t)a[3], I(4));
	case SYS_lsetxattr:
		return lsetxattr(S(0), S(1), (const void *)a[2], (size_t)a[3], I(4));
	case SYS_fsetxattr:
		return fsetxattr(I(0), S(1), (const void *)a[2], (size_t)a[3], I(4));
	case SYS_removexattr:
		return removexattr(S(0), S(1));
	case SYS_lremovexattr:
		return lremovexattr(S(0), S(1));
	case SYS_fremovexattr:
		return fremovexattr(I(0), S(1));
	case SYS_unshare:
		return unshare(I(0));
	case SYS_clone:
		if ((a[0] & NS_FLAGS) && refuse("syscall(clone)", "clone", ns_reason) < 0)
			return -1;
		break;
	case SYS_clone3: {
		/* struct clone_args begins with the flags. */
		uint64_t cf = 0;
		if (a[0] && (size_t)a[1] >= sizeof(cf))
			memcpy(&cf, (const void *)a[0], sizeof(cf));
		if ((cf & NS_FLAGS) && refuse("syscall(clone3)", "clone3", ns_reason) < 0)
			return -1;
		break;
	}
	case SYS_setns:
		return setns(I(0), I(1));
	case SYS_mount:
	case SYS_fsopen:
	case SYS_fsmount:
	case SYS_fspick:
	case SYS_open_tree:
	case SYS_move_mount:
	case SYS_mount_setattr:
	case SYS_pivot_root:
	case SYS_chroot:
		if (refuse("syscall", "mount", mount_reason) < 0)
			return -1;
		break;
	case SYS_ioctl:
		if (ioctl_refused((unsigned long)a[1]))
			return -1;
		break;
	/* Newer calls that change files by path and are not judged yet:
	 * answered as an older kernel would, so programs fall back to the
	 * calls above. */
	case 463: /* setxattrat */
	case 466: /* removexattrat */
	case 467: /* open_tree_attr */
	case 469: /* file_setattr */
		errno = ENOSYS;
		return -1;
	case SYS_bind:
		return bind(I(0), (__CONST_SOCKADDR_ARG)(const struct sockaddr *)a[1], (socklen_t)a[2]);
	case SYS_close:
		return close(I(0));
	case SYS_close_range:
		return close_range((unsigned)a[0], (unsigned)a[1], I(2));
	case SYS_dup2:
		return dup2(I(0), I(1));
	case SYS_dup3:
		return dup3(I(0), I(1), I(2));
	default:
		break;
	}
	return real_syscall ? real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5])
			    : sbp_raw(nr, a[0], a[1], a[2], a[3], a[4]);
#undef S
#undef I
}
