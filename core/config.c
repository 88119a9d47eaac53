#include "config.h"

#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "globmatch.h"
#include "path.h"

const char sbp_list_keys[SBP_L_COUNT][12] = {"read", "write", "deny", "deny_write"};

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q) {
		fputs("sbpreload: out of memory\n", stderr);
		_exit(125);
	}
	return q;
}

static char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(xrealloc(NULL, n), s, n);
}

static int fail(struct sbp_config *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct sbp_config *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
	return -1;
}

static void list_add(struct sbp_list *l, const char *text, const char *where)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 8;
		l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n].text = xstrdup(text);
	l->v[l->n].where = xstrdup(where);
	l->n++;
}

static void list_clear(struct sbp_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].text);
		free(l->v[i].where);
	}
	l->n = 0;
}

void sbp_config_init(struct sbp_config *c)
{
	memset(c, 0, sizeof(*c));
	c->mode = SBP_MODE_ENFORCE;
	c->protect_git = true;
}

void sbp_config_free(struct sbp_config *c)
{
	for (int i = 0; i < SBP_L_COUNT; i++) {
		list_clear(&c->lists[i]);
		free(c->lists[i].v);
	}
	list_clear(&c->files);
	free(c->files.v);
	for (size_t i = 0; i < c->nroots; i++) {
		free(c->roots[i].name);
		free(c->roots[i].root.text);
		free(c->roots[i].root.where);
		free(c->roots[i].where);
	}
	free(c->roots);
	free(c->workspace);
	free(c->log);
	memset(c, 0, sizeof(*c));
}

/* --- values -------------------------------------------------------------- */

static int parse_bool(const char *v, bool *out)
{
	if (!strcasecmp(v, "true") || !strcasecmp(v, "yes") || !strcmp(v, "1") || !strcasecmp(v, "on"))
		*out = true;
	else if (!strcasecmp(v, "false") || !strcasecmp(v, "no") || !strcmp(v, "0") || !strcasecmp(v, "off"))
		*out = false;
	else
		return -1;
	return 0;
}

/* Check one list entry (a path or glob) as written. */
static const char *check_entry(const char *e)
{
	if (!*e)
		return "empty path";
	if (e[0] == '~' && e[1] && e[1] != '/')
		return "only '~' and '~/...' are understood (not '~user')";
	const char *why = sbp_glob_check(e);
	if (why)
		return why;
	size_t n = strlen(e);
	bool dotdot = strstr(e, "/../") || !strncmp(e, "../", 3) || !strcmp(e, "..") ||
		      (n >= 3 && !strcmp(e + n - 3, "/.."));
	if (sbp_glob_is_glob(e) && dotdot)
		return "'..' is not allowed in a glob";
	return NULL;
}

/* Split a list value at commas (an entry may be "quoted" to hold commas)
 * and add each entry. */
static int add_entries(struct sbp_config *c, struct sbp_list *l, const char *key, const char *value,
		       const char *where)
{
	const char *p = value;

	while (*p) {
		char entry[PATH_MAX];
		size_t n = 0;

		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		if (!*p)
			break;
		if (*p == '"') {
			const char *e = strchr(p + 1, '"');
			if (!e)
				return fail(c, "%s: %s: unterminated quote in '%s'", where, key, value);
			n = (size_t)(e - p - 1);
			if (n >= sizeof(entry))
				return fail(c, "%s: %s: path too long", where, key);
			memcpy(entry, p + 1, n);
			p = e + 1;
			while (*p == ' ' || *p == '\t')
				p++;
			if (*p && *p != ',')
				return fail(c, "%s: %s: expected ',' after a quoted entry in '%s'", where, key, value);
		} else {
			const char *e = strchr(p, ',');
			if (!e)
				e = p + strlen(p);
			n = (size_t)(e - p);
			while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
				n--;
			if (n >= sizeof(entry))
				return fail(c, "%s: %s: path too long", where, key);
			memcpy(entry, p, n);
			p = e;
		}
		entry[n] = '\0';
		const char *why = check_entry(entry);
		if (why)
			return fail(c, "%s: %s: invalid path or glob '%s': %s", where, key, entry, why);
		list_add(l, entry, where);
	}
	return 0;
}

static struct sbp_root *find_root(struct sbp_config *c, const char *name, bool create)
{
	for (size_t i = 0; i < c->nroots; i++)
		if (!strcmp(c->roots[i].name, name))
			return &c->roots[i];
	if (!create)
		return NULL;
	c->roots = xrealloc(c->roots, (c->nroots + 1) * sizeof(*c->roots));
	struct sbp_root *r = &c->roots[c->nroots++];
	memset(r, 0, sizeof(*r));
	r->name = xstrdup(name);
	r->mode = -1;
	return r;
}

static int set_mode(struct sbp_config *c, const char *v, const char *where)
{
	if (!strcmp(v, "enforce"))
		c->mode = SBP_MODE_ENFORCE;
	else if (!strcmp(v, "audit"))
		c->mode = SBP_MODE_AUDIT;
	else if (!strcmp(v, "off"))
		c->mode = SBP_MODE_OFF;
	else
		return fail(c, "%s: mode: '%s' is not one of enforce, audit, off", where, v);
	return 0;
}

int sbp_config_set(struct sbp_config *c, const char *section, const char *key, const char *value,
		   const char *where, bool append)
{
	if (!strcmp(section, "sandbox")) {
		if (!strcmp(key, "workspace")) {
			if (!*value)
				return fail(c, "%s: workspace: empty value", where);
			free(c->workspace);
			c->workspace = xstrdup(value);
		} else if (!strcmp(key, "mode")) {
			return set_mode(c, value, where);
		} else if (!strcmp(key, "log")) {
			free(c->log);
			c->log = *value ? xstrdup(value) : NULL;
		} else if (!strcmp(key, "messages")) {
			if (!strcmp(value, "stderr"))
				c->quiet = false;
			else if (!strcmp(value, "none"))
				c->quiet = true;
			else
				return fail(c, "%s: messages: '%s' is not one of stderr, none", where, value);
		} else {
			return fail(c, "%s: unknown key '%s' in [sandbox]", where, key);
		}
		return 0;
	}
	if (!strcmp(section, "filesystem")) {
		if (!strcmp(key, "protect_git")) {
			if (parse_bool(value, &c->protect_git) < 0)
				return fail(c, "%s: protect_git: '%s' is not true or false", where, value);
			return 0;
		}
		for (int i = 0; i < SBP_L_COUNT; i++) {
			if (strcmp(key, sbp_list_keys[i]) != 0)
				continue;
			if (!append)
				list_clear(&c->lists[i]);
			return add_entries(c, &c->lists[i], key, value, where);
		}
		return fail(c, "%s: unknown key '%s' in [filesystem]", where, key);
	}
	if (!strncmp(section, "path:", 5)) {
		const char *name = section + 5;
		if (!*name)
			return fail(c, "%s: [path:NAME] needs a name", where);
		struct sbp_root *r = find_root(c, name, true);
		free(r->where);
		r->where = xstrdup(where);
		if (!strcmp(key, "root")) {
			const char *why = check_entry(value);
			if (why)
				return fail(c, "%s: root: invalid path '%s': %s", where, value, why);
			free(r->root.text);
			free(r->root.where);
			r->root.text = xstrdup(value);
			r->root.where = xstrdup(where);
		} else if (!strcmp(key, "mode")) {
			if (!strcmp(value, "rw"))
				r->mode = SBP_ROOT_RW;
			else if (!strcmp(value, "ro"))
				r->mode = SBP_ROOT_RO;
			else if (!strcmp(value, "none"))
				r->mode = SBP_ROOT_NONE;
			else
				return fail(c, "%s: mode: '%s' is not one of rw, ro, none", where, value);
		} else {
			return fail(c, "%s: unknown key '%s' in [%s]", where, key, section);
		}
		return 0;
	}
	return fail(c, "%s: unknown section [%s]", where, section);
}

/* --- INI files ----------------------------------------------------------- */

struct ini_state {
	struct sbp_config *c;
	const char *name;
	const char *text; /* string source, or NULL */
	FILE *f;          /* file source */
	int line;
	int fail_line; /* line of the first error the handler found */
	bool too_long;
	int too_long_line;
	char last_key[64]; /* "section\nkey" of the previous handler call */
	bool seen[SBP_L_COUNT];
	int failed;
};

/* inih reads through this so that we know the line number (Debian's inih is
 * built without INI_HANDLER_LINENO) and can refuse over-long lines instead
 * of letting inih split them (it caps a line at INI_MAX_LINE bytes). */
static char *line_reader(char *str, int num, void *stream)
{
	struct ini_state *st = stream;
	int n = 0;
	int ch;

	for (;;) {
		if (st->text)
			ch = *st->text ? (unsigned char)*st->text++ : EOF;
		else
			ch = fgetc(st->f);
		if (ch == EOF)
			break;
		if (n < num - 1)
			str[n++] = (char)ch;
		else if (!st->too_long) {
			st->too_long = true;
			st->too_long_line = st->line + 1;
		}
		if (ch == '\n')
			break;
	}
	if (n == 0 && ch == EOF)
		return NULL;
	st->line++;
	str[n] = '\0';
	return str;
}

static int on_entry(void *user, const char *section, const char *name, const char *value)
{
	struct ini_state *st = user;
	char where[PATH_MAX + 32];
	char key[64];
	bool append = false;

	if (st->failed)
		return 0;
	snprintf(where, sizeof(where), "%s:%d", st->name, st->line);
	snprintf(key, sizeof(key), "%s", name);
	size_t kl = strlen(key);
	if (kl && key[kl - 1] == '+') {
		append = true;
		key[--kl] = '\0';
		while (kl && (key[kl - 1] == ' ' || key[kl - 1] == '\t'))
			key[--kl] = '\0';
	}
	/* A continuation line repeats the previous key: it extends the list. */
	char full[sizeof(st->last_key)];
	snprintf(full, sizeof(full), "%s\n%s", section, key);
	bool continued = !strcmp(full, st->last_key);
	snprintf(st->last_key, sizeof(st->last_key), "%s", full);
	if (!strcmp(section, "filesystem")) {
		for (int i = 0; i < SBP_L_COUNT; i++) {
			if (strcmp(key, sbp_list_keys[i]) != 0)
				continue;
			/* The first mention in a file replaces the lower layer's
			 * list, every later one (and "+=") extends it. */
			if (st->seen[i] || continued)
				append = true;
			st->seen[i] = true;
		}
	}
	if (sbp_config_set(st->c, section, key, value, where, append) < 0) {
		st->failed = 1;
		st->fail_line = st->line;
		return 0;
	}
	return 1;
}

static int load_stream(struct sbp_config *c, struct ini_state *st)
{
	int rc = ini_parse_stream(line_reader, st, on_entry, st);

	/* A syntax error earlier in the file (a broken "[section") explains
	 * what the handler saw after it. */
	if (rc > 0 && (!st->failed || rc < st->fail_line))
		return fail(c, "%s:%d: syntax error (expected [section] or key = value)", st->name, rc);
	if (st->failed)
		return -1;
	if (st->too_long)
		return fail(c, "%s:%d: line longer than %d bytes: continue the list on the next line", st->name,
			    st->too_long_line, INI_MAX_LINE - 1);
	if (rc < 0)
		return fail(c, "%s: cannot read", st->name);
	for (size_t i = 0; i < c->nroots; i++) {
		struct sbp_root *r = &c->roots[i];
		if (!r->root.text)
			return fail(c, "%s: [path:%s] has no root", r->where, r->name);
		if (r->mode < 0)
			r->mode = SBP_ROOT_RW;
	}
	return 0;
}

int sbp_config_load_string(struct sbp_config *c, const char *text, const char *name)
{
	struct ini_state st = {.c = c, .name = name, .text = text};
	return load_stream(c, &st);
}

int sbp_config_load_file(struct sbp_config *c, const char *path)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return fail(c, "%s: cannot open config: %s", path, strerror(errno));
	struct ini_state st = {.c = c, .name = path, .f = f};
	int rc = load_stream(c, &st);
	fclose(f);
	/* Remembered as a real path: it is protected wherever the workspace
	 * is, and through whatever symlink it was named. */
	char real[PATH_MAX];
	if (rc == 0)
		list_add(&c->files, realpath(path, real) ? real : path, path);
	return rc;
}

static int env_list(struct sbp_config *c, char *const *envp, const char *var, const char *key)
{
	size_t vl = strlen(var);

	for (char *const *e = envp; *e; e++) {
		if (strncmp(*e, var, vl) != 0 || (*e)[vl] != '=')
			continue;
		/* Colon-separated, like PATH. */
		char *copy = xstrdup(*e + vl + 1);
		for (char *tok = strtok(copy, ":"); tok; tok = strtok(NULL, ":")) {
			if (sbp_config_set(c, "filesystem", key, tok, var, true) < 0) {
				free(copy);
				return -1;
			}
		}
		free(copy);
	}
	return 0;
}

int sbp_config_load_env(struct sbp_config *c, char *const *envp)
{
	static const struct {
		const char *var, *key;
	} scalars[] = {
		{"SBPRELOAD_WORKSPACE", "workspace"},
		{"SBPRELOAD_MODE", "mode"},
		{"SBPRELOAD_LOG", "log"},
		{"SBPRELOAD_MESSAGES", "messages"},
	};
	static const struct {
		const char *var, *key;
	} lists[] = {
		{"SBPRELOAD_ALLOW_WRITE", "write"},
		{"SBPRELOAD_ALLOW_READ", "read"},
		{"SBPRELOAD_DENY", "deny"},
		{"SBPRELOAD_DENY_WRITE", "deny_write"},
	};

	for (size_t i = 0; i < sizeof(scalars) / sizeof(scalars[0]); i++) {
		size_t vl = strlen(scalars[i].var);
		for (char *const *e = envp; *e; e++)
			if (!strncmp(*e, scalars[i].var, vl) && (*e)[vl] == '=' &&
			    sbp_config_set(c, "sandbox", scalars[i].key, *e + vl + 1, scalars[i].var, false) < 0)
				return -1;
	}
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		if (env_list(c, envp, lists[i].var, lists[i].key) < 0)
			return -1;
	return 0;
}

const char *sbp_config_pick_file(const char *explicit_path)
{
	if (explicit_path)
		return explicit_path;
	const char *env = getenv("SBPRELOAD_CONFIG");
	if (env && *env)
		return env;
	if (access(".sbpreload.ini", F_OK) == 0)
		return ".sbpreload.ini";
	return NULL;
}

/* --- compiling ----------------------------------------------------------- */

char *sbp_workspace_auto(const char *start)
{
	static const char *const markers[] = {".git", "pyproject.toml", "package.json", "Cargo.toml",
					      "go.mod", "Makefile"};
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", start);
	for (;;) {
		for (size_t i = 0; i < sizeof(markers) / sizeof(markers[0]); i++) {
			char probe[PATH_MAX + 32];
			snprintf(probe, sizeof(probe), "%s/%s", strcmp(dir, "/") ? dir : "", markers[i]);
			if (access(probe, F_OK) == 0)
				return xstrdup(dir);
		}
		char *slash = strrchr(dir, '/');
		if (!slash || slash == dir)
			break;
		*slash = '\0';
	}
	return xstrdup(start);
}

struct builder {
	struct sbp_rule *rules;
	size_t nrules, cap;
	char *pool;
	size_t plen, pcap;
};

static uint32_t pool_add(struct builder *b, const char *s)
{
	size_t n = strlen(s) + 1;
	if (b->plen + n > b->pcap) {
		b->pcap = (b->plen + n) * 2;
		b->pool = xrealloc(b->pool, b->pcap);
	}
	if (b->plen == 0)
		b->pool[b->plen++] = '\0'; /* offset 0 means "none" */
	memcpy(b->pool + b->plen, s, n);
	b->plen += n;
	return (uint32_t)(b->plen - n);
}

static void add_rule(struct builder *b, int kind, int root_mode, const char *pat, const char *src,
		     const char *name, int flags)
{
	for (size_t i = 0; i < b->nrules; i++) {
		struct sbp_rule *r = &b->rules[i];
		if (r->kind == kind && r->root_mode == root_mode && !strcmp(b->pool + r->pat, pat))
			return; /* same rule twice (a path and its canonical form) */
	}
	if (b->nrules == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 32;
		b->rules = xrealloc(b->rules, b->cap * sizeof(*b->rules));
	}
	struct sbp_rule *r = &b->rules[b->nrules++];
	memset(r, 0, sizeof(*r));
	r->kind = (uint8_t)kind;
	r->root_mode = (uint8_t)root_mode;
	r->flags = (uint8_t)flags;
	if (sbp_glob_is_glob(pat))
		r->flags |= SBP_RF_GLOB;
	r->pat = pool_add(b, pat);
	r->len = (uint32_t)strlen(pat);
	r->lit = (uint32_t)sbp_glob_literal_prefix(pat);
	r->src = pool_add(b, src);
	r->name = name ? pool_add(b, name) : 0;
}

/* Escape glob metacharacters of a base path joined in front of a glob. */
static void glob_escape(const char *in, char *out, size_t size)
{
	size_t n = 0;
	for (; *in && n + 2 < size; in++) {
		if (strchr("*?[\\", *in))
			out[n++] = '\\';
		out[n++] = *in;
	}
	out[n] = '\0';
}

static const char *home_dir(void)
{
	const char *h = getenv("HOME");
	if (h && h[0] == '/')
		return h;
	struct passwd *pw = getpwuid(getuid());
	return pw && pw->pw_dir ? pw->pw_dir : "/";
}

/* Canonicalise the literal prefix of PAT (absolute, normalised) through the
 * symlinks that exist now: the shim judges resolved paths, so a rule written
 * through /lib or a symlinked home must also be stated in resolved form. */
static void canonical(const char *pat, char *out, size_t size)
{
	size_t lit = sbp_glob_literal_prefix(pat);
	char head[PATH_MAX];

	snprintf(out, size, "%s", pat);
	if (lit == 0 || lit >= sizeof(head))
		return;
	memcpy(head, pat, lit);
	head[lit] = '\0';
	/* Longest existing ancestor of the literal part. */
	size_t cut = lit;
	for (;;) {
		char real[PATH_MAX];
		head[cut] = '\0';
		if (realpath(head[0] ? head : "/", real)) {
			char esc[PATH_MAX * 2];
			if (lit < strlen(pat))
				glob_escape(real, esc, sizeof(esc));
			else
				snprintf(esc, sizeof(esc), "%s", real);
			snprintf(out, size, "%s%s", strcmp(esc, "/") ? esc : "", pat + cut);
			if (!out[0])
				snprintf(out, size, "/");
			return;
		}
		while (cut > 0 && head[cut - 1] != '/')
			cut--;
		if (cut <= 1)
			return;
		cut--;
	}
}

/* Expand an entry as written into an absolute, normalised pattern. */
static int expand(struct sbp_config *c, const struct sbp_item *it, const char *ws, char *out,
		  size_t size)
{
	char joined[PATH_MAX * 2], esc[PATH_MAX * 2];
	const char *e = it->text;
	bool glob = sbp_glob_is_glob(e);
	const char *base = ws;
	unsigned flags;

	if (e[0] == '~') {
		base = home_dir();
		e += e[1] == '/' ? 2 : 1;
	} else if (e[0] == '/') {
		base = "";
	}
	if (glob)
		glob_escape(base, esc, sizeof(esc));
	else
		snprintf(esc, sizeof(esc), "%s", base);
	snprintf(joined, sizeof(joined), "%s/%s", esc, e);
	if (sbp_path_normalize(NULL, joined, out, size, &flags) < 0)
		return fail(c, "%s: path too long: '%s'", it->where, it->text);
	return 0;
}

static void add_expanded(struct builder *b, int kind, int root_mode, const char *pat, const char *src,
			 const char *name, int flags)
{
	char canon[PATH_MAX * 2];

	add_rule(b, kind, root_mode, pat, src, name, flags);
	canonical(pat, canon, sizeof(canon));
	if (strcmp(canon, pat) != 0)
		add_rule(b, kind, root_mode, canon, src, name, flags);
}

/* What every program needs, whatever the policy says. */
static const char *const implicit_write[] = {
	"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/pts", "/dev/random",
	"/dev/urandom", "/dev/shm",
};
static const char *const implicit_read[] = {
	"/usr", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/proc/self",
	"/proc/filesystems", "/proc/cpuinfo", "/proc/meminfo", "/proc/stat", "/proc/loadavg",
	"/proc/uptime", "/proc/version", "/proc/sys/kernel", "/proc/sys/vm/overcommit_memory",
	"/sys/devices/system/cpu", "/sys/fs/cgroup",
	/* Devices one by one: /dev as a whole would include raw disks. */
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx",
	"/dev/pts", "/dev/shm", "/dev/fd", "/dev/stdin", "/dev/stdout", "/dev/stderr",
};

/* When the workspace is a git repository now, its hooks and config run code
 * outside the sandbox later: keep them read-only. */
static void protect_git(struct builder *b, const char *ws)
{
	char gitdir[PATH_MAX + 8], buf[PATH_MAX + 64];
	struct stat st;

	snprintf(gitdir, sizeof(gitdir), "%s/.git", strcmp(ws, "/") ? ws : "");
	if (lstat(gitdir, &st) < 0)
		return;
	if (S_ISREG(st.st_mode)) {
		/* A worktree or submodule: ".git" names the real directory. */
		FILE *f = fopen(gitdir, "re");
		char line[PATH_MAX + 16];
		if (!f)
			return;
		if (fgets(line, sizeof(line), f) && !strncmp(line, "gitdir: ", 8)) {
			line[strcspn(line, "\n")] = '\0';
			unsigned fl;
			sbp_path_normalize(ws, line + 8, gitdir, sizeof(gitdir), &fl);
		}
		fclose(f);
	}
	/* commondir would point git at another hooks and config; a worktree
	 * config is read like config. */
	static const char *const protected[] = {"hooks", "config", "commondir", "config.worktree"};
	for (size_t i = 0; i < sizeof(protected) / sizeof(protected[0]); i++) {
		snprintf(buf, sizeof(buf), "%s/%s", gitdir, protected[i]);
		add_expanded(b, SBP_RULE_DENY_WRITE, 0, buf, buf, NULL, SBP_RF_IMPLICIT);
	}
	/* A worktree shares hooks and config with its main repository. */
	snprintf(buf, sizeof(buf), "%s/commondir", gitdir);
	FILE *f = fopen(buf, "re");
	if (f) {
		char line[PATH_MAX];
		if (fgets(line, sizeof(line), f)) {
			char common[PATH_MAX];
			unsigned fl;
			line[strcspn(line, "\n")] = '\0';
			if (sbp_path_normalize(gitdir, line, common, sizeof(common), &fl) > 0)
				for (size_t i = 0; i < sizeof(protected) / sizeof(protected[0]); i++) {
					snprintf(buf, sizeof(buf), "%s/%s", common, protected[i]);
					add_expanded(b, SBP_RULE_DENY_WRITE, 0, buf, buf, NULL, SBP_RF_IMPLICIT);
				}
		}
		fclose(f);
	}
}

static int resolve_workspace(struct sbp_config *c, char **out)
{
	char cwd[PATH_MAX], real[PATH_MAX];

	if (!getcwd(cwd, sizeof(cwd)))
		return fail(c, "cannot determine the current directory: %s", strerror(errno));
	const char *w = c->workspace;
	if (!w || !strcmp(w, "."))
		w = cwd;
	if (!strcmp(w, "auto")) {
		char *a = sbp_workspace_auto(cwd);
		snprintf(real, sizeof(real), "%s", a);
		free(a);
		*out = xstrdup(real);
		return 0;
	}
	char expanded[PATH_MAX * 2];
	if (w[0] == '~') {
		snprintf(expanded, sizeof(expanded), "%s/%s", home_dir(), w[1] ? w + 2 : "");
		w = expanded;
	}
	if (!realpath(w, real))
		return fail(c, "workspace '%s': %s", w, strerror(errno));
	struct stat st;
	if (stat(real, &st) < 0 || !S_ISDIR(st.st_mode))
		return fail(c, "workspace '%s': not a directory", w);
	*out = xstrdup(real);
	return 0;
}

/* Decide how sbp_decide() finds RULE (see enum sbp_match). */
static void classify(struct sbp_rule *r, const char *pat)
{
	/* TAIL: what follows "P/ ** /", when the pattern has that form. */
	const char *tail = (r->flags & SBP_RF_GLOB) && !strncmp(pat + r->lit, "/**/", 4) ? pat + r->lit + 4 : "";

	if (*tail && !strchr(tail, '/') && strcmp(tail, "**") != 0)
		r->flags |= SBP_RF_NAME_LIKE;
	if (r->flags & SBP_RF_PROCSELF) {
		r->match = SBP_M_PROCSELF;
	} else if (!(r->flags & SBP_RF_GLOB)) {
		r->match = SBP_M_LITERAL;
		r->key = r->len;
	} else if (*tail && !strpbrk(tail, "/*?[\\")) {
		r->match = SBP_M_NAME; /* P/ ** /NAME: the common "**" rule */
		r->key = r->lit + 4;
	} else {
		r->match = SBP_M_ANCHORED;
		r->key = r->lit ? r->lit : 1;
	}
}

/* The table key of a path prefix S[0..N): see sbp_hash_fold(). */
static uint32_t hash_prefix(const char *s, size_t n)
{
	uint64_t h = SBP_HASH_ROOT;
	size_t start = 1;

	while (start < n) {
		const char *slash = memchr(s + start, '/', n - start);
		size_t end = slash ? (size_t)(slash - s) : n;
		h = sbp_hash_fold(h, sbp_hash_component(s + start, end - start));
		start = end + 1;
	}
	return (uint32_t)h;
}

/* At most half full, so that lookups stop at an empty slot soon. */
static uint32_t table_mask(size_t entries)
{
	uint32_t n = 16;
	while (n < 2 * entries)
		n *= 2;
	return n - 1;
}

static void table_add(struct sbp_slot *t, uint32_t mask, uint32_t h, size_t rule)
{
	uint32_t i = h & mask;
	while (t[i].rule)
		i = (i + 1) & mask;
	t[i].hash = h;
	t[i].rule = (uint32_t)rule + 1;
}

int sbp_config_compile(struct sbp_config *c, const char *log_socket, struct sbp_compiled *out)
{
	struct builder b = {0};
	char pat[PATH_MAX * 2];
	char *ws = NULL;

	memset(out, 0, sizeof(*out));
	if (resolve_workspace(c, &ws) < 0)
		return -1;
	pool_add(&b, ""); /* reserve offset 0 */

	static const int kinds[SBP_L_COUNT] = {SBP_RULE_READ, SBP_RULE_WRITE, SBP_RULE_DENY,
					       SBP_RULE_DENY_WRITE};
	for (int l = 0; l < SBP_L_COUNT; l++) {
		for (size_t i = 0; i < c->lists[l].n; i++) {
			const struct sbp_item *it = &c->lists[l].v[i];
			if (expand(c, it, ws, pat, sizeof(pat)) < 0)
				goto error;
			if (l == SBP_L_WRITE && (!strcmp(pat, "/") || !strcmp(pat, "/**"))) {
				fail(c, "%s: write: '%s': the filesystem root is never writable", it->where, it->text);
				goto error;
			}
			add_expanded(&b, kinds[l], 0, pat, it->text, NULL, 0);
		}
	}
	for (size_t i = 0; i < c->nroots; i++) {
		const struct sbp_root *r = &c->roots[i];
		if (expand(c, &r->root, ws, pat, sizeof(pat)) < 0)
			goto error;
		if (r->mode == SBP_ROOT_RW && !strcmp(pat, "/")) {
			fail(c, "%s: [path:%s]: the filesystem root is never writable", r->root.where, r->name);
			goto error;
		}
		add_expanded(&b, SBP_RULE_ROOT, r->mode, pat, r->root.text, r->name, 0);
	}
	for (size_t i = 0; i < sizeof(implicit_write) / sizeof(implicit_write[0]); i++)
		add_rule(&b, SBP_RULE_WRITE, 0, implicit_write[i], implicit_write[i], NULL, SBP_RF_IMPLICIT);
	bool restricted = c->lists[SBP_L_READ].n > 0;
	if (restricted)
		for (size_t i = 0; i < sizeof(implicit_read) / sizeof(implicit_read[0]); i++)
			add_rule(&b, SBP_RULE_READ, 0, implicit_read[i], implicit_read[i], NULL,
				 SBP_RF_IMPLICIT | (!strcmp(implicit_read[i], "/proc/self") ? SBP_RF_PROCSELF : 0));
	/* The policy in use is never writable from inside, nor is the file a
	 * later session would read as its policy. */
	for (size_t i = 0; i < c->files.n; i++) {
		unsigned fl;
		if (sbp_path_normalize(ws, c->files.v[i].text, pat, sizeof(pat), &fl) > 0)
			add_expanded(&b, SBP_RULE_DENY_WRITE, 0, pat, pat, NULL, SBP_RF_IMPLICIT);
	}
	char cwd[PATH_MAX];
	const char *dirs[] = {ws, getcwd(cwd, sizeof(cwd))};
	for (size_t i = 0; i < 2; i++) {
		if (!dirs[i])
			continue;
		snprintf(pat, sizeof(pat), "%s/.sbpreload.ini", strcmp(dirs[i], "/") ? dirs[i] : "");
		add_expanded(&b, SBP_RULE_DENY_WRITE, 0, pat, pat, NULL, SBP_RF_IMPLICIT);
	}
	/* ...nor in any directory a later session may start in. */
	add_rule(&b, SBP_RULE_DENY_WRITE, 0, "/**/.sbpreload.ini", "/**/.sbpreload.ini", NULL, SBP_RF_IMPLICIT);
	if (c->log) {
		unsigned fl;
		if (sbp_path_normalize(ws, c->log, pat, sizeof(pat), &fl) > 0)
			add_expanded(&b, SBP_RULE_DENY, 0, pat, pat, NULL, SBP_RF_IMPLICIT);
	}
	if (c->protect_git)
		protect_git(&b, ws);

	uint32_t ws_off = pool_add(&b, ws);
	uint32_t log_off = 0;
	if (c->log) {
		unsigned fl;
		if (sbp_path_normalize(ws, c->log, pat, sizeof(pat), &fl) < 0) {
			fail(c, "log: path too long");
			goto error;
		}
		log_off = pool_add(&b, pat);
	}
	uint32_t sock_off = log_socket ? pool_add(&b, log_socket) : 0;

	size_t nprefix = 0, nname = 0;
	uint32_t nprocself = 0;
	for (size_t i = 0; i < b.nrules; i++) {
		classify(&b.rules[i], b.pool + b.rules[i].pat);
		nprefix += b.rules[i].match == SBP_M_LITERAL || b.rules[i].match == SBP_M_ANCHORED;
		nname += b.rules[i].match == SBP_M_NAME;
		nprocself += b.rules[i].match == SBP_M_PROCSELF;
	}
	uint32_t pmask = table_mask(nprefix), nmask = table_mask(nname);
	size_t rules_end = sizeof(struct sbp_policy) + b.nrules * sizeof(struct sbp_rule);
	size_t ptab = rules_end, ntab = ptab + ((size_t)pmask + 1) * sizeof(struct sbp_slot);
	size_t head = ntab + ((size_t)nmask + 1) * sizeof(struct sbp_slot);
	size_t size = head + b.plen;
	struct sbp_policy *p = xrealloc(NULL, size);
	memset(p, 0, head);
	p->magic = SBP_POLICY_MAGIC;
	p->version = SBP_POLICY_VERSION;
	p->size = (uint32_t)size;
	p->mode = (uint8_t)c->mode;
	p->quiet = c->quiet;
	p->read_restricted = restricted;
	p->flags = c->protect_git ? SBP_PF_PROTECT_GIT : 0;
	p->nrules = (uint32_t)b.nrules;
	p->workspace = ws_off;
	p->log = log_off;
	p->log_socket = sock_off;
	p->prefixes = (uint32_t)ptab;
	p->prefix_mask = pmask;
	p->names = (uint32_t)ntab;
	p->name_mask = nmask;
	p->nprocself = nprocself;
	p->pool = (uint32_t)head;
	memcpy(p->rules, b.rules, b.nrules * sizeof(struct sbp_rule));
	for (size_t i = 0; i < b.nrules; i++) {
		const struct sbp_rule *r = &b.rules[i];
		const char *rp = b.pool + r->pat;
		if (r->match == SBP_M_NAME)
			table_add((struct sbp_slot *)((char *)p + ntab), nmask, sbp_hash_component(rp + r->key, r->len - r->key), i);
		else if (r->match != SBP_M_PROCSELF)
			table_add((struct sbp_slot *)((char *)p + ptab), pmask, hash_prefix(rp, r->key), i);
	}
	memcpy((char *)p + head, b.pool, b.plen);
	free(b.rules);
	free(b.pool);
	out->blob = p;
	out->size = size;
	out->workspace = ws;
	return 0;
error:
	free(b.rules);
	free(b.pool);
	free(ws);
	return -1;
}

/* --- printing ------------------------------------------------------------ */

struct strbuf {
	char *s;
	size_t len, cap;
};

static void sb_add(struct strbuf *sb, const char *s)
{
	size_t n = strlen(s);
	if (sb->len + n + 1 > sb->cap) {
		sb->cap = (sb->len + n + 1) * 2;
		sb->s = xrealloc(sb->s, sb->cap);
	}
	memcpy(sb->s + sb->len, s, n + 1);
	sb->len += n;
}

static void sb_entry(struct strbuf *sb, const char *e)
{
	bool quote = strpbrk(e, ",;#\"") != NULL || e[0] == ' ';
	sb_add(sb, quote ? "\"" : "");
	sb_add(sb, e);
	sb_add(sb, quote ? "\"" : "");
}

static void print_list(struct strbuf *sb, const struct sbp_policy *p, const char *key, int kind,
		       bool implicit)
{
	int n = 0;

	for (uint32_t i = 0; i < p->nrules; i++) {
		const struct sbp_rule *r = &p->rules[i];
		if (r->kind != kind || !!(r->flags & SBP_RF_IMPLICIT) != implicit)
			continue;
		if (implicit) {
			sb_add(sb, n++ ? ", " : "# implicit ");
			if (n == 1) {
				sb_add(sb, key);
				sb_add(sb, ": ");
			}
			sb_add(sb, sbp_str(p, r->pat));
			continue;
		}
		sb_add(sb, n++ ? ",\n    " : "");
		if (n == 1) {
			sb_add(sb, key);
			sb_add(sb, " = ");
		}
		sb_entry(sb, sbp_str(p, r->pat));
	}
	if (n)
		sb_add(sb, "\n");
	else if (!implicit) {
		sb_add(sb, key);
		sb_add(sb, " =\n");
	}
}

char *sbp_policy_to_ini(const struct sbp_policy *p)
{
	static const char *const modes[] = {"enforce", "audit", "off"};
	static const char *const rmodes[] = {"rw", "ro", "none"};
	struct strbuf sb = {0};

	sb_add(&sb, "# effective sbpreload policy\n[sandbox]\nworkspace = ");
	sb_add(&sb, sbp_str(p, p->workspace));
	sb_add(&sb, "\nmode = ");
	sb_add(&sb, modes[p->mode]);
	sb_add(&sb, "\nmessages = ");
	sb_add(&sb, p->quiet ? "none" : "stderr");
	sb_add(&sb, "\n");
	if (p->log) {
		sb_add(&sb, "log = ");
		sb_add(&sb, sbp_str(p, p->log));
		sb_add(&sb, "\n");
	}
	sb_add(&sb, "\n[filesystem]\n# paths are absolute here: ~ and relative paths are expanded\nprotect_git = ");
	sb_add(&sb, p->flags & SBP_PF_PROTECT_GIT ? "true\n" : "false\n");
	print_list(&sb, p, "read", SBP_RULE_READ, false);
	print_list(&sb, p, "write", SBP_RULE_WRITE, false);
	print_list(&sb, p, "deny", SBP_RULE_DENY, false);
	print_list(&sb, p, "deny_write", SBP_RULE_DENY_WRITE, false);
	print_list(&sb, p, "read", SBP_RULE_READ, true);
	print_list(&sb, p, "write", SBP_RULE_WRITE, true);
	print_list(&sb, p, "deny", SBP_RULE_DENY, true);
	print_list(&sb, p, "deny_write", SBP_RULE_DENY_WRITE, true);
	for (uint32_t i = 0; i < p->nrules; i++) {
		const struct sbp_rule *r = &p->rules[i];
		if (r->kind != SBP_RULE_ROOT)
			continue;
		/* A root listed twice (written and canonical form) prints once. */
		bool dup = false;
		for (uint32_t j = 0; j < i; j++)
			if (p->rules[j].kind == SBP_RULE_ROOT && !strcmp(sbp_str(p, p->rules[j].name), sbp_str(p, r->name)))
				dup = true;
		if (dup)
			continue;
		sb_add(&sb, "\n[path:");
		sb_add(&sb, sbp_str(p, r->name));
		sb_add(&sb, "]\nroot = ");
		sb_add(&sb, sbp_str(p, r->pat));
		sb_add(&sb, "\nmode = ");
		sb_add(&sb, rmodes[r->root_mode]);
		sb_add(&sb, "\n");
	}
	return sb.s;
}

/* --- transport ----------------------------------------------------------- */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *sbp_blob_encode(const void *blob, size_t size)
{
	const unsigned char *in = blob;
	char *out = xrealloc(NULL, (size + 2) / 3 * 4 + 1);
	size_t o = 0;

	for (size_t i = 0; i < size; i += 3) {
		unsigned v = (unsigned)in[i] << 16;
		if (i + 1 < size)
			v |= (unsigned)in[i + 1] << 8;
		if (i + 2 < size)
			v |= in[i + 2];
		out[o++] = b64[v >> 18 & 63];
		out[o++] = b64[v >> 12 & 63];
		out[o++] = i + 1 < size ? b64[v >> 6 & 63] : '=';
		out[o++] = i + 2 < size ? b64[v & 63] : '=';
	}
	out[o] = '\0';
	return out;
}

void *sbp_blob_decode(const char *text, size_t *size)
{
	/* Every exec decodes the policy: a table, not a search per byte. */
	signed char val[256];
	memset(val, -1, sizeof(val));
	for (int i = 0; i < 64; i++)
		val[(unsigned char)b64[i]] = (signed char)i;

	size_t n = strlen(text);
	if (n % 4)
		return NULL;
	unsigned char *out = malloc(n / 4 * 3 + 1);
	size_t o = 0;
	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i += 4) {
		unsigned v = 0;
		int pad = 0;
		for (int k = 0; k < 4; k++) {
			unsigned char c = (unsigned char)text[i + k];
			if (c == '=' && i + 4 == n && k >= 2) {
				pad++;
				v <<= 6;
				continue;
			}
			if (val[c] < 0 || pad) {
				free(out);
				return NULL;
			}
			v = v << 6 | (unsigned)val[c];
		}
		out[o++] = (unsigned char)(v >> 16);
		if (pad < 2)
			out[o++] = (unsigned char)(v >> 8);
		if (pad < 1)
			out[o++] = (unsigned char)v;
	}
	*size = o;
	return out;
}
