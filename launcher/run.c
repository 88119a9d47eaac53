/* Everything the launcher does to the system: look up the command and the
 * shim, resolve paths for `check`, and run the command as a child while
 * staying its parent (signals, log records, exit status). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "journal.h"
#include "launcher.h"

/* --- finding things ------------------------------------------------------ */

/* 0 when PATH names a file we may execute, else why not (an errno value). */
static int executable(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return errno;
	if (S_ISDIR(st.st_mode))
		return EISDIR;
	if (!S_ISREG(st.st_mode))
		return EACCES;
	if (faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) < 0)
		return errno;
	return 0;
}

int find_command(const char *name, char *out, size_t size)
{
	if (!*name)
		return ENOENT;
	if (strchr(name, '/')) {
		if ((size_t)snprintf(out, size, "%s", name) >= size)
			return ENAMETOOLONG;
		return executable(name);
	}
	/* glibc's execvp default when PATH is unset. */
	const char *path = getenv("PATH");
	if (!path)
		path = "/bin:/usr/bin";
	/* Like execvp: a match we may not execute is reported only when no
	 * later directory has one we may. */
	int result = ENOENT;
	for (const char *dir = path;; dir++) {
		const char *end = strchrnul(dir, ':');
		int dlen = (int)(end - dir);
		char candidate[PATH_MAX];
		/* An empty entry means the current directory. */
		int n = snprintf(candidate, sizeof(candidate), "%.*s%s%s", dlen, dir, dlen ? "/" : "", name);
		if (n > 0 && (size_t)n < sizeof(candidate)) {
			int err = executable(candidate);
			if (!err || (result == ENOENT && err != ENOENT && err != ENOTDIR)) {
				if ((size_t)snprintf(out, size, "%s", candidate) >= size)
					return ENAMETOOLONG;
				if (!err)
					return 0;
				result = err;
			}
		}
		if (!*end)
			return result;
		dir = end;
	}
}

/* ld.so skips a preload entry it cannot load with a mere warning and runs
 * the program anyway, unconfined: accept only a file that is ELF. */
static bool is_elf(const char *path)
{
	char magic[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool ok = fd >= 0 && read(fd, magic, 4) == 4 && !memcmp(magic, "\177ELF", 4);

	if (fd >= 0)
		close(fd);
	return ok;
}

/* DIR/REL made canonical, when it exists as a shared object. */
static bool shim_at(const char *dir, const char *rel, char *out, size_t size)
{
	char path[PATH_MAX * 2], real[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	if (!realpath(path, real) || stat(real, &st) < 0 || !S_ISREG(st.st_mode) || !is_elf(real))
		return false;
	return (size_t)snprintf(out, size, "%s", real) < size;
}

void find_shim(char *out, size_t size)
{
	const char *env = getenv("SBPRELOAD_SHIM");
	char exe[PATH_MAX];

	if (env && *env) {
		if (access(env, R_OK) < 0)
			die_with_error("SBPRELOAD_SHIM=%s", env);
		if (!shim_at(env[0] == '/' ? "" : ".", env, out, size))
			die("SBPRELOAD_SHIM=%s: not a shared library", env);
	} else {
		if (!realpath("/proc/self/exe", exe))
			die_with_error("cannot find my own executable (/proc/self/exe)");
		*strrchr(exe, '/') = '\0';
		if (!shim_at(exe, "libsbpreload.so", out, size) &&
		    !shim_at(exe, "../lib/libsbpreload.so", out, size))
			die("cannot find libsbpreload.so (looked in %s and %s/../lib; set SBPRELOAD_SHIM to its path)",
			    exe[0] ? exe : "/", exe);
	}
	/* ld.so splits LD_PRELOAD at spaces and colons: such a path would
	 * silently load nothing, and the command would run unconfined. */
	if (strpbrk(out, " :\t\n"))
		die("the shim's path '%s' contains a space or a colon, which LD_PRELOAD cannot express", out);
}

/* Append component NAME (LEN bytes) to the absolute path RES, or apply it
 * when it is "." or "..".  Returns false when it does not fit. */
static bool push_component(char *res, size_t size, const char *name, size_t len)
{
	size_t rl = strlen(res);

	if (len == 1 && name[0] == '.')
		return true;
	if (len == 2 && name[0] == '.' && name[1] == '.') {
		/* RES holds no symlinks any more, so ".." is its parent. */
		char *slash = strrchr(res, '/');
		if (slash)
			*slash = '\0';
		return true;
	}
	if (rl + 1 + len >= size)
		return false;
	res[rl] = '/';
	memcpy(res + rl + 1, name, len);
	res[rl + 1 + len] = '\0';
	return true;
}

int resolve_path(const char *path, char *out, size_t size)
{
	char todo[PATH_MAX * 2]; /* what is left to walk */
	char res[PATH_MAX] = ""; /* resolved so far; "" is "/" */
	bool missing = false;    /* from here on nothing exists: no more links */
	int links = 0;

	if ((size_t)snprintf(todo, sizeof(todo), "%s", path) >= sizeof(todo))
		return ENAMETOOLONG;
	for (const char *p = todo; *p;) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		const char *end = strchrnul(p, '/');
		size_t had = strlen(res);
		if (!push_component(res, sizeof(res), p, (size_t)(end - p)))
			return ENAMETOOLONG;
		p = end;
		/* Nothing to look up after "." and "..", nor beyond a missing
		 * part (ENOENT, EACCES, ENOTDIR: the kernel would not get
		 * further either, so the rest stays as written). */
		if (missing || strlen(res) <= had)
			continue;
		struct stat st;
		if (lstat(res, &st) < 0) {
			missing = true;
			continue;
		}
		if (!S_ISLNK(st.st_mode))
			continue;
		/* The same limit as the kernel (MAXSYMLINKS). */
		if (++links > 40)
			return ELOOP;
		char target[PATH_MAX], next[PATH_MAX * 2];
		ssize_t tl = readlink(res, target, sizeof(target) - 1);
		if (tl < 0)
			return errno;
		target[tl] = '\0';
		if ((size_t)snprintf(next, sizeof(next), "%s/%s", target, p) >= sizeof(next))
			return ENAMETOOLONG;
		memcpy(todo, next, strlen(next) + 1);
		p = todo;
		/* A relative target replaces the link's own name. */
		res[target[0] == '/' ? 0 : had] = '\0';
	}
	if ((size_t)snprintf(out, size, "%s", res[0] ? res : "/") >= size)
		return ENAMETOOLONG;
	return 0;
}

/* --- the log socket ------------------------------------------------------ */

int log_socket_open(char *name, size_t size)
{
	uint64_t rnd;
	struct sockaddr_un sa = {.sun_family = AF_UNIX};

	/* Abstract names need no file and vanish with the socket; the random
	 * part keeps anyone from predicting the name and taking it first. */
	if (getrandom(&rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		die_with_error("getrandom");
	int n = snprintf(name, size, "sbpreload-%d-%016llx", (int)getpid(), (unsigned long long)rnd);
	if (n < 0 || (size_t)n >= size || (size_t)n + 1 > sizeof(sa.sun_path))
		die("log socket name too long");
	memcpy(sa.sun_path + 1, name, (size_t)n);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		die_with_error("log socket");
	if (bind(fd, (struct sockaddr *)&sa, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n)) < 0)
		die_with_error("log socket: bind @%s", name);
	return fd;
}

/* A record is one JSON object on one line.  Anything else (a sandboxed
 * process may send to the socket too) would break the JSON Lines log. */
static bool record_ok(const char *rec, size_t len)
{
	return len >= 2 && rec[0] == '{' && rec[len - 1] == '}' && !memchr(rec, '\n', len) &&
	       !memchr(rec, '\0', len);
}

/* Read every datagram queued on the socket now. */
static void drain_log(const struct run_spec *spec, struct run_result *res)
{
	static char rec[65536];
	static bool write_failed; /* say so once, not once per record */

	for (;;) {
		ssize_t n = recv(spec->log_sock, rec, sizeof(rec), MSG_DONTWAIT | MSG_TRUNC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return;
		if ((size_t)n > sizeof(rec) || !record_ok(rec, (size_t)n))
			continue;
		res->denials++;
		if (spec->log_fd < 0 || write_failed)
			continue;
		/* One write per record: O_APPEND keeps lines whole even when
		 * several sessions share the file. */
		struct iovec iov[2] = {{rec, (size_t)n}, {"\n", 1}};
		errno = 0;
		if (writev(spec->log_fd, iov, 2) != n + 1) {
			write_failed = true;
			warn("cannot write the log: %s", errno ? strerror(errno) : "short write");
		}
	}
}

/* --- running ------------------------------------------------------------- */

/* Signals sent to sbpreload that the command should get instead. */
static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

/* The child's environment: ours, with the shim first in LD_PRELOAD (what
 * was there stays, after it), the compiled policy and the journal.
 * env[0..2] are the strings made here (env[2] may be missing). */
static char **child_environ(const struct run_spec *spec)
{
	const char *old_preload = getenv("LD_PRELOAD");
	size_t n = 0;

	while (environ[n])
		n++;
	char **env = calloc(n + 4, sizeof(*env));
	if (!env)
		die("out of memory");
	if (old_preload && *old_preload) {
		if (asprintf(&env[0], "LD_PRELOAD=%s %s", spec->shim, old_preload) < 0)
			die("out of memory");
	} else if (asprintf(&env[0], "LD_PRELOAD=%s", spec->shim) < 0) {
		die("out of memory");
	}
	if (asprintf(&env[1], "SBPRELOAD_POLICY=%s", spec->policy) < 0)
		die("out of memory");
	size_t k = 2;
	char *journal = sbp_journal_make();
	if (journal)
		env[k++] = journal;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0 && strncmp(environ[i], "SBPRELOAD_POLICY=", 17) != 0 &&
		    strncmp(environ[i], SBP_JOURNAL_ENV "=", sizeof(SBP_JOURNAL_ENV)) != 0)
			env[k++] = environ[i];
	return env;
}

static void free_environ(char **env)
{
	free(env[0]);
	free(env[1]);
	if (env[2] && !strncmp(env[2], SBP_JOURNAL_ENV "=", sizeof(SBP_JOURNAL_ENV)))
		free(env[2]);
	free(env);
}

__attribute__((noreturn)) static void child(const struct run_spec *spec, char *const envp[],
					    const sigset_t *old_mask, const struct sigaction *old_chld)
{
	/* The command starts with the signal state sbpreload was started
	 * with; the sockets and the signalfd close on exec. */
	sigaction(SIGCHLD, old_chld, NULL);
	sigprocmask(SIG_SETMASK, old_mask, NULL);
	execve(spec->path, spec->argv, envp);
	int err = errno;
	/* No sh fallback as execvp has: a text file run by mistake would be
	 * run as a script, inside the sandbox but still unexpected. */
	if (err == ENOEXEC)
		die_status(SBP_EXIT_CANNOT_RUN, "%s: cannot execute: not a binary, and no '#!' line", spec->argv[0]);
	die_status(err == ENOENT ? SBP_EXIT_NOT_FOUND : SBP_EXIT_CANNOT_RUN, "%s: %s", spec->argv[0],
		   strerror(err));
}

/* The status a shell would report for the command. */
static int exit_status(int wstatus)
{
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return WEXITSTATUS(wstatus);
}

/* A hangup of the terminal is told to the session leader alone (the kernel
 * first takes the terminal away from everyone in the session).  When
 * sbpreload leads the session, as under a terminal emulator, sshd or
 * script(1), the command would otherwise never hear of it and could run on
 * forever. */
static bool terminal_hung_up(const struct signalfd_siginfo *si)
{
	if (si->ssi_signo != SIGHUP || si->ssi_code != SI_KERNEL || getsid(0) != getpid())
		return false;
	int fd = open("/dev/tty", O_RDONLY | O_NOCTTY | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return false;
	}
	return true;
}

/* Handle what the signalfd holds.  Returns true once the child has exited
 * (and has been reaped: only then may its pid be reused). */
static bool on_signals(int sfd, pid_t pid, struct run_result *res)
{
	struct signalfd_siginfo si;

	while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGCHLD)
			continue;
		/* The terminal sends Ctrl-C and Ctrl-\ to the whole foreground
		 * group, the command included (si_code SI_KERNEL): passing
		 * those on would deliver them twice.  What a process sent to
		 * sbpreload alone (kill, sigqueue, tgkill: si_code <= 0) is
		 * meant for the command, and so is a hangup only the session
		 * leader was told of: with SIGCONT, as the kernel sends it. */
		if (si.ssi_code <= 0) {
			kill(pid, (int)si.ssi_signo);
		} else if (terminal_hung_up(&si)) {
			kill(pid, SIGHUP);
			kill(pid, SIGCONT);
		}
	}
	int wstatus;
	pid_t r;
	while ((r = waitpid(pid, &wstatus, WNOHANG)) < 0 && errno == EINTR)
		;
	if (r != pid)
		return false;
	res->status = exit_status(wstatus);
	return true;
}

void run_command(const struct run_spec *spec, struct run_result *res)
{
	char **envp = spec->shim ? child_environ(spec) : environ;
	sigset_t mask, old_mask;
	struct sigaction dfl = {.sa_handler = SIG_DFL}, old_chld;

	memset(res, 0, sizeof(*res));
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(&mask, forwarded[i]);
	/* With SIGCHLD ignored (inherited) the kernel would reap the child
	 * itself and its status would be lost. */
	sigaction(SIGCHLD, &dfl, &old_chld);
	/* Blocked before the fork: a signal arriving meanwhile waits in the
	 * signalfd and is forwarded once the child exists. */
	if (sigprocmask(SIG_BLOCK, &mask, &old_mask) < 0)
		die_with_error("sigprocmask");
	int sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0)
		die_with_error("signalfd");
	/* Nothing buffered may be written twice, by parent and child. */
	fflush(NULL);
	/* Same process group and terminal as sbpreload: job control, Ctrl-C
	 * and the window size work as if the command ran directly. */
	pid_t pid = fork();
	if (pid < 0)
		die_with_error("fork");
	if (pid == 0)
		child(spec, envp, &old_mask, &old_chld);

	struct pollfd pfd[2] = {{.fd = sfd, .events = POLLIN}, {.fd = spec->log_sock, .events = POLLIN}};
	nfds_t nfds = spec->log_sock >= 0 ? 2 : 1;
	while (!on_signals(sfd, pid, res)) {
		if (poll(pfd, nfds, -1) < 0 && errno != EINTR)
			die_with_error("poll");
		if (nfds == 2 && (pfd[1].revents & POLLIN))
			drain_log(spec, res);
	}
	/* Records sent just before the exit are still queued. */
	if (spec->log_sock >= 0)
		drain_log(spec, res);
	close(sfd);
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	sigaction(SIGCHLD, &old_chld, NULL);
	if (envp != environ)
		free_environ(envp);
}
