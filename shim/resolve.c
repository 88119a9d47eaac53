/* Turning a path argument into the path the call will really touch, and
 * judging it.
 *
 * Fast path: the lexical path (cwd or dirfd + path, normalised) is exact when
 * nothing on the way is a symlink.  The kernel tells us that for free:
 * openat2(RESOLVE_NO_SYMLINKS) fails with ELOOP instead of following one.  So
 * an allowed open costs one openat2 instead of one openat, and other calls
 * act on a parent descriptor opened the same way.
 *
 * Slow path (a symlink, "..", a magic /proc link, or a lexical refusal): open
 * the parent directory as the kernel resolves it, ask the kernel for its real
 * path, follow a final symlink by hand, judge the real path (and the path as
 * written against deny rules), then act through the descriptor, so a symlink
 * swapped in after the check cannot redirect the call. */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "path.h"
#include "shim.h"

#define MAX_SYMLINKS 40

/* openat(2) adds O_LARGEFILE on 64-bit kernels by itself; openat2(2) does
 * not, and without it a file over 2 GiB fails with EOVERFLOW. */
#if defined(__aarch64__) || defined(__arm__)
#define SBP_O_LARGEFILE 0400000
#else
#define SBP_O_LARGEFILE 0100000
#endif

static bool no_openat2; /* kernel older than 5.6 */

int sbp_sys_openat(int dirfd, const char *path, int flags, unsigned mode)
{
	return (int)sbp_raw(SYS_openat, dirfd, (long)path, flags, mode, 0);
}

int sbp_sys_close(int fd)
{
	int e = errno;
	int r = (int)sbp_raw(SYS_close, fd, 0, 0, 0, 0);
	errno = e;
	return r;
}

static int sys_openat2(int dirfd, const char *path, int flags, unsigned mode, unsigned long resolve)
{
	struct open_how how = {
		.flags = (unsigned)flags | ((flags & O_PATH) ? 0 : SBP_O_LARGEFILE),
		.mode = SBP_NEEDS_MODE(flags) ? (mode & 07777) : 0,
		.resolve = resolve,
	};
	return (int)sbp_raw(SYS_openat2, dirfd, (long)path, (long)&how, sizeof(how), 0);
}

static void fmt_fd(char *buf, const char *prefix, int fd)
{
	char num[12];
	int n = 0;
	size_t pl = strlen(prefix);

	memcpy(buf, prefix, pl);
	do
		num[n++] = (char)('0' + fd % 10);
	while ((fd /= 10) > 0);
	while (n)
		buf[pl++] = num[--n];
	buf[pl] = '\0';
}

/* The kernel's path for descriptor FD: "/..." for files and directories,
 * "pipe:[N]" and the like for anonymous objects. */
static int fd_path(int fd, char *buf, size_t size)
{
	char link[32];

	fmt_fd(link, "/proc/self/fd/", fd);
	long n = readlink(link, buf, size - 1);
	if (n < 0 || (size_t)n >= size - 1)
		return -1;
	buf[n] = '\0';
	return 0;
}

static int dir_path(int dirfd, char *buf, size_t size)
{
	if (dirfd != AT_FDCWD)
		return fd_path(dirfd, buf, size);
	long n = sbp_raw(SYS_getcwd, (long)buf, (long)size, 0, 0, 0);
	/* "(unreachable)/..." when the cwd lies outside our root. */
	return n > 0 && buf[0] == '/' ? 0 : -1;
}

/* The path as written, made absolute and normalised: PATH itself when it
 * already is (the common case, no copy), else built in BUF.  NULL when the
 * base directory cannot be named. */
static const char *lexical(int dirfd, const char *path, char *buf, unsigned *flags)
{
	char base[PATH_MAX];

	*flags = 0;
	/* Copied even when it is already normal: the call then acts on the
	 * bytes that were judged, whatever another thread writes into the
	 * caller's buffer meanwhile. */
	if (sbp_path_is_normal(path)) {
		size_t n = strnlen(path, PATH_MAX);
		if (n >= PATH_MAX)
			return NULL;
		memcpy(buf, path, n + 1);
		return buf;
	}
	if (path[0] != '/' && dir_path(dirfd, base, sizeof(base)) < 0)
		return NULL;
	return sbp_path_normalize(path[0] == '/' ? NULL : base, path, buf, PATH_MAX, flags) < 0 ? NULL : buf;
}

static bool active(void)
{
	if (__builtin_expect(!sbp_pol, 0))
		sbp_init();
	return sbp_pol && sbp_pol->mode != SBP_MODE_OFF;
}

static void query(struct sbp_query *q, enum sbp_op op, const char *path, unsigned how)
{
	q->op = op;
	q->path = path;
	q->len = strlen(path);
	q->pid = strncmp(path, "/proc/", 6) == 0 ? (int)getpid() : 0;
	q->subtree = how & SBP_SUBTREE;
}

static bool is_rule_denial(enum sbp_reason r)
{
	return r == SBP_DENY_RULE || r == SBP_DENY_WRITE_RULE || r == SBP_CONTAINS_PROTECTED ||
	       r == SBP_MOVE_PROTECTED;
}

/* What /proc/self/fd names for objects with no place in the file system. */
static bool anonymous(const char *p)
{
	static const char del[] = " (deleted)";
	size_t n = strlen(p), dl = sizeof(del) - 1;

	if (p[0] != '/')
		return true; /* pipe:[..], socket:[..], anon_inode:[..] */
	/* memfd_create: "/memfd:NAME (deleted)"; it never was in "/". */
	return !strncmp(p, "/memfd:", 7) && n > dl && !strcmp(p + n - dl, del);
}

/* PATH (relative to DIRFD) is a directory now, not a symlink to one. */
static bool is_directory(int dirfd, const char *path)
{
	struct stat st;

	return sbp_raw(SYS_newfstatat, dirfd, (long)path, (long)&st, AT_SYMLINK_NOFOLLOW, 0) == 0 &&
	       S_ISDIR(st.st_mode);
}

/* Report a violation; 0 = go ahead anyway (audit), -1 = refused (EACCES). */
static int refuse(const char *call, const struct sbp_query *q, const struct sbp_verdict *v, const char *given,
		  const char *resolved)
{
	sbp_report(call, q, v, given, resolved);
	if (v->allow)
		return 0;
	errno = EACCES;
	return -1;
}

/* Judge the real path ABS; LEX (the path as written, made absolute) is
 * held to the deny rules too.  0 = go ahead, -1 = refused (EACCES). */
static int judge(const char *call, enum sbp_op op, unsigned how, const char *given, const char *abs,
		 const char *lex)
{
	struct sbp_query q;
	struct sbp_verdict v;

	if (anonymous(abs))
		return 0; /* pipe:[..], socket:[..], anon_inode:.., memfd: no path to judge */
	const char *real = abs;
	for (;;) {
		abs = real;
		query(&q, op, abs, how);
		sbp_decide(sbp_pol, &q, &v);
		if (!v.violation && lex && strcmp(lex, abs) != 0) {
			struct sbp_query q2;
			struct sbp_verdict v2;
			query(&q2, op, lex, how);
			sbp_decide(sbp_pol, &q2, &v2);
			if (v2.violation && is_rule_denial(v2.reason))
				q = q2, v = v2, abs = lex;
		}
		if (!v.violation || v.reason != SBP_CONTAINS_PROTECTED || !(how & SBP_SUBTREE) ||
		    is_directory(AT_FDCWD, real))
			break;
		how &= ~(unsigned)SBP_SUBTREE; /* only a directory holds anything */
	}
	return v.violation ? refuse(call, &q, &v, given, abs) : 0;
}

static int unresolved(const char *call, enum sbp_op op, const char *given)
{
	struct sbp_query q = {op, given, strlen(given), 0, false};
	struct sbp_verdict v = {sbp_pol->mode == SBP_MODE_AUDIT, true, SBP_UNRESOLVED, NULL};

	return refuse(call, &q, &v, given, NULL);
}

/* Split PATH into the directory part (copied to DIR, "" for none) and the
 * last component with its trailing slashes (returned, points into PATH). */
static const char *split(const char *path, char *dir, size_t size)
{
	size_t len = strlen(path), end = len;

	while (end > 1 && path[end - 1] == '/')
		end--;
	size_t start = end;
	while (start > 0 && path[start - 1] != '/')
		start--;
	if (start == 0) {
		dir[0] = '\0';
	} else {
		size_t n = start;
		if (n >= size)
			n = size - 1;
		memcpy(dir, path, n);
		dir[n] = '\0';
	}
	return path + start;
}

/* Calls the kernel refuses whatever the policy says, so that nothing
 * needs judging (and nothing is truncated to fit our buffers): a path of
 * PATH_MAX bytes or more, a last component longer than NAME_MAX
 * (ENAMETOOLONG), and for calls that make or remove a directory entry, a
 * last component "." or ".." or the path "/" (EEXIST, EINVAL, EBUSY...). */
static bool kernel_refuses(const char *path, unsigned how)
{
	size_t n = strnlen(path, PATH_MAX);
	if (n >= PATH_MAX)
		return true;
	size_t end = n;
	while (end > 1 && path[end - 1] == '/')
		end--;
	size_t start = end;
	while (start > 0 && path[start - 1] != '/')
		start--;
	if (end - start > NAME_MAX)
		return true;
	if (!(how & SBP_ENTRY))
		return false;
	const char *last = path + start;
	size_t ln = end - start;
	return ln == 0 || (ln == 1 && last[0] == '.') || (ln == 2 && last[0] == '.' && last[1] == '.');
}

/* The last component without trailing slashes, into OUT. */
static void last_name(const char *last, char *out, size_t size)
{
	size_t n = strcspn(last, "/");
	if (n >= size)
		n = size - 1;
	memcpy(out, last, n);
	out[n] = '\0';
}

static bool dot_or_dotdot(const char *name)
{
	return name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'));
}

void sbp_target_done(struct sbp_target *t)
{
	if (t->own_fd >= 0)
		sbp_sys_close(t->own_fd);
	if (t->own_fd2 >= 0)
		sbp_sys_close(t->own_fd2);
	if (t->cached >= 0)
		sbp_cache_release(t->cached);
	t->own_fd = t->own_fd2 = t->cached = -1;
}

/* For calls that take only a path (truncate, scandir, freopen): name the
 * judged final component through a descriptor, so that a symlink swapped in
 * after the check is not followed.  A name that does not exist yet (a
 * create) stays as it is. */
static int pin_final(struct sbp_target *t)
{
	struct stat st;

	if (!t->pinned)
		return 0;
	int fd = sbp_sys_openat(t->dirfd, t->name, O_PATH | O_NOFOLLOW | O_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0 || S_ISLNK(st.st_mode)) {
		sbp_sys_close(fd);
		errno = ELOOP; /* swapped for a symlink since the check */
		return -1;
	}
	t->own_fd2 = fd;
	fmt_fd(t->buf, "/proc/self/fd/", fd);
	t->dirfd = AT_FDCWD;
	t->name = t->buf;
	return 0;
}

/* Open DIR (relative to DIRFD) as the directory to act in. */
static int open_parent(int dirfd, const char *dir)
{
	return sbp_sys_openat(dirfd, dir, O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
}

static int slow(const char *call, enum sbp_op op, int dirfd, const char *path, unsigned how,
		struct sbp_target *t, const char *lex)
{
	char cur[PATH_MAX], dir[PATH_MAX], parent[PATH_MAX], name[NAME_MAX + 1];
	int base = dirfd, hops = 0;
	bool follow = how & SBP_FOLLOW;

	if (strlen(path) >= sizeof(cur)) {
		errno = ENAMETOOLONG;
		return SBP_CHECK_FAIL;
	}
	strcpy(cur, path);
	for (;;) {
		const char *last = split(cur, dir, sizeof(dir));
		/* The directory is pinned by a descriptor of our own (".": the
		 * cwd or the caller's dirfd, which also fails as the kernel
		 * would, EBADF or ENOTDIR). */
		int pfd = open_parent(base, dir[0] ? dir : ".");
		if (base != dirfd && base != pfd)
			sbp_sys_close(base);
		if (pfd < 0)
			return SBP_CHECK_FAIL; /* ENOENT, ENOTDIR, EBADF, ELOOP: the kernel's answer */
		t->own_fd = pfd;
		base = pfd;
		if (dir_path(pfd, parent, sizeof(parent)) < 0 || parent[0] != '/') {
			sbp_target_done(t);
			return unresolved(call, op, path) < 0 ? SBP_CHECK_FAIL : SBP_CHECK_PASS;
		}
		last_name(last, name, sizeof(name));
		bool trailing = last[strlen(name)] == '/';
		/* A trailing slash does not make unlink, rmdir, rename or mkdir
		 * follow a final symlink (the kernel answers ENOTDIR or EEXIST). */
		if (follow && name[0] && !dot_or_dotdot(name)) {
			if (strncmp(parent, "/proc/", 6) == 0) {
				/* Magic links (/proc/self/fd/N, .../cwd, .../root)
				 * are not text: let the kernel follow them, then
				 * act through what it opened. */
				int fd = sbp_sys_openat(pfd, last, O_PATH | O_CLOEXEC, 0);
				if (fd >= 0) {
					sbp_target_done(t);
					t->own_fd = fd;
					fmt_fd(t->buf, "/proc/self/fd/", fd);
					t->dirfd = AT_FDCWD;
					t->name = t->buf;
					if (fd_path(fd, t->abs, sizeof(t->abs)) < 0) {
						sbp_target_done(t);
						return unresolved(call, op, path) < 0 ? SBP_CHECK_FAIL : SBP_CHECK_PASS;
					}
					if (judge(call, op, how, path, t->abs, lex) < 0) {
						sbp_target_done(t);
						return SBP_CHECK_FAIL;
					}
					return SBP_CHECK_ALLOW;
				}
			}
			char target[PATH_MAX];
			long n = readlinkat(pfd, name, target, sizeof(target) - 1);
			if (n >= 0) {
				if (++hops > MAX_SYMLINKS || (size_t)n >= sizeof(target) - 1) {
					sbp_target_done(t);
					errno = hops > MAX_SYMLINKS ? ELOOP : ENAMETOOLONG;
					return SBP_CHECK_FAIL;
				}
				target[n] = '\0';
				/* Keep a trailing slash of the original. */
				if (trailing && n + 1 < (long)sizeof(target))
					strcat(target, "/");
				strcpy(cur, target);
				t->own_fd = -1; /* BASE now holds it; closed next round */
				follow = true;
				continue;
			}
		}
		long len = sbp_path_normalize(parent, name[0] ? name : ".", t->abs, sizeof(t->abs), &(unsigned){0});
		if (len < 0) {
			sbp_target_done(t);
			errno = ENAMETOOLONG;
			return SBP_CHECK_FAIL;
		}
		/* Act on NAME (with its trailing slashes) in the parent. */
		size_t ln = strlen(last);
		if (ln >= sizeof(t->buf)) {
			sbp_target_done(t);
			errno = ENAMETOOLONG;
			return SBP_CHECK_FAIL;
		}
		memcpy(t->buf, ln ? last : ".", ln ? ln + 1 : 2);
		t->dirfd = pfd;
		t->name = t->buf;
		t->pinned = true;
		if (judge(call, op, how, path, t->abs, lex) < 0) {
			sbp_target_done(t);
			return SBP_CHECK_FAIL;
		}
		return SBP_CHECK_ALLOW;
	}
}

static void target_init(struct sbp_target *t, int dirfd, const char *path)
{
	t->dirfd = dirfd;
	t->name = path;
	t->own_fd = -1;
	t->own_fd2 = -1;
	t->cached = -1;
	t->clear = false;
	t->pinned = false;
	t->dirlen = 0;
	t->abs[0] = '\0';
}

/* Lexically allowed?  (Then the fast path may prove it exact.) */
static bool lexically_allowed(enum sbp_op op, unsigned how, const char *lex)
{
	struct sbp_query q;
	struct sbp_verdict v;

	query(&q, op, lex, how);
	sbp_decide(sbp_pol, &q, &v);
	return !v.violation;
}

static int check_path(const char *call, enum sbp_op op, int dirfd, const char *path, unsigned how,
		      struct sbp_target *t, const struct sbp_target *share)
{
	char lexbuf[PATH_MAX];
	unsigned lf = 0;

	target_init(t, dirfd, path);
	if (!active() || !path || !path[0] || kernel_refuses(path, how))
		return SBP_CHECK_PASS; /* EFAULT, ENOENT, ENAMETOOLONG... come from the call itself */
	int saved = errno;
	const char *lex = lexical(dirfd, path, lexbuf, &lf);
	/* Act on the absolute path that was judged, never relative to a cwd
	 * or dirfd that another thread may change meanwhile. */
	if (lex && !(lf & (SBP_PATH_DOTDOT | SBP_PATH_TRAILING)) && !no_openat2) {
		char dir[PATH_MAX], name[NAME_MAX + 1];
		const char *last = split(lex, dir, sizeof(dir));
		unsigned dirlen = (unsigned)(last - lex);
		bool shared = share && share->dirlen == dirlen && share->dirfd >= 0 && !memcmp(share->abs, lex, dirlen);
		int pfd = -1, slot = -1;
		if (shared)
			pfd = share->dirfd;
		else if (how & SBP_CACHED)
			pfd = sbp_cache_get(dir, dirlen, &slot);
		/* In a directory with nothing protected at or beneath it, what
		 * an entry holds cannot matter: judge the entry alone. */
		bool clear = shared ? share->clear : sbp_cache_clear(slot);
		if (!lexically_allowed(op, clear ? how & ~(unsigned)SBP_SUBTREE : how, lex)) {
			if (slot >= 0)
				sbp_cache_release(slot);
			goto slow;
		}
		if (pfd < 0) {
			uint64_t seq = sbp_cache_seq();
			pfd = sys_openat2(AT_FDCWD, dir, O_PATH | O_DIRECTORY | O_CLOEXEC, 0, RESOLVE_NO_SYMLINKS);
			if (pfd >= 0 && (how & SBP_CACHED))
				sbp_cache_put(dir, dirlen, pfd, seq);
		}
		/* Out of descriptors: pinning is impossible, so act on the
		 * judged absolute path itself (the kernel needs none). */
		bool nofd = pfd < 0 && (errno == EMFILE || errno == ENFILE);
		if (nofd)
			pfd = AT_FDCWD;
		if (pfd < 0 && pfd != AT_FDCWD) {
			if (errno == ENOSYS)
				no_openat2 = true;
			else if (errno != ELOOP)
				return SBP_CHECK_FAIL; /* ENOENT, ENOTDIR, EACCES: the kernel's answer */
		} else {
			t->own_fd = shared || nofd || slot >= 0 ? -1 : pfd;
			t->cached = slot;
			t->clear = clear;
			last_name(last, name, sizeof(name));
			const char *act = nofd ? lex : name[0] ? name : ".";
			/* A final symlink the call would follow: judge its target. */
			char target[2];
			bool link = (how & SBP_FOLLOW) && name[0] &&
				    readlinkat(pfd, act, target, sizeof(target)) >= 0;
			if (!link) {
				memcpy(t->abs, lex, strlen(lex) + 1);
				memcpy(t->buf, act, strlen(act) + 1);
				t->dirfd = pfd;
				t->name = t->buf;
				t->pinned = true;
				t->dirlen = nofd ? 0 : dirlen;
				errno = saved;
				return SBP_CHECK_ALLOW;
			}
			sbp_target_done(t);
		}
	}
slow:;
	int r = slow(call, op, dirfd, path, how, t, lex);
	if (r != SBP_CHECK_FAIL)
		errno = saved;
	return r;
}

int sbp_check(const char *call, enum sbp_op op, int dirfd, const char *path, unsigned how,
	      struct sbp_target *t)
{
	return sbp_check_share(call, op, dirfd, path, how, t, NULL);
}

int sbp_check_share(const char *call, enum sbp_op op, int dirfd, const char *path, unsigned how,
		    struct sbp_target *t, const struct sbp_target *share)
{
	int r = check_path(call, op, dirfd, path, how, t, share);
	if (r == SBP_CHECK_ALLOW && (how & SBP_PIN_FINAL) && pin_final(t) < 0) {
		sbp_target_done(t);
		return SBP_CHECK_FAIL;
	}
	return r;
}

/* Whether ABS may receive a directory moved there with all it holds
 * (pure: no system call); else V says why. */
static bool receives(const struct sbp_target *t, const struct sbp_rule *crossing, struct sbp_query *q,
		     struct sbp_verdict *v)
{
	query(q, SBP_OP_WRITE, t->abs, SBP_SUBTREE);
	if (t->clear)
		v->violation = false; /* its plain query was allowed in the check */
	else
		sbp_decide(sbp_pol, q, v);
	if (!v->violation) {
		if (!crossing)
			return true;
		v->violation = true;
		v->allow = sbp_pol->mode == SBP_MODE_AUDIT;
		v->rule = crossing;
	}
	v->reason = SBP_MOVE_PROTECTED;
	return false;
}

int sbp_check_move(const char *call, const char *oldpath, const char *newpath, const struct sbp_target *a,
		   const struct sbp_target *b, bool exchange)
{
	struct sbp_query q;
	struct sbp_verdict v;

	if (!active() || !a->abs[0] || !b->abs[0])
		return 0;
	/* Two entries of one directory are inside the same roots. */
	const char *la = strrchr(a->abs, '/'), *lb = strrchr(b->abs, '/');
	bool siblings = la - a->abs == lb - b->abs && !memcmp(a->abs, b->abs, (size_t)(la - a->abs));
	const struct sbp_rule *crossing = siblings ? NULL : sbp_move_crosses(sbp_pol, a->abs, b->abs);
	/* B receives what A holds; in an exchange A receives what B holds.
	 * Only a directory holds anything: looked at only when it matters. */
	int saved = errno;
	if (!receives(b, crossing, &q, &v) && is_directory(a->dirfd, a->name) &&
	    refuse(call, &q, &v, newpath, b->abs) < 0)
		return -1;
	if (exchange && !receives(a, crossing, &q, &v) && is_directory(b->dirfd, b->name) &&
	    refuse(call, &q, &v, oldpath, a->abs) < 0)
		return -1;
	errno = saved;
	return 0;
}

int sbp_fd_dup(int fd)
{
	if (!active())
		return fd;
	int d = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	return d >= 0 ? d : fd; /* a bad FD fails in the call itself */
}

int sbp_check_fd(const char *call, enum sbp_op op, int fd)
{
	char path[PATH_MAX];

	if (!active())
		return 0;
	int saved = errno;
	if (fd_path(fd, path, sizeof(path)) < 0) {
		char given[32];
		if (fcntl(fd, F_GETFD) < 0)
			return 0; /* EBADF comes from the call itself */
		fmt_fd(given, "fd ", fd);
		return unresolved(call, op, given);
	}
	int r = judge(call, op, 0, path, path, NULL);
	if (r == 0)
		errno = saved;
	return r;
}

const char *sbp_target_path(struct sbp_target *t, char *buf, size_t size)
{
	if (!t->name || t->dirfd == AT_FDCWD || t->name[0] == '/')
		return t->name;
	char pre[48];
	fmt_fd(pre, "/proc/self/fd/", t->dirfd);
	size_t pl = strlen(pre), nl = strlen(t->name);
	if (pl + 1 + nl >= size)
		return t->name;
	memcpy(buf, pre, pl);
	buf[pl] = '/';
	memcpy(buf + pl + 1, t->name, nl + 1);
	return buf;
}

/* Open LEX (absolute, normal, judged) with no symlink on the way: relative
 * to the kept pin of its directory when there is one (a shorter walk than
 * the whole path), else by the whole path. */
static int open_fast(const char *lex, int flags, unsigned mode)
{
	const char *last = strrchr(lex, '/') + 1;
	size_t dirlen = (size_t)(last - lex);
	int slot, fd;

	if (!*last)
		return sys_openat2(AT_FDCWD, lex, flags, mode, RESOLVE_NO_SYMLINKS);
	int dfd = sbp_cache_get(lex, dirlen, &slot);
	if (dfd < 0 && sbp_cache_wanted(lex, dirlen)) {
		char dir[PATH_MAX];
		memcpy(dir, lex, dirlen);
		dir[dirlen] = '\0';
		uint64_t seq = sbp_cache_seq();
		int pfd = sys_openat2(AT_FDCWD, dir, O_PATH | O_DIRECTORY | O_CLOEXEC, 0, RESOLVE_NO_SYMLINKS);
		if (pfd < 0)
			return sys_openat2(AT_FDCWD, lex, flags, mode, RESOLVE_NO_SYMLINKS);
		sbp_cache_put(dir, dirlen, pfd, seq);
		fd = sys_openat2(pfd, last, flags, mode, RESOLVE_NO_SYMLINKS);
		sbp_sys_close(pfd);
		return fd;
	}
	if (dfd < 0)
		return sys_openat2(AT_FDCWD, lex, flags, mode, RESOLVE_NO_SYMLINKS);
	fd = sys_openat2(dfd, last, flags, mode, RESOLVE_NO_SYMLINKS);
	bool stale = fd < 0 && sbp_cache_stale_fd(slot, dfd);
	sbp_cache_release(slot);
	return stale ? sys_openat2(AT_FDCWD, lex, flags, mode, RESOLVE_NO_SYMLINKS) : fd;
}

int sbp_open(const char *call, int dirfd, const char *path, int flags, unsigned mode)
{
	char lexbuf[PATH_MAX];
	unsigned lf = 0;

	if (!active() || !path || kernel_refuses(path, 0))
		return sbp_sys_openat(dirfd, path, flags, mode);
	bool write = (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC)) || SBP_NEEDS_MODE(flags);
	enum sbp_op op = write ? SBP_OP_WRITE : SBP_OP_READ;
	int saved = errno;
	const char *lex = path[0] ? lexical(dirfd, path, lexbuf, &lf) : NULL;
	if (lex && !(lf & (SBP_PATH_DOTDOT | SBP_PATH_TRAILING)) && !no_openat2 && lexically_allowed(op, 0, lex)) {
		/* The absolute path judged, not PATH: see sbp_check(). */
		int fd = open_fast(lex, flags, mode);
		if (fd >= 0) {
			errno = saved;
			return fd;
		}
		if (errno == ENOSYS)
			no_openat2 = true;
		/* ELOOP: a symlink on the way.  EINVAL/E2BIG: openat2 is
		 * stricter than openat about flags; let the slow path answer. */
		if (errno != ELOOP && errno != ENOSYS && errno != EINVAL && errno != E2BIG && errno != EXDEV)
			return -1;
	}
	if (!path[0])
		return sbp_sys_openat(dirfd, path, flags, mode);
	/* O_CREAT|O_EXCL never follows a final symlink (EEXIST). */
	unsigned how = (flags & O_NOFOLLOW) || ((flags & O_CREAT) && (flags & O_EXCL)) ? 0 : SBP_FOLLOW;
	struct sbp_target t;
	target_init(&t, dirfd, path);
	errno = saved;
	int r = slow(call, op, dirfd, path, how, &t, lex);
	if (r == SBP_CHECK_FAIL)
		return -1;
	errno = saved;
	if (r == SBP_CHECK_PASS)
		return sbp_sys_openat(dirfd, path, flags, mode);
	/* The final component was judged as it is now: pin it. */
	int extra = t.pinned ? O_NOFOLLOW : 0;
	int fd = sbp_sys_openat(t.dirfd, t.name, flags | extra, mode);
	sbp_target_done(&t);
	return fd;
}
