/* Helpers shared by the test suites: temporary trees, files, and running a
 * real process under the built shim (or the launcher) to see what a user
 * would see: exit status, stdout, stderr, what is on disk. */
#ifndef SBT_UTIL_H
#define SBT_UTIL_H

#include <check.h>
#include <stdbool.h>
#include <stddef.h>

struct sbt_run {
	int status;      /* exit code, or 128+N when killed by signal N */
	char out[65536]; /* stdout */
	char err[65536]; /* stderr */
};

/* The build directory ($SBP_BUILD, default "build"), absolute. */
const char *sbt_build(void);
/* "<build>/<name>" in a static buffer: copy it before the next call
 * (sbt_exec makes one). */
const char *sbt_path(const char *name);

/* A fresh directory: under /tmp (inside the default writable paths) or
 * under /var/tmp (outside them). malloc'd, removed by sbt_rmrf. */
char *sbt_tmpdir(bool outside);
void sbt_rmrf(const char *path);

void sbt_write(const char *path, const char *content);
/* Whole file, malloc'd (freeing it is optional); NULL when it cannot be
 * read. */
char *sbt_read(const char *path);
bool sbt_exists(const char *path); /* lstat() succeeds */

/* Compile INI text (NULL = the built-in default) for workspace WS into the
 * "SBPRELOAD_POLICY=..." environment entry the launcher would pass. */
char *sbt_policy_env(const char *ini, const char *ws);

/* Run ARGV (PATH lookup) in directory CWD with the environment of this
 * process plus EXTRA (NULL-terminated "K=V" entries, may be NULL).  With
 * SHIM, LD_PRELOAD names the built shim.  Returns r->status. */
int sbt_exec(struct sbt_run *r, const char *cwd, bool shim, char *const extra[], char *const argv[]);

/* sh -c SCRIPT under the shim with policy INI (NULL = default) and
 * workspace WS (also the cwd), sharing a session's journal as under the
 * launcher (the shim keeps its pins). */
int sbt_sh(struct sbt_run *r, const char *ini, const char *ws, const char *script);

/* Run SUITE (Check's own summary line included); the exit status of a
 * test program: 0 when every test passed. */
int sbt_run_suite(Suite *suite);

#endif
