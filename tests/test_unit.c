/* The policy core on its own: glob matching, path normalisation, the
 * decision, config layers and errors, messages, the blob transport.  Each
 * is a table of cases. */
#include <check.h>
#include <glob.h>
#include <limits.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "globmatch.h"
#include "path.h"
#include "policy.h"
#include "util.h"

/* --- glob ---------------------------------------------------------------- */

static const struct {
	const char *pat, *path;
	bool match;
} glob_cases[] = {
	{"/a/b", "/a/b", true},
	{"/a/b", "/a/b/c/d", true},
	{"/a/b", "/a/bc", false},
	{"/a/b", "/a", false},
	{"/a/*.txt", "/a/x.txt", true},
	{"/a/*.txt", "/a/x.txt/inner", true},
	{"/a/*.txt", "/a/sub/x.txt", false},
	{"/a/*", "/a", false},
	{"/a/?", "/a/x", true},
	{"/a/?", "/a/xy", false},
	{"/a/[xy]z", "/a/yz", true},
	{"/a/[!xy]z", "/a/yz", false},
	{"/a/[a-c]", "/a/b", true},
	{"/a/[a-c]", "/a/d", false},
	{"/a/**/.env", "/a/.env", true},
	{"/a/**/.env", "/a/b/c/.env", true},
	{"/a/**/.env", "/a/b/c/.envrc", false},
	{"/a/**/.env", "/a/b/c/x.env", false},
	{"/a/**/.env", "/b/.env", false},
	{"/a/**", "/a", true},
	{"/a/**", "/a/b/c", true},
	{"/a/**", "/ab", false},
	{"/**/secret", "/x/y/secret/z", true},
	{"/a/\\*", "/a/*", true},
	{"/a/\\*", "/a/b", false},
	{"/h/.cargo/credentials*", "/h/.cargo/credentials.toml", true},
	{"/h/.cargo/credentials*", "/h/.cargo/config", false},
	{"/a/**/b/**/c", "/a/x/b/y/z/c", true},
	{"/a/**/b/**/c", "/a/x/c", false},
};

START_TEST(t_glob_match)
{
	ck_assert_msg(sbp_glob_match(glob_cases[_i].pat, glob_cases[_i].path) == glob_cases[_i].match,
		      "glob '%s' vs '%s': expected %d", glob_cases[_i].pat, glob_cases[_i].path,
		      glob_cases[_i].match);
}
END_TEST

static const struct {
	const char *pat;
	bool valid;
} glob_check_cases[] = {
	{"/a/*.c", true}, {"/a/**/b", true}, {"**/.env", true}, {"/a/[bc]", true},
	{"/a/[bc", false}, {"/a/b**", false}, {"/a/**b", false}, {"/a/***", false},
	{"/a/b\\", false}, {"/a/[b/c]", false},
};

/* Whether a pattern may name something strictly beneath a directory: what
 * moving that directory, or moving one to its place, would carry. */
static const struct {
	const char *pat, *dir;
	bool beneath;
} beneath_cases[] = {
	{"/ws/prot/*.conf", "/ws/prot", true},
	{"/ws/prot/*.conf", "/ws", true},
	{"/ws/prot/*.conf", "/ws/pro", false},
	{"/ws/prot/*.conf", "/ws/prot2", false},
	{"/ws/prot/*.conf", "/ws/prot/a", false},
	{"/ws/prot/*.conf", "/", true},
	{"/ws/prot/*.conf", "/other", false},
	{"/ws/*/secret", "/ws/anything", true},
	{"/ws/*/secret", "/ws/a/b", false},
	{"/ws/*/secret", "/ws", true},
	{"/ws/a*/secret", "/ws/b", false},
	{"/ws/a*/secret", "/ws/abc", true},
	{"/ws/a*b/secret", "/ws/axxb", true},
	{"/ws/a*b/secret", "/ws/axx", false},
	{"/ws/**/x/y", "/ws/deep/er", true},
	{"/ws/**/x/y", "/wsx", false},
	{"/ws/**/x/y", "/ws", true},
	{"/**/.env", "/anywhere", true},
	{"/ws/[ab]/k", "/ws/a", true},
	{"/ws/[ab]/k", "/ws/c", false},
	{"/ws/?/k", "/ws/a", true},
	{"/ws/?/k", "/ws/ab", false},
	/* The directory itself, or an ancestor of it, is named: all it holds. */
	{"/ws/prot", "/ws/prot", true},
	{"/ws/prot", "/ws/prot/sub", true},
	{"/ws/prot/*", "/ws/prot/sub", true},
	{"/ws/prot", "/ws/pro", false},
};

START_TEST(t_glob_beneath)
{
	ck_assert_msg(sbp_glob_match_beneath(beneath_cases[_i].pat, beneath_cases[_i].dir) == beneath_cases[_i].beneath,
		      "'%s' beneath '%s': expected %d", beneath_cases[_i].pat, beneath_cases[_i].dir,
		      beneath_cases[_i].beneath);
}
END_TEST

START_TEST(t_glob_check)
{
	const char *why = sbp_glob_check(glob_check_cases[_i].pat);
	ck_assert_msg((why == NULL) == glob_check_cases[_i].valid, "'%s': %s", glob_check_cases[_i].pat,
		      why ? why : "valid");
}
END_TEST

/* --- paths --------------------------------------------------------------- */

static const struct {
	const char *base, *path, *out;
	unsigned flags;
} path_cases[] = {
	{NULL, "/a/b/c", "/a/b/c", 0},
	{NULL, "//a///b/", "/a/b", SBP_PATH_TRAILING},
	{NULL, "/a/./b/.", "/a/b", SBP_PATH_TRAILING},
	{NULL, "/a/b/../c", "/a/c", SBP_PATH_DOTDOT},
	{NULL, "/../../etc", "/etc", SBP_PATH_DOTDOT},
	{NULL, "/", "/", 0},
	{"/w/s", "x/y", "/w/s/x/y", 0},
	{"/w/s", "../t", "/w/t", SBP_PATH_DOTDOT},
	{"/w/s", ".", "/w/s", SBP_PATH_TRAILING},
	{"/w/s", "/abs", "/abs", 0},
	{"/", "x", "/x", 0},
};

START_TEST(t_path_normalize)
{
	char out[PATH_MAX];
	unsigned flags;
	long n = sbp_path_normalize(path_cases[_i].base, path_cases[_i].path, out, sizeof(out), &flags);
	ck_assert_int_ge(n, 0);
	ck_assert_str_eq(out, path_cases[_i].out);
	ck_assert_int_eq((long)strlen(out), n);
	ck_assert_uint_eq(flags, path_cases[_i].flags);
}
END_TEST

START_TEST(t_path_is_normal)
{
	static const struct {
		const char *p;
		bool normal;
	} cases[] = {
		{"/", true}, {"/a/b", true}, {"/a/.b", true}, {"/a/..b", true}, {"/a/b.", true},
		{"a/b", false}, {"/a/", false}, {"//a", false}, {"/a//b", false}, {"/a/./b", false},
		{"/a/.", false}, {"/a/../b", false}, {"/a/..", false}, {"", false},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_msg(sbp_path_is_normal(cases[i].p) == cases[i].normal, "'%s'", cases[i].p);
		if (cases[i].normal) {
			char out[64];
			unsigned f;
			sbp_path_normalize(NULL, cases[i].p, out, sizeof(out), &f);
			ck_assert_str_eq(out, cases[i].p);
		}
	}
}
END_TEST

START_TEST(t_path_too_long)
{
	char out[16];
	unsigned flags;
	ck_assert_int_eq(sbp_path_normalize(NULL, "/a/very/long/path/indeed", out, sizeof(out), &flags), -1);
}
END_TEST

/* --- the decision -------------------------------------------------------- */

static void compiled_free(struct sbp_compiled *c)
{
	free(c->blob);
	free(c->workspace);
}

static void tmpdir_free(char *dir)
{
	sbt_rmrf(dir);
	free(dir);
}

static struct sbp_compiled compile_ini(const char *ini, const char *ws)
{
	struct sbp_config c;
	struct sbp_compiled out;

	sbp_config_init(&c);
	ck_assert_msg(sbp_config_load_string(&c, ini, "t.ini") == 0, "%s", c.err);
	sbp_config_set(&c, "sandbox", "workspace", ws, "test", false);
	ck_assert_msg(sbp_config_compile(&c, NULL, &out) == 0, "%s", c.err);
	sbp_config_free(&c);
	return out;
}

static const char decide_ini[] =
	"[filesystem]\n"
	"read =\n"
	"write = ., /tmp\n"
	"deny = /ws/secret, **/.env, /etc/shadow\n"
	"deny_write = /ws/ro, /ws/prot/*.conf, /ws/keys/**/*.pem\n"
	"[path:docs]\n"
	"root = /ws/docs\n"
	"mode = ro\n"
	"[path:vault]\n"
	"root = /srv/vault\n"
	"mode = none\n"
	"[path:out]\n"
	"root = /srv/out\n"
	"mode = rw\n";

static const struct {
	enum sbp_op op;
	const char *path;
	bool subtree;
	bool allow;
	enum sbp_reason reason;
} decide_cases[] = {
	{SBP_OP_WRITE, "/ws/a/b/c", false, true, SBP_ALLOWED},
	{SBP_OP_WRITE, "/ws", false, true, SBP_ALLOWED},
	{SBP_OP_WRITE, "/tmp/x", false, true, SBP_ALLOWED},
	{SBP_OP_WRITE, "/etc/hosts", false, false, SBP_OUTSIDE_WRITE},
	{SBP_OP_WRITE, "/wsx", false, false, SBP_FS_ROOT},
	{SBP_OP_WRITE, "/", false, false, SBP_FS_ROOT},
	{SBP_OP_WRITE, "/usr/x", false, false, SBP_OUTSIDE_WRITE},
	{SBP_OP_READ, "/etc/hosts", false, true, SBP_ALLOWED},
	{SBP_OP_READ, "/ws/secret", false, false, SBP_DENY_RULE},
	{SBP_OP_READ, "/ws/secret/k", false, false, SBP_DENY_RULE},
	{SBP_OP_WRITE, "/ws/secret/k", false, false, SBP_DENY_RULE},
	{SBP_OP_READ, "/ws/secretx", false, true, SBP_ALLOWED},
	{SBP_OP_READ, "/ws/a/.env", false, false, SBP_DENY_RULE},
	{SBP_OP_READ, "/ws/.env", false, false, SBP_DENY_RULE},
	{SBP_OP_READ, "/elsewhere/.env", false, true, SBP_ALLOWED},
	{SBP_OP_READ, "/etc/shadow", false, false, SBP_DENY_RULE},
	{SBP_OP_READ, "/ws/ro/x", false, true, SBP_ALLOWED},
	{SBP_OP_WRITE, "/ws/ro/x", false, false, SBP_DENY_WRITE_RULE},
	{SBP_OP_WRITE, "/ws/docs/a.md", false, false, SBP_IN_ROOT_READONLY},
	{SBP_OP_READ, "/ws/docs/a.md", false, true, SBP_ALLOWED},
	{SBP_OP_READ, "/srv/vault/k", false, false, SBP_IN_ROOT_NONE},
	{SBP_OP_WRITE, "/srv/vault/k", false, false, SBP_IN_ROOT_NONE},
	{SBP_OP_WRITE, "/srv/out/k", false, true, SBP_ALLOWED},
	{SBP_OP_WRITE, "/srv/outx", false, false, SBP_OUTSIDE_WRITE},
	/* Moving a directory that holds a protected path would carry it away. */
	{SBP_OP_WRITE, "/ws", true, false, SBP_CONTAINS_PROTECTED},
	{SBP_OP_WRITE, "/ws/a", true, true, SBP_ALLOWED},
	/* ...and so would moving one that holds a read-only or hidden root. */
	{SBP_OP_WRITE, "/srv", true, false, SBP_CONTAINS_PROTECTED},
	{SBP_OP_WRITE, "/srv/out/x", true, true, SBP_ALLOWED},
	/* A directory moved to where a glob protects what it would hold. */
	{SBP_OP_WRITE, "/ws/prot", true, false, SBP_CONTAINS_PROTECTED},
	{SBP_OP_WRITE, "/ws/prot", false, true, SBP_ALLOWED},
	{SBP_OP_WRITE, "/ws/prot2", true, true, SBP_ALLOWED},
	{SBP_OP_WRITE, "/ws/prot/sub", true, true, SBP_ALLOWED},
	{SBP_OP_WRITE, "/ws/prot/a.conf", true, false, SBP_DENY_WRITE_RULE},
	/* Name-like rules: inside their root a moved tree keeps its names
	 * (the pair is judged by sbp_move_crosses()); "**" /.env is rooted at /. */
	{SBP_OP_WRITE, "/ws/keys/a", true, true, SBP_ALLOWED},
	{SBP_OP_WRITE, "/ws/keys", true, false, SBP_CONTAINS_PROTECTED},
	{SBP_OP_WRITE, "/ws/a/b", true, true, SBP_ALLOWED},
	/* Devices programs need are always writable. */
	{SBP_OP_WRITE, "/dev/null", false, true, SBP_ALLOWED},
	{SBP_OP_WRITE, "/dev/pts/3", false, true, SBP_ALLOWED},
	{SBP_OP_WRITE, "/dev/sda", false, false, SBP_OUTSIDE_WRITE},
};

START_TEST(t_decide)
{
	/* The table says "/ws" for the workspace: put the real one there. */
	char *ws = sbt_tmpdir(false);
	char path[PATH_MAX], fixed[8192];
	const char *p = decide_cases[_i].path;
	if (!strncmp(p, "/ws", 3) && (p[3] == '/' || p[3] == '\0'))
		snprintf(path, sizeof(path), "%s%s", ws, p + 3);
	else
		snprintf(path, sizeof(path), "%s", p);
	const char *src = decide_ini;
	size_t o = 0;
	while (*src && o < sizeof(fixed) - PATH_MAX) {
		if (!strncmp(src, "/ws", 3) && strchr("/,\n", src[3])) {
			o += (size_t)snprintf(fixed + o, sizeof(fixed) - o, "%s", ws);
			src += 3;
		} else {
			fixed[o++] = *src++;
		}
	}
	fixed[o] = '\0';
	struct sbp_compiled c = compile_ini(fixed, ws);

	struct sbp_query q = {decide_cases[_i].op, path, strlen(path), 0, decide_cases[_i].subtree};
	struct sbp_verdict v;
	sbp_decide(c.blob, &q, &v);
	ck_assert_msg(v.allow == decide_cases[_i].allow && v.reason == decide_cases[_i].reason,
		      "%s %s: got allow=%d reason=%s", sbp_op_name(q.op), path, v.allow, sbp_reason_text(v.reason));
	compiled_free(&c);
	tmpdir_free(ws);
}
END_TEST

/* A moved directory takes its entries along: from inside the root of a
 * name-like rule to outside it (or back), protected names would appear or
 * vanish. */
START_TEST(t_move_crosses)
{
	char *ws = sbt_tmpdir(false);
	char ini[1024], a[PATH_MAX], b[PATH_MAX], c2[PATH_MAX];
	snprintf(ini, sizeof(ini), "[filesystem]\nwrite = .\ndeny_write = %s/keys/**/*.pem\n", ws);
	struct sbp_compiled c = compile_ini(ini, ws);
	snprintf(a, sizeof(a), "%s/keys/x", ws);
	snprintf(b, sizeof(b), "%s/out", ws);
	snprintf(c2, sizeof(c2), "%s/keys/y/z", ws);

	const struct sbp_rule *r = sbp_move_crosses(c.blob, a, b);
	ck_assert_ptr_nonnull(r);
	char want[PATH_MAX];
	snprintf(want, sizeof(want), "%s/keys/**/*.pem", ws);
	ck_assert_str_eq(sbp_str(c.blob, r->src), want);
	ck_assert_ptr_nonnull(sbp_move_crosses(c.blob, b, a));
	ck_assert_ptr_null(sbp_move_crosses(c.blob, a, c2));
	ck_assert_ptr_null(sbp_move_crosses(c.blob, b, "/tmp/elsewhere"));
	compiled_free(&c);

	/* The default policy's "**" /.env rules are rooted at /: never crossed. */
	c = compile_ini("", ws);
	ck_assert_ptr_null(sbp_move_crosses(c.blob, a, "/tmp/x"));
	compiled_free(&c);
	tmpdir_free(ws);
}
END_TEST

START_TEST(t_decide_audit_and_off)
{
	char *ws = sbt_tmpdir(false);
	struct sbp_compiled a = compile_ini("[sandbox]\nmode = audit\n[filesystem]\nwrite = .\n", ws);
	struct sbp_query q = {SBP_OP_WRITE, "/etc/x", 6, 0, false};
	struct sbp_verdict v;
	sbp_decide(a.blob, &q, &v);
	ck_assert(v.allow);
	ck_assert(v.violation);
	struct sbp_compiled o = compile_ini("[sandbox]\nmode = off\n", ws);
	sbp_decide(o.blob, &q, &v);
	ck_assert(v.allow);
	ck_assert(!v.violation);
	compiled_free(&a);
	compiled_free(&o);
	tmpdir_free(ws);
}
END_TEST

START_TEST(t_read_restricted)
{
	char *ws = sbt_tmpdir(false);
	struct sbp_compiled c = compile_ini("[filesystem]\nread = /opt/data\nwrite = .\n", ws);
	static const struct {
		const char *path;
		bool allow;
	} cases[] = {
		{"/opt/data/x", true}, {"/usr/lib/libc.so", true}, {"/etc/passwd", true},
		{"/dev/null", true}, {"/dev/pts/0", true}, {"/dev/sda", false}, {"/proc/filesystems", true},
		{"/home/u/notes", false}, {"/opt/other", false}, {"/proc/1/environ", false},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sbp_query q = {SBP_OP_READ, cases[i].path, strlen(cases[i].path), 4242, false};
		struct sbp_verdict v;
		sbp_decide(c.blob, &q, &v);
		ck_assert_msg(v.allow == cases[i].allow, "read %s", cases[i].path);
	}
	/* /proc/self is the caller's own /proc/<pid>. */
	struct sbp_query q = {SBP_OP_READ, "/proc/4242/status", 17, 4242, false};
	struct sbp_verdict v;
	sbp_decide(c.blob, &q, &v);
	ck_assert(v.allow);
	q.pid = 4243;
	sbp_decide(c.blob, &q, &v);
	ck_assert(!v.allow);
	/* The workspace (writable) is readable too. */
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/f", ws);
	struct sbp_query q2 = {SBP_OP_READ, p, strlen(p), 0, false};
	sbp_decide(c.blob, &q2, &v);
	ck_assert(v.allow);
	compiled_free(&c);
	tmpdir_free(ws);
}
END_TEST

/* --- config -------------------------------------------------------------- */

static const struct {
	const char *ini;
	const char *err; /* substring of the error; NULL = valid */
} config_cases[] = {
	{"[sandbox]\nmode = enforce\n", NULL},
	{"[sandbox]\nmode = strict\n", "t.ini:2: mode: 'strict' is not one of enforce, audit, off"},
	{"[sandbox]\nbogus = 1\n", "t.ini:2: unknown key 'bogus' in [sandbox]"},
	{"[nope]\nx = 1\n", "t.ini:2: unknown section [nope]"},
	{"[filesystem]\nwrite = /a/[b\n", "t.ini:2: write: invalid path or glob '/a/[b': unterminated"},
	{"[filesystem]\ndeny = /a/b**\n", "'**' must be a whole path component"},
	{"[filesystem]\ndeny = ~bob/x\n", "not '~user'"},
	{"[filesystem]\ndeny = /a/*/..\n", "'..' is not allowed in a glob"},
	{"[filesystem]\ndeny = /a/..b*\n", NULL},
	{"[filesystem]\nread = a,\n  b\n  \"c,d\"\n", NULL},
	{"[filesystem]\nwrite = \"unterminated\n", "unterminated quote"},
	{"[sandbox]\nmessages = loud\n", "t.ini:2: messages"},
	{"[path:x]\nmode = rw\n", "[path:x] has no root"},
	{"[path:x]\nroot = /srv\nmode = rwx\n", "t.ini:3: mode: 'rwx'"},
	{"[filesystem]\nprotect_git = maybe\n", "t.ini:2: protect_git"},
	{"just text\n", "t.ini:1: syntax error"},
	{"[sandbox\nmode = audit\n", "t.ini:1: syntax error"},
	{"[sandbox]\n\n\nmode = audit\nlog = /tmp/l.jsonl\n", NULL},
};

START_TEST(t_config_errors)
{
	struct sbp_config c;
	sbp_config_init(&c);
	int r = sbp_config_load_string(&c, config_cases[_i].ini, "t.ini");
	if (!config_cases[_i].err)
		ck_assert_msg(r == 0, "unexpected error: %s", c.err);
	else {
		ck_assert_int_eq(r, -1);
		ck_assert_msg(strstr(c.err, config_cases[_i].err), "error '%s' lacks '%s'", c.err,
			      config_cases[_i].err);
	}
	sbp_config_free(&c);
}
END_TEST

START_TEST(t_config_long_line)
{
	char ini[1024];
	char longpath[400];
	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[0] = '/';
	longpath[sizeof(longpath) - 1] = '\0';
	snprintf(ini, sizeof(ini), "[filesystem]\nread = %s\n", longpath);
	struct sbp_config c;
	sbp_config_init(&c);
	ck_assert_int_eq(sbp_config_load_string(&c, ini, "t.ini"), -1);
	ck_assert_msg(strstr(c.err, "t.ini:2: line longer than"), "%s", c.err);
	sbp_config_free(&c);
}
END_TEST

START_TEST(t_config_layers)
{
	/* default < file < env < command line; lists: a key replaces the lower
	 * layer's list, "+=" and continuation lines extend it. */
	struct sbp_config c;
	sbp_config_init(&c);
	ck_assert(sbp_config_load_string(&c, sbp_default_ini, "default") == 0);
	size_t ndeny = c.lists[SBP_L_DENY].n;
	ck_assert_uint_gt(ndeny, 20);
	ck_assert(sbp_config_load_string(&c, "[filesystem]\ndeny += /x\nwrite = /a,\n  /b\n", "f.ini") == 0);
	ck_assert_uint_eq(c.lists[SBP_L_DENY].n, ndeny + 1);
	ck_assert_uint_eq(c.lists[SBP_L_WRITE].n, 2);
	ck_assert_str_eq(c.lists[SBP_L_WRITE].v[1].text, "/b");
	ck_assert_str_eq(c.lists[SBP_L_WRITE].v[1].where, "f.ini:4");
	char *env[] = {"SBPRELOAD_MODE=audit", "SBPRELOAD_ALLOW_WRITE=/c:/d", NULL};
	ck_assert(sbp_config_load_env(&c, env) == 0);
	ck_assert_int_eq(c.mode, SBP_MODE_AUDIT);
	ck_assert_uint_eq(c.lists[SBP_L_WRITE].n, 4);
	ck_assert(sbp_config_set(&c, "sandbox", "mode", "enforce", "--mode", false) == 0);
	ck_assert_int_eq(c.mode, SBP_MODE_ENFORCE);
	char *bad[] = {"SBPRELOAD_MODE=loose", NULL};
	ck_assert(sbp_config_load_env(&c, bad) == -1);
	ck_assert_msg(strstr(c.err, "SBPRELOAD_MODE: mode: 'loose'"), "%s", c.err);
	sbp_config_free(&c);
}
END_TEST

START_TEST(t_config_root_never_writable)
{
	char *ws = sbt_tmpdir(false);
	struct sbp_config c;
	struct sbp_compiled out;
	sbp_config_init(&c);
	ck_assert(sbp_config_load_string(&c, "[filesystem]\nwrite = /\n", "t.ini") == 0);
	sbp_config_set(&c, "sandbox", "workspace", ws, "test", false);
	ck_assert_int_eq(sbp_config_compile(&c, NULL, &out), -1);
	ck_assert_msg(strstr(c.err, "t.ini:2: write: '/': the filesystem root is never writable"), "%s", c.err);
	sbp_config_free(&c);
	tmpdir_free(ws);
}
END_TEST

/* The printed effective policy reads back as the same policy. */
START_TEST(t_policy_round_trip)
{
	char *ws = sbt_tmpdir(false);
	struct sbp_compiled a = compile_ini(sbp_default_ini, ws);
	char *ini = sbp_policy_to_ini(a.blob);
	struct sbp_compiled b = compile_ini(ini, ws);
	char *ini2 = sbp_policy_to_ini(b.blob);
	ck_assert_str_eq(ini, ini2);
	ck_assert(strstr(ini, "deny = "));
	ck_assert(strstr(ini, "/etc/shadow"));
	free(ini);
	free(ini2);
	compiled_free(&a);
	compiled_free(&b);
	tmpdir_free(ws);
}
END_TEST

START_TEST(t_default_policy)
{
	char *ws = sbt_tmpdir(false);
	struct sbp_compiled c = compile_ini(sbp_default_ini, ws);
	const char *home = getenv("HOME");
	static const struct {
		enum sbp_op op;
		const char *rel; /* ~ = home, . = workspace */
		bool allow;
	} cases[] = {
		{SBP_OP_READ, "~/.ssh/id_ed25519", false}, {SBP_OP_READ, "~/.aws/credentials", false},
		{SBP_OP_READ, "~/.cargo/credentials.toml", false}, {SBP_OP_READ, "~/.bash_history", false},
		{SBP_OP_READ, "~/.config/gh/hosts.yml", false}, {SBP_OP_READ, "~/.netrc", false},
		{SBP_OP_READ, "./.env", false}, {SBP_OP_READ, "./sub/.env.local", false},
		{SBP_OP_READ, "/var/tmp/elsewhere/.env", false}, {SBP_OP_READ, "~/other/.env.production", false},
		{SBP_OP_READ, "./.env.example", true}, {SBP_OP_READ, "~/.bashrc", true},
		{SBP_OP_WRITE, "./src/main.c", true}, {SBP_OP_WRITE, "/tmp/x", true},
		{SBP_OP_WRITE, "~/.bashrc", false}, {SBP_OP_WRITE, "./.sbpreload.ini", false},
		{SBP_OP_WRITE, "./src/deep/.sbpreload.ini", false}, {SBP_OP_WRITE, "/tmp/x/.sbpreload.ini", false},
		{SBP_OP_READ, "/etc/shadow", false}, {SBP_OP_READ, "/etc/passwd", true},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char p[PATH_MAX];
		const char *r = cases[i].rel;
		if (r[0] == '~')
			snprintf(p, sizeof(p), "%s%s", home, r + 1);
		else if (r[0] == '.')
			snprintf(p, sizeof(p), "%s%s", c.workspace, r + 1);
		else
			snprintf(p, sizeof(p), "%s", r);
		struct sbp_query q = {cases[i].op, p, strlen(p), 0, false};
		struct sbp_verdict v;
		sbp_decide(c.blob, &q, &v);
		ck_assert_msg(v.allow == cases[i].allow, "%s %s: %s", sbp_op_name(cases[i].op), p,
			      sbp_reason_text(v.reason));
	}
	compiled_free(&c);
	tmpdir_free(ws);
}
END_TEST

START_TEST(t_git_protection)
{
	char *ws = sbt_tmpdir(false);
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/.git", ws);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	struct sbp_compiled c = compile_ini(sbp_default_ini, ws);
	static const struct {
		const char *rel;
		bool allow;
	} cases[] = {
		{"/.git/hooks/pre-commit", false}, {"/.git/config", false}, {"/.git/commondir", false},
		{"/.git/config.worktree", false},
		{"/.git/index", true}, {"/.git/objects/ab/cdef", true}, {"/.git/COMMIT_EDITMSG", true},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(p, sizeof(p), "%s%s", c.workspace, cases[i].rel);
		struct sbp_query q = {SBP_OP_WRITE, p, strlen(p), 0, false};
		struct sbp_verdict v;
		sbp_decide(c.blob, &q, &v);
		ck_assert_msg(v.allow == cases[i].allow, "write %s", p);
	}
	/* Renaming .git away (to write hooks and rename it back) is refused. */
	snprintf(p, sizeof(p), "%s/.git", c.workspace);
	struct sbp_query q = {SBP_OP_WRITE, p, strlen(p), 0, true};
	struct sbp_verdict v;
	sbp_decide(c.blob, &q, &v);
	ck_assert(!v.allow);
	compiled_free(&c);
	tmpdir_free(ws);
}
END_TEST

/* A config named relatively is protected where it is, not relative to a
 * workspace elsewhere; so is ./.sbpreload.ini of the current directory. */
START_TEST(t_config_files_protected)
{
	char *dir = sbt_tmpdir(false), *ws = sbt_tmpdir(false);
	char old[PATH_MAX], p[PATH_MAX * 2];
	ck_assert_ptr_nonnull(getcwd(old, sizeof(old)));
	ck_assert_int_eq(chdir(dir), 0);
	sbt_write("rel.ini", "[sandbox]\nmode = enforce\n");
	struct sbp_config c;
	struct sbp_compiled out;
	sbp_config_init(&c);
	ck_assert(sbp_config_load_file(&c, "rel.ini") == 0);
	sbp_config_set(&c, "sandbox", "workspace", ws, "test", false);
	ck_assert_msg(sbp_config_compile(&c, NULL, &out) == 0, "%s", c.err);
	const char *names[] = {"rel.ini", ".sbpreload.ini"};
	for (size_t i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		struct sbp_query q = {SBP_OP_WRITE, p, strlen(p), 0, false};
		struct sbp_verdict v;
		sbp_decide(out.blob, &q, &v);
		ck_assert_msg(!v.allow && v.reason == SBP_DENY_WRITE_RULE, "write %s: %s", p, sbp_reason_text(v.reason));
	}
	ck_assert_int_eq(chdir(old), 0);
	compiled_free(&out);
	sbp_config_free(&c);
	sbt_rmrf(dir);
	sbt_rmrf(ws);
	free(dir);
	free(ws);
}
END_TEST

/* --- messages and records ------------------------------------------------ */

START_TEST(t_messages)
{
	char *ws = sbt_tmpdir(false);
	struct sbp_compiled c = compile_ini("[filesystem]\nwrite = ., /tmp\ndeny = ~/.ssh\n", ws);
	char buf[2048], exp[2048];
	struct sbp_verdict v;

	struct sbp_query q = {SBP_OP_WRITE, "/etc/hosts", 10, 0, false};
	sbp_decide(c.blob, &q, &v);
	sbp_format_denial(buf, sizeof(buf), c.blob, &q, &v, "/etc/hosts", "/etc/hosts");
	snprintf(exp, sizeof(exp),
		 "sbpreload: denied write '/etc/hosts': outside the writable paths (writable: %s, /tmp)", c.workspace);
	ck_assert_str_eq(buf, exp);

	char key[PATH_MAX];
	snprintf(key, sizeof(key), "%s/.ssh/id_ed25519", getenv("HOME"));
	struct sbp_query q2 = {SBP_OP_READ, key, strlen(key), 0, false};
	sbp_decide(c.blob, &q2, &v);
	sbp_format_denial(buf, sizeof(buf), c.blob, &q2, &v, "k", key);
	snprintf(exp, sizeof(exp), "sbpreload: denied read 'k' (resolved '%s'): matches deny rule '~/.ssh'", key);
	ck_assert_str_eq(buf, exp);

	/* Entries directly in / */
	struct sbp_query q4 = {SBP_OP_WRITE, "/newdir", 7, 0, false};
	sbp_decide(c.blob, &q4, &v);
	sbp_format_denial(buf, sizeof(buf), c.blob, &q4, &v, "/newdir", "/newdir");
	ck_assert_str_eq(buf, "sbpreload: denied write '/newdir': entries directly in / are never writable");

	/* A hostile name cannot forge a second line. */
	struct sbp_query q3 = {SBP_OP_WRITE, "/etc/a\nsbpreload: allowed", 25, 0, false};
	sbp_decide(c.blob, &q3, &v);
	sbp_format_denial(buf, sizeof(buf), c.blob, &q3, &v, q3.path, q3.path);
	ck_assert_ptr_null(strchr(buf, '\n'));

	sbp_format_record(buf, sizeof(buf), c.blob, &q3, &v, "open", "/etc/a\nb\"c", q3.path, 1700000000123LL, 42,
			  "/bin/sh");
	ck_assert_ptr_null(strchr(buf, '\n'));
	ck_assert(strstr(buf, "\"ts\":1700000000.123"));
	ck_assert(strstr(buf, "\"pid\":42"));
	ck_assert(strstr(buf, "\"exe\":\"/bin/sh\""));
	ck_assert(strstr(buf, "\"op\":\"write\""));
	ck_assert(strstr(buf, "\"call\":\"open\""));
	ck_assert(strstr(buf, "\"target\":\"/etc/a\\nb\\\"c\""));
	ck_assert(strstr(buf, "\"decision\":\"deny\""));
	ck_assert(strstr(buf, "\"reason\":\"outside the writable paths"));
	ck_assert(strstr(buf, "\"rule\":null"));
	compiled_free(&c);
	tmpdir_free(ws);
}
END_TEST

START_TEST(t_blob_transport)
{
	char *ws = sbt_tmpdir(false);
	struct sbp_compiled c = compile_ini(sbp_default_ini, ws);
	char *enc = sbp_blob_encode(c.blob, c.size);
	size_t size;
	void *dec = sbp_blob_decode(enc, &size);
	ck_assert_ptr_nonnull(dec);
	ck_assert_uint_eq(size, c.size);
	ck_assert(memcmp(dec, c.blob, size) == 0);
	ck_assert(sbp_policy_valid(dec, size));
	/* Damaged blobs are refused, never half-used. */
	ck_assert(!sbp_policy_valid(dec, size - 1));
	((struct sbp_policy *)dec)->rules[0].pat = 0xffffff;
	ck_assert(!sbp_policy_valid(dec, size));
	ck_assert_ptr_null(sbp_blob_decode("abc", &size));
	ck_assert_ptr_null(sbp_blob_decode("ab!d", &size));
	free(dec);
	free(enc);
	compiled_free(&c);
	tmpdir_free(ws);
}
END_TEST

START_TEST(t_workspace_auto)
{
	char *ws = sbt_tmpdir(false);
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/pyproject.toml", ws);
	sbt_write(p, "");
	snprintf(p, sizeof(p), "%s/a/b", ws);
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "mkdir -p %s", p);
	ck_assert_int_eq(system(cmd), 0);
	char *found = sbp_workspace_auto(p);
	ck_assert_str_eq(found, ws);
	free(found);
	tmpdir_free(ws);
}
END_TEST

/* Every shipped config loads and compiles. */
START_TEST(t_shipped_configs)
{
	glob_t g;
	ck_assert_int_eq(glob("conf/*.ini", 0, NULL, &g), 0);
	ck_assert_int_eq(glob("conf/examples/*.ini", GLOB_APPEND, NULL, &g), 0);
	ck_assert_uint_ge(g.gl_pathc, 5);
	char *ws = sbt_tmpdir(false);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct sbp_config c;
		struct sbp_compiled out;
		sbp_config_init(&c);
		ck_assert_msg(sbp_config_load_string(&c, sbp_default_ini, "default") == 0, "%s", c.err);
		ck_assert_msg(sbp_config_load_file(&c, g.gl_pathv[i]) == 0, "%s", c.err);
		sbp_config_set(&c, "sandbox", "workspace", ws, "test", false);
		ck_assert_msg(sbp_config_compile(&c, NULL, &out) == 0, "%s: %s", g.gl_pathv[i], c.err);
		free(out.blob);
		free(out.workspace);
		sbp_config_free(&c);
	}
	/* conf/default.ini is the built-in default, byte for byte. */
	char *text = sbt_read("conf/default.ini");
	ck_assert_ptr_nonnull(text);
	ck_assert_str_eq(text, sbp_default_ini);
	free(text);
	globfree(&g);
	tmpdir_free(ws);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("unit");
	TCase *tc = tcase_create("core");
#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))
	tcase_add_loop_test(tc, t_glob_match, 0, N(glob_cases));
	tcase_add_loop_test(tc, t_glob_check, 0, N(glob_check_cases));
	tcase_add_loop_test(tc, t_glob_beneath, 0, N(beneath_cases));
	tcase_add_loop_test(tc, t_path_normalize, 0, N(path_cases));
	tcase_add_test(tc, t_path_too_long);
	tcase_add_test(tc, t_path_is_normal);
	tcase_add_loop_test(tc, t_decide, 0, N(decide_cases));
	tcase_add_test(tc, t_move_crosses);
	tcase_add_test(tc, t_decide_audit_and_off);
	tcase_add_test(tc, t_read_restricted);
	tcase_add_loop_test(tc, t_config_errors, 0, N(config_cases));
	tcase_add_test(tc, t_config_long_line);
	tcase_add_test(tc, t_config_layers);
	tcase_add_test(tc, t_config_root_never_writable);
	tcase_add_test(tc, t_policy_round_trip);
	tcase_add_test(tc, t_default_policy);
	tcase_add_test(tc, t_git_protection);
	tcase_add_test(tc, t_config_files_protected);
	tcase_add_test(tc, t_messages);
	tcase_add_test(tc, t_blob_transport);
	tcase_add_test(tc, t_workspace_auto);
	tcase_add_test(tc, t_shipped_configs);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return sbt_run_suite(suite());
}
