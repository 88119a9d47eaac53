/* Internals of libsbpreload.so shared by its modules.
 *
 * Everything reachable from a hook is async-signal-safe: no malloc, no
 * stdio, no locks, no dlsym once the library is initialised. */
#ifndef SBP_SHIM_H
#define SBP_SHIM_H

#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>

#include "policy.h"

/* The policy in force; NULL or mode off = pass everything through. */
extern const struct sbp_policy *sbp_pol;
extern char sbp_exe[PATH_MAX];

void sbp_init(void);

/* open(2) reads a mode argument with O_CREAT or O_TMPFILE (which includes
 * O_DIRECTORY, so test all its bits). */
#define SBP_NEEDS_MODE(flags) (((flags) & O_CREAT) || ((flags) & __O_TMPFILE) == __O_TMPFILE)

/* How a path argument is judged. */
enum {
	SBP_FOLLOW = 1,  /* the call follows a final symlink */
	SBP_SUBTREE = 2, /* the call moves or removes the entry with all it holds */
	SBP_PIN_FINAL = 4, /* the call takes only a path: pin the final component
			      itself (/proc/self/fd/N of an O_PATH descriptor) */
	SBP_ENTRY = 8,     /* the call makes or removes a directory entry */
	SBP_CACHED = 16,   /* the parent may be a kept pin (pincache.c): the
			      caller makes the call again through a fresh pin
			      when sbp_cache_stale() says so */
};

/* Where the call then acts: NAME relative to DIRFD.  DIRFD may be a
 * descriptor the check opened (OWN_FD), so that a symlink swapped in
 * between the check and the call cannot redirect it. */
struct sbp_target {
	int dirfd;
	const char *name;
	int own_fd;        /* to close after the call, or -1 */
	int own_fd2;       /* the pinned final component (SBP_PIN_FINAL), or -1 */
	int cached;        /* DIRFD is the kept pin in this cache slot, or -1 */
	unsigned dirlen;   /* fast path: ABS[0..dirlen) is the directory DIRFD pins */
	bool clear;        /* nothing is protected at or beneath DIRFD's
			      directory: a SUBTREE query of NAME is its plain
			      one (fast path only) */
	bool pinned;       /* NAME was judged as it is now (not a symlink to follow):
			      act on it with O_NOFOLLOW / AT_SYMLINK_NOFOLLOW */
	char abs[PATH_MAX];  /* the path judged */
	char buf[PATH_MAX];  /* storage for NAME when it is not the caller's */
};

enum sbp_check_result {
	SBP_CHECK_ALLOW = 0,   /* act through the target */
	SBP_CHECK_FAIL = -1,   /* return -1 with errno set (EACCES on denial) */
	SBP_CHECK_PASS = 1,    /* no policy, or nothing to judge: call libc as is */
};

/* Judge OP on PATH (relative to DIRFD) for libc function CALL. */
int sbp_check(const char *call, enum sbp_op op, int dirfd, const char *path, unsigned how,
	      struct sbp_target *t);

/* The same, for the second path of a two-path call: when it lies in the
 * directory SHARE (the first path's target) already pins, that descriptor
 * is used again instead of opening the directory twice. */
int sbp_check_share(const char *call, enum sbp_op op, int dirfd, const char *path, unsigned how,
		    struct sbp_target *t, const struct sbp_target *share);

/* A rename of A to B (OLDPATH, NEWPATH as given), each judged by
 * sbp_check(): a path that receives a directory (B; in an exchange, A too)
 * is judged as receiving all it holds, and the pair for rules whose root
 * holds only one of them.  0 = go ahead, -1 = refused (EACCES, reported). */
int sbp_check_move(const char *call, const char *oldpath, const char *newpath, const struct sbp_target *a,
		   const struct sbp_target *b, bool exchange);

/* A private duplicate of the caller's descriptor FD to judge and act on
 * (FD itself when none can be made). */
int sbp_fd_dup(int fd);

/* Judge OP on what the open descriptor FD refers to. */
int sbp_check_fd(const char *call, enum sbp_op op, int fd);

/* Close what the check opened; keeps errno. */
void sbp_target_done(struct sbp_target *t);

/* TARGET as one path string for calls without an *at form (through
 * /proc/self/fd/N/NAME when the check holds a directory descriptor). */
const char *sbp_target_path(struct sbp_target *t, char *buf, size_t size);

/* The open family, race-free: judged and opened in one go. */
int sbp_open(const char *call, int dirfd, const char *path, int flags, unsigned mode);

/* Report a refusal: one line on stderr, one log record. */
void sbp_report(const char *call, const struct sbp_query *q, const struct sbp_verdict *v,
		const char *given, const char *resolved);

/* Report a refusal that concerns no path (a namespace, an ioctl): one
 * line "sbpreload: denied WHAT: REASON" and one log record. */
void sbp_refuse(const char *call, const char *what, const char *reason);

/* The pin cache (pincache.c). */
#include <stdint.h>
void sbp_cache_init(void);
/* The journal's note count, read before pinning what is then kept. */
uint64_t sbp_cache_seq(void);
/* The kept pin of directory DIR[0..LEN) (an absolute path without symlinks),
 * still good: its descriptor, with *SLOT referenced until
 * sbp_cache_release(); or -1. */
int sbp_cache_get(const char *dir, size_t len, int *slot);
void sbp_cache_release(int slot);
/* Nothing is protected at or beneath the kept directory (sbp_beneath_clear). */
bool sbp_cache_clear(int slot);
/* Keep a copy of PFD, the pin of DIR[0..LEN) made after journal note SEQ. */
void sbp_cache_put(const char *dir, size_t len, int pfd, uint64_t seq);
/* Note in the session's journal that ABS (NULL or "": any path) is about to
 * be renamed or removed. */
void sbp_cache_note(const char *abs);
/* Descriptors LO..HI are about to be closed or replaced by the program. */
void sbp_cache_forget(unsigned lo, unsigned hi);
/* The call through T failed (errno): true when that is because its kept
 * pin went stale (then it is dropped, errno kept, and the caller retries). */
bool sbp_cache_stale(struct sbp_target *t);
bool sbp_cache_stale_fd(int slot, int fd);
/* An open missed the cache in DIR[0..LEN): whether to pin it now (it missed
 * there lately too). */
bool sbp_cache_wanted(const char *dir, size_t len);

/* Raw system calls for the shim's own use, through libc's syscall() (never
 * our own hook of it). */
long sbp_raw(long nr, long a, long b, long c, long d, long e);

/* Raw syscalls used by the shim itself (never our own hooks). */
int sbp_sys_openat(int dirfd, const char *path, int flags, unsigned mode);
int sbp_sys_close(int fd);

#endif
