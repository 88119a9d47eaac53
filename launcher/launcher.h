/* The launcher: main.c reads the command line and the policy layers and
 * answers `check` and `policy`; run.c does the work that touches processes
 * and files (finding the command and the shim, resolving paths, running the
 * command under the shim and collecting its reports). */
#ifndef SBP_LAUNCHER_H
#define SBP_LAUNCHER_H

#include <stdbool.h>
#include <stddef.h>

/* Exit statuses of sbpreload itself, as env(1), timeout(1) and shells use
 * them: they cannot be confused with the usual statuses of a command. */
enum {
	SBP_EXIT_FAIL = 125,      /* sbpreload could not do its job */
	SBP_EXIT_CANNOT_RUN = 126, /* the command exists but cannot be executed */
	SBP_EXIT_NOT_FOUND = 127, /* the command does not exist */
};

/* The one place that prints sbpreload's own messages ("sbpreload: ..." on
 * stderr, one line) and the one place that exits early (main.c). */
__attribute__((noreturn, format(printf, 2, 3))) void die_status(int status, const char *fmt, ...);
__attribute__((noreturn, format(printf, 1, 2))) void die(const char *fmt, ...);
/* Adds ": strerror(errno)". */
__attribute__((noreturn, format(printf, 1, 2))) void die_with_error(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void warn(const char *fmt, ...);

/* --- run.c --------------------------------------------------------------- */

/* Find NAME as execvp(3) would: a name holding '/' as is, else through
 * $PATH.  Writes the path to OUT and returns 0, or returns an errno value:
 * ENOENT when there is no such command, EACCES or EISDIR when the only
 * match cannot be executed (OUT then names it). */
int find_command(const char *name, char *out, size_t size);

/* The absolute path of libsbpreload.so: $SBPRELOAD_SHIM, else next to the
 * launcher (build tree), else ../lib beside it (installed).  Dies when none
 * exists. */
void find_shim(char *out, size_t size);

/* Resolve absolute PATH the way the kernel does for an operation on it:
 * follow every symlink (a dangling last one too: writing through it creates
 * its target) and keep the part that does not exist yet, normalised.
 * Returns 0, or an errno value (ELOOP, ENAMETOOLONG). */
int resolve_path(const char *path, char *out, size_t size);

/* An AF_UNIX datagram socket bound to a fresh abstract name
 * "sbpreload-<pid>-<random>"; NAME gets the name without its leading NUL
 * (the form sbp_config_compile takes).  Dies on failure. */
int log_socket_open(char *name, size_t size);

struct run_spec {
	const char *path;   /* the command as found by find_command */
	char *const *argv;  /* its arguments, argv[0] included */
	const char *shim;   /* libsbpreload.so; NULL: no sandbox (mode off) */
	const char *policy; /* SBPRELOAD_POLICY for the child */
	int log_sock;       /* from log_socket_open, or -1 */
	int log_fd;         /* where records are appended, or -1 */
};

struct run_result {
	int status;           /* the command's status as sbpreload exits with it */
	unsigned long denials; /* records received from the shim */
};

/* Fork, exec the command in the child, and stay as its parent until it
 * exits: forward signals sent to sbpreload, keep the shim's records. */
void run_command(const struct run_spec *spec, struct run_result *res);

#endif
