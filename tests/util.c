#include "journal.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "journal.h"

extern char **environ;

const char *sbt_build(void)
{
	static char dir[4096];

	if (!dir[0]) {
		const char *b = getenv("SBP_BUILD");
		if (!realpath(b && *b ? b : "build", dir)) {
			perror("sbt_build: realpath");
			exit(2);
		}
	}
	return dir;
}

const char *sbt_path(const char *name)
{
	static char buf[4096];
	snprintf(buf, sizeof(buf), "%s/%s", sbt_build(), name);
	return buf;
}

char *sbt_tmpdir(bool outside)
{
	char tmpl[] = "/var/tmp/sbpt-XXXXXX";
	char tmpl2[] = "/tmp/sbpt-XXXXXX";
	char *d = mkdtemp(outside ? tmpl : tmpl2);
	if (!d) {
		perror("mkdtemp");
		exit(2);
	}
	return strdup(d);
}

void sbt_rmrf(const char *path)
{
	char cmd[4200];
	if (!path || strncmp(path, "/", 1) != 0 || strlen(path) < 8)
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	if (system(cmd) != 0)
		fprintf(stderr, "warning: could not remove %s\n", path);
}

void sbt_write(const char *path, const char *content)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "sbt_write %s: %s\n", path, strerror(errno));
		exit(2);
	}
	fputs(content, f);
	fclose(f);
}

/* What sbt_read returned stays reachable from here, so that a test may use
 * it inside an assertion without freeing it (LeakSanitizer runs at exit). */
static char **kept;
static size_t nkept;

char *sbt_read(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t cap = 4096, len = 0;
	char *s = malloc(cap);
	size_t n;
	while ((n = fread(s + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (cap - len < 2)
			s = realloc(s, cap *= 2);
	}
	s[len] = '\0';
	fclose(f);
	kept = realloc(kept, (nkept + 1) * sizeof(*kept));
	kept[nkept++] = s;
	return s;
}

bool sbt_exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

char *sbt_policy_env(const char *ini, const char *ws)
{
	struct sbp_config c;
	struct sbp_compiled out;

	sbp_config_init(&c);
	if (sbp_config_load_string(&c, sbp_default_ini, "built-in default") < 0 ||
	    (ini && sbp_config_load_string(&c, ini, "test.ini") < 0)) {
		fprintf(stderr, "sbt_policy_env: %s\n", c.err);
		exit(2);
	}
	if (ws)
		sbp_config_set(&c, "sandbox", "workspace", ws, "test", false);
	if (sbp_config_compile(&c, NULL, &out) < 0) {
		fprintf(stderr, "sbt_policy_env: %s\n", c.err);
		exit(2);
	}
	char *enc = sbp_blob_encode(out.blob, out.size);
	char *env = malloc(strlen(enc) + 32);
	sprintf(env, "SBPRELOAD_POLICY=%s", enc);
	free(enc);
	free(out.blob);
	free(out.workspace);
	sbp_config_free(&c);
	return env;
}

static void drain(int fd, char *buf, size_t size, size_t *len)
{
	ssize_t n = read(fd, buf + *len, size - 1 - *len);
	if (n > 0)
		*len += (size_t)n;
	buf[*len] = '\0';
}

int sbt_exec(struct sbt_run *r, const char *cwd, bool shim, char *const extra[], char *const argv[])
{
	int po[2], pe[2];

	memset(r, 0, sizeof(*r));
	if (pipe(po) < 0 || pipe(pe) < 0) {
		perror("pipe");
		exit(2);
	}
	/* The child's environment: ours, minus any SBPRELOAD_* of the
	 * caller, plus the shim and EXTRA. */
	size_t n = 0;
	for (char **e = environ; *e; e++)
		n++;
	for (char *const *e = extra; e && *e; e++)
		n++;
	char **env = calloc(n + 3, sizeof(char *));
	size_t k = 0;
	for (char **e = environ; *e; e++)
		if (strncmp(*e, "SBPRELOAD_", 10) && strncmp(*e, "LD_PRELOAD=", 11))
			env[k++] = *e;
	char preload[4200];
	if (shim) {
		snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", sbt_path("libsbpreload.so"));
		env[k++] = preload;
	}
	for (char *const *e = extra; e && *e; e++)
		env[k++] = *e;
	env[k] = NULL;

	pid_t pid = fork();
	if (pid == 0) {
		dup2(po[1], 1);
		dup2(pe[1], 2);
		close(po[0]);
		close(pe[0]);
		close(po[1]);
		close(pe[1]);
		if (cwd && chdir(cwd) < 0)
			_exit(121);
		environ = env;
		execvp(argv[0], argv);
		_exit(errno == ENOENT ? 127 : 126);
	}
	free(env);
	close(po[1]);
	close(pe[1]);
	size_t lo = 0, le = 0;
	struct pollfd fds[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
	int open_fds = 2;
	while (open_fds > 0) {
		if (poll(fds, 2, 60000) <= 0)
			break;
		for (int i = 0; i < 2; i++) {
			if (!(fds[i].revents & (POLLIN | POLLHUP)))
				continue;
			size_t before = i ? le : lo;
			if (i)
				drain(pe[0], r->err, sizeof(r->err), &le);
			else
				drain(po[0], r->out, sizeof(r->out), &lo);
			if ((i ? le : lo) == before || (i ? le : lo) >= sizeof(r->out) - 1) {
				fds[i].fd = -1;
				open_fds--;
			}
		}
	}
	close(po[0]);
	close(pe[0]);
	int st;
	waitpid(pid, &st, 0);
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return r->status;
}

int sbt_sh(struct sbt_run *r, const char *ini, const char *ws, const char *script)
{
	char *pol = sbt_policy_env(ini, ws);
	/* A session's journal, as the launcher makes: the shim keeps its pins
	 * (shim/pincache.c), so every test here runs through that cache. */
	static char *journal;
	static pid_t journal_pid;
	if (!journal || journal_pid != getpid()) {
		journal = sbp_journal_make();
		journal_pid = getpid();
	}
	char *extra[] = {pol, journal, NULL};
	char *argv[] = {"sh", "-c", (char *)script, NULL};
	int s = sbt_exec(r, ws, true, extra, argv);
	free(pol);
	return s;
}

int sbt_run_suite(Suite *suite)
{
	SRunner *sr = srunner_create(suite);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
