/* probe FUNC ARG...: call exactly one libc function and print what it said.
 *
 * A test driver in the spirit of Gentoo sandbox's per-function drivers: it
 * prints one line "ret=<r> errno=<NAME or 0>" on stdout, and nothing else,
 * so that a test can run it with and without the shim and compare.
 *
 * The same source is built four ways (tests/tests.mk): plain, with
 * -D_FILE_OFFSET_BITS=64, with -O2 -D_FORTIFY_SOURCE=2, and both.  FUNC
 * names a function as a program writes it, so the build decides which
 * symbol is really called: "open" is open(), open64(), __open_2() or
 * __open64_2() depending on the build, "scandir" is scandir() or
 * scandir64(), and so on.  The *64 and fortified names (open64, __open_2,
 * ...) call exactly that symbol from any build (through asm labels, which
 * neither the large-file redirects nor the fortify wrappers touch).
 *
 * Arguments:
 *   PATH      as given; "NULL" is a null pointer
 *   DIRFD     "AT_FDCWD", "badfd" (a closed descriptor), or a directory the
 *             probe first opens with open(DIR, O_RDONLY|O_DIRECTORY)
 *   FD        "badfd", or a file the probe first opens with open(F, O_RDONLY)
 *   HANDLE    a path made into a file handle with name_to_handle_at() (not
 *             hooked); "NULL" is a null pointer
 *   FLAGS     symbolic, joined by '|' ("O_WRONLY|O_CREAT", "AT_REMOVEDIR",
 *             "S_IFIFO|0644"), or a number (0644 is octal)
 *   SECS      seconds since the epoch for both atime and mtime; "NULL" for
 *             a null times pointer (now)
 *   DIRFD and FD also take "O_PATH:F" and "O_RDONLY:F": F opened that way
 *   (a descriptor of a file where a directory is usual, for AT_EMPTY_PATH)
 * The probe's own opens go through the same (hooked) libc functions; a
 * setup step that fails ends the probe with status 2 and a line on stderr.
 *
 * "probe syscall NAME ARG..." calls syscall(SYS_NAME, ...) with the arguments
 * NAME takes (see sysnames below); openat2's struct open_how is given as
 * FLAGS RESOLVE.
 *
 * Functions returning a pointer print ret=0 for non-NULL and ret=-1 for
 * NULL; descriptors are printed as the number; scandir prints the count.
 * Functions returning nothing (updwtmp) print ret=0 and the errno they
 * left (errno is 0 before the call): a refusal shows as ret=0 errno=EACCES.
 * clone runs a child that exits 0 and prints ret=0 when it did.
 *
 * Then the probe checks that the call left no descriptor open besides what
 * it returned (a descriptor, a FILE's, a DIR's) and the probe's own: a
 * leak is reported on stderr and ends the probe with status 3. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <mntent.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/openat2.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>
#include <utmp.h>
#include <utmpx.h>

/* The explicit variants, by symbol name. */
extern int x_open64(const char *, int, ...) __asm__("open64");
extern int x_openat64(int, const char *, int, ...) __asm__("openat64");
extern int x_open_2(const char *, int) __asm__("__open_2");
extern int x_open64_2(const char *, int) __asm__("__open64_2");
extern int x_openat_2(int, const char *, int) __asm__("__openat_2");
extern int x_openat64_2(int, const char *, int) __asm__("__openat64_2");
extern int x_creat64(const char *, mode_t) __asm__("creat64");
extern FILE *x_fopen64(const char *, const char *) __asm__("fopen64");
extern FILE *x_freopen64(const char *, const char *, FILE *) __asm__("freopen64");
extern int x_mkstemp64(char *) __asm__("mkstemp64");
extern int x_mkostemp64(char *, int) __asm__("mkostemp64");
extern int x_mkstemps64(char *, int) __asm__("mkstemps64");
extern int x_mkostemps64(char *, int, int) __asm__("mkostemps64");
extern int x_truncate64(const char *, off64_t) __asm__("truncate64");
extern FILE *x_tmpfile64(void) __asm__("tmpfile64");
extern int x_scandir64(const char *, struct dirent64 ***, int (*)(const struct dirent64 *),
		       int (*)(const struct dirent64 **, const struct dirent64 **)) __asm__("scandir64");
/* libc's other names for open and fopen, and the stat-era mknod (glibc
 * 2.36 still exports __xmknod and __xmknodat but no header declares them;
 * VER is _MKNOD_VER_LINUX, 0 on x86_64). */
extern int x___open(const char *, int, ...) __asm__("__open");
extern int x___open64(const char *, int, ...) __asm__("__open64");
extern FILE *x__IO_fopen(const char *, const char *) __asm__("_IO_fopen");
extern int x___xmknod(int, const char *, mode_t, dev_t *) __asm__("__xmknod");
extern int x___xmknodat(int, int, const char *, mode_t, dev_t *) __asm__("__xmknodat");
#define MKNOD_VER 0
extern int x_scandirat64(int, const char *, struct dirent64 ***, int (*)(const struct dirent64 *),
			 int (*)(const struct dirent64 **, const struct dirent64 **)) __asm__("scandirat64");

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif

#define BADFD 9999

static const struct {
	int e;
	const char *name;
} errnames[] = {
#define E(x) {x, #x}
	E(EACCES), E(ENOENT), E(EEXIST), E(ENOTDIR), E(EISDIR), E(ELOOP), E(EBADF), E(EINVAL),
	E(EPERM), E(ENOTEMPTY), E(EXDEV), {ENOTSUP, "ENOTSUP"}, E(ENAMETOOLONG), E(ENODATA),
	E(EADDRINUSE), E(EROFS), E(EFAULT), E(ENOSPC), E(EBUSY), E(EMLINK), E(ENXIO),
	E(ETXTBSY), E(E2BIG), E(ERANGE), E(ENOSYS), E(EOVERFLOW), E(EFBIG), E(ENOMEM),
	E(EAFNOSUPPORT), E(EINTR), E(EIO), E(ENOTTY),
#undef E
};

static const struct {
	const char *name;
	long value;
} symbols[] = {
#define S(x) {#x, (long)(x)}
	S(O_RDONLY), S(O_WRONLY), S(O_RDWR), S(O_CREAT), S(O_EXCL), S(O_TRUNC), S(O_APPEND),
	S(O_NOFOLLOW), S(O_DIRECTORY), S(O_CLOEXEC), S(O_TMPFILE), S(O_PATH), S(O_NONBLOCK),
	S(O_NOCTTY), S(O_SYNC), S(O_DSYNC), S(O_NOATIME),
	S(AT_REMOVEDIR), S(AT_SYMLINK_NOFOLLOW), S(AT_SYMLINK_FOLLOW), S(AT_EMPTY_PATH),
	S(RENAME_NOREPLACE), S(RENAME_EXCHANGE), S(RENAME_WHITEOUT),
	S(XATTR_CREATE), S(XATTR_REPLACE),
	S(S_IFIFO), S(S_IFREG), S(S_IFCHR), S(S_IFBLK), S(S_IFSOCK),
	S(RESOLVE_NO_XDEV), S(RESOLVE_NO_MAGICLINKS), S(RESOLVE_NO_SYMLINKS), S(RESOLVE_BENEATH),
	S(RESOLVE_IN_ROOT), S(RESOLVE_CACHED),
	S(CLONE_NEWUSER), S(CLONE_NEWNS), S(CLONE_FILES), S(CLONE_FS), S(SIGCHLD),
	S(MS_BIND), S(MS_REC), S(OPEN_TREE_CLONE), S(OPEN_TREE_CLOEXEC), S(MOVE_MOUNT_F_EMPTY_PATH),
	S(FSOPEN_CLOEXEC), S(FIONREAD), S(TCGETS), S(TIOCSTI),
#undef S
};

static const char *func;

/* Descriptors the probe inherited or itself opened, and the one the call
 * handed back.  A leaked descriptor takes the lowest free number, so
 * looking below 1024 is plenty. */
#define FD_SCAN 1024
static bool inherited[FD_SCAN];
static int own_fds[16], n_own, result_fd = -1;

static int own(int fd)
{
	if (fd >= 0 && n_own < (int)(sizeof(own_fds) / sizeof(own_fds[0])))
		own_fds[n_own++] = fd;
	return fd;
}

static __attribute__((noreturn)) void setup_failed(const char *what, const char *arg)
{
	fprintf(stderr, "probe %s: %s %s: %s\n", func, what, arg ? arg : "(null)", strerror(errno));
	exit(2);
}

static const char *errname(int e, char *buf, size_t size)
{
	for (size_t i = 0; i < sizeof(errnames) / sizeof(errnames[0]); i++)
		if (errnames[i].e == e)
			return errnames[i].name;
	snprintf(buf, size, "%d", e);
	return buf;
}

/* "O_WRONLY|O_CREAT", "S_IFIFO|0644", "0", "AT_REMOVEDIR". */
static long flags(const char *s)
{
	long v = 0;
	char tok[64];

	while (*s) {
		size_t n = strcspn(s, "|");
		if (n == 0 || n >= sizeof(tok))
			goto bad;
		memcpy(tok, s, n);
		tok[n] = '\0';
		char *end;
		long num = strtol(tok, &end, 0);
		if (*end == '\0') {
			v |= num;
		} else {
			size_t i;
			for (i = 0; i < sizeof(symbols) / sizeof(symbols[0]); i++)
				if (!strcmp(symbols[i].name, tok))
					break;
			if (i == sizeof(symbols) / sizeof(symbols[0]))
				goto bad;
			v |= symbols[i].value;
		}
		s += n;
		if (*s == '|')
			s++;
	}
	return v;
bad:
	errno = EINVAL;
	setup_failed("bad flags", s);
}

static long number(const char *s)
{
	char *end;
	long v = strtol(s, &end, 0);
	if (!*s || *end) {
		errno = EINVAL;
		setup_failed("bad number", s);
	}
	return v;
}

static const char *path(const char *s)
{
	return strcmp(s, "NULL") ? s : NULL;
}

static bool needs_mode(int fl)
{
	return (fl & O_CREAT) || (fl & O_TMPFILE) == O_TMPFILE;
}

/* "O_PATH:F" or "O_RDONLY:F": F opened that way (-1 for anything else). */
static int prefixed_fd(const char *s)
{
	static const struct {
		const char *prefix;
		int flags;
	} kinds[] = {{"O_PATH:", O_PATH}, {"O_RDONLY:", O_RDONLY}};

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		size_t n = strlen(kinds[i].prefix);
		if (!strncmp(s, kinds[i].prefix, n)) {
			int fd = own(open(s + n, kinds[i].flags));
			if (fd < 0)
				setup_failed("open fd", s);
			return fd;
		}
	}
	return -1;
}

/* A descriptor argument: opened here through the (hooked) open(). */
static int dirfd_arg(const char *s)
{
	if (!strcmp(s, "AT_FDCWD"))
		return AT_FDCWD;
	if (!strcmp(s, "badfd"))
		return BADFD;
	int fd = prefixed_fd(s);
	if (fd >= 0)
		return fd;
	fd = own(open(s, O_RDONLY | O_DIRECTORY));
	if (fd < 0)
		setup_failed("open dirfd", s);
	return fd;
}

static int fd_arg(const char *s)
{
	if (!strcmp(s, "badfd"))
		return BADFD;
	int fd = prefixed_fd(s);
	if (fd >= 0)
		return fd;
	fd = own(open(s, O_RDONLY));
	if (fd < 0)
		setup_failed("open fd", s);
	return fd;
}

static struct file_handle *handle_arg(const char *s)
{
	if (!strcmp(s, "NULL"))
		return NULL;
	struct file_handle *h = malloc(sizeof(*h) + MAX_HANDLE_SZ);
	int mount_id;
	if (!h)
		setup_failed("malloc", s);
	h->handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(AT_FDCWD, s, h, &mount_id, 0) < 0)
		setup_failed("name_to_handle_at", s);
	return h;
}

static struct timeval tv[2];
static struct timespec ts[2];
static struct utimbuf ub;

static bool times_arg(const char *s)
{
	if (!strcmp(s, "NULL"))
		return false;
	long t = number(s);
	tv[0].tv_sec = tv[1].tv_sec = t;
	ts[0].tv_sec = ts[1].tv_sec = t;
	ub.actime = ub.modtime = t;
	return true;
}
#define TV(s) (times_arg(s) ? tv : NULL)
#define TS(s) (times_arg(s) ? ts : NULL)
#define UB(s) (times_arg(s) ? &ub : NULL)

static FILE *some_stream(void)
{
	int p[2];
	if (pipe(p) < 0)
		setup_failed("pipe", "");
	own(p[0]);
	own(p[1]);
	FILE *f = fdopen(p[0], "r");
	if (!f)
		setup_failed("fdopen", "pipe");
	return f;
}

static int bind_path(const char *p)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int s = own(socket(AF_UNIX, SOCK_STREAM, 0));

	if (s < 0)
		setup_failed("socket", "AF_UNIX");
	size_t n = strlen(p);
	if (n >= sizeof(a.sun_path)) {
		errno = ENAMETOOLONG;
		setup_failed("socket path", p);
	}
	memcpy(a.sun_path, p, n + 1);
	return bind(s, (struct sockaddr *)&a, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1));
}

static long from_ptr(const void *p)
{
	return p ? 0 : -1;
}

static long fd_result(long fd)
{
	result_fd = fd >= 0 ? (int)fd : -1;
	return fd;
}

static long stream_result(FILE *f)
{
	result_fd = f ? fileno(f) : -1;
	return from_ptr(f);
}

static long dir_result(DIR *d)
{
	result_fd = d ? dirfd(d) : -1;
	return from_ptr(d);
}

/* Descriptors open now that are neither the probe's nor the result. */
static int leaked(char *buf, size_t size)
{
	int n = 0;
	size_t len = 0;

	buf[0] = '\0';
	for (int fd = 3; fd < FD_SCAN; fd++) {
		bool mine = fd == result_fd || inherited[fd];
		for (int i = 0; i < n_own; i++)
			mine |= own_fds[i] == fd;
		if (mine || fcntl(fd, F_GETFD) < 0)
			continue;
		n++;
		if (len < size)
			len += (size_t)snprintf(buf + len, size - len, " %d", fd);
	}
	return n;
}

/* The template is modified in place: keep it in writable storage. */
static char tmpl[4096];
static char *template_arg(const char *s)
{
	if (strlen(s) >= sizeof(tmpl)) {
		errno = ENAMETOOLONG;
		setup_failed("template", s);
	}
	strcpy(tmpl, s);
	return tmpl;
}

static long scan_result(int n, void *list)
{
	if (n > 0) {
		struct dirent **l = list;
		for (int i = 0; i < n; i++)
			free(l[i]);
	}
	free(list);
	return n;
}

/* syscall(2) by number.  Argument kinds: d DIRFD, F FD, p PATH, s string,
 * f FLAGS (or a number), x a value string and its length, t timespec[2],
 * v timeval[2], u utimbuf (each from SECS), h HANDLE, o FLAGS RESOLVE as a
 * struct open_how and its size, b (no argument given) a zeroed scratch
 * buffer, as ioctl's third argument. */
static const struct {
	const char *name;
	long nr;
	const char *kinds;
} sysnames[] = {
	{"open", SYS_open, "pff"},
	{"openat", SYS_openat, "dpff"},
	{"openat2", SYS_openat2, "dpo"},
	{"creat", SYS_creat, "pf"},
	{"open_by_handle_at", SYS_open_by_handle_at, "dhf"},
	{"mkdir", SYS_mkdir, "pf"},
	{"mkdirat", SYS_mkdirat, "dpf"},
	{"rmdir", SYS_rmdir, "p"},
	{"unlink", SYS_unlink, "p"},
	{"unlinkat", SYS_unlinkat, "dpf"},
	{"rename", SYS_rename, "pp"},
	{"renameat", SYS_renameat, "dpdp"},
	{"renameat2", SYS_renameat2, "dpdpf"},
	{"link", SYS_link, "pp"},
	{"linkat", SYS_linkat, "dpdpf"},
	{"symlink", SYS_symlink, "pp"},
	{"symlinkat", SYS_symlinkat, "pdp"},
	{"mknod", SYS_mknod, "pff"},
	{"mknodat", SYS_mknodat, "dpff"},
	{"chmod", SYS_chmod, "pf"},
	{"fchmodat", SYS_fchmodat, "dpf"},
	{"fchmodat2", SYS_fchmodat2, "dpff"},
	{"fchmod", SYS_fchmod, "Ff"},
	{"chown", SYS_chown, "pff"},
	{"lchown", SYS_lchown, "pff"},
	{"fchownat", SYS_fchownat, "dpfff"},
	{"fchown", SYS_fchown, "Fff"},
	{"truncate", SYS_truncate, "pf"},
	{"utime", SYS_utime, "pu"},
	{"utimes", SYS_utimes, "pv"},
	{"futimesat", SYS_futimesat, "dpv"},
	{"utimensat", SYS_utimensat, "dptf"},
	{"setxattr", SYS_setxattr, "psxf"},
	{"lsetxattr", SYS_lsetxattr, "psxf"},
	{"fsetxattr", SYS_fsetxattr, "Fsxf"},
	{"removexattr", SYS_removexattr, "ps"},
	{"lremovexattr", SYS_lremovexattr, "ps"},
	{"fremovexattr", SYS_fremovexattr, "Fs"},
	{"umask", SYS_umask, "f"},
	{"unshare", SYS_unshare, "f"},
	{"mount", SYS_mount, "pppfp"},
	{"ioctl", SYS_ioctl, "Ffb"},
	{"setxattrat", 463, "dpfs"},
};

static struct open_how how;

__attribute__((no_sanitize("nonnull-attribute"))) static long call_syscall(int argc, char **a)
{
	long v[6] = {0};
	int n = 0, k = 1;
	size_t i;

	if (argc < 1)
		goto usage;
	for (i = 0; i < sizeof(sysnames) / sizeof(sysnames[0]); i++)
		if (!strcmp(sysnames[i].name, a[0]))
			break;
	if (i == sizeof(sysnames) / sizeof(sysnames[0]))
		goto usage;
	for (const char *t = sysnames[i].kinds; *t; t++) {
		if (*t == 'b') {
			static long scratch[64];
			if (n >= 6)
				goto usage;
			v[n++] = (long)scratch;
			continue;
		}
		if (k >= argc || n >= 6)
			goto usage;
		const char *s = a[k++];
		switch (*t) {
		case 'd':
			v[n++] = dirfd_arg(s);
			break;
		case 'F':
			v[n++] = fd_arg(s);
			break;
		case 'p':
			v[n++] = (long)path(s);
			break;
		case 's':
			v[n++] = (long)s;
			break;
		case 'f':
			v[n++] = flags(s);
			break;
		case 'x':
			v[n++] = (long)s;
			v[n++] = (long)strlen(s);
			break;
		case 't':
			v[n++] = (long)TS(s);
			break;
		case 'v':
			v[n++] = (long)TV(s);
			break;
		case 'u':
			v[n++] = (long)UB(s);
			break;
		case 'h':
			v[n++] = (long)handle_arg(s);
			break;
		case 'o':
			if (k >= argc)
				goto usage;
			how.flags = (unsigned long long)flags(s);
			how.mode = needs_mode((int)how.flags) ? 0644 : 0;
			how.resolve = (unsigned long long)flags(a[k++]);
			v[n++] = (long)&how;
			v[n++] = (long)sizeof(how);
			break;
		}
	}
	if (k != argc)
		goto usage;
	long r = syscall(sysnames[i].nr, v[0], v[1], v[2], v[3], v[4], v[5]);
	if (strstr(sysnames[i].name, "open") || !strcmp(sysnames[i].name, "creat"))
		fd_result(r);
	return r;
usage:
	fprintf(stderr, "probe syscall: unknown system call or wrong arguments\n");
	exit(2);
}

/* Set by calls that return nothing: main prints the errno they left. */
static bool void_call;

static struct utmp *utmp_record(void)
{
	static struct utmp ut;
	ut.ut_type = DEAD_PROCESS;
	snprintf(ut.ut_line, sizeof(ut.ut_line), "pts/99");
	ut.ut_tv.tv_sec = 1500000000;
	return &ut;
}

static int clone_child(void *arg)
{
	(void)arg;
	return 0;
}

/* clone(2) through libc with a child that exits 0 at once: 0 when it did. */
static long clone_and_wait(int fl)
{
	static char stack[64 * 1024] __attribute__((aligned(16)));
	int st;
	int pid = clone(clone_child, stack + sizeof(stack), fl, NULL);
	if (pid < 0)
		return -1;
	if (waitpid(pid, &st, __WALL) != pid)
		setup_failed("waitpid", "clone child");
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}

/* NULL arguments are passed on purpose (libc and the kernel answer EFAULT
 * or EINVAL), also in the sanitizer build. */
__attribute__((no_sanitize("nonnull-attribute"))) static long call(int argc, char **a)
{
	const char *f = func;
	int fl;

#define IS(name, nargs) (!strcmp(f, name) && (argc == (nargs) || (usage_args = (nargs), 0)))
	int usage_args = -1;

	/* open family */
	if (!strcmp(f, "open") || !strcmp(f, "open64")) {
		if (argc != 2 && argc != 3)
			goto usage;
		fl = (int)flags(a[1]);
		mode_t m = argc == 3 ? (mode_t)number(a[2]) : 0644;
		if (!strcmp(f, "open"))
			return fd_result(needs_mode(fl) ? open(path(a[0]), fl, m) : open(path(a[0]), fl));
		return fd_result(needs_mode(fl) ? x_open64(path(a[0]), fl, m) : x_open64(path(a[0]), fl));
	}
	/* libc's own names for open (the same function). */
	if (!strcmp(f, "__open") || !strcmp(f, "__open64")) {
		if (argc != 2 && argc != 3)
			goto usage;
		fl = (int)flags(a[1]);
		mode_t m = argc == 3 ? (mode_t)number(a[2]) : 0644;
		if (!strcmp(f, "__open"))
			return fd_result(needs_mode(fl) ? x___open(path(a[0]), fl, m) : x___open(path(a[0]), fl));
		return fd_result(needs_mode(fl) ? x___open64(path(a[0]), fl, m) : x___open64(path(a[0]), fl));
	}
	if (!strcmp(f, "openat") || !strcmp(f, "openat64")) {
		if (argc != 3 && argc != 4)
			goto usage;
		int d = dirfd_arg(a[0]);
		fl = (int)flags(a[2]);
		mode_t m = argc == 4 ? (mode_t)number(a[3]) : 0644;
		if (!strcmp(f, "openat"))
			return fd_result(needs_mode(fl) ? openat(d, path(a[1]), fl, m) : openat(d, path(a[1]), fl));
		return fd_result(needs_mode(fl) ? x_openat64(d, path(a[1]), fl, m) : x_openat64(d, path(a[1]), fl));
	}
	/* The fortified entry points never take a mode (they abort on O_CREAT). */
	if (IS("__open_2", 2))
		return fd_result(x_open_2(path(a[0]), (int)flags(a[1])));
	if (IS("__open64_2", 2))
		return fd_result(x_open64_2(path(a[0]), (int)flags(a[1])));
	if (IS("__openat_2", 3))
		return fd_result(x_openat_2(dirfd_arg(a[0]), path(a[1]), (int)flags(a[2])));
	if (IS("__openat64_2", 3))
		return fd_result(x_openat64_2(dirfd_arg(a[0]), path(a[1]), (int)flags(a[2])));
	if (IS("open_by_handle_at", 3)) {
		int m = dirfd_arg(a[0]);
		struct file_handle *h = handle_arg(a[1]);
		return fd_result(open_by_handle_at(m, h, (int)flags(a[2])));
	}
	if (IS("creat", 2))
		return fd_result(creat(path(a[0]), (mode_t)number(a[1])));
	if (IS("creat64", 2))
		return fd_result(x_creat64(path(a[0]), (mode_t)number(a[1])));
	if (IS("fopen", 2))
		return stream_result(fopen(path(a[0]), a[1]));
	if (IS("fopen64", 2))
		return stream_result(x_fopen64(path(a[0]), a[1]));
	if (IS("_IO_fopen", 2))
		return stream_result(x__IO_fopen(path(a[0]), a[1]));
	if (IS("freopen", 2)) {
		FILE *s = some_stream();
		return stream_result(freopen(path(a[0]), a[1], s));
	}
	/* freopen PATH MODE FILE: the stream is FILE opened "r" first (with a
	 * NULL PATH, freopen reopens that same file with MODE). */
	if (IS("freopen", 3)) {
		FILE *s = fopen(a[2], "r");
		if (!s)
			setup_failed("fopen", a[2]);
		own(fileno(s));
		return stream_result(freopen(path(a[0]), a[1], s));
	}
	if (IS("freopen64", 2)) {
		FILE *s = some_stream();
		return stream_result(x_freopen64(path(a[0]), a[1], s));
	}
	if (IS("freopen64", 3)) {
		FILE *s = fopen(a[2], "r");
		if (!s)
			setup_failed("fopen", a[2]);
		own(fileno(s));
		return stream_result(x_freopen64(path(a[0]), a[1], s));
	}
	if (IS("opendir", 1))
		return dir_result(opendir(path(a[0])));
	if (IS("scandir", 1)) {
		struct dirent **list = NULL;
		int n = scandir(path(a[0]), &list, NULL, NULL);
		return scan_result(n, list);
	}
	if (IS("scandirat", 2)) {
		struct dirent **list = NULL;
		int d = dirfd_arg(a[0]);
		int n = scandirat(d, path(a[1]), &list, NULL, NULL);
		return scan_result(n, list);
	}
	if (IS("scandirat64", 2)) {
		struct dirent64 **list = NULL;
		int d = dirfd_arg(a[0]);
		int n = x_scandirat64(d, path(a[1]), &list, NULL, NULL);
		return scan_result(n, list);
	}
	if (!strcmp(f, "syscall"))
		return call_syscall(argc, a);
	if (IS("scandir64", 1)) {
		struct dirent64 **list = NULL;
		int n = x_scandir64(path(a[0]), &list, NULL, NULL);
		return scan_result(n, list);
	}

	/* temporary files */
	if (IS("mkstemp", 1))
		return fd_result(mkstemp(template_arg(a[0])));
	if (IS("mkstemp64", 1))
		return fd_result(x_mkstemp64(template_arg(a[0])));
	if (IS("mkostemp", 2))
		return fd_result(mkostemp(template_arg(a[0]), (int)flags(a[1])));
	if (IS("mkostemp64", 2))
		return fd_result(x_mkostemp64(template_arg(a[0]), (int)flags(a[1])));
	if (IS("mkstemps", 2))
		return fd_result(mkstemps(template_arg(a[0]), (int)number(a[1])));
	if (IS("mkstemps64", 2))
		return fd_result(x_mkstemps64(template_arg(a[0]), (int)number(a[1])));
	if (IS("mkostemps", 3))
		return fd_result(mkostemps(template_arg(a[0]), (int)number(a[1]), (int)flags(a[2])));
	if (IS("mkostemps64", 3))
		return fd_result(x_mkostemps64(template_arg(a[0]), (int)number(a[1]), (int)flags(a[2])));
	if (IS("mkdtemp", 1))
		return from_ptr(mkdtemp(template_arg(a[0])));
	if (IS("tmpfile", 0))
		return stream_result(tmpfile());
	if (IS("tmpfile64", 0))
		return stream_result(x_tmpfile64());

	/* create, remove, rename, link */
	if (IS("mkdir", 2))
		return mkdir(path(a[0]), (mode_t)flags(a[1]));
	if (IS("mkdirat", 3))
		return mkdirat(dirfd_arg(a[0]), path(a[1]), (mode_t)flags(a[2]));
	if (IS("rmdir", 1))
		return rmdir(path(a[0]));
	if (IS("unlink", 1))
		return unlink(path(a[0]));
	if (IS("unlinkat", 3))
		return unlinkat(dirfd_arg(a[0]), path(a[1]), (int)flags(a[2]));
	if (IS("remove", 1))
		return remove(path(a[0]));
	if (IS("rename", 2))
		return rename(path(a[0]), path(a[1]));
	if (IS("renameat", 4)) {
		int od = dirfd_arg(a[0]), nd = dirfd_arg(a[2]);
		return renameat(od, path(a[1]), nd, path(a[3]));
	}
	if (IS("renameat2", 5)) {
		int od = dirfd_arg(a[0]), nd = dirfd_arg(a[2]);
		return renameat2(od, path(a[1]), nd, path(a[3]), (unsigned)flags(a[4]));
	}
	if (IS("link", 2))
		return link(path(a[0]), path(a[1]));
	if (IS("linkat", 5)) {
		int od = dirfd_arg(a[0]), nd = dirfd_arg(a[2]);
		return linkat(od, path(a[1]), nd, path(a[3]), (int)flags(a[4]));
	}
	if (IS("symlink", 2))
		return symlink(path(a[0]), path(a[1]));
	if (IS("symlinkat", 3))
		return symlinkat(path(a[0]), dirfd_arg(a[1]), path(a[2]));
	if (IS("mknod", 3))
		return mknod(path(a[0]), (mode_t)flags(a[1]), (dev_t)number(a[2]));
	if (IS("mknodat", 4))
		return mknodat(dirfd_arg(a[0]), path(a[1]), (mode_t)flags(a[2]), (dev_t)number(a[3]));
	if (IS("__xmknod", 3)) {
		dev_t dev = (dev_t)number(a[2]);
		return x___xmknod(MKNOD_VER, path(a[0]), (mode_t)flags(a[1]), &dev);
	}
	if (IS("__xmknodat", 4)) {
		int d = dirfd_arg(a[0]);
		dev_t dev = (dev_t)number(a[3]);
		return x___xmknodat(MKNOD_VER, d, path(a[1]), (mode_t)flags(a[2]), &dev);
	}
	if (IS("mkfifo", 2))
		return mkfifo(path(a[0]), (mode_t)flags(a[1]));
	if (IS("mkfifoat", 3))
		return mkfifoat(dirfd_arg(a[0]), path(a[1]), (mode_t)flags(a[2]));
	if (IS("bind", 1))
		return bind_path(a[0]);

	/* contents and metadata */
	if (IS("truncate", 2))
		return truncate(path(a[0]), (off_t)number(a[1]));
	if (IS("truncate64", 2))
		return x_truncate64(path(a[0]), (off64_t)number(a[1]));
	if (IS("chmod", 2))
		return chmod(path(a[0]), (mode_t)flags(a[1]));
	if (IS("lchmod", 2))
		return lchmod(path(a[0]), (mode_t)flags(a[1]));
	if (IS("fchmodat", 4))
		return fchmodat(dirfd_arg(a[0]), path(a[1]), (mode_t)flags(a[2]), (int)flags(a[3]));
	if (IS("fchmod", 2))
		return fchmod(fd_arg(a[0]), (mode_t)flags(a[1]));
	if (IS("chown", 3))
		return chown(path(a[0]), (uid_t)number(a[1]), (gid_t)number(a[2]));
	if (IS("lchown", 3))
		return lchown(path(a[0]), (uid_t)number(a[1]), (gid_t)number(a[2]));
	if (IS("fchownat", 5))
		return fchownat(dirfd_arg(a[0]), path(a[1]), (uid_t)number(a[2]), (gid_t)number(a[3]),
				(int)flags(a[4]));
	if (IS("fchown", 3))
		return fchown(fd_arg(a[0]), (uid_t)number(a[1]), (gid_t)number(a[2]));
	if (IS("utime", 2))
		return utime(path(a[0]), UB(a[1]));
	if (IS("utimes", 2))
		return utimes(path(a[0]), TV(a[1]));
	if (IS("lutimes", 2))
		return lutimes(path(a[0]), TV(a[1]));
	if (IS("futimesat", 3)) {
		int d = dirfd_arg(a[0]);
		return futimesat(d, path(a[1]), TV(a[2]));
	}
	if (IS("utimensat", 4)) {
		int d = dirfd_arg(a[0]);
		return utimensat(d, path(a[1]), TS(a[2]), (int)flags(a[3]));
	}
	if (IS("futimens", 2)) {
		int d = fd_arg(a[0]);
		return futimens(d, TS(a[1]));
	}
	if (IS("futimes", 2)) {
		int d = fd_arg(a[0]);
		return futimes(d, TV(a[1]));
	}
	if (IS("setxattr", 4))
		return setxattr(path(a[0]), a[1], a[2], strlen(a[2]), (int)flags(a[3]));
	if (IS("lsetxattr", 4))
		return lsetxattr(path(a[0]), a[1], a[2], strlen(a[2]), (int)flags(a[3]));
	if (IS("fsetxattr", 4)) {
		int d = fd_arg(a[0]);
		return fsetxattr(d, a[1], a[2], strlen(a[2]), (int)flags(a[3]));
	}
	if (IS("removexattr", 2))
		return removexattr(path(a[0]), a[1]);
	if (IS("lremovexattr", 2))
		return lremovexattr(path(a[0]), a[1]);
	if (IS("fremovexattr", 2)) {
		int d = fd_arg(a[0]);
		return fremovexattr(d, a[1]);
	}

	/* files libc opens for its own APIs */
	if (IS("setmntent", 2))
		return stream_result(setmntent(path(a[0]), a[1]));
	if (IS("updwtmp", 1)) {
		struct utmp *ut = utmp_record();
		void_call = true;
		errno = 0;
		updwtmp(path(a[0]), ut);
		return 0;
	}
	if (IS("updwtmpx", 1)) {
		struct utmpx *ut = (struct utmpx *)utmp_record(); /* the same layout in glibc */
		void_call = true;
		errno = 0;
		updwtmpx(path(a[0]), ut);
		return 0;
	}

	/* descriptors (the shim only watches them for its own) */
	if (IS("close", 1))
		return close(fd_arg(a[0]));
	if (IS("close_range", 3)) {
		int lo = fd_arg(a[0]), hi = fd_arg(a[1]);
		return close_range((unsigned)lo, (unsigned)hi, (int)flags(a[2]));
	}
	if (IS("closefrom", 1)) {
		int lo = fd_arg(a[0]);
		void_call = true;
		errno = 0;
		closefrom(lo);
		return fcntl(lo, F_GETFD) < 0 && errno == EBADF ? (errno = 0, 0) : -1;
	}
	if (IS("dup2", 2))
		return fd_result(dup2(fd_arg(a[0]), (int)number(a[1])));
	if (IS("dup3", 3))
		return fd_result(dup3(fd_arg(a[0]), (int)number(a[1]), (int)flags(a[2])));

	/* namespaces, mounts, the terminal */
	if (IS("unshare", 1))
		return unshare((int)flags(a[0]));
	if (IS("clone", 1))
		return clone_and_wait((int)flags(a[0]));
	if (IS("setns", 2)) {
		int d = fd_arg(a[0]);
		return setns(d, (int)flags(a[1]));
	}
	if (IS("mount", 4))
		return mount(path(a[0]), path(a[1]), path(a[2]), (unsigned long)flags(a[3]), NULL);
	if (IS("fsopen", 2))
		return fd_result(fsopen(path(a[0]), (unsigned)flags(a[1])));
	if (IS("open_tree", 3)) {
		int d = dirfd_arg(a[0]);
		return fd_result(open_tree(d, path(a[1]), (unsigned)flags(a[2])));
	}
	if (IS("move_mount", 5)) {
		int fd1 = dirfd_arg(a[0]), fd2 = dirfd_arg(a[2]);
		return move_mount(fd1, path(a[1]), fd2, path(a[3]), (unsigned)flags(a[4]));
	}
	/* ioctl FD REQUEST: the third argument points at a zeroed int. */
	if (IS("ioctl", 2)) {
		int d = fd_arg(a[0]);
		int arg = 0;
		return ioctl(d, (unsigned long)flags(a[1]), &arg);
	}
#undef IS

usage:
	if (usage_args >= 0)
		fprintf(stderr, "probe %s: takes %d argument(s), got %d\n", f, usage_args, argc);
	else
		fprintf(stderr, "probe: unknown function or wrong arguments: %s\n", f);
	exit(2);
}

int main(int argc, char **argv)
{
	char buf[16];

	if (argc < 2) {
		fprintf(stderr, "usage: probe FUNC ARG...\n");
		return 2;
	}
	func = argv[1];
	for (int fd = 3; fd < FD_SCAN; fd++)
		inherited[fd] = fcntl(fd, F_GETFD) >= 0;
	errno = 0;
	long r = call(argc - 2, argv + 2);
	int e = errno;
	printf("ret=%ld errno=%s\n", r, r == -1 || void_call ? errname(e, buf, sizeof(buf)) : "0");
	if (fflush(stdout) != 0)
		return 2;
	char fds[256];
	if (leaked(fds, sizeof(fds))) {
		fprintf(stderr, "probe: %s left descriptor(s) open:%s\n", func, fds);
		return 3;
	}
	return 0;
}
