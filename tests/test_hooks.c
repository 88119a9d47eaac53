/* Every hooked function, allowed and denied, as real processes.
 *
 * The spine is ROWS: one line per case, naming a libc function, its
 * arguments, what it must return, what must (or must not) be on disk
 * afterwards, and for a refusal the one line the shim must write on stderr.
 * One runner (run_row) plays each row with each of the four builds of
 * tests/probe.c (plain, -D_FILE_OFFSET_BITS=64, -O2 -D_FORTIFY_SOURCE=2,
 * both), so every hook is shown to fire however the program was compiled.
 * The shim's log records which libc entry point refused, so a denied row
 * also proves that the build reached the symbol it should (open64,
 * __open_2, ...).
 *
 * Each row gets fresh directories: the workspace WS under /tmp (writable
 * under the built-in default policy) and OUT under /var/tmp (not writable):
 *
 *   WS/file "inside"    WS/dir/    WS/full/x    WS/link -> OUT/file
 *   WS/ilink -> file    WS/wtmp (empty)
 *   OUT/file "outside"   OUT/dir/   OUT/full/x
 *   OUT/secret "s3cret" OUT/vault/key     (and OUT/log, the shim's log)
 *
 * Both files carry the xattr user.k=v, files are 0644 and owned by root,
 * and every entry's mtime is 1500000000.
 *
 * Placeholders in arguments, policies, checks and messages:
 *   {ws} {out}            the directories as created (the paths given)
 *   {realws} {realout}    their canonical paths (what the policy holds and
 *                         the kernel reports)
 *   {long}                a name longer than NAME_MAX
 *   {name256}             a name of NAME_MAX + 1 characters
 *   {huge}                a relative path of PATH_MAX + 1 bytes
 *                         (./././.../x)
 *   ''                    (a whole argument) the empty string
 *
 * A row that is not a refusal is also played without the shim, on fresh
 * directories: result and effect must be exactly the same (unless it says
 * .unlike_kernel: the shim answers as an older kernel would).  The probe also
 * fails (status 3) when the call leaves a descriptor open that it did not
 * return, so a hook that leaks shows up in any row. */
#include <check.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utmp.h>

#include "util.h"

/* --- the table ----------------------------------------------------------- */

/* Expected results, as the probe prints them. */
#define OK "ret=0 errno=0"
#define FD "ret=fd errno=0" /* any descriptor >= 0 */
#define DENIED "ret=-1 errno=EACCES"
#define ERR(e) "ret=-1 errno=" #e
#define COUNT(n) "ret=" #n " errno=0"
#define ABORTS "abort" /* killed by SIGABRT, as libc does */
/* A refusal that is not about a path (namespaces, mounts, the terminal). */
#define REFUSED "ret=-1 errno=EPERM"
/* Functions that return nothing (updwtmp): the errno they leave. */
#define VOID_ERR(e) "ret=0 errno=" #e
#define VOID_DENIED VOID_ERR(EACCES)

/* Why a write outside the workspace and /tmp is refused. */
#define OUTSIDE "outside the writable paths (writable: {realws}, /tmp)"
/* A policy that also refuses to read two things. */
#define SECRETS "[filesystem]\ndeny = {out}/secret, {out}/vault\n"
/* A policy where only the workspace is writable (not /tmp). */
#define WS_ONLY "[filesystem]\nwrite = .\n"
/* Why namespaces, mounts and TIOCSTI are refused. */
#define NS_REASON "new user or mount namespaces could mount around the policy"
#define MOUNT_REASON "mounts could bring other trees under allowed paths"
#define TTY_REASON "typing into the terminal would run commands outside the sandbox"

struct row {
	const char *func;
	const char *args;     /* separated by spaces */
	const char *result;   /* OK, FD, COUNT(n), DENIED, REFUSED, ERR(...),
				 VOID_ERR(...), VOID_DENIED, ABORTS */
	const char *ini;      /* policy on top of the built-in default; NULL = none */
	const char *after[4]; /* on disk afterwards, see check_after() */
	const char *msg;      /* stderr, after "sbpreload: denied ": a fnmatch
				 pattern for the whole line; NULL = stderr empty.
				 Exactly the refusals (DENIED, REFUSED,
				 VOID_DENIED) have one. */
	bool unlike_kernel;   /* not compared with the run without the shim */
};

/* After-checks, "WHAT PATH [VALUE]":
 *   exists P | absent P | file P | dir P | fifo P | sock P
 *   content P TEXT | empty P | mode P 0600 | symlink P TARGET
 *   mtime P N | lmtime P N (of the link itself) | uid P N | luid P N
 *   records P N (holds N struct utmp records, nothing else)
 *   xattr P NAME=VALUE | noxattr P NAME
 *   glob PATTERN (something matches) | noglob PATTERN (nothing does) */

/* Rows leave out the fields they do not need. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static const struct row rows[] = {
	/* --- open family --------------------------------------------------- */
	{"open", "{ws}/new O_WRONLY|O_CREAT 0640", FD, .after = {"file {ws}/new", "mode {ws}/new 0640"}},
	{"open", "{ws}/file O_WRONLY|O_TRUNC", FD, .after = {"empty {ws}/file"}},
	{"open", "ilink O_RDWR|O_TRUNC", FD, .after = {"empty {ws}/file"}},
	{"open", "{ws} O_TMPFILE|O_WRONLY 0600", FD},
	{"open", "{out}/file O_RDONLY", FD, .after = {"content {out}/file outside"}},
	{"open", "{out}/file O_RDONLY", FD, .ini = SECRETS},
	{"open", "{out}/new O_WRONLY|O_CREAT 0644", DENIED, .after = {"absent {out}/new"},
	 .msg = "write '{out}/new': " OUTSIDE},
	{"open", "{out}/file O_WRONLY|O_TRUNC", DENIED, .after = {"content {out}/file outside"},
	 .msg = "write '{out}/file': " OUTSIDE},
	{"open", "{ws}/file O_RDONLY|O_TRUNC", FD, .after = {"empty {ws}/file"}},
	{"open", "{out}/file O_RDONLY|O_TRUNC", DENIED, .after = {"content {out}/file outside"},
	 .msg = "write '{out}/file': " OUTSIDE},
	{"open", "{out}/file O_RDWR", DENIED, .after = {"content {out}/file outside"},
	 .msg = "write '{out}/file': " OUTSIDE},
	{"open", "{out} O_TMPFILE|O_WRONLY 0600", DENIED, .msg = "write '{out}': " OUTSIDE},
	{"open", "link O_WRONLY|O_TRUNC", DENIED, .after = {"content {out}/file outside"},
	 .msg = "write 'link' (resolved '{realout}/file'): " OUTSIDE},
	{"open", "{ws}/.env O_WRONLY|O_CREAT 0600", DENIED, .after = {"absent {ws}/.env"},
	 .msg = "write '{ws}/.env': matches deny rule '**/.env'"},
	{"open", "{out}/secret O_RDONLY", DENIED, .ini = SECRETS,
	 .msg = "read '{out}/secret': matches deny rule '{out}/secret'"},
	{"open", "{ws}/missing/new O_WRONLY|O_CREAT 0644", ERR(ENOENT), .after = {"absent {ws}/missing"}},
	{"open", "'' O_RDONLY", ERR(ENOENT)},
	{"open", "{ws}/file/x O_RDONLY", ERR(ENOTDIR)},
	{"open", "{ws}/dir O_WRONLY", ERR(EISDIR)},
	{"open", "link O_RDONLY|O_NOFOLLOW", ERR(ELOOP)},
	{"open", "{ws}/file O_WRONLY|O_CREAT|O_EXCL 0644", ERR(EEXIST), .after = {"content {ws}/file inside"}},
	{"open", "{ws}/{long} O_RDONLY", ERR(ENAMETOOLONG)},
	/* Names and paths the kernel refuses as too long go to it unjudged
	 * (nothing is truncated to fit a buffer): its errno, outside too. */
	{"open", "{ws}/{name256} O_WRONLY|O_CREAT 0644", ERR(ENAMETOOLONG)},
	{"open", "{out}/{name256} O_WRONLY|O_CREAT 0644", ERR(ENAMETOOLONG)},
	{"open", "{huge} O_RDONLY", ERR(ENAMETOOLONG)},
	{"open", "{huge} O_WRONLY|O_CREAT 0644", ERR(ENAMETOOLONG), .after = {"absent {ws}/x"}},
	{"open", "NULL O_RDONLY", ERR(EFAULT)},

	{"open64", "{ws}/new O_WRONLY|O_CREAT 0640", FD, .after = {"file {ws}/new", "mode {ws}/new 0640"}},
	{"open64", "{ws}/file O_WRONLY|O_TRUNC", FD, .after = {"empty {ws}/file"}},
	{"open64", "{out}/new O_WRONLY|O_CREAT 0644", DENIED, .after = {"absent {out}/new"},
	 .msg = "write '{out}/new': " OUTSIDE},
	{"open64", "{out}/file O_WRONLY|O_TRUNC", DENIED, .after = {"content {out}/file outside"},
	 .msg = "write '{out}/file': " OUTSIDE},
	{"open64", "{out}/secret O_RDONLY", DENIED, .ini = SECRETS,
	 .msg = "read '{out}/secret': matches deny rule '{out}/secret'"},
	{"open64", "link O_RDONLY|O_NOFOLLOW", ERR(ELOOP)},

	/* libc's other names for open. */
	{"__open", "{ws}/new O_WRONLY|O_CREAT 0640", FD, .after = {"file {ws}/new", "mode {ws}/new 0640"}},
	{"__open", "{ws}/file O_WRONLY|O_TRUNC", FD, .after = {"empty {ws}/file"}},
	{"__open", "{out}/file O_RDONLY", FD, .ini = SECRETS},
	{"__open", "{out}/new O_WRONLY|O_CREAT 0644", DENIED, .after = {"absent {out}/new"},
	 .msg = "write '{out}/new': " OUTSIDE},
	{"__open", "{out}/file O_WRONLY|O_TRUNC", DENIED, .after = {"content {out}/file outside"},
	 .msg = "write '{out}/file': " OUTSIDE},
	{"__open", "{out}/secret O_RDONLY", DENIED, .ini = SECRETS,
	 .msg = "read '{out}/secret': matches deny rule '{out}/secret'"},
	{"__open", "link O_RDONLY|O_NOFOLLOW", ERR(ELOOP)},

	{"__open64", "{ws}/new O_WRONLY|O_CREAT 0640", FD, .after = {"file {ws}/new", "mode {ws}/new 0640"}},
	{"__open64", "{out}/new O_WRONLY|O_CREAT 0644", DENIED, .after = {"absent {out}/new"},
	 .msg = "write '{out}/new': " OUTSIDE},
	{"__open64", "{out}/secret O_RDONLY", DENIED, .ini = SECRETS,
	 .msg = "read '{out}/secret': matches deny rule '{out}/secret'"},
	{"__open64", "{ws}/missing O_RDONLY", ERR(ENOENT)},

	/* The fortified entry points: no mode, so no O_CREAT (libc aborts). */
	{"__open_2", "{ws}/file O_WRONLY|O_TRUNC", FD, .after = {"empty {ws}/file"}},
	{"__open_2", "{out}/file O_RDONLY", FD},
	{"__open_2", "{out}/file O_WRONLY|O_TRUNC", DENIED, .after = {"content {out}/file outside"},
	 .msg = "write '{out}/file': " OUTSIDE},
	{"__open_2", "{out}/secret O_RDONLY", DENIED, .ini = SECRETS,
	 .msg = "read '{out}/secret': matches deny rule '{out}/secret'"},
	{"__open_2", "{ws}/new O_WRONLY|O_CREAT", ABORTS, .after = {"absent {ws}/new"}},
	{"__open_2", "link O_RDONLY|O_NOFOLLOW", ERR(ELOOP)},

	{"__open64_2", "{ws}/file O_WRONLY|O_TRUNC", FD, .after = {"empty {ws}/file"}},
	{"__open64_2", "{out}/file O_WRONLY|O_TRUNC", DENIED, .after = {"content {out}/file outside"},
	 .msg = "write '{out}/file': " OUTSIDE},
	{"__open64_2", "{out}/secret O_RDONLY", DENIED, .ini = SECRETS,
	 .msg = "read '{out}/secret': matches deny rule '{out}/secret'"},
	{"__open64_2", "{ws}/new O_WRONLY|O_CREAT", ABORTS, .after = {"absent {ws}/new"}},
	{"__open64_2", "{ws}/missing O_RDONLY", ERR(ENOENT)},

	{"openat", "{ws} new O_WRONLY|O_CREAT 0644", FD, .after = {"file {ws}/new"}},
	{"openat", "{ws} file O_WRONLY|O_TRUNC", FD, .after = {"empty {ws}/file"}},
	{"openat", "AT_FDCWD file O_WRONLY|O_TRUNC", FD, .after = {"empty {ws}/file"}},
	{"openat", "{out} file O_RDONLY", FD},
	{"openat", "{out} new O_WRONLY|O_CREAT 0644", DENIED, .after = {"absent {out}/new"},
	 .msg = "write 'new' (resolved '{realout}/new'): " OUTSIDE},
	{"openat", "{out} file O_WRONLY|O_TRUNC", DENIED, .after = {"content {out}/file outside"},
	 .msg = "write 'file' (resolved '{realout}/file'): " OUTSIDE},
	{"openat", "{ws} {out}/file O_WRONLY|O_TRUNC", DENIED, .after = {"content {out}/file outside"},
	 .msg = "write '{out}/file': " OUTSIDE},
	{"openat", "{out} secret O_RDONLY", DENIED, .ini = SECRETS,
	 .msg = "read 'secret' (resolved '{realout}/secret'): matches deny rule '{out}/secret'"},
	{"openat", "badfd file O_RDONLY", ERR(EBADF)},
	{"openat", "badfd new O_WRONLY|O_CREAT 0644", ERR(EBADF), .after = {"absent {ws}/new"}},
	{"openat", "{ws} file/x O_RDONLY", ERR(ENOTDIR)},
	{"openat", "{ws} link O_RDONLY|O_NOFOLLOW", ERR(ELOOP)},
	{"openat", "{ws} '' O_RDONLY", ERR(ENOENT)},
	{"openat", "{ws} NULL O_RDONLY", ERR(EFAULT)},

	{"openat64", "{ws} new O_WRONLY|O_CREAT 0644", FD, .after = {"file {ws}/new"}},
	{"openat64", "{ws} file O_WRONLY|O_TRUNC", FD, .after = {"empty {ws}/file"}},
	{"openat64", "{out} new O_WRONLY|O_CREAT 0644", DENIED, .after = {"absent {out}/new"},
	 .msg = "write 'new' (resolved '{realout}/new'): " OUTSIDE},
	{"openat64", "{out} file O_WRONLY|O_TRUNC", DENIED, .after = {"content {out}/file outside"},
	 .msg = "write 'file' (resolved '{realout}/file'): " OUTSIDE},
	{"openat64", "badfd file O_RDONLY", ERR(EBADF)},

	{"__openat_2", "{ws} file O_WRONLY|O_TRUNC", FD, .after = {"empty {ws}/file"}},
	{"__openat_2", "{out} file O_WRONLY|O_TRUNC", DENIED, .after = {"content {out}/file outside"},
	 .msg = "write 'file' (resolved '{realout}/file'): " OUTSIDE},
	{"__openat_2", "{out} secret O_RDONLY", DENIED, .ini = SECRETS,
	 .msg = "read 'secret' (resolved '{realout}/secret'): matches deny rule '{out}/secret'"},
	{"__openat_2", "{ws} new O_WRONLY|O_CREAT", ABORTS, .after = {"absent {ws}/new"}},
	{"__openat_2", "badfd file O_RDONLY", ERR(EBADF)},

	{"__openat64_2", "{ws} file O_WRONLY|O_TRUNC", FD, .after = {"empty {ws}/file"}},
	{"__openat64_2", "{out} file O_WRONLY|O_TRUNC", DENIED, .after = {"content {out}/file outside"},
	 .msg = "write 'file' (resolved '{realout}/file'): " OUTSIDE},
	{"__openat64_2", "{ws} new O_WRONLY|O_CREAT", ABORTS, .after = {"absent {ws}/new"}},
	{"__openat64_2", "{ws} link O_RDONLY|O_NOFOLLOW", ERR(ELOOP)},

	/* A handle names no path: the shim judges what the kernel opened. */
	{"open_by_handle_at", "{ws} {ws}/file O_WRONLY|O_TRUNC", FD, .after = {"empty {ws}/file"}},
	{"open_by_handle_at", "{ws} {out}/file O_RDONLY", FD, .after = {"content {out}/file outside"}},
	{"open_by_handle_at", "{ws} {ws}/file O_RDONLY|O_TRUNC", FD, .after = {"empty {ws}/file"}},
	{"open_by_handle_at", "{ws} {out}/file O_WRONLY|O_TRUNC", DENIED, .after = {"content {out}/file outside"},
	 .msg = "write '{realout}/file': " OUTSIDE},
	{"open_by_handle_at", "{ws} {out}/file O_RDONLY|O_TRUNC", DENIED, .after = {"content {out}/file outside"},
	 .msg = "write '{realout}/file': " OUTSIDE},
	{"open_by_handle_at", "{ws} {out}/secret O_RDONLY", DENIED, .ini = SECRETS,
	 .msg = "read '{realout}/secret': matches deny rule '{out}/secret'"},
	{"open_by_handle_at", "badfd {ws}/file O_RDONLY", ERR(EBADF)},
	{"open_by_handle_at", "{ws} NULL O_RDONLY", ERR(EFAULT)},

	{"creat", "{ws}/new 0600", FD, .after = {"file {ws}/new", "mode {ws}/new 0600"}},
	{"creat", "{ws}/file 0600", FD, .after = {"empty {ws}/file", "mode {ws}/file 0644"}},
	{"creat", "{out}/new 0644", DENIED, .after = {"absent {out}/new"}, .msg = "write '{out}/new': " OUTSIDE},
	{"creat", "{out}/file 0644", DENIED, .after = {"content {out}/file outside"},
	 .msg = "write '{out}/file': " OUTSIDE},
	{"creat", "{ws}/missing/new 0644", ERR(ENOENT)},

	{"creat64", "{ws}/new 0600", FD, .after = {"file {ws}/new", "mode {ws}/new 0600"}},
	{"creat64", "{out}/file 0644", DENIED, .after = {"content {out}/file outside"},
	 .msg = "write '{out}/file': " OUTSIDE},
	{"creat64", "{ws}/dir 0644", ERR(EISDIR)},

	{"fopen", "{ws}/new w", OK, .after = {"file {ws}/new", "mode {ws}/new 0644"}},
	{"fopen", "{ws}/file w", OK, .after = {"empty {ws}/file"}},
	{"fopen", "{ws}/file a", OK, .after = {"content {ws}/file inside"}},
	{"fopen", "{out}/file r", OK},
	{"fopen", "{out}/file r", OK, .ini = SECRETS},
	{"fopen", "{out}/new w", DENIED, .after = {"absent {out}/new"}, .msg = "write '{out}/new': " OUTSIDE},
	{"fopen", "{out}/file w", DENIED, .after = {"content {out}/file outside"},
	 .msg = "write '{out}/file': " OUTSIDE},
	{"fopen", "{out}/file r+", DENIED, .msg = "write '{out}/file': " OUTSIDE},
	{"fopen", "{out}/secret r", DENIED, .ini = SECRETS,
	 .msg = "read '{out}/secret': matches deny rule '{out}/secret'"},
	{"fopen", "{ws}/file wx", ERR(EEXIST), .after = {"content {ws}/file inside"}},
	{"fopen", "{ws}/file z", ERR(EINVAL)},
	{"fopen", "{ws}/missing/new w", ERR(ENOENT)},

	{"fopen64", "{ws}/new w", OK, .after = {"file {ws}/new"}},
	{"fopen64", "{out}/new w", DENIED, .after = {"absent {out}/new"}, .msg = "write '{out}/new': " OUTSIDE},
	{"fopen64", "{out}/secret r", DENIED, .ini = SECRETS,
	 .msg = "read '{out}/secret': matches deny rule '{out}/secret'"},
	{"fopen64", "{ws}/dir w", ERR(EISDIR)},

	{"_IO_fopen", "{ws}/new w", OK, .after = {"file {ws}/new"}},
	{"_IO_fopen", "{out}/file r", OK},
	{"_IO_fopen", "{out}/new w", DENIED, .after = {"absent {out}/new"}, .msg = "write '{out}/new': " OUTSIDE},
	{"_IO_fopen", "{out}/file a", DENIED, .after = {"content {out}/file outside"},
	 .msg = "write '{out}/file': " OUTSIDE},
	{"_IO_fopen", "{out}/secret r", DENIED, .ini = SECRETS,
	 .msg = "read '{out}/secret': matches deny rule '{out}/secret'"},
	{"_IO_fopen", "{ws}/dir w", ERR(EISDIR)},

	{"freopen", "{ws}/new w", OK, .after = {"file {ws}/new"}},
	{"freopen", "{ws}/file w", OK, .after = {"empty {ws}/file"}},
	{"freopen", "{out}/file r", OK},
	{"freopen", "{out}/new w", DENIED, .after = {"absent {out}/new"}, .msg = "write '{out}/new': " OUTSIDE},
	{"freopen", "{out}/file a", DENIED, .after = {"content {out}/file outside"},
	 .msg = "write '{out}/file': " OUTSIDE},
	{"freopen", "{out}/secret r", DENIED, .ini = SECRETS,
	 .msg = "read '{out}/secret': matches deny rule '{out}/secret'"},
	{"freopen", "{ws}/missing/new w", ERR(ENOENT)},
	/* A NULL path reopens the stream's own file (here opened "r"). */
	{"freopen", "NULL a {ws}/file", OK, .after = {"content {ws}/file inside"}},
	{"freopen", "NULL r {out}/file", OK},
	{"freopen", "NULL a {out}/file", DENIED, .after = {"content {out}/file outside"},
	 .msg = "write '{realout}/file': " OUTSIDE},
	{"freopen", "NULL w {out}/file", DENIED, .after = {"content {out}/file outside"},
	 .msg = "write '{realout}/file': " OUTSIDE},

	{"freopen64", "{ws}/new w", OK, .after = {"file {ws}/new"}},
	{"freopen64", "{out}/new w", DENIED, .after = {"absent {out}/new"}, .msg = "write '{out}/new': " OUTSIDE},
	{"freopen64", "{out}/secret r", DENIED, .ini = SECRETS,
	 .msg = "read '{out}/secret': matches deny rule '{out}/secret'"},
	{"freopen64", "{ws}/missing r", ERR(ENOENT)},
	{"freopen64", "NULL a {out}/file", DENIED, .after = {"content {out}/file outside"},
	 .msg = "write '{realout}/file': " OUTSIDE},

	{"opendir", "{out}/dir", OK},
	{"opendir", "{out}/dir", OK, .ini = SECRETS},
	{"opendir", "{out}/vault", DENIED, .ini = SECRETS,
	 .msg = "read '{out}/vault': matches deny rule '{out}/vault'"},
	{"opendir", "{ws}/file", ERR(ENOTDIR)},
	{"opendir", "{ws}/missing", ERR(ENOENT)},
	{"opendir", "''", ERR(ENOENT)},

	{"scandir", "{out}/full", COUNT(3)},
	{"scandir", "{ws}/dir", COUNT(2), .ini = SECRETS},
	{"scandir", "{out}/vault", DENIED, .ini = SECRETS,
	 .msg = "read '{out}/vault': matches deny rule '{out}/vault'"},
	{"scandir", "{ws}/file", ERR(ENOTDIR)},
	{"scandir", "{ws}/missing", ERR(ENOENT)},

	{"scandir64", "{out}/full", COUNT(3)},
	{"scandir64", "{out}/vault", DENIED, .ini = SECRETS,
	 .msg = "read '{out}/vault': matches deny rule '{out}/vault'"},
	{"scandir64", "{ws}/file", ERR(ENOTDIR)},

	{"scandirat", "{out} full", COUNT(3)},
	{"scandirat", "AT_FDCWD dir", COUNT(2), .ini = SECRETS},
	{"scandirat", "{out} vault", DENIED, .ini = SECRETS,
	 .msg = "read 'vault' (resolved '{realout}/vault'): matches deny rule '{out}/vault'"},
	{"scandirat", "badfd dir", ERR(EBADF)},
	{"scandirat", "{ws} file", ERR(ENOTDIR)},

	{"scandirat64", "{out} full", COUNT(3)},
	{"scandirat64", "{out} vault", DENIED, .ini = SECRETS,
	 .msg = "read 'vault' (resolved '{realout}/vault'): matches deny rule '{out}/vault'"},
	{"scandirat64", "badfd dir", ERR(EBADF)},

	/* --- temporary files ----------------------------------------------- */
	{"mkstemp", "{ws}/tmpXXXXXX", FD, .after = {"glob {ws}/tmp??????"}},
	{"mkstemp", "tmpXXXXXX", FD, .after = {"glob {ws}/tmp??????"}},
	{"mkstemp", "{out}/tmpXXXXXX", DENIED, .after = {"noglob {out}/tmp*"},
	 .msg = "write '{out}/tmpXXXXXX': " OUTSIDE},
	{"mkstemp", "{ws}/bad", ERR(EINVAL), .after = {"absent {ws}/bad"}},
	{"mkstemp", "{ws}/missing/tmpXXXXXX", ERR(ENOENT)},

	{"mkstemp64", "{ws}/tmpXXXXXX", FD, .after = {"glob {ws}/tmp??????"}},
	{"mkstemp64", "{out}/tmpXXXXXX", DENIED, .after = {"noglob {out}/tmp*"},
	 .msg = "write '{out}/tmpXXXXXX': " OUTSIDE},
	{"mkstemp64", "{ws}/bad", ERR(EINVAL)},

	{"mkostemp", "{ws}/tmpXXXXXX O_CLOEXEC", FD, .after = {"glob {ws}/tmp??????"}},
	{"mkostemp", "{out}/tmpXXXXXX O_CLOEXEC", DENIED, .after = {"noglob {out}/tmp*"},
	 .msg = "write '{out}/tmpXXXXXX': " OUTSIDE},
	{"mkostemp", "{ws}/missing/tmpXXXXXX 0", ERR(ENOENT)},

	{"mkostemp64", "{ws}/tmpXXXXXX O_CLOEXEC", FD, .after = {"glob {ws}/tmp??????"}},
	{"mkostemp64", "{out}/tmpXXXXXX O_CLOEXEC", DENIED, .after = {"noglob {out}/tmp*"},
	 .msg = "write '{out}/tmpXXXXXX': " OUTSIDE},

	{"mkstemps", "{ws}/tmpXXXXXX.c 2", FD, .after = {"glob {ws}/tmp??????.c"}},
	{"mkstemps", "{out}/tmpXXXXXX.c 2", DENIED, .after = {"noglob {out}/tmp*"},
	 .msg = "write '{out}/tmpXXXXXX.c': " OUTSIDE},
	{"mkstemps", "{ws}/tmpXXXXXX.c 3", ERR(EINVAL)},

	{"mkstemps64", "{ws}/tmpXXXXXX.c 2", FD, .after = {"glob {ws}/tmp??????.c"}},
	{"mkstemps64", "{out}/tmpXXXXXX.c 2", DENIED, .after = {"noglob {out}/tmp*"},
	 .msg = "write '{out}/tmpXXXXXX.c': " OUTSIDE},

	{"mkostemps", "{ws}/tmpXXXXXX.c 2 O_CLOEXEC", FD, .after = {"glob {ws}/tmp??????.c"}},
	{"mkostemps", "{out}/tmpXXXXXX.c 2 O_CLOEXEC", DENIED, .after = {"noglob {out}/tmp*"},
	 .msg = "write '{out}/tmpXXXXXX.c': " OUTSIDE},

	{"mkostemps64", "{ws}/tmpXXXXXX.c 2 O_CLOEXEC", FD, .after = {"glob {ws}/tmp??????.c"}},
	{"mkostemps64", "{out}/tmpXXXXXX.c 2 O_CLOEXEC", DENIED, .after = {"noglob {out}/tmp*"},
	 .msg = "write '{out}/tmpXXXXXX.c': " OUTSIDE},

	{"mkdtemp", "{ws}/tmpXXXXXX", OK, .after = {"glob {ws}/tmp*/"}},
	{"mkdtemp", "tmpXXXXXX", OK, .after = {"glob {ws}/tmp*/"}},
	{"mkdtemp", "{out}/tmpXXXXXX", DENIED, .after = {"noglob {out}/tmp*"},
	 .msg = "write '{out}/tmpXXXXXX': " OUTSIDE},
	{"mkdtemp", "{ws}/bad", ERR(EINVAL)},

	/* tmpfile() creates an unnamed file in /tmp. */
	{"tmpfile", "", OK},
	{"tmpfile", "", DENIED, .ini = WS_ONLY,
	 .msg = "write '/tmp*': outside the writable paths (writable: {realws})"},
	{"tmpfile64", "", OK},
	{"tmpfile64", "", DENIED, .ini = WS_ONLY,
	 .msg = "write '/tmp*': outside the writable paths (writable: {realws})"},

	/* --- create, remove, rename, link ---------------------------------- */
	{"mkdir", "{ws}/new 0750", OK, .after = {"dir {ws}/new", "mode {ws}/new 0750"}},
	{"mkdir", "new 0700", OK, .after = {"dir {ws}/new", "mode {ws}/new 0700"}},
	{"mkdir", "{out}/new 0755", DENIED, .after = {"absent {out}/new"}, .msg = "write '{out}/new': " OUTSIDE},
	{"mkdir", "{out}/dir/new 0755", DENIED, .after = {"absent {out}/dir/new"},
	 .msg = "write '{out}/dir/new': " OUTSIDE},
	{"mkdir", "{ws}/dir 0755", ERR(EEXIST)},
	{"mkdir", "{ws}/missing/new 0755", ERR(ENOENT)},
	{"mkdir", "{ws}/file/new 0755", ERR(ENOTDIR)},
	{"mkdir", "'' 0755", ERR(ENOENT)},
	{"mkdir", "NULL 0755", ERR(EFAULT)},
	{"mkdir", "/ 0755", ERR(EEXIST)},
	{"mkdir", "{ws}/dir/. 0755", ERR(EEXIST)},
	{"mkdir", "{out}/dir/.. 0755", ERR(EEXIST)},
	{"mkdir", "{ws}/{name256} 0755", ERR(ENAMETOOLONG)},
	{"mkdir", "{out}/{name256} 0755", ERR(ENAMETOOLONG)},
	{"mkdir", "{huge} 0755", ERR(ENAMETOOLONG)},

	{"mkdirat", "{ws} new 0750", OK, .after = {"dir {ws}/new", "mode {ws}/new 0750"}},
	{"mkdirat", "AT_FDCWD new 0755", OK, .after = {"dir {ws}/new"}},
	{"mkdirat", "{out} new 0755", DENIED, .after = {"absent {out}/new"},
	 .msg = "write 'new' (resolved '{realout}/new'): " OUTSIDE},
	{"mkdirat", "{ws} {out}/new 0755", DENIED, .after = {"absent {out}/new"},
	 .msg = "write '{out}/new': " OUTSIDE},
	{"mkdirat", "badfd new 0755", ERR(EBADF), .after = {"absent {ws}/new"}},
	{"mkdirat", "badfd sub/new 0755", ERR(EBADF)},
	{"mkdirat", "{ws} dir 0755", ERR(EEXIST)},
	{"mkdirat", "{ws} NULL 0755", ERR(EFAULT)},

	{"rmdir", "{ws}/dir", OK, .after = {"absent {ws}/dir"}},
	{"rmdir", "dir", OK, .after = {"absent {ws}/dir"}},
	{"rmdir", "{out}/dir", DENIED, .after = {"dir {out}/dir"}, .msg = "write '{out}/dir': " OUTSIDE},
	{"rmdir", "{ws}/full", ERR(ENOTEMPTY), .after = {"file {ws}/full/x"}},
	/* An empty directory holds nothing protected. */
	{"rmdir", "{ws}/dir", OK, .ini = "[filesystem]\ndeny_write = {ws}/dir/*\n", .after = {"absent {ws}/dir"}},
	{"rmdir", "{ws}/file", ERR(ENOTDIR)},
	{"rmdir", "{ws}/missing", ERR(ENOENT)},
	/* '.', '..' and '/' as the entry: the kernel's errno, outside too. */
	{"rmdir", ".", ERR(EINVAL), .after = {"dir {ws}"}},
	{"rmdir", "{ws}/dir/.", ERR(EINVAL), .after = {"dir {ws}/dir"}},
	{"rmdir", "dir/..", ERR(ENOTEMPTY), .after = {"dir {ws}/dir"}},
	{"rmdir", "{out}/dir/.", ERR(EINVAL), .after = {"dir {out}/dir"}},
	{"rmdir", "{out}/dir/..", ERR(ENOTEMPTY), .after = {"dir {out}/dir"}},
	{"rmdir", "/", ERR(EBUSY)},
	{"rmdir", "{ws}/{name256}", ERR(ENAMETOOLONG)},

	{"unlink", "{ws}/file", OK, .after = {"absent {ws}/file"}},
	{"unlink", "link", OK, .after = {"absent {ws}/link", "content {out}/file outside"}},
	{"unlink", "{out}/file", DENIED, .after = {"content {out}/file outside"},
	 .msg = "write '{out}/file': " OUTSIDE},
	{"unlink", "{ws}/dir", ERR(EISDIR)},
	{"unlink", "{ws}/missing", ERR(ENOENT)},
	{"unlink", "{ws}/{name256}", ERR(ENAMETOOLONG)},
	{"unlink", "{out}/{name256}", ERR(ENAMETOOLONG)},
	{"unlink", "{huge}", ERR(ENAMETOOLONG)},
	{"unlink", "{ws}/dir/.", ERR(EISDIR), .after = {"dir {ws}/dir"}},

	{"unlinkat", "{ws} file 0", OK, .after = {"absent {ws}/file"}},
	{"unlinkat", "{ws} dir AT_REMOVEDIR", OK, .after = {"absent {ws}/dir"}},
	{"unlinkat", "{out} file 0", DENIED, .after = {"content {out}/file outside"},
	 .msg = "write 'file' (resolved '{realout}/file'): " OUTSIDE},
	{"unlinkat", "{out} dir AT_REMOVEDIR", DENIED, .after = {"dir {out}/dir"},
	 .msg = "write 'dir' (resolved '{realout}/dir'): " OUTSIDE},
	{"unlinkat", "badfd file 0", ERR(EBADF)},
	{"unlinkat", "{ws} full AT_REMOVEDIR", ERR(ENOTEMPTY)},
	{"unlinkat", "{ws} dir 0", ERR(EISDIR)},
	{"unlinkat", "{ws} NULL 0", ERR(EFAULT)},

	{"remove", "{ws}/file", OK, .after = {"absent {ws}/file"}},
	{"remove", "{ws}/dir", OK, .after = {"absent {ws}/dir"}},
	{"remove", "{out}/file", DENIED, .after = {"content {out}/file outside"},
	 .msg = "write '{out}/file': " OUTSIDE},
	{"remove", "{out}/dir", DENIED, .after = {"dir {out}/dir"}, .msg = "write '{out}/dir': " OUTSIDE},
	{"remove", "{ws}/full", ERR(ENOTEMPTY)},
	{"remove", "{ws}/missing", ERR(ENOENT)},

	{"rename", "{ws}/file {ws}/moved", OK, .after = {"absent {ws}/file", "content {ws}/moved inside"}},
	{"rename", "file moved", OK, .after = {"absent {ws}/file", "content {ws}/moved inside"}},
	{"rename", "link {ws}/moved", OK, .after = {"symlink {ws}/moved {out}/file", "content {out}/file outside"}},
	{"rename", "{ws}/full {ws}/dir", OK, .after = {"absent {ws}/full", "file {ws}/dir/x"}},
	{"rename", "{out}/file {ws}/moved", DENIED, .after = {"content {out}/file outside", "absent {ws}/moved"},
	 .msg = "write '{out}/file': " OUTSIDE},
	{"rename", "{ws}/file {out}/moved", DENIED, .after = {"content {ws}/file inside", "absent {out}/moved"},
	 .msg = "write '{out}/moved': " OUTSIDE},
	{"rename", "{ws}/full {ws}/moved", DENIED, .ini = "[filesystem]\ndeny_write = {ws}/full/x\n",
	 .after = {"file {ws}/full/x", "absent {ws}/moved"},
	 .msg = "write '{ws}/full': it contains '{ws}/full/x', which is protected"},
	/* A directory moved to where a rule protects what it would hold; a
	 * file holds nothing. */
	{"rename", "{ws}/full {ws}/prot", DENIED, .ini = "[filesystem]\ndeny_write = {ws}/prot/*\n",
	 .after = {"file {ws}/full/x", "absent {ws}/prot"},
	 .msg = "write '{ws}/prot': moving a directory there would carry paths into or out of what '{ws}/prot/*' "
		"protects"},
	{"rename", "{ws}/file {ws}/prot", OK, .ini = "[filesystem]\ndeny_write = {ws}/prot/*\n",
	 .after = {"content {ws}/prot inside"}},
	{"rename", "{ws}/full {ws}/dir/full", DENIED, .ini = "[filesystem]\ndeny_write = {ws}/dir/**/x\n",
	 .after = {"file {ws}/full/x"},
	 .msg = "write '{ws}/dir/full': moving a directory there would carry paths into or out of what '{ws}/dir/**/x' "
		"protects"},
	{"rename", "{ws}/file {ws}/dir", ERR(EISDIR), .after = {"content {ws}/file inside"}},
	{"rename", "{ws}/dir {ws}/full", ERR(ENOTEMPTY)},
	{"rename", "{ws}/missing {ws}/moved", ERR(ENOENT)},
	{"rename", "{ws}/file NULL", ERR(EFAULT), .after = {"content {ws}/file inside"}},

	{"renameat", "{ws} file {ws} moved", OK, .after = {"absent {ws}/file", "content {ws}/moved inside"}},
	{"renameat", "AT_FDCWD file {ws} moved", OK, .after = {"absent {ws}/file", "content {ws}/moved inside"}},
	{"renameat", "{ws} file {out} moved", DENIED, .after = {"content {ws}/file inside", "absent {out}/moved"},
	 .msg = "write 'moved' (resolved '{realout}/moved'): " OUTSIDE},
	{"renameat", "{out} file {ws} moved", DENIED, .after = {"content {out}/file outside", "absent {ws}/moved"},
	 .msg = "write 'file' (resolved '{realout}/file'): " OUTSIDE},
	{"renameat", "badfd file {ws} moved", ERR(EBADF), .after = {"content {ws}/file inside"}},
	{"renameat", "{ws} file badfd moved", ERR(EBADF), .after = {"content {ws}/file inside"}},
	{"renameat", "{ws} file {ws} missing/moved", ERR(ENOENT)},
	{"renameat", "{ws} NULL {ws} moved", ERR(EFAULT)},

	{"renameat2", "{ws} file {ws} moved 0", OK, .after = {"absent {ws}/file", "content {ws}/moved inside"}},
	{"renameat2", "{ws} file {ws} moved RENAME_NOREPLACE", OK, .after = {"content {ws}/moved inside"}},
	{"renameat2", "{ws} file {ws} full RENAME_EXCHANGE", OK,
	 .after = {"content {ws}/full inside", "file {ws}/file/x"}},
	{"renameat2", "{ws} file {ws} full RENAME_EXCHANGE", DENIED, .ini = "[filesystem]\ndeny_write = {ws}/file/*\n",
	 .after = {"content {ws}/file inside", "file {ws}/full/x"},
	 .msg = "write 'file' (resolved '{ws}/file'): moving a directory there would carry paths into or out of "
		"what '{ws}/file/*' protects"},
	{"renameat2", "{ws} file {out} file RENAME_EXCHANGE", DENIED,
	 .after = {"content {ws}/file inside", "content {out}/file outside"},
	 .msg = "write 'file' (resolved '{realout}/file'): " OUTSIDE},
	{"renameat2", "{ws} file {out} moved RENAME_NOREPLACE", DENIED, .after = {"absent {out}/moved"},
	 .msg = "write 'moved' (resolved '{realout}/moved'): " OUTSIDE},
	{"renameat2", "{ws} file {ws} dir RENAME_NOREPLACE", ERR(EEXIST), .after = {"content {ws}/file inside"}},
	{"renameat2", "{ws} file {ws} moved RENAME_EXCHANGE", ERR(ENOENT)},
	{"renameat2", "{ws} file {ws} moved RENAME_EXCHANGE|RENAME_NOREPLACE", ERR(EINVAL)},
	{"renameat2", "badfd file {ws} moved 0", ERR(EBADF)},

	{"link", "{ws}/file {ws}/hard", OK, .after = {"content {ws}/hard inside"}},
	{"link", "link {ws}/hard", OK, .after = {"symlink {ws}/hard {out}/file"}},
	{"link", "{out}/file {ws}/hard", DENIED, .after = {"absent {ws}/hard"}, .msg = "write '{out}/file': " OUTSIDE},
	{"link", "{ws}/file {out}/hard", DENIED, .after = {"absent {out}/hard"}, .msg = "write '{out}/hard': " OUTSIDE},
	{"link", "{ws}/file {ws}/dir", ERR(EEXIST)},
	{"link", "{ws}/dir {ws}/hard", ERR(EPERM), .after = {"absent {ws}/hard"}},
	{"link", "{ws}/missing {ws}/hard", ERR(ENOENT)},

	{"linkat", "{ws} file {ws} hard 0", OK, .after = {"content {ws}/hard inside"}},
	{"linkat", "{ws} link {ws} hard 0", OK, .after = {"symlink {ws}/hard {out}/file"}},
	{"linkat", "{ws} ilink {ws} hard AT_SYMLINK_FOLLOW", OK, .after = {"file {ws}/hard", "content {ws}/hard inside"}},
	{"linkat", "{ws} link {ws} hard AT_SYMLINK_FOLLOW", DENIED, .after = {"absent {ws}/hard"},
	 .msg = "write 'link' (resolved '{realout}/file'): " OUTSIDE},
	{"linkat", "{out} file {ws} hard 0", DENIED, .after = {"absent {ws}/hard"},
	 .msg = "write 'file' (resolved '{realout}/file'): " OUTSIDE},
	{"linkat", "{ws} file {out} hard 0", DENIED, .after = {"absent {out}/hard"},
	 .msg = "write 'hard' (resolved '{realout}/hard'): " OUTSIDE},
	{"linkat", "badfd file {ws} hard 0", ERR(EBADF)},
	{"linkat", "{ws} file {ws} hard AT_REMOVEDIR", ERR(EINVAL)},

	{"symlink", "{out}/file {ws}/sl", OK, .after = {"symlink {ws}/sl {out}/file"}},
	{"symlink", "file sl", OK, .after = {"symlink {ws}/sl file"}},
	{"symlink", "{ws}/file {out}/sl", DENIED, .after = {"absent {out}/sl"}, .msg = "write '{out}/sl': " OUTSIDE},
	{"symlink", "x {ws}/file", ERR(EEXIST), .after = {"content {ws}/file inside"}},
	{"symlink", "x {ws}/missing/sl", ERR(ENOENT)},

	{"symlinkat", "{out}/file {ws} sl", OK, .after = {"symlink {ws}/sl {out}/file"}},
	{"symlinkat", "x AT_FDCWD sl", OK, .after = {"symlink {ws}/sl x"}},
	{"symlinkat", "{ws}/file {out} sl", DENIED, .after = {"absent {out}/sl"},
	 .msg = "write 'sl' (resolved '{realout}/sl'): " OUTSIDE},
	{"symlinkat", "x badfd sl", ERR(EBADF)},
	{"symlinkat", "x {ws} file", ERR(EEXIST)},
	{"symlinkat", "x {ws} NULL", ERR(EFAULT)},

	{"mknod", "{ws}/node S_IFIFO|0640 0", OK, .after = {"fifo {ws}/node", "mode {ws}/node 0640"}},
	{"mknod", "{ws}/reg S_IFREG|0600 0", OK, .after = {"file {ws}/reg", "mode {ws}/reg 0600"}},
	{"mknod", "{out}/node S_IFIFO|0644 0", DENIED, .after = {"absent {out}/node"},
	 .msg = "write '{out}/node': " OUTSIDE},
	{"mknod", "{ws}/file S_IFIFO|0644 0", ERR(EEXIST)},

	{"mknodat", "{ws} node S_IFIFO|0644 0", OK, .after = {"fifo {ws}/node"}},
	{"mknodat", "{out} node S_IFIFO|0644 0", DENIED, .after = {"absent {out}/node"},
	 .msg = "write 'node' (resolved '{realout}/node'): " OUTSIDE},
	{"mknodat", "badfd node S_IFIFO|0644 0", ERR(EBADF)},
	{"mknodat", "{ws} NULL S_IFIFO|0644 0", ERR(EFAULT)},

	/* The stat-era ABI of mknod (version 0 on x86_64). */
	{"__xmknod", "{ws}/node S_IFIFO|0644 0", OK, .after = {"fifo {ws}/node", "mode {ws}/node 0644"}},
	{"__xmknod", "node S_IFIFO|0640 0", OK, .after = {"fifo {ws}/node", "mode {ws}/node 0640"}},
	{"__xmknod", "{out}/node S_IFIFO|0644 0", DENIED, .after = {"absent {out}/node"},
	 .msg = "write '{out}/node': " OUTSIDE},
	{"__xmknod", "{ws}/file S_IFIFO|0644 0", ERR(EEXIST)},

	{"__xmknodat", "{ws} node S_IFIFO|0644 0", OK, .after = {"fifo {ws}/node", "mode {ws}/node 0644"}},
	{"__xmknodat", "{out} node S_IFIFO|0644 0", DENIED, .after = {"absent {out}/node"},
	 .msg = "write 'node' (resolved '{realout}/node'): " OUTSIDE},
	{"__xmknodat", "{ws} {out}/node S_IFIFO|0644 0", DENIED, .after = {"absent {out}/node"},
	 .msg = "write '{out}/node': " OUTSIDE},
	{"__xmknodat", "badfd node S_IFIFO|0644 0", ERR(EBADF)},

	{"mkfifo", "{ws}/fifo 0640", OK, .after = {"fifo {ws}/fifo", "mode {ws}/fifo 0640"}},
	{"mkfifo", "{out}/fifo 0644", DENIED, .after = {"absent {out}/fifo"}, .msg = "write '{out}/fifo': " OUTSIDE},
	{"mkfifo", "{ws}/file 0644", ERR(EEXIST)},
	{"mkfifo", "{ws}/missing/fifo 0644", ERR(ENOENT)},

	{"mkfifoat", "{ws} fifo 0644", OK, .after = {"fifo {ws}/fifo"}},
	{"mkfifoat", "{out} fifo 0644", DENIED, .after = {"absent {out}/fifo"},
	 .msg = "write 'fifo' (resolved '{realout}/fifo'): " OUTSIDE},
	{"mkfifoat", "badfd fifo 0644", ERR(EBADF)},
	{"mkfifoat", "{ws} NULL 0644", ERR(EFAULT)},

	{"bind", "{ws}/sock", OK, .after = {"sock {ws}/sock"}},
	{"bind", "sock", OK, .after = {"sock {ws}/sock"}},
	{"bind", "{out}/sock", DENIED, .after = {"absent {out}/sock"}, .msg = "write '{out}/sock': " OUTSIDE},
	{"bind", "{ws}/file", ERR(EADDRINUSE)},
	{"bind", "{ws}/missing/sock", ERR(ENOENT)},

	/* --- contents and metadata ----------------------------------------- */
	{"truncate", "{ws}/file 2", OK, .after = {"content {ws}/file in"}},
	{"truncate", "ilink 3", OK, .after = {"content {ws}/file ins"}},
	{"truncate", "{out}/file 2", DENIED, .after = {"content {out}/file outside"},
	 .msg = "write '{out}/file': " OUTSIDE},
	{"truncate", "link 2", DENIED, .after = {"content {out}/file outside"},
	 .msg = "write 'link' (resolved '{realout}/file'): " OUTSIDE},
	{"truncate", "{ws}/dir 0", ERR(EISDIR)},
	{"truncate", "{ws}/missing 0", ERR(ENOENT)},
	{"truncate", "{ws}/file -1", ERR(EINVAL), .after = {"content {ws}/file inside"}},
	{"truncate", "NULL 0", ERR(EFAULT)},

	{"truncate64", "{ws}/file 2", OK, .after = {"content {ws}/file in"}},
	{"truncate64", "{out}/file 2", DENIED, .after = {"content {out}/file outside"},
	 .msg = "write '{out}/file': " OUTSIDE},
	{"truncate64", "link 0", DENIED, .after = {"content {out}/file outside"},
	 .msg = "write 'link' (resolved '{realout}/file'): " OUTSIDE},
	{"truncate64", "{ws}/dir 0", ERR(EISDIR)},

	{"chmod", "{ws}/file 0600", OK, .after = {"mode {ws}/file 0600"}},
	{"chmod", "ilink 0600", OK, .after = {"mode {ws}/file 0600"}},
	{"chmod", "{out}/file 0600", DENIED, .after = {"mode {out}/file 0644"}, .msg = "write '{out}/file': " OUTSIDE},
	{"chmod", "link 0600", DENIED, .after = {"mode {out}/file 0644"},
	 .msg = "write 'link' (resolved '{realout}/file'): " OUTSIDE},
	{"chmod", "{ws}/missing 0600", ERR(ENOENT)},

	{"lchmod", "{ws}/file 0600", OK, .after = {"mode {ws}/file 0600"}},
	{"lchmod", "{out}/file 0600", DENIED, .after = {"mode {out}/file 0644"}, .msg = "write '{out}/file': " OUTSIDE},
	{"lchmod", "link 0600", ERR(ENOTSUP), .after = {"mode {out}/file 0644"}},
	{"lchmod", "{ws}/missing 0600", ERR(ENOENT)},

	{"fchmodat", "{ws} file 0600 0", OK, .after = {"mode {ws}/file 0600"}},
	{"fchmodat", "{out} file 0600 0", DENIED, .after = {"mode {out}/file 0644"},
	 .msg = "write 'file' (resolved '{realout}/file'): " OUTSIDE},
	{"fchmodat", "{ws} link 0600 0", DENIED, .after = {"mode {out}/file 0644"},
	 .msg = "write 'link' (resolved '{realout}/file'): " OUTSIDE},
	{"fchmodat", "{ws} link 0600 AT_SYMLINK_NOFOLLOW", ERR(ENOTSUP), .after = {"mode {out}/file 0644"}},
	{"fchmodat", "badfd file 0600 0", ERR(EBADF)},
	{"fchmodat", "{ws} NULL 0600 0", ERR(EFAULT)},
	/* AT_EMPTY_PATH: the descriptor's own file is judged. */
	{"fchmodat", "O_PATH:{out}/file '' 0600 AT_EMPTY_PATH", DENIED, .after = {"mode {out}/file 0644"},
	 .msg = "write '{realout}/file': " OUTSIDE},
	{"fchmodat", "O_PATH:{out}/file '' 0600 AT_EMPTY_PATH|AT_SYMLINK_NOFOLLOW", DENIED,
	 .after = {"mode {out}/file 0644"}, .msg = "write '{realout}/file': " OUTSIDE},
	{"fchmodat", "O_RDONLY:{out}/file '' 0600 AT_EMPTY_PATH", DENIED, .after = {"mode {out}/file 0644"},
	 .msg = "write '{realout}/file': " OUTSIDE},
	{"fchmodat", "O_PATH:{ws}/file '' 0600 AT_EMPTY_PATH", ERR(EINVAL), .after = {"mode {ws}/file 0644"}},
	{"fchmodat", "O_PATH:{ws}/file '' 0600 AT_EMPTY_PATH|AT_SYMLINK_NOFOLLOW", ERR(EINVAL)},

	{"fchmod", "{ws}/file 0600", OK, .after = {"mode {ws}/file 0600"}},
	{"fchmod", "{out}/file 0600", DENIED, .after = {"mode {out}/file 0644"},
	 .msg = "write '{realout}/file': " OUTSIDE},
	{"fchmod", "badfd 0600", ERR(EBADF)},

	{"chown", "{ws}/file 1234 1234", OK, .after = {"uid {ws}/file 1234"}},
	{"chown", "{out}/file 1234 1234", DENIED, .after = {"uid {out}/file 0"}, .msg = "write '{out}/file': " OUTSIDE},
	{"chown", "link 1234 1234", DENIED, .after = {"uid {out}/file 0"},
	 .msg = "write 'link' (resolved '{realout}/file'): " OUTSIDE},
	{"chown", "{ws}/missing 1234 1234", ERR(ENOENT)},

	{"lchown", "link 1234 1234", OK, .after = {"luid {ws}/link 1234", "uid {out}/file 0"}},
	{"lchown", "{ws}/file 1234 1234", OK, .after = {"uid {ws}/file 1234"}},
	{"lchown", "{out}/file 1234 1234", DENIED, .after = {"uid {out}/file 0"}, .msg = "write '{out}/file': " OUTSIDE},
	{"lchown", "{ws}/missing 1234 1234", ERR(ENOENT)},

	{"fchownat", "{ws} file 1234 1234 0", OK, .after = {"uid {ws}/file 1234"}},
	{"fchownat", "{ws} link 1234 1234 AT_SYMLINK_NOFOLLOW", OK, .after = {"luid {ws}/link 1234", "uid {out}/file 0"}},
	{"fchownat", "{ws}/dir '' 1234 1234 AT_EMPTY_PATH", OK, .after = {"uid {ws}/dir 1234"}},
	{"fchownat", "{out} file 1234 1234 0", DENIED, .after = {"uid {out}/file 0"},
	 .msg = "write 'file' (resolved '{realout}/file'): " OUTSIDE},
	{"fchownat", "{ws} link 1234 1234 0", DENIED, .after = {"uid {out}/file 0"},
	 .msg = "write 'link' (resolved '{realout}/file'): " OUTSIDE},
	{"fchownat", "{out}/dir '' 1234 1234 AT_EMPTY_PATH", DENIED, .after = {"uid {out}/dir 0"},
	 .msg = "write '{realout}/dir': " OUTSIDE},
	{"fchownat", "badfd file 1234 1234 0", ERR(EBADF)},
	{"fchownat", "{ws} '' 1234 1234 0", ERR(ENOENT), .after = {"uid {ws} 0"}},
	{"fchownat", "{ws} NULL 1234 1234 0", ERR(EFAULT), .after = {"uid {ws} 0"}},

	{"fchown", "{ws}/file 1234 1234", OK, .after = {"uid {ws}/file 1234"}},
	{"fchown", "{out}/file 1234 1234", DENIED, .after = {"uid {out}/file 0"},
	 .msg = "write '{realout}/file': " OUTSIDE},
	{"fchown", "badfd 1234 1234", ERR(EBADF)},

	{"utime", "{ws}/file 1000000000", OK, .after = {"mtime {ws}/file 1000000000"}},
	{"utime", "ilink 1000000000", OK, .after = {"mtime {ws}/file 1000000000"}},
	{"utime", "{out}/file 1000000000", DENIED, .after = {"mtime {out}/file 1500000000"},
	 .msg = "write '{out}/file': " OUTSIDE},
	{"utime", "{out}/file NULL", DENIED, .after = {"mtime {out}/file 1500000000"},
	 .msg = "write '{out}/file': " OUTSIDE},
	{"utime", "link 1000000000", DENIED, .after = {"mtime {out}/file 1500000000"},
	 .msg = "write 'link' (resolved '{realout}/file'): " OUTSIDE},
	{"utime", "{ws}/missing 1000000000", ERR(ENOENT)},
	{"utime", "NULL 1000000000", ERR(EFAULT)},

	{"utimes", "{ws}/file 1000000000", OK, .after = {"mtime {ws}/file 1000000000"}},
	{"utimes", "{out}/file 1000000000", DENIED, .after = {"mtime {out}/file 1500000000"},
	 .msg = "write '{out}/file': " OUTSIDE},
	{"utimes", "link 1000000000", DENIED, .after = {"mtime {out}/file 1500000000"},
	 .msg = "write 'link' (resolved '{realout}/file'): " OUTSIDE},
	{"utimes", "{ws}/missing 1000000000", ERR(ENOENT)},
	{"utimes", "NULL 1000000000", ERR(EFAULT)},

	{"lutimes", "link 1000000000", OK, .after = {"lmtime {ws}/link 1000000000", "mtime {out}/file 1500000000"}},
	{"lutimes", "{out}/file 1000000000", DENIED, .after = {"mtime {out}/file 1500000000"},
	 .msg = "write '{out}/file': " OUTSIDE},
	{"lutimes", "{ws}/missing 1000000000", ERR(ENOENT)},

	{"futimesat", "{ws} file 1000000000", OK, .after = {"mtime {ws}/file 1000000000"}},
	{"futimesat", "{ws}/dir NULL 1000000000", OK, .after = {"mtime {ws}/dir 1000000000"}},
	{"futimesat", "{out} file 1000000000", DENIED, .after = {"mtime {out}/file 1500000000"},
	 .msg = "write 'file' (resolved '{realout}/file'): " OUTSIDE},
	{"futimesat", "{out}/dir NULL 1000000000", DENIED, .after = {"mtime {out}/dir 1500000000"},
	 .msg = "write '{realout}/dir': " OUTSIDE},
	{"futimesat", "{ws} link 1000000000", DENIED, .after = {"mtime {out}/file 1500000000"},
	 .msg = "write 'link' (resolved '{realout}/file'): " OUTSIDE},
	{"futimesat", "badfd file 1000000000", ERR(EBADF)},

	{"utimensat", "{ws} file 1000000000 0", OK, .after = {"mtime {ws}/file 1000000000"}},
	{"utimensat", "AT_FDCWD link 1000000000 AT_SYMLINK_NOFOLLOW", OK,
	 .after = {"lmtime {ws}/link 1000000000", "mtime {out}/file 1500000000"}},
	{"utimensat", "{ws}/dir '' 1000000000 AT_EMPTY_PATH", OK, .after = {"mtime {ws}/dir 1000000000"}},
	{"utimensat", "{out} file 1000000000 0", DENIED, .after = {"mtime {out}/file 1500000000"},
	 .msg = "write 'file' (resolved '{realout}/file'): " OUTSIDE},
	{"utimensat", "AT_FDCWD link 1000000000 0", DENIED, .after = {"mtime {out}/file 1500000000"},
	 .msg = "write 'link' (resolved '{realout}/file'): " OUTSIDE},
	{"utimensat", "{out}/dir '' 1000000000 AT_EMPTY_PATH", DENIED, .after = {"mtime {out}/dir 1500000000"},
	 .msg = "write '{realout}/dir': " OUTSIDE},
	{"utimensat", "badfd file 1000000000 0", ERR(EBADF)},
	{"utimensat", "AT_FDCWD NULL 1000000000 0", ERR(EINVAL)},
	{"utimensat", "{ws} NULL 1000000000 0", ERR(EINVAL), .after = {"mtime {ws} 1500000000"}},

	{"futimens", "{ws}/file 1000000000", OK, .after = {"mtime {ws}/file 1000000000"}},
	{"futimens", "{out}/file 1000000000", DENIED, .after = {"mtime {out}/file 1500000000"},
	 .msg = "write '{realout}/file': " OUTSIDE},
	{"futimens", "badfd 1000000000", ERR(EBADF)},

	{"futimes", "{ws}/file 1000000000", OK, .after = {"mtime {ws}/file 1000000000"}},
	{"futimes", "{out}/file 1000000000", DENIED, .after = {"mtime {out}/file 1500000000"},
	 .msg = "write '{realout}/file': " OUTSIDE},
	{"futimes", "badfd 1000000000", ERR(EBADF)},

	{"setxattr", "{ws}/file user.n w 0", OK, .after = {"xattr {ws}/file user.n=w"}},
	{"setxattr", "ilink user.n w 0", OK, .after = {"xattr {ws}/file user.n=w"}},
	{"setxattr", "{out}/file user.n w 0", DENIED, .after = {"noxattr {out}/file user.n"},
	 .msg = "write '{out}/file': " OUTSIDE},
	{"setxattr", "link user.n w 0", DENIED, .after = {"noxattr {out}/file user.n"},
	 .msg = "write 'link' (resolved '{realout}/file'): " OUTSIDE},
	{"setxattr", "{ws}/file user.k w XATTR_CREATE", ERR(EEXIST), .after = {"xattr {ws}/file user.k=v"}},
	{"setxattr", "{ws}/file user.n w XATTR_REPLACE", ERR(ENODATA)},
	{"setxattr", "{ws}/missing user.n w 0", ERR(ENOENT)},
	{"setxattr", "NULL user.n w 0", ERR(EFAULT)},

	{"lsetxattr", "{ws}/file user.n w 0", OK, .after = {"xattr {ws}/file user.n=w"}},
	{"lsetxattr", "{out}/file user.n w 0", DENIED, .after = {"noxattr {out}/file user.n"},
	 .msg = "write '{out}/file': " OUTSIDE},
	{"lsetxattr", "link user.n w 0", ERR(EPERM), .after = {"noxattr {out}/file user.n"}},

	{"fsetxattr", "{ws}/file user.n w 0", OK, .after = {"xattr {ws}/file user.n=w"}},
	{"fsetxattr", "{out}/file user.n w 0", DENIED, .after = {"noxattr {out}/file user.n"},
	 .msg = "write '{realout}/file': " OUTSIDE},
	{"fsetxattr", "badfd user.n w 0", ERR(EBADF)},

	{"removexattr", "{ws}/file user.k", OK, .after = {"noxattr {ws}/file user.k"}},
	{"removexattr", "{out}/file user.k", DENIED, .after = {"xattr {out}/file user.k=v"},
	 .msg = "write '{out}/file': " OUTSIDE},
	{"removexattr", "link user.k", DENIED, .after = {"xattr {out}/file user.k=v"},
	 .msg = "write 'link' (resolved '{realout}/file'): " OUTSIDE},
	{"removexattr", "{ws}/file user.none", ERR(ENODATA)},

	{"lremovexattr", "{ws}/file user.k", OK, .after = {"noxattr {ws}/file user.k"}},
	{"lremovexattr", "{out}/file user.k", DENIED, .after = {"xattr {out}/file user.k=v"},
	 .msg = "write '{out}/file': " OUTSIDE},
	{"lremovexattr", "link user.k", ERR(EPERM), .after = {"xattr {out}/file user.k=v"}},

	{"fremovexattr", "{ws}/file user.k", OK, .after = {"noxattr {ws}/file user.k"}},
	{"fremovexattr", "{out}/file user.k", DENIED, .after = {"xattr {out}/file user.k=v"},
	 .msg = "write '{realout}/file': " OUTSIDE},
	{"fremovexattr", "badfd user.k", ERR(EBADF)},

	/* --- files libc opens for its own APIs ----------------------------- */
	{"setmntent", "/proc/self/mounts r", OK},
	{"setmntent", "{out}/file r", OK},
	{"setmntent", "{ws}/file w", OK, .after = {"empty {ws}/file"}},
	{"setmntent", "{out}/file w", DENIED, .after = {"content {out}/file outside"},
	 .msg = "write '{out}/file': " OUTSIDE},
	{"setmntent", "{out}/file a", DENIED, .after = {"content {out}/file outside"},
	 .msg = "write '{out}/file': " OUTSIDE},
	{"setmntent", "{out}/secret r", DENIED, .ini = SECRETS,
	 .msg = "read '{out}/secret': matches deny rule '{out}/secret'"},
	{"setmntent", "{ws}/missing r", ERR(ENOENT)},

	/* updwtmp appends one record to a file that exists, and returns
	 * nothing: a refusal leaves errno EACCES. */
	{"updwtmp", "{ws}/wtmp", OK, .after = {"records {ws}/wtmp 1"}},
	{"updwtmp", "{out}/file", VOID_DENIED, .after = {"content {out}/file outside"},
	 .msg = "write '{out}/file': " OUTSIDE},
	{"updwtmp", "link", VOID_DENIED, .after = {"content {out}/file outside"},
	 .msg = "write 'link' (resolved '{realout}/file'): " OUTSIDE},
	{"updwtmp", "{ws}/missing", VOID_ERR(ENOENT), .after = {"absent {ws}/missing"}},

	{"updwtmpx", "{ws}/wtmp", OK, .after = {"records {ws}/wtmp 1"}},
	{"updwtmpx", "{out}/file", VOID_DENIED, .after = {"content {out}/file outside"},
	 .msg = "write '{out}/file': " OUTSIDE},
	{"updwtmpx", "{ws}/missing", VOID_ERR(ENOENT)},

	/* --- descriptors: watched for the pins the shim keeps, never refused - */
	{"close", "{ws}/file", OK},
	{"close", "O_PATH:{out}/dir", OK},
	{"close", "badfd", ERR(EBADF)},
	{"close_range", "{ws}/file {out}/file 0", OK},
	{"closefrom", "{ws}/file", OK},
	{"dup2", "{ws}/file 200", FD},
	{"dup2", "badfd 200", ERR(EBADF)},
	{"dup3", "{out}/file 201 O_CLOEXEC", FD},
	{"dup3", "{ws}/file 4096000 0", ERR(EBADF)},

	/* --- namespaces, mounts, the terminal ------------------------------ */
	{"unshare", "0", OK},
	{"unshare", "CLONE_FILES", OK},
	{"unshare", "CLONE_NEWUSER", REFUSED, .msg = "unshare: " NS_REASON},
	{"unshare", "CLONE_NEWNS", REFUSED, .msg = "unshare: " NS_REASON},
	{"unshare", "CLONE_FS|CLONE_NEWNS", REFUSED, .msg = "unshare: " NS_REASON},

	/* The probe's child exits 0 and is waited for: ret=0 when it ran. */
	{"clone", "SIGCHLD", OK},
	{"clone", "CLONE_FILES|SIGCHLD", OK},
	{"clone", "CLONE_NEWUSER|SIGCHLD", REFUSED, .msg = "clone: " NS_REASON},
	{"clone", "CLONE_NEWNS|SIGCHLD", REFUSED, .msg = "clone: " NS_REASON},

	/* Always refused (see always_refused below): no allowed rows. */
	{"setns", "/proc/self/ns/mnt 0", REFUSED, .msg = "setns: joining other namespaces could leave the policy behind"},
	{"setns", "/proc/self/ns/user 0", REFUSED, .msg = "setns: joining other namespaces could leave the policy behind"},

	{"mount", "{out} {ws}/dir NULL MS_BIND", REFUSED, .after = {"dir {ws}/dir", "noglob {ws}/dir/*"},
	 .msg = "mount: " MOUNT_REASON},
	{"mount", "tmpfs {ws}/full tmpfs 0", REFUSED, .after = {"file {ws}/full/x"}, .msg = "mount: " MOUNT_REASON},

	{"fsopen", "tmpfs FSOPEN_CLOEXEC", REFUSED, .msg = "fsopen: " MOUNT_REASON},

	{"open_tree", "AT_FDCWD {out} OPEN_TREE_CLONE|OPEN_TREE_CLOEXEC", REFUSED, .msg = "open_tree: " MOUNT_REASON},

	{"move_mount", "AT_FDCWD {out} AT_FDCWD {ws}/dir 0", REFUSED,
	 .after = {"dir {ws}/dir", "noglob {ws}/dir/*", "file {out}/full/x"}, .msg = "move_mount: " MOUNT_REASON},

	/* TIOCSTI is refused before the kernel sees it (on /dev/null it would
	 * answer ENOTTY); other requests pass, the kernel's answer included. */
	{"ioctl", "{ws}/file FIONREAD", OK},
	{"ioctl", "{out}/file FIONREAD", OK, .ini = SECRETS},
	{"ioctl", "{ws}/file TCGETS", ERR(ENOTTY)},
	{"ioctl", "badfd FIONREAD", ERR(EBADF)},
	{"ioctl", "/dev/null TIOCSTI", REFUSED, .msg = "ioctl TIOCSTI: " TTY_REASON},
	{"ioctl", "badfd TIOCSTI", REFUSED, .msg = "ioctl TIOCSTI: " TTY_REASON},
	/* The kernel takes the request as an unsigned int: bits above 32 do
	 * not make it another request. */
	{"ioctl", "/dev/null 0x100005412", REFUSED, .msg = "ioctl TIOCSTI: " TTY_REASON},

	/* --- syscall(2) by number: "syscall NAME ARG..." ------------------- */
	{"syscall", "umask 022", COUNT(18)}, /* not a file call: passed through */
	{"syscall", "open {ws}/new O_WRONLY|O_CREAT 0640", FD, .after = {"file {ws}/new", "mode {ws}/new 0640"}},
	{"syscall", "open {out}/new O_WRONLY|O_CREAT 0644", DENIED, .after = {"absent {out}/new"},
	 .msg = "write '{out}/new': " OUTSIDE},
	{"syscall", "openat {out} file O_WRONLY|O_TRUNC 0", DENIED, .after = {"content {out}/file outside"},
	 .msg = "write 'file' (resolved '{realout}/file'): " OUTSIDE},
	{"syscall", "openat2 {ws} new O_WRONLY|O_CREAT 0", FD, .after = {"file {ws}/new"}},
	{"syscall", "openat2 {ws} file O_RDONLY RESOLVE_NO_SYMLINKS", FD},
	{"syscall", "openat2 {out} new O_WRONLY|O_CREAT 0", DENIED, .after = {"absent {out}/new"},
	 .msg = "write 'new' (resolved '{realout}/new'): " OUTSIDE},
	/* With resolve flags the file is found the caller's way and judged
	 * through that descriptor: the message names what it is. */
	{"syscall", "openat2 {out} file O_WRONLY|O_TRUNC RESOLVE_BENEATH", DENIED,
	 .after = {"content {out}/file outside"}, .msg = "write '{realout}/file': " OUTSIDE},
	{"syscall", "openat2 {ws} link O_RDONLY RESOLVE_NO_SYMLINKS", ERR(ELOOP)},
	{"syscall", "open_by_handle_at {ws} {out}/file O_WRONLY|O_TRUNC", DENIED, .after = {"content {out}/file outside"},
	 .msg = "write '{realout}/file': " OUTSIDE},
	{"syscall", "mkdirat {ws} new 0750", OK, .after = {"dir {ws}/new", "mode {ws}/new 0750"}},
	{"syscall", "mkdir {out}/new 0755", DENIED, .after = {"absent {out}/new"}, .msg = "write '{out}/new': " OUTSIDE},
	{"syscall", "mknodat {out} node S_IFIFO|0644 0", DENIED, .after = {"absent {out}/node"},
	 .msg = "write 'node' (resolved '{realout}/node'): " OUTSIDE},
	{"syscall", "unlinkat {out} file 0", DENIED, .after = {"content {out}/file outside"},
	 .msg = "write 'file' (resolved '{realout}/file'): " OUTSIDE},
	{"syscall", "renameat2 {ws} file {ws} moved RENAME_NOREPLACE", OK,
	 .after = {"absent {ws}/file", "content {ws}/moved inside"}},
	{"syscall", "rename {ws}/file {out}/moved", DENIED, .after = {"content {ws}/file inside", "absent {out}/moved"},
	 .msg = "write '{out}/moved': " OUTSIDE},
	{"syscall", "linkat {out} file {ws} hard 0", DENIED, .after = {"absent {ws}/hard"},
	 .msg = "write 'file' (resolved '{realout}/file'): " OUTSIDE},
	{"syscall", "symlinkat x {out} sl", DENIED, .after = {"absent {out}/sl"},
	 .msg = "write 'sl' (resolved '{realout}/sl'): " OUTSIDE},
	{"syscall", "fchmodat {ws} file 0600", OK, .after = {"mode {ws}/file 0600"}},
	{"syscall", "fchmodat {out} file 0600", DENIED, .after = {"mode {out}/file 0644"},
	 .msg = "write 'file' (resolved '{realout}/file'): " OUTSIDE},
	{"syscall", "fchmodat2 {ws} link 0600 AT_SYMLINK_NOFOLLOW", ERR(ENOTSUP), .after = {"mode {out}/file 0644"}},
	{"syscall", "fchown {out}/file 1234 1234", DENIED, .after = {"uid {out}/file 0"},
	 .msg = "write '{realout}/file': " OUTSIDE},
	{"syscall", "truncate {ws}/file 2", OK, .after = {"content {ws}/file in"}},
	{"syscall", "truncate {out}/file 0", DENIED, .after = {"content {out}/file outside"},
	 .msg = "write '{out}/file': " OUTSIDE},
	{"syscall", "utimensat {ws}/dir NULL 1000000000 0", OK, .after = {"mtime {ws}/dir 1000000000"}},
	{"syscall", "utimensat {out}/dir NULL 1000000000 0", DENIED, .after = {"mtime {out}/dir 1500000000"},
	 .msg = "write '{realout}/dir': " OUTSIDE},
	{"syscall", "utimensat AT_FDCWD NULL 1000000000 0", ERR(EFAULT)},
	{"syscall", "utime {out}/file 1000000000", DENIED, .after = {"mtime {out}/file 1500000000"},
	 .msg = "write '{out}/file': " OUTSIDE},
	{"syscall", "setxattr {out}/file user.n w 0", DENIED, .after = {"noxattr {out}/file user.n"},
	 .msg = "write '{out}/file': " OUTSIDE},
	{"syscall", "fsetxattr {ws}/file user.n w 0", OK, .after = {"xattr {ws}/file user.n=w"}},
	{"syscall", "mkdirat badfd new 0755", ERR(EBADF)},
	{"syscall", "open '' O_RDONLY 0", ERR(ENOENT)},
	{"syscall", "openat2 {ws} file O_RDONLY 0x80", ERR(EINVAL)},
	/* RESOLVE_IN_ROOT: "/x" is DIRFD/x, resolved the caller's way. */
	{"syscall", "openat2 {ws} /file O_RDONLY RESOLVE_IN_ROOT", FD},
	{"syscall", "openat2 {out} /file O_RDONLY RESOLVE_IN_ROOT", FD, .ini = SECRETS},
	{"syscall", "openat2 {out} /secret O_RDONLY RESOLVE_IN_ROOT", DENIED, .ini = SECRETS,
	 .msg = "read '{realout}/secret': matches deny rule '{out}/secret'"},
	{"syscall", "openat2 {ws} /new O_WRONLY|O_CREAT RESOLVE_IN_ROOT", FD, .after = {"file {ws}/new"}},
	{"syscall", "openat2 {out} /new O_WRONLY|O_CREAT RESOLVE_IN_ROOT", DENIED, .after = {"absent {out}/new"},
	 .msg = "write 'new' (resolved '{realout}/new'): " OUTSIDE},
	{"syscall", "openat2 {out} /file O_WRONLY|O_TRUNC RESOLVE_IN_ROOT", DENIED,
	 .after = {"content {out}/file outside"}, .msg = "write '{realout}/file': " OUTSIDE},
	{"syscall", "openat2 {ws} /link O_RDONLY RESOLVE_IN_ROOT", ERR(ENOENT)},
	{"syscall", "openat2 {ws} /file O_WRONLY|O_CREAT|O_EXCL RESOLVE_IN_ROOT", ERR(EEXIST),
	 .after = {"content {ws}/file inside"}},
	{"syscall", "unshare 0", OK},
	{"syscall", "unshare CLONE_NEWNS", REFUSED, .msg = "unshare: " NS_REASON},
	{"syscall", "mount {out} {ws}/dir NULL MS_BIND NULL", REFUSED, .after = {"noglob {ws}/dir/*"},
	 .msg = "mount: " MOUNT_REASON},
	{"syscall", "ioctl {ws}/file FIONREAD", OK},
	{"syscall", "ioctl /dev/null TIOCSTI", REFUSED, .msg = "ioctl TIOCSTI: " TTY_REASON},
	{"syscall", "ioctl /dev/null 0x100005412", REFUSED, .msg = "ioctl TIOCSTI: " TTY_REASON},
	/* Not judged yet: answered as a kernel without it would. */
	{"syscall", "setxattrat {ws} file 0 user.n", ERR(ENOSYS), .after = {"noxattr {ws}/file user.n"},
	 .unlike_kernel = true},
};
#pragma GCC diagnostic pop
#define NROWS (sizeof(rows) / sizeof(rows[0]))

/* The four builds of tests/probe.c (tests/tests.mk). */
static const struct build {
	const char *probe;
	bool lfs, fortify;
} builds[] = {
	{"tests/probe", false, false},
	{"tests/probe-lfs", true, false},
	{"tests/probe-fort", false, true},
	{"tests/probe-lfs-fort", true, true},
};
#define NBUILDS (sizeof(builds) / sizeof(builds[0]))

/* The libc entry point a row's FUNC reaches in BUILD: what a program
 * compiled that way calls when its source says FUNC. */
static const char *entry_point(const struct row *row, const struct build *b, char *buf, size_t size)
{
	static const char *const lfs64[] = {"open",     "openat",   "creat",     "fopen",    "freopen",
					    "mkstemp",  "mkostemp", "mkstemps",  "mkostemps", "truncate",
					    "tmpfile",  "scandir",  "scandirat"};
	const char *f = row->func;

	/* syscall() hands each number to the wrapper of that name (or to its
	 * own "syscall(NAME)"): the row names no entry point of its own. */
	if (!strcmp(f, "syscall"))
		return NULL;

	snprintf(buf, size, "%s", f);
	if (b->lfs)
		for (size_t i = 0; i < sizeof(lfs64) / sizeof(lfs64[0]); i++)
			if (!strcmp(f, lfs64[i]))
				snprintf(buf, size, "%s64", f);
	/* -O2 -D_FORTIFY_SOURCE=2: open() and openat() without a mode
	 * argument become __open_2() and __openat_2(). */
	bool mode = strstr(row->args, "O_CREAT") || strstr(row->args, "O_TMPFILE");
	if (b->fortify && !mode && (!strcmp(f, "open") || !strcmp(f, "openat")))
		snprintf(buf, size, "__%s%s_2", f, b->lfs ? "64" : "");
	return buf;
}

/* --- fixtures ------------------------------------------------------------ */

struct fx {
	char *ws, *out;
	char realws[PATH_MAX], realout[PATH_MAX], log[PATH_MAX + 16];
};

/* Every fixture directory is also written down in MADE, and the tcase's
 * teardown (in the parent) removes what is left: a failed assertion ends a
 * forked test at once (_exit), before the runner can clean up. */
static char made[64];

static void note_made(const char *dir)
{
	FILE *m = made[0] ? fopen(made, "a") : NULL;
	if (m) {
		fprintf(m, "%s\n", dir);
		fclose(m);
	}
}

static void made_setup(void)
{
	snprintf(made, sizeof(made), "/tmp/sbp-test-hooks-XXXXXX");
	int fd = mkstemp(made);
	if (fd < 0)
		made[0] = '\0';
	else
		close(fd);
}

static void made_teardown(void)
{
	char *list = made[0] ? sbt_read(made) : NULL;
	for (char *save = NULL, *d = list ? strtok_r(list, "\n", &save) : NULL; d; d = strtok_r(NULL, "\n", &save))
		if (sbt_exists(d))
			sbt_rmrf(d);
	free(list);
	if (made[0])
		unlink(made);
}

static void put(const char *dir, const char *name, const char *content)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	sbt_write(p, content);
}

static void mk(const char *dir, const char *name, const char *kind, const char *arg)
{
	char p[PATH_MAX];
	int r = 0;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	if (!strcmp(kind, "dir"))
		r = mkdir(p, 0755);
	else if (!strcmp(kind, "symlink"))
		r = symlink(arg, p);
	else if (!strcmp(kind, "xattr"))
		r = setxattr(p, "user.k", arg, strlen(arg), 0);
	ck_assert_msg(r == 0, "fixture: %s %s: %s", kind, p, strerror(errno));
}

/* Every entry's times to 1500000000, links themselves included. */
static void settle_times(const char *dir)
{
	static const char *const names[] = {"file", "dir", "full/x", "full", "link", "ilink", "wtmp",
					    "secret", "vault/key", "vault", "."};
	const struct timespec t[2] = {{1500000000, 0}, {1500000000, 0}};
	char p[PATH_MAX];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		if (sbt_exists(p))
			ck_assert_msg(utimensat(AT_FDCWD, p, t, AT_SYMLINK_NOFOLLOW) == 0, "fixture: times %s", p);
	}
}

static void fx_make(struct fx *f)
{
	char target[PATH_MAX];

	f->ws = sbt_tmpdir(false);
	f->out = sbt_tmpdir(true);
	note_made(f->ws);
	note_made(f->out);
	ck_assert(realpath(f->ws, f->realws) && realpath(f->out, f->realout));
	/* Where the shim logs its refusals (sbpreload denies it to everyone). */
	snprintf(f->log, sizeof(f->log), "%s/log", f->out);

	put(f->ws, "file", "inside");
	mk(f->ws, "dir", "dir", NULL);
	mk(f->ws, "full", "dir", NULL);
	put(f->ws, "full/x", "x");
	snprintf(target, sizeof(target), "%s/file", f->out);
	mk(f->ws, "link", "symlink", target);
	mk(f->ws, "ilink", "symlink", "file");
	mk(f->ws, "file", "xattr", "v");
	put(f->ws, "wtmp", "");

	put(f->out, "file", "outside");
	mk(f->out, "dir", "dir", NULL);
	mk(f->out, "full", "dir", NULL);
	put(f->out, "full/x", "x");
	put(f->out, "secret", "s3cret");
	mk(f->out, "vault", "dir", NULL);
	put(f->out, "vault/key", "k");
	mk(f->out, "file", "xattr", "v");

	settle_times(f->ws);
	settle_times(f->out);
}

static void fx_free(struct fx *f)
{
	sbt_rmrf(f->ws);
	sbt_rmrf(f->out);
	free(f->ws);
	free(f->out);
}

/* S with the placeholders replaced; malloc'd. */
static char *expand(const char *s, const struct fx *f)
{
	char longname[NAME_MAX + 20], name256[NAME_MAX + 2], huge[PATH_MAX + 2];
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	memset(name256, 'x', sizeof(name256) - 1);
	name256[sizeof(name256) - 1] = '\0';
	for (size_t i = 0; i + 2 < sizeof(huge); i += 2)
		memcpy(huge + i, "./", 2);
	memcpy(huge + sizeof(huge) - 2, "x", 2); /* "./././.../x": PATH_MAX + 1 bytes */
	const struct {
		const char *key, *value;
	} subst[] = {{"{ws}", f->ws},
		     {"{out}", f->out},
		     {"{realws}", f->realws},
		     {"{realout}", f->realout},
		     {"{long}", longname},
		     {"{name256}", name256},
		     {"{huge}", huge}};
	size_t cap = strlen(s) * 2 + 1024, len = 0;
	char *r = malloc(cap);

	while (*s) {
		size_t i, n = 1;
		const char *v = NULL;
		for (i = 0; i < sizeof(subst) / sizeof(subst[0]); i++)
			if (!strncmp(s, subst[i].key, strlen(subst[i].key))) {
				v = subst[i].value;
				n = strlen(subst[i].key);
				break;
			}
		size_t add = v ? strlen(v) : 1;
		if (len + add + 1 > cap)
			r = realloc(r, cap = (len + add + 1) * 2);
		memcpy(r + len, v ? v : s, add);
		len += add;
		s += n;
	}
	r[len] = '\0';
	return r;
}

/* --- what is on disk afterwards ------------------------------------------ */

static void check_after(const char *spec, const struct fx *f, const char *ctx)
{
	char *s = expand(spec, f);
	char what[16], path[PATH_MAX * 2];
	const char *value = "";
	struct stat st;
	int n = 0;

	ck_assert_msg(sscanf(s, "%15s %4095s%n", what, path, &n) == 2, "%s: bad check '%s'", ctx, spec);
	if (s[n] == ' ')
		value = s + n + 1;
	bool have = stat(path, &st) == 0;
	const char *fail = NULL;
	char detail[PATH_MAX + 128] = "";

	if (!strcmp(what, "exists")) {
		if (!sbt_exists(path))
			fail = "does not exist";
	} else if (!strcmp(what, "absent")) {
		if (sbt_exists(path))
			fail = "exists";
	} else if (!strcmp(what, "file") || !strcmp(what, "dir") || !strcmp(what, "fifo") ||
		   !strcmp(what, "sock")) {
		mode_t want = !strcmp(what, "file") ? S_IFREG
			      : !strcmp(what, "dir")  ? S_IFDIR
			      : !strcmp(what, "fifo") ? S_IFIFO
						      : S_IFSOCK;
		if (lstat(path, &st) != 0 || (st.st_mode & S_IFMT) != want)
			fail = "is not of that type";
	} else if (!strcmp(what, "content") || !strcmp(what, "empty")) {
		char *c = sbt_read(path);
		if (!c)
			fail = "cannot be read";
		else if (strcmp(c, value)) {
			snprintf(detail, sizeof(detail), " (holds '%s')", c);
			fail = "has other content";
		}
		free(c);
	} else if (!strcmp(what, "mode")) {
		if (!have || (unsigned long)(st.st_mode & 07777) != strtoul(value, NULL, 8)) {
			snprintf(detail, sizeof(detail), " (is %04o)", have ? (unsigned)(st.st_mode & 07777) : 0);
			fail = "has another mode";
		}
	} else if (!strcmp(what, "symlink")) {
		char t[PATH_MAX];
		ssize_t k = readlink(path, t, sizeof(t) - 1);
		if (k < 0 || (t[k] = '\0', strcmp(t, value)))
			fail = "is not that symlink";
	} else if (!strcmp(what, "mtime") || !strcmp(what, "lmtime") || !strcmp(what, "uid") ||
		   !strcmp(what, "luid")) {
		if (what[0] == 'l')
			have = lstat(path, &st) == 0;
		long long got = strstr(what, "uid") ? (long long)st.st_uid : (long long)st.st_mtime;
		if (!have || got != atoll(value)) {
			snprintf(detail, sizeof(detail), " (is %lld)", have ? got : -1);
			fail = strstr(what, "uid") ? "has another owner" : "has another mtime";
		}
	} else if (!strcmp(what, "records")) {
		long long want = atoll(value) * (long long)sizeof(struct utmp);
		if (!have || (long long)st.st_size != want) {
			snprintf(detail, sizeof(detail), " (is %lld bytes, not %lld)", have ? (long long)st.st_size : -1,
				 want);
			fail = "holds another number of records";
		}
	} else if (!strcmp(what, "xattr") || !strcmp(what, "noxattr")) {
		char name[256], got[256];
		const char *eq = strchr(value, '=');
		size_t nl = what[0] == 'x' && eq ? (size_t)(eq - value) : strlen(value);
		snprintf(name, sizeof(name), "%.*s", (int)nl, value);
		ssize_t k = lgetxattr(path, name, got, sizeof(got) - 1);
		if (what[0] == 'n' ? k >= 0 : (k < 0 || (got[k] = '\0', !eq || strcmp(got, eq + 1))))
			fail = what[0] == 'n' ? "has the xattr" : "lacks the xattr value";
	} else if (!strcmp(what, "glob") || !strcmp(what, "noglob")) {
		glob_t g;
		int r = glob(path, 0, NULL, &g);
		if ((what[0] == 'g') != (r == 0))
			fail = what[0] == 'g' ? "matches nothing" : "matches something";
		if (r == 0)
			globfree(&g);
	} else {
		ck_abort_msg("%s: unknown check '%s'", ctx, spec);
	}
	ck_assert_msg(!fail, "%s: after: %s: %s %s%s", ctx, spec, path, fail ? fail : "", detail);
	free(s);
}

/* --- running the probe ---------------------------------------------------- */

static char **probe_argv(const struct build *b, const struct row *row, const struct fx *f)
{
	char *args = expand(row->args, f);
	size_t n = 3;
	for (const char *p = args; *p; p++)
		n += *p == ' ';
	char **argv = calloc(n + 1, sizeof(char *));
	size_t k = 0;
	argv[k++] = strdup(sbt_path(b->probe));
	argv[k++] = strdup(row->func);
	for (char *save = NULL, *t = strtok_r(args, " ", &save); t; t = strtok_r(NULL, " ", &save))
		argv[k++] = strdup(strcmp(t, "''") ? t : "");
	argv[k] = NULL;
	free(args);
	return argv;
}

static void free_argv(char **argv)
{
	for (char **a = argv; *a; a++)
		free(*a);
	free(argv);
}

/* The probe's first line, without its newline (for comparing and messages). */
static void normalise(const char *out, char *buf, size_t size)
{
	long ret;
	char err[64];

	if (sscanf(out, "ret=%ld errno=%63s", &ret, err) == 2 && ret >= 0 && !strcmp(err, "0"))
		snprintf(buf, size, "ret=%ld errno=0", ret);
	else
		snprintf(buf, size, "%.*s", (int)strcspn(out, "\n"), out);
}

static void check_result(const struct row *row, const struct sbt_run *r, const char *ctx, const char *how)
{
	if (!strcmp(row->result, ABORTS)) {
		ck_assert_msg(r->status == 128 + 6 && !r->out[0], "%s: %s: expected SIGABRT, got status %d, '%s'",
			      ctx, how, r->status, r->out);
		return;
	}
	ck_assert_msg(r->status == 0, "%s: %s: probe exit status %d, stderr: %s", ctx, how, r->status, r->err);
	size_t len = strlen(r->out);
	ck_assert_msg(len > 0 && r->out[len - 1] == '\n' && strchr(r->out, '\n') == r->out + len - 1,
		      "%s: %s: not one line on stdout: '%s'", ctx, how, r->out);
	char got[128];
	normalise(r->out, got, sizeof(got));
	if (!strcmp(row->result, FD)) {
		long fd;
		ck_assert_msg(sscanf(got, "ret=%ld errno=0", &fd) == 1 && fd >= 0, "%s: %s: expected a descriptor, got %s",
			      ctx, how, got);
	} else {
		ck_assert_msg(!strcmp(got, row->result), "%s: %s: expected %s, got %s", ctx, how, row->result, got);
	}
}

static char *slurp_log(const char *path)
{
	char *s = sbt_read(path);
	return s ? s : strdup("");
}

/* A refusal: the policy's (DENIED, or VOID_DENIED for a function that
 * returns nothing) or one about no path at all (REFUSED).  Only a refusal
 * says what the shim writes on stderr. */
static bool is_denied(const struct row *row)
{
	return row->msg != NULL;
}

static bool refusal_result(const char *result)
{
	return !strcmp(result, DENIED) || !strcmp(result, REFUSED) || !strcmp(result, VOID_DENIED);
}

START_TEST(run_row)
{
	const struct row *row = &rows[_i / NBUILDS];
	const struct build *b = &builds[_i % NBUILDS];
	struct sbt_run *r = malloc(sizeof(*r));
	struct fx f;
	char ctx[512], call[64];

	snprintf(ctx, sizeof(ctx), "row %u [%s %s] (%s)", (unsigned)(_i / NBUILDS), row->func, row->args,
		 b->probe + 6);
	/* A row is a refusal exactly when it says what the refusal says (an
	 * EPERM without .msg is the kernel's own, e.g. link() of a directory). */
	ck_assert_msg(!strcmp(row->result, DENIED) ? row->msg != NULL : !row->msg || refusal_result(row->result),
		      "%s: table: a DENIED row needs .msg, and only DENIED, REFUSED or VOID_DENIED may have one",
		      ctx);

	/* Under the shim, with the built-in default policy (plus the row's)
	 * for this workspace, and a log to learn which entry point refused. */
	fx_make(&f);
	char *ini_row = row->ini ? expand(row->ini, &f) : strdup("");
	char *ini = malloc(strlen(ini_row) + strlen(f.log) + 32);
	sprintf(ini, "[sandbox]\nlog = %s\n%s", f.log, ini_row);
	char *pol = sbt_policy_env(ini, f.ws);
	char *extra[] = {pol, NULL};
	char **argv = probe_argv(b, row, &f);
	sbt_exec(r, f.ws, true, extra, argv);

	check_result(row, r, ctx, "under the shim");
	char *log = slurp_log(f.log);
	if (row->msg) {
		char *m = expand(row->msg, &f);
		char *want = malloc(strlen(m) + 32);
		sprintf(want, "sbpreload: denied %s\n", m);
		ck_assert_msg(fnmatch(want, r->err, 0) == 0, "%s: stderr:\n  expected: %s  got:      %s", ctx, want,
			      r->err);
		free(want);
		free(m);
		/* One record, from the entry point this build reaches. */
		char rec[128];
		const char *ep = entry_point(row, b, call, sizeof(call));
		snprintf(rec, sizeof(rec), "\"call\":\"%s", ep ? ep : "");
		if (ep)
			strcat(rec, "\"");
		char *nl = strchr(log, '\n');
		ck_assert_msg(nl && !nl[1] && strstr(log, rec) && strstr(log, "\"decision\":\"deny\""),
			      "%s: log: expected one record with %s, got: %s", ctx, rec, log);
	} else if (strcmp(row->result, ABORTS)) {
		ck_assert_msg(!r->err[0], "%s: unexpected stderr: %s", ctx, r->err);
		ck_assert_msg(!log[0], "%s: unexpected log record: %s", ctx, log);
	} else {
		ck_assert_msg(!strstr(r->err, "sbpreload:"), "%s: unexpected stderr: %s", ctx, r->err);
	}
	for (size_t k = 0; k < 4 && row->after[k]; k++)
		check_after(row->after[k], &f, ctx);
	char shim_out[128];
	normalise(r->out, shim_out, sizeof(shim_out));
	int shim_status = r->status;
	free(log);
	free_argv(argv);
	free(pol);
	free(ini);
	free(ini_row);
	fx_free(&f);

	/* Anything the policy does not refuse must behave exactly as it does
	 * without the shim: same result, same effect. */
	if (!is_denied(row) && !row->unlike_kernel) {
		char ctx2[600];
		snprintf(ctx2, sizeof(ctx2), "%s without the shim", ctx);
		fx_make(&f);
		argv = probe_argv(b, row, &f);
		sbt_exec(r, f.ws, false, NULL, argv);
		check_result(row, r, ctx2, "without the shim");
		for (size_t k = 0; k < 4 && row->after[k]; k++)
			check_after(row->after[k], &f, ctx2);
		char native_out[128];
		normalise(r->out, native_out, sizeof(native_out));
		if (!strcmp(row->result, FD)) /* descriptor numbers may differ */
			ck_assert_msg(strstr(native_out, " errno=0") && strstr(shim_out, " errno=0"), "%s", ctx2);
		else
			ck_assert_msg(!strcmp(shim_out, native_out) && shim_status == r->status,
				      "%s: shim said '%s' (status %d), libc alone '%s' (status %d)", ctx, shim_out,
				      shim_status, native_out, r->status);
		free_argv(argv);
		fx_free(&f);
	}
	free(r);
}
END_TEST

/* --- the registry -------------------------------------------------------- */

#define MAXHOOKS 512

/* sbp_hooked_names, read in a child that loads the shim (never into this
 * process, whose own calls it would then judge). */
static size_t registry(char names[][64])
{
	int p[2];
	ck_assert(pipe(p) == 0);
	pid_t pid = fork();
	ck_assert(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		putenv(sbt_policy_env("[sandbox]\nmode = off\n", "/tmp"));
		void *h = dlopen(sbt_path("libsbpreload.so"), RTLD_NOW | RTLD_LOCAL);
		const char *const *v = h ? dlsym(h, "sbp_hooked_names") : NULL;
		const unsigned *n = h ? dlsym(h, "sbp_hooked_count") : NULL;
		if (!v || !n)
			_exit(3);
		FILE *o = fdopen(p[1], "w");
		for (unsigned i = 0; i < *n; i++)
			fprintf(o, "%s\n", v[i]);
		fclose(o);
		_exit(0);
	}
	close(p[1]);
	FILE *in = fdopen(p[0], "r");
	size_t n = 0;
	char line[128];
	while (fgets(line, sizeof(line), in) && n < MAXHOOKS) {
		line[strcspn(line, "\n")] = '\0';
		snprintf(names[n++], 64, "%s", line);
	}
	fclose(in);
	int st;
	waitpid(pid, &st, 0);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "could not read sbp_hooked_names from the shim");
	return n;
}

static bool listed(char names[][64], size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

/* The registry is what the shim really exports, no more, no less. */
START_TEST(registry_is_the_exports)
{
	static char names[MAXHOOKS][64], syms[MAXHOOKS][64];
	size_t n = registry(names), ns = 0;
	char cmd[4200], line[512];

	ck_assert_msg(n > 0, "empty registry");
	snprintf(cmd, sizeof(cmd), "nm -D --defined-only '%s'", sbt_path("libsbpreload.so"));
	FILE *nm = popen(cmd, "r");
	ck_assert(nm);
	while (fgets(line, sizeof(line), nm) && ns < MAXHOOKS) {
		char addr[64], type[8], sym[256];
		if (sscanf(line, "%63s %7s %255s", addr, type, sym) == 3 && strchr("TtWi", type[0]))
			snprintf(syms[ns++], 64, "%s", sym);
	}
	ck_assert_msg(pclose(nm) == 0, "nm failed");
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(listed(syms, ns, names[i]), "%s is in the registry but not exported", names[i]);
	for (size_t i = 0; i < ns; i++)
		ck_assert_msg(listed(names, n, syms[i]), "%s is exported but not in the registry", syms[i]);
}
END_TEST

/* Hooks that refuse every call while the sandbox is on, whatever the
 * arguments: joining another namespace or changing what is mounted where
 * would let a process see other trees under allowed paths, and no policy
 * can say which mounts would be safe.  They have no row that works (and
 * must not: a row that works would mean the refusal has a way around it). */
static const char *const always_refused[] = {"setns", "mount", "fsopen", "open_tree", "move_mount"};

/* Hooks that never refuse: they only let the shim forget descriptors it
 * keeps before the program closes or replaces them (tests/test_programs.c
 * shows what that prevents).  They have no row that is refused. */
static const char *const never_refused[] = {"close", "close_range", "closefrom", "dup2", "dup3"};

#define NAMED(list, name) named(list, sizeof(list) / sizeof(list[0]), name)
static bool named(const char *const *list, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i], name))
			return true;
	return false;
}

/* Every hooked function has a row that works and a row that is refused,
 * and every row names a hooked function: a new hook without tests fails. */
START_TEST(table_covers_registry)
{
	static char names[MAXHOOKS][64];
	size_t n = registry(names);
	char missing[8192] = "";

	for (size_t i = 0; i < n; i++) {
		bool allowed = false, denied = false;
		for (size_t k = 0; k < NROWS; k++) {
			if (strcmp(rows[k].func, names[i]))
				continue;
			denied |= is_denied(&rows[k]);
			allowed |= !is_denied(&rows[k]) && strstr(rows[k].result, " errno=0");
		}
		if (NAMED(always_refused, names[i])) {
			ck_assert_msg(!allowed, "%s refuses every call, yet a row says it works", names[i]);
			allowed = true;
		}
		if (NAMED(never_refused, names[i])) {
			ck_assert_msg(!denied, "%s never refuses, yet a row says it does", names[i]);
			denied = true;
		}
		if (!allowed || !denied)
			snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing), " %s(%s)", names[i],
				 !allowed && !denied ? "no rows" : !allowed ? "no allowed row" : "no denied row");
	}
	ck_assert_msg(!missing[0], "hooked functions without tests:%s", missing);
	for (size_t k = 0; k < NROWS; k++)
		ck_assert_msg(listed(names, n, rows[k].func), "row %zu: %s is not a hooked function", k, rows[k].func);
	for (size_t i = 0; i < sizeof(always_refused) / sizeof(always_refused[0]); i++)
		ck_assert_msg(listed(names, n, always_refused[i]), "always_refused: %s is not a hooked function",
			      always_refused[i]);
	for (size_t i = 0; i < sizeof(never_refused) / sizeof(never_refused[0]); i++)
		ck_assert_msg(listed(names, n, never_refused[i]), "never_refused: %s is not a hooked function",
			      never_refused[i]);
}
END_TEST

static Suite *hooks_suite(void)
{
	Suite *s = suite_create("hooks");
	TCase *reg = tcase_create("registry");
	tcase_set_timeout(reg, 120);
	tcase_add_test(reg, registry_is_the_exports);
	tcase_add_test(reg, table_covers_registry);
	suite_add_tcase(s, reg);

	TCase *tc = tcase_create("rows x builds");
	tcase_set_timeout(tc, 120);
	tcase_add_unchecked_fixture(tc, made_setup, made_teardown);
	tcase_add_loop_test(tc, run_row, 0, (int)(NROWS * NBUILDS));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	umask(022);
	return sbt_run_suite(hooks_suite());
}
