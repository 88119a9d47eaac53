/* sbpreload: the command line.  Reads the options, merges the policy layers
 * (built-in default < config file < SBPRELOAD_* environment < options) and
 * runs the command, or answers `check` or `policy`. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "launcher.h"
#include "path.h"
#include "policy.h"

static const char usage[] =
	"Usage:\n"
	"  sbpreload [OPTIONS] [--] COMMAND [ARG...]   run COMMAND and everything it starts inside the sandbox\n"
	"  sbpreload check [OPTIONS] OP TARGET...       OP = read|write|exec; exit 0 if all allowed, 1 if any\n"
	"                                               denied, one line per target saying allowed/denied and why\n"
	"  sbpreload policy [OPTIONS]                   print the effective policy as INI\n"
	"  sbpreload --help | --version\n"
	"\n"
	"Options:\n"
	"  -c, --config FILE       INI policy (default: $SBPRELOAD_CONFIG, else ./.sbpreload.ini if present,\n"
	"                          else built-in)\n"
	"  -W, --workspace DIR     default: the current directory; \"auto\": nearest ancestor holding .git,\n"
	"                          pyproject.toml, package.json, Cargo.toml, go.mod or Makefile\n"
	"  -w, --allow-write PATH  writable tree (alias --allow-dir); repeatable\n"
	"  -r, --allow-read PATH   readable tree; once given, reads are limited to these plus what a program\n"
	"                          needs to run; repeatable\n"
	"  -d, --deny PATH|GLOB    neither readable nor writable; repeatable\n"
	"      --deny-write GLOB   readable, not writable; repeatable\n"
	"      --audit             deny nothing; report what would have been denied\n"
	"      --yolo              no policy at all\n"
	"      --log FILE          JSON Lines, one record per denial (or would-be denial in audit mode)\n"
	"  -q, --quiet             no messages on stderr\n"
	"\n"
	"Options override SBPRELOAD_* environment variables, which override the config file, which\n"
	"overrides the built-in default.  Exit status: the command's own; 128+N when it was killed by\n"
	"signal N; 125 when sbpreload fails; 126 when COMMAND cannot be executed; 127 when not found.\n";

/* --- messages and exits -------------------------------------------------- */

static void vsay(const char *fmt, va_list ap, int err)
{
	char msg[4096];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* One message, one line, whatever the names in it hold. */
	for (char *s = msg; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
	if (err)
		fprintf(stderr, "sbpreload: %s: %s\n", msg, strerror(err));
	else
		fprintf(stderr, "sbpreload: %s\n", msg);
}

void warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(fmt, ap, 0);
	va_end(ap);
}

void die_status(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(fmt, ap, 0);
	va_end(ap);
	exit(status);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(fmt, ap, 0);
	va_end(ap);
	exit(SBP_EXIT_FAIL);
}

void die_with_error(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vsay(fmt, ap, err);
	va_end(ap);
	exit(SBP_EXIT_FAIL);
}

/* --- the command line ---------------------------------------------------- */

enum { OPT_DENY_WRITE = 256, OPT_AUDIT, OPT_YOLO, OPT_LOG, OPT_VERSION };

static const struct option long_options[] = {
	{"config", required_argument, NULL, 'c'},
	{"workspace", required_argument, NULL, 'W'},
	{"allow-write", required_argument, NULL, 'w'},
	{"allow-dir", required_argument, NULL, 'w'},
	{"allow-read", required_argument, NULL, 'r'},
	{"deny", required_argument, NULL, 'd'},
	{"deny-write", required_argument, NULL, OPT_DENY_WRITE},
	{"audit", no_argument, NULL, OPT_AUDIT},
	{"yolo", no_argument, NULL, OPT_YOLO},
	{"log", required_argument, NULL, OPT_LOG},
	{"quiet", no_argument, NULL, 'q'},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, OPT_VERSION},
	{NULL, 0, NULL, 0},
};
/* '+': stop at the first word that is not an option (the command);
 * ':': report a missing argument as ':' so that we can say so. */
static const char short_options[] = "+:c:W:w:r:d:qh";

/* What each policy option sets: a line of data per option. */
struct setting {
	int opt;
	const char *name; /* for messages, and as "where" in the config */
	const char *section, *key;
	const char *value; /* fixed value, or NULL: the option's argument */
	bool path_list;    /* appends one path to a comma-separated list */
	bool once;         /* may be given only once */
};

static const struct setting settings[] = {
	{'W', "--workspace", "sandbox", "workspace", NULL, false, true},
	{'w', "--allow-write", "filesystem", "write", NULL, true, false},
	{'r', "--allow-read", "filesystem", "read", NULL, true, false},
	{'d', "--deny", "filesystem", "deny", NULL, true, false},
	{OPT_DENY_WRITE, "--deny-write", "filesystem", "deny_write", NULL, true, false},
	{OPT_AUDIT, "--audit", "sandbox", "mode", "audit", false, false},
	{OPT_YOLO, "--yolo", "sandbox", "mode", "off", false, false},
	{OPT_LOG, "--log", "sandbox", "log", NULL, false, true},
	{'q', "--quiet", "sandbox", "messages", "none", false, false},
};
#define NSETTINGS (sizeof(settings) / sizeof(settings[0]))

struct pending {
	const struct setting *s;
	const char *arg;
};

enum command { CMD_RUN, CMD_CHECK, CMD_POLICY };

struct cli {
	enum command cmd;
	const char *config;     /* -c */
	bool help, version;
	struct pending *set;    /* policy options, in command-line order */
	size_t nset;
	char **args;            /* what follows the options */
	int nargs;
};

static const struct setting *setting_for(int opt)
{
	for (size_t i = 0; i < NSETTINGS; i++)
		if (settings[i].opt == opt)
			return &settings[i];
	return NULL;
}

/* The option as typed, for messages: "--name" without "=value", or "-x". */
static const char *option_word(const char *word, int opt, char *buf, size_t size)
{
	if (!strncmp(word, "--", 2))
		snprintf(buf, size, "%.*s", (int)strcspn(word, "="), word);
	else
		snprintf(buf, size, "-%c", opt);
	return buf;
}

static bool known_option(int opt)
{
	for (const struct option *o = long_options; o->name; o++)
		if (o->val == opt)
			return true;
	return false;
}

/* getopt_long found something wrong: say what, as one line. */
__attribute__((noreturn)) static void bad_option(int opt, int argc, char **argv)
{
	char buf[64];

	/* A missing argument can only be missing at the very end. */
	if (opt == ':')
		die("option '%s' needs an argument (see sbpreload --help)",
		    option_word(argv[argc - 1], optopt, buf, sizeof(buf)));
	/* optopt is 0 for an unknown long option, a valid option for a long
	 * one given "=value" it does not take, else the unknown letter
	 * (inside a cluster argv[optind - 1] is not its word yet). */
	if (!optopt)
		die("unknown option '%s' (see sbpreload --help)", option_word(argv[optind - 1], 0, buf, sizeof(buf)));
	if (known_option(optopt))
		die("option '%s' takes no argument", option_word(argv[optind - 1], optopt, buf, sizeof(buf)));
	die("unknown option '-%c' (see sbpreload --help)", optopt);
}

static void add_setting(struct cli *cli, int opt, const char *arg)
{
	const struct setting *s = setting_for(opt);

	if (s->once)
		for (size_t i = 0; i < cli->nset; i++)
			if (cli->set[i].s == s)
				die("%s given more than once", s->name);
	if (s->path_list && !*arg)
		die("%s: empty path", s->name);
	cli->set[cli->nset++] = (struct pending){s, arg};
}

/* Parse options from ARGV[1] on.  Returns true when "--" ended them. */
static bool parse_options(struct cli *cli, int argc, char **argv)
{
	optind = 0; /* glibc: start afresh (this runs twice with a subcommand) */
	opterr = 0;
	for (;;) {
		int before = optind ? optind : 1;
		int opt = getopt_long(argc, argv, short_options, long_options, NULL);
		switch (opt) {
		case -1:
			cli->args = argv + optind;
			cli->nargs = argc - optind;
			/* getopt consumed "--" exactly when it moved on. */
			return optind > before;
		case 'c':
			if (cli->config)
				die("--config given more than once");
			cli->config = optarg;
			break;
		case 'h':
			cli->help = true;
			break;
		case OPT_VERSION:
			cli->version = true;
			break;
		case ':':
		case '?':
			bad_option(opt, argc, argv);
		default:
			add_setting(cli, opt, optarg);
		}
	}
}

static void parse_cli(struct cli *cli, int argc, char **argv)
{
	memset(cli, 0, sizeof(*cli));
	cli->set = calloc((size_t)argc, sizeof(*cli->set));
	if (!cli->set)
		die("out of memory");
	bool dashdash = parse_options(cli, argc, argv);
	if (cli->help || cli->version)
		return;
	/* A subcommand is the first word after the options, unless "--" said
	 * that a command follows; its own options may follow it. */
	if (!dashdash && cli->nargs > 0) {
		if (!strcmp(cli->args[0], "check"))
			cli->cmd = CMD_CHECK;
		else if (!strcmp(cli->args[0], "policy"))
			cli->cmd = CMD_POLICY;
		if (cli->cmd != CMD_RUN)
			parse_options(cli, cli->nargs, cli->args);
	}
	if (cli->help || cli->version)
		return;
	/* Rules between options, checked once. */
	const struct setting *audit = setting_for(OPT_AUDIT), *yolo = setting_for(OPT_YOLO);
	bool has_audit = false, has_yolo = false;
	for (size_t i = 0; i < cli->nset; i++) {
		has_audit |= cli->set[i].s == audit;
		has_yolo |= cli->set[i].s == yolo;
	}
	if (has_audit && has_yolo)
		die("--audit and --yolo cannot be used together");
	if (cli->cmd == CMD_RUN && cli->nargs == 0)
		die("no command given (see sbpreload --help)");
	if (cli->cmd == CMD_POLICY && cli->nargs > 0)
		die("policy: unexpected argument '%s'", cli->args[0]);
}

/* --- the policy ---------------------------------------------------------- */

/* One path as a list entry: sbp_config_set splits lists at commas and trims
 * blanks, so a path with those is written in quotes. */
static const char *list_entry(const struct setting *s, const char *path, char *buf, size_t size)
{
	size_t len = strlen(path);
	bool plain = !strchr(path, ',') && path[0] != '"' && path[0] != ' ' && path[0] != '\t' &&
		     path[len - 1] != ' ' && path[len - 1] != '\t';

	if (plain)
		return path;
	if (strchr(path, '"'))
		die("%s: '%s': a path with a '\"' cannot also have a ',', a leading '\"' or blanks at either end",
		    s->name, path);
	if ((size_t)snprintf(buf, size, "\"%s\"", path) >= size)
		die("%s: path too long: %s", s->name, path);
	return buf;
}

static void apply_settings(struct sbp_config *c, const struct cli *cli)
{
	for (size_t i = 0; i < cli->nset; i++) {
		const struct setting *s = cli->set[i].s;
		char buf[PATH_MAX + 3];
		const char *value = s->value ? s->value : cli->set[i].arg;
		if (s->path_list)
			value = list_entry(s, value, buf, sizeof(buf));
		if (sbp_config_set(c, s->section, s->key, value, s->name, true) < 0)
			die("%s", c->err);
	}
}

static void load_config(struct sbp_config *c, const struct cli *cli)
{
	sbp_config_init(c);
	if (sbp_config_load_string(c, sbp_default_ini, "built-in default") < 0)
		die("%s", c->err);
	const char *file = sbp_config_pick_file(cli->config);
	if (file && sbp_config_load_file(c, file) < 0)
		die("%s", c->err);
	if (sbp_config_load_env(c, environ) < 0)
		die("%s", c->err);
	apply_settings(c, cli);
}

static void compile(struct sbp_config *c, const char *log_socket, struct sbp_compiled *out)
{
	if (sbp_config_compile(c, log_socket, out) < 0)
		die("%s", c->err);
}

static void free_compiled(struct sbp_compiled *cp)
{
	free(cp->blob);
	free(cp->workspace);
}

/* --- policy -------------------------------------------------------------- */

static int cmd_policy(struct sbp_config *c)
{
	struct sbp_compiled cp;

	compile(c, NULL, &cp);
	char *ini = sbp_policy_to_ini(cp.blob);
	fputs(ini, stdout);
	free(ini);
	free_compiled(&cp);
	return 0;
}

/* --- check --------------------------------------------------------------- */

static bool parse_op(const char *word, enum sbp_op *op)
{
	static const enum sbp_op ops[] = {SBP_OP_READ, SBP_OP_WRITE, SBP_OP_EXEC};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(word, sbp_op_name(ops[i]))) {
			*op = ops[i];
			return true;
		}
	return false;
}

/* Like the denial messages: control characters could forge lines. */
static void add_quoted(struct sbp_buf *b, const char *s)
{
	sbp_buf_add(b, "'");
	for (; *s; s++)
		sbp_buf_addn(b, (unsigned char)*s < 0x20 || *s == 0x7f ? "?" : s, 1);
	sbp_buf_add(b, "'");
}

/* "allowed write 'x' (resolved '/ws/x'): in writable path '/ws'" */
static void format_allowed(struct sbp_buf *b, const struct sbp_policy *p, enum sbp_op op,
			   const struct sbp_verdict *v, const char *given, const char *resolved)
{
	static const char *const root_modes[] = {"rw", "ro", "none"};
	const struct sbp_rule *r = v->rule;

	sbp_buf_add(b, "allowed ");
	sbp_buf_add(b, sbp_op_name(op));
	sbp_buf_add(b, " ");
	add_quoted(b, given);
	if (strcmp(given, resolved) != 0) {
		sbp_buf_add(b, " (resolved ");
		add_quoted(b, resolved);
		sbp_buf_add(b, ")");
	}
	sbp_buf_add(b, ": ");
	if (v->reason == SBP_ALLOWED_NO_POLICY) {
		sbp_buf_add(b, "no policy in force");
		return;
	}
	if (!r) {
		/* exec is judged as a read of the program. */
		sbp_buf_add(b, op == SBP_OP_EXEC ? "reads, and so exec, are not restricted" : "reads are not restricted");
		return;
	}
	if (r->kind == SBP_RULE_ROOT) {
		sbp_buf_add(b, "in root ");
		add_quoted(b, sbp_str(p, r->name));
		sbp_buf_add(b, " (");
		sbp_buf_add(b, root_modes[r->root_mode]);
		sbp_buf_add(b, ")");
		return;
	}
	sbp_buf_add(b, r->kind == SBP_RULE_WRITE ? "in writable path " : "in readable path ");
	add_quoted(b, sbp_str(p, r->pat));
	if (r->flags & SBP_RF_IMPLICIT)
		sbp_buf_add(b, " (built in: programs need it)");
}

static void decide(const struct sbp_policy *p, enum sbp_op op, const char *path, struct sbp_verdict *v)
{
	struct sbp_query q = {op, path, strlen(path), (int)getpid(), false};

	sbp_decide(p, &q, v);
}

/* Judge one target.  Returns 0 allowed, 1 denied, -1 error (reported). */
static int check_one(const struct sbp_policy *p, enum sbp_op op, const char *cwd, const char *target)
{
	char found[PATH_MAX], joined[PATH_MAX * 2], lexical[PATH_MAX * 2], resolved[PATH_MAX];
	const char *path = target;
	unsigned flags;

	if (!*target) {
		warn("check: empty target");
		return -1;
	}
	/* exec of a bare name runs what PATH finds. */
	if (op == SBP_OP_EXEC && !strchr(target, '/')) {
		int err = find_command(target, found, sizeof(found));
		if (err == ENOENT) {
			warn("check: %s: command not found", target);
			return -1;
		}
		/* One that is there but not executable is still judged. */
		if (err && err != EACCES && err != EISDIR) {
			warn("check: %s: %s", target, strerror(err));
			return -1;
		}
		path = found;
	}
	snprintf(joined, sizeof(joined), "%s%s%s", path[0] == '/' ? "" : cwd, path[0] == '/' ? "" : "/", path);
	int err = resolve_path(joined, resolved, sizeof(resolved));
	if (err || sbp_path_normalize(cwd, path, lexical, sizeof(lexical), &flags) < 0) {
		warn("check: %s: %s", target, strerror(err ? err : ENAMETOOLONG));
		return -1;
	}
	/* The resolved path is what the operation touches; the path as given
	 * still counts for deny rules, as in the shim. */
	struct sbp_verdict v, vl;
	const char *judged = resolved;
	decide(p, op, resolved, &v);
	if (!v.violation && strcmp(lexical, resolved) != 0) {
		decide(p, op, lexical, &vl);
		if (vl.violation && (vl.reason == SBP_DENY_RULE || vl.reason == SBP_DENY_WRITE_RULE)) {
			v = vl;
			judged = lexical;
		}
	}
	char line[8192];
	struct sbp_buf b = {line, sizeof(line), 0};
	struct sbp_query q = {op, judged, strlen(judged), (int)getpid(), false};
	if (v.violation) {
		sbp_format_denial(line, sizeof(line), p, &q, &v, target, judged);
		/* Drop the "sbpreload: " the shim's messages carry. */
		const char *msg = strncmp(line, "sbpreload: ", 11) ? line : line + 11;
		puts(msg);
		return 1;
	}
	format_allowed(&b, p, op, &v, target, resolved);
	puts(line);
	return 0;
}

static int cmd_check(struct sbp_config *c, char **args, int nargs)
{
	enum sbp_op op;
	char cwd[PATH_MAX];

	if (nargs < 1)
		die("check: missing OP (read, write or exec) and TARGET");
	if (!parse_op(args[0], &op))
		die("check: unknown operation '%s' (read, write or exec)", args[0]);
	if (nargs < 2)
		die("check: no TARGET given");
	if (!getcwd(cwd, sizeof(cwd)))
		die_with_error("cannot determine the current directory");
	struct sbp_compiled cp;
	compile(c, NULL, &cp);
	bool denied = false, failed = false;
	for (int i = 1; i < nargs; i++) {
		int r = check_one(cp.blob, op, cwd, args[i]);
		denied |= r > 0;
		failed |= r < 0;
	}
	free_compiled(&cp);
	if (fflush(stdout) != 0)
		die_with_error("stdout");
	return failed ? SBP_EXIT_FAIL : denied ? 1 : 0;
}

/* --- run ----------------------------------------------------------------- */

/* Find the command before anything starts, so that a typo reads as one. */
static void find_or_die(const char *name, char *out, size_t size)
{
	int err = find_command(name, out, size);

	if (!err)
		return;
	if (err == ENOENT && !strchr(name, '/'))
		die_status(SBP_EXIT_NOT_FOUND, "%s: command not found", name);
	die_status(err == ENOENT ? SBP_EXIT_NOT_FOUND : SBP_EXIT_CANNOT_RUN, "%s: %s", name, strerror(err));
}

static int open_log(const char *path)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);

	if (fd < 0)
		die_with_error("log %s", path);
	return fd;
}

static void summary(const struct sbp_policy *p, unsigned long denials)
{
	if (p->quiet || denials == 0)
		return;
	warn("%lu operation%s %s%s%s", denials, denials == 1 ? "" : "s",
	     p->mode == SBP_MODE_AUDIT ? "would have been denied" : "denied", p->log ? ", log: " : "",
	     p->log ? sbp_str(p, p->log) : "");
}

static int cmd_run(struct sbp_config *c, char **argv)
{
	char path[PATH_MAX], shim[PATH_MAX], sock_name[108];
	struct run_spec spec = {.path = path, .argv = argv, .log_sock = -1, .log_fd = -1};
	struct run_result res;

	find_or_die(argv[0], path, sizeof(path));
	if (c->mode == SBP_MODE_OFF) {
		run_command(&spec, &res);
		return res.status;
	}
	spec.log_sock = log_socket_open(sock_name, sizeof(sock_name));
	struct sbp_compiled cp;
	compile(c, sock_name, &cp);
	find_shim(shim, sizeof(shim));
	spec.shim = shim;
	char *policy = sbp_blob_encode(cp.blob, cp.size);
	/* The kernel caps one environment string at MAX_ARG_STRLEN (32 pages);
	 * past it every exec in the session would fail with E2BIG. */
	if (strlen(policy) + sizeof("SBPRELOAD_POLICY=") > 32 * 4096)
		die("the compiled policy is too large to pass in the environment (%zu bytes; fewer rules, please)",
		    strlen(policy));
	spec.policy = policy;
	if (cp.blob->log)
		spec.log_fd = open_log(sbp_str(cp.blob, cp.blob->log));
	run_command(&spec, &res);
	summary(cp.blob, res.denials);
	if (spec.log_fd >= 0)
		close(spec.log_fd);
	close(spec.log_sock);
	free(policy);
	free_compiled(&cp);
	return res.status;
}

int main(int argc, char **argv)
{
	struct cli cli;
	struct sbp_config c;

	parse_cli(&cli, argc, argv);
	if (cli.help || cli.version) {
		if (cli.help)
			fputs(usage, stdout);
		else
			printf("sbpreload %s\n", SBP_VERSION);
		free(cli.set);
		return 0;
	}
	load_config(&c, &cli);
	int status;
	switch (cli.cmd) {
	case CMD_CHECK:
		status = cmd_check(&c, cli.args, cli.nargs);
		break;
	case CMD_POLICY:
		status = cmd_policy(&c);
		break;
	default:
		status = cmd_run(&c, cli.args);
	}
	sbp_config_free(&c);
	free(cli.set);
	return status;
}
