/* The sbpreload command line as a user meets it: exit statuses, messages,
 * the policy layers, `check`, `policy`, the log, signals and a terminal.
 * Every case runs build/sbpreload as a real process (it sets LD_PRELOAD
 * itself) and asserts what a user sees: the exit status, stdout, stderr and
 * what is on disk afterwards.
 *
 * Paths in the tables are templates: {W} is the workspace (under /tmp),
 * {O} a directory outside the writable paths (under /var/tmp), {T} a file
 * in /tmp outside the workspace, {S} the program `sh` resolves to. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

extern char **environ;

static char *ws_dir, *out_dir;          /* as made, for removal */
static char ws[PATH_MAX], out[PATH_MAX]; /* canonical: what sbpreload prints */
static char tmp_file[PATH_MAX + 8];     /* {T} */
static char sh_path[PATH_MAX];          /* {S} */
static char sbp[PATH_MAX];              /* build/sbpreload */
static char *saved_home;
static struct sbt_run r;

/* --- templates and running ------------------------------------------------ */

/* TMPL with the placeholders expanded, in one of 16 rotating buffers. */
static const char *X(const char *tmpl)
{
	static char bufs[16][8192];
	static unsigned k;
	char *b = bufs[k++ % 16];
	size_t o = 0;

	for (const char *t = tmpl; *t && o < 8191; t++) {
		const char *sub = NULL;
		if (t[0] == '{' && t[1] && t[2] == '}') {
			switch (t[1]) {
			case 'W': sub = ws; break;
			case 'O': sub = out; break;
			case 'T': sub = tmp_file; break;
			case 'S': sub = sh_path; break;
			}
		}
		if (sub) {
			o += (size_t)snprintf(b + o, 8192 - o, "%s", sub);
			if (o > 8191)
				o = 8191;
			t += 2;
		} else {
			b[o++] = *t;
		}
	}
	b[o] = '\0';
	return b;
}

/* NULL-terminated copy of TMPLS expanded, with FIRST (if any) in front. */
static char **expand_all(const char *first, const char *const tmpls[])
{
	size_t n = 0;
	while (tmpls && tmpls[n])
		n++;
	char **v = calloc(n + 2, sizeof(*v));
	size_t k = 0;
	if (first)
		v[k++] = strdup(first);
	for (size_t i = 0; i < n; i++)
		v[k++] = strdup(X(tmpls[i]));
	return v;
}

static void free_all(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* Run sbpreload ARGS in directory CWD ({W} when NULL) with EXTRA added to
 * the environment; the result is in r. */
static int run_in(const char *cwd, const char *const extra[], const char *const args[])
{
	char **argv = expand_all(sbp, args), **env = expand_all(NULL, extra);
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", X(cwd ? cwd : "{W}"));
	sbt_exec(&r, dir, false, env, argv);
	free_all(argv);
	free_all(env);
	return r.status;
}

#define LIST(...) ((const char *const[]){__VA_ARGS__, NULL})
#define SBP(...) run_in(NULL, NULL, LIST(__VA_ARGS__))
#define SBP_ENV(extra, ...) run_in(NULL, extra, LIST(__VA_ARGS__))

/* --- assertions ----------------------------------------------------------- */

#define STATUS_IS(want)                                                                              \
	ck_assert_msg(r.status == (want), "exit status %d, expected %d\n--- stdout:\n%s--- stderr:\n%s", \
		      r.status, (want), r.out, r.err)
#define STATUS_NOT(bad)                                                                          \
	ck_assert_msg(r.status != (bad), "exit status %d\n--- stdout:\n%s--- stderr:\n%s", r.status, \
		      r.out, r.err)
#define HAS(stream, tmpl)                                                                            \
	do {                                                                                         \
		const char *s_ = X(tmpl);                                                            \
		ck_assert_msg(strstr(r.stream, s_), #stream " lacks '%s':\n%s", s_, r.stream);       \
	} while (0)
#define LACKS(stream, tmpl)                                                                          \
	do {                                                                                         \
		const char *s_ = X(tmpl);                                                            \
		ck_assert_msg(!strstr(r.stream, s_), #stream " has '%s':\n%s", s_, r.stream);        \
	} while (0)
#define IS(stream, tmpl)                                                                             \
	do {                                                                                         \
		const char *s_ = X(tmpl);                                                            \
		ck_assert_msg(!strcmp(r.stream, s_), #stream " is:\n%s--- expected:\n%s", r.stream, s_); \
	} while (0)
/* The file holds exactly WANT (a template), or does not exist (WANT NULL). */
#define FILE_IS(path, want)                                                                          \
	do {                                                                                         \
		const char *p_ = X(path), *w_ = (want) ? X(want) : NULL;                             \
		char *got_ = sbt_read(p_);                                                           \
		bool ok_ = w_ ? got_ && !strcmp(got_, w_) : !sbt_exists(p_);                         \
		ck_assert_msg(ok_, "%s: holds %s%s%s, expected %s%s%s", p_, got_ ? "'" : "",           \
			      got_ ? got_ : (sbt_exists(p_) ? "(unreadable)" : "(no such file)"),    \
			      got_ ? "'" : "", w_ ? "'" : "", w_ ? w_ : "no such file", w_ ? "'" : ""); \
		free(got_);                                                                          \
	} while (0)
#define ABSENT(path) FILE_IS(path, NULL)

static int count(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = strstr(hay, needle); p; p = strstr(p + strlen(needle), needle))
		n++;
	return n;
}

/* The last line of S (without its newline), in a static buffer. */
static const char *last_line(const char *s)
{
	static char line[4096];
	size_t len = strlen(s);

	if (len && s[len - 1] == '\n')
		len--;
	size_t start = len;
	while (start && s[start - 1] != '\n')
		start--;
	snprintf(line, sizeof(line), "%.*s", (int)(len - start), s + start);
	return line;
}

static void write_file(const char *path, const char *content)
{
	sbt_write(X(path), X(content));
}

static void make_dir(const char *path)
{
	const char *p = X(path);
	ck_assert_msg(mkdir(p, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", p, strerror(errno));
}

/* --- fixture -------------------------------------------------------------- */

/* What execvp would run for NAME, canonical, into RES (PATH_MAX bytes). */
static void which(const char *name, char *res)
{
	const char *path = getenv("PATH");
	char cand[PATH_MAX];

	res[0] = '\0';
	for (const char *d = path ? path : "/bin:/usr/bin"; *d;) {
		size_t n = strcspn(d, ":");
		snprintf(cand, sizeof(cand), "%.*s%s%s", (int)n, d, n ? "/" : "", name);
		struct stat st;
		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0) {
			if (!realpath(cand, res))
				res[0] = '\0';
			return;
		}
		d += n + (d[n] == ':');
	}
}

static void setup(void)
{
	ws_dir = sbt_tmpdir(false);
	out_dir = sbt_tmpdir(true);
	if (!realpath(ws_dir, ws) || !realpath(out_dir, out)) {
		perror("realpath");
		exit(2);
	}
	snprintf(tmp_file, sizeof(tmp_file), "%s-t", ws);
	snprintf(sbp, sizeof(sbp), "%s", sbt_path("sbpreload"));
	which("sh", sh_path);
	saved_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	write_file("{O}/secret", "s3cret\n");
	if (symlink("/etc/passwd", X("{W}/pw")) < 0) {
		perror("symlink");
		exit(2);
	}
}

static void kill_live(void);

static void teardown(void)
{
	kill_live();
	unlink(tmp_file);
	sbt_rmrf(ws_dir);
	sbt_rmrf(out_dir);
	free(ws_dir);
	free(out_dir);
	if (saved_home)
		setenv("HOME", saved_home, 1);
	free(saved_home);
}

/* === 1. exit statuses ====================================================== */

static const struct status_case {
	const char *name;
	const char *env[2];
	const char *args[8];
	int status;
	const char *out;  /* stdout starts with this (template), or NULL */
	const char *err;  /* stderr holds this, or NULL: stderr empty */
} status_cases[] = {
	{"the command's own status", {0}, {"--", "sh", "-c", "exit 3"}, 3, "", NULL},
	{"killed by SIGTERM", {0}, {"--", "sh", "-c", "kill -TERM $$"}, 143, "", NULL},
	{"killed by SIGKILL", {0}, {"--", "sh", "-c", "kill -KILL $$"}, 137, "", NULL},
	{"killed by SIGSEGV", {0}, {"--", "sh", "-c", "kill -SEGV $$"}, 139, "", NULL},
	{"unknown long option", {0}, {"--bogus", "touch", "ran"}, 125, NULL,
	 "sbpreload: unknown option '--bogus' (see sbpreload --help)\n"},
	{"unknown short option", {0}, {"-x", "touch", "ran"}, 125, NULL,
	 "sbpreload: unknown option '-x' (see sbpreload --help)\n"},
	{"missing option argument", {0}, {"-w"}, 125, NULL,
	 "sbpreload: option '-w' needs an argument (see sbpreload --help)\n"},
	{"missing long option argument", {0}, {"--log"}, 125, NULL,
	 "sbpreload: option '--log' needs an argument (see sbpreload --help)\n"},
	{"long option given a value", {0}, {"--audit=yes", "touch", "ran"}, 125, NULL,
	 "sbpreload: option '--audit' takes no argument\n"},
	{"--audit with --yolo", {0}, {"--audit", "--yolo", "touch", "ran"}, 125, NULL,
	 "sbpreload: --audit and --yolo cannot be used together\n"},
	{"no command", {0}, {"-q"}, 125, NULL, "sbpreload: no command given (see sbpreload --help)\n"},
	{"bad value in the config file", {0}, {"-c", "bad.ini", "--", "touch", "ran"}, 125, NULL,
	 "sbpreload: bad.ini:2: mode: 'strict' is not one of enforce, audit, off\n"},
	{"unknown key in the config file", {0}, {"-c", "unknown.ini", "--", "touch", "ran"}, 125, NULL,
	 "sbpreload: unknown.ini:4: unknown key 'colour' in [filesystem]\n"},
	{"syntax error in the config file", {0}, {"-c", "syntax.ini", "--", "touch", "ran"}, 125, NULL,
	 "sbpreload: syntax.ini:2: syntax error (expected [section] or key = value)\n"},
	{"missing -c file", {0}, {"-c", "missing.ini", "--", "touch", "ran"}, 125, NULL,
	 "sbpreload: missing.ini: cannot open config: No such file or directory\n"},
	{"missing $SBPRELOAD_CONFIG file", {"SBPRELOAD_CONFIG={W}/missing.ini"}, {"--", "touch", "ran"}, 125, NULL,
	 "sbpreload: {W}/missing.ini: cannot open config: No such file or directory\n"},
	{"bad SBPRELOAD_MODE", {"SBPRELOAD_MODE=strict"}, {"--", "touch", "ran"}, 125, NULL,
	 "sbpreload: SBPRELOAD_MODE: mode: 'strict' is not one of enforce, audit, off\n"},
	{"missing workspace", {0}, {"-W", "{W}/nowhere", "--", "touch", "ran"}, 125, NULL,
	 "sbpreload: workspace '{W}/nowhere': No such file or directory\n"},
	{"file not executable", {0}, {"--", "./plain.txt"}, 126, NULL, "sbpreload: ./plain.txt: Permission denied\n"},
	{"a directory", {0}, {"--", "{W}"}, 126, NULL, "sbpreload: {W}: Is a directory\n"},
	{"executable text without #!", {0}, {"--", "./noshebang"}, 126, NULL,
	 "sbpreload: ./noshebang: cannot execute: not a binary, and no '#!' line\n"},
	{"not found in PATH", {0}, {"--", "sbt-no-such-command"}, 127, NULL,
	 "sbpreload: sbt-no-such-command: command not found\n"},
	{"no such file", {0}, {"--", "./nope"}, 127, NULL, "sbpreload: ./nope: No such file or directory\n"},
	{"--help", {0}, {"--help"}, 0, "Usage:\n  sbpreload [OPTIONS] [--] COMMAND [ARG...]", NULL},
	{"-h after other options", {0}, {"-q", "-h"}, 0, "Usage:\n", NULL},
	{"--version", {0}, {"--version"}, 0, "sbpreload 0.1.0\n", NULL},
	{"policy with an argument", {0}, {"policy", "extra"}, 125, NULL,
	 "sbpreload: policy: unexpected argument 'extra'\n"},
	{"check with an unknown operation", {0}, {"check", "delete", "x"}, 125, NULL,
	 "sbpreload: check: unknown operation 'delete' (read, write or exec)\n"},
	{"check without a target", {0}, {"check", "write"}, 125, NULL, "sbpreload: check: no TARGET given\n"},
};

START_TEST(t_exit_status)
{
	const struct status_case c = status_cases[_i];

	write_file("{W}/bad.ini", "[sandbox]\nmode = strict\n");
	write_file("{W}/unknown.ini", "# comment\n[filesystem]\nwrite = .\ncolour = red\n");
	write_file("{W}/syntax.ini", "[sandbox]\nthis is not ini\n");
	write_file("{W}/plain.txt", "#!/bin/sh\ntouch ran\n");
	write_file("{W}/noshebang", "touch ran\n");
	ck_assert_int_eq(chmod(X("{W}/noshebang"), 0755), 0);

	run_in(NULL, c.env, c.args);
	ck_assert_msg(r.status == c.status, "%s: exit status %d, expected %d\n--- stdout:\n%s--- stderr:\n%s", c.name,
		      r.status, c.status, r.out, r.err);
	if (c.out) {
		const char *o = X(c.out);
		ck_assert_msg(!strncmp(r.out, o, strlen(o)), "%s: stdout does not start with '%s':\n%s", c.name, o,
			      r.out);
	}
	if (c.err)
		ck_assert_msg(strstr(r.err, X(c.err)), "%s: stderr lacks '%s':\n%s", c.name, X(c.err), r.err);
	else
		ck_assert_msg(!r.err[0], "%s: stderr not empty:\n%s", c.name, r.err);
	if (c.status >= 125 && c.status <= 127) {
		/* sbpreload's own failures: one line, nothing on stdout, and
		 * the command never ran. */
		ck_assert_msg(!r.out[0], "%s: stdout not empty:\n%s", c.name, r.out);
		ck_assert_msg(!strncmp(r.err, "sbpreload: ", 11) && count(r.err, "\n") == 1,
			      "%s: expected one 'sbpreload: ' line:\n%s", c.name, r.err);
		ABSENT("{W}/ran");
	}
}
END_TEST

START_TEST(t_version_exact)
{
	SBP("--version");
	STATUS_IS(0);
	IS(out, "sbpreload 0.1.0\n");
	IS(err, "");
}
END_TEST

/* === 2. a session under the built-in default policy ======================== */

START_TEST(t_default_session)
{
	SBP("-W", "{W}", "-d", "{O}/secret", "--", "sh", "-c",
	    "echo a > {W}/inside && echo b > {T} && cat {W}/inside {T};"
	    "touch {O}/new; echo touch=$?;"
	    "echo c > {O}/c; echo redirect=$?;"
	    "cat {O}/secret; echo cat=$?;"
	    "exit 5");
	STATUS_IS(5);
	/* What worked: the workspace and /tmp. */
	FILE_IS("{W}/inside", "a\n");
	FILE_IS("{T}", "b\n");
	HAS(out, "a\nb\n");
	/* What did not: the commands saw EACCES. */
	LACKS(out, "touch=0");
	LACKS(out, "redirect=0");
	LACKS(out, "cat=0");
	LACKS(out, "s3cret");
	ck_assert_msg(count(r.err, "Permission denied") == 3, "expected 3 EACCES errors:\n%s", r.err);
	HAS(err, "sbpreload: denied write '{O}/new': outside the writable paths (writable: {W}, /tmp)\n");
	HAS(err, "sbpreload: denied write '{O}/c': outside the writable paths (writable: {W}, /tmp)\n");
	HAS(err, "sbpreload: denied read '{O}/secret': matches deny rule '{O}/secret'\n");
	/* Nothing on disk outside. */
	ABSENT("{O}/new");
	ABSENT("{O}/c");
	FILE_IS("{O}/secret", "s3cret\n");
	/* The summary is the last line and counts every denial shown. */
	char want[64];
	snprintf(want, sizeof(want), "sbpreload: %d operations denied", count(r.err, "sbpreload: denied "));
	ck_assert_str_eq(last_line(r.err), want);
	ck_assert_int_ge(count(r.err, "sbpreload: denied "), 3);
}
END_TEST

START_TEST(t_summary_singular)
{
	SBP("--", "sh", "-c", "echo x > {O}/one; exit 0");
	STATUS_IS(0);
	ck_assert_str_eq(last_line(r.err), "sbpreload: 1 operation denied");
	ck_assert_int_eq(count(r.err, "\n"), 3); /* denial, sh's error, summary */
	ABSENT("{O}/one");
}
END_TEST

START_TEST(t_no_denial_no_summary)
{
	SBP("--", "sh", "-c", "echo x > in && cat in");
	STATUS_IS(0);
	IS(out, "x\n");
	IS(err, "");
}
END_TEST

START_TEST(t_workspace_is_cwd_by_default)
{
	make_dir("{W}/sub");
	run_in("{W}/sub", NULL, LIST("--", "sh", "-c", "echo x > {W}/sub/f; echo y > {W}/f"));
	FILE_IS("{W}/sub/f", "x\n");
	FILE_IS("{W}/f", "y\n"); /* /tmp is writable anyway */
	run_in("{W}/sub", NULL, LIST("policy"));
	STATUS_IS(0);
	HAS(out, "\nworkspace = {W}/sub\n");
}
END_TEST

/* === 3. precedence: options > SBPRELOAD_* > config file > built-in ========= */

/* A probe of what is writable: "NAME ok" or "NAME no" per target. */
#define WRITE_PROBE(targets) \
	"for f in " targets "; do if (echo x > $f) 2>/dev/null; then echo \"$f ok\"; else echo \"$f no\"; fi; done"

START_TEST(t_layers_write_lists)
{
	write_file("{W}/ws-only.ini", "[filesystem]\nwrite = .\n");
	make_dir("{O}/a");
	make_dir("{O}/b");
	const char *env[] = {"SBPRELOAD_ALLOW_WRITE={O}/a", NULL};

	/* The config replaces the default's list (no /tmp); the variable and
	 * the option add to it. */
	SBP_ENV(env, "-c", "ws-only.ini", "-w", "{O}/b", "-q", "--", "sh", "-c",
		WRITE_PROBE("{W}/f {T} {O}/a/f {O}/b/f {O}/f"));
	STATUS_IS(0);
	IS(out, "{W}/f ok\n{T} no\n{O}/a/f ok\n{O}/b/f ok\n{O}/f no\n");
	IS(err, "");
	FILE_IS("{O}/a/f", "x\n");
	FILE_IS("{O}/b/f", "x\n");
	ABSENT("{O}/f");
	ABSENT("{T}");

	SBP_ENV(env, "-c", "ws-only.ini", "-w", "{O}/b", "policy");
	STATUS_IS(0);
	HAS(out, "\nwrite = {W},\n    {O}/a,\n    {O}/b\ndeny = ");
}
END_TEST

static const struct layer_case {
	const char *ini;    /* the config file, given with -c */
	const char *env[2]; /* SBPRELOAD_* */
	const char *opt[3]; /* options */
	const char *want;   /* in `policy` output */
	const char *not;    /* not in it, or NULL */
} layer_cases[] = {
	{"", {0}, {0}, "\nmode = enforce\n", NULL},
	{"[sandbox]\nmode = audit\n", {0}, {0}, "\nmode = audit\n", "mode = enforce"},
	{"[sandbox]\nmode = audit\n", {"SBPRELOAD_MODE=enforce"}, {0}, "\nmode = enforce\n", "mode = audit"},
	{"[sandbox]\nmode = enforce\n", {"SBPRELOAD_MODE=enforce"}, {"--audit"}, "\nmode = audit\n", "mode = enforce"},
	{"[sandbox]\nmode = audit\n", {"SBPRELOAD_MODE=audit"}, {"--yolo"}, "\nmode = off\n", "mode = audit"},
	{"", {0}, {0}, "\nmessages = stderr\n", NULL},
	{"[sandbox]\nmessages = none\n", {0}, {0}, "\nmessages = none\n", "messages = stderr"},
	{"[sandbox]\nmessages = none\n", {"SBPRELOAD_MESSAGES=stderr"}, {0}, "\nmessages = stderr\n", "messages = none"},
	{"[sandbox]\nmessages = stderr\n", {"SBPRELOAD_MESSAGES=stderr"}, {"-q"}, "\nmessages = none\n", "messages = stderr"},
	{"[sandbox]\nworkspace = {W}/c\n", {0}, {0}, "\nworkspace = {W}/c\n", NULL},
	{"[sandbox]\nworkspace = {W}/c\n", {"SBPRELOAD_WORKSPACE={W}/e"}, {0}, "\nworkspace = {W}/e\n", "{W}/c\n"},
	{"[sandbox]\nworkspace = {W}/c\n", {"SBPRELOAD_WORKSPACE={W}/e"}, {"-W", "{W}/o"}, "\nworkspace = {W}/o\n", "{W}/e\n"},
	{"[sandbox]\nlog = {W}/c.log\n", {0}, {0}, "\nlog = {W}/c.log\n", NULL},
	{"[sandbox]\nlog = {W}/c.log\n", {"SBPRELOAD_LOG={W}/e.log"}, {0}, "\nlog = {W}/e.log\n", "c.log"},
	{"[sandbox]\nlog = {W}/c.log\n", {"SBPRELOAD_LOG={W}/e.log"}, {"--log", "{W}/o.log"}, "\nlog = {W}/o.log\n", "e.log"},
	{"", {0}, {0}, "\nwrite = {W},\n    /tmp\ndeny = ", NULL},
	{"[filesystem]\nwrite = .\n", {0}, {0}, "\nwrite = {W}\ndeny = ", NULL},
	{"[filesystem]\nwrite = .\n", {"SBPRELOAD_ALLOW_WRITE={O}/a:{O}/b"}, {0}, "\nwrite = {W},\n    {O}/a,\n    {O}/b\n", NULL},
	{"[filesystem]\nwrite += {O}/c\n", {0}, {"--allow-dir", "{O}/d"}, "\nwrite = {W},\n    /tmp,\n    {O}/c,\n    {O}/d\n", NULL},
	{"[filesystem]\ndeny_write = *.lock\n", {"SBPRELOAD_DENY_WRITE=*.pem"}, {"--deny-write", "*.key"},
	 "\ndeny_write = {W}/*.lock,\n    {W}/*.pem,\n    {W}/*.key\n", NULL},
};

START_TEST(t_layers_policy)
{
	const struct layer_case *c = &layer_cases[_i];

	make_dir("{W}/c");
	make_dir("{W}/e");
	make_dir("{W}/o");
	write_file("{W}/layer.ini", c->ini);
	const char *args[8] = {"-c", "layer.ini"};
	size_t n = 2;
	for (size_t i = 0; c->opt[i]; i++)
		args[n++] = c->opt[i];
	args[n++] = "policy";
	run_in(NULL, c->env, args);
	STATUS_IS(0);
	HAS(out, c->want);
	if (c->not)
		LACKS(out, c->not);
}
END_TEST

START_TEST(t_audit_option_over_config)
{
	write_file("{W}/enforce.ini", "[sandbox]\nmode = enforce\n");
	SBP("-c", "enforce.ini", "--audit", "--", "sh", "-c", "echo x > {O}/z");
	STATUS_IS(0);
	FILE_IS("{O}/z", "x\n");
	HAS(err, "sbpreload: would deny write '{O}/z': outside the writable paths (writable: {W}, /tmp)\n");
	ck_assert_str_eq(last_line(r.err), "sbpreload: 1 operation would have been denied");
}
END_TEST

START_TEST(t_quiet_option_over_config)
{
	write_file("{W}/loud.ini", "[sandbox]\nmessages = stderr\n");
	SBP("-c", "loud.ini", "-q", "--", "sh", "-c", "echo x > {O}/z; echo st=$?");
	STATUS_IS(0);
	LACKS(out, "st=0");
	/* The command's own error, but neither the denial nor the summary. */
	HAS(err, "Permission denied");
	LACKS(err, "sbpreload");
	ABSENT("{O}/z");

	/* And the variable over a quiet config: the messages are back. */
	write_file("{W}/quiet.ini", "[sandbox]\nmessages = none\n");
	const char *env[] = {"SBPRELOAD_MESSAGES=stderr", NULL};
	SBP_ENV(env, "-c", "quiet.ini", "--", "sh", "-c", "echo x > {O}/z");
	HAS(err, "sbpreload: denied write '{O}/z'");
	ck_assert_str_eq(last_line(r.err), "sbpreload: 1 operation denied");
}
END_TEST

/* Which config file applies: -c, else $SBPRELOAD_CONFIG, else ./.sbpreload.ini. */
static const struct pick_case {
	bool opt, env, cwd;
	const char *want; /* the marker of the file in use, or NULL */
} pick_cases[] = {
	{true, true, true, "mark-opt"},
	{false, true, true, "mark-env"},
	{false, false, true, "mark-cwd"},
	{true, false, false, "mark-opt"},
	{false, false, false, NULL},
};

START_TEST(t_config_file_choice)
{
	const struct pick_case *c = &pick_cases[_i];
	static const char *const markers[] = {"mark-opt", "mark-env", "mark-cwd"};

	write_file("{W}/c.ini", "[filesystem]\ndeny_write = mark-opt\n");
	write_file("{W}/env.ini", "[filesystem]\ndeny_write = mark-env\n");
	if (c->cwd)
		write_file("{W}/.sbpreload.ini", "[filesystem]\ndeny_write = mark-cwd\n");
	const char *env[] = {c->env ? "SBPRELOAD_CONFIG={W}/env.ini" : NULL, NULL};
	const char *run_args[] = {"-c", "c.ini", "policy", NULL};
	const char *const *args = c->opt ? run_args : run_args + 2;

	run_in(NULL, env, args);
	STATUS_IS(0);
	for (size_t i = 0; i < 3; i++) {
		char m[64];
		snprintf(m, sizeof(m), "{W}/%s", markers[i]);
		if (c->want && !strcmp(markers[i], c->want))
			HAS(out, m);
		else
			LACKS(out, m);
	}
	/* The same choice governs a session: only the chosen marker is
	 * read-only. */
	const char *probe_args[] = {"-c", "c.ini", "--", "sh", "-c", WRITE_PROBE("mark-opt mark-env mark-cwd"), NULL};
	run_in(NULL, env, c->opt ? probe_args : probe_args + 2);
	STATUS_IS(0);
	char want[256] = "";
	for (size_t i = 0; i < 3; i++) {
		size_t l = strlen(want);
		snprintf(want + l, sizeof(want) - l, "%s %s\n", markers[i],
			 c->want && !strcmp(markers[i], c->want) ? "no" : "ok");
	}
	IS(out, want);
}
END_TEST

START_TEST(t_workspace_auto)
{
	make_dir("{W}/proj");
	make_dir("{W}/proj/.git");
	make_dir("{W}/proj/sub");
	write_file("{W}/ws-only.ini", "[filesystem]\nwrite = .\n");

	run_in("{W}/proj/sub", NULL, LIST("-c", "{W}/ws-only.ini", "-W", "auto", "policy"));
	STATUS_IS(0);
	HAS(out, "\nworkspace = {W}/proj\n");
	HAS(out, "\nwrite = {W}/proj\n");

	run_in("{W}/proj/sub", NULL,
	       LIST("-c", "{W}/ws-only.ini", "-W", "auto", "--", "sh", "-c", "echo x > ../in; echo y > {W}/above"));
	FILE_IS("{W}/proj/in", "x\n");
	ABSENT("{W}/above");
	HAS(err, "sbpreload: denied write '{W}/above': outside the writable paths (writable: {W}/proj)\n");

	/* No marker anywhere up: the current directory. */
	make_dir("{O}/plain");
	run_in("{O}/plain", NULL, LIST("-W", "auto", "policy"));
	STATUS_IS(0);
	HAS(out, "\nworkspace = {O}/plain\n");
}
END_TEST

/* === 4. sbpreload check ===================================================== */

static const struct check_case {
	const char *args[8]; /* after "sbpreload -W {W}" */
	int status;
	const char *lines;   /* stdout, exactly */
} check_cases[] = {
	{{"check", "write", "{W}/new"}, 0, "allowed write '{W}/new': in writable path '{W}'\n"},
	{{"check", "write", "new"}, 0, "allowed write 'new' (resolved '{W}/new'): in writable path '{W}'\n"},
	{{"check", "write", "{T}"}, 0, "allowed write '{T}': in writable path '/tmp'\n"},
	{{"check", "write", "{O}/x"}, 1, "denied write '{O}/x': outside the writable paths (writable: {W}, /tmp)\n"},
	{{"check", "write", "{W}/new", "{O}/x", "{W}/n2"}, 1,
	 "allowed write '{W}/new': in writable path '{W}'\n"
	 "denied write '{O}/x': outside the writable paths (writable: {W}, /tmp)\n"
	 "allowed write '{W}/n2': in writable path '{W}'\n"},
	{{"check", "write", "pw"}, 1,
	 "denied write 'pw' (resolved '/etc/passwd'): outside the writable paths (writable: {W}, /tmp)\n"},
	{{"check", "read", "pw"}, 0, "allowed read 'pw' (resolved '/etc/passwd'): reads are not restricted\n"},
	{{"check", "-d", "{O}/secret", "read", "{O}/secret", "{O}/other"}, 1,
	 "denied read '{O}/secret': matches deny rule '{O}/secret'\n"
	 "allowed read '{O}/other': reads are not restricted\n"},
	{{"-d", "{O}/secret", "check", "write", "{O}/secret"}, 1,
	 "denied write '{O}/secret': matches deny rule '{O}/secret'\n"},
	{{"check", "-r", "{W}/src", "read", "{O}/secret", "{W}/src/a.c"}, 1,
	 "denied read '{O}/secret': outside the readable paths (readable: {W}/src, {W}, /tmp, and what programs need to run)\n"
	 "allowed read '{W}/src/a.c': in readable path '{W}/src'\n"},
	{{"check", "write", "{W}/.sbpreload.ini"}, 1,
	 "denied write '{W}/.sbpreload.ini': matches deny_write rule '{W}/.sbpreload.ini'\n"},
	{{"check", "exec", "sh"}, 0, "allowed exec 'sh' (resolved '{S}'): reads, and so exec, are not restricted\n"},
	{{"check", "-d", "{S}", "exec", "sh"}, 1, "denied exec 'sh' (resolved '{S}'): matches deny rule '{S}'\n"},
	{{"check", "--yolo", "write", "{O}/x"}, 0, "allowed write '{O}/x': no policy in force\n"},
};

START_TEST(t_check)
{
	const struct check_case *c = &check_cases[_i];
	const char *args[12] = {"-W", "{W}"};
	size_t n = 2;

	for (size_t i = 0; c->args[i]; i++)
		args[n++] = c->args[i];
	run_in(NULL, NULL, args);
	STATUS_IS(c->status);
	IS(out, c->lines);
	IS(err, "");
}
END_TEST

START_TEST(t_check_symlink_judged_as_target)
{
	/* The link is in the workspace; what it points to is not. */
	SBP("-W", "{W}", "check", "write", "{W}/pw");
	STATUS_IS(1);
	IS(out, "denied write '{W}/pw' (resolved '/etc/passwd'): outside the writable paths (writable: {W}, /tmp)\n");
	/* And a session agrees with check. */
	SBP("-W", "{W}", "--", "sh", "-c", "echo x >> {W}/pw");
	STATUS_NOT(0);
	HAS(err, "sbpreload: denied write '{W}/pw' (resolved '/etc/passwd')");
}
END_TEST

START_TEST(t_check_exec_not_found)
{
	SBP("check", "exec", "sbt-no-such-command");
	STATUS_IS(125);
	IS(out, "");
	HAS(err, "sbpreload: check: sbt-no-such-command: command not found\n");
}
END_TEST

/* === 5. sbpreload policy ==================================================== */

START_TEST(t_policy_prints_ini)
{
	make_dir("{O}/home");
	setenv("HOME", X("{O}/home"), 1);
	SBP("-W", "{W}", "policy");
	STATUS_IS(0);
	IS(err, "");
	HAS(out, "[sandbox]\nworkspace = {W}\nmode = enforce\nmessages = stderr\n");
	HAS(out, "\n[filesystem]\n");
	HAS(out, "\nread =\n");
	HAS(out, "\nwrite = {W},\n    /tmp\n");
	/* The default deny list, ~ expanded. */
	HAS(out, "\ndeny = {O}/home/.ssh,\n    {O}/home/.gnupg,\n    {O}/home/.aws,\n");
	HAS(out, "    /etc/shadow,\n");
	HAS(out, "/**/.env,\n");
	LACKS(out, "= ~");
	LACKS(out, "    ~");
}
END_TEST

/* `policy` output given back with -c describes the same policy; the file
 * given is the one addition (it is in use, so it is protected too). */
START_TEST(t_policy_round_trip)
{
	SBP("policy");
	STATUS_IS(0);
	char *first = strdup(r.out);
	write_file("{W}/p.ini", first);

	SBP("-c", "p.ini", "policy");
	STATUS_IS(0);
	IS(err, "");
	const char *tag = "# implicit deny_write: ";
	char *at = strstr(first, tag);
	ck_assert_msg(at, "no implicit deny_write line:\n%s", first);
	char want[65536];
	snprintf(want, sizeof(want), "%.*s%s%s, %s", (int)(at - first), first, tag, X("{W}/p.ini"),
		 at + strlen(tag));
	IS(out, want);

	/* From then on it is a fixed point. */
	char *second = strdup(r.out);
	write_file("{W}/p.ini", second);
	SBP("-c", "p.ini", "policy");
	STATUS_IS(0);
	IS(out, second);
	free(first);
	free(second);
}
END_TEST

/* In a git workspace the printed policy must keep .git/hooks read-only
 * when it is used as the config. */
START_TEST(t_policy_round_trip_keeps_git_protection)
{
	make_dir("{W}/.git");
	make_dir("{W}/.git/hooks");
	SBP("--", "sh", "-c", "echo x > .git/hooks/pre-commit");
	STATUS_NOT(0);
	ABSENT("{W}/.git/hooks/pre-commit");

	SBP("policy");
	STATUS_IS(0);
	write_file("{W}/p.ini", r.out);
	SBP("-c", "p.ini", "--", "sh", "-c", "echo x > .git/hooks/pre-commit");
	ck_assert_msg(!sbt_exists(X("{W}/.git/hooks/pre-commit")),
		      "the policy printed by `sbpreload policy`, given back with -c, let the session write "
		      ".git/hooks/pre-commit (it prints protect_git = false and the .git rules only as a "
		      "comment); stderr:\n%s",
		      r.err);
	STATUS_NOT(0);
}
END_TEST

/* === 6. --log, --audit, --yolo ============================================== */

/* Prints pid|exe|op|target|resolved|decision|reason|rule per record; exits
 * non-zero when a line is not a JSON object with exactly the documented
 * fields, ts a time in seconds and pid a number. */
static const char log_reader[] =
	"import json, sys\n"
	"keys = ['ts', 'pid', 'exe', 'op', 'call', 'target', 'resolved', 'decision', 'reason', 'rule']\n"
	"for line in open(sys.argv[1]):\n"
	"    r = json.loads(line)\n"
	"    assert list(r) == keys, list(r)\n"
	"    assert isinstance(r['ts'], float) and r['ts'] > 1e9, r['ts']\n"
	"    assert isinstance(r['pid'], int) and r['call'], r\n"
	"    print(r['pid'], r['exe'], r['op'], r['target'], r['resolved'], r['decision'], r['reason'],\n"
	"          r['rule'], sep='|')\n";

static void read_log(struct sbt_run *lr, const char *path)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s", X(path));
	char *argv[] = {"python3", "-c", (char *)log_reader, p, NULL};
	sbt_exec(lr, ws, false, NULL, argv);
	ck_assert_msg(lr->status == 0, "bad log %s (status %d):\n%s\n%s", p, lr->status, lr->err, lr->out);
}

START_TEST(t_log_records)
{
	SBP("--log", "{W}/log.jsonl", "--", "sh", "-c",
	    "echo $$; echo x > {O}/z; echo x > {W}/log.jsonl; rm -f {W}/log.jsonl; echo y >> {W}/log.jsonl;"
	    "mv {W}/log.jsonl {W}/moved; exit 0");
	STATUS_IS(0);
	int sh_pid = atoi(r.out);
	int denials = count(r.err, "sbpreload: denied ");
	int log_denials = count(r.err, X("sbpreload: denied write '{W}/log.jsonl': matches deny rule '{W}/log.jsonl'\n"));
	ck_assert_msg(log_denials >= 4, "the log file was not defended 4 times:\n%s", r.err);
	char want[256];
	snprintf(want, sizeof(want), "sbpreload: %d operations denied, log: %s", denials, X("{W}/log.jsonl"));
	ck_assert_str_eq(last_line(r.err), want);
	ABSENT("{O}/z");
	ABSENT("{W}/moved");

	/* The log is intact: one record per denial, nothing else. */
	struct sbt_run lr;
	read_log(&lr, "{W}/log.jsonl");
	ck_assert_msg(count(lr.out, "\n") == denials, "%d records for %d denials:\n%s", count(lr.out, "\n"), denials,
		      lr.out);
	char first[1024];
	snprintf(first, sizeof(first),
		 "%d|%s|write|%s/z|%s/z|deny|outside the writable paths (writable: %s, /tmp)|None\n", sh_pid, sh_path,
		 out, out, ws);
	ck_assert_msg(!strncmp(lr.out, first, strlen(first)), "first record:\n%s\nexpected:\n%s", lr.out, first);
	char logrec[1024];
	snprintf(logrec, sizeof(logrec), "|write|%s/log.jsonl|%s/log.jsonl|deny|matches deny rule '%s/log.jsonl'|%s/log.jsonl\n",
		 ws, ws, ws, ws);
	ck_assert_msg(count(lr.out, logrec) == log_denials, "records about the log:\n%s", lr.out);
}
END_TEST

START_TEST(t_log_appends)
{
	SBP("--log", "{W}/log.jsonl", "--", "sh", "-c", "echo x > {O}/a");
	SBP("--log", "{W}/log.jsonl", "--", "sh", "-c", "echo x > {O}/b");
	struct sbt_run lr;
	read_log(&lr, "{W}/log.jsonl");
	ck_assert_int_eq(count(lr.out, "\n"), 2);
	ck_assert_msg(strstr(lr.out, X("|{O}/a|")) < strstr(lr.out, X("|{O}/b|")) && strstr(lr.out, X("|{O}/a|")),
		      "records:\n%s", lr.out);
}
END_TEST

START_TEST(t_audit)
{
	SBP("--audit", "--log", "{W}/a.jsonl", "--", "sh", "-c", "echo x > {O}/z; cat {O}/z");
	STATUS_IS(0);
	IS(out, "x\n");
	FILE_IS("{O}/z", "x\n");
	IS(err, "sbpreload: would deny write '{O}/z': outside the writable paths (writable: {W}, /tmp)\n"
		"sbpreload: 1 operation would have been denied, log: {W}/a.jsonl\n");
	struct sbt_run lr;
	read_log(&lr, "{W}/a.jsonl");
	ck_assert_int_eq(count(lr.out, "\n"), 1);
	ck_assert_msg(strstr(lr.out, X("|write|{O}/z|{O}/z|audit|outside the writable paths")), "record:\n%s",
		      lr.out);
}
END_TEST

START_TEST(t_yolo)
{
	SBP("--yolo", "--log", "{W}/y.jsonl", "--", "sh", "-c",
	    "echo x > {O}/z && cat {O}/secret; echo \"${LD_PRELOAD-unset} ${SBPRELOAD_POLICY-unset}\"");
	STATUS_IS(0);
	IS(out, "s3cret\nunset unset\n");
	IS(err, "");
	FILE_IS("{O}/z", "x\n");
	ABSENT("{W}/y.jsonl"); /* nothing to log: no policy */
}
END_TEST

/* === 7. the policy in use is not writable from inside ====================== */

static const struct guard_case {
	const char *env[2];
	const char *opt[5];
	bool cwd_ini;       /* a ./.sbpreload.ini exists (and is picked) */
	const char *script;
	const char *file;   /* must be unchanged */
	bool exists;        /* it exists before (with POLICY_TEXT) */
} guard_cases[] = {
	{{0}, {"-c", "{W}/policy.ini"}, false, "echo x >> {W}/policy.ini", "{W}/policy.ini", true},
	{{0}, {"-c", "policy.ini"}, false, "echo '[sandbox]' > policy.ini", "{W}/policy.ini", true},
	{{0}, {"-c", "{W}/policy.ini"}, false, "rm -f {W}/policy.ini", "{W}/policy.ini", true},
	{{0}, {"-c", "{W}/policy.ini"}, false, "mv {W}/policy.ini {W}/other.ini", "{W}/policy.ini", true},
	{{"SBPRELOAD_CONFIG={W}/policy.ini"}, {0}, false, "echo x >> {W}/policy.ini", "{W}/policy.ini", true},
	{{0}, {0}, true, "echo x >> .sbpreload.ini", "{W}/.sbpreload.ini", true},
	{{0}, {0}, false, "echo x > {W}/.sbpreload.ini", "{W}/.sbpreload.ini", false},
	{{0}, {0}, false, "cp /etc/hostname .sbpreload.ini", "{W}/.sbpreload.ini", false},
	{{0}, {"-w", "{O}", "-c", "{O}/outside.ini"}, false, "echo x >> {O}/outside.ini", "{O}/outside.ini", true},
};

#define POLICY_TEXT "[filesystem]\nwrite = ., /tmp\n"

START_TEST(t_policy_files_guarded)
{
	const struct guard_case *c = &guard_cases[_i];
	const char *args[10];
	size_t n = 0;

	write_file("{W}/policy.ini", POLICY_TEXT);
	write_file("{O}/outside.ini", POLICY_TEXT);
	if (c->cwd_ini)
		write_file("{W}/.sbpreload.ini", POLICY_TEXT);
	for (size_t i = 0; c->opt[i]; i++)
		args[n++] = c->opt[i];
	args[n++] = "--";
	args[n++] = "sh";
	args[n++] = "-c";
	args[n++] = c->script;
	args[n] = NULL;
	run_in(NULL, c->env, args);
	STATUS_NOT(0);
	char msg[PATH_MAX + 64];
	snprintf(msg, sizeof(msg), "matches deny_write rule '%s'\n", X(c->file));
	HAS(err, "sbpreload: denied write '");
	HAS(err, msg);
	FILE_IS(c->file, c->exists ? POLICY_TEXT : NULL);
	ABSENT("{W}/other.ini");
}
END_TEST

/* === 8. signals sent to sbpreload reach the command exactly once ============ */

/* The environment a child of the tests gets: ours without SBPRELOAD_* and
 * LD_PRELOAD, EXTRA ("K=V", templates) replacing what they name. */
static char **child_env(const char *const extra[])
{
	size_t n = 0, k = 0, m = 0;
	while (environ[n])
		n++;
	while (extra && extra[m])
		m++;
	char **env = calloc(n + m + 1, sizeof(*env));
	for (size_t i = 0; i < n; i++) {
		const char *e = environ[i];
		bool drop = !strncmp(e, "SBPRELOAD_", 10) || !strncmp(e, "LD_PRELOAD=", 11);
		for (size_t j = 0; j < m && !drop; j++) {
			size_t kl = strcspn(extra[j], "=");
			drop = !strncmp(e, extra[j], kl) && e[kl] == '=';
		}
		if (!drop)
			env[k++] = strdup(e);
	}
	for (size_t j = 0; j < m; j++)
		env[k++] = strdup(X(extra[j]));
	return env;
}

/* In a child about to exec: the signal state of a fresh login. */
static void default_signals(void)
{
	sigset_t none;
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			signal(s, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Processes a test started and must not leave behind, even when an
 * assertion ends the test early (Check then exits: atexit runs). */
static pid_t live[8];

/* Kill PID with everything in its process group and its session. */
static void kill_tree(pid_t pid)
{
	char path[300], stat[1024];
	DIR *d = opendir("/proc");
	struct dirent *e;

	while (d && (e = readdir(d))) {
		pid_t p = atoi(e->d_name);
		if (p <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t n = read(fd, stat, sizeof(stat) - 1);
		close(fd);
		if (n <= 0)
			continue;
		stat[n] = '\0';
		/* pid (comm) state ppid pgrp session ... */
		char *rp = strrchr(stat, ')');
		int ppid, pgrp, sid;
		if (rp && sscanf(rp + 1, " %*c %d %d %d", &ppid, &pgrp, &sid) == 3 && (sid == pid || pgrp == pid))
			kill(p, SIGKILL);
	}
	if (d)
		closedir(d);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void kill_live(void)
{
	for (size_t i = 0; i < sizeof(live) / sizeof(live[0]); i++)
		if (live[i] > 0)
			kill_tree(live[i]);
	memset(live, 0, sizeof(live));
}

static void track(pid_t pid, bool on)
{
	static bool registered;

	if (!registered)
		registered = atexit(kill_live) == 0;
	for (size_t i = 0; i < sizeof(live) / sizeof(live[0]); i++)
		if (on ? live[i] == 0 : live[i] == pid) {
			live[i] = on ? pid : 0;
			return;
		}
}

/* Start sbpreload ARGS in the background, in its own process group, in
 * {W}, stdout and stderr to {W}/sbp.out and {W}/sbp.err. */
static pid_t spawn_sbp(const char *const args[])
{
	char **argv = expand_all(sbp, args), **env = child_env(NULL);
	char o[PATH_MAX], e[PATH_MAX];

	snprintf(o, sizeof(o), "%s", X("{W}/sbp.out"));
	snprintf(e, sizeof(e), "%s", X("{W}/sbp.err"));
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		setpgid(0, 0);
		int fo = open(o, O_WRONLY | O_CREAT | O_TRUNC, 0644), fe = open(e, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0 || chdir(ws) < 0)
			_exit(120);
		default_signals();
		execve(argv[0], argv, env);
		_exit(122);
	}
	setpgid(pid, pid);
	track(pid, true);
	free_all(argv);
	free_all(env);
	return pid;
}

/* The status a shell would show for PID once it exits, or -1 when it has not
 * within MS (it and its process group are then killed). */
static int wait_exit(pid_t pid, long ms)
{
	long end = now_ms() + ms;
	int st;

	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);
		if (w == pid) {
			track(pid, false);
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		}
		if (w < 0 || now_ms() > end)
			break;
		sleep_ms(20);
	}
	track(pid, false);
	kill_tree(pid);
	return -1;
}

/* Wait until PATH holds a complete line. */
static bool wait_line(const char *path, long ms)
{
	long end = now_ms() + ms;
	for (;;) {
		char *s = sbt_read(path);
		bool ok = s && strchr(s, '\n');
		free(s);
		if (ok)
			return true;
		if (now_ms() > end)
			return false;
		sleep_ms(20);
	}
}

static const struct sig_case {
	int sig;
	const char *name;
	bool trap; /* the command handles it (and must see it once) */
} sig_cases[] = {
	{SIGTERM, "TERM", true},  {SIGINT, "INT", true},   {SIGHUP, "HUP", true},   {SIGQUIT, "QUIT", true},
	{SIGTERM, "TERM", false}, {SIGINT, "INT", false}, {SIGHUP, "HUP", false}, {SIGQUIT, "QUIT", false},
};

START_TEST(t_signal_forwarded_once)
{
	const struct sig_case *c = &sig_cases[_i];
	char script[1024];

	if (c->trap)
		/* The trap counts; the main loop notices, waits long enough for a
		 * second delivery to be counted too, and exits 7. */
		snprintf(script, sizeof(script),
			 "got=0; trap 'echo got >> %s/count; got=1' %s; echo $$ > %s/ready;"
			 "while [ $got = 0 ]; do sleep 0.05; done; sleep 0.5; exit 7",
			 ws, c->name, ws);
	else
		snprintf(script, sizeof(script), "echo $$ > %s/ready; exec sleep 30", ws);
	pid_t pid = spawn_sbp(LIST("--", "sh", "-c", script));
	ck_assert_msg(wait_line(X("{W}/ready"), 20000), "the command did not start; stderr:\n%s",
		      sbt_read(X("{W}/sbp.err")));
	char *ready = sbt_read(X("{W}/ready"));
	pid_t cmd = atoi(ready);
	free(ready);
	ck_assert_int_eq(kill(pid, c->sig), 0);
	int status = wait_exit(pid, 20000);
	char *err = sbt_read(X("{W}/sbp.err"));
	if (c->trap) {
		ck_assert_msg(status == 7, "SIG%s: status %d, expected 7; stderr:\n%s", c->name, status, err);
		FILE_IS("{W}/count", "got\n");
	} else {
		ck_assert_msg(status == 128 + c->sig, "SIG%s: status %d, expected %d; stderr:\n%s", c->name, status,
			      128 + c->sig, err);
	}
	/* sbpreload stayed until the command was gone. */
	ck_assert_msg(kill(cmd, 0) < 0 && errno == ESRCH, "the command (pid %d) outlived sbpreload", (int)cmd);
	free(err);
}
END_TEST

/* === 9. an interactive program on a terminal =============================== */

struct pty {
	int master;
	pid_t pid;
	char buf[1 << 16];
	size_t len, seen; /* all output; what expect() has consumed */
};

static void pty_start(struct pty *p, unsigned short rows, unsigned short cols, const char *const extra[],
		      const char *const args[])
{
	char slave[128];
	struct winsize wsz = {.ws_row = rows, .ws_col = cols};

	memset(p, 0, sizeof(*p));
	p->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	ck_assert_msg(p->master >= 0, "posix_openpt: %s", strerror(errno));
	ck_assert_int_eq(grantpt(p->master), 0);
	ck_assert_int_eq(unlockpt(p->master), 0);
	ck_assert_int_eq(ptsname_r(p->master, slave, sizeof(slave)), 0);
	ck_assert_int_eq(ioctl(p->master, TIOCSWINSZ, &wsz), 0);
	char **argv = expand_all(sbp, args), **env = child_env(extra);
	p->pid = fork();
	ck_assert_int_ge(p->pid, 0);
	if (p->pid == 0) {
		/* A new session whose controlling terminal is the pty, as a
		 * terminal emulator or sshd starts a login. */
		setsid();
		int s = open(slave, O_RDWR);
		if (s < 0 || ioctl(s, TIOCSCTTY, 0) < 0 || dup2(s, 0) < 0 || dup2(s, 1) < 0 || dup2(s, 2) < 0)
			_exit(120);
		if (s > 2)
			close(s);
		if (chdir(ws) < 0)
			_exit(121);
		default_signals();
		execve(argv[0], argv, env);
		_exit(122);
	}
	track(p->pid, true);
	free_all(argv);
	free_all(env);
}

/* Read what is there within MS.  False at end of output. */
static bool pty_read(struct pty *p, long ms)
{
	struct pollfd pfd = {p->master, POLLIN, 0};

	if (p->master < 0 || poll(&pfd, 1, (int)(ms < 0 ? 0 : ms)) <= 0)
		return p->master >= 0;
	if (p->len + 1 >= sizeof(p->buf))
		return false;
	ssize_t n = read(p->master, p->buf + p->len, sizeof(p->buf) - 1 - p->len);
	if (n <= 0)
		return false; /* EIO: every slave is closed */
	p->len += (size_t)n;
	p->buf[p->len] = '\0';
	return true;
}

/* Wait for NEEDLE in the output after what was consumed; consume up to its
 * end.  SEGMENT (if not NULL) gets what came before it. */
static bool pty_expect(struct pty *p, const char *needle, long ms, char *segment, size_t size)
{
	long end = now_ms() + ms;
	for (;;) {
		char *hit = strstr(p->buf + p->seen, needle);
		if (hit) {
			if (segment)
				snprintf(segment, size, "%.*s", (int)(hit - (p->buf + p->seen)), p->buf + p->seen);
			p->seen = (size_t)(hit - p->buf) + strlen(needle);
			return true;
		}
		long left = end - now_ms();
		if (left <= 0 || !pty_read(p, left))
			return false;
	}
}

static void pty_send(struct pty *p, const char *tmpl)
{
	const char *s = X(tmpl);
	size_t n = strlen(s);
	ck_assert_msg(write(p->master, s, n) == (ssize_t)n, "write to the terminal: %s", strerror(errno));
}

/* The end of the transcript, for failure messages. */
static const char *pty_tail(const struct pty *p)
{
	return p->len > 3000 ? p->buf + p->len - 3000 : p->buf;
}

#define EXPECT(p, s)                                                                                     \
	ck_assert_msg(pty_expect(p, X(s), 10000, NULL, 0), "no '%s' on the terminal within 10 s; transcript:\n%s", \
		      X(s), pty_tail(p))

/* Wait for the session to end (reading what it prints meanwhile). */
static int pty_wait(struct pty *p, long ms)
{
	long end = now_ms() + ms;
	int st;
	for (;;) {
		pid_t w = waitpid(p->pid, &st, WNOHANG);
		if (w == p->pid) {
			track(p->pid, false);
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		}
		if (now_ms() > end) {
			track(p->pid, false);
			kill_tree(p->pid);
			return -1;
		}
		if (!pty_read(p, 50))
			sleep_ms(20);
	}
}

static struct pty term;

#define PROMPT "sbt-prompt$ "

START_TEST(t_pty_shell)
{
	const char *env[] = {"PS1=" PROMPT, "ENV=", "TERM=dumb", NULL};
	char seg[8192];

	pty_start(&term, 40, 100, env, LIST("--", "sh", "-i"));
	EXPECT(&term, PROMPT);

	/* The window size set on the terminal is what the program sees. */
	pty_send(&term, "stty size\n");
	EXPECT(&term, "40 100");
	EXPECT(&term, PROMPT);

	/* Ctrl-C interrupts the foreground command, not the session. */
	pty_send(&term, "echo I$((1+1)); sleep 30; echo not-inter''rupted\n");
	EXPECT(&term, "I2");
	sleep_ms(300);
	long t0 = now_ms();
	pty_send(&term, "\x03");
	EXPECT(&term, PROMPT);
	ck_assert_msg(now_ms() - t0 < 10000, "Ctrl-C took %ld ms", now_ms() - t0);
	pty_send(&term, "echo after$((40+2))\n");
	EXPECT(&term, "after42");
	ck_assert_msg(!strstr(term.buf, "not-interrupted"), "sleep was not interrupted:\n%s", pty_tail(&term));
	EXPECT(&term, PROMPT);

	/* Ctrl-Z stops it; job control sees it stopped; kill %1 ends it. */
	pty_send(&term, "echo Z$((1+1)); sleep 30\n");
	EXPECT(&term, "Z2");
	sleep_ms(300);
	pty_send(&term, "\x1a");
	EXPECT(&term, PROMPT);
	pty_send(&term, "jobs; echo J$((1+2))\n");
	ck_assert_msg(pty_expect(&term, "J3", 10000, seg, sizeof(seg)), "no jobs output:\n%s", pty_tail(&term));
	ck_assert_msg(strstr(seg, "Stopped") && strstr(seg, "sleep 30"), "jobs does not show a stopped sleep:\n%s", seg);
	EXPECT(&term, PROMPT);
	/* dash sends SIGTERM alone, which waits while the job is stopped. */
	pty_send(&term, "kill %1; kill -CONT %1\n");
	EXPECT(&term, PROMPT);
	sleep_ms(300);
	pty_send(&term, "jobs; echo K$((2+2))\n");
	ck_assert_msg(pty_expect(&term, "K4", 10000, seg, sizeof(seg)), "no jobs output:\n%s", pty_tail(&term));
	ck_assert_msg(!strstr(seg, "Stopped"), "the job is still stopped after kill %%1:\n%s", seg);
	EXPECT(&term, PROMPT);

	/* The sandbox is in force in the session. */
	pty_send(&term, "echo x > {O}/z\n");
	EXPECT(&term, "sbpreload: denied write '{O}/z'");
	EXPECT(&term, PROMPT);

	/* exit uses the last status: make it a success. */
	pty_send(&term, "echo done$((1+1))\n");
	EXPECT(&term, "done2");
	EXPECT(&term, PROMPT);
	pty_send(&term, "exit\n");
	int status = pty_wait(&term, 10000);
	ck_assert_msg(status == 0, "session status %d; transcript:\n%s", status, pty_tail(&term));
	ck_assert_msg(strstr(term.buf + term.seen, "sbpreload: 1 operation denied"), "no summary:\n%s",
		      pty_tail(&term));
	ABSENT("{O}/z");
}
END_TEST

/* A program without job control: sbpreload and it share the terminal's
 * foreground group, so Ctrl-C reaches both; the program must see it once. */
static const char repl[] =
	"import os, signal, sys\n"
	"n = 0\n"
	"def on_int(sig, frame):\n"
	"    global n\n"
	"    n += 1\n"
	"signal.signal(signal.SIGINT, on_int)\n"
	"def size():\n"
	"    s = os.get_terminal_size(0)\n"
	"    print('size %d %d' % (s.lines, s.columns), flush=True)\n"
	"size()\n"
	"for line in sys.stdin:\n"
	"    cmd = line.strip()\n"
	"    if cmd == 'size':\n"
	"        size()\n"
	"    elif cmd == 'count':\n"
	"        print('interrupts %d' % n, flush=True)\n"
	"    elif cmd == 'quit':\n"
	"        sys.exit(0)\n";

START_TEST(t_pty_repl)
{
	pty_start(&term, 40, 100, NULL, LIST("--", "python3", "-c", repl));
	EXPECT(&term, "size 40 100");

	pty_send(&term, "\x03");
	sleep_ms(500);
	pty_send(&term, "count\n");
	EXPECT(&term, "interrupts 1\r\n");

	/* A resize reaches it too. */
	struct winsize wsz = {.ws_row = 50, .ws_col = 132};
	ck_assert_int_eq(ioctl(term.master, TIOCSWINSZ, &wsz), 0);
	pty_send(&term, "size\n");
	EXPECT(&term, "size 50 132");

	pty_send(&term, "quit\n");
	int status = pty_wait(&term, 10000);
	ck_assert_msg(status == 0, "status %d; transcript:\n%s", status, pty_tail(&term));
}
END_TEST

/* Closing the terminal hangs up the session: sbpreload leads it, so the
 * kernel tells only sbpreload, and the command must hear of it (once), as
 * it would if it led the session itself. */
START_TEST(t_pty_hangup)
{
	char script[512];
	snprintf(script, sizeof(script),
		 "trap 'echo hup >> %s/hup; exit 9' HUP; echo re''ady; while :; do sleep 0.1; done", ws);
	pty_start(&term, 24, 80, NULL, LIST("--", "sh", "-c", script));
	EXPECT(&term, "ready");
	close(term.master);
	term.master = -1;
	int status = pty_wait(&term, 10000);
	ck_assert_msg(status == 9, "status %d after the hangup (-1: still running after 10 s)", status);
	FILE_IS("{W}/hup", "hup\n");
}
END_TEST

/* ========================================================================== */

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static TCase *tcase(Suite *s, const char *name)
{
	TCase *tc = tcase_create(name);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return tc;
}

static Suite *launcher_suite(void)
{
	Suite *s = suite_create("launcher");
	TCase *tc;

	tc = tcase(s, "exit status");
	tcase_add_loop_test(tc, t_exit_status, 0, N(status_cases));
	tcase_add_test(tc, t_version_exact);

	tc = tcase(s, "default session");
	tcase_add_test(tc, t_default_session);
	tcase_add_test(tc, t_summary_singular);
	tcase_add_test(tc, t_no_denial_no_summary);
	tcase_add_test(tc, t_workspace_is_cwd_by_default);

	tc = tcase(s, "precedence");
	tcase_add_test(tc, t_layers_write_lists);
	tcase_add_loop_test(tc, t_layers_policy, 0, N(layer_cases));
	tcase_add_test(tc, t_audit_option_over_config);
	tcase_add_test(tc, t_quiet_option_over_config);
	tcase_add_loop_test(tc, t_config_file_choice, 0, N(pick_cases));
	tcase_add_test(tc, t_workspace_auto);

	tc = tcase(s, "check");
	tcase_add_loop_test(tc, t_check, 0, N(check_cases));
	tcase_add_test(tc, t_check_symlink_judged_as_target);
	tcase_add_test(tc, t_check_exec_not_found);

	tc = tcase(s, "policy");
	tcase_add_test(tc, t_policy_prints_ini);
	tcase_add_test(tc, t_policy_round_trip);
	tcase_add_test(tc, t_policy_round_trip_keeps_git_protection);

	tc = tcase(s, "log audit yolo");
	tcase_add_test(tc, t_log_records);
	tcase_add_test(tc, t_log_appends);
	tcase_add_test(tc, t_audit);
	tcase_add_test(tc, t_yolo);

	tc = tcase(s, "policy files");
	tcase_add_loop_test(tc, t_policy_files_guarded, 0, N(guard_cases));

	tc = tcase(s, "signals");
	tcase_add_loop_test(tc, t_signal_forwarded_once, 0, N(sig_cases));

	tc = tcase(s, "terminal");
	tcase_add_test(tc, t_pty_shell);
	tcase_add_test(tc, t_pty_repl);
	tcase_add_test(tc, t_pty_hangup);
	return s;
}

int main(void)
{
	return sbt_run_suite(launcher_suite());
}
